//! The flush-2021 state: queues, runners, injections, drop mode, the Replica, and
//! every goroutine with the point it stands at. Readiness (which goroutine can run)
//! is kept incrementally; only the step modules change a world.

use std::collections::VecDeque;

use super::facts::Violation;
use super::setup::{InjId, Op, PosId, ReplicaState, Scenario, INJECT_CH_CAP};

pub type Gid = u32;
pub type RunnerId = u32;
pub type SigId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HalfKind {
    Insert,
    Delete,
}

impl HalfKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HalfKind::Insert => "insert",
            HalfKind::Delete => "delete",
        }
    }
}

/// Where a signal (a Go channel that is only closed) came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SigOrigin {
    /// `orderFlushQueue.init`: `tailCh = make(chan); close(tailCh)`.
    QueueInit,
    /// A runner's `finishSignal`; `seq` is its creation order in the queue (the
    /// order of `working.LoadOrStore`), `chain` its place in the tail chain (the
    /// order of `t.init(...); q.tailCh = t.finishSignal` under `tailMut`).
    Runner { seq: u32, chain: u32, pos: PosId },
    /// An inject handler's `injectDone` channel.
    InjectDone { handler: Gid },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SignalRef {
    pub id: SigId,
    pub origin: SigOrigin,
}

/// Where a pack comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackSource {
    /// A queued runner's `waitFinish`.
    Runner,
    /// A drop-mode ad-hoc runner of `handleInsertTask`.
    DropInsert,
    /// A drop-mode ad-hoc runner of `handleDeleteTask`.
    DropDelete,
}

/// `segmentFlushPack`, without the binlog maps (all flushes of the model carry nil data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pack {
    pub runner: RunnerId,
    pub source: PackSource,
    /// After any `postInjection` remap.
    pub segment: i64,
    pub pos: Option<PosId>,
    pub flushed: bool,
    pub dropped: bool,
    /// `pack.err = errors.New("execution failed")`.
    pub err: bool,
}

/// A feeder's call that has not returned yet (see [`Runner::feeders`]).
pub const IN_CALL: u32 = u32::MAX;

/// `flushTaskRunner`: lives from `getFlushTaskRunner` (or a drop-mode
/// `handleXTask`) until its pack is notified (or appended to the drop packs).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Runner {
    pub id: RunnerId,
    pub segment: i64,
    /// The MsgID it is keyed by in `working` (normal mode) or flushes (drop mode).
    pub pos: PosId,
    /// Creation order within its queue (normal mode): the order of `working.LoadOrStore`.
    pub seq: u32,
    /// Place in the queue's tail chain, once `init` ran under `tailMut` (normal mode).
    pub chain: Option<u32>,
    /// Each actor whose flush reached it in normal mode (`working.LoadOrStore`
    /// stored or loaded it, fm:121), at its first such call: (actor, op index,
    /// the queue's `next_seq` when that call returned, [`IN_CALL`] before),
    /// sorted. The per-enqueuer FIFO check compares these program orders, and
    /// asks whether a runner was stored after the call returned.
    pub feeders: Vec<(u16, u32, u32)>,
    /// `Some(kind)` for a drop-mode ad-hoc runner with its single half.
    pub adhoc: Option<HalfKind>,
    /// The embedded `sync.WaitGroup` (2 normally, 1 in drop mode).
    pub wg: u8,
    pub insert_set: bool,
    pub delete_set: bool,
    /// Set by the insert half: `pos`, `flushed`, `dropped`.
    pub has_pos: bool,
    pub flushed: bool,
    pub dropped: bool,
    pub insert_err: bool,
    pub delete_err: bool,
    /// Set by `init` (under `tailMut`); `None` while the creator waits in B7.
    pub start: Option<SignalRef>,
    pub finish: Option<SigId>,
    /// The `waitFinish` goroutine.
    pub goroutine: Option<Gid>,
    /// The pack built after B2 (`getFlushPack`).
    pub pack: Option<Pack>,
}

/// `injectOver`: a buffered `chan bool` of capacity segmentCnt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Over {
    /// Nothing sent yet: receivers block.
    Pending,
    /// `injectDone(true)` sent segmentCnt `true`s; `k` are left in the buffer.
    Filled(u32),
    /// `injectDone(false)` closed it: every receive yields `false`.
    Closed,
}

impl Over {
    pub fn receivable(self) -> bool {
        !matches!(self, Over::Pending | Over::Filled(0))
    }
}

/// `taskInjection`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TaskInjection {
    /// `injectFlush` has been called.
    pub started: bool,
    /// The `wg` counter: `injectOne` calls still missing.
    pub remaining: u32,
    /// `injected` closed by `waitForInjected`.
    pub injected: bool,
    pub over: Over,
    /// Segments whose queue took it (`injectOne`), sorted.
    pub taken: Vec<i64>,
}

/// `injectHandler` as the queue's field sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handler {
    pub goroutine: Gid,
    /// `done` has been closed (`close()` called).
    pub done: bool,
}

/// `orderFlushQueue`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Queue {
    pub segment: i64,
    /// `tailCh`; `None` until `init` ran (a nil channel: receiving blocks forever).
    pub tail: Option<SignalRef>,
    pub running: u32,
    pub handler: Option<Handler>,
    /// The sticky `postInjection`: the injection whose function it is.
    pub post_inj: Option<InjId>,
    pub inject_ch: VecDeque<InjId>,
    /// `working`: MsgID → runner, sorted by MsgID.
    pub working: Vec<(PosId, RunnerId)>,
    pub next_seq: u32,
    /// The chain index the next runner to join the tail chain gets.
    pub next_chain: u32,
    /// Holder of `injectMut` across steps (B7, or postTask after it spawned a
    /// handler), if any. Critical sections that fit in one step never show here.
    pub inject_mut: Option<Gid>,
    /// What-if `runner_creation_locked`: the holder of the queue's creation mutex
    /// (from `working.LoadOrStore` to the end of the chaining).
    pub create_mut: Option<Gid>,
}

// `clone_from` reuses the lists' buffers: the explorer copies worlds into spare
// ones, and the fingerprint up to names renames runners and queues into kept
// ones (ids.rs), once per transition. The other fields are copied by `..*o`: a
// new field that is not `Copy` is a compile error here until it is listed.
impl Clone for Runner {
    fn clone(&self) -> Runner {
        Runner {
            feeders: self.feeders.clone(),
            ..*self
        }
    }
    fn clone_from(&mut self, o: &Runner) {
        let mut feeders = std::mem::take(&mut self.feeders);
        feeders.clone_from(&o.feeders);
        *self = Runner { feeders, ..*o };
    }
}

impl Clone for Queue {
    fn clone(&self) -> Queue {
        Queue {
            inject_ch: self.inject_ch.clone(),
            working: self.working.clone(),
            ..*self
        }
    }
    fn clone_from(&mut self, o: &Queue) {
        let mut inject_ch = std::mem::take(&mut self.inject_ch);
        let mut working = std::mem::take(&mut self.working);
        inject_ch.clone_from(&o.inject_ch);
        working.clone_from(&o.working);
        *self = Queue {
            inject_ch,
            working,
            ..*o
        };
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AllFlushed {
    /// `startDropping` not called: `allFlushed` is a nil channel.
    Unset,
    Open,
    Closed,
}

impl AllFlushed {
    pub fn as_str(self) -> &'static str {
        match self {
            AllFlushed::Unset => "nil",
            AllFlushed::Open => "open",
            AllFlushed::Closed => "closed",
        }
    }
}

/// `dropHandler` plus `dropping`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DropState {
    pub dropping: bool,
    pub all_flushed: AllFlushed,
    pub packs: Vec<Pack>,
    /// The packs given to `flushAndDrop`, after the postInjection pass.
    pub flush_and_drop: Option<Vec<Pack>>,
    /// New segments whose start positions `dropVirtualChannelFunc` added to its request.
    pub start_positions: Vec<i64>,
    /// The finaliser holds `dropHandler`'s mutex (from after `waitForAllFlushQueue`
    /// until `flushAndDrop` returns): drop-mode callers wait to append their pack.
    pub locked: bool,
    /// `waitForAllFlushQueue`'s WaitGroup: per-queue waiters not yet done.
    pub tail_waiters: u32,
    /// Per queue whose tail a waiter read: how many runners had joined its tail chain
    /// then. A runner among them still unnotified at flushAndDrop was overtaken.
    /// Sorted by segment (in the order read within one segment).
    pub tails_read: Vec<(i64, u32)>,
}

/// By hand, so that `clone_from` reuses the vectors (a derived one makes new
/// ones: the explorer clones a world into a spare one per transition).
impl Clone for DropState {
    fn clone(&self) -> DropState {
        let mut d = DropState {
            dropping: self.dropping,
            all_flushed: self.all_flushed,
            packs: Vec::new(),
            flush_and_drop: None,
            start_positions: Vec::new(),
            locked: self.locked,
            tail_waiters: self.tail_waiters,
            tails_read: Vec::new(),
        };
        d.clone_from(self);
        d
    }
    fn clone_from(&mut self, o: &DropState) {
        // Every field by name: a new field is a compile error here, not a bug.
        let DropState {
            dropping,
            all_flushed,
            packs,
            flush_and_drop,
            start_positions,
            locked,
            tail_waiters,
            tails_read,
        } = self;
        *dropping = o.dropping;
        *all_flushed = o.all_flushed;
        packs.clone_from(&o.packs);
        flush_and_drop.clone_from(&o.flush_and_drop);
        start_positions.clone_from(&o.start_positions);
        *locked = o.locked;
        *tail_waiters = o.tail_waiters;
        tails_read.clone_from(&o.tails_read);
    }
}

/// A segment of the datanode `Replica` (segment_replica.go).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaSeg {
    pub segment: i64,
    pub state: ReplicaState,
    pub rows: i64,
    /// The checkpoint position of the last SaveBinlogPaths sent for it. (Datacoord
    /// keeps the newest by timestamp; positions here carry no timestamps, so this is
    /// what the datanode sent last, not what datacoord kept.)
    pub checkpoint: Option<PosId>,
}

/// A goroutine of the model: what it is and the point it stands at, typed per
/// role (a runner cannot stand at an actor's point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A scenario actor running its ops; `pc` is the op it is at.
    Actor { actor: u16, pc: u32, at: ActorAt },
    /// `flushTaskRunner.waitFinish`.
    Runner { runner: RunnerId, at: RunnerAt },
    /// The goroutine `runFlushInsert`/`runFlushDel` spawns around `retry.Do`.
    Half {
        runner: RunnerId,
        kind: HalfKind,
        fail: u8,
        at: HalfAt,
    },
    /// `injectHandler.handleInjection` of the queue of `segment`.
    Handler { segment: i64, at: HandlerAt },
    /// `taskInjection.waitForInjected`, in B8: `ti.wg.Wait()`.
    WaitInjected { inj: InjId },
    /// The goroutine `startDropping` spawns.
    Finaliser { at: FinaliserAt },
    /// One of the goroutines `waitForAllFlushQueue` starts per queue: it reads the
    /// queue's `tailCh` when it runs and waits for it (flush_manager.go:477-480).
    TailWaiter { segment: i64, at: TailAt },
}

/// What an actor does once the queue it stored is initialised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AfterInit {
    /// The normal path of a flush: `getFlushTaskRunner`.
    Flush,
    /// Drop-mode `handleDeleteTask`: `working.Load(pos)`.
    DropDelete,
    /// `injectFlush`: the send to segment index `next`.
    Inject { next: u32 },
}

/// What a goroutine does once `injectHandler.close()` returned (B7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resume {
    /// Finish `getFlushTaskRunner` for this new runner: `injectHandler = nil`, unlock.
    NewRunner(RunnerId),
    /// Go on with the manager's `close()`: unlock, then the next queue its
    /// `dispatcher.Range` has not visited yet.
    Close,
}

/// Where an actor stands: where Go may block, or be preempted between two accesses
/// to state another goroutine shares (ARCHITECTURE.md, "granularity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActorAt {
    /// Before its op at `pc` (ops that only wait block here: B9, wait_notified,
    /// wait_for).
    Ready,
    /// `m.dropping.Load()` returned false (normal mode); `getFlushQueue` next.
    NormalMode,
    /// `dispatcher.LoadOrStore` stored a new queue; `queue.init()` (sync.Once) next.
    QueueInit { segment: i64, then: AfterInit },
    /// Drop-mode `handleDeleteTask`: `working.Load(pos)` found the runner; the normal
    /// path (`enqueueDelFlush` → `getFlushTaskRunner`) next.
    DropDeleteNormal,
    /// `working.LoadOrStore` stored `runner`; `q.injectMut.Lock()` next (blocks while held).
    RunnerInjectMut { segment: i64, runner: RunnerId },
    /// What-if `runner_creation_locked`: the queue's creation mutex, before
    /// `working.LoadOrStore` (blocks while another creator holds it).
    CreateMut { segment: i64 },
    /// B7: `injectHandler.close()` → `wg.Wait()`, holding `injectMut`.
    CloseHandler {
        segment: i64,
        handler: Gid,
        then: Resume,
    },
    /// `injectMut` released; `tailMut`: `t.init(...)`, `q.tailCh = t.finishSignal` next.
    ChainRunner { segment: i64, runner: RunnerId },
    /// `injectFlush`: `getFlushQueue(segs[next]).inject(inj)` next (B10 while its
    /// injectCh is full).
    Inject { inj: InjId, next: u32 },
    /// B11: a drop-mode caller in `r.Wait()`.
    DropWait { runner: RunnerId },
    /// A drop-mode caller waiting for `dropHandler`'s mutex (held by the finaliser)
    /// to append its pack.
    DropMutex { pack: Pack },
    /// `startDropping`: `dropping.Store(true)` done; `allFlushed = make(chan)` and
    /// the finaliser's `go` next.
    StartDroppingMake,
    /// The manager's `close()`: `dispatcher.Range` visits the queues it has not visited
    /// yet in map order, random in Go: each is a scheduler choice (`World::closing_left`).
    CloseQueues,
    /// The manager's `close()`: `queue.injectMut.Lock()` on queue `queue` (an index
    /// into the dispatcher), held by another goroutine.
    CloseLock { queue: u32 },
}

/// Where a half's goroutine stands (`retry.Do` around the flush).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfAt {
    /// About to make attempt `n` (1-based).
    Attempt { n: u8 },
    /// B4: the retry sleep after failed attempt `n`.
    RetrySleep { n: u8 },
}

/// Where a runner's `waitFinish` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunnerAt {
    /// B1: `t.Wait()` for both halves.
    WaitHalves,
    /// B2: `<-t.startSignal`.
    WaitStart,
    /// B3: `<-injection.injectOver`.
    WaitInjectOver { inj: InjId },
    /// `postTask`: `working.Delete(pos)` next.
    PostTaskDelete { post: Option<InjId> },
    /// `postTask`: `q.injectMut.Lock()` next (blocks while held).
    PostTaskLock { post: Option<InjId> },
    /// `postTask` spawned an inject handler and still holds `injectMut`:
    /// `q.postInjection = postInjection` next (the new handler writes it unlocked).
    PostTaskSticky { post: InjId },
    /// `postTask`, holding `injectMut`: `q.postInjection(pack)`, unlock next.
    PostTaskApply,
    /// B14: `flushNotifyFunc`, `SaveBinlogPaths` attempt `n` next (`n = 1` also
    /// builds the request); `n` past the last attempt: retry.Do's sleep after the last
    /// failure, then the panic.
    SaveBinlogPaths { n: u8 },
}

/// Where an inject handler stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandlerAt {
    /// B5: `select` on `injectCh` / `done`.
    Select,
    /// B6: `<-inject.injectOver`; `done` is its `injectDone` signal; `old` the tail
    /// it replaced, kept under what-if `handler_chains_tail` (else `None`).
    Handling {
        inj: InjId,
        done: SigId,
        old: Option<SigId>,
    },
    /// What-if `handler_locks_sticky`: injectOver gave true; `q.injectMut.Lock()`
    /// before `q.postInjection = ...` (blocks while another goroutine holds it).
    LockSticky {
        inj: InjId,
        done: SigId,
        old: Option<SigId>,
    },
    /// What-if `handler_chains_tail`: `<-oldTail` before `close(injectDone)`.
    WaitOldTail { inj: InjId, done: SigId, old: SigId },
}

/// Where the drop finaliser stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FinaliserAt {
    /// B12: `<-allFlushed`.
    WaitAllFlushed,
    /// B13: `waitForAllFlushQueue`'s `wg.Wait()` for its per-queue waiters.
    WaitTailWaiters,
    /// Holding `dropHandler`'s mutex: pack `next`'s queue's `injectMut` and
    /// `postInjection` next.
    Pack { next: u32 },
    /// `getFlushQueue` for pack `next` stored a new queue; `init` next.
    QueueInit { segment: i64, next: u32 },
    /// B14: `dropVirtualChannelFunc`, `DropVirtualChannel` attempt `n` next (`n = 1`
    /// also calls `flushAndDrop` and builds the request); `n` past the last attempt:
    /// the sleep after the last failure, then the panic.
    DropVirtualChannel { n: u8 },
}

/// Where a tail waiter stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TailAt {
    /// `<-queue.tailCh` next (it reads the field when it runs).
    ReadTail,
    /// Blocked on the tail it read (`None`: a nil channel, forever).
    WaitTail { sig: Option<SigId> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Goroutine {
    pub id: Gid,
    pub role: Role,
}

/// A Go panic: the process would exit here.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoPanic {
    pub goroutine: Gid,
    pub message: String,
}

/// The whole state of a flush-2021 run. Small, `Clone + Eq + Hash`: finished
/// goroutines and notified runners leave it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct World {
    /// Live goroutines, sorted by id. A deque: the goroutines that finish are mostly
    /// the newest (halves) or the oldest runners, so removal moves few elements.
    pub goroutines: VecDeque<Goroutine>,
    /// Live runners, sorted by id; they finish roughly oldest first.
    pub runners: VecDeque<Runner>,
    /// The ids of `goroutines` and `runners`, kept in step: searching 4-byte ids is
    /// what keeps a step cheap when hundreds of goroutines are alive.
    pub(super) goroutine_ids: VecDeque<Gid>,
    pub(super) runner_ids: VecDeque<RunnerId>,
    /// Queues in creation order (the dispatcher).
    pub queues: Vec<Queue>,
    /// (segment, index into `queues`), sorted by segment: queues are looked up by
    /// segment on most steps, and a scenario may have thousands.
    pub(super) queue_index: Vec<(i64, u32)>,
    /// Queues whose handler, running count, tail or `injectMut` the current step
    /// changed: the invariant check looks at these only (empty between steps).
    pub(super) dirty_queues: Vec<u32>,
    pub injections: Vec<TaskInjection>,
    pub drop: DropState,
    /// Sorted by segment id.
    pub replica: Vec<ReplicaSeg>,
    /// How many Replica segments are new (Go keeps them in their own map,
    /// `newSegments`, so listing them does not visit the others).
    pub(super) replica_new: u32,
    /// Open signals, sorted; every other id is closed.
    pub open_signals: Vec<SigId>,
    pub save_binlog_faults: u32,
    pub drop_channel_faults: u32,
    /// Packs notified so far (SaveBinlogPaths succeeded).
    pub notified: u32,
    /// The manager's `close()` has started: handlers are stopped but not nil.
    pub closing: bool,
    pub panic: Option<GoPanic>,
    /// Invariant violations so far (the run goes on, as Go would).
    pub violations: Vec<Violation>,
    pub(super) next_gid: Gid,
    pub(super) next_runner: RunnerId,
    pub(super) next_sig: SigId,
    /// Runnable goroutines with their ready-case counts, sorted: kept up to date
    /// incrementally (see `touch`), so a step costs no scan of every goroutine.
    /// A deque: actors have the lowest ids, so their changes land near the front.
    pub(super) ready: VecDeque<(Gid, u32)>,
    /// How many entries of `ready` have more than one ready case (a `select`, or
    /// `close()`'s Range choosing its next queue).
    pub(super) multi_case: u32,
    /// Per goroutine in the manager's `close()`: the queues (dispatcher indices) its
    /// `Range` has not visited yet.
    pub closing_left: Vec<(Gid, Vec<u32>)>,
    /// Open signals with the goroutines waiting on each (runners at B2, tail waiters),
    /// sorted by signal.
    pub(super) sig_waiters: Vec<(SigId, Gid)>,
    /// Goroutines whose readiness the current step may have changed.
    pub(super) touched: Vec<Gid>,
    /// The last step's accesses to plain shared fields (see `footprint.rs`); never
    /// makes two worlds different.
    pub(super) footprint: crate::engine::Footprint,
    /// Actors are goroutines `0..n_actors`.
    pub(super) n_actors: u32,
    /// Goroutines whose readiness shared state can change, sorted by id: the actors
    /// that are blocked or at a point where another goroutine can block them (a
    /// mutex, a channel others fill), and the runners about to lock `injectMut` in
    /// `postTask`. With each, the segment whose `injectMut` it is about to lock, if
    /// any. `touch_actors` and `touch_lock_waiters` re-examine only these, so a step
    /// costs no scan of thousands of goroutines that wait on nothing.
    pub(super) watched: VecDeque<(Gid, Option<i64>)>,
    /// The `(segment, goroutine)` pairs of `watched` with a lock, sorted: who waits
    /// for which queue's `injectMut`.
    pub(super) lock_waiters: Vec<(i64, Gid)>,
    pub(super) finaliser: Option<Gid>,
    /// Some actor has a `wait_notified` op (so a notify may wake an actor).
    pub(super) waits_notified: bool,
    /// Ops each actor has returned from (indexed by actor): what `wait_for` waits on.
    pub(super) actor_done: Vec<u32>,
    /// Where this scenario needs preemption points that others do not (see [`Grain`]).
    pub(super) grain: Grain,
}

/// What the explorer's fingerprint hashes of a world: all but what the other
/// fields decide (the id lists kept beside `goroutines` and `runners`, the queue
/// index, the readiness books `ready`, `multi_case`, `watched`, `lock_waiters`
/// and `sig_waiters`, all functions of where the goroutines stand, the scratch
/// lists empty between steps, and the scenario's constants). Two worlds equal in
/// the rest are equal in these (a test checks it on every built-in's reachable
/// worlds), so it tells worlds apart as the whole would, with a third less to
/// hash. The derived `Hash` (all fields) stays for the memory estimate.
pub(crate) struct Identity<'a>(pub &'a World);

impl std::hash::Hash for Identity<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        Parts::of(self.0).hash(h)
    }
}

/// What [`Identity`] hashes, by reference, in the order it hashes them: the
/// fingerprint up to names (`ids.rs`) hashes renamed copies of some of them.
#[derive(Hash)]
pub(super) struct Parts<'a> {
    pub goroutines: &'a VecDeque<Goroutine>,
    pub runners: &'a VecDeque<Runner>,
    pub queues: &'a Vec<Queue>,
    pub injections: &'a Vec<TaskInjection>,
    pub drop: &'a DropState,
    pub replica: &'a Vec<ReplicaSeg>,
    pub replica_new: u32,
    pub open_signals: &'a Vec<SigId>,
    pub save_binlog_faults: u32,
    pub drop_channel_faults: u32,
    pub notified: u32,
    pub closing: bool,
    pub panic: &'a Option<GoPanic>,
    pub violations: &'a Vec<Violation>,
    pub next_gid: Gid,
    pub next_runner: RunnerId,
    pub next_sig: SigId,
    pub closing_left: &'a Vec<(Gid, Vec<u32>)>,
    pub finaliser: Option<Gid>,
    pub actor_done: &'a Vec<u32>,
}

impl<'a> Parts<'a> {
    pub(super) fn of(w: &'a World) -> Parts<'a> {
        // Every field by name: a new field is a compile error here, not a bug.
        let World {
            goroutines,
            runners,
            goroutine_ids: _,
            runner_ids: _,
            queues,
            queue_index: _,
            dirty_queues: _,
            injections,
            drop,
            replica,
            replica_new,
            open_signals,
            save_binlog_faults,
            drop_channel_faults,
            notified,
            closing,
            panic,
            violations,
            next_gid,
            next_runner,
            next_sig,
            ready: _,
            multi_case: _,
            closing_left,
            sig_waiters: _,
            touched: _,
            footprint: _,
            n_actors: _,
            watched: _,
            lock_waiters: _,
            finaliser,
            waits_notified: _,
            actor_done,
            grain: _,
        } = w;
        Parts {
            goroutines,
            runners,
            queues,
            injections,
            drop,
            replica,
            replica_new: *replica_new,
            open_signals,
            save_binlog_faults: *save_binlog_faults,
            drop_channel_faults: *drop_channel_faults,
            notified: *notified,
            closing: *closing,
            panic,
            violations,
            next_gid: *next_gid,
            next_runner: *next_runner,
            next_sig: *next_sig,
            closing_left,
            finaliser: *finaliser,
            actor_done,
        }
    }
}

/// `clone_from` reuses every buffer of the world it overwrites (the explorer
/// clones into spare worlds; a derived one would free them all and allocate anew).
impl Clone for World {
    fn clone(&self) -> World {
        World {
            goroutines: self.goroutines.clone(),
            runners: self.runners.clone(),
            goroutine_ids: self.goroutine_ids.clone(),
            runner_ids: self.runner_ids.clone(),
            queues: self.queues.clone(),
            queue_index: self.queue_index.clone(),
            dirty_queues: self.dirty_queues.clone(),
            injections: self.injections.clone(),
            drop: self.drop.clone(),
            replica: self.replica.clone(),
            replica_new: self.replica_new,
            open_signals: self.open_signals.clone(),
            save_binlog_faults: self.save_binlog_faults,
            drop_channel_faults: self.drop_channel_faults,
            notified: self.notified,
            closing: self.closing,
            panic: self.panic.clone(),
            violations: self.violations.clone(),
            next_gid: self.next_gid,
            next_runner: self.next_runner,
            next_sig: self.next_sig,
            ready: self.ready.clone(),
            multi_case: self.multi_case,
            closing_left: self.closing_left.clone(),
            sig_waiters: self.sig_waiters.clone(),
            touched: self.touched.clone(),
            footprint: self.footprint.clone(),
            n_actors: self.n_actors,
            watched: self.watched.clone(),
            lock_waiters: self.lock_waiters.clone(),
            finaliser: self.finaliser,
            waits_notified: self.waits_notified,
            actor_done: self.actor_done.clone(),
            grain: self.grain,
        }
    }

    fn clone_from(&mut self, o: &World) {
        // Every field by name: a new field is a compile error here, not a bug.
        let World {
            goroutines,
            runners,
            goroutine_ids,
            runner_ids,
            queues,
            queue_index,
            dirty_queues,
            injections,
            drop,
            replica,
            replica_new,
            open_signals,
            save_binlog_faults,
            drop_channel_faults,
            notified,
            closing,
            panic,
            violations,
            next_gid,
            next_runner,
            next_sig,
            ready,
            multi_case,
            closing_left,
            sig_waiters,
            touched,
            footprint,
            n_actors,
            watched,
            lock_waiters,
            finaliser,
            waits_notified,
            actor_done,
            grain,
        } = self;
        goroutines.clone_from(&o.goroutines);
        deque_clone_from(runners, &o.runners);
        goroutine_ids.clone_from(&o.goroutine_ids);
        runner_ids.clone_from(&o.runner_ids);
        queues.clone_from(&o.queues);
        queue_index.clone_from(&o.queue_index);
        dirty_queues.clone_from(&o.dirty_queues);
        injections.clone_from(&o.injections);
        drop.clone_from(&o.drop);
        replica.clone_from(&o.replica);
        *replica_new = o.replica_new;
        open_signals.clone_from(&o.open_signals);
        *save_binlog_faults = o.save_binlog_faults;
        *drop_channel_faults = o.drop_channel_faults;
        *notified = o.notified;
        *closing = o.closing;
        panic.clone_from(&o.panic);
        violations.clone_from(&o.violations);
        *next_gid = o.next_gid;
        *next_runner = o.next_runner;
        *next_sig = o.next_sig;
        ready.clone_from(&o.ready);
        *multi_case = o.multi_case;
        closing_left.clone_from(&o.closing_left);
        sig_waiters.clone_from(&o.sig_waiters);
        touched.clone_from(&o.touched);
        footprint.clone_from(&o.footprint);
        *n_actors = o.n_actors;
        watched.clone_from(&o.watched);
        lock_waiters.clone_from(&o.lock_waiters);
        *finaliser = o.finaliser;
        *waits_notified = o.waits_notified;
        actor_done.clone_from(&o.actor_done);
        *grain = o.grain;
    }
}

/// `to` becomes a copy of `from` element by element, each by `clone_from` (a
/// runner keeps its vectors): `VecDeque::clone_from` clears `to` and clones
/// every element anew, which freed and allocated each runner's per transition.
/// For the deques of `Copy` elements the standard one is faster (it copies
/// them in bulk).
fn deque_clone_from<T: Clone>(to: &mut VecDeque<T>, from: &VecDeque<T>) {
    to.truncate(from.len());
    let kept = to.len();
    to.iter_mut().zip(from).for_each(|(a, b)| a.clone_from(b));
    to.extend(from.iter().skip(kept).cloned());
}

/// Preemption points that matter only when some goroutine of the scenario can touch
/// the state in between. Where none can, the two accesses are one step: no
/// schedule is lost, and the trace stays short (ARCHITECTURE.md, "granularity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Grain {
    /// `dropping.Load()` is its own step while a `start_dropping` can still run: a
    /// flush that read false may reach its queue after drop mode began. Without a
    /// `start_dropping` op the flag never changes and the read is not a point.
    pub(super) mode_read: bool,
    /// `dispatcher.LoadOrStore` and `queue.init()` are two steps when something
    /// ranges over the dispatcher (the drop finaliser, `close()`): it can see a queue
    /// whose `tailCh` is still nil.
    pub(super) queue_init: bool,
    /// `working.Delete` in `postTask` is its own step when some (segment, position)
    /// gets a half twice: another goroutine may then look the MsgID up in between.
    pub(super) post_task_delete: bool,
    /// Some actor waits for another's op (`wait_for`).
    pub(super) waits_for: bool,
    /// What-if `runner_creation_locked` (the step code reads it here).
    pub(super) creation_locked: bool,
}

/// The Replica at the start: the scenario's, or every flushed segment as new.
fn initial_replica(sc: &Scenario) -> Vec<ReplicaSeg> {
    if !sc.replica.is_empty() {
        return sc
            .replica
            .iter()
            .map(|r| ReplicaSeg {
                segment: r.segment,
                state: r.state,
                rows: r.rows,
                checkpoint: None,
            })
            .collect();
    }
    let mut segs: Vec<i64> = sc
        .actors
        .iter()
        .flat_map(|a| &a.ops)
        .filter_map(|op| op.flush_target().map(|t| t.0))
        .collect();
    crate::order::sort_dedup(&mut segs);
    segs.into_iter()
        .map(|segment| ReplicaSeg {
            segment,
            state: ReplicaState::New,
            rows: 0,
            checkpoint: None,
        })
        .collect()
}

impl Grain {
    pub(super) fn of(sc: &Scenario) -> Grain {
        let ops = || sc.actors.iter().flat_map(|a| &a.ops);
        let mut halves: Vec<(i64, PosId, HalfKind)> = ops()
            .filter_map(|op| match *op {
                Op::FlushInsert { segment, pos, .. } => Some((segment, pos, HalfKind::Insert)),
                Op::FlushDelete { segment, pos, .. } => Some((segment, pos, HalfKind::Delete)),
                _ => None,
            })
            .collect();
        crate::order::sort_by(&mut halves, |a, b| a.cmp(b));
        let dup = halves.windows(2).any(|w| w[0] == w[1]);
        let has = |f: fn(&Op) -> bool| ops().any(f);
        let drops = has(|o| matches!(o, Op::StartDropping));
        Grain {
            mode_read: drops,
            queue_init: drops || has(|o| matches!(o, Op::Close)),
            post_task_delete: dup,
            waits_for: has(|o| matches!(o, Op::WaitFor(_))),
            creation_locked: sc.what_if.runner_creation_locked,
        }
    }
}

impl World {
    /// Asks for the memory a step and a copy read first: the world itself and
    /// its lists (see [`crate::explore::prefetch`]).
    pub(super) fn prefetch(&self) {
        use crate::explore::prefetch::{deque, slice, value};
        value(self);
        deque(&self.goroutines);
        deque(&self.runners);
        deque(&self.goroutine_ids);
        deque(&self.runner_ids);
        deque(&self.ready);
        deque(&self.watched);
        slice(&self.queues);
        slice(&self.queue_index);
        slice(&self.injections);
        slice(&self.replica);
        slice(&self.sig_waiters);
    }

    pub fn new(sc: &Scenario) -> World {
        let replica = initial_replica(sc);
        let mut w = World {
            goroutines: VecDeque::new(),
            runners: VecDeque::new(),
            goroutine_ids: VecDeque::new(),
            runner_ids: VecDeque::new(),
            queues: Vec::new(),
            queue_index: Vec::new(),
            dirty_queues: Vec::new(),
            injections: sc
                .injections
                .iter()
                .map(|i| TaskInjection {
                    started: false,
                    remaining: i.segments.len() as u32,
                    injected: false,
                    over: Over::Pending,
                    taken: Vec::new(),
                })
                .collect(),
            drop: DropState {
                dropping: false,
                all_flushed: AllFlushed::Unset,
                packs: Vec::new(),
                flush_and_drop: None,
                start_positions: Vec::new(),
                locked: false,
                tail_waiters: 0,
                tails_read: Vec::new(),
            },
            replica_new: replica
                .iter()
                .filter(|s| s.state == ReplicaState::New)
                .count() as u32,
            replica,
            open_signals: Vec::new(),
            save_binlog_faults: sc.faults.save_binlog_paths,
            drop_channel_faults: sc.faults.drop_virtual_channel,
            notified: 0,
            closing: false,
            panic: None,
            violations: Vec::new(),
            next_gid: 0,
            next_runner: 0,
            next_sig: 0,
            ready: VecDeque::new(),
            multi_case: 0,
            closing_left: Vec::new(),
            sig_waiters: Vec::new(),
            touched: Vec::new(),
            footprint: crate::engine::Footprint::default(),
            n_actors: 0,
            watched: VecDeque::new(),
            lock_waiters: Vec::new(),
            finaliser: None,
            waits_notified: sc
                .actors
                .iter()
                .flat_map(|a| &a.ops)
                .any(|o| matches!(o, Op::WaitNotified { .. })),
            actor_done: vec![0; sc.actors.len()],
            grain: Grain::of(sc),
        };
        for (i, a) in sc.actors.iter().enumerate() {
            if !a.ops.is_empty() {
                w.spawn(Role::Actor {
                    actor: i as u16,
                    pc: 0,
                    at: ActorAt::Ready,
                });
            }
        }
        w.n_actors = w.next_gid;
        w.refresh_ready(sc);
        w
    }

    // ----- getters ---------------------------------------------------------

    pub fn goroutine(&self, g: Gid) -> Option<&Goroutine> {
        self.goroutine_ids
            .binary_search(&g)
            .ok()
            .map(|i| &self.goroutines[i])
    }

    pub fn runner(&self, r: RunnerId) -> Option<&Runner> {
        self.runner_ids
            .binary_search(&r)
            .ok()
            .map(|i| &self.runners[i])
    }

    /// The runner stored in a queue's `working` under `pos`.
    pub fn working(&self, qi: usize, pos: PosId) -> Option<RunnerId> {
        let w = &self.queues[qi].working;
        w.binary_search_by_key(&pos, |x| x.0).ok().map(|i| w[i].1)
    }

    pub fn queue(&self, segment: i64) -> Option<&Queue> {
        self.qi(segment).map(|i| &self.queues[i])
    }

    pub fn is_closed(&self, s: SigId) -> bool {
        self.open_signals.binary_search(&s).is_err()
    }

    /// Appends the runnable choices, sorted by goroutine then case.
    pub fn runnable(&self, sc: &Scenario, out: &mut Vec<crate::sched::Choice>) {
        out.clear();
        if self.panic.is_some() {
            return;
        }
        for &(g, n) in &self.ready {
            for alt in 0..n {
                out.push(crate::sched::Choice::new(g, alt));
            }
        }
        #[cfg(debug_assertions)]
        {
            // The incremental set must equal a full scan (checked in every debug test run).
            let mut full = Vec::new();
            for g in &self.goroutines {
                for alt in 0..self.cases(sc, g) {
                    full.push(crate::sched::Choice::new(g.id, alt));
                }
            }
            assert_eq!(*out, full, "incremental runnable set went stale");
        }
        let _ = sc;
    }

    /// Recomputes the readiness of the touched goroutines.
    pub(super) fn refresh_ready(&mut self, sc: &Scenario) {
        let mut touched = std::mem::take(&mut self.touched);
        crate::order::sort_dedup_small(&mut touched);
        for &g in &touched {
            let (n, watch) = match self.goroutine(g) {
                Some(gr) => {
                    let n = self.cases(sc, gr);
                    let watch = match gr.role {
                        Role::Actor { .. } => n == 0 || contended(gr.role),
                        Role::Runner {
                            at: RunnerAt::PostTaskLock { .. },
                            ..
                        }
                        | Role::Handler {
                            at: HandlerAt::LockSticky { .. },
                            ..
                        } => true,
                        _ => false,
                    };
                    (n, watch)
                }
                None => (0, false),
            };
            self.watch(g, watch);
            match self.ready.binary_search_by_key(&g, |r| r.0) {
                Ok(i) => {
                    self.multi_case -= u32::from(self.ready[i].1 > 1);
                    if n == 0 {
                        self.ready.remove(i);
                    } else {
                        self.ready[i].1 = n;
                    }
                }
                Err(i) if n > 0 => self.ready.insert(i, (g, n)),
                Err(_) => {}
            }
            self.multi_case += u32::from(n > 1);
        }
        touched.clear();
        self.touched = touched;
    }

    pub(super) fn touch(&mut self, g: Gid) {
        self.touched.push(g);
    }

    /// Keeps goroutine `g` in `watched` (with the lock it is about to take) or out
    /// of it.
    fn watch(&mut self, g: Gid, watch: bool) {
        let at = self.watched.binary_search_by_key(&g, |w| w.0);
        if let Some(old) = at.ok().and_then(|i| self.watched[i].1) {
            if let Ok(j) = self.lock_waiters.binary_search(&(old, g)) {
                self.lock_waiters.remove(j);
            }
        }
        if !watch {
            if let Ok(i) = at {
                self.watched.remove(i);
            }
            return;
        }
        let lock = match self.goroutine(g).map(|gr| gr.role) {
            Some(Role::Actor {
                at: ActorAt::RunnerInjectMut { segment, .. },
                ..
            }) => Some(segment),
            Some(Role::Actor {
                at: ActorAt::CloseLock { queue },
                ..
            }) => Some(self.queues[queue as usize].segment),
            Some(Role::Runner {
                runner,
                at: RunnerAt::PostTaskLock { .. },
            }) => self.runner(runner).map(|r| r.segment),
            Some(Role::Handler {
                segment,
                at: HandlerAt::LockSticky { .. },
            }) => Some(segment),
            _ => None,
        };
        match at {
            Ok(i) => self.watched[i].1 = lock,
            Err(i) => self.watched.insert(i, (g, lock)),
        }
        if let Some(seg) = lock {
            if let Err(j) = self.lock_waiters.binary_search(&(seg, g)) {
                self.lock_waiters.insert(j, (seg, g));
            }
        }
    }

    /// Actors wait on many things (B7, B9, B10, B11, the notify barrier): the
    /// watched ones are re-examined (the others are ready and only their own step
    /// changes that).
    #[track_caller]
    pub(super) fn touch_actors(&mut self) {
        let actors = self.watched.partition_point(|w| w.0 < self.n_actors);
        self.touched
            .extend(self.watched.range(..actors).map(|w| w.0));
    }

    /// The actors and runners about to lock the `injectMut` of `segment`'s queue.
    pub(super) fn touch_lock_waiters(&mut self, segment: i64) {
        let from = self.lock_waiters.partition_point(|w| w.0 < segment);
        let to = self.lock_waiters.partition_point(|w| w.0 <= segment);
        self.touched
            .extend(self.lock_waiters[from..to].iter().map(|w| w.1));
    }

    /// Goroutines matching `f` (for rare events: an injectDone, a mutex hand-over).
    #[track_caller]
    pub(super) fn touch_where(&mut self, f: impl Fn(&Goroutine) -> bool) {
        for i in 0..self.goroutines.len() {
            if f(&self.goroutines[i]) {
                let g = self.goroutines[i].id;
                self.touched.push(g);
            }
        }
    }

    /// An actor at a point where another goroutine can make it block: a mutex
    /// (`injectMut`, the drop handler's), a channel others fill (`injectCh`), a
    /// runner others may remove, a handler it waits to exit.
    /// How many ready cases goroutine `g` has (0 = blocked; 2 = a select with both
    /// ready; k = close()'s Range with k queues left to visit).
    pub fn cases(&self, sc: &Scenario, g: &Goroutine) -> u32 {
        let ready = match g.role {
            Role::Actor { actor, pc, at } => return self.actor_cases(sc, g.id, actor, pc, at),
            Role::Half { .. } => true,
            Role::Runner { runner, at } => self.runner_ready(runner, at),
            Role::Handler {
                segment,
                at: HandlerAt::Select,
            } => {
                let q = self.queue(segment);
                let inj_ready = q.is_some_and(|q| !q.inject_ch.is_empty());
                let done = q
                    .and_then(|q| q.handler)
                    .is_none_or(|h| h.goroutine != g.id || h.done);
                return u32::from(inj_ready) + u32::from(done);
            }
            Role::Handler {
                at: HandlerAt::Handling { inj, .. },
                ..
            } => self.injections[inj as usize].over.receivable(),
            Role::Handler {
                segment,
                at: HandlerAt::LockSticky { .. },
            } => self.inject_mut_free(segment),
            Role::Handler {
                at: HandlerAt::WaitOldTail { old, .. },
                ..
            } => self.is_closed(old),
            Role::WaitInjected { inj } => self.injections[inj as usize].remaining == 0,
            Role::Finaliser { at } => match at {
                FinaliserAt::WaitAllFlushed => self.drop.all_flushed == AllFlushed::Closed,
                FinaliserAt::WaitTailWaiters => self.drop.tail_waiters == 0,
                FinaliserAt::Pack { next } => {
                    self.inject_mut_free(self.drop.packs[next as usize].segment)
                }
                FinaliserAt::QueueInit { .. } | FinaliserAt::DropVirtualChannel { .. } => true,
            },
            Role::TailWaiter { at, .. } => match at {
                TailAt::ReadTail => true,
                TailAt::WaitTail { sig } => sig.is_some_and(|s| self.is_closed(s)),
            },
        };
        u32::from(ready)
    }

    /// No goroutine holds the `injectMut` of the queue of `segment` across steps.
    fn inject_mut_free(&self, segment: i64) -> bool {
        self.queue(segment).is_none_or(|q| q.inject_mut.is_none())
    }

    fn actor_cases(&self, sc: &Scenario, g: Gid, actor: u16, pc: u32, at: ActorAt) -> u32 {
        let ready = match at {
            ActorAt::Ready => self.actor_ready(sc, actor, pc),
            ActorAt::NormalMode
            | ActorAt::QueueInit { .. }
            | ActorAt::DropDeleteNormal
            | ActorAt::ChainRunner { .. }
            | ActorAt::StartDroppingMake => true,
            ActorAt::RunnerInjectMut { segment, .. } => self.inject_mut_free(segment),
            ActorAt::CreateMut { segment } => {
                self.queue(segment).is_none_or(|q| q.create_mut.is_none())
            }
            ActorAt::CloseHandler { handler, .. } => self.goroutine(handler).is_none(),
            ActorAt::Inject { inj, next } => {
                let seg = sc.injections[inj as usize].segments[next as usize];
                self.queue(seg)
                    .is_none_or(|q| q.inject_ch.len() < INJECT_CH_CAP)
            }
            ActorAt::DropWait { runner } => self.runner(runner).is_some_and(|r| r.wg == 0),
            ActorAt::DropMutex { .. } => !self.drop.locked,
            ActorAt::CloseQueues => {
                return self
                    .closing_left
                    .iter()
                    .find(|c| c.0 == g)
                    .map_or(0, |c| c.1.len() as u32);
            }
            ActorAt::CloseLock { queue } => self.queues[queue as usize].inject_mut.is_none(),
        };
        u32::from(ready)
    }

    fn runner_ready(&self, runner: RunnerId, at: RunnerAt) -> bool {
        let run = self.runner(runner);
        match at {
            RunnerAt::WaitHalves => run.is_some_and(|r| r.wg == 0),
            RunnerAt::WaitStart => run
                .and_then(|r| r.start)
                .is_some_and(|s| self.is_closed(s.id)),
            RunnerAt::WaitInjectOver { inj } => self.injections[inj as usize].over.receivable(),
            RunnerAt::PostTaskLock { .. } => run.is_some_and(|r| self.inject_mut_free(r.segment)),
            RunnerAt::PostTaskDelete { .. }
            | RunnerAt::PostTaskSticky { .. }
            | RunnerAt::PostTaskApply
            | RunnerAt::SaveBinlogPaths { .. } => true,
        }
    }

    /// An actor at `Ready` can run its op at `pc`: the ops that only wait are ready
    /// when what they wait for has happened; `wait_for` ops are passed within the
    /// step of the op after them, so the actor is ready when every `wait_for` in a
    /// row is satisfied and the op after them is ready too.
    fn actor_ready(&self, sc: &Scenario, actor: u16, pc: u32) -> bool {
        let ops = &sc.actors[actor as usize].ops;
        let i = crate::scenario::past_waits(ops, pc as usize, &self.actor_done);
        match ops.get(i) {
            Some(Op::WaitFor(_)) => false,
            Some(Op::WaitInjected { inj }) => self.injections[*inj as usize].injected,
            Some(Op::WaitNotified { count }) => self.notified >= *count,
            Some(_) => true,
            // Only wait_for ops were left, and all are satisfied.
            None => i > pc as usize,
        }
    }

    // ----- names -----------------------------------------------------------

    /// A short name for a goroutine, e.g. `runner seg=2 pos=a`.
    pub fn goroutine_name(&self, sc: &Scenario, g: &Goroutine) -> String {
        match g.role {
            Role::Actor { actor, .. } => sc.actors[actor as usize].name.clone(),
            Role::Runner { runner: r, .. } => match self.runner(r) {
                Some(r) => format!("runner seg={} pos={}", r.segment, sc.pos_name(r.pos)),
                None => "runner".to_owned(),
            },
            Role::Half { runner, kind, .. } => match self.runner(runner) {
                Some(r) if r.adhoc.is_some() => {
                    format!(
                        "{} half seg={} pos={} (drop mode)",
                        kind.as_str(),
                        r.segment,
                        sc.pos_name(r.pos)
                    )
                }
                Some(r) => format!(
                    "{} half seg={} pos={}",
                    kind.as_str(),
                    r.segment,
                    sc.pos_name(r.pos)
                ),
                None => format!("{} half", kind.as_str()),
            },
            Role::Handler { segment, .. } => format!("inject handler seg={segment}"),
            Role::WaitInjected { inj } => format!("waitForInjected {}", sc.inj_name(inj)),
            Role::Finaliser { .. } => "drop finaliser".to_owned(),
            Role::TailWaiter { segment, .. } => format!("tail waiter seg={segment}"),
        }
    }

    /// Who a goroutine is, for the trace.
    pub fn who_of(&self, g: &Goroutine) -> Who {
        match g.role {
            Role::Actor { actor, .. } => Who::Actor(actor),
            Role::Runner { runner: r, .. } => self.runner(r).map_or(Who::Gone, |r| Who::Runner {
                segment: r.segment,
                pos: r.pos,
            }),
            Role::Half { runner, kind, .. } => {
                self.runner(runner).map_or(Who::Gone, |r| Who::Half {
                    segment: r.segment,
                    pos: r.pos,
                    kind,
                    adhoc: r.adhoc.is_some(),
                })
            }
            Role::Handler { segment, .. } => Who::Handler { segment },
            Role::WaitInjected { inj } => Who::WaitInjected(inj),
            Role::Finaliser { .. } => Who::Finaliser,
            Role::TailWaiter { segment, .. } => Who::TailWaiter { segment },
        }
    }

    // ----- internal helpers used by step -----------------------------------

    pub(super) fn spawn(&mut self, role: Role) -> Gid {
        let id = self.next_gid;
        self.next_gid += 1;
        // The `go` statement: what came before it in this step is before the goroutine.
        self.sync(crate::engine::GO, id.into(), true);
        self.goroutines.push_back(Goroutine { id, role });
        self.goroutine_ids.push_back(id);
        self.touched.push(id);
        if matches!(role, Role::Finaliser { .. }) {
            self.finaliser = Some(id);
        }
        id
    }

    /// Goroutine `g` now is (and stands at) `role`.
    pub(super) fn set_role(&mut self, g: Gid, role: Role) {
        let i = self.gi(g);
        self.goroutines[i].role = role;
    }

    pub(super) fn new_signal(&mut self, open: bool) -> SigId {
        let id = self.next_sig;
        self.next_sig += 1;
        // Signal ids are given in step order.
        self.footprint
            .order(super::footprint::obj::NEXT_SIG, (0, 0));
        if open {
            self.open_signals.push(id); // ids grow, so the vector stays sorted
        } else {
            // fm:115-116: made and closed at once.
            self.sync(super::footprint::obj::CHAN, id.into(), true);
        }
        id
    }

    pub(super) fn close_signal(&mut self, s: SigId) {
        self.sync(super::footprint::obj::CHAN, s.into(), true);
        if let Ok(i) = self.open_signals.binary_search(&s) {
            self.open_signals.remove(i);
        }
        let from = self.sig_waiters.partition_point(|w| w.0 < s);
        let to = self.sig_waiters.partition_point(|w| w.0 <= s);
        for (_, g) in self.sig_waiters.drain(from..to) {
            self.touched.push(g);
        }
    }

    /// `g` waits for signal `s` to close (a runner at B2, a tail waiter at B13).
    pub(super) fn wait_signal(&mut self, s: SigId, g: Gid) {
        // Whether this step blocks here depends on the close of `s`.
        self.footprint
            .order(super::footprint::obj::CHAN, (i64::from(s), 0));
        if !self.is_closed(s) {
            let at = self.sig_waiters.partition_point(|w| w.0 <= s);
            self.sig_waiters.insert(at, (s, g));
        }
    }

    pub(super) fn gi(&self, g: Gid) -> usize {
        self.goroutine_ids
            .binary_search(&g)
            .expect("live goroutine")
    }

    pub(super) fn ri(&self, r: RunnerId) -> usize {
        self.runner_ids.binary_search(&r).expect("live runner")
    }

    /// The Replica's entry for `segment` (the Replica is sorted by segment).
    pub(super) fn replica_mut(&mut self, segment: i64) -> Option<&mut ReplicaSeg> {
        let i = self
            .replica
            .binary_search_by_key(&segment, |s| s.segment)
            .ok()?;
        Some(&mut self.replica[i])
    }

    /// Queue `qi`, to change what the per-step invariant check reads.
    pub(super) fn queue_mut(&mut self, qi: usize) -> &mut Queue {
        self.dirty_queues.push(qi as u32);
        &mut self.queues[qi]
    }

    pub(super) fn qi(&self, segment: i64) -> Option<usize> {
        self.queue_index
            .binary_search_by_key(&segment, |e| e.0)
            .ok()
            .map(|i| self.queue_index[i].1 as usize)
    }
}

/// Who ran a step (captured before the step, since runners leave the world).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Actor(u16),
    Runner {
        segment: i64,
        pos: PosId,
    },
    Half {
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        adhoc: bool,
    },
    Handler {
        segment: i64,
    },
    WaitInjected(InjId),
    Finaliser,
    TailWaiter {
        segment: i64,
    },
    Gone,
}

/// An actor at a point where another goroutine can make it block (a mutex such as
/// `injectMut` or the drop handler's, an `injectCh` others fill, a runner others may
/// remove, a handler it waits on): it is watched even while ready.
fn contended(role: Role) -> bool {
    matches!(
        role,
        Role::Actor {
            at: ActorAt::RunnerInjectMut { .. }
                | ActorAt::CreateMut { .. }
                | ActorAt::CloseLock { .. }
                | ActorAt::Inject { .. }
                | ActorAt::DropMutex { .. }
                | ActorAt::DropWait { .. }
                | ActorAt::CloseHandler { .. }
                | ActorAt::CloseQueues,
            ..
        }
    )
}

#[cfg(test)]
mod tests {
    /// A world copied over any other (as the explorer copies a parent over a
    /// sibling or a spare) is that world, whatever the lengths of its lists:
    /// over every pair of the first reachable worlds of each built-in.
    #[test]
    fn a_copy_over_any_world_is_the_world_copied() {
        let mut checked = 0;
        for name in crate::builtin::names() {
            if name.starts_with("pairs") {
                continue;
            }
            if let Some(crate::AnyScenario::Flush(sc)) = crate::builtin::get(name) {
                checked += crate::engine::copy_each_over_each(&*sc, 120, |_, _| {});
            }
        }
        assert!(checked > 100_000, "only {checked} pairs");
    }
}
