//! sync-2024 facts, their Go functions, words, and the Milvus log lines they match.

use std::fmt;
use std::fmt::Write as _;

use super::*;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ev {
    BufferInsert {
        segment: i64,
        rows: i64,
        buffered: i64,
        added: bool,
    },
    Seal {
        segment: i64,
        sealed: bool,
    },
    SealedPolicy {
        segment: i64,
        moved: bool,
    },
    SyncSkipped {
        segment: i64,
    },
    SyncTaskBuilt {
        segment: i64,
        n: u32,
        batch: i64,
        flush: bool,
        drop: bool,
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
        sent: Vec<i64>,
        left_out: Vec<i64>,
        version: Version,
    },
    DatanodeReceives {
        partition: i64,
    },
    SyncSegmentsEmpty,
    LoadingStats {
        missing: Vec<i64>,
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
    SyncSegmentsSuccess {
        partition: i64,
        selected: Vec<i64>,
    },
    ActorDone,
    GoPanic {
        message: String,
    },
    Invariant(Violation),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
        buffered: i64,
        write_buffer: i64,
        syncing: i64,
        in_flight: i64,
        tasks: i32,
        live_tasks: i32,
    },
}

impl Violation {
    pub fn name(&self) -> &'static str {
        match self {
            Violation::SyncTaskWithoutSegment { .. } => "sync-task-segment-present",
            Violation::StateBackwards { .. } => "state-forward-only",
            Violation::RowCounts { .. } => "row-counts",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::SyncTaskWithoutSegment { segment, task } => write!(
                f,
                "sync task #{task} is in flight for segment {segment}, which the metacache no longer has (its Run will fail with segment not found)"
            ),
            Violation::StateBackwards { segment, from, to } => {
                write!(f, "segment {segment} went from {} back to {}", from.as_str(), to.as_str())
            }
            Violation::RowCounts { segment, buffered, write_buffer, syncing, in_flight, tasks, live_tasks } => write!(
                f,
                "segment {segment}: bufferRows={buffered} but the write buffer holds {write_buffer}; syncingRows={syncing} but tasks in flight carry {in_flight}; syncingTasks={tasks} but {live_tasks} in flight"
            ),
        }
    }
}

fn ids(v: &[i64]) -> String {
    let s: Vec<String> = v.iter().map(|i| i.to_string()).collect();
    format!("[{}]", s.join(","))
}

impl Ev {
    pub fn go_fn(&self) -> &'static str {
        use Ev::*;
        match self {
            BufferInsert { .. } => "write_buffer.go: writeBufferBase.bufferInsert",
            Seal { .. } => "write_buffer.go: writeBufferBase.sealSegments",
            SealedPolicy { .. } => "sync_policy.go: GetSealedSegmentsPolicy",
            SyncSkipped { .. } => "write_buffer.go: writeBufferBase.syncSegments",
            SyncTaskBuilt { .. } => "write_buffer.go: writeBufferBase.getSyncTask",
            KeyLockWait { .. } | KeyLockTaken { .. } => {
                "key_lock_dispatcher.go: keyLockDispatcher.Submit"
            }
            TaskSubmitted { .. } => "sync_manager.go: syncManager.SyncData",
            TaskDiscarded { .. }
            | TaskSegmentMissing {
                in_write_meta: false,
                ..
            }
            | TaskWriteLogs { .. } => "task.go: SyncTask.Run",
            TaskSegmentMissing { .. } | SaveBinlogPathsCall { .. } => {
                "meta_writer.go: brokerMetaWriter.UpdateSync"
            }
            DatacoordSaved { .. } | DatacoordSegmentNotFound { .. } => {
                "datacoord/services.go: Server.SaveBinlogPaths"
            }
            TaskDone { .. } => "task.go: SyncTask.Run",
            SyncSegmentsRequest { .. } | SyncSegmentsSuccess { .. } => {
                "sync_segments_scheduler.go: SyncSegmentsScheduler.SyncSegments"
            }
            RpcSucceeded => "session_manager.go: SessionManagerImpl.SyncSegments",
            DatanodeReceives { .. } | SyncSegmentsEmpty | LoadingStats { .. } => {
                "datanode/services.go: DataNode.SyncSegments"
            }
            MetacacheAdded { .. } | MetacacheRemoved { .. } | ViewKept { .. } => {
                "meta_cache.go: metaCacheImpl.UpdateSegmentView"
            }
            ActorDone => "scenario: actor finished",
            GoPanic { .. } => "storage_serializer.go: setTaskMeta (failure callback)",
            Invariant(_) => "flushscope: invariant",
        }
    }

    pub fn render(&self, _sc: &Scenario, out: &mut String) {
        use Ev::*;
        let _ = match self {
            BufferInsert { segment, rows, buffered, added: true } => write!(
                out,
                "segment {segment} not in metacache: AddSegment(Growing, L1); buffered {rows} rows ({buffered} in buffer)"
            ),
            BufferInsert { segment, rows, buffered, .. } => {
                write!(out, "buffered {rows} rows for segment {segment} ({buffered} in buffer)")
            }
            Seal { segment, sealed: true } => write!(out, "segment {segment} Growing -> Sealed"),
            Seal { segment, .. } => write!(out, "segment {segment} is not Growing in the metacache: nothing to seal"),
            SealedPolicy { segment, moved: true } => write!(out, "segment {segment} Sealed -> Flushing, selected to sync"),
            SealedPolicy { segment, .. } => {
                write!(out, "segment {segment} is not Sealed: the sealed-segment policy does not pick it; synced without flush")
            }
            SyncSkipped { segment } => write!(out, "segment {segment} not in metacache: getSyncTask fails, sync skipped with a warning"),
            SyncTaskBuilt { segment, n, batch, flush, drop } => write!(
                out,
                "sync task #{n} for segment {segment}: StartSyncing({batch}){}{}, EncodeBuffer, setTaskMeta (failure callback panics)",
                if *flush { ", flush" } else { "" },
                if *drop { ", drop" } else { "" }
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
            TaskDone { segment, n, applied: true, flushed } => write!(
                out,
                "task #{n} done: FinishSyncing{} on segment {segment}; key lock released",
                if *flushed { " + Flushed" } else { "" }
            ),
            TaskDone { segment, n, .. } => {
                write!(out, "task #{n} done; segment {segment} is not in the metacache, so FinishSyncing does nothing")
            }
            SyncSegmentsRequest { partition, sent, left_out, version } => {
                let _ = write!(out, "[{}] request for partition {partition}: segments {}", version.as_str(), ids(sent));
                if !left_out.is_empty() {
                    let _ = write!(out, "; left out (no PK statslog) {}", ids(left_out));
                }
                Ok(())
            }
            DatanodeReceives { partition } => write!(out, "SyncSegments for partition {partition} arrives"),
            SyncSegmentsEmpty => write!(out, "empty request: no-op"),
            LoadingStats { missing } => write!(out, "missing {}: loading their PK stats", ids(missing)),
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
            SyncSegmentsSuccess { selected, .. } => write!(out, "sync segments success (selected {})", ids(selected)),
            ActorDone => write!(out, "all ops done"),
            GoPanic { message } => write!(out, "PANIC: {message}"),
            Invariant(v) => write!(out, "INVARIANT {}: {v}", v.name()),
        };
    }

    /// The Milvus log line (zap format) this fact corresponds to, line numbers at `ca7ef26e4b`.
    pub fn log_line(&self) -> Option<String> {
        use Ev::*;
        Some(match self {
            MetacacheAdded { segment, .. } => {
                format!("[INFO] [metacache/meta_cache.go:289] [\"metacache does not have segment, add it\"] [segmentID={segment}]")
            }
            MetacacheRemoved { segment, .. } => {
                format!("[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID={segment}]")
            }
            DatanodeReceives { partition } => {
                format!("[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID={partition}]")
            }
            SyncSegmentsEmpty => "[INFO] [datanode/services.go:292] [\"sync segments is empty, skip it\"]".to_owned(),
            RpcSucceeded => "[INFO] [datacoord/session_manager.go:256] [\"success to sync segments\"]".to_owned(),
            SyncSegmentsSuccess { partition, selected } => format!(
                "[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID={partition}] [segments=\"{}\"]",
                ids(selected)
            ),
            SyncSkipped { segment } => {
                format!("[WARN] [writebuffer/write_buffer.go:336] [\"segment not found in meta\"] [segmentID={segment}]")
            }
            TaskDiscarded { segment } => {
                format!("[INFO] [syncmgr/task.go:130] [\"segment dropped, discard sync task\"] [segmentID={segment}]")
            }
            TaskSegmentMissing { segment, in_write_meta: false } => format!(
                "[WARN] [syncmgr/task.go:133] [\"failed to sync data, segment not found in metacache\"] [segmentID={segment}]"
            ),
            TaskSegmentMissing { segment, .. } => format!(
                "[WARN] [syncmgr/task.go:169] [\"failed to save serialized data into storage\"] [segmentID={segment}] [error=\"segment not found[segment={segment}]\"]"
            ),
            TaskSubmitted { segment, .. } => {
                format!("[INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={segment}]")
            }
            SaveBinlogPathsCall { segment, .. } => format!("[INFO] [syncmgr/meta_writer.go:72] [\"SaveBinlogPath\"] [SegmentID={segment}]"),
            TaskDone { segment, .. } => format!("[INFO] [syncmgr/task.go:184] [\"task done\"] [segmentID={segment}]"),
            DatacoordSegmentNotFound { segment, flush: false } => format!(
                "[WARN] [syncmgr/meta_writer.go:110] [\"stale segment not found, could be compacted\"] [segmentID={segment}]"
            ),
            DatacoordSegmentNotFound { .. } => {
                "[WARN] [syncmgr/meta_writer.go:119] [\"meta error found, skip sync and start to drop virtual channel\"]".to_owned()
            }
            GoPanic { message } => format!("panic: {message}"),
            _ => return None,
        })
    }
}

pub(super) fn waits_on(sc: &Scenario, g: &Goroutine) -> (String, &'static str) {
    match (&g.role, &g.at) {
        (Role::Actor { actor, pc }, At::Ready) => {
            match sc.actors[*actor as usize].ops.get(*pc as usize) {
                Some(op) => (format!("nothing: next op {}", op.name()), "scenario: actor"),
                None => ("nothing".to_owned(), "scenario: actor"),
            }
        }
        (_, At::KeyLock(t)) => (
            format!(
                "segment {}'s key lock (an earlier task holds it)",
                t.segment
            ),
            "key_lock_dispatcher.go: keyLockDispatcher.Submit",
        ),
        (_, At::SyncSegmentsRpc { handler, .. }) => (
            format!("the datanode's SyncSegments handler g{handler} to return"),
            "session_manager.go: SessionManagerImpl.SyncSegments",
        ),
        (_, At::RunStart) => (
            "nothing: a pool worker runs it next".to_owned(),
            "task.go: SyncTask.Run",
        ),
        (_, At::WriteLogs) => (
            "MultiWrite of its binlogs to object storage".to_owned(),
            "task.go: SyncTask.writeLogs",
        ),
        (_, At::SaveBinlogPaths { .. }) => (
            "datacoord's SaveBinlogPaths reply".to_owned(),
            "meta_writer.go: brokerMetaWriter.UpdateSync",
        ),
        (_, At::Receive) => (
            "nothing: the RPC has arrived".to_owned(),
            "datanode/services.go: DataNode.SyncSegments",
        ),
        (_, At::LoadStats { missing }) => (
            format!(
                "PK stats of {} missing segment(s) (conc.AwaitAll)",
                missing.len()
            ),
            "datanode/services.go: DataNode.SyncSegments",
        ),
        _ => ("?".to_owned(), "?"),
    }
}
