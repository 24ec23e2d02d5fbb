//! `World::step` for sync-2024. Each arm cites the Go it models (MODEL.md §3).

use super::metacache::{Action, MetaSeg};
use super::*;
use crate::scenario::Op;
use crate::sched::Choice;

impl World {
    pub fn step(&mut self, sc: &Scenario, choice: Choice, ev: &mut Vec<Ev>) {
        let gi = self.gi(choice.g);
        let g = self.goroutines[gi].clone();
        match &g.role {
            Role::Actor { actor, pc } => self.step_actor(sc, g.id, *actor, *pc, g.at, ev),
            Role::Task(t) => self.step_task(g.id, t.clone(), g.at, ev),
            Role::Handler(req) => self.step_handler(g.id, req.clone(), g.at, ev),
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

    fn step_actor(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, at: At, ev: &mut Vec<Ev>) {
        let op = &sc.actors[actor as usize].ops[pc as usize];
        let done = match at {
            At::Ready => self.start_op(g, op, ev),
            At::KeyLock(task) => {
                ev.push(Ev::KeyLockTaken {
                    segment: task.segment,
                });
                self.submit(task, ev);
                true
            }
            At::SyncSegmentsRpc { selected, .. } => {
                // session_manager.go: SyncSegments returned; sync_segments_scheduler.go logs success.
                let partition = match *op {
                    Op::SyncSegments { partition } => partition,
                    _ => unreachable!("rpc wait outside sync_segments"),
                };
                ev.push(Ev::RpcSucceeded);
                ev.push(Ev::SyncSegmentsSuccess {
                    partition,
                    selected,
                });
                true
            }
            _ => unreachable!("actor: not a point this goroutine can be stepped from"),
        };
        if done {
            let next = pc + 1;
            if next as usize >= sc.actors[actor as usize].ops.len() {
                ev.push(Ev::ActorDone);
                self.finish(g);
            } else {
                let i = self.gi(g);
                self.goroutines[i].role = Role::Actor { actor, pc: next };
                self.goroutines[i].at = At::Ready;
            }
        }
    }

    fn start_op(&mut self, g: Gid, op: &Op, ev: &mut Vec<Ev>) -> bool {
        match *op {
            Op::Insert {
                segment,
                partition,
                rows,
            } => {
                // write_buffer.go: bufferInsert — add the segment as Growing when the metacache lacks it.
                let added = self.metacache.get(segment).is_none();
                if added {
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
                    });
                }
                let total = match self.buffers.binary_search_by_key(&segment, |b| b.0) {
                    Ok(i) => {
                        self.buffers[i].1 += rows;
                        self.buffers[i].1
                    }
                    Err(i) => {
                        self.buffers.insert(i, (segment, rows));
                        rows
                    }
                };
                self.metacache
                    .update(segment, None, &[Action::UpdateBufferedRows(total)]);
                ev.push(Ev::BufferInsert {
                    segment,
                    rows,
                    buffered: total,
                    added,
                });
                true
            }
            Op::Seal { segment } => {
                // write_buffer.go: sealSegments — Growing -> Sealed (datacoord sealed it first).
                let sealed = self.metacache.update(
                    segment,
                    Some(&[SegState::Growing]),
                    &[Action::UpdateState(SegState::Sealed)],
                );
                if let Some(d) = self.datacoord.iter_mut().find(|d| d.segment == segment) {
                    if d.state == SegState::Growing {
                        d.state = SegState::Sealed;
                    }
                }
                ev.push(Ev::Seal { segment, sealed });
                true
            }
            Op::Sync { segment, flush } => self.sync_segment(g, segment, flush, ev),
            Op::SyncSegments { partition } => {
                // sync_segments_scheduler.go: SyncSegments — select the partition's segments, build the request.
                let mut selected = Vec::new();
                let mut segments = Vec::new();
                for d in &self.datacoord {
                    if d.partition != partition {
                        continue;
                    }
                    let sel = match self.version {
                        Version::C65f41dc60 => {
                            matches!(d.state, SegState::Flushing | SegState::Flushed)
                        }
                        _ => d.state != SegState::Dropped,
                    };
                    if !sel {
                        continue;
                    }
                    selected.push(d.segment);
                    if request_includes(self.version, d) {
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
                false
            }
            _ => unreachable!("flush-2021 op in a sync-2024 run"),
        }
    }

    /// write_buffer.go: syncSegments([segment]) → getSyncTask → EncodeBuffer → SyncData.
    fn sync_segment(&mut self, g: Gid, segment: i64, flush: bool, ev: &mut Vec<Ev>) -> bool {
        if flush {
            // sync_policy.go: GetSealedSegmentsPolicy — Sealed -> Flushing, selected for sync.
            let moved = self.metacache.update(
                segment,
                Some(&[SegState::Sealed]),
                &[Action::UpdateState(SegState::Flushing)],
            );
            ev.push(Ev::SealedPolicy { segment, moved });
        }
        let Some(info) = self.metacache.get(segment).cloned() else {
            ev.push(Ev::SyncSkipped { segment });
            return true;
        };
        // yieldBuffer: the buffer moves to the task.
        let batch = match self.buffers.binary_search_by_key(&segment, |b| b.0) {
            Ok(i) => self.buffers.remove(i).1,
            Err(_) => 0,
        };
        self.metacache
            .update(segment, None, &[Action::StartSyncing(batch)]);
        let is_flush = info.state == SegState::Flushing || info.level == Level::L0;
        let is_drop = info.state == SegState::Dropped;
        if batch > 0 {
            // storage_serializer.go: EncodeBuffer → RollStats.
            self.metacache.update(segment, None, &[Action::RollStats]);
        }
        self.next_task += 1;
        let task = SyncTask {
            n: self.next_task,
            segment,
            partition: info.partition,
            level: info.level,
            batch,
            is_flush,
            is_drop,
            reported_absent: false,
        };
        ev.push(Ev::SyncTaskBuilt {
            segment,
            n: task.n,
            batch,
            flush: is_flush,
            drop: is_drop,
        });
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
        // HandleError → failureCallback set by setTaskMeta → panic(err).
        let message = format!("segment not found[segment={segment}]");
        ev.push(Ev::GoPanic {
            message: message.clone(),
        });
        self.panic = Some(GoPanic {
            goroutine: g,
            message,
        });
    }

    fn step_task(&mut self, g: Gid, t: SyncTask, at: At, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        match at {
            At::RunStart => {
                // task.go: Run — t.segment, has = t.metacache.GetSegmentByID(t.segmentID).
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
                // task.go: writeMeta → meta_writer.go: UpdateSync — GetSegmentByID again.
                let Some(seg) = self.metacache.get(segment) else {
                    ev.push(Ev::TaskSegmentMissing {
                        segment,
                        in_write_meta: true,
                    });
                    self.task_panic(g, segment, ev);
                    return;
                };
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
                self.datacoord_save_binlog_paths(&t, checkpoint_rows, ev);
                for s in &start_pos {
                    self.metacache
                        .update(*s, None, &[Action::SetStartPosRecorded(true)]);
                }
                // task.go: Run — FinishSyncing (+ Flushed when flushing) for WithSegmentIDs: a no-op if absent.
                let mut actions = vec![Action::FinishSyncing(t.batch)];
                if t.is_flush {
                    actions.push(Action::UpdateState(SegState::Flushed));
                }
                let applied = self.metacache.update(segment, None, &actions);
                if t.is_drop {
                    self.metacache.remove(segment);
                }
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

    /// datacoord services.go: SaveBinlogPaths for a non-L0 segment (L0 segments are created there).
    fn datacoord_save_binlog_paths(&mut self, t: &SyncTask, rows: i64, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        if t.level == Level::L0 {
            if self.dc(segment).is_none() {
                let at = self.datacoord.partition_point(|d| d.segment < segment);
                self.datacoord.insert(
                    at,
                    DcSeg {
                        segment,
                        partition: t.partition,
                        state: SegState::Flushed,
                        level: Level::L0,
                        statslog: false,
                        rows,
                    },
                );
            }
            ev.push(Ev::DatacoordSaved {
                segment,
                state: SegState::Flushed,
                statslog: false,
            });
            return;
        }
        let Some(d) = self.datacoord.iter_mut().find(|d| d.segment == segment) else {
            ev.push(Ev::DatacoordSegmentNotFound {
                segment,
                flush: t.is_flush,
            });
            return;
        };
        if d.state == SegState::Dropped {
            ev.push(Ev::DatacoordSaved {
                segment,
                state: d.state,
                statslog: d.statslog,
            });
            return;
        }
        if t.is_drop {
            d.state = SegState::Dropped;
        } else if t.is_flush {
            // Flushing here, Flushed once datacoord's flush handler has run (postFlush).
            d.state = SegState::Flushed;
        }
        if t.batch > 0 || (t.is_flush && t.level != Level::L0) {
            d.statslog = true;
        }
        if rows >= d.rows {
            d.rows = rows;
        }
        ev.push(Ev::DatacoordSaved {
            segment,
            state: d.state,
            statslog: d.statslog,
        });
    }

    fn step_handler(&mut self, g: Gid, req: SyncRequest, at: At, ev: &mut Vec<Ev>) {
        match at {
            At::Receive => {
                // services.go: DataNode.SyncSegments.
                ev.push(Ev::DatanodeReceives {
                    partition: req.partition,
                });
                if req.segments.is_empty() {
                    ev.push(Ev::SyncSegmentsEmpty);
                    self.finish(g);
                    return;
                }
                let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
                let missing = self.metacache.detect_missing(&all);
                if missing.is_empty() {
                    self.update_segment_view(&req, &[], ev);
                    self.finish(g);
                } else {
                    ev.push(Ev::LoadingStats {
                        missing: missing.clone(),
                    });
                    self.set_at(g, At::LoadStats { missing });
                }
            }
            At::LoadStats { missing } => {
                self.update_segment_view(&req, &missing, ev);
                self.finish(g);
            }
            _ => unreachable!("handler: not a point this goroutine can be stepped from"),
        }
    }

    /// meta_cache.go: UpdateSegmentView(partitionID, newSegments, newSegmentsBF, allSegments).
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
            })
            .collect();
        let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
        let (added, absent) =
            self.metacache
                .update_segment_view(self.version, req.partition, &new, &all);
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
        // Row counts add up: buffered = the write buffer, syncing = the tasks in flight.
        let rows: Vec<(i64, i64, i64, i32)> = self
            .metacache
            .segments()
            .iter()
            .map(|s| (s.segment, s.buffer_rows, s.syncing_rows, s.syncing_tasks))
            .collect();
        for (id, buffered, syncing, tasks) in rows {
            let mut in_flight = 0i64;
            let mut n = 0i32;
            for g in &self.goroutines {
                if let (Role::Task(t), _) | (_, At::KeyLock(t)) = (&g.role, &g.at) {
                    if t.segment == id {
                        in_flight += t.batch;
                        n += 1;
                    }
                }
            }
            let wb = self.buffered(id);
            if buffered != wb || syncing != in_flight || tasks != n {
                self.violate(
                    Violation::RowCounts {
                        segment: id,
                        buffered,
                        write_buffer: wb,
                        syncing,
                        in_flight,
                        tasks,
                        live_tasks: n,
                    },
                    ev,
                );
            }
        }
    }
}
