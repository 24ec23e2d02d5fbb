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

impl World {
    /// Records that this step calls the metacache method `site`.
    pub(super) fn mc(&mut self, site: Site) {
        let (write, line, func, code) = site.what();
        self.footprint.0.push(Access {
            field: SEGMENT_INFOS,
            object: 0,
            write,
            locks: MU,
            site: GoSite {
                file: "meta_cache.go",
                line,
                func,
                code,
            },
        });
    }
}
