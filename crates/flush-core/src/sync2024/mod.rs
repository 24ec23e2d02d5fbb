//! The 2024 datanode metacache, write buffer, sync manager and datacoord's
//! SyncSegments, at the commits of issue #34018 (MODEL.md §3).
//!
//! Goroutines: scenario actors (the flow graph's write buffer, datacoord's
//! sync-segments scheduler), one goroutine per submitted `SyncTask`, and the
//! datanode's `SyncSegments` RPC handler. The metacache is [`MetaCache`], with the
//! operations of `meta_cache.go`; the version decides two predicates
//! ([`request_includes`], [`view_keeps`]).

mod event;
mod metacache;
mod step;

pub use event::{Ev, Violation};
pub use metacache::{MetaCache, MetaSeg};

use crate::scenario::{DcSegment, Level, Scenario, SegState, Version};

pub type Gid = u32;

/// A segment in datacoord's meta: the scenario's record, kept up to date by the run.
pub type DcSeg = DcSegment;

/// One `datapb.SyncSegmentInfo` of a request.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReqSeg {
    pub segment: i64,
    pub state: SegState,
    pub level: Level,
    pub rows: i64,
    pub statslog: bool,
}

/// `datapb.SyncSegmentsRequest` for one partition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncRequest {
    pub partition: i64,
    /// `SegmentInfos`, sorted by id.
    pub segments: Vec<ReqSeg>,
}

/// A `SyncTask` built by `getSyncTask`/`EncodeBuffer`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncTask {
    /// Submission number (1, 2, ...), for names.
    pub n: u32,
    pub segment: i64,
    pub partition: i64,
    pub level: Level,
    /// Rows taken from the write buffer (`batchSize`).
    pub batch: i64,
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
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum At {
    /// Actor before its op at `pc`.
    Ready,
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
    /// Handler: the RPC has arrived.
    Receive,
    /// Handler: loading PK stats of missing segments (`conc.AwaitAll` on the stats pool).
    LoadStats { missing: Vec<i64> },
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

/// The whole state of a sync-2024 run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct World {
    pub version: Version,
    pub goroutines: Vec<Goroutine>,
    pub metacache: MetaCache,
    /// The write buffer: buffered insert rows per segment (`writeBufferBase.buffers`), sorted.
    pub buffers: Vec<(i64, i64)>,
    /// Datacoord's meta, sorted by segment.
    pub datacoord: Vec<DcSeg>,
    /// Segments whose key lock a task holds: (segment, task goroutine).
    pub key_locks: Vec<(i64, Gid)>,
    /// The last state each segment id had in the metacache (for the forward-only invariant).
    pub last_state: Vec<(i64, SegState)>,
    pub panic: Option<GoPanic>,
    pub violations: Vec<Violation>,
    next_gid: Gid,
    next_task: u32,
}

/// Does datacoord's request for `partition` include this segment? (`sync_segments_scheduler.go`)
pub fn request_includes(v: Version, s: &DcSeg) -> bool {
    let healthy = s.state != SegState::Dropped;
    let flush = matches!(s.state, SegState::Flushing | SegState::Flushed);
    match v {
        // SelectSegments(healthy), then only segments with a PK statslog enter SegmentInfos.
        Version::Ca7ef26e4b | Version::B5c9a7364b => healthy && s.statslog,
        // SyncFlushedSegments: isFlush segments, statslog optional.
        Version::C65f41dc60 => flush,
        // Every healthy segment, statslog optional.
        Version::V4cf1a358ba => healthy,
    }
}

/// Does `UpdateSegmentView` skip (keep) this cached segment whatever the request says?
/// The partition check comes first in every version.
pub fn view_keeps(v: Version, s: &MetaSeg, partition: i64) -> bool {
    if s.partition != partition {
        return true;
    }
    match v {
        Version::Ca7ef26e4b => s.level == Level::L0 && s.state == SegState::Growing,
        Version::B5c9a7364b => s.state == SegState::Growing,
        Version::C65f41dc60 => !matches!(s.state, SegState::Flushed | SegState::Flushing),
        Version::V4cf1a358ba => s.state != SegState::Flushed,
    }
}

impl World {
    pub fn new(sc: &Scenario) -> World {
        let mut w = World {
            version: sc.version.unwrap_or(Version::Ca7ef26e4b),
            goroutines: Vec::new(),
            metacache: MetaCache::from_setup(&sc.datanode),
            buffers: Vec::new(),
            datacoord: sc.datacoord.clone(),
            key_locks: Vec::new(),
            last_state: Vec::new(),
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
        self.datacoord.iter().find(|d| d.segment == segment)
    }

    pub fn buffered(&self, segment: i64) -> i64 {
        self.buffers
            .iter()
            .find(|b| b.0 == segment)
            .map_or(0, |b| b.1)
    }

    pub fn runnable(&self, _sc: &Scenario, out: &mut Vec<crate::sched::Choice>) {
        out.clear();
        if self.panic.is_some() {
            return;
        }
        for g in &self.goroutines {
            if self.ready(g) {
                out.push(crate::sched::Choice::new(g.id, 0));
            }
        }
    }

    pub fn ready(&self, g: &Goroutine) -> bool {
        match &g.at {
            At::KeyLock(t) => !self.key_locks.iter().any(|k| k.0 == t.segment),
            At::SyncSegmentsRpc { handler, .. } => self.goroutine(*handler).is_none(),
            _ => true,
        }
    }

    pub fn goroutine_name(&self, sc: &Scenario, g: &Goroutine) -> String {
        match &g.role {
            Role::Actor { actor, .. } => sc.actors[*actor as usize].name.clone(),
            Role::Task(t) => format!("sync task #{} seg={}", t.n, t.segment),
            Role::Handler(r) => format!("SyncSegments handler partition={}", r.partition),
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
}

/// Who ran a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Actor(u16),
    Task { n: u32, segment: i64 },
    Handler { partition: i64 },
    Gone,
}

impl crate::engine::Model for World {
    type Ev = Ev;
    type Who = Who;

    fn new(sc: &Scenario) -> Self {
        World::new(sc)
    }
    fn runnable(&self, sc: &Scenario, out: &mut Vec<crate::sched::Choice>) {
        World::runnable(self, sc, out)
    }
    fn runnable_len(&self, _sc: &Scenario) -> u32 {
        if self.panic.is_some() {
            return 0;
        }
        self.goroutines.iter().filter(|g| self.ready(g)).count() as u32
    }
    fn runnable_at(&self, _sc: &Scenario, i: u32) -> crate::sched::Choice {
        let g = self
            .goroutines
            .iter()
            .filter(|g| self.ready(g))
            .nth(i as usize);
        crate::sched::Choice::new(g.expect("runnable_at below runnable_len").id, 0)
    }
    fn step(&mut self, sc: &Scenario, c: crate::sched::Choice, ev: &mut Vec<Ev>) -> Who {
        let who = crate::engine::Model::who(self, c.g);
        World::step(self, sc, c, ev);
        who
    }
    fn who(&self, g: u32) -> Who {
        match self.goroutine(g).map(|g| &g.role) {
            Some(Role::Actor { actor, .. }) => Who::Actor(*actor),
            Some(Role::Task(t)) => Who::Task {
                n: t.n,
                segment: t.segment,
            },
            Some(Role::Handler(r)) => Who::Handler {
                partition: r.partition,
            },
            None => Who::Gone,
        }
    }
    fn who_name(sc: &Scenario, who: &Who) -> String {
        match *who {
            Who::Actor(a) => sc.actors[a as usize].name.clone(),
            Who::Task { n, segment } => format!("sync task #{n} seg={segment}"),
            Who::Handler { partition } => format!("SyncSegments handler partition={partition}"),
            Who::Gone => "?".to_owned(),
        }
    }
    fn go_panic(&self) -> Option<(u32, &str)> {
        self.panic
            .as_ref()
            .map(|p| (p.goroutine, p.message.as_str()))
    }
    fn violations(&self, _sc: &Scenario) -> Vec<(&'static str, String)> {
        self.violations
            .iter()
            .map(|v| (v.name(), v.to_string()))
            .collect()
    }
    fn goroutine_ids(&self) -> Vec<u32> {
        self.goroutines.iter().map(|g| g.id).collect()
    }
    fn describe(&self, sc: &Scenario, g: u32) -> Option<crate::engine::GoroutineView> {
        let g = self.goroutine(g)?;
        let (waits_on, go) = self.waits_on(sc, g);
        Some(crate::engine::GoroutineView {
            id: g.id,
            name: self.goroutine_name(sc, g),
            waits_on,
            go,
        })
    }
    fn ev_go_fn(ev: &Ev) -> &'static str {
        ev.go_fn()
    }
    fn ev_render(sc: &Scenario, ev: &Ev, out: &mut String) {
        ev.render(sc, out)
    }
    fn ev_log(_sc: &Scenario, ev: &Ev) -> Option<String> {
        ev.log_line()
    }
    fn ev_is_violation(ev: &Ev) -> bool {
        matches!(ev, Ev::Invariant(_))
    }
    fn ev_is_panic(ev: &Ev) -> bool {
        matches!(ev, Ev::GoPanic { .. })
    }
}
