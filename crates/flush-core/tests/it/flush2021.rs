//! flush-2021 behaviour, one test per gotcha of MODEL.md §1.5 and per Go test of
//! flush_manager_test.go at 891c202b73. Most tests run a scenario under many seeds
//! and assert what must hold in every interleaving; a few pin one interleaving
//! with a schedule.

use std::sync::Arc;

use flush_core::explore::outcomes;
use flush_core::models::flush2021::{
    ActorAt, Ev, HalfKind, HandlerAt, PackSource, ReplicaState, Role, RunnerAt, Scenario,
    SigOrigin, World,
};
use flush_core::{AnyScenario, Choice, Model, OutcomeKind};

use crate::common::{self, *};

/// The tests of this file look inside the model: they hold its own scenario.
fn parse(text: &str) -> Arc<Scenario> {
    flush_of(&common::parse(text))
}

fn builtin(name: &str) -> Arc<Scenario> {
    flush_of(&common::builtin(name))
}

const SEEDS: std::ops::Range<u64> = 0..60;

fn notified(r: &flush_core::engine::Run<Scenario>) -> Vec<flush_core::models::flush2021::Pack> {
    events(r)
        .into_iter()
        .filter_map(|(_, e)| match e {
            Ev::Notified { pack, .. } => Some(pack),
            _ => None,
        })
        .collect()
}

/// §1.5.1: postTask (with the remap) runs before notify, and finishSignal closes after notify.
#[test]
fn post_task_before_notify_and_finish_after() {
    let sc = builtin("handoff");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let packs = notified(&r);
        assert_eq!(packs.len(), 2, "seed {seed}");
        assert!(
            packs.iter().all(|p| p.segment == 4),
            "seed {seed}: notify sees the remap: {packs:?}"
        );
        let evs = events(&r);
        for pos in ["a", "b"] {
            let p = sc.positions.iter().position(|x| x == pos).unwrap() as u32;
            // The remap is applied in postTask (in one step, or after a handler spawned).
            let post = pos_of(&evs, |e| {
                matches!(e, Ev::PostTask { pos, remapped: Some(4), .. }
                    | Ev::PostInjectionApplied { pos, remapped: Some(4), .. } if *pos == p)
            })
            .unwrap();
            let call = pos_of(
                &evs,
                |e| matches!(e, Ev::SaveBinlogPathsCall { pack } if pack.pos == Some(p)),
            )
            .unwrap();
            let done = pos_of(
                &evs,
                |e| matches!(e, Ev::Notified { pack, .. } if pack.pos == Some(p)),
            )
            .unwrap();
            let fin = pos_of(
                &evs,
                |e| matches!(e, Ev::FinishClosed { pos, .. } if *pos == p),
            )
            .unwrap();
            assert!(
                post < call && call < done && done < fin,
                "seed {seed} pos {pos}: {post} {call} {done} {fin}"
            );
        }
    }
}

/// §1.5.2: a failed injection does not clear the sticky postInjection (TestRendezvousFlushManager_Inject).
#[test]
fn failed_injection_keeps_sticky_remap() {
    let sc = builtin("failed-injection-sticky");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let packs = notified(&r);
        assert_eq!(
            packs.iter().map(|p| p.segment).collect::<Vec<_>>(),
            vec![4, 4, 4],
            "seed {seed}: {packs:?}"
        );
        let c = sc.positions.iter().position(|x| x == "c").unwrap() as u32;
        assert_eq!(packs[2].pos, Some(c));
        // c2 was taken and answered false.
        let evs = events(&r);
        assert!(evs.iter().any(|(_, e)| matches!(
            e,
            Ev::RunnerInjectOver {
                inj: 1,
                ok: false,
                ..
            } | Ev::HandlerInjectOver {
                inj: 1,
                ok: false,
                ..
            }
        )));
    }
}

/// §1.5.3: the runner's poll is non-blocking; an injection queued after a runner passed
/// its poll is taken by the next runner or by the handler once runningTasks is 0.
#[test]
fn injection_after_poll_goes_to_handler() {
    let sc = parse(
        r#"{"name":"late","model":"flush-2021","injections":{"c":{"segments":[2]}},
        "actors":[{"name":"fg","ops":[{"op":"flush_insert","segment":2,"pos":"a"},{"op":"flush_delete","segment":2,"pos":"a"}]},
                  {"name":"comp","ops":[{"op":"inject","id":"c"},{"op":"wait_injected","id":"c"},{"op":"inject_done","id":"c","success":true}]}]}"#,
    );
    // The compactor (g1) injects only after the runner polled an empty injectCh.
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::RunnerStarted { .. }
    )));
    run_rest(&mut r);
    let evs = events(&r);
    let started = pos_of(&evs, |e| matches!(e, Ev::RunnerStarted { .. })).unwrap();
    let queued = pos_of(&evs, |e| matches!(e, Ev::InjectQueued { .. })).unwrap();
    assert!(started < queued);
    assert!(!evs
        .iter()
        .any(|(_, e)| matches!(e, Ev::RunnerTookInjection { .. })));
    assert!(evs
        .iter()
        .any(|(_, e)| matches!(e, Ev::HandlerTookInjection { segment: 2, .. })));
    assert_eq!(kind(&r), OutcomeKind::Completed);
}

/// §1.5.4: the handler replaces the tail with its own injectDone without chaining the old
/// tail; it can take an injection while the last runner is still in postTask and notify.
#[test]
fn handler_takes_injection_while_last_runner_notifies() {
    let sc = parse(
        r#"{"name":"overlap","model":"flush-2021","injections":{"c":{"segments":[2]}},
        "actors":[{"name":"fg","ops":[{"op":"flush_insert","segment":2,"pos":"a"},{"op":"flush_delete","segment":2,"pos":"a"},
                                       {"op":"inject","id":"c"}]},
                  {"name":"comp","ops":[{"op":"wait_injected","id":"c"},{"op":"inject_done","id":"c","success":true}]}]}"#,
    );
    // The flow graph flushes a; the runner runs until postTask spawns a handler; then
    // the runner is held while the flow graph injects and the new handler takes it.
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::HalfStarted {
            kind: HalfKind::Delete,
            ..
        }
    )));
    assert!(run_holding(&mut r, &[0, 1], |e| matches!(
        e,
        Ev::PostTaskLocked { .. }
    )));
    let runner = r
        .world()
        .goroutines
        .iter()
        .find(|g| matches!(g.role, Role::Runner { .. }))
        .unwrap()
        .id;
    assert!(run_holding(&mut r, &[1, runner], |e| matches!(
        e,
        Ev::HandlerTookInjection { .. }
    )));
    run_rest(&mut r);
    let evs = events(&r);
    let post = pos_of(&evs, |e| matches!(e, Ev::PostTaskLocked { .. })).unwrap();
    let took = pos_of(&evs, |e| matches!(e, Ev::HandlerTookInjection { .. })).unwrap();
    let notified = pos_of(&evs, |e| matches!(e, Ev::Notified { .. })).unwrap();
    assert!(post < took && took < notified, "{post} {took} {notified}");
    assert_eq!(kind(&r), OutcomeKind::Completed);
}

/// §1.5.5: creating a runner while the handler is mid-injection blocks the caller (B7)
/// until injectDone; the runner then starts on the handler's injectDone.
#[test]
fn new_runner_waits_for_handler_mid_injection() {
    let sc = builtin("idle-handler-injection");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        let done = pos_of(&evs, |e| matches!(e, Ev::InjectDone { .. })).unwrap();
        let over = pos_of(&evs, |e| {
            matches!(e, Ev::HandlerInjectOver { ok: true, .. })
        })
        .unwrap();
        let init = pos_of(&evs, |e| matches!(e, Ev::RunnerInit { .. })).unwrap();
        assert!(done < over && over < init, "seed {seed}");
        assert!(
            matches!(
                evs[init].1,
                Ev::RunnerInit {
                    start: SigOrigin::InjectDone { .. },
                    ..
                }
            ),
            "seed {seed}"
        );
        assert_eq!(notified(&r)[0].segment, 7, "seed {seed}");
    }
    // And at some step the flow graph is seen blocked in B7.
    let mut r = flush_core::engine::Run::<Scenario>::new(sc.clone(), seeded(3));
    let mut saw_b7 = false;
    while r.advance().is_ok() {
        saw_b7 |= r.world().goroutines.iter().any(|g| {
            matches!(
                g.role,
                Role::Actor {
                    at: ActorAt::CloseHandler { .. },
                    ..
                }
            )
        });
    }
    assert!(saw_b7);
}

/// §1.5.6: the "insert drop / delete normal" split leaves a normal runner waiting forever.
#[test]
fn insert_in_drop_mode_after_normal_delete_deadlocks() {
    let sc = parse(
        r#"{"name":"split","model":"flush-2021","actors":[{"name":"fg","ops":[
        {"op":"flush_delete","segment":1,"pos":"p"},{"op":"start_dropping"},
        {"op":"flush_insert","segment":1,"pos":"p"},{"op":"notify_all_flushed"}]}]}"#,
    );
    for seed in 0..10 {
        let r = flush_run(&sc, seeded(seed));
        let o = r.outcome().unwrap();
        assert_eq!(o.kind, OutcomeKind::Deadlock, "seed {seed}: {o}");
        assert!(o.message.contains("B1: t.Wait()"), "{}", o.message);
        assert!(o.message.contains("B13"), "{}", o.message);
    }
}

/// §1.5.7 and the Go test "test drop mode": the half-normal position is notified, the rest
/// reach flushAndDrop, two packs per (segment, position), delete packs with pos nil.
#[test]
fn drop_mode_packs() {
    let sc = builtin("drop-mode");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let n = notified(&r);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].segment, -1);
        let packs = r
            .head()
            .drop
            .flush_and_drop
            .clone()
            .expect("flushAndDrop called");
        assert_eq!(packs.len(), 4);
        assert!(packs.iter().all(|p| p.segment != -1));
        for seg in [1, 2] {
            let of: Vec<_> = packs.iter().filter(|p| p.segment == seg).collect();
            assert_eq!(of.len(), 2);
            assert!(of
                .iter()
                .any(|p| p.source == PackSource::DropInsert && p.pos.is_some() && p.dropped));
            assert!(of
                .iter()
                .any(|p| p.source == PackSource::DropDelete && p.pos.is_none() && !p.dropped));
        }
        // dropVirtualChannelFunc marks every segment of the request flushed.
        for s in &r.head().replica {
            if s.segment != -1 {
                assert_eq!(s.state, ReplicaState::Flushed, "seed {seed}");
            }
        }
    }
}

/// §1.5.8: drop-mode callers block until their half is done, so every drop pack exists
/// before notifyAllFlushed; retries included.
#[test]
fn drop_packs_exist_before_notify_all_flushed() {
    let sc = parse(
        r#"{"name":"d","model":"flush-2021","actors":[{"name":"fg","ops":[{"op":"start_dropping"},
        {"op":"flush_insert","segment":1,"pos":"x","dropped":true,"fail":3},{"op":"flush_delete","segment":1,"pos":"x","fail":1},
        {"op":"notify_all_flushed"}]}]}"#,
    );
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        let evs = events(&r);
        let all = pos_of(&evs, |e| matches!(e, Ev::NotifyAllFlushed)).unwrap();
        let appended: Vec<usize> = evs
            .iter()
            .enumerate()
            .filter(|(_, (_, e))| matches!(e, Ev::DropPackAppended { .. }))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(appended.len(), 2);
        assert!(appended.iter().all(|i| *i < all), "seed {seed}");
        assert_eq!(
            evs.iter()
                .filter(|(_, e)| matches!(e, Ev::HalfAttemptFailed { .. }))
                .count(),
            4
        );
    }
}

/// §1.5.9: a second half for a MsgID still in working is dropped by sync.Once; after
/// postTask removes it, the same MsgID creates a new runner.
#[test]
fn duplicate_msgid_halves() {
    let sc = parse(
        r#"{"name":"dup","model":"flush-2021","actors":[{"name":"fg","ops":[
        {"op":"flush_insert","segment":2,"pos":"a"},{"op":"flush_insert","segment":2,"pos":"a","flushed":true},
        {"op":"flush_delete","segment":2,"pos":"a"},{"op":"wait_notified","count":1},
        {"op":"flush_insert","segment":2,"pos":"a","flushed":true},{"op":"flush_delete","segment":2,"pos":"a"}]}]}"#,
    );
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed);
        let evs = events(&r);
        assert_eq!(
            evs.iter()
                .filter(|(_, e)| matches!(
                    e,
                    Ev::HalfIgnored {
                        kind: HalfKind::Insert,
                        ..
                    }
                ))
                .count(),
            1
        );
        assert_eq!(
            evs.iter()
                .filter(|(_, e)| matches!(e, Ev::RunnerStored { .. }))
                .count(),
            2
        );
        let n = notified(&r);
        // The ignored half said flushed=true; its data (and flag) never made it.
        assert_eq!(
            n.iter().map(|p| p.flushed).collect::<Vec<_>>(),
            vec![false, true]
        );
    }
}

/// `fifo-per-enqueuer` holds an actor to its order only where Go could keep it:
/// notifies follow the tail chain (fm:134-136@891c202b73), so it fires when a
/// position the actor flushed later was stored after the actor's call for an
/// earlier one returned, yet joined the chain first (the runner-creation race),
/// and not for runners stored before or while that call ran. An actor's call counts from its first call
/// that reached the runner, a half `sync.Once` drops included (ft:126). Two
/// helpers' audits against the Go code found the false alarms.
#[test]
fn fifo_per_enqueuer_follows_the_tail_chain() {
    let flush = |op: &str, pos: &str| format!(r#"{{"op":"flush_{op}","segment":1,"pos":"{pos}"}}"#);
    let actor =
        |name: &str, ops: &[String]| format!(r#"{{"name":"{name}","ops":[{}]}}"#, ops.join(","));
    let wait = |a: &str, i: u32| format!(r#"{{"op":"wait_for","actor":"{a}","index":{i}}}"#);
    let cases = [
        // One goroutine gives both halves, inserting a again in between (dropped).
        (
            "dup",
            vec![actor(
                "A",
                &[
                    flush("insert", "a"),
                    flush("insert", "b"),
                    flush("insert", "a"),
                    flush("delete", "a"),
                    flush("delete", "b"),
                ],
            )],
            false,
        ),
        // I chains a then b before D starts; D deletes b, then a.
        (
            "reversed",
            vec![
                actor("I", &[flush("insert", "a"), flush("insert", "b")]),
                actor(
                    "D",
                    &[wait("I", 1), flush("delete", "b"), flush("delete", "a")],
                ),
            ],
            false,
        ),
        // B chained a before A began; A's first call on a is dropped.
        (
            "dropped-first",
            vec![
                actor("B", &[flush("insert", "a")]),
                actor(
                    "A",
                    &[
                        wait("B", 0),
                        flush("insert", "a"),
                        flush("insert", "b"),
                        flush("delete", "a"),
                        flush("delete", "b"),
                    ],
                ),
            ],
            false,
        ),
        // Y stores b; X's call on a begins, and Y chains b while it runs; X
        // then gives b and a their delete halves, and b notifies first. b was
        // stored before X's call on a began, so X is owed no order (found by a
        // helper reading the Go code: it was reported).
        (
            "overlapping",
            vec![
                actor("Y", &[flush("insert", "b")]),
                actor(
                    "X",
                    &[
                        flush("insert", "a"),
                        flush("delete", "b"),
                        flush("delete", "a"),
                    ],
                ),
            ],
            false,
        ),
        // B stores a and may be overtaken before chaining it; A reaches a (its
        // half dropped, C gave it), then creates and chains b: b can notify first.
        (
            "overtaken",
            vec![
                actor("B", &[flush("delete", "a")]),
                actor("C", &[flush("insert", "a")]),
                actor(
                    "A",
                    &[
                        wait("C", 0),
                        flush("insert", "a"),
                        flush("insert", "b"),
                        flush("delete", "b"),
                    ],
                ),
            ],
            true,
        ),
    ];
    for (name, actors, fires) in cases {
        let sc = parse(&format!(
            r#"{{"name":"{name}","model":"flush-2021","actors":[{}]}}"#,
            actors.join(",")
        ));
        let x = flush_core::explore::explore(&*sc, 200, 1_000_000);
        assert!(!x.truncated, "{name}: the search covers every interleaving");
        let keys: Vec<_> = x.violations.iter().map(|f| f.key.clone()).collect();
        if fires {
            // (A later insert of a may also make a second runner that only one
            // half reaches: a deadlock, beside the point here.)
            assert!(
                keys.iter().any(|k| k == "invariant:fifo-per-enqueuer"),
                "{name}: {keys:?}"
            );
        } else {
            assert!(keys.is_empty(), "{name}: {keys:?}");
        }
    }
    // The seeded runs of the first: a, then b, with the third insert dropped.
    let sc = parse(
        r#"{"name":"dup-feeder","model":"flush-2021","actors":[{"name":"A","ops":[
        {"op":"flush_insert","segment":1,"pos":"a"},{"op":"flush_insert","segment":1,"pos":"b"},
        {"op":"flush_insert","segment":1,"pos":"a"},
        {"op":"flush_delete","segment":1,"pos":"a"},{"op":"flush_delete","segment":1,"pos":"b"}]}]}"#,
    );
    let mut ignored = 0;
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed);
        ignored += events(&r)
            .iter()
            .filter(|(_, e)| matches!(e, Ev::HalfIgnored { .. }))
            .count();
        let order: Vec<_> = notified(&r)
            .iter()
            .map(|p| sc.pos_name(p.pos.unwrap()).to_owned())
            .collect();
        assert_eq!(order, ["a", "b"], "seed {seed}");
    }
    assert_eq!(
        ignored,
        SEEDS.count(),
        "the third insert is dropped in every run"
    );
}

/// The flush manager deadlocks when one pack flushes two segments of one
/// compaction plan, each with a new runner (a Go reading, README's Scope): the
/// insert node closes queue 1's handler under injectMut and waits for it (B7,
/// flush_manager.go:121-132, :221-225@891c202b73); that handler took c1 and waits
/// on injectOver (B6, :208-209); the compactor waits on Injected() (B9), whose
/// wg needs queue 2's injectOne, taken only by runner (2, k) after both halves
/// (flush_task.go:174-190); the delete half comes from the delete node, which
/// gets the pack after the insert node returns. With one plan segment in the
/// pack every interleaving completes: Go's callers never flush two (datacoord
/// compacts only Flushed or Flushing segments, compaction_trigger.go:460-461 in
/// internal/datacoord; one manual flush per pack,
/// flow_graph_insert_buffer_node.go:305-338).
#[test]
fn two_plan_segments_in_one_pack_deadlock() {
    let scenario = |plan: &str| {
        parse(&format!(
            r#"{{"name":"plan","model":"flush-2021",
            "injections":{{"c1":{{"segments":[{plan}],"remap_to":3}}}},"actors":[
            {{"name":"insert-node","ops":[{{"op":"flush_insert","segment":2,"pos":"k"}},
              {{"op":"flush_insert","segment":1,"pos":"k"}}]}},
            {{"name":"delete-node","ops":[{{"op":"wait_for","actor":"insert-node","index":1}},
              {{"op":"flush_delete","segment":2,"pos":"k"}},{{"op":"flush_delete","segment":1,"pos":"k"}}]}},
            {{"name":"compactor","ops":[{{"op":"inject","id":"c1"}},{{"op":"wait_injected","id":"c1"}},
              {{"op":"inject_done","id":"c1","success":true}}]}}]}}"#
        ))
    };
    let x = flush_core::explore::explore(&*scenario("1,2"), 200, 1_000_000);
    assert!(!x.truncated);
    let deadlock = x
        .violations
        .iter()
        .find(|f| f.kind == OutcomeKind::Deadlock)
        .expect("a deadlock");
    for wait in [
        "insert-node waits on B7",
        "waits on B6: <-c1.injectOver",
        "compactor waits on B9",
        "runner seg=2 pos=k waits on B1",
    ] {
        assert!(
            deadlock.message.contains(wait),
            "{wait}: {}",
            deadlock.message
        );
    }
    let x = flush_core::explore::explore(&*scenario("2"), 200, 1_000_000);
    assert!(
        !x.truncated && x.violations.is_empty(),
        "{:?}",
        x.violations
    );
}

/// §1.5.10: flushNotifyFunc panics on a pack with an error; the failed half still counts
/// down, so the runner reaches notify; retry sleeps follow retry.Do (200 ms doubling to 3 s).
#[test]
fn failed_half_panics_at_notify() {
    let sc = builtin("retries");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        let o = r.outcome().unwrap();
        assert_eq!(o.kind, OutcomeKind::Panic, "seed {seed}");
        assert!(o.message.starts_with("execution failed"), "{}", o.message);
        assert!(o
            .goroutine
            .as_deref()
            .unwrap()
            .contains("runner seg=5 pos=b"));
        let evs = events(&r);
        let sleeps: Vec<u32> = evs
            .iter()
            .filter_map(|(_, e)| match e {
                Ev::HalfAttemptFailed {
                    kind: HalfKind::Delete,
                    sleep_ms,
                    ..
                } => Some(*sleep_ms),
                _ => None,
            })
            .collect();
        assert_eq!(
            sleeps,
            vec![200, 400, 800, 1600, 3000, 3000, 3000, 3000, 3000, 3000]
        );
        // The first pack (insert a failed twice, then succeeded) was notified without error.
        assert_eq!(notified(&r).len(), 1);
    }
}

/// §1.5.10: SaveBinlogPaths failures are retried; after 10 the notify panics.
/// Replica: the first notify moves new segments to normal, a flushed pack moves its segment to flushed.
#[test]
fn save_binlog_paths_retries_and_replica() {
    let base = r#"{"name":"rpc","model":"flush-2021","faults":{"save_binlog_paths":N},
        "replica":[{"segment":1,"state":"new","rows":5},{"segment":2,"state":"new","rows":0}],
        "actors":[{"name":"fg","ops":[{"op":"flush_insert","segment":1,"pos":"a","flushed":true},{"op":"flush_delete","segment":1,"pos":"a"}]}]}"#;
    let r = flush_run(&parse(&base.replace('N', "3")), seeded(1));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    let fails = events(&r)
        .iter()
        .filter(|(_, e)| matches!(e, Ev::RpcFailed { .. }))
        .count();
    assert_eq!(fails, 3);
    let rep = &r.head().replica;
    assert_eq!(rep[0].state, ReplicaState::Flushed);
    assert_eq!(rep[0].checkpoint, Some(0));
    assert_eq!(
        rep[1].state,
        ReplicaState::Normal,
        "listNewSegmentsStartPositions moves every new segment"
    );
    let r = flush_run(&parse(&base.replace('N', "10")), seeded(1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert!(o.message.contains("SaveBinlogPaths"));
}

/// §1.5.11: DropVirtualChannel is retried, then every segment of the request is flushed.
#[test]
fn drop_virtual_channel_retries() {
    let sc = parse(
        r#"{"name":"dvc","model":"flush-2021","faults":{"drop_virtual_channel":2},"actors":[{"name":"fg","ops":[
        {"op":"start_dropping"},{"op":"flush_insert","segment":3,"pos":"x","dropped":true},{"op":"notify_all_flushed"}]}]}"#,
    );
    let r = flush_run(&sc, seeded(1));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    let evs = events(&r);
    assert_eq!(
        evs.iter()
            .filter(|(_, e)| matches!(e, Ev::RpcFailed { .. }))
            .count(),
        2
    );
    assert!(evs.iter().any(|(_, e)| matches!(e, Ev::FlushAndDropDone)));
    assert_eq!(r.head().replica[0].state, ReplicaState::Flushed);
}

/// Drop mode with injections: every drop pack is remapped by its queue's postInjection.
#[test]
fn drop_mode_with_injection_remaps_packs() {
    let sc = builtin("drop-mode-injection");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let packs = r.head().drop.flush_and_drop.clone().unwrap();
        assert_eq!(packs.len(), 4);
        assert!(
            packs.iter().all(|p| p.segment == 100),
            "seed {seed}: {packs:?}"
        );
        // c1's compactor removed segment 1 and added 100 as flushed; c2's found
        // 100 there and only refreshed it (compactor.go:452-461), so segment 2
        // is left. The request also carries the start position of the new
        // segment 2 (listNewSegmentsStartPositions), and dropVirtualChannelFunc
        // flushes it too.
        let replica: Vec<_> = r
            .head()
            .replica
            .iter()
            .map(|s| (s.segment, s.state))
            .collect();
        let flushed = ReplicaState::Flushed;
        assert_eq!(replica, [(2, flushed), (100, flushed)], "seed {seed}");
    }
}

/// TestOrderFlushQueue_Order: delete then insert for each position, sequentially;
/// notify order is the order of the positions. Checked from the FinishClosed events.
#[test]
fn order_flush_queue_order() {
    let mut ops = Vec::new();
    for i in 0..40 {
        ops.push(format!(
            r#"{{"op":"flush_delete","segment":1,"pos":"{i}"}}"#
        ));
        ops.push(format!(
            r#"{{"op":"flush_insert","segment":1,"pos":"{i}"}}"#
        ));
    }
    let sc = parse(&format!(
        r#"{{"name":"order","model":"flush-2021","actors":[{{"name":"fg","ops":[{}]}}]}}"#,
        ops.join(",")
    ));
    for seed in 0..20 {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed);
        let order: Vec<String> = events(&r)
            .into_iter()
            .filter_map(|(_, e)| match e {
                Ev::FinishClosed { pos, .. } => Some(sc.pos_name(pos).to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(order, (0..40).map(|i| i.to_string()).collect::<Vec<_>>());
    }
}

/// A full injectCh (100 queued) blocks the injector in B10.
#[test]
fn full_inject_ch_blocks_sender() {
    let mut injections = Vec::new();
    let mut ops = vec![r#"{"op":"flush_insert","segment":1,"pos":"a"}"#.to_owned()];
    for i in 0..101 {
        injections.push(format!(r#""c{i}":{{"segments":[1]}}"#));
        ops.push(format!(r#"{{"op":"inject","id":"c{i}"}}"#));
    }
    let sc = parse(&format!(
        r#"{{"name":"full","model":"flush-2021","injections":{{{}}},"actors":[{{"name":"fg","ops":[{}]}}]}}"#,
        injections.join(","),
        ops.join(",")
    ));
    let r = flush_run(&sc, seeded(1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Deadlock, "{o}");
    assert!(
        o.message.contains("B10: room in queue 1's injectCh"),
        "{}",
        o.message
    );
    assert_eq!(r.head().queue(1).unwrap().inject_ch.len(), 100);
}

/// notifyAllFlushed before startDropping closes a nil channel: a Go panic.
#[test]
fn notify_all_flushed_without_dropping_panics() {
    let sc = parse(
        r#"{"name":"nil","model":"flush-2021","actors":[{"name":"fg","ops":[{"op":"notify_all_flushed"}]}]}"#,
    );
    let r = flush_run(&sc, seeded(1));
    let o = r.outcome().unwrap();
    assert_eq!(o.kind, OutcomeKind::Panic);
    assert!(o.message.contains("close of nil channel"));
}

/// The manager's close() waits (B7) for a handler that is handling an injection.
#[test]
fn close_waits_for_handler_mid_injection() {
    let sc = parse(
        r#"{"name":"close","model":"flush-2021","injections":{"c":{"segments":[1]}},"actors":[
        {"name":"comp","ops":[{"op":"inject","id":"c"},{"op":"wait_injected","id":"c"},{"op":"inject_done","id":"c","success":false}]},
        {"name":"dn","ops":[{"op":"wait_injected","id":"c"},{"op":"close"}]}]}"#,
    );
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        let done = pos_of(&evs, |e| matches!(e, Ev::InjectDone { .. })).unwrap();
        let stopped = pos_of(&evs, |e| matches!(e, Ev::HandlerStopped { .. })).unwrap();
        assert!(done < stopped, "seed {seed}");
        assert!(
            r.head().queue(1).unwrap().handler.is_some(),
            "close() does not set the handler to nil"
        );
    }
}

/// Go's select: a handler with both an injection and done ready offers two choices.
#[test]
fn select_with_both_cases_ready_is_a_choice() {
    let sc = parse(
        r#"{"name":"sel","model":"flush-2021","injections":{"c":{"segments":[1]}},"actors":[
        {"name":"fg","ops":[{"op":"inject","id":"c"},{"op":"flush_insert","segment":1,"pos":"a"}]}]}"#,
    );
    // g0 injects (waiter g1, queue 1 with handler g2), then creates the runner and
    // closes the handler: it blocks in B7 while g2 has both cases ready.
    let mut r = manual::<Scenario>(&sc);
    while r.runnable_here().iter().any(|c| c.g == 0) {
        r.advance_with(Choice::new(0, 0)).unwrap();
    }
    let at_b7 = r.len();
    let here = r.runnable_here();
    assert!(
        here.contains(&Choice::new(2, 0)) && here.contains(&Choice::new(2, 1)),
        "{here:?}"
    );
    // Case 1 (done): the handler exits with the injection still queued; the runner will take it.
    r.advance_with(Choice::new(2, 1)).unwrap();
    assert!(r.world().goroutine(2).is_none());
    assert_eq!(r.world().queue(1).unwrap().inject_ch.len(), 1);
    let mut branch = r.clone();
    branch.goto(at_b7);
    branch.advance_with(Choice::new(2, 0)).unwrap();
    assert!(matches!(
        branch.world().goroutine(2).unwrap().role,
        Role::Handler {
            at: HandlerAt::Handling { .. },
            ..
        }
    ));
}

/// The checker catches a corrupted world: a queue that lost its handler while idle.
#[test]
fn invariant_checker_reports_handler_without_idle() {
    let sc = builtin("idle-handler-injection");
    let mut w = sc.init();
    let mut evs = Vec::new();
    // Compactor injects: queue 2 is created with an idle handler.
    sc.step(&mut w, Choice::new(0, 0), &mut evs);
    assert!(w.violations.is_empty());
    let q = w.queues.iter_mut().find(|q| q.segment == 2).unwrap();
    q.handler = None; // corrupt: running == 0 but no handler
    sc.step(&mut w, Choice::new(3, 0), &mut evs); // the handler goroutine takes c1
    assert_eq!(w.violations.len(), 1);
    assert_eq!(w.violations[0].name(), "handler-iff-idle");
    assert!(evs.iter().any(|e| matches!(e, Ev::Invariant(_))));
}

/// Every goroutine role appears in some built-in run, each step names a Go function.
#[test]
fn every_step_names_a_go_function() {
    for name in flush_core::builtin::names() {
        let sc = common::builtin(name);
        let r = any_run(&sc, seeded(sc.header().seed));
        for l in r.lines() {
            assert!(
                l.go.file.ends_with(".go")
                    || ["scenario", "flowgraph", "flushscope", "runtime"].contains(&l.go.file),
                "{name} step {}: {:?}",
                l.step,
                l.go
            );
            assert!(
                l.go.excerpt.len() > 20,
                "{name} step {}: {} says what it does",
                l.step,
                l.go
            );
            assert!(!l.event.is_empty());
        }
    }
    let roles = [builtin("handoff"), builtin("drop-mode")];
    let mut seen = std::collections::BTreeSet::new();
    for sc in roles {
        let mut r = flush_core::engine::Run::<Scenario>::new(sc.clone(), seeded(1));
        while r.advance().is_ok() {
            for g in &r.world().goroutines {
                seen.insert(match g.role {
                    Role::Actor { .. } => "actor",
                    Role::Runner { .. } => "runner",
                    Role::Half { .. } => "half",
                    Role::Handler { .. } => "handler",
                    Role::WaitInjected { .. } => "waiter",
                    Role::Finaliser { .. } => "finaliser",
                    Role::TailWaiter { .. } => "tail waiter",
                });
            }
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
}

/// A library-level race (Go does it; a datanode's flow graph cannot): two goroutines
/// creating one queue's runners can chain them out of either one's order, because
/// getFlushTaskRunner is three critical sections. All four orders Go produced on this
/// workload (issue #15: a b c, a c b, b a c, b c a) are outcomes of the model, and
/// the embedded schedule shows b, c, a with the per-enqueuer FIFO finding.
#[test]
fn library_level_race_reaches_every_go_order() {
    let sc = builtin("runner-creation-race");
    let got: Vec<String> = outcomes(&*sc, 2_000_000)
        .unwrap()
        .into_iter()
        .map(|o| o.outcome)
        .collect();
    assert_eq!(
        got,
        [
            "N=1/a 1/b 1/c+f | D=- | E=completed",
            "N=1/a 1/c+f 1/b | D=- | E=completed",
            "N=1/b 1/a 1/c+f | D=- | E=completed",
            "N=1/b 1/c+f 1/a | D=- | E=completed",
        ]
    );
    let r = flush_run(
        &sc,
        flush_core::Policy::Scripted {
            script: sc.head.schedule.clone().unwrap(),
            fallback_seed: 2,
        },
    );
    assert!(
        r.records().iter().all(|rec| rec.note.is_none()),
        "the schedule is replayed whole"
    );
    let order: Vec<&str> = notified(&r)
        .iter()
        .map(|p| sc.pos_name(p.pos.unwrap()))
        .collect();
    assert_eq!(order, vec!["b", "c", "a"]);
    let names: Vec<&str> = r.head().violations.iter().map(|v| v.name()).collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| *n == "fifo-per-enqueuer"),
        "{names:?}"
    );
    assert_eq!(kind(&r), OutcomeKind::Invariant);
    // With the flow graph's order (ordered-flush), one outcome and no finding.
    let ordered = builtin("ordered-flush");
    let got = outcomes(&*ordered, 2_000_000).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].outcome, "N=1/a 1/b 1/c+f | D=- | E=completed");
    let x = flush_core::explore::explore(&*ordered, 500, 2_000_000);
    assert!(
        !x.truncated && x.violations.is_empty(),
        "{:?}",
        x.violations
    );
}

/// Every state of every seeded run of `sc`, to check a property at each step.
fn each_state(sc: &Arc<Scenario>, seeds: std::ops::Range<u64>, mut f: impl FnMut(&World)) {
    for seed in seeds {
        let r = flush_run(sc, seeded(seed));
        r.for_each_world(|_, w| f(w));
    }
}

/// flush_manager.go:145-147 at 891c202b73: postTask deletes the MsgID from working
/// before it takes injectMut, so a runner waiting for injectMut is already gone from
/// working (before the fix of issue #7 it was still there).
#[test]
fn post_task_deletes_from_working_before_injectmut() {
    let sc = builtin("go-test-inject");
    let mut seen_waiting = 0;
    each_state(&sc, 0..40, |w| {
        for g in &w.goroutines {
            if let Role::Runner {
                runner: r,
                at: RunnerAt::PostTaskLock { .. },
            } = g.role
            {
                let r = w.runner(r).unwrap();
                let q = w
                    .queues
                    .iter()
                    .position(|q| q.segment == r.segment)
                    .unwrap();
                assert_eq!(w.working(q, r.pos), None, "still in working");
                seen_waiting += 1;
            }
        }
    });
    assert!(seen_waiting > 0);
}

/// Issue #15, point 1: between working.LoadOrStore, injectMut and tailMut a creator
/// can be overtaken, also with no inject handler to close (steady state): the trace of
/// the library-level race shows a stored first, b chained first.
#[test]
fn runner_creation_steps_let_creators_overtake() {
    let sc = builtin("runner-creation-race");
    let r = flush_run(
        &sc,
        flush_core::Policy::Scripted {
            script: sc.head.schedule.clone().unwrap(),
            fallback_seed: 2,
        },
    );
    let evs = events(&r);
    let pos = |n: &str| sc.positions.iter().position(|x| x == n).unwrap() as u32;
    let stored = |p| {
        pos_of(
            &evs,
            |e| matches!(e, Ev::RunnerStored { pos, .. } if *pos == p),
        )
        .unwrap()
    };
    let chained = |p| {
        pos_of(
            &evs,
            |e| matches!(e, Ev::RunnerInit { pos, .. } if *pos == p),
        )
        .unwrap()
    };
    assert!(stored(pos("a")) < stored(pos("b")), "a is stored first");
    assert!(
        chained(pos("b")) < chained(pos("a")),
        "b joins the tail chain first"
    );
    assert!(chained(pos("c")) < chained(pos("a")), "and c too");
    // The steps of one creation: LoadOrStore, then injectMut, then tailMut, each a step.
    let step_of = |i: usize| evs[i].0;
    let locked = pos_of(&evs, |e| matches!(e, Ev::InjectMutLocked { .. })).unwrap();
    assert!(step_of(stored(pos("a"))) < step_of(locked));
    assert!(step_of(locked) < step_of(chained(pos("a"))));
}

/// Issue #15, point 2: the finaliser applies postInjection one pack per step, each
/// under the queue's injectMut, while the inject handler sets postInjection without
/// it; a compaction that completes mid-pass remaps only the later packs. Every split
/// is reachable.
#[test]
fn finaliser_pass_can_straddle_a_compaction() {
    let sc = builtin("drop-mode-compaction");
    let got: Vec<String> = outcomes(&*sc, 2_000_000)
        .unwrap()
        .into_iter()
        .map(|o| o.outcome)
        .collect();
    let packs = ["2/x+d", "2/nil", "2/y+d", "2/nil", "2/z+d", "2/nil"];
    let mut want: Vec<String> = (0..=6)
        .map(|split| {
            let d: Vec<String> = packs
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if i < split {
                        (*p).to_owned()
                    } else {
                        p.replacen('2', "100", 1)
                    }
                })
                .collect();
            format!("N= | D={} | E=completed", d.join(" "))
        })
        .collect();
    want.sort();
    assert_eq!(got, want);
    // The embedded schedule: injectDone lands after the second pack.
    let r = flush_run(
        &sc,
        flush_core::Policy::Scripted {
            script: sc.head.schedule.clone().unwrap(),
            fallback_seed: 1,
        },
    );
    let d: Vec<i64> = r
        .head()
        .drop
        .flush_and_drop
        .clone()
        .unwrap()
        .iter()
        .map(|p| p.segment)
        .collect();
    assert_eq!(d, vec![2, 2, 100, 100, 100, 100]);
    let evs = events(&r);
    let over = pos_of(&evs, |e| {
        matches!(e, Ev::HandlerInjectOver { ok: true, .. })
    })
    .unwrap();
    let pack = |i| {
        pos_of(
            &evs,
            |e| matches!(e, Ev::DropPackPostInjection { index, .. } if *index == i),
        )
        .unwrap()
    };
    assert!(pack(1) < over && over < pack(2));
}

/// Issue #7, point 4: drop-mode callers append under dropHandler's mutex, which the
/// finaliser holds from its postInjection pass until flushAndDrop returns; a pack
/// appended after notifyAllFlushed can wait for it and miss flushAndDrop.
#[test]
fn drop_mutex_blocks_late_drop_mode_callers() {
    let sc = parse(
        r#"{"name":"late","model":"flush-2021","actors":[
        {"name":"fg","ops":[{"op":"start_dropping"},{"op":"notify_all_flushed"}]},
        {"name":"late","ops":[{"op":"wait_for","actor":"fg","index":1},{"op":"flush_insert","segment":4,"pos":"x","dropped":true}]}]}"#,
    );
    // The finaliser runs first up to flushAndDrop; then the late flush's half.
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[1], |e| matches!(
        e,
        Ev::FinaliserLocked { .. }
    )));
    let fin = r
        .world()
        .goroutines
        .iter()
        .find(|g| matches!(g.role, Role::Finaliser { .. }))
        .unwrap()
        .id;
    assert!(run_holding(&mut r, &[fin], |e| matches!(
        e,
        Ev::DropMutexWait { .. }
    )));
    assert!(r.world().goroutines.iter().any(|g| matches!(
        g.role,
        Role::Actor {
            at: ActorAt::DropMutex { .. },
            ..
        }
    )));
    run_rest(&mut r);
    assert_eq!(kind(&r), OutcomeKind::Completed);
    let w = r.head();
    assert_eq!(
        w.drop.flush_and_drop.as_deref(),
        Some(&[][..]),
        "flushAndDrop got nothing"
    );
    assert_eq!(
        w.drop.packs.len(),
        1,
        "the pack was appended after flushAndDrop returned"
    );
}

/// Issue #7, point 5: each of waitForAllFlushQueue's goroutines reads its queue's
/// tailCh when it runs; a queue stored but not initialised yet has a nil tailCh, and
/// its waiter blocks forever (a deadlock Go can reach when something creates a
/// queue while the finaliser ranges over the dispatcher).
#[test]
fn tail_waiters_read_the_tail_when_they_run() {
    let sc = parse(
        r#"{"name":"nil-tail","model":"flush-2021","injections":{"c":{"segments":[5]}},"actors":[
        {"name":"fg","ops":[{"op":"start_dropping"},{"op":"notify_all_flushed"}]},
        {"name":"comp","ops":[{"op":"inject","id":"c"},{"op":"wait_injected","id":"c"},{"op":"inject_done","id":"c","success":true}]}]}"#,
    );
    let x = flush_core::explore::explore(&*sc, 100, 1_000_000);
    let dl = x
        .violations
        .iter()
        .find(|f| f.kind == OutcomeKind::Deadlock)
        .expect("a deadlock");
    assert!(
        dl.message.contains("B13: a nil tailCh (forever)"),
        "{}",
        dl.message
    );
    let got = outcomes(&*sc, 1_000_000).unwrap();
    let ends: Vec<&str> = got.iter().map(|o| o.outcome.as_str()).collect();
    assert!(ends.contains(&"N= | D= | E=completed"), "{ends:?}");
    assert!(ends.contains(&"N= | D=- | E=deadlock"), "{ends:?}");
}

/// Exhaustive outcome sets of the flush-2021 built-ins that fit a state budget:
/// a change in step granularity shows here (review with `cargo insta review`).
#[test]
fn outcome_sets_of_flush_builtins() {
    let mut text = String::new();
    for (name, _) in flush_core::builtin::FILES {
        let AnyScenario::Flush(sc) = common::builtin(name) else {
            continue;
        };
        match outcomes(&*sc, 400_000) {
            Some(set) => {
                text.push_str(&format!("{name}: {} outcome(s)\n", set.len()));
                for o in set {
                    text.push_str(&format!("  {}\n", o.outcome));
                }
            }
            None => text.push_str(&format!("{name}: over 400000 states\n")),
        }
    }
    insta::with_settings!({
        snapshot_path => "../../../../tests/golden",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("flush-2021-outcomes", text);
    });
}

/// Milvus's flush-manager tests at 891c202b73, ported as built-ins (smaller sizes):
/// under many seeds each ends as the Go test expects and its assertions hold.
#[test]
fn ported_go_tests_hold_their_assertions() {
    let segs = |ps: &[flush_core::models::flush2021::Pack]| {
        ps.iter().map(|p| p.segment).collect::<Vec<_>>()
    };
    for seed in 0..100 {
        // TestOrderFlushQueue_Order: notified in enqueue order.
        let sc = builtin("go-test-order");
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed);
        let order: Vec<&str> = notified(&r)
            .iter()
            .map(|p| sc.pos_name(p.pos.unwrap()))
            .collect();
        assert_eq!(order, ["m1", "m2", "m3", "m4", "m5"], "seed {seed}");
        // TestOrderFlushQueue_Execute: every position notified once, in any order.
        let sc = builtin("go-test-execute");
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let mut got: Vec<&str> = notified(&r)
            .iter()
            .map(|p| sc.pos_name(p.pos.unwrap()))
            .collect();
        got.sort();
        assert_eq!(got, ["m1", "m2", "m3", "m4", "m5"], "seed {seed}");
        // TestRendezvousFlushManager_Inject: packs[size] is segment 4, and the pack after
        // the failed injection is still 4 (sticky).
        let r = flush_run(&builtin("go-test-inject"), seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        assert_eq!(segs(&notified(&r)), [1, 1, 1, 4, 4, 4], "seed {seed}");
        // dropMode, both cases: no -1 pack reaches flushAndDrop; with injection all are 100.
        let r = flush_run(&builtin("go-test-drop-mode"), seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let d = segs(r.head().drop.flush_and_drop.as_deref().unwrap());
        assert!(
            !d.contains(&-1) && [1, 2, 3].iter().all(|s| d.contains(s)),
            "seed {seed}: {d:?}"
        );
        let r = flush_run(&builtin("go-test-drop-mode-injection"), seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let d = segs(r.head().drop.flush_and_drop.as_deref().unwrap());
        assert!(
            d.len() == 6 && d.iter().all(|s| *s == 100),
            "seed {seed}: {d:?}"
        );
        // close: every pack notified, then every handler stopped (the field stays set).
        let r = flush_run(&builtin("go-test-close"), seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        assert_eq!(notified(&r).len(), 3);
        assert!(r.head().queue(1).unwrap().handler.is_some());
        // FailError: the pack carries the error; the datanode's notify panics on it.
        let r = flush_run(&builtin("go-test-fail-error"), seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Panic, "seed {seed}");
        assert!(r.outcome().unwrap().message.starts_with("execution failed"));
    }
}

fn outcomes_of(sc: &Scenario) -> Vec<String> {
    outcomes(sc, 2_000_000)
        .unwrap()
        .into_iter()
        .map(|o| o.outcome)
        .collect()
}

/// retry.go:42-57 sleeps after the last failed attempt too, then returns: while one
/// runner's SaveBinlogPaths sleeps after its 10th failure, another's call can
/// succeed and be notified before the panic (a review finding, confirmed in Go).
#[test]
fn rpc_retries_sleep_after_the_last_attempt() {
    let sc = parse(
        r#"{"name":"final-sleep","model":"flush-2021","faults":{"save_binlog_paths":10},"actors":[
        {"name":"a","ops":[{"op":"flush_insert","segment":1,"pos":"a"},{"op":"flush_delete","segment":1,"pos":"a"}]},
        {"name":"b","ops":[{"op":"flush_insert","segment":2,"pos":"b"},{"op":"flush_delete","segment":2,"pos":"b"}]}]}"#,
    );
    let got = outcomes_of(&sc);
    for o in ["N=2/b | D=- | E=panic", "N=1/a | D=- | E=panic"] {
        assert!(got.iter().any(|g| g == o), "{o} missing from {got:?}");
    }
}

/// close()'s dispatcher.Range visits the queues in map order, random in Go: with
/// queue 1's handler busy on c1 and c2 waiting in queue 2's injectCh, visiting
/// queue 2 first stops its handler and then blocks on queue 1 for ever (a review
/// finding, confirmed in Go).
#[test]
fn close_visits_queues_in_any_order() {
    let sc = parse(
        r#"{"name":"close-order","model":"flush-2021","injections":{"c1":{"segments":[1]},"c0":{"segments":[2]},"c2":{"segments":[2]}},"actors":[
        {"name":"x","ops":[{"op":"inject","id":"c1"},{"op":"wait_injected","id":"c1"},{"op":"inject","id":"c0"},{"op":"wait_injected","id":"c0"},
          {"op":"inject_done","id":"c0","success":true},{"op":"inject","id":"c2"},{"op":"wait_injected","id":"c2"},
          {"op":"inject_done","id":"c1","success":true},{"op":"inject_done","id":"c2","success":true}]},
        {"name":"closer","ops":[{"op":"wait_for","actor":"x","index":4},{"op":"close"}]}]}"#,
    );
    assert_eq!(
        outcomes_of(&sc),
        ["N= | D=- | E=completed", "N= | D=- | E=deadlock"]
    );
    // The choice is offered as a button per queue left to visit.
    let mut r = manual::<Scenario>(&sc);
    assert!(run_holding(&mut r, &[], |e| matches!(
        e,
        Ev::ManagerClose { .. }
    )));
    let closer = r
        .world()
        .goroutines
        .iter()
        .find(|g| {
            matches!(
                g.role,
                Role::Actor {
                    at: ActorAt::CloseQueues,
                    ..
                }
            )
        })
        .unwrap()
        .id;
    let labels: Vec<String> = r
        .runnable_here()
        .into_iter()
        .filter(|c| c.g == closer)
        .map(|c| r.scenario().choice_label(r.world(), c))
        .collect();
    assert_eq!(
        labels,
        ["Range visits queue 1 next", "Range visits queue 2 next"]
    );
}

/// The inject-done splice seen by the drop finaliser: its waiter reads the handler's
/// injectDone as queue 1's tail, so flushAndDrop can run before runner a's
/// SaveBinlogPaths (a review finding).
#[test]
fn drop_finaliser_can_be_overtaken_by_the_splice() {
    let sc = parse(
        r#"{"name":"drop-splice","model":"flush-2021","injections":{"c1":{"segments":[1]}},"actors":[
        {"name":"ins","ops":[{"op":"flush_insert","segment":1,"pos":"a"},{"op":"start_dropping"}]},
        {"name":"del","ops":[{"op":"wait_for","actor":"ins","index":0},{"op":"flush_delete","segment":1,"pos":"a"},{"op":"wait_for","actor":"ins","index":1},{"op":"notify_all_flushed"}]},
        {"name":"compactor","ops":[{"op":"inject","id":"c1"},{"op":"wait_injected","id":"c1"},{"op":"inject_done","id":"c1","success":true}]}]}"#,
    );
    let x = flush_core::explore::explore(&*sc, 200, 1_000_000);
    let v = x
        .violations
        .iter()
        .find(|f| f.kind == OutcomeKind::Invariant)
        .expect("found");
    assert!(
        v.message.starts_with(
            "inject-done-splice: flushAndDrop ran before queue 1's pos=a was notified"
        ),
        "{}",
        v.message
    );
}

#[test]
fn what_if_the_handler_chains_the_old_tail_the_splice_is_gone_and_nothing_new_breaks() {
    // The proposed fix for inject-done-splice: handleInjection reads the tail it
    // replaces (fm:205) and waits for it before close(injectDone) (fm:214).
    let chained = |name: &str| {
        let knob = serde_json::json!({"handler_chains_tail": true});
        common::builtin_with(name, "what_if", knob).unwrap()
    };
    let o = flush_core::explore::Options::exhaustive(200, 400_000);
    for name in ["inject-done-splice", "compaction-race"] {
        let plain = common::builtin(name).explore_with(&o, &mut |_| true);
        assert!(
            plain
                .violations
                .iter()
                .any(|f| f.message.starts_with("inject-done-splice")),
            "{name}: {}",
            plain.text()
        );
        let x = chained(name).explore_with(&o, &mut |_| true);
        assert!(
            !x.truncated && x.violations.is_empty(),
            "{name}: {}",
            x.text()
        );
    }
    for name in [
        "handoff",
        "idle-handler-injection",
        "failed-injection-sticky",
        "drop-mode-injection",
        "drop-mode-compaction",
        "go-test-inject",
    ] {
        let x = chained(name).explore_with(&o, &mut |_| true);
        assert!(
            !x.truncated && x.violations.is_empty(),
            "{name}: {}",
            x.text()
        );
    }
    // The handler waits at a step of its own while the old tail is open, and says so.
    let sc = chained("inject-done-splice");
    let mut r = sc.run(flush_core::Policy::Scripted {
        script: sc.header().schedule.clone().unwrap(),
        fallback_seed: 1,
    });
    r.run_to_end();
    let lines: Vec<String> = (1..=r.len())
        .filter_map(|i| r.line(i))
        .map(|l| l.event)
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("it waits for it before closing injectDone of c1 (proposed)")),
        "{lines:#?}"
    );
}

#[test]
fn what_if_runner_creation_is_one_critical_section_runners_chain_in_creation_order() {
    // runner-creation-race: two goroutines create one queue's runners and another
    // creator overtakes between working.LoadOrStore (fm:121) and the chaining
    // (fm:134-137). With getFlushTaskRunner one critical section, the runners join
    // the chain in the order they were stored, and nothing else changes.
    let locked = |name: &str| {
        let knob = serde_json::json!({"runner_creation_locked": true});
        common::builtin_with(name, "what_if", knob).unwrap()
    };
    let o = flush_core::explore::Options::exhaustive(200, 400_000);
    let kinds = |x: &flush_core::explore::Exploration| -> Vec<String> {
        let mut v: Vec<String> = x
            .violations
            .iter()
            .map(|f| f.message.split(':').next().unwrap().to_owned())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let plain = common::builtin("runner-creation-race").explore_with(&o, &mut |_| true);
    assert_eq!(kinds(&plain), ["fifo-per-enqueuer"], "{}", plain.text());
    let x = locked("runner-creation-race").explore_with(&o, &mut |_| true);
    assert!(!x.truncated && x.violations.is_empty(), "{}", x.text());
    for name in [
        "ordered-flush",
        "compaction-race",
        "handoff",
        "go-test-order",
        "retries",
    ] {
        let a = common::builtin(name).explore_with(&o, &mut |_| true);
        let b = locked(name).explore_with(&o, &mut |_| true);
        assert!(!b.truncated, "{name}");
        assert_eq!(kinds(&a), kinds(&b), "{name}: {}", b.text());
    }
    // A creator that finds the mutex held waits, and the trace says why.
    let sc = locked("runner-creation-race");
    let waited = (1..=20).any(|seed| {
        let mut r = sc.run(flush_core::Policy::Seeded(seed));
        r.run_to_end();
        (1..=r.len()).filter_map(|i| r.line(i)).any(|l| {
            l.event
                .contains("creation mutex is held by another getFlushTaskRunner")
                && l.go.func == "getFlushTaskRunner"
        })
    });
    assert!(waited);
    // Every face labels the run "proposed"; the code as it is carries no label.
    let mut r = sc.run(flush_core::Policy::Seeded(1));
    r.run_to_end();
    assert!(
        r.text(false)
            .starts_with("# runner-creation-race (flush-2021, proposed: runner_creation_locked), "),
        "{}",
        r.text(false).lines().next().unwrap()
    );
    let v: serde_json::Value = serde_json::from_str(&r.report_json(false)).unwrap();
    assert_eq!(v["proposed"], serde_json::json!(["runner_creation_locked"]));
    assert!(r.about().contains("Proposed changes, not in Milvus"));
    let mut plain = common::builtin("runner-creation-race").run(flush_core::Policy::Seeded(1));
    plain.run_to_end();
    let v: serde_json::Value = serde_json::from_str(&plain.report_json(false)).unwrap();
    assert!(v.get("proposed").is_none() && !plain.about().contains("Proposed"));
}

/// The Milvus log lines a run printed, one a line, each checked: it reads back
/// as one zap line or Go panic, and its (file, message) is one the model knows.
fn log_of(r: &flush_core::engine::Run<Scenario>) -> Vec<String> {
    use flush_core::logs::{conform::Key, parse, Kind};
    let sc = r.scenario();
    let mut out = Vec::new();
    for (_, e) in events(r) {
        for line in sc.fact_log(&e).iter().flat_map(|t| t.lines()) {
            let p = parse(line);
            assert_eq!(p.records.len(), 1, "{line}");
            let kind = &p.records[0].kind;
            assert!(
                matches!(kind, Kind::Log(l) if l.line.is_some() && l.file.starts_with("datanode/"))
                    || matches!(
                        kind,
                        Kind::Panic {
                            recovered: false,
                            ..
                        }
                    ),
                "{line}: {kind:?}"
            );
            let k = Key::of(kind).unwrap();
            let at = match kind {
                Kind::Log(l) => l.line,
                _ => None,
            };
            assert!(
                sc.log_known(&k.file, &k.message, at),
                "{line}: not in LOG_SITES"
            );
            out.push(line.to_owned());
        }
    }
    out
}

/// flushNotifyFunc logs "SaveBinlogPath" with the pack's segment (after any
/// postInjection remap) once per notified pack (flush_manager.go:703@891c202b73),
/// and every line a flush-2021 built-in prints is one LOG_SITES lists. No
/// built-in has a compaction that cannot start: the one of
/// [`compaction_of_2_and_3`] without segment 2 stands in, its "compact wrong"
/// (compactor.go:305@891c202b73) checked the same way.
#[test]
fn save_binlog_path_is_logged_per_notified_pack() {
    let sc = builtin("handoff");
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        let log = log_of(&r);
        assert_eq!(notified(&r).len(), 2, "seed {seed}");
        assert_eq!(
            log,
            vec!["[DEBUG] [datanode/flush_manager.go:703] [\"SaveBinlogPath\"] [SegmentID=4]"; 2],
            "seed {seed}"
        );
    }
    for (name, _) in flush_core::builtin::FILES {
        let AnyScenario::Flush(sc) = common::builtin(name) else {
            continue;
        };
        for seed in 0..5 {
            let r = flush_run(&sc, seeded(seed));
            let saves = log_of(&r)
                .iter()
                .filter(|l| l.contains("[\"SaveBinlogPath\"]"))
                .count();
            let calls = events(&r)
                .iter()
                .filter(|(_, e)| matches!(e, Ev::SaveBinlogPathsCall { .. }))
                .count();
            assert_eq!(saves, calls, "{name} seed {seed}");
            assert!(saves >= notified(&r).len(), "{name} seed {seed}");
        }
    }
    let sc = parse(&compaction_of_2_and_3(COMPACTION_REPLICA_LACKS_2));
    for seed in 0..5 {
        let log = log_of(&flush_run(&sc, seeded(seed)));
        let wrong = "[ERROR] [datanode/compactor.go:305] [\"compact wrong\"] [error=\"cannot find segment, id = 2\"]";
        assert_eq!(
            log.iter().filter(|l| *l == wrong).count(),
            1,
            "seed {seed}: {log:?}"
        );
    }
}

/// Each way the 2021 datanode panics prints the log call before the panic (if
/// any) and the panic's first line; a drop-mode pack with an error logs getFlushPack's warning.
#[test]
fn flush_2021_panics_print_their_log_lines() {
    let ops = |faults: &str, ops: &str| {
        parse(&format!(
            r#"{{"name":"p","model":"flush-2021","faults":{{{faults}}},"actors":[{{"name":"fg","ops":[{ops}]}}]}}"#
        ))
    };
    let notify = r#"{"op":"flush_insert","segment":1,"pos":"a"},{"op":"flush_delete","segment":1,"pos":"a"}"#;
    let drop = r#"{"op":"start_dropping"},{"op":"flush_insert","segment":3,"pos":"x","dropped":true},{"op":"notify_all_flushed"}"#;
    let drop_fail = r#"{"op":"start_dropping"},{"op":"flush_insert","segment":3,"pos":"x","fail":10},{"op":"notify_all_flushed"}"#;
    let twice =
        r#"{"op":"start_dropping"},{"op":"notify_all_flushed"},{"op":"notify_all_flushed"}"#;
    let retries = "[WARN] [datanode/flush_manager.go:746] [\"failed to SaveBinlogPaths\"]";
    let dvc = "[WARN] [datanode/flush_manager.go:664] [\"failed to DropVirtualChannel\"]";
    let all = "panic: All attempts results:";
    let error = "[ERROR] [datanode/flush_manager.go:677] [\"flush pack with error, DataNode quit now\"] [error=\"execution failed\"]";
    let cases: [(Arc<Scenario>, Vec<&str>); 6] = [
        (ops(r#""save_binlog_paths":10"#, notify), vec![retries, all]),
        (ops(r#""drop_virtual_channel":10"#, drop), vec![dvc, all]),
        (
            ops("", r#"{"op":"notify_all_flushed"}"#),
            vec!["panic: close of nil channel"],
        ),
        (ops("", twice), vec!["panic: close of closed channel"]),
        (
            ops("", drop_fail),
            vec!["[WARN] [datanode/flush_task.go:211] [\"flush task error detected\"]"],
        ),
        (builtin("retries"), vec![error, "panic: execution failed"]),
    ];
    for (sc, want) in cases {
        let r = flush_run(&sc, seeded(1));
        let log = log_of(&r);
        assert!(
            log.ends_with(&want.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            "{log:?}"
        );
        for (_, e) in events(&r) {
            if let Ev::GoPanic { message } = &e {
                assert!(e.log_line().is_some(), "no line for the panic {message}");
            }
        }
    }
}

/// The explorer's fingerprint of a world leaves out fields it takes to follow from
/// the others (id lists, the queue index, the readiness books): on every
/// built-in's reachable worlds (breadth first, the first 20,000 of each), two
/// worlds with one fingerprint have one whole hash too. A field left out that
/// told worlds apart would make the explorer skip states; this finds it.
#[test]
fn the_fingerprint_leaves_out_only_what_the_rest_decides() {
    use std::collections::{HashMap, VecDeque};
    let mut checked = 0;
    // Every what-if variant too: they reach the books no built-in fills on its
    // own (the sticky lock's waiters, the tail-signal waiters of the handler,
    // the racing runner creation), 20,000 worlds under the Go code, 4,000 under each what-if.
    // (A variant's presets name the Go commit when it has no what-if on.)
    let variants = flush_core::builtin::names().into_iter().flat_map(|name| {
        let all = common::builtin(name).variants();
        all.into_iter()
            .map(move |(presets, v)| (name, !presets.is_empty(), v))
    });
    for (name, go, v) in variants {
        let AnyScenario::Flush(sc) = v else {
            continue;
        };
        let budget = if go { 20_000 } else { 4_000 };
        let root = sc.init();
        let mut whole_of: HashMap<u64, u64> = HashMap::new();
        whole_of.insert(
            sc.fingerprint(&root),
            flush_core::explore::fingerprint(&root),
        );
        let mut queue = VecDeque::from([root]);
        let (mut runnable, mut facts) = (Vec::new(), Vec::new());
        while let Some(w) = queue.pop_front() {
            if whole_of.len() >= budget {
                break;
            }
            sc.runnable(&w, &mut runnable);
            for &c in &runnable {
                let mut next = w.clone();
                sc.step(&mut next, c, &mut facts);
                let (fp, whole) = (
                    sc.fingerprint(&next),
                    flush_core::explore::fingerprint(&next),
                );
                match whole_of.insert(fp, whole) {
                    None => queue.push_back(next),
                    Some(before) => assert_eq!(
                        before, whole,
                        "{name}: two worlds differ only in fields the fingerprint leaves out"
                    ),
                }
            }
        }
        checked += whole_of.len();
    }
    assert!(checked > 500_000, "{checked} worlds checked");
}

/// One step taken on a copy of a world: its choice, the world after it, what it
/// touched (field, instance) and whether it synchronised, and its Go function.
struct Taken {
    c: Choice,
    after: World,
    fields: Vec<(&'static str, i64)>,
    syncs: bool,
    go: String,
}

fn take(sc: &Scenario, w: &World, c: Choice) -> Taken {
    let (mut after, mut facts) = (w.clone(), Vec::new());
    sc.step(&mut after, c, &mut facts);
    let go = facts
        .first()
        .map(|f| sc.fact_go(f))
        .map(|g| format!("{}: {}", g.file, g.func));
    Taken {
        fields: sc
            .accesses(&after)
            .iter()
            .map(|a| (a.field, a.object))
            .collect(),
        syncs: !sc.syncs(&after).is_empty(),
        go: go.unwrap_or_default(),
        c,
        after,
    }
}

/// Whether `a` then `b` and `b` then `a` are both possible and reach one world.
fn commute(sc: &Scenario, a: &Taken, b: &Taken) -> bool {
    let mut runnable = Vec::new();
    let then = |first: &Taken, second: Choice, runnable: &mut Vec<Choice>| {
        sc.runnable(&first.after, runnable);
        runnable.contains(&second).then(|| {
            let (mut w, mut facts) = (first.after.clone(), Vec::new());
            sc.step(&mut w, second, &mut facts);
            sc.fingerprint(&w)
        })
    };
    let ab = then(a, b.c, &mut runnable);
    ab.is_some() && ab == then(b, a.c, &mut runnable)
}

/// Two steps of different goroutines, runnable together, that synchronise on
/// nothing and touch no shared field in common, must commute: either order,
/// one world. A step whose footprint leaves out a shared field it touches fails
/// here (the data-race check would miss its races), and so does bookkeeping
/// that records an order Go does not keep (the waiters' tail reads did, and
/// split each drop-mode world in several: go-test-drop-mode-injection had
/// 54,183 states where 11,815 are Go's). It is the independence a
/// partial-order reduction would build on. Breadth first, the first 5,000
/// worlds of every flush-2021 built-in and 1,000 under each what-if. (Run over
/// steps that synchronise too, the same comparison found one more such list, the
/// queues that took an injection: see the next test; what else differs there is
/// Go's: a channel, a lock, or an id given in step order.)
#[test]
fn steps_that_share_nothing_commute() {
    let mut checked = 0;
    for name in flush_core::builtin::names() {
        for (presets, v) in common::builtin(name).variants() {
            let AnyScenario::Flush(sc) = v else { continue };
            let budget = if presets.is_empty() { 1_000 } else { 5_000 };
            let root = sc.init();
            let mut seen = std::collections::HashSet::from([sc.fingerprint(&root)]);
            let mut queue = std::collections::VecDeque::from([root]);
            let mut runnable = Vec::new();
            while let Some(w) = queue.pop_front().filter(|_| seen.len() < budget) {
                sc.runnable(&w, &mut runnable);
                let taken: Vec<Taken> = runnable.iter().map(|&c| take(&sc, &w, c)).collect();
                for (i, a) in taken.iter().enumerate() {
                    for b in &taken[i + 1..] {
                        let apart = !a.fields.iter().any(|f| b.fields.contains(f));
                        if a.c.g == b.c.g || a.syncs || b.syncs || !apart {
                            continue;
                        }
                        checked += 1;
                        assert!(
                            commute(&sc, a, b),
                            "{name} {presets:?}: g{} {} {:?} and g{} {} {:?} share nothing but do not commute",
                            a.c.g, a.go, a.fields, b.c.g, b.go, b.fields
                        );
                    }
                }
                for t in taken {
                    if seen.insert(sc.fingerprint(&t.after)) {
                        queue.push_back(t.after);
                    }
                }
            }
        }
    }
    assert!(checked > 1_000, "{checked} pairs checked");
}

/// The injection a step's runner took (`injectOne` in waitFinish), if it took one.
/// (An inject handler's take also makes its injectDone channel, whose id is
/// allocated in step order: that pair differs in ids, as goroutines do.)
fn took(facts: &[Ev]) -> Option<u16> {
    facts.iter().find_map(|e| match *e {
        Ev::RunnerTookInjection { inj, .. } => Some(inj),
        _ => None,
    })
}

/// Two runners taking one injection (each `injectOne`, `ti.wg.Done()` at
/// flush_task.go's injectOne) in either order reach one world: Go's WaitGroup
/// counts, it keeps no order, and neither may the model (its list of the queues
/// that took it was once kept in the order taken, which split every such world
/// in two). Breadth first over the injection built-ins.
#[test]
fn queues_taking_one_injection_in_either_order_reach_one_world() {
    let mut checked = 0;
    for name in [
        "handoff",
        "go-test-inject",
        "compaction-race",
        "failed-injection-sticky",
    ] {
        let sc = builtin(name);
        let root = sc.init();
        let mut seen = std::collections::HashSet::from([sc.fingerprint(&root)]);
        let mut queue = std::collections::VecDeque::from([root]);
        let (mut runnable, mut facts) = (Vec::new(), Vec::new());
        while let Some(w) = queue.pop_front().filter(|_| seen.len() < 20_000) {
            sc.runnable(&w, &mut runnable);
            let mut taken = Vec::new();
            for &c in &runnable {
                let mut next = w.clone();
                facts.clear();
                sc.step(&mut next, c, &mut facts);
                taken.push((c, took(&facts)));
                if seen.insert(sc.fingerprint(&next)) {
                    queue.push_back(next);
                }
            }
            for (i, &(a, ia)) in taken.iter().enumerate() {
                for &(b, ib) in &taken[i + 1..] {
                    if ia.is_none() || ia != ib {
                        continue;
                    }
                    let (ta, tb) = (take(&sc, &w, a), take(&sc, &w, b));
                    checked += 1;
                    assert!(
                        commute(&sc, &ta, &tb),
                        "{name}: g{} and g{} take injection {ia:?} and do not commute",
                        a.g,
                        b.g
                    );
                }
            }
        }
    }
    assert!(checked >= 5, "{checked} pairs checked");
}

/// compactor.compact edits the Replica before `injectDone(true)`
/// (compactor.go:452-461 at 891c202b73): a target the Replica lacks is added as
/// flushed and the compacted segments are removed, so the notifies after it no
/// longer list them as new; a target it has only gets its statistics
/// refreshed. A bare `inject_done` (as Go's tests call it) leaves the Replica.
#[test]
fn a_finished_compaction_edits_the_replica_before_inject_done() {
    let handoff = |compacted: &str, replica: &str| {
        format!(
            r#"{{"name":"c","model":"flush-2021",{replica}
            "injections":{{"c1":{{"segments":[2,3],"remap_to":4}}}},
            "actors":[{{"name":"flowgraph","ops":[{{"op":"flush_insert","segment":2,"pos":"a"}},
              {{"op":"flush_insert","segment":3,"pos":"a"}},{{"op":"inject","id":"c1"}},
              {{"op":"flush_delete","segment":2,"pos":"a"}},{{"op":"flush_delete","segment":3,"pos":"a"}}]}},
             {{"name":"compactor","ops":[{{"op":"wait_injected","id":"c1"}},
              {{"op":"inject_done","id":"c1","success":true{compacted}}}]}}]}}"#
        )
    };
    let segments = |r: &flush_core::engine::Run<Scenario>| -> Vec<(i64, ReplicaState)> {
        r.head()
            .replica
            .iter()
            .map(|s| (s.segment, s.state))
            .collect()
    };
    let sc = parse(&handoff(r#","compacted":true"#, ""));
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        assert_eq!(
            segments(&r),
            vec![(4, ReplicaState::Flushed)],
            "seed {seed}"
        );
        let evs = events(&r);
        let at = |want: fn(&Ev) -> bool| evs.iter().position(|(_, e)| want(e)).unwrap();
        let added = at(|e| matches!(e, Ev::CompactorAddedFlushed { target: 4 }));
        let done = at(|e| matches!(e, Ev::InjectDone { .. }));
        assert!(added < done, "seed {seed}: the edit comes first");
        assert_eq!(evs[added].0, evs[done].0, "seed {seed}: in one step");
        // No notify after the edit lists 2 or 3 as new.
        assert!(
            evs[done..]
                .iter()
                .all(|(_, e)| !matches!(e, Ev::ReplicaNewToNormal { .. })),
            "seed {seed}"
        );
    }
    // The Replica has the target: only its statistics change; 3 stays.
    let with = r#""replica":[{"segment":2,"state":"new","rows":1},{"segment":3,"state":"new","rows":1},{"segment":4,"state":"flushed","rows":0}],"#;
    let r = flush_run(&parse(&handoff(r#","compacted":true"#, with)), seeded(3));
    assert_eq!(kind(&r), OutcomeKind::Completed);
    assert!(events(&r)
        .iter()
        .any(|(_, e)| matches!(e, Ev::CompactorRefreshed { target: 4 })));
    assert_eq!(
        segments(&r).iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![2, 3, 4]
    );
    // A bare injectDone, as Go's tests call it: the Replica keeps 2 and 3.
    let r = flush_run(&parse(&handoff("", "")), seeded(3));
    assert_eq!(
        segments(&r).iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![2, 3]
    );
}

/// A compactor compacting segments 2 and 3 into 4 (then the flowgraph's flush
/// of 3, and one after the compaction), over the Replica `replica` (the JSON
/// entries of the scenario's "replica").
pub(crate) fn compaction_of_2_and_3(replica: &str) -> String {
    format!(
        r#"{{"name":"c","model":"flush-2021","replica":[{replica}],
        "injections":{{"c1":{{"segments":[2,3],"remap_to":4}}}},
        "actors":[{{"name":"compactor","ops":[{{"op":"inject","id":"c1"}},
          {{"op":"wait_injected","id":"c1"}},{{"op":"inject_done","id":"c1","success":true,"compacted":true}}]}},
         {{"name":"flowgraph","ops":[{{"op":"flush_insert","segment":3,"pos":"a","flushed":true}},
          {{"op":"flush_delete","segment":3,"pos":"a"}}]}},
         {{"name":"after","ops":[{{"op":"wait_for","actor":"compactor","index":1}},
          {{"op":"flush_insert","segment":3,"pos":"b"}},{{"op":"flush_delete","segment":3,"pos":"b"}}]}}]}}"#
    )
}

/// The Replica of [`compaction_of_2_and_3`] that lacks segment 2, its first:
/// the compaction cannot start.
pub(crate) const COMPACTION_REPLICA_LACKS_2: &str = r#"{"segment":3,"state":"new","rows":1}"#;

/// compactionTask.compact asks the Replica for its first segment
/// (`getSegmentMeta(segIDs[0])` → `getCollectionAndPartitionID`,
/// compactor.go:303-307, segment_replica.go:207-224 at 891c202b73) before
/// `newTaskInjection` and `injectFlush`; when the Replica lacks it, compact
/// logs "compact wrong" and returns. The compactor actor here injects nothing,
/// skips its wait and its injectDone, and ends: the run completes in every
/// interleaving, and a `wait_for` on a skipped op passes.
#[test]
fn a_compaction_whose_first_segment_the_replica_lacks_injects_nothing() {
    let text = compaction_of_2_and_3;
    let sc = parse(&text(COMPACTION_REPLICA_LACKS_2));
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        let wrong = pos_of(&evs, |e| matches!(e, Ev::CompactWrong { segment: 2, .. }))
            .unwrap_or_else(|| panic!("seed {seed}: no compact wrong"));
        // Nothing of the compaction ran: no injectFlush, no Injected, no
        // injectDone, no Replica edit.
        assert!(
            evs.iter().all(|(_, e)| !matches!(
                e,
                Ev::InjectFlush { .. }
                    | Ev::InjectQueued { .. }
                    | Ev::Injected { .. }
                    | Ev::InjectDone { .. }
                    | Ev::CompactorAddedFlushed { .. }
                    | Ev::CompactorRefreshed { .. }
                    | Ev::CompactorRemoved { .. }
            )),
            "seed {seed}"
        );
        // The compactor's only step: the check, then it is gone.
        let step = evs[wrong].0;
        let of_step: Vec<_> = evs.iter().filter(|(s, _)| *s == step).collect();
        assert!(
            matches!(
                of_step[..],
                [(_, Ev::CompactWrong { .. }), (_, Ev::ActorDone)]
            ),
            "seed {seed}: {of_step:?}"
        );
        let replica: Vec<_> = r.head().replica.iter().map(|s| s.segment).collect();
        assert_eq!(replica, [3], "seed {seed}");
    }
    let r = flush_run(&sc, seeded(1));
    let evs = events(&r);
    let (_, e) = evs
        .iter()
        .find(|(_, e)| matches!(e, Ev::CompactWrong { .. }))
        .unwrap();
    assert_eq!(e.go_fn().func, "compactionTask.compact");
    let mut line = String::new();
    e.render(&sc, &mut line);
    assert!(
        line.starts_with("compact wrong: segment 2 not in the Replica"),
        "{line}"
    );
    // Every interleaving ends cleanly: no deadlock for the compactor.
    let x = flush_core::explore::explore(&*sc, 200, 1_000_000);
    assert!(
        !x.truncated && x.violations.is_empty(),
        "{:?}",
        x.violations
    );

    // Segment 2 present (flushed counts, as getCollectionAndPartitionID looks
    // in the flushed map too): the compaction runs as before, its check made
    // within the injectFlush step (no step of its own).
    let sc = parse(&text(
        r#"{"segment":2,"state":"flushed","rows":1},{"segment":3,"state":"new","rows":1}"#,
    ));
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        assert!(
            evs.iter()
                .all(|(_, e)| !matches!(e, Ev::CompactWrong { .. })),
            "seed {seed}"
        );
        let flush = pos_of(&evs, |e| matches!(e, Ev::InjectFlush { .. })).unwrap();
        assert!(pos_of(&evs, |e| matches!(e, Ev::InjectDone { success: true, .. })).is_some());
        // The compactor's first step starts with injectFlush.
        assert!(
            evs[..flush].iter().all(|(s, _)| *s != evs[flush].0),
            "seed {seed}"
        );
        let replica: Vec<_> = r.head().replica.iter().map(|s| s.segment).collect();
        assert_eq!(replica, [4], "seed {seed}");
    }
}

/// The check reads the Replica as it is at the injection's step: a second
/// compaction of a segment the first one removed cannot start, and the actor
/// goes on with the ops after that compaction. Injections no actor stands for
/// as a compaction (a bare inject_done, as Go's tests call it, or an inject
/// made by another actor) are not checked: they inject as before.
#[test]
fn the_compaction_start_check_reads_the_replica_at_its_step() {
    let sc = parse(
        r#"{"name":"c","model":"flush-2021",
        "injections":{"c1":{"segments":[1],"remap_to":100},"c2":{"segments":[1,2],"remap_to":200}},
        "actors":[{"name":"compactor","ops":[{"op":"inject","id":"c1"},{"op":"wait_injected","id":"c1"},
          {"op":"inject_done","id":"c1","success":true,"compacted":true},
          {"op":"inject","id":"c2"},{"op":"wait_injected","id":"c2"},
          {"op":"inject_done","id":"c2","success":true,"compacted":true},
          {"op":"flush_insert","segment":2,"pos":"z"},{"op":"flush_delete","segment":2,"pos":"z"}]},
         {"name":"flowgraph","ops":[{"op":"flush_insert","segment":1,"pos":"a"},{"op":"flush_delete","segment":1,"pos":"a"}]}]}"#,
    );
    for seed in SEEDS {
        let r = flush_run(&sc, seeded(seed));
        assert_eq!(kind(&r), OutcomeKind::Completed, "seed {seed}");
        let evs = events(&r);
        let c1_done = pos_of(&evs, |e| matches!(e, Ev::InjectDone { .. })).unwrap();
        let wrong = pos_of(&evs, |e| matches!(e, Ev::CompactWrong { segment: 1, .. })).unwrap();
        assert!(c1_done < wrong, "seed {seed}");
        let flushes = evs
            .iter()
            .filter(|(_, e)| matches!(e, Ev::InjectFlush { .. }))
            .count();
        assert_eq!(flushes, 1, "seed {seed}: c2 is never injected");
        // The compactor went on past c2 to its flush of segment 2 at z.
        assert!(notified(&r).iter().any(|p| p.segment == 2), "seed {seed}");
    }
    // Segment 9 is in no Replica: a bare inject_done (Go's test shape), or an
    // inject made by another actor than the compactor (handoff's shape), inject.
    for (inject_by_other, compacted) in [(false, ""), (true, r#","compacted":true"#)] {
        let (first, second) = (
            r#"{"op":"inject","id":"c1"},"#,
            format!(
                r#"{{"op":"wait_injected","id":"c1"}},{{"op":"inject_done","id":"c1","success":true{compacted}}}"#
            ),
        );
        let (a, b) = if inject_by_other {
            (first.to_owned(), second)
        } else {
            (String::new(), format!("{first}{second}"))
        };
        let text = format!(
            r#"{{"name":"c","model":"flush-2021","injections":{{"c1":{{"segments":[9],"remap_to":4}}}},
            "actors":[{{"name":"other","ops":[{a}{{"op":"flush_insert","segment":5,"pos":"a"}},{{"op":"flush_delete","segment":5,"pos":"a"}}]}},
              {{"name":"compactor","ops":[{b}]}}]}}"#
        );
        let r = flush_run(&parse(&text), seeded(2));
        assert_eq!(kind(&r), OutcomeKind::Completed, "{text}");
        let evs = events(&r);
        assert!(
            pos_of(&evs, |e| matches!(e, Ev::InjectFlush { .. })).is_some(),
            "{text}"
        );
        assert!(
            pos_of(&evs, |e| matches!(e, Ev::CompactWrong { .. })).is_none(),
            "{text}"
        );
    }
}

/// What the compaction marking allows: `compacted` goes on the inject_done
/// only; a compaction's inject comes before its inject_done, with only waits
/// between (compact does nothing else with the flush manager, and skips them
/// all when it cannot start). Each refusal names the op.
#[test]
fn a_compactions_ops_are_checked_when_read() {
    let sc = |ops: &str| {
        format!(
            r#"{{"name":"x","model":"flush-2021","injections":{{"c1":{{"segments":[1],"remap_to":2}}}},"actors":[{{"name":"a","ops":[{ops}]}}]}}"#
        )
    };
    let err = |ops: &str| match AnyScenario::parse(&sc(ops), "bad.json") {
        Ok(_) => panic!("accepted: {ops}"),
        Err(e) => e.to_string(),
    };
    const INJECT: &str = r#"{"op":"inject","id":"c1"}"#;
    const WAIT: &str = r#"{"op":"wait_injected","id":"c1"}"#;
    const DONE: &str = r#"{"op":"inject_done","id":"c1","success":true,"compacted":true}"#;
    let ok = format!(
        r#"{INJECT},{WAIT},{{"op":"wait_notified","count":1}},{{"op":"flush_insert","segment":1,"pos":"p"}},{DONE}"#
    );
    let e = err(&ok);
    assert!(e.contains("actors[0].ops[3]"), "{e}");
    assert!(
        e.contains("op flush_insert comes between the inject of \"c1\""),
        "{e}"
    );
    let ok = format!(
        r#"{{"op":"flush_insert","segment":1,"pos":"p"}},{INJECT},{WAIT},{{"op":"wait_notified","count":1}},{DONE}"#
    );
    assert!(AnyScenario::parse(&sc(&ok), "ok.json").is_ok());
    let e = err(&format!("{WAIT},{DONE},{INJECT}"));
    assert!(e.contains("actors[0].ops[1]"), "{e}");
    assert!(e.contains("its inject comes after it"), "{e}");
    // compact() waits on <-ti.Injected() before it edits the Replica, and
    // injects before that (helper-95's attack: both were run, the first
    // editing the Replica before a queue took the injection).
    let e = err(&format!("{INJECT},{DONE}"));
    assert!(e.contains("actors[0].ops[1]"), "{e}");
    assert!(
        e.contains("its actor does not wait_injected \"c1\" before it"),
        "{e}"
    );
    let e = err(&format!("{WAIT},{INJECT},{DONE}"));
    assert!(e.contains("does not wait_injected"), "{e}");
    let e = err(DONE);
    assert!(e.contains("actors[0].ops[0]"), "{e}");
    assert!(e.contains("no actor injects \"c1\""), "{e}");
    let e = err(r#"{"op":"inject","id":"c1","compacted":true}"#);
    assert!(e.contains("actors[0].ops[0].compacted"), "{e}");
    assert!(
        e.contains("\"compacted\" does not apply to op inject"),
        "{e}"
    );
}
