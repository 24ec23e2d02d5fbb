//! The toy as front ends show it: a lane of actors (who holds the mutex, who
//! waits, who is mid-increment), the shared counter, a plot of it.

use serde::Serialize;

use super::world::{At, World};
use super::{Op, Scenario};
use crate::engine::Run;
use crate::explore::Observe;
use std::rc::Rc;

use crate::view::*;

/// What `--json` adds: the counter at the end and what it should be.
#[derive(Serialize)]
pub struct Summary {
    pub counter: i64,
    pub expected: i64,
}

impl Present for Scenario {
    type Summary = Summary;

    fn summary(&self, run: &Run<Scenario>) -> Summary {
        Summary {
            counter: run.head().counter,
            expected: self.start + self.increments(),
        }
    }

    fn stage(&self, run: &Run<Scenario>, _figures: &Figures) -> Stage {
        let w = run.world();
        Stage {
            class: "stage-toy",
            empty: None,
            more_lanes: None,
            lanes: vec![Rc::new(actors_lane(self, w))],
            rows: vec![vec![Rc::new(shared_panel(self, w))]],
        }
    }

    fn figures(&self, run: &Run<Scenario>) -> Figures {
        Figures {
            len: run.len(),
            plots: sample(run, &["The shared counter"], |w, out| {
                out.push((0, "counter".into(), w.counter as f64));
            }),
            stream: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn about(&self) -> String {
        "Model: mutex-handoff, a toy (Go's sync.Mutex and a shared counter) that shows how a model plugs into FlushScope.".to_owned()
    }

    fn legend(&self) -> &'static str {
        "One card per actor: where it stands, and whether it holds the mutex. The table shows the shared counter and what the increments should make it."
    }
}

/// What the toy's outside observer sees: how the run ended.
impl Observe for Scenario {}

fn actors_lane(sc: &Scenario, w: &World) -> Lane {
    let cards = w
        .goroutines
        .iter()
        .map(|g| {
            let holds = w.holder == Some(g.actor);
            let doing = match (g.at, sc.actors[g.actor as usize].ops.get(g.pc as usize)) {
                (At::Read { read }, _) => format!("read {read}; writes {} next", read + 1),
                (At::Ready, Some(Op::Lock)) if w.holder.is_some() && !holds => {
                    "waits for the mutex".to_owned()
                }
                (At::Ready, Some(op)) => format!("next: {}", op.name()),
                (At::Ready, None) => "done".to_owned(),
            };
            Card {
                key: format!("actor-{}", g.actor),
                class: if holds {
                    "task".into()
                } else {
                    "buffer".into()
                },
                data: vec![("data-actor", sc.actors[g.actor as usize].name.clone())],
                title: format!("g{} {}", g.actor, sc.actors[g.actor as usize].name),
                lines: vec![
                    Line::plain(doing),
                    if holds {
                        Line::with("seglink ok", "holds the mutex")
                    } else {
                        Line::with("muted", "does not hold the mutex")
                    },
                ],
            }
        })
        .collect();
    Lane {
        key: "actors".to_owned(),
        title: "Actors".to_owned(),
        data: vec![("data-lane", "actors".to_owned())],
        badges: vec![Badge::new(
            "mutex held by",
            w.holder
                .map_or("nobody".to_owned(), |a| sc.actors[a as usize].name.clone()),
            "holder",
        )],
        body: LaneBody::Cards {
            cards,
            empty: "every actor has returned".to_owned(),
        },
    }
}

fn shared_panel(sc: &Scenario, w: &World) -> Panel {
    let columns = ["counter", "start + increments"]
        .iter()
        .map(|c| ((*c).to_owned(), None))
        .collect();
    let rows = vec![Row {
        key: "counter".to_owned(),
        class: "",
        data: Vec::new(),
        cells: vec![
            Cell::Text(w.counter.to_string()),
            Cell::Text((sc.start + sc.increments()).to_string()),
        ],
    }];
    Panel {
        id: "shared",
        class: "shared".into(),
        title: "Shared memory".to_owned(),
        blocks: vec![Block::Table(Table {
            columns,
            rows,
            fold: None,
        })],
    }
}
