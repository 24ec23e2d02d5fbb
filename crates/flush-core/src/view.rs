//! What front ends show of a run, as plain data: no model types, no DOM. A model's
//! `view` module implements [`Present`] from its state and facts; the page draws
//! the [`Stage`] with components (keyed by the `key`s here, so that what did not
//! change is not redrawn), the CLI prints the summary.
//!
//! The vocabulary: a stage has lanes (a chain of boxes joined by arrows, or a row
//! of cards) and rows of panels (badges, chips, tables). Classes are CSS hooks;
//! `data` pairs become `data-*` attributes that tests and exports read.

use std::rc::Rc;

use serde::Serialize;

use crate::engine::{Model, Run};

/// A model's presentation (its `view` module). A model's state and steps know
/// nothing of it.
pub trait Present: Model {
    /// What `flushscope run --json` adds after `invariants`: the run's end state.
    type Summary: Serialize;
    fn summary(&self, run: &Run<Self>) -> Self::Summary;

    /// The stage at the run's cursor. `figures` are the run's (see [`Present::figures`]).
    fn stage(&self, run: &Run<Self>, figures: &Figures) -> Stage;

    /// Figures of the whole recorded run, computed once per run: plots over the
    /// steps, the stream of results (flush-2021: packs notified), notes.
    fn figures(&self, run: &Run<Self>) -> Figures;

    /// One sentence: which Go code the model follows, at which commit.
    fn about(&self) -> String;

    /// How to read the stage, for the help overlay.
    fn legend(&self) -> &'static str;
}

/// `data-*` attributes: (full name, value).
pub type Data = Vec<(&'static str, String)>;

/// What the page draws at one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stage {
    /// A CSS hook for the whole stage (`stage-flush`).
    pub class: &'static str,
    /// Shown above the lanes while there are none.
    pub empty: Option<String>,
    /// Lanes and panels are shared (`Rc`) so that a front end can hand each to a
    /// component without copying it.
    pub lanes: Vec<Rc<Lane>>,
    /// Rows of panels under the lanes.
    pub rows: Vec<Vec<Rc<Panel>>>,
    /// Said under the lanes when some are not drawn (a scenario of thousands of
    /// queues would draw every one at every step).
    pub more_lanes: Option<String>,
}

/// One lane: a queue, a pool, a component of the modelled system.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// Stable across steps (what the lane stands for).
    pub key: String,
    pub title: String,
    pub data: Data,
    pub badges: Vec<Badge>,
    pub body: LaneBody,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LaneBody {
    /// A slot on the left, then boxes in order, arrows between them, tokens on top.
    Chain(Chain),
    /// A row of cards; `empty` is said when there are none.
    Cards { cards: Vec<Card>, empty: String },
}

/// A chain of boxes (flush-2021: the inject handler, then the runners in tail-chain
/// order, each pointing at the signal it waits on).
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub slot: Slot,
    pub boxes: Vec<Rc<ChainBox>>,
    pub arrows: Vec<Arrow>,
    pub tokens: Vec<Token>,
}

/// The box at the left of a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub class: &'static str,
    pub title: String,
    pub lines: Vec<String>,
    /// `data-*` attributes (`data-g`: the goroutine it stands for, if any).
    pub data: Data,
}

/// One box of a chain.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainBox {
    /// Stable across steps (what the box stands for).
    pub key: String,
    /// The state class (`wait`, `holding`, ...).
    pub class: &'static str,
    pub data: Data,
    /// A tooltip.
    pub tooltip: String,
    pub title: String,
    pub subtitle: String,
    pub pills: Vec<Pill>,
    pub status: String,
    /// A last line, if any.
    pub extra: Option<String>,
}

/// A small rounded label inside a box.
#[derive(Clone, Debug, PartialEq)]
pub struct Pill {
    pub label: &'static str,
    pub text: String,
    pub class: &'static str,
}

/// Where an arrow from a box points.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrowTo {
    /// Another box of the chain (by index).
    Box(usize),
    /// The slot.
    Slot,
    /// Nothing drawn: a label says what (`init ✓`).
    Label(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    /// The box it starts at (by index).
    pub from: usize,
    pub to: ArrowTo,
    /// What it points at is done (green) or not yet (orange).
    pub closed: bool,
    pub data: Data,
}

/// Where a token sits.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenAt {
    /// On the top edge of a box (by index).
    Box(usize),
    /// On the slot.
    Slot,
    /// In the queue under the slot, `n`-th.
    Queued(usize),
}

/// Something handed between goroutines (flush-2021: an injection).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// Stable across steps, so the page can animate its moves.
    pub key: String,
    pub label: String,
    pub at: TokenAt,
    pub class: &'static str,
    pub tooltip: String,
}

/// A card of a card lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    pub key: String,
    /// CSS classes besides `card`.
    pub class: String,
    pub data: Data,
    pub title: String,
    pub lines: Vec<Line>,
}

/// A line of text with a CSS class (`""` for none).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub text: String,
    pub class: &'static str,
}

impl Line {
    pub fn plain(text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            class: "",
        }
    }
    pub fn with(class: &'static str, text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            class,
        }
    }
}

/// `label value`, e.g. `running 2`.
#[derive(Clone, Debug, PartialEq)]
pub struct Badge {
    pub label: String,
    pub value: String,
    pub class: &'static str,
}

impl Badge {
    pub fn new(label: impl Into<String>, value: impl ToString, class: &'static str) -> Badge {
        Badge {
            label: label.into(),
            value: value.to_string(),
            class,
        }
    }
}

/// A panel under the lanes.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The element id (`metacache`): stable, what tests and links point at.
    pub id: &'static str,
    /// CSS classes besides `panel`.
    pub class: String,
    pub title: String,
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A muted sentence.
    Note(String),
    Badges(Vec<Badge>),
    /// Chips (packs) after a lead-in.
    Chips {
        lead: Option<String>,
        strong: bool,
        chips: Vec<Chip>,
    },
    Table(Table),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chip {
    /// What the chip stands for, unique in its list, when its list slides (a
    /// window of the latest): a front end keeps a chip's element for its key, so
    /// a step that adds one chip and drops the oldest moves elements instead of
    /// rewriting every chip's text.
    pub key: Option<u32>,
    pub text: String,
    pub class: &'static str,
    pub tooltip: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Column names with an optional tooltip.
    pub columns: Vec<(String, Option<String>)>,
    pub rows: Vec<Row>,
    /// Rows folded away until asked for (a long table's rows that nothing has
    /// touched), after `rows`.
    pub fold: Option<Fold>,
}

/// Rows a front end shows only when asked: what they are ("2998 segments
/// untouched so far (as the scenario declares them, and named by no op)"), and
/// the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    pub words: String,
    pub rows: Vec<Row>,
}

/// A table with this many rows or more folds its quiet ones (see [`Fold`]).
pub const FOLD_FROM: usize = 40;

impl Table {
    /// The table of `rows`, each with whether it is quiet: with [`FOLD_FROM`]
    /// rows or more, the quiet ones are folded away, `what` naming them in the
    /// fold's words after their count.
    pub fn folding(
        columns: Vec<(String, Option<String>)>,
        rows: Vec<(Row, bool)>,
        what: &str,
    ) -> Table {
        let fold_them = rows.len() >= FOLD_FROM;
        let (mut shown, mut folded) = (Vec::new(), Vec::new());
        for (row, quiet) in rows {
            if quiet && fold_them {
                &mut folded
            } else {
                &mut shown
            }
            .push(row);
        }
        let fold = (!folded.is_empty()).then(|| Fold {
            words: format!("{} {what}", folded.len()),
            rows: folded,
        });
        Table {
            columns,
            rows: shown,
            fold,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub key: String,
    /// `changed` (this step changed it), `removed` (this step removed it), or `""`.
    pub class: &'static str,
    pub data: Data,
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Text(String),
    /// A state, drawn as a colored chip (the class is the text).
    State(String),
    /// Text over `span` columns.
    Wide {
        text: String,
        span: u32,
    },
}

/// Figures of a whole run (computed once per run).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Steps of the run these figures describe.
    pub len: u32,
    pub plots: Vec<Plot>,
    /// Results in the order they happened, with their step.
    pub stream: Vec<(u32, String)>,
    /// Sentences under the plots.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    pub title: String,
    pub series: Vec<Series>,
}

/// One plotted series: (step, value) points, at most [`MAX_POINTS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(u32, f64)>,
}

/// Points per series: runs longer than this are sampled.
pub const MAX_POINTS: usize = 400;
/// Series per plot: more are left out.
pub const MAX_SERIES: usize = 6;

/// Samples a run into plots: `titles` names the plots; `gauge` reads a state and
/// pushes `(plot index, series name, value)` for it. Gauges count things, so a
/// series is 0 wherever it is not reported (before its queue exists, after it is
/// gone); series appear in the order they are first reported, at most
/// [`MAX_SERIES`] per plot.
/// Points a long run's series keep at least when sampled at its snapshots.
const MIN_SNAPSHOT_POINTS: u32 = 150;

/// The spacing of a run's samples: [`MAX_POINTS`] of them, or, when the run
/// has at least [`MIN_SNAPSHOT_POINTS`] snapshots `snapshot` steps apart, a
/// multiple of that spacing, so that each sample is a snapshot and nothing is
/// replayed (pairs-14500, 145,740 steps: 31 ms of replays natively, the long
/// frame when the page shows such a run, against 2 ms at every other
/// snapshot).
fn sample_every(len: u32, snapshot: u32) -> u32 {
    let every = (len / MAX_POINTS as u32).max(1);
    let snapshot = snapshot.max(1);
    if len / snapshot >= MIN_SNAPSHOT_POINTS {
        every.div_ceil(snapshot) * snapshot
    } else {
        every
    }
}

pub fn sample<M: Model>(
    run: &Run<M>,
    titles: &[&str],
    mut gauge: impl FnMut(&M::State, &mut Vec<(usize, String, f64)>),
) -> Vec<Plot> {
    let len = run.len();
    let every = sample_every(len, run.snapshot_every());
    let mut plots: Vec<Plot> = titles
        .iter()
        .map(|t| Plot {
            title: (*t).to_owned(),
            series: Vec::new(),
        })
        .collect();
    let mut values = Vec::new();
    // The steps sampled before this one (a series that appears late is 0 there).
    let mut sampled: Vec<u32> = Vec::new();
    run.for_each_world_every(every, |step, s| {
        values.clear();
        gauge(s, &mut values);
        for (p, name, v) in values.drain(..) {
            let Some(plot) = plots.get_mut(p) else {
                continue;
            };
            let i = match plot.series.iter().position(|x| x.name == name) {
                Some(i) => i,
                None if plot.series.len() < MAX_SERIES => {
                    let points = sampled.iter().map(|s| (*s, 0.0)).collect();
                    plot.series.push(Series { name, points });
                    plot.series.len() - 1
                }
                None => continue,
            };
            plot.series[i].points.push((step, v));
        }
        for series in plots.iter_mut().flat_map(|p| &mut p.series) {
            if series.points.last().is_none_or(|p| p.0 != step) {
                series.points.push((step, 0.0));
            }
        }
        sampled.push(step);
    });
    plots
}

#[cfg(test)]
mod sample_tests {
    use super::*;

    /// A long run is sampled at its snapshots (a multiple of their spacing),
    /// keeping at least MIN_SNAPSHOT_POINTS points and at most MAX_POINTS; a
    /// shorter one every len / MAX_POINTS steps, as before.
    #[test]
    fn long_runs_are_sampled_at_their_snapshots() {
        for (len, snap) in [
            (145_740, 256),
            (38_400, 256),
            (1_000_000, 256),
            (10_000_000, 8192),
        ] {
            let e = sample_every(len, snap);
            assert_eq!(e % snap, 0, "{len} {snap}: {e}");
            let points = len / e;
            assert!(
                (MIN_SNAPSHOT_POINTS..=MAX_POINTS as u32).contains(&points),
                "{len} {snap}: {points}"
            );
        }
        assert_eq!(sample_every(145_740, 256), 512);
        assert_eq!(sample_every(10_000, 256), 25);
        assert_eq!(
            sample_every(145_740, 8192),
            364,
            "17 snapshots: too few points"
        );
        assert_eq!(sample_every(3, 256), 1);
    }
}
