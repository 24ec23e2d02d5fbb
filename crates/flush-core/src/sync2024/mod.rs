//! The 2024 datanode metacache, write buffer, sync manager and datacoord's
//! SyncSegments, at the commits of issue #34018 and the fixes that followed it
//! (MODEL.md §3; the Go at each commit, cited file:line@commit in the steps).
//!
//! Goroutines: scenario actors (the flow graph's write buffer, datacoord's
//! sync-segments scheduler), one goroutine per submitted `SyncTask`, the datanode's
//! `SyncSegments` RPC handler, and datacoord's flush loop. The metacache is
//! [`MetaCache`], with the operations of `meta_cache.go`. What differs between the
//! commits is three knobs ([`Knobs`]); each [`Version`] is a preset of them.

mod event;
mod metacache;
pub mod setup;
mod step;
pub mod view;

pub use event::{Ev, Violation};
pub use metacache::{MetaCache, MetaSeg};
pub use setup::{DcSegment, DnSegment, Level, Op, Scenario, SegState, Version, FORMAT, VERSIONS};

use crate::scenario::WaitFor;

pub type Gid = u32;

/// A segment in datacoord's meta: the scenario's record, kept up to date by the run.
pub type DcSeg = DcSegment;

/// Which of a partition's segments datacoord's SyncSegments tick puts in the request
/// (`sync_segments_scheduler.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestFilter {
    /// Healthy segments that have a PK statslog (:117-139@ca7ef26e4b).
    HealthyWithPkStatslog,
    /// Flushing or Flushed segments, statslog optional (:117-139@c65f41dc60).
    FlushingOrFlushed,
    /// Every healthy segment, statslog optional (:120-142@4cf1a358ba).
    Healthy,
    /// Every healthy segment but L0 ones, statslog optional (:121@439fb24b32).
    HealthyNotL0,
}

/// Which cached segments `UpdateSegmentView` spares when the request lacks them
/// (`meta_cache.go`, the removal loop's skip).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewKeep {
    /// L0 Growing segments (:294-295@ca7ef26e4b).
    L0Growing,
    /// Growing segments (:294-295@b5c9a7364b).
    Growing,
    /// Everything but Flushing and Flushed segments (:294-295@c65f41dc60).
    NotFlushingOrFlushed,
    /// Everything but Flushed segments (:297@4cf1a358ba).
    NotFlushed,
}

/// Which missing segments the datanode's SyncSegments handler loads and adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadRule {
    /// Every missing segment (services.go:314-335@ca7ef26e4b).
    EveryMissing,
    /// Missing Flushed segments that are neither L0 nor Legacy; a warning for L0 and
    /// Legacy ones (services.go:315-343@2e434e4453).
    FlushedNotL0,
}

/// The design space the versions are points of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Knobs {
    pub request: RequestFilter,
    pub keep: ViewKeep,
    pub load: LoadRule,
}

impl Knobs {
    /// The knobs of a Milvus commit.
    pub fn of(v: Version) -> Knobs {
        use LoadRule::*;
        use RequestFilter::*;
        use ViewKeep::*;
        let (request, keep, load) = match v {
            Version::Ca7ef26e4b => (HealthyWithPkStatslog, L0Growing, EveryMissing),
            Version::B5c9a7364b => (HealthyWithPkStatslog, Growing, EveryMissing),
            Version::C65f41dc60 => (FlushingOrFlushed, NotFlushingOrFlushed, EveryMissing),
            Version::V4cf1a358ba => (Healthy, NotFlushed, EveryMissing),
            Version::V2e434e4453 => (Healthy, NotFlushed, FlushedNotL0),
            Version::V439fb24b32 => (HealthyNotL0, NotFlushed, FlushedNotL0),
        };
        Knobs {
            request,
            keep,
            load,
        }
    }
}

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
    pub segments: Vec<ReqSeg>,
}

/// One segment's insert buffer in the write buffer (`writeBufferBase.buffers`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Actor {
        actor: u16,
        pc: u32,
    },
    /// A submitted sync task running in the sync manager's pool.
    Task(SyncTask),
    /// `DataNode.SyncSegments` serving one request.
    Handler(SyncRequest),
    /// Datacoord's flush loop (`startFlushLoop`): receives flushed segment ids from
    /// `flushCh` and runs `postFlush` for each. It lives while ids are queued.
    FlushLoop,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum At {
    /// Actor before its op at `pc`.
    Ready,
    /// Actor in `bufferInsert`: `GetSegmentByID` found nothing; `AddSegment` next.
    InsertAdd {
        segment: i64,
        partition: i64,
        rows: i64,
    },
    /// Actor in the write buffer's `triggerSync`: the sealed policy moved the segment
    /// to Flushing; `getSyncTask`'s `GetSegmentByID` next.
    GetSyncTask { segment: i64 },
    /// Actor in `getSyncTask` → `EncodeBuffer` of a flush of a non-L0 segment: the
    /// buffer is yielded; `serializeMergedPkStats`'s `GetSegmentByID` next.
    MergedStats(SyncTask),
    /// Actor in `seal`: datacoord has sealed the segment; the datanode's
    /// `sealSegments` (from its FlushSegments RPC) next.
    SealDatanode { segment: i64 },
    /// Actor in `keyLockDispatcher.Submit` → `keyLock.Lock(segment)`, held by an earlier task.
    KeyLock(SyncTask),
    /// Datacoord actor in `sessions.SyncSegments`, waiting for the handler `handler`.
    SyncSegmentsRpc { handler: Gid, selected: Vec<i64> },
    /// Task: submitted, `Run` not started.
    RunStart,
    /// Task: `writeLogs` (MultiWrite to object storage) in flight.
    WriteLogs,
    /// Task: `SaveBinlogPaths` to datacoord in flight (in `brokerMetaWriter.UpdateSync`).
    SaveBinlogPaths {
        checkpoint_rows: i64,
        start_pos: Vec<i64>,
    },
    /// Task: SaveBinlogPaths returned; `SetStartPosRecorded`, then `Run`'s
    /// `FinishSyncing` (and Flushed for a flush) next.
    FinishSyncing { start_pos: Vec<i64> },
    /// Handler: the RPC has arrived.
    Receive,
    /// Handler: loading PK stats of missing segments (`conc.AwaitAll` on the stats pool).
    LoadStats { load: Vec<i64> },
    /// Flush loop: `<-flushCh`.
    FlushCh,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Goroutine {
    pub id: Gid,
    pub role: Role,
    pub at: At,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GoPanic {
    pub goroutine: Gid,
    pub message: String,
}

/// Rows of one segment the flow graph inserted, and where they went.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowLedger {
    pub segment: i64,
    pub inserted: i64,
    /// Rows whose sync task finished (SaveBinlogPaths returned).
    pub synced: i64,
    /// Rows yielded from the write buffer to a task that was never built.
    pub lost: i64,
}

/// The whole state of a sync-2024 run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct World {
    pub version: Version,
    pub knobs: Knobs,
    pub goroutines: Vec<Goroutine>,
    pub metacache: MetaCache,
    /// The write buffer: one insert buffer per segment (`writeBufferBase.buffers`), sorted.
    pub buffers: Vec<SegBuf>,
    /// Datacoord's meta, sorted by segment.
    pub datacoord: Vec<DcSeg>,
    /// Datacoord's `flushCh`: flushed segments waiting for `postFlush`.
    pub flush_ch: Vec<i64>,
    /// Segments whose key lock a task holds: (segment, task goroutine).
    pub key_locks: Vec<(i64, Gid)>,
    /// Segments whose checkpoint a yielded buffer pins for good (`syncCheckpoint`
    /// entries no task will remove).
    pub pinned: Vec<i64>,
    /// Per segment the flow graph inserted into, sorted.
    pub rows: Vec<RowLedger>,
    /// The last state each segment id had in the metacache (for the forward-only invariant).
    pub last_state: Vec<(i64, SegState)>,
    /// Ops each actor has returned from (indexed by actor): what `wait_for` waits on.
    pub actor_done: Vec<u32>,
    pub panic: Option<GoPanic>,
    pub violations: Vec<Violation>,
    next_gid: Gid,
    next_task: u32,
}

/// Does datacoord's request include this segment? (`sync_segments_scheduler.go`)
pub fn request_includes(k: Knobs, s: &DcSeg) -> bool {
    selected(k, s)
        && match k.request {
            RequestFilter::HealthyWithPkStatslog => s.statslog,
            _ => true,
        }
}

/// Does datacoord's tick select this segment (and list it in its success log)?
pub fn selected(k: Knobs, s: &DcSeg) -> bool {
    // isSegmentHealthy: not None, NotExist or Dropped (datacoord/meta.go:1584-1589).
    let healthy = s.state != SegState::Dropped;
    match k.request {
        RequestFilter::HealthyWithPkStatslog | RequestFilter::Healthy => healthy,
        // isFlush (compaction_trigger.go:862-864).
        RequestFilter::FlushingOrFlushed => {
            matches!(s.state, SegState::Flushing | SegState::Flushed)
        }
        RequestFilter::HealthyNotL0 => healthy && s.level != Level::L0,
    }
}

/// Does `UpdateSegmentView` skip (keep) this cached segment whatever the request says?
/// The partition check comes first in every version.
pub fn view_keeps(k: Knobs, s: &MetaSeg, partition: i64) -> bool {
    if s.partition != partition {
        return true;
    }
    match k.keep {
        ViewKeep::L0Growing => s.level == Level::L0 && s.state == SegState::Growing,
        ViewKeep::Growing => s.state == SegState::Growing,
        ViewKeep::NotFlushingOrFlushed => {
            !matches!(s.state, SegState::Flushed | SegState::Flushing)
        }
        ViewKeep::NotFlushed => s.state != SegState::Flushed,
    }
}

impl World {
    pub fn new(sc: &Scenario) -> World {
        let version = sc.version;
        let mut w = World {
            version,
            knobs: Knobs::of(version),
            goroutines: Vec::new(),
            metacache: MetaCache::from_setup(&sc.datanode, &sc.datacoord),
            buffers: Vec::new(),
            datacoord: sc.datacoord.clone(),
            flush_ch: Vec::new(),
            key_locks: Vec::new(),
            pinned: Vec::new(),
            rows: Vec::new(),
            last_state: Vec::new(),
            actor_done: vec![0; sc.actors.len()],
            panic: None,
            violations: Vec::new(),
            next_gid: 0,
            next_task: 0,
        };
        w.last_state = w
            .metacache
            .segments()
            .iter()
            .map(|s| (s.segment, s.state))
            .collect();
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
        for g in &self.goroutines {
            if self.ready(sc, g) {
                out.push(crate::sched::Choice::new(g.id, 0));
            }
        }
    }

    pub fn ready(&self, sc: &Scenario, g: &Goroutine) -> bool {
        match (&g.role, &g.at) {
            (Role::Actor { actor, pc }, At::Ready) => self.actor_ready(sc, *actor, *pc),
            (_, At::KeyLock(t)) => !self.key_locks.iter().any(|k| k.0 == t.segment),
            (_, At::SyncSegmentsRpc { handler, .. }) => self.goroutine(*handler).is_none(),
            (_, At::FlushCh) => !self.flush_ch.is_empty(),
            _ => true,
        }
    }

    /// `wait_for` ops are passed in the step of the op after them: the actor is ready
    /// when every `wait_for` in a row is satisfied.
    fn actor_ready(&self, sc: &Scenario, actor: u16, pc: u32) -> bool {
        let ops = &sc.actors[actor as usize].ops;
        let mut i = pc as usize;
        while let Some(Op::WaitFor(WaitFor { actor, index })) = ops.get(i) {
            if self.actor_done[*actor as usize] <= *index {
                return false;
            }
            i += 1;
        }
        true
    }

    pub fn goroutine_name(&self, sc: &Scenario, g: &Goroutine) -> String {
        match &g.role {
            Role::Actor { actor, .. } => sc.actors[*actor as usize].name.clone(),
            Role::Task(t) => format!("sync task #{} seg={}", t.n, t.segment),
            Role::Handler(r) => format!("SyncSegments handler partition={}", r.partition),
            Role::FlushLoop => "datacoord flush loop".to_owned(),
        }
    }

    /// What a goroutine waits on, in words, and the Go function it sits in.
    pub fn waits_on(&self, sc: &Scenario, g: &Goroutine) -> (String, &'static str) {
        event::waits_on(sc, g)
    }

    fn spawn(&mut self, role: Role, at: At) -> Gid {
        let id = self.next_gid;
        self.next_gid += 1;
        self.goroutines.push(Goroutine { id, role, at });
        id
    }

    fn gi(&self, g: Gid) -> usize {
        self.goroutines
            .binary_search_by_key(&g, |x| x.id)
            .expect("live goroutine")
    }

    /// The ledger of `segment`'s inserted rows, created on first use.
    fn ledger(&mut self, segment: i64) -> &mut RowLedger {
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
    fn versions(&self) -> &'static [crate::scenario::VersionInfo] {
        &VERSIONS
    }
    fn set_version(&mut self, id: &str) -> Result<(), String> {
        let v = Version::parse(id).ok_or_else(|| {
            format!(
                "unknown version \"{}\"; the sync-2024 model knows {}",
                crate::scenario::json::short(id),
                Version::list()
            )
        })?;
        self.at_version(v);
        Ok(())
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
        s.goroutines.iter().filter(|g| s.ready(self, g)).count() as u32
    }
    fn runnable_at(&self, s: &World, i: u32) -> crate::sched::Choice {
        let g = s
            .goroutines
            .iter()
            .filter(|g| s.ready(self, g))
            .nth(i as usize);
        crate::sched::Choice::new(g.expect("runnable_at below runnable_len").id, 0)
    }
    fn step(&self, s: &mut World, c: crate::sched::Choice, ev: &mut Vec<Ev>) -> Who {
        let who = s.who(c.g);
        s.step(self, c, ev);
        who
    }
    fn who_name(&self, who: &Who) -> String {
        match *who {
            Who::Actor(a) => self.actors[a as usize].name.clone(),
            Who::Task { n, segment } => format!("sync task #{n} seg={segment}"),
            Who::Handler { partition } => format!("SyncSegments handler partition={partition}"),
            Who::FlushLoop => "datacoord flush loop".to_owned(),
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
                message: v.to_string(),
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
            idle: false,
        })
    }
    fn fact_go(&self, ev: &Ev) -> &'static str {
        ev.go_fn()
    }
    fn fact_words(&self, ev: &Ev, out: &mut String) {
        ev.render(self, out)
    }
    fn fact_log(&self, ev: &Ev) -> Option<String> {
        ev.log_line(self.version)
    }
    fn fact_kind(&self, ev: &Ev) -> crate::engine::FactKind {
        match ev {
            Ev::Invariant(_) => crate::engine::FactKind::Violation,
            Ev::GoPanic { .. } => crate::engine::FactKind::Panic,
            _ => crate::engine::FactKind::Plain,
        }
    }
}

impl World {
    /// Who goroutine `g` is, for the trace (captured before it steps).
    pub fn who(&self, g: Gid) -> Who {
        match self.goroutine(g).map(|g| &g.role) {
            Some(Role::Actor { actor, .. }) => Who::Actor(*actor),
            Some(Role::Task(t)) => Who::Task {
                n: t.n,
                segment: t.segment,
            },
            Some(Role::Handler(r)) => Who::Handler {
                partition: r.partition,
            },
            Some(Role::FlushLoop) => Who::FlushLoop,
            None => Who::Gone,
        }
    }
}
