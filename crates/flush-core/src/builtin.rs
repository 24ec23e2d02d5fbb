//! The built-in scenarios: the files of `scenarios/`, embedded at build time, plus
//! generated large ones for benchmarks and the browser's step-latency figure.

use crate::scenario::{Actor, Injection, ModelKind, Op, Scenario, DEFAULT_MAX_STEPS};

/// (file stem, JSON text) of every built-in scenario file, in presentation order.
pub const FILES: &[(&str, &str)] = &[
    (
        "segment-not-found",
        include_str!("../../../scenarios/segment-not-found.json"),
    ),
    (
        "segment-not-found-fixed",
        include_str!("../../../scenarios/segment-not-found-fixed.json"),
    ),
    (
        "sealed-segment-flush",
        include_str!("../../../scenarios/sealed-segment-flush.json"),
    ),
    (
        "rows-lost",
        include_str!("../../../scenarios/rows-lost.json"),
    ),
    (
        "follow-up-crash",
        include_str!("../../../scenarios/follow-up-crash.json"),
    ),
    ("handoff", include_str!("../../../scenarios/handoff.json")),
    (
        "idle-handler-injection",
        include_str!("../../../scenarios/idle-handler-injection.json"),
    ),
    (
        "ordered-flush",
        include_str!("../../../scenarios/ordered-flush.json"),
    ),
    (
        "runner-creation-race",
        include_str!("../../../scenarios/runner-creation-race.json"),
    ),
    (
        "inject-done-splice",
        include_str!("../../../scenarios/inject-done-splice.json"),
    ),
    (
        "compaction-race",
        include_str!("../../../scenarios/compaction-race.json"),
    ),
    (
        "failed-injection-sticky",
        include_str!("../../../scenarios/failed-injection-sticky.json"),
    ),
    (
        "drop-mode",
        include_str!("../../../scenarios/drop-mode.json"),
    ),
    (
        "drop-mode-injection",
        include_str!("../../../scenarios/drop-mode-injection.json"),
    ),
    (
        "drop-mode-compaction",
        include_str!("../../../scenarios/drop-mode-compaction.json"),
    ),
    ("retries", include_str!("../../../scenarios/retries.json")),
    // Milvus's own flush-manager tests at 891c202b73, ported (smaller sizes).
    (
        "go-test-order",
        include_str!("../../../scenarios/go-test-order.json"),
    ),
    (
        "go-test-execute",
        include_str!("../../../scenarios/go-test-execute.json"),
    ),
    (
        "go-test-inject",
        include_str!("../../../scenarios/go-test-inject.json"),
    ),
    (
        "go-test-drop-mode",
        include_str!("../../../scenarios/go-test-drop-mode.json"),
    ),
    (
        "go-test-drop-mode-injection",
        include_str!("../../../scenarios/go-test-drop-mode-injection.json"),
    ),
    (
        "go-test-close",
        include_str!("../../../scenarios/go-test-close.json"),
    ),
    (
        "go-test-fail-error",
        include_str!("../../../scenarios/go-test-fail-error.json"),
    ),
];

/// Name of the generated 1,000-pair scenario.
pub const PAIRS_1000: &str = "pairs-1000";

/// Every built-in name: the files, then the generated ones.
pub fn names() -> Vec<&'static str> {
    FILES.iter().map(|f| f.0).chain([PAIRS_1000]).collect()
}

/// A built-in scenario by name. `pairs-N` (N from 1 to 20000) is generated; only
/// `pairs-1000` is listed, larger ones are for timing (pairs-14500 runs about 100,000 steps).
pub fn get(name: &str) -> Option<Scenario> {
    if let Some(n) = name
        .strip_prefix("pairs-")
        .and_then(|n| n.parse::<u32>().ok())
    {
        return (1..=20_000).contains(&n).then(|| pairs(n));
    }
    let (stem, text) = FILES.iter().find(|f| f.0 == name)?;
    // The files are checked by a test; a broken one is a build-time bug.
    Some(
        Scenario::parse(text, &format!("scenarios/{stem}.json")).expect("built-in scenario parses"),
    )
}

/// `n` insert/delete pairs on segment 1 from two actors (the insert node and the
/// delete node, which gets each position after the insert node returned from it, as
/// the flow graph delivers), with a compaction injected every 100 pairs: the shape
/// of TestRendezvousFlushManager_Inject, scaled. Used by the benchmarks and the
/// browser's step-latency figure.
pub fn pairs(n: u32) -> Scenario {
    let pos = |i: u32| format!("m{i}");
    let mut ins = Vec::new();
    let mut del = Vec::new();
    let mut comp = Vec::new();
    let mut injections = Vec::new();
    for i in 0..n {
        ins.push(Op::FlushInsert {
            segment: 1,
            pos: i,
            flushed: i % 10 == 9,
            dropped: false,
            fail: 0,
        });
        // The delete node gets position i once the insert node returned from it.
        del.push(Op::WaitFor {
            actor: 0,
            index: ins.len() as u32 - 1,
        });
        del.push(Op::FlushDelete {
            segment: 1,
            pos: i,
            fail: 0,
        });
        if i % 100 == 50 {
            let id = injections.len() as u16;
            injections.push(Injection {
                id: format!("c{id}"),
                segments: vec![1],
                remap_to: None,
            });
            ins.push(Op::Inject { inj: id });
            comp.push(Op::WaitInjected { inj: id });
            comp.push(Op::InjectDone {
                inj: id,
                success: true,
            });
        }
    }
    let mut actors = vec![
        Actor {
            name: "insert-node".into(),
            ops: ins,
        },
        Actor {
            name: "delete-node".into(),
            ops: del,
        },
    ];
    if !comp.is_empty() {
        actors.push(Actor {
            name: "compactor".into(),
            ops: comp,
        });
    }
    Scenario {
        name: format!("pairs-{n}"),
        title: format!("{n} flush pairs on one queue, with compactions"),
        description: format!(
            "The insert node and the delete node flush segment 1 at {n} positions (the delete node after the insert node, as the flow graph delivers); a compaction is injected every 100 positions. A long, busy run for scrubbing and for timing the stepper."
        ),
        model: ModelKind::Flush2021,
        version: None,
        seed: 1,
        max_steps: DEFAULT_MAX_STEPS,
        schedule: None,
        positions: (0..n).map(pos).collect(),
        injections,
        replica: Vec::new(),
        faults: Default::default(),
        datacoord: Vec::new(),
        datanode: Vec::new(),
        actors,
    }
}
