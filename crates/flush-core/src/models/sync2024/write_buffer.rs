//! The datanode's write buffer (`write_buffer.go`): inserts, sealing, and a sync
//! (`triggerSync` → `getSyncTask` → `EncodeBuffer` → `syncManager.SyncData`),
//! run by the flow-graph actor.

use super::metacache::{Action, MetaSeg};
use super::step::Flow;
use super::*;

impl World {
    /// write_buffer.go:532 bufferInsert — GetSegmentByID; a miss adds the segment
    /// (:534-544), a separate metacache call: the next step.
    pub(super) fn buffer_insert(
        &mut self,
        segment: i64,
        partition: i64,
        rows: i64,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        self.mc(Site::Get, segment);
        if self.metacache.get(segment).is_none() {
            ev.push(Ev::InsertLookupMiss { segment });
            return Flow::At(ActorAt::InsertAdd {
                segment,
                partition,
                rows,
            });
        }
        self.buffer_rows(segment, rows, false, ev);
        self.trigger_sync(None, ev)
    }

    /// Datacoord seals first (its segment manager), then tells the datanode
    /// (FlushSegments), which seals its metacache entry: two steps, a tick can come
    /// between them. Datacoord sends FlushSegments only from its time-tick
    /// handler, for the segments `flushPolicyL1` takes: Sealed and not L0
    /// (datacoord/services.go:1443-1461 handleDataNodeTtMsg → GetFlushableSegments,
    /// segment_allocation_policy.go:185-194, the same at all six commits). So
    /// the datanode never seals a segment datacoord lacks or holds as L0 (found
    /// by a helper reading the Go code: the model sealed an L0 segment unknown
    /// to datacoord and panicked at b5c9a7364b, where Go cannot).
    pub(super) fn seal_datacoord(&mut self, segment: i64, ev: &mut Vec<Ev>) -> Flow {
        self.seg(segment);
        let (sealed, flushable) = match self.datacoord.binary_search_by_key(&segment, |d| d.segment)
        {
            Ok(i) => {
                let d = &mut self.datacoord[i];
                let sealed = d.state == SegState::Growing;
                if sealed {
                    d.state = SegState::Sealed;
                }
                (sealed, d.state == SegState::Sealed && d.level != Level::L0)
            }
            Err(_) => (false, false),
        };
        ev.push(Ev::DatacoordSealed {
            segment,
            sealed,
            flushable,
        });
        if flushable {
            Flow::At(ActorAt::SealDatanode { segment })
        } else {
            Flow::Returned
        }
    }

    /// write_buffer.go:220-225 SealSegments (under `wb.mut.RLock`), from the
    /// datanode's FlushSegments RPC (datanode/services.go:99), then sealSegments
    /// (:313-319): Growing -> Sealed in the metacache (:315-317@ca7ef26e4b).
    /// The range is over `stateSegments[Growing]` (meta_cache.go:221-224), a stale
    /// entry included (see [`super::MetaCache`]).
    pub(super) fn seal_datanode(&mut self, segment: i64, ev: &mut Vec<Ev>) -> Flow {
        self.mc(Site::Update, segment);
        if self.metacache.is_stale(segment, SegState::Growing) {
            self.stale_pick(segment, SegState::Growing, ev);
        }
        let sealed = self.metacache.update(
            segment,
            Some(&[SegState::Growing]),
            &[Action::UpdateState(SegState::Sealed)],
        );
        ev.push(Ev::Seal { segment, sealed });
        Flow::Returned
    }

    /// write_buffer.go:534-544 — `AddSegment(Growing, level unset → L1,
    /// startPosRecorded=false)`, overwriting whatever another goroutine added since
    /// the lookup; then the rows are buffered.
    pub(super) fn buffer_insert_add(
        &mut self,
        segment: i64,
        partition: i64,
        rows: i64,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        self.mc(Site::Add, segment);
        self.order(footprint::key::MC_MEMBERS, 0, 0);
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
        self.trigger_sync(None, ev)
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

    /// A `sync` op: a `BufferData` whose `triggerSync` (write_buffer.go:302-311)
    /// has a policy pick `segment` (a full or stale buffer; `flush`: the op
    /// expects it Sealed, and the trace says when it is not). The sealed
    /// policy picks every Sealed segment as well ([`World::trigger_sync`]).
    pub(super) fn sync_segment(&mut self, segment: i64, flush: bool, ev: &mut Vec<Ev>) -> Flow {
        let sealed = self
            .metacache
            .get(segment)
            .is_some_and(|s| s.state == SegState::Sealed);
        if flush && !sealed {
            ev.push(Ev::SealedPolicy {
                segment,
                moved: false,
            });
        }
        self.trigger_sync(Some(segment), ev)
    }

    /// The end of every `BufferData` (bf_write_buffer.go:128 and
    /// l0_write_buffer.go:179, the same at all six commits): `triggerSync`
    /// runs every policy (write_buffer.go:359-370; options.go:40-44), the
    /// sealed one included, so each insert or sync op flushes every segment
    /// the datanode has sealed since the last one (found by a helper reading
    /// the Go code: an insert after a seal left the segment Sealed, and a tick
    /// that removes a Flushing one found nothing to remove). `picked` is the
    /// segment a `sync` op's policy picks. `syncSegments` (:329-355) then takes
    /// them one by one; Go ranges over a set, in no set order, the model in
    /// `picked`, then by id. Each `getSyncTask` is a step of its own when the
    /// policy moved a segment (a metacache call of its own before it).
    fn trigger_sync(&mut self, picked: Option<i64>, ev: &mut Vec<Ev>) -> Flow {
        let mut chosen = self.sealed_policy(ev);
        self.dropped_policy(&mut chosen, ev);
        let Some(first) = picked.or_else(|| chosen.first().copied()) else {
            return Flow::Returned;
        };
        debug_assert!(self.trigger.is_empty(), "one BufferData at a time");
        self.trigger.clear();
        self.trigger.extend(chosen.iter().filter(|&&m| m != first));
        if chosen.is_empty() {
            self.get_sync_task(first, ev)
        } else {
            Flow::At(ActorAt::GetSyncTask { segment: first })
        }
    }

    /// sync_policy.go:71-77 GetSealedSegmentsPolicy: `GetSegmentIDsBy(Sealed)`,
    /// then `UpdateSegments(UpdateState(Flushing), ..., WithSegmentState(Sealed))`
    /// (one step: a segment removed between them is skipped by getSyncTask's
    /// lookup either way). Both range `stateSegments[Sealed]` (meta_cache.go:221-224),
    /// a stale entry included: its clone, made Flushing, becomes the segment's
    /// info (see [`super::MetaCache`]). Returns the segments moved, by id.
    fn sealed_policy(&mut self, ev: &mut Vec<Ev>) -> Vec<i64> {
        // It reads every entry's state, and which entries there are.
        self.mc_all(Site::Update);
        let ids = self.metacache.ids_in_state(SegState::Sealed);
        for &segment in &ids {
            self.stale_pick(segment, SegState::Sealed, ev);
            self.metacache.update(
                segment,
                Some(&[SegState::Sealed]),
                &[Action::UpdateState(SegState::Flushing)],
            );
            ev.push(Ev::SealedPolicy {
                segment,
                moved: true,
            });
        }
        ids
    }

    /// Says so when the entry of `stateSegments[state]` a state-filtered range
    /// finds for `segment` is stale (not the segment's info).
    fn stale_pick(&mut self, segment: i64, state: SegState, ev: &mut Vec<Ev>) {
        let current = self.metacache.get(segment).map(|s| s.state);
        if current != Some(state) {
            // A stale entry may bring the segment back into `segmentInfos`.
            self.order(footprint::key::MC_MEMBERS, 0, 0);
            ev.push(Ev::StaleEntryPicked {
                segment,
                state,
                current,
            });
        }
    }

    /// sync_policy.go:42-48 GetDroppedSegmentPolicy, the last of the default
    /// policies (options.go:40-45; the same at all six commits; the flush-ts
    /// policy newWriteBufferBase appends after them, write_buffer.go:151-153,
    /// selects nothing until a FlushChannels call sets a flush timestamp, which
    /// no op of the model makes):
    /// `GetSegmentIDsBy(Dropped)`, a read of `stateSegments[Dropped]` (a stale
    /// entry included), so every segment the datanode holds
    /// Dropped (its partition dropped, `dropPartitions`, write_buffer.go:321-327)
    /// is synced as a drop at each BufferData until its drop task removes it.
    /// Adds them to `ids` (the sealed policy's, a set: Go's `typeutil.Set`),
    /// by id. The sealed policy's `mc_all` has recorded the read of every entry.
    fn dropped_policy(&mut self, ids: &mut Vec<i64>, ev: &mut Vec<Ev>) {
        let before = ids.len();
        for segment in self.metacache.ids_in_state(SegState::Dropped) {
            self.stale_pick(segment, SegState::Dropped, ev);
            ids.push(segment);
            ev.push(Ev::DroppedPolicy { segment });
        }
        if ids.len() > before {
            ids.sort_unstable();
            // A set: with stale entries one id may be in both lists.
            ids.dedup();
        }
    }

    /// write_buffer.go:565-626 getSyncTask → storage_serializer.go:75-141 EncodeBuffer →
    /// sync_manager.go SyncData.
    pub(super) fn get_sync_task(&mut self, segment: i64, ev: &mut Vec<Ev>) -> Flow {
        // :569-572 — GetSegmentByID; missing: ErrSegmentNotFound before the buffer is
        // yielded (it stays in wb.buffers), warned at :571 and :336.
        self.mc(Site::Get, segment);
        let Some(info) = self.metacache.get(segment).cloned() else {
            ev.push(Ev::SyncSkipped { segment });
            return Flow::Returned;
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
            self.mc(Site::Update, segment);
            self.metacache.update(segment, None, &[Action::RollStats]);
        }
        self.order(footprint::key::NEXT_TASK, 0, 0);
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
            return Flow::At(ActorAt::MergedStats(task));
        }
        self.build_and_submit(task, ev)
    }

    /// storage_serializer.go:206-222 serializeMergedPkStats — `GetSegmentByID` (:207),
    /// then `SerializePkStatsList` over the segment's stats history.
    pub(super) fn merged_stats(&mut self, g: Gid, task: SyncTask, ev: &mut Vec<Ev>) -> Flow {
        let segment = task.segment;
        self.mc(Site::Get, segment);
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
            return Flow::Returned;
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
            return Flow::Halt;
        }
        self.build_and_submit(task, ev)
    }

    /// storage_serializer.go:137 setTaskMeta (its failure callback panics, :156-159),
    /// then sync_manager.go:120-131 submit (logs, then keyLockDispatcher.Submit takes
    /// the segment's key lock, blocking while an earlier task holds it).
    fn build_and_submit(&mut self, task: SyncTask, ev: &mut Vec<Ev>) -> Flow {
        let segment = task.segment;
        ev.push(Ev::SyncTaskBuilt { segment, n: task.n });
        if self.key_locks.iter().any(|k| k.0 == segment) {
            ev.push(Ev::KeyLockWait { segment });
            return Flow::At(ActorAt::KeyLock(task));
        }
        self.submit(task, ev);
        Flow::Returned
    }

    /// sync_manager.go: safeSubmitTask → keyLockDispatcher.Submit: lock the key, go run.
    pub(super) fn submit(&mut self, task: SyncTask, ev: &mut Vec<Ev>) {
        let (segment, n) = (task.segment, task.n);
        let t = self.spawn(Role::Task {
            task,
            at: TaskAt::RunStart,
        });
        self.key_locks.push((segment, t));
        ev.push(Ev::TaskSubmitted {
            segment,
            n,
            task: t,
        });
    }
}
