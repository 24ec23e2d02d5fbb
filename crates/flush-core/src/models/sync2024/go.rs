//! The Go functions the model's steps stand for: file, function and what it does
//! (written from the Go code at the commits MODEL.md names), shown beside each step.

use crate::engine::GoFn;

pub const BROKER_META_WRITER_UPDATE_SYNC: GoFn = GoFn {
    file: "meta_writer.go",
    func: "brokerMetaWriter.UpdateSync",
    excerpt: "GetSegmentByID again (missing: ErrSegmentNotFound), then SaveBinlogPaths to datacoord with the checkpoint and start positions.",
};

pub const DATA_NODE_SYNC_SEGMENTS: GoFn = GoFn {
    file: "datanode/services.go",
    func: "DataNode.SyncSegments",
    excerpt: "Empty request: no-op. Else detect the segments the metacache lacks, load their PK stats in the stats pool (2e434e4453: only Flushed non-L0 ones), then UpdateSegmentView. No write-buffer lock is taken.",
};

pub const DECOMPRESS_BIN_LOG_STATS_POOL: GoFn = GoFn {
    file: "binlog.go",
    func: "DecompressBinLog (stats pool)",
    excerpt: "Ranges over []*FieldBinlog{seg.GetPkStatsLog()}: with no PK statslog that is {nil}, and fieldBinlog.Binlogs dereferences nil. The stats pool re-panics: the datanode exits (#34375).",
};

pub const GET_SEALED_SEGMENTS_POLICY: GoFn = GoFn {
    file: "sync_policy.go",
    func: "GetSealedSegmentsPolicy",
    excerpt: "Every Sealed segment becomes Flushing and is selected for sync.",
};

pub const GET_DROPPED_SEGMENT_POLICY: GoFn = GoFn {
    file: "sync_policy.go",
    func: "GetDroppedSegmentPolicy",
    excerpt: "Every Dropped segment of the metacache is selected for sync; getSyncTask makes its task a drop.",
};

pub const KEY_LOCK_DISPATCHER_SUBMIT: GoFn = GoFn {
    file: "key_lock_dispatcher.go",
    func: "keyLockDispatcher.Submit",
    excerpt: "keyLock.Lock(segmentID) in the caller: a second task for a segment waits until the first one finishes.",
};

pub const META_CACHE_IMPL_UPDATE_SEGMENT_VIEW: GoFn = GoFn {
    file: "meta_cache.go",
    func: "metaCacheImpl.UpdateSegmentView",
    excerpt: "Add the request's missing segments; remove every cached segment of the partition that is not in the request, unless the version's predicate keeps it (ca7ef26e4b: only L0 Growing).",
};

pub const PANIC: GoFn = GoFn {
    file: "runtime",
    func: "panic",
    excerpt: "The process exits: a Go panic nothing recovers (or one a pool re-panics).",
};

pub const SCENARIO_ACTOR: GoFn = GoFn {
    file: "scenario",
    func: "actor",
    excerpt: "An actor of the scenario runs its ops in order: a flow-graph node, the compactor, datacoord's scheduler, or a test's goroutine.",
};

pub const SCENARIO_ACTOR_FINISHED: GoFn = GoFn {
    file: "scenario",
    func: "actor finished",
    excerpt: "The actor returned from its last op: its goroutine is gone.",
};

pub const SEGMENT_MANAGER_SEAL_ALL_SEGMENTS: GoFn = GoFn {
    file: "datacoord/segment_manager.go",
    func: "SegmentManager.SealAllSegments",
    excerpt: "Datacoord's Flush RPC seals the collection's Growing segments in its meta; its time-tick handler then sends the datanode FlushSegments for those flushPolicyL1 takes (Sealed, not L0), and the datanode seals them in its metacache.",
};

pub const SERVER_POST_FLUSH: GoFn = GoFn {
    file: "datacoord/server.go",
    func: "Server.postFlush",
    excerpt: "Datacoord's flush loop: a segment SaveBinlogPaths made Flushing becomes Flushed.",
};

pub const SERVER_SAVE_BINLOG_PATHS: GoFn = GoFn {
    file: "datacoord/services.go",
    func: "Server.SaveBinlogPaths",
    excerpt: "Datacoord records the binlogs and statslogs, the checkpoint, and Flushing (then Flushed) for a flush.",
};

pub const SERVER_START_FLUSH_LOOP: GoFn = GoFn {
    file: "datacoord/server.go",
    func: "Server.startFlushLoop",
    excerpt: "Datacoord receives flushed segment ids from flushCh and runs postFlush for each.",
};

pub const SESSION_MANAGER_IMPL_SYNC_SEGMENTS: GoFn = GoFn {
    file: "session_manager.go",
    func: "SessionManagerImpl.SyncSegments",
    excerpt: "The datacoord side of the RPC: call the datanode (with retries), log \"success to sync segments\".",
};

pub const SESSION_MANAGER_IMPL_SYNC_SEGMENTS_RETRY: GoFn = GoFn {
    file: "session_manager.go",
    func: "SessionManagerImpl.SyncSegments (retry.Do)",
    excerpt: "Each attempt calls the datanode under a 10 s CompactionRPCTimeout (until #34226, before 2e434e4453); one that times out is retried after a sleep with the same request, while the datanode's handler of the first may still run.",
};

/// `util.LoadStats` (datanode/util/load_stats.go:76@ca7ef26e4b, b5c9a7364b,
/// c65f41dc60); `compaction.LoadStats` (datanode/compaction/load_stats.go) at
/// 4cf1a358ba.
pub const LOAD_STATS_CTX_DONE: GoFn = GoFn {
    file: "load_stats.go",
    func: "LoadStats (ctx done)",
    excerpt: "Reads the PK stats with chunkManager.MultiRead(ctx, ...) (util.LoadStats; compaction.LoadStats at 4cf1a358ba): under a ctx whose deadline passed the read fails, conc.AwaitAll returns the error and DataNode.SyncSegments returns it without UpdateSegmentView.",
};

pub const STORAGE_V1_SERIALIZER_ENCODE_BUFFER: GoFn = GoFn {
    file: "storage_serializer.go",
    func: "storageV1Serializer.EncodeBuffer",
    excerpt: "Serialize the yielded rows, RollStats, and for a flush the merged PK stats (a second lookup), then setTaskMeta.",
};

pub const STORAGE_V1_SERIALIZER_SERIALIZE_MERGED_PK_STATS: GoFn = GoFn {
    file: "storage_serializer.go",
    func: "storageV1Serializer.serializeMergedPkStats",
    excerpt: "For a flush of a non-L0 segment: GetSegmentByID again (missing: the write buffer warns and goes on, the yielded rows are lost) and serialize its PK stats history (empty: log.Fatal).",
};

pub const STORAGE_V1_SERIALIZER_SET_TASK_META: GoFn = GoFn {
    file: "storage_serializer.go",
    func: "storageV1Serializer.setTaskMeta",
    excerpt: "Fill the task and install WithFailureCallback(func(err) { panic(err) }): any error in Run ends the datanode.",
};

pub const SYNC_MANAGER_SYNC_DATA: GoFn = GoFn {
    file: "sync_manager.go",
    func: "syncManager.SyncData",
    excerpt: "Submit the task to the sync pool under its segment's key lock.",
};

pub const SYNC_SEGMENTS_SCHEDULER_SYNC_FLUSHED_SEGMENTS: GoFn = GoFn {
    file: "sync_segments_scheduler.go",
    func: "SyncSegmentsScheduler.SyncFlushedSegments",
    excerpt: "c65f41dc60: select the partition's Flushing and Flushed segments (statslog optional) and send them; log \"sync segments success\".",
};

pub const SYNC_SEGMENTS_SCHEDULER_SYNC_SEGMENTS: GoFn = GoFn {
    file: "sync_segments_scheduler.go",
    func: "SyncSegmentsScheduler.SyncSegments",
    excerpt: "Select the partition's healthy segments (439fb24b32: not L0); at ca7ef26e4b and b5c9a7364b only those with a PK statslog enter the request. Send it, then log \"sync segments success\" with all selected ids.",
};

pub const SYNC_TASK_RUN: GoFn = GoFn {
    file: "task.go",
    func: "SyncTask.Run",
    excerpt: "First GetSegmentByID: missing and not a drop means ErrSegmentNotFound, HandleError, and the panic. Then write the binlogs, writeMeta, FinishSyncing.",
};

pub const SYNC_TASK_WRITE_LOGS: GoFn = GoFn {
    file: "task.go",
    func: "SyncTask.writeLogs",
    excerpt: "MultiWrite the binlogs, statslogs and deltalogs to object storage.",
};

pub const WRITE_BUFFER_BASE_BUFFER_INSERT: GoFn = GoFn {
    file: "write_buffer.go",
    func: "writeBufferBase.bufferInsert",
    excerpt: "If the metacache lacks the segment, AddSegment(Growing, startPosRecorded=false): a removed segment comes back with no history. Then buffer the rows.",
};

pub const WRITE_BUFFER_BUFFER_DATA: GoFn = GoFn {
    file: "l0_write_buffer.go",
    func: "l0WriteBuffer.BufferData",
    excerpt: "wb.mut.Lock() for the whole message (bfWriteBuffer.BufferData the same): bufferInsert for each segment, then triggerSync (getSyncTask, EncodeBuffer, SyncData). One flow graph per channel calls it, so its messages take turns.",
};

pub const WRITE_BUFFER_BASE_GET_SYNC_TASK: GoFn = GoFn {
    file: "write_buffer.go",
    func: "writeBufferBase.getSyncTask",
    excerpt: "GetSegmentByID (missing: a warning, the buffer stays); yield the buffer and pin the checkpoint; StartSyncing; a flush if Flushing or L0; then EncodeBuffer.",
};

pub const WRITE_BUFFER_BASE_SEAL_SEGMENTS: GoFn = GoFn {
    file: "write_buffer.go",
    func: "writeBufferBase.sealSegments",
    excerpt: "UpdateSegments(UpdateState(Sealed)) for the listed segments that are Growing.",
};

/// The sync-2024 traces name the flow graph's delivery this way (the flush-2021
/// ones cite `nodeCtx.work`).
pub const FLOWGRAPH_DELIVERY: GoFn = GoFn {
    file: "flowgraph",
    func: "delivery",
    excerpt: "The flow graph runs a node's Operate, then delivers its output to the next node: a node gets a message only after the node before it returned from Operate.",
};
