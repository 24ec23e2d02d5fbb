//! `World::step` for sync-2024. Each arm cites the Go it models (MODEL.md §3), as
//! file:line@commit; where a line moved between the commits the first one is cited
//! and the log lines of each commit are in `event.rs`. A step ends where another
//! goroutine may touch the metacache, the write buffer or datacoord's meta in
//! between (the SyncSegments handler takes only the metacache lock, never the write
//! buffer's `wb.mut`: services.go:309-346, meta_cache.go:272-273@ca7ef26e4b).

use super::metacache::{Action, MetaSeg};
use super::*;
use super::setup::Op;
use crate::scenario::WaitFor;
use crate::sched::Choice;

impl World {
    pub fn step(&mut self, sc: &Scenario, choice: Choice, ev: &mut Vec<Ev>) {
        let gi = self.gi(choice.g);
        let g = self.goroutines[gi].clone();
        match &g.role {
            Role::Actor { actor, pc } => self.step_actor(sc, g.id, *actor, *pc, g.at, ev),
            Role::Task(t) => self.step_task(g.id, t.clone(), g.at, ev),
            Role::Handler(req) => self.step_handler(g.id, req.clone(), g.at, ev),
            Role::FlushLoop => self.step_flush_loop(g.id, ev),
        }
        self.check_invariants(ev);
    }

    fn set_at(&mut self, g: Gid, at: At) {
        let i = self.gi(g);
        self.goroutines[i].at = at;
    }

    fn finish(&mut self, g: Gid) {
        let i = self.gi(g);
        self.goroutines.remove(i);
    }

    fn go_panic(&mut self, g: Gid, message: String, ev: &mut Vec<Ev>) {
        ev.push(Ev::GoPanic {
            message: message.clone(),
        });
        self.panic = Some(GoPanic {
            goroutine: g,
            message,
        });
    }

    fn step_actor(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, at: At, ev: &mut Vec<Ev>) {
        let (pc, done) = match at {
            At::Ready => {
                // wait_for ops are passed in the step of the op after them.
                let ops = &sc.actors[actor as usize].ops;
                let mut pc = pc;
                while let Some(Op::WaitFor(WaitFor { actor: other, index })) = ops.get(pc as usize)
                {
                    ev.push(Ev::FlowgraphDelivered {
                        actor: *other,
                        index: *index,
                    });
                    if !self.op_done(sc, g, actor, pc, ev) {
                        return;
                    }
                    pc += 1;
                }
                (pc, self.start_op(g, &ops[pc as usize], ev))
            }
            At::InsertAdd {
                segment,
                partition,
                rows,
            } => {
                self.buffer_insert_add(segment, partition, rows, ev);
                (pc, true)
            }
            At::GetSyncTask { segment } => (pc, self.get_sync_task(g, segment, ev)),
            At::MergedStats(task) => (pc, self.merged_stats(g, task, ev)),
            At::SealDatanode { segment } => {
                // write_buffer.go:220-225 sealSegments, from the datanode's FlushSegments
                // RPC (datanode/services.go:99): Growing -> Sealed in the metacache.
                let sealed = self.metacache.update(
                    segment,
                    Some(&[SegState::Growing]),
                    &[Action::UpdateState(SegState::Sealed)],
                );
                ev.push(Ev::Seal { segment, sealed });
                (pc, true)
            }
            At::KeyLock(task) => {
                ev.push(Ev::KeyLockTaken {
                    segment: task.segment,
                });
                self.submit(task, ev);
                (pc, true)
            }
            At::SyncSegmentsRpc { selected, .. } => {
                // session_manager.go:256 "success to sync segments", then
                // sync_segments_scheduler.go:145 "sync segments success" (@ca7ef26e4b).
                let partition = match sc.actors[actor as usize].ops[pc as usize] {
                    Op::SyncSegments { partition } => partition,
                    _ => unreachable!("rpc wait outside sync_segments"),
                };
                ev.push(Ev::RpcSucceeded);
                ev.push(Ev::SyncSegmentsSuccess {
                    partition,
                    selected,
                    version: self.version,
                });
                (pc, true)
            }
            _ => unreachable!("actor: not a point this goroutine can be stepped from"),
        };
        if done {
            self.op_done(sc, g, actor, pc, ev);
        }
    }

    /// The actor returned from op `pc`. Returns false when it has no ops left.
    fn op_done(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, ev: &mut Vec<Ev>) -> bool {
        self.actor_done[actor as usize] = pc + 1;
        let next = pc + 1;
        if next as usize >= sc.actors[actor as usize].ops.len() {
            ev.push(Ev::ActorDone);
            self.finish(g);
            return false;
        }
        let i = self.gi(g);
        self.goroutines[i].role = Role::Actor { actor, pc: next };
        self.goroutines[i].at = At::Ready;
        true
    }

    fn start_op(&mut self, g: Gid, op: &Op, ev: &mut Vec<Ev>) -> bool {
        match *op {
            Op::Insert {
                segment,
                partition,
                rows,
            } => {
                // write_buffer.go:532 bufferInsert — GetSegmentByID; a miss adds the
                // segment (:534-544), a separate metacache call: the next step.
                if self.metacache.get(segment).is_none() {
                    ev.push(Ev::InsertLookupMiss { segment });
                    self.set_at(
                        g,
                        At::InsertAdd {
                            segment,
                            partition,
                            rows,
                        },
                    );
                    return false;
                }
                self.buffer_rows(segment, rows, false, ev);
                true
            }
            Op::Seal { segment } => {
                // Datacoord seals first (its segment manager), then tells the datanode
                // (FlushSegments), which seals its metacache entry: two steps, a tick can
                // come between them.
                let sealed = match self.datacoord.binary_search_by_key(&segment, |d| d.segment) {
                    Ok(i) if self.datacoord[i].state == SegState::Growing => {
                        self.datacoord[i].state = SegState::Sealed;
                        true
                    }
                    _ => false,
                };
                ev.push(Ev::DatacoordSealed { segment, sealed });
                self.set_at(g, At::SealDatanode { segment });
                false
            }
            Op::Sync { segment, flush } => self.sync_segment(g, segment, flush, ev),
            Op::SyncSegments { partition } => {
                self.sync_segments_tick(g, partition, ev);
                false
            }
            _ => unreachable!("not a sync-2024 op"),
        }
    }

    /// write_buffer.go:534-544 — `AddSegment(Growing, level unset → L1,
    /// startPosRecorded=false)`, overwriting whatever another goroutine added since
    /// the lookup; then the rows are buffered.
    fn buffer_insert_add(&mut self, segment: i64, partition: i64, rows: i64, ev: &mut Vec<Ev>) {
        self.metacache.add(MetaSeg {
            segment,
            partition,
            state: SegState::Growing,
            level: Level::L1,
            flushed_rows: 0,
            buffer_rows: 0,
            syncing_rows: 0,
            syncing_tasks: 0,
            start_pos_recorded: false,
            history: false,
        });
        self.buffer_rows(segment, rows, true, ev);
    }

    /// write_buffer.go:547-551 — buffer the rows (one chunk), `UpdateBufferedRows`
    /// with the insert buffer's row count, which counts each chunk twice
    /// (insert_buffer.go:110 and :128).
    fn buffer_rows(&mut self, segment: i64, rows: i64, added: bool, ev: &mut Vec<Ev>) {
        let i = match self.buffers.binary_search_by_key(&segment, |b| b.segment) {
            Ok(i) => i,
            Err(i) => {
                self.buffers.insert(
                    i,
                    SegBuf {
                        segment,
                        ..SegBuf::default()
                    },
                );
                i
            }
        };
        let b = &mut self.buffers[i];
        b.rows += rows;
        b.last_chunk = rows;
        b.counted += 2 * rows;
        let (buffered, counted) = (b.rows, b.counted);
        self.ledger(segment).inserted += rows;
        self.metacache
            .update(segment, None, &[Action::UpdateBufferedRows(counted)]);
        ev.push(Ev::BufferInsert {
            segment,
            rows,
            buffered,
            counted,
            added,
        });
    }

    /// sync_segments_scheduler.go:114-147@ca7ef26e4b (the filter per version) — select
    /// the partition's segments, build the request, `sessions.SyncSegments` (the
    /// handler is the datanode's goroutine; the actor waits for its reply).
    fn sync_segments_tick(&mut self, g: Gid, partition: i64, ev: &mut Vec<Ev>) {
        let mut selected = Vec::new();
        let mut segments = Vec::new();
        for d in &self.datacoord {
            if d.partition != partition || !super::selected(self.knobs, d) {
                continue;
            }
            selected.push(d.segment);
            if request_includes(self.knobs, d) {
                segments.push(ReqSeg {
                    segment: d.segment,
                    state: d.state,
                    level: d.level,
                    rows: d.rows,
                    statslog: d.statslog,
                });
            }
        }
        let left_out: Vec<i64> = selected
            .iter()
            .copied()
            .filter(|s| !segments.iter().any(|r| r.segment == *s))
            .collect();
        let req = SyncRequest {
            partition,
            segments,
        };
        ev.push(Ev::SyncSegmentsRequest {
            partition,
            sent: req.segments.iter().map(|s| s.segment).collect(),
            left_out,
            version: self.version,
        });
        let h = self.spawn(Role::Handler(req), At::Receive);
        self.set_at(
            g,
            At::SyncSegmentsRpc {
                handler: h,
                selected,
            },
        );
    }

    /// write_buffer.go:302-311 triggerSync: the sync policies pick the segment (the
    /// sealed policy, sync_policy.go:71-77, first moves Sealed to Flushing: a metacache
    /// call of its own), then :329-355 syncSegments → getSyncTask.
    fn sync_segment(&mut self, g: Gid, segment: i64, flush: bool, ev: &mut Vec<Ev>) -> bool {
        if flush {
            let moved = self.metacache.update(
                segment,
                Some(&[SegState::Sealed]),
                &[Action::UpdateState(SegState::Flushing)],
            );
            ev.push(Ev::SealedPolicy { segment, moved });
            if moved {
                self.set_at(g, At::GetSyncTask { segment });
                return false;
            }
        }
        self.get_sync_task(g, segment, ev)
    }

    /// write_buffer.go:565-626 getSyncTask → storage_serializer.go:75-141 EncodeBuffer →
    /// sync_manager.go SyncData.
    fn get_sync_task(&mut self, g: Gid, segment: i64, ev: &mut Vec<Ev>) -> bool {
        // :569-572 — GetSegmentByID; missing: ErrSegmentNotFound before the buffer is
        // yielded (it stays in wb.buffers), warned at :571 and :336.
        let Some(info) = self.metacache.get(segment).cloned() else {
            ev.push(Ev::SyncSkipped { segment });
            return true;
        };
        // :578 yieldBuffer (the rows leave wb.buffers); :583-585 a buffer with data
        // pins the channel checkpoint ("syncing task"); :589-599 StartSyncing(batchSize),
        // batchSize being the rows of the last chunk.
        let buf = match self.buffers.binary_search_by_key(&segment, |b| b.segment) {
            Ok(i) => self.buffers.remove(i),
            Err(_) => SegBuf::default(),
        };
        let (batch, rows) = (buf.last_chunk, buf.rows);
        self.metacache
            .update(segment, None, &[Action::StartSyncing(batch)]);
        // :614-621 — flush if Flushing or L0, drop if Dropped (from the lookup's snapshot).
        let is_flush = info.state == SegState::Flushing || info.level == Level::L0;
        let is_drop = info.state == SegState::Dropped;
        if rows > 0 {
            // storage_serializer.go:85-108 — serialize, RollStats (a no-op if missing).
            self.metacache.update(segment, None, &[Action::RollStats]);
        }
        self.next_task += 1;
        let task = SyncTask {
            n: self.next_task,
            segment,
            partition: info.partition,
            level: info.level,
            batch,
            rows,
            is_flush,
            is_drop,
            reported_absent: false,
        };
        ev.push(Ev::BufferYielded {
            segment,
            n: task.n,
            rows,
            batch,
            flush: is_flush,
            drop: is_drop,
        });
        if is_flush && info.level != Level::L0 {
            // storage_serializer.go:111-116 — serializeMergedPkStats looks the segment
            // up again (:207): the next step, so SyncSegments may remove it in between.
            self.set_at(g, At::MergedStats(task));
            return false;
        }
        self.build_and_submit(g, task, ev)
    }

    /// storage_serializer.go:206-222 serializeMergedPkStats — `GetSegmentByID` (:207),
    /// then `SerializePkStatsList` over the segment's stats history.
    fn merged_stats(&mut self, g: Gid, task: SyncTask, ev: &mut Vec<Ev>) -> bool {
        let segment = task.segment;
        let Some(seg) = self.metacache.get(segment) else {
            // :208-210 ErrSegmentNotFound → EncodeBuffer warns (:115) and fails →
            // write_buffer.go:335-337 warns "segment not found in meta" and goes on: the
            // yielded rows are gone and the "syncing task" checkpoint stays pinned.
            self.ledger(segment).lost += task.rows;
            if task.rows > 0 {
                if let Err(i) = self.pinned.binary_search(&segment) {
                    self.pinned.insert(i, segment);
                }
            }
            ev.push(Ev::MergedStatsSegmentMissing {
                segment,
                lost: task.rows,
            });
            return true;
        };
        if !seg.history {
            // data_codec.go:155-157 — "shall not serialize zero length statslog list",
            // not ErrSegmentNotFound → write_buffer.go:339 log.Fatal: the datanode exits.
            ev.push(Ev::MergedStatsEmpty { segment });
            self.go_panic(
                g,
                format!("log.Fatal: failed to get sync task (segment {segment}): service internal error: shall not serialize zero length statslog list"),
                ev,
            );
            return false;
        }
        self.build_and_submit(g, task, ev)
    }

    /// storage_serializer.go:137 setTaskMeta (its failure callback panics, :156-159),
    /// then sync_manager.go:120-131 submit (logs, then keyLockDispatcher.Submit takes
    /// the segment's key lock, blocking while an earlier task holds it).
    fn build_and_submit(&mut self, g: Gid, task: SyncTask, ev: &mut Vec<Ev>) -> bool {
        let segment = task.segment;
        ev.push(Ev::SyncTaskBuilt { segment, n: task.n });
        if self.key_locks.iter().any(|k| k.0 == segment) {
            ev.push(Ev::KeyLockWait { segment });
            self.set_at(g, At::KeyLock(task));
            return false;
        }
        self.submit(task, ev);
        true
    }

    /// sync_manager.go: safeSubmitTask → keyLockDispatcher.Submit: lock the key, go run.
    fn submit(&mut self, task: SyncTask, ev: &mut Vec<Ev>) {
        let (segment, n) = (task.segment, task.n);
        let t = self.spawn(Role::Task(task), At::RunStart);
        self.key_locks.push((segment, t));
        ev.push(Ev::TaskSubmitted {
            segment,
            n,
            task: t,
        });
    }

    fn end_task(&mut self, g: Gid, segment: i64) {
        self.key_locks.retain(|k| !(k.0 == segment && k.1 == g));
        self.finish(g);
    }

    fn task_panic(&mut self, g: Gid, segment: i64, ev: &mut Vec<Ev>) {
        // task.go:120-124 HandleError → the failure callback of setTaskMeta →
        // panic(err) (storage_serializer.go:158); the sync pool re-panics (conc/pool.go:74,
        // conc/options.go:54-56): the process exits.
        self.go_panic(g, format!("segment not found[segment={segment}]"), ev);
    }

    fn step_task(&mut self, g: Gid, t: SyncTask, at: At, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        match at {
            At::RunStart => {
                // task.go:127-135 Run — t.segment, has = t.metacache.GetSegmentByID(t.segmentID).
                if self.metacache.get(segment).is_none() {
                    if t.is_drop {
                        ev.push(Ev::TaskDiscarded { segment });
                        self.end_task(g, segment);
                    } else {
                        ev.push(Ev::TaskSegmentMissing {
                            segment,
                            in_write_meta: false,
                        });
                        self.task_panic(g, segment, ev);
                    }
                    return;
                }
                ev.push(Ev::TaskWriteLogs { segment, n: t.n });
                self.set_at(g, At::WriteLogs);
            }
            At::WriteLogs => {
                // task.go:166-172 writeMeta → meta_writer.go:54-57 UpdateSync — GetSegmentByID again.
                let Some(seg) = self.metacache.get(segment) else {
                    ev.push(Ev::TaskSegmentMissing {
                        segment,
                        in_write_meta: true,
                    });
                    self.task_panic(g, segment, ev);
                    return;
                };
                // meta_writer.go:58-70 — checkpoint rows, start positions not recorded yet.
                let checkpoint_rows = seg.flushed_rows + t.batch;
                let start_pos: Vec<i64> = self
                    .metacache
                    .segments()
                    .iter()
                    .filter(|s| {
                        matches!(
                            s.state,
                            SegState::Growing | SegState::Sealed | SegState::Flushing
                        ) && !s.start_pos_recorded
                    })
                    .map(|s| s.segment)
                    .collect();
                ev.push(Ev::SaveBinlogPathsCall {
                    segment,
                    rows: checkpoint_rows,
                    flush: t.is_flush,
                    drop: t.is_drop,
                });
                self.set_at(
                    g,
                    At::SaveBinlogPaths {
                        checkpoint_rows,
                        start_pos,
                    },
                );
            }
            At::SaveBinlogPaths {
                checkpoint_rows,
                start_pos,
            } => {
                // meta_writer.go:105-130 — datacoord handles the request; the reply
                // comes back. The datanode's own updates are the next step.
                self.datacoord_save_binlog_paths(&t, checkpoint_rows, ev);
                self.set_at(g, At::FinishSyncing { start_pos });
            }
            At::FinishSyncing { start_pos } => {
                // meta_writer.go:136 — SetStartPosRecorded for the reported segments.
                for s in &start_pos {
                    self.metacache
                        .update(*s, None, &[Action::SetStartPosRecorded(true)]);
                }
                // task.go:174-182 — FinishSyncing (+ Flushed when flushing) for
                // WithSegmentIDs: a no-op if absent; a drop removes the segment.
                let mut actions = vec![Action::FinishSyncing(t.batch)];
                if t.is_flush {
                    actions.push(Action::UpdateState(SegState::Flushed));
                }
                let applied = self.metacache.update(segment, None, &actions);
                if t.is_drop {
                    self.metacache.remove(segment);
                }
                self.ledger(segment).synced += t.rows;
                ev.push(Ev::TaskDone {
                    segment,
                    n: t.n,
                    applied,
                    flushed: t.is_flush,
                });
                self.end_task(g, segment);
            }
            _ => unreachable!("task: not a point this goroutine can be stepped from"),
        }
    }

    /// datacoord services.go:440-557@ca7ef26e4b SaveBinlogPaths. A flush makes the
    /// segment Flushing, unconditionally (:509-512, meta.go:737-752), and queues it on
    /// flushCh (:548); the flush loop makes it Flushed later (server.go:1019-1042). L0
    /// segments are created Flushed (`CreateL0Operator`, meta.go:695-719). The row count
    /// follows the binlogs (meta.go:916-931: the checkpoint's, then the binlog count).
    fn datacoord_save_binlog_paths(&mut self, t: &SyncTask, rows: i64, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        let at = self.datacoord.binary_search_by_key(&segment, |d| d.segment);
        if t.level == Level::L0 {
            let i = match at {
                Ok(i) => i,
                Err(i) => {
                    self.datacoord.insert(
                        i,
                        DcSeg {
                            segment,
                            partition: t.partition,
                            state: SegState::Flushed,
                            level: Level::L0,
                            statslog: false,
                            rows: 0,
                        },
                    );
                    i
                }
            };
            let d = &self.datacoord[i];
            ev.push(Ev::DatacoordSaved {
                segment,
                state: d.state,
                statslog: d.statslog,
            });
            return;
        }
        let Ok(i) = at else {
            // :489 "failed to get segment" → ErrSegmentNotFound, which the datanode's
            // meta writer takes as success (meta_writer.go:110-120).
            ev.push(Ev::DatacoordSegmentNotFound {
                segment,
                flush: t.is_flush,
            });
            return;
        };
        let d = &mut self.datacoord[i];
        if d.state == SegState::Dropped {
            // :494 "save to dropped segment, ignore this request".
            ev.push(Ev::DatacoordDroppedIgnored { segment });
            return;
        }
        let mut queued = false;
        if t.is_drop {
            d.state = SegState::Dropped;
        } else if t.is_flush {
            d.state = SegState::Flushing;
            queued = true;
        }
        if t.rows > 0 || (t.is_flush && t.level != Level::L0) {
            d.statslog = true;
        }
        // meta.go:922-930: NumOfRows = the checkpoint's; then, if the binlogs count
        // rows, their count (the rows really written, over every sync).
        d.rows = if d.rows + t.rows > 0 {
            d.rows + t.rows
        } else {
            rows
        };
        let (state, statslog) = (d.state, d.statslog);
        ev.push(Ev::DatacoordSaved {
            segment,
            state,
            statslog,
        });
        if queued {
            self.flush_ch.push(segment);
            if !self
                .goroutines
                .iter()
                .any(|g| matches!(g.role, Role::FlushLoop))
            {
                self.spawn(Role::FlushLoop, At::FlushCh);
            }
        }
    }

    /// datacoord server.go:1006-1022 startFlushLoop → :1035-1069 postFlush@ca7ef26e4b:
    /// `SetState(Flushed)` for a healthy segment.
    fn step_flush_loop(&mut self, g: Gid, ev: &mut Vec<Ev>) {
        let segment = self.flush_ch.remove(0);
        let flushed = match self.datacoord.binary_search_by_key(&segment, |d| d.segment) {
            Ok(i) if self.datacoord[i].state != SegState::Dropped => {
                self.datacoord[i].state = SegState::Flushed;
                true
            }
            _ => false,
        };
        ev.push(Ev::PostFlush { segment, flushed });
        if self.flush_ch.is_empty() {
            self.finish(g);
        }
    }

    fn step_handler(&mut self, g: Gid, req: SyncRequest, at: At, ev: &mut Vec<Ev>) {
        match at {
            At::Receive => {
                // services.go:275-346@ca7ef26e4b DataNode.SyncSegments.
                ev.push(Ev::DatanodeReceives {
                    partition: req.partition,
                });
                if req.segments.is_empty() {
                    // :291-293 — an empty request returns at once: nothing is removed.
                    ev.push(Ev::SyncSegmentsEmpty);
                    self.finish(g);
                    return;
                }
                let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
                let missing = self.metacache.detect_missing(&all);
                let load = self.segments_to_load(&req, &missing, ev);
                if load.is_empty() {
                    self.update_segment_view(&req, &[], ev);
                    self.finish(g);
                } else {
                    ev.push(Ev::LoadingStats { load: load.clone() });
                    self.set_at(g, At::LoadStats { load });
                }
            }
            At::LoadStats { load } => {
                // services.go:318-335 — each load runs in the stats pool:
                // binlog.DecompressBinLog over []*FieldBinlog{seg.GetPkStatsLog()}.
                if let Some(nil) = load
                    .iter()
                    .copied()
                    .find(|id| req.segments.iter().any(|s| s.segment == *id && !s.statslog))
                {
                    // A nil PkStatsLog: binlog.go:143 dereferences it; the stats pool
                    // re-panics (conc/pool.go:74) and its handler logs "Conc pool
                    // panicked" and panics again (conc/options.go:54-56): the datanode exits.
                    ev.push(Ev::NilStatslog { segment: nil });
                    self.go_panic(
                        g,
                        format!("runtime error: invalid memory address or nil pointer dereference (binlog.DecompressBinLog on the nil PkStatsLog of segment {nil}, in the datanode's stats pool)"),
                        ev,
                    );
                    return;
                }
                self.update_segment_view(&req, &load, ev);
                self.finish(g);
            }
            _ => unreachable!("handler: not a point this goroutine can be stepped from"),
        }
    }

    /// Which missing segments the handler loads and adds (the version's load rule).
    fn segments_to_load(&self, req: &SyncRequest, missing: &[i64], ev: &mut Vec<Ev>) -> Vec<i64> {
        let mut load = Vec::new();
        for &id in missing {
            let Some(s) = req.segments.iter().find(|s| s.segment == id) else {
                continue;
            };
            match self.knobs.load {
                LoadRule::EveryMissing => load.push(id),
                // services.go:315-343@2e434e4453.
                LoadRule::FlushedNotL0 => match s.level {
                    Level::L0 | Level::Legacy => ev.push(Ev::MissingSkipped {
                        segment: id,
                        level: s.level,
                    }),
                    Level::L1 if s.state == SegState::Flushed => {
                        ev.push(Ev::LoadingPks { segment: id });
                        load.push(id);
                    }
                    Level::L1 => {}
                },
            }
        }
        load
    }

    /// meta_cache.go:267-304@ca7ef26e4b UpdateSegmentView(partitionID, newSegments, newSegmentsBF, allSegments).
    fn update_segment_view(&mut self, req: &SyncRequest, new_segments: &[i64], ev: &mut Vec<Ev>) {
        let new: Vec<MetaSeg> = new_segments
            .iter()
            .filter_map(|id| req.segments.iter().find(|s| s.segment == *id))
            .map(|info| MetaSeg {
                segment: info.segment,
                partition: req.partition,
                state: info.state,
                level: info.level,
                flushed_rows: info.rows,
                buffer_rows: 0,
                syncing_rows: 0,
                syncing_tasks: 0,
                start_pos_recorded: true,
                history: info.statslog,
            })
            .collect();
        let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
        let (added, absent) =
            self.metacache
                .update_segment_view(self.knobs, req.partition, &new, &all);
        for id in added {
            let state = self
                .metacache
                .get(id)
                .map_or(SegState::Growing, |s| s.state);
            ev.push(Ev::MetacacheAdded { segment: id, state });
        }
        // Go ranges over a map here; the model reports in id order.
        for (s, gone) in absent {
            let (segment, state, level, version) = (s.segment, s.state, s.level, self.version);
            ev.push(if gone {
                Ev::MetacacheRemoved {
                    segment,
                    state,
                    level,
                    version,
                }
            } else {
                Ev::ViewKept {
                    segment,
                    state,
                    level,
                    version,
                }
            });
        }
    }

    fn violate(&mut self, v: Violation, ev: &mut Vec<Ev>) {
        if !self.violations.contains(&v) {
            ev.push(Ev::Invariant(v.clone()));
            self.violations.push(v);
        }
    }

    fn check_invariants(&mut self, ev: &mut Vec<Ev>) {
        // #34018: a sync task in flight (submitted or waiting for its key lock) for a segment the metacache lacks.
        let mut absent = Vec::new();
        for (i, g) in self.goroutines.iter().enumerate() {
            let t = match (&g.role, &g.at) {
                // Past writeMeta's lookup the task only does no-op updates: it cannot fail.
                (Role::Task(_), At::SaveBinlogPaths { .. } | At::FinishSyncing { .. }) => continue,
                (Role::Task(t), _) => t,
                (_, At::KeyLock(t)) => t,
                _ => continue,
            };
            if !t.is_drop && !t.reported_absent && self.metacache.get(t.segment).is_none() {
                absent.push((i, t.segment, t.n));
            }
        }
        for (i, segment, n) in absent {
            let g = &mut self.goroutines[i];
            if let Role::Task(t) = &mut g.role {
                t.reported_absent = true;
            } else if let At::KeyLock(t) = &mut g.at {
                t.reported_absent = true;
            }
            let v = Violation::SyncTaskWithoutSegment { segment, task: n };
            ev.push(Ev::Invariant(v.clone()));
            self.violations.push(v);
        }
        // Segment states only move forward (a removed and re-added segment included).
        let segs: Vec<(i64, SegState)> = self
            .metacache
            .segments()
            .iter()
            .map(|s| (s.segment, s.state))
            .collect();
        for (id, st) in segs {
            match self.last_state.binary_search_by_key(&id, |x| x.0) {
                Ok(i) => {
                    let before = self.last_state[i].1;
                    if st < before {
                        self.violate(
                            Violation::StateBackwards {
                                segment: id,
                                from: before,
                                to: st,
                            },
                            ev,
                        );
                    }
                    self.last_state[i].1 = st;
                }
                Err(i) => self.last_state.insert(i, (id, st)),
            }
        }
        // The syncing counters add up: syncingRows = the batches of the tasks in flight,
        // syncingTasks = their number. (bufferRows is left out: Go counts each buffered
        // row twice, insert_buffer.go:110 and :128, and StartSyncing takes off only the
        // last chunk, write_buffer.go:589-591, so it does not follow the write buffer.)
        let rows: Vec<(i64, i64, i32)> = self
            .metacache
            .segments()
            .iter()
            .map(|s| (s.segment, s.syncing_rows, s.syncing_tasks))
            .collect();
        for (id, syncing, tasks) in rows {
            let (in_flight, n) = self.in_flight(id);
            if syncing != in_flight || tasks != n {
                self.violate(
                    Violation::RowCounts {
                        segment: id,
                        syncing,
                        in_flight,
                        tasks,
                        live_tasks: n,
                    },
                    ev,
                );
            }
        }
        // No buffered rows dropped: every inserted row is buffered, in a task in flight,
        // or synced, unless datacoord really dropped the segment.
        let lost: Vec<(i64, i64)> = self
            .rows
            .iter()
            .filter(|r| r.lost > 0)
            .map(|r| (r.segment, r.lost))
            .collect();
        for (segment, lost) in lost {
            let dropped = self
                .dc(segment)
                .is_none_or(|d| d.state == SegState::Dropped);
            if !dropped {
                self.violate(Violation::RowsLost { segment, lost }, ev);
            }
        }
    }

    /// Rows and tasks in flight for `segment` (submitted or waiting for the key lock,
    /// or between the two lookups of getSyncTask and EncodeBuffer).
    fn in_flight(&self, segment: i64) -> (i64, i32) {
        let mut rows = 0i64;
        let mut n = 0i32;
        for g in &self.goroutines {
            if let (Role::Task(t), _) | (_, At::KeyLock(t) | At::MergedStats(t)) = (&g.role, &g.at)
            {
                if t.segment == segment {
                    rows += t.batch;
                    n += 1;
                }
            }
        }
        (rows, n)
    }
}
