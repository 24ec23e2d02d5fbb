//! `orderFlushQueue` (flush_manager.go at 891c202b73): `getFlushQueue` and `init`,
//! `getFlushTaskRunner` (working.LoadOrStore, injectMut, tailMut) and `postTask`.

use super::actor::Flow;
use super::setup::Op;
use super::*;
use std::collections::VecDeque;

impl World {
    /// `getFlushQueue(segment)` (fm:251-258): `dispatcher.LoadOrStore` then
    /// `queue.init()`. Returns the queue, or `None` when the caller stored a new queue
    /// and stops before `init` (where something may range over the dispatcher): the
    /// caller then stands at its `QueueInit` point.
    pub(super) fn get_flush_queue(&mut self, segment: i64, ev: &mut Vec<Ev>) -> Option<usize> {
        if let Some(qi) = self.qi(segment) {
            // The load sees the store (sync.Map); then `q.Once.Do` returns.
            self.sync(footprint::obj::DISPATCHER, segment, false);
            if self.queues[qi].tail.is_none() {
                // Stored by a goroutine that has not run init yet: sync.Once runs it here.
                self.init_queue(qi, ev);
            }
            self.sync("Once", segment, false);
            return Some(qi);
        }
        self.sync(footprint::obj::DISPATCHER, segment, true);
        self.order(footprint::obj::NEXT_QUEUE, (0, 0));
        self.queues.push(Queue {
            segment,
            tail: None,
            running: 0,
            handler: None,
            post_inj: None,
            inject_ch: VecDeque::new(),
            working: Vec::new(),
            next_seq: 0,
            next_chain: 0,
            inject_mut: None,
            create_mut: None,
        });
        let qi = self.queues.len() - 1;
        let at = self.queue_index.partition_point(|e| e.0 < segment);
        self.queue_index.insert(at, (segment, qi as u32));
        if self.grain.queue_init {
            ev.push(Ev::QueueStored { segment });
            return None;
        }
        self.init_queue(qi, ev);
        Some(qi)
    }

    /// A `QueueInit` point resumed: `queue.init()` unless another caller's `Once` ran it.
    pub(super) fn init_pending_queue(&mut self, segment: i64, ev: &mut Vec<Ev>) -> usize {
        let qi = self.qi(segment).expect("a stored queue");
        if self.queues[qi].tail.is_none() {
            self.init_queue(qi, ev);
        } else {
            ev.push(Ev::QueueInitByOther { segment });
        }
        qi
    }

    /// fm:111-118 `orderFlushQueue.init` (sync.Once): spawn the inject handler; the
    /// tail is a closed channel ("new queue acts like tailing task is done").
    fn init_queue(&mut self, qi: usize, ev: &mut Vec<Ev>) {
        let segment = self.queues[qi].segment;
        // In Go's order: fm:113's right-hand side starts the handler (fm:194), then
        // the field is set; fm:115 makes the tail, fm:116 closes it.
        let h = self.spawn(Role::Handler {
            segment,
            at: HandlerAt::Select,
        });
        self.access(segment, Site::InitHandler);
        self.access(segment, Site::InitTail);
        let tail = self.new_signal(false);
        self.queue_mut(qi).tail = Some(SignalRef {
            id: tail,
            origin: SigOrigin::QueueInit,
        });
        self.queue_mut(qi).handler = Some(Handler {
            goroutine: h,
            done: false,
        });
        ev.push(Ev::QueueInit {
            segment,
            handler: h,
        });
    }

    /// `newFlushTaskRunner`: a runner of `segment` keyed by `pos`, `seq`-th of its
    /// queue (normal mode) or ad hoc with one half (drop mode).
    pub(super) fn new_runner(
        &mut self,
        segment: i64,
        pos: PosId,
        seq: u32,
        adhoc: Option<HalfKind>,
    ) -> RunnerId {
        let id = self.next_runner;
        self.next_runner += 1;
        // Runner ids are given in step order.
        self.footprint
            .order(super::footprint::obj::NEXT_RUNNER, (0, 0));
        self.runner_ids.push_back(id);
        self.runners.push_back(Runner {
            id,
            segment,
            pos,
            seq,
            chain: None,
            feeders: Vec::new(),
            adhoc,
            wg: if adhoc.is_some() { 1 } else { 2 },
            insert_set: false,
            delete_set: false,
            has_pos: false,
            flushed: false,
            dropped: false,
            insert_err: false,
            delete_err: false,
            start: None,
            finish: None,
            goroutine: None,
            pack: None,
        });
        id
    }

    /// Where an actor's flushes place runner `r`: at its first call that reached
    /// it (stored or loaded; a half `sync.Once` then drops counts too, the call
    /// still waits on that runner's notify), with [`IN_CALL`] until that call
    /// returns ([`World::call_returned`] then notes how many runners its queue
    /// had stored). A set, kept sorted: callers of one runner commute, so their
    /// order must not tell worlds apart.
    fn fed_by(&mut self, r: RunnerId, actor: u16, pc: u32) {
        let then = IN_CALL;
        let ri = self.ri(r);
        let feeders = &mut self.runners[ri].feeders;
        if !feeders.iter().any(|&(a, ..)| a == actor) {
            let at = feeders.partition_point(|&f| f < (actor, pc, then));
            feeders.insert(at, (actor, pc, then));
        }
    }

    /// An actor's flush call at `pc`, on `(segment, pos)`, returned: the runner
    /// it first reached notes how many runners the queue had stored by then (the
    /// `fifo-per-enqueuer` check compares a later runner's `seq` with it).
    pub(super) fn call_returned(&mut self, actor: u16, pc: u32, segment: i64, pos: PosId) {
        let Some(qi) = self.qi(segment) else {
            return;
        };
        let Some(r) = self.working(qi, pos) else {
            return;
        };
        let next_seq = self.queues[qi].next_seq;
        let ri = self.ri(r);
        let feeders = &self.runners[ri].feeders;
        let Some(at) = feeders
            .iter()
            .position(|&(a, j, then)| a == actor && j == pc && then == IN_CALL)
        else {
            return;
        };
        self.order(footprint::obj::NEXT_SEQ, (segment, 0));
        // One entry per actor: the set stays sorted.
        self.runners[ri].feeders[at].2 = next_seq;
    }

    /// fm:121 `getFlushTaskRunner`: `working.LoadOrStore(MsgID, newFlushTaskRunner)`.
    /// A loaded runner gets the op's half at once (the op returns); a stored one
    /// goes on to `injectMut` in the next step.
    pub(super) fn get_runner(
        &mut self,
        g: Gid,
        actor: u16,
        pc: u32,
        qi: usize,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        let Some((_, pos)) = op.flush_target() else {
            return Flow::Returned;
        };
        let segment = self.queues[qi].segment;
        if self.grain.creation_locked {
            match self.queues[qi].create_mut {
                Some(h) if h != g => {
                    self.order(footprint::obj::CREATE_MUT, (segment, 0));
                    ev.push(Ev::CreateMutWait { segment });
                    return Flow::At(ActorAt::CreateMut { segment });
                }
                _ => {
                    self.queue_mut(qi).create_mut = Some(g);
                    self.sync(footprint::obj::CREATE_MUT, segment, false);
                    // Creators waiting at the mutex are no longer runnable.
                    self.touch_actors();
                }
            }
        }
        if let Some(r) = self.working(qi, pos) {
            // The load sees the runner's store.
            self.sync_pair(footprint::obj::WORKING, (segment, pos.into()), false);
            self.fed_by(r, actor, pc);
            ev.push(Ev::RunnerLoaded { segment, pos });
            self.release_create_mut(qi);
            self.run_half(r, op, ev);
            return Flow::Returned;
        }
        let seq = self.queues[qi].next_seq;
        self.queues[qi].next_seq += 1;
        self.order(footprint::obj::NEXT_SEQ, (segment, 0));
        let r = self.new_runner(segment, pos, seq, None);
        let w = &mut self.queues[qi].working;
        let at = w.partition_point(|x| x.0 < pos);
        w.insert(at, (pos, r));
        self.sync_pair(footprint::obj::WORKING, (segment, pos.into()), true);
        self.fed_by(r, actor, pc);
        ev.push(Ev::RunnerStored { segment, pos, seq });
        Flow::At(ActorAt::RunnerInjectMut { segment, runner: r })
    }

    /// fm:126-132 — under `injectMut`: `runningTasks++`; close the inject handler if
    /// there is one (B7 while its goroutine lives); `injectHandler = nil`; unlock.
    pub(super) fn runner_inject_mut(
        &mut self,
        g: Gid,
        segment: i64,
        runner: RunnerId,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        let qi = self.qi(segment).expect("queue");
        self.access(segment, Site::RunnerCount);
        self.access(segment, Site::RunnerReadHandler);
        self.queue_mut(qi).running += 1;
        ev.push(Ev::InjectMutLocked {
            segment,
            running: self.queues[qi].running,
        });
        if let Some(h) = self.queues[qi].handler {
            if self.request_handler_close(qi, h, ev) {
                self.set_inject_mut(qi, Some(g));
                return Flow::At(ActorAt::CloseHandler {
                    segment,
                    handler: h.goroutine,
                    then: Resume::NewRunner(runner),
                });
            }
            self.access(segment, Site::RunnerClearHandler);
            self.queue_mut(qi).handler = None;
            ev.push(Ev::HandlerClosed { segment });
        }
        Flow::At(ActorAt::ChainRunner { segment, runner })
    }

    /// fm:134-137 — under `tailMut`: `t.init(notify, postTask, q.tailCh)` (spawns
    /// waitFinish), `q.tailCh = t.finishSignal`; then the op's half (ft:123-169).
    pub(super) fn chain_runner(&mut self, qi: usize, r: RunnerId, op: &Op, ev: &mut Vec<Ev>) {
        let segment = self.queues[qi].segment;
        // fm:135 reads the tail for t.init, whose Once starts waitFinish (ft:119);
        // then fm:136 sets the tail: in that order.
        self.access(segment, Site::ChainReadTail);
        let start = self.queues[qi].tail.expect("an initialised queue");
        let finish = self.new_signal(true);
        let chain = self.queues[qi].next_chain;
        self.queues[qi].next_chain += 1;
        self.order(footprint::obj::NEXT_CHAIN, (segment, 0));
        let ri = self.ri(r);
        let (seq, pos) = (self.runners[ri].seq, self.runners[ri].pos);
        let wf = self.spawn(Role::Runner {
            runner: r,
            at: RunnerAt::WaitHalves,
        });
        self.access(segment, Site::ChainWriteTail);
        let run = &mut self.runners[ri];
        run.start = Some(start);
        run.finish = Some(finish);
        run.goroutine = Some(wf);
        run.chain = Some(chain);
        self.wait_signal(start.id, wf);
        self.queue_mut(qi).tail = Some(SignalRef {
            id: finish,
            origin: SigOrigin::Runner { seq, chain, pos },
        });
        ev.push(Ev::RunnerInit {
            segment: self.queues[qi].segment,
            pos,
            runner: wf,
            chain,
            start: start.origin,
        });
        self.release_create_mut(qi);
        self.run_half(r, op, ev);
    }

    /// What-if `runner_creation_locked`: `getFlushTaskRunner` returns, unlocking
    /// the queue's creation mutex; the creators waiting for it may go on.
    fn release_create_mut(&mut self, qi: usize) {
        if self.queues[qi].create_mut.take().is_some() {
            let segment = self.queues[qi].segment;
            self.sync(footprint::obj::CREATE_MUT, segment, true);
            self.touch_actors();
        }
    }

    /// ft:191 `postFunc(pack, postInjection)` = `q.postTask`: fm:145
    /// `working.Delete(MsgID)` comes before `injectMut`. It is a step of its own only
    /// where another goroutine may look the MsgID up in between (see `Grain`).
    pub(super) fn post_task_begin(
        &mut self,
        segment: i64,
        pos: PosId,
        post: Option<InjId>,
        ev: &mut Vec<Ev>,
    ) -> RunnerAt {
        if self.grain.post_task_delete {
            return RunnerAt::PostTaskDelete { post };
        }
        self.working_delete(segment, pos, ev);
        RunnerAt::PostTaskLock { post }
    }

    /// fm:145 — `q.working.Delete(MsgID)`.
    pub(super) fn working_delete(&mut self, segment: i64, pos: PosId, ev: &mut Vec<Ev>) {
        let qi = self.qi(segment).expect("runner's queue");
        // A later LoadOrStore of the MsgID stores a new runner (sync.Map).
        self.sync_pair(footprint::obj::WORKING, (segment, pos.into()), true);
        let q = self.queue_mut(qi);
        if let Ok(i) = q.working.binary_search_by_key(&pos, |x| x.0) {
            q.working.remove(i);
        }
        ev.push(Ev::WorkingDeleted { segment, pos });
    }

    /// fm:147-161 — under `injectMut`: `runningTasks--`; at 0 a new inject handler;
    /// `postInjection` made sticky; the sticky one applied to the pack; unlock.
    /// When a handler was spawned it may take a queued injection and write
    /// `q.postInjection` without the lock (fm:212) while this runner still holds
    /// `injectMut`, so the write and the read are then steps of their own.
    pub(super) fn post_task_locked(
        &mut self,
        sc: &Scenario,
        g: Gid,
        ri: usize,
        post: Option<InjId>,
        ev: &mut Vec<Ev>,
    ) -> RunnerAt {
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        let qi = self.qi(segment).expect("runner's queue");
        self.access(segment, Site::PostCount);
        self.queue_mut(qi).running -= 1;
        let running = self.queues[qi].running;
        if running == 0 {
            // fm:151: newInjectHandler starts the handler (fm:194), then the field is set.
            let h = self.spawn(Role::Handler {
                segment,
                at: HandlerAt::Select,
            });
            self.access(segment, Site::PostHandler);
            self.queue_mut(qi).handler = Some(Handler {
                goroutine: h,
                done: false,
            });
            ev.push(Ev::PostTaskLocked {
                segment,
                pos,
                running,
                handler: h,
            });
            self.set_inject_mut(qi, Some(g));
            return match post {
                Some(post) => RunnerAt::PostTaskSticky { post },
                None => RunnerAt::PostTaskApply,
            };
        }
        if post.is_some() {
            self.access(segment, Site::PostSetSticky);
            self.queues[qi].post_inj = post;
        }
        let (sticky, remapped) = self.apply_sticky(sc, qi, ri);
        ev.push(Ev::PostTask {
            segment,
            pos,
            running,
            sticky,
            remapped,
        });
        RunnerAt::SaveBinlogPaths { n: 1 }
    }

    /// `if q.postInjection != nil { q.postInjection(pack) }`: the sticky injection and
    /// the segment the pack was remapped to, if any.
    pub(super) fn apply_sticky(
        &mut self,
        sc: &Scenario,
        qi: usize,
        ri: usize,
    ) -> (Option<InjId>, Option<i64>) {
        self.access(self.queues[qi].segment, Site::PostReadSticky);
        let sticky = self.queues[qi].post_inj;
        let mut pack = self.runners[ri].pack.expect("pack built at B2");
        let from = pack.segment;
        if let Some(to) = sticky.and_then(|p| sc.injections[p as usize].remap_to) {
            pack.segment = to;
        }
        self.runners[ri].pack = Some(pack);
        (sticky, (pack.segment != from).then_some(pack.segment))
    }
}
