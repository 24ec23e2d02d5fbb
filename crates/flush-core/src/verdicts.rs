//! The verdict table: every built-in scenario under every Milvus version it can run
//! as, and what the Go code can do there (completed, which panic, which invariant
//! or finding), found by exhaustive exploration. The README and the page show the
//! table a test generates from the model (`crates/flush-core/src/verdicts.json`); nobody types it.

use serde::Serialize;

use crate::scenario::json::{self, Json};

use crate::explore::Found;
use crate::models::{AnyScenario, FORMATS};
use crate::{builtin, OutcomeKind, Policy};

/// States an exploration may visit before the table falls back to seeded runs.
pub const STATE_BUDGET: u64 = 400_000;
/// Seeded runs for a scenario whose state space is over the budget.
pub const SEEDED_RUNS: u64 = 200;
/// Longest schedule explored.
const MAX_DEPTH: u32 = 2_000;

/// One scenario under one version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// The Milvus version (`None` for a model fixed at one).
    pub version: Option<String>,
    /// `completed`, or each distinct `panic: ...`, invariant name and `deadlock`.
    pub verdicts: Vec<String>,
    /// States explored, or 0 when the cell comes from seeded runs.
    pub states: u64,
    /// Seeded runs, when the state space was over the budget.
    pub seeded_runs: u64,
}

/// A built-in scenario's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub scenario: String,
    pub model: String,
    pub cells: Vec<Cell>,
}

/// The built-in table, as generated into `verdicts.json` beside this file.
pub const GENERATED: &str = include_str!("verdicts.json");

/// The generated table, parsed once (empty if the file does not parse: a test checks
/// it does).
pub fn generated() -> &'static [Row] {
    static ROWS: std::sync::OnceLock<Vec<Row>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        json::parse(GENERATED, "verdicts.json")
            .ok()
            .and_then(|j| rows(&j))
            .unwrap_or_default()
    })
}

/// The rows of the generated file's tree (`None` if it is not what `compute`
/// writes). Read with the scenario reader's tree: no second JSON decoder in the page.
fn rows(j: &Json) -> Option<Vec<Row>> {
    let field = |o: &'_ Json, k: &str| -> Option<Json> {
        match o {
            Json::Obj(f) => f.iter().find(|x| x.0 == k).map(|x| x.1.clone()),
            _ => None,
        }
    };
    let text = |j: Json| match j {
        Json::Str(s) => Some(s),
        _ => None,
    };
    let list = |j: Json| match j {
        Json::Arr(v) => Some(v),
        _ => None,
    };
    let num = |j: Json| match j {
        Json::Num(n) => n.as_u64(),
        _ => None,
    };
    list(j.clone())?
        .into_iter()
        .map(|r| {
            let cells = list(field(&r, "cells")?)?
                .into_iter()
                .map(|c| {
                    Some(Cell {
                        version: text(field(&c, "version")?),
                        verdicts: list(field(&c, "verdicts")?)?
                            .into_iter()
                            .map(text)
                            .collect::<Option<_>>()?,
                        states: num(field(&c, "states")?)?,
                        seeded_runs: num(field(&c, "seeded_runs")?)?,
                    })
                })
                .collect::<Option<_>>()?;
            Some(Row {
                scenario: text(field(&r, "scenario")?)?,
                model: text(field(&r, "model")?)?,
                cells,
            })
        })
        .collect()
}

/// A panic in a few words: its message up to the first detail.
fn panic_words(message: &str) -> String {
    let cut = message
        .find(" (")
        .into_iter()
        .chain(message.find('['))
        .min()
        .unwrap_or(message.len());
    message[..cut].trim().to_owned()
}

fn words(found: &[Found]) -> Vec<String> {
    let mut v: Vec<String> = found
        .iter()
        .map(|f| match f.kind {
            OutcomeKind::Panic => format!("panic: {}", panic_words(&f.message)),
            OutcomeKind::Invariant => f.message.split(':').next().unwrap_or_default().to_owned(),
            other => other.as_str().to_owned(),
        })
        .collect();
    crate::order::sort_dedup(&mut v);
    if v.is_empty() {
        v.push("completed".to_owned());
    }
    v
}

/// The verdicts of one scenario: explored exhaustively, or under seeded runs when its
/// state space is over `budget`.
pub fn cell(sc: &AnyScenario, budget: u64) -> Cell {
    let x = sc.explore(MAX_DEPTH, budget);
    let version = sc.header().version.map(str::to_owned);
    if !x.truncated {
        return Cell {
            version,
            verdicts: words(&x.violations),
            states: x.states,
            seeded_runs: 0,
        };
    }
    let mut v = Vec::new();
    for seed in 0..SEEDED_RUNS {
        let mut r = sc.run(Policy::Seeded(seed));
        r.run_to_end();
        if let Some(o) = r.outcome() {
            match o.kind {
                OutcomeKind::Panic => v.push(format!("panic: {}", panic_words(&o.message))),
                OutcomeKind::Deadlock => v.push("deadlock".to_owned()),
                _ => {}
            }
        }
        v.extend(r.violation_ids().into_iter().map(str::to_owned));
    }
    crate::order::sort_dedup(&mut v);
    if v.is_empty() {
        v.push("completed".to_owned());
    }
    Cell {
        version,
        verdicts: v,
        states: 0,
        seeded_runs: SEEDED_RUNS,
    }
}

/// Every built-in file scenario (the generated `pairs-N` are left out), each
/// under every version its model can run at.
pub fn compute(budget: u64) -> Vec<Row> {
    builtin::FILES
        .iter()
        .filter_map(|(name, _)| builtin::get(name))
        .map(|sc| {
            let at = sc.at_every_version();
            let cells = if at.is_empty() {
                vec![cell(&sc, budget)]
            } else {
                at.iter().map(|s| cell(s, budget)).collect()
            };
            Row {
                scenario: sc.header().name.clone(),
                model: sc.header().model.to_owned(),
                cells,
            }
        })
        .collect()
}

fn cell_words(c: &Cell) -> String {
    let mut s = c.verdicts.join(", ");
    if c.seeded_runs > 0 {
        s.push_str(&format!(" ({} seeded runs)", c.seeded_runs));
    }
    s
}

/// The table as Markdown: one table per model, in the registry's order, with a
/// column per version of the model.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::new();
    for f in FORMATS {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.model == f.model).collect();
        if mine.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let versions = f.versions;
        if versions.is_empty() {
            let fixed = f.fixed_at.map(|c| format!(" ({c})")).unwrap_or_default();
            out.push_str(&format!(
                "| {} scenario{fixed} | every verdict exploration finds |\n|---|---|\n",
                f.model
            ));
        } else {
            out.push_str(&format!("| {} scenario |", f.model));
            for v in versions {
                out.push_str(&format!(" {} ({}) |", v.id, v.pr));
            }
            out.push_str("\n|---|");
            for _ in versions {
                out.push_str("---|");
            }
            out.push('\n');
        }
        for r in mine {
            out.push_str(&format!("| `{}` |", r.scenario));
            for c in &r.cells {
                out.push_str(&format!(" {} |", cell_words(c)));
            }
            out.push('\n');
        }
    }
    out
}
