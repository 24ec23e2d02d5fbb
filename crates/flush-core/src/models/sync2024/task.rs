//! A submitted `SyncTask` (`syncmgr/task.go`, `meta_writer.go`) running in the
//! sync manager's pool, datacoord's `SaveBinlogPaths` it calls, and datacoord's
//! flush loop that makes a flushed segment Flushed.

use super::metacache::Action;
use super::*;

impl World {
    fn end_task(&mut self, g: Gid, segment: i64) {
        self.seg(segment);
        self.key_locks.retain(|k| !(k.0 == segment && k.1 == g));
        self.finish(g);
    }

    fn task_panic(&mut self, g: Gid, segment: i64, ev: &mut Vec<Ev>) {
        // task.go:120-124 HandleError → the failure callback of setTaskMeta →
        // panic(err) (storage_serializer.go:158); the sync pool re-panics (conc/pool.go:74,
        // conc/options.go:54-56): the process exits.
        self.go_panic(g, format!("segment not found[segment={segment}]"), ev);
    }

    /// A sync task from point `at`; `None` once it has ended (or panicked).
    pub(super) fn step_task(
        &mut self,
        g: Gid,
        t: &SyncTask,
        at: TaskAt,
        ev: &mut Vec<Ev>,
    ) -> Option<TaskAt> {
        let segment = t.segment;
        match at {
            TaskAt::RunStart => {
                // task.go:127-135 Run — t.segment, has = t.metacache.GetSegmentByID(t.segmentID).
                self.mc(Site::Get, segment);
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
                    return None;
                }
                ev.push(Ev::TaskWriteLogs { segment, n: t.n });
                Some(TaskAt::WriteLogs)
            }
            TaskAt::WriteLogs => self.write_meta(g, t, ev),
            TaskAt::SaveBinlogPaths {
                checkpoint_rows,
                start_pos,
            } => {
                // meta_writer.go:105-130 — datacoord handles the request; the reply
                // comes back. The datanode's own updates are the next step.
                self.datacoord_save_binlog_paths(t, checkpoint_rows, ev);
                Some(TaskAt::FinishSyncing { start_pos })
            }
            TaskAt::FinishSyncing { start_pos } => {
                // meta_writer.go:136 — SetStartPosRecorded for the reported segments.
                for s in start_pos.iter() {
                    self.seg(*s);
                    self.metacache
                        .update(*s, None, &[Action::SetStartPosRecorded(true)]);
                }
                // task.go:174-182 — FinishSyncing (+ Flushed when flushing) for
                // WithSegmentIDs: a no-op if absent; a drop removes the segment.
                let mut actions = vec![Action::FinishSyncing(t.batch)];
                if t.is_flush {
                    actions.push(Action::UpdateState(SegState::Flushed));
                }
                self.mc(Site::Update, segment);
                let applied = self.metacache.update(segment, None, &actions);
                if t.is_drop {
                    self.mc(Site::Remove, segment);
                    self.order(footprint::key::MC_MEMBERS, 0, 0);
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
                None
            }
        }
    }

    /// task.go:166-172 writeMeta → meta_writer.go:54-70 UpdateSync: the second
    /// lookup, then the request (checkpoint rows, start positions not recorded yet).
    fn write_meta(&mut self, g: Gid, t: &SyncTask, ev: &mut Vec<Ev>) -> Option<TaskAt> {
        let segment = t.segment;
        // task.go:166-172 writeMeta → meta_writer.go:54-57 UpdateSync — GetSegmentByID again.
        self.mc(Site::Get, segment);
        let Some(flushed_rows) = self.metacache.get(segment).map(|s| s.flushed_rows) else {
            ev.push(Ev::TaskSegmentMissing {
                segment,
                in_write_meta: true,
            });
            self.task_panic(g, segment, ev);
            return None;
        };
        // meta_writer.go:58-70 — checkpoint rows, start positions not recorded
        // yet: a range over three state maps (:64-65), stale entries included
        // (see [`MetaCache`](super::MetaCache)).
        self.mc_all(Site::Get);
        let checkpoint_rows = flushed_rows + t.batch;
        let start_pos: Ids = self
            .metacache
            .start_pos_not_recorded(&[SegState::Growing, SegState::Sealed, SegState::Flushing])
            .into();
        ev.push(Ev::SaveBinlogPathsCall {
            segment,
            rows: checkpoint_rows,
            flush: t.is_flush,
            drop: t.is_drop,
        });
        Some(TaskAt::SaveBinlogPaths {
            checkpoint_rows,
            start_pos,
        })
    }

    /// datacoord services.go:440-557@ca7ef26e4b SaveBinlogPaths. A flush makes the
    /// segment Flushing, unconditionally (:509-512, meta.go:737-752), and queues it on
    /// flushCh (:548); the flush loop makes it Flushed later (server.go:1019-1042). L0
    /// segments are created Flushed (`CreateL0Operator`, meta.go:695-719). The row count
    /// follows the binlogs (meta.go:916-931: the checkpoint's, then the binlog count).
    fn datacoord_save_binlog_paths(&mut self, t: &SyncTask, rows: i64, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        self.seg(segment);
        let at = self.datacoord.binary_search_by_key(&segment, |d| d.segment);
        if t.level == Level::L0 {
            return self.datacoord_save_l0(t, at, ev);
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
        // meta.go:922-931@ca7ef26e4b: NumOfRows = the checkpoint's; then, if the binlogs count
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
            self.order(footprint::key::FLUSH_CH, 0, 0);
            self.flush_ch.push(segment);
            if !self
                .goroutines
                .iter()
                .any(|g| matches!(g.role, Role::FlushLoop))
            {
                self.spawn(Role::FlushLoop);
            }
        }
    }

    /// An L0 segment's SaveBinlogPaths: L0 segments are created Flushed
    /// (`CreateL0Operator`, meta.go:695-719).
    fn datacoord_save_l0(&mut self, t: &SyncTask, at: Result<usize, usize>, ev: &mut Vec<Ev>) {
        let segment = t.segment;
        let i = match at {
            Ok(i) => i,
            Err(i) => {
                self.order(footprint::key::DC_MEMBERS, 0, 0);
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
    }

    /// datacoord server.go:1006-1022 startFlushLoop → :1035-1069 postFlush@ca7ef26e4b:
    /// `SetState(Flushed)` for a healthy segment.
    pub(super) fn step_flush_loop(&mut self, g: Gid, ev: &mut Vec<Ev>) {
        self.order(footprint::key::FLUSH_CH, 0, 0);
        let segment = self.flush_ch.remove(0);
        self.seg(segment);
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
}
