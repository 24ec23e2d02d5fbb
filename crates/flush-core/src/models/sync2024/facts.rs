//! sync-2024 facts, their Go functions, words, and the Milvus log lines they match.

use std::fmt;
use std::fmt::Write as _;

use super::setup::Op;
use super::*;
use crate::engine::GoFn;
use crate::logs::conform::{LogSite, PANIC};
use crate::scenario::WaitFor;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ev {
    /// `bufferInsert`'s `GetSegmentByID` found nothing: `AddSegment` is the next step.
    InsertLookupMiss {
        segment: i64,
    },
    BufferInsert {
        segment: i64,
        rows: i64,
        /// Rows in the segment's insert buffer now.
        buffered: i64,
        /// What the insert buffer reports (each row counted twice).
        counted: i64,
        added: bool,
    },
    /// Datacoord sealed the segment (its segment manager); the datanode follows.
    DatacoordSealed {
        segment: i64,
        sealed: bool,
        /// Datacoord holds it Sealed and not L0: its time tick sends the
        /// datanode FlushSegments for it (`flushPolicyL1`).
        flushable: bool,
    },
    /// Datacoord ignores a SaveBinlogPaths for a dropped segment.
    DatacoordDroppedIgnored {
        segment: i64,
    },
    Seal {
        segment: i64,
        sealed: bool,
    },
    SealedPolicy {
        segment: i64,
        moved: bool,
    },
    /// A state-filtered range (`rangeWithFilter` over `stateSegments[state]`,
    /// meta_cache.go:221-224) found a stale entry of the segment: the info an
    /// `AddSegment` overwrote under another state (`current`: the state of the
    /// segment's info, if the metacache has it).
    StaleEntryPicked {
        segment: i64,
        state: SegState,
        current: Option<SegState>,
    },
    /// GetDroppedSegmentPolicy selected a segment the metacache holds Dropped.
    DroppedPolicy {
        segment: i64,
    },
    SyncSkipped {
        segment: i64,
    },
    /// getSyncTask found the segment: buffer yielded, checkpoint pinned, StartSyncing.
    BufferYielded {
        segment: i64,
        n: u32,
        /// Rows yielded.
        rows: i64,
        /// `batchSize`: the rows of the buffer's last chunk.
        batch: i64,
        flush: bool,
        drop: bool,
    },
    /// serializeMergedPkStats's lookup found nothing: the yielded rows are lost.
    MergedStatsSegmentMissing {
        segment: i64,
        lost: i64,
    },
    /// serializeMergedPkStats: the segment has no PK stats history.
    MergedStatsEmpty {
        segment: i64,
    },
    /// setTaskMeta: the task is built (its failure callback panics).
    SyncTaskBuilt {
        segment: i64,
        n: u32,
    },
    KeyLockWait {
        segment: i64,
    },
    KeyLockTaken {
        segment: i64,
    },
    TaskSubmitted {
        segment: i64,
        n: u32,
        task: Gid,
    },
    TaskDiscarded {
        segment: i64,
    },
    TaskSegmentMissing {
        segment: i64,
        in_write_meta: bool,
    },
    TaskWriteLogs {
        segment: i64,
        n: u32,
    },
    SaveBinlogPathsCall {
        segment: i64,
        rows: i64,
        flush: bool,
        drop: bool,
    },
    DatacoordSaved {
        segment: i64,
        state: SegState,
        statslog: bool,
    },
    DatacoordSegmentNotFound {
        segment: i64,
        flush: bool,
    },
    TaskDone {
        segment: i64,
        n: u32,
        applied: bool,
        flushed: bool,
    },
    SyncSegmentsRequest {
        partition: i64,
        /// The request's segments (the handler's list, shared).
        sent: Ids<ReqSeg>,
        /// The first of the segments left out, and how many there were.
        left_out: Few,
        version: Version,
    },
    DatanodeReceives {
        partition: i64,
    },
    SyncSegmentsEmpty {
        partition: i64,
    },
    /// A missing segment the load rule skips (2e434e4453 on: L0 and Legacy are warned).
    MissingSkipped {
        segment: i64,
        level: Level,
    },
    /// 2e434e4453 on: "segment loading PKs".
    LoadingPks {
        segment: i64,
    },
    LoadingStats {
        /// The handler's list, shared.
        load: Ids,
    },
    /// The stats pool got a nil PkStatsLog: the nil-pointer panic of #34375.
    NilStatslog {
        segment: i64,
    },
    /// Datacoord's flush loop ran postFlush.
    PostFlush {
        segment: i64,
        flushed: bool,
    },
    /// A `wait_for` op passed: the other actor returned from its op `index`.
    FlowgraphDelivered {
        actor: u16,
        index: u32,
    },
    MetacacheAdded {
        segment: i64,
        state: SegState,
    },
    MetacacheRemoved {
        segment: i64,
        state: SegState,
        level: Level,
        version: Version,
    },
    ViewKept {
        segment: i64,
        state: SegState,
        level: Level,
        version: Version,
    },
    RpcSucceeded,
    /// A `"retried"` op at a version whose SyncSegments call has no
    /// per-attempt deadline: sent once, as any.
    RetryWithoutDeadline {
        version: Version,
    },
    /// A `"retried"` op's first attempt timed out at datacoord; `running`: its
    /// handler (goroutine `handler`) still runs on the datanode.
    AttemptTimedOut {
        handler: super::Gid,
        running: bool,
    },
    /// A handler whose attempt timed out reached `LoadStats`: the read under
    /// its done ctx fails, it returns an error without UpdateSegmentView.
    LoadStatsCtxDone {
        partition: i64,
        load: Ids,
    },
    /// A handler serving an attempt under a deadline loaded the PK stats of
    /// `load` while its ctx was live; `UpdateSegmentView` is its next step.
    StatsLoaded {
        partition: i64,
        load: Ids,
    },
    SyncSegmentsSuccess {
        partition: i64,
        /// The list the datacoord actor holds (shared: a request may select
        /// tens of thousands of segments, and each run keeps its facts).
        selected: super::Ids,
        version: Version,
    },
    ActorDone,
    GoPanic {
        message: String,
    },
    Invariant(Violation),
}

/// Ordered so that the world keeps its violations sorted: two steps that
/// commute then reach one world whichever breaks its invariant first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Violation {
    /// The #34018 condition: a sync task is in flight for a segment the metacache no longer has.
    SyncTaskWithoutSegment { segment: i64, task: u32 },
    StateBackwards {
        segment: i64,
        from: SegState,
        to: SegState,
    },
    RowCounts {
        segment: i64,
        syncing: i64,
        in_flight: i64,
        tasks: i32,
        live_tasks: i32,
    },
    /// Rows the flow graph inserted are neither buffered, syncing nor synced, and
    /// datacoord did not drop the segment.
    RowsLost { segment: i64, lost: i64 },
    /// Rows buffered for a segment the metacache no longer has, and nothing
    /// left that adds it back (an insert into it, a SyncSegments op to come, or
    /// one of datacoord's later ticks, which Go runs for good): no sync can
    /// ever take them.
    BufferStranded { segment: i64, rows: i64 },
}

impl Violation {
    pub fn name(&self) -> &'static str {
        match self {
            Violation::SyncTaskWithoutSegment { .. } => "sync-task-segment-present",
            Violation::StateBackwards { .. } => "state-forward-only",
            Violation::RowCounts { .. } => "row-counts",
            Violation::RowsLost { .. } => "rows-not-lost",
            Violation::BufferStranded { .. } => "buffer-not-stranded",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Not a sure failure: a later insert into the segment adds it back
            // (bufferInsert's AddSegment, write_buffer.go:531-545@ca7ef26e4b),
            // and so does a SyncSegments handler that loads it (UpdateSegmentView,
            // meta_cache.go:275-291), and a lookup after that finds it (found by
            // a helper reading the Go code: the message said the task would
            // fail, and it did not).
            Violation::SyncTaskWithoutSegment { segment, task } => write!(
                f,
                "sync task #{task} is in flight for segment {segment}, which the metacache no longer has (its Run or writeMeta fails with segment not found, unless an insert, or a SyncSegments whose handler loads it, adds the segment back first)"
            ),
            Violation::StateBackwards { segment, from, to } => {
                write!(f, "segment {segment} went from {} back to {}", from.as_str(), to.as_str())
            }
            Violation::RowCounts { segment, syncing, in_flight, tasks, live_tasks } => write!(
                f,
                "segment {segment}: syncingRows={syncing} but the tasks in flight carry {in_flight}; syncingTasks={tasks} but {live_tasks} in flight"
            ),
            Violation::RowsLost { segment, lost } => write!(
                f,
                "{lost} buffered row(s) of segment {segment} were dropped: getSyncTask yielded them, then SyncSegments removed the segment before EncodeBuffer looked it up again; the write buffer warns and moves on, the channel checkpoint stays pinned (write_buffer.go:335-337, storage_serializer.go:207-210)"
            ),
            // write_buffer.go@b5c9a7364b: getSyncTask's lookup fails before
            // yieldBuffer (565-578), syncSegments warns and goes on (333-337),
            // and GetCheckpoint takes the earliest buffer's position (273-287).
            Violation::BufferStranded { segment, rows } => write!(
                f,
                "{rows} row(s) stay buffered for segment {segment} for good: the metacache no longer has it and nothing is left that could add it back (an insert into it, or a SyncSegments whose handler loads it; datacoord's meta of it keeps it out of every later tick's request or load), so every getSyncTask fails before it yields them (the write buffer warns and moves on), and the channel checkpoint, the earliest buffer's position, stays pinned (write_buffer.go:273-287, 333-337, 565-578 at b5c9a7364b)"
            ),
        }
    }
}

fn ids(v: &[i64]) -> String {
    let s: Vec<String> = v.iter().map(|i| i.to_string()).collect();
    format!("[{}]", s.join(","))
}

/// Ids a step's description lists before it counts the rest.
const IDS_SHOWN: usize = 16;

/// [`ids`] for a step's description: the first [`IDS_SHOWN`], then how many
/// more (a request of 85,000 segments made each line 1 MB and a run of 2,000
/// of them abort on its text; the Go log line keeps every id).
fn ids_short(v: impl ExactSizeIterator<Item = i64>) -> String {
    let total = v.len();
    ids_counted(&v.take(IDS_SHOWN).collect::<Vec<_>>(), total)
}

/// `first`, the first ids of a list of `total`, as [`ids_short`] shows them.
fn ids_counted(first: &[i64], total: usize) -> String {
    match total > first.len() {
        true => {
            let s: Vec<String> = first.iter().map(|i| i.to_string()).collect();
            format!("[{},... and {} more]", s.join(","), total - first.len())
        }
        false => ids(first),
    }
}

/// A list of ids of which a step's description shows only the first
/// [`IDS_SHOWN`]: those, and how many there were (a run keeps every step's
/// facts: 500 requests of 85,000 segments kept a copy each).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Few {
    first: Vec<i64>,
    total: usize,
}

impl Few {
    pub fn of(v: &[i64]) -> Few {
        Few {
            first: v[..v.len().min(IDS_SHOWN)].to_vec(),
            total: v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    fn short(&self) -> String {
        ids_counted(&self.first, self.total)
    }
}

/// Where each version logs (file:line), from the Go at each commit.
/// Every place [`Ev::log_line`] prints, with its line numbers at the six
/// versions (see `lines`); `services.go@datacoord` is datacoord's services.go. A
/// test checks the table against every line the built-ins print.
pub const LOG_SITES: &[LogSite] = &[
    LogSite::new(
        "metacache/meta_cache.go",
        "metacache does not have segment, add it",
        &[289],
    ),
    LogSite::new(
        "metacache/meta_cache.go",
        "remove dropped segment",
        &[299, 301],
    ),
    LogSite::new(
        "datanode/services.go",
        "DataNode receives SyncSegments",
        &[284, 283],
    ),
    LogSite::new(
        "datanode/services.go",
        "sync segments is empty, skip it",
        &[292, 291],
    ),
    LogSite::new(
        "datanode/services.go",
        "segment level is L0, may be the channel has not been successfully watched yet",
        &[317],
    ),
    LogSite::new(
        "datanode/services.go",
        "segment level is legacy, please check",
        &[319],
    ),
    LogSite::new("datanode/services.go", "segment loading PKs", &[322]),
    LogSite::new("conc/options.go", "Conc pool panicked", &[54]),
    LogSite::new(
        "datacoord/session_manager.go",
        "success to sync segments",
        &[256, 254],
    ),
    LogSite::new(
        "datacoord/sync_segments_scheduler.go",
        "sync segments success",
        &[145, 146, 149],
    ),
    LogSite::new(
        "datacoord/session_manager.go",
        "failed to sync segments",
        &[246, 244],
    ),
    LogSite::new(
        "datanode/services.go",
        "failed to load segment stats log",
        &[328, 327, 334],
    ),
    LogSite::new(
        "writebuffer/write_buffer.go",
        "segment info not found in meta cache",
        &[571],
    ),
    LogSite::new(
        "writebuffer/write_buffer.go",
        "segment not found in meta",
        &[336],
    ),
    LogSite::with_error(
        "writebuffer/write_buffer.go",
        "failed to get sync task",
        &[339],
    ),
    LogSite::with_error(
        "syncmgr/storage_serializer.go",
        "failed to serialize merged stats log",
        &[115],
    ),
    LogSite::new(
        "syncmgr/task.go",
        "segment dropped, discard sync task",
        &[130],
    ),
    LogSite::new(
        "syncmgr/task.go",
        "failed to sync data, segment not found in metacache",
        &[133],
    ),
    LogSite::with_error(
        "syncmgr/task.go",
        "failed to save serialized data into storage",
        &[169],
    ),
    LogSite::new("syncmgr/task.go", "task done", &[184]),
    LogSite::new(
        "syncmgr/sync_manager.go",
        "sync mgr sumbit task with key",
        &[129],
    ),
    LogSite::new("syncmgr/meta_writer.go", "SaveBinlogPath", &[72]),
    LogSite::new(
        "syncmgr/meta_writer.go",
        "stale segment not found, could be compacted",
        &[110],
    ),
    LogSite::new(
        "syncmgr/meta_writer.go",
        "failed to SaveBinlogPaths",
        &[112],
    ),
    LogSite::new(
        "syncmgr/meta_writer.go",
        "meta error found, skip sync and start to drop virtual channel",
        &[119],
    ),
    LogSite::new(
        "datacoord/services.go",
        "failed to get segment",
        &[489, 490],
    ),
    LogSite::new(
        "datacoord/services.go",
        "save to dropped segment, ignore this request",
        &[494, 495],
    ),
    LogSite::new(
        "datacoord/server.go",
        "flush segment complete",
        &[1069, 1062],
    ),
    LogSite::new(PANIC, PANIC, &[]),
];

struct Lines {
    scheduler_success: u32,
    session_success: u32,
    receives: u32,
    empty: u32,
    remove: u32,
    flush_complete: u32,
    /// datacoord's SaveBinlogPaths: "failed to get segment" (services.go).
    get_segment: u32,
    /// datacoord's SaveBinlogPaths: "save to dropped segment, ignore this request".
    dropped_ignored: u32,
    /// The handler's "failed to load segment stats log" (services.go).
    load_failed: u32,
    /// retry.Do's closure: "failed to sync segments" (session_manager.go).
    attempt_failed: u32,
}

/// The line version `v` logs `message` of `file` (named as [`LOG_SITES`] name
/// it) at, for the lines that tell the modelled commits apart (the others say
/// nothing of the version): those whose number moved, and those only some
/// commits print (`None` at the others).
pub fn line_of(v: Version, file: &str, message: &str) -> Option<u32> {
    let l = lines(v);
    // The handler's lines 2e434e4453 added (services.go:317,319,322@2e434e4453,
    // the same @439fb24b32); before it the handler loads every missing segment
    // without a word (services.go:314-330@ca7ef26e4b logs only load failures).
    let since_2e434e4453 = matches!(v, Version::V2e434e4453 | Version::V439fb24b32);
    Some(match (file, message) {
        (
            "datanode/services.go",
            "segment level is L0, may be the channel has not been successfully watched yet",
        ) => return since_2e434e4453.then_some(317),
        ("datanode/services.go", "segment level is legacy, please check") => {
            return since_2e434e4453.then_some(319)
        }
        ("datanode/services.go", "segment loading PKs") => return since_2e434e4453.then_some(322),
        // Printed where an attempt times out (the model's only way to them:
        // at 2e434e4453 and 439fb24b32 only under the knob deadline=per_attempt).
        ("datacoord/session_manager.go", "failed to sync segments") => l.attempt_failed,
        ("datanode/services.go", "failed to load segment stats log") => l.load_failed,
        ("datacoord/sync_segments_scheduler.go", "sync segments success") => l.scheduler_success,
        ("datacoord/session_manager.go", "success to sync segments") => l.session_success,
        ("datanode/services.go", "DataNode receives SyncSegments") => l.receives,
        ("datanode/services.go", "sync segments is empty, skip it") => l.empty,
        ("metacache/meta_cache.go", "remove dropped segment") => l.remove,
        ("datacoord/server.go", "flush segment complete") => l.flush_complete,
        ("datacoord/services.go", "failed to get segment") => l.get_segment,
        ("datacoord/services.go", "save to dropped segment, ignore this request") => {
            l.dropped_ignored
        }
        _ => return None,
    })
}

fn lines(v: Version) -> Lines {
    let scheduler_success = match v {
        Version::Ca7ef26e4b | Version::B5c9a7364b => 145,
        Version::C65f41dc60 => 146,
        _ => 149,
    };
    let old_services = matches!(
        v,
        Version::Ca7ef26e4b | Version::B5c9a7364b | Version::C65f41dc60
    );
    Lines {
        scheduler_success,
        session_success: if matches!(v, Version::V2e434e4453 | Version::V439fb24b32) {
            254
        } else {
            256
        },
        receives: if old_services { 284 } else { 283 },
        empty: if old_services { 292 } else { 291 },
        remove: if old_services { 299 } else { 301 },
        flush_complete: if old_services { 1069 } else { 1062 },
        // datacoord/services.go:489,494@ca7ef26e4b..c65f41dc60; :490,495@4cf1a358ba and later.
        get_segment: if old_services { 489 } else { 490 },
        dropped_ignored: if old_services { 494 } else { 495 },
        // services.go:328@ca7ef26e4b..c65f41dc60, :327@4cf1a358ba,
        // :334@2e434e4453 and 439fb24b32; session_manager.go:246 up to
        // 4cf1a358ba, :244 from 2e434e4453 (its closure lost two lines).
        load_failed: match v {
            _ if old_services => 328,
            Version::V4cf1a358ba => 327,
            _ => 334,
        },
        attempt_failed: if v.attempt_deadline() { 246 } else { 244 },
    }
}

impl Ev {
    pub fn go_fn(&self) -> crate::engine::GoFn {
        use Ev::*;
        match self {
            InsertLookupMiss { .. } | BufferInsert { .. } => go::WRITE_BUFFER_BASE_BUFFER_INSERT,
            DatacoordSealed { .. } => go::SEGMENT_MANAGER_SEAL_ALL_SEGMENTS,
            DatacoordDroppedIgnored { .. } => go::SERVER_SAVE_BINLOG_PATHS,
            Seal { .. } => go::WRITE_BUFFER_BASE_SEAL_SEGMENTS,
            SealedPolicy { .. } => go::GET_SEALED_SEGMENTS_POLICY,
            DroppedPolicy { .. }
            | StaleEntryPicked {
                state: SegState::Dropped,
                ..
            } => go::GET_DROPPED_SEGMENT_POLICY,
            StaleEntryPicked {
                state: SegState::Growing,
                ..
            } => go::WRITE_BUFFER_BASE_SEAL_SEGMENTS,
            StaleEntryPicked { .. } => go::GET_SEALED_SEGMENTS_POLICY,
            SyncSkipped { .. } => go::WRITE_BUFFER_BASE_GET_SYNC_TASK,
            BufferYielded { .. } => go::WRITE_BUFFER_BASE_GET_SYNC_TASK,
            MergedStatsSegmentMissing { .. } | MergedStatsEmpty { .. } => {
                go::STORAGE_V1_SERIALIZER_SERIALIZE_MERGED_PK_STATS
            }
            SyncTaskBuilt { .. } => go::STORAGE_V1_SERIALIZER_SET_TASK_META,
            KeyLockWait { .. } | KeyLockTaken { .. } => go::KEY_LOCK_DISPATCHER_SUBMIT,
            TaskSubmitted { .. } => go::SYNC_MANAGER_SYNC_DATA,
            TaskDiscarded { .. }
            | TaskSegmentMissing {
                in_write_meta: false,
                ..
            }
            | TaskWriteLogs { .. } => go::SYNC_TASK_RUN,
            TaskSegmentMissing { .. } | SaveBinlogPathsCall { .. } => {
                go::BROKER_META_WRITER_UPDATE_SYNC
            }
            DatacoordSaved { .. } => go::SERVER_SAVE_BINLOG_PATHS,
            DatacoordSegmentNotFound { .. } => go::BROKER_META_WRITER_UPDATE_SYNC,
            PostFlush { .. } => go::SERVER_POST_FLUSH,
            TaskDone { .. } => go::SYNC_TASK_RUN,
            SyncSegmentsRequest {
                version: Version::C65f41dc60,
                ..
            }
            | SyncSegmentsSuccess {
                version: Version::C65f41dc60,
                ..
            } => go::SYNC_SEGMENTS_SCHEDULER_SYNC_FLUSHED_SEGMENTS,
            SyncSegmentsRequest { .. } | SyncSegmentsSuccess { .. } => {
                go::SYNC_SEGMENTS_SCHEDULER_SYNC_SEGMENTS
            }
            RpcSucceeded | RetryWithoutDeadline { .. } => go::SESSION_MANAGER_IMPL_SYNC_SEGMENTS,
            AttemptTimedOut { .. } => go::SESSION_MANAGER_IMPL_SYNC_SEGMENTS_RETRY,
            LoadStatsCtxDone { .. } => go::LOAD_STATS_CTX_DONE,
            DatanodeReceives { .. }
            | StatsLoaded { .. }
            | SyncSegmentsEmpty { .. }
            | MissingSkipped { .. }
            | LoadingPks { .. }
            | LoadingStats { .. } => go::DATA_NODE_SYNC_SEGMENTS,
            NilStatslog { .. } => go::DECOMPRESS_BIN_LOG_STATS_POOL,
            MetacacheAdded { .. } | MetacacheRemoved { .. } | ViewKept { .. } => {
                go::META_CACHE_IMPL_UPDATE_SEGMENT_VIEW
            }
            FlowgraphDelivered { .. } => go::FLOWGRAPH_DELIVERY,
            ActorDone => go::SCENARIO_ACTOR_FINISHED,
            GoPanic { .. } => go::PANIC,
            Invariant(_) => crate::engine::INVARIANT_CHECK,
        }
    }

    pub fn render(&self, sc: &Scenario, out: &mut String) {
        use Ev::*;
        let _ = match self {
            InsertLookupMiss { segment } => write!(
                out,
                "GetSegmentByID({segment}) finds nothing: AddSegment next (another goroutine may add it first)"
            ),
            BufferInsert { segment, rows, buffered, counted, added } => {
                if *added {
                    let _ = write!(out, "AddSegment({segment}, Growing, L1, startPosRecorded=false); ");
                }
                write!(
                    out,
                    "buffered {rows} rows for segment {segment} ({buffered} in buffer; UpdateBufferedRows({counted}): the insert buffer counts each row twice)"
                )
            }
            DatacoordSealed {
                segment,
                sealed: true,
                flushable: true,
            } => {
                write!(out, "datacoord seals segment {segment}; the datanode seals it in its FlushSegments RPC next")
            }
            DatacoordSealed {
                segment,
                flushable: true,
                ..
            } => {
                write!(out, "datacoord: segment {segment} is Sealed already; the datanode's FlushSegments next")
            }
            DatacoordSealed { segment, .. } => {
                write!(out, "datacoord: segment {segment} is not one it flushes (flushPolicyL1 takes Sealed, non-L0 segments of its meta), so its time tick sends the datanode no FlushSegments for it: the datanode does not seal it")
            }
            DatacoordDroppedIgnored { segment } => {
                write!(out, "datacoord: segment {segment} is Dropped: \"save to dropped segment, ignore this request\"")
            }
            Seal { segment, sealed: true } => write!(out, "segment {segment} Growing -> Sealed"),
            Seal { segment, .. } => write!(out, "segment {segment} is not Growing in the metacache: nothing to seal"),
            StaleEntryPicked { segment, state, current } => write!(
                out,
                "stateSegments[{}] still holds the info of segment {segment} that AddSegment overwrote ({}; meta_cache.go:132-136 leaves the old state's entry): the range over that state finds it",
                state.as_str(),
                match current {
                    Some(c) => format!("the metacache holds it {}", c.as_str()),
                    None => "the metacache no longer holds it".to_owned(),
                }
            ),
            DroppedPolicy { segment } => write!(out, "segment {segment} is Dropped: selected to sync (as a drop)"),
            SealedPolicy { segment, moved: true } => write!(out, "segment {segment} Sealed -> Flushing, selected to sync"),
            SealedPolicy { segment, .. } => {
                write!(out, "segment {segment} is not Sealed: the sealed-segment policy does not pick it; synced without flush")
            }
            SyncSkipped { segment } => write!(
                out,
                "segment {segment} not in metacache: getSyncTask fails before yielding the buffer, sync skipped with a warning"
            ),
            BufferYielded { segment, n, rows, batch, flush, drop } => write!(
                out,
                "getSyncTask #{n} for segment {segment}: buffer yielded ({rows} rows{}), StartSyncing(batchSize={batch}{}){}{}",
                if *rows > 0 { ", checkpoint pinned" } else { "" },
                if batch != rows { ": the last chunk's rows only" } else { "" },
                if *flush { ", flush" } else { "" },
                if *drop { ", drop" } else { "" }
            ),
            MergedStatsSegmentMissing { segment, lost } => write!(
                out,
                "EncodeBuffer: serializeMergedPkStats finds no segment {segment}: ErrSegmentNotFound; the write buffer warns and moves on: {lost} yielded row(s) dropped, checkpoint stays pinned"
            ),
            MergedStatsEmpty { segment } => write!(
                out,
                "EncodeBuffer: segment {segment} has no PK stats history: \"shall not serialize zero length statslog list\", not ErrSegmentNotFound -> log.Fatal"
            ),
            SyncTaskBuilt { segment, n } => write!(
                out,
                "EncodeBuffer done; setTaskMeta for task #{n} of segment {segment} (its failure callback panics)"
            ),
            KeyLockWait { segment } => write!(out, "an earlier task holds segment {segment}'s key lock: waits"),
            KeyLockTaken { segment } => write!(out, "took segment {segment}'s key lock"),
            TaskSubmitted { segment, n, task } => write!(out, "sync task #{n} (g{task}) submitted to the sync pool for segment {segment}"),
            TaskDiscarded { segment } => write!(out, "segment {segment} gone but the task drops it: discarded"),
            TaskSegmentMissing { segment, in_write_meta: false } => {
                write!(out, "Run: GetSegmentByID({segment}) finds nothing; not a drop: ErrSegmentNotFound -> HandleError")
            }
            TaskSegmentMissing { segment, .. } => write!(
                out,
                "writeMeta: UpdateSync's GetSegmentByID({segment}) finds nothing: ErrSegmentNotFound -> HandleError"
            ),
            TaskWriteLogs { segment, n } => write!(out, "task #{n}: segment {segment} found; writing binlogs"),
            SaveBinlogPathsCall { segment, rows, flush, drop } => write!(
                out,
                "SaveBinlogPaths(segment {segment}, rows {rows}{}{})",
                if *flush { ", flushed" } else { "" },
                if *drop { ", dropped" } else { "" }
            ),
            DatacoordSaved { segment, state, statslog } => write!(
                out,
                "datacoord: segment {segment} is {}{}",
                state.as_str(),
                if *statslog { " with a PK statslog" } else { "" }
            ),
            DatacoordSegmentNotFound { segment, flush: false } => {
                write!(out, "datacoord lacks segment {segment}: stale segment, ignored")
            }
            DatacoordSegmentNotFound { segment, .. } => {
                write!(out, "datacoord lacks segment {segment}: meta error, sync skipped")
            }
            PostFlush { segment, flushed: true } => write!(out, "datacoord flush loop: postFlush: segment {segment} Flushing -> Flushed"),
            PostFlush { segment, .. } => write!(out, "datacoord flush loop: segment {segment} is not healthy: post flush ignored"),
            TaskDone { segment, n, applied: true, flushed } => write!(
                out,
                "task #{n} done: FinishSyncing{} on segment {segment}; key lock released",
                if *flushed { " + Flushed" } else { "" }
            ),
            TaskDone { segment, n, .. } => {
                write!(out, "task #{n} done; segment {segment} is not in the metacache, so FinishSyncing does nothing")
            }
            SyncSegmentsRequest { partition, sent, left_out, version } => {
                let _ = write!(out, "[{}] request for partition {partition}: segments {}", version.as_str(), ids_short(sent.iter().map(|s| s.segment)));
                if !left_out.is_empty() {
                    let _ = write!(out, "; selected but left out (no PK statslog) {}", left_out.short());
                }
                Ok(())
            }
            DatanodeReceives { partition } => write!(out, "SyncSegments for partition {partition} arrives"),
            SyncSegmentsEmpty { .. } => write!(out, "empty request: no-op"),
            MissingSkipped { segment, level } => write!(
                out,
                "missing segment {segment} is {}: warned, not loaded",
                level.as_str()
            ),
            LoadingPks { segment } => write!(out, "missing Flushed segment {segment}: loading its PKs"),
            LoadingStats { load } => write!(out, "missing {}: loading their PK stats in the stats pool", ids_short(load.iter().copied())),
            NilStatslog { segment } => write!(
                out,
                "segment {segment} has no PK statslog: DecompressBinLog gets []*FieldBinlog{{nil}} and dereferences it (binlog.go:143); the stats pool re-panics"
            ),
            MetacacheAdded { segment, state } => write!(out, "segment {segment} added as {}", state.as_str()),
            MetacacheRemoved { segment, state, level, version } => write!(
                out,
                "[{}] segment {segment} ({} {}) not in the request: REMOVED",
                version.as_str(),
                state.as_str(),
                level.as_str()
            ),
            ViewKept { segment, state, level, version } => write!(
                out,
                "[{}] segment {segment} ({} {}) not in the request, but this version keeps it",
                version.as_str(),
                state.as_str(),
                level.as_str()
            ),
            RpcSucceeded => write!(out, "SyncSegments RPC returned success"),
            RetryWithoutDeadline { version } => write!(
                out,
                "[{}] \"retried\" has no effect {}: SessionManagerImpl.SyncSegments calls the datanode under context.Background() (session_manager.go:240-242@2e434e4453, #34226), so no attempt times out; the request is sent once",
                version.as_str(),
                if version.attempt_deadline() {
                    "under the knob deadline=none"
                } else {
                    "at this version"
                }
            ),
            AttemptTimedOut { handler, running: true } => write!(
                out,
                "attempt 1 timed out (10 s CompactionRPCTimeout: context deadline exceeded) while its handler g{handler} still runs on the datanode, its ctx done; retry.Do sleeps, then sends the same request again"
            ),
            AttemptTimedOut { handler, .. } => write!(
                out,
                "attempt 1 timed out (10 s CompactionRPCTimeout: context deadline exceeded) after its handler g{handler} returned (the reply came late); retry.Do sleeps, then sends the same request again"
            ),
            LoadStatsCtxDone { load, .. } => write!(
                out,
                "loading the PK stats of {} under a done ctx: LoadStats fails (context deadline exceeded); the handler returns the error, UpdateSegmentView is not called",
                ids_short(load.iter().copied())
            ),
            StatsLoaded { load, .. } => write!(
                out,
                "conc.AwaitAll returned: the PK stats of {} loaded while the attempt's ctx was live; UpdateSegmentView next, which reads no ctx (the deadline may pass first)",
                ids_short(load.iter().copied())
            ),
            SyncSegmentsSuccess { selected, .. } => write!(out, "sync segments success (selected {})", ids_short(selected.iter().copied())),
            FlowgraphDelivered { actor, index } => write!(
                out,
                "message delivered: {} returned from its op #{index}",
                sc.actors[*actor as usize].name
            ),
            ActorDone => write!(out, "all ops done"),
            GoPanic { message } => write!(out, "PANIC: {message}"),
            Invariant(v) => write!(out, "INVARIANT {}: {v}", v.name()),
        };
    }

    /// The Milvus log line (zap format) this fact corresponds to, with the file:line
    /// of version `v`.
    pub fn log_line(&self, v: Version) -> Option<String> {
        use Ev::*;
        let l = lines(v);
        Some(match self {
            MetacacheAdded { segment, .. } => {
                format!("[INFO] [metacache/meta_cache.go:289] [\"metacache does not have segment, add it\"] [segmentID={segment}]")
            }
            MetacacheRemoved { segment, .. } => format!(
                "[INFO] [metacache/meta_cache.go:{}] [\"remove dropped segment\"] [segmentID={segment}]",
                l.remove
            ),
            DatanodeReceives { partition } => format!(
                "[INFO] [datanode/services.go:{}] [\"DataNode receives SyncSegments\"] [partitionID={partition}]",
                l.receives
            ),
            // services.go:276-281,292@ca7ef26e4b: the handler's logger carries the partition.
            SyncSegmentsEmpty { partition } => format!(
                "[INFO] [datanode/services.go:{}] [\"sync segments is empty, skip it\"] [partitionID={partition}]",
                l.empty
            ),
            MissingSkipped { segment, level: Level::L0 } => format!(
                "[WARN] [datanode/services.go:317] [\"segment level is L0, may be the channel has not been successfully watched yet\"] [segmentID={segment}]"
            ),
            MissingSkipped { segment, .. } => format!(
                "[WARN] [datanode/services.go:319] [\"segment level is legacy, please check\"] [segmentID={segment}]"
            ),
            LoadingPks { segment } => {
                format!("[INFO] [datanode/services.go:322] [\"segment loading PKs\"] [segmentID={segment}]")
            }
            NilStatslog { .. } => "[ERROR] [conc/options.go:54] [\"Conc pool panicked\"] [panic=\"runtime error: invalid memory address or nil pointer dereference\"]".to_owned(),
            RpcSucceeded => format!(
                "[INFO] [datacoord/session_manager.go:{}] [\"success to sync segments\"]",
                l.session_success
            ),
            // session_manager.go:246@ca7ef26e4b..4cf1a358ba (:244 later): retry.Do's
            // closure logs the attempt's error (DeadlineExceeded; its text is
            // gRPC's, not compared) on the logger of nodeID and planID.
            AttemptTimedOut { .. } => format!(
                "[WARN] [datacoord/session_manager.go:{}] [\"failed to sync segments\"]",
                l.attempt_failed
            ),
            // services.go:328@ca7ef26e4b (:327@4cf1a358ba): each stats-pool
            // future whose LoadStats fails logs on the handler's logger, which
            // carries the partition (:276-282).
            LoadStatsCtxDone { partition, load } => load
                .iter()
                .map(|_| format!(
                    "[WARN] [datanode/services.go:{}] [\"failed to load segment stats log\"] [partitionID={partition}]",
                    l.load_failed
                ))
                .collect::<Vec<_>>()
                .join("\n"),
            SyncSegmentsSuccess { partition, selected, .. } => format!(
                "[INFO] [datacoord/sync_segments_scheduler.go:{}] [\"sync segments success\"] [partitionID={partition}] [segments=\"{}\"]",
                l.scheduler_success,
                ids(selected)
            ),
            SyncSkipped { segment } => format!(
                "[WARN] [writebuffer/write_buffer.go:571] [\"segment info not found in meta cache\"] [segmentID={segment}]\n[WARN] [writebuffer/write_buffer.go:336] [\"segment not found in meta\"] [segmentID={segment}]"
            ),
            MergedStatsSegmentMissing { segment, .. } => format!(
                "[WARN] [syncmgr/storage_serializer.go:115] [\"failed to serialize merged stats log\"] [segmentID={segment}] [error=\"segment not found[segment={segment}]\"]\n[WARN] [writebuffer/write_buffer.go:336] [\"segment not found in meta\"] [segmentID={segment}]"
            ),
            MergedStatsEmpty { segment } => format!(
                "[WARN] [syncmgr/storage_serializer.go:115] [\"failed to serialize merged stats log\"] [segmentID={segment}] [error=\"service internal error: shall not serialize zero length statslog list\"]\n[FATAL] [writebuffer/write_buffer.go:339] [\"failed to get sync task\"] [segmentID={segment}] [error=\"service internal error: shall not serialize zero length statslog list\"]"
            ),
            TaskDiscarded { segment } => {
                format!("[INFO] [syncmgr/task.go:130] [\"segment dropped, discard sync task\"] [segmentID={segment}]")
            }
            TaskSegmentMissing { segment, in_write_meta: false } => format!(
                "[WARN] [syncmgr/task.go:133] [\"failed to sync data, segment not found in metacache\"] [segmentID={segment}]"
            ),
            TaskSegmentMissing { segment, .. } => format!(
                "[WARN] [syncmgr/task.go:169] [\"failed to save serialized data into storage\"] [segmentID={segment}] [error=\"segment not found[segment={segment}]\"]"
            ),
            SyncTaskBuilt { segment, .. } => {
                format!("[INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={segment}]")
            }
            SaveBinlogPathsCall { segment, .. } => format!("[INFO] [syncmgr/meta_writer.go:72] [\"SaveBinlogPath\"] [SegmentID={segment}]"),
            TaskDone { segment, .. } => format!("[INFO] [syncmgr/task.go:184] [\"task done\"] [segmentID={segment}]"),
            DatacoordSegmentNotFound { segment, flush: false } => format!(
                "[WARN] [datacoord/services.go:{}] [\"failed to get segment\"] [segmentID={segment}]\n[WARN] [syncmgr/meta_writer.go:110] [\"stale segment not found, could be compacted\"] [segmentID={segment}]\n[WARN] [syncmgr/meta_writer.go:112] [\"failed to SaveBinlogPaths\"] [segmentID={segment}]",
                l.get_segment
            ),
            DatacoordSegmentNotFound { segment, .. } => format!(
                "[WARN] [datacoord/services.go:{}] [\"failed to get segment\"] [segmentID={segment}]\n[WARN] [syncmgr/meta_writer.go:119] [\"meta error found, skip sync and start to drop virtual channel\"]",
                l.get_segment
            ),
            DatacoordDroppedIgnored { segment } => format!(
                "[INFO] [datacoord/services.go:{}] [\"save to dropped segment, ignore this request\"] [segmentID={segment}]",
                l.dropped_ignored
            ),
            PostFlush { segment, flushed: true } => format!(
                "[INFO] [datacoord/server.go:{}] [\"flush segment complete\"] [id={segment}]",
                l.flush_complete
            ),
            GoPanic { message } if message.starts_with("segment not found") => format!(
                "[ERROR] [conc/options.go:54] [\"Conc pool panicked\"] [panic=\"{message}\"]\npanic: {message} [recovered]"
            ),
            GoPanic { message } if message.starts_with("runtime error") => {
                "panic: runtime error: invalid memory address or nil pointer dereference [recovered]".to_owned()
            }
            _ => return None,
        })
    }
}

pub(super) fn waits_on(sc: &Scenario, w: &World, g: &Goroutine) -> (String, GoFn) {
    match &g.role {
        Role::Actor { actor, pc, at } => actor_waits(sc, w, g, (*actor, *pc), at),
        Role::Task { at, .. } => match at {
            TaskAt::RunStart => (
                "nothing: a pool worker runs it next".to_owned(),
                go::SYNC_TASK_RUN,
            ),
            TaskAt::WriteLogs => (
                "MultiWrite of its binlogs to object storage".to_owned(),
                go::SYNC_TASK_WRITE_LOGS,
            ),
            TaskAt::SaveBinlogPaths { .. } => (
                "datacoord's SaveBinlogPaths reply".to_owned(),
                go::BROKER_META_WRITER_UPDATE_SYNC,
            ),
            TaskAt::FinishSyncing { .. } => (
                "nothing: SaveBinlogPaths returned; FinishSyncing next".to_owned(),
                go::SYNC_TASK_RUN,
            ),
        },
        Role::Handler { at, .. } => handler_waits(at),
        Role::FlushLoop => ("<-flushCh".to_owned(), go::SERVER_START_FLUSH_LOOP),
    }
}

fn handler_waits(at: &HandlerAt) -> (String, GoFn) {
    match at {
        HandlerAt::Attempt { at, ctx_done: true } => {
            let (what, go) = handler_waits(at);
            (
                format!("{what}; its attempt timed out, its ctx is done"),
                go,
            )
        }
        HandlerAt::Attempt { at, .. } => handler_waits(at),
        HandlerAt::Receive => (
            "nothing: the RPC has arrived".to_owned(),
            go::DATA_NODE_SYNC_SEGMENTS,
        ),
        HandlerAt::LoadStats { load } => (
            format!(
                "PK stats of {} missing segment(s) (conc.AwaitAll)",
                load.len()
            ),
            go::DATA_NODE_SYNC_SEGMENTS,
        ),
        HandlerAt::Apply { .. } => (
            "nothing: the PK stats are loaded; UpdateSegmentView next".to_owned(),
            go::DATA_NODE_SYNC_SEGMENTS,
        ),
    }
}

fn actor_waits(
    sc: &Scenario,
    w: &World,
    g: &Goroutine,
    (actor, pc): (u16, u32),
    at: &ActorAt,
) -> (String, GoFn) {
    let ops = &sc.actors[actor as usize].ops;
    if let Some(h) = w
        .wb_holder()
        .filter(|h| h.id != g.id && w.waits_for_wb(sc, g))
    {
        let (what, go) = match at {
            ActorAt::SealDatanode { .. } => (
                "SealSegments' wb.mut.RLock",
                go::WRITE_BUFFER_BASE_SEAL_SEGMENTS,
            ),
            _ => ("wb.mut (BufferData)", go::WRITE_BUFFER_BUFFER_DATA),
        };
        return (
            format!(
                "{what}: g{} ({}) is inside BufferData and holds wb.mut",
                h.id,
                w.goroutine_name(sc, h)
            ),
            go,
        );
    }
    match at {
        ActorAt::Ready => {
            match ops.get(crate::scenario::past_waits(ops, pc as usize, &w.actor_done)) {
                Some(Op::WaitFor(WaitFor { actor, index })) => (
                    format!(
                        "the message {} sends after its op #{index} returns",
                        sc.actors[*actor as usize].name
                    ),
                    go::FLOWGRAPH_DELIVERY,
                ),
                Some(op) => (
                    format!("nothing: next op {}", op.name()),
                    go::SCENARIO_ACTOR,
                ),
                None => ("nothing".to_owned(), go::SCENARIO_ACTOR),
            }
        }
        ActorAt::InsertAdd { segment, .. } => (
            format!("nothing: AddSegment({segment}) next"),
            go::WRITE_BUFFER_BASE_BUFFER_INSERT,
        ),
        ActorAt::GetSyncTask { segment } => (
            format!("nothing: getSyncTask looks segment {segment} up next"),
            go::WRITE_BUFFER_BASE_GET_SYNC_TASK,
        ),
        ActorAt::MergedStats(t) => (
            format!(
                "nothing: serializeMergedPkStats looks segment {} up next",
                t.segment
            ),
            go::STORAGE_V1_SERIALIZER_ENCODE_BUFFER,
        ),
        ActorAt::SealDatanode { segment } => (
            format!("nothing: the datanode seals segment {segment} next"),
            go::WRITE_BUFFER_BASE_SEAL_SEGMENTS,
        ),
        ActorAt::KeyLock(t) => (
            format!(
                "segment {}'s key lock (an earlier task holds it)",
                t.segment
            ),
            go::KEY_LOCK_DISPATCHER_SUBMIT,
        ),
        ActorAt::SyncSegmentsDeadline { handler, .. }
        | ActorAt::SyncSegmentsRpc { handler, .. } => rpc_waits(at, *handler),
    }
}

/// What datacoord's SyncSegments call waits for (`handler` serves its attempt).
fn rpc_waits(at: &ActorAt, handler: super::Gid) -> (String, GoFn) {
    match at {
        ActorAt::SyncSegmentsDeadline { .. } => (
            format!("nothing: the first attempt's deadline passes next (its handler g{handler} may run first)"),
            go::SESSION_MANAGER_IMPL_SYNC_SEGMENTS_RETRY,
        ),
        _ => (
            format!("the datanode's SyncSegments handler g{handler} to return"),
            go::SESSION_MANAGER_IMPL_SYNC_SEGMENTS,
        ),
    }
}
