//! The Go functions the model's steps stand for: file, function and what it does
//! (written from the Go code at the commits MODEL.md names), shown beside each step.

use crate::engine::GoFn;

pub const DROP_VIRTUAL_CHANNEL_FUNC: GoFn = GoFn {
    file: "flush_manager.go",
    func: "dropVirtualChannelFunc",
    excerpt: "Groups the drop packs by segment (at 891c202b73 that map never reaches the request: fixed by #17641), calls DropVirtualChannel (retried, panics on final failure), then marks every grouped segment flushed.",
};

pub const FLUSH_NOTIFY_FUNC: GoFn = GoFn {
    file: "flush_manager.go",
    func: "flushNotifyFunc",
    excerpt: "Panics on a pack with an error. Builds SaveBinlogPathsRequest (checkpoint = pack.pos, start positions of new segments) and retries it; then segmentFlushed if flushed or dropped.",
};

pub const FLUSH_TASK_RUNNER_INIT: GoFn = GoFn {
    file: "flush_task.go",
    func: "flushTaskRunner.init",
    excerpt: "startSignal = the queue's tail at this moment; finishSignal = a new channel; go waitFinish.",
};

pub const GET_FLUSH_QUEUE: GoFn = GoFn {
    file: "flush_manager.go",
    func: "getFlushQueue",
    excerpt: "dispatcher.LoadOrStore a queue for the segment, then queue.init() (sync.Once). Until init runs, the stored queue's tailCh is nil.",
};

pub const GET_FLUSH_TASK_RUNNER: GoFn = GoFn {
    file: "flush_manager.go",
    func: "getFlushTaskRunner",
    excerpt: "Three critical sections, each a step: working.LoadOrStore the runner for the MsgID; for a new one, under injectMut, runningTasks++ and close the inject handler (waiting for it to exit); then under tailMut, chain it: startSignal = old tail, tail = its finishSignal. Another creator can overtake between them.",
};

pub const HANDLE_DELETE_TASK: GoFn = GoFn {
    file: "flush_manager.go",
    func: "handleDeleteTask",
    excerpt: "In drop mode: if the queue's working map has the MsgID, join that runner (normal mode); else an ad-hoc runner whose pack (pos nil) joins the drop packs.",
};

pub const HANDLE_INSERT_TASK: GoFn = GoFn {
    file: "flush_manager.go",
    func: "handleInsertTask",
    excerpt: "In drop mode: an ad-hoc runner with Add(1), runFlushInsert, Wait(), then append its pack to dropHandler.packs. It never looks at a queue.",
};

pub const HANDLE_INSERT_TASK_OR_HANDLE_DELETE_TASK: GoFn = GoFn {
    file: "flush_manager.go",
    func: "handleInsertTask/handleDeleteTask",
    excerpt: "Both read dropping first. False: the normal path through the segment's queue. True (drop mode): an ad-hoc runner flushes the half, the caller waits for it, then appends its pack to dropHandler.packs under dropHandler's mutex.",
};

pub const INJECT_FLUSH: GoFn = GoFn {
    file: "flush_manager.go",
    func: "injectFlush",
    excerpt: "go waitForInjected(), then push the injection into each target segment's injectCh (capacity 100).",
};

pub const INJECT_HANDLER_CLOSE: GoFn = GoFn {
    file: "flush_manager.go",
    func: "injectHandler.close",
    excerpt: "close(done), then wg.Wait() until the handler goroutine returns. If it is handling an injection, that means waiting for injectDone.",
};

pub const INJECT_HANDLER_HANDLE_INJECTION: GoFn = GoFn {
    file: "flush_manager.go",
    func: "injectHandler.handleInjection",
    excerpt: "select on injectCh and done. An injection: tail = its own injectDone channel (the old tail is not chained), injectOne, wait on injectOver, keep postInjection on true, close(injectDone).",
};

pub const LIST_NEW_SEGMENTS_START_POSITIONS: GoFn = GoFn {
    file: "segment_replica.go",
    func: "listNewSegmentsStartPositions",
    excerpt: "Report every new segment's start position and move it from new to normal.",
};

pub const NODE_CTX_WORK: GoFn = GoFn {
    file: "flowgraph/node.go",
    func: "nodeCtx.work",
    excerpt: "The flow graph runs a node's Operate, then delivers its output to the next node: the delete node gets a position only after the insert node returned from flushBufferData for it.",
};

pub const NOTIFY_ALL_FLUSHED: GoFn = GoFn {
    file: "flush_manager.go",
    func: "notifyAllFlushed",
    excerpt: "close(allFlushed): no more flushes will come for this channel.",
};

pub const NOTIFY_BARRIER: GoFn = GoFn {
    file: "flush_manager_test.go",
    func: "notify barrier",
    excerpt: "Milvus's flush-manager tests wait until a number of packs were notified (the notify callback counts a WaitGroup down): the scenario's wait_notified op.",
};

pub const ORDER_FLUSH_QUEUE_INIT: GoFn = GoFn {
    file: "flush_manager.go",
    func: "orderFlushQueue.init",
    excerpt: "Once per queue: spawn the inject handler and start with a closed tail channel (\"new queue acts like tailing task is done\").",
};

pub const ORDER_FLUSH_QUEUE_INJECT: GoFn = GoFn {
    file: "flush_manager.go",
    func: "orderFlushQueue.inject",
    excerpt: "injectCh <- inj: blocks only when 100 injections are already queued.",
};

pub const ORDER_FLUSH_QUEUE_POST_TASK: GoFn = GoFn {
    file: "flush_manager.go",
    func: "orderFlushQueue.postTask",
    excerpt: "Delete the MsgID from working; then under injectMut: runningTasks--, and at 0 spawn a new inject handler (which may write postInjection unlocked meanwhile); keep a successful postInjection (sticky) and apply it to the pack, before notify.",
};

pub const PANIC: GoFn = GoFn {
    file: "runtime",
    func: "panic",
    excerpt: "The process exits: a Go panic nothing recovers (or one a pool re-panics).",
};

pub const RENDEZVOUS_FLUSH_MANAGER_CLOSE: GoFn = GoFn {
    file: "flush_manager.go",
    func: "rendezvousFlushManager.close",
    excerpt: "For each queue, under injectMut, close its inject handler (waiting if it handles an injection). The field is not set to nil.",
};

pub const RETRY_DO: GoFn = GoFn {
    file: "retry.go",
    func: "retry.Do",
    excerpt: "Call fn up to 10 times; after each failure (the last one too) sleep 200 ms, doubling, at most 3 s.",
};

pub const RUN_FLUSH_DEL: GoFn = GoFn {
    file: "flush_task.go",
    func: "runFlushDel",
    excerpt: "Guarded by deleteOnce: record the delta logs, then retry.Do(flushDeleteData) in a goroutine; on final error set deleteErr; always Done().",
};

pub const RUN_FLUSH_INSERT: GoFn = GoFn {
    file: "flush_task.go",
    func: "runFlushInsert",
    excerpt: "Guarded by insertOnce: record binlogs, pos, flushed, dropped, then retry.Do(flushInsertData) in a goroutine; on final error set insertErr; always Done().",
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

pub const COMPACTOR_COMPACT: GoFn = GoFn {
    file: "compactor.go",
    func: "compactionTask.compact",
    excerpt: "First getSegmentMeta(segIDs[0]): when the Replica lacks that segment (not new, normal or flushed), log \"compact wrong\" and return: nothing is injected. Then injectFlush and <-ti.Injected(). After CompleteCompaction: if the Replica has the target (new, normal or flushed), refresh its statistics; else addFlushedSegmentWithPKs(target) and removeSegment of every compacted segment. Then ti.injectDone(true).",
};

pub const SEGMENT_FLUSHED: GoFn = GoFn {
    file: "segment_replica.go",
    func: "segmentFlushed",
    excerpt: "Move a new or normal segment to flushed.",
};

pub const START_DROPPING: GoFn = GoFn {
    file: "flush_manager.go",
    func: "startDropping",
    excerpt: "dropping.Store(true); then allFlushed = make(chan) and the finaliser that waits for allFlushed.",
};

pub const START_DROPPING_FINALISER: GoFn = GoFn {
    file: "flush_manager.go",
    func: "startDropping (finaliser)",
    excerpt: "After allFlushed and every queue's tail: lock dropHandler's mutex (until flushAndDrop returns), apply each queue's postInjection to the drop packs one by one under that queue's injectMut, call flushAndDrop once.",
};

pub const TASK_INJECTION_INJECTED: GoFn = GoFn {
    file: "flush_task.go",
    func: "taskInjection.Injected",
    excerpt: "<-Injected(): returns when every target queue has taken the injection (injectOne).",
};

pub const TASK_INJECTION_INJECT_DONE: GoFn = GoFn {
    file: "flush_task.go",
    func: "taskInjection.injectDone",
    excerpt: "true: send segmentCnt trues into injectOver; false: close(injectOver), so every holder receives false.",
};

pub const TASK_INJECTION_WAIT_FOR_INJECTED: GoFn = GoFn {
    file: "flush_task.go",
    func: "taskInjection.waitForInjected",
    excerpt: "wg.Wait() for segmentCnt injectOne calls, then close(injected).",
};

pub const WAIT_FINISH: GoFn = GoFn {
    file: "flush_task.go",
    func: "waitFinish",
    excerpt: "t.Wait() for both halves; <-startSignal; build the pack; poll injectCh without blocking (take one injection and wait on injectOver); postTask; notify; close(finishSignal).",
};

pub const WAIT_FOR_ALL_FLUSH_QUEUE: GoFn = GoFn {
    file: "flush_manager.go",
    func: "waitForAllFlushQueue",
    excerpt: "Range the dispatcher and start one goroutine per queue; each reads the queue's tailCh (without tailMut) when it runs and waits on it. A queue stored but not initialised has a nil tailCh: that wait never ends.",
};
