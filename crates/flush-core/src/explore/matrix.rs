//! The policy matrix: a scenario under every combination of its model's knobs
//! ([`Model::variants`]), each explored, so a reviewer sees which mixes are safe,
//! which break what, and which combination each Milvus version is.

use serde::Serialize;

use super::{explore_with, Found, Options};
use crate::engine::Model;

/// One combination of knobs and what exploring it found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixRow {
    /// The Milvus versions whose preset this combination is (empty: a proposal).
    pub presets: Vec<&'static str>,
    /// The knobs that differ from the scenario's version (see `Model::proposed`).
    pub proposed: Vec<&'static str>,
    /// Every knob's setting in this combination, `(key, setting)` (in JSON, an
    /// object in knob order).
    #[serde(serialize_with = "as_object")]
    pub settings: Vec<(&'static str, &'static str)>,
    /// Each distinct finding, first schedule included.
    pub findings: Vec<Found>,
    pub states: u64,
    /// A budget cut the search short: "no finding" then means "none found",
    /// and findings are those found so far.
    pub truncated: bool,
    /// Which budget cut it short, as the option that raises it: `max_states`,
    /// `max_memory` or `max_steps` (or `cancelled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<&'static str>,
    /// The scenario's step limit, when paths reached it: its runs stop there,
    /// and "ok" means ok within it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_limit: Option<u32>,
}

impl MatrixRow {
    /// `ok`, or the findings' kinds and ids: `invariant inject-done-splice, panic ...`.
    pub fn verdict(&self) -> String {
        let cut = match (self.truncated, self.stopped_by) {
            (false, _) => None,
            (true, Some("cancelled")) => Some("the search was cancelled".to_owned()),
            (true, Some(option)) => {
                Some(format!("the budget --{} ran out", option.replace('_', "-")))
            }
            (true, None) => Some("a budget ran out".to_owned()),
        };
        if self.findings.is_empty() {
            return match (cut, self.step_limit) {
                (Some(cut), _) => format!("none found ({cut})"),
                (None, Some(n)) => format!("ok within the scenario's step limit ({n} steps)"),
                (None, None) => "ok".to_owned(),
            };
        }
        let mut v: Vec<String> = self
            .findings
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    f.kind.as_str(),
                    f.message.split(": ").next().unwrap_or("")
                )
            })
            .collect();
        v.dedup();
        match cut {
            Some(cut) => format!("{} so far ({cut}: there may be more)", v.join(", ")),
            None => v.join(", "),
        }
    }
}

/// The option whose budget cut `x` short (see [`MatrixRow::stopped_by`]).
fn stopped_by(x: &super::Exploration) -> &'static str {
    match x.stopped {
        super::Stopped::MaxStates => "max_states",
        super::Stopped::MaxBytes => "max_memory",
        super::Stopped::Cancelled => "cancelled",
        // Paths cut at the search's own depth.
        super::Stopped::Exhausted | super::Stopped::FirstViolation => "max_steps",
    }
}

fn as_object<S: serde::Serializer>(
    pairs: &[(&'static str, &'static str)],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().copied())
}

/// Explores every variant of `sc` with `o`; `progress` is told each row as it ends.
pub fn matrix<M: Model>(
    sc: &M,
    o: &Options,
    progress: &mut dyn FnMut(&MatrixRow),
) -> Vec<MatrixRow> {
    let mut rows = Vec::new();
    for (presets, v) in sc.variants() {
        let x = explore_with(&v, o, &mut |_| true);
        let stopped_by = x.truncated.then(|| stopped_by(&x));
        let row = MatrixRow {
            presets,
            proposed: v.proposed(),
            settings: v.knobs().iter().map(|k| (k.key, k.current)).collect(),
            findings: x.violations,
            states: x.states,
            truncated: x.truncated,
            stopped_by,
            step_limit: (x.scenario_step_limit && x.depth_cut > 0)
                .then(|| x.options.as_ref().map_or(0, |o| o.max_steps)),
        };
        progress(&row);
        rows.push(row);
    }
    rows
}

/// The matrix as text, a row a line.
pub fn matrix_text(name: &str, rows: &[MatrixRow]) -> String {
    let mut s = format!(
        "# policy matrix of {name}: {} combinations, each explored\n",
        rows.len()
    );
    for r in rows {
        let who = if r.presets.is_empty() {
            "proposed".to_owned()
        } else {
            format!("as in {}", r.presets.join(", "))
        };
        let knobs = if r.proposed.is_empty() {
            "(the version's own)".to_owned()
        } else {
            r.proposed.join(", ")
        };
        s.push_str(&format!(
            "{who} | {knobs} | {} | {} states\n",
            r.verdict(),
            r.states
        ));
        if let Some(f) = r.findings.first() {
            s.push_str(&format!(
                "    first finding's schedule, {}: {}\n",
                crate::report::steps_words(f.steps),
                f.schedule
            ));
            if let Some(l) = &f.link {
                s.push_str(&format!("    open in the page: {l}\n"));
            }
        }
    }
    s
}
