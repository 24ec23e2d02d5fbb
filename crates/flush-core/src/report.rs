//! Trace output shared by the CLI and the browser: text lines and the JSON report
//! of DESIGN.md's CLI contract.

use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::{FactKind, GoFn, Model, Outcome, Run, StepRecord};

/// A step without facts (none does so today; the trace still prints a line).
const NO_FACT: GoFn = GoFn {
    file: "",
    func: "",
    excerpt: "",
};
use crate::sched::{format_schedule, Policy};
use crate::view::Present;

/// One step, rendered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceLine {
    pub step: u32,
    pub goroutine: u32,
    /// The goroutine's name, e.g. `runner seg=2 pos=a`.
    pub name: String,
    /// The Go function the step models (`file.go: function` in JSON).
    pub go: GoFn,
    /// What happened, in words (facts joined by "; ").
    pub event: String,
    /// Milvus log lines the step corresponds to (sync-2024).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
    /// A scheduler note (a scripted schedule that diverged or ran out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip)]
    pub violation: bool,
    #[serde(skip)]
    pub panic: bool,
}

pub(crate) fn line<M: Model>(run: &Run<M>, rec: &StepRecord<M::Who>) -> TraceLine {
    let sc = run.scenario();
    let evs = run.events_of(rec);
    let mut event = String::new();
    let mut log = Vec::new();
    let mut violation = false;
    let mut panic = false;
    for (i, e) in evs.iter().enumerate() {
        if i > 0 {
            event.push_str("; ");
        }
        sc.fact_words(e, &mut event);
        if let Some(l) = sc.fact_log(e) {
            log.extend(l.lines().map(str::to_owned));
        }
        match sc.fact_kind(e) {
            FactKind::Violation => violation = true,
            FactKind::Panic => panic = true,
            FactKind::Plain => {}
        }
    }
    TraceLine {
        step: rec.step,
        goroutine: rec.choice.g,
        name: sc.who_name(&rec.who),
        go: evs.first().map_or(NO_FACT, |e| sc.fact_go(e)),
        event,
        log,
        note: rec.note.as_ref().map(|n| n.to_string()),
        violation,
        panic,
    }
}

/// `   12  g3    runner seg=2 pos=a        flush_task.go: waitFinish  | runner ...`
/// `1 step`, `6 steps`: a count of steps in words.
pub fn steps_words(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 step".to_owned(),
        n => format!("{n} steps"),
    }
}

pub fn format_line(l: &TraceLine) -> String {
    let mut s = format!(
        "{:>5}  g{:<4} {:<34} {:<52} {}",
        l.step, l.goroutine, l.name, l.go, l.event
    );
    if l.goroutine >= 10_000 {
        s = format!(
            "{:>5}  g{} {} {} {}",
            l.step, l.goroutine, l.name, l.go, l.event
        );
    }
    if let Some(n) = &l.note {
        let _ = write!(s, "  [scheduler: {n}]");
    }
    s.trim_end().to_owned()
}

pub fn policy_words(p: &Policy) -> String {
    match p {
        Policy::Manual => "manual".to_owned(),
        Policy::Seeded(s) => format!("seeded random, seed {s}"),
        Policy::Scripted {
            script,
            fallback_seed,
        } => {
            format!(
                "scripted ({} entries, then seed {fallback_seed})",
                script.len()
            )
        }
        Policy::Entropy(b) => format!("entropy ({} bytes)", b.len()),
    }
}

/// `proposed: keep=growing, ...` after `before` for a run under knobs apart
/// from its version ([`Model::proposed`]), else nothing: every face labels a
/// proposal so (`", "` in a title, `" ("` after a version's name, closed).
pub fn proposed_words<S: AsRef<str>>(before: &str, proposed: &[S]) -> String {
    if proposed.is_empty() {
        return String::new();
    }
    let knobs: Vec<&str> = proposed.iter().map(AsRef::as_ref).collect();
    let close = if before.ends_with('(') { ")" } else { "" };
    format!("{before}proposed: {}{close}", knobs.join(", "))
}

/// `# name (model @ version), policy`, the first line of a text trace.
pub fn title_line<M: Model>(run: &Run<M>) -> String {
    let h = run.header();
    format!(
        "# {} ({}{}{}), {}",
        h.name,
        h.model,
        h.version.map(|v| format!(" @ {v}")).unwrap_or_default(),
        proposed_words(", ", &run.scenario().proposed()),
        policy_words(run.policy())
    )
}

pub(crate) fn text<M: Model>(run: &Run<M>, with_logs: bool) -> String {
    let mut out = String::new();
    let _ = write_text(run, with_logs, &mut out);
    out
}

/// [`text`], written to `out` a line at a time: nothing of it is held. The
/// step lines are built twice with `with_logs`, the second time for the log
/// lines after them (held until then, a run of 500 requests of 85,000
/// segments held 262 MB of them).
pub(crate) fn write_text<M: Model>(
    run: &Run<M>,
    with_logs: bool,
    out: &mut dyn std::fmt::Write,
) -> std::fmt::Result {
    writeln!(out, "{}", title_line(run))?;
    for r in run.records() {
        writeln!(out, "{}", format_line(&line(run, r)))?;
    }
    if with_logs {
        out.write_str("# Milvus log lines\n")?;
        for r in run.records() {
            let l = line(run, r);
            for g in &l.log {
                writeln!(out, "{:>5}  {g}", l.step)?;
            }
        }
    }
    match run.outcome() {
        Some(o) => writeln!(out, "outcome: {o}")?,
        None => writeln!(out, "outcome: (not finished after {} steps)", run.len())?,
    }
    writeln!(out, "schedule: {}", format_schedule(&run.schedule()))
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvariantJson {
    pub step: u32,
    pub event: String,
}

/// The `--json` object of `flushscope run` (DESIGN.md's contract): the run, then
/// the model's summary of its end (`S`), then the trace (`T`: a [`Trace`],
/// which makes the lines as they are written).
#[derive(Serialize)]
pub struct Report<S, T> {
    pub scenario: String,
    pub model: &'static str,
    pub version: Option<&'static str>,
    /// The what-if changes to the Go code the run makes (see `Model::proposed`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<&'static str>,
    pub seed: u64,
    pub policy: String,
    pub schedule: String,
    pub steps: u32,
    pub outcome: Option<Outcome>,
    pub invariants: Vec<InvariantJson>,
    #[serde(flatten)]
    pub summary: S,
    pub trace: T,
}

/// A run's trace lines, made one at a time as they are serialised: a run's
/// lines can be far bigger than the run (500 requests of 85,000 segments:
/// 285 MB of JSON, 670 MB held when built first).
pub struct Trace<'r, M: Model>(&'r Run<M>);

impl<M: Model> Serialize for Trace<'_, M> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.records().iter().map(|r| line(self.0, r)))
    }
}

pub(crate) fn report<M: Present>(run: &Run<M>) -> Report<M::Summary, Trace<'_, M>> {
    let h = run.header();
    let sc = run.scenario();
    let invariants = run
        .records()
        .iter()
        .filter(|r| {
            run.events_of(r)
                .iter()
                .any(|e| matches!(sc.fact_kind(e), FactKind::Violation))
        })
        .map(|r| {
            let l = line(run, r);
            InvariantJson {
                step: l.step,
                event: l.event,
            }
        })
        .collect();
    let seed = match run.policy() {
        Policy::Seeded(s) => *s,
        Policy::Scripted { fallback_seed, .. } => *fallback_seed,
        _ => h.seed,
    };
    Report {
        scenario: h.name.clone(),
        model: h.model,
        version: h.version,
        proposed: run.scenario().proposed(),
        seed,
        policy: policy_words(run.policy()),
        schedule: format_schedule(&run.schedule()),
        steps: run.len(),
        outcome: run.outcome().cloned(),
        invariants,
        summary: run.scenario().summary(run),
        trace: Trace(run),
    }
}

/// [`to_json`], written to `out` as it is made.
pub fn write_json<S: Serialize, T: Serialize>(
    r: &Report<S, T>,
    pretty: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match pretty {
        true => serde_json::to_writer_pretty(out, r),
        false => serde_json::to_writer(out, r),
    }
    .map_err(std::io::Error::from)
}

/// The report as JSON text.
pub fn to_json<S: Serialize, T: Serialize>(r: &Report<S, T>, pretty: bool) -> String {
    let text = if pretty {
        serde_json::to_string_pretty(r)
    } else {
        serde_json::to_string(r)
    };
    // Serialising plain strings and numbers cannot fail.
    text.unwrap_or_default()
}
