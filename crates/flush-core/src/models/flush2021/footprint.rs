//! What each step reads and writes of the plain (unsynchronised) fields the Go
//! code shares between goroutines, at 891c202b73 (flush_manager.go): the
//! `orderFlushQueue` fields `tailCh`, `postInjection`, `runningTasks` and
//! `injectHandler`, and `dropHandler.allFlushed`, with the mutexes held at each
//! access. Everything else the
//! goroutines share is a channel, a `sync.Map`, a WaitGroup, a `sync.Once` or an
//! atomic (`dropping`), which order their users themselves; `dropHandler.packs` is
//! only touched under `dropHandler`'s mutex. The step code calls [`World::access`]
//! where the Go line it models touches a field, so the footprint follows the
//! path the step took.

use super::{FinaliserAt, HandlerAt, Role, RunnerAt, TailAt, World};
use crate::engine::{Access, GoSite, SyncOp};

pub const TAIL_CH: &str = "orderFlushQueue.tailCh";
pub const POST_INJECTION: &str = "orderFlushQueue.postInjection";
pub const RUNNING_TASKS: &str = "orderFlushQueue.runningTasks";
pub const INJECT_HANDLER: &str = "orderFlushQueue.injectHandler";
/// `dropHandler.allFlushed` (fm:232), one per manager (instance 0).
pub const ALL_FLUSHED_FIELD: &str = "dropHandler.allFlushed";

pub const NO_LOCK: &[&str] = &[];
pub const TAIL_MUT: &[&str] = &["tailMut"];
pub const INJECT_MUT: &[&str] = &["injectMut"];
/// `sync.Once.Do` runs its function holding the Once's own mutex (`doSlow`), so
/// two callers of `init` are ordered; a goroutine that reads the field without
/// calling `init` is not.
pub const ONCE: &[&str] = &["Once"];

/// The Go line of an access (flush_manager.go at 891c202b73).
#[derive(Clone, Copy, Debug)]
pub enum Site {
    /// fm:113 `q.injectHandler = newInjectHandler(q)` in `init`'s `Once.Do`.
    InitHandler,
    /// fm:115 `q.tailCh = make(chan struct{})` in `init`'s `Once.Do`.
    InitTail,
    /// fm:127 `q.runningTasks++` (getFlushTaskRunner, under injectMut).
    RunnerCount,
    /// fm:128 `if q.injectHandler != nil` (getFlushTaskRunner, under injectMut).
    RunnerReadHandler,
    /// fm:130 `q.injectHandler = nil` (getFlushTaskRunner, under injectMut).
    RunnerClearHandler,
    /// fm:135 `t.init(q.notifyFunc, q.postTask, q.tailCh)` (under tailMut).
    ChainReadTail,
    /// fm:136 `q.tailCh = t.finishSignal` (under tailMut).
    ChainWriteTail,
    /// fm:148 `q.runningTasks--` (postTask, under injectMut).
    PostCount,
    /// fm:151 `q.injectHandler = newInjectHandler(q)` (postTask, under injectMut).
    PostHandler,
    /// fm:155 `q.postInjection = postInjection` (postTask, under injectMut).
    PostSetSticky,
    /// fm:158 `if q.postInjection != nil { q.postInjection(pack) }` (under injectMut).
    PostReadSticky,
    /// fm:205 `q.tailCh = injectDone` (handleInjection, under tailMut).
    HandlerTail,
    /// What-if `handler_chains_tail`: `oldTail := q.tailCh` before fm:205 (under tailMut).
    HandlerReadTail,
    /// fm:212 `q.postInjection = inject.postInjection` (handleInjection, no lock).
    HandlerSticky,
    /// What-if `handler_locks_sticky`: the same write under injectMut.
    HandlerStickyLocked,
    /// fm:478 `<-queue.tailCh` (waitForAllFlushQueue's goroutine, no lock).
    WaiterTail,
    /// What-if `waiter_locks_tail`: the same read under tailMut.
    WaiterTailLocked,
    /// fm:501 `if q.postInjection != nil` (startDropping's goroutine, under injectMut).
    FinaliserSticky,
    /// fm:520 `if queue.injectHandler != nil` (close, under injectMut).
    CloseHandler,
    /// fm:489 `m.dropHandler.allFlushed = make(chan struct{})` (startDropping, no lock).
    AllFlushedMake,
    /// fm:511 `close(m.dropHandler.allFlushed)` reads the field (notifyAllFlushed, no lock).
    AllFlushedClose,
}

impl Site {
    /// (field, write, locks, line, function, the Go statement).
    #[rustfmt::skip]
    fn what(self) -> (&'static str, bool, &'static [&'static str], u32, &'static str, &'static str) {
        use Site::*;
        const GFTR: &str = "orderFlushQueue.getFlushTaskRunner";
        const POST: &str = "orderFlushQueue.postTask";
        const HANDLE: &str = "injectHandler.handleInjection";
        match self {
            InitHandler => (INJECT_HANDLER, true, ONCE, 113, "orderFlushQueue.init", "q.injectHandler = newInjectHandler(q)"),
            InitTail => (TAIL_CH, true, ONCE, 115, "orderFlushQueue.init", "q.tailCh = make(chan struct{})"),
            RunnerCount => (RUNNING_TASKS, true, INJECT_MUT, 127, GFTR, "q.runningTasks++"),
            RunnerReadHandler => (INJECT_HANDLER, false, INJECT_MUT, 128, GFTR, "if q.injectHandler != nil {"),
            RunnerClearHandler => (INJECT_HANDLER, true, INJECT_MUT, 130, GFTR, "q.injectHandler = nil"),
            ChainReadTail => (TAIL_CH, false, TAIL_MUT, 135, GFTR, "t.init(q.notifyFunc, q.postTask, q.tailCh)"),
            ChainWriteTail => (TAIL_CH, true, TAIL_MUT, 136, GFTR, "q.tailCh = t.finishSignal"),
            PostCount => (RUNNING_TASKS, true, INJECT_MUT, 148, POST, "q.runningTasks--"),
            PostHandler => (INJECT_HANDLER, true, INJECT_MUT, 151, POST, "q.injectHandler = newInjectHandler(q)"),
            PostSetSticky => (POST_INJECTION, true, INJECT_MUT, 155, POST, "q.postInjection = postInjection"),
            PostReadSticky => (POST_INJECTION, false, INJECT_MUT, 158, POST, "if q.postInjection != nil {"),
            HandlerTail => (TAIL_CH, true, TAIL_MUT, 205, HANDLE, "q.tailCh = injectDone"),
            HandlerReadTail => (TAIL_CH, false, TAIL_MUT, 205, HANDLE, "oldTail := q.tailCh (proposed)"),
            HandlerSticky => (POST_INJECTION, true, NO_LOCK, 212, HANDLE, "q.postInjection = inject.postInjection"),
            HandlerStickyLocked => (POST_INJECTION, true, INJECT_MUT, 212, HANDLE, "q.injectMut.Lock(); q.postInjection = inject.postInjection (proposed)"),
            WaiterTail => (TAIL_CH, false, NO_LOCK, 478, "rendezvousFlushManager.waitForAllFlushQueue", "<-queue.tailCh"),
            WaiterTailLocked => (TAIL_CH, false, TAIL_MUT, 478, "rendezvousFlushManager.waitForAllFlushQueue", "q.tailMut.Lock(); tail := queue.tailCh (proposed)"),
            FinaliserSticky => (POST_INJECTION, false, INJECT_MUT, 501, "rendezvousFlushManager.startDropping", "if q.postInjection != nil {"),
            CloseHandler => (INJECT_HANDLER, false, INJECT_MUT, 520, "rendezvousFlushManager.close", "if queue.injectHandler != nil {"),
            AllFlushedMake => (ALL_FLUSHED_FIELD, true, NO_LOCK, 489, "rendezvousFlushManager.startDropping", "m.dropHandler.allFlushed = make(chan struct{})"),
            AllFlushedClose => (ALL_FLUSHED_FIELD, false, NO_LOCK, 511, "rendezvousFlushManager.notifyAllFlushed", "close(m.dropHandler.allFlushed)"),
        }
    }
}

/// The synchronising objects of the happens-before check (see [`SyncOp`]), each
/// with the id that tells its instances apart.
pub mod obj {
    /// A `chan struct{}` that is closed, never sent on (a queue's `tailCh` of
    /// fm:115, an `injectDone` of fm:204, a runner's `finishSignal` of ft:118): its id.
    pub const CHAN: &str = "chan";
    /// The world's next signal id (an order key only: see `Model::order_keys`).
    pub const NEXT_SIG: &str = "next signal id";
    /// The world's next runner id (an order key only).
    pub const NEXT_RUNNER: &str = "next runner id";
    /// A queue's next place in its tail chain (an order key only, by segment).
    pub const NEXT_CHAIN: &str = "next chain place";
    /// A queue's next store place (its runners' `seq`), which a runner's callers
    /// note when their call returns (an order key only, by segment: see
    /// `World::call_returned`).
    pub const NEXT_SEQ: &str = "next store place";
    /// The model's queue slots, given in store order (a queue's index).
    pub const NEXT_QUEUE: &str = "next queue slot";
    /// `orderFlushQueue.injectCh` (fm:105), one per queue: by (segment, injection).
    pub const INJECT_CH: &str = "injectCh";
    /// `taskInjection.injectOver` (ft:82): by injection.
    pub const INJECT_OVER: &str = "injectOver";
    /// `taskInjection.wg` (ft:75), counted down by `injectOne` (ft:100): by injection.
    pub const INJECTION_WG: &str = "taskInjection.wg";
    /// `taskInjection.injected` (ft:73), closed by `waitForInjected` (ft:96).
    pub const INJECTED: &str = "taskInjection.injected";
    /// A `flushTaskRunner`'s WaitGroup (ft:49): by runner.
    pub const RUNNER_WG: &str = "flushTaskRunner.WaitGroup";
    /// An `injectHandler`'s `done` channel and `wg` (fm:184-185): by its goroutine.
    pub const HANDLER_DONE: &str = "injectHandler.done";
    pub const HANDLER_WG: &str = "injectHandler.wg";
    /// The queue's `injectMut` (the same name as the accesses' lock): by segment.
    pub const INJECT_MUT: &str = "injectMut";
    /// `rendezvousFlushManager.dispatcher` (a `sync.Map`): by segment.
    pub const DISPATCHER: &str = "dispatcher";
    /// `dropHandler.allFlushed` (fm:489), the WaitGroup of `waitForAllFlushQueue`
    /// (fm:473), `dropHandler`'s mutex (fm:229) and `dropping` (an atomic).
    pub const ALL_FLUSHED: &str = "dropHandler.allFlushed";
    pub const TAIL_WAITERS_WG: &str = "waitForAllFlushQueue.wg";
    pub const DROP_HANDLER: &str = "dropHandler.Mutex";
    pub const DROPPING: &str = "dropping";
    /// A queue's `working` (a `sync.Map`, fm:121): by (segment, position).
    pub const WORKING: &str = "working";
    /// A flow-graph message (nodeCtx.work, or a test's channel): by (actor, op)
    /// of the op whose return sends it.
    pub const FLOWGRAPH: &str = "flowgraph";
    /// The notifications a test counts (`wait_notified`): by count.
    pub const NOTIFIED: &str = "notified";
    /// A runner's `insertOnce` / `deleteOnce` (ft:53-54): by runner.
    pub const INSERT_ONCE: &str = "flushTaskRunner.insertOnce";
    pub const DELETE_ONCE: &str = "flushTaskRunner.deleteOnce";
    /// The Replica's `segMu` (segment_replica.go, a `sync.RWMutex`), taken by
    /// every method the model calls on it: `Lock` by those that write,
    /// `RLock` by `getCollectionAndPartitionID` (compactor.compact's start check).
    pub const REPLICA: &str = "SegmentReplica.segMu";
    /// What the Replica's readers' `RUnlock`s publish, which the next `Lock`
    /// takes in (two readers are not ordered by it, as in Go's race detector).
    pub const REPLICA_READERS: &str = "SegmentReplica.segMu readers";
    /// What-if `runner_creation_locked`: the queue's creation mutex, by segment.
    pub const CREATE_MUT: &str = "orderFlushQueue.createMut";
}

impl World {
    /// Records that this step releases (`true`) or acquires `object` `id`.
    pub(super) fn sync(&mut self, object: &'static str, id: i64, release: bool) {
        self.sync_pair(object, (id, 0), release);
    }

    /// [`World::sync`] of an object told apart by two ids.
    pub(super) fn sync_pair(&mut self, object: &'static str, id: (i64, i64), release: bool) {
        let at = self.footprint.accesses().len() as u32;
        self.footprint.sync(SyncOp {
            object,
            id,
            release,
            at,
        });
    }

    /// Records an order key (see `Model::order_keys`): this step read the state
    /// of `object` `id` (a lock it found held, a channel it found full) and
    /// went another way than it would have otherwise.
    pub(super) fn order(&mut self, object: &'static str, id: (i64, i64)) {
        self.footprint.order(object, id);
    }

    /// `dropHandler.Lock()` ... `Unlock()` around an append to its packs, in one step.
    pub(super) fn drop_handler_mutex(&mut self) {
        self.sync(obj::DROP_HANDLER, 0, false);
        self.sync(obj::DROP_HANDLER, 0, true);
    }

    /// A Replica method that writes: `segMu.Lock()` and `Unlock()` within it
    /// (after every reader's `RUnlock` and every writer's `Unlock` before it).
    pub(super) fn replica_mutex(&mut self) {
        self.sync(obj::REPLICA, 0, false);
        self.sync(obj::REPLICA_READERS, 0, false);
        self.sync(obj::REPLICA, 0, true);
    }

    /// A Replica method that only reads: `segMu.RLock()` and `RUnlock()` within
    /// it (after every writer's `Unlock` before it; before the next writer).
    pub(super) fn replica_rlock(&mut self) {
        self.sync(obj::REPLICA, 0, false);
        self.sync(obj::REPLICA_READERS, 0, true);
    }

    /// What passing the blocking point of `role` takes in: the receive, `Wait` or
    /// `Once.Do` a goroutine there returns from. Releases are recorded where the
    /// step code closes, sends, counts down or unlocks.
    pub(super) fn acquire_at(&mut self, role: Role) {
        use obj::*;
        let (object, id) = match role {
            Role::Actor { at, .. } => match at {
                // fm:112 `q.Once.Do` returns (its function run here or by another).
                super::ActorAt::QueueInit { segment, .. } => ("Once", segment),
                // fm:224 `h.wg.Wait()` in injectHandler.close.
                super::ActorAt::CloseHandler { handler, .. } => (HANDLER_WG, handler.into()),
                // Drop mode's `Wait()` on the ad-hoc runner.
                super::ActorAt::DropWait { runner } => (RUNNER_WG, runner.into()),
                _ => return,
            },
            // ft:174 `t.Wait()`; ft:176 `<-t.startSignal`; ft:184 `<-injection.injectOver`.
            Role::Runner { runner, at } => match at {
                RunnerAt::WaitHalves => (RUNNER_WG, runner.into()),
                RunnerAt::WaitStart => {
                    let ri = self.ri(runner);
                    (CHAN, self.runners[ri].start.map_or(-1, |s| s.id.into()))
                }
                RunnerAt::WaitInjectOver { inj } => (INJECT_OVER, inj.into()),
                _ => return,
            },
            // fm:209 `<-inject.injectOver` (the select's cases: see handleInjection).
            Role::Handler {
                at: HandlerAt::Handling { inj, .. },
                ..
            } => (INJECT_OVER, inj.into()),
            // What-if `handler_chains_tail`: `<-oldTail`.
            Role::Handler {
                at: HandlerAt::WaitOldTail { old, .. },
                ..
            } => (CHAN, old.into()),
            // ft:95 `ti.wg.Wait()`.
            Role::WaitInjected { inj } => (INJECTION_WG, inj.into()),
            Role::Finaliser { at } => match at {
                // fm:491 `<-m.dropHandler.allFlushed`.
                FinaliserAt::WaitAllFlushed => (ALL_FLUSHED, 0),
                // fm:483 `wg.Wait()`, fm:494 `dropHandler.Lock()`.
                FinaliserAt::WaitTailWaiters => {
                    self.sync(DROP_HANDLER, 0, false);
                    (TAIL_WAITERS_WG, 0)
                }
                _ => return,
            },
            // fm:478 `<-queue.tailCh`, the channel read before.
            Role::TailWaiter {
                at: TailAt::WaitTail { sig: Some(s) },
                ..
            } => (CHAN, s.into()),
            _ => return,
        };
        self.sync(object, id, false);
    }

    /// Records that this step touches `site`'s field of the queue of `segment`.
    pub(super) fn access(&mut self, segment: i64, site: Site) {
        if !self.footprint.records() {
            return;
        }
        let (field, write, locks, line, func, code) = site.what();
        self.footprint.access(Access {
            field,
            object: segment,
            write,
            locks,
            site: GoSite {
                file: "flush_manager.go",
                line,
                func,
                code,
            },
        });
    }
}
