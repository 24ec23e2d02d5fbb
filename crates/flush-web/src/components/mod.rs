//! The page's components. Each takes plain data (from the core's view types or
//! the app state) in props that compare by value, so a step redraws only what it
//! changed; callbacks carry `Action`s to the reducer.

pub mod controls;
pub mod editor;
pub mod explore;
pub mod glossary;
pub mod intro;
pub mod lockstep;
pub mod logs;
pub mod overlays;
pub mod plots;
pub mod races;
pub mod side;
pub mod stage;
pub mod tour;
pub mod verdicts;
pub mod whatif;

/// Version `v` as a column or a row of another version's run names it: with
/// "proposed: ..." when the scenario's what-if knobs change that version's Go
/// code (they go with the scenario to every version; a reviewer must never take
/// a proposal for Milvus as released).
pub(crate) fn version_name(sc: &flush_core::AnyScenario, v: &str) -> String {
    let mut at = sc.clone();
    let p = at
        .set_version(v)
        .map(|()| at.proposed())
        .unwrap_or_default();
    format!("{v}{}", flush_core::report::proposed_words(" (", &p))
}
