//! `World::step` for sync-2024: the dispatch, the actors' ops, and what the steps
//! share (panics, invariants). Each arm cites the Go it models (MODEL.md §3), as
//! file:line@commit; where a line moved between the commits the first one is cited
//! and the log lines of each commit are in `facts.rs`. A step ends where another
//! goroutine may touch the metacache, the write buffer or datacoord's meta in
//! between (the SyncSegments handler takes only the metacache lock, never the write
//! buffer's `wb.mut`: services.go:309-346, meta_cache.go:272-273@ca7ef26e4b). The
//! steps live with the Go type they model: `write_buffer.rs`, `task.rs`,
//! `sync_segments.rs`.

use super::setup::Op;
use super::*;
use crate::scenario::WaitFor;
use crate::sched::Choice;

/// How an actor's step ends.
pub(super) enum Flow {
    /// Still in its op, at this point.
    At(ActorAt),
    /// The op returned.
    Returned,
    /// Nothing to write back: a Go panic, or the actor returned from its last op.
    Halt,
}

impl World {
    pub fn step(&mut self, sc: &Scenario, choice: Choice, ev: &mut Vec<Ev>) {
        let gi = self.gi(choice.g);
        let g = self.goroutines[gi].clone();
        self.footprint.clear();
        match g.role {
            Role::Actor { actor, pc, at } => self.step_actor(sc, g.id, actor, pc, at, ev),
            Role::Task { task, at } => {
                if let Some(at) = self.step_task(g.id, &task, at, ev) {
                    self.set_role(g.id, Role::Task { task, at });
                }
            }
            Role::Handler { req, at } => {
                if let Some(at) = self.step_handler(g.id, &req, at, ev) {
                    self.set_role(g.id, Role::Handler { req, at });
                }
            }
            Role::FlushLoop => self.step_flush_loop(g.id, ev),
        }
        self.check_invariants(sc, ev);
    }

    pub(super) fn finish(&mut self, g: Gid) {
        let i = self.gi(g);
        self.goroutines.remove(i);
    }

    pub(super) fn go_panic(&mut self, g: Gid, message: String, ev: &mut Vec<Ev>) {
        ev.push(Ev::GoPanic {
            message: message.clone(),
        });
        self.panic = Some(GoPanic {
            goroutine: g,
            message,
        });
    }

    fn step_actor(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        at: ActorAt,
        ev: &mut Vec<Ev>,
    ) {
        let ops = &sc.actors[actor as usize].ops;
        if world::holds_wb(&at) || self.takes_wb(sc, actor, pc, &at) {
            self.order(footprint::key::WB_MUT, 0, 0);
        }
        let (pc, flow) = match at {
            ActorAt::Ready => {
                // wait_for ops are passed in the step of the op after them.
                let mut pc = pc;
                while let Some(Op::WaitFor(WaitFor {
                    actor: other,
                    index,
                })) = ops.get(pc as usize)
                {
                    ev.push(Ev::FlowgraphDelivered {
                        actor: *other,
                        index: *index,
                    });
                    let id = (i64::from(*other), i64::from(*index));
                    self.order(footprint::key::FLOWGRAPH, id.0, id.1);
                    if !self.op_done(sc, g, actor, pc, ev) {
                        return;
                    }
                    pc += 1;
                }
                (pc, self.start_op(&ops[pc as usize], ev))
            }
            ActorAt::InsertAdd {
                segment,
                partition,
                rows,
            } => (pc, self.buffer_insert_add(segment, partition, rows, ev)),
            ActorAt::GetSyncTask { segment } => (pc, self.get_sync_task(segment, ev)),
            ActorAt::MergedStats(task) => (pc, self.merged_stats(g, task, ev)),
            ActorAt::SealDatanode { segment } => (pc, self.seal_datanode(segment, ev)),
            ActorAt::KeyLock(task) => {
                ev.push(Ev::KeyLockTaken {
                    segment: task.segment,
                });
                self.submit(task, ev);
                (pc, Flow::Returned)
            }
            ActorAt::SyncSegmentsDeadline {
                handler,
                req,
                selected,
            } => (pc, self.attempt_deadline(handler, req, selected, ev)),
            ActorAt::SyncSegmentsRpc { selected, .. } => {
                // session_manager.go:256 "success to sync segments", then
                // sync_segments_scheduler.go:145 "sync segments success" (@ca7ef26e4b).
                if let Op::SyncSegments { partition, .. } = ops[pc as usize] {
                    ev.push(Ev::RpcSucceeded);
                    ev.push(Ev::SyncSegmentsSuccess {
                        partition,
                        selected: selected.clone(),
                        version: self.version,
                    });
                }
                (pc, Flow::Returned)
            }
        };
        self.after_actor_step(sc, g, (actor, pc), flow, ev);
    }

    /// Where the actor's step `flow` leaves it: at a point of its op, on to
    /// the next segment its BufferData's triggerSync picked, or past the op.
    fn after_actor_step(
        &mut self,
        sc: &Scenario,
        g: Gid,
        (actor, pc): (u16, u32),
        flow: Flow,
        ev: &mut Vec<Ev>,
    ) {
        // An insert or sync op is one BufferData: its triggerSync syncs what
        // its policies picked, one segment after the other, before it returns.
        let ops = &sc.actors[actor as usize].ops;
        let buffer_data = matches!(
            ops.get(pc as usize),
            Some(Op::Insert { .. } | Op::Sync { .. })
        );
        match flow {
            Flow::At(at) => self.set_role(g, Role::Actor { actor, pc, at }),
            Flow::Returned if buffer_data && !self.trigger.is_empty() => {
                let segment = self.trigger.remove(0);
                let at = ActorAt::GetSyncTask { segment };
                self.set_role(g, Role::Actor { actor, pc, at });
            }
            Flow::Returned => {
                self.op_done(sc, g, actor, pc, ev);
            }
            Flow::Halt => {}
        }
    }

    /// The actor returned from op `pc`. Returns false when it has no ops left.
    fn op_done(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, ev: &mut Vec<Ev>) -> bool {
        self.order(footprint::key::FLOWGRAPH, actor.into(), pc.into());
        self.actor_done[actor as usize] = pc + 1;
        let next = pc + 1;
        if next as usize >= sc.actors[actor as usize].ops.len() {
            ev.push(Ev::ActorDone);
            self.finish(g);
            return false;
        }
        let role = Role::Actor {
            actor,
            pc: next,
            at: ActorAt::Ready,
        };
        self.set_role(g, role);
        true
    }

    fn start_op(&mut self, op: &Op, ev: &mut Vec<Ev>) -> Flow {
        match *op {
            Op::Insert {
                segment,
                partition,
                rows,
            } => self.buffer_insert(segment, partition, rows, ev),
            Op::Seal { segment } => self.seal_datacoord(segment, ev),
            Op::Sync { segment, flush } => self.sync_segment(segment, flush, ev),
            Op::SyncSegments { partition, retried } => {
                self.sync_segments_tick(partition, retried, ev)
            }
            // Passed before the op after them (`step_actor`).
            Op::WaitFor(_) => Flow::Returned,
        }
    }

    /// Records a broken invariant (once), keeping the list sorted.
    fn violate(&mut self, v: Violation, ev: &mut Vec<Ev>) {
        if let Err(i) = self.violations.binary_search(&v) {
            ev.push(Ev::Invariant(v.clone()));
            self.violations.insert(i, v);
        }
    }

    fn check_invariants(&mut self, sc: &Scenario, ev: &mut Vec<Ev>) {
        self.check_tasks_have_segments(ev);
        self.check_states_forward(ev);
        self.check_row_counts(ev);
        self.check_rows_kept(ev);
        self.check_buffers_syncable(sc, ev);
    }

    /// Every buffer can still be synced: rows buffered for a segment the
    /// metacache no longer has stay there for good once nothing is left that
    /// could add it back (bufferInsert's AddSegment, or a SyncSegments request
    /// whose handler loads it, the scenario's or a later tick of Go's timer),
    /// so this holds or breaks for good: a state
    /// invariant, checked after every step.
    fn check_buffers_syncable(&mut self, sc: &Scenario, ev: &mut Vec<Ev>) {
        // What may still bring a segment back, worked out once per step and
        // only when a buffer's segment is missing (a scenario of 2,000 actors
        // with hundreds of such buffers took 16 times as long when each buffer
        // looked through every actor's ops).
        let mut ahead: Option<Option<Vec<i64>>> = None;
        for k in 0..self.buffers.len() {
            let (segment, rows) = (self.buffers[k].segment, self.buffers[k].rows);
            if rows <= 0 || self.metacache.get(segment).is_some() {
                continue;
            }
            let v = Violation::BufferStranded { segment, rows };
            // Reported: it stays so (nothing can add the segment back).
            if self.violations.binary_search(&v).is_ok() {
                continue;
            }
            // A later tick of datacoord's adds it back (see
            // [`World::a_tick_loads`]).
            if self.a_tick_loads(segment) {
                continue;
            }
            let ahead = ahead.get_or_insert_with(|| self.may_come_back(sc));
            if ahead
                .as_ref()
                .is_none_or(|a| a.binary_search(&segment).is_ok())
            {
                continue;
            }
            self.violate(v, ev);
        }
    }

    /// Whether one of datacoord's later SyncSegments ticks adds `segment` back,
    /// by datacoord's meta of it now. Go's scheduler ticks on a timer for as
    /// long as datacoord runs (sync_segments_scheduler.go:55-69, the same at all
    /// six commits), not only at the scenario's `sync_segments` ops: a tick
    /// whose request carries the segment, to a handler that loads it, adds it
    /// back to the metacache (UpdateSegmentView, meta_cache.go:275-291), and the
    /// next sync takes the rows. Found by a helper reading the Go code: the
    /// model reported rows stranded that the next tick would add back, at
    /// ca7ef26e4b, b5c9a7364b, c65f41dc60 and 4cf1a358ba.
    fn a_tick_loads(&self, segment: i64) -> bool {
        // As the tick builds its request (`sync_segments_tick`) and the handler
        // picks what to load (`segments_to_load`).
        self.dc(segment).is_some_and(|d| {
            knobs::request_includes(self.knobs, d) && knobs::loads(self.knobs, d.level, d.state)
        })
    }

    /// The segments something still to happen may bring back, sorted: an
    /// insert into one to come (or under way) adds it back (bufferInsert's
    /// AddSegment), and datacoord's meta of one may still change so that a
    /// later tick carries and loads it (a sync task of it in flight may save
    /// its binlogs: a PK statslog, Flushing; its id queued in flushCh becomes
    /// Flushed; a seal or sync to come may move it). `None` when a
    /// SyncSegments request is to come or under way (its handler loads
    /// segments the datanode lacks: counted whatever the request holds, so
    /// that the invariant never fires early).
    fn may_come_back(&self, sc: &Scenario) -> Option<Vec<i64>> {
        let mut out = self.flush_ch.clone();
        for g in &self.goroutines {
            match &g.role {
                Role::Task { task: t, .. } => out.push(t.segment),
                Role::Actor { actor, pc, at } => {
                    if let ActorAt::KeyLock(t) | ActorAt::MergedStats(t) = at {
                        out.push(t.segment);
                    }
                    let ops = &sc.actors[*actor as usize].ops;
                    for op in ops.get(*pc as usize..).unwrap_or_default() {
                        match op {
                            Op::Insert { segment, .. }
                            | Op::Seal { segment }
                            | Op::Sync { segment, .. } => out.push(*segment),
                            Op::SyncSegments { .. } => return None,
                            Op::WaitFor(_) => {}
                        }
                    }
                }
                Role::Handler { .. } => return None,
                Role::FlushLoop => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// #34018: a sync task in flight (submitted or waiting for its key lock) for a
    /// segment the metacache lacks.
    fn check_tasks_have_segments(&mut self, ev: &mut Vec<Ev>) {
        let mut absent = Vec::new();
        for (i, g) in self.goroutines.iter().enumerate() {
            // Whether Run's lookup is still ahead: there a drop task whose
            // segment is gone is discarded (task.go:127-131). writeMeta's lookup
            // has no such case (meta_writer.go:54-57@b5c9a7364b, the same at
            // all six commits): past Run a drop task fails as any other (found
            // by a helper reading the Go code: a drop task at writeLogs whose
            // Dropped segment UpdateSegmentView removed was never reported).
            let (t, run_ahead) = match &g.role {
                // Past writeMeta's lookup the task only does no-op updates: it cannot fail.
                Role::Task {
                    at: TaskAt::SaveBinlogPaths { .. } | TaskAt::FinishSyncing { .. },
                    ..
                } => continue,
                Role::Task { task, at } => (task, *at == TaskAt::RunStart),
                Role::Actor {
                    at: ActorAt::KeyLock(task),
                    ..
                } => (task, true),
                _ => continue,
            };
            let discarded = t.is_drop && run_ahead;
            if !discarded && !t.reported_absent && self.metacache.get(t.segment).is_none() {
                absent.push((i, t.segment, t.n));
            }
        }
        for (i, segment, n) in absent {
            self.role_mut(i, |role| {
                if let Role::Task { task: t, .. }
                | Role::Actor {
                    at: ActorAt::KeyLock(t),
                    ..
                } = role
                {
                    t.reported_absent = true;
                }
            });
            self.violate(Violation::SyncTaskWithoutSegment { segment, task: n }, ev);
        }
    }

    /// Segment states only move forward (a removed and re-added segment included).
    /// Both lists are sorted by segment: one walk, no allocation (it runs after
    /// every step the explorer tries).
    fn check_states_forward(&mut self, ev: &mut Vec<Ev>) {
        if self.states_unmoved() {
            return;
        }
        let mut j = 0;
        for k in 0..self.metacache.segments().len() {
            let (id, st) = {
                let s = &self.metacache.segments()[k];
                (s.segment, s.state)
            };
            while j < self.last_state.len() && self.last_state[j].0 < id {
                j += 1;
            }
            if j < self.last_state.len() && self.last_state[j].0 == id {
                let before = self.last_state[j].1;
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
                if st != before {
                    // Written only when it moves: a write forgets the list's
                    // cached fingerprint.
                    self.last_state[j].1 = st;
                }
            } else {
                self.last_state.insert(j, (id, st));
            }
        }
    }

    /// Whether every segment of the metacache has a last state, and it is the
    /// segment's state: the common case, where `check_states_forward` has
    /// nothing to report or write (one read-only walk of both lists).
    fn states_unmoved(&self) -> bool {
        let (last, mut j) = (&self.last_state[..], 0);
        self.metacache.segments().iter().all(|s| {
            while j < last.len() && last[j].0 < s.segment {
                j += 1;
            }
            last.get(j) == Some(&(s.segment, s.state))
        })
    }

    /// The syncing counters add up: syncingRows = the batches of the tasks in flight,
    /// syncingTasks = their number. (bufferRows is left out: Go counts each buffered
    /// row twice, insert_buffer.go:110 and :128, and StartSyncing takes off only the
    /// last chunk, write_buffer.go:589-591, so it does not follow the write buffer.)
    fn check_row_counts(&mut self, ev: &mut Vec<Ev>) {
        let mut flights = Flights::new();
        self.in_flight(&mut flights);
        for k in 0..self.metacache.segments().len() {
            let (id, syncing, tasks) = {
                let s = &self.metacache.segments()[k];
                (s.segment, s.syncing_rows, s.syncing_tasks)
            };
            let (in_flight, n) = flights.of(id);
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
    }

    /// No buffered rows dropped: every inserted row is buffered, in a task in flight,
    /// or synced, unless datacoord really dropped the segment.
    fn check_rows_kept(&mut self, ev: &mut Vec<Ev>) {
        for k in 0..self.rows.len() {
            let (segment, lost) = (self.rows[k].segment, self.rows[k].lost);
            if lost <= 0 {
                continue;
            }
            let dropped = self
                .dc(segment)
                .is_none_or(|d| d.state == SegState::Dropped);
            if !dropped {
                self.violate(Violation::RowsLost { segment, lost }, ev);
            }
        }
    }

    /// Rows and tasks in flight per segment (submitted or waiting for the key
    /// lock, or between the two lookups of getSyncTask and EncodeBuffer): one walk
    /// over the goroutines (this runs after every step the explorer tries).
    fn in_flight(&self, f: &mut Flights) {
        for g in &self.goroutines {
            if let Role::Task { task: t, .. }
            | Role::Actor {
                at: ActorAt::KeyLock(t) | ActorAt::MergedStats(t),
                ..
            } = &g.role
            {
                f.add(t.segment, t.batch);
            }
        }
    }
}

/// Segments with tasks in flight: (segment, rows, tasks), on the stack for the
/// first [`Flights::ON_STACK`] segments. Filled in place (`in_flight` takes
/// it by reference): returned by value, it was copied twice per step.
struct Flights {
    stack: [(i64, i64, i32); Flights::ON_STACK],
    len: usize,
    /// Past the stack: rows and tasks by segment (a scan of a list for each
    /// task made a run with a thousand tasks in flight quadratic, and a sort
    /// at each step still cost a sixth of its time).
    more: std::collections::HashMap<i64, (i64, i32), foldhash::fast::FixedState>,
}

impl Flights {
    const ON_STACK: usize = 8;

    fn new() -> Flights {
        Flights {
            stack: [(0, 0, 0); Flights::ON_STACK],
            len: 0,
            more: std::collections::HashMap::with_hasher(foldhash::fast::FixedState::with_seed(
                0xf11_9475,
            )),
        }
    }

    /// One task in flight.
    fn add(&mut self, segment: i64, rows: i64) {
        if let Some(f) = self.stack[..self.len].iter_mut().find(|f| f.0 == segment) {
            f.1 += rows;
            f.2 += 1;
        } else if self.len < Self::ON_STACK {
            self.stack[self.len] = (segment, rows, 1);
            self.len += 1;
        } else {
            // A segment on the stack never comes here: it is found there first.
            let f = self.more.entry(segment).or_insert((0, 0));
            f.0 += rows;
            f.1 += 1;
        }
    }

    /// The rows and tasks in flight for `segment`.
    fn of(&self, segment: i64) -> (i64, i32) {
        match self.stack[..self.len].iter().find(|f| f.0 == segment) {
            Some(f) => (f.1, f.2),
            None => self.more.get(&segment).copied().unwrap_or((0, 0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Flights;

    /// Past the stack's segments, the rows and tasks in flight are those a
    /// plain count gives, for segments added in any order, many times each.
    #[test]
    fn flights_add_up_past_the_stack() {
        let mut rng = crate::rng::Rng::new(7);
        for n in [3u32, 8, 9, 40] {
            let mut f = Flights::new();
            let mut want = std::collections::BTreeMap::new();
            for _ in 0..200 {
                let (segment, rows) = (i64::from(rng.below(n)), i64::from(rng.below(50)));
                f.add(segment, rows);
                let e = want.entry(segment).or_insert((0, 0));
                *e = (e.0 + rows, e.1 + 1);
            }
            for segment in -1..=i64::from(n) {
                assert_eq!(
                    f.of(segment),
                    want.get(&segment).copied().unwrap_or((0, 0)),
                    "{n}: {segment}"
                );
            }
        }
    }
}
