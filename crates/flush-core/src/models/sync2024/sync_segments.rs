//! SyncSegments: datacoord's tick (`sync_segments_scheduler.go`) and the
//! datanode's handler (`DataNode.SyncSegments`, then the metacache's
//! `UpdateSegmentView`), the race of #34018.

use super::metacache::MetaSeg;
use super::step::Flow;
use super::*;

impl World {
    /// sync_segments_scheduler.go:114-147@ca7ef26e4b (the filter per version) — select
    /// the partition's segments, build the request, `sessions.SyncSegments` (the
    /// handler is the datanode's goroutine; the actor waits for its reply).
    pub(super) fn sync_segments_tick(
        &mut self,
        partition: i64,
        retried: bool,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        let mut selected = Vec::new();
        let mut segments = Vec::new();
        // A range over datacoord's segments of the partition.
        self.order(footprint::key::DC_MEMBERS, 0, 0);
        for k in 0..self.datacoord.len() {
            let (id, p) = (self.datacoord[k].segment, self.datacoord[k].partition);
            if p == partition {
                self.seg(id);
            }
        }
        for d in &self.datacoord {
            if d.partition != partition || !knobs::selected(self.knobs, d) {
                continue;
            }
            selected.push(d.segment);
            if request_includes(self.knobs, d) {
                segments.push(ReqSeg {
                    segment: d.segment,
                    state: d.state,
                    level: d.level,
                    rows: d.rows,
                    statslog: d.statslog,
                });
            }
        }
        let left_out: Vec<i64> = selected
            .iter()
            .copied()
            .filter(|s| {
                segments
                    .binary_search_by_key(s, |r: &ReqSeg| r.segment)
                    .is_err()
            })
            .collect();
        let (segments, selected) = self.share_in_flight(segments, selected);
        let req = SyncRequest {
            partition,
            segments,
        };
        ev.push(Ev::SyncSegmentsRequest {
            partition,
            sent: req.segments.clone(),
            left_out: Few::of(&left_out),
            version: self.version,
        });
        self.send(req, selected, retried, ev)
    }

    /// session_manager.go:227-257@ca7ef26e4b `SessionManagerImpl.SyncSegments(nodeID,
    /// req)`: `retry.Do` calls the datanode with the one `req` the scheduler built
    /// (the closure captures it). A `"retried"` op's first attempt runs under its
    /// deadline (`context.WithTimeout(.., CompactionRPCTimeout)`, :241) and times
    /// out ([`World::attempt_deadline`]); without that deadline (knob
    /// `deadline=none`, as `context.Background()` at
    /// session_manager.go:242@2e434e4453) the mark has no effect, and the run
    /// says so.
    fn send(&mut self, req: SyncRequest, selected: Ids, retried: bool, ev: &mut Vec<Ev>) -> Flow {
        let deadline = self.knobs.deadline == super::Deadline::PerAttempt;
        if retried && !deadline {
            ev.push(Ev::RetryWithoutDeadline {
                version: self.version,
            });
        }
        if retried && deadline {
            let at = HandlerAt::Attempt {
                at: Box::new(HandlerAt::Receive),
                ctx_done: false,
            };
            let handler = self.spawn(Role::Handler {
                req: req.clone(),
                at,
            });
            return Flow::At(ActorAt::SyncSegmentsDeadline {
                handler,
                req,
                selected,
            });
        }
        self.call(req, selected)
    }

    /// `cli.SyncSegments(.., req)`: the datanode's handler goroutine gets the
    /// request, and datacoord waits for its reply.
    fn call(&mut self, req: SyncRequest, selected: Ids) -> Flow {
        let handler = self.spawn(Role::Handler {
            req,
            at: HandlerAt::Receive,
        });
        Flow::At(ActorAt::SyncSegmentsRpc { handler, selected })
    }

    /// session_manager.go:240-250@ca7ef26e4b — the first attempt's deadline
    /// passes: `cli.SyncSegments(ctx, req)` returns DeadlineExceeded (the gRPC
    /// client's own retries stop at the done ctx, grpcclient/client.go:470-538),
    /// a recoverable error, so `retry.Do` sleeps (200 ms, retry.go:69-71,
    /// options.go:25-27) and calls the closure again with the same `req`: a
    /// second handler, waited for as any. The handler of the first attempt, if
    /// it still runs, runs on with its ctx done (services.go:275-347 checks no
    /// ctx; only `LoadStats` reads under it). The sleep is part of this step:
    /// it touches nothing another goroutine sees.
    pub(super) fn attempt_deadline(
        &mut self,
        handler: Gid,
        req: SyncRequest,
        selected: Ids,
        ev: &mut Vec<Ev>,
    ) -> Flow {
        self.order(footprint::key::ATTEMPT_CTX, handler.into(), 0);
        let running = self.goroutine(handler).is_some();
        if running {
            let i = self.gi(handler);
            self.role_mut(i, |r| {
                if let Role::Handler {
                    at: HandlerAt::Attempt { ctx_done, .. },
                    ..
                } = r
                {
                    *ctx_done = true;
                }
            });
        }
        ev.push(Ev::AttemptTimedOut { handler, running });
        self.call(req, selected)
    }

    /// The request's segments and the ids datacoord selected, as lists shared
    /// with the newest request still in flight when they are equal to its: ticks
    /// of many actors between which datacoord's meta did not change send equal
    /// requests, and a run with hundreds of them in flight held a copy each
    /// (500 of 85,000 segments: 0.99 GB; 113 MB shared). Equal lists, so
    /// nothing a step, a fingerprint or a trace shows changes; one comparison
    /// per tick.
    fn share_in_flight(&self, segments: Vec<ReqSeg>, selected: Vec<i64>) -> (Ids<ReqSeg>, Ids) {
        let segments = self.share(segments, |r| match r {
            Role::Handler { req, .. } => Some(&req.segments),
            _ => None,
        });
        let selected = self.share(selected, |r| match r {
            Role::Actor {
                at: ActorAt::SyncSegmentsRpc { selected, .. },
                ..
            } => Some(selected),
            _ => None,
        });
        (segments, selected)
    }

    /// The segments a handler loads the PK stats of, shared with the newest
    /// handler's that loads the same (see [`World::share_in_flight`]).
    fn share_load(&self, load: Vec<i64>) -> Ids {
        self.share(load, |r| match r {
            Role::Handler {
                at: HandlerAt::LoadStats { load },
                ..
            } => Some(load),
            _ => None,
        })
    }

    /// `list`, as the list `of` finds in the newest goroutine's role that
    /// holds one, when the two are equal.
    fn share<T: PartialEq>(&self, list: Vec<T>, of: impl Fn(&Role) -> Option<&Ids<T>>) -> Ids<T> {
        match self.goroutines.iter().rev().find_map(|g| of(&g.role)) {
            Some(held) if **held == *list => held.clone(),
            _ => list.into(),
        }
    }

    /// The datanode's handler from point `at`; `None` once it has returned.
    pub(super) fn step_handler(
        &mut self,
        g: Gid,
        req: &SyncRequest,
        at: HandlerAt,
        ev: &mut Vec<Ev>,
    ) -> Option<HandlerAt> {
        let HandlerAt::Attempt { at, ctx_done } = at else {
            return self.step_handler_at(g, req, at, None, ev);
        };
        // The deadline step writes this handler's ctx: ordered against it.
        self.order(footprint::key::ATTEMPT_CTX, g.into(), 0);
        let at = self.step_handler_at(g, req, *at, Some(ctx_done), ev)?;
        Some(HandlerAt::Attempt {
            at: Box::new(at),
            ctx_done,
        })
    }

    /// The handler from point `at`; `deadline`: it serves an attempt under a
    /// deadline, which has passed (its ctx done) or not.
    fn step_handler_at(
        &mut self,
        g: Gid,
        req: &SyncRequest,
        at: HandlerAt,
        deadline: Option<bool>,
        ev: &mut Vec<Ev>,
    ) -> Option<HandlerAt> {
        match at {
            HandlerAt::Receive => {
                // services.go:275-346@ca7ef26e4b DataNode.SyncSegments.
                ev.push(Ev::DatanodeReceives {
                    partition: req.partition,
                });
                if req.segments.is_empty() {
                    // :291-293 — an empty request returns at once: nothing is removed.
                    ev.push(Ev::SyncSegmentsEmpty {
                        partition: req.partition,
                    });
                    self.finish(g);
                    return None;
                }
                let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
                for &id in &all {
                    self.mc(Site::DetectMissing, id);
                }
                let missing = self.metacache.detect_missing(&all);
                let load = self.segments_to_load(req, &missing, ev);
                if load.is_empty() {
                    self.update_segment_view(req, &[], ev);
                    self.finish(g);
                    return None;
                }
                let load = self.share_load(load);
                ev.push(Ev::LoadingStats { load: load.clone() });
                Some(HandlerAt::LoadStats { load })
            }
            HandlerAt::LoadStats { load } => {
                if !self.load_stats(g, req, &load, deadline == Some(true), ev) {
                    return None;
                }
                if deadline.is_some() {
                    ev.push(Ev::StatsLoaded {
                        partition: req.partition,
                        load: load.clone(),
                    });
                    return Some(HandlerAt::Apply { load });
                }
                self.update_segment_view(req, &load, ev);
                self.finish(g);
                None
            }
            HandlerAt::Apply { load } => {
                // services.go:342-346@ca7ef26e4b — the futures' values, then
                // UpdateSegmentView, with no look at the ctx.
                self.update_segment_view(req, &load, ev);
                self.finish(g);
                None
            }
            HandlerAt::Attempt { at, .. } => self.step_handler_at(g, req, *at, deadline, ev),
        }
    }

    /// The handler's `conc.AwaitAll` on the stats pool: true when every load
    /// succeeded (`UpdateSegmentView` next); else the handler has returned
    /// the error, or the datanode panicked.
    fn load_stats(
        &mut self,
        g: Gid,
        req: &SyncRequest,
        load: &Ids,
        ctx_done: bool,
        ev: &mut Vec<Ev>,
    ) -> bool {
        // services.go:318-335 — each load runs in the stats pool:
        // binlog.DecompressBinLog over []*FieldBinlog{seg.GetPkStatsLog()}.
        if let Some(nil) = load
            .iter()
            .copied()
            .find(|id| req.get(*id).is_some_and(|s| !s.statslog))
        {
            // A nil PkStatsLog: binlog.go:143 dereferences it; the stats pool
            // re-panics (conc/pool.go:74) and its handler logs "Conc pool
            // panicked" and panics again (conc/options.go:54-56): the datanode exits.
            ev.push(Ev::NilStatslog { segment: nil });
            self.go_panic(
                g,
                format!("runtime error: invalid memory address or nil pointer dereference (binlog.DecompressBinLog on the nil PkStatsLog of segment {nil}, in the datanode's stats pool)"),
                ev,
            );
            return false;
        }
        if ctx_done {
            // services.go:326 `util.LoadStats(ctx, ..)` reads the stats
            // with `chunkManager.MultiRead(ctx, ..)` (load_stats.go:76@ca7ef26e4b;
            // the remote chunk manager's getObject takes ctx,
            // remote_chunk_manager.go:226-250): the deadline has passed, so
            // it fails; AwaitAll returns the error (:337-340) and the
            // handler returns it without UpdateSegmentView.
            ev.push(Ev::LoadStatsCtxDone {
                partition: req.partition,
                load: load.clone(),
            });
            self.finish(g);
            return false;
        }
        true
    }

    /// Which missing segments the handler loads and adds (the version's load rule).
    fn segments_to_load(&self, req: &SyncRequest, missing: &[i64], ev: &mut Vec<Ev>) -> Vec<i64> {
        let mut load = Vec::new();
        for &id in missing {
            let Some(s) = req.get(id) else {
                continue;
            };
            let loads = knobs::loads(self.knobs, s.level, s.state);
            // services.go:315-343@2e434e4453: a warning for L0 and Legacy
            // segments, a log line for each one loaded.
            if self.knobs.load == LoadRule::FlushedNotL0 {
                match s.level {
                    Level::L0 | Level::Legacy => ev.push(Ev::MissingSkipped {
                        segment: id,
                        level: s.level,
                    }),
                    Level::L1 if loads => ev.push(Ev::LoadingPks { segment: id }),
                    Level::L1 => {}
                }
            }
            if loads {
                load.push(id);
            }
        }
        load
    }

    /// meta_cache.go:267-304@ca7ef26e4b UpdateSegmentView(partitionID, newSegments, newSegmentsBF, allSegments).
    fn update_segment_view(&mut self, req: &SyncRequest, new_segments: &[i64], ev: &mut Vec<Ev>) {
        self.mc_all(Site::UpdateView);
        for s in req.segments.iter() {
            self.mc(Site::UpdateView, s.segment);
        }
        let new: Vec<MetaSeg> = new_segments
            .iter()
            .filter_map(|id| req.get(*id))
            .map(|info| MetaSeg {
                segment: info.segment,
                partition: req.partition,
                state: info.state,
                level: info.level,
                flushed_rows: info.rows,
                buffer_rows: 0,
                syncing_rows: 0,
                syncing_tasks: 0,
                start_pos_recorded: true,
                history: info.statslog,
            })
            .collect();
        let all: Vec<i64> = req.segments.iter().map(|s| s.segment).collect();
        let (added, absent) =
            self.metacache
                .update_segment_view(self.knobs, req.partition, &new, &all);
        for id in added {
            let state = self
                .metacache
                .get(id)
                .map_or(SegState::Growing, |s| s.state);
            ev.push(Ev::MetacacheAdded { segment: id, state });
        }
        // Go ranges over a map here; the model reports in id order.
        for (s, gone) in absent {
            let (segment, state, level, version) = (s.segment, s.state, s.level, self.version);
            ev.push(if gone {
                Ev::MetacacheRemoved {
                    segment,
                    state,
                    level,
                    version,
                }
            } else {
                Ev::ViewKept {
                    segment,
                    state,
                    level,
                    version,
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Model;

    /// Requests in flight at once share their lists when they are equal, and
    /// only then: three datacoord actors tick with 40 flushed segments and
    /// none changes datacoord's meta in between, then a fourth tick of
    /// another partition sends a list of its own. The trace is what it was
    /// (the lists are equal).
    #[test]
    fn equal_requests_in_flight_share_their_lists() {
        let dc: Vec<String> = (0..40)
            .map(|i| {
                let p = 1 + i % 2;
                format!(r#"{{"segment":{i},"partition":{p},"state":"Flushed","level":"L1","statslog":true,"rows":1}}"#)
            })
            .collect();
        let actor = |n: usize, p: u32| {
            format!(r#"{{"name":"d{n}","ops":[{{"op":"sync_segments","partition":{p}}}]}}"#)
        };
        let actors: Vec<String> = (0..3).map(|n| actor(n, 1)).chain([actor(3, 2)]).collect();
        let text = format!(
            r#"{{"name":"share","model":"sync-2024","version":"b5c9a7364b","seed":1,"datacoord":[{}],"datanode":[],"actors":[{}]}}"#,
            dc.join(","),
            actors.join(",")
        );
        let Ok(crate::AnyScenario::Sync(sc)) = crate::AnyScenario::parse(&text, "share.json")
        else {
            panic!("the scenario parses")
        };
        let mut w = sc.init();
        let mut facts = Vec::new();
        // Each actor's tick, in actor order: the first four steps the
        // actors (goroutines 0 to 3) take.
        for g in 0..4 {
            let c = (0..sc.runnable_len(&w))
                .map(|i| sc.runnable_at(&w, i))
                .find(|&c| {
                    sc.who_name(&sc.step(&mut w.clone(), c, &mut Vec::new()))
                        .contains(&format!("d{g}"))
                })
                .expect("the actor's tick is runnable");
            sc.step(&mut w, c, &mut facts);
        }
        let reqs: Vec<&SyncRequest> = w
            .goroutines
            .iter()
            .filter_map(|g| match &g.role {
                Role::Handler { req, .. } => Some(req),
                _ => None,
            })
            .collect();
        let sels: Vec<&Ids> = w
            .goroutines
            .iter()
            .filter_map(|g| match &g.role {
                Role::Actor {
                    at: ActorAt::SyncSegmentsRpc { selected, .. },
                    ..
                } => Some(selected),
                _ => None,
            })
            .collect();
        assert_eq!((reqs.len(), sels.len()), (4, 4));
        assert_eq!(reqs[0].segments.len(), 20);
        for i in 1..3 {
            assert!(std::sync::Arc::ptr_eq(&reqs[0].segments, &reqs[i].segments));
            assert!(std::sync::Arc::ptr_eq(sels[0], sels[i]));
        }
        assert_ne!(reqs[3].segments, reqs[0].segments);
        assert_ne!(sels[3], sels[0]);
    }
}
