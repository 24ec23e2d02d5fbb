//! `flushTaskRunner` (flush_task.go at 891c202b73): the halves
//! (`runFlushInsert`/`runFlushDel` around `retry.Do`), `waitFinish`, and the
//! notify it ends with (`flushNotifyFunc`, flush_manager.go).

use super::setup::{Op, RETRY_ATTEMPTS};
use super::*;

impl World {
    /// `runFlushInsert` / `runFlushDel` (ft:123-169), each guarded by its `sync.Once`.
    pub(super) fn run_half(&mut self, r: RunnerId, op: &Op, ev: &mut Vec<Ev>) {
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
                    // ft:126 `insertOnce.Do` returns: the first call's function is done.
                    self.sync(footprint::obj::INSERT_ONCE, r.into(), false);
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
                self.sync(footprint::obj::INSERT_ONCE, r.into(), true);
                (HalfKind::Insert, fail)
            }
            Op::FlushDelete { fail, .. } => {
                if self.runners[ri].delete_set {
                    self.sync(footprint::obj::DELETE_ONCE, r.into(), false);
                    ev.push(Ev::HalfIgnored {
                        segment,
                        pos,
                        kind: HalfKind::Delete,
                    });
                    return;
                }
                self.runners[ri].delete_set = true;
                self.sync(footprint::obj::DELETE_ONCE, r.into(), true);
                (HalfKind::Delete, fail)
            }
            // Only flush ops reach a runner.
            _ => return,
        };
        let h = self.spawn(Role::Half {
            runner: r,
            kind,
            fail: fail as u8,
            at: HalfAt::Attempt { n: 1 },
        });
        ev.push(Ev::HalfStarted {
            segment,
            pos,
            kind,
            half: h,
        });
    }

    /// A half's goroutine: `retry.Do(flush)`, failing its first `fail` attempts
    /// (ft:123-169). On success, or after the last sleep, `Done()`.
    pub(super) fn step_half(
        &mut self,
        g: Gid,
        r: RunnerId,
        kind: HalfKind,
        fail: u8,
        at: HalfAt,
        ev: &mut Vec<Ev>,
    ) -> Option<HalfAt> {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        let n = match at {
            HalfAt::Attempt { n } => n,
            HalfAt::RetrySleep { n } if u32::from(n) < RETRY_ATTEMPTS => n + 1,
            HalfAt::RetrySleep { .. } => {
                // retry.Do returned the error after its last sleep: set insertErr/deleteErr, Done().
                let run = &mut self.runners[ri];
                match kind {
                    HalfKind::Insert => run.insert_err = true,
                    HalfKind::Delete => run.delete_err = true,
                }
                run.wg -= 1;
                self.sync(footprint::obj::RUNNER_WG, r.into(), true);
                self.touch_runner_wg(ri);
                ev.push(Ev::HalfGaveUp { segment, pos, kind });
                self.finish(g);
                return None;
            }
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
            return Some(HalfAt::RetrySleep { n });
        }
        self.runners[ri].wg -= 1;
        self.sync(footprint::obj::RUNNER_WG, r.into(), true);
        self.touch_runner_wg(ri);
        ev.push(Ev::HalfDone {
            segment,
            pos,
            kind,
            n,
        });
        self.finish(g);
        None
    }

    /// `waitFinish` (ft:172-198) from point `at`; `None` once it has returned (or
    /// the process panicked).
    pub(super) fn step_runner(
        &mut self,
        sc: &Scenario,
        g: Gid,
        r: RunnerId,
        at: RunnerAt,
        ev: &mut Vec<Ev>,
    ) -> Option<RunnerAt> {
        let ri = self.ri(r);
        let (segment, pos) = (self.runners[ri].segment, self.runners[ri].pos);
        let qi = self.qi(segment).expect("runner's queue");
        Some(match at {
            RunnerAt::WaitHalves => {
                // ft:174 — t.Wait() returned.
                ev.push(Ev::RunnerHalvesDone { segment, pos });
                RunnerAt::WaitStart
            }
            RunnerAt::WaitStart => self.runner_started(ri, qi, ev),
            RunnerAt::WaitInjectOver { inj } => {
                // ft:184-188 — ok := <-injection.injectOver.
                let ok = self.receive_over(inj);
                ev.push(Ev::RunnerInjectOver {
                    segment,
                    pos,
                    inj,
                    ok,
                });
                self.post_task_begin(segment, pos, ok.then_some(inj), ev)
            }
            RunnerAt::PostTaskDelete { post } => {
                self.working_delete(segment, pos, ev);
                RunnerAt::PostTaskLock { post }
            }
            RunnerAt::PostTaskLock { post } => self.post_task_locked(sc, g, ri, post, ev),
            RunnerAt::PostTaskSticky { post } => {
                // fm:154-156 — q.postInjection = postInjection (a handler may write it too).
                self.access(segment, Site::PostSetSticky);
                self.queues[qi].post_inj = Some(post);
                ev.push(Ev::StickySet { segment, inj: post });
                RunnerAt::PostTaskApply
            }
            RunnerAt::PostTaskApply => {
                // fm:158-161 — if q.postInjection != nil { q.postInjection(pack) }; unlock.
                let (sticky, remapped) = self.apply_sticky(sc, qi, ri);
                self.set_inject_mut(qi, None);
                ev.push(Ev::PostInjectionApplied {
                    segment,
                    pos,
                    sticky,
                    remapped,
                });
                RunnerAt::SaveBinlogPaths { n: 1 }
            }
            RunnerAt::SaveBinlogPaths { n } => return self.save_binlog_paths(g, ri, n, ev),
        })
    }

    /// ft:176-190 — `<-t.startSignal` passed; `pack := t.getFlushPack()`; then a
    /// non-blocking poll of `injectSignal` (the queue's injectCh).
    fn runner_started(&mut self, ri: usize, qi: usize, ev: &mut Vec<Ev>) -> RunnerAt {
        let run = &self.runners[ri];
        let (segment, pos) = (run.segment, run.pos);
        let pack = Pack {
            runner: run.id,
            source: PackSource::Runner,
            segment,
            pos: run.has_pos.then_some(pos),
            flushed: run.flushed,
            dropped: run.dropped,
            err: run.insert_err || run.delete_err,
        };
        self.runners[ri].pack = Some(pack);
        // The poll reads the channel whether or not it finds an injection.
        self.order(footprint::obj::INJECT_CH, (segment, -1));
        if let Some(inj) = self.queues[qi].inject_ch.pop_front() {
            // ft:181 `case injection := <-t.injectSignal`.
            self.sync_pair(footprint::obj::INJECT_CH, (segment, inj.into()), false);
            self.touch_inject_ch(qi);
            self.take_injection(inj, segment, ev);
            ev.push(Ev::RunnerTookInjection {
                segment,
                pos,
                inj,
                err: pack.err,
            });
            return RunnerAt::WaitInjectOver { inj };
        }
        ev.push(Ev::RunnerStarted {
            segment,
            pos,
            err: pack.err,
        });
        self.post_task_begin(segment, pos, None, ev)
    }

    /// ft:194 `notifyFunc(pack)` = fm:674-756 `flushNotifyFunc`, then ft:197
    /// `close(t.finishSignal)`. Attempt 1 also builds the request (panicking first if
    /// the pack carries an error); each failed attempt is retried in a later step.
    fn save_binlog_paths(
        &mut self,
        g: Gid,
        ri: usize,
        n: u8,
        ev: &mut Vec<Ev>,
    ) -> Option<RunnerAt> {
        let pack = self.runners[ri].pack.expect("pack");
        if n == 1 {
            if pack.err {
                // fm:676-680.
                ev.push(Ev::NotifyPackError { pack });
                let message =
                    "execution failed (flushNotifyFunc: flush pack with error, DataNode quit now)";
                self.go_panic(g, message.into(), ev);
                return None;
            }
            // fm:701 — the request carries the start positions of every new segment.
            // Go lists them (and moves them to normal) at :701, before :703 logs
            // "SaveBinlogPath"; the call's fact comes first here because a step is
            // labelled by its first fact, and this step is flushNotifyFunc.
            ev.push(Ev::SaveBinlogPathsCall { pack });
            self.list_new_segments_start_positions(ev);
        }
        if u32::from(n) > RETRY_ATTEMPTS {
            // retry.go:42-57 returns the errors after the sleep that follows the last
            // attempt; fm:745-748 then panics.
            let message = "failed to SaveBinlogPaths after retries (flushNotifyFunc panics)";
            self.go_panic(g, message.into(), ev);
            return None;
        }
        if self.save_binlog_faults > 0 {
            self.save_binlog_faults -= 1;
            ev.push(Ev::RpcFailed {
                rpc: Rpc::SaveBinlogPaths,
                n,
                sleep_ms: retry_sleep_ms(n),
            });
            return Some(RunnerAt::SaveBinlogPaths { n: n + 1 });
        }
        self.notified(ri, pack, ev);
        self.finish(g);
        None
    }

    /// SaveBinlogPaths succeeded: the checkpoint, `segmentFlushed` when flushed or
    /// dropped, then `close(finishSignal)`; the runner leaves the world.
    fn notified(&mut self, ri: usize, pack: Pack, ev: &mut Vec<Ev>) {
        if let Some(s) = self.replica_mut(pack.segment) {
            s.checkpoint = pack.pos;
        }
        self.notified += 1;
        self.sync(footprint::obj::NOTIFIED, self.notified.into(), true);
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
    }

    /// The ordering Go guarantees, checked when runner `ri` notifies:
    /// * self-check: the runner whose finishSignal it started on has notified (B2);
    /// * `inject-done-splice`: no runner chained before it in its queue is still
    ///   waiting (only an inject handler's `injectDone`, which replaces the tail
    ///   without chaining the old one, fm:203-206, lets a later runner overtake);
    /// * `fifo-per-enqueuer`: every position an actor flushed before this one (normal
    ///   mode, same queue), in a call that returned before this one was stored,
    ///   has notified, unless the splice above explains it. Go orders notifies by
    ///   the tail chain only (fm:134-136): an actor that reaches runners another
    ///   goroutine stored before or while its earlier call ran (a delete node
    ///   flushing b, then a, both created by the insert node) can expect no
    ///   other order.
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
            // The actor's call that reached `other` returned before `run` was
            // stored (its later call on `run` found it, or stored it). Had `run`
            // been stored before, by another goroutine, the two creations
            // overlapped that call, and nothing let the actor expect `other`
            // first (found by a helper reading the Go code: a runner stored
            // while the actor's call on `other` was still under way was
            // reported).
            for &(actor, i, _) in &run.feeders {
                if other
                    .feeders
                    .iter()
                    .any(|&(a, j, then)| a == actor && j < i && run.seq >= then)
                {
                    found.push(Violation::FifoPerEnqueuer {
                        segment,
                        actor,
                        pos,
                        earlier: other.pos,
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
}
