//! The model-independent engine: a [`Model`] is a world that knows its runnable
//! choices and how to step; a [`Run`] drives one with a [`Scheduler`], records the
//! trace, checks for the end, and can revisit any step (snapshots plus replay).

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use crate::scenario::Scenario;
use crate::sched::{Choice, Policy, SchedNote, Scheduler};

/// A world that can be stepped. Implemented by the flush-2021 and sync-2024 models.
pub trait Model: Clone + Eq + Hash {
    /// One fact of a step.
    type Ev: Clone;
    /// Who ran a step, captured before it ran (the goroutine may be gone after).
    type Who: Copy;

    fn new(sc: &Scenario) -> Self;
    /// The runnable choices, sorted by goroutine then `select` case.
    fn runnable(&self, sc: &Scenario, out: &mut Vec<Choice>);
    /// How many choices are runnable (as `runnable` would list them).
    fn runnable_len(&self, sc: &Scenario) -> u32 {
        let mut v = Vec::new();
        self.runnable(sc, &mut v);
        v.len() as u32
    }
    /// The `i`-th runnable choice, `i < runnable_len()`.
    fn runnable_at(&self, sc: &Scenario, i: u32) -> Choice {
        let mut v = Vec::new();
        self.runnable(sc, &mut v);
        v[i as usize]
    }
    /// Runs a runnable choice; appends the facts to `ev`; returns who ran.
    fn step(&mut self, sc: &Scenario, c: Choice, ev: &mut Vec<Self::Ev>) -> Self::Who;
    fn who(&self, g: u32) -> Self::Who;
    fn who_name(sc: &Scenario, who: &Self::Who) -> String;
    /// The Go panic that ended the run, if any: goroutine and message.
    fn go_panic(&self) -> Option<(u32, &str)>;
    /// Invariant violations so far: stable name and description.
    fn violations(&self, sc: &Scenario) -> Vec<(&'static str, String)>;
    /// Ids of the live goroutines, in id order.
    fn goroutine_ids(&self) -> Vec<u32>;
    /// A live goroutine described for a reader.
    fn describe(&self, sc: &Scenario, g: u32) -> Option<GoroutineView>;
    /// True for a goroutine that may wait forever harmlessly (an idle inject handler:
    /// Go leaves it in its select).
    fn waits_harmlessly(&self, _g: u32) -> bool {
        false
    }
    /// True when what is left may wait forever harmlessly (the run completed).
    fn quiescent(&self) -> bool {
        self.goroutine_ids()
            .into_iter()
            .all(|g| self.waits_harmlessly(g))
    }
    /// Blocked goroutines, for a deadlock report: (id, name, what it waits on).
    fn blocked(&self, sc: &Scenario) -> Vec<(u32, String, String)> {
        self.goroutine_ids()
            .into_iter()
            .filter(|g| !self.waits_harmlessly(*g))
            .filter_map(|g| self.describe(sc, g))
            .map(|v| (v.id, v.name, v.waits_on))
            .collect()
    }
    /// Live goroutines described for a reader: the runnable ones (`runnable`) first,
    /// then the others, each group by id, at most `max`.
    fn goroutine_views(
        &self,
        sc: &Scenario,
        runnable: &[Choice],
        max: usize,
    ) -> Vec<GoroutineView> {
        let ids = self.goroutine_ids();
        let can_run = |id: &u32| runnable.iter().any(|c| c.g == *id);
        let first = ids.iter().filter(|g| can_run(g));
        let rest = ids.iter().filter(|g| !can_run(g));
        first
            .chain(rest)
            .take(max)
            .filter_map(|g| self.describe(sc, *g))
            .collect()
    }
    /// What a runnable choice does, for a button: "run", or which case of a select.
    fn choice_label(&self, _sc: &Scenario, _c: Choice) -> String {
        "run".to_owned()
    }
    fn ev_go_fn(ev: &Self::Ev) -> &'static str;
    fn ev_render(sc: &Scenario, ev: &Self::Ev, out: &mut String);
    /// The Milvus log line a fact corresponds to, if Milvus logs there.
    fn ev_log(_sc: &Scenario, _ev: &Self::Ev) -> Option<String> {
        None
    }
    /// True if the fact reports an invariant violation.
    fn ev_is_violation(ev: &Self::Ev) -> bool;
    /// True if the fact is a Go panic.
    fn ev_is_panic(ev: &Self::Ev) -> bool;
}

/// A live goroutine as the UI lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoroutineView {
    pub id: u32,
    /// e.g. `runner seg=2 pos=a`.
    pub name: String,
    /// What it waits on (or stands at), with the blocking point's label.
    pub waits_on: String,
    /// `file.go: function` it sits in.
    pub go: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Completed,
    Panic,
    Deadlock,
    Invariant,
    StepLimit,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Completed => "completed",
            OutcomeKind::Panic => "panic",
            OutcomeKind::Deadlock => "deadlock",
            OutcomeKind::Invariant => "invariant",
            OutcomeKind::StepLimit => "step_limit",
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub message: String,
    /// The goroutine concerned (the panicking one), as `g3 name`.
    pub goroutine: Option<String>,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.as_str())?;
        if let Some(g) = &self.goroutine {
            write!(f, " in {g}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// One step of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRecord<W> {
    /// Steps are numbered from 1.
    pub step: u32,
    pub choice: Choice,
    pub who: W,
    /// The step's facts are `events[ev_start..ev_end]`.
    pub ev_start: u32,
    pub ev_end: u32,
    pub note: Option<SchedNote>,
}

/// A world is snapshotted every `SNAPSHOT_EVERY` steps; revisiting step N costs a
/// clone plus at most that many replayed steps.
pub const SNAPSHOT_EVERY: u32 = 256;

/// A run: the scenario, the schedule so far, the trace, and a cursor that can be
/// moved to any recorded step.
#[derive(Clone)]
pub struct Run<M: Model> {
    sc: Arc<Scenario>,
    sched: Scheduler,
    /// World after `cursor` steps, when the cursor is behind the head.
    world: Option<M>,
    cursor: u32,
    /// World after `len()` steps (the end of the recorded run).
    head: M,
    records: Vec<StepRecord<M::Who>>,
    events: Vec<M::Ev>,
    snapshots: Vec<M>,
    outcome: Option<Outcome>,
    scratch: Vec<M::Ev>,
}

/// Why `advance` did not step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run has ended.
    Ended,
    /// The manual policy is waiting for the caller's choice.
    NeedChoice,
    /// The caller's choice is not runnable at the head.
    NotRunnable(Choice),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Ended => f.write_str("the run has ended"),
            Stop::NeedChoice => f.write_str("the manual scheduler waits for a choice"),
            Stop::NotRunnable(c) => write!(f, "goroutine {c} is not runnable here"),
        }
    }
}

impl<M: Model> Run<M> {
    pub fn new(sc: Arc<Scenario>, policy: Policy) -> Run<M> {
        let world = M::new(&sc);
        let mut run = Run {
            sched: Scheduler::new(policy),
            head: world.clone(),
            snapshots: vec![world],
            world: None,
            cursor: 0,
            records: Vec::new(),
            events: Vec::new(),
            outcome: None,
            scratch: Vec::new(),
            sc,
        };
        run.refresh_head();
        run
    }

    // ----- getters -----

    pub fn scenario(&self) -> &Scenario {
        &self.sc
    }
    pub fn scenario_arc(&self) -> &Arc<Scenario> {
        &self.sc
    }
    pub fn policy(&self) -> &Policy {
        self.sched.policy()
    }
    /// Number of recorded steps.
    pub fn len(&self) -> u32 {
        self.records.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    pub fn cursor(&self) -> u32 {
        self.cursor
    }
    /// The world after `cursor()` steps.
    pub fn world(&self) -> &M {
        self.world.as_ref().unwrap_or(&self.head)
    }
    /// The world at the end of the recorded run.
    pub fn head(&self) -> &M {
        &self.head
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    pub fn records(&self) -> &[StepRecord<M::Who>] {
        &self.records
    }
    pub fn record(&self, step: u32) -> Option<&StepRecord<M::Who>> {
        step.checked_sub(1)
            .and_then(|i| self.records.get(i as usize))
    }
    pub fn events_of(&self, r: &StepRecord<M::Who>) -> &[M::Ev] {
        &self.events[r.ev_start as usize..r.ev_end as usize]
    }
    pub fn schedule(&self) -> Vec<Choice> {
        self.records.iter().map(|r| r.choice).collect()
    }
    /// Runnable choices at the cursor.
    pub fn runnable_here(&self) -> Vec<Choice> {
        let mut v = Vec::new();
        self.world().runnable(&self.sc, &mut v);
        v
    }

    // ----- stepping at the head -----

    /// Takes one step at the head, chosen by the scheduler. Moves the cursor to the head.
    pub fn advance(&mut self) -> Result<u32, Stop> {
        if self.outcome.is_some() {
            return Err(Stop::Ended);
        }
        let (head, sc) = (&self.head, &self.sc);
        let n = head.runnable_len(sc);
        let Some((choice, note)) = self.sched.pick(n, |i| head.runnable_at(sc, i)) else {
            return Err(Stop::NeedChoice);
        };
        self.apply(choice, note);
        Ok(self.len())
    }

    /// Takes `choice` as the next step after the cursor. If the cursor is behind the
    /// head, the later history is dropped first (a new branch), and the scheduler
    /// becomes manual.
    pub fn advance_with(&mut self, choice: Choice) -> Result<u32, Stop> {
        if self.cursor < self.len() {
            self.truncate_to_cursor();
            self.sched = Scheduler::new(Policy::Manual);
        }
        if self.outcome.is_some() {
            return Err(Stop::Ended);
        }
        let mut here = Vec::new();
        self.head.runnable(&self.sc, &mut here);
        if !here.contains(&choice) {
            return Err(Stop::NotRunnable(choice));
        }
        self.apply(choice, None);
        Ok(self.len())
    }

    /// Steps until the run ends or the scheduler needs a manual choice.
    pub fn run_to_end(&mut self) -> Option<&Outcome> {
        while self.advance().is_ok() {}
        self.outcome.as_ref()
    }

    /// Steps at most `n` times.
    pub fn run_steps(&mut self, n: u32) {
        for _ in 0..n {
            if self.advance().is_err() {
                break;
            }
        }
    }

    fn apply(&mut self, choice: Choice, note: Option<SchedNote>) {
        let start = self.events.len() as u32;
        let who = self.head.step(&self.sc, choice, &mut self.events);
        let step = self.len() + 1;
        self.records.push(StepRecord {
            step,
            choice,
            who,
            ev_start: start,
            ev_end: self.events.len() as u32,
            note,
        });
        if step % SNAPSHOT_EVERY == 0 {
            self.snapshots.push(self.head.clone());
        }
        self.refresh_head();
        self.world = None;
        self.cursor = step;
    }

    fn refresh_head(&mut self) {
        let sc = &self.sc;
        if let Some((g, msg)) = self.head.go_panic() {
            let name = self
                .records
                .last()
                .map(|r| M::who_name(sc, &r.who))
                .unwrap_or_default();
            self.outcome = Some(Outcome {
                kind: OutcomeKind::Panic,
                message: msg.to_owned(),
                goroutine: Some(format!("g{g} {name}")),
            });
            return;
        }
        if self.head.runnable_len(sc) == 0 {
            let violations = self.head.violations(sc);
            self.outcome = Some(if let Some((name, msg)) = violations.first() {
                Outcome {
                    kind: OutcomeKind::Invariant,
                    message: format!("{name}: {msg}"),
                    goroutine: None,
                }
            } else if self.head.quiescent() {
                Outcome {
                    kind: OutcomeKind::Completed,
                    message: String::new(),
                    goroutine: None,
                }
            } else {
                let blocked = self.head.blocked(sc);
                let words: Vec<String> = blocked
                    .iter()
                    .map(|(g, n, w)| format!("g{g} {n} waits on {w}"))
                    .collect();
                Outcome {
                    kind: OutcomeKind::Deadlock,
                    message: words.join("; "),
                    goroutine: None,
                }
            });
            return;
        }
        if self.len() >= sc.max_steps {
            self.outcome = Some(Outcome {
                kind: OutcomeKind::StepLimit,
                message: format!("stopped after {} steps with work left", self.len()),
                goroutine: None,
            });
        }
    }

    fn truncate_to_cursor(&mut self) {
        let n = self.cursor;
        if let Some(r) = self.records.get(n as usize) {
            self.events.truncate(r.ev_start as usize);
        }
        self.records.truncate(n as usize);
        self.snapshots.truncate((n / SNAPSHOT_EVERY) as usize + 1);
        if let Some(w) = self.world.take() {
            self.head = w;
        }
        self.outcome = None;
        self.refresh_head();
    }

    // ----- time travel -----

    /// The world after `n` steps, without moving the cursor.
    pub fn world_at(&self, n: u32) -> M {
        let n = n.min(self.len());
        if n == self.cursor {
            return self.world().clone();
        }
        if n == self.len() {
            return self.head.clone();
        }
        let base = (n / SNAPSHOT_EVERY) * SNAPSHOT_EVERY;
        let mut w = self.snapshots[(n / SNAPSHOT_EVERY) as usize].clone();
        let mut scratch = Vec::new();
        for i in base..n {
            scratch.clear();
            w.step(&self.sc, self.records[i as usize].choice, &mut scratch);
        }
        w
    }

    /// Replays the whole recorded run once, calling `f(step, world)` for step 0..=len.
    pub fn for_each_world(&self, mut f: impl FnMut(u32, &M)) {
        let mut w = self.snapshots[0].clone();
        f(0, &w);
        let mut scratch = Vec::new();
        for (i, r) in self.records.iter().enumerate() {
            scratch.clear();
            w.step(&self.sc, r.choice, &mut scratch);
            f(i as u32 + 1, &w);
        }
    }

    /// Moves the cursor to step `n` (0 = the initial state), clamped to the run.
    pub fn goto(&mut self, n: u32) {
        let n = n.min(self.len());
        if n == self.cursor {
            return;
        }
        if n == self.len() {
            self.world = None;
            self.cursor = n;
            return;
        }
        // Replay forward from the cursor when it is close behind, else from a snapshot.
        let base = (n / SNAPSHOT_EVERY) * SNAPSHOT_EVERY;
        let mut world = match self.world.take() {
            Some(w) if self.cursor <= n && self.cursor >= base => w,
            _ => {
                self.cursor = base;
                self.snapshots[(n / SNAPSHOT_EVERY) as usize].clone()
            }
        };
        while self.cursor < n {
            let c = self.records[self.cursor as usize].choice;
            self.scratch.clear();
            world.step(&self.sc, c, &mut self.scratch);
            self.cursor += 1;
        }
        self.world = Some(world);
    }
}
