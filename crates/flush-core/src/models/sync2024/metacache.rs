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

/// The metacache: `segmentInfos` and `stateSegments` are one sorted vector here;
/// the per-state index is derived ([`MetaCache::ids_in_state`]), so the two can
/// never disagree. Go's can: an `AddSegment` that overwrites a segment under
/// another state leaves its old `stateSegments` entry (meta_cache.go:132-136), and a
/// policy ranging over a state could pick that stale entry up. Reaching it needs
/// SyncSegments to add a segment between bufferInsert's lookup and its AddSegment
/// and the sealed policy to run then: not modelled.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct MetaCache {
    /// Shared between states until a step writes it (see [`Shared`]).
    segs: Shared<MetaSeg>,
}

/// By hand, so that `clone_from` reuses the vector (a derived one allocates a
/// new one: the explorer clones a world into a spare one per transition).
impl Clone for MetaCache {
    fn clone(&self) -> MetaCache {
        MetaCache {
            segs: self.segs.clone(),
        }
    }
    fn clone_from(&mut self, o: &MetaCache) {
        self.segs.clone_from(&o.segs);
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
        let mut m = MetaCache { segs: segs.into() };
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

    /// `AddSegment` / `addSegment`: inserts or overwrites.
    pub fn add(&mut self, seg: MetaSeg) {
        match self.index(seg.segment) {
            Ok(i) => self.segs[i] = seg,
            Err(i) => self.segs.insert(i, seg),
        }
    }

    /// `UpdateSegments(action, WithSegmentIDs(id), [WithSegmentState(states...)])`:
    /// applies to the segment if present (and in one of `states`, when given).
    /// Returns whether it applied.
    pub fn update(&mut self, id: i64, states: Option<&[SegState]>, actions: &[Action]) -> bool {
        let Ok(i) = self.index(id) else { return false };
        if let Some(st) = states {
            if !st.contains(&self.segs[i].state) {
                return false;
            }
        }
        // An update that changes nothing leaves a shared list shared.
        let mut s = self.segs[i];
        for a in actions {
            a.apply(&mut s);
        }
        if s != self.segs[i] {
            self.segs[i] = s;
        }
        true
    }

    /// Feeds `h` what tells the segments apart (see [`Shared::hash_fingerprint`]).
    pub fn hash_fingerprint<H: std::hash::Hasher>(&self, h: &mut H) {
        self.segs.hash_fingerprint(h)
    }

    /// `RemoveSegments(WithSegmentIDs(id))`.
    pub fn remove(&mut self, id: i64) -> Option<MetaSeg> {
        self.index(id).ok().map(|i| self.segs.remove(i))
    }

    /// `GetSegmentIDsBy(WithSegmentState(state))`.
    pub fn ids_in_state(&self, state: SegState) -> Vec<i64> {
        self.segs
            .iter()
            .filter(|s| s.state == state)
            .map(|s| s.segment)
            .collect()
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

    #[test]
    fn detect_missing_keeps_the_request_order_and_is_exact() {
        let mut m = MetaCache::default();
        m.add(seg(1, SegState::Flushed));
        assert_eq!(m.detect_missing(&[4, 1, 9]), vec![4, 9]);
        assert_eq!(m.detect_missing(&[1]), Vec::<i64>::new());
    }
}
