//! `injectHandler` (flush_manager.go at 891c202b73): the goroutine that takes
//! injections while its queue is idle (`handleInjection`), and `close()`.

use super::*;

impl World {
    /// `handleInjection` from point `at`; `None` once it has returned.
    pub(super) fn step_handler(
        &mut self,
        sc: &Scenario,
        g: Gid,
        segment: i64,
        at: HandlerAt,
        alt: u32,
        ev: &mut Vec<Ev>,
    ) -> Option<HandlerAt> {
        let qi = self.qi(segment).expect("handler's queue");
        match at {
            HandlerAt::Select => {
                // The select reads injectCh whichever case it takes.
                self.order(footprint::obj::INJECT_CH, (segment, -1));
                let inj_ready = !self.queues[qi].inject_ch.is_empty();
                // With both cases ready, case 0 takes the injection and case 1 returns.
                if inj_ready && alt == 0 {
                    return Some(self.handler_takes(sc, g, qi, ev));
                }
                // fm:215-216 — <-h.done: return (the deferred wg.Done releases B7).
                self.sync(footprint::obj::HANDLER_DONE, g.into(), false);
                self.sync(footprint::obj::HANDLER_WG, g.into(), true);
                ev.push(Ev::HandlerExited {
                    segment,
                    both_ready: inj_ready,
                });
                self.finish(g);
                // B7's waiter is whoever closed the handler: it holds injectMut
                // across the wait (getFlushTaskRunner, fm:126-131; close(), fm:519-523).
                match self.queues[qi].inject_mut {
                    Some(h) => self.touch(h),
                    None => self.touch_actors(),
                }
                None
            }
            HandlerAt::Handling { inj, done, old } => {
                // fm:209-214 — ok := <-injectOver; if ok { q.postInjection = ... } (no
                // lock); close(injectDone).
                let ok = self.receive_over(inj);
                if ok && sc.what_if.handler_locks_sticky {
                    ev.push(Ev::HandlerLockNext { segment, inj });
                    return Some(HandlerAt::LockSticky { inj, done, old });
                }
                if ok {
                    self.access(segment, Site::HandlerSticky);
                    self.queues[qi].post_inj = Some(inj);
                }
                let closed = old.is_none_or(|o| self.is_closed(o));
                ev.push(Ev::HandlerInjectOver {
                    segment,
                    inj,
                    ok,
                    closed,
                });
                Some(self.handler_done(g, segment, inj, done, old, ev))
            }
            HandlerAt::LockSticky { inj, done, old } => {
                // What-if: injectMut.Lock(); q.postInjection = ...; Unlock(); close(injectDone).
                self.access(segment, Site::HandlerStickyLocked);
                self.queues[qi].post_inj = Some(inj);
                let closed = old.is_none_or(|o| self.is_closed(o));
                ev.push(Ev::HandlerStickyLocked {
                    segment,
                    inj,
                    closed,
                });
                Some(self.handler_done(g, segment, inj, done, old, ev))
            }
            HandlerAt::WaitOldTail { inj, done, .. } => {
                // What-if: `<-oldTail` returned; close(injectDone).
                self.close_signal(done);
                ev.push(Ev::HandlerOldTailPassed { segment, inj });
                Some(HandlerAt::Select)
            }
        }
    }

    /// fm:214 `close(injectDone)`; under what-if `handler_chains_tail`, first
    /// `<-oldTail` (a step of its own while the old tail is open).
    fn handler_done(
        &mut self,
        g: Gid,
        segment: i64,
        inj: InjId,
        done: SigId,
        old: Option<SigId>,
        ev: &mut Vec<Ev>,
    ) -> HandlerAt {
        match old {
            Some(old) if !self.is_closed(old) => {
                self.wait_signal(old, g);
                ev.push(Ev::HandlerWaitsOldTail { segment, inj });
                HandlerAt::WaitOldTail { inj, done, old }
            }
            _ => {
                if let Some(old) = old {
                    // The receive from the closed old tail returns at once.
                    self.sync(footprint::obj::CHAN, old.into(), false);
                }
                self.close_signal(done);
                HandlerAt::Select
            }
        }
    }

    /// fm:202-208 — under tailMut: `tailCh = injectDone` (the old tail is not
    /// chained); `injectOne()`; then `<-injectOver` (B6).
    fn handler_takes(&mut self, sc: &Scenario, g: Gid, qi: usize, ev: &mut Vec<Ev>) -> HandlerAt {
        let segment = self.queues[qi].segment;
        let inj = self.queues[qi].inject_ch.pop_front().expect("ready");
        // fm:202 `case inject := <-q.injectCh`.
        self.sync_pair(footprint::obj::INJECT_CH, (segment, inj.into()), false);
        self.order(footprint::obj::INJECT_CH, (segment, -1));
        self.touch_inject_ch(qi);
        let done = self.new_signal(true);
        // What-if `handler_chains_tail`: keep the tail it replaces, to wait for it.
        let old = if sc.what_if.handler_chains_tail {
            self.access(segment, Site::HandlerReadTail);
            self.queues[qi].tail.map(|t| t.id)
        } else {
            None
        };
        self.access(segment, Site::HandlerTail);
        self.queue_mut(qi).tail = Some(SignalRef {
            id: done,
            origin: SigOrigin::InjectDone { handler: g },
        });
        self.take_injection(inj, segment, ev);
        let keeps_old = old.is_some();
        ev.push(Ev::HandlerTookInjection {
            segment,
            inj,
            keeps_old,
        });
        HandlerAt::Handling { inj, done, old }
    }

    /// fm:221-226 `injectHandler.close()`: `once.Do(close(done); wg.Wait())`.
    /// Returns true when the caller blocks in B7 (the handler goroutine still lives).
    pub(super) fn request_handler_close(
        &mut self,
        qi: usize,
        h: Handler,
        ev: &mut Vec<Ev>,
    ) -> bool {
        let segment = self.queues[qi].segment;
        if !h.done {
            // fm:223 `close(h.done)`.
            self.sync(footprint::obj::HANDLER_DONE, h.goroutine.into(), true);
            self.queue_mut(qi).handler = Some(Handler { done: true, ..h });
            self.touch(h.goroutine);
            ev.push(Ev::HandlerCloseRequested {
                segment,
                handler: h.goroutine,
            });
        }
        let live = self.goroutine(h.goroutine).is_some();
        if live {
            self.order(footprint::obj::HANDLER_WG, (h.goroutine.into(), 0));
        } else {
            // fm:224 `h.wg.Wait()` returns at once: the handler has returned.
            self.sync(footprint::obj::HANDLER_WG, h.goroutine.into(), false);
        }
        live
    }
}
