//! sync-2024: the #34018 race under each version, the SyncSegments paths, the
//! version predicates, and the invariants.

use flush_core::scenario::{Level, SegState, Version};
use flush_core::sync2024::{request_includes, view_keeps, DcSeg, Ev, MetaSeg, World};
use flush_core::{OutcomeKind, Scenario};

use crate::common::*;

fn with_version(mut sc: Scenario, v: Version) -> Scenario {
    sc.version = Some(v);
    sc
}

/// The seed's race: the embedded schedule panics at ca7ef26e4b with the seed's message,
/// after the invariant has named the condition.
#[test]
fn scripted_schedule_panics_at_the_buggy_commit() {
    let sc = builtin("segment-not-found");
    let r = sync_run(&sc, script("0,0,1,3,3,2", 1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert_eq!(o.message, "segment not found[segment=300]");
    assert_eq!(r.len(), 6);
    let evs = events(&r);
    let removed = pos_of(&evs, |e| {
        matches!(e, Ev::MetacacheRemoved { segment: 300, .. })
    })
    .unwrap();
    let inv = pos_of(&evs, |e| matches!(e, Ev::Invariant(_))).unwrap();
    let panic = pos_of(&evs, |e| matches!(e, Ev::GoPanic { .. })).unwrap();
    assert!(removed < inv && inv < panic);
    assert_eq!(evs[inv].0, 5);
    assert_eq!(evs[panic].0, 6);
    // The log lines of the seed, in order.
    let logs: Vec<String> = evs.iter().filter_map(|(_, e)| e.log_line()).collect();
    let want = [
        "DataNode receives SyncSegments",
        "metacache does not have segment, add it",
        "remove dropped segment",
        "panic: segment not found[segment=300]",
    ];
    let mut at = 0;
    for w in want {
        at += logs[at..]
            .iter()
            .position(|l| l.contains(w))
            .unwrap_or_else(|| panic!("no {w} after {at}: {logs:?}"));
    }
}

/// The same schedule under the fix (and the follow-ups) completes with 300 kept and synced.
#[test]
fn same_schedule_completes_under_the_fixes() {
    for v in [
        Version::B5c9a7364b,
        Version::C65f41dc60,
        Version::V4cf1a358ba,
    ] {
        let sc = with_version(builtin("segment-not-found"), v);
        let r = sync_run(&sc, script("0,0,1,3,3,2", 1));
        assert_eq!(kind(&r), OutcomeKind::Completed, "{v:?}");
        let w = r.head();
        assert!(w.metacache.get(300).is_some(), "{v:?}");
        assert!(
            w.dc(300).unwrap().statslog,
            "{v:?}: the finished sync gave 300 a statslog"
        );
        assert!(w.violations.is_empty(), "{v:?}: {:?}", w.violations);
    }
    // The twin scenario file is the fixed version of the same story.
    let twin = builtin("segment-not-found-fixed");
    assert_eq!(twin.version, Some(Version::B5c9a7364b));
    assert_eq!(twin.datacoord, builtin("segment-not-found").datacoord);
}

fn panics(sc: &Scenario, seeds: std::ops::Range<u64>) -> usize {
    seeds
        .filter(|s| kind(&sync_run(sc, seeded(*s))) == OutcomeKind::Panic)
        .count()
}

/// MODEL.md §3: the panic needs SyncSegments to fall between task creation and
/// Run/writeMeta; only the buggy commit removes the Growing L1 segment.
#[test]
fn panics_per_version_across_seeds() {
    let base = builtin("segment-not-found");
    let counts: Vec<(Version, usize)> = Version::ALL
        .iter()
        .map(|v| (*v, panics(&with_version(base.clone(), *v), 0..400)))
        .collect();
    assert!(counts[0].1 > 0 && counts[0].1 < 400, "{counts:?}");
    assert!(counts[1..].iter().all(|(_, n)| *n == 0), "{counts:?}");
    // A flushing segment without a statslog: the fix of #34056 is not enough, nor is
    // c65f41dc60; 4cf1a358ba (remove only Flushed) closes it.
    let sealed = builtin("sealed-segment-flush");
    let c: Vec<usize> = Version::ALL
        .iter()
        .map(|v| panics(&with_version(sealed.clone(), *v), 0..300))
        .collect();
    assert!(c[0] > 0 && c[1] > 0 && c[2] > 0, "{c:?}");
    assert_eq!(c[3], 0, "{c:?}");
}

/// The writeMeta variant (#33696): SyncSegments lands after Run's first lookup.
#[test]
fn removal_between_run_and_write_meta_panics_in_write_meta() {
    let sc = builtin("segment-not-found");
    // insert, sync (task g2), task Run start (g2), then datacoord + handler, then writeMeta.
    let r = sync_run(&sc, script("0,0,2,1,3,3,2", 1));
    assert_eq!(
        r.outcome().unwrap().message,
        "segment not found[segment=300]"
    );
    assert!(events(&r).iter().any(|(_, e)| matches!(
        e,
        Ev::TaskSegmentMissing {
            in_write_meta: true,
            ..
        }
    )));
}

/// SyncSegments before the sync: getSyncTask skips the missing segment with a warning (no panic).
#[test]
fn removal_before_sync_is_skipped_not_a_panic() {
    let sc = builtin("segment-not-found");
    let r = sync_run(&sc, script("0,1,2,2,0", 1));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    let evs = events(&r);
    assert!(evs
        .iter()
        .any(|(_, e)| matches!(e, Ev::SyncSkipped { segment: 300 })));
    assert!(evs.iter().any(|(_, e)| e
        .log_line()
        .is_some_and(|l| l.contains("segment not found in meta"))));
}

/// An empty request is a no-op; a segment of another partition is never touched.
#[test]
fn empty_request_and_partition_scope() {
    let sc = parse(
        r#"{"name":"p","model":"sync-2024","version":"ca7ef26e4b",
        "datacoord":[{"segment":1,"partition":1,"state":"Growing","level":"L1","statslog":false},
                     {"segment":2,"partition":2,"state":"Flushed","level":"L1","statslog":true,"rows":5}],
        "datanode":[{"segment":1,"partition":1,"state":"Growing","level":"L1"},
                    {"segment":3,"partition":2,"state":"Flushed","level":"L1","rows":9},
                    {"segment":4,"partition":1,"state":"Flushed","level":"L1","rows":9}],
        "actors":[{"name":"dc","ops":[{"op":"sync_segments","partition":1},{"op":"sync_segments","partition":2}]}]}"#,
    );
    let r = sync_run(&sc, seeded(1));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    let evs = events(&r);
    assert!(
        evs.iter().any(|(_, e)| matches!(e, Ev::SyncSegmentsEmpty)),
        "partition 1 sends nothing with a statslog"
    );
    let w = r.head();
    assert!(
        w.metacache.get(1).is_some() && w.metacache.get(4).is_some(),
        "the empty request removed nothing"
    );
    assert!(
        w.metacache.get(3).is_none(),
        "3 is absent from partition 2's request"
    );
    assert_eq!(
        w.metacache.get(2).map(|s| s.state),
        Some(SegState::Flushed),
        "2 was added"
    );
}

/// Two syncs of one segment: the second waits for the first task's key lock.
#[test]
fn key_lock_serialises_tasks_of_a_segment() {
    let sc = parse(
        r#"{"name":"k","model":"sync-2024","version":"b5c9a7364b",
        "datacoord":[{"segment":7,"partition":1,"state":"Growing","level":"L1","statslog":false}],
        "actors":[{"name":"fg","ops":[{"op":"insert","segment":7,"partition":1,"rows":3},{"op":"sync","segment":7},
                   {"op":"insert","segment":7,"partition":1,"rows":4},{"op":"sync","segment":7}]}]}"#,
    );
    for seed in 0..40 {
        let r = sync_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        let first_done = pos_of(&evs, |e| matches!(e, Ev::TaskDone { n: 1, .. })).unwrap();
        let second = pos_of(&evs, |e| matches!(e, Ev::TaskSubmitted { n: 2, .. })).unwrap();
        assert!(first_done < second, "seed {seed}");
        let s = r.head().metacache.get(7).unwrap().clone();
        assert_eq!(
            (
                s.flushed_rows,
                s.syncing_rows,
                s.buffer_rows,
                s.syncing_tasks
            ),
            (7, 0, 0, 0)
        );
    }
}

/// Each version's two predicates, against MODEL.md §3.5.
#[test]
fn version_predicates() {
    let dc = |state, statslog| DcSeg {
        segment: 1,
        partition: 1,
        state,
        level: Level::L1,
        statslog,
        rows: 0,
    };
    use SegState::*;
    use Version::*;
    assert!(!request_includes(Ca7ef26e4b, &dc(Growing, false)));
    assert!(request_includes(Ca7ef26e4b, &dc(Growing, true)));
    assert!(!request_includes(B5c9a7364b, &dc(Flushed, false)));
    assert!(!request_includes(C65f41dc60, &dc(Sealed, true)));
    assert!(request_includes(C65f41dc60, &dc(Flushing, false)));
    assert!(request_includes(V4cf1a358ba, &dc(Growing, false)));
    assert!(!request_includes(V4cf1a358ba, &dc(Dropped, true)));
    let seg = |state, level| MetaSeg {
        segment: 1,
        partition: 1,
        state,
        level,
        flushed_rows: 0,
        buffer_rows: 0,
        syncing_rows: 0,
        syncing_tasks: 0,
        start_pos_recorded: true,
    };
    // (version, state, level) -> kept whatever the request says
    let table = [
        (Ca7ef26e4b, Growing, Level::L0, true),
        (Ca7ef26e4b, Growing, Level::L1, false),
        (Ca7ef26e4b, Sealed, Level::L1, false),
        (B5c9a7364b, Growing, Level::L1, true),
        (B5c9a7364b, Sealed, Level::L1, false),
        (B5c9a7364b, Flushing, Level::L1, false),
        (C65f41dc60, Sealed, Level::L1, true),
        (C65f41dc60, Flushing, Level::L1, false),
        (C65f41dc60, Flushed, Level::L1, false),
        (V4cf1a358ba, Flushing, Level::L1, true),
        (V4cf1a358ba, Flushed, Level::L1, false),
    ];
    for (v, st, lv, keep) in table {
        assert_eq!(view_keeps(v, &seg(st, lv), 1), keep, "{v:?} {st:?} {lv:?}");
        assert!(
            view_keeps(v, &seg(st, lv), 2),
            "another partition is always kept"
        );
    }
    assert_eq!(
        Version::parse("ca7ef26e4bf2bfc574737b622cc5fe7703e17806"),
        Some(Ca7ef26e4b)
    );
    assert_eq!(Version::parse("4CF1A358BA"), Some(V4cf1a358ba));
    assert_eq!(Version::parse("ca7ef"), None);
}

/// Invariants can fire: a removed-and-recreated segment loses its history, so its
/// row counts no longer add up (a task of the old incarnation is still in flight).
#[test]
fn row_counts_invariant_fires_after_recreation() {
    let mut sc = builtin("segment-not-found");
    sc.actors[0].ops.push(flush_core::scenario::Op::Insert {
        segment: 300,
        partition: 1,
        rows: 5,
    });
    // insert, sync, SyncSegments removes 300, flowgraph inserts again (re-adds 300), ...
    let r = sync_run(&sc, script("0,0,1,3,3,0", 1));
    let names: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
    assert!(names.contains(&"sync-task-segment-present"), "{names:?}");
    assert!(names.contains(&"row-counts"), "{names:?}");
    let _ = World::new(&sc);
}

/// Exploration finds the panic with a shortest schedule at the buggy commit, none under the fix.
#[test]
fn explore_finds_the_race_only_when_buggy() {
    use std::sync::Arc;
    let bug = flush_core::explore::explore(Arc::new(builtin("segment-not-found")), 50, 100_000);
    assert!(!bug.truncated);
    let p = bug
        .violations
        .iter()
        .find(|v| v.kind == "panic")
        .expect("panic found");
    assert_eq!(p.message, "segment not found[segment=300]");
    assert_eq!(
        p.steps, 6,
        "insert, sync, tick, receive (stats of 103 to load), view update, run: {}",
        p.schedule
    );
    let fixed =
        flush_core::explore::explore(Arc::new(builtin("segment-not-found-fixed")), 50, 100_000);
    assert!(fixed.violations.is_empty(), "{:?}", fixed.violations);
    assert!(fixed.states > 10);
}
