//! What a step did, as compact values (cheap on the hot path), rendered to words
//! only when someone reads the trace. Each event names the Go function it models.

use std::fmt::Write as _;

use super::*;
use crate::scenario::{Op, PosId};

/// One fact of a step. A step usually yields one to four.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ev {
    QueueCreated {
        segment: i64,
        handler: Gid,
    },
    RunnerStored {
        segment: i64,
        pos: PosId,
        seq: u32,
    },
    RunnerLoaded {
        segment: i64,
        pos: PosId,
    },
    WaitInjectMut {
        segment: i64,
    },
    LockedInjectMut {
        segment: i64,
    },
    HandlerCloseRequested {
        segment: i64,
        handler: Gid,
    },
    HandlerClosed {
        segment: i64,
    },
    HandlerStopped {
        segment: i64,
    },
    RunnerInit {
        segment: i64,
        pos: PosId,
        runner: Gid,
        start: SigOrigin,
    },
    HalfStarted {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        half: Gid,
    },
    HalfIgnored {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
    },
    DropHalfStarted {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        half: Gid,
    },
    DropDeleteStaysNormal {
        segment: i64,
        pos: PosId,
    },
    DropPackAppended {
        pack: Pack,
    },
    InjectFlush {
        inj: InjId,
        waiter: Gid,
    },
    InjectQueued {
        inj: InjId,
        segment: i64,
        queued: u32,
    },
    InjectChFull {
        inj: InjId,
        segment: i64,
    },
    Injected {
        inj: InjId,
    },
    InjectDone {
        inj: InjId,
        success: bool,
    },
    StartDropping {
        finaliser: Gid,
    },
    NotifyAllFlushed,
    ManagerClose,
    WaitNotifiedPassed {
        count: u32,
    },
    ActorDone,
    HalfAttemptFailed {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        n: u8,
        sleep_ms: u32,
    },
    HalfDone {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        n: u8,
    },
    HalfGaveUp {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
    },
    RunnerHalvesDone {
        segment: i64,
        pos: PosId,
    },
    RunnerStarted {
        segment: i64,
        pos: PosId,
    },
    RunnerTookInjection {
        segment: i64,
        pos: PosId,
        inj: InjId,
    },
    RunnerInjectOver {
        segment: i64,
        pos: PosId,
        inj: InjId,
        ok: bool,
    },
    PostTask {
        segment: i64,
        pos: PosId,
        running: u32,
        handler: Option<Gid>,
        sticky: Option<InjId>,
        remapped: Option<i64>,
    },
    SaveBinlogPathsCall {
        pack: Pack,
    },
    RpcFailed {
        rpc: Rpc,
        n: u8,
        sleep_ms: u32,
    },
    Notified {
        pack: Pack,
        total: u32,
    },
    FinishClosed {
        segment: i64,
        pos: PosId,
    },
    ReplicaNewToNormal {
        segment: i64,
    },
    ReplicaFlushed {
        segment: i64,
    },
    HandlerTookInjection {
        segment: i64,
        inj: InjId,
    },
    HandlerInjectOver {
        segment: i64,
        inj: InjId,
        ok: bool,
    },
    HandlerExited {
        segment: i64,
        both_ready: bool,
    },
    InjectedClosed {
        inj: InjId,
    },
    FinaliserAllFlushed {
        queues: u32,
        open_tails: u32,
    },
    FinaliserTailsDone,
    DropPackRemapped {
        from: i64,
        to: i64,
        inj: InjId,
    },
    FlushAndDrop {
        packs: u32,
    },
    FlushAndDropDone,
    GoPanic {
        message: String,
    },
    Invariant(Violation),
}

/// A broken invariant (reported as an event; the run goes on as Go would).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    NotifyOrder {
        segment: i64,
        seq: u32,
        expected: u32,
    },
    NotifiedTwice {
        segment: i64,
        seq: u32,
    },
    HandlerVsRunning {
        segment: i64,
        running: u32,
        handler: bool,
    },
    InjectionTakenTwice {
        inj: InjId,
        segment: i64,
    },
    FlushAndDropTwice,
    FlushAndDropEarly,
    StartSignal {
        segment: i64,
        seq: u32,
        origin: SigOrigin,
    },
}

impl Violation {
    /// A stable name for the invariant.
    pub fn name(&self) -> &'static str {
        match self {
            Violation::NotifyOrder { .. } => "notify-order",
            Violation::NotifiedTwice { .. } => "notified-once",
            Violation::HandlerVsRunning { .. } => "handler-iff-idle",
            Violation::InjectionTakenTwice { .. } => "injection-taken-once",
            Violation::FlushAndDropTwice => "flush-and-drop-once",
            Violation::FlushAndDropEarly => "flush-and-drop-after-all-flushed",
            Violation::StartSignal { .. } => "start-signal-is-tail",
        }
    }

    pub fn describe(&self, sc: &Scenario) -> String {
        match self {
            Violation::NotifyOrder { segment, seq, expected } => format!(
                "queue {segment}: runner #{seq} notified before runner #{expected}, which was created (stored in working) earlier"
            ),
            Violation::NotifiedTwice { segment, seq } => format!("queue {segment}: runner #{seq}'s pack notified twice"),
            Violation::HandlerVsRunning { segment, running, handler } => format!(
                "queue {segment}: inject handler {} while {running} task(s) run (injectHandler != nil must equal runningTasks == 0)",
                if *handler { "present" } else { "absent" }
            ),
            Violation::InjectionTakenTwice { inj, segment } => {
                format!("injection {} taken twice by queue {segment}", sc.inj_name(*inj))
            }
            Violation::FlushAndDropTwice => "flushAndDrop called a second time".to_owned(),
            Violation::FlushAndDropEarly => "flushAndDrop called before notifyAllFlushed".to_owned(),
            Violation::StartSignal { segment, seq, origin } => format!(
                "queue {segment}: runner #{seq} starts on {}, not on runner #{}'s finishSignal: runners joined the tail chain in another order than they were stored in working",
                origin_words(origin),
                seq.wrapping_sub(1)
            ),
        }
    }
}

impl Ev {
    /// `file.go: function` of the Go code this fact models.
    pub fn go_fn(&self) -> &'static str {
        use Ev::*;
        match self {
            QueueCreated { .. } => "flush_manager.go: getFlushQueue",
            RunnerStored { .. }
            | RunnerLoaded { .. }
            | WaitInjectMut { .. }
            | LockedInjectMut { .. } => "flush_manager.go: getFlushTaskRunner",
            HandlerCloseRequested { .. } | HandlerClosed { .. } | HandlerStopped { .. } => {
                "flush_manager.go: injectHandler.close"
            }
            RunnerInit { .. } => "flush_task.go: flushTaskRunner.init",
            HalfStarted {
                kind: HalfKind::Insert,
                ..
            }
            | HalfIgnored {
                kind: HalfKind::Insert,
                ..
            } => "flush_task.go: runFlushInsert",
            HalfStarted { .. } | HalfIgnored { .. } => "flush_task.go: runFlushDel",
            DropHalfStarted {
                kind: HalfKind::Insert,
                ..
            } => "flush_manager.go: handleInsertTask",
            DropHalfStarted { .. } | DropDeleteStaysNormal { .. } => {
                "flush_manager.go: handleDeleteTask"
            }
            DropPackAppended { pack } => match pack.source {
                PackSource::DropInsert => "flush_manager.go: handleInsertTask",
                _ => "flush_manager.go: handleDeleteTask",
            },
            InjectFlush { .. } => "flush_manager.go: injectFlush",
            InjectQueued { .. } | InjectChFull { .. } => "flush_manager.go: orderFlushQueue.inject",
            Injected { .. } => "flush_task.go: taskInjection.Injected",
            InjectDone { .. } => "flush_task.go: taskInjection.injectDone",
            StartDropping { .. } => "flush_manager.go: startDropping",
            NotifyAllFlushed => "flush_manager.go: notifyAllFlushed",
            ManagerClose => "flush_manager.go: rendezvousFlushManager.close",
            WaitNotifiedPassed { .. } => "flush_manager_test.go: notify barrier",
            ActorDone => "scenario: actor finished",
            HalfAttemptFailed { .. } | HalfGaveUp { .. } => "retry.go: retry.Do",
            HalfDone {
                kind: HalfKind::Insert,
                ..
            } => "flush_task.go: runFlushInsert",
            HalfDone { .. } => "flush_task.go: runFlushDel",
            RunnerHalvesDone { .. }
            | RunnerStarted { .. }
            | RunnerTookInjection { .. }
            | RunnerInjectOver { .. } => "flush_task.go: waitFinish",
            FinishClosed { .. } => "flush_task.go: waitFinish",
            PostTask { .. } => "flush_manager.go: orderFlushQueue.postTask",
            SaveBinlogPathsCall { .. } | Notified { .. } => "flush_manager.go: flushNotifyFunc",
            RpcFailed {
                rpc: Rpc::SaveBinlogPaths,
                ..
            } => "flush_manager.go: flushNotifyFunc",
            RpcFailed { .. } => "flush_manager.go: dropVirtualChannelFunc",
            ReplicaNewToNormal { .. } => "segment_replica.go: listNewSegmentsStartPositions",
            ReplicaFlushed { .. } => "segment_replica.go: segmentFlushed",
            HandlerTookInjection { .. } | HandlerInjectOver { .. } | HandlerExited { .. } => {
                "flush_manager.go: injectHandler.handleInjection"
            }
            InjectedClosed { .. } => "flush_task.go: taskInjection.waitForInjected",
            FinaliserAllFlushed { .. } => "flush_manager.go: startDropping (finaliser)",
            FinaliserTailsDone => "flush_manager.go: waitForAllFlushQueue",
            DropPackRemapped { .. } => "flush_manager.go: startDropping (finaliser)",
            FlushAndDrop { .. } | FlushAndDropDone => "flush_manager.go: dropVirtualChannelFunc",
            GoPanic { .. } => "runtime: panic",
            Invariant(_) => "flushscope: invariant",
        }
    }

    /// The fact in words.
    pub fn render(&self, sc: &Scenario, out: &mut String) {
        use Ev::*;
        let p = |x: PosId| sc.pos_name(x);
        let i = |x: InjId| sc.inj_name(x);
        let _ = match self {
            QueueCreated { segment, handler } => {
                write!(out, "queue {segment} created (tail = closed channel), inject handler g{handler} spawned")
            }
            RunnerStored { segment, pos, seq } => write!(out, "new runner #{seq} seg={segment} pos={} stored in working", p(*pos)),
            RunnerLoaded { segment, pos } => write!(out, "runner seg={segment} pos={} already in working", p(*pos)),
            WaitInjectMut { segment } => write!(out, "waits for queue {segment}'s injectMut"),
            LockedInjectMut { segment } => write!(out, "took queue {segment}'s injectMut"),
            HandlerCloseRequested { segment, handler } => {
                write!(out, "closes inject handler g{handler} of queue {segment} (close(done)), waits for it to exit")
            }
            HandlerClosed { segment } => write!(out, "queue {segment}'s inject handler is gone (injectHandler = nil)"),
            HandlerStopped { segment } => write!(out, "queue {segment}'s inject handler stopped"),
            RunnerInit { segment, pos, runner, start } => write!(
                out,
                "runner seg={segment} pos={} init: g{runner} spawned, waits on {}; queue tail = its finishSignal",
                p(*pos),
                origin_words(start)
            ),
            HalfStarted { segment, pos, kind, half } => {
                write!(out, "{} half seg={segment} pos={} spawned as g{half}", kind.as_str(), p(*pos))
            }
            HalfIgnored { segment, pos, kind } => write!(
                out,
                "second {} half seg={segment} pos={} ignored by sync.Once (runner still in working): its data is never written",
                kind.as_str(),
                p(*pos)
            ),
            DropHalfStarted { segment, pos, kind, half } => write!(
                out,
                "drop mode: ad-hoc runner for {} seg={segment} pos={}, half g{half}; caller waits",
                kind.as_str(),
                p(*pos)
            ),
            DropDeleteStaysNormal { segment, pos } => write!(
                out,
                "drop mode, but pos={} of seg={segment} is in working: the delete half joins its runner",
                p(*pos)
            ),
            DropPackAppended { pack } => write!(out, "drop pack appended: {}", pack_words(sc, pack)),
            InjectFlush { inj, waiter } => write!(out, "injectFlush {}: waitForInjected g{waiter} spawned", i(*inj)),
            InjectQueued { inj, segment, queued } => {
                write!(out, "{} queued on queue {segment}'s injectCh ({queued} queued)", i(*inj))
            }
            InjectChFull { inj, segment } => write!(out, "queue {segment}'s injectCh is full (100): {} waits to send", i(*inj)),
            Injected { inj } => write!(out, "<-{}.Injected() returned: every target queue holds its flush", i(*inj)),
            InjectDone { inj, success: true } => write!(out, "{}.injectDone(true): injectOver filled with true", i(*inj)),
            InjectDone { inj, success: false } => write!(out, "{}.injectDone(false): injectOver closed", i(*inj)),
            StartDropping { finaliser } => write!(out, "drop mode on; finaliser g{finaliser} waits for allFlushed"),
            NotifyAllFlushed => write!(out, "close(allFlushed)"),
            ManagerClose => write!(out, "close(): stopping every queue's inject handler"),
            WaitNotifiedPassed { count } => write!(out, "{count} packs notified; barrier passed"),
            ActorDone => write!(out, "all ops done"),
            HalfAttemptFailed { segment, pos, kind, n, sleep_ms } => write!(
                out,
                "{} seg={segment} pos={} attempt {n} failed; sleeps {sleep_ms} ms",
                kind.as_str(),
                p(*pos)
            ),
            HalfDone { segment, pos, kind, n } => write!(
                out,
                "{} seg={segment} pos={} written (attempt {n}); Done()",
                kind.as_str(),
                p(*pos)
            ),
            HalfGaveUp { segment, pos, kind } => write!(
                out,
                "{} seg={segment} pos={} failed all attempts: {}Err set, Done()",
                kind.as_str(),
                p(*pos),
                kind.as_str()
            ),
            RunnerHalvesDone { segment, pos } => {
                write!(out, "runner seg={segment} pos={}: both halves done, waits on start signal", p(*pos))
            }
            RunnerStarted { segment, pos } => {
                write!(out, "runner seg={segment} pos={}: start signal closed, no injection queued", p(*pos))
            }
            RunnerTookInjection { segment, pos, inj } => write!(
                out,
                "runner seg={segment} pos={} took injection {} (injectOne), waits on injectOver",
                p(*pos),
                i(*inj)
            ),
            RunnerInjectOver { segment, pos, inj, ok } => write!(
                out,
                "runner seg={segment} pos={}: injectOver of {} gave {ok}",
                p(*pos),
                i(*inj)
            ),
            PostTask { segment, pos, running, handler, sticky, remapped } => {
                let _ = write!(out, "postTask seg={segment} pos={}: runningTasks={running}", p(*pos));
                if let Some(h) = handler {
                    let _ = write!(out, ", inject handler g{h} spawned");
                }
                if let Some(s) = sticky {
                    let _ = write!(out, ", postInjection={}", i(*s));
                }
                if let Some(to) = remapped {
                    let _ = write!(out, ", pack remapped to segment {to}");
                }
                Ok(())
            }
            SaveBinlogPathsCall { pack } => write!(out, "SaveBinlogPaths({})", pack_words(sc, pack)),
            RpcFailed { rpc, n, sleep_ms } => write!(out, "{} attempt {n} failed; sleeps {sleep_ms} ms", rpc.as_str()),
            Notified { pack, total } => write!(out, "notified {} (#{total})", pack_words(sc, pack)),
            FinishClosed { segment, pos } => write!(out, "close(finishSignal) of seg={segment} pos={}", p(*pos)),
            ReplicaNewToNormal { segment } => write!(out, "replica: segment {segment} new -> normal"),
            ReplicaFlushed { segment } => write!(out, "replica: segment {segment} -> flushed"),
            HandlerTookInjection { segment, inj } => write!(
                out,
                "inject handler of queue {segment} took {} (injectOne); queue tail = its injectDone",
                i(*inj)
            ),
            HandlerInjectOver { segment, inj, ok: true } => write!(
                out,
                "queue {segment}: injectOver of {} gave true; postInjection set, injectDone closed",
                i(*inj)
            ),
            HandlerInjectOver { segment, inj, ok: false } => {
                write!(out, "queue {segment}: injectOver of {} gave false; injectDone closed", i(*inj))
            }
            HandlerExited { segment, both_ready: true } => write!(
                out,
                "inject handler of queue {segment} returned (select chose done over a queued injection)"
            ),
            HandlerExited { segment, .. } => write!(out, "inject handler of queue {segment} returned"),
            InjectedClosed { inj } => write!(out, "{}: every queue called injectOne; close(injected)", i(*inj)),
            FinaliserAllFlushed { queues, open_tails } => write!(
                out,
                "allFlushed closed; waits for the tails of {queues} queue(s) ({open_tails} still open)"
            ),
            FinaliserTailsDone => write!(out, "every queue tail closed"),
            DropPackRemapped { from, to, inj } => {
                write!(out, "drop pack of segment {from} remapped to {to} by {}'s postInjection", i(*inj))
            }
            FlushAndDrop { packs } => write!(out, "flushAndDrop with {packs} pack(s): DropVirtualChannel"),
            FlushAndDropDone => write!(out, "DropVirtualChannel succeeded; every segment of the request is marked flushed"),
            GoPanic { message } => write!(out, "PANIC: {message}"),
            Invariant(v) => write!(out, "INVARIANT {}: {}", v.name(), v.describe(sc)),
        };
    }
}

fn origin_words(o: &SigOrigin) -> String {
    match o {
        SigOrigin::QueueInit => "the queue's initial (closed) tail".to_owned(),
        SigOrigin::Runner { seq } => format!("runner #{seq}'s finishSignal"),
        SigOrigin::InjectDone { handler } => format!("inject handler g{handler}'s injectDone"),
    }
}

/// `seg=2 pos=a flushed` style words for a pack.
pub fn pack_words(sc: &Scenario, p: &Pack) -> String {
    crate::report::PackJson::from_pack(sc, p).to_string()
}

/// What `g` waits on, and the Go function it sits in.
pub(super) fn waits_on(w: &World, sc: &Scenario, g: &Goroutine) -> (String, &'static str) {
    let runner = |r: RunnerId| w.runner(r);
    match &g.at {
        At::Ready => match g.role {
            Role::Actor { actor, pc } => match sc.actors[actor as usize].ops.get(pc as usize) {
                Some(Op::WaitInjected { inj }) => (
                    format!("<-{}.Injected()", sc.inj_name(*inj)),
                    "flush_task.go: taskInjection.Injected",
                ),
                Some(Op::WaitNotified { count }) => (
                    format!("{count} packs notified ({} so far)", w.notified),
                    "flush_manager_test.go: notify barrier",
                ),
                Some(op) => (format!("next op: {}", op.name()), "scenario: actor"),
                None => ("nothing".to_owned(), "scenario: actor"),
            },
            _ => ("nothing".to_owned(), "runtime"),
        },
        At::LockInjectMut { segment, .. } => (
            format!("queue {segment}'s injectMut"),
            "flush_manager.go: getFlushTaskRunner",
        ),
        At::CloseHandler {
            segment, handler, ..
        } => (
            format!("B7: inject handler g{handler} of queue {segment} to exit"),
            "flush_manager.go: injectHandler.close",
        ),
        At::InjectSend { inj, next } => (
            format!(
                "B10: room in queue {}'s injectCh for {}",
                sc.injections[*inj as usize].segments[*next as usize],
                sc.inj_name(*inj)
            ),
            "flush_manager.go: orderFlushQueue.inject",
        ),
        At::DropWait { .. } => (
            "B11: its drop-mode half".to_owned(),
            "flush_manager.go: handleInsertTask/handleDeleteTask",
        ),
        At::Attempt { n } => (format!("nothing: attempt {n} next"), "retry.go: retry.Do"),
        At::RetrySleep { n } => (
            format!("B4: retry sleep {} ms", retry_sleep_ms(*n)),
            "retry.go: retry.Do",
        ),
        At::WaitHalves => {
            let wg = runner(match g.role {
                Role::Runner(r) => r,
                _ => 0,
            })
            .map_or(0, |r| r.wg);
            (
                format!("B1: t.Wait() ({wg} half/halves left)"),
                "flush_task.go: waitFinish",
            )
        }
        At::WaitStart => {
            let what = match g.role {
                Role::Runner(r) => runner(r)
                    .and_then(|r| r.start)
                    .map_or("?".to_owned(), |s| origin_words(&s.origin)),
                _ => "?".to_owned(),
            };
            (
                format!("B2: <-startSignal ({what})"),
                "flush_task.go: waitFinish",
            )
        }
        At::WaitInjectOver { inj } => (
            format!("B3: <-{}.injectOver", sc.inj_name(*inj)),
            "flush_task.go: waitFinish",
        ),
        At::PostTaskMutex { .. } => (
            "injectMut (postTask)".to_owned(),
            "flush_manager.go: orderFlushQueue.postTask",
        ),
        At::SaveBinlogPaths { n } => (
            format!("B14: SaveBinlogPaths attempt {n}"),
            "flush_manager.go: flushNotifyFunc",
        ),
        At::Select => (
            "B5: select { <-injectCh, <-done }".to_owned(),
            "flush_manager.go: injectHandler.handleInjection",
        ),
        At::Handling { inj, .. } => (
            format!("B6: <-{}.injectOver", sc.inj_name(*inj)),
            "flush_manager.go: injectHandler.handleInjection",
        ),
        At::WaitInjectOne => {
            let left = match g.role {
                Role::WaitInjected(inj) => w.injections[inj as usize].remaining,
                _ => 0,
            };
            (
                format!("B8: wg.Wait() ({left} injectOne left)"),
                "flush_task.go: taskInjection.waitForInjected",
            )
        }
        At::WaitAllFlushed => (
            "B12: <-allFlushed".to_owned(),
            "flush_manager.go: startDropping (finaliser)",
        ),
        At::WaitTails { tails } => {
            let open = tails.iter().filter(|t| !w.is_closed(**t)).count();
            (
                format!("B13: {open} queue tail(s) to close"),
                "flush_manager.go: waitForAllFlushQueue",
            )
        }
        At::FinaliserMutex { .. } => (
            "a queue's injectMut".to_owned(),
            "flush_manager.go: startDropping (finaliser)",
        ),
        At::DropVirtualChannel { n } => (
            format!("B14: DropVirtualChannel attempt {n}"),
            "flush_manager.go: dropVirtualChannelFunc",
        ),
    }
}
