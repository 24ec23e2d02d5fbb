//! The sync-2024 state: the metacache, the write buffer, datacoord's meta, and
//! every goroutine with the point it stands at. Only the step modules change it.

use super::facts::Violation;
use super::knobs::{DcSeg, Knobs};
use super::setup::{Level, Op, Scenario, SegState, Version};
use super::MetaCache;
use crate::shared::Shared;

pub type Gid = u32;

/// A list a goroutine's role holds and never changes (a request's segments, a
/// task's start positions): shared, so that the explorer's copy of a world per
/// transition copies no list (an `Arc` compares and hashes as its contents).
pub type Ids<T = i64> = std::sync::Arc<[T]>;

/// One `datapb.SyncSegmentInfo` of a request.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReqSeg {
    pub segment: i64,
    pub state: SegState,
    pub level: Level,
    pub rows: i64,
    /// `PkStatsLog != nil`.
    pub statslog: bool,
}

/// `datapb.SyncSegmentsRequest` for one partition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncRequest {
    pub partition: i64,
    /// `SegmentInfos`, sorted by id.
    pub segments: Ids<ReqSeg>,
}

impl SyncRequest {
    /// The request's entry for segment `id` (its segments are sorted by id).
    pub fn get(&self, id: i64) -> Option<&ReqSeg> {
        self.segments
            .binary_search_by_key(&id, |s| s.segment)
            .ok()
            .map(|i| &self.segments[i])
    }
}

/// One segment's insert buffer in the write buffer (`writeBufferBase.buffers`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SegBuf {
    pub segment: i64,
    /// Rows really buffered.
    pub rows: i64,
    /// Rows of the last chunk (insert op): what getSyncTask takes as `batchSize`
    /// (write_buffer.go:589-591 assigns it per chunk instead of adding).
    pub last_chunk: i64,
    /// `insertBuffer.rows` as Go counts it: every chunk twice (insert_buffer.go:110
    /// in `buffer`, :128 in `Buffer`); `UpdateBufferedRows` reports this.
    pub counted: i64,
}

/// A `SyncTask` built by `getSyncTask`/`EncodeBuffer`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncTask {
    /// Submission number (1, 2, ...), for names.
    pub n: u32,
    pub segment: i64,
    pub partition: i64,
    pub level: Level,
    /// `batchSize` as getSyncTask computes it: the rows of the buffer's last chunk.
    pub batch: i64,
    /// Rows the task really writes (every chunk of the yielded buffer).
    pub rows: i64,
    pub is_flush: bool,
    pub is_drop: bool,
    /// Set when the #34018 invariant has been reported for this task.
    pub reported_absent: bool,
}

/// A goroutine of the model: what it is and the point it stands at, typed per role.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A scenario actor (the flow graph's write buffer, datacoord's scheduler).
    Actor { actor: u16, pc: u32, at: ActorAt },
    /// A submitted sync task running in the sync manager's pool.
    Task { task: SyncTask, at: TaskAt },
    /// `DataNode.SyncSegments` serving one request.
    Handler { req: SyncRequest, at: HandlerAt },
    /// Datacoord's flush loop (`startFlushLoop`) in `<-flushCh`: receives flushed
    /// segment ids and runs `postFlush` for each. It lives while ids are queued.
    FlushLoop,
}

/// Where an actor stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ActorAt {
    /// Before its op at `pc`.
    Ready,
    /// In `bufferInsert`: `GetSegmentByID` found nothing; `AddSegment` next.
    InsertAdd {
        segment: i64,
        partition: i64,
        rows: i64,
    },
    /// In the write buffer's `triggerSync`: the sealed policy moved the segment to
    /// Flushing, or the segment synced before it is done and this one is the
    /// next it picked; `getSyncTask`'s `GetSegmentByID` next.
    GetSyncTask { segment: i64 },
    /// In `getSyncTask` → `EncodeBuffer` of a flush of a non-L0 segment: the buffer is
    /// yielded; `serializeMergedPkStats`'s `GetSegmentByID` next.
    MergedStats(SyncTask),
    /// In `seal`: datacoord has sealed the segment; the datanode's `sealSegments`
    /// (from its FlushSegments RPC) next.
    SealDatanode { segment: i64 },
    /// In `keyLockDispatcher.Submit` → `keyLock.Lock(segment)`, held by an earlier task.
    KeyLock(SyncTask),
    /// Datacoord in `sessions.SyncSegments`, waiting for the handler `handler`.
    SyncSegmentsRpc { handler: Gid, selected: Ids },
    /// Datacoord in the first attempt of a `"retried"` op (`retry.Do`'s closure
    /// under its 10 s deadline, session_manager.go:240-250@ca7ef26e4b): the
    /// deadline passes next, whatever `handler` (serving that attempt) does.
    /// `req` is the one request object the scheduler built: the retry sends it
    /// again.
    SyncSegmentsDeadline {
        handler: Gid,
        req: SyncRequest,
        selected: Ids,
    },
}

/// Whether an actor standing at `at` is inside the write buffer's
/// `BufferData`, which holds `wb.mut` for the whole message
/// (l0_write_buffer.go:141-143 and bf_write_buffer.go:89-91, the same lines at
/// all six commits): in `bufferInsert` between its lookup and `AddSegment`, or in
/// `triggerSync` → `syncSegments` (getSyncTask, EncodeBuffer, and SyncData
/// waiting for a key lock). One channel has one flow graph and one write
/// buffer, so a scenario's actors take turns there as one flow graph takes its
/// messages in turn.
pub(super) fn holds_wb(at: &ActorAt) -> bool {
    matches!(
        at,
        ActorAt::InsertAdd { .. }
            | ActorAt::GetSyncTask { .. }
            | ActorAt::MergedStats(_)
            | ActorAt::KeyLock(_)
    )
}

/// Where a sync task stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TaskAt {
    /// Submitted, `Run` not started.
    RunStart,
    /// `writeLogs` (MultiWrite to object storage) in flight.
    WriteLogs,
    /// `SaveBinlogPaths` to datacoord in flight (in `brokerMetaWriter.UpdateSync`).
    SaveBinlogPaths {
        checkpoint_rows: i64,
        start_pos: Ids,
    },
    /// SaveBinlogPaths returned; `SetStartPosRecorded`, then `Run`'s
    /// `FinishSyncing` (and Flushed for a flush) next.
    FinishSyncing { start_pos: Ids },
}

/// Where the datanode's SyncSegments handler stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HandlerAt {
    /// The RPC has arrived.
    Receive,
    /// Loading PK stats of missing segments (`conc.AwaitAll` on the stats pool).
    LoadStats { load: Ids },
    /// At `at`, serving an attempt datacoord made under a deadline (a
    /// `"retried"` op's first attempt); `ctx_done` once the deadline has passed
    /// (gRPC cancels the handler's ctx with the client's deadline).
    Attempt { at: Box<HandlerAt>, ctx_done: bool },
    /// Inside [`HandlerAt::Attempt`] only: `conc.AwaitAll` returned, the PK
    /// stats of `load` read while the ctx was live; `UpdateSegmentView` next,
    /// which reads no ctx (services.go:337-346@ca7ef26e4b), so the deadline may
    /// pass before it. Without a deadline nothing reads the ctx, so loading
    /// and applying are one step (the load touches nothing another goroutine
    /// does: it commutes with every step between).
    Apply { load: Ids },
}

pub struct Goroutine {
    pub id: Gid,
    /// What it is and where it stands. Changed only through [`World::set_role`] or
    /// [`World::role_mut`], which keep `key` its hash and give it a new `stamp`.
    pub role: Role,
    /// A hash of `role` without the ids it holds ([`super::ids::role_key`]),
    /// kept with it: the explorer fingerprints a world per transition, and a step
    /// changes the role of one goroutine or two.
    pub(super) key: u64,
    /// A name for this value of `role`, new each time it is written and kept
    /// by copies ([`new_stamp`]): equal stamps, equal roles. The explorer copies
    /// a world into one holding a sibling per transition, and most roles there
    /// are the same value: one comparison of stamps instead of the roles.
    stamp: u64,
}

/// A stamp no role has had in this process: a count of this thread's, under
/// a number of its own (no two threads of a search meet on one counter).
fn new_stamp() -> u64 {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};
    static THREADS: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static NEXT: Cell<u64> = const { Cell::new(0) };
    }
    NEXT.with(|next| {
        let mut n = next.get();
        // Each thread counts within 2^40 stamps of its own; at the end of them
        // (or at first) it takes the next block.
        if n & ((1 << 40) - 1) == 0 {
            n = (THREADS.fetch_add(1, Ordering::Relaxed) + 1) << 40;
        }
        next.set(n + 1);
        n
    })
}

impl Goroutine {
    pub(super) fn new(id: Gid, role: Role) -> Goroutine {
        let key = super::ids::role_key(&role);
        Goroutine {
            id,
            role,
            key,
            stamp: new_stamp(),
        }
    }
}

/// `key` and `stamp` are left out: `key` follows from `role`, and `stamp` only
/// names a copy.
impl PartialEq for Goroutine {
    fn eq(&self, o: &Goroutine) -> bool {
        self.id == o.id && self.role == o.role
    }
}

impl Eq for Goroutine {}

/// As derived before the stamp: `id`, `role`, `key` (the explorer's estimate of a
/// state's bytes counts what its hash is fed, and budgets stop where they did);
/// `stamp` is left out, as it only names a copy.
impl std::hash::Hash for Goroutine {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.id.hash(h);
        self.role.hash(h);
        self.key.hash(h);
    }
}

impl std::fmt::Debug for Goroutine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Goroutine")
            .field("id", &self.id)
            .field("role", &self.role)
            .finish()
    }
}

impl Clone for Goroutine {
    fn clone(&self) -> Goroutine {
        Goroutine {
            id: self.id,
            role: self.role.clone(),
            key: self.key,
            stamp: self.stamp,
        }
    }
    fn clone_from(&mut self, o: &Goroutine) {
        self.id = o.id;
        if self.stamp != o.stamp {
            self.role.clone_from(&o.role);
            self.key = o.key;
            self.stamp = o.stamp;
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoPanic {
    pub goroutine: Gid,
    pub message: String,
}

/// Rows of one segment the flow graph inserted, and where they went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowLedger {
    pub segment: i64,
    pub inserted: i64,
    /// Rows whose sync task finished (SaveBinlogPaths returned).
    pub synced: i64,
    /// Rows yielded from the write buffer to a task that was never built.
    pub lost: i64,
}

/// The whole state of a sync-2024 run.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct World {
    pub version: Version,
    pub knobs: Knobs,
    pub goroutines: Vec<Goroutine>,
    pub metacache: MetaCache,
    /// The write buffer: one insert buffer per segment (`writeBufferBase.buffers`), sorted.
    /// `buffers`, `rows` and `last_state` are [`Shared`] for their cached
    /// fingerprints: most steps write none of them, and the explorer
    /// fingerprints every state.
    pub buffers: Shared<SegBuf>,
    /// Datacoord's meta, sorted by segment (shared between states until a step
    /// writes it: a scenario may hold thousands of segments no step touches).
    pub datacoord: Shared<DcSeg>,
    /// Datacoord's `flushCh`: flushed segments waiting for `postFlush`.
    pub flush_ch: Vec<i64>,
    /// Segments whose key lock a task holds: (segment, task goroutine).
    pub key_locks: Vec<(i64, Gid)>,
    /// Segments whose checkpoint a yielded buffer pins for good (`syncCheckpoint`
    /// entries no task will remove).
    pub pinned: Vec<i64>,
    /// Per segment the flow graph inserted into, sorted.
    pub rows: Shared<RowLedger>,
    /// The last state each segment id had in the metacache (for the forward-only invariant).
    pub last_state: Shared<(i64, SegState)>,
    /// Ops each actor has returned from (indexed by actor): what `wait_for` waits on.
    pub actor_done: Vec<u32>,
    pub panic: Option<GoPanic>,
    pub violations: Vec<Violation>,
    /// The segments the running `BufferData`'s `triggerSync` selected and has
    /// still to sync, after the one its actor is at (`syncSegments`,
    /// write_buffer.go:329-355): one actor holds `wb.mut` there, so one list.
    pub trigger: Vec<i64>,
    pub(super) next_gid: Gid,
    pub(super) next_task: u32,
    /// The last step's accesses to shared fields (see `footprint.rs`); never makes
    /// two worlds different, and a copy starts empty.
    pub(super) footprint: crate::engine::Footprint,
}

/// Cloned by hand so that `clone_from` reuses the vectors' buffers: the explorer
/// clones a world per transition into a spare one (see `explore/search.rs`).
impl Clone for World {
    fn clone(&self) -> World {
        let mut w = World {
            version: self.version,
            knobs: self.knobs,
            goroutines: Vec::new(),
            metacache: MetaCache::default(),
            buffers: Shared::default(),
            datacoord: Default::default(),
            flush_ch: Vec::new(),
            key_locks: Vec::new(),
            pinned: Vec::new(),
            rows: Shared::default(),
            last_state: Shared::default(),
            actor_done: Vec::new(),
            panic: None,
            violations: Vec::new(),
            trigger: Vec::new(),
            next_gid: self.next_gid,
            next_task: self.next_task,
            footprint: crate::engine::Footprint::default(),
        };
        w.clone_from(self);
        w
    }

    fn clone_from(&mut self, o: &World) {
        // Every field by name: a new field is a compile error here, not a bug.
        let World {
            version,
            knobs,
            goroutines,
            metacache,
            buffers,
            datacoord,
            flush_ch,
            key_locks,
            pinned,
            rows,
            last_state,
            actor_done,
            panic,
            violations,
            trigger,
            next_gid,
            next_task,
            footprint,
        } = self;
        *version = o.version;
        *knobs = o.knobs;
        goroutines.clone_from(&o.goroutines);
        metacache.clone_from(&o.metacache);
        buffers.clone_from(&o.buffers);
        datacoord.clone_from(&o.datacoord);
        flush_ch.clone_from(&o.flush_ch);
        key_locks.clone_from(&o.key_locks);
        pinned.clone_from(&o.pinned);
        rows.clone_from(&o.rows);
        last_state.clone_from(&o.last_state);
        actor_done.clone_from(&o.actor_done);
        panic.clone_from(&o.panic);
        violations.clone_from(&o.violations);
        trigger.clone_from(&o.trigger);
        *next_gid = o.next_gid;
        *next_task = o.next_task;
        footprint.clone_from(&o.footprint);
    }
}

impl World {
    /// Asks for the memory a step and a copy read first: the world itself and
    /// its vectors (see [`crate::explore::prefetch`]).
    pub(super) fn prefetch(&self) {
        use crate::explore::prefetch::{slice, value};
        value(self);
        slice(&self.goroutines);
        slice(self.metacache.segments());
        slice(&self.buffers);
        slice(&self.datacoord);
        slice(&self.rows);
        slice(&self.last_state);
        slice(&self.actor_done);
    }

    pub fn new(sc: &Scenario) -> World {
        let version = sc.version;
        let mut w = World {
            version,
            knobs: Knobs::with(version, sc.policy),
            goroutines: Vec::new(),
            metacache: MetaCache::from_setup(&sc.datanode, &sc.datacoord),
            buffers: Shared::default(),
            datacoord: sc.datacoord.clone().into(),
            flush_ch: Vec::new(),
            key_locks: Vec::new(),
            pinned: Vec::new(),
            rows: Shared::default(),
            last_state: Shared::default(),
            actor_done: vec![0; sc.actors.len()],
            panic: None,
            violations: Vec::new(),
            trigger: Vec::new(),
            next_gid: 0,
            next_task: 0,
            footprint: crate::engine::Footprint::default(),
        };
        w.last_state = w
            .metacache
            .segments()
            .iter()
            .map(|s| (s.segment, s.state))
            .collect::<Vec<_>>()
            .into();
        for (i, a) in sc.actors.iter().enumerate() {
            if !a.ops.is_empty() {
                w.spawn(Role::Actor {
                    actor: i as u16,
                    pc: 0,
                    at: ActorAt::Ready,
                });
            }
        }
        w
    }

    pub fn goroutine(&self, g: Gid) -> Option<&Goroutine> {
        self.goroutines
            .binary_search_by_key(&g, |x| x.id)
            .ok()
            .map(|i| &self.goroutines[i])
    }

    pub fn dc(&self, segment: i64) -> Option<&DcSeg> {
        self.datacoord
            .binary_search_by_key(&segment, |d| d.segment)
            .ok()
            .map(|i| &self.datacoord[i])
    }

    /// Rows really buffered for `segment`.
    pub fn buffered(&self, segment: i64) -> i64 {
        self.buffers
            .binary_search_by_key(&segment, |b| b.segment)
            .map_or(0, |i| self.buffers[i].rows)
    }

    pub fn runnable(&self, sc: &Scenario, out: &mut Vec<crate::sched::Choice>) {
        out.clear();
        if self.panic.is_some() {
            return;
        }
        let (locked, wb) = (Locked::of(&self.key_locks), self.wb_holder().is_some());
        for g in &self.goroutines {
            if self.ready_in(sc, g, &locked, wb) {
                out.push(crate::sched::Choice::new(g.id, 0));
            }
        }
    }

    /// The goroutines that can run, in id order (see [`World::runnable`]).
    pub fn ready_goroutines<'w>(&'w self, sc: &'w Scenario) -> impl Iterator<Item = &'w Goroutine> {
        let (locked, wb) = (Locked::of(&self.key_locks), self.wb_holder().is_some());
        self.goroutines
            .iter()
            .filter(move |g| self.ready_in(sc, g, &locked, wb))
    }

    pub fn ready(&self, sc: &Scenario, g: &Goroutine) -> bool {
        let wb = self.wb_holder().is_some();
        self.ready_in(sc, g, &Locked::Few(&self.key_locks), wb)
    }

    /// The actor inside the write buffer's `BufferData`, which holds `wb.mut`
    /// (see [`holds_wb`]); at most one is.
    pub fn wb_holder(&self) -> Option<&Goroutine> {
        self.goroutines
            .iter()
            .find(|g| matches!(&g.role, Role::Actor { at, .. } if holds_wb(at)))
    }

    /// Whether `g`'s next step takes `wb.mut` (see [`World::takes_wb`]).
    pub fn waits_for_wb(&self, sc: &Scenario, g: &Goroutine) -> bool {
        match &g.role {
            Role::Actor { actor, pc, at } => self.takes_wb(sc, *actor, *pc, at),
            _ => false,
        }
    }

    /// Whether the next step of `actor`, at op `pc` and standing at `at`, takes
    /// `wb.mut`: it is about to start an insert or a sync (`BufferData`:
    /// `wb.mut.Lock()`), or to seal its segment in the datanode (`SealSegments`:
    /// `wb.mut.RLock()`, write_buffer.go:220-222 at all six commits).
    pub(super) fn takes_wb(&self, sc: &Scenario, actor: u16, pc: u32, at: &ActorAt) -> bool {
        match at {
            ActorAt::Ready => matches!(
                self.next_op(sc, actor, pc),
                Some(Op::Insert { .. } | Op::Sync { .. })
            ),
            ActorAt::SealDatanode { .. } => true,
            _ => false,
        }
    }

    /// [`World::ready`], the segments whose key lock is held given as `locked`
    /// and whether an actor holds `wb.mut` as `wb`.
    fn ready_in(&self, sc: &Scenario, g: &Goroutine, locked: &Locked, wb: bool) -> bool {
        match &g.role {
            Role::Actor { actor, pc, at } => match at {
                // Ready when every `wait_for` in a row is satisfied, and, for
                // an insert or a sync, when no other actor holds `wb.mut`.
                ActorAt::Ready => match self.next_op(sc, *actor, *pc) {
                    Some(Op::WaitFor(_)) => false,
                    Some(Op::Insert { .. } | Op::Sync { .. }) => !wb,
                    _ => true,
                },
                ActorAt::KeyLock(t) => !locked.has(t.segment),
                ActorAt::SyncSegmentsRpc { handler, .. } => self.goroutine(*handler).is_none(),
                // The deadline passes whether or not the handler still runs.
                ActorAt::SyncSegmentsDeadline { .. } => true,
                ActorAt::SealDatanode { .. } => !wb,
                ActorAt::InsertAdd { .. }
                | ActorAt::GetSyncTask { .. }
                | ActorAt::MergedStats(_) => true,
            },
            Role::Task { .. } | Role::Handler { .. } => true,
            Role::FlushLoop => !self.flush_ch.is_empty(),
        }
    }

    /// The op an actor at op `pc` runs next: `wait_for` ops are passed in the
    /// step of the op after them, so the first op past the satisfied ones.
    fn next_op<'s>(&self, sc: &'s Scenario, actor: u16, pc: u32) -> Option<&'s Op> {
        let ops = &sc.actors[actor as usize].ops;
        ops.get(crate::scenario::past_waits(
            ops,
            pc as usize,
            &self.actor_done,
        ))
    }

    pub fn goroutine_name(&self, sc: &Scenario, g: &Goroutine) -> String {
        match &g.role {
            Role::Actor { actor, .. } => sc.actors[*actor as usize].name.clone(),
            Role::Task { task: t, .. } => format!("sync task #{} seg={}", t.n, t.segment),
            Role::Handler { req: r, .. } => {
                format!("SyncSegments handler partition={}", r.partition)
            }
            Role::FlushLoop => "datacoord flush loop".to_owned(),
        }
    }

    pub(super) fn spawn(&mut self, role: Role) -> Gid {
        self.order(super::footprint::key::NEXT_GID, 0, 0);
        let id = self.next_gid;
        self.next_gid += 1;
        self.goroutines.push(Goroutine::new(id, role));
        id
    }

    /// Goroutine `g` now is (and stands at) `role`.
    pub(super) fn set_role(&mut self, g: Gid, role: Role) {
        let i = self.gi(g);
        self.goroutines[i] = Goroutine::new(g, role);
    }

    /// Changes the role of the goroutine at index `i` in place (and its key).
    pub(super) fn role_mut(&mut self, i: usize, f: impl FnOnce(&mut Role)) {
        let g = &mut self.goroutines[i];
        f(&mut g.role);
        g.key = super::ids::role_key(&g.role);
        g.stamp = new_stamp();
    }

    pub(super) fn gi(&self, g: Gid) -> usize {
        self.goroutines
            .binary_search_by_key(&g, |x| x.id)
            .expect("live goroutine")
    }

    /// The ledger of `segment`'s inserted rows, created on first use.
    pub(super) fn ledger(&mut self, segment: i64) -> &mut RowLedger {
        let i = match self.rows.binary_search_by_key(&segment, |r| r.segment) {
            Ok(i) => i,
            Err(i) => {
                self.rows.insert(
                    i,
                    RowLedger {
                        segment,
                        ..RowLedger::default()
                    },
                );
                i
            }
        };
        &mut self.rows[i]
    }
}

/// Who ran a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Actor(u16),
    Task { n: u32, segment: i64 },
    Handler { partition: i64 },
    FlushLoop,
    Gone,
}

impl World {
    /// Who goroutine `g` is, for the trace (captured before it steps).
    pub fn who(&self, g: Gid) -> Who {
        match self.goroutine(g).map(|g| &g.role) {
            Some(Role::Actor { actor, .. }) => Who::Actor(*actor),
            Some(Role::Task { task: t, .. }) => Who::Task {
                n: t.n,
                segment: t.segment,
            },
            Some(Role::Handler { req: r, .. }) => Who::Handler {
                partition: r.partition,
            },
            Some(Role::FlushLoop) => Who::FlushLoop,
            None => Who::Gone,
        }
    }
}

/// The segments whose key lock is held, for asking of each goroutine whether
/// it can run: a run of a thousand segments has a thousand locks held and as
/// many tasks waiting for one, and a scan of the locks for each of them made
/// two thirds of such a run's time (9.7 s for a 70,000-step run).
enum Locked<'w> {
    /// Few: scanned.
    Few(&'w [(i64, Gid)]),
    /// Many: a set (a sort and a binary search for each waiting task still
    /// took half such a run's time).
    Many(std::collections::HashSet<i64, foldhash::fast::FixedState>),
}

impl<'w> Locked<'w> {
    /// Past this many locks held, they are put in a set once.
    const FEW: usize = 16;

    fn of(key_locks: &'w [(i64, Gid)]) -> Locked<'w> {
        if key_locks.len() <= Self::FEW {
            return Locked::Few(key_locks);
        }
        let mut set = std::collections::HashSet::with_capacity_and_hasher(
            key_locks.len(),
            foldhash::fast::FixedState::with_seed(0x10c4_5e75),
        );
        set.extend(key_locks.iter().map(|k| k.0));
        Locked::Many(set)
    }

    fn has(&self, segment: i64) -> bool {
        match self {
            Locked::Few(k) => k.iter().any(|k| k.0 == segment),
            Locked::Many(set) => set.contains(&segment),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Scenario, VERSIONS};
    use super::World;
    use crate::engine::Model;

    /// A world copied over any other (as the explorer copies a parent over a
    /// sibling) is that world: a role written in place got a new stamp, so no
    /// goroutine's role is skipped as unchanged. Over every pair of the first
    /// reachable worlds of each sync-2024 built-in at every version (the
    /// first version's tasks lose their segments, so `role_mut` runs).
    #[test]
    fn a_copy_over_any_world_is_the_world_copied() {
        let mut checked = 0;
        let keys = |z: &World, y: &World| {
            let same = z
                .goroutines
                .iter()
                .zip(&y.goroutines)
                .all(|(a, b)| a.key == b.key);
            assert!(same, "a role copied without its key");
        };
        for name in crate::builtin::names() {
            let Some(crate::AnyScenario::Sync(sc)) = crate::builtin::get(name) else {
                continue;
            };
            for v in VERSIONS.iter() {
                let mut sc = Scenario::clone(&sc);
                sc.set_version(v.id).expect("a version");
                checked += crate::engine::copy_each_over_each(&sc, 150, keys);
            }
        }
        assert!(checked > 100_000, "only {checked} pairs");
    }

    /// With many key locks held they are put in a set (`Locked::Many`):
    /// the goroutines that can run are those a scan of the locks finds, at
    /// every step of runs of 24 segments synced at once, at every version.
    #[test]
    fn many_locks_held_leave_the_same_goroutines_runnable() {
        // Each segment synced twice: the second sync waits for the first's
        // key lock while the others are held.
        let once = super::super::setup::scaled_json("many-locks", 24, 2);
        let flow: Vec<String> = (300..324)
            .map(|s| format!(r#"{{"op":"insert","segment":{s},"partition":1,"rows":10}},{{"op":"sync","segment":{s}}}"#))
            .collect();
        let flow = flow.join(",");
        let text = once.replacen(&flow, &format!("{flow},{flow}"), 1);
        assert_ne!(text, once);
        let Ok(crate::AnyScenario::Sync(sc)) = crate::AnyScenario::parse(&text, "many") else {
            panic!("a sync-2024 scenario")
        };
        let (mut most, mut waited, mut out) = (0, 0, Vec::new());
        for v in VERSIONS.iter() {
            let mut sc = Scenario::clone(&sc);
            sc.set_version(v.id).expect("a version");
            for seed in 0..4 {
                let mut rng = crate::rng::Rng::new(seed);
                let mut w = sc.init();
                for _ in 0..2_000 {
                    w.runnable(&sc, &mut out);
                    if w.panic.is_some() {
                        // A panic ends the run: nothing runs.
                        assert!(out.is_empty() && sc.runnable_len(&w) == 0);
                        break;
                    }
                    let scanned: Vec<_> = w
                        .goroutines
                        .iter()
                        .filter(|g| w.ready(&sc, g))
                        .map(|g| g.id)
                        .collect();
                    assert_eq!(out.iter().map(|c| c.g).collect::<Vec<_>>(), scanned);
                    assert_eq!(sc.runnable_len(&w) as usize, out.len());
                    most = most.max(w.key_locks.len());
                    if w.key_locks.len() > super::Locked::FEW {
                        waited += w
                            .goroutines
                            .iter()
                            .filter(|g| {
                                matches!(
                                    &g.role,
                                    super::Role::Actor {
                                        at: super::ActorAt::KeyLock(_),
                                        ..
                                    }
                                )
                            })
                            .count();
                    }
                    if out.is_empty() {
                        break;
                    }
                    // The flow graph (goroutine 0) first, half the time: its
                    // syncs pile up tasks holding their locks.
                    let c = match rng.below(2) == 0 && out[0].g == 0 {
                        true => out[0],
                        false => out[rng.below(out.len() as u32) as usize],
                    };
                    assert_eq!(
                        sc.runnable_at(&w, out.iter().position(|&o| o == c).unwrap() as u32),
                        c
                    );
                    sc.step(&mut w, c, &mut Vec::new());
                }
            }
        }
        assert!(
            most > super::Locked::FEW,
            "at most {most} locks held at once"
        );
        assert!(
            waited > 100,
            "only {waited} waits for a held lock past the few"
        );
    }

    /// Two flow-graph actors on the one write buffer take turns: `BufferData`
    /// holds `wb.mut` over an insert (lookup, then AddSegment) and a sync
    /// (getSyncTask to SyncData), and SealSegments takes its read lock, so no
    /// actor starts one while another is inside one. Without the lock both
    /// inserts missed the segment, the second AddSegment wrote over the info
    /// the first sync had counted in, and FinishSyncing left syncingRows at -1:
    /// a violation Go cannot reach (found by an attack with 400 actors).
    #[test]
    fn flow_graph_actors_take_turns_in_the_write_buffer() {
        let text = r#"{"name":"two-flowgraphs","model":"sync-2024","version":"b5c9a7364b",
            "datacoord":[{"segment":300,"partition":1,"state":"Growing","level":"L1","statslog":false,"rows":0}],
            "actors":[
              {"name":"a","ops":[{"op":"insert","segment":300,"partition":1,"rows":10},{"op":"sync","segment":300},{"op":"seal","segment":300}]},
              {"name":"b","ops":[{"op":"insert","segment":300,"partition":1,"rows":10},{"op":"sync","segment":300,"flush":true}]}]}"#;
        let Ok(crate::AnyScenario::Sync(sc)) = crate::AnyScenario::parse(text, "two") else {
            panic!("a sync-2024 scenario")
        };
        let (mut worlds, mut waited) = (0, 0);
        for v in VERSIONS.iter() {
            let mut sc = Scenario::clone(&sc);
            sc.set_version(v.id).expect("a version");
            for w in crate::engine::reachable_states(&sc, 1_000_000) {
                worlds += 1;
                let inside: Vec<_> = w
                    .goroutines
                    .iter()
                    .filter(
                        |g| matches!(&g.role, super::Role::Actor { at, .. } if super::holds_wb(at)),
                    )
                    .map(|g| g.id)
                    .collect();
                assert!(
                    inside.len() <= 1,
                    "{inside:?} all inside BufferData at {}",
                    v.id
                );
                let counts = w
                    .violations
                    .iter()
                    .find(|x| matches!(x, super::Violation::RowCounts { .. }));
                assert!(counts.is_none(), "{} at {}", counts.unwrap(), v.id);
                // An actor that would start a write-buffer op waits for the one inside.
                if let Some(&h) = inside.first() {
                    for g in &w.goroutines {
                        if g.id != h && w.waits_for_wb(&sc, g) {
                            waited += 1;
                            assert!(!w.ready(&sc, g), "g{} runs while g{h} holds wb.mut", g.id);
                            // The goroutine list says what it waits for.
                            let (words, _) = super::super::facts::waits_on(&sc, &w, g);
                            assert!(words.contains(&format!(": g{h} (")), "{words}");
                        }
                    }
                }
            }
        }
        assert!(
            worlds > 100 && waited > 10,
            "{worlds} worlds, {waited} waits"
        );
    }

    /// The explorer's estimate of a state's bytes counts what its hash is fed:
    /// a goroutine's id, role and key, as before it had a stamp (so that byte
    /// budgets stop where they did: a review found them moved when the key was
    /// left out of the hash).
    #[test]
    fn a_goroutine_is_estimated_by_its_id_role_and_key() {
        let sc = crate::builtin::get("segment-not-found").expect("a built-in");
        let crate::AnyScenario::Sync(sc) = sc else {
            panic!("a sync-2024 built-in")
        };
        let mut seen = 0;
        for w in crate::engine::reachable_states(&*sc, 200) {
            for g in &w.goroutines {
                // The bytes hashed, without the inline size (that of the types).
                let fed = crate::explore::fingerprint::bytes_with_inline(g, 0);
                let parts = (g.id, &g.role, g.key);
                let expected = crate::explore::fingerprint::bytes_with_inline(&parts, 0);
                assert_eq!(fed, expected);
                seen += 1;
            }
        }
        assert!(seen > 100);
    }
}
