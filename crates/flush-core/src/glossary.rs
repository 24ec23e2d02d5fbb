//! The Milvus words the page uses, one sentence each (the page explains them on
//! hover and focus, and lists them in its glossary). Each sentence says what the
//! Go code does, at 891c202b73 (flush-2021) or at the #34018 commits (sync-2024).

/// (term as it appears in text, id, one sentence). Longer terms come before the
/// terms they contain, so the longest match wins.
pub const TERMS: &[(&str, &str, &str)] = &[
    ("orderFlushQueue", "order-flush-queue", "The 2021 flush manager's queue of one segment (flush_manager.go): it chains the segment's flush tasks so that they notify in position order."),
    ("flushTaskRunner", "flush-task-runner", "The task of one segment position (flush_task.go): its insert and delete halves meet there, and it notifies once both are done and the task before it has finished."),
    ("getFlushTaskRunner", "get-flush-task-runner", "Finds or creates the runner of a position (working.LoadOrStore); a new runner is counted in runningTasks, closes an idle inject handler and is chained to the queue's tail."),
    ("flushBufferData", "flush-buffer-data", "The flush manager's entry for an insert buffer: it writes the binlogs and hands the insert half to the segment's queue (or, in drop mode, to an ad-hoc runner)."),
    ("flushDelData", "flush-del-data", "The flush manager's entry for a delete buffer: the delete half of a position."),
    ("finishSignal", "finish-signal", "A runner's channel, closed once it has notified; the next runner in the chain waits on it as its startSignal."),
    ("startSignal", "start-signal", "The tail a runner was chained to; waitFinish waits on it before it may post and notify."),
    ("tailCh", "tail", "The queue's tail: the channel the next runner waits on, normally the last runner's finishSignal, or an inject handler's injectDone while it holds a compaction."),
    ("tail chain", "tail", "The queue's tail: the channel the next runner waits on, normally the last runner's finishSignal, or an inject handler's injectDone while it holds a compaction."),
    ("injectCh", "inject-ch", "A queue's buffered channel of waiting compaction injections: a running task polls it after its start signal, an idle inject handler receives from it."),
    ("inject handler", "inject-handler", "The goroutine a queue runs while no task of it runs (handleInjection), so that a compaction injected into an idle queue is still taken."),
    ("injectDone", "inject-done", "taskInjection.injectDone(ok) ends a compaction's injection; an inject handler also makes a channel of that name the queue's tail while it holds one."),
    ("injectOver", "inject-over", "The injection's channel that injectDone fills with true (or closes on failure); whoever holds the injection waits on it."),
    ("injectMut", "inject-mut", "The queue's mutex over runningTasks, the inject handler and postTask's postInjection."),
    ("tailMut", "tail-mut", "The queue's mutex over its tail while a runner or an inject handler is chained to it."),
    ("postInjection", "post-injection", "What a successful compaction leaves on a queue: every later pack of the segment is posted as the compacted segment (it sticks)."),
    ("postTask", "post-task", "The queue's clean-up after a runner: working.Delete, runningTasks-- (a new inject handler at 0), then postInjection on the pack."),
    ("runningTasks", "running-tasks", "How many runners of the queue have not posted; at 0 the queue starts an inject handler."),
    ("drop mode", "drop-mode", "Set by startDropping when the channel is dropped: flushes skip the queues, and their packs are collected and sent once with flushAndDrop."),
    ("flushAndDrop", "flush-and-drop", "Drop mode's last call: every collected pack, after postInjection, in one DropVirtualChannel request to datacoord."),
    ("SaveBinlogPaths", "save-binlog-paths", "Datacoord's RPC that records a flushed pack's binlog paths and checkpoint."),
    ("SyncSegments", "sync-segments", "Datacoord's RPC telling the datanode which segments of a partition it should have; the datanode loads the missing ones and drops others from its metacache."),
    ("UpdateSegmentView", "update-segment-view", "The metacache call of SyncSegments that adds the requested segments and removes the cached ones the request lacks, except those the version spares."),
    ("metacache", "metacache", "The datanode's cache of its segments (state, level, rows) in 2024; sync tasks look their segment up in it."),
    ("sync task", "sync-task", "A SyncTask writes a segment's buffered rows as binlogs, then calls SaveBinlogPaths; it runs in the sync pool and looks its segment up in the metacache."),
    ("statslog", "statslog", "A segment's primary-key statistics binlog (its bloom filter); the datanode reads it to load a segment it does not have."),
    ("L0", "l0", "A level-0 segment: it holds only deletes, has no PK statslog, and is never loaded by SyncSegments after 2e434e4453."),
    ("Growing", "growing", "A segment still receiving inserts."),
    ("Flushing", "flushing", "A sealed segment whose last sync task is in flight."),
    ("Flushed", "flushed", "A segment whose binlogs are all saved."),
];

/// The sentence of a term id.
pub fn sentence(id: &str) -> Option<&'static str> {
    TERMS.iter().find(|t| t.1 == id).map(|t| t.2)
}
