//! sync-2024: the #34018 race under each version, the SyncSegments paths, the
//! version predicates, and the invariants.

use flush_core::models::sync2024::{
    request_includes, view_keeps, DcSeg, Ev, Knobs, Level, MetaSeg, Op, Scenario, SegState, Version,
};
use flush_core::{Model, OutcomeKind};

use crate::common::{self, *};

/// The tests of this file look inside the model: they hold its own scenario.
fn parse(text: &str) -> Scenario {
    (*sync_of(&common::parse(text))).clone()
}

fn builtin(name: &str) -> Scenario {
    (*sync_of(&common::builtin(name))).clone()
}

fn with_version(mut sc: Scenario, v: Version) -> Scenario {
    sc.at_version(v);
    sc
}

/// The seed's race: the embedded schedule panics at ca7ef26e4b with the seed's message,
/// after the invariant has named the condition.
#[test]
fn scripted_schedule_panics_at_the_buggy_commit() {
    let sc = builtin("segment-not-found");
    let r = sync_run(&sc, script("0,0,0,1,3,3,2", 1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert_eq!(o.message, "segment not found[segment=300]");
    assert_eq!(r.len(), 7);
    let evs = events(&r);
    let removed = pos_of(&evs, |e| {
        matches!(e, Ev::MetacacheRemoved { segment: 300, .. })
    })
    .unwrap();
    let inv = pos_of(&evs, |e| matches!(e, Ev::Invariant(_))).unwrap();
    let panic = pos_of(&evs, |e| matches!(e, Ev::GoPanic { .. })).unwrap();
    assert!(removed < inv && inv < panic);
    assert_eq!(evs[inv].0, 6);
    assert_eq!(evs[panic].0, 7);
    // The log lines of the seed, in order.
    let logs: Vec<String> = evs
        .iter()
        .filter_map(|(_, e)| e.log_line(Version::Ca7ef26e4b))
        .collect();
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
    for v in &Version::ALL[1..] {
        let v = *v;
        let sc = with_version(builtin("segment-not-found"), v);
        let r = sync_run(&sc, script("0,0,0,1,3,3,2", 1));
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
    assert_eq!(twin.version, Version::B5c9a7364b);
    assert_eq!(twin.datacoord, builtin("segment-not-found").datacoord);
}

/// The panics a scenario can reach under `v` (exhaustively explored), by message
/// prefix up to the first `[` or `(`.
fn panic_kinds(sc: &Scenario, v: Version) -> Vec<String> {
    let sc = with_version(sc.clone(), v);
    let x = flush_core::explore::explore(&sc, 100, 1_000_000);
    assert!(!x.truncated);
    x.violations
        .iter()
        .filter(|f| f.kind == OutcomeKind::Panic)
        .map(|f| {
            f.message
                .split(['[', '('])
                .next()
                .unwrap()
                .trim()
                .to_owned()
        })
        .collect()
}

/// MODEL.md §3 and the Go of each commit: the #34018 panic needs SyncSegments to
/// fall between task creation and Run/writeMeta and only the buggy commit removes
/// the Growing L1 segment; from 4cf1a358ba on the request carries 300 without a
/// statslog, and a datanode that does not have it yet crashes loading it (#34375);
/// 2e434e4453 loads only Flushed segments.
#[test]
fn panics_per_version() {
    let base = builtin("segment-not-found");
    let sf = "segment not found".to_owned();
    let nil = "runtime error: invalid memory address or nil pointer dereference".to_owned();
    let want: [(Version, Vec<String>); 6] = [
        (Version::Ca7ef26e4b, vec![sf.clone()]),
        (Version::B5c9a7364b, vec![]),
        (Version::C65f41dc60, vec![]),
        (Version::V4cf1a358ba, vec![nil.clone()]),
        (Version::V2e434e4453, vec![]),
        (Version::V439fb24b32, vec![]),
    ];
    for (v, kinds) in want {
        assert_eq!(panic_kinds(&base, v), kinds, "segment-not-found @ {v:?}");
    }
    // A flushing segment without a statslog: the fix of #34056 is not enough, nor is
    // c65f41dc60; 4cf1a358ba (remove only Flushed) closes it, but sends 400 while it
    // has no statslog.
    let sealed = builtin("sealed-segment-flush");
    for v in &Version::ALL[..3] {
        assert_eq!(panic_kinds(&sealed, *v), vec![sf.clone()], "{v:?}");
    }
    assert_eq!(panic_kinds(&sealed, Version::V4cf1a358ba), vec![nil]);
    for v in &Version::ALL[4..] {
        assert!(panic_kinds(&sealed, *v).is_empty(), "{v:?}");
    }
}

/// The writeMeta variant (#33696): SyncSegments lands after Run's first lookup.
#[test]
fn removal_between_run_and_write_meta_panics_in_write_meta() {
    let sc = builtin("segment-not-found");
    // The flow graph inserts and syncs, the task passes Run's lookup; then datacoord's
    // tick and the handler remove 300; then the task's writeMeta.
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::TaskWriteLogs { .. }
    )));
    let task = r.world().goroutines.last().unwrap().id;
    assert!(run_holding(&mut r, &[task], |e| matches!(
        e,
        Ev::MetacacheRemoved { segment: 300, .. }
    )));
    run_rest(&mut r);
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

/// SyncSegments before the sync: getSyncTask skips the missing segment with a
/// warning (no panic), and its rows stay buffered for good (buffer-not-stranded:
/// no insert or SyncSegments is left that could add 300 back).
#[test]
fn removal_before_sync_is_skipped_not_a_panic() {
    let sc = builtin("segment-not-found");
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::BufferInsert { .. }
    )));
    assert!(run_holding(&mut r, &[0], |e| matches!(
        e,
        Ev::MetacacheRemoved { segment: 300, .. }
    )));
    run_rest(&mut r);
    assert_eq!(kind(&r), OutcomeKind::Invariant);
    let evs = events(&r);
    assert!(evs
        .iter()
        .any(|(_, e)| matches!(e, Ev::SyncSkipped { segment: 300 })));
    for line in [
        "write_buffer.go:571] [\"segment info not found in meta cache\"",
        "write_buffer.go:336] [\"segment not found in meta\"",
    ] {
        assert!(
            evs.iter().any(|(_, e)| e
                .log_line(Version::Ca7ef26e4b)
                .is_some_and(|l| l.contains(line))),
            "{line}"
        );
    }
    // The rows stay in the write buffer (getSyncTask failed before yielding them).
    assert_eq!(r.head().buffered(300), 10);
    let names: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
    assert_eq!(names, ["buffer-not-stranded"]);
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
        evs.iter()
            .any(|(_, e)| matches!(e, Ev::SyncSegmentsEmpty { .. })),
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
        // Go's counters: the insert buffer counts each row twice (insert_buffer.go:110,
        // :128), so bufferRows is 8 after the insert of 4 rows, and StartSyncing takes
        // off only the last chunk (write_buffer.go:589-591): 4 stay.
        let s = *r.head().metacache.get(7).unwrap();
        assert_eq!(
            (
                s.flushed_rows,
                s.syncing_rows,
                s.buffer_rows,
                s.syncing_tasks
            ),
            (7, 0, 4, 0)
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
    let k = Knobs::of;
    assert!(!request_includes(k(Ca7ef26e4b), &dc(Growing, false)));
    assert!(request_includes(k(Ca7ef26e4b), &dc(Growing, true)));
    assert!(!request_includes(k(B5c9a7364b), &dc(Flushed, false)));
    assert!(!request_includes(k(C65f41dc60), &dc(Sealed, true)));
    assert!(request_includes(k(C65f41dc60), &dc(Flushing, false)));
    assert!(request_includes(k(V4cf1a358ba), &dc(Growing, false)));
    assert!(!request_includes(k(V4cf1a358ba), &dc(Dropped, true)));
    assert!(request_includes(k(V2e434e4453), &dc(Growing, false)));
    let l0 = DcSeg {
        level: Level::L0,
        ..dc(Flushed, false)
    };
    assert!(request_includes(k(V2e434e4453), &l0));
    assert!(
        !request_includes(k(V439fb24b32), &l0),
        "#34388 leaves L0 out"
    );
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
        history: false,
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
        (V2e434e4453, Flushed, Level::L0, false),
        (V439fb24b32, Sealed, Level::L1, true),
    ];
    for (v, st, lv, keep) in table {
        assert_eq!(
            view_keeps(k(v), &seg(st, lv), 1),
            keep,
            "{v:?} {st:?} {lv:?}"
        );
        assert!(
            view_keeps(k(v), &seg(st, lv), 2),
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
    sc.actors[0].ops.push(Op::Insert {
        segment: 300,
        partition: 1,
        rows: 5,
    });
    // insert, sync, SyncSegments removes 300, flowgraph inserts again (re-adds 300), ...
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::TaskSubmitted { .. }
    )));
    let task = r.world().goroutines.last().unwrap().id;
    assert!(run_holding(&mut r, &[0, task], |e| matches!(
        e,
        Ev::MetacacheRemoved { segment: 300, .. }
    )));
    assert!(run_holding(&mut r, &[task], |e| matches!(
        e,
        Ev::BufferInsert { added: true, .. }
    )));
    let names: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
    assert!(names.contains(&"sync-task-segment-present"), "{names:?}");
    assert!(names.contains(&"row-counts"), "{names:?}");
    // The re-added segment is found by the task, which then ends without a
    // panic, as in Go (task.go:127-128 and meta_writer.go:54-56@ca7ef26e4b
    // look it up after bufferInsert's AddSegment, write_buffer.go:531-545):
    // the invariant's message must not say the task fails (a helper found it
    // did).
    let said = r
        .head()
        .violations
        .iter()
        .find(|v| v.name() == "sync-task-segment-present");
    let said = said.expect("named above").to_string();
    assert!(
        said.ends_with("unless an insert, or a SyncSegments whose handler loads it, adds the segment back first)"),
        "{said}"
    );
    while let Some(&c) = r.runnable_here().first() {
        r.advance_with(c).expect("runnable");
    }
    assert!(r.head().panic.is_none(), "{:?}", r.head().panic);
    let done = r.records().iter().any(|rec| {
        r.events_of(rec).iter().any(|e| {
            matches!(
                e,
                Ev::TaskDone {
                    segment: 300,
                    applied: true,
                    ..
                }
            )
        })
    });
    assert!(done, "task #1 never ended");
    let _ = sc.init();
}

/// Exploration finds the panic with a shortest schedule at the buggy commit, none under the fix.
#[test]
fn explore_finds_the_race_only_when_buggy() {
    let bug = flush_core::explore::explore(&builtin("segment-not-found"), 50, 100_000);
    assert!(!bug.truncated);
    let p = bug
        .violations
        .iter()
        .find(|v| v.kind == OutcomeKind::Panic)
        .expect("panic found");
    assert_eq!(p.message, "segment not found[segment=300]");
    assert_eq!(
        p.steps, 7,
        "insert (lookup, add), sync, tick, receive (stats of 103 to load), view update, run: {}",
        p.schedule
    );
    let fixed = flush_core::explore::explore(&builtin("segment-not-found-fixed"), 50, 100_000);
    assert!(fixed.violations.is_empty(), "{:?}", fixed.violations);
    assert!(fixed.states > 10);
}

/// Issue #7, point 7: getSyncTask's lookup and serializeMergedPkStats's are separate
/// steps; SyncSegments can remove the segment in between: no task and no panic, but
/// the yielded rows are gone and the checkpoint stays pinned (rows-not-lost).
#[test]
fn rows_lost_between_get_sync_task_and_encode_buffer() {
    let sc = builtin("rows-lost");
    let r = sync_run(
        &sc,
        flush_core::Policy::Scripted {
            script: sc.head.schedule.clone().unwrap(),
            fallback_seed: sc.head.seed,
        },
    );
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Invariant, "{o}");
    assert!(o.message.starts_with("rows-not-lost"), "{o}");
    let w = r.head();
    assert!(w.panic.is_none());
    let ledger = w.rows.iter().find(|l| l.segment == 400).unwrap();
    assert_eq!((ledger.inserted, ledger.synced, ledger.lost), (20, 0, 20));
    assert_eq!(
        w.pinned,
        vec![400],
        "the syncing-task checkpoint is never removed"
    );
    assert_eq!(w.buffered(400), 0, "the rows left the write buffer");
    let evs = events(&r);
    let yielded = pos_of(&evs, |e| {
        matches!(e, Ev::BufferYielded { segment: 400, .. })
    })
    .unwrap();
    let removed = pos_of(&evs, |e| {
        matches!(e, Ev::MetacacheRemoved { segment: 400, .. })
    })
    .unwrap();
    let lost = pos_of(&evs, |e| {
        matches!(e, Ev::MergedStatsSegmentMissing { segment: 400, .. })
    })
    .unwrap();
    assert!(yielded < removed && removed < lost);
    let logs: Vec<String> = evs
        .iter()
        .filter_map(|(_, e)| e.log_line(Version::B5c9a7364b))
        .collect();
    assert!(logs.iter().any(
        |l| l.contains("storage_serializer.go:115] [\"failed to serialize merged stats log\"")
    ));
    assert!(logs
        .iter()
        .any(|l| l.contains("write_buffer.go:336] [\"segment not found in meta\"")));
}

/// A flush of a non-L0 segment with no PK stats history: SerializePkStatsList refuses
/// an empty list, which is not ErrSegmentNotFound: write_buffer.go:339 log.Fatal.
#[test]
fn flush_without_stats_history_is_fatal() {
    let sc = parse(
        r#"{"name":"fatal","model":"sync-2024","version":"439fb24b32",
        "datacoord":[{"segment":8,"partition":1,"state":"Sealed","level":"L1","statslog":false}],
        "datanode":[{"segment":8,"partition":1,"state":"Sealed","level":"L1"}],
        "actors":[{"name":"fg","ops":[{"op":"sync","segment":8,"flush":true}]}]}"#,
    );
    let r = sync_run(&sc, seeded(1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert!(o.message.contains("zero length statslog list"), "{o}");
    // With rows buffered first, EncodeBuffer rolls stats and the flush goes through.
    let mut ok = sc.clone();
    ok.actors[0].ops.insert(
        0,
        Op::Insert {
            segment: 8,
            partition: 1,
            rows: 5,
        },
    );
    assert_eq!(kind(&sync_run(&ok, seeded(1))), OutcomeKind::Completed);
}

/// Issue #7, point 8: datacoord makes a flushed segment Flushing at SaveBinlogPaths
/// (services.go:509-512) and Flushed in its flush loop (server.go:1019-1042).
#[test]
fn datacoord_flushing_then_flushed() {
    let sc = parse(
        r#"{"name":"flushing","model":"sync-2024","version":"439fb24b32",
        "datacoord":[{"segment":8,"partition":1,"state":"Growing","level":"L1","statslog":false}],
        "actors":[{"name":"fg","ops":[{"op":"insert","segment":8,"partition":1,"rows":5},{"op":"seal","segment":8},
                  {"op":"sync","segment":8,"flush":true}]}]}"#,
    );
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[], |e| matches!(
        e,
        Ev::TaskDone { .. }
    )));
    let w = r.world();
    assert_eq!(w.dc(8).unwrap().state, SegState::Flushing);
    assert_eq!(
        w.metacache.get(8).unwrap().state,
        SegState::Flushed,
        "the datanode marks it at once"
    );
    assert!(w
        .goroutines
        .iter()
        .any(|g| matches!(g.role, flush_core::models::sync2024::Role::FlushLoop)));
    run_rest(&mut r);
    assert_eq!(r.head().dc(8).unwrap().state, SegState::Flushed);
    assert!(events(&r).iter().any(|(_, e)| matches!(
        e,
        Ev::PostFlush {
            segment: 8,
            flushed: true
        }
    )));
    assert_eq!(kind(&r), OutcomeKind::Completed);
}

/// Issue #7, point 9: each version prints its own file:line and function names.
#[test]
fn log_lines_follow_each_version() {
    let removed = Ev::MetacacheRemoved {
        segment: 1,
        state: SegState::Flushed,
        level: Level::L1,
        version: Version::Ca7ef26e4b,
    };
    let receives = Ev::DatanodeReceives { partition: 1 };
    let success = Ev::SyncSegmentsSuccess {
        partition: 1,
        selected: vec![1].into(),
        version: Version::Ca7ef26e4b,
    };
    let line = |e: &Ev, v| e.log_line(v).unwrap();
    assert!(line(&removed, Version::Ca7ef26e4b).contains("meta_cache.go:299]"));
    assert!(line(&removed, Version::V4cf1a358ba).contains("meta_cache.go:301]"));
    assert!(line(&receives, Version::C65f41dc60).contains("services.go:284]"));
    assert!(line(&receives, Version::V4cf1a358ba).contains("services.go:283]"));
    assert!(line(&success, Version::B5c9a7364b).contains("sync_segments_scheduler.go:145]"));
    assert!(line(&success, Version::C65f41dc60).contains("sync_segments_scheduler.go:146]"));
    assert!(line(&success, Version::V439fb24b32).contains("sync_segments_scheduler.go:149]"));
    assert!(line(&Ev::RpcSucceeded, Version::V4cf1a358ba).contains("session_manager.go:256]"));
    assert!(line(&Ev::RpcSucceeded, Version::V2e434e4453).contains("session_manager.go:254]"));
    let req = |version| Ev::SyncSegmentsRequest {
        partition: 1,
        sent: vec![].into(),
        left_out: flush_core::models::sync2024::Few::of(&[]),
        version,
    };
    assert!(req(Version::C65f41dc60)
        .go_fn()
        .func
        .ends_with("SyncFlushedSegments"));
    assert!(req(Version::V4cf1a358ba)
        .go_fn()
        .func
        .ends_with(".SyncSegments"));
}

/// From 2e434e4453 the handler loads only missing Flushed L1 segments, warns for L0
/// (services.go:317) and Legacy (:319); 439fb24b32 stops sending L0 segments.
#[test]
fn the_fixes_of_the_nil_statslog_crash() {
    let sc = builtin("follow-up-crash");
    for (v, warned) in [(Version::V2e434e4453, true), (Version::V439fb24b32, false)] {
        let mut s = with_version(sc.clone(), v);
        s.actors.reverse(); // the datacoord tick first: the datanode lacks 500 and 600
        let r = sync_run(&s, script("0,2,2", 1));
        let evs = events(&r);
        let l0_warning = evs.iter().any(|(_, e)| {
            matches!(
                e,
                Ev::MissingSkipped {
                    segment: 600,
                    level: Level::L0
                }
            )
        });
        assert_eq!(l0_warning, warned, "{v:?}");
        if warned {
            assert!(evs.iter().any(|(_, e)| e.log_line(v).is_some_and(|l| l.contains(
                "services.go:317] [\"segment level is L0, may be the channel has not been successfully watched yet\""
            ))));
        }
        let w = r.head();
        assert!(
            w.metacache.get(600).is_none(),
            "{v:?}: the L0 segment is never added"
        );
        assert_eq!(kind(&r), OutcomeKind::Completed, "{v:?}");
    }
    // 4cf1a358ba loads both and crashes on the first one without a PK statslog.
    let mut s = with_version(sc, Version::V4cf1a358ba);
    s.actors.reverse();
    let r = sync_run(&s, script("0,2,2", 1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert!(o
        .message
        .starts_with("runtime error: invalid memory address or nil pointer dereference"));
    assert!(events(&r).iter().any(|(_, e)| e
        .log_line(Version::V4cf1a358ba)
        .is_some_and(|l| l.contains("conc/options.go:54] [\"Conc pool panicked\"]"))));
}

/// A task past writeMeta's lookup only does no-op updates: SyncSegments removing its
/// segment then is not the #34018 condition (a review finding: it was reported).
#[test]
fn removal_after_write_meta_is_not_reported() {
    let sc = builtin("sealed-segment-flush");
    let mut sc = with_version(sc, Version::C65f41dc60);
    sc.head.schedule = None;
    let mut r = manual::<Scenario>(&sc);
    // The flow graph syncs; the task passes Run and writeMeta's lookups; then the tick.
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::SaveBinlogPathsCall { .. }
    )));
    let task = r
        .world()
        .goroutines
        .iter()
        .find(|g| matches!(g.role, flush_core::models::sync2024::Role::Task { .. }))
        .unwrap()
        .id;
    assert!(run_holding(&mut r, &[task], |e| matches!(
        e,
        Ev::MetacacheRemoved { segment: 400, .. }
    )));
    run_rest(&mut r);
    assert!(
        !r.head()
            .violations
            .iter()
            .any(|v| v.name() == "sync-task-segment-present"),
        "{:?}",
        r.head().violations
    );
    assert_eq!(kind(&r), OutcomeKind::Completed);
}

/// Datacoord seals a segment before the datanode does (FlushSegments), and the
/// sealed policy's move to Flushing is a metacache call before getSyncTask's lookup:
/// each is a step a SyncSegments tick can come between (review findings).
#[test]
fn seal_and_sealed_policy_are_steps_of_their_own() {
    let sc = builtin("sealed-segment-flush");
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::DatacoordSealed { .. }
    )));
    let w = r.world();
    assert_eq!(w.dc(400).unwrap().state, SegState::Sealed);
    assert_eq!(
        w.metacache.get(400).unwrap().state,
        SegState::Growing,
        "the datanode seals later"
    );
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::SealedPolicy { moved: true, .. }
    )));
    assert!(matches!(
        r.world().goroutine(0).unwrap().role,
        flush_core::models::sync2024::Role::Actor {
            at: flush_core::models::sync2024::ActorAt::GetSyncTask { segment: 400 },
            ..
        }
    ));
    // A tick now (c65f41dc60 removes Flushing segments it does not list): getSyncTask
    // finds nothing; the rows stay in the write buffer.
    let mut c = with_version(sc.clone(), Version::C65f41dc60);
    c.head.schedule = None;
    let mut r = manual::<Scenario>(&c);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::SealedPolicy { moved: true, .. }
    )));
    assert!(run_holding(&mut r, &[0], |e| matches!(
        e,
        Ev::MetacacheRemoved { segment: 400, .. }
    )));
    run_rest(&mut r);
    assert!(events(&r)
        .iter()
        .any(|(_, e)| matches!(e, Ev::SyncSkipped { segment: 400 })));
    assert_eq!(r.head().buffered(400), 20);
}

/// Lockstep: #34018's schedule under the bug and under the fix runs the same
/// steps until SyncSegments' UpdateSegmentView, where the bug removes segment 300
/// and the fix keeps it.
#[test]
fn lockstep_parts_where_the_fix_changes_the_code_path() {
    let sc = crate::common::builtin("segment-not-found");
    let schedule = sc.header().schedule.clone().unwrap();
    let rows = sc
        .lockstep(&schedule, "ca7ef26e4b", "b5c9a7364b", 1, 1000)
        .unwrap();
    let first = rows
        .iter()
        .position(|r| !r.same)
        .expect("the versions part");
    assert!(rows[..first]
        .iter()
        .all(|r| r.same && r.a.is_some() && r.b.is_some()));
    let (a, b) = (
        rows[first].a.as_ref().unwrap(),
        rows[first].b.as_ref().unwrap(),
    );
    eprintln!(
        "{first}: {} | {}\n  A {}\n  B {}",
        a.go, b.go, a.event, b.event
    );
    assert!(
        a.go.to_string().contains("UpdateSegmentView") || a.event.contains("remove"),
        "{}",
        a.event
    );
    assert!(a.event.contains("300") && a.event != b.event);
    // A bad version is refused with the model's message.
    assert!(sc
        .lockstep(&schedule, "nope", "b5c9a7364b", 1, 1000)
        .is_err());
    // A step at a time (as the page goes, between frames): the same rows, and
    // the steps taken so far grow to the runs' lengths.
    let mut l = sc
        .lockstep_start(&schedule, "ca7ef26e4b", "b5c9a7364b", 1, 1000)
        .unwrap();
    let mut calls = 0;
    while !l.advance(1) {
        calls += 1;
        assert!(l.steps()[0] <= calls && l.steps()[1] <= calls);
    }
    // Stepped a step a call, then lined up a row a call.
    assert!(calls as usize >= 2 * rows.len() - 1, "{calls} calls");
    assert_eq!(l.rows(), rows);
}

/// The hand-written clone_from (the explorer clones into spare worlds) copies
/// every field: a world cloned over another equals its source, whichever is larger.
#[test]
fn clone_from_copies_the_whole_world() {
    use flush_core::models::sync2024;
    let sc = crate::common::builtin("sync-scaled-3x2");
    let flush_core::AnyScenario::Sync(s) = &sc else {
        unreachable!()
    };
    let mut r =
        flush_core::Run::<sync2024::Scenario>::new(s.clone(), flush_core::Policy::Seeded(3));
    r.run_to_end();
    let (early, late) = (r.world_at(2), r.world_at(r.len()));
    assert_ne!(early, late);
    for (from, into) in [(&early, &late), (&late, &early)] {
        let mut w = into.clone();
        w.clone_from(from);
        assert_eq!(&w, from);
        assert_eq!(&from.clone(), from);
    }
}

#[test]
fn a_policy_sets_each_knob_apart_from_the_version_and_is_labelled_proposed() {
    let with_policy =
        |name: &str, policy: serde_json::Value| common::builtin_with(name, "policy", policy);
    let o = flush_core::explore::Options::exhaustive(100, 100_000);
    let panics = |sc: &flush_core::AnyScenario| {
        let x = sc.explore_with(&o, &mut |_| true);
        assert!(!x.truncated);
        x.violations
            .iter()
            .any(|f| f.message.starts_with("segment not found"))
    };
    // #34018 at ca7ef26e4b, and the fix of b5c9a7364b (keep every Growing segment) alone.
    assert!(panics(&common::builtin("segment-not-found")));
    let fix = with_policy("segment-not-found", serde_json::json!({"keep": "growing"})).unwrap();
    assert!(!panics(&fix));
    assert_eq!(fix.proposed(), ["keep=growing"]);
    let mut r = fix.run(flush_core::Policy::Seeded(1));
    r.run_to_end();
    assert!(r
        .text(false)
        .starts_with("# segment-not-found (sync-2024 @ ca7ef26e4b, proposed: keep=growing), "));
    // The fixed version with the old rule panics again.
    let back = with_policy(
        "segment-not-found-fixed",
        serde_json::json!({"keep": "l0_growing"}),
    );
    assert!(panics(&back.unwrap()));
    // A policy equal to the version's preset is the version: nothing proposed.
    let same = with_policy(
        "segment-not-found",
        serde_json::json!({"request": "healthy_with_pk_statslog", "keep": "l0_growing"}),
    )
    .unwrap();
    assert!(same.proposed().is_empty());
    // Bad settings are refused with the path and the choices.
    for (policy, want) in [
        (
            serde_json::json!({"keep": "sometimes"}),
            "policy.keep: unknown keep \"sometimes\"; one of l0_growing",
        ),
        (serde_json::json!({"filter": "healthy"}), "filter"),
        (serde_json::json!({"load": 1}), "policy.load"),
    ] {
        let e = with_policy("segment-not-found", policy)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}");
    }
}

/// Found by a helper reading the Go code: a drop task is discarded when Run's
/// lookup misses its segment (task.go:127-131), but writeMeta's lookup has no
/// such case (meta_writer.go:54-57, all six commits). A drop task past Run
/// whose Dropped segment UpdateSegmentView removes (b5c9a7364b spares only
/// Growing ones) fails as any other; the invariant skipped every drop task.
#[test]
fn a_drop_task_past_run_counts_for_the_missing_segment_invariant() {
    const TEXT: &str = r#"{ "name": "drop-task-writemeta", "model": "sync-2024", "version": "b5c9a7364b", "seed": 1,
      "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                     { "segment": 200, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
      "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 },
                     { "segment": 200, "partition": 1, "state": "Dropped", "level": "L1", "rows": 0 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 200, "partition": 1, "rows": 10 },
                                        { "op": "sync", "segment": 200 } ] },
        { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1 } ] } ] }"#;
    let names = |r: &flush_core::Run<Scenario>| -> Vec<&'static str> {
        r.head().violations.iter().map(|v| v.name()).collect()
    };
    // The insert's triggerSync selects the Dropped 200 (the dropped-segment
    // policy) and submits its drop task (step 2). The task passes Run's lookup
    // (step 3), the handler removes 200 (step 5): reported there, a step
    // before writeMeta's lookup panics.
    let mut r = manual::<Scenario>(&parse(TEXT));
    for c in [0, 0, 2, 1, 3] {
        r.advance_with(flush_core::Choice::new(c, 0))
            .expect("the schedule runs");
    }
    assert!(r.head().metacache.get(200).is_none());
    assert_eq!(names(&r), ["sync-task-segment-present"]);
    r.advance_with(flush_core::Choice::new(2, 0)).unwrap();
    assert_eq!(kind(&r), OutcomeKind::Panic);
    // Removed before Run's lookup (step 4), the drop task is discarded (step
    // 5): nothing to report; the `sync` op then finds no 200 to sync.
    let r = sync_run(&parse(TEXT), script("0,0,1,3,2", 1));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    assert!(events(&r)
        .iter()
        .any(|(_, e)| matches!(e, Ev::TaskDiscarded { segment: 200 })));
    assert!(names(&r).is_empty(), "{:?}", names(&r));
}

/// Found by a helper reading the Go code: datacoord's SyncSegments scheduler
/// ticks on a timer for good (sync_segments_scheduler.go:55-69 at every
/// commit), so rows buffered for a removed segment are not stranded while a
/// later tick would carry the segment to a handler that loads it. Here a sync
/// task of 300 saves its binlogs (300 gets a PK statslog in datacoord), the
/// flow graph buffers 5 more rows, and the handler of a tick built before the
/// save removes 300: at ca7ef26e4b the next tick sends 300 and the handler
/// adds it back. The model called the 5 rows stranded.
#[test]
fn a_buffer_a_later_tick_would_add_back_is_not_stranded() {
    const TEXT: &str = r#"{ "name": "stranded-retick", "model": "sync-2024", "version": "ca7ef26e4b", "seed": 1,
      "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                     { "segment": 300, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
      "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 300, "partition": 1, "rows": 10 },
                                        { "op": "sync", "segment": 300 },
                                        { "op": "insert", "segment": 300, "partition": 1, "rows": 5 } ] },
        { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1 } ] } ] }"#;
    // The schedule the model reported it on, at the step it did: 300 is
    // removed with 5 rows buffered, while sync task #1 of 300 is still in
    // flight (it may yet save binlogs, or panic).
    let mut r = manual::<Scenario>(&parse(TEXT));
    for c in [0, 0, 0, 0, 1, 3, 1] {
        r.advance_with(flush_core::Choice::new(c, 0))
            .expect("the schedule runs");
    }
    let w = r.head();
    assert!(w.metacache.get(300).is_none(), "the handler kept 300");
    assert_eq!(w.buffered(300), 5);
    assert!(w
        .goroutines
        .iter()
        .any(|g| matches!(g.role, flush_core::models::sync2024::Role::Task { .. })));
    let names: Vec<&str> = w.violations.iter().map(|v| v.name()).collect();
    assert!(!names.contains(&"buffer-not-stranded"), "{names:?}");
    // On no schedule: where task #1 saves its binlogs after the tick built its
    // request and before the handler removed 300, the next tick sends 300
    // (it has a PK statslog now) and the handler loads it. The panics of
    // #34018 stay.
    let o = flush_core::explore::Options::exhaustive(100, 100_000);
    let found = |text: &str| -> Vec<String> {
        let x = common::parse(text).explore_with(&o, &mut |_| true);
        assert!(!x.truncated);
        x.violations.iter().map(|f| f.message.clone()).collect()
    };
    let stranded = |all: &[String]| all.iter().any(|m| m.contains("buffer-not-stranded"));
    let all = found(TEXT);
    assert!(
        all.iter().any(|m| m.starts_with("segment not found")),
        "{all:?}"
    );
    assert!(!stranded(&all), "{all:?}");
    // A handler that loads only Flushed segments (2e434e4453's rule, as a
    // what-if) would not load 300, still Growing; a request of Flushing and
    // Flushed segments only (c65f41dc60's) would not carry it: stranded.
    for policy in [
        r#""policy": { "load": "flushed_not_l0" },"#,
        r#""policy": { "request": "flushing_or_flushed" },"#,
    ] {
        let text = TEXT.replace(r#""seed": 1,"#, &format!(r#""seed": 1, {policy}"#));
        assert_ne!(text, TEXT);
        let all = found(&text);
        assert!(stranded(&all), "{policy}: {all:?}");
    }
}

/// Found by a helper reading the Go code: a segment removed while its buffer
/// holds rows leaves them there for good. getSyncTask fails before yieldBuffer,
/// syncSegments only warns, and GetCheckpoint takes the earliest buffer, so the
/// channel checkpoint is pinned (write_buffer.go:273-287, 333-337, 565-578 at
/// b5c9a7364b). The run ended "completed" before. Once something could still
/// add the segment back (an insert into it, or any SyncSegments to come), it
/// is not reported.
#[test]
fn a_buffer_left_for_a_removed_segment_is_reported() {
    const TEXT: &str = r#"{ "name": "stranded", "model": "sync-2024", "version": "b5c9a7364b", "seed": 1,
      "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                     { "segment": 400, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
      "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 400, "partition": 1, "rows": 20 },
                                        { "op": "seal", "segment": 400 },
                                        { "op": "wait_for", "actor": "datacoord", "index": 0 },
                                        { "op": "sync", "segment": 400, "flush": true },
                                        { "op": "sync", "segment": 400 } ] },
        { "name": "datacoord", "ops": [ { "op": "wait_for", "actor": "flowgraph", "index": 1 },
                                        { "op": "sync_segments", "partition": 1 } ] } ] }"#;
    let names = |sc: &Scenario| -> Vec<&'static str> {
        let r = sync_run(sc, script("0,0,0,0,1,2,1,0,0", 1));
        r.head().violations.iter().map(|v| v.name()).collect()
    };
    let sc = parse(TEXT);
    let r = sync_run(&sc, script("0,0,0,0,1,2,1,0,0", 1));
    let w = r.head();
    assert!(w.metacache.get(400).is_none(), "the tick kept 400");
    assert_eq!(w.buffered(400), 20, "the rows left the buffer");
    let v = w
        .violations
        .iter()
        .find(|v| v.name() == "buffer-not-stranded");
    let said = v.expect("reported").to_string();
    assert!(
        said.starts_with("20 row(s) stay buffered for segment 400 for good"),
        "{said}"
    );
    // From c65f41dc60 on a Sealed segment is kept: nothing to report.
    for v in [Version::C65f41dc60, Version::V4cf1a358ba] {
        let n = names(&with_version(parse(TEXT), v));
        assert!(!n.contains(&"buffer-not-stranded"), "{v:?}: {n:?}");
    }
    // An insert into 400 to come adds it back: not reported, and its sync
    // takes every row.
    let more = TEXT.replace(
        r#"{ "op": "sync", "segment": 400 } ] },"#,
        r#"{ "op": "sync", "segment": 400 }, { "op": "insert", "segment": 400, "partition": 1, "rows": 5 }, { "op": "sync", "segment": 400 } ] },"#,
    );
    assert_ne!(more, TEXT);
    let r = sync_run(&parse(&more), script("0,0,0,0,1,2,1,0,0", 1));
    assert_eq!(r.head().buffered(400), 0, "the later sync left rows");
    let n: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
    assert!(!n.contains(&"buffer-not-stranded"), "{n:?}");
    // Nor while a SyncSegments is still to come (its handler may load it).
    let later = TEXT.replace(
        r#"{ "op": "sync_segments", "partition": 1 } ] } ] }"#,
        r#"{ "op": "sync_segments", "partition": 1 }, { "op": "wait_for", "actor": "flowgraph", "index": 4 }, { "op": "sync_segments", "partition": 1 } ] } ] }"#,
    );
    assert_ne!(later, TEXT);
    let mut r = manual::<Scenario>(&parse(&later));
    for c in [0, 0, 0, 0, 1, 2, 1, 0, 0] {
        let c = flush_core::Choice::new(c, 0);
        r.advance_with(c).expect("the helper's schedule runs");
        let n: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
        assert!(!n.contains(&"buffer-not-stranded"), "{n:?}");
    }
}

/// Datacoord sends the datanode FlushSegments only for the segments
/// `flushPolicyL1` takes, Sealed and not L0 in its meta
/// (datacoord/services.go:1443-1461, segment_allocation_policy.go:185-194 at
/// ca7ef26e4b and 439fb24b32). A `seal` of an L0 segment datacoord lacks left
/// the datanode's entry Sealed, which no version spares, and the model
/// panicked at the fix commit where Go cannot (a helper's witness).
#[test]
fn the_datanode_seals_only_what_datacoord_flushes() {
    const TEXT: &str = r#"{ "name": "seal-unknown", "model": "sync-2024", "version": "b5c9a7364b", "seed": 1,
      "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 } ],
      "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 },
                     { "segment": 600, "partition": 1, "state": "Growing", "level": "L0", "rows": 0 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "seal", "segment": 600 }, { "op": "sync", "segment": 600 } ] },
        { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1 } ] } ] }"#;
    for v in [Version::Ca7ef26e4b, Version::B5c9a7364b] {
        let sc = with_version(parse(TEXT), v);
        assert_eq!(panic_kinds(&sc, v), Vec::<String>::new(), "{v:?}");
        // The seal is datacoord's half alone: the datanode's entry stays Growing.
        let mut r = manual::<Scenario>(&sc);
        assert!(run_holding(&mut r, &[1], |e| matches!(
            e,
            Ev::DatacoordSealed {
                flushable: false,
                ..
            }
        )));
        assert!(run_holding(&mut r, &[1], |e| matches!(
            e,
            Ev::BufferYielded { .. }
        )));
        assert_eq!(
            r.world().metacache.get(600).unwrap().state,
            SegState::Growing
        );
    }
    // Datacoord holds an L1 segment Sealed: the datanode seals it too.
    let sealed = TEXT.replace(r#""datacoord": [ "#, r#""datacoord": [ { "segment": 600, "partition": 1, "state": "Sealed", "level": "L1", "statslog": false, "rows": 0 }, "#)
        .replace(r#""level": "L0", "rows": 0 }"#, r#""level": "L1", "rows": 0 }"#);
    let mut r = manual::<Scenario>(&parse(&sealed));
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::Seal { sealed: true, .. }
    )));
    assert_eq!(
        r.world().metacache.get(600).unwrap().state,
        SegState::Sealed
    );
}

/// Every BufferData ends with triggerSync, and its sealed policy moves every
/// Sealed segment to Flushing and syncs it (bf_write_buffer.go:128,
/// write_buffer.go:302-311 and 359-370, options.go:40-44, sync_policy.go:71-77,
/// the same at all six commits). An insert after a seal left the segment
/// Sealed before, and c65f41dc60's tick, which removes a Flushing segment the
/// request lacks, found nothing to remove: no panic, where Go has one (a
/// helper's witness). Two segments sealed flush at one op, one after the other.
#[test]
fn every_insert_flushes_what_the_datanode_sealed() {
    const TEXT: &str = r#"{ "name": "sealed-then-insert", "model": "sync-2024", "version": "c65f41dc60", "seed": 1,
      "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                     { "segment": 400, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 },
                     { "segment": 500, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
      "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 400, "partition": 1, "rows": 10 },
                                        { "op": "seal", "segment": 400 },
                                        { "op": "insert", "segment": 500, "partition": 1, "rows": 10 } ] },
        { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1 } ] } ] }"#;
    let sc = parse(TEXT);
    assert_eq!(
        panic_kinds(&sc, Version::C65f41dc60),
        vec!["segment not found".to_owned()]
    );
    // The flow graph alone: the insert into 500 flushes 400.
    let mut r = manual::<Scenario>(&sc);
    while run_holding(&mut r, &[1], |_| false) {}
    let evs = events(&r);
    assert!(pos_of(&evs, |e| matches!(
        e,
        Ev::SealedPolicy {
            segment: 400,
            moved: true
        }
    ))
    .is_some());
    let w = r.world();
    assert_eq!(
        w.metacache.get(400).unwrap().state,
        SegState::Flushed,
        "{evs:#?}"
    );
    assert_eq!(w.buffered(400), 0);
    assert_eq!(w.buffered(500), 10, "500 itself is not picked");
    // Two sealed segments: one insert flushes both, 400 then 500.
    let two = TEXT.replace(
        r#"{ "op": "insert", "segment": 500, "partition": 1, "rows": 10 } ] },"#,
        r#"{ "op": "insert", "segment": 500, "partition": 1, "rows": 10 },
            { "op": "seal", "segment": 500 }, { "op": "insert", "segment": 101, "partition": 1, "rows": 1 } ] },"#,
    );
    let mut r = manual::<Scenario>(&parse(&two));
    while run_holding(&mut r, &[1], |_| false) {}
    let evs = events(&r);
    let yielded = |s: i64| {
        pos_of(
            &evs,
            |e| matches!(e, Ev::BufferYielded { segment, flush: true, .. } if *segment == s),
        )
        .unwrap_or_else(|| panic!("{s}: {evs:#?}"))
    };
    assert!(yielded(400) < yielded(500), "{evs:#?}");
    for s in [400, 500] {
        assert_eq!(r.world().metacache.get(s).unwrap().state, SegState::Flushed);
    }
}

/// triggerSync's last policy, GetDroppedSegmentPolicy (sync_policy.go:42-48,
/// options.go:40-45, the same at all six commits), selects every segment the
/// datanode holds Dropped: any insert syncs it as a drop, and the drop task
/// removes it from the metacache (task.go Run). Before, only a `sync` op of
/// that very segment did.
#[test]
fn every_insert_syncs_what_the_datanode_holds_dropped() {
    const TEXT: &str = r#"{ "name": "dropped-then-insert", "model": "sync-2024", "version": "VERSION", "seed": 1,
      "datacoord": [ { "segment": 300, "partition": 2, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 },
                     { "segment": 500, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 } ],
      "datanode":  [ { "segment": 300, "partition": 2, "state": "Dropped", "level": "L1", "rows": 0 } ],
      "actors": [
        { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 500, "partition": 1, "rows": 10 } ] } ] }"#;
    for v in Version::ALL {
        let sc = parse(&TEXT.replace("VERSION", v.as_str()));
        let mut r = manual::<Scenario>(&sc);
        while run_holding(&mut r, &[], |_| false) {}
        let evs = events(&r);
        let selected = pos_of(&evs, |e| matches!(e, Ev::DroppedPolicy { segment: 300 }));
        let yielded = pos_of(&evs, |e| {
            matches!(
                e,
                Ev::BufferYielded {
                    segment: 300,
                    drop: true,
                    ..
                }
            )
        });
        assert!(selected.is_some() && yielded > selected, "{v:?}: {evs:#?}");
        let w = r.world();
        assert!(
            w.metacache.get(300).is_none(),
            "{v:?}: the drop task removed it"
        );
        assert_eq!(w.buffered(500), 10, "{v:?}: 500 itself is not picked");
    }
}

/// SyncSegments adds segment 300 between bufferInsert's lookup and its
/// AddSegment(Growing) (write_buffer.go:532-545): Go's addSegment overwrites
/// `segmentInfos[300]` and leaves the Sealed info in `stateSegments[Sealed]`
/// (meta_cache.go:132-136@ca7ef26e4b, the same at all six commits). The same
/// BufferData's sealed policy ranges that map (sync_policy.go:73-75,
/// meta_cache.go:221-224) and swaps the stale info's clone in as Flushing, so
/// 300 is flushed with the rows datacoord counted (100) plus the batch.
const STALE_SEALED: &str = r#"{ "name": "stale-sealed-entry", "model": "sync-2024", "version": "ca7ef26e4b", "seed": 1,
  "datacoord": [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
                 { "segment": 300, "partition": 1, "state": "Sealed", "level": "L1", "statslog": true, "rows": 100 } ],
  "datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ],
  "actors": [
    { "name": "flowgraph", "ops": [ { "op": "insert", "segment": 300, "partition": 1, "rows": 10 } ] },
    { "name": "datacoord", "ops": [ { "op": "sync_segments", "partition": 1 } ] } ] }"#;

/// The first five steps of [`STALE_SEALED`]'s double add, goroutine by goroutine.
fn double_add(sc: &Scenario) -> flush_core::Run<Scenario> {
    let mut r = manual::<Scenario>(sc);
    for c in flush_core::Choice::parse_list("0,1,2,2,0").unwrap() {
        r.advance_with(c).expect("runnable");
    }
    r
}

#[test]
fn a_stale_sealed_entry_is_flushed_by_the_sealed_policy() {
    // The versions whose handler adds a missing Sealed segment it is sent.
    for v in [
        Version::Ca7ef26e4b,
        Version::B5c9a7364b,
        Version::V4cf1a358ba,
    ] {
        let sc = with_version(parse(STALE_SEALED), v);
        // Lookup miss, tick, handler (load), UpdateSegmentView adds 300 Sealed,
        // then AddSegment(Growing) and triggerSync.
        let r = double_add(&sc);
        let evs = events(&r);
        let added = pos_of(&evs, |e| {
            matches!(
                e,
                Ev::MetacacheAdded {
                    segment: 300,
                    state: SegState::Sealed
                }
            )
        })
        .unwrap_or_else(|| panic!("{v:?}: {evs:#?}"));
        let moved = pos_of(&evs, |e| {
            matches!(
                e,
                Ev::SealedPolicy {
                    segment: 300,
                    moved: true
                }
            )
        })
        .unwrap_or_else(|| panic!("{v:?}: the sealed policy skips 300: {evs:#?}"));
        assert!(added < moved);
        let w = r.world();
        let s = w.metacache.get(300).unwrap();
        assert_eq!(
            (s.state, s.flushed_rows, s.buffer_rows, s.start_pos_recorded),
            (SegState::Flushing, 100, 0, true),
            "{v:?}: the stale Sealed info's clone, not bufferInsert's"
        );
        // bufferInsert's Growing info is stale now, its start position unrecorded.
        let stale = w.metacache.stale();
        assert_eq!(stale.len(), 1, "{v:?}");
        assert_eq!(
            (
                stale[0].segment,
                stale[0].state,
                stale[0].start_pos_recorded
            ),
            (300, SegState::Growing, false)
        );
        // The rest, seeded: the flush reaches datacoord.
        let r = sync_run(&sc, script("0,1,2,2,0", 1));
        assert_eq!(kind(&r), OutcomeKind::Completed, "{v:?}");
        let evs = events(&r);
        assert!(
            pos_of(&evs, |e| matches!(
                e,
                Ev::SaveBinlogPathsCall {
                    segment: 300,
                    rows: 110,
                    flush: true,
                    drop: false
                }
            ))
            .is_some(),
            "{v:?}: {evs:#?}"
        );
        assert_eq!(r.head().dc(300).unwrap().state, SegState::Flushed);
    }
}

/// The stale entries c65f41dc60 to 439fb24b32 can make are Flushing or Flushed
/// (their handlers add only what their requests carry: Flushing and Flushed at
/// c65f41dc60, Flushed L1 from 2e434e4453 on), and SyncSegments' infos have
/// startPosRecorded=true (meta_cache.go:284): no range of the model's paths
/// picks them (the start positions filter them out, meta_writer.go:64-65).
#[test]
fn stale_flushing_and_flushed_entries_change_nothing() {
    for (v, state) in [
        (Version::C65f41dc60, "Flushing"),
        (Version::V4cf1a358ba, "Flushing"),
        (Version::V2e434e4453, "Flushed"),
        (Version::V439fb24b32, "Flushed"),
    ] {
        let text = STALE_SEALED.replace(
            r#""state": "Sealed", "level": "L1", "statslog": true, "rows": 100"#,
            &format!(r#""state": "{state}", "level": "L1", "statslog": true, "rows": 100"#),
        );
        let sc = with_version(parse(&text), v);
        let r = double_add(&sc);
        let w = r.world();
        assert_eq!(w.metacache.stale().len(), 1, "{v:?}");
        assert_eq!(w.metacache.get(300).unwrap().state, SegState::Growing);
        let evs = events(&r);
        assert!(
            pos_of(&evs, |e| matches!(e, Ev::StaleEntryPicked { .. })).is_none(),
            "{v:?}"
        );
    }
}

/// A `"retried"` SyncSegments op (session_manager.go:240-250@ca7ef26e4b): the
/// flow graph adds segment 300 only once datacoord's op has returned, so the
/// one attempt of an op without the mark has been applied before (no
/// interleaving removes 300). Marked, the first attempt times out at datacoord,
/// the retry's handler applies the same request and the op returns, while the
/// first attempt's handler still runs: it applies its request late, after 300
/// was added. Datacoord does not know 300 has rows (no PK statslog), so the
/// request leaves it out.
fn retried_at(v: Version, retried: bool) -> Scenario {
    let text = if retried {
        RETRIED.to_owned()
    } else {
        RETRIED.replace(r#", "retried": true"#, "")
    };
    with_version(parse(&text), v)
}

/// The deadline is a knob: the policy matrix of a `"retried"` file at
/// 2e434e4453 (no deadline, session_manager.go:240-242@2e434e4453) runs its
/// row "as in ca7ef26e4b" with ca7ef26e4b's per-attempt deadline
/// (session_manager.go:240-250@ca7ef26e4b), so it panics as a file at
/// ca7ef26e4b does; and `deadline=per_attempt` at 2e434e4453 times out there,
/// logging at that commit's lines (session_manager.go:244@2e434e4453).
#[test]
fn the_deadline_is_a_knob_the_matrix_sets_per_row() {
    use flush_core::explore::{matrix, Options};
    let at = retried_at(Version::V2e434e4453, true);
    let rows = matrix(&at, &Options::exhaustive(100, 1_000_000), &mut |_| ());
    assert_eq!(rows.len(), 64);
    let row = |v: &str| rows.iter().find(|r| r.presets.contains(&v)).unwrap();
    let ca7 = row("ca7ef26e4b");
    assert!(
        ca7.settings.contains(&("deadline", "per_attempt")),
        "{:?}",
        ca7.settings
    );
    assert!(ca7.proposed.contains(&"deadline=per_attempt"));
    assert!(
        ca7.findings
            .iter()
            .any(|f| f.message.contains("segment not found")),
        "{}",
        ca7.verdict()
    );
    assert_eq!(
        row("2e434e4453").settings.last(),
        Some(&("deadline", "none"))
    );
    let mut with = at.clone();
    Model::set_knob(&mut with, "deadline", "per_attempt").unwrap();
    let r = sync_run(&with, seeded(1));
    let evs = events(&r);
    let timed_out = pos_of(&evs, |e| matches!(e, Ev::AttemptTimedOut { .. }))
        .expect("the first attempt times out under the knob");
    let line = evs[timed_out].1.log_line(Version::V2e434e4453).unwrap();
    assert!(line.contains("session_manager.go:244]"), "{line}");
    // The reverse: a deadline-less call at ca7ef26e4b says the knob made it so.
    let mut without = retried_at(Version::Ca7ef26e4b, true);
    Model::set_knob(&mut without, "deadline", "none").unwrap();
    let evs = events(&sync_run(&without, seeded(1)));
    let said = pos_of(&evs, |e| matches!(e, Ev::RetryWithoutDeadline { .. })).unwrap();
    let mut text = String::new();
    evs[said].1.render(&without, &mut text);
    assert!(text.contains("under the knob deadline=none"), "{text}");
    assert!(panic_kinds(&without, Version::Ca7ef26e4b).is_empty());
}

/// At ca7ef26e4b the late handler removes the Growing L1 segment 300 and its
/// sync task panics (#34018's panic, reached only through the retry); at
/// b5c9a7364b and c65f41dc60 UpdateSegmentView keeps every Growing segment:
/// nothing breaks, though the retry adds interleavings.
/// The shortest schedule shows the order: the deadline, the retry applied, the
/// op returned, 300 added, then the first handler's view removes it.
#[test]
fn a_retried_request_is_applied_after_a_new_growing_segment() {
    let plain = retried_at(Version::Ca7ef26e4b, false);
    assert!(panic_kinds(&plain, Version::Ca7ef26e4b).is_empty());
    let sc = retried_at(Version::Ca7ef26e4b, true);
    assert!(matches!(
        sc.actors[0].ops[..],
        [Op::SyncSegments { retried: true, .. }]
    ));
    assert_eq!(
        panic_kinds(&sc, Version::Ca7ef26e4b),
        vec!["segment not found".to_owned()]
    );
    let x = flush_core::explore::explore(&sc, 100, 1_000_000);
    let p = x
        .violations
        .iter()
        .find(|f| f.kind == OutcomeKind::Panic)
        .expect("the panic");
    let r = sync_run(&sc, script(&p.schedule, 1));
    assert_eq!(kind(&r), OutcomeKind::Panic);
    let evs = events(&r);
    let at = |f: &dyn Fn(&Ev) -> bool| pos_of(&evs, f).expect("the event");
    let timed_out = at(&|e| matches!(e, Ev::AttemptTimedOut { running: true, .. }));
    let returned = at(&|e| matches!(e, Ev::SyncSegmentsSuccess { .. }));
    let added = at(&|e| {
        matches!(
            e,
            Ev::BufferInsert {
                segment: 300,
                added: true,
                ..
            }
        )
    });
    let removed = at(&|e| matches!(e, Ev::MetacacheRemoved { segment: 300, .. }));
    assert!(timed_out < returned && returned < added && added < removed);
    // Two handlers received the one request.
    let received = evs
        .iter()
        .filter(|(_, e)| matches!(e, Ev::DatanodeReceives { partition: 1 }))
        .count();
    assert_eq!(received, 2);
    // (4cf1a358ba sends 300 without a statslog: its own nil-statslog crash,
    // with or without the retry.)
    for v in &Version::ALL[1..3] {
        let sc = retried_at(*v, true);
        let x = flush_core::explore::explore(&sc, 100, 1_000_000);
        assert!(!x.truncated);
        assert!(x.violations.is_empty(), "{v:?}: {:?}", x.violations);
        assert!(x.states > explore_states(&retried_at(*v, false)), "{v:?}");
    }
}

/// [`RETRIED`] with 101 missing at the datanode: the first handler loads
/// its PK stats.
fn retried_101_missing() -> String {
    RETRIED.replace(
        r#""datanode":  [ { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 } ]"#,
        r#""datanode": []"#,
    )
}

/// A sleep-set search of `sc` (goroutine ids kept) visits the states and
/// finds the violations a full search does.
fn reduced_agrees(sc: &Scenario) {
    let o = flush_core::explore::Options {
        ids: true,
        ..flush_core::explore::Options::exhaustive(100, 1_000_000)
    };
    let full = flush_core::explore::explore_with(sc, &o, &mut |_| true);
    let o = flush_core::explore::Options { reduce: true, ..o };
    let reduced = flush_core::explore::explore_with(sc, &o, &mut |_| true);
    let at = sc.version;
    assert!(reduced.reduced && !full.truncated, "{at:?}");
    assert_eq!(full.states, reduced.states, "{at:?}");
    let msgs = |x: &flush_core::explore::Exploration| -> Vec<String> {
        x.violations.iter().map(|f| f.message.clone()).collect()
    };
    assert_eq!(msgs(&full), msgs(&reduced), "{at:?}");
}

fn explore_states(sc: &Scenario) -> u64 {
    let x = flush_core::explore::explore(sc, 100, 1_000_000);
    assert!(!x.truncated);
    x.states
}

/// A handler whose attempt timed out before it loaded the PK stats of a
/// missing segment: `LoadStats(ctx, ..)` fails under the done ctx and the
/// handler returns without UpdateSegmentView (services.go:326,337-340@ca7ef26e4b);
/// the retry's handler adds the segment.
#[test]
fn a_timed_out_handler_fails_to_load_stats() {
    let text = retried_101_missing();
    let sc = with_version(parse(&text), Version::B5c9a7364b);
    // g0 datacoord: tick (handler g2); g2 receives (101 missing, loads);
    // g0: deadline (retry handler g3); g2: the load fails; g3 receives, loads.
    let r = sync_run(&sc, script("0,2,0,2,3,3,0", 1));
    let evs = events(&r);
    assert!(
        pos_of(&evs, |e| matches!(e, Ev::LoadStatsCtxDone { .. })).is_some(),
        "{evs:?}"
    );
    let added: Vec<_> = evs
        .iter()
        .filter(|(_, e)| matches!(e, Ev::MetacacheAdded { segment: 101, .. }))
        .collect();
    assert_eq!(added.len(), 1);
    assert!(r.head().metacache.get(101).is_some());
    // Its log: datacoord's "failed to sync segments" (session_manager.go:246)
    // and the handler's "failed to load segment stats log" (services.go:328;
    // :327 at 4cf1a358ba, where this request crashes the stats pool first),
    // which `logs --against` explains in full.
    for (v, line) in [(Version::B5c9a7364b, 328), (Version::C65f41dc60, 328)] {
        let r = sync_run(&with_version(parse(&text), v), script("0,2,0,2,3,3,0", 1));
        let log: String = events(&r)
            .iter()
            .filter_map(|(_, e)| e.log_line(v))
            .map(|l| l + "\n")
            .collect();
        assert!(
            log.contains(
                "[WARN] [datacoord/session_manager.go:246] [\"failed to sync segments\"]\n"
            ),
            "{log}"
        );
        let failed = format!("[WARN] [datanode/services.go:{line}] [\"failed to load segment stats log\"] [partitionID=1]\n");
        assert!(log.contains(&failed), "{log}");
        let any = common::parse(&text);
        let o = flush_core::logs::conform::Options::default();
        let i = flush_core::logs::import_against(&log, &any, Some(v.as_str()), &o).unwrap();
        let c = &i.conformance;
        assert!(
            c.complete && c.not_modelled.is_empty(),
            "{v:?}: {c:?}\n{log}"
        );
    }
}

/// A handler whose attempt's loads all returned before the deadline goes on
/// to `UpdateSegmentView`, which reads no ctx (services.go:337-346@ca7ef26e4b):
/// the deadline, the retry's whole handler, datacoord's return and the flow
/// graph's insert of 300 may all come between. With 101 missing at the
/// datanode the first handler must load; a model that loaded and applied in
/// one step had it apply before the deadline or fail after it, never both
/// load in time and apply late.
#[test]
fn a_handler_that_loaded_before_its_deadline_applies_after_it() {
    let text = retried_101_missing();
    let sc = with_version(parse(&text), Version::Ca7ef26e4b);
    // g0 datacoord ticks (handler g2); g2 receives (101 missing) and loads
    // under its live ctx; g0's deadline (retry handler g3); g3 receives and
    // applies (adds 101); g0 returns; g1 waits, inserts 300 and syncs it
    // (task g4); g2 applies late: 300 is not in its request; g4 runs.
    let schedule = "0,2,2,0,3,3,0,1,1,1,2,4";
    let r = sync_run(&sc, script(schedule, 1));
    assert_eq!(kind(&r), OutcomeKind::Panic);
    let evs = events(&r);
    let at = |f: &dyn Fn(&Ev) -> bool| pos_of(&evs, f).expect("the event");
    let loaded = at(&|e| matches!(e, Ev::StatsLoaded { partition: 1, .. }));
    let timed_out = at(&|e| matches!(e, Ev::AttemptTimedOut { running: true, .. }));
    let returned = at(&|e| matches!(e, Ev::SyncSegmentsSuccess { .. }));
    let removed = at(&|e| matches!(e, Ev::MetacacheRemoved { segment: 300, .. }));
    assert!(loaded < timed_out && timed_out < returned && returned < removed);
    assert_eq!(evs[loaded].0, 3, "g2's second step loads");
    assert!(pos_of(&evs, |e| matches!(e, Ev::LoadStatsCtxDone { .. })).is_none());
    let added = |e: &Ev| matches!(e, Ev::MetacacheAdded { segment: 101, .. });
    assert_eq!(evs.iter().filter(|(_, e)| added(e)).count(), 1, "{evs:?}");
    // Between its two steps the handler stands before UpdateSegmentView.
    let mut mid = flush_core::engine::Run::new(sc.model(), script(schedule, 1));
    mid.run_steps(3);
    let g2 = sc.describe(mid.head(), 2).expect("g2 runs");
    assert_eq!(
        g2.waits_on,
        "nothing: the PK stats are loaded; UpdateSegmentView next"
    );
    // Fixed: UpdateSegmentView keeps Growing segments.
    for v in [Version::B5c9a7364b, Version::C65f41dc60] {
        let r = sync_run(&with_version(parse(&text), v), script(schedule, 1));
        assert_ne!(kind(&r), OutcomeKind::Panic, "{v:?}");
        assert!(panic_kinds(&sc, v).is_empty(), "{v:?}");
    }
    // Sleep sets over the two steps' footprints visit what a full search does.
    for v in [Version::Ca7ef26e4b, Version::B5c9a7364b] {
        reduced_agrees(&with_version(parse(&text), v));
    }
}

/// #34226 (before 2e434e4453) calls without a per-attempt deadline
/// (session_manager.go:240-242@2e434e4453): no attempt times out, the mark has
/// no effect, and the run says so where the request is sent. The reduction's
/// independence holds for the new steps: a sleep-set search agrees.
#[test]
fn retried_has_no_effect_without_a_per_attempt_deadline() {
    for v in [Version::V2e434e4453, Version::V439fb24b32] {
        assert!(!v.attempt_deadline());
        let sc = retried_at(v, true);
        let r = sync_run(&sc, seeded(1));
        let evs = events(&r);
        let said = pos_of(
            &evs,
            |e| matches!(e, Ev::RetryWithoutDeadline { version } if *version == v),
        )
        .expect("the run explains the mark");
        let mut text = String::new();
        evs[said].1.render(&sc, &mut text);
        assert!(text.contains("has no effect at this version"), "{text}");
        assert!(!evs
            .iter()
            .any(|(_, e)| matches!(e, Ev::AttemptTimedOut { .. })));
        assert_eq!(
            explore_states(&sc),
            explore_states(&retried_at(v, false)),
            "{v:?}"
        );
    }
    for v in &Version::ALL[..4] {
        assert!(v.attempt_deadline());
        let r = sync_run(&retried_at(*v, true), seeded(1));
        assert!(!events(&r)
            .iter()
            .any(|(_, e)| matches!(e, Ev::RetryWithoutDeadline { .. })));
    }
    // A flag, on sync_segments only.
    let bad = RETRIED.replace(r#""retried": true"#, r#""retried": 2"#);
    assert!(flush_core::AnyScenario::parse(&bad, "bad.json").is_err());
    let bad = RETRIED.replace(
        r#""sync", "segment": 300"#,
        r#""sync", "segment": 300, "retried": true"#,
    );
    assert!(flush_core::AnyScenario::parse(&bad, "bad.json").is_err());
    // Sleep sets over the new steps' footprints visit what a full search does.
    for v in &Version::ALL[..2] {
        reduced_agrees(&retried_at(*v, true));
    }
}

/// A built-in with its SyncSegments op marked `"retried": false` explores as
/// the built-in does: the same states, transitions and violations.
#[test]
fn an_unmarked_builtin_explores_as_before() {
    let text = flush_core::builtin::text("segment-not-found").expect("the built-in");
    let marked = text.replacen(
        r#""sync_segments", "partition": 1"#,
        r#""sync_segments", "partition": 1, "retried": false"#,
        1,
    );
    assert_ne!(marked, text);
    let marked = parse(&marked);
    assert!(marked
        .actors
        .iter()
        .flat_map(|a| &a.ops)
        .all(|op| !matches!(op, Op::SyncSegments { retried: true, .. })));
    for v in Version::ALL {
        let a = flush_core::explore::explore(
            &with_version(builtin("segment-not-found"), v),
            100,
            1_000_000,
        );
        let b = flush_core::explore::explore(&with_version(marked.clone(), v), 100, 1_000_000);
        assert_eq!(
            (a.states, a.transitions),
            (b.states, b.transitions),
            "{v:?}"
        );
        let msgs = |x: &flush_core::explore::Exploration| -> Vec<String> {
            x.violations
                .iter()
                .map(|f| f.schedule.clone() + &f.message)
                .collect()
        };
        assert_eq!(msgs(&a), msgs(&b), "{v:?}");
    }
}
