//! Helpers: build scenarios from JSON snippets, run them, look at events.

use std::sync::Arc;

use flush_core::engine::Run;
use flush_core::models::{flush2021, sync2024};
use flush_core::{AnyRun, AnyScenario, Choice, OutcomeKind, Policy};

pub fn parse(text: &str) -> AnyScenario {
    AnyScenario::parse(text, "test.json")
        .unwrap_or_else(|e| panic!("test scenario does not parse: {e}"))
}

pub fn builtin(name: &str) -> AnyScenario {
    flush_core::builtin::get(name).unwrap_or_else(|| panic!("no built-in {name}"))
}

/// A built-in's file, as a JSON tree.
pub fn builtin_json(name: &str) -> serde_json::Value {
    let path = format!("{}/../../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A built-in's file with one top-level key set (`what_if`, `policy`, ...), parsed.
pub fn builtin_with(
    name: &str,
    key: &str,
    value: serde_json::Value,
) -> Result<AnyScenario, flush_core::ScenarioError> {
    let mut v = builtin_json(name);
    v[key] = value;
    AnyScenario::parse(&v.to_string(), name)
}

/// A model's own scenario out of an [`AnyScenario`] (tests look inside models).
pub trait Of: flush_core::Model {
    fn of(sc: &AnyScenario) -> Arc<Self>;
}

impl Of for flush2021::Scenario {
    fn of(sc: &AnyScenario) -> Arc<Self> {
        match sc {
            AnyScenario::Flush(s) => s.clone(),
            _ => panic!("not a flush-2021 scenario"),
        }
    }
}

impl Of for sync2024::Scenario {
    fn of(sc: &AnyScenario) -> Arc<Self> {
        match sc {
            AnyScenario::Sync(s) => s.clone(),
            _ => panic!("not a sync-2024 scenario"),
        }
    }
}

/// A scenario a test can run as model `M`: an [`AnyScenario`] of that model, or the
/// model's own scenario.
pub trait AsModel<M> {
    fn model(&self) -> Arc<M>;
}

impl<M: Of> AsModel<M> for AnyScenario {
    fn model(&self) -> Arc<M> {
        M::of(self)
    }
}

impl<M> AsModel<M> for Arc<M> {
    fn model(&self) -> Arc<M> {
        self.clone()
    }
}

impl AsModel<flush2021::Scenario> for flush2021::Scenario {
    fn model(&self) -> Arc<flush2021::Scenario> {
        Arc::new(self.clone())
    }
}

impl AsModel<sync2024::Scenario> for sync2024::Scenario {
    fn model(&self) -> Arc<sync2024::Scenario> {
        Arc::new(self.clone())
    }
}

pub fn flush_of(sc: &AnyScenario) -> Arc<flush2021::Scenario> {
    flush2021::Scenario::of(sc)
}

pub fn sync_of(sc: &AnyScenario) -> Arc<sync2024::Scenario> {
    sync2024::Scenario::of(sc)
}

pub fn flush_run(
    sc: &impl AsModel<flush2021::Scenario>,
    policy: Policy,
) -> Run<flush2021::Scenario> {
    let mut r = Run::new(sc.model(), policy);
    r.run_to_end();
    r
}

pub fn sync_run(sc: &impl AsModel<sync2024::Scenario>, policy: Policy) -> Run<sync2024::Scenario> {
    let mut r = Run::new(sc.model(), policy);
    r.run_to_end();
    r
}

pub fn any_run(sc: &AnyScenario, policy: Policy) -> AnyRun {
    let mut r = sc.run(policy);
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
pub fn events<M: flush_core::Model>(r: &Run<M>) -> Vec<(u32, M::Fact)> {
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
pub fn manual<M: flush_core::Model>(sc: &impl AsModel<M>) -> Run<M> {
    Run::new(sc.model(), Policy::Manual)
}

/// Steps the lowest-numbered runnable goroutine that is not held back, until a step
/// yields an event matching `until` (returns true) or nothing else can run (false).
/// Tests say "run everyone but the compactor until the runner has polled" this way,
/// instead of a list of goroutine numbers that changes with the step granularity.
pub fn run_holding<M: flush_core::Model>(
    r: &mut Run<M>,
    hold: &[u32],
    until: impl Fn(&M::Fact) -> bool,
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

/// Every built-in but pairs-1000 (too big to search whole), as it is and at each
/// of its model's versions: (name, scenario).
pub fn builtins_at_every_version() -> Vec<(&'static str, AnyScenario)> {
    let mut all = Vec::new();
    for name in flush_core::builtin::names() {
        if name == flush_core::builtin::PAIRS_1000 {
            continue;
        }
        let sc = builtin(name);
        all.push((name, sc.clone()));
        all.extend(sc.at_every_version().into_iter().map(|s| (name, s)));
    }
    all
}

/// Steps after which a strict replay of `schedule` shows the violation `key`.
pub fn reaches(sc: &AnyScenario, schedule: &[Choice], key: &str) -> Option<usize> {
    sc.reaches(schedule, key)
}

/// A sync-2024 scenario whose one SyncSegments tick is `"retried"` (its first
/// attempt times out while its handler runs on) before the flow graph inserts
/// into and syncs a new growing segment, 300: at ca7ef26e4b the late handler
/// removes it and its sync task panics.
pub const RETRIED: &str = r#"{ "name": "retried-late", "model": "sync-2024", "version": "ca7ef26e4b", "seed": 1,
  "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                 { "segment": 300, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
  "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ],
  "actors": [
    { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1, "retried": true } ] },
    { "name": "flowgraph", "ops": [ { "op": "wait_for", "actor": "datacoord", "index": 0 },
                                    { "op": "insert", "segment": 300, "partition": 1, "rows": 10 },
                                    { "op": "sync", "segment": 300 } ] } ] }"#;
