//! Helpers: build scenarios from JSON snippets, run them, look at events.

use std::sync::Arc;

use flush_core::engine::Run;
use flush_core::{flush2021, sync2024, AnyRun, Choice, OutcomeKind, Policy, Scenario};

pub fn parse(text: &str) -> Scenario {
    Scenario::parse(text, "test.json")
        .unwrap_or_else(|e| panic!("test scenario does not parse: {e}"))
}

pub fn builtin(name: &str) -> Scenario {
    flush_core::builtin::get(name).unwrap_or_else(|| panic!("no built-in {name}"))
}

pub fn flush_run(sc: &Scenario, policy: Policy) -> Run<flush2021::World> {
    let mut r = Run::new(Arc::new(sc.clone()), policy);
    r.run_to_end();
    r
}

pub fn sync_run(sc: &Scenario, policy: Policy) -> Run<sync2024::World> {
    let mut r = Run::new(Arc::new(sc.clone()), policy);
    r.run_to_end();
    r
}

pub fn any_run(sc: &Scenario, policy: Policy) -> AnyRun {
    let mut r = AnyRun::new(Arc::new(sc.clone()), policy);
    r.run_to_end();
    r
}

pub fn seeded(seed: u64) -> Policy {
    Policy::Seeded(seed)
}

pub fn script(s: &str, seed: u64) -> Policy {
    Policy::Scripted {
        script: Choice::parse_list(s).unwrap(),
        fallback_seed: seed,
    }
}

pub fn kind<M: flush_core::Model>(r: &Run<M>) -> OutcomeKind {
    r.outcome().expect("run ended").kind
}

/// All events of a run, flattened, with their step numbers.
pub fn events<M: flush_core::Model>(r: &Run<M>) -> Vec<(u32, M::Ev)> {
    r.records()
        .iter()
        .flat_map(|rec| r.events_of(rec).iter().map(move |e| (rec.step, e.clone())))
        .collect()
}

/// Index of the first event matching `f`.
pub fn pos_of<E>(evs: &[(u32, E)], f: impl Fn(&E) -> bool) -> Option<usize> {
    evs.iter().position(|(_, e)| f(e))
}

/// A manual run of `sc` (the tests choose every step).
pub fn manual<M: flush_core::Model>(sc: &Scenario) -> Run<M> {
    Run::new(Arc::new(sc.clone()), Policy::Manual)
}

/// Steps the lowest-numbered runnable goroutine that is not held back, until a step
/// yields an event matching `until` (returns true) or nothing else can run (false).
/// Tests say "run everyone but the compactor until the runner has polled" this way,
/// instead of a list of goroutine numbers that changes with the step granularity.
pub fn run_holding<M: flush_core::Model>(
    r: &mut Run<M>,
    hold: &[u32],
    until: impl Fn(&M::Ev) -> bool,
) -> bool {
    loop {
        let Some(c) = r.runnable_here().into_iter().find(|c| !hold.contains(&c.g)) else {
            return false;
        };
        r.advance_with(c).expect("runnable");
        let rec = r.record(r.len()).expect("the step just taken");
        if r.events_of(rec).iter().any(&until) {
            return true;
        }
    }
}

/// Runs to the end, lowest-numbered runnable goroutine first.
pub fn run_rest<M: flush_core::Model>(r: &mut Run<M>) {
    run_holding(r, &[], |_| false);
}
