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
    pub(super) fn sync_segments_tick(&mut self, partition: i64, ev: &mut Vec<Ev>) -> Flow {
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
        let req = SyncRequest {
            partition,
            segments: segments.into(),
        };
        ev.push(Ev::SyncSegmentsRequest {
            partition,
            sent: req.segments.iter().map(|s| s.segment).collect(),
            left_out,
            version: self.version,
        });
        let h = self.spawn(Role::Handler {
            req,
            at: HandlerAt::Receive,
        });
        Flow::At(ActorAt::SyncSegmentsRpc {
            handler: h,
            selected: selected.into(),
        })
    }

    /// The datanode's handler from point `at`; `None` once it has returned.
    pub(super) fn step_handler(
        &mut self,
        g: Gid,
        req: &SyncRequest,
        at: HandlerAt,
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
                ev.push(Ev::LoadingStats { load: load.clone() });
                Some(HandlerAt::LoadStats { load: load.into() })
            }
            HandlerAt::LoadStats { load } => {
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
                    return None;
                }
                self.update_segment_view(req, &load, ev);
                self.finish(g);
                None
            }
        }
    }

    /// Which missing segments the handler loads and adds (the version's load rule).
    fn segments_to_load(&self, req: &SyncRequest, missing: &[i64], ev: &mut Vec<Ev>) -> Vec<i64> {
        let mut load = Vec::new();
        for &id in missing {
            let Some(s) = req.get(id) else {
                continue;
            };
            match self.knobs.load {
                LoadRule::EveryMissing => load.push(id),
                // services.go:315-343@2e434e4453.
                LoadRule::FlushedNotL0 => match s.level {
                    Level::L0 | Level::Legacy => ev.push(Ev::MissingSkipped {
                        segment: id,
                        level: s.level,
                    }),
                    Level::L1 if s.state == SegState::Flushed => {
                        ev.push(Ev::LoadingPks { segment: id });
                        load.push(id);
                    }
                    Level::L1 => {}
                },
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
