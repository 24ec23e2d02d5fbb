//! The verdict table: every built-in scenario under every Milvus version it can run
//! as, and what the Go code can do there (completed, which panic, which invariant
//! or finding), found by exhaustive exploration. The README and the page show the
//! table a test generates from the model (`crates/flush-core/src/verdicts.json`); nobody types it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::explore::{explore, Found};
use crate::scenario::{ModelKind, Scenario, Version};
use crate::{builtin, AnyRun, OutcomeKind, Policy};

/// States an exploration may visit before the table falls back to seeded runs.
pub const STATE_BUDGET: u64 = 400_000;
/// Seeded runs for a scenario whose state space is over the budget.
pub const SEEDED_RUNS: u64 = 200;
/// Longest schedule explored.
const MAX_DEPTH: u32 = 2_000;

/// One scenario under one version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// The sync-2024 version (`None` for flush-2021, fixed at 891c202b73).
    pub version: Option<String>,
    /// `completed`, or each distinct `panic: ...`, invariant name and `deadlock`.
    pub verdicts: Vec<String>,
    /// States explored, or 0 when the cell comes from seeded runs.
    pub states: u64,
    /// Seeded runs, when the state space was over the budget.
    pub seeded_runs: u64,
}

/// A built-in scenario's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    ROWS.get_or_init(|| serde_json::from_str(GENERATED).unwrap_or_default())
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
            "panic" => format!("panic: {}", panic_words(&f.message)),
            "invariant" => f.message.split(':').next().unwrap_or_default().to_owned(),
            other => other.to_owned(),
        })
        .collect();
    v.sort();
    v.dedup();
    if v.is_empty() {
        v.push("completed".to_owned());
    }
    v
}

/// The verdicts of one scenario: explored exhaustively, or under seeded runs when its
/// state space is over `budget`.
pub fn cell(sc: &Scenario, budget: u64) -> Cell {
    let x = explore(Arc::new(sc.clone()), MAX_DEPTH, budget);
    if !x.truncated {
        return Cell {
            version: sc.version.map(|v| v.as_str().to_owned()),
            verdicts: words(&x.violations),
            states: x.states,
            seeded_runs: 0,
        };
    }
    let mut v = Vec::new();
    for seed in 0..SEEDED_RUNS {
        let mut r = AnyRun::new(Arc::new(sc.clone()), Policy::Seeded(seed));
        r.run_to_end();
        if let Some(o) = r.outcome() {
            match o.kind {
                OutcomeKind::Panic => v.push(format!("panic: {}", panic_words(&o.message))),
                OutcomeKind::Deadlock => v.push("deadlock".to_owned()),
                _ => {}
            }
        }
        v.extend(r.violation_names().into_iter().map(str::to_owned));
    }
    v.sort();
    v.dedup();
    if v.is_empty() {
        v.push("completed".to_owned());
    }
    Cell {
        version: sc.version.map(|v| v.as_str().to_owned()),
        verdicts: v,
        states: 0,
        seeded_runs: SEEDED_RUNS,
    }
}

/// Every built-in file scenario (the generated `pairs-N` are left out), each
/// sync-2024 one under every version.
pub fn compute(budget: u64) -> Vec<Row> {
    builtin::FILES
        .iter()
        .filter_map(|(name, _)| builtin::get(name))
        .map(|sc| {
            let cells = match sc.model {
                ModelKind::Flush2021 => vec![cell(&sc, budget)],
                ModelKind::Sync2024 => Version::ALL
                    .iter()
                    .map(|v| {
                        let mut s = sc.clone();
                        s.version = Some(*v);
                        cell(&s, budget)
                    })
                    .collect(),
            };
            Row {
                scenario: sc.name.clone(),
                model: sc.model.as_str().to_owned(),
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

/// The table as Markdown: flush-2021 scenarios, then sync-2024 ones by version.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| flush-2021 scenario (891c202b73) | every verdict exploration finds |\n|---|---|\n",
    );
    for r in rows.iter().filter(|r| r.model == "flush-2021") {
        out.push_str(&format!(
            "| `{}` | {} |\n",
            r.scenario,
            cell_words(&r.cells[0])
        ));
    }
    out.push_str("\n| sync-2024 scenario |");
    for v in Version::ALL {
        out.push_str(&format!(" {} ({}) |", v.as_str(), v.pr()));
    }
    out.push_str("\n|---|");
    for _ in Version::ALL {
        out.push_str("---|");
    }
    out.push('\n');
    for r in rows.iter().filter(|r| r.model == "sync-2024") {
        out.push_str(&format!("| `{}` |", r.scenario));
        for c in &r.cells {
            out.push_str(&format!(" {} |", cell_words(c)));
        }
        out.push('\n');
    }
    out
}
