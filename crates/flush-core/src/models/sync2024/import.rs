//! A sync-2024 scenario inferred from a Milvus log (issue 12): the smallest one
//! whose segments, actors and version are consistent with the lines the model
//! knows. Real segment and partition ids are kept. What each part was inferred
//! from is written down (`notes`, with the log's line numbers) so that an
//! on-call engineer can check it against the log.
//!
//! The conformance search (`logs::conform`) then decides whether the scenario
//! explains the log; this module only proposes it.

use std::collections::BTreeMap;

use super::facts::{line_of, LOG_SITES};
use super::setup::{Level, SegState, Version};
use crate::logs::conform::{knows, short_caller};
use crate::logs::{Inferred, Kind, LogLine, Parsed, MAX_GROUPS};

/// Segments an inferred scenario keeps (a log may name thousands).
pub const MAX_SEGMENTS: usize = 64;
/// SyncSegments requests an inferred scenario keeps.
pub const MAX_REQUESTS: usize = 8;
/// Sync ops of one segment an inferred scenario keeps.
pub const MAX_SYNCS: usize = 4;

/// Which line says that a segment's sync was a flush.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlushFrom {
    /// Datacoord's "flush segment complete" (server.go:1069@ca7ef26e4b).
    Complete,
    /// "failed to serialize merged stats log" (storage_serializer.go:115@ca7ef26e4b).
    MergedStats,
}

/// What a segment was seen doing in the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Seg {
    partition: Option<i64>,
    /// In a "sync segments success" list: datacoord selected it (for which
    /// request, counted from 1; 0: none).
    selected: bool,
    selected_in: usize,
    added: bool,
    removed: bool,
    /// The request whose handler removed it (counted from 1).
    removed_in: usize,
    /// SyncSegments warned that it is L0 or Legacy and did not load it.
    skipped: bool,
    /// Datacoord's SaveBinlogPaths did not find it ("failed to get segment",
    /// services.go:489@ca7ef26e4b): the datanode syncs a segment datacoord lacks.
    dc_missing: bool,
    /// Datacoord has it Dropped ("save to dropped segment", services.go:494@ca7ef26e4b).
    dc_dropped: bool,
    /// A sync task (or the flow graph's getSyncTask) ran for it.
    synced: bool,
    level: Option<Level>,
    first_at: u32,
    /// Not in the log: it stands for what a request carried (see `stand_in`).
    stand_in: bool,
    /// Its sync was a flush, and the first line that says so: the flow graph
    /// seals it before that sync (see `flowgraph_ops`).
    flush: Option<(u32, FlushFrom)>,
    /// Not in the log: a segment without a PK statslog that the datanode
    /// loaded (see `Seen::nil_stand_ins`).
    no_statslog: bool,
    /// Datacoord selected it for a request the datanode found empty ("sync
    /// segments is empty, skip it", services.go:291@ca7ef26e4b): it was not sent.
    unsent: bool,
    /// SyncSegments added it and its sync was a flush: datacoord holds it
    /// Sealed with a PK statslog, and the flow graph's insert looked it up
    /// before the handler added it (see [`Seen::stale_sealed`]).
    stale_sealed: bool,
}

/// One SyncSegments request, as the two sides log it. Datacoord's scheduler
/// sends one at a time and waits for the answer (sync_segments_scheduler.go:
/// 51-70, the RPC is synchronous, session_manager.go:227-258 at c65f41dc60),
/// so requests follow one another: a datanode's lines fall inside the one
/// open, and a "sync segments success" closes the open one of its partition.
#[derive(Clone, Copy, Debug, Default)]
struct Req {
    partition: Option<i64>,
    /// "DataNode receives SyncSegments": absent when the log starts inside
    /// the handler (the real #34018 excerpt does).
    received: Option<u32>,
    /// Datacoord's "sync segments success".
    succeeded: Option<u32>,
    /// The first line of it the log shows (for the handler lines before
    /// either side's: the first of them).
    first: u32,
    /// Datacoord's "failed to sync segments": its first attempt timed out
    /// and retry.Do sent it again (session_manager.go:240-250@ca7ef26e4b),
    /// so two handlers serve it, the first maybe after its success.
    retried: Option<u32>,
    /// "DataNode receives SyncSegments" lines still to come that are its
    /// handlers' (the attempts' own), not new requests.
    receives_left: u8,
}

#[derive(Default)]
struct Seen {
    segs: BTreeMap<i64, Seg>,
    /// The SyncSegments requests in the order they were handled.
    requests: Vec<Req>,
    /// The flow graph's ops in log order: (segment, line).
    syncs: Vec<(i64, u32)>,
    /// Nil-pointer panics of the stats pool: (line, request counted from 1).
    nil_loads: Vec<(u32, usize)>,
    /// Requests (counted from 1) the datanode found empty.
    empty: Vec<usize>,
    notes: Vec<String>,
    /// Lines with an ID field the model cannot read (see `Seen::unread_ids`).
    unread: usize,
    /// A partition the log does not name, whose request came before the log
    /// starts (see [`Seen::place_new_growing`]).
    before_log: Option<i64>,
}

/// The fields the inference reads an ID from (the model's lines carry no others).
const ID_KEYS: [&str; 8] = [
    "segmentID",
    "SegmentID",
    "key",
    "partitionID",
    "ParitionID",
    "segments",
    "id",
    "panic",
];

/// The model's lines that carry no ID field: session_manager.go:256 and
/// syncmgr/meta_writer.go:119@ca7ef26e4b.
const NO_ID: [&str; 2] = [
    "success to sync segments",
    "meta error found, skip sync and start to drop virtual channel",
];

/// An id past `max`, the largest in use; when `max` is i64::MAX, the largest
/// free one below it (it took `max - 1_000_000` unchecked, which a line of the
/// log may name: the stand-in then replaced that segment).
fn free_id(max: i64, used: impl Fn(i64) -> bool) -> i64 {
    max.checked_add(1)
        .or_else(|| (i64::MIN..max).rev().find(|&i| !used(i)))
        .unwrap_or(i64::MIN)
}

/// Lines whose unreadable IDs the notes name (see `Seen::unread_ids`).
const TOLD: usize = 3;

fn id(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// The fields that name a line's own segment, in the order they are read.
const SEGMENT_KEYS: [&str; 3] = ["segmentID", "SegmentID", "key"];

/// The fields that name a line's partition, in the order they are read: the
/// sync task's "SaveBinlogPath" line spells it `ParitionID` (sic,
/// internal/datanode/syncmgr/meta_writer.go:72-75@ca7ef26e4b, the same at
/// b5c9a7364b, c65f41dc60, 4cf1a358ba, 2e434e4453 and 439fb24b32).
const PARTITION_KEYS: [&str; 2] = ["partitionID", "ParitionID"];

/// A line's partition, from the first of [`PARTITION_KEYS`] it has readable.
fn partition_of(l: &LogLine) -> Option<i64> {
    PARTITION_KEYS.iter().find_map(|k| l.field(k).and_then(id))
}

/// The entries of a list value, `[1,2]` or `[1 2]`, as the log has them.
fn list_entries(v: &str) -> impl Iterator<Item = &str> {
    v.trim_matches(['[', ']']).split([',', ' '])
}

/// Every segment line `l` names, as the inference reads them: its own
/// (`SEGMENT_KEYS`) and those of a `segments` list.
pub(crate) fn named_segments(l: &LogLine) -> impl Iterator<Item = i64> + '_ {
    SEGMENT_KEYS
        .iter()
        .filter_map(|k| l.field(k).and_then(id))
        .chain(
            l.field("segments")
                .into_iter()
                .flat_map(list_entries)
                .filter_map(id),
        )
}

/// The file as the model's log sites name it (`datacoord/services.go`).
fn file(l: &LogLine) -> &str {
    short_caller(&l.file)
}

/// `segment not found[segment=300]` → 300.
fn panic_segment(message: &str) -> Option<i64> {
    let rest = message.split_once("segment not found[segment=")?.1;
    id(rest.split(']').next()?)
}

impl Seen {
    /// A request's handler removes segments only when the request carries some
    /// (services.go:291@ca7ef26e4b: an empty one returns first). When the log
    /// shows removals in a request but names no segment it carried (datacoord's
    /// "sync segments success" line is missing), one flushed segment that the log
    /// does not name stands for them, in both datacoord and the datanode.
    fn stand_in(&mut self, notes: &mut Vec<String>) {
        let requests: Vec<(u32, Option<i64>)> = match &self.requests[..] {
            [] => vec![(
                self.segs.values().map(|s| s.first_at).min().unwrap_or(1),
                None,
            )],
            rs => rs.iter().map(|r| (r.first, r.partition)).collect(),
        };
        for (k, &(at, partition)) in requests.iter().enumerate() {
            let removes = self
                .segs
                .values()
                .any(|s| s.removed && s.removed_in == k + 1);
            let carried = |s: &Seg| {
                s.partition == partition
                    && (s.added || s.skipped || s.no_statslog || (s.selected && !s.removed))
            };
            if !removes || self.segs.values().any(carried) {
                continue;
            }
            let id = self.new_id();
            self.segs.insert(
                id,
                Seg {
                    partition,
                    selected: true,
                    selected_in: k + 1,
                    first_at: at,
                    stand_in: true,
                    ..Seg::default()
                },
            );
            notes.push(format!(
                "Request {} (line {at}) removes segments but the log names none it carried; segment {id}, not in the log, stands for them (flushed, with a PK statslog, in datacoord and the datanode).",
                k + 1
            ));
        }
    }

    /// A new growing segment the log gives no partition (no list names it):
    /// datacoord lists every segment of a partition its version's filter
    /// selects in "sync segments success" (sync_segments_scheduler.go:115-117,
    /// 145@ca7ef26e4b), a Growing one too where the filter takes healthy
    /// segments. So it is in the partition of a request whose list the log
    /// lacks; when every request's list is there, in one the log does not
    /// name, whose request came before the log starts (the real #34018
    /// excerpt: the panicking segment is in neither logged list, and its
    /// removal is not in the excerpt; found by a helper replaying it).
    fn place_new_growing(&mut self, version: Version, notes: &mut Vec<String>) {
        let k = super::knobs::Knobs::of(version);
        let orphans: Vec<i64> = self
            .segs
            .iter()
            .filter(|(_, s)| {
                s.partition.is_none()
                    && s.synced
                    && !(s.added || s.dc_missing || s.dc_dropped || s.no_statslog || s.stand_in)
            })
            .filter(|(&id, s)| {
                let dc = super::setup::DcSegment {
                    segment: id,
                    partition: 0,
                    state: SegState::Growing,
                    level: s.level.unwrap_or(Level::L1),
                    statslog: false,
                    rows: 0,
                };
                super::knobs::selected(k, &dc)
            })
            .map(|(&id, _)| id)
            .collect();
        if orphans.is_empty() || self.requests.is_empty() {
            return;
        }
        let unlisted = self
            .requests
            .iter()
            .find(|r| r.succeeded.is_none() && r.partition.is_some())
            .and_then(|r| r.partition);
        let partition = unlisted.unwrap_or_else(|| {
            let named: Vec<i64> = (self.requests.iter().map(|r| r.partition))
                .chain(self.segs.values().map(|s| s.partition))
                .flatten()
                .collect();
            let max = named.iter().max();
            let p = max.map_or(1, |&m| free_id(m, |p| named.contains(&p)));
            self.before_log = Some(p);
            p
        });
        for id in &orphans {
            if let Some(s) = self.segs.get_mut(id) {
                s.partition = Some(partition);
            }
        }
        let ids = orphans
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(p) = unlisted {
            notes.push(format!("Segment {ids}: no logged list of datacoord's names it, so it is in partition {p}, the one request whose list the log lacks."));
            return;
        }
        // That request removed the segment only if it carried one (an empty
        // one returns first, services.go:291@ca7ef26e4b): a flushed segment
        // with a PK statslog, not in the log, stands for what it carried.
        let id = self.new_id();
        let first_at = self.requests[0].first;
        self.segs.insert(
            id,
            Seg {
                partition: Some(partition),
                selected: true,
                first_at,
                stand_in: true,
                ..Seg::default()
            },
        );
        notes.push(format!("Segment {ids}: no logged list of datacoord's names it, though {} lists a growing segment, so it is in none of the logged requests' partitions: partition {partition}, not in the log, stands for its own, whose SyncSegments request came before the log starts; segment {id}, not in the log either, stands for what that request carried (flushed, with a PK statslog, in datacoord and the datanode).", version.as_str()));
    }

    /// An id the log does not name, for a segment standing in for one (every
    /// segment a line the model knows names is in `segs`).
    fn new_id(&self) -> i64 {
        let max = self.segs.keys().next_back().copied().unwrap_or(0);
        free_id(max, |i| self.segs.contains_key(&i))
    }

    /// A nil-pointer panic of the stats pool while request `k` is handled: the
    /// handler loads in the stats pool the PK statslog of each requested segment
    /// the datanode lacks, and binlog.DecompressBinLog dereferences a missing one
    /// (services.go:314-321@c65f41dc60). The log does not name the segment: one
    /// Flushed L1 segment without a PK statslog, in datacoord and not in the
    /// datanode, stands for it (every version that sends such a segment loads
    /// a Flushed L1 one).
    fn nil_stand_ins(&mut self, notes: &mut Vec<String>) {
        let mut done = Vec::new();
        for (at, k) in std::mem::take(&mut self.nil_loads) {
            // A request past those modelled has no handler to load it.
            if done.contains(&k) || k > MAX_REQUESTS {
                continue;
            }
            done.push(k);
            let partition = self.requests.get(k - 1).and_then(|r| r.partition);
            let id = self.new_id();
            self.segs.insert(
                id,
                Seg {
                    partition,
                    first_at: at,
                    stand_in: true,
                    no_statslog: true,
                    ..Seg::default()
                },
            );
            notes.push(format!(
                "Line {at}: the stats pool panicked on a nil pointer while SyncSegments request {k} loaded the segments the datanode lacks: binlog.DecompressBinLog dereferences a missing PK statslog (services.go:314-321@c65f41dc60). The log does not name the segment; segment {id}, not in the log, stands for it: Flushed and L1 in datacoord without a PK statslog, not in the datanode (datacoord sends such a segment from c65f41dc60 on, and every version loads it; ca7ef26e4b and b5c9a7364b send only segments with a PK statslog)."
            ));
        }
    }

    /// A segment SyncSegments added ("metacache does not have segment, add
    /// it") whose sync the log shows was a flush. An added segment is held
    /// Flushed in datacoord (`rows`), but a Flushed one is never sealed (the
    /// `seal` op, like FlushSegments, takes only a segment datacoord holds
    /// Sealed), so this one was Sealed with a PK statslog, which the versions
    /// that send and load those send (ca7ef26e4b, b5c9a7364b, 4cf1a358ba).
    /// The flow graph's insert looked it up before the handler added it and
    /// then added it Growing: `addSegment` leaves the Sealed info in
    /// `stateSegments` (meta_cache.go:132-136@ca7ef26e4b), and the insert's
    /// sealed-segment policy finds that stale entry and flushes the segment
    /// (sync_policy.go:71-77@ca7ef26e4b). So the insert stands for its first
    /// sync (see `flowgraph_ops`).
    fn stale_sealed(&mut self, version: Version) {
        let k = super::knobs::Knobs::of(version);
        for (&id, s) in self.segs.iter_mut() {
            let level = s.level.unwrap_or(Level::L1);
            let dc = super::setup::DcSegment {
                segment: id,
                partition: 0,
                state: SegState::Sealed,
                level,
                statslog: true,
                rows: 1000,
            };
            s.stale_sealed = s.added
                && s.flush.is_some()
                && level != Level::L0
                && !(s.removed || s.skipped || s.dc_missing || s.dc_dropped || s.stand_in)
                && super::knobs::request_includes(k, &dc)
                && super::knobs::loads(k, level, SegState::Sealed);
        }
    }

    fn seg(&mut self, segment: i64, at: u32) -> &mut Seg {
        self.segs.entry(segment).or_insert(Seg {
            first_at: at,
            ..Seg::default()
        })
    }

    fn read(&mut self, at: u32, kind: &Kind) {
        match kind {
            // Only lines the model prints (its sites, at their line numbers) infer anything.
            Kind::Log(l) if !knows(LOG_SITES, file(l), &l.message, l.line) => {}
            Kind::Log(l) => {
                self.cut_short(at, l);
                self.read_line(at, l)
            }
            Kind::Panic { message, .. } => {
                if let Some(s) = panic_segment(message) {
                    self.synced(s, at, false);
                }
            }
            Kind::Unmatched { .. } => {}
        }
    }

    /// Line `at` says that `segment`'s sync was a flush (the first line that
    /// says so is kept).
    fn flushed(&mut self, segment: i64, at: u32, from: FlushFrom) {
        let seg = self.seg(segment, at);
        seg.flush = seg.flush.or(Some((at, from)));
    }

    /// "Conc pool panicked" (conc/options.go:54@ca7ef26e4b): a sync task's
    /// "segment not found", or a nil pointer in the stats pool while a
    /// SyncSegments request loads the segments the datanode lacks.
    fn pool_panic(&mut self, at: u32, l: &LogLine) {
        let panic = l.field("panic").unwrap_or_default();
        if let Some(s) = panic_segment(panic) {
            self.synced(s, at, false);
        } else if panic
            .starts_with("runtime error: invalid memory address or nil pointer dereference")
            && self.handling_request()
            && l.field("stack")
                .is_none_or(|st| st.contains("DecompressBinLog") || st.contains("SyncSegments"))
        {
            self.nil_loads.push((at, self.requests.len()));
        }
    }

    /// Whether the last request received may still be in its handler: the
    /// log shows no datacoord success for it yet (a nil-pointer panic after
    /// that is some other pool's).
    fn handling_request(&self) -> bool {
        self.requests
            .last()
            .is_some_and(|r| r.received.is_some() && r.succeeded.is_none())
    }

    /// The request being handled at line `at` (counted from 1): the last one,
    /// while datacoord has not logged its success; else one whose receive line
    /// the log does not show (it started before the log does), which
    /// datacoord's success line names later.
    fn open_request(&mut self, at: u32) -> usize {
        // A retried request's first handler may run on after its success.
        let done = |r: &Req| r.succeeded.is_some() && r.retried.is_none();
        if self.requests.last().is_none_or(done) {
            self.requests.push(Req {
                first: at,
                ..Req::default()
            });
        }
        self.requests.len()
    }

    /// Datacoord's "sync segments success" for `partition` at line `at`: it
    /// closes the open request, when that is the partition's (or one whose
    /// partition the log has not said); else the request's other lines are
    /// not in the log, and it is one of its own. Returns it (counted from 1).
    fn request_succeeded(&mut self, at: u32, partition: Option<i64>) -> usize {
        match self.requests.last_mut() {
            Some(r)
                if r.succeeded.is_none()
                    && (r.partition.is_none()
                        || partition.is_none()
                        || r.partition == partition) =>
            {
                r.succeeded = Some(at);
                r.partition = r.partition.or(partition);
            }
            _ => self.requests.push(Req {
                partition,
                succeeded: Some(at),
                first: at,
                ..Req::default()
            }),
        }
        self.requests.len()
    }

    /// Datacoord's "failed to sync segments" at line `at` (its logger names no
    /// partition): the request under way timed out and is sent again, so the
    /// next "DataNode receives SyncSegments" is its second handler's; with no
    /// request under way, its first handler has not logged yet either.
    fn attempt_failed(&mut self, at: u32) {
        match self.requests.last_mut() {
            Some(r) if r.succeeded.is_none() && r.retried.is_none() => {
                r.retried = Some(at);
                r.receives_left = 1;
            }
            _ => self.requests.push(Req {
                first: at,
                retried: Some(at),
                receives_left: 2,
                ..Req::default()
            }),
        }
    }

    /// "DataNode receives SyncSegments" for `partition` at line `at`: a
    /// handler of a retried request that still has one to come, else a new
    /// request.
    fn received(&mut self, at: u32, partition: Option<i64>) {
        let same =
            |r: &Req| r.partition.is_none() || partition.is_none() || r.partition == partition;
        match self.requests.last_mut() {
            Some(r) if r.receives_left > 0 && same(r) => {
                r.receives_left -= 1;
                r.received = r.received.or(Some(at));
                r.partition = r.partition.or(partition);
            }
            _ => self.requests.push(Req {
                partition,
                received: Some(at),
                first: at,
                ..Req::default()
            }),
        }
    }

    fn synced(&mut self, segment: i64, at: u32, submitted: bool) {
        let seg = self.seg(segment, at);
        let first = !seg.synced;
        seg.synced = true;
        if submitted || first {
            self.syncs.push((segment, at));
        }
    }

    /// A line of the datanode's SyncSegments handler about segment `s`: it is in
    /// the partition of the request being handled (see [`Seen::open_request`]).
    fn handler_line(&mut self, at: u32, message: &str, s: i64) {
        if message == "DataNode receives SyncSegments"
            || message.starts_with("sync segments is empty")
        {
            return;
        }
        let request = self.open_request(at);
        let partition = self.requests[request - 1].partition;
        let seg = self.seg(s, at);
        seg.partition = seg.partition.or(partition);
        match message {
            "metacache does not have segment, add it" | "segment loading PKs" => seg.added = true,
            "remove dropped segment" => (seg.removed, seg.removed_in) = (true, request),
            m if m.starts_with("segment level is L0") => {
                (seg.level, seg.skipped) = (Some(Level::L0), true)
            }
            m if m.starts_with("segment level is legacy") => {
                (seg.level, seg.skipped) = (Some(Level::Legacy), true)
            }
            _ => {}
        }
    }

    /// Says (for the first [`TOLD`] lines, counted with `unread_ids`') that
    /// line `at`, one the model knows, was cut short before any of its ID
    /// fields: the reader keeps [`MAX_GROUPS`] bracketed groups of a line, and
    /// one whose `segmentID` came after them read as no line the model knows.
    fn cut_short(&mut self, at: u32, l: &LogLine) {
        use crate::scenario::json::{escape_unsafe, short};
        if !l.truncated
            || NO_ID.contains(&l.message.as_str())
            || ID_KEYS.iter().any(|k| l.field(k).is_some())
        {
            return;
        }
        // The level, the caller and the message, the time when it has one.
        let groups = 3 + usize::from(l.time.is_some()) + l.fields.len();
        let why = match groups >= MAX_GROUPS {
            true => format!("after its first {MAX_GROUPS} bracketed groups (FlushScope reads no more of a line)"),
            false => "where the log ends inside it".to_owned(),
        };
        self.unread += 1;
        if self.unread <= TOLD {
            self.notes.push(format!(
                "Line {at} ({}:{} \"{}\"), a line the model knows, is cut short {why}, before any field naming its segment or partition; the line is read without them.",
                escape_unsafe(&short(&l.file), false),
                l.line.unwrap_or_default(),
                escape_unsafe(&short(&l.message), false),
            ));
        }
    }

    /// Says (for the first [`TOLD`] lines) which ID fields of line `at` are not
    /// IDs the model reads: the line is read without them, and a reader who
    /// sees it unexplained learns why. The rest are counted (see [`infer`]).
    fn unread_ids(&mut self, at: u32, l: &LogLine) {
        /// Values named per line.
        const NAMED: usize = 5;
        let mut bad = SEGMENT_KEYS
            .iter()
            .chain(&PARTITION_KEYS)
            .filter_map(|k| l.field(k).filter(|v| id(v).is_none()).map(|v| (*k, v)))
            .chain(l.field("segments").into_iter().flat_map(|v| {
                list_entries(v)
                    .filter(|s| !s.trim().is_empty() && id(s).is_none())
                    .map(|s| ("segments", s))
            }));
        let named: Vec<String> = bad
            .by_ref()
            .take(NAMED)
            .map(|(k, v)| {
                let v = crate::scenario::json::short(v);
                format!("{k}={}", crate::scenario::json::escape_unsafe(&v, false))
            })
            .collect();
        if named.is_empty() {
            return;
        }
        let more = bad.count();
        self.unread += 1;
        if self.unread <= TOLD {
            self.notes.push(format!(
                "Line {at}: {}{} {} the model reads (a whole number from -9223372036854775808 to 9223372036854775807); the line is read without {}.",
                named.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                if named.len() + more == 1 { "is not an ID" } else { "are not IDs" },
                if named.len() + more == 1 { "it" } else { "them" },
            ));
        }
    }

    /// Datacoord's "sync segments success" for `partition`: the segments of
    /// its `list` are those it selected for that request.
    fn listed(&mut self, at: u32, partition: Option<i64>, list: &str) {
        let k = self.request_succeeded(at, partition);
        for s in list_entries(list).filter_map(id) {
            let seg = self.seg(s, at);
            (seg.selected, seg.selected_in) = (true, k);
            seg.partition = seg.partition.or(partition);
        }
    }

    fn read_line(&mut self, at: u32, l: &LogLine) {
        self.unread_ids(at, l);
        let seg = SEGMENT_KEYS.iter().find_map(|k| l.field(k).and_then(id));
        let partition = partition_of(l);
        match (file(l), l.message.as_str(), seg) {
            ("datanode/services.go", "DataNode receives SyncSegments", _) => {
                self.received(at, partition)
            }
            ("datacoord/session_manager.go", "failed to sync segments", _) => {
                self.attempt_failed(at)
            }
            ("datacoord/sync_segments_scheduler.go", "sync segments success", _) => {
                self.listed(at, partition, l.field("segments").unwrap_or_default())
            }
            ("datanode/services.go", m, None) if m.starts_with("sync segments is empty") => {
                let k = self.open_request(at);
                self.empty.push(k)
            }
            ("metacache/meta_cache.go" | "datanode/services.go", m, Some(s)) => {
                self.handler_line(at, m, s)
            }
            ("syncmgr/sync_manager.go", "sync mgr sumbit task with key", Some(s)) => {
                self.synced(s, at, true)
            }
            (
                "syncmgr/task.go"
                | "syncmgr/meta_writer.go"
                | "writebuffer/write_buffer.go"
                | "syncmgr/storage_serializer.go"
                | "datacoord/services.go",
                _,
                Some(s),
            ) => {
                self.synced(s, at, false);
                match l.message.as_str() {
                    "failed to get segment" | "stale segment not found, could be compacted" => {
                        self.seg(s, at).dc_missing = true
                    }
                    "save to dropped segment, ignore this request" => {
                        self.seg(s, at).dc_dropped = true
                    }
                    "failed to serialize merged stats log" => {
                        // getSyncTask of a flush failed here (write_buffer.go:333-339
                        // @ca7ef26e4b): a sync of its own, not one submitted before.
                        if !self.syncs.contains(&(s, at)) {
                            self.syncs.push((s, at));
                        }
                        self.flushed(s, at, FlushFrom::MergedStats)
                    }
                    _ => {}
                }
                // The task's logger carries its partition and level (task.go:95-103@ca7ef26e4b).
                let level = l
                    .field("level")
                    .and_then(|v| Level::ALL.into_iter().find(|x| x.as_str() == v));
                let seg = self.seg(s, at);
                seg.partition = seg.partition.or(partition);
                seg.level = level.or(seg.level);
            }
            // Datacoord also logs it for a segment it recovers Flushing at start
            // (handleFlushingSegments, server.go:1074-1082@ca7ef26e4b): only a
            // segment the log shows the datanode syncing is read as flushed.
            ("datacoord/server.go", "flush segment complete", _) => {
                if let Some(s) = l.field("id").and_then(id) {
                    if self.segs.get(&s).is_some_and(|g| g.synced) {
                        self.flushed(s, at, FlushFrom::Complete);
                    }
                }
            }
            ("conc/options.go", "Conc pool panicked", _) => self.pool_panic(at, l),
            _ => {}
        }
    }
}

fn or_list(vs: &[Version]) -> String {
    vs.iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The versions whose line numbers fit every line that tells versions apart
/// (see [`line_of`]); all of them when no such line is in the log, or
/// when the lines fit no single version (a note says which do not).
fn versions(log: &Parsed, notes: &mut Vec<String>) -> Vec<Version> {
    let mut fit: Vec<Version> = Version::ALL.to_vec();
    let mut told = Vec::new();
    // Lines at a number no modelled version logs them at: the first TOLD,
    // and how many in all.
    let mut nowhere: (Vec<(u32, &LogLine)>, usize) = (Vec::new(), 0);
    for r in &log.records {
        let Kind::Log(l) = &r.kind else { continue };
        let Some(n) = l.line else { continue };
        // The model's own sites by package and file: another package's file
        // of the same name says nothing of the version.
        let at = |v: &Version| line_of(*v, file(l), &l.message);
        if !Version::ALL.iter().any(|v| at(v).is_some()) {
            continue;
        }
        let alone: Vec<Version> = Version::ALL
            .into_iter()
            .filter(|v| at(v) == Some(n))
            .collect();
        let both: Vec<Version> = fit.iter().copied().filter(|v| alone.contains(v)).collect();
        if alone.is_empty() {
            // One odd line (`meta_cache.go:0`) made every version tried,
            // whatever the other lines said: it now says nothing of the version.
            if nowhere.0.len() < TOLD {
                nowhere.0.push((r.at, l));
            }
            nowhere.1 += 1;
            continue;
        }
        if both.is_empty() {
            notes.push(format!(
                "The log's lines fit no single version: line {} ({}:{n} \"{}\") is logged there only by {}, and the lines before it only by {} ({}). Every version is tried; each leaves some line unexplained (is the log two processes' of different versions, or one across an upgrade?).",
                r.at,
                l.file,
                l.message,
                or_list(&alone),
                or_list(&fit),
                told.join(", ")
            ));
            return Version::ALL.to_vec();
        }
        if both.len() < fit.len() {
            told.push(format!("line {}: {}:{n}", r.at, l.file));
        }
        fit = both;
    }
    if fit.len() < Version::ALL.len() {
        notes.push(format!(
            "Version: {} (from {}).",
            or_list(&fit),
            told.join(", ")
        ));
    } else {
        notes.push(
            "Version: the log's line numbers do not tell; every version is tried.".to_owned(),
        );
    }
    notes.extend(at_no_version(&nowhere.0, nowhere.1));
    fit
}

/// Says which lines (`lines`, the first [`TOLD`] of `all`, then how many
/// more) are at a line number no modelled version logs them at: each says
/// nothing of the version, and the replay takes it for a line the model does
/// not print.
fn at_no_version(lines: &[(u32, &LogLine)], all: usize) -> Option<String> {
    use crate::scenario::json::{escape_unsafe, short};
    let named: Vec<String> = lines
        .iter()
        .map(|(at, l)| {
            let site = |v: Version| line_of(v, file(l), &l.message);
            let mut theirs: Vec<u32> = Version::ALL.into_iter().filter_map(site).collect();
            theirs.sort_unstable();
            theirs.dedup();
            format!(
                "line {at} logs \"{}\" at {}:{}, where no modelled version logs it (they log it at :{})",
                escape_unsafe(&short(&l.message), false),
                escape_unsafe(&short(&l.file), false),
                l.line.unwrap_or_default(),
                theirs.iter().map(u32::to_string).collect::<Vec<_>>().join(" or :")
            )
        })
        .collect();
    let (first, more) = (named.first()?, all - named.len());
    Some(format!(
        "{}{}{}: {} says nothing of the version, and the replay takes {} for a line the model does not print.",
        first[..1].to_uppercase(),
        &first[1..],
        named[1..].iter().map(|n| format!("; {n}")).collect::<String>()
            + &match more {
                0 => String::new(),
                n => format!("; and {n} more lines"),
            },
        if all == 1 { "it" } else { "each" },
        if all == 1 { "it" } else { "them" },
    ))
}

/// Infers a sync-2024 scenario from `log`; an error when the log has no line the
/// model knows.
pub fn infer(log: &Parsed) -> Result<Inferred, String> {
    let mut seen = Seen::default();
    for r in &log.records {
        seen.read(r.at, &r.kind);
    }
    if seen.segs.is_empty() && seen.requests.is_empty() {
        // A line the model knows whose IDs it cannot read is read without
        // them: say so first, or the log looks as if it had no such line.
        let unread = match seen.unread {
            0 => String::new(),
            n => format!(
                " with IDs it can read ({}{})",
                seen.notes.join(" "),
                if n > TOLD {
                    format!(" And {} more lines.", n - TOLD)
                } else {
                    String::new()
                }
            ),
        };
        return Err(format!(
            "the log has no line the sync-2024 model knows{unread}: no SyncSegments request \
             (\"DataNode receives SyncSegments\", \"sync segments success\"), no metacache \
             change (\"metacache does not have segment, add it\", \"remove dropped segment\"), \
             no sync task (\"sync mgr sumbit task with key\", syncmgr/task.go) and no \
             \"segment not found\" panic"
        ));
    }
    let mut notes = Vec::new();
    let versions = versions(log, &mut notes);
    notes.append(&mut seen.notes);
    if seen.unread > TOLD {
        notes.push(format!(
            "{} more lines have IDs the model cannot read; they are read without them.",
            seen.unread - TOLD
        ));
    }
    for s in seen.segs.values_mut() {
        s.unsent = s.selected && seen.empty.contains(&s.selected_in);
    }
    seen.nil_stand_ins(&mut notes);
    seen.stand_in(&mut notes);
    seen.place_new_growing(versions[0], &mut notes);
    seen.stale_sealed(versions[0]);
    let mut left_out = Vec::new();
    let json = scenario_json(&seen, versions[0], (&mut notes, &mut left_out))?;
    Ok(Inferred {
        json,
        versions: versions.iter().map(|v| v.as_str()).collect(),
        notes,
        left_out,
    })
}

/// A segment's rows in the two tables: (datacoord, datanode), as JSON objects.
fn rows(id: i64, s: &Seg, partition: i64) -> (Option<String>, Option<String>) {
    let level = s.level.unwrap_or(Level::L1).as_str();
    let dc = |state: SegState, statslog: bool, rows: u32| {
        Some(format!(
            r#"{{ "segment": {id}, "partition": {partition}, "state": "{}", "level": "{level}", "statslog": {statslog}, "rows": {rows} }}"#,
            state.as_str()
        ))
    };
    let dn = |state: SegState| {
        Some(format!(
            r#"{{ "segment": {id}, "partition": {partition}, "state": "{}", "level": "{level}", "rows": 1000 }}"#,
            state.as_str()
        ))
    };
    if s.no_statslog {
        // Stands for a segment the datanode lacks and loads without a PK statslog.
        (dc(SegState::Flushed, false, 0), None)
    } else if s.dc_missing || s.dc_dropped {
        // The datanode syncs a growing segment datacoord lacks, or has dropped.
        let dc = s
            .dc_dropped
            .then(|| dc(SegState::Dropped, false, 0))
            .flatten();
        (dc, dn(SegState::Growing))
    } else if s.synced && !s.added {
        // A new growing segment: datacoord allocated it, the flow graph's insert adds it.
        (dc(SegState::Growing, false, 0), None)
    } else if s.stale_sealed {
        // Added by SyncSegments and flushed: Sealed, sent with a PK statslog.
        (dc(SegState::Sealed, true, 1000), None)
    } else if s.added || s.skipped {
        // Missing from the metacache, sent with a PK statslog.
        (dc(SegState::Flushed, true, 1000), None)
    } else if s.removed && s.selected && s.selected_in >= s.removed_in {
        // Selected by datacoord for the request that removed it, so not sent: no
        // PK statslog (sync_segments_scheduler.go:127-139@ca7ef26e4b).
        (dc(SegState::Flushed, false, 1000), dn(SegState::Flushed))
    } else if s.removed {
        // Not in datacoord's healthy segments: dropped there.
        (None, dn(SegState::Flushed))
    } else if s.unsent {
        // Selected for a request sent empty, and named by no other line: no
        // PK statslog (only the versions that send such segments alone,
        // ca7ef26e4b and b5c9a7364b, select one and leave it out:
        // knobs::request_includes); a new growing segment, not in the datanode.
        (dc(SegState::Growing, false, 0), None)
    } else {
        (dc(SegState::Flushed, true, 1000), dn(SegState::Flushed))
    }
}

/// A segment the scenario holds, by id.
type Held<'s> = (&'s i64, &'s Seg);

/// The segments the scenario holds: at most [`MAX_SEGMENTS`]: the named ones
/// by first line, as many as fit beside the stand-ins their requests need
/// (without what a request carried, its removals have no cause); the named
/// others go to `left_out`, and a note says so.
fn modelled<'s>(seen: &'s Seen, notes: &mut Vec<String>, left_out: &mut Vec<i64>) -> Vec<Held<'s>> {
    let (stand_ins, mut named): (Vec<Held<'s>>, Vec<Held<'s>>) =
        seen.segs.iter().partition(|s| s.1.stand_in);
    named.sort_by_key(|(_, s)| s.first_at);
    // The stand-ins of the requests that removed one of `kept`, and those of
    // a panic's segment (`nil_stand_ins`: the panic has no other cause).
    let needed = |kept: &[Held<'s>]| -> Vec<Held<'s>> {
        stand_ins
            .iter()
            .filter(|(_, si)| {
                si.no_statslog
                    || kept
                        .iter()
                        .any(|(_, s)| s.removed && s.removed_in == si.selected_in)
            })
            .copied()
            .collect()
    };
    if named.len() + stand_ins.len() <= MAX_SEGMENTS {
        return named.into_iter().chain(stand_ins).collect();
    }
    let mut k = named.len().min(MAX_SEGMENTS);
    while k > 0 && k + needed(&named[..k]).len() > MAX_SEGMENTS {
        k -= 1;
    }
    let with = needed(&named[..k]);
    left_out.extend(named[k..].iter().map(|(id, _)| **id));
    let beside = match with.len() {
        0 => String::new(),
        1 => " beside the one standing in for what a request carried".to_owned(),
        n => format!(" beside the {n} standing in for what requests carried"),
    };
    notes.push(format!(
        "The log names {} segments; the model holds {MAX_SEGMENTS}, so the first {k} (by first line) are modelled{beside}, and the lines of the other {} cannot be explained.",
        named.len(),
        left_out.len()
    ));
    named.truncate(k);
    named.into_iter().chain(with).collect()
}

/// The scenario file of what the log showed; `left_out` gets the segments the
/// log names beyond what the model holds.
fn scenario_json(
    seen: &Seen,
    version: Version,
    (notes, left_out): (&mut Vec<String>, &mut Vec<i64>),
) -> Result<String, String> {
    let default_partition = seen
        .requests
        .iter()
        .find_map(|r| r.partition)
        .or_else(|| seen.segs.values().find_map(|s| s.partition))
        .unwrap_or(1);
    let mut segs = modelled(seen, notes, left_out);
    segs.sort_by_key(|(id, _)| **id);
    let (mut dc, mut dn) = (Vec::new(), Vec::new());
    for (id, s) in &segs {
        if s.removed && s.selected && s.selected_in < s.removed_in && !s.synced {
            notes.push(format!(
                "Segment {id} is in datacoord's list for request {} but removed by request {}: datacoord dropped it in between (a compaction, say), which the model does not do; it starts dropped, so the earlier list cannot match.",
                s.selected_in, s.removed_in
            ));
        }
        let (a, b) = rows(**id, s, s.partition.unwrap_or(default_partition));
        dc.extend(a);
        dn.extend(b);
    }
    let kept = |id: &i64| segs.iter().any(|(s, _)| *s == id);
    let flowgraph = flowgraph_ops(seen, &kept, default_partition, notes);
    let datacoord = request_ops(seen, default_partition, notes);
    let mut actors = Vec::new();
    if !flowgraph.is_empty() {
        actors.push(format!(
            r#"    {{ "name": "flowgraph", "ops": [
      {} ] }}"#,
            flowgraph.join(",\n      ")
        ));
    }
    if !datacoord.is_empty() {
        actors.push(format!(
            r#"    {{ "name": "datacoord", "ops": [
      {} ] }}"#,
            datacoord.join(",\n      ")
        ));
    }
    if actors.is_empty() {
        return Err(
            "the log's lines name segments but no step of the model: no sync task, no SyncSegments request and no metacache change"
                .to_owned(),
        );
    }
    let description = json_text(&notes.join(" "));
    Ok(format!(
        r#"{{
  "name": "imported-log",
  "title": "Inferred from a Milvus log",
  "description": "{description}",
  "model": "sync-2024",
  "version": "{}",
  "seed": 1,
  "datacoord": [
    {}
  ],
  "datanode": [
    {}
  ],
  "actors": [
{}
  ]
}}
"#,
        version.as_str(),
        dc.join(",\n    "),
        dn.join(",\n    "),
        actors.join(",\n")
    ))
}

/// Characters of the notes the scenario's description keeps (its limit is
/// 8,000; the notes themselves are shown whole beside it).
const MAX_DESCRIPTION: usize = 7_000;

/// `s` as the inside of a JSON string the scenario checker takes: control and
/// bidi characters written as visible escapes, quotes and backslashes escaped,
/// and cut to [`MAX_DESCRIPTION`] characters.
fn json_text(s: &str) -> String {
    let safe = crate::scenario::json::escape_unsafe(s, false);
    let mut out = String::new();
    for (n, c) in safe.chars().enumerate() {
        if n == MAX_DESCRIPTION {
            out.push_str(" (cut; every note is listed beside the scenario)");
            break;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The flow graph's ops: each synced segment's insert (when the log shows a new
/// segment), then a sync per submitted task, in log order.
fn flowgraph_ops(
    seen: &Seen,
    kept: &dyn Fn(&i64) -> bool,
    partition: i64,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut ops = Vec::new();
    let mut per_seg: BTreeMap<i64, usize> = BTreeMap::new();
    for &(s, at) in &seen.syncs {
        if !kept(&s) {
            continue;
        }
        let n = per_seg.entry(s).or_default();
        if *n >= MAX_SYNCS {
            if *n == MAX_SYNCS {
                notes.push(format!(
                    "Segment {s} is synced more than {MAX_SYNCS} times (line {at} on); the first {MAX_SYNCS} are modelled."
                ));
                *n += 1;
            }
            continue;
        }
        let seg = &seen.segs[&s];
        // The sync that flushed: the last one before the line that says so. An
        // L0 segment's sync is a flush unsealed (write_buffer.go:614-617@ca7ef26e4b).
        let flush = seg
            .flush
            .filter(|_| seg.level != Some(Level::L0))
            .map(|(at, _)| {
                let before = seen.syncs.iter().filter(|x| x.0 == s && x.1 <= at).count();
                before.clamp(1, MAX_SYNCS) - 1
            });
        if *n == 0 && !seg.added && !seg.dc_missing && !seg.dc_dropped {
            let p = seg.partition.unwrap_or(partition);
            ops.push(format!(
                r#"{{ "op": "insert", "segment": {s}, "partition": {p}, "rows": 10 }}"#
            ));
            notes.push(format!(
                "Segment {s} is synced (line {at}) but was never added by SyncSegments: a new growing segment the flow graph inserts into."
            ));
        }
        if *n == 0 && seg.stale_sealed {
            // The insert's sealed-segment policy flushes it: its first sync.
            let p = seg.partition.unwrap_or(partition);
            ops.push(format!(
                r#"{{ "op": "insert", "segment": {s}, "partition": {p}, "rows": 10 }}"#
            ));
            notes.push(stale_note(s, at, seg.flush));
        } else if flush == Some(*n) {
            ops.push(format!(r#"{{ "op": "seal", "segment": {s} }}"#));
            ops.push(format!(
                r#"{{ "op": "sync", "segment": {s}, "flush": true }}"#
            ));
            notes.extend(seg.flush.map(|f| flush_note(s, f)));
        } else {
            ops.push(format!(r#"{{ "op": "sync", "segment": {s} }}"#));
        }
        *n += 1;
    }
    ops
}

/// Why segment `s`'s sync is a flush, from line `at`.
fn flush_note(s: i64, (at, from): (u32, FlushFrom)) -> String {
    let why = match from {
        FlushFrom::Complete => "datacoord logs \"flush segment complete\" for it, which it does only after a SaveBinlogPaths with Flushed set (datacoord/services.go:546-548, server.go:1069@ca7ef26e4b), and the datanode sets Flushed for a Flushing segment's sync (syncmgr/meta_writer.go:100, writebuffer/write_buffer.go:614-617@ca7ef26e4b)",
        FlushFrom::MergedStats => "EncodeBuffer serializes the merged stats log only when it flushes a non-L0 segment (storage_serializer.go:111-116@ca7ef26e4b), and its failure fails that flush's getSyncTask (write_buffer.go:333-339@ca7ef26e4b)",
    };
    format!(
        "Segment {s} (line {at}): {why}. So datacoord and the datanode sealed it (FlushSegments) and the sealed-segment policy made it Flushing and flushed it (sync_policy.go:71-77@ca7ef26e4b): the flow graph seals it before that sync."
    )
}

/// Why segment `s`, which SyncSegments added, is Sealed in datacoord and
/// inserted into (see [`Seen::stale_sealed`]); its first sync at line `at`.
fn stale_note(s: i64, at: u32, flush: Option<(u32, FlushFrom)>) -> String {
    let by = flush.map_or(String::new(), |(l, _)| format!(" (line {l})"));
    format!(
        "Segment {s} is added by SyncSegments and its sync is a flush{by}, which datacoord's seal (FlushSegments) gives only a segment it holds Sealed: so it is Sealed there, with a PK statslog, and sent. The flow graph's insert looked it up before the handler added it and then added it Growing, which leaves the Sealed info in stateSegments (meta_cache.go:132-136@ca7ef26e4b): that insert's sealed-segment policy finds the stale entry and flushes the segment (sync_policy.go:71-77@ca7ef26e4b), the sync of line {at}."
    )
}

/// Datacoord's SyncSegments ticks: one per request the log shows from either side.
fn request_ops(seen: &Seen, partition: i64, notes: &mut Vec<String>) -> Vec<String> {
    // Every handler line opens a request (`Seen::open_request`): a log whose
    // metacache changed has one.
    let n = seen.requests.len();
    if n > MAX_REQUESTS {
        notes.push(format!(
            "The log shows {n} SyncSegments requests; the first {MAX_REQUESTS} are modelled."
        ));
    }
    let mut ops: Vec<String> = seen
        .before_log
        .iter()
        .map(|p| format!(r#"{{ "op": "sync_segments", "partition": {p} }}"#))
        .collect();
    for (i, r) in seen
        .requests
        .iter()
        .take(MAX_REQUESTS - ops.len())
        .enumerate()
    {
        let p = r.partition.unwrap_or(partition);
        let k = i + 1;
        notes.push(match (r.received, r.succeeded) {
            (Some(at), _) => format!("SyncSegments request {k} for partition {p} (line {at})."),
            (None, Some(at)) => format!(
                "SyncSegments request {k} for partition {p} (line {at}, datacoord's): the log has no \"DataNode receives SyncSegments\" line for it (it starts after that line, or lost it); its handler's lines from line {} on are read as its.",
                r.first
            ),
            (None, None) => format!(
                "The metacache changed with no request line (line {}): one SyncSegments request for partition {p} is assumed.",
                r.first
            ),
        });
        if let Some(failed) = r.retried {
            notes.push(format!(
                "Its first attempt failed (line {failed}, \"failed to sync segments\"; the model's only such failure is an attempt that times out) and datacoord sent it again: the op is \"retried\", two handlers serve it."
            ));
        }
        ops.push(match r.retried {
            Some(_) => format!(r#"{{ "op": "sync_segments", "partition": {p}, "retried": true }}"#),
            None => format!(r#"{{ "op": "sync_segments", "partition": {p} }}"#),
        });
    }
    ops
}
