//! `World::step`: run one goroutine from the point it stands at to the next one.
//!
//! A step ends wherever the Go goroutine can block, or be preempted between two
//! accesses to state that another goroutine shares (a mutex, a channel, the
//! `sync.Map`s, an unlocked field): each such point is a typed point of its role
//! ([`ActorAt`], [`RunnerAt`], ...), so a schedule can put any other goroutine
//! there, as Go's scheduler can (ARCHITECTURE.md, "granularity"). Critical
//! sections that only touch state their lock protects are one step. The steps live
//! with the Go type they model (`actor.rs`: the manager's methods the flow graph
//! calls; `queue.rs`: orderFlushQueue; `runner.rs`: flushTaskRunner;
//! `handler.rs`: injectHandler; `drop.rs`: drop mode); every arm cites the Go at
//! `891c202b73` (flush_manager.go "fm", flush_task.go "ft"). This file holds the
//! dispatch and what they share.

use super::setup::INJECT_CH_CAP;
use super::*;
use crate::sched::Choice;

/// `retry.Do`'s sleep after failed attempt `n`: 200 ms doubling, capped at 3 s.
pub fn retry_sleep_ms(n: u8) -> u32 {
    let mut ms = 200u32;
    for _ in 1..n {
        ms = (ms * 2).min(3000);
    }
    ms
}

impl World {
    /// Runs `choice` (which must be runnable) and appends what happened to `ev`.
    /// Returns who ran (captured before the step: the goroutine may be gone after).
    pub fn step(&mut self, sc: &Scenario, choice: Choice, ev: &mut Vec<Ev>) -> Who {
        let g = self.goroutines[self.gi(choice.g)];
        let who = self.who_of(&g);
        self.footprint.clear();
        self.acquire_at(g.role);
        let id = g.id;
        match g.role {
            Role::Actor { actor, pc, at } => self.step_actor(sc, id, actor, pc, at, choice.alt, ev),
            Role::Half {
                runner,
                kind,
                fail,
                at,
            } => {
                if let Some(at) = self.step_half(id, runner, kind, fail, at, ev) {
                    let role = Role::Half {
                        runner,
                        kind,
                        fail,
                        at,
                    };
                    self.set_role(id, role);
                }
            }
            Role::Runner { runner, at } => {
                if let Some(at) = self.step_runner(sc, id, runner, at, ev) {
                    self.set_role(id, Role::Runner { runner, at });
                }
            }
            Role::Handler { segment, at } => {
                if let Some(at) = self.step_handler(sc, id, segment, at, choice.alt, ev) {
                    self.set_role(id, Role::Handler { segment, at });
                }
            }
            Role::WaitInjected { inj } => {
                // ft:94-97 waitForInjected — wg.Wait() returned; close(injected).
                self.injections[inj as usize].injected = true;
                self.sync(footprint::obj::INJECTED, inj.into(), true);
                self.touch_actors();
                ev.push(Ev::InjectedClosed { inj });
                self.finish(id);
            }
            Role::Finaliser { at } => {
                if let Some(at) = self.step_finaliser(sc, id, at, ev) {
                    self.set_role(id, Role::Finaliser { at });
                }
            }
            Role::TailWaiter { segment, at } => {
                let locked = sc.what_if.waiter_locks_tail;
                if let Some(at) = self.step_tail_waiter(id, segment, at, locked, ev) {
                    self.set_role(id, Role::TailWaiter { segment, at });
                }
            }
        }
        self.touch(choice.g);
        self.check_invariants(ev);
        self.refresh_ready(sc);
        who
    }

    /// Takes or releases a queue's `injectMut` across steps; every goroutine that
    /// may wait for it is re-examined.
    pub(super) fn set_inject_mut(&mut self, qi: usize, holder: Option<Gid>) {
        self.queue_mut(qi).inject_mut = holder;
        let segment = self.queues[qi].segment;
        self.sync(footprint::obj::INJECT_MUT, segment, holder.is_none());
        self.touch_lock_waiters(self.queues[qi].segment);
        if let Some(f) = self.finaliser {
            self.touch(f);
        }
    }

    /// `injectOver` of `inj` changed: its receivers are re-examined.
    pub(super) fn touch_over_waiters(&mut self, inj: InjId) {
        self.touch_where(|g| match g.role {
            Role::Runner {
                at: RunnerAt::WaitInjectOver { inj: i },
                ..
            }
            | Role::Handler {
                at: HandlerAt::Handling { inj: i, .. },
                ..
            } => i == inj,
            _ => false,
        });
    }

    /// A queue's injectCh changed: its handler, and injectors blocked on a full channel.
    pub(super) fn touch_inject_ch(&mut self, qi: usize) {
        if let Some(h) = self.queues[qi].handler {
            self.touch(h.goroutine);
        }
        if self.queues[qi].inject_ch.len() + 1 >= INJECT_CH_CAP {
            self.touch_actors();
        }
    }

    /// A runner's WaitGroup counted down: its waitFinish (B1) or drop-mode caller (B11).
    pub(super) fn touch_runner_wg(&mut self, ri: usize) {
        match self.runners[ri].goroutine {
            Some(g) => self.touch(g),
            None => self.touch_actors(),
        }
    }

    /// Goroutine `g` returned: it leaves the world.
    pub(super) fn finish(&mut self, g: Gid) {
        let i = self.gi(g);
        self.goroutines.remove(i).expect("live goroutine");
        self.goroutine_ids.remove(i);
    }

    /// A Go panic: the process exits; nothing runs any more.
    pub(super) fn go_panic(&mut self, g: Gid, message: String, ev: &mut Vec<Ev>) {
        ev.push(Ev::GoPanic {
            message: message.clone(),
        });
        self.panic = Some(GoPanic {
            goroutine: g,
            message,
        });
    }

    // ----- taskInjection -------------------------------------------------------

    /// `ok := <-inj.injectOver` (the caller checked it is receivable).
    pub(super) fn receive_over(&mut self, inj: InjId) -> bool {
        let st = &mut self.injections[inj as usize];
        debug_assert!(st.over.receivable(), "a receive that would block");
        let ok = match st.over {
            Over::Filled(k) if k > 0 => {
                st.over = Over::Filled(k - 1);
                true
            }
            // Closed; never pending or empty (the readiness check keeps a step from
            // getting here).
            _ => false,
        };
        if ok {
            self.touch_over_waiters(inj);
        }
        ok
    }

    /// A queue of `segment` pops `inj` and calls `injectOne()`.
    pub(super) fn take_injection(&mut self, inj: InjId, segment: i64, ev: &mut Vec<Ev>) {
        // ft:99-101 injectOne: `ti.wg.Done()`.
        self.sync(footprint::obj::INJECTION_WG, inj.into(), true);
        let st = &mut self.injections[inj as usize];
        st.remaining = st.remaining.saturating_sub(1);
        let twice = st.taken.contains(&segment);
        // Kept sorted (only looked up): two queues taking it in either order give
        // one world, as in Go, where the WaitGroup only counts.
        let at = st.taken.partition_point(|&s| s <= segment);
        st.taken.insert(at, segment);
        if st.remaining == 0 {
            self.touch_where(|g| matches!(g.role, Role::WaitInjected { inj: i } if i == inj));
        }
        if twice {
            self.violate(Violation::InjectionTakenTwice { inj, segment }, ev);
        }
    }

    // ----- the datanode Replica --------------------------------------------------

    /// `replica.listNewSegmentsStartPositions()`: reports every new segment and moves
    /// it to normal. Returns the segments it reported.
    pub(super) fn list_new_segments_start_positions(&mut self, ev: &mut Vec<Ev>) -> Vec<i64> {
        self.replica_mutex();
        let mut listed = Vec::new();
        if self.replica_new == 0 {
            return listed;
        }
        self.replica_new = 0;
        for s in &mut self.replica {
            if s.state == ReplicaState::New {
                s.state = ReplicaState::Normal;
                ev.push(Ev::ReplicaNewToNormal { segment: s.segment });
                listed.push(s.segment);
            }
        }
        listed
    }

    /// `replica.segmentFlushed(seg)`: new or normal → flushed; absent or flushed: nothing.
    pub(super) fn segment_flushed(&mut self, segment: i64, ev: &mut Vec<Ev>) {
        self.replica_mutex();
        if let Some(s) = self.replica_mut(segment) {
            if s.state != ReplicaState::Flushed {
                let was_new = s.state == ReplicaState::New;
                s.state = ReplicaState::Flushed;
                self.replica_new -= u32::from(was_new);
                ev.push(Ev::ReplicaFlushed { segment });
            }
        }
    }

    /// The start of `compactionTask.compact`, in the step of its `injectFlush`
    /// (compactor.go:303-316 at 891c202b73): `getSegmentMeta(segIDs[0])` asks
    /// the Replica for the first segment's collection and partition
    /// (`getCollectionAndPartitionID`, segment_replica.go:207-224, under
    /// `segMu.RLock`: the new, normal and flushed maps). When the Replica lacks
    /// it, compact logs "compact wrong" and returns its error (:304-307) before
    /// `newTaskInjection` and `injectFlush`: false, and nothing is injected.
    /// The collection's schema (`getCollectionSchema`, a meta service call)
    /// and a merge compaction's `allocID` (:286-291) are taken to succeed.
    ///
    /// Simplified: in Go the read and `injectFlush` are two sections (the
    /// RLock is released before the injection starts), so another goroutine's
    /// Replica edit could come between them; the model makes them one step,
    /// reading the Replica as it is at that step. Only a compactor's Replica
    /// edit adds or removes segments, so the two differ only when another
    /// compaction's edit lands in that gap.
    pub(super) fn compaction_starts(
        &mut self,
        sc: &Scenario,
        inj: InjId,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let segment = sc.injections[inj as usize].segments[0];
        self.replica_rlock();
        if self
            .replica
            .binary_search_by_key(&segment, |s| s.segment)
            .is_ok()
        {
            return true;
        }
        ev.push(Ev::CompactWrong { inj, segment });
        false
    }

    /// The end of a successful `compactor.compact`, before `injectDone(true)`
    /// (compactor.go:452-461 at 891c202b73): when the Replica has the target
    /// (`hasSegment(targetSegID, true)`: new, normal or flushed) only its
    /// statistics are refreshed (`numRows` becomes the compaction's, which the
    /// model does not know: its `rows` stay); else the target is added as
    /// flushed (`addFlushedSegmentWithPKs`, segment_replica.go:678-712, with
    /// `rows` 0) and every compacted segment is removed from the new, normal
    /// and flushed maps (`removeSegment`, :531-538).
    ///
    /// Simplified: Go takes `segMu` once per call (2 + N sections); the model
    /// makes the edit one step, so another queue's notify lists the new
    /// segments before or after all removals, never between two. The final
    /// Replica is the same; only such a SaveBinlogPaths' start positions could
    /// differ. The compaction's start is checked where its actor injects
    /// ([`World::compaction_starts`]). `defer close(ti.injectOver)` (:313)
    /// after `injectDone(true)` is left
    /// out: no holder reads injectOver past its segmentCnt trues unless the
    /// `injection-taken-once` invariant has already broken.
    pub(super) fn compactor_replica_edit(&mut self, sc: &Scenario, inj: InjId, ev: &mut Vec<Ev>) {
        let injection = &sc.injections[inj as usize];
        let target = injection
            .remap_to
            .expect("a compacted injection remaps (checked when read)");
        self.replica_mutex();
        let i = match self.replica.binary_search_by_key(&target, |s| s.segment) {
            Ok(_) => {
                ev.push(Ev::CompactorRefreshed { target });
                return;
            }
            Err(i) => i,
        };
        self.replica.insert(
            i,
            ReplicaSeg {
                segment: target,
                state: ReplicaState::Flushed,
                rows: 0,
                checkpoint: None,
            },
        );
        ev.push(Ev::CompactorAddedFlushed { target });
        for &segment in &injection.segments {
            let Ok(i) = self.replica.binary_search_by_key(&segment, |s| s.segment) else {
                continue;
            };
            let gone = self.replica.remove(i);
            self.replica_new -= u32::from(gone.state == ReplicaState::New);
            ev.push(Ev::CompactorRemoved { segment });
        }
    }

    // ----- invariants ------------------------------------------------------------

    pub(super) fn violate(&mut self, v: Violation, ev: &mut Vec<Ev>) {
        ev.push(Ev::Invariant(v.clone()));
        self.violations.push(v);
    }

    /// Checks run after every step (the event-time ones are in the step code).
    fn check_invariants(&mut self, ev: &mut Vec<Ev>) {
        let mut dirty = std::mem::take(&mut self.dirty_queues);
        #[cfg(debug_assertions)]
        let found = self.violations.len();
        if !self.closing {
            crate::order::sort_dedup_small(&mut dirty);
            for &qi in &dirty {
                self.check_queue(qi as usize, ev);
            }
        }
        #[cfg(debug_assertions)]
        if !self.closing && self.violations.len() == found {
            // Only changed queues are checked: a full scan must find nothing more.
            let n = self.violations.len();
            for qi in 0..self.queues.len() {
                self.check_queue(qi, ev);
            }
            assert_eq!(
                self.violations.len(),
                n,
                "a queue changed without queue_mut"
            );
        }
        dirty.clear();
        self.dirty_queues = dirty;
    }

    /// handler != nil exactly when no task runs (unless a holder is mid-way).
    fn check_queue(&mut self, qi: usize, ev: &mut Vec<Ev>) {
        let q = &self.queues[qi];
        if q.inject_mut.is_some() || q.tail.is_none() {
            return; // a holder is mid-way, or init has not run yet
        }
        if q.handler.is_some() != (q.running == 0) {
            let v = Violation::HandlerVsRunning {
                segment: q.segment,
                running: q.running,
                handler: q.handler.is_some(),
            };
            if !self.violations.contains(&v) {
                self.violate(v, ev);
            }
        }
    }
}

/// The datacoord RPCs the flush-2021 model calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rpc {
    SaveBinlogPaths,
    DropVirtualChannel,
}

impl Rpc {
    pub fn as_str(self) -> &'static str {
        match self {
            Rpc::SaveBinlogPaths => "SaveBinlogPaths",
            Rpc::DropVirtualChannel => "DropVirtualChannel",
        }
    }
}

/// What a tail waiter found in `queue.tailCh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TailSeen {
    /// The queue was stored but `init` had not run: a nil channel blocks forever.
    Nil,
    Closed(SigOrigin),
    Open(SigOrigin),
}
