//! What each step reads and writes of the plain (unsynchronised) fields the Go
//! code shares between goroutines, at 891c202b73 (flush_manager.go): the
//! `orderFlushQueue` fields `tailCh`, `postInjection`, `runningTasks` and
//! `injectHandler`, with the mutexes held at each access. Everything else the
//! goroutines share is a channel, a `sync.Map`, a WaitGroup, a `sync.Once` or an
//! atomic (`dropping`), which order their users themselves; `dropHandler.packs` is
//! only touched under `dropHandler`'s mutex. The step code calls [`World::access`]
//! where the Go line it models touches a field, so the footprint follows the
//! path the step took.

use super::World;
use crate::engine::{Access, GoSite};

pub const TAIL_CH: &str = "orderFlushQueue.tailCh";
pub const POST_INJECTION: &str = "orderFlushQueue.postInjection";
pub const RUNNING_TASKS: &str = "orderFlushQueue.runningTasks";
pub const INJECT_HANDLER: &str = "orderFlushQueue.injectHandler";

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
            HandlerSticky => (POST_INJECTION, true, NO_LOCK, 212, HANDLE, "q.postInjection = inject.postInjection"),
            HandlerStickyLocked => (POST_INJECTION, true, INJECT_MUT, 212, HANDLE, "q.injectMut.Lock(); q.postInjection = inject.postInjection (proposed)"),
            WaiterTail => (TAIL_CH, false, NO_LOCK, 478, "rendezvousFlushManager.waitForAllFlushQueue", "<-queue.tailCh"),
            WaiterTailLocked => (TAIL_CH, false, TAIL_MUT, 478, "rendezvousFlushManager.waitForAllFlushQueue", "q.tailMut.Lock(); tail := queue.tailCh (proposed)"),
            FinaliserSticky => (POST_INJECTION, false, INJECT_MUT, 501, "rendezvousFlushManager.startDropping", "if q.postInjection != nil {"),
            CloseHandler => (INJECT_HANDLER, false, INJECT_MUT, 520, "rendezvousFlushManager.close", "if queue.injectHandler != nil {"),
        }
    }
}

impl World {
    /// Records that this step touches `site`'s field of the queue of `segment`.
    pub(super) fn access(&mut self, segment: i64, site: Site) {
        let (field, write, locks, line, func, code) = site.what();
        self.footprint.0.push(Access {
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
