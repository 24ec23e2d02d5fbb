//! The Milvus words the page uses, one sentence each (the page explains them on
//! hover and focus, and lists them in its glossary). Each sentence says what the
//! Go code does, at 891c202b73 (flush-2021) or at the #34018 commits (sync-2024).

/// (term as it appears in text, id, one sentence). Longer terms come before the
/// terms they contain, so the longest match wins.
pub const TERMS: &[(&str, &str, &str)] = &[
    ("orderFlushQueue", "order-flush-queue", "The 2021 flush manager's queue of one segment (flush_manager.go): it chains the segment's flush tasks so that they notify in the order their runners joined the chain (an idle-handler injection can break this, fm:203-206)."),
    ("flushTaskRunner", "flush-task-runner", "The task of one segment position (flush_task.go): its insert and delete halves meet there, and it notifies once both are done and the task before it has finished."),
    ("getFlushTaskRunner", "get-flush-task-runner", "Finds or creates the runner of a position (working.LoadOrStore); a new runner is counted in runningTasks, closes an idle inject handler and is chained to the queue's tail."),
    ("flushBufferData", "flush-buffer-data", "The flush manager's entry for an insert buffer: it encodes the binlogs and hands a write task, the insert half, to the segment's queue (or, in drop mode, to an ad-hoc runner)."),
    ("flushDelData", "flush-del-data", "The flush manager's entry for a delete buffer: the delete half of a position."),
    ("finishSignal", "finish-signal", "A runner's channel, closed once it has notified; the next runner in the chain waits on it as its startSignal."),
    ("startSignal", "start-signal", "The tail a runner was chained to; waitFinish waits on it before it may post and notify."),
    ("tailCh", "tail", "The queue's tail: the channel the next runner waits on, the last runner's finishSignal or the injectDone of the last injection an inject handler took (closed once that injection ends); a new queue's tail is a closed channel."),
    ("tail chain", "tail", "The queue's tail: the channel the next runner waits on, the last runner's finishSignal or the injectDone of the last injection an inject handler took (closed once that injection ends); a new queue's tail is a closed channel."),
    ("injectCh", "inject-ch", "A queue's buffered channel of waiting compaction injections: a running task polls it after its start signal, an idle inject handler receives from it."),
    ("inject handler", "inject-handler", "The goroutine a queue runs while no task of it runs (handleInjection), so that a compaction injected into an idle queue is still taken."),
    ("injectDone", "inject-done", "taskInjection.injectDone(ok) ends a compaction's injection; an inject handler also makes a channel of that name the queue's tail while it holds one."),
    ("injectOver", "inject-over", "The injection's channel that injectDone fills with true (or closes on failure); whoever holds the injection waits on it."),
    ("injectMut", "inject-mut", "The queue's mutex over runningTasks, the inject handler and postTask's postInjection."),
    ("tailMut", "tail-mut", "The queue's mutex over its tail while a runner or an inject handler is chained to it."),
    ("postInjection", "post-injection", "What a successful compaction leaves on a queue: every later pack of the segment is posted as the compacted segment (it sticks)."),
    ("postTask", "post-task", "The queue's clean-up after a runner: working.Delete, runningTasks-- (a new inject handler at 0), then postInjection on the pack."),
    ("runningTasks", "running-tasks", "How many runners of the queue have not posted; at 0 the queue starts an inject handler."),
    ("drop mode", "drop-mode", "Set by startDropping when the channel is dropped: new insert halves, and delete halves whose position has no runner in the queue, run on ad-hoc runners, and their packs are collected for one flushAndDrop (fm:260-305)."),
    ("flushAndDrop", "flush-and-drop", "Drop mode's last call: the collected packs, after postInjection, and one DropVirtualChannel request for the channel, which at 891c202b73 carries none of them (fm:581-589; fixed by #17641)."),
    ("SaveBinlogPaths", "save-binlog-paths", "Datacoord's RPC that records a flushed pack's binlog paths and checkpoint."),
    ("SyncSegments", "sync-segments", "The datanode RPC that datacoord's SyncSegmentsScheduler calls with a partition's segments: the datanode loads the missing ones (only Flushed non-L0 ones from 2e434e4453 on) and removes from its metacache the cached ones the request lacks, except those UpdateSegmentView spares."),
    ("UpdateSegmentView", "update-segment-view", "The metacache call of SyncSegments that adds the missing segments the handler loaded and removes the cached ones the request lacks, except those the version spares."),
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
