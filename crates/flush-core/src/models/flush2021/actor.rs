//! The scenario's actors: the flow graph and the compactor calling the
//! `rendezvousFlushManager` (handleInsertTask, handleDeleteTask, injectFlush,
//! startDropping, notifyAllFlushed, close) and the barriers the Go tests use.

use super::setup::Op;
use super::*;
use crate::scenario::WaitFor;

/// How an actor's step ends.
pub(super) enum Flow {
    /// Still in its op, at this point.
    At(ActorAt),
    /// The op returned.
    Returned,
    /// Nothing to write back: a Go panic, or the actor returned from its last op.
    Halt,
    /// The op and every op after it up to `last` returned at once: a
    /// compaction that could not start (`compactor.compact` returned its
    /// error before injecting) skips the rest of its ops, `last` being its
    /// `inject_done`.
    ReturnedThrough { last: u32 },
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn step_actor(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        at: ActorAt,
        alt: u32,
        ev: &mut Vec<Ev>,
    ) {
        let (pc, flow) = if at == ActorAt::Ready {
            // wait_for ops are passed in the step of the op after them.
            match self.pass_wait_for(sc, g, actor, pc, ev) {
                None => (pc, Flow::Halt),
                Some(pc) => {
                    let op = &sc.actors[actor as usize].ops[pc as usize];
                    (pc, self.start_op(sc, g, actor, pc, op, ev))
                }
            }
        } else {
            let op = &sc.actors[actor as usize].ops[pc as usize];
            (pc, self.resume_op(sc, g, actor, pc, op, at, alt, ev))
        };
        match flow {
            Flow::At(at) => self.set_role(g, Role::Actor { actor, pc, at }),
            Flow::Returned => self.op_done(sc, g, actor, pc, ev),
            Flow::ReturnedThrough { last } => {
                // Each skipped op's message goes out too (a `wait_for` on one of
                // them passes, as on any op the actor is past).
                for k in pc..last {
                    self.sync_pair(footprint::obj::FLOWGRAPH, (actor.into(), k.into()), true);
                }
                self.op_done(sc, g, actor, last, ev)
            }
            Flow::Halt => {}
        }
    }

    /// The actor returned from op `pc`: on to the next op, or gone.
    fn op_done(&mut self, sc: &Scenario, g: Gid, actor: u16, pc: u32, ev: &mut Vec<Ev>) {
        self.actor_done[actor as usize] = pc + 1;
        if let Some((segment, pos)) = sc.actors[actor as usize].ops[pc as usize].flush_target() {
            self.call_returned(actor, pc, segment, pos);
        }
        self.sync_pair(footprint::obj::FLOWGRAPH, (actor.into(), pc.into()), true);
        if self.grain.waits_for {
            self.touch_actors();
        }
        let next = pc + 1;
        if next as usize >= sc.actors[actor as usize].ops.len() {
            ev.push(Ev::ActorDone);
            self.finish(g);
        } else {
            let role = Role::Actor {
                actor,
                pc: next,
                at: ActorAt::Ready,
            };
            self.set_role(g, role);
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
        while let Some(Op::WaitFor(WaitFor {
            actor: other,
            index,
        })) = ops.get(pc as usize)
        {
            // The message the other node sends when its op `index` returns.
            let id = ((*other).into(), (*index).into());
            self.sync_pair(footprint::obj::FLOWGRAPH, id, false);
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

    /// Starts the op at `pc`.
    fn start_op(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        op: &Op,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        match *op {
            Op::FlushInsert {
                segment,
                pos,
                flushed,
                dropped,
                fail,
            } => {
                if self.drop.dropping {
                    // `dropping.Load()` saw startDropping's store.
                    self.sync(footprint::obj::DROPPING, 0, false);
                    // fm:262-275 handleInsertTask, drop mode — ad-hoc runner, Add(1),
                    // runFlushInsert, Wait, then append under the drop mutex.
                    let flags = (flushed, dropped);
                    return self.run_adhoc(segment, pos, HalfKind::Insert, fail, flags, ev);
                }
                // `dropping.Load()` read false: before startDropping's store.
                self.order(footprint::obj::DROPPING, (0, 0));
                self.flush_mode_read(g, actor, pc, op, HalfKind::Insert, ev)
            }
            Op::FlushDelete { segment, .. } => {
                if self.drop.dropping {
                    self.sync(footprint::obj::DROPPING, 0, false);
                    // fm:283-286 handleDeleteTask, drop mode — getFlushQueue, then working.Load(pos).
                    let Some(qi) = self.get_flush_queue(segment, ev) else {
                        return Flow::At(ActorAt::QueueInit {
                            segment,
                            then: AfterInit::DropDelete,
                        });
                    };
                    return self.drop_delete_lookup(qi, op, ev);
                }
                self.order(footprint::obj::DROPPING, (0, 0));
                self.flush_mode_read(g, actor, pc, op, HalfKind::Delete, ev)
            }
            Op::Inject { inj } => {
                // An actor that stands for a compaction (its compacted inject_done
                // of `inj` comes later) checks the Replica first
                // (compactor.go:303-307): when that fails, compact returns, and
                // none of its ops up to that inject_done runs.
                if let Some(last) = sc.compaction_end(actor, pc, inj) {
                    if !self.compaction_starts(sc, inj, ev) {
                        return Flow::ReturnedThrough { last };
                    }
                }
                // fm:441-446 injectFlush — go waitForInjected(), then each queue's inject.
                self.injections[inj as usize].started = true;
                let w = self.spawn(Role::WaitInjected { inj });
                ev.push(Ev::InjectFlush { inj, waiter: w });
                self.inject_from(sc, inj, 0, ev)
            }
            Op::WaitInjected { inj } => {
                // `<-injection.Injected()` (ft:90-92).
                self.sync(footprint::obj::INJECTED, inj.into(), false);
                ev.push(Ev::Injected { inj });
                Flow::Returned
            }
            Op::InjectDone {
                inj,
                success,
                compacted,
            } => {
                if compacted {
                    self.compactor_replica_edit(sc, inj, ev);
                }
                // ft:103-112 injectDone — false closes injectOver, true fills it with segmentCnt trues.
                let n = sc.injections[inj as usize].segments.len() as u32;
                self.injections[inj as usize].over = if success {
                    Over::Filled(n)
                } else {
                    Over::Closed
                };
                self.sync(footprint::obj::INJECT_OVER, inj.into(), true);
                self.touch_over_waiters(inj);
                ev.push(Ev::InjectDone { inj, success });
                Flow::Returned
            }
            Op::StartDropping => {
                // fm:488 — m.dropping.Store(true); the channel and the goroutine are the next step.
                self.drop.dropping = true;
                self.sync(footprint::obj::DROPPING, 0, true);
                ev.push(Ev::StartDroppingStore);
                Flow::At(ActorAt::StartDroppingMake)
            }
            Op::NotifyAllFlushed => self.notify_all_flushed(g, ev),
            Op::Close => {
                // fm:515-526 close — dispatcher.Range over the queues stored now, one by
                // one, in map order (a scheduler choice at each).
                self.closing = true;
                // Which queues the range visits depends on every dispatcher store
                // before it, and `closing` turns the queue invariants off for every
                // step after it: it is ordered against every other step.
                self.order(crate::engine::EVERY_STEP, (0, 0));
                let n = self.queues.len() as u32;
                ev.push(Ev::ManagerClose { queues: n });
                self.closing_left.push((g, (0..n).collect()));
                self.close_continue(g)
            }
            Op::WaitNotified { count } => {
                // Each of the first `count` notifications is received.
                for k in 1..=count {
                    self.sync(footprint::obj::NOTIFIED, k.into(), false);
                }
                ev.push(Ev::WaitNotifiedPassed { count });
                Flow::Returned
            }
            // Passed before the op after them (`pass_wait_for`).
            Op::WaitFor(_) => Flow::Returned,
        }
    }

    /// Goes on with the op from point `at`.
    #[allow(clippy::too_many_arguments)]
    fn resume_op(
        &mut self,
        sc: &Scenario,
        g: Gid,
        actor: u16,
        pc: u32,
        op: &Op,
        at: ActorAt,
        alt: u32,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        match at {
            // Handled by `step_actor`.
            ActorAt::Ready => Flow::Returned,
            ActorAt::NormalMode => self.flush_normal(g, actor, pc, op, ev),
            ActorAt::CreateMut { segment } => {
                let qi = self.qi(segment).expect("a queue");
                self.get_runner(g, actor, pc, qi, op, ev)
            }
            ActorAt::QueueInit { segment, then } => {
                let qi = self.init_pending_queue(segment, ev);
                match then {
                    AfterInit::Inject { next } => match *op {
                        Op::Inject { inj } => self.inject_from(sc, inj, next, ev),
                        _ => Flow::Returned,
                    },
                    AfterInit::DropDelete => self.drop_delete_lookup(qi, op, ev),
                    AfterInit::Flush => self.get_runner(g, actor, pc, qi, op, ev),
                }
            }
            ActorAt::DropDeleteNormal => {
                // fm:304-305 — the normal path: getFlushQueue(seg).enqueueDelFlush(...).
                match op.flush_target().and_then(|(segment, _)| self.qi(segment)) {
                    Some(qi) => self.get_runner(g, actor, pc, qi, op, ev),
                    None => Flow::Returned,
                }
            }
            ActorAt::RunnerInjectMut { segment, runner } => {
                self.runner_inject_mut(g, segment, runner, ev)
            }
            ActorAt::CloseHandler { segment, then, .. } => {
                self.handler_closed(g, segment, then, ev)
            }
            ActorAt::ChainRunner { segment, runner } => {
                let qi = self.qi(segment).expect("queue");
                self.chain_runner(qi, runner, op, ev);
                Flow::Returned
            }
            ActorAt::Inject { inj, next } => self.inject_from(sc, inj, next, ev),
            ActorAt::DropWait { runner } => self.drop_wait_done(runner, ev),
            ActorAt::DropMutex { pack } => {
                self.drop_handler_mutex();
                self.drop.packs.push(pack);
                ev.push(Ev::DropPackAppended { pack });
                Flow::Returned
            }
            ActorAt::StartDroppingMake => {
                // fm:489-490 — allFlushed = make(chan struct{}); go func() { ... }.
                self.access(0, Site::AllFlushedMake);
                self.drop.all_flushed = AllFlushed::Open;
                let f = self.spawn(Role::Finaliser {
                    at: FinaliserAt::WaitAllFlushed,
                });
                ev.push(Ev::StartDropping { finaliser: f });
                Flow::Returned
            }
            ActorAt::CloseQueues => self.close_visit(g, alt, ev),
            ActorAt::CloseLock { queue } => self.close_queue(g, queue, ev),
        }
    }

    /// fm:510-512 `notifyAllFlushed` — `close(allFlushed)`.
    fn notify_all_flushed(&mut self, g: Gid, ev: &mut Vec<Ev>) -> Flow {
        self.access(0, Site::AllFlushedClose);
        let message = match self.drop.all_flushed {
            AllFlushed::Unset => "close of nil channel (notifyAllFlushed before startDropping)",
            AllFlushed::Closed => "close of closed channel (notifyAllFlushed twice)",
            AllFlushed::Open => {
                self.drop.all_flushed = AllFlushed::Closed;
                self.sync(footprint::obj::ALL_FLUSHED, 0, true);
                if let Some(f) = self.finaliser {
                    self.touch(f);
                }
                ev.push(Ev::NotifyAllFlushed);
                return Flow::Returned;
            }
        };
        self.go_panic(g, message.into(), ev);
        Flow::Halt
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
    ) -> Flow {
        if self.grain.mode_read {
            ev.push(Ev::DroppingLoaded { kind });
            return Flow::At(ActorAt::NormalMode);
        }
        self.flush_normal(g, actor, pc, op, ev)
    }

    /// fm:278 / fm:305 — `getFlushQueue(seg).enqueueInsertFlush/enqueueDelFlush`.
    fn flush_normal(&mut self, g: Gid, actor: u16, pc: u32, op: &Op, ev: &mut Vec<Ev>) -> Flow {
        let Some((segment, _)) = op.flush_target() else {
            return Flow::Returned;
        };
        let Some(qi) = self.get_flush_queue(segment, ev) else {
            return Flow::At(ActorAt::QueueInit {
                segment,
                then: AfterInit::Flush,
            });
        };
        self.get_runner(g, actor, pc, qi, op, ev)
    }

    /// Drop-mode `handleDeleteTask` after `getFlushQueue`: `working.Load(pos)` (fm:286).
    fn drop_delete_lookup(&mut self, qi: usize, op: &Op, ev: &mut Vec<Ev>) -> Flow {
        let Op::FlushDelete { segment, pos, fail } = *op else {
            return Flow::Returned;
        };
        if self.working(qi, pos).is_some() {
            self.sync_pair(footprint::obj::WORKING, (segment, pos.into()), false);
            // fm:287-289 — the insert half is queued: go on in normal mode (the next step).
            ev.push(Ev::DropDeleteStaysNormal { segment, pos });
            return Flow::At(ActorAt::DropDeleteNormal);
        }
        // fm:290-301 — ad-hoc runner, Add(1), runFlushDel, Wait, append.
        self.run_adhoc(segment, pos, HalfKind::Delete, fail, (false, false), ev)
    }

    /// Drop mode's ad-hoc runner: `Add(1)`, the half (`flags` = flushed, dropped of an
    /// insert), and the caller blocked in `Wait()` (B11).
    fn run_adhoc(
        &mut self,
        segment: i64,
        pos: PosId,
        kind: HalfKind,
        fail: u32,
        flags: (bool, bool),
        ev: &mut Vec<Ev>,
    ) -> Flow {
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
        let half = self.spawn(Role::Half {
            runner: r,
            kind,
            fail: fail as u8,
            at: HalfAt::Attempt { n: 1 },
        });
        ev.push(Ev::DropHalfStarted {
            segment,
            pos,
            kind,
            half,
        });
        Flow::At(ActorAt::DropWait { runner: r })
    }

    /// B11 passed: `r.Wait()` returned. fm:271-273 / fm:298-300 — lock the drop
    /// mutex (held by the finaliser from its postInjection pass until flushAndDrop
    /// returns), append `r.getFlushPack()`, unlock.
    fn drop_wait_done(&mut self, runner: RunnerId, ev: &mut Vec<Ev>) -> Flow {
        let ri = self.ri(runner);
        self.runner_ids.remove(ri);
        let r = self.runners.remove(ri).expect("live runner");
        let source = match r.adhoc {
            Some(HalfKind::Delete) => PackSource::DropDelete,
            _ => PackSource::DropInsert,
        };
        let pack = Pack {
            runner: r.id,
            source,
            segment: r.segment,
            pos: r.has_pos.then_some(r.pos),
            flushed: r.flushed,
            dropped: r.dropped,
            err: r.insert_err || r.delete_err,
        };
        if self.drop.locked {
            self.order(footprint::obj::DROP_HANDLER, (0, 0));
            ev.push(Ev::DropMutexWait { pack });
            return Flow::At(ActorAt::DropMutex { pack });
        }
        self.drop_handler_mutex();
        self.drop.packs.push(pack);
        ev.push(Ev::DropPackAppended { pack });
        Flow::Returned
    }

    /// `injectFlush`'s loop at segment index `next` (fm:443-445):
    /// `getFlushQueue(seg).inject(inj)` = `q.injectCh <- inj` (B10 when 100 are
    /// queued). One send per step.
    fn inject_from(&mut self, sc: &Scenario, inj: InjId, next: u32, ev: &mut Vec<Ev>) -> Flow {
        let segs = &sc.injections[inj as usize].segments;
        let segment = segs[next as usize];
        let Some(qi) = self.get_flush_queue(segment, ev) else {
            return Flow::At(ActorAt::QueueInit {
                segment,
                then: AfterInit::Inject { next },
            });
        };
        // A channel keeps its sends in order, and a full one blocks them.
        self.order(footprint::obj::INJECT_CH, (segment, -1));
        if self.queues[qi].inject_ch.len() >= INJECT_CH_CAP {
            ev.push(Ev::InjectChFull { inj, segment });
            return Flow::At(ActorAt::Inject { inj, next });
        }
        // fm:178 `q.injectCh <- inject`.
        self.queues[qi].inject_ch.push_back(inj);
        self.sync_pair(footprint::obj::INJECT_CH, (segment, inj.into()), true);
        self.touch_inject_ch(qi);
        ev.push(Ev::InjectQueued {
            inj,
            segment,
            queued: self.queues[qi].inject_ch.len() as u32,
        });
        if next as usize + 1 < segs.len() {
            return Flow::At(ActorAt::Inject {
                inj,
                next: next + 1,
            });
        }
        Flow::Returned
    }

    /// B7 passed: `injectHandler.close()` returned (fm:221-226); unlock `injectMut`.
    fn handler_closed(&mut self, g: Gid, segment: i64, then: Resume, ev: &mut Vec<Ev>) -> Flow {
        let qi = self.qi(segment).expect("queue of a closing handler");
        self.set_inject_mut(qi, None);
        match then {
            Resume::NewRunner(runner) => {
                // fm:130-132 — injectHandler = nil; injectMut.Unlock().
                self.access(segment, Site::RunnerClearHandler);
                self.queue_mut(qi).handler = None;
                ev.push(Ev::HandlerClosed { segment });
                Flow::At(ActorAt::ChainRunner { segment, runner })
            }
            Resume::Close => {
                ev.push(Ev::HandlerStopped { segment });
                self.close_continue(g)
            }
        }
    }

    /// The manager's `close()`: `dispatcher.Range` visits the next queue in Go's map
    /// order, the scheduler's choice `alt` among those left.
    fn close_visit(&mut self, g: Gid, alt: u32, ev: &mut Vec<Ev>) -> Flow {
        let i = self
            .closing_left
            .iter()
            .position(|c| c.0 == g)
            .expect("a closer");
        let qi = self.closing_left[i].1.remove(alt as usize);
        if self.queues[qi as usize].inject_mut.is_some() {
            let segment = self.queues[qi as usize].segment;
            self.order(footprint::obj::INJECT_MUT, (segment, 0));
            ev.push(Ev::CloseVisits {
                segment,
                blocked: true,
            });
            return Flow::At(ActorAt::CloseLock { queue: qi });
        }
        self.close_queue(g, qi, ev)
    }

    /// The manager's `close()` after a queue: the next one, or done.
    fn close_continue(&mut self, g: Gid) -> Flow {
        let i = self
            .closing_left
            .iter()
            .position(|c| c.0 == g)
            .expect("a closer");
        if self.closing_left[i].1.is_empty() {
            self.closing_left.remove(i);
            return Flow::Returned;
        }
        Flow::At(ActorAt::CloseQueues)
    }

    /// fm:519-523 — `queue.injectMut.Lock()`; `if injectHandler != nil { close() }`
    /// (B7 while its goroutine lives); unlock. The field is not set to nil.
    fn close_queue(&mut self, g: Gid, qi: u32, ev: &mut Vec<Ev>) -> Flow {
        let qi = qi as usize;
        let segment = self.queues[qi].segment;
        self.access(segment, Site::CloseHandler);
        match self.queues[qi].handler {
            None => ev.push(Ev::CloseNoHandler { segment }),
            Some(h) => {
                if self.request_handler_close(qi, h, ev) {
                    self.set_inject_mut(qi, Some(g));
                    return Flow::At(ActorAt::CloseHandler {
                        segment,
                        handler: h.goroutine,
                        then: Resume::Close,
                    });
                }
                ev.push(Ev::HandlerStopped { segment });
            }
        }
        self.close_continue(g)
    }
}
