//! The 2021 flush manager (`internal/datanode/flush_manager.go` and
//! `flush_task.go` at `891c202b73`), as a deterministic step machine.
//!
//! Every goroutine of the Go code is a [`Goroutine`] whose [`At`] names the
//! blocking point it stands at (B1–B14 of MODEL.md §1.3). A step runs one
//! goroutine past one blocking point and on to the next; [`World::step`] is the
//! only mutator. Go channels that are only ever closed are signals (an id that is
//! open until closed); `injectCh` is a FIFO; `injectOver` is [`Over`].

mod event;
pub mod setup;
mod step;
pub mod view;

pub use event::{Ev, NamedPack, Violation};
pub use setup::{
    Faults, InjId, Injection, Op, PosId, ReplicaSegment, ReplicaState, Scenario, FORMAT,
    INJECT_CH_CAP, RETRY_ATTEMPTS,
};
pub use step::{retry_sleep_ms, Rpc, TailSeen};

use std::collections::VecDeque;

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

/// `flushTaskRunner`: lives from `getFlushTaskRunner` (or a drop-mode
/// `handleXTask`) until its pack is notified (or appended to the drop packs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Runner {
    pub id: RunnerId,
    pub segment: i64,
    /// The MsgID it is keyed by in `working` (normal mode) or flushes (drop mode).
    pub pos: PosId,
    /// Creation order within its queue (normal mode): the order of `working.LoadOrStore`.
    pub seq: u32,
    /// Place in the queue's tail chain, once `init` ran under `tailMut` (normal mode).
    pub chain: Option<u32>,
    /// The actor ops that gave it a half in normal mode: (actor, op index). The
    /// per-enqueuer FIFO check compares these program orders.
    pub feeders: Vec<(u16, u32)>,
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
    /// Segments whose queue took it (`injectOne`), in order.
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    pub tails_read: Vec<(i64, u32)>,
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

/// What a goroutine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A scenario actor running its ops; `pc` is the op it is at.
    Actor { actor: u16, pc: u32 },
    /// `flushTaskRunner.waitFinish`.
    Runner(RunnerId),
    /// The goroutine `runFlushInsert`/`runFlushDel` spawns around `retry.Do`.
    Half {
        runner: RunnerId,
        kind: HalfKind,
        fail: u8,
    },
    /// `injectHandler.handleInjection` of the queue of `segment`.
    Handler { segment: i64 },
    /// `taskInjection.waitForInjected`.
    WaitInjected(InjId),
    /// The goroutine `startDropping` spawns.
    Finaliser,
    /// One of the goroutines `waitForAllFlushQueue` starts per queue: it reads the
    /// queue's `tailCh` when it runs and waits for it (flush_manager.go:477-480).
    TailWaiter { segment: i64 },
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

/// The point a goroutine stands at: where Go may block, or be preempted between two
/// accesses to state another goroutine shares (ARCHITECTURE.md, "granularity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum At {
    /// Actor: before its op at `pc` (ops that only wait block here: B9, wait_notified,
    /// wait_for).
    Ready,
    /// Actor: `m.dropping.Load()` returned false (normal mode); `getFlushQueue` next.
    NormalMode,
    /// `dispatcher.LoadOrStore` stored a new queue; `queue.init()` (sync.Once) next.
    /// `resume`: for a flush op 0 = normal path, 1 = drop-mode delete; for `inject`
    /// the segment index; for the finaliser the pack index.
    QueueInit { segment: i64, resume: u32 },
    /// Drop-mode `handleDeleteTask`: `working.Load(pos)` found the runner; the normal
    /// path (`enqueueDelFlush` → `getFlushTaskRunner`) next.
    DropDeleteNormal,
    /// `working.LoadOrStore` stored `runner`; `q.injectMut.Lock()` next (blocks while held).
    RunnerInjectMut { segment: i64, runner: RunnerId },
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
    /// Half: about to make attempt `n` (1-based).
    Attempt { n: u8 },
    /// B4: the retry sleep after failed attempt `n`.
    RetrySleep { n: u8 },
    /// B1: `t.Wait()` for both halves.
    WaitHalves,
    /// B2: `<-t.startSignal`.
    WaitStart,
    /// B3: `<-injection.injectOver` in `waitFinish`.
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
    /// B5: `select` on `injectCh` / `done`.
    Select,
    /// B6: `<-inject.injectOver` in the handler; `done` is its `injectDone` signal.
    Handling { inj: InjId, done: SigId },
    /// B8: `ti.wg.Wait()`.
    WaitInjectOne,
    /// B12: `<-allFlushed`.
    WaitAllFlushed,
    /// B13: `waitForAllFlushQueue`'s `wg.Wait()` for its per-queue waiters.
    WaitTailWaiters,
    /// Finaliser, holding `dropHandler`'s mutex: pack `next`'s queue's
    /// `injectMut` and `postInjection` next.
    FinaliserPack { next: u32 },
    /// B14: `dropVirtualChannelFunc`, `DropVirtualChannel` attempt `n` next (`n = 1`
    /// also calls `flushAndDrop` and builds the request); `n` past the last attempt:
    /// the sleep after the last failure, then the panic.
    DropVirtualChannel { n: u8 },
    /// Tail waiter: `<-queue.tailCh` next (it reads the field when it runs).
    ReadTail,
    /// Tail waiter: blocked on the tail it read (`None`: a nil channel, forever).
    WaitTail { sig: Option<SigId> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Goroutine {
    pub id: Gid,
    pub role: Role,
    pub at: At,
}

/// A Go panic: the process would exit here.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoPanic {
    pub goroutine: Gid,
    pub message: String,
}

/// The whole state of a flush-2021 run. Small, `Clone + Eq + Hash`: finished
/// goroutines and notified runners leave it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct World {
    /// Live goroutines, sorted by id. A deque: the goroutines that finish are mostly
    /// the newest (halves) or the oldest runners, so removal moves few elements.
    pub goroutines: VecDeque<Goroutine>,
    /// Live runners, sorted by id; they finish roughly oldest first.
    pub runners: VecDeque<Runner>,
    /// The ids of `goroutines` and `runners`, kept in step: searching 4-byte ids is
    /// what keeps a step cheap when hundreds of goroutines are alive.
    goroutine_ids: VecDeque<Gid>,
    runner_ids: VecDeque<RunnerId>,
    /// Queues in creation order (the dispatcher).
    pub queues: Vec<Queue>,
    pub injections: Vec<TaskInjection>,
    pub drop: DropState,
    /// Sorted by segment id.
    pub replica: Vec<ReplicaSeg>,
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
    next_gid: Gid,
    next_runner: RunnerId,
    next_sig: SigId,
    /// Runnable goroutines with their ready-case counts, sorted: kept up to date
    /// incrementally (see `touch`), so a step costs no scan of every goroutine.
    ready: Vec<(Gid, u32)>,
    /// How many entries of `ready` have more than one ready case (a `select`, or
    /// `close()`'s Range choosing its next queue).
    multi_case: u32,
    /// Per goroutine in the manager's `close()`: the queues (dispatcher indices) its
    /// `Range` has not visited yet.
    pub closing_left: Vec<(Gid, Vec<u32>)>,
    /// Open signals with the goroutines waiting on each (runners at B2, tail waiters),
    /// sorted by signal.
    sig_waiters: Vec<(SigId, Gid)>,
    /// Goroutines whose readiness the current step may have changed.
    touched: Vec<Gid>,
    /// Actors are goroutines `0..n_actors`.
    n_actors: u32,
    finaliser: Option<Gid>,
    /// Some actor has a `wait_notified` op (so a notify may wake an actor).
    waits_notified: bool,
    /// Ops each actor has returned from (indexed by actor): what `wait_for` waits on.
    actor_done: Vec<u32>,
    /// Where this scenario needs preemption points that others do not (see [`Grain`]).
    grain: Grain,
}

/// Preemption points that matter only when some goroutine of the scenario can touch
/// the state in between. Where none can, the two accesses are one step: no
/// schedule is lost, and the trace stays short (ARCHITECTURE.md, "granularity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Grain {
    /// `dropping.Load()` is its own step while a `start_dropping` can still run: a
    /// flush that read false may reach its queue after drop mode began. Without a
    /// `start_dropping` op the flag never changes and the read is not a point.
    mode_read: bool,
    /// `dispatcher.LoadOrStore` and `queue.init()` are two steps when something
    /// ranges over the dispatcher (the drop finaliser, `close()`): it can see a queue
    /// whose `tailCh` is still nil.
    queue_init: bool,
    /// `working.Delete` in `postTask` is its own step when some (segment, position)
    /// gets a half twice: another goroutine may then look the MsgID up in between.
    post_task_delete: bool,
    /// Some actor waits for another's op (`wait_for`).
    waits_for: bool,
}

impl Grain {
    fn of(sc: &Scenario) -> Grain {
                let ops = || sc.actors.iter().flat_map(|a| &a.ops);
        let mut halves = std::collections::BTreeSet::new();
        let mut dup = false;
        for op in ops() {
            let key = match *op {
                Op::FlushInsert { segment, pos, .. } => (segment, pos, HalfKind::Insert),
                Op::FlushDelete { segment, pos, .. } => (segment, pos, HalfKind::Delete),
                _ => continue,
            };
            dup |= !halves.insert(key);
        }
        let has = |f: fn(&Op) -> bool| ops().any(f);
        let drops = has(|o| matches!(o, Op::StartDropping));
        Grain {
            mode_read: drops,
            queue_init: drops || has(|o| matches!(o, Op::Close)),
            post_task_delete: dup,
            waits_for: has(|o| matches!(o, Op::WaitFor(_))),
        }
    }
}

impl World {
    pub fn new(sc: &Scenario) -> World {
        let mut replica: Vec<ReplicaSeg> = sc
            .replica
            .iter()
            .map(|r| ReplicaSeg {
                segment: r.segment,
                state: r.state,
                rows: r.rows,
                checkpoint: None,
            })
            .collect();
        if sc.replica.is_empty() {
            // Without a declared replica, every flushed segment starts as a new one.
            let segs: std::collections::BTreeSet<i64> = sc
                .actors
                .iter()
                .flat_map(|a| a.ops.iter())
                .filter_map(|op| match op {
                    Op::FlushInsert { segment, .. }
                    | Op::FlushDelete { segment, .. } => Some(*segment),
                    _ => None,
                })
                .collect();
            replica = segs
                .into_iter()
                .map(|segment| ReplicaSeg {
                    segment,
                    state: ReplicaState::New,
                    rows: 0,
                    checkpoint: None,
                })
                .collect();
        }
        let mut w = World {
            goroutines: VecDeque::new(),
            runners: VecDeque::new(),
            goroutine_ids: VecDeque::new(),
            runner_ids: VecDeque::new(),
            queues: Vec::new(),
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
            ready: Vec::new(),
            multi_case: 0,
            closing_left: Vec::new(),
            sig_waiters: Vec::new(),
            touched: Vec::new(),
            n_actors: 0,
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
                w.spawn(
                    Role::Actor {
                        actor: i as u16,
                        pc: 0,
                    },
                    At::Ready,
                );
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
        self.queues.iter().find(|q| q.segment == segment)
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
    fn refresh_ready(&mut self, sc: &Scenario) {
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for &g in &touched {
            let n = match self.goroutine(g) {
                Some(gr) => self.cases(sc, gr),
                None => 0,
            };
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

    fn touch(&mut self, g: Gid) {
        self.touched.push(g);
    }

    /// Actors wait on many things (B7, B9, B10, B11, injectMut, the notify barrier).
    fn touch_actors(&mut self) {
        for g in 0..self.n_actors {
            self.touched.push(g);
        }
    }

    /// Goroutines matching `f` (for rare events: an injectDone, a mutex hand-over).
    fn touch_where(&mut self, f: impl Fn(&Goroutine) -> bool) {
        for i in 0..self.goroutines.len() {
            if f(&self.goroutines[i]) {
                let g = self.goroutines[i].id;
                self.touched.push(g);
            }
        }
    }

    /// How many ready cases goroutine `g` has (0 = blocked; 2 = a select with both
    /// ready; k = close()'s Range with k queues left to visit).
    pub fn cases(&self, sc: &Scenario, g: &Goroutine) -> u32 {
        let mut_free = |segment: i64| self.queue(segment).is_none_or(|q| q.inject_mut.is_none());
        let ready = match (&g.role, &g.at) {
            (Role::Actor { actor, pc }, At::Ready) => self.actor_ready(sc, *actor, *pc),
            (
                _,
                At::NormalMode
                | At::QueueInit { .. }
                | At::DropDeleteNormal
                | At::ChainRunner { .. }
                | At::StartDroppingMake
                | At::Attempt { .. }
                | At::RetrySleep { .. }
                | At::PostTaskDelete { .. }
                | At::PostTaskSticky { .. }
                | At::PostTaskApply
                | At::SaveBinlogPaths { .. }
                | At::DropVirtualChannel { .. }
                | At::ReadTail,
            ) => true,
            (_, At::RunnerInjectMut { segment, .. }) => mut_free(*segment),
            (_, At::CloseHandler { handler, .. }) => self.goroutine(*handler).is_none(),
            (_, At::Inject { inj, next }) => {
                let seg = sc.injections[*inj as usize].segments[*next as usize];
                self.queue(seg)
                    .is_none_or(|q| q.inject_ch.len() < INJECT_CH_CAP)
            }
            (_, At::DropWait { runner }) => self.runner(*runner).is_some_and(|r| r.wg == 0),
            (_, At::DropMutex { .. }) => !self.drop.locked,
            (_, At::CloseQueues) => {
                return self
                    .closing_left
                    .iter()
                    .find(|c| c.0 == g.id)
                    .map_or(0, |c| c.1.len() as u32);
            }
            (_, At::CloseLock { queue }) => self.queues[*queue as usize].inject_mut.is_none(),
            (Role::Runner(r), At::WaitHalves) => self.runner(*r).is_some_and(|r| r.wg == 0),
            (Role::Runner(r), At::WaitStart) => self
                .runner(*r)
                .and_then(|r| r.start)
                .is_some_and(|s| self.is_closed(s.id)),
            (_, At::WaitInjectOver { inj } | At::Handling { inj, .. }) => {
                self.injections[*inj as usize].over.receivable()
            }
            (Role::Runner(r), At::PostTaskLock { .. }) => {
                self.runner(*r).is_some_and(|r| mut_free(r.segment))
            }
            (Role::Handler { segment }, At::Select) => {
                let q = self.queue(*segment);
                let inj_ready = q.is_some_and(|q| !q.inject_ch.is_empty());
                let done = q
                    .and_then(|q| q.handler)
                    .is_none_or(|h| h.goroutine != g.id || h.done);
                return u32::from(inj_ready) + u32::from(done);
            }
            (Role::WaitInjected(inj), At::WaitInjectOne) => {
                self.injections[*inj as usize].remaining == 0
            }
            (_, At::WaitAllFlushed) => self.drop.all_flushed == AllFlushed::Closed,
            (_, At::WaitTailWaiters) => self.drop.tail_waiters == 0,
            (_, At::FinaliserPack { next }) => mut_free(self.drop.packs[*next as usize].segment),
            (_, At::WaitTail { sig }) => sig.is_some_and(|s| self.is_closed(s)),
            _ => false,
        };
        u32::from(ready)
    }

    /// An actor at `Ready` can run its op at `pc`: the ops that only wait are ready
    /// when what they wait for has happened; `wait_for` ops are passed within the
    /// step of the op after them, so the actor is ready when every `wait_for` in a
    /// row is satisfied and the op after them is ready too.
    fn actor_ready(&self, sc: &Scenario, actor: u16, pc: u32) -> bool {
                let ops = &sc.actors[actor as usize].ops;
        let mut i = pc as usize;
        loop {
            return match ops.get(i) {
                Some(Op::WaitFor(crate::scenario::WaitFor { actor, index })) => {
                    if self.actor_done[*actor as usize] <= *index {
                        false
                    } else {
                        i += 1;
                        continue;
                    }
                }
                Some(Op::WaitInjected { inj }) => self.injections[*inj as usize].injected,
                Some(Op::WaitNotified { count }) => self.notified >= *count,
                Some(_) => true,
                // Only wait_for ops were left, and all are satisfied.
                None => i > pc as usize,
            };
        }
    }

    // ----- names -----------------------------------------------------------

    /// A short name for a goroutine, e.g. `runner seg=2 pos=a`.
    pub fn goroutine_name(&self, sc: &Scenario, g: &Goroutine) -> String {
        match g.role {
            Role::Actor { actor, .. } => sc.actors[actor as usize].name.clone(),
            Role::Runner(r) => match self.runner(r) {
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
            Role::Handler { segment } => format!("inject handler seg={segment}"),
            Role::WaitInjected(inj) => format!("waitForInjected {}", sc.inj_name(inj)),
            Role::Finaliser => "drop finaliser".to_owned(),
            Role::TailWaiter { segment } => format!("tail waiter seg={segment}"),
        }
    }

    /// Who a goroutine is, for the trace.
    pub fn who_of(&self, g: &Goroutine) -> Who {
        match g.role {
            Role::Actor { actor, .. } => Who::Actor(actor),
            Role::Runner(r) => self.runner(r).map_or(Who::Gone, |r| Who::Runner {
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
            Role::Handler { segment } => Who::Handler { segment },
            Role::WaitInjected(i) => Who::WaitInjected(i),
            Role::Finaliser => Who::Finaliser,
            Role::TailWaiter { segment } => Who::TailWaiter { segment },
        }
    }

    /// What a goroutine waits on, in words, with the Go function it sits in.
    pub fn waits_on(&self, sc: &Scenario, g: &Goroutine) -> (String, &'static str) {
        event::waits_on(self, sc, g)
    }

    // ----- internal helpers used by step -----------------------------------

    fn spawn(&mut self, role: Role, at: At) -> Gid {
        let id = self.next_gid;
        self.next_gid += 1;
        self.goroutines.push_back(Goroutine { id, role, at });
        self.goroutine_ids.push_back(id);
        self.touched.push(id);
        if role == Role::Finaliser {
            self.finaliser = Some(id);
        }
        id
    }

    fn new_signal(&mut self, open: bool) -> SigId {
        let id = self.next_sig;
        self.next_sig += 1;
        if open {
            self.open_signals.push(id); // ids grow, so the vector stays sorted
        }
        id
    }

    fn close_signal(&mut self, s: SigId) {
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
    fn wait_signal(&mut self, s: SigId, g: Gid) {
        if !self.is_closed(s) {
            let at = self.sig_waiters.partition_point(|w| w.0 <= s);
            self.sig_waiters.insert(at, (s, g));
        }
    }

    fn gi(&self, g: Gid) -> usize {
        self.goroutine_ids
            .binary_search(&g)
            .expect("live goroutine")
    }

    fn ri(&self, r: RunnerId) -> usize {
        self.runner_ids.binary_search(&r).expect("live runner")
    }

    fn qi(&self, segment: i64) -> Option<usize> {
        self.queues.iter().position(|q| q.segment == segment)
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

impl crate::engine::Model for Scenario {
    type State = World;
    type Fact = Ev;
    type Who = Who;

    fn header(&self) -> &crate::scenario::Header {
        &self.head
    }
    fn header_mut(&mut self) -> &mut crate::scenario::Header {
        &mut self.head
    }
    fn set_version(&mut self, id: &str) -> Result<(), String> {
        Err(format!(
            "flush-2021 is fixed at {} and has no other version (asked for \"{}\")",
            setup::COMMIT,
            crate::scenario::json::short(id)
        ))
    }
    fn init(&self) -> World {
        World::new(self)
    }
    fn runnable(&self, s: &World, out: &mut Vec<crate::sched::Choice>) {
        s.runnable(self, out)
    }
    fn runnable_len(&self, s: &World) -> u32 {
        if s.panic.is_some() {
            return 0;
        }
        let n = if s.multi_case == 0 {
            s.ready.len() as u32
        } else {
            s.ready.iter().map(|r| r.1).sum()
        };
        #[cfg(debug_assertions)]
        {
            // `runnable` cross-checks the incremental set against a full scan.
            let mut v = Vec::new();
            s.runnable(self, &mut v);
            assert_eq!(v.len() as u32, n);
        }
        n
    }
    fn runnable_at(&self, s: &World, i: u32) -> crate::sched::Choice {
        if s.multi_case == 0 {
            return crate::sched::Choice::new(s.ready[i as usize].0, 0);
        }
        let mut left = i;
        for &(g, n) in &s.ready {
            if left < n {
                return crate::sched::Choice::new(g, left);
            }
            left -= n;
        }
        unreachable!("runnable_at beyond runnable_len")
    }
    fn step(&self, s: &mut World, c: crate::sched::Choice, ev: &mut Vec<Ev>) -> Who {
        s.step(self, c, ev)
    }
    fn who_name(&self, who: &Who) -> String {
        let sc = self;
        match *who {
            Who::Actor(a) => sc.actors[a as usize].name.clone(),
            Who::Runner { segment, pos } => {
                format!("runner seg={segment} pos={}", sc.pos_name(pos))
            }
            Who::Half {
                segment,
                pos,
                kind,
                adhoc,
            } => format!(
                "{} half seg={segment} pos={}{}",
                kind.as_str(),
                sc.pos_name(pos),
                if adhoc { " (drop mode)" } else { "" }
            ),
            Who::Handler { segment } => format!("inject handler seg={segment}"),
            Who::WaitInjected(i) => format!("waitForInjected {}", sc.inj_name(i)),
            Who::Finaliser => "drop finaliser".to_owned(),
            Who::TailWaiter { segment } => format!("tail waiter seg={segment}"),
            Who::Gone => "?".to_owned(),
        }
    }
    fn go_panic<'s>(&self, s: &'s World) -> Option<(u32, &'s str)> {
        s.panic.as_ref().map(|p| (p.goroutine, p.message.as_str()))
    }
    fn violations(&self, s: &World) -> Vec<crate::engine::Violation> {
        s.violations
            .iter()
            .map(|v| crate::engine::Violation {
                id: v.name(),
                message: v.describe(self),
            })
            .collect()
    }
    fn goroutine_ids(&self, s: &World) -> Vec<u32> {
        s.goroutines.iter().map(|g| g.id).collect()
    }
    fn describe(&self, s: &World, g: u32) -> Option<crate::engine::GoroutineView> {
        let g = s.goroutine(g)?;
        let (waits_on, go) = s.waits_on(self, g);
        Some(crate::engine::GoroutineView {
            id: g.id,
            name: s.goroutine_name(self, g),
            waits_on,
            go,
            // Go leaves an idle inject handler in its select: not a deadlock.
            idle: matches!((&g.role, &g.at), (Role::Handler { .. }, At::Select)),
        })
    }
    fn choice_label(&self, s: &World, c: crate::sched::Choice) -> String {
        let Some(g) = s.goroutine(c.g) else {
            return "run".to_owned();
        };
        match g.at {
            At::Select if s.cases(self, g) == 2 => {
                if c.alt == 0 {
                    "take the injection (case 0)".to_owned()
                } else {
                    "return on done (case 1)".to_owned()
                }
            }
            At::CloseQueues => s
                .closing_left
                .iter()
                .find(|x| x.0 == g.id)
                .and_then(|x| x.1.get(c.alt as usize))
                .map_or("run".to_owned(), |q| {
                    format!("Range visits queue {} next", s.queues[*q as usize].segment)
                }),
            _ => "run".to_owned(),
        }
    }
    fn fact_go(&self, ev: &Ev) -> &'static str {
        ev.go_fn()
    }
    fn fact_words(&self, ev: &Ev, out: &mut String) {
        ev.render(self, out)
    }
    fn fact_kind(&self, ev: &Ev) -> crate::engine::FactKind {
        match ev {
            Ev::Invariant(_) => crate::engine::FactKind::Violation,
            Ev::GoPanic { .. } => crate::engine::FactKind::Panic,
            _ => crate::engine::FactKind::Plain,
        }
    }
}
