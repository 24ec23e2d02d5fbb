//! The sync-2024 model as front ends show it: the JSON summary, the stage (write
//! buffer, sync tasks, SyncSegments, the metacache and datacoord's meta) and the
//! figures. Reads the world and the facts; the model never calls in here.

use serde::Serialize;

use super::*;
use crate::engine::Run;
use crate::explore::Observe;
use std::rc::Rc;

use crate::view::*;

/// `notified`, `drop_packs`, `metacache` and `datacoord` of the `--json` report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// DESIGN.md's report names these two for every run; sync-2024 has no flush
    /// packs, so they are `[]` and `null`.
    pub notified: [(); 0],
    pub drop_packs: Option<()>,
    /// The metacache at the end.
    pub metacache: Vec<DnSegment>,
    /// Datacoord's segments at the end.
    pub datacoord: Vec<DcSegment>,
}

impl Present for Scenario {
    type Summary = Summary;

    fn stage(&self, run: &Run<Scenario>, _figures: &Figures) -> Stage {
        let w = run.world();
        let cursor = run.cursor();
        let before = (cursor > 0).then(|| run.world_at(cursor - 1));
        // Every segment the step took out of the metacache: SyncSegments's
        // removals, and a dropped segment's when its drop sync task finishes
        // (task.rs), which logs no removal of its own.
        let removed: Vec<i64> = before.as_ref().map_or(Vec::new(), |b| {
            b.metacache
                .segments()
                .iter()
                .map(|s| s.segment)
                .filter(|&id| w.metacache.get(id).is_none())
                .collect()
        });
        let quiet = Quiet::of(self);
        Stage {
            class: "stage-sync",
            empty: None,
            more_lanes: None,
            lanes: vec![
                Rc::new(buffer_lane(w)),
                Rc::new(task_lane(w)),
                Rc::new(sync_segments_lane(w)),
            ],
            rows: vec![vec![
                Rc::new(metacache_panel(w, before.as_ref(), &removed, &quiet)),
                Rc::new(datacoord_panel(w, before.as_ref(), &quiet)),
            ]],
        }
    }

    fn figures(&self, run: &Run<Scenario>) -> Figures {
        let plots = sample(
            run,
            &["Metacache and sync tasks", "Write buffer"],
            |w, out| {
                out.push((
                    0,
                    "segments in the metacache".into(),
                    w.metacache.segments().len() as f64,
                ));
                let tasks = w
                    .goroutines
                    .iter()
                    .filter(|g| matches!(g.role, Role::Task { .. }))
                    .count();
                out.push((0, "sync tasks in flight".into(), tasks as f64));
                let rows: i64 = w.buffers.iter().map(|b| b.rows).sum();
                out.push((1, "rows in the write buffer".into(), rows as f64));
            },
        );
        Figures {
            len: run.len(),
            plots,
            stream: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn about(&self) -> String {
        format!(
            "Model: sync-2024, the datanode metacache, write buffer and sync manager, and datacoord's SyncSegments, at the commits of issue #34018 (this run: {}, {}). Every step names the Go function it models.",
            self.version.as_str(),
            self.version.summary()
        )
    }

    fn legend(&self) -> &'static str {
        "Three lanes: the flow graph's write buffer, the sync manager's tasks in flight (each points at its segment; red when the metacache lost it) and SyncSegments between datacoord and the datanode. The tables are the datanode's metacache and datacoord's meta; a row flashes when the step changed it."
    }

    fn summary(&self, run: &Run<Scenario>) -> Summary {
        let w = run.head();
        Summary {
            notified: [],
            drop_packs: None,
            metacache: w
                .metacache
                .segments()
                .iter()
                .map(|m| DnSegment {
                    segment: m.segment,
                    partition: m.partition,
                    state: m.state,
                    level: m.level,
                    rows: m.num_rows(),
                })
                .collect(),
            datacoord: w.datacoord.to_vec(),
        }
    }
}

/// The conformance harness covers flush-2021 only: a sync-2024 outcome is how the
/// run ended.
impl Observe for Scenario {}

// ----- the stage ------------------------------------------------------------------

fn buffer_lane(w: &World) -> Lane {
    Lane {
        key: "write-buffer".to_owned(),
        title: "Write buffer (flow graph)".to_owned(),
        data: vec![("data-lane", "write-buffer".to_owned())],
        badges: vec![Badge::new("buffered segments", w.buffers.len(), "")],
        body: LaneBody::Cards {
            cards: w
                .buffers
                .iter()
                .map(|b| Card {
                    key: format!("buf-{}", b.segment),
                    class: "buffer".to_owned(),
                    data: vec![("data-segment", b.segment.to_string())],
                    title: format!("segment {}", b.segment),
                    lines: vec![Line::plain(format!(
                        "{} rows buffered (last chunk {})",
                        b.rows, b.last_chunk
                    ))],
                })
                .collect(),
            empty: "empty: inserts buffer rows here until a sync takes them".to_owned(),
        },
    }
}

/// A sync task in flight, or one waiting for its segment's key lock.
fn task_card(w: &World, g: Gid, t: &SyncTask, stage: &str) -> Card {
    let present = w.metacache.get(t.segment).is_some();
    let danger = !present && !t.is_drop;
    Card {
        key: format!("task-{}", t.n),
        class: if danger {
            "task danger".into()
        } else {
            "task".into()
        },
        data: vec![
            ("data-task", t.n.to_string()),
            ("data-segment", t.segment.to_string()),
            ("data-present", present.to_string()),
        ],
        title: format!("sync task #{} · g{g}", t.n),
        lines: vec![
            Line::plain(format!(
                "segment {} · {} rows{}{}",
                t.segment,
                t.batch,
                if t.is_flush { " · flush" } else { "" },
                if t.is_drop { " · drop" } else { "" }
            )),
            Line::with("muted", stage),
            if present {
                Line::with(
                    "seglink ok",
                    format!("→ segment {} is in the metacache ✓", t.segment),
                )
            } else {
                Line::with(
                    "seglink missing",
                    format!("→ segment {} is MISSING from the metacache ✗", t.segment),
                )
            },
        ],
    }
}

fn task_lane(w: &World) -> Lane {
    let cards: Vec<Card> = w
        .goroutines
        .iter()
        .filter_map(|g| match &g.role {
            Role::Task { task, at } => {
                let stage = match at {
                    TaskAt::RunStart => "submitted: Run not started",
                    TaskAt::WriteLogs => "Run: segment found, writing binlogs",
                    TaskAt::SaveBinlogPaths { .. } => "writeMeta: SaveBinlogPaths in flight",
                    TaskAt::FinishSyncing { .. } => "",
                };
                Some(task_card(w, g.id, task, stage))
            }
            Role::Actor {
                at: ActorAt::KeyLock(task),
                ..
            } => Some(task_card(w, g.id, task, "waits for its segment's key lock")),
            _ => None,
        })
        .collect();
    Lane {
        key: "sync-manager".to_owned(),
        title: "Sync manager (tasks in flight)".to_owned(),
        data: vec![("data-lane", "sync-manager".to_owned())],
        badges: vec![Badge::new("tasks", cards.len(), "")],
        body: LaneBody::Cards {
            cards,
            empty: "no sync task in flight".to_owned(),
        },
    }
}

/// Datacoord's card of a SyncSegments call in flight (goroutine `g`).
fn rpc_card(g: super::Gid, line: String) -> Card {
    Card {
        key: format!("rpc-{g}"),
        class: "rpc".to_owned(),
        data: Vec::new(),
        title: format!("datacoord g{g}"),
        lines: vec![Line::plain(line)],
    }
}

fn sync_segments_lane(w: &World) -> Lane {
    // The RPC's card first, then the handler's, whatever their goroutine ids.
    let (mut cards, mut handlers) = (Vec::new(), Vec::new());
    for g in &w.goroutines {
        match &g.role {
            Role::Actor {
                at: ActorAt::SyncSegmentsRpc { handler, .. },
                ..
            } => cards.push(rpc_card(
                g.id,
                format!("waits for the datanode's handler g{handler} to return"),
            )),
            Role::Actor {
                at: ActorAt::SyncSegmentsDeadline { handler, .. },
                ..
            } => cards.push(rpc_card(
                g.id,
                format!(
                    "attempt 1 (handler g{handler}) under its 10 s deadline, which passes next"
                ),
            )),
            Role::Handler { req, at } => handlers.push(Card {
                key: format!("handler-{}", g.id),
                class: "handler".to_owned(),
                data: Vec::new(),
                title: format!(
                    "DataNode.SyncSegments g{} · partition {}",
                    g.id, req.partition
                ),
                lines: vec![
                    Line::plain(format!(
                        "request: {}",
                        if req.segments.is_empty() {
                            "empty".to_owned()
                        } else {
                            crate::scenario::join_ids(req.segments.iter().map(|s| s.segment))
                        }
                    )),
                    Line::with("muted", handler_at_words(at)),
                ],
            }),
            _ => {}
        }
    }
    cards.extend(handlers);
    Lane {
        key: "sync-segments".to_owned(),
        title: "SyncSegments (datacoord → datanode)".to_owned(),
        data: vec![("data-lane", "sync-segments".to_owned())],
        badges: vec![Badge::new("version", w.version.as_str(), "version")],
        body: LaneBody::Cards {
            cards,
            empty: "no SyncSegments call in flight".to_owned(),
        },
    }
}

fn state_cell(s: SegState) -> Cell {
    Cell::State(s.as_str().to_owned())
}

/// What a long table folds away (see [`Table::folding`]): a segment no op
/// names, as the scenario declares it at the start. A scenario from a real
/// datanode may hold thousands; drawn, they would take every step hundreds of
/// milliseconds.
struct Quiet<'a> {
    sc: &'a Scenario,
    /// The segments the actors' ops name, sorted.
    named: Vec<i64>,
}

/// The fold's words after its count.
const QUIET_WORDS: &str =
    "segments untouched so far (as the scenario declares them, and named by no op)";

impl Quiet<'_> {
    fn of(sc: &Scenario) -> Quiet<'_> {
        let mut named: Vec<i64> = sc
            .actors
            .iter()
            .flat_map(|a| &a.ops)
            .filter_map(|op| match *op {
                Op::Insert { segment, .. } | Op::Seal { segment } | Op::Sync { segment, .. } => {
                    Some(segment)
                }
                Op::SyncSegments { .. } | Op::WaitFor(_) => None,
            })
            .collect();
        crate::order::sort_by_key(&mut named, |&s| s);
        named.dedup();
        Quiet { sc, named }
    }

    fn unnamed(&self, segment: i64) -> bool {
        self.named.binary_search(&segment).is_err()
    }

    fn metacache(&self, s: &MetaSeg) -> bool {
        let dn = &self.sc.datanode;
        self.unnamed(s.segment)
            && dn
                .binary_search_by_key(&s.segment, |d| d.segment)
                .is_ok_and(|i| MetaSeg::declared(&dn[i], &self.sc.datacoord) == *s)
    }

    fn datacoord(&self, d: &DcSeg) -> bool {
        let dc = &self.sc.datacoord;
        self.unnamed(d.segment)
            && dc
                .binary_search_by_key(&d.segment, |c| c.segment)
                .is_ok_and(|i| dc[i] == *d)
    }
}

fn metacache_panel(w: &World, before: Option<&World>, removed_now: &[i64], quiet: &Quiet) -> Panel {
    let columns = [
        "segment",
        "partition",
        "state",
        "level",
        "flushed",
        "buffered",
        "syncing",
        "tasks",
    ]
    .iter()
    .map(|c| ((*c).to_owned(), None))
    .collect();
    let mut rows: Vec<(Row, bool)> = w
        .metacache
        .segments()
        .iter()
        .map(|s| {
            let changed = before.is_some_and(|b| b.metacache.get(s.segment) != Some(s));
            (
                Row {
                    key: s.segment.to_string(),
                    class: if changed { "changed" } else { "" },
                    data: vec![("data-segment", s.segment.to_string())],
                    cells: vec![
                        Cell::Text(s.segment.to_string()),
                        Cell::Text(s.partition.to_string()),
                        state_cell(s.state),
                        Cell::Text(s.level.as_str().to_owned()),
                        Cell::Text(s.flushed_rows.to_string()),
                        Cell::Text(s.buffer_rows.to_string()),
                        Cell::Text(s.syncing_rows.to_string()),
                        Cell::Text(s.syncing_tasks.to_string()),
                    ],
                },
                !changed && quiet.metacache(s),
            )
        })
        .collect();
    for s in removed_now
        .iter()
        .filter_map(|id| before.and_then(|b| b.metacache.get(*id)))
    {
        rows.push((
            Row {
                key: format!("removed-{}", s.segment),
                class: "removed",
                data: vec![("data-segment", s.segment.to_string())],
                cells: vec![
                    Cell::Text(s.segment.to_string()),
                    Cell::Text(s.partition.to_string()),
                    Cell::Wide {
                        text: format!(
                            "removed at this step (was {} {})",
                            s.state.as_str(),
                            s.level.as_str()
                        ),
                        span: 6,
                    },
                ],
            },
            false,
        ));
    }
    Panel {
        id: "metacache",
        class: "metacache".into(),
        title: "Datanode metacache".to_owned(),
        blocks: vec![Block::Table(Table::folding(columns, rows, QUIET_WORDS))],
    }
}

fn datacoord_panel(w: &World, before: Option<&World>, quiet: &Quiet) -> Panel {
    let columns = [
        "segment",
        "partition",
        "state",
        "level",
        "PK statslog",
        "rows",
    ]
    .iter()
    .map(|c| ((*c).to_owned(), None))
    .collect();
    let rows = w
        .datacoord
        .iter()
        .map(|d| {
            let changed = before.is_some_and(|b| b.dc(d.segment) != Some(d));
            let row = Row {
                key: d.segment.to_string(),
                class: if changed { "changed" } else { "" },
                data: vec![("data-segment", d.segment.to_string())],
                cells: vec![
                    Cell::Text(d.segment.to_string()),
                    Cell::Text(d.partition.to_string()),
                    state_cell(d.state),
                    Cell::Text(d.level.as_str().to_owned()),
                    Cell::Text(if d.statslog { "yes" } else { "no" }.to_owned()),
                    Cell::Text(d.rows.to_string()),
                ],
            };
            (row, !changed && quiet.datacoord(d))
        })
        .collect();
    Panel {
        id: "datacoord",
        class: "datacoord".into(),
        title: "Datacoord's meta".to_owned(),
        blocks: vec![Block::Table(Table::folding(columns, rows, QUIET_WORDS))],
    }
}

/// Where a SyncSegments handler stands, for its card.
fn handler_at_words(at: &HandlerAt) -> String {
    match at {
        HandlerAt::LoadStats { load } => format!(
            "loading PK stats of {}",
            crate::scenario::join_ids(load.iter().copied())
        ),
        HandlerAt::Apply { load } => format!(
            "PK stats of {} loaded; UpdateSegmentView next",
            crate::scenario::join_ids(load.iter().copied())
        ),
        HandlerAt::Receive => "arrived".to_owned(),
        HandlerAt::Attempt { at, ctx_done } => format!(
            "{}, serving a first attempt{}",
            handler_at_words(at),
            if *ctx_done {
                " that timed out (ctx done)"
            } else {
                " under its deadline"
            }
        ),
    }
}
