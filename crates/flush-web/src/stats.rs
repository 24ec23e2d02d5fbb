//! Figures of a whole run, computed once per run by replaying it: the series the
//! plots draw and the notify stream (with the step each pack was notified at).

use flush_core::flush2021::{self, Ev};
use flush_core::report::PackJson;
use flush_core::AnyRun;

/// One plotted series: a name and (step, value) points, at most `MAX_POINTS`.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(u32, f64)>,
}

pub const MAX_POINTS: usize = 400;

#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// The plots, drawn: (title, SVG document).
    pub svgs: Vec<(String, String)>,
    /// Steps of the run these figures describe.
    pub len: u32,
    /// Plots: (title, series).
    pub plots: Vec<(String, Vec<Series>)>,
    /// Packs notified, with their step (flush-2021).
    pub notified: Vec<(u32, PackJson)>,
    /// Injection waits: (injection, segment, steps from injectOne to the injectOver answer).
    pub waits: Vec<(String, i64, u32)>,
}

impl Stats {
    fn with_svgs(mut self) -> Stats {
        self.svgs = self
            .plots
            .iter()
            .map(|(t, s)| (t.clone(), crate::plots::svg(s, self.len)))
            .collect();
        self
    }

    pub fn of(run: &AnyRun) -> Stats {
        let len = run.len();
        let every = (len as usize / MAX_POINTS).max(1) as u32;
        let keep = |step: u32| step % every == 0 || step == len;
        match run {
            AnyRun::Flush(r) => {
                let sc = r.scenario();
                let mut queues: Vec<i64> = Vec::new();
                let mut running: Vec<Series> = Vec::new();
                let mut notified = Series {
                    name: "packs notified".into(),
                    points: Vec::new(),
                };
                let mut held = Series {
                    name: "injections held (waiting on injectOver)".into(),
                    points: Vec::new(),
                };
                r.for_each_world(|step, w| {
                    for q in &w.queues {
                        if !queues.contains(&q.segment) && queues.len() < 6 {
                            queues.push(q.segment);
                            running.push(Series {
                                name: format!("queue {}", q.segment),
                                points: vec![(0, 0.0)],
                            });
                        }
                    }
                    if !keep(step) {
                        return;
                    }
                    for (i, seg) in queues.iter().enumerate() {
                        let n = w.queue(*seg).map_or(0, |q| q.running);
                        running[i].points.push((step, f64::from(n)));
                    }
                    notified.points.push((step, f64::from(w.notified)));
                    let h = w
                        .goroutines
                        .iter()
                        .filter(|g| {
                            matches!(
                                g.at,
                                flush2021::At::WaitInjectOver { .. }
                                    | flush2021::At::Handling { .. }
                            )
                        })
                        .count();
                    held.points.push((step, h as f64));
                });
                let mut packs = Vec::new();
                let mut taken: Vec<(u16, i64, u32)> = Vec::new();
                let mut waits = Vec::new();
                for rec in r.records() {
                    for e in r.events_of(rec) {
                        match e {
                            Ev::Notified { pack, .. } => {
                                packs.push((rec.step, PackJson::from_pack(sc, pack)))
                            }
                            Ev::RunnerTookInjection { segment, inj, .. }
                            | Ev::HandlerTookInjection { segment, inj } => {
                                taken.push((*inj, *segment, rec.step))
                            }
                            Ev::RunnerInjectOver { segment, inj, .. }
                            | Ev::HandlerInjectOver { segment, inj, .. } => {
                                if let Some(i) =
                                    taken.iter().position(|t| t.0 == *inj && t.1 == *segment)
                                {
                                    let t = taken.remove(i);
                                    waits.push((sc.inj_name(t.0).to_owned(), t.1, rec.step - t.2));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Stats::with_svgs(Stats {
                    svgs: Vec::new(),
                    len,
                    plots: vec![
                        ("Tasks running per queue".into(), running),
                        ("Packs notified (SaveBinlogPaths)".into(), vec![notified]),
                        ("Injection wait".into(), vec![held]),
                    ],
                    notified: packs,
                    waits,
                })
            }
            AnyRun::Sync(r) => {
                let mut cached = Series {
                    name: "segments in the metacache".into(),
                    points: Vec::new(),
                };
                let mut tasks = Series {
                    name: "sync tasks in flight".into(),
                    points: Vec::new(),
                };
                let mut buffered = Series {
                    name: "rows in the write buffer".into(),
                    points: Vec::new(),
                };
                r.for_each_world(|step, w| {
                    if !keep(step) {
                        return;
                    }
                    cached
                        .points
                        .push((step, w.metacache.segments().len() as f64));
                    let t = w
                        .goroutines
                        .iter()
                        .filter(|g| matches!(g.role, flush_core::sync2024::Role::Task(_)))
                        .count();
                    tasks.points.push((step, t as f64));
                    buffered
                        .points
                        .push((step, w.buffers.iter().map(|b| b.rows).sum::<i64>() as f64));
                });
                Stats::with_svgs(Stats {
                    svgs: Vec::new(),
                    len,
                    plots: vec![
                        ("Metacache and sync tasks".into(), vec![cached, tasks]),
                        ("Write buffer".into(), vec![buffered]),
                    ],
                    notified: Vec::new(),
                    waits: Vec::new(),
                })
            }
        }
    }
}
