//! `metaCacheImpl` (`internal/datanode/metacache/meta_cache.go`): segments by id
//! plus a per-state index. Go ranges over maps in random order; here everything is
//! kept sorted by segment id, so logs come out in id order.

use super::setup::{DcSegment, DnSegment, Level, SegState};
use super::{view_keeps, Knobs};
use crate::shared::Shared;

/// `SegmentInfo` (`segment.go`), without the bloom filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetaSeg {
    pub segment: i64,
    pub partition: i64,
    pub state: SegState,
    pub level: Level,
    pub flushed_rows: i64,
    pub buffer_rows: i64,
    pub syncing_rows: i64,
    pub syncing_tasks: i32,
    pub start_pos_recorded: bool,
    /// The bloom filter set has a PK stats history (`GetHistory()` non-empty): from
    /// the statslog it was recovered or loaded with, or from a `RollStats`. A flush
    /// of a non-L0 segment without one cannot serialize its merged stats.
    pub history: bool,
}

impl MetaSeg {
    /// The segment as the scenario declares it at the start (see
    /// [`MetaCache::from_setup`]); `dc`: datacoord's segments, sorted.
    pub fn declared(d: &DnSegment, dc: &[DcSegment]) -> MetaSeg {
        let statslog = dc
            .binary_search_by_key(&d.segment, |c| c.segment)
            .is_ok_and(|i| dc[i].statslog);
        MetaSeg {
            segment: d.segment,
            partition: d.partition,
            state: d.state,
            level: if d.level == Level::Legacy {
                Level::L1
            } else {
                d.level
            },
            flushed_rows: d.rows,
            buffer_rows: 0,
            syncing_rows: 0,
            syncing_tasks: 0,
            start_pos_recorded: true,
            history: statslog,
        }
    }

    /// `NumOfRows = flushedRows + syncingRows + bufferRows`.
    pub fn num_rows(&self) -> i64 {
        self.flushed_rows + self.syncing_rows + self.buffer_rows
    }
}

/// A `SegmentAction` of `actions.go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    UpdateState(SegState),
    UpdateBufferedRows(i64),
    StartSyncing(i64),
    FinishSyncing(i64),
    SetStartPosRecorded(bool),
    RollStats,
}

impl Action {
    fn apply(self, s: &mut MetaSeg) {
        match self {
            Action::UpdateState(st) => s.state = st,
            Action::UpdateBufferedRows(n) => s.buffer_rows = n,
            Action::StartSyncing(n) => {
                s.syncing_rows += n;
                s.buffer_rows -= n;
                s.syncing_tasks += 1;
            }
            Action::FinishSyncing(n) => {
                s.flushed_rows += n;
                s.syncing_rows -= n;
                s.syncing_tasks -= 1;
            }
            Action::SetStartPosRecorded(b) => s.start_pos_recorded = b,
            Action::RollStats => s.history = true,
        }
    }
}

/// The metacache: `segmentInfos` (`segs`, sorted by id) and what Go's per-state
/// index `stateSegments` holds besides them (`stale`).
///
/// Go's `stateSegments[state][id]` normally holds `segmentInfos[id]` under its
/// state, but `addSegment` (meta_cache.go:132-136@ca7ef26e4b, the same at all six
/// commits) overwrites `segmentInfos[id]` and sets `stateSegments[new][id]`
/// without deleting `stateSegments[old][id]` when the segment was there under
/// another state: that entry keeps the old `*SegmentInfo`, stale. The model
/// reaches it when SyncSegments' `UpdateSegmentView` adds a segment (meta_cache.go:
/// 275-290) between bufferInsert's `GetSegmentByID` miss and its `AddSegment(Growing)`
/// (write_buffer.go:532-545). `stale` holds those entries, at most one per (id,
/// state) and never at the current info's own (id, state); Go consults them
/// exactly where it ranges a state map: `rangeWithFilter` (:214-250) with a state
/// filter, whose `criterion.Match` checks only the other filters, on the stale
/// info's own fields. On the model's paths these are the sealed policy
/// (sync_policy.go:73-75, [`MetaCache::ids_in_state`], [`MetaCache::update`]),
/// the dropped policy (:45), sealSegments (write_buffer.go:315-317) and the meta
/// writer's start positions (meta_writer.go:64, [`MetaCache::start_pos_not_recorded`]).
/// `GetSegmentByID`, `DetectMissingSegments`, `UpdateSegmentView` and every
/// `UpdateSegments`/`RemoveSegments` by ids alone range `segmentInfos` and never
/// clean a stale entry; only a later write at the same (id, state) key replaces it.
/// An entry SyncSegments added is stale with `startPosRecorded=true` (:284), so the
/// start positions never list it; a stale Sealed one is picked by the next sealed
/// policy, which swaps its clone in as Flushing (the segment's buffered-row count
/// and Growing state are lost) and leaves bufferInsert's Growing info stale in
/// turn, with `startPosRecorded=false`: every later SaveBinlogPaths of the channel
/// lists its start position. Stale Flushing and Flushed entries (the only ones
/// c65f41dc60 to 439fb24b32 can make, as their handlers add only what their
/// requests hold) are ranged only by the delete path's `PredictSegments`
/// (bf_write_buffer.go:59-60), which the model has no op for.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct MetaCache {
    /// Shared between states until a step writes it (see [`Shared`]).
    segs: Shared<MetaSeg>,
    /// The stale `stateSegments` entries, sorted by (id, state); `None` (not an
    /// empty list: one pointer, so the world's size stays as it was) unless a
    /// segment was overwritten under another state.
    #[allow(clippy::box_collection)] // A thin pointer: 8 bytes, a `Vec` 24.
    stale: Option<Box<Vec<MetaSeg>>>,
}

/// By hand, so that `clone_from` reuses the vector (a derived one allocates a
/// new one: the explorer clones a world into a spare one per transition).
impl Clone for MetaCache {
    fn clone(&self) -> MetaCache {
        MetaCache {
            segs: self.segs.clone(),
            stale: self.stale.clone(),
        }
    }
    fn clone_from(&mut self, o: &MetaCache) {
        self.segs.clone_from(&o.segs);
        self.stale.clone_from(&o.stale);
    }
}

impl MetaCache {
    /// The metacache as the scenario declares it at the start: `NewSegmentInfo`
    /// reads Legacy as L1 (segment.go:102-105); the bloom filters were recovered from
    /// datacoord's PK statslog, if it has one.
    pub fn from_setup(dn: &[DnSegment], dc: &[DcSegment]) -> MetaCache {
        // Both lists are sorted by segment and hold each once (the checker's rule).
        let segs = dn
            .iter()
            .map(|d| MetaSeg::declared(d, dc))
            .collect::<Vec<_>>();
        let mut m = MetaCache {
            segs: segs.into(),
            stale: None,
        };
        if !m.segs.is_sorted_by_key(|s| s.segment) {
            // Not from a checked scenario: sort, the last of equal ids winning as `add` would.
            let segs = std::mem::take(&mut *m.segs);
            for s in segs {
                m.add(s);
            }
        }
        m
    }

    pub fn segments(&self) -> &[MetaSeg] {
        &self.segs
    }

    fn index(&self, id: i64) -> Result<usize, usize> {
        self.segs.binary_search_by_key(&id, |s| s.segment)
    }

    /// `GetSegmentByID` (no filters).
    pub fn get(&self, id: i64) -> Option<&MetaSeg> {
        self.index(id).ok().map(|i| &self.segs[i])
    }

    /// The stale `stateSegments` entries (see [`MetaCache`]), by (id, state).
    pub fn stale(&self) -> &[MetaSeg] {
        self.stale.as_deref().map_or(&[], |v| v.as_slice())
    }

    fn stale_at(&self, id: i64, state: SegState) -> Result<usize, usize> {
        self.stale()
            .binary_search_by_key(&(id, state), |s| (s.segment, s.state))
    }

    /// Takes out the stale entry `k`, the list `None` once empty.
    fn take_stale(&mut self, k: usize) -> MetaSeg {
        let v = self.stale.as_mut().expect("a stale entry");
        let s = v.remove(k);
        if v.is_empty() {
            self.stale = None;
        }
        s
    }

    /// `c.stateSegments[state][id] = ...` or `delete(...)`: whatever stale entry
    /// that key held is gone.
    fn clear_stale(&mut self, id: i64, state: SegState) {
        if let Ok(k) = self.stale_at(id, state) {
            self.take_stale(k);
        }
    }

    /// `old` is no longer `segmentInfos[id]` but stays in `stateSegments[old.state]`.
    fn leave_stale(&mut self, old: MetaSeg) {
        let at = self.stale_at(old.segment, old.state);
        let v = self.stale.get_or_insert_with(Box::default);
        match at {
            Ok(k) => v[k] = old,
            Err(k) => v.insert(k, old),
        }
    }

    /// `AddSegment` / `addSegment` (meta_cache.go:132-136): `segmentInfos[id] = seg`
    /// and `stateSegments[seg.state][id] = seg`; a segment there under another
    /// state leaves its old info stale in that state's map.
    pub fn add(&mut self, seg: MetaSeg) {
        match self.index(seg.segment) {
            Ok(i) => {
                let old = std::mem::replace(&mut self.segs[i], seg);
                if old.state != seg.state {
                    self.leave_stale(old);
                }
            }
            Err(i) => self.segs.insert(i, seg),
        }
        if self.stale.is_some() {
            self.clear_stale(seg.segment, seg.state);
        }
    }

    /// `UpdateSegments(action, WithSegmentIDs(id), [WithSegmentState(states...)])`
    /// (meta_cache.go:189-200): without states it ranges `segmentInfos`; with them,
    /// `stateSegments[state]` for each (:221-224), a stale entry included: its clone,
    /// acted on, becomes `segmentInfos[id]` (the segment comes back if it had
    /// gone), the stale key is deleted (:197), and the info it replaces stays in
    /// its own state's map, stale. Returns whether it applied.
    pub fn update(&mut self, id: i64, states: Option<&[SegState]>, actions: &[Action]) -> bool {
        let Some(states) = states else {
            let Ok(i) = self.index(id) else { return false };
            return self.update_entry(id, Ok(i), actions);
        };
        let mut applied = false;
        for &st in states {
            let at = match self.index(id) {
                Ok(i) if self.segs[i].state == st => Ok(i),
                _ => match self.stale_at(id, st) {
                    Ok(k) => Err(k),
                    Err(_) => continue,
                },
            };
            applied |= self.update_entry(id, at, actions);
        }
        applied
    }

    /// One entry `UpdateSegments` ranges over: `Ok(i)`, `segs[i]`; `Err(k)`, `stale[k]`.
    fn update_entry(&mut self, id: i64, at: Result<usize, usize>, actions: &[Action]) -> bool {
        let info = match at {
            Ok(i) => self.segs[i],
            Err(k) => self.take_stale(k),
        };
        // An update that changes nothing leaves a shared list shared.
        let mut n = info;
        for a in actions {
            a.apply(&mut n);
        }
        match (at, self.index(id)) {
            // The segment's own info: its old state's key is deleted (:197).
            (Ok(_), Ok(i)) => {
                if n != self.segs[i] {
                    self.segs[i] = n;
                }
                if self.stale.is_some() {
                    self.clear_stale(id, n.state);
                }
            }
            // A stale entry's clone: written as `addSegment` writes it.
            _ => self.add(n),
        }
        true
    }

    /// Feeds `h` what tells the segments apart (see [`Shared::hash_fingerprint`]);
    /// stale entries only when there are some.
    pub fn hash_fingerprint<H: std::hash::Hasher>(&self, h: &mut H) {
        use std::hash::Hash;
        self.segs.hash_fingerprint(h);
        if let Some(v) = &self.stale {
            v.hash(h);
        }
    }

    /// `RemoveSegments(WithSegmentIDs(id))` (meta_cache.go:138-154): ranges
    /// `segmentInfos`, so a stale entry of the id stays.
    pub fn remove(&mut self, id: i64) -> Option<MetaSeg> {
        self.index(id).ok().map(|i| self.segs.remove(i))
    }

    /// `GetSegmentIDsBy(WithSegmentState(state))`: `stateSegments[state]`, stale
    /// entries included, by id.
    pub fn ids_in_state(&self, state: SegState) -> Vec<i64> {
        self.ids_where(|s| s.state == state)
    }

    /// `GetSegmentsBy(WithSegmentState(states...), WithStartPosNotRecorded())`
    /// (meta_writer.go:64-65): the ids of the entries of those state maps, stale
    /// ones included, whose own `startPosRecorded` is false, by id (an id twice if
    /// two of its entries qualify, as Go's list would hold it twice).
    pub fn start_pos_not_recorded(&self, states: &[SegState]) -> Vec<i64> {
        self.ids_where(|s| states.contains(&s.state) && !s.start_pos_recorded)
    }

    /// Whether `stateSegments[state]` holds a stale entry of `id` (see [`MetaCache`]).
    pub fn is_stale(&self, id: i64, state: SegState) -> bool {
        self.stale.is_some() && self.stale_at(id, state).is_ok()
    }

    /// The ids of the entries, current and stale, that `keep` keeps, by id.
    fn ids_where(&self, keep: impl Fn(&MetaSeg) -> bool) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .segs
            .iter()
            .chain(self.stale())
            .filter(|s| keep(s))
            .map(|s| s.segment)
            .collect();
        if self.stale.is_some() {
            ids.sort_unstable();
        }
        ids
    }

    /// `UpdateSegmentView(partition, newSegments, _, allSegments)` under `knobs`:
    /// adds each new segment that is still missing ("check again"), then removes every
    /// cached segment of the partition that is not in `all`, unless the version's
    /// predicate keeps it. Returns the added ids, and in id order each segment of the
    /// partition absent from `all`, with `true` if it was removed (`false`: kept).
    pub fn update_segment_view(
        &mut self,
        knobs: Knobs,
        partition: i64,
        new_segments: &[MetaSeg],
        all: &[i64],
    ) -> (Vec<i64>, Vec<(MetaSeg, bool)>) {
        debug_assert!(all.is_sorted(), "a request lists its segments by id");
        // The new segments still missing, in id order (the first of equal ids).
        let mut fresh: Vec<MetaSeg> = Vec::new();
        for n in new_segments {
            if self.get(n.segment).is_none() {
                fresh.push(MetaSeg {
                    partition,
                    start_pos_recorded: true,
                    ..*n
                });
            }
        }
        crate::order::sort_by_key(&mut fresh, |s| s.segment);
        fresh.dedup_by_key(|s| s.segment);
        let added: Vec<i64> = fresh.iter().map(|s| s.segment).collect();
        let added_states: Vec<(i64, SegState)> = if self.stale.is_none() {
            Vec::new()
        } else {
            fresh.iter().map(|s| (s.segment, s.state)).collect()
        };
        // One merge of the two sorted lists instead of an insert each.
        if !fresh.is_empty() {
            let mut merged = Vec::with_capacity(self.segs.len() + fresh.len());
            let (mut a, mut b) = (
                self.segs.iter().copied().peekable(),
                fresh.into_iter().peekable(),
            );
            loop {
                let take_a = match (a.peek(), b.peek()) {
                    (Some(x), Some(y)) => x.segment < y.segment,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (None, None) => break,
                };
                let next = if take_a { a.next() } else { b.next() };
                merged.extend(next);
            }
            self.segs = merged.into();
            // :288 `c.stateSegments[state][id] = segInfo` replaces a stale entry
            // of that key; the removals below (:300-301) delete only the key of
            // the info in `segmentInfos`, and a stale one stays.
            if self.stale.is_some() {
                for s in &added_states {
                    self.clear_stale(s.0, s.1);
                }
            }
        }
        // Read first, write only when a segment goes: a view that removes nothing
        // leaves the list shared with the states before.
        let gone = |s: &MetaSeg| {
            let absent = s.partition == partition && all.binary_search(&s.segment).is_err();
            (absent, absent && !view_keeps(knobs, s, partition))
        };
        let absent: Vec<(MetaSeg, bool)> = self
            .segs
            .iter()
            .filter_map(|s| match gone(s) {
                (true, removed) => Some((*s, removed)),
                (false, _) => None,
            })
            .collect();
        if absent.iter().any(|a| a.1) {
            self.segs.retain(|s| !gone(s).1);
        }
        (added, absent)
    }

    /// `DetectMissingSegments`: ids of `set` that are not cached, in `set`'s order
    /// (requests list segments by id).
    pub fn detect_missing(&self, set: &[i64]) -> Vec<i64> {
        set.iter()
            .copied()
            .filter(|id| self.get(*id).is_none())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::sync2024::setup::Version;

    fn seg(id: i64, state: SegState) -> MetaSeg {
        MetaSeg {
            segment: id,
            partition: 1,
            state,
            level: Level::L1,
            flushed_rows: 0,
            buffer_rows: 0,
            syncing_rows: 0,
            syncing_tasks: 0,
            start_pos_recorded: true,
            history: false,
        }
    }

    #[test]
    fn add_get_remove_and_state_index() {
        let mut m = MetaCache::default();
        m.add(seg(3, SegState::Growing));
        m.add(seg(1, SegState::Flushed));
        assert_eq!(
            m.segments().iter().map(|s| s.segment).collect::<Vec<_>>(),
            vec![1, 3]
        );
        assert_eq!(m.ids_in_state(SegState::Growing), vec![3]);
        assert!(m.get(2).is_none());
        assert_eq!(m.remove(3).map(|s| s.segment), Some(3));
        assert!(m.get(3).is_none());
        assert_eq!(m.ids_in_state(SegState::Growing), Vec::<i64>::new());
        assert_eq!(m.remove(3), None);
    }

    #[test]
    fn update_respects_state_filter_and_moves_state() {
        let mut m = MetaCache::default();
        m.add(seg(7, SegState::Growing));
        // sealSegments: only Growing -> Sealed.
        assert!(m.update(
            7,
            Some(&[SegState::Growing]),
            &[Action::UpdateState(SegState::Sealed)]
        ));
        assert!(!m.update(
            7,
            Some(&[SegState::Growing]),
            &[Action::UpdateState(SegState::Sealed)]
        ));
        assert_eq!(m.ids_in_state(SegState::Sealed), vec![7]);
        assert!(!m.update(8, None, &[Action::UpdateState(SegState::Sealed)]));
    }

    #[test]
    fn syncing_actions_move_rows() {
        let mut m = MetaCache::default();
        m.add(seg(7, SegState::Growing));
        m.update(7, None, &[Action::UpdateBufferedRows(10)]);
        m.update(7, None, &[Action::StartSyncing(10)]);
        let s = m.get(7).unwrap();
        assert_eq!(
            (s.buffer_rows, s.syncing_rows, s.syncing_tasks, s.num_rows()),
            (0, 10, 1, 10)
        );
        m.update(7, None, &[Action::FinishSyncing(10)]);
        let s = m.get(7).unwrap();
        assert_eq!(
            (s.flushed_rows, s.syncing_rows, s.syncing_tasks),
            (10, 0, 0)
        );
    }

    #[test]
    fn update_segment_view_adds_removes_and_keeps_per_version() {
        let setup = || {
            let mut m = MetaCache::default();
            m.add(seg(1, SegState::Flushed));
            m.add(seg(2, SegState::Growing));
            m.add(MetaSeg {
                level: Level::L0,
                ..seg(3, SegState::Growing)
            });
            m.add(MetaSeg {
                partition: 9,
                ..seg(4, SegState::Flushed)
            });
            m.add(seg(5, SegState::Flushing));
            m
        };
        let new = [MetaSeg {
            flushed_rows: 42,
            ..seg(6, SegState::Flushed)
        }];
        // (removed ids, kept-though-absent ids)
        let split = |v: Vec<(MetaSeg, bool)>| {
            let ids = |gone: bool| {
                v.iter()
                    .filter(|x| x.1 == gone)
                    .map(|x| x.0.segment)
                    .collect::<Vec<_>>()
            };
            (ids(true), ids(false))
        };
        // The request lists 1 and 6 only.
        let mut m = setup();
        let (added, absent) =
            m.update_segment_view(Knobs::of(Version::Ca7ef26e4b), 1, &new, &[1, 6]);
        assert_eq!(added, vec![6]);
        assert_eq!(m.get(6).unwrap().flushed_rows, 42);
        assert_eq!(
            split(absent),
            (vec![2, 5], vec![3]),
            "buggy: only the L0 Growing one is spared"
        );
        assert!(m.get(4).is_some(), "another partition is never touched");
        let mut m = setup();
        let (_, absent) = m.update_segment_view(Knobs::of(Version::B5c9a7364b), 1, &new, &[1, 6]);
        assert_eq!(split(absent), (vec![5], vec![2, 3]));
        let mut m = setup();
        let (_, absent) = m.update_segment_view(Knobs::of(Version::C65f41dc60), 1, &new, &[1, 6]);
        assert_eq!(
            split(absent).0,
            vec![5],
            "Flushing is still removed at c65f41dc60"
        );
        let mut m = setup();
        let (_, absent) = m.update_segment_view(Knobs::of(Version::V4cf1a358ba), 1, &new, &[6]);
        assert_eq!(
            split(absent),
            (vec![1], vec![2, 3, 5]),
            "only Flushed segments go"
        );
        // "Check again": a segment that appeared meanwhile is not overwritten.
        let mut m = MetaCache::default();
        m.add(seg(6, SegState::Growing));
        let (added, _) = m.update_segment_view(Knobs::of(Version::Ca7ef26e4b), 1, &new, &[6]);
        assert!(added.is_empty());
        assert_eq!(m.get(6).unwrap().state, SegState::Growing);
    }

    /// meta_cache.go:132-136: an AddSegment that overwrites a segment under
    /// another state leaves the old info in the old state's map; ranges by id
    /// never see or clean it, ranges by state do (:214-250).
    #[test]
    fn an_overwrite_under_another_state_leaves_a_stale_entry() {
        let mut m = MetaCache::default();
        // UpdateSegmentView added 300 Sealed; bufferInsert's AddSegment(Growing).
        m.add(seg(300, SegState::Sealed));
        m.add(MetaSeg {
            start_pos_recorded: false,
            ..seg(300, SegState::Growing)
        });
        assert_eq!(m.get(300).unwrap().state, SegState::Growing);
        assert_eq!(m.stale(), &[seg(300, SegState::Sealed)]);
        assert_eq!(m.ids_in_state(SegState::Sealed), vec![300]);
        assert_eq!(m.ids_in_state(SegState::Growing), vec![300]);
        // By id (UpdateBufferedRows, write_buffer.go:550-551): the stale entry stays.
        assert!(m.update(300, None, &[Action::UpdateBufferedRows(20)]));
        assert_eq!(m.stale(), &[seg(300, SegState::Sealed)]);
        // The start positions (meta_writer.go:64-65): the stale Sealed entry has
        // its own startPosRecorded=true, so only the current one counts.
        let g_s_f = [SegState::Growing, SegState::Sealed, SegState::Flushing];
        assert_eq!(m.start_pos_not_recorded(&g_s_f), vec![300]);
        // The sealed policy (sync_policy.go:73-75) finds the stale entry: its clone,
        // made Flushing, becomes the info; the Growing one is stale in turn.
        assert!(m.update(
            300,
            Some(&[SegState::Sealed]),
            &[Action::UpdateState(SegState::Flushing)]
        ));
        assert_eq!(m.get(300), Some(&seg(300, SegState::Flushing)));
        let growing = MetaSeg {
            start_pos_recorded: false,
            buffer_rows: 20,
            ..seg(300, SegState::Growing)
        };
        assert_eq!(m.stale(), &[growing]);
        assert_eq!(m.ids_in_state(SegState::Sealed), Vec::<i64>::new());
        // Its startPosRecorded=false is never set by the meta writer's update by id.
        assert!(m.update(300, None, &[Action::SetStartPosRecorded(true)]));
        assert_eq!(m.start_pos_not_recorded(&g_s_f), vec![300]);
        // RemoveSegments by id ranges segmentInfos: the stale entry outlives it,
        // and sealSegments' range over Growing (write_buffer.go:315-317) brings
        // the segment back from it.
        assert!(m.remove(300).is_some());
        assert!(m.get(300).is_none());
        assert_eq!(m.stale(), &[growing]);
        assert!(m.update(
            300,
            Some(&[SegState::Growing]),
            &[Action::UpdateState(SegState::Sealed)]
        ));
        assert_eq!(m.get(300).unwrap().state, SegState::Sealed);
        assert!(m.stale().is_empty());
    }

    /// A write at the stale entry's own (id, state) key replaces it: an AddSegment
    /// back under that state, UpdateSegmentView's add (:288), an update that moves
    /// the segment into that state (:198).
    #[test]
    fn a_write_at_the_same_key_replaces_the_stale_entry() {
        let stale_of = |m: &mut MetaCache| {
            m.add(seg(5, SegState::Flushed));
            m.add(seg(5, SegState::Growing));
            assert_eq!(m.stale().len(), 1);
        };
        let mut m = MetaCache::default();
        stale_of(&mut m);
        m.add(seg(5, SegState::Flushed));
        assert_eq!(m.stale(), &[seg(5, SegState::Growing)]);
        let mut m = MetaCache::default();
        stale_of(&mut m);
        m.update(5, None, &[Action::UpdateState(SegState::Flushed)]);
        assert!(m.stale().is_empty());
        // UpdateSegmentView removes the Growing info (ca7ef26e4b), then adds 5 back
        // Flushed: the stale Flushed entry survives the removal, the add replaces it.
        let mut m = MetaCache::default();
        stale_of(&mut m);
        let k = Knobs::of(Version::Ca7ef26e4b);
        let (_, absent) = m.update_segment_view(k, 1, &[], &[]);
        assert_eq!(absent.len(), 1);
        assert!(m.get(5).is_none());
        assert_eq!(m.stale(), &[seg(5, SegState::Flushed)]);
        let new = [MetaSeg {
            flushed_rows: 9,
            ..seg(5, SegState::Flushed)
        }];
        let (added, _) = m.update_segment_view(k, 1, &new, &[5]);
        assert_eq!(added, vec![5]);
        assert!(m.stale().is_empty());
    }

    #[test]
    fn detect_missing_keeps_the_request_order_and_is_exact() {
        let mut m = MetaCache::default();
        m.add(seg(1, SegState::Flushed));
        assert_eq!(m.detect_missing(&[4, 1, 9]), vec![4, 9]);
        assert_eq!(m.detect_missing(&[1]), Vec::<i64>::new());
    }
}
