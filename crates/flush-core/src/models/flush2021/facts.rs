//! What a step did, as compact values (cheap on the hot path), rendered to words
//! only when someone reads the trace. Each event names the Go function it models.

use std::fmt::Write as _;

use super::setup::{InjId, Op, PosId, Scenario, RETRY_ATTEMPTS};
use super::world::*;
use super::{go, retry_sleep_ms, Rpc, TailSeen};
use crate::engine::GoFn;
use crate::logs::conform::{LogSite, PANIC};
use crate::scenario::WaitFor;

/// One fact of a step. A step usually yields one to four.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ev {
    /// `dropping.Load()` returned false: the normal path (a step of its own while
    /// drop mode may still begin).
    DroppingLoaded {
        kind: HalfKind,
    },
    /// `dispatcher.LoadOrStore` stored a new queue; `init` has not run.
    QueueStored {
        segment: i64,
    },
    /// `orderFlushQueue.init` ran (in the same step as the store, or later).
    QueueInit {
        segment: i64,
        handler: Gid,
    },
    /// The queue this goroutine stored was initialised by another's `sync.Once`.
    QueueInitByOther {
        segment: i64,
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
    /// `getFlushTaskRunner` under `injectMut`: `runningTasks++`.
    InjectMutLocked {
        segment: i64,
        running: u32,
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
        chain: u32,
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
    /// A drop-mode caller finds the drop mutex held by the finaliser.
    DropMutexWait {
        pack: Pack,
    },
    /// A `wait_for` op passed: the other actor returned from its op `index`.
    FlowgraphDelivered {
        actor: u16,
        index: u32,
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
    /// compactor.compact's start: the Replica lacks the first compacted
    /// segment, so compact logs "compact wrong" and returns before injecting.
    CompactWrong {
        inj: InjId,
        segment: i64,
    },
    /// compactor.compact, before injectDone(true): the Replica has the target,
    /// so only its statistics are refreshed (the model keeps none).
    CompactorRefreshed {
        target: i64,
    },
    /// compactor.compact: the target added to the Replica as flushed.
    CompactorAddedFlushed {
        target: i64,
    },
    /// compactor.compact: a compacted segment removed from the Replica.
    CompactorRemoved {
        segment: i64,
    },
    StartDroppingStore,
    StartDropping {
        finaliser: Gid,
    },
    NotifyAllFlushed,
    ManagerClose {
        queues: u32,
    },
    /// close()'s Range visits a queue; `blocked`: its injectMut is held.
    CloseVisits {
        segment: i64,
        blocked: bool,
    },
    CloseNoHandler {
        segment: i64,
    },
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
    /// `err`: getFlushPack found a half's error (it logs it, ft:211).
    RunnerStarted {
        segment: i64,
        pos: PosId,
        err: bool,
    },
    RunnerTookInjection {
        segment: i64,
        pos: PosId,
        inj: InjId,
        err: bool,
    },
    RunnerInjectOver {
        segment: i64,
        pos: PosId,
        inj: InjId,
        ok: bool,
    },
    /// `postTask`: `working.Delete(MsgID)`.
    WorkingDeleted {
        segment: i64,
        pos: PosId,
    },
    /// `postTask`'s whole critical section (no handler spawned).
    PostTask {
        segment: i64,
        pos: PosId,
        running: u32,
        sticky: Option<InjId>,
        remapped: Option<i64>,
    },
    /// `postTask` under `injectMut`: `runningTasks--` reached 0, a handler spawned.
    PostTaskLocked {
        segment: i64,
        pos: PosId,
        running: u32,
        handler: Gid,
    },
    /// `postTask`: `q.postInjection = postInjection`.
    StickySet {
        segment: i64,
        inj: InjId,
    },
    /// `postTask`: the sticky postInjection applied, `injectMut` released.
    PostInjectionApplied {
        segment: i64,
        pos: PosId,
        sticky: Option<InjId>,
        remapped: Option<i64>,
    },
    SaveBinlogPathsCall {
        pack: Pack,
    },
    /// `flushNotifyFunc` got a pack whose halves failed: it panics.
    NotifyPackError {
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
        /// The runner's place in the tail chain (one MsgID may have two runners).
        chain: u32,
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
        /// What-if `handler_chains_tail`: the old tail is kept, to wait for.
        keeps_old: bool,
    },
    HandlerInjectOver {
        segment: i64,
        inj: InjId,
        ok: bool,
        /// injectDone closed in this step (false while a what-if waits first).
        closed: bool,
    },
    /// What-if `handler_locks_sticky`: injectOver gave true; the lock next.
    HandlerLockNext {
        segment: i64,
        inj: InjId,
    },
    /// What-if `handler_locks_sticky`: postInjection set under injectMut.
    HandlerStickyLocked {
        segment: i64,
        inj: InjId,
        /// injectDone closed in this step (false while a what-if waits first).
        closed: bool,
    },
    /// What-if `runner_creation_locked`: another creator holds the queue's creation mutex.
    CreateMutWait {
        segment: i64,
    },
    /// What-if `handler_chains_tail`: the old tail is still open; the handler waits.
    HandlerWaitsOldTail {
        segment: i64,
        inj: InjId,
    },
    /// What-if `handler_chains_tail`: the old tail closed; injectDone closed.
    HandlerOldTailPassed {
        segment: i64,
        inj: InjId,
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
    },
    TailRead {
        segment: i64,
        tail: TailSeen,
    },
    TailClosed {
        segment: i64,
    },
    FinaliserLocked {
        packs: u32,
    },
    /// The finaliser's postInjection pass over pack `index`.
    DropPackPostInjection {
        index: u32,
        from: i64,
        sticky: Option<InjId>,
        to: Option<i64>,
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
    /// An actor's positions on one queue were notified out of the order it flushed
    /// them (normal mode): runners joined the tail chain out of its order.
    FifoPerEnqueuer {
        segment: i64,
        actor: u16,
        pos: PosId,
        earlier: PosId,
    },
    /// A runner notified while one chained before it in its queue had not: an
    /// inject handler's `injectDone` replaced the tail without chaining the old one.
    InjectDoneSplice {
        segment: i64,
        pos: PosId,
        earlier: PosId,
    },
    /// Self-check of the model: a runner notified before the runner whose
    /// finishSignal it started on.
    NotifyBeforeTail {
        segment: i64,
        pos: PosId,
        before: PosId,
    },
    /// flushAndDrop ran while a runner chained before the tail the finaliser's waiter
    /// read was not notified: the same splice, seen by the drop finaliser.
    DropBeforeNotify {
        segment: i64,
        pos: PosId,
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
}

impl Violation {
    /// A stable name for the invariant.
    pub fn name(&self) -> &'static str {
        match self {
            Violation::FifoPerEnqueuer { .. } => "fifo-per-enqueuer",
            Violation::InjectDoneSplice { .. } | Violation::DropBeforeNotify { .. } => {
                "inject-done-splice"
            }
            Violation::NotifyBeforeTail { .. } => "notify-follows-tail",
            Violation::HandlerVsRunning { .. } => "handler-iff-idle",
            Violation::InjectionTakenTwice { .. } => "injection-taken-once",
            Violation::FlushAndDropTwice => "flush-and-drop-once",
            Violation::FlushAndDropEarly => "flush-and-drop-after-all-flushed",
        }
    }

    pub fn describe(&self, sc: &Scenario) -> String {
        match self {
            // Reported only for a runner stored after the actor's call on the
            // earlier one returned (runner.rs `check_notify_order`): the earlier
            // runner was stored first, and chained later.
            Violation::FifoPerEnqueuer { segment, actor, pos, earlier } => format!(
                "queue {segment}: {} flushed pos={} before pos={}, but pos={} was notified first: pos={}'s runner was stored first but joined the tail chain later (getFlushTaskRunner is three critical sections, flush_manager.go:121-137, and its creator was overtaken between them); a datanode's flow graph never creates one queue's runners from two goroutines",
                sc.actors[*actor as usize].name,
                sc.pos_name(*earlier),
                sc.pos_name(*pos),
                sc.pos_name(*pos),
                sc.pos_name(*earlier)
            ),
            Violation::InjectDoneSplice { segment, pos, earlier } => format!(
                "queue {segment}: pos={} notified while pos={}, chained before it, had not: an inject handler replaced tailCh with its injectDone without chaining the old tail (flush_manager.go:203-206), so SaveBinlogPaths requests reach datacoord out of order (its binlogs and flushed flag before the earlier ones; datacoord keeps the newer checkpoint)",
                sc.pos_name(*pos), sc.pos_name(*earlier)
            ),
            Violation::DropBeforeNotify { segment, pos } => format!(
                "flushAndDrop ran before queue {segment}'s pos={} was notified: the finaliser's waiter read an inject handler's injectDone as the tail (flush_manager.go:203-206, 478), which did not wait for the runners chained before it",
                sc.pos_name(*pos)
            ),
            Violation::NotifyBeforeTail { segment, pos, before } => format!(
                "queue {segment}: pos={} notified before pos={}, whose finishSignal it started on (a bug in the model)",
                sc.pos_name(*pos), sc.pos_name(*before)
            ),
            Violation::HandlerVsRunning { segment, running, handler } => format!(
                "queue {segment}: inject handler {} while {running} task(s) run (injectHandler != nil must equal runningTasks == 0)",
                if *handler { "present" } else { "absent" }
            ),
            Violation::InjectionTakenTwice { inj, segment } => {
                format!("injection {} taken twice by queue {segment}", sc.inj_name(*inj))
            }
            Violation::FlushAndDropTwice => "flushAndDrop called a second time".to_owned(),
            Violation::FlushAndDropEarly => "flushAndDrop called before notifyAllFlushed".to_owned(),
        }
    }
}

impl Ev {
    /// The segment this fact names, when it is one of a queue's (a front end
    /// shows the queue of the step that stated it).
    pub fn segment(&self) -> Option<i64> {
        use Ev::*;
        match self {
            QueueStored { segment, .. }
            | QueueInit { segment, .. }
            | QueueInitByOther { segment, .. }
            | RunnerStored { segment, .. }
            | RunnerLoaded { segment, .. }
            | InjectMutLocked { segment, .. }
            | HandlerCloseRequested { segment, .. }
            | HandlerClosed { segment, .. }
            | HandlerStopped { segment, .. }
            | RunnerInit { segment, .. }
            | HalfStarted { segment, .. }
            | HalfIgnored { segment, .. }
            | DropHalfStarted { segment, .. }
            | DropDeleteStaysNormal { segment, .. }
            | InjectQueued { segment, .. }
            | InjectChFull { segment, .. }
            | CloseVisits { segment, .. }
            | CloseNoHandler { segment, .. }
            | HalfAttemptFailed { segment, .. }
            | HalfDone { segment, .. }
            | HalfGaveUp { segment, .. }
            | RunnerHalvesDone { segment, .. }
            | RunnerStarted { segment, .. }
            | RunnerTookInjection { segment, .. }
            | RunnerInjectOver { segment, .. }
            | WorkingDeleted { segment, .. }
            | PostTask { segment, .. }
            | PostTaskLocked { segment, .. }
            | StickySet { segment, .. }
            | PostInjectionApplied { segment, .. }
            | FinishClosed { segment, .. }
            | ReplicaNewToNormal { segment, .. }
            | ReplicaFlushed { segment, .. }
            | CompactorRemoved { segment }
            | CompactWrong { segment, .. }
            | CompactorRefreshed { target: segment }
            | CompactorAddedFlushed { target: segment }
            | HandlerTookInjection { segment, .. }
            | HandlerInjectOver { segment, .. }
            | HandlerLockNext { segment, .. }
            | HandlerStickyLocked { segment, .. }
            | CreateMutWait { segment, .. }
            | HandlerWaitsOldTail { segment, .. }
            | HandlerOldTailPassed { segment, .. }
            | HandlerExited { segment, .. }
            | TailRead { segment, .. }
            | TailClosed { segment, .. } => Some(*segment),
            _ => None,
        }
    }

    /// `file.go: function` of the Go code this fact models.
    pub fn go_fn(&self) -> GoFn {
        use Ev::*;
        match self {
            DroppingLoaded {
                kind: HalfKind::Insert,
            } => go::HANDLE_INSERT_TASK,
            DroppingLoaded { .. } => go::HANDLE_DELETE_TASK,
            QueueStored { .. } => go::GET_FLUSH_QUEUE,
            QueueInit { .. } | QueueInitByOther { .. } => go::ORDER_FLUSH_QUEUE_INIT,
            RunnerStored { .. }
            | RunnerLoaded { .. }
            | InjectMutLocked { .. }
            | CreateMutWait { .. } => go::GET_FLUSH_TASK_RUNNER,
            HandlerCloseRequested { .. } | HandlerClosed { .. } | HandlerStopped { .. } => {
                go::INJECT_HANDLER_CLOSE
            }
            RunnerInit { .. } => go::FLUSH_TASK_RUNNER_INIT,
            HalfStarted {
                kind: HalfKind::Insert,
                ..
            }
            | HalfIgnored {
                kind: HalfKind::Insert,
                ..
            } => go::RUN_FLUSH_INSERT,
            HalfStarted { .. } | HalfIgnored { .. } => go::RUN_FLUSH_DEL,
            DropHalfStarted {
                kind: HalfKind::Insert,
                ..
            } => go::HANDLE_INSERT_TASK,
            DropHalfStarted { .. } | DropDeleteStaysNormal { .. } => go::HANDLE_DELETE_TASK,
            DropPackAppended { pack } | DropMutexWait { pack } => match pack.source {
                PackSource::DropInsert => go::HANDLE_INSERT_TASK,
                _ => go::HANDLE_DELETE_TASK,
            },
            FlowgraphDelivered { .. } => go::NODE_CTX_WORK,
            InjectFlush { .. } => go::INJECT_FLUSH,
            InjectQueued { .. } | InjectChFull { .. } => go::ORDER_FLUSH_QUEUE_INJECT,
            Injected { .. } => go::TASK_INJECTION_INJECTED,
            InjectDone { .. } => go::TASK_INJECTION_INJECT_DONE,
            CompactWrong { .. }
            | CompactorRefreshed { .. }
            | CompactorAddedFlushed { .. }
            | CompactorRemoved { .. } => go::COMPACTOR_COMPACT,
            StartDroppingStore | StartDropping { .. } => go::START_DROPPING,
            NotifyAllFlushed => go::NOTIFY_ALL_FLUSHED,
            ManagerClose { .. } | CloseNoHandler { .. } | CloseVisits { .. } => {
                go::RENDEZVOUS_FLUSH_MANAGER_CLOSE
            }
            WaitNotifiedPassed { .. } => go::NOTIFY_BARRIER,
            ActorDone => go::SCENARIO_ACTOR_FINISHED,
            HalfAttemptFailed { .. } | HalfGaveUp { .. } => go::RETRY_DO,
            HalfDone {
                kind: HalfKind::Insert,
                ..
            } => go::RUN_FLUSH_INSERT,
            HalfDone { .. } => go::RUN_FLUSH_DEL,
            RunnerHalvesDone { .. }
            | RunnerStarted { .. }
            | RunnerTookInjection { .. }
            | RunnerInjectOver { .. }
            | FinishClosed { .. } => go::WAIT_FINISH,
            WorkingDeleted { .. }
            | PostTask { .. }
            | PostTaskLocked { .. }
            | StickySet { .. }
            | PostInjectionApplied { .. } => go::ORDER_FLUSH_QUEUE_POST_TASK,
            SaveBinlogPathsCall { .. } | Notified { .. } | NotifyPackError { .. } => {
                go::FLUSH_NOTIFY_FUNC
            }
            RpcFailed {
                rpc: Rpc::SaveBinlogPaths,
                ..
            } => go::FLUSH_NOTIFY_FUNC,
            RpcFailed { .. } => go::DROP_VIRTUAL_CHANNEL_FUNC,
            ReplicaNewToNormal { .. } => go::LIST_NEW_SEGMENTS_START_POSITIONS,
            ReplicaFlushed { .. } => go::SEGMENT_FLUSHED,
            HandlerTookInjection { .. }
            | HandlerInjectOver { .. }
            | HandlerLockNext { .. }
            | HandlerStickyLocked { .. }
            | HandlerWaitsOldTail { .. }
            | HandlerOldTailPassed { .. }
            | HandlerExited { .. } => go::INJECT_HANDLER_HANDLE_INJECTION,
            InjectedClosed { .. } => go::TASK_INJECTION_WAIT_FOR_INJECTED,
            FinaliserAllFlushed { .. } | TailRead { .. } | TailClosed { .. } => {
                go::WAIT_FOR_ALL_FLUSH_QUEUE
            }
            FinaliserLocked { .. } | DropPackPostInjection { .. } => go::START_DROPPING_FINALISER,
            FlushAndDrop { .. } | FlushAndDropDone => go::DROP_VIRTUAL_CHANNEL_FUNC,
            GoPanic { .. } => go::PANIC,
            Invariant(_) => crate::engine::INVARIANT_CHECK,
        }
    }

    /// The fact in words.
    pub fn render(&self, sc: &Scenario, out: &mut String) {
        use Ev::*;
        let p = |x: PosId| sc.pos_name(x);
        let i = |x: InjId| sc.inj_name(x);
        let _ = match self {
            DroppingLoaded { .. } => write!(out, "dropping.Load() = false: normal mode"),
            QueueStored { segment } => write!(
                out,
                "dispatcher.LoadOrStore stored a new queue for segment {segment} (init has not run: tailCh is nil)"
            ),
            QueueInit { segment, handler } => {
                write!(out, "queue {segment} init: tail = closed channel, inject handler g{handler} spawned")
            }
            QueueInitByOther { segment } => {
                write!(out, "queue {segment} was already initialised by another caller's sync.Once")
            }
            RunnerStored { segment, pos, seq } => write!(out, "new runner #{seq} seg={segment} pos={} stored in working", p(*pos)),
            RunnerLoaded { segment, pos } => write!(out, "runner seg={segment} pos={} already in working", p(*pos)),
            InjectMutLocked { segment, running } => {
                write!(out, "queue {segment}'s injectMut: runningTasks++ = {running}")
            }
            HandlerCloseRequested { segment, handler } => {
                write!(out, "closes inject handler g{handler} of queue {segment} (close(done)), waits for it to exit")
            }
            HandlerClosed { segment } => {
                write!(out, "queue {segment}'s inject handler is gone (injectHandler = nil); injectMut released")
            }
            HandlerStopped { segment } => write!(out, "queue {segment}'s inject handler stopped; injectMut released"),
            RunnerInit { segment, pos, runner, chain, start } => write!(
                out,
                "runner seg={segment} pos={} init under tailMut: g{runner} spawned, waits on {}; queue tail = its finishSignal (#{chain} in the tail chain)",
                p(*pos),
                origin_words(sc, start)
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
                "drop mode, but working.Load(pos={}) of seg={segment} found its runner: the delete half goes the normal way",
                p(*pos)
            ),
            DropPackAppended { pack } => write!(out, "drop pack appended: {}", pack_words(sc, pack)),
            DropMutexWait { pack } => write!(
                out,
                "half done; waits for dropHandler's mutex (the finaliser holds it) to append {}",
                pack_words(sc, pack)
            ),
            FlowgraphDelivered { actor, index } => write!(
                out,
                "message delivered: {} returned from its op #{index}",
                sc.actors[*actor as usize].name
            ),
            InjectFlush { inj, waiter } => write!(out, "injectFlush {}: waitForInjected g{waiter} spawned", i(*inj)),
            InjectQueued { inj, segment, queued } => {
                write!(out, "{} queued on queue {segment}'s injectCh ({queued} queued)", i(*inj))
            }
            InjectChFull { inj, segment } => write!(out, "queue {segment}'s injectCh is full (100): {} waits to send", i(*inj)),
            Injected { inj } => write!(out, "<-{}.Injected() returned: every target queue holds its flush", i(*inj)),
            InjectDone { inj, success: true } => write!(out, "{}.injectDone(true): injectOver filled with true", i(*inj)),
            InjectDone { inj, success: false } => write!(out, "{}.injectDone(false): injectOver closed", i(*inj)),
            StartDroppingStore => write!(out, "dropping.Store(true): later flushes take the drop-mode path"),
            StartDropping { finaliser } => write!(out, "allFlushed = make(chan struct{{}}); finaliser g{finaliser} spawned, waits for allFlushed"),
            NotifyAllFlushed => write!(out, "close(allFlushed)"),
            ManagerClose { queues } => write!(out, "close(): dispatcher.Range over {queues} queue(s), stopping each inject handler"),
            CloseNoHandler { segment } => write!(out, "queue {segment}: injectMut taken; no inject handler to stop"),
            CloseVisits { segment, blocked } => write!(
                out,
                "Range visits queue {segment} next{}",
                if *blocked { ": its injectMut is held, waits" } else { "" }
            ),
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
            RunnerStarted { segment, pos, .. } => {
                write!(out, "runner seg={segment} pos={}: start signal closed, no injection queued", p(*pos))
            }
            RunnerTookInjection { segment, pos, inj, .. } => write!(
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
            WorkingDeleted { segment, pos } => write!(out, "postTask seg={segment}: working.Delete(pos={})", p(*pos)),
            PostTask { segment, pos, running, sticky, remapped } => {
                let _ = write!(out, "postTask seg={segment} pos={} under injectMut: runningTasks={running}", p(*pos));
                sticky_words(sc, *sticky, *remapped, out);
                Ok(())
            }
            PostTaskLocked { segment, pos, running, handler } => write!(
                out,
                "postTask seg={segment} pos={} under injectMut: runningTasks={running}, inject handler g{handler} spawned (injectMut still held)",
                p(*pos)
            ),
            StickySet { segment, inj } => write!(out, "queue {segment}: postInjection = {}'s (sticky)", i(*inj)),
            PostInjectionApplied { segment, pos, sticky, remapped } => {
                let _ = write!(out, "postTask seg={segment} pos={}", p(*pos));
                sticky_words(sc, *sticky, *remapped, out);
                out.push_str("; injectMut released");
                Ok(())
            }
            SaveBinlogPathsCall { pack } => write!(out, "SaveBinlogPaths({})", pack_words(sc, pack)),
            NotifyPackError { pack } => write!(
                out,
                "flushNotifyFunc({}): pack.err != nil: \"flush pack with error, DataNode quit now\"",
                pack_words(sc, pack)
            ),
            RpcFailed { rpc, n, sleep_ms } if u32::from(*n) >= RETRY_ATTEMPTS => write!(
                out,
                "{} attempt {n} failed, the last: retry.Do sleeps {sleep_ms} ms, then gives up",
                rpc.as_str()
            ),
            RpcFailed { rpc, n, sleep_ms } => write!(out, "{} attempt {n} failed; sleeps {sleep_ms} ms", rpc.as_str()),
            Notified { pack, total } => write!(out, "notified {} (#{total})", pack_words(sc, pack)),
            FinishClosed { segment, pos, .. } => write!(out, "close(finishSignal) of seg={segment} pos={}", p(*pos)),
            ReplicaNewToNormal { segment } => write!(out, "replica: segment {segment} new -> normal"),
            ReplicaFlushed { segment } => write!(out, "replica: segment {segment} -> flushed"),
            CompactWrong { inj, segment } => write!(out, "compact wrong: segment {segment} not in the Replica (getCollectionAndPartitionID); compaction {} returns before injectFlush: nothing injected", i(*inj)),
            CompactorRefreshed { target } => write!(out, "replica has segment {target}: only its statistics are refreshed"),
            CompactorAddedFlushed { target } => write!(out, "replica: segment {target} added as flushed"),
            CompactorRemoved { segment } => write!(out, "replica: segment {segment} removed"),
            HandlerTookInjection {
                segment,
                inj,
                keeps_old,
            } => write!(
                out,
                "inject handler of queue {segment} took {} (injectOne); queue tail = its injectDone ({})",
                i(*inj),
                if *keeps_old {
                    "the old tail is kept, to wait for before closing it: proposed"
                } else {
                    "the old tail is not chained"
                }
            ),
            HandlerInjectOver {
                segment,
                inj,
                ok: true,
                closed,
            } => write!(
                out,
                "queue {segment}: injectOver of {} gave true; postInjection set (without injectMut){}",
                i(*inj),
                if *closed { ", injectDone closed" } else { "" }
            ),
            CreateMutWait { segment } => write!(
                out,
                "queue {segment}'s creation mutex is held by another getFlushTaskRunner: waits (proposed)"
            ),
            HandlerWaitsOldTail { segment, inj } => write!(
                out,
                "queue {segment}: the tail the handler replaced is still open: it waits for it before closing injectDone of {} (proposed)",
                sc.inj_name(*inj)
            ),
            HandlerOldTailPassed { segment, inj } => write!(
                out,
                "queue {segment}: the tail the handler replaced closed; injectDone of {} closed (proposed)",
                sc.inj_name(*inj)
            ),
            HandlerLockNext { segment, inj } => write!(
                out,
                "queue {segment}: injectOver of {} gave true; q.injectMut.Lock() next (proposed change)",
                i(*inj)
            ),
            HandlerStickyLocked {
                segment,
                inj,
                closed,
            } => write!(
                out,
                "queue {segment}: under injectMut (proposed change), postInjection = {}{}",
                i(*inj),
                if *closed { "; injectDone closed" } else { "" }
            ),
            HandlerInjectOver {
                segment,
                inj,
                ok: false,
                closed,
            } => write!(
                out,
                "queue {segment}: injectOver of {} gave false{}",
                i(*inj),
                if *closed { "; injectDone closed" } else { "" }
            ),
            HandlerExited { segment, both_ready: true } => write!(
                out,
                "inject handler of queue {segment} returned (select chose done over a queued injection)"
            ),
            HandlerExited { segment, .. } => write!(out, "inject handler of queue {segment} returned"),
            InjectedClosed { inj } => write!(out, "{}: every queue called injectOne; close(injected)", i(*inj)),
            FinaliserAllFlushed { queues } => write!(
                out,
                "allFlushed closed; waitForAllFlushQueue: one waiter goroutine for each of the {queues} queue(s) in the dispatcher"
            ),
            TailRead { segment, tail } => match tail {
                TailSeen::Nil => write!(out, "queue {segment}'s tailCh is nil (not initialised): <-tailCh blocks forever"),
                TailSeen::Closed(o) => write!(out, "queue {segment}'s tailCh ({}) is closed; wg.Done()", origin_words(sc, o)),
                TailSeen::Open(o) => write!(out, "queue {segment}'s tailCh is {}: waits for it", origin_words(sc, o)),
            },
            TailClosed { segment } => write!(out, "queue {segment}'s tail closed; wg.Done()"),
            FinaliserLocked { packs } => write!(
                out,
                "every tail the waiters read is closed; dropFlushWg.Wait() (never Add-ed) returns; dropHandler locked; {packs} pack(s) to post-process"
            ),
            DropPackPostInjection { index, from, sticky, to } => match (sticky, to) {
                (Some(s), Some(to)) => write!(out, "drop pack #{index}: segment {from} remapped to {to} by {}'s postInjection", i(*s)),
                (Some(s), None) => write!(out, "drop pack #{index} of segment {from}: {}'s postInjection keeps it", i(*s)),
                (None, _) => write!(out, "drop pack #{index} of segment {from}: its queue has no postInjection"),
            },
            FlushAndDrop { packs } => write!(
                out,
                "flushAndDrop with {packs} pack(s): DropVirtualChannel (at 891c202b73 the request carries no segments: segmentPack is never put in it; fixed by #17641)"
            ),
            FlushAndDropDone => write!(out, "DropVirtualChannel succeeded; every segment of segmentPack is marked flushed"),
            GoPanic { message } => write!(out, "PANIC: {message}"),
            Invariant(v) => write!(out, "INVARIANT {}: {}", v.name(), v.describe(sc)),
        };
    }

    /// The Milvus log lines (zap's text format, without the time) Go printed at
    /// this fact, at 891c202b73; several lines are joined with `\n`. Only the fields
    /// the model knows are given (it knows no collection, channel, path or
    /// compaction plan ID, nor the text of an error that retry.Do collected).
    pub fn log_line(&self) -> Option<String> {
        use Ev::*;
        Some(match self {
            // flush_manager.go:703@891c202b73 (flushNotifyFunc), before retry.Do.
            SaveBinlogPathsCall { pack } => format!(
                "[DEBUG] [datanode/flush_manager.go:703] [\"SaveBinlogPath\"] [SegmentID={}]",
                pack.segment
            ),
            // flush_manager.go:677@891c202b73: pack.err is always
            // errors.New("execution failed") (flush_task.go:212@891c202b73).
            NotifyPackError { .. } => "[ERROR] [datanode/flush_manager.go:677] [\"flush pack with error, DataNode quit now\"] [error=\"execution failed\"]".to_owned(),
            // flush_task.go:211@891c202b73: getFlushPack, called by a drop-mode
            // handleInsertTask/handleDeleteTask under the drop mutex
            // (flush_manager.go:273, 300@891c202b73). Its errors are retry.Do's.
            DropPackAppended { pack } if pack.err => {
                "[WARN] [datanode/flush_task.go:211] [\"flush task error detected\"]".to_owned()
            }
            // flush_task.go:211@891c202b73: getFlushPack in waitFinish (ft:178),
            // after the start signal and before the injection poll.
            RunnerStarted { err: true, .. } | RunnerTookInjection { err: true, .. } => {
                "[WARN] [datanode/flush_task.go:211] [\"flush task error detected\"]".to_owned()
            }
            // compactor.go:305@891c202b73 (compactionTask.compact): getSegmentMeta
            // (compactor.go:623-627) returns getCollectionAndPartitionID's
            // `fmt.Errorf("cannot find segment, id = %v", segID)`
            // (segment_replica.go:223@891c202b73). Go also logs the plan's
            // planID, which the model does not know.
            CompactWrong { segment, .. } => format!(
                "[ERROR] [datanode/compactor.go:305] [\"compact wrong\"] [error=\"cannot find segment, id = {segment}\"]"
            ),
            GoPanic { message } => return panic_log(message),
            _ => return None,
        })
    }
}

/// Every place [`Ev::log_line`] prints, with its line at 891c202b73, the file
/// named as `logs::conform::Key` names it. A test checks it against every line
/// the flush-2021 built-ins print, and a compaction that cannot start prints.
pub const LOG_SITES: &[LogSite] = &[
    LogSite::new("datanode/flush_manager.go", "SaveBinlogPath", &[703]),
    LogSite::with_error(
        "datanode/flush_manager.go",
        "flush pack with error, DataNode quit now",
        &[677],
    ),
    LogSite::new(
        "datanode/flush_manager.go",
        "failed to SaveBinlogPaths",
        &[746],
    ),
    LogSite::new(
        "datanode/flush_manager.go",
        "failed to DropVirtualChannel",
        &[664],
    ),
    LogSite::new(
        "datanode/flush_task.go",
        "flush task error detected",
        &[211],
    ),
    // Only :305 (the segment check) of compactor.go's four "compact wrong"
    // lines at 891c202b73 (:289, :305, :405, :411): the model takes no other.
    LogSite::with_error("datanode/compactor.go", "compact wrong", &[305]),
    LogSite::new(PANIC, PANIC, &[]),
];

/// The lines a Go panic of the model printed: the log call before it, then the
/// panic's first line (Go prints an error's `Error()`; retry.Do's `ErrorList`
/// starts with `All attempts results:`, retry.go:67@891c202b73).
fn panic_log(message: &str) -> Option<String> {
    const RETRIES: &str = "panic: All attempts results:";
    Some(if message.starts_with("execution failed") {
        // flush_manager.go:679@891c202b73 `panic(pack.err)`.
        "panic: execution failed".to_owned()
    } else if message.starts_with("failed to SaveBinlogPaths") {
        // flush_manager.go:746-748@891c202b73.
        format!("[WARN] [datanode/flush_manager.go:746] [\"failed to SaveBinlogPaths\"]\n{RETRIES}")
    } else if message.starts_with("failed to DropVirtualChannel") {
        // flush_manager.go:664-665@891c202b73.
        format!(
            "[WARN] [datanode/flush_manager.go:664] [\"failed to DropVirtualChannel\"]\n{RETRIES}"
        )
    } else if message.starts_with("close of nil channel") {
        // flush_manager.go:511@891c202b73, allFlushed not made yet.
        "panic: close of nil channel".to_owned()
    } else if message.starts_with("close of closed channel") {
        // flush_manager.go:511@891c202b73, a second notifyAllFlushed.
        "panic: close of closed channel".to_owned()
    } else {
        return None;
    })
}

fn sticky_words(sc: &Scenario, sticky: Option<InjId>, remapped: Option<i64>, out: &mut String) {
    if let Some(s) = sticky {
        let _ = write!(out, ", postInjection={}", sc.inj_name(s));
    }
    if let Some(to) = remapped {
        let _ = write!(out, ", pack remapped to segment {to}");
    }
}

fn origin_words(sc: &Scenario, o: &SigOrigin) -> String {
    match o {
        SigOrigin::QueueInit => "the queue's initial (closed) tail".to_owned(),
        SigOrigin::Runner { pos, .. } => format!("runner pos={}'s finishSignal", sc.pos_name(*pos)),
        SigOrigin::InjectDone { handler } => format!("inject handler g{handler}'s injectDone"),
    }
}

/// `seg=2 pos=a flushed` style words for a pack.
pub fn pack_words(sc: &Scenario, p: &Pack) -> String {
    NamedPack::of(sc, p).to_string()
}

/// A pack with its position's name: how traces, the JSON report and the page
/// write a pack.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NamedPack {
    pub segment: i64,
    pub pos: Option<String>,
    pub flushed: bool,
    pub dropped: bool,
    pub err: bool,
}

impl NamedPack {
    pub fn of(sc: &Scenario, p: &Pack) -> NamedPack {
        NamedPack {
            segment: p.segment,
            pos: p.pos.map(|x| sc.pos_name(x).to_owned()),
            flushed: p.flushed,
            dropped: p.dropped,
            err: p.err,
        }
    }
}

/// `seg=4 pos=a flushed`.
impl std::fmt::Display for NamedPack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seg={} pos={}",
            self.segment,
            self.pos.as_deref().unwrap_or("nil")
        )?;
        for (on, word) in [
            (self.flushed, " flushed"),
            (self.dropped, " dropped"),
            (self.err, " err"),
        ] {
            if on {
                f.write_str(word)?;
            }
        }
        Ok(())
    }
}

/// What `g` waits on (or stands at), in words, and the Go function it sits in.
pub(super) fn waits_on(w: &World, sc: &Scenario, g: &Goroutine) -> (String, GoFn) {
    match g.role {
        Role::Actor { actor, pc, at } => actor_waits(w, sc, actor, pc, at),
        Role::Half { at, .. } => match at {
            HalfAt::Attempt { n } => (format!("nothing: attempt {n} next"), go::RETRY_DO),
            HalfAt::RetrySleep { n } => (
                format!("B4: retry sleep {} ms", retry_sleep_ms(n)),
                go::RETRY_DO,
            ),
        },
        Role::Runner { runner, at } => runner_waits(w, sc, runner, at),
        Role::Handler { at, .. } => match at {
            HandlerAt::Select => (
                "B5: select { <-injectCh, <-done }".to_owned(),
                go::INJECT_HANDLER_HANDLE_INJECTION,
            ),
            HandlerAt::Handling { inj, .. } => (
                format!("B6: <-{}.injectOver", sc.inj_name(inj)),
                go::INJECT_HANDLER_HANDLE_INJECTION,
            ),
            HandlerAt::LockSticky { .. } => (
                "q.injectMut.Lock() (proposed: before setting postInjection)".to_owned(),
                go::INJECT_HANDLER_HANDLE_INJECTION,
            ),
            HandlerAt::WaitOldTail { .. } => (
                "<-oldTail (proposed: the tail it replaced, before close(injectDone))".to_owned(),
                go::INJECT_HANDLER_HANDLE_INJECTION,
            ),
        },
        Role::WaitInjected { inj } => (
            format!(
                "B8: wg.Wait() ({} injectOne left)",
                w.injections[inj as usize].remaining
            ),
            go::TASK_INJECTION_WAIT_FOR_INJECTED,
        ),
        Role::Finaliser { at } => finaliser_waits(w, at),
        Role::TailWaiter { at, .. } => match at {
            TailAt::ReadTail => (
                "nothing: reads queue.tailCh next".to_owned(),
                go::WAIT_FOR_ALL_FLUSH_QUEUE,
            ),
            TailAt::WaitTail { sig: None } => (
                "B13: a nil tailCh (forever)".to_owned(),
                go::WAIT_FOR_ALL_FLUSH_QUEUE,
            ),
            TailAt::WaitTail { .. } => (
                "B13: <-queue.tailCh".to_owned(),
                go::WAIT_FOR_ALL_FLUSH_QUEUE,
            ),
        },
    }
}

/// What an actor at `Ready` waits for: its next op, or what that op waits on.
fn ready_waits(w: &World, sc: &Scenario, actor: u16, pc: u32) -> (String, GoFn) {
    let ops = &sc.actors[actor as usize].ops;
    match ops.get(crate::scenario::past_waits(ops, pc as usize, &w.actor_done)) {
        Some(Op::WaitInjected { inj }) => (
            format!("B9: <-{}.Injected()", sc.inj_name(*inj)),
            go::TASK_INJECTION_INJECTED,
        ),
        Some(Op::WaitNotified { count }) => (
            format!("{count} packs notified ({} so far)", w.notified),
            go::NOTIFY_BARRIER,
        ),
        Some(Op::WaitFor(WaitFor { actor, index })) => (
            format!(
                "the message {} sends after its op #{index} returns",
                sc.actors[*actor as usize].name
            ),
            go::NODE_CTX_WORK,
        ),
        Some(op) => (format!("next op: {}", op.name()), go::SCENARIO_ACTOR),
        None => ("nothing".to_owned(), go::SCENARIO_ACTOR),
    }
}

fn actor_waits(w: &World, sc: &Scenario, actor: u16, pc: u32, at: ActorAt) -> (String, GoFn) {
    match at {
        ActorAt::Ready => ready_waits(w, sc, actor, pc),
        ActorAt::NormalMode => (
            "nothing: getFlushQueue next (dropping was false)".to_owned(),
            go::HANDLE_INSERT_TASK_OR_HANDLE_DELETE_TASK,
        ),
        ActorAt::QueueInit { segment, .. } => (
            format!("nothing: queue {segment}'s init (sync.Once) next"),
            go::GET_FLUSH_QUEUE,
        ),
        ActorAt::DropDeleteNormal => (
            "nothing: getFlushTaskRunner next (normal path)".to_owned(),
            go::HANDLE_DELETE_TASK,
        ),
        ActorAt::RunnerInjectMut { segment, .. } => (
            format!("queue {segment}'s injectMut"),
            go::GET_FLUSH_TASK_RUNNER,
        ),
        ActorAt::CreateMut { segment } => (
            format!("queue {segment}'s creation mutex (proposed: getFlushTaskRunner as one critical section)"),
            go::GET_FLUSH_TASK_RUNNER,
        ),
        ActorAt::CloseHandler {
            segment, handler, ..
        } => (
            format!("B7: inject handler g{handler} of queue {segment} to exit"),
            go::INJECT_HANDLER_CLOSE,
        ),
        ActorAt::ChainRunner { segment, .. } => (
            format!("nothing: queue {segment}'s tailMut (init and chain) next"),
            go::GET_FLUSH_TASK_RUNNER,
        ),
        ActorAt::Inject { inj, next } => (
            format!(
                "B10: room in queue {}'s injectCh for {}",
                sc.injections[inj as usize].segments[next as usize],
                sc.inj_name(inj)
            ),
            go::ORDER_FLUSH_QUEUE_INJECT,
        ),
        ActorAt::DropWait { .. } => (
            "B11: its drop-mode half".to_owned(),
            go::HANDLE_INSERT_TASK_OR_HANDLE_DELETE_TASK,
        ),
        ActorAt::DropMutex { .. } => (
            "dropHandler's mutex (held by the finaliser)".to_owned(),
            go::HANDLE_INSERT_TASK_OR_HANDLE_DELETE_TASK,
        ),
        ActorAt::StartDroppingMake => (
            "nothing: allFlushed = make(chan) and the finaliser next".to_owned(),
            go::START_DROPPING,
        ),
        ActorAt::CloseQueues => (
            "nothing: Range visits one of the queues left next (any order)".to_owned(),
            go::RENDEZVOUS_FLUSH_MANAGER_CLOSE,
        ),
        ActorAt::CloseLock { queue } => (
            format!("queue {}'s injectMut", w.queues[queue as usize].segment),
            go::RENDEZVOUS_FLUSH_MANAGER_CLOSE,
        ),
    }
}

fn runner_waits(w: &World, sc: &Scenario, runner: RunnerId, at: RunnerAt) -> (String, GoFn) {
    let run = w.runner(runner);
    match at {
        RunnerAt::WaitHalves => (
            match run.map_or(0, |r| r.wg) {
                1 => "B1: t.Wait() (1 half left)".to_owned(),
                n => format!("B1: t.Wait() ({n} halves left)"),
            },
            go::WAIT_FINISH,
        ),
        RunnerAt::WaitStart => {
            let what = run
                .and_then(|r| r.start)
                .map_or("?".to_owned(), |s| origin_words(sc, &s.origin));
            (format!("B2: <-startSignal ({what})"), go::WAIT_FINISH)
        }
        RunnerAt::WaitInjectOver { inj } => (
            format!("B3: <-{}.injectOver", sc.inj_name(inj)),
            go::WAIT_FINISH,
        ),
        RunnerAt::PostTaskDelete { .. } => (
            "nothing: working.Delete next".to_owned(),
            go::ORDER_FLUSH_QUEUE_POST_TASK,
        ),
        RunnerAt::PostTaskLock { .. } => (
            "injectMut (postTask)".to_owned(),
            go::ORDER_FLUSH_QUEUE_POST_TASK,
        ),
        RunnerAt::PostTaskSticky { .. } | RunnerAt::PostTaskApply => (
            "nothing: holds injectMut; postInjection next".to_owned(),
            go::ORDER_FLUSH_QUEUE_POST_TASK,
        ),
        RunnerAt::SaveBinlogPaths { n } if u32::from(n) > RETRY_ATTEMPTS => (
            "B4: the sleep after the last failed SaveBinlogPaths".to_owned(),
            go::RETRY_DO,
        ),
        RunnerAt::SaveBinlogPaths { n } => (
            format!("B14: SaveBinlogPaths attempt {n}"),
            go::FLUSH_NOTIFY_FUNC,
        ),
    }
}

fn finaliser_waits(w: &World, at: FinaliserAt) -> (String, GoFn) {
    match at {
        FinaliserAt::WaitAllFlushed => {
            ("B12: <-allFlushed".to_owned(), go::START_DROPPING_FINALISER)
        }
        FinaliserAt::WaitTailWaiters => (
            format!(
                "B13: {} queue tail waiter(s) to finish",
                w.drop.tail_waiters
            ),
            go::WAIT_FOR_ALL_FLUSH_QUEUE,
        ),
        FinaliserAt::Pack { next } => (
            format!(
                "queue {}'s injectMut (drop pack #{next})",
                w.drop.packs[next as usize].segment
            ),
            go::START_DROPPING_FINALISER,
        ),
        FinaliserAt::QueueInit { segment, .. } => (
            format!("nothing: queue {segment}'s init (sync.Once) next"),
            go::GET_FLUSH_QUEUE,
        ),
        FinaliserAt::DropVirtualChannel { n } if u32::from(n) > RETRY_ATTEMPTS => (
            "B4: the sleep after the last failed DropVirtualChannel".to_owned(),
            go::RETRY_DO,
        ),
        FinaliserAt::DropVirtualChannel { n } => (
            format!("B14: DropVirtualChannel attempt {n}"),
            go::DROP_VIRTUAL_CHANNEL_FUNC,
        ),
    }
}
