//! `World::step`: run one goroutine past its blocking point to the next one.
//! Each arm cites the Go it models; MODEL.md §1.2 has the same order in words.

use super::*;
use crate::scenario::{Op, RETRY_ATTEMPTS};
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
        let gi = self.gi(choice.g);
        let g = self.goroutines[gi].clone();
        let who = self.who_of(&g);
        match g.role {
            Role::Actor { actor, pc } => self.step_actor(sc, g.id, actor, pc, g.at, ev),
            Role::Half { runner, kind, fail } => self.step_half(g.id, runner, kind, fail, g.at, ev),
            Role::Runner(r) => self.step_runner(sc, g.id, r, g.at, ev),
            Role::Handler { segment } => self.step_handler(g.id, segment, g.at, choice.alt, ev),
            Role::WaitInjected(inj) => {
                // flush_task.go: waitForInjected — wg.Wait() returned; close(injected).
                self.injections[inj as usize].injected = true;
                self.touch_actors();
                ev.push(Ev::InjectedClosed { inj });
                self.finish(g.id);
            }
            Role::Finaliser => self.step_finaliser(sc, g.id, g.at, ev),
        }
        self.touch(choice.g);
        self.check_invariants(ev);
        self.refresh_ready(sc);
        who
    }

    /// Takes or releases a queue's `injectMut` across a blocking point; every
    /// goroutine that may wait for it is re-examined.
    fn set_inject_mut(&mut self, qi: usize, holder: Option<Gid>) {
        self.queues[qi].inject_mut = holder;
        self.touch_actors();
        if let Some(f) = self.finaliser {
            self.touch(f);
        }
        self.touch_where(|g| matches!(g.at, At::PostTaskMutex { .. }));
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
        if self.queues[qi].inject_ch.len() + 1 >= crate::scenario::INJECT_CH_CAP {
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

    fn step_actor(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, at: At, ev: &mut Vec<Ev>) {
        let op = &sc.actors[actor as usize].ops[pc as usize];
        let done = match at {
            At::Ready => self.start_op(sc, g, op, ev),
            At::LockInjectMut {
                segment,
                then: Resume::NewRunner(r),
            } => {
                ev.push(Ev::LockedInjectMut { segment });
                self.new_runner_locked(g, segment, r, op, ev)
            }
            At::CloseHandler { segment, then, .. } => {
                // flush_manager.go: injectHandler.close — wg.Wait() returned.
                let qi = self.qi(segment).expect("queue of a closing handler");
                self.set_inject_mut(qi, None);
                match then {
                    Resume::NewRunner(r) => {
                        self.queues[qi].handler = None;
                        ev.push(Ev::HandlerClosed { segment });
                        self.init_runner_and_half(qi, r, op, ev);
                        true
                    }
                    Resume::Close(after) => {
                        ev.push(Ev::HandlerStopped { segment });
                        self.manager_close(g, after as usize + 1, ev)
                    }
                }
            }
            At::LockInjectMut {
                then: Resume::Close(qi),
                ..
            } => self.manager_close(g, qi as usize, ev),
            At::InjectSend { inj, next } => self.inject_from(sc, g, inj, next as usize, ev),
            At::DropWait { runner } => {
                // flush_manager.go: handleInsertTask/handleDeleteTask — r.Wait() returned; append getFlushPack().
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
                self.drop.packs.push(pack);
                ev.push(Ev::DropPackAppended { pack });
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

    /// Starts the op; returns true when it completed without blocking.
    fn start_op(&mut self, sc: &Scenario, g: Gid, op: &Op, ev: &mut Vec<Ev>) -> bool {
        match *op {
            Op::FlushInsert {
                segment,
                pos,
                flushed,
                dropped,
                fail,
            } => {
                if self.drop.dropping {
                    // flush_manager.go: handleInsertTask, drop mode — ad-hoc runner, Add(1), runFlushInsert, Wait.
                    return self.run_adhoc(
                        g,
                        segment,
                        pos,
                        HalfKind::Insert,
                        fail,
                        (flushed, dropped),
                        ev,
                    );
                }
                let qi = self.get_flush_queue(segment, ev);
                self.get_runner(g, qi, pos, op, ev)
            }
            Op::FlushDelete { segment, pos, fail } => {
                if self.drop.dropping {
                    // flush_manager.go: handleDeleteTask, drop mode — getFlushQueue, then working.Load(pos).
                    let qi = self.get_flush_queue(segment, ev);
                    if self.working(qi, pos).is_some() {
                        ev.push(Ev::DropDeleteStaysNormal { segment, pos });
                        return self.get_runner(g, qi, pos, op, ev);
                    }
                    return self.run_adhoc(
                        g,
                        segment,
                        pos,
                        HalfKind::Delete,
                        fail,
                        (false, false),
                        ev,
                    );
                }
                let qi = self.get_flush_queue(segment, ev);
                self.get_runner(g, qi, pos, op, ev)
            }
            Op::Inject { inj } => {
                // flush_manager.go: injectFlush — go waitForInjected(), then inject into each queue.
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
                // flush_task.go: injectDone — false closes injectOver, true fills it with segmentCnt trues.
                let n = sc.injections[inj as usize].segments.len() as u32;
                let st = &mut self.injections[inj as usize];
                st.over = if success {
                    Over::Filled(n)
                } else {
                    Over::Closed
                };
                self.touch_over_waiters(inj);
                ev.push(Ev::InjectDone { inj, success });
                true
            }
            Op::StartDropping => {
                // flush_manager.go: startDropping — dropping = true; allFlushed = make(chan); go finaliser.
                self.drop.dropping = true;
                self.drop.all_flushed = AllFlushed::Open;
                let f = self.spawn(Role::Finaliser, At::WaitAllFlushed);
                ev.push(Ev::StartDropping { finaliser: f });
                true
            }
            Op::NotifyAllFlushed => {
                // flush_manager.go: notifyAllFlushed — close(allFlushed).
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
                self.closing = true;
                ev.push(Ev::ManagerClose);
                self.manager_close(g, 0, ev)
            }
            Op::WaitNotified { count } => {
                ev.push(Ev::WaitNotifiedPassed { count });
                true
            }
            Op::Insert { .. } | Op::Seal { .. } | Op::Sync { .. } | Op::SyncSegments { .. } => {
                unreachable!("sync-2024 op in a flush-2021 run")
            }
        }
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

    /// `getFlushQueue`: LoadOrStore + `init` (spawns the inject handler, tail = closed channel).
    fn get_flush_queue(&mut self, segment: i64, ev: &mut Vec<Ev>) -> usize {
        if let Some(i) = self.qi(segment) {
            return i;
        }
        let tail = self.new_signal(false);
        self.queues.push(Queue {
            segment,
            tail: SignalRef {
                id: tail,
                origin: SigOrigin::QueueInit,
            },
            running: 0,
            handler: None,
            post_inj: None,
            inject_ch: VecDeque::new(),
            working: Vec::new(),
            next_seq: 0,
            notify_seq: 0,
            inject_mut: None,
        });
        let h = self.spawn(Role::Handler { segment }, At::Select);
        let qi = self.queues.len() - 1;
        self.queues[qi].handler = Some(Handler {
            goroutine: h,
            done: false,
        });
        ev.push(Ev::QueueCreated {
            segment,
            handler: h,
        });
        qi
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

    /// `getFlushTaskRunner(pos)` then the op's `runFlushInsert`/`runFlushDel`.
    /// Returns true when the op completed.
    fn get_runner(&mut self, g: Gid, qi: usize, pos: PosId, op: &Op, ev: &mut Vec<Ev>) -> bool {
        let segment = self.queues[qi].segment;
        if let Some(r) = self.working(qi, pos) {
            ev.push(Ev::RunnerLoaded { segment, pos });
            self.run_half(r, op, ev);
            return true;
        }
        let seq = self.queues[qi].next_seq;
        self.queues[qi].next_seq += 1;
        let r = self.new_runner(segment, pos, seq, None);
        let w = &mut self.queues[qi].working;
        let at = w.partition_point(|x| x.0 < pos);
        w.insert(at, (pos, r));
        ev.push(Ev::RunnerStored { segment, pos, seq });
        if self.queues[qi].inject_mut.is_some() {
            self.set_at(
                g,
                At::LockInjectMut {
                    segment,
                    then: Resume::NewRunner(r),
                },
            );
            ev.push(Ev::WaitInjectMut { segment });
            return false;
        }
        self.new_runner_locked(g, segment, r, op, ev)
    }

    /// The part of `getFlushTaskRunner` under `injectMut`: runningTasks++, close the handler.
    fn new_runner_locked(
        &mut self,
        g: Gid,
        segment: i64,
        r: RunnerId,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let qi = self.qi(segment).expect("queue");
        self.queues[qi].running += 1;
        if let Some(h) = self.queues[qi].handler {
            if !h.done {
                self.queues[qi].handler = Some(Handler { done: true, ..h });
                self.touch(h.goroutine);
                ev.push(Ev::HandlerCloseRequested {
                    segment,
                    handler: h.goroutine,
                });
            }
            if self.goroutine(h.goroutine).is_some() {
                self.set_inject_mut(qi, Some(g));
                self.set_at(
                    g,
                    At::CloseHandler {
                        segment,
                        handler: h.goroutine,
                        then: Resume::NewRunner(r),
                    },
                );
                return false;
            }
            self.queues[qi].handler = None;
            ev.push(Ev::HandlerClosed { segment });
        }
        self.init_runner_and_half(qi, r, op, ev);
        true
    }

    /// `t.init(notify, postTask, q.tailCh)` under tailMut, `q.tailCh = t.finishSignal`, then the half.
    fn init_runner_and_half(&mut self, qi: usize, r: RunnerId, op: &Op, ev: &mut Vec<Ev>) {
        let start = self.queues[qi].tail;
        let finish = self.new_signal(true);
        let ri = self.ri(r);
        let seq = self.runners[ri].seq;
        let wf = self.spawn(Role::Runner(r), At::WaitHalves);
        let run = &mut self.runners[ri];
        run.start = Some(start);
        run.finish = Some(finish);
        run.goroutine = Some(wf);
        if !self.is_closed(start.id) {
            let at = self.sig_waiters.partition_point(|w| w.0 < start.id);
            self.sig_waiters.insert(at, (start.id, wf));
        }
        self.queues[qi].tail = SignalRef {
            id: finish,
            origin: SigOrigin::Runner { seq },
        };
        ev.push(Ev::RunnerInit {
            segment: self.queues[qi].segment,
            pos: self.runners[ri].pos,
            runner: wf,
            start: start.origin,
        });
        // Architecture invariant: a runner's start is the previous tail or a handler's injectDone.
        let ok = match start.origin {
            SigOrigin::QueueInit => seq == 0,
            SigOrigin::Runner { seq: s } => s + 1 == seq,
            SigOrigin::InjectDone { .. } => true,
        };
        if !ok {
            self.violate(
                Violation::StartSignal {
                    segment: self.queues[qi].segment,
                    seq,
                    origin: start.origin,
                },
                ev,
            );
        }
        self.run_half(r, op, ev);
    }

    /// `runFlushInsert` / `runFlushDel`, each guarded by its `sync.Once`.
    fn run_half(&mut self, r: RunnerId, op: &Op, ev: &mut Vec<Ev>) {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
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
            _ => unreachable!("run_half: not a point this goroutine can be stepped from"),
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

    /// `injectFlush`'s loop from segment index `from`: `getFlushQueue(seg).inject(inj)`.
    fn inject_from(
        &mut self,
        sc: &Scenario,
        g: Gid,
        inj: InjId,
        from: usize,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let segs = &sc.injections[inj as usize].segments;
        for (i, &seg) in segs.iter().enumerate().skip(from) {
            let qi = self.get_flush_queue(seg, ev);
            if self.queues[qi].inject_ch.len() >= crate::scenario::INJECT_CH_CAP {
                ev.push(Ev::InjectChFull { inj, segment: seg });
                self.set_at(
                    g,
                    At::InjectSend {
                        inj,
                        next: i as u32,
                    },
                );
                return false;
            }
            self.queues[qi].inject_ch.push_back(inj);
            self.touch_inject_ch(qi);
            ev.push(Ev::InjectQueued {
                inj,
                segment: seg,
                queued: self.queues[qi].inject_ch.len() as u32,
            });
        }
        true
    }

    /// The manager's `close()` from queue index `from`: stop each handler (blocking in B7).
    fn manager_close(&mut self, g: Gid, from: usize, ev: &mut Vec<Ev>) -> bool {
        for qi in from..self.queues.len() {
            let Some(h) = self.queues[qi].handler else {
                continue;
            };
            let segment = self.queues[qi].segment;
            if self.queues[qi].inject_mut.is_some() {
                // Another goroutine holds injectMut across B7 on this queue: wait for it.
                self.set_at(
                    g,
                    At::LockInjectMut {
                        segment,
                        then: Resume::Close(qi as u32),
                    },
                );
                return false;
            }
            if !h.done {
                self.queues[qi].handler = Some(Handler { done: true, ..h });
                self.touch(h.goroutine);
                ev.push(Ev::HandlerCloseRequested {
                    segment,
                    handler: h.goroutine,
                });
            }
            if self.goroutine(h.goroutine).is_some() {
                self.set_inject_mut(qi, Some(g));
                self.set_at(
                    g,
                    At::CloseHandler {
                        segment,
                        handler: h.goroutine,
                        then: Resume::Close(qi as u32),
                    },
                );
                return false;
            }
        }
        true
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
                ev.push(Ev::RunnerHalvesDone { segment, pos });
                self.set_at(g, At::WaitStart);
            }
            At::WaitStart => {
                // <-t.startSignal passed; pack := t.getFlushPack(); non-blocking poll of injectSignal.
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
                    self.post_task(sc, g, ri, None, ev);
                }
            }
            At::WaitInjectOver { inj } => {
                let ok = self.receive_over(inj);
                ev.push(Ev::RunnerInjectOver {
                    segment,
                    pos,
                    inj,
                    ok,
                });
                self.post_task(sc, g, ri, ok.then_some(inj), ev);
            }
            At::PostTaskMutex { post } => self.post_task(sc, g, ri, post, ev),
            At::SaveBinlogPaths { n } => self.save_binlog_paths(g, ri, n, ev),
            _ => unreachable!("runner: not a point this goroutine can be stepped from"),
        }
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

    /// `q.postTask(pack, postInjection)` then the start of `notifyFunc(pack)`.
    fn post_task(
        &mut self,
        sc: &Scenario,
        g: Gid,
        ri: usize,
        post: Option<InjId>,
        ev: &mut Vec<Ev>,
    ) {
        let segment = self.runners[ri].segment;
        let pos = self.runners[ri].pos;
        let qi = self.qi(segment).expect("runner's queue");
        if self.queues[qi].inject_mut.is_some() {
            ev.push(Ev::WaitInjectMut { segment });
            self.set_at(g, At::PostTaskMutex { post });
            return;
        }
        let q = &mut self.queues[qi];
        if let Ok(i) = q.working.binary_search_by_key(&pos, |x| x.0) {
            q.working.remove(i);
        }
        q.running -= 1;
        let mut spawned = None;
        if q.running == 0 {
            let h = self.spawn(Role::Handler { segment }, At::Select);
            self.queues[qi].handler = Some(Handler {
                goroutine: h,
                done: false,
            });
            spawned = Some(h);
        }
        let q = &mut self.queues[qi];
        if post.is_some() {
            q.post_inj = post;
        }
        let mut pack = self.runners[ri].pack.expect("pack built at B2");
        let from = pack.segment;
        if let Some(p) = q.post_inj {
            if let Some(to) = sc.injections[p as usize].remap_to {
                pack.segment = to;
            }
        }
        self.runners[ri].pack = Some(pack);
        ev.push(Ev::PostTask {
            segment,
            pos,
            running: self.queues[qi].running,
            handler: spawned,
            sticky: self.queues[qi].post_inj,
            remapped: (pack.segment != from).then_some(pack.segment),
        });
        // flush_manager.go: flushNotifyFunc.
        if pack.err {
            self.go_panic(
                g,
                "execution failed (flushNotifyFunc: flush pack with error, data node quit now)"
                    .into(),
                ev,
            );
            return;
        }
        self.list_new_segments_start_positions(ev);
        ev.push(Ev::SaveBinlogPathsCall { pack });
        self.set_at(g, At::SaveBinlogPaths { n: 1 });
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

    fn save_binlog_paths(&mut self, g: Gid, ri: usize, n: u8, ev: &mut Vec<Ev>) {
        let pack = self.runners[ri].pack.expect("pack");
        if self.save_binlog_faults > 0 {
            self.save_binlog_faults -= 1;
            if u32::from(n) >= RETRY_ATTEMPTS {
                ev.push(Ev::RpcFailed {
                    rpc: Rpc::SaveBinlogPaths,
                    n,
                    sleep_ms: retry_sleep_ms(n),
                });
                self.go_panic(
                    g,
                    "failed to SaveBinlogPaths after retries (flushNotifyFunc panics)".into(),
                    ev,
                );
                return;
            }
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
        self.runner_ids.remove(ri);
        let run = self.runners.remove(ri).expect("live runner");
        let qi = self.qi(run.segment).expect("queue");
        let q = &mut self.queues[qi];
        let expected = q.notify_seq;
        if run.seq == expected {
            q.notify_seq += 1;
        } else if run.seq < expected {
            self.violate(
                Violation::NotifiedTwice {
                    segment: run.segment,
                    seq: run.seq,
                },
                ev,
            );
        } else {
            self.violate(
                Violation::NotifyOrder {
                    segment: run.segment,
                    seq: run.seq,
                    expected,
                },
                ev,
            );
        }
        self.close_signal(run.finish.expect("finish"));
        ev.push(Ev::FinishClosed {
            segment: run.segment,
            pos: run.pos,
        });
        self.finish(g);
    }

    // ----- inject handlers ----------------------------------------------------------

    fn step_handler(&mut self, g: Gid, segment: i64, at: At, alt: u8, ev: &mut Vec<Ev>) {
        let qi = self.qi(segment).expect("handler's queue");
        match at {
            At::Select => {
                let inj_ready = !self.queues[qi].inject_ch.is_empty();
                // With both cases ready, case 0 takes the injection and case 1 returns.
                if inj_ready && alt == 0 {
                    let inj = self.queues[qi].inject_ch.pop_front().expect("ready");
                    self.touch_inject_ch(qi);
                    let done = self.new_signal(true);
                    self.queues[qi].tail = SignalRef {
                        id: done,
                        origin: SigOrigin::InjectDone { handler: g },
                    };
                    self.take_injection(inj, segment, ev);
                    ev.push(Ev::HandlerTookInjection { segment, inj });
                    self.set_at(g, At::Handling { inj, done });
                } else {
                    ev.push(Ev::HandlerExited {
                        segment,
                        both_ready: inj_ready,
                    });
                    self.finish(g);
                    self.touch_actors();
                }
            }
            At::Handling { inj, done } => {
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
                // waitForAllFlushQueue: one goroutine per queue reads its tailCh now.
                let tails: Vec<SigId> = self
                    .queues
                    .iter()
                    .map(|q| q.tail.id)
                    .filter(|t| !self.is_closed(*t))
                    .collect();
                ev.push(Ev::FinaliserAllFlushed {
                    queues: self.queues.len() as u32,
                    open_tails: tails.len() as u32,
                });
                self.set_at(g, At::WaitTails { tails });
            }
            At::WaitTails { .. } => {
                ev.push(Ev::FinaliserTailsDone);
                self.finaliser_apply(sc, g, 0, ev);
            }
            At::FinaliserMutex { next } => self.finaliser_apply(sc, g, next as usize, ev),
            At::DropVirtualChannel { n } => {
                if self.drop_channel_faults > 0 {
                    self.drop_channel_faults -= 1;
                    ev.push(Ev::RpcFailed {
                        rpc: Rpc::DropVirtualChannel,
                        n,
                        sleep_ms: retry_sleep_ms(n),
                    });
                    if u32::from(n) >= RETRY_ATTEMPTS {
                        self.go_panic(g, "failed to DropVirtualChannel after retries (dropVirtualChannelFunc panics)".into(), ev);
                    } else {
                        self.set_at(g, At::DropVirtualChannel { n: n + 1 });
                    }
                    return;
                }
                // segmentFlushed for every segment of the request (packs and new segments' start positions).
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
                self.finish(g);
            }
            _ => unreachable!("finaliser: not a point this goroutine can be stepped from"),
        }
    }

    /// The postInjection pass over the drop packs from index `from`, then `flushAndDrop`.
    fn finaliser_apply(&mut self, sc: &Scenario, g: Gid, from: usize, ev: &mut Vec<Ev>) {
        for i in from..self.drop.packs.len() {
            let seg = self.drop.packs[i].segment;
            let qi = self.get_flush_queue(seg, ev);
            if self.queues[qi].inject_mut.is_some() {
                ev.push(Ev::WaitInjectMut { segment: seg });
                self.set_at(g, At::FinaliserMutex { next: i as u32 });
                return;
            }
            if let Some(p) = self.queues[qi].post_inj {
                if let Some(to) = sc.injections[p as usize].remap_to {
                    self.drop.packs[i].segment = to;
                    ev.push(Ev::DropPackRemapped {
                        from: seg,
                        to,
                        inj: p,
                    });
                }
            }
        }
        if self.drop.flush_and_drop.is_some() {
            self.violate(Violation::FlushAndDropTwice, ev);
        }
        if self.drop.all_flushed != AllFlushed::Closed {
            self.violate(Violation::FlushAndDropEarly, ev);
        }
        // dropVirtualChannelFunc: listNewSegmentsStartPositions (those segments join the
        // request too), then the RPC.
        self.drop.start_positions = self.list_new_segments_start_positions(ev);
        let packs = self.drop.packs.clone();
        ev.push(Ev::FlushAndDrop {
            packs: packs.len() as u32,
        });
        self.drop.flush_and_drop = Some(packs);
        self.set_at(g, At::DropVirtualChannel { n: 1 });
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
            if q.inject_mut.is_some() {
                continue; // the invariant holds under injectMut; a holder is mid-way
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
