//! What each sync-2024 step touches of the state its goroutines share: the
//! metacache's segment map (`metaCacheImpl.segmentInfos`), always inside one of
//! `metaCacheImpl`'s methods, which take `c.mu` first (meta_cache.go; the lock lines
//! are the same at all six commits). The write buffer's `buffers` and `checkpoint`
//! are touched by the flow graph's goroutine only (under `wb.mut`), the sync
//! task's fields by its pool worker only (handed over at submit), and a published
//! `SegmentInfo` is never changed in place (`UpdateSegments` clones, then swaps),
//! so the metacache map is the one shared plain field. Every access holds `mu`: the
//! race check reports no data race at any version, as a reading of the Go code at
//! each commit found. What #34018 shows is an atomicity violation instead: the
//! flow graph's `GetSegmentByID` then `AddSegment`, and the sync task's
//! `GetSegmentByID`, are separately locked calls, and SyncSegments'
//! `UpdateSegmentView` may run between them (the model's steps stop there).
//!
//! For the partial-order reduction each access names its segment (one entry of
//! the map), a method that ranges over the map names every segment it holds,
//! and the order keys of [`key`] name the rest a step reads or writes.
//! `tests/it/reduction.rs` steps every pair this calls independent both ways,
//! over the built-ins and random scenarios at every version.

use super::World;
use crate::engine::{Access, GoSite};

pub const SEGMENT_INFOS: &str = "metaCacheImpl.segmentInfos";
pub const MU: &[&str] = &["mu"];

/// The metacache method a step calls (meta_cache.go, same lines at all six commits).
#[derive(Clone, Copy, Debug)]
pub enum Site {
    /// :126 `AddSegment`: `c.mu.Lock()`, then `c.segmentInfos[id] = segment`.
    Add,
    /// :143 `RemoveSegments`: `c.mu.Lock()`, then `delete(c.segmentInfos, id)`.
    Remove,
    /// :169 `GetSegmentByID`: `c.mu.RLock()`, then `c.segmentInfos[id]`.
    Get,
    /// :190 `UpdateSegments`: `c.mu.Lock()`, clone, act, swap in.
    Update,
    /// :253 `DetectMissingSegments`: `c.mu.RLock()`, then lookups.
    DetectMissing,
    /// :272 `UpdateSegmentView`: `c.mu.Lock()`, then adds and deletes.
    UpdateView,
}

impl Site {
    fn what(self) -> (bool, u32, &'static str, &'static str) {
        match self {
            Site::Add => (
                true,
                126,
                "metaCacheImpl.AddSegment",
                "c.mu.Lock(); c.segmentInfos[segID] = segment",
            ),
            Site::Remove => (
                true,
                143,
                "metaCacheImpl.RemoveSegments",
                "c.mu.Lock(); delete(c.segmentInfos, segID)",
            ),
            Site::Get => (
                false,
                169,
                "metaCacheImpl.GetSegmentByID",
                "c.mu.RLock(); segment, ok := c.segmentInfos[id]",
            ),
            Site::Update => (
                true,
                190,
                "metaCacheImpl.UpdateSegments",
                "c.mu.Lock(); nInfo := info.Clone(); action(nInfo); c.segmentInfos[segID] = nInfo",
            ),
            Site::DetectMissing => (
                false,
                253,
                "metaCacheImpl.DetectMissingSegments",
                "c.mu.RLock(); _, ok := c.segmentInfos[segID]",
            ),
            Site::UpdateView => (
                true,
                272,
                "metaCacheImpl.UpdateSegmentView",
                "c.mu.Lock(); c.segmentInfos[...] = ...; delete(c.segmentInfos, segID)",
            ),
        }
    }
}

/// Order keys (see `Model::order_keys`): what else a step touches that orders
/// it against other goroutines' steps. Everything of one segment (its
/// metacache entry, its write buffer, datacoord's meta of it, its key lock,
/// its sync tasks, its row ledger and the invariants on it) is one key: steps
/// on different segments commute, steps on one segment are tried in both
/// orders.
pub mod key {
    /// One segment, by id.
    pub const SEGMENT: &str = "segment";
    /// Which segments the metacache holds: added or removed by a step, ranged
    /// over by another (UpdateSegmentView, the meta writer's start positions).
    pub const MC_MEMBERS: &str = "metacache members";
    /// Which segments datacoord's meta holds (an L0 segment is created by
    /// SaveBinlogPaths; the tick ranges over a partition's).
    pub const DC_MEMBERS: &str = "datacoord members";
    /// Datacoord's `flushCh` and whether its flush loop runs.
    pub const FLUSH_CH: &str = "flushCh";
    /// Goroutine and sync-task ids, given in step order.
    pub const NEXT_GID: &str = "next goroutine id";
    pub const NEXT_TASK: &str = "next task id";
    /// A flow-graph op returned (what `wait_for` waits on): by (actor, op).
    pub const FLOWGRAPH: &str = "flowgraph";
    /// The write buffer's `wb.mut`, taken by a step that starts, goes on with or
    /// ends an insert or a sync (`BufferData`), or seals in the datanode
    /// (`SealSegments`' read lock): one actor inside keeps the others out.
    pub const WB_MUT: &str = "wb.mut";
    /// The ctx of the SyncSegments attempt a handler serves (by the handler's
    /// goroutine id): the step where datacoord's deadline passes cancels it, and
    /// the handler's steps run with it live or done (only `"retried"` ops).
    pub const ATTEMPT_CTX: &str = "SyncSegments attempt ctx";
}

impl World {
    /// Records that this step calls the metacache method `site` on `segment`
    /// (`c.mu` is held: the access never races; the object is the segment, so
    /// the reduction tells segments apart).
    pub(super) fn mc(&mut self, site: Site, segment: i64) {
        if !self.footprint.records() {
            return;
        }
        let (write, line, func, code) = site.what();
        self.footprint.access(Access {
            field: SEGMENT_INFOS,
            object: segment,
            write,
            locks: MU,
            site: GoSite {
                file: "meta_cache.go",
                line,
                func,
                code,
            },
        });
        self.seg(segment);
    }

    /// A metacache method that ranges over the map: every segment it holds,
    /// and its membership.
    pub(super) fn mc_all(&mut self, site: Site) {
        if !self.footprint.records() {
            return;
        }
        for k in 0..self.metacache.segments().len() {
            let id = self.metacache.segments()[k].segment;
            self.mc(site, id);
        }
        // The stale entries of `stateSegments` a state-filtered range finds too.
        for k in 0..self.metacache.stale().len() {
            let id = self.metacache.stale()[k].segment;
            self.mc(site, id);
        }
        self.order(key::MC_MEMBERS, 0, 0);
    }

    /// Records that this step touches something of `segment`.
    pub(super) fn seg(&mut self, segment: i64) {
        self.order(key::SEGMENT, segment, 0);
    }

    /// Records an order key.
    pub(super) fn order(&mut self, object: &'static str, a: i64, b: i64) {
        self.footprint.order(object, (a, b));
    }
}
