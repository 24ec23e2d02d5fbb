//! Drop mode (flush_manager.go at 891c202b73): the goroutine `startDropping`
//! spawns (the finaliser), `waitForAllFlushQueue`'s per-queue tail waiters, the
//! postInjection pass over the collected packs, and `flushAndDrop` =
//! `dropVirtualChannelFunc`.

use super::setup::RETRY_ATTEMPTS;
use super::*;

impl World {
    /// The finaliser from point `at`; `None` once it has returned.
    pub(super) fn step_finaliser(
        &mut self,
        sc: &Scenario,
        g: Gid,
        at: FinaliserAt,
        ev: &mut Vec<Ev>,
    ) -> Option<FinaliserAt> {
        Some(match at {
            FinaliserAt::WaitAllFlushed => {
                // fm:491-492 then fm:472-483 waitForAllFlushQueue: dispatcher.Range
                // starts one goroutine per stored queue; each reads its tailCh when it runs.
                let segments: Vec<i64> = self.queues.iter().map(|q| q.segment).collect();
                // fm:474 `dispatcher.Range` sees each queue's store.
                for &s in &segments {
                    self.sync(footprint::obj::DISPATCHER, s, false);
                }
                // The range also sees which segments have no queue yet: a flush
                // that stores one (queue.rs) is ordered against it (found by a
                // random scenario: in one order the new queue's waiter blocks on
                // a nil tailCh for good, in the other no waiter starts).
                self.order(footprint::obj::NEXT_QUEUE, (0, 0));
                for &segment in &segments {
                    self.spawn(Role::TailWaiter {
                        segment,
                        at: TailAt::ReadTail,
                    });
                }
                self.drop.tail_waiters = segments.len() as u32;
                ev.push(Ev::FinaliserAllFlushed {
                    queues: segments.len() as u32,
                });
                FinaliserAt::WaitTailWaiters
            }
            FinaliserAt::WaitTailWaiters => {
                // fm:483 wg.Wait() returned; fm:493 dropFlushWg.Wait() (never Add-ed);
                // fm:494-495 dropHandler.Lock(), held until flushAndDrop returns.
                self.drop.locked = true;
                let packs = self.drop.packs.len() as u32;
                ev.push(Ev::FinaliserLocked { packs });
                if packs == 0 {
                    FinaliserAt::DropVirtualChannel { n: 1 }
                } else {
                    FinaliserAt::Pack { next: 0 }
                }
            }
            FinaliserAt::Pack { next } => self.finaliser_pack(sc, next, ev),
            FinaliserAt::QueueInit { segment, next } => {
                self.init_pending_queue(segment, ev);
                FinaliserAt::Pack { next }
            }
            FinaliserAt::DropVirtualChannel { n } => return self.drop_virtual_channel(g, n, ev),
        })
    }

    /// fm:497-505 — for pack `next`: `q := getFlushQueue(pack.segmentID)`; under
    /// `q.injectMut`, `if q.postInjection != nil { q.postInjection(pack) }`. One pack
    /// per step: a handler may set `postInjection` (unlocked) between two packs.
    fn finaliser_pack(&mut self, sc: &Scenario, next: u32, ev: &mut Vec<Ev>) -> FinaliserAt {
        let from = self.drop.packs[next as usize].segment;
        let Some(qi) = self.get_flush_queue(from, ev) else {
            return FinaliserAt::QueueInit {
                segment: from,
                next,
            };
        };
        self.access(from, Site::FinaliserSticky);
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
        if next as usize == self.drop.packs.len() {
            FinaliserAt::DropVirtualChannel { n: 1 }
        } else {
            FinaliserAt::Pack { next }
        }
    }

    /// fm:506 `flushAndDrop(packs)` = fm:579-672 `dropVirtualChannelFunc`: build the
    /// request (with new segments' start positions), `DropVirtualChannel` with
    /// retries, then `segmentFlushed` for every segment of `segmentPack`; the
    /// deferred unlock of the drop mutex runs when the finaliser returns.
    fn drop_virtual_channel(&mut self, g: Gid, n: u8, ev: &mut Vec<Ev>) -> Option<FinaliserAt> {
        if n == 1 {
            self.flush_and_drop(ev);
        }
        if u32::from(n) > RETRY_ATTEMPTS {
            // retry.go:42-57, after the sleep that follows the last attempt; fm:663-666.
            let message =
                "failed to DropVirtualChannel after retries (dropVirtualChannelFunc panics)";
            self.go_panic(g, message.into(), ev);
            return None;
        }
        if self.drop_channel_faults > 0 {
            self.drop_channel_faults -= 1;
            ev.push(Ev::RpcFailed {
                rpc: Rpc::DropVirtualChannel,
                n,
                sleep_ms: retry_sleep_ms(n),
            });
            return Some(FinaliserAt::DropVirtualChannel { n: n + 1 });
        }
        // fm:667-670 — segmentFlushed for every key of segmentPack: the packs'
        // segments and the new segments whose start positions it added.
        let mut segs: Vec<i64> = self
            .drop
            .flush_and_drop
            .iter()
            .flatten()
            .map(|p| p.segment)
            .chain(self.drop.start_positions.iter().copied())
            .collect();
        crate::order::sort_dedup(&mut segs);
        ev.push(Ev::FlushAndDropDone);
        for s in segs {
            self.segment_flushed(s, ev);
        }
        // fm:495 the deferred `dropHandler.Unlock()`.
        self.drop.locked = false;
        self.sync(footprint::obj::DROP_HANDLER, 0, true);
        self.touch_actors();
        self.finish(g);
        None
    }

    /// `flushAndDrop(packs)` is called: the checks on when, then the request.
    fn flush_and_drop(&mut self, ev: &mut Vec<Ev>) {
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

    /// A tail waiter of `waitForAllFlushQueue` from point `at`; `None` once done.
    pub(super) fn step_tail_waiter(
        &mut self,
        g: Gid,
        segment: i64,
        at: TailAt,
        locked: bool,
        ev: &mut Vec<Ev>,
    ) -> Option<TailAt> {
        match at {
            TailAt::ReadTail => {
                // fm:478 — <-queue.tailCh, reading the field now (without tailMut).
                let qi = self.qi(segment).expect("a ranged queue");
                let site = if locked {
                    Site::WaiterTailLocked
                } else {
                    Site::WaiterTail
                };
                self.access(segment, site);
                let chained = self.queues[qi].next_chain;
                // Kept by segment, each after any read before it of that segment
                // (only `find` by segment reads it): the waiters of two queues read
                // in either order give one world, as in Go, not two.
                let tails = &mut self.drop.tails_read;
                let at = tails.partition_point(|t| t.0 <= segment);
                tails.insert(at, (segment, chained));
                match self.queues[qi].tail {
                    None => {
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Nil,
                        });
                        Some(TailAt::WaitTail { sig: None })
                    }
                    Some(t) if self.is_closed(t.id) => {
                        // The receive from a closed channel returns at once.
                        self.sync(footprint::obj::CHAN, t.id.into(), false);
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Closed(t.origin),
                        });
                        self.tail_waiter_done(g);
                        None
                    }
                    Some(t) => {
                        ev.push(Ev::TailRead {
                            segment,
                            tail: TailSeen::Open(t.origin),
                        });
                        self.wait_signal(t.id, g);
                        Some(TailAt::WaitTail { sig: Some(t.id) })
                    }
                }
            }
            TailAt::WaitTail { .. } => {
                ev.push(Ev::TailClosed { segment });
                self.tail_waiter_done(g);
                None
            }
        }
    }

    /// fm:479 — `wg.Done()`; the finaliser's `wg.Wait()` may return.
    fn tail_waiter_done(&mut self, g: Gid) {
        self.sync(footprint::obj::TAIL_WAITERS_WG, 0, true);
        self.drop.tail_waiters -= 1;
        if self.drop.tail_waiters == 0 {
            if let Some(f) = self.finaliser {
                self.touch(f);
            }
        }
        self.finish(g);
    }
}
