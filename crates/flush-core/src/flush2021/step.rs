//! `World::step`: run one goroutine from the point it stands at to the next one.
//!
//! A step ends wherever the Go goroutine can block, or be preempted between two
//! accesses to state that another goroutine shares (a mutex, a channel, the
//! `sync.Map`s, an unlocked field): each such point is an [`At`], so a schedule can
//! put any other goroutine there, as Go's scheduler can (ARCHITECTURE.md,
//! "granularity"). Critical sections that only touch state their lock protects are
//! one step. Every arm cites the Go at `891c202b73` (flush_manager.go "fm",
//! flush_task.go "ft").

use super::*;
use super::setup::{Op, INJECT_CH_CAP, RETRY_ATTEMPTS};
use crate::scenario::WaitFor;
use crate::sched::Choice;

/// `retry.Do`'s sleep after failed attempt `n`: 200 ms doubling, capped at 3 s.
pub fn retry_sleep_ms(n: u8) -> u32 {
    let mut ms = 200u32;
    for _ in 1..n {
        ms = (ms * 2).min(3000);
    }
    ms
}

/// `getFlushQueue`'s caller, for where to go on after `queue.init()`.
const RESUME_NORMAL: u32 = 0;
const RESUME_DROP_DELETE: u32 = 1;

impl World {
    /// Runs `choice` (which must be runnable) and appends what happened to `ev`.
    /// Returns who ran (captured before the step: the goroutine may be gone after).
    pub fn step(&mut self, sc: &Scenario, choice: Choice, ev: &mut Vec<Ev>) -> Who {
        let g = self.goroutines[self.gi(choice.g)];
        let who = self.who_of(&g);
        match g.role {
            Role::Actor { actor, pc } => self.step_actor(sc, g.id, actor, pc, g.at, choice.alt, ev),
            Role::Half { runner, kind, fail } => self.step_half(g.id, runner, kind, fail, g.at, ev),
            Role::Runner(r) => self.step_runner(sc, g.id, r, g.at, ev),
            Role::Handler { segment } => self.step_handler(g.id, segment, g.at, choice.alt, ev),
            Role::WaitInjected(inj) => {
                // ft:94-97 waitForInjected — wg.Wait() returned; close(injected).
                self.injections[inj as usize].injected = true;
                self.touch_actors();
                ev.push(Ev::InjectedClosed { inj });
                self.finish(g.id);
            }
            Role::Finaliser => self.step_finaliser(sc, g.id, g.at, ev),
            Role::TailWaiter { segment } => self.step_tail_waiter(g.id, segment, g.at, ev),
        }
        self.touch(choice.g);
        self.check_invariants(ev);
        self.refresh_ready(sc);
        who
    }

    /// Takes or releases a queue's `injectMut` across steps; every goroutine that
    /// may wait for it is re-examined.
    fn set_inject_mut(&mut self, qi: usize, holder: Option<Gid>) {
        self.queues[qi].inject_mut = holder;
        self.touch_actors();
        if let Some(f) = self.finaliser {
            self.touch(f);
        }
        self.touch_where(|g| matches!(g.at, At::PostTaskLock { .. }));
    }

    /// `injectOver` of `inj` changed: its receivers are re-examined.
    fn touch_over_waiters(&mut self, inj: InjId) {
        self.touch_where(|g| matches!(g.at, At::WaitInjectOver { inj: i } | At::Handling { inj: i, .. } if i == inj));
    }

    /// A queue's injectCh changed: its handler, and injectors blocked on a full channel.
    fn touch_inject_ch(&mut self, qi: usize) {
        if let Some(h) = self.queues[qi].handler {
            self.touch(h.goroutine);
        }
        if self.queues[qi].inject_ch.len() + 1 >= INJECT_CH_CAP {
            self.touch_actors();
        }
    }

    /// A runner's WaitGroup counted down: its waitFinish (B1) or drop-mode caller (B11).
    fn touch_runner_wg(&mut self, ri: usize) {
        match self.runners[ri].goroutine {
            Some(g) => self.touch(g),
            None => self.touch_actors(),
        }
    }

    fn set_at(&mut self, g: Gid, at: At) {
        let i = self.gi(g);
        self.goroutines[i].at = at;
    }

    fn finish(&mut self, g: Gid) {
        let i = self.gi(g);
        self.goroutines.remove(i).expect("live goroutine");
        self.goroutine_ids.remove(i);
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

    // ----- actors -----------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn step_actor(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        at: At,
        alt: u32,
        ev: &mut Vec<Ev>,
    ) {
        if at == At::Ready {
            // wait_for ops are passed in the step of the op after them.
            let Some(pc) = self.pass_wait_for(sc, g, actor, pc, ev) else {
                return;
            };
            let op = &sc.actors[actor as usize].ops[pc as usize];
            if self.start_op(sc, g, actor, pc, op, ev) {
                self.op_done(sc, g, actor, pc, ev);
            }
            return;
        }
        let op = &sc.actors[actor as usize].ops[pc as usize];
        let done = match at {
            At::NormalMode => self.flush_normal(g, actor, pc, op, ev),
            At::QueueInit { segment, resume } => {
                let qi = self.init_pending_queue(segment, ev);
                match *op {
                    Op::Inject { inj } => self.inject_from(sc, g, inj, resume, ev),
                    _ if resume == RESUME_DROP_DELETE => self.drop_delete_lookup(g, qi, op, ev),
                    _ => self.get_runner(g, actor, pc, qi, op, ev),
                }
            }
            At::DropDeleteNormal => {
                // fm:304-305 — the normal path: getFlushQueue(seg).enqueueDelFlush(...).
                let qi = self.qi(op_segment(op)).expect("the queue the lookup used");
                self.get_runner(g, actor, pc, qi, op, ev)
            }
            At::RunnerInjectMut { segment, runner } => {
                self.runner_inject_mut(g, segment, runner, ev)
            }
            At::CloseHandler { segment, then, .. } => {
                // fm:221-226 injectHandler.close — wg.Wait() returned; then unlock injectMut.
                let qi = self.qi(segment).expect("queue of a closing handler");
                self.set_inject_mut(qi, None);
                match then {
                    Resume::NewRunner(runner) => {
                        // fm:130-132 — injectHandler = nil; injectMut.Unlock().
                        self.queues[qi].handler = None;
                        ev.push(Ev::HandlerClosed { segment });
                        self.set_at(g, At::ChainRunner { segment, runner });
                        false
                    }
                    Resume::Close => {
                        ev.push(Ev::HandlerStopped { segment });
                        self.close_continue(g)
                    }
                }
            }
            At::ChainRunner { segment, runner } => {
                let qi = self.qi(segment).expect("queue");
                self.chain_runner(qi, runner, actor, pc, op, ev);
                true
            }
            At::Inject { inj, next } => self.inject_from(sc, g, inj, next, ev),
            At::DropWait { runner } => self.drop_wait_done(g, runner, ev),
            At::DropMutex { pack } => {
                self.drop.packs.push(pack);
                ev.push(Ev::DropPackAppended { pack });
                true
            }
            At::StartDroppingMake => {
                // fm:489-490 — allFlushed = make(chan struct{}); go func() { ... }.
                self.drop.all_flushed = AllFlushed::Open;
                let f = self.spawn(Role::Finaliser, At::WaitAllFlushed);
                ev.push(Ev::StartDropping { finaliser: f });
                true
            }
            At::CloseQueues => {
                // dispatcher.Range visits the next queue in Go's map order: the choice.
                let i = self
                    .closing_left
                    .iter()
                    .position(|c| c.0 == g)
                    .expect("a closer");
                let qi = self.closing_left[i].1.remove(alt as usize);
                if self.queues[qi as usize].inject_mut.is_some() {
                    let segment = self.queues[qi as usize].segment;
                    ev.push(Ev::CloseVisits {
                        segment,
                        blocked: true,
                    });
                    self.set_at(g, At::CloseLock { queue: qi });
                    false
                } else {
                    self.close_queue(g, qi, ev)
                }
            }
            At::CloseLock { queue } => self.close_queue(g, queue, ev),
            _ => unreachable!("actor: not a point this goroutine can be stepped from"),
        };
        if done {
            self.op_done(sc, g, actor, pc, ev);
        }
    }

    /// The actor returned from op `pc`: on to the next op, or gone.
    fn op_done(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, ev: &mut Vec<Ev>) {
        self.actor_done[actor as usize] = pc + 1;
        if self.grain.waits_for {
            self.touch_actors();
        }
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

    /// Passes the `wait_for` ops at `pc` (all satisfied: the actor is runnable) and
    /// returns the op to run now, or `None` when they were the actor's last ops.
    fn pass_wait_for(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        mut pc: u32,
        ev: &mut Vec<Ev>,
    ) -> Option<u32> {
        let ops = &sc.actors[actor as usize].ops;
        while let Some(Op::WaitFor(WaitFor { actor: other, index })) = ops.get(pc as usize)
        {
            ev.push(Ev::FlowgraphDelivered {
                actor: *other,
                index: *index,
            });
            let last = pc as usize + 1 == ops.len();
            self.op_done(sc, g, actor, pc, ev);
            if last {
                return None;
            }
            pc += 1;
        }
        Some(pc)
    }

    /// Starts the op; returns true when it returned without blocking.
    fn start_op(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) -> bool {
        match *op {
            Op::FlushInsert {
                segment,
                pos,
                flushed,
                dropped,
                fail,
            } => {
                if self.drop.dropping {
                    // fm:262-275 handleInsertTask, drop mode — ad-hoc runner, Add(1),
                    // runFlushInsert, Wait, then append under the drop mutex.
                    let flags = (flushed, dropped);
                    return self.run_adhoc(g, segment, pos, HalfKind::Insert, fail, flags, ev);
                }
                self.flush_mode_read(g, actor, pc, op, HalfKind::Insert, ev)
            }
            Op::FlushDelete { segment, .. } => {
                if self.drop.dropping {
                    // fm:283-286 handleDeleteTask, drop mode — getFlushQueue, then working.Load(pos).
                    let Some(qi) = self.get_flush_queue(g, segment, RESUME_DROP_DELETE, ev) else {
                        return false;
                    };
                    return self.drop_delete_lookup(g, qi, op, ev);
                }
                self.flush_mode_read(g, actor, pc, op, HalfKind::Delete, ev)
            }
            Op::Inject { inj } => {
                // fm:441-446 injectFlush — go waitForInjected(), then each queue's inject.
                self.injections[inj as usize].started = true;
                let w = self.spawn(Role::WaitInjected(inj), At::WaitInjectOne);
                ev.push(Ev::InjectFlush { inj, waiter: w });
                self.inject_from(sc, g, inj, 0, ev)
            }
            Op::WaitInjected { inj } => {
                ev.push(Ev::Injected { inj });
                true
            }
            Op::InjectDone { inj, success } => {
                // ft:103-112 injectDone — false closes injectOver, true fills it with segmentCnt trues.
                let n = sc.injections[inj as usize].segments.len() as u32;
                self.injections[inj as usize].over = if success {
                    Over::Filled(n)
                } else {
                    Over::Closed
                };
                self.touch_over_waiters(inj);
                ev.push(Ev::InjectDone { inj, success });
                true
            }
            Op::StartDropping => {
                // fm:488 — m.dropping.Store(true); the channel and the goroutine are the next step.
                self.drop.dropping = true;
                ev.push(Ev::StartDroppingStore);
                self.set_at(g, At::StartDroppingMake);
                false
            }
            Op::NotifyAllFlushed => {
                // fm:510-512 notifyAllFlushed — close(allFlushed).
                match self.drop.all_flushed {
                    AllFlushed::Unset => {
                        self.go_panic(
                            g,
                            "close of nil channel (notifyAllFlushed before startDropping)".into(),
                            ev,
                        );
                        false
                    }
                    AllFlushed::Closed => {
                        self.go_panic(
                            g,
                            "close of closed channel (notifyAllFlushed twice)".into(),
                            ev,
                        );
                        false
                    }
                    AllFlushed::Open => {
                        self.drop.all_flushed = AllFlushed::Closed;
                        if let Some(f) = self.finaliser {
                            self.touch(f);
                        }
                        ev.push(Ev::NotifyAllFlushed);
                        true
                    }
                }
            }
            Op::Close => {
                // fm:515-526 close — dispatcher.Range over the queues stored now, one by
                // one, in map order (a scheduler choice at each).
                self.closing = true;
                let n = self.queues.len() as u32;
                ev.push(Ev::ManagerClose { queues: n });
                self.closing_left.push((g, (0..n).collect()));
                self.close_continue(g)
            }
            Op::WaitNotified { count } => {
                ev.push(Ev::WaitNotifiedPassed { count });
                true
            }
            Op::WaitFor(_) => unreachable!("wait_for ops are passed before"),
        }
    }

    /// `m.dropping.Load()` returned false. While a `start_dropping` may still run the
    /// read is a step of its own (drop mode can begin before the flush reaches its
    /// queue); otherwise the normal path goes on at once.
    fn flush_mode_read(
        &mut self,
        g: Gid,
        actor: u16,
        pc: u32,
        op: &Op,
        kind: HalfKind,
        ev: &mut Vec<Ev>,
    ) -> bool {
        if self.grain.mode_read {
            ev.push(Ev::DroppingLoaded { kind });
            self.set_at(g, At::NormalMode);
            return false;
        }
        self.flush_normal(g, actor, pc, op, ev)
    }

    /// fm:278 / fm:305 — `getFlushQueue(seg).enqueueInsertFlush/enqueueDelFlush`.
    fn flush_normal(&mut self, g: Gid, actor: u16, pc: u32, op: &Op, ev: &mut Vec<Ev>) -> bool {
        let Some(qi) = self.get_flush_queue(g, op_segment(op), RESUME_NORMAL, ev) else {
            return false;
        };
        self.get_runner(g, actor, pc, qi, op, ev)
    }

    /// Drop-mode `handleDeleteTask` after `getFlushQueue`: `working.Load(pos)` (fm:286).
    fn drop_delete_lookup(&mut self, g: Gid, qi: usize, op: &Op, ev: &mut Vec<Ev>) -> bool {
        let Op::FlushDelete { segment, pos, fail } = *op else {
            unreachable!("drop-mode lookup for a delete op")
        };
        if self.working(qi, pos).is_some() {
            // fm:287-289 — the insert half is queued: go on in normal mode (the next step).
            ev.push(Ev::DropDeleteStaysNormal { segment, pos });
            self.set_at(g, At::DropDeleteNormal);
            return false;
        }
        // fm:290-301 — ad-hoc runner, Add(1), runFlushDel, Wait, append.
        self.run_adhoc(g, segment, pos, HalfKind::Delete, fail, (false, false), ev)
    }

    /// Drop mode's ad-hoc runner: `Add(1)`, the half (`flags` = flushed, dropped of an
    /// insert), and the caller blocked in `Wait()` (B11). Returns false: the op blocks.
    #[allow(clippy::too_many_arguments)]
    fn run_adhoc(
        &mut self,
        g: Gid,
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        fail: u32,
        flags: (bool, bool),
        ev: &mut Vec<Ev>,
    ) -> bool {
        let r = self.new_runner(segment, pos, 0, Some(kind));
        let ri = self.ri(r);
        let run = &mut self.runners[ri];
        match kind {
            HalfKind::Insert => {
                (run.insert_set, run.has_pos, run.flushed, run.dropped) =
                    (true, true, flags.0, flags.1)
            }
            HalfKind::Delete => run.delete_set = true,
        }
        let half = self.spawn(
            Role::Half {
                runner: r,
                kind,
                fail: fail as u8,
            },
            At::Attempt { n: 1 },
        );
        ev.push(Ev::DropHalfStarted {
            segment,
            pos,
            kind,
            half,
        });
        self.set_at(g, At::DropWait { runner: r });
        false
    }

    /// B11 passed: `r.Wait()` returned. fm:271-273 / fm:298-300 — lock the drop
    /// mutex (held by the finaliser from its postInjection pass until flushAndDrop
    /// returns), append `r.getFlushPack()`, unlock.
    fn drop_wait_done(&mut self, g: Gid, runner: RunnerId, ev: &mut Vec<Ev>) -> bool {
        let ri = self.ri(runner);
        self.runner_ids.remove(ri);
        let r = self.runners.remove(ri).expect("live runner");
        let kind = r.adhoc.expect("ad-hoc runner");
        let pack = Pack {
            runner: r.id,
            source: if kind == HalfKind::Insert {
                PackSource::DropInsert
            } else {
                PackSource::DropDelete
            },
            segment: r.segment,
            pos: r.has_pos.then_some(r.pos),
            flushed: r.flushed,
            dropped: r.dropped,
            err: r.insert_err || r.delete_err,
        };
        if self.drop.locked {
            ev.push(Ev::DropMutexWait { pack });
            self.set_at(g, At::DropMutex { pack });
            return false;
        }
        self.drop.packs.push(pack);
        ev.push(Ev::DropPackAppended { pack });
        true
    }

    /// `getFlushQueue(segment)` (fm:251-258): `dispatcher.LoadOrStore` then
    /// `queue.init()`. Returns the queue, or `None` when `g` stored a new queue and
    /// stops before `init` (where something may range over the dispatcher): it then
    /// stands at `QueueInit { resume }`.
    fn get_flush_queue(
        &mut self,
        g: Gid,
        segment: i64,
        resume: u32,
        ev: &mut Vec<Ev>,
    ) -> Option<usize> {
        if let Some(qi) = self.qi(segment) {
            if self.queues[qi].tail.is_none() {
                // Stored by a goroutine that has not run init yet: sync.Once runs it here.
                self.init_queue(qi, ev);
            }
            return Some(qi);
        }
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
        });
        let qi = self.queues.len() - 1;
        if self.grain.queue_init {
            ev.push(Ev::QueueStored { segment });
            self.set_at(g, At::QueueInit { segment, resume });
            return None;
        }
        self.init_queue(qi, ev);
        Some(qi)
    }

    /// `QueueInit` resumed: `queue.init()` unless another caller's `Once` ran it.
    fn init_pending_queue(&mut self, segment: i64, ev: &mut Vec<Ev>) -> usize {
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
        let tail = self.new_signal(false);
        let segment = self.queues[qi].segment;
        self.queues[qi].tail = Some(SignalRef {
            id: tail,
            origin: SigOrigin::QueueInit,
        });
        let h = self.spawn(Role::Handler { segment }, At::Select);
        self.queues[qi].handler = Some(Handler {
            goroutine: h,
            done: false,
        });
        ev.push(Ev::QueueInit {
            segment,
            handler: h,
        });
    }

    fn new_runner(
        &mut self,
        segment: i64,
        pos: PosId,
        seq: u32,
        adhoc: Option<HalfKind>,
    ) -> RunnerId {
        let id = self.next_runner;
        self.next_runner += 1;
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

    /// fm:121 `getFlushTaskRunner`: `working.LoadOrStore(MsgID, newFlushTaskRunner)`.
    /// A loaded runner gets the op's half at once (the op returns); a stored one
    /// goes on to `injectMut` in the next step.
    fn get_runner(
        &mut self,
        g: Gid,
        actor: u16,
        pc: u32,
        qi: usize,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let (segment, pos) = (self.queues[qi].segment, op_pos(op));
        if let Some(r) = self.working(qi, pos) {
            ev.push(Ev::RunnerLoaded { segment, pos });
            self.run_half(r, actor, pc, op, ev);
            return true;
        }
        let seq = self.queues[qi].next_seq;
        self.queues[qi].next_seq += 1;
        let r = self.new_runner(segment, pos, seq, None);
        let w = &mut self.queues[qi].working;
        let at = w.partition_point(|x| x.0 < pos);
        w.insert(at, (pos, r));
        ev.push(Ev::RunnerStored { segment, pos, seq });
        self.set_at(g, At::RunnerInjectMut { segment, runner: r });
        false
    }

    /// fm:126-132 — under `injectMut`: `runningTasks++`; close the inject handler if
    /// there is one (B7 while its goroutine lives); `injectHandler = nil`; unlock.
    fn runner_inject_mut(
        &mut self,
        g: Gid,
        segment: i64,
        runner: RunnerId,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let qi = self.qi(segment).expect("queue");
        self.queues[qi].running += 1;
        ev.push(Ev::InjectMutLocked {
            segment,
            running: self.queues[qi].running,
        });
        if let Some(h) = self.queues[qi].handler {
            if self.request_handler_close(qi, h, ev) {
                self.set_inject_mut(qi, Some(g));
                self.set_at(
                    g,
                    At::CloseHandler {
                        segment,
                        handler: h.goroutine,
                        then: Resume::NewRunner(runner),
                    },
                );
                return false;
            }
            self.queues[qi].handler = None;
            ev.push(Ev::HandlerClosed { segment });
        }
        self.set_at(g, At::ChainRunner { segment, runner });
        false
    }

    /// fm:221-226 `injectHandler.close()`: `once.Do(close(done); wg.Wait())`.
    /// Returns true when the caller blocks in B7 (the handler goroutine still lives).
    fn request_handler_close(&mut self, qi: usize, h: Handler, ev: &mut Vec<Ev>) -> bool {
        let segment = self.queues[qi].segment;
        if !h.done {
            self.queues[qi].handler = Some(Handler { done: true, ..h });
            self.touch(h.goroutine);
            ev.push(Ev::HandlerCloseRequested {
                segment,
                handler: h.goroutine,
            });
        }
        self.goroutine(h.goroutine).is_some()
    }

    /// fm:134-137 — under `tailMut`: `t.init(notify, postTask, q.tailCh)` (spawns
    /// waitFinish), `q.tailCh = t.finishSignal`; then the op's half (ft:123-169).
    fn chain_runner(
        &mut self,
        qi: usize,
        r: RunnerId,
        actor: u16,
        pc: u32,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) {
        let start = self.queues[qi].tail.expect("an initialised queue");
        let finish = self.new_signal(true);
        let chain = self.queues[qi].next_chain;
        self.queues[qi].next_chain += 1;
        let ri = self.ri(r);
        let (seq, pos) = (self.runners[ri].seq, self.runners[ri].pos);
        let wf = self.spawn(Role::Runner(r), At::WaitHalves);
        let run = &mut self.runners[ri];
        run.start = Some(start);
        run.finish = Some(finish);
        run.goroutine = Some(wf);
        run.chain = Some(chain);
        self.wait_signal(start.id, wf);
        self.queues[qi].tail = Some(SignalRef {
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
        self.run_half(r, actor, pc, op, ev);
    }

    /// `runFlushInsert` / `runFlushDel` (ft:123-169), each guarded by its `sync.Once`.
    fn run_half(&mut self, r: RunnerId, actor: u16, pc: u32, op: &Op, ev: &mut Vec<Ev>) {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        self.runners[ri].feeders.push((actor, pc));
        let (kind, fail) = match *op {
            Op::FlushInsert {
                flushed,
                dropped,
                fail,
                ..
            } => {
                if self.runners[ri].insert_set {
                    ev.push(Ev::HalfIgnored {
                        segment,
                        pos,
                        kind: HalfKind::Insert,
                    });
                    return;
                }
                let run = &mut self.runners[ri];
                (run.insert_set, run.has_pos, run.flushed, run.dropped) =
                    (true, true, flushed, dropped);
                (HalfKind::Insert, fail)
            }
            Op::FlushDelete { fail, .. } => {
                if self.runners[ri].delete_set {
                    ev.push(Ev::HalfIgnored {
                        segment,
                        pos,
                        kind: HalfKind::Delete,
                    });
                    return;
                }
                self.runners[ri].delete_set = true;
                (HalfKind::Delete, fail)
            }
            _ => unreachable!("run_half: not a flush op"),
        };
        let h = self.spawn(
            Role::Half {
                runner: r,
                kind,
                fail: fail as u8,
            },
            At::Attempt { n: 1 },
        );
        ev.push(Ev::HalfStarted {
            segment,
            pos,
            kind,
            half: h,
        });
    }

    /// `injectFlush`'s loop at segment index `next` (fm:443-445):
    /// `getFlushQueue(seg).inject(inj)` = `q.injectCh <- inj` (B10 when 100 are
    /// queued). One send per step. Returns true when the op returned.
    fn inject_from(
        &mut self,
        sc: &Scenario,
        g: Gid,
        inj: InjId,
        next: u32,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let segs = &sc.injections[inj as usize].segments;
        let segment = segs[next as usize];
        let Some(qi) = self.get_flush_queue(g, segment, next, ev) else {
            return false;
        };
        if self.queues[qi].inject_ch.len() >= INJECT_CH_CAP {
            ev.push(Ev::InjectChFull { inj, segment });
            self.set_at(g, At::Inject { inj, next });
            return false;
        }
        self.queues[qi].inject_ch.push_back(inj);
        self.touch_inject_ch(qi);
        ev.push(Ev::InjectQueued {
            inj,
            segment,
            queued: self.queues[qi].inject_ch.len() as u32,
        });
        if next as usize + 1 < segs.len() {
            self.set_at(
                g,
                At::Inject {
                    inj,
                    next: next + 1,
                },
            );
            return false;
        }
        true
    }

    /// The manager's `close()` after a queue: the next one, or done.
    fn close_continue(&mut self, g: Gid) -> bool {
        let i = self
            .closing_left
            .iter()
            .position(|c| c.0 == g)
            .expect("a closer");
        if self.closing_left[i].1.is_empty() {
            self.closing_left.remove(i);
            return true;
        }
        self.set_at(g, At::CloseQueues);
        false
    }

    /// fm:519-523 — `queue.injectMut.Lock()`; `if injectHandler != nil { close() }`
    /// (B7 while its goroutine lives); unlock. The field is not set to nil.
    fn close_queue(&mut self, g: Gid, qi: u32, ev: &mut Vec<Ev>) -> bool {
        let qi = qi as usize;
        let segment = self.queues[qi].segment;
        match self.queues[qi].handler {
            None => ev.push(Ev::CloseNoHandler { segment }),
            Some(h) => {
                if self.request_handler_close(qi, h, ev) {
                    self.set_inject_mut(qi, Some(g));
                    self.set_at(
                        g,
                        At::CloseHandler {
                            segment,
                            handler: h.goroutine,
                            then: Resume::Close,
                        },
                    );
                    return false;
                }
                ev.push(Ev::HandlerStopped { segment });
            }
        }
        self.close_continue(g)
    }

    // ----- halves -------------------------------------------------------------

    fn step_half(
        &mut self,
        g: Gid,
        r: RunnerId,
        kind: HalfKind,
        fail: u8,
        at: At,
        ev: &mut Vec<Ev>,
    ) {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        let n = match at {
            At::Attempt { n } => n,
            At::RetrySleep { n } if u32::from(n) < RETRY_ATTEMPTS => n + 1,
            At::RetrySleep { .. } => {
                // retry.Do returned the error after its last sleep: set insertErr/deleteErr, Done().
                let run = &mut self.runners[ri];
                match kind {
                    HalfKind::Insert => run.insert_err = true,
                    HalfKind::Delete => run.delete_err = true,
                }
                run.wg -= 1;
                self.touch_runner_wg(ri);
                ev.push(Ev::HalfGaveUp { segment, pos, kind });
                self.finish(g);
                return;
            }
            _ => unreachable!("half: not a point this goroutine can be stepped from"),
        };
        if n <= fail {
            let sleep_ms = retry_sleep_ms(n);
            ev.push(Ev::HalfAttemptFailed {
                segment,
                pos,
                kind,
                n,
                sleep_ms,
            });
            self.set_at(g, At::RetrySleep { n });
        } else {
            self.runners[ri].wg -= 1;
            self.touch_runner_wg(ri);
            ev.push(Ev::HalfDone {
                segment,
                pos,
                kind,
                n,
            });
            self.finish(g);
        }
    }

    // ----- runners --------------------------------------------------------------

    fn step_runner(&mut self, sc: &Scenario, g: Gid, r: RunnerId, at: At, ev: &mut Vec<Ev>) {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        match at {
            At::WaitHalves => {
                // ft:174 — t.Wait() returned.
                ev.push(Ev::RunnerHalvesDone { segment, pos });
                self.set_at(g, At::WaitStart);
            }
            At::WaitStart => {
                // ft:176-190 — <-t.startSignal passed; pack := t.getFlushPack(); then a
                // non-blocking poll of injectSignal (the queue's injectCh).
                let run = &self.runners[ri];
                let pack = Pack {
                    runner: r,
                    source: PackSource::Runner,
                    segment,
                    pos: run.has_pos.then_some(pos),
                    flushed: run.flushed,
                    dropped: run.dropped,
                    err: run.insert_err || run.delete_err,
                };
                self.runners[ri].pack = Some(pack);
                let qi = self.qi(segment).expect("runner's queue");
                if let Some(inj) = self.queues[qi].inject_ch.pop_front() {
                    self.touch_inject_ch(qi);
                    self.take_injection(inj, segment, ev);
                    ev.push(Ev::RunnerTookInjection { segment, pos, inj });
                    self.set_at(g, At::WaitInjectOver { inj });
                } else {
                    ev.push(Ev::RunnerStarted { segment, pos });
                    self.post_task_begin(g, segment, pos, None, ev);
                }
            }
            At::WaitInjectOver { inj } => {
                // ft:184-188 — ok := <-injection.injectOver.
                let ok = self.receive_over(inj);
                ev.push(Ev::RunnerInjectOver {
                    segment,
                    pos,
                    inj,
                    ok,
                });
                self.post_task_begin(g, segment, pos, ok.then_some(inj), ev);
            }
            At::PostTaskDelete { post } => {
                self.working_delete(segment, pos, ev);
                self.set_at(g, At::PostTaskLock { post });
            }
            At::PostTaskLock { post } => self.post_task_locked(sc, g, ri, post, ev),
            At::PostTaskSticky { post } => {
                // fm:154-156 — q.postInjection = postInjection (a handler may write it too).
                let qi = self.qi(segment).expect("runner's queue");
                self.queues[qi].post_inj = Some(post);
                ev.push(Ev::StickySet { segment, inj: post });
                self.set_at(g, At::PostTaskApply);
            }
            At::PostTaskApply => {
                // fm:158-161 — if q.postInjection != nil { q.postInjection(pack) }; unlock.
                let qi = self.qi(segment).expect("runner's queue");
                let (sticky, remapped) = self.apply_sticky(sc, qi, ri);
                self.set_inject_mut(qi, None);
                ev.push(Ev::PostInjectionApplied {
                    segment,
                    pos,
                    sticky,
                    remapped,
                });
                self.set_at(g, At::SaveBinlogPaths { n: 1 });
            }
            At::SaveBinlogPaths { n } => self.save_binlog_paths(g, ri, n, ev),
            _ => unreachable!("runner: not a point this goroutine can be stepped from"),
        }
    }

    /// ft:191 `postFunc(pack, postInjection)` = `q.postTask`: fm:145
    /// `working.Delete(MsgID)` comes before `injectMut`. It is a step of its own only
    /// where another goroutine may look the MsgID up in between (see `Grain`).
    fn post_task_begin(
        &mut self,
        g: Gid,
        segment: i64,
        pos: PosId,
        post: Option<InjId>,
        ev: &mut Vec<Ev>,
    ) {
        if self.grain.post_task_delete {
            self.set_at(g, At::PostTaskDelete { post });
            return;
        }
        self.working_delete(segment, pos, ev);
        self.set_at(g, At::PostTaskLock { post });
    }

    fn working_delete(&mut self, segment: i64, pos: PosId, ev: &mut Vec<Ev>) {
        let qi = self.qi(segment).expect("runner's queue");
        let q = &mut self.queues[qi];
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
    fn post_task_locked(
        &mut self,
        sc: &Scenario,
        g: Gid,
        ri: usize,
        post: Option<InjId>,
        ev: &mut Vec<Ev>,
    ) {
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        let qi = self.qi(segment).expect("runner's queue");
        self.queues[qi].running -= 1;
        let running = self.queues[qi].running;
        if running == 0 {
            let h = self.spawn(Role::Handler { segment }, At::Select);
            self.queues[qi].handler = Some(Handler {
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
            self.set_at(
                g,
                match post {
                    Some(post) => At::PostTaskSticky { post },
                    None => At::PostTaskApply,
                },
            );
            return;
        }
        if post.is_some() {
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
        self.set_at(g, At::SaveBinlogPaths { n: 1 });
    }

    /// `if q.postInjection != nil { q.postInjection(pack) }`: the sticky injection and
    /// the segment the pack was remapped to, if any.
    fn apply_sticky(
        &mut self,
        sc: &Scenario,
        qi: usize,
        ri: usize,
    ) -> (Option<InjId>, Option<i64>) {
        let sticky = self.queues[qi].post_inj;
        let mut pack = self.runners[ri].pack.expect("pack built at B2");
        let from = pack.segment;
        if let Some(to) = sticky.and_then(|p| sc.injections[p as usize].remap_to) {
            pack.segment = to;
        }
        self.runners[ri].pack = Some(pack);
        (sticky, (pack.segment != from).then_some(pack.segment))
    }

    /// `ok := <-inj.injectOver`.
    fn receive_over(&mut self, inj: InjId) -> bool {
        let st = &mut self.injections[inj as usize];
        match st.over {
            Over::Filled(k) if k > 0 => {
                st.over = Over::Filled(k - 1);
                self.touch_over_waiters(inj);
                true
            }
            Over::Closed => false,
            _ => unreachable!("receive on an injectOver that would block"),
        }
    }

    /// A queue of `segment` pops `inj` and calls `injectOne()`.
    fn take_injection(&mut self, inj: InjId, segment: i64, ev: &mut Vec<Ev>) {
        let st = &mut self.injections[inj as usize];
        st.remaining = st.remaining.saturating_sub(1);
        let twice = st.taken.contains(&segment);
        st.taken.push(segment);
        if st.remaining == 0 {
            self.touch_where(|g| g.role == Role::WaitInjected(inj));
        }
        if twice {
            self.violate(Violation::InjectionTakenTwice { inj, segment }, ev);
        }
    }

    /// `replica.listNewSegmentsStartPositions()`: reports every new segment and moves it to normal.
    /// Returns the segments it reported.
    fn list_new_segments_start_positions(&mut self, ev: &mut Vec<Ev>) -> Vec<i64> {
        let mut listed = Vec::new();
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
    fn segment_flushed(&mut self, segment: i64, ev: &mut Vec<Ev>) {
        if let Some(s) = self.replica.iter_mut().find(|s| s.segment == segment) {
            if s.state != ReplicaState::Flushed {
                s.state = ReplicaState::Flushed;
                ev.push(Ev::ReplicaFlushed { segment });
            }
        }
    }

    /// ft:194 `notifyFunc(pack)` = fm:674-756 `flushNotifyFunc`, then ft:197
    /// `close(t.finishSignal)`. Attempt 1 also builds the request (panicking first if
    /// the pack carries an error); each failed attempt is retried in a later step.
    fn save_binlog_paths(&mut self, g: Gid, ri: usize, n: u8, ev: &mut Vec<Ev>) {
        let pack = self.runners[ri].pack.expect("pack");
        if n == 1 {
            if pack.err {
                // fm:676-680.
                ev.push(Ev::NotifyPackError { pack });
                self.go_panic(
                    g,
                    "execution failed (flushNotifyFunc: flush pack with error, DataNode quit now)"
                        .into(),
                    ev,
                );
                return;
            }
            // fm:701 — the request carries the start positions of every new segment.
            ev.push(Ev::SaveBinlogPathsCall { pack });
            self.list_new_segments_start_positions(ev);
        }
        if u32::from(n) > RETRY_ATTEMPTS {
            // retry.go:42-57 returns the errors after the sleep that follows the last
            // attempt; fm:745-748 then panics.
            self.go_panic(
                g,
                "failed to SaveBinlogPaths after retries (flushNotifyFunc panics)".into(),
                ev,
            );
            return;
        }
        if self.save_binlog_faults > 0 {
            self.save_binlog_faults -= 1;
            ev.push(Ev::RpcFailed {
                rpc: Rpc::SaveBinlogPaths,
                n,
                sleep_ms: retry_sleep_ms(n),
            });
            self.set_at(g, At::SaveBinlogPaths { n: n + 1 });
            return;
        }
        // Success: checkpoint, segmentFlushed when flushed || dropped, then close(finishSignal).
        if let Some(s) = self.replica.iter_mut().find(|s| s.segment == pack.segment) {
            s.checkpoint = pack.pos;
        }
        self.notified += 1;
        if self.waits_notified {
            self.touch_actors();
        }
        ev.push(Ev::Notified {
            pack,
            total: self.notified,
        });
        if pack.flushed || pack.dropped {
            self.segment_flushed(pack.segment, ev);
        }
        self.check_notify_order(ri, ev);
        self.runner_ids.remove(ri);
        let run = self.runners.remove(ri).expect("live runner");
        self.close_signal(run.finish.expect("finish"));
        ev.push(Ev::FinishClosed {
            segment: run.segment,
            pos: run.pos,
            chain: run.chain.expect("a notified runner is chained"),
        });
        self.finish(g);
    }

    /// The ordering Go guarantees, checked when runner `ri` notifies:
    /// * self-check: the runner whose finishSignal it started on has notified (B2);
    /// * `inject-done-splice`: no runner chained before it in its queue is still
    ///   waiting (only an inject handler's `injectDone`, which replaces the tail
    ///   without chaining the old one, fm:203-206, lets a later runner overtake);
    /// * `fifo-per-enqueuer`: every position an actor flushed before this one (normal
    ///   mode, same queue) has notified, unless the splice above explains it.
    fn check_notify_order(&mut self, ri: usize, ev: &mut Vec<Ev>) {
        let run = &self.runners[ri];
        let (segment, pos) = (run.segment, run.pos);
        let chain = run.chain.expect("a notified runner is chained");
        let mut found = Vec::new();
        for other in self.runners.iter() {
            if other.id == run.id || other.adhoc.is_some() || other.segment != segment {
                continue;
            }
            if let Some(SigOrigin::Runner { chain: c, .. }) = run.start.map(|s| s.origin) {
                if other.chain == Some(c) {
                    found.push(Violation::NotifyBeforeTail {
                        segment,
                        pos,
                        before: other.pos,
                    });
                }
            }
            if other.chain.is_some_and(|c| c < chain) {
                found.push(Violation::InjectDoneSplice {
                    segment,
                    pos,
                    earlier: other.pos,
                });
                continue;
            }
            for &(actor, i) in &run.feeders {
                if other.feeders.iter().any(|&(a, j)| a == actor && j < i) {
                    found.push(Violation::FifoPerEnqueuer {
                        segment,
                        actor,
                        pos,
                        earlier: other.pos,
                        overtaken: other.seq < run.seq,
                    });
                }
            }
        }
        for v in found {
            if !self.violations.contains(&v) {
                self.violate(v, ev);
            }
        }
    }

    // ----- inject handlers ----------------------------------------------------------

    fn step_handler(&mut self, g: Gid, segment: i64, at: At, alt: u32, ev: &mut Vec<Ev>) {
        let qi = self.qi(segment).expect("handler's queue");
        match at {
            At::Select => {
                let inj_ready = !self.queues[qi].inject_ch.is_empty();
                // With both cases ready, case 0 takes the injection and case 1 returns.
                if inj_ready && alt == 0 {
                    // fm:202-208 — under tailMut: tailCh = injectDone (the old tail is
                    // not chained); injectOne(); then <-injectOver (B6).
                    let inj = self.queues[qi].inject_ch.pop_front().expect("ready");
                    self.touch_inject_ch(qi);
                    let done = self.new_signal(true);
                    self.queues[qi].tail = Some(SignalRef {
                        id: done,
                        origin: SigOrigin::InjectDone { handler: g },
                    });
                    self.take_injection(inj, segment, ev);
                    ev.push(Ev::HandlerTookInjection { segment, inj });
                    self.set_at(g, At::Handling { inj, done });
                } else {
                    // fm:215-216 — <-h.done: return (the deferred wg.Done releases B7).
                    ev.push(Ev::HandlerExited {
                        segment,
                        both_ready: inj_ready,
                    });
                    self.finish(g);
                    self.touch_actors();
                }
            }
            At::Handling { inj, done } => {
                // fm:209-214 — ok := <-injectOver; if ok { q.postInjection = ... } (no
                // lock); close(injectDone).
                let ok = self.receive_over(inj);
                if ok {
                    self.queues[qi].post_inj = Some(inj);
                }
                self.close_signal(done);
                ev.push(Ev::HandlerInjectOver { segment, inj, ok });
                self.set_at(g, At::Select);
            }
            _ => unreachable!("handler: not a point this goroutine can be stepped from"),
        }
    }

    // ----- drop finaliser --------------------------------------------------------------

    fn step_finaliser(&mut self, sc: &Scenario, g: Gid, at: At, ev: &mut Vec<Ev>) {
        match at {
            At::WaitAllFlushed => {
                // fm:491-492 then fm:472-483 waitForAllFlushQueue: dispatcher.Range
                // starts one goroutine per stored queue; each reads its tailCh when it runs.
                let segments: Vec<i64> = self.queues.iter().map(|q| q.segment).collect();
                for &segment in &segments {
                    self.spawn(Role::TailWaiter { segment }, At::ReadTail);
                }
                self.drop.tail_waiters = segments.len() as u32;
                ev.push(Ev::FinaliserAllFlushed {
                    queues: segments.len() as u32,
                });
                self.set_at(g, At::WaitTailWaiters);
            }
            At::WaitTailWaiters => {
                // fm:483 wg.Wait() returned; fm:493 dropFlushWg.Wait() (never Add-ed);
                // fm:494-495 dropHandler.Lock(), held until flushAndDrop returns.
                self.drop.locked = true;
                let packs = self.drop.packs.len() as u32;
                ev.push(Ev::FinaliserLocked { packs });
                self.set_at(
                    g,
                    if packs == 0 {
                        At::DropVirtualChannel { n: 1 }
                    } else {
                        At::FinaliserPack { next: 0 }
                    },
                );
            }
            At::FinaliserPack { next } => self.finaliser_pack(sc, g, next, ev),
            At::QueueInit { segment, resume } => {
                self.init_pending_queue(segment, ev);
                self.set_at(g, At::FinaliserPack { next: resume });
            }
            At::DropVirtualChannel { n } => self.drop_virtual_channel(g, n, ev),
            _ => unreachable!("finaliser: not a point this goroutine can be stepped from"),
        }
    }

    /// fm:497-505 — for pack `next`: `q := getFlushQueue(pack.segmentID)`; under
    /// `q.injectMut`, `if q.postInjection != nil { q.postInjection(pack) }`. One pack
    /// per step: a handler may set `postInjection` (unlocked) between two packs.
    fn finaliser_pack(&mut self, sc: &Scenario, g: Gid, next: u32, ev: &mut Vec<Ev>) {
        let from = self.drop.packs[next as usize].segment;
        let Some(qi) = self.get_flush_queue(g, from, next, ev) else {
            return;
        };
        let sticky = self.queues[qi].post_inj;
        let to = sticky.and_then(|p| sc.injections[p as usize].remap_to);
        if let Some(to) = to {
            self.drop.packs[next as usize].segment = to;
        }
        ev.push(Ev::DropPackPostInjection {
            index: next,
            from,
            sticky,
            to,
        });
        let next = next + 1;
        self.set_at(
            g,
            if next as usize == self.drop.packs.len() {
                At::DropVirtualChannel { n: 1 }
            } else {
                At::FinaliserPack { next }
            },
        );
    }

    /// fm:506 `flushAndDrop(packs)` = fm:579-672 `dropVirtualChannelFunc`: build the
    /// request (with new segments' start positions), `DropVirtualChannel` with
    /// retries, then `segmentFlushed` for every segment of `segmentPack`; the
    /// deferred unlock of the drop mutex runs when the finaliser returns.
    fn drop_virtual_channel(&mut self, g: Gid, n: u8, ev: &mut Vec<Ev>) {
        if n == 1 {
            if self.drop.flush_and_drop.is_some() {
                self.violate(Violation::FlushAndDropTwice, ev);
            }
            if self.drop.all_flushed != AllFlushed::Closed {
                self.violate(Violation::FlushAndDropEarly, ev);
            }
            // A runner chained before the tail its queue's waiter read, not notified yet:
            // the waiter read an inject handler's injectDone that spliced the chain.
            let overtaken: Vec<Violation> = self
                .runners
                .iter()
                .filter(|r| r.adhoc.is_none())
                .filter_map(|r| {
                    let chained = self.drop.tails_read.iter().find(|t| t.0 == r.segment)?.1;
                    (r.chain? < chained).then_some(Violation::DropBeforeNotify {
                        segment: r.segment,
                        pos: r.pos,
                    })
                })
                .collect();
            for v in overtaken {
                self.violate(v, ev);
            }
            let packs = self.drop.packs.clone();
            ev.push(Ev::FlushAndDrop {
                packs: packs.len() as u32,
            });
            self.drop.flush_and_drop = Some(packs);
            // fm:637-648 — start positions of every new segment join the request.
            self.drop.start_positions = self.list_new_segments_start_positions(ev);
        }
        if u32::from(n) > RETRY_ATTEMPTS {
            // retry.go:42-57, after the sleep that follows the last attempt; fm:663-666.
            self.go_panic(
                g,
                "failed to DropVirtualChannel after retries (dropVirtualChannelFunc panics)".into(),
                ev,
            );
            return;
        }
        if self.drop_channel_faults > 0 {
            self.drop_channel_faults -= 1;
            ev.push(Ev::RpcFailed {
                rpc: Rpc::DropVirtualChannel,
                n,
                sleep_ms: retry_sleep_ms(n),
            });
            self.set_at(g, At::DropVirtualChannel { n: n + 1 });
            return;
        }
        // fm:667-670 — segmentFlushed for every key of segmentPack: the packs'
        // segments and the new segments whose start positions it added.
        let segs: std::collections::BTreeSet<i64> = self
            .drop
            .flush_and_drop
            .iter()
            .flatten()
            .map(|p| p.segment)
            .chain(self.drop.start_positions.iter().copied())
            .collect();
        ev.push(Ev::FlushAndDropDone);
        for s in segs {
            self.segment_flushed(s, ev);
        }
        self.drop.locked = false;
        self.touch_actors();
        self.finish(g);
    }

    // ----- waitForAllFlushQueue's per-queue goroutines ----------------------------------

    fn step_tail_waiter(&mut self, g: Gid, segment: i64, at: At, ev: &mut Vec<Ev>) {
        match at {
            At::ReadTail => {
                // fm:478 — <-queue.tailCh, reading the field now (without tailMut).
                let qi = self.qi(segment).expect("a ranged queue");
                let chained = self.queues[qi].next_chain;
                self.drop.tails_read.push((segment, chained));
                match self.queues[qi].tail {
                    None => {
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Nil,
                        });
                        self.set_at(g, At::WaitTail { sig: None });
                    }
                    Some(t) if self.is_closed(t.id) => {
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Closed(t.origin),
                        });
                        self.tail_waiter_done(g);
                    }
                    Some(t) => {
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Open(t.origin),
                        });
                        self.wait_signal(t.id, g);
                        self.set_at(g, At::WaitTail { sig: Some(t.id) });
                    }
                }
            }
            At::WaitTail { .. } => {
                ev.push(Ev::TailClosed { segment });
                self.tail_waiter_done(g);
            }
            _ => unreachable!("tail waiter: not a point this goroutine can be stepped from"),
        }
    }

    /// fm:479 — `wg.Done()`; the finaliser's `wg.Wait()` may return.
    fn tail_waiter_done(&mut self, g: Gid) {
        self.drop.tail_waiters -= 1;
        if self.drop.tail_waiters == 0 {
            if let Some(f) = self.finaliser {
                self.touch(f);
            }
        }
        self.finish(g);
    }

    // ----- invariants ------------------------------------------------------------------------

    fn violate(&mut self, v: Violation, ev: &mut Vec<Ev>) {
        ev.push(Ev::Invariant(v.clone()));
        self.violations.push(v);
    }

    /// Checks run after every step (the event-time ones are in the step code).
    fn check_invariants(&mut self, ev: &mut Vec<Ev>) {
        if self.closing {
            return;
        }
        for qi in 0..self.queues.len() {
            let q = &self.queues[qi];
            if q.inject_mut.is_some() || q.tail.is_none() {
                continue; // a holder is mid-way, or init has not run yet
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
}

fn op_segment(op: &Op) -> i64 {
    match *op {
        Op::FlushInsert { segment, .. } | Op::FlushDelete { segment, .. } => segment,
        _ => unreachable!("a flush op"),
    }
}

fn op_pos(op: &Op) -> PosId {
    match *op {
        Op::FlushInsert { pos, .. } | Op::FlushDelete { pos, .. } => pos,
        _ => unreachable!("a flush op"),
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
