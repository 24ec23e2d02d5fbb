//! Trace output shared by the CLI and the browser: text lines and the JSON report
//! of DESIGN.md's CLI contract.

use std::fmt::Write as _;

use serde::Serialize;

use crate::any::AnyRun;
use crate::engine::{Model, Outcome, Run, StepRecord};
use crate::flush2021;
use crate::scenario::{DcSegment, DnSegment, Scenario};
use crate::sched::{format_schedule, Policy};

/// One step, rendered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceLine {
    pub step: u32,
    pub goroutine: u32,
    /// The goroutine's name, e.g. `runner seg=2 pos=a`.
    pub name: String,
    /// `file.go: function` of the Go code the step models.
    pub go: &'static str,
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
        M::ev_render(sc, e, &mut event);
        if let Some(l) = M::ev_log(sc, e) {
            log.extend(l.lines().map(str::to_owned));
        }
        violation |= M::ev_is_violation(e);
        panic |= M::ev_is_panic(e);
    }
    TraceLine {
        step: rec.step,
        goroutine: rec.choice.g,
        name: M::who_name(sc, &rec.who),
        go: evs.first().map_or("", |e| M::ev_go_fn(e)),
        event,
        log,
        note: rec.note.as_ref().map(|n| n.to_string()),
        violation,
        panic,
    }
}

/// `   12  g3    runner seg=2 pos=a        flush_task.go: waitFinish  | runner ...`
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

pub(crate) fn text(run: &AnyRun, with_logs: bool) -> String {
    let sc = run.scenario();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} ({}{}), {}",
        sc.name,
        sc.model.as_str(),
        sc.version
            .map(|v| format!(" @ {}", v.as_str()))
            .unwrap_or_default(),
        policy_words(run.policy())
    );
    let lines = run.lines();
    for l in &lines {
        out.push_str(&format_line(l));
        out.push('\n');
    }
    if with_logs {
        out.push_str("# Milvus log lines\n");
        for l in &lines {
            for g in &l.log {
                let _ = writeln!(out, "{:>5}  {g}", l.step);
            }
        }
    }
    match run.outcome() {
        Some(o) => {
            let _ = writeln!(out, "outcome: {o}");
        }
        None => {
            let _ = writeln!(out, "outcome: (not finished after {} steps)", run.len());
        }
    }
    let _ = writeln!(out, "schedule: {}", format_schedule(&run.schedule()));
    out
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PackJson {
    pub segment: i64,
    pub pos: Option<String>,
    pub flushed: bool,
    pub dropped: bool,
    pub err: bool,
}

/// `seg=4 pos=a flushed`: how the trace and the browser write a pack.
impl std::fmt::Display for PackJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seg={} pos={}",
            self.segment,
            self.pos.as_deref().unwrap_or("nil")
        )?;
        for (on, word) in [
            (self.flushed, " flushed"),
            (self.dropped, " dropped"),
            (self.err, " err"),
        ] {
            if on {
                f.write_str(word)?;
            }
        }
        Ok(())
    }
}

impl PackJson {
    pub fn from_pack(sc: &Scenario, p: &flush2021::Pack) -> PackJson {
        PackJson {
            segment: p.segment,
            pos: p.pos.map(|x| sc.pos_name(x).to_owned()),
            flushed: p.flushed,
            dropped: p.dropped,
            err: p.err,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaJson {
    pub segment: i64,
    pub state: &'static str,
    pub rows: i64,
    pub checkpoint: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvariantJson {
    pub step: u32,
    pub event: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutcomeJson {
    pub kind: &'static str,
    pub message: String,
    pub goroutine: Option<String>,
}

impl From<&Outcome> for OutcomeJson {
    fn from(o: &Outcome) -> OutcomeJson {
        OutcomeJson {
            kind: o.kind.as_str(),
            message: o.message.clone(),
            goroutine: o.goroutine.clone(),
        }
    }
}

/// The `--json` object of `flushscope run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub scenario: String,
    pub model: &'static str,
    pub version: Option<&'static str>,
    pub seed: u64,
    pub policy: String,
    pub schedule: String,
    pub steps: u32,
    pub outcome: Option<OutcomeJson>,
    pub invariants: Vec<InvariantJson>,
    pub notified: Vec<PackJson>,
    pub drop_packs: Option<Vec<PackJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<Vec<ReplicaJson>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metacache: Option<Vec<DnSegment>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datacoord: Option<Vec<DcSegment>>,
    pub trace: Vec<TraceLine>,
}

pub(crate) fn report(run: &AnyRun) -> Report {
    let sc = run.scenario();
    let trace = run.lines();
    let invariants = trace
        .iter()
        .filter(|l| l.violation)
        .map(|l| InvariantJson {
            step: l.step,
            event: l.event.clone(),
        })
        .collect();
    let seed = match run.policy() {
        Policy::Seeded(s) => *s,
        Policy::Scripted { fallback_seed, .. } => *fallback_seed,
        _ => sc.seed,
    };
    let mut r = Report {
        scenario: sc.name.clone(),
        model: sc.model.as_str(),
        version: sc.version.map(|v| v.as_str()),
        seed,
        policy: policy_words(run.policy()),
        schedule: format_schedule(&run.schedule()),
        steps: run.len(),
        outcome: run.outcome().map(OutcomeJson::from),
        invariants,
        notified: Vec::new(),
        drop_packs: None,
        replica: None,
        metacache: None,
        datacoord: None,
        trace,
    };
    match run {
        AnyRun::Flush(f) => {
            for rec in f.records() {
                for e in f.events_of(rec) {
                    if let flush2021::Ev::Notified { pack, .. } = e {
                        r.notified.push(PackJson::from_pack(sc, pack));
                    }
                }
            }
            let w = f.head();
            r.drop_packs = w
                .drop
                .flush_and_drop
                .as_ref()
                .map(|ps| ps.iter().map(|p| PackJson::from_pack(sc, p)).collect());
            r.replica = Some(
                w.replica
                    .iter()
                    .map(|s| ReplicaJson {
                        segment: s.segment,
                        state: s.state.as_str(),
                        rows: s.rows,
                        checkpoint: s.checkpoint.map(|p| sc.pos_name(p).to_owned()),
                    })
                    .collect(),
            );
        }
        AnyRun::Sync(s) => {
            let w = s.head();
            r.metacache = Some(
                w.metacache
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
            );
            r.datacoord = Some(w.datacoord.clone());
        }
    }
    r
}
