//! The explorer: a search over interleavings. Every runnable choice (including each
//! ready case of a `select`) is a branch; a visited state is remembered by its
//! 64-bit fingerprint only ([`fingerprint`]).
//!
//! * Breadth first ([`Order::Bfs`]), the first schedule found for each violation is
//!   a shortest one; the frontier holds whole states.
//! * Depth first ([`Order::Dfs`], explicit stack), memory is the fingerprints plus
//!   one state per level of the current path; schedules are then shrunk
//!   ([`shrink`]).
//!
//! By default the search stops at the first state that shows a violation;
//! [`Options::all`] goes on to exhaustion. Every budget (states, bytes, depth) stops
//! it with a [`Stopped`] reason and what was covered, never an abort.

mod cut;
pub(crate) mod fingerprint;
mod hb;
mod matrix;
mod outcomes;
#[cfg(not(target_arch = "wasm32"))]
mod parallel;
pub mod prefetch;
mod races;
pub mod reduce;
mod search;
mod shrink;
#[cfg(not(target_arch = "wasm32"))]
mod swarm;

use serde::Serialize;

pub use cut::{not_cut, Cut, CutBudget, OpLine, OpShrink, MAX_CUT_OPS};
pub use fingerprint::{
    collision_bound, fingerprint, fingerprint_hasher, model_state_bytes, state_bytes, FpSet,
};
pub use matrix::{matrix, matrix_text, MatrixRow};
pub use outcomes::{
    end_word, find_outcome, outcome_line, outcomes, outcomes_with, outcomes_within, run_outcome,
    Observe, ObservedOutcome, Outcomes, OutcomesStop,
};
#[cfg(not(target_arch = "wasm32"))]
pub use parallel::explore_threads;
pub use races::{races_at, races_here, run_races, Race, RaceSide, RunRace, RunRaces};
pub use search::Explorer;
pub use shrink::{reaches, replay, shrink, Shrinking};
#[cfg(not(target_arch = "wasm32"))]
pub use swarm::{explore_swarm, GaveWay};

use crate::engine::{blocked_words, End, Model, OutcomeKind};
use crate::sched::Choice;

/// One violation the search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// `panic`, `invariant` or `deadlock`.
    pub kind: OutcomeKind,
    pub message: String,
    /// A schedule reaching it (replay with `flushscope run --schedule`): a shortest
    /// one breadth first, a shrunk one depth first (and after breadth first went
    /// on depth first: [`Found::depth_first`]).
    pub schedule: String,
    pub steps: u32,
    /// The length of the schedule the search found, when shrinking shortened it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk_from: Option<u32>,
    /// The shrink stopped before its end (its replay budget, or a cancel in the
    /// page): a shorter schedule may show the violation.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shrink_stopped: bool,
    /// Found after a breadth-first search went on depth first (see
    /// [`Exploration::depth_first_from`]): its schedule is shrunk, not
    /// necessarily a shortest one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub depth_first: bool,
    /// What makes it distinct (`invariant:notify-order`, `panic:...`, `deadlock`).
    #[serde(skip)]
    pub key: String,
    /// The scenario with its actors' ops cut while the violation still occurs
    /// (see [`OpShrink`]), when the front end cut them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
    /// The page's address with this schedule opened in its stepper, when the
    /// front end gave one (the CLI's `--page`; see [`crate::link`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Found {
    /// A violation `key` found with `schedule`, its `kind` and `message`.
    pub(crate) fn new(
        kind: OutcomeKind,
        message: String,
        key: String,
        schedule: &[Choice],
    ) -> Found {
        Found {
            kind,
            message,
            schedule: crate::sched::format_schedule(schedule),
            steps: schedule.len() as u32,
            shrunk_from: None,
            shrink_stopped: false,
            depth_first: false,
            key,
            cut: None,
            link: None,
        }
    }

    /// The step a front end opens this schedule at: 1 (0 when the start state
    /// shows it: found by a review, the page refused "step 1" of a run of no
    /// steps), or for a data race the step where both racing steps can run
    /// (its last two).
    pub fn open_step(&self) -> u32 {
        match self.kind {
            OutcomeKind::Race => self.steps.saturating_sub(2),
            _ => self.steps.min(1),
        }
    }
}

/// The search order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Breadth first: shortest schedules; the frontier holds whole states. Once
    /// they fill half the memory budget ([`queue_full`]), the search goes on
    /// depth first from each queued state in turn, so the rest of the budget
    /// holds fingerprints (16 bytes a state) rather than a growing queue.
    Bfs,
    /// Depth first: little memory beyond the fingerprints.
    Dfs,
}

impl Order {
    pub fn words(self) -> &'static str {
        match self {
            Order::Bfs => "breadth-first",
            Order::Dfs => "depth-first",
        }
    }
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// Every state within the depth budget was visited.
    Exhausted,
    /// A violation was found (and [`Options::all`] was off).
    FirstViolation,
    /// The state budget was reached.
    MaxStates,
    /// The memory budget was reached.
    MaxBytes,
    /// The caller cancelled it (the progress callback said stop).
    Cancelled,
}

/// How to search, and the budgets (serialised: the page hands a search to its
/// worker).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Paths longer than this are cut (and the search reported incomplete).
    pub max_steps: u32,
    /// Distinct states to visit at most.
    pub max_states: u64,
    /// Estimated bytes the search may hold (fingerprints, frontier, links).
    pub max_bytes: u64,
    pub order: Order,
    /// Go on after the first violation, to every distinct one.
    pub all: bool,
    /// Shrink each schedule found (drop choices while the same violation occurs).
    pub shrink: bool,
    /// Also look for data races: at every state, the footprints of the steps runnable
    /// there are compared pairwise (see [`crate::engine::Access::conflicts`]).
    pub races: bool,
    /// Stop at this violation (its key) only, the others being recorded on the
    /// way; `None`: at the first (unless [`Options::all`]).
    pub target: Option<String>,
    /// Threads a breadth-first search without the race check runs on (native
    /// only); the result is the same for any count (see [`explore_threads`]).
    pub threads: u32,
    /// Tell deadlocks apart by who waits where ([`deadlock_key`]), not one
    /// `deadlock` for all (the op cut keeps a cut only for the same deadlock).
    pub detail_deadlocks: bool,
    /// Skip the second order of steps that commute (sleep sets over
    /// [`reduce::Touched`], for a model whose footprints are complete:
    /// [`crate::engine::Model::REDUCIBLE`]; on one thread). The same states are
    /// visited and the same violations found (breadth first, with schedules as
    /// short), in fewer steps of the model.
    pub reduce: bool,
    /// Tell apart states that differ only in the ids of their goroutines (see
    /// [`crate::engine::Model::fingerprint_up_to_ids`]). Off, such states are
    /// one, where the model allows it ([`crate::engine::Model::MERGES_IDS`]);
    /// sleep sets need it on (their sleeping steps name goroutines by id), so
    /// `reduce` applies only with it.
    pub ids: bool,
    /// Steps a run took before the search's first state (the race lens searches
    /// from a state inside a run): the scenario's step limit counts from the
    /// run's start, so a path may be `max_steps - from_depth` long at most.
    pub from_depth: u32,
}

/// What a report shows for a schedule of no steps.
pub const ZERO_STEPS: &str =
    "none: the initial state shows it (`flushscope run` without --schedule shows it too)";

/// The default memory budget where the machine's memory is unknown (wasm).
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;
/// How often (in visited states) the progress callback runs and memory is checked.
pub const PROGRESS_EVERY: u64 = 4096;

/// Depth first on several threads, each tells the others the states it
/// visited this many at a time; each stops at the state budget as told, so
/// they may pass it by this many each but one (63 untold, and one it has
/// just inserted and not counted yet).
pub(crate) const TELL_STATES: u64 = 64;

impl Options {
    /// The search the CLI runs by default: breadth first, stop at the first
    /// violation, shrink.
    pub fn first(max_steps: u32, max_states: u64) -> Options {
        Options {
            max_steps,
            max_states,
            max_bytes: DEFAULT_MAX_BYTES,
            order: Order::Bfs,
            all: false,
            shrink: true,
            races: false,
            target: None,
            threads: 1,
            detail_deadlocks: false,
            reduce: false,
            ids: false,
            from_depth: 0,
        }
    }

    /// Every distinct violation with a shortest schedule (breadth first, to the end).
    pub fn exhaustive(max_steps: u32, max_states: u64) -> Options {
        Options {
            all: true,
            shrink: false,
            ..Options::first(max_steps, max_states)
        }
    }

    /// These options as a search of `sc` applies them: `reduce` only where
    /// `M`'s footprints allow sleep sets and states are told apart by goroutine
    /// ids (see [`Options::merges_ids`]), and no path longer than the
    /// scenario's step limit, where its runs stop (a schedule found past it
    /// would not replay: `flushscope run` ends at the limit).
    pub fn applied<M: Model>(&self, sc: &M) -> Options {
        Options {
            reduce: self.reduce && M::REDUCIBLE && !self.merges_ids::<M>(),
            max_steps: self.max_steps.min(self.steps_left(sc.header())),
            ..self.clone()
        }
    }

    /// The steps a run may take after the search's first state before the
    /// scenario's step limit stops it.
    pub fn steps_left(&self, header: &crate::scenario::Header) -> u32 {
        header.max_steps.saturating_sub(self.from_depth)
    }

    /// Whether a search of `M` takes states that differ only in goroutine ids
    /// as one: where `M` allows it, unless [`Options::ids`].
    pub fn merges_ids<M: Model>(&self) -> bool {
        M::MERGES_IDS && !self.ids
    }

    /// The fingerprint a search of `M` with these options remembers of `s`.
    pub(crate) fn fingerprint<M: Model>(&self, sc: &M, s: &M::State) -> u64 {
        match self.merges_ids::<M>() {
            true => sc.fingerprint_up_to_ids(s),
            false => sc.fingerprint(s),
        }
    }

    /// Whether finding `key` ends the search: the first violation does, unless
    /// [`Options::all`]; with [`Options::target`], only that one.
    pub fn stops_at(&self, key: &str) -> bool {
        !self.all && self.target.as_deref().is_none_or(|t| t == key)
    }

    /// Zero budgets are refused: they would explore nothing.
    pub fn check(&self) -> Result<(), String> {
        if self.max_steps == 0 {
            return Err("--max-steps must be at least 1".into());
        }
        if self.max_states == 0 {
            return Err("--max-states must be at least 1".into());
        }
        // Breadth first links each state to its parent by a 32-bit index.
        if self.order == Order::Bfs && self.max_states > u64::from(u32::MAX) {
            return Err(format!(
                "--max-states above {} needs --order dfs (got {})",
                u32::MAX,
                self.max_states
            ));
        }
        check_max_memory(self.max_bytes)
    }
}

/// Refuses a memory budget under 1 MiB (the explorer's and the log search's).
pub(crate) fn check_max_memory(max_bytes: u64) -> Result<(), String> {
    match max_bytes {
        1 => Err("--max-memory must be at least 1M (got 1 byte)".to_owned()),
        b if b < 1 << 20 => Err(format!("--max-memory must be at least 1M (got {b} bytes)")),
        _ => Ok(()),
    }
}

/// Where a running search stands (passed to the progress callback).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct Progress {
    pub states: u64,
    pub transitions: u64,
    /// The deepest level reached.
    pub depth: u32,
    /// States waiting (breadth first) or on the path, with children made ahead
    /// (depth first).
    pub frontier: u64,
    /// The estimated bytes held.
    pub bytes: u64,
    pub violations: u32,
}

/// What a search covered and found (the page's worker sends it as its JSON:
/// `flush-worker`'s `wire.rs` reads it back).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exploration {
    pub scenario: String,
    pub version: Option<&'static str>,
    /// The knobs set apart from the version ([`Model::proposed`]): the search
    /// is of a proposal, labelled so.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<&'static str>,
    pub order: Order,
    pub states: u64,
    pub transitions: u64,
    /// The deepest level reached.
    pub depth: u32,
    pub stopped: Stopped,
    /// Paths cut at `max_steps` (the search is then incomplete, unless that
    /// was the scenario's step limit: see `scenario_step_limit`).
    pub depth_cut: u64,
    /// The depth budget was the scenario's step limit (its `max_steps`, where
    /// its runs stop), not the search's own.
    pub scenario_step_limit: bool,
    /// True if a budget (states, bytes, the search's own depth) or a cancel cut
    /// the search short.
    pub truncated: bool,
    /// The most bytes the search held (estimated).
    pub peak_bytes: u64,
    /// Stopped at the memory budget: the bytes one more state would have made
    /// it hold (the visited set's table grows by 7/4 and the old one lives while
    /// it grows, and states are measured larger as the search goes on, so this
    /// may exceed the budget by more than one state though `peak_bytes` is well
    /// under it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needed_bytes: Option<u64>,
    /// An upper bound on the chance that a fingerprint collision hid a state.
    pub collision_bound: f64,
    /// Whether sleep sets were used ([`Options::reduce`], for a model whose
    /// footprints are complete): asked for and not used means the model was
    /// explored in full.
    pub reduced: bool,
    /// Whether states that differ only in goroutine ids were taken as one
    /// ([`Options::ids`] off, for a model that allows it).
    pub ids_merged: bool,
    /// Breadth first only: the depth of the queued states when they filled half
    /// the memory budget and the search went on depth first from each of them
    /// ([`queue_full`]); what it found from there has [`Found::depth_first`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_first_from: Option<u32>,
    pub violations: Vec<Found>,
    /// Depth first on several threads, which gave way to one thread (that
    /// searched again from the start): how far they went and why, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_way: Option<String>,
    /// Depth first on this many threads, which the state budget stopped (and
    /// nothing found): the report is theirs, as which states a stopped search
    /// covered depends on the order it visits them in, whatever the threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_on_threads: Option<u32>,
    /// Wall time, filled in by the caller (the core has no clock).
    pub time_ms: Option<u64>,
    /// The budgets, to say which to raise.
    #[serde(skip)]
    pub options: Option<Options>,
}

impl Exploration {
    /// What a finding's schedule is, in the report's words.
    fn schedule_words(&self, v: &Found) -> String {
        let mut what = match (self.order, v.shrunk_from) {
            (_, Some(from)) => format!("shrunk schedule (found with {from} steps)"),
            (Order::Bfs, None) if !v.depth_first => "shortest schedule".to_owned(),
            (_, None) => "schedule".to_owned(),
        };
        if v.shrink_stopped {
            what.push_str(&format!(
                " (its shrink stopped at its budget of {SHRINK_REPLAYS} replays: a shorter one may exist)"
            ));
        }
        what
    }

    /// The report's `threads:` line, if any: depth first on several threads,
    /// which gave way to one or which a budget stopped.
    fn threads_words(&self) -> String {
        if let Some(g) = &self.gave_way {
            return format!("threads: {g}\n");
        }
        let Some(t) = self.budget_on_threads else {
            return String::new();
        };
        let slack = match self.stopped {
            Stopped::MaxStates => format!(
                " (they tell each other their counts {TELL_STATES} states at a time, so theirs may pass the state budget by up to {})",
                TELL_STATES * u64::from(t.saturating_sub(1))
            ),
            _ => String::new(),
        };
        format!("threads: {t} searched depth first until a budget stopped them{slack}; which states a stopped search covers depends on the order it visits them in, so another thread count covers others (--threads 1 gives one thread's report)\n")
    }

    pub fn text(&self) -> String {
        let mut s = format!(
            "# explore {}{}{}\n",
            self.scenario,
            self.version.map(|v| format!(" @ {v}")).unwrap_or_default(),
            crate::report::proposed_words(", ", &self.proposed)
        );
        s.push_str(&format!(
            "states explored: {} ({} transitions, depth {}), {}\n",
            self.states,
            self.transitions,
            self.depth,
            self.order.words()
        ));
        if let Some(w) = self.depth_first_words() {
            s.push_str(&format!("order: {w}; --max-memory raises the budget\n"));
        }
        s.push_str(&self.threads_words());
        match self.time_ms {
            // Below 10 ms a rate says more about the clock than the search.
            Some(t) if t >= 10 => {
                let rate = self.states as f64 * 1000.0 / t as f64;
                s.push_str(&format!("time: {t} ms ({rate:.0} states/s)\n"));
            }
            Some(t) => s.push_str(&format!("time: {t} ms\n")),
            None => {}
        }
        s.push_str(&format!(
            "stopped: {}{}\n",
            self.stopped_words(),
            self.cli_hint()
        ));
        if self.depth_cut > 0 {
            s.push_str(&self.cut_words());
        }
        if self.reduced {
            s.push_str("reduction: sleep sets (steps that commute taken in one order)\n");
        }
        if self.ids_merged {
            s.push_str("states: one for all that differ only in the numbers the model gave what it created (goroutines; in flush-2021 also runners, channels and the order of queues), which a Go program does not see (--keep-ids tells them apart)\n");
        }
        s.push_str(&format!(
            "fingerprints: 64-bit; chance that a collision hid a state: at most {:.1e}; memory held at most ~{}\n",
            self.collision_bound,
            bytes_words(self.peak_bytes)
        ));
        if self.violations.is_empty() {
            s.push_str("violations: none");
            s.push_str(if self.truncated {
                " found so far\n"
            } else {
                "\n"
            });
        }
        for v in &self.violations {
            let what = self.schedule_words(v);
            // No step: the initial state shows it (`run` takes no empty
            // --schedule, and needs none to show it).
            let schedule = match v.steps {
                0 => ZERO_STEPS.to_owned(),
                _ => v.schedule.clone(),
            };
            s.push_str(&format!(
                "{}: {}\n  {what}, {}: {schedule}\n",
                v.kind.as_str(),
                v.message,
                crate::report::steps_words(v.steps),
            ));
            if let Some(l) = &v.link {
                s.push_str(&format!("  open in the page: {l}\n"));
            }
            if let Some(c) = &v.cut {
                s.push_str(&c.text());
            }
        }
        s
    }

    /// Where a breadth-first search went on depth first, in words any front
    /// end can show (see [`Exploration::depth_first_from`]).
    pub fn depth_first_words(&self) -> Option<String> {
        self.depth_first_from.map(|d| {
            format!("breadth first to depth {d}, where the queued states filled half the memory budget; then depth first from each of them (schedules found from there are not necessarily shortest)")
        })
    }

    /// Whether the search went depth first, from the start or after breadth first.
    fn goes_depth_first(&self) -> bool {
        self.order == Order::Dfs || self.depth_first_from.is_some()
    }

    /// The line on the paths cut at the depth budget (`depth_cut > 0`): which
    /// limit cut them, and how to look deeper.
    fn cut_words(&self) -> String {
        // The scenario's limit counts from the run's start (a search from
        // inside a run, as the race lens's, starts `from_depth` steps in).
        let max = self
            .options
            .as_ref()
            .map_or(0, |o| match self.scenario_step_limit {
                true => o.max_steps.saturating_add(o.from_depth),
                false => o.max_steps,
            });
        let paths = match self.depth_cut {
            1 => "path was",
            _ => "paths were",
        };
        let n = self.depth_cut;
        match (self.scenario_step_limit, self.truncated) {
            (true, true) => format!("incomplete: {n} {paths} cut at the scenario's step limit (its \"max_steps\", {max}), where its runs stop; depth first, a state first reached there is not searched again from a shorter path\n"),
            (true, false) => format!("step limit: {n} {paths} cut at the scenario's step limit (its \"max_steps\", {max}), where its runs stop; raise it in the file to look deeper\n"),
            (false, _) => format!("incomplete: {n} {paths} cut at --max-steps {max}; raise it to look deeper\n"),
        }
    }

    /// Why it stopped, in words any front end can show.
    pub fn stopped_words(&self) -> String {
        let o = self.options.clone().unwrap_or_else(|| Options::first(0, 0));
        match self.stopped {
            // Depth first, a state first reached at the depth budget is not
            // searched again from a shorter path.
            // The scenario's own limit: its runs stop there, nothing lies past it.
            Stopped::Exhausted
                if self.depth_cut > 0 && self.goes_depth_first() && self.scenario_step_limit =>
            {
                "every state of the scenario's runs reached was visited (they stop at its step limit; depth first: a state first reached at the limit is not searched again from a shorter path)".to_owned()
            }
            Stopped::Exhausted if self.depth_cut > 0 && self.goes_depth_first() => {
                format!(
                    "every state reached within the depth budget ({}) was visited, and {}: a violation further on is not ruled out (depth first: a state first reached at the budget is not searched again from a shorter path)",
                    crate::report::steps_words(o.max_steps),
                    self.past_budget()
                )
            }
            Stopped::Exhausted if self.depth_cut > 0 && self.scenario_step_limit => {
                match o.from_depth {
                    0 => "every state of the scenario's runs was visited (they stop at its step limit)".to_owned(),
                    n => format!("every state of the runs that go on from step {n} was visited (they stop at the scenario's step limit)"),
                }
            }
            Stopped::Exhausted if self.depth_cut > 0 => format!(
                "every state within the depth budget ({}) was visited, and {}: a violation further on is not ruled out",
                crate::report::steps_words(o.max_steps),
                self.past_budget()
            ),
            Stopped::Exhausted => "every reachable state was visited".to_owned(),
            Stopped::FirstViolation => "at the first violation".to_owned(),
            Stopped::MaxStates => format!(
                "the state budget ({} {}) was reached: the search is incomplete",
                o.max_states,
                if o.max_states == 1 { "state" } else { "states" }
            ),
            Stopped::MaxBytes => match self.needed_bytes {
                Some(n) => format!(
                    "the memory budget ({}) was reached: it held ~{}, and one more state would have made that ~{}; the search is incomplete",
                    bytes_words(o.max_bytes),
                    bytes_words(self.peak_bytes),
                    bytes_words(n)
                ),
                None => format!(
                    "the memory budget ({}) was reached: the search is incomplete",
                    bytes_words(o.max_bytes)
                ),
            },
            Stopped::Cancelled => "cancelled: the search is incomplete".to_owned(),
        }
    }

    /// The paths the depth budget cut, in words: `1 path goes on past it`.
    fn past_budget(&self) -> String {
        match self.depth_cut {
            1 => "1 path goes on past it".to_owned(),
            n => format!("{n} paths go on past it"),
        }
    }

    /// What the CLI adds to [`Exploration::stopped_words`]: the flag that goes further.
    fn cli_hint(&self) -> &'static str {
        let bfs = self.options.as_ref().is_some_and(|o| o.order == Order::Bfs);
        match self.stopped {
            Stopped::FirstViolation => " (--all goes on to every distinct one)",
            Stopped::MaxStates => "; raise --max-states to go on",
            Stopped::MaxBytes if bfs => {
                "; raise --max-memory, or search depth first (--order dfs), which holds far less"
            }
            Stopped::MaxBytes => "; raise --max-memory to go on",
            Stopped::Exhausted | Stopped::Cancelled => "",
        }
    }
}

/// `1.5 GiB`, `12 MiB`, `2.9 MiB`, `800 KiB`: rounded to the nearest, a
/// tenth below 10 MiB (whole MiB print whole). It took whole MiB down, so a
/// search that held 2,096,836 bytes under a 2 MiB budget said "held ~1 MiB".
pub fn bytes_words(b: u64) -> String {
    const K: u64 = 1 << 10;
    const M: u64 = 1 << 20;
    const G: u64 = 1 << 30;
    if b >= G {
        format!("{:.1} GiB", b as f64 / G as f64)
    } else if b >= 10 * M || b % M == 0 {
        format!("{} MiB", (b + M / 2) / M)
    } else if b >= M {
        let tenths = (b * 10 + M / 2) / M;
        format!("{}.{} MiB", tenths / 10, tenths % 10)
    } else {
        format!("{} KiB", b.div_ceil(K))
    }
}

/// One finding of a state: kind, message, and the key that makes it distinct.
pub(crate) type Finding = (OutcomeKind, String, String);

/// What a state shows: every distinct invariant broken on the path to it (the
/// state keeps them all), a Go panic, or a deadlock, as (kind, message, key); and
/// whether the run ended there. The verdict the run judges by.
pub(crate) fn findings<M: Model>(sc: &M, w: &M::State) -> (Vec<Finding>, bool) {
    findings_new(sc, w, |_| false)
}

/// [`findings`] less the broken invariants whose ids `known` names (a search's
/// found ones): what a search judges each state by. A state keeps every
/// invariant broken on its path, so most states of a buggy version show only
/// known ones; their messages are not built (that was a third of a search's
/// time at ca7ef26e4b with `--all`).
pub(crate) fn findings_new<M: Model>(
    sc: &M,
    w: &M::State,
    known: impl Fn(&str) -> bool,
) -> (Vec<Finding>, bool) {
    let mut fresh = false;
    sc.violation_ids(w, &mut |id| fresh |= !known(id));
    let mut found: Vec<Finding> = match fresh {
        false => Vec::new(),
        true => sc
            .violations(w)
            .into_iter()
            .filter(|x| !known(x.id))
            .map(|x| {
                (
                    OutcomeKind::Invariant,
                    format!("{}: {}", x.id, x.message),
                    invariant_key(x.id),
                )
            })
            .collect(),
    };
    let end = sc.run_end(w);
    let ended = end.is_some();
    match end {
        Some(End::Panic { message, .. }) => {
            let key = format!("panic:{message}");
            found.push((OutcomeKind::Panic, message, key));
        }
        Some(End::Deadlock(blocked)) => {
            found.push((
                OutcomeKind::Deadlock,
                blocked_words(&blocked),
                "deadlock".to_owned(),
            ));
        }
        Some(End::Completed) | None => {}
    }
    (found, ended)
}

/// The key a broken invariant is found under.
fn invariant_key(id: &str) -> String {
    format!("{INVARIANT}{id}")
}

/// What an invariant's key starts with.
const INVARIANT: &str = "invariant:";

/// Whether `key` is the key of the invariant `id`.
pub(crate) fn is_invariant_key(key: &str, id: &str) -> bool {
    key.strip_prefix(INVARIANT) == Some(id)
}

/// A deadlock's key that says who waits where: each blocked goroutine's kind
/// and blocking point, sorted, with every number left out (a cut scenario
/// numbers goroutines, ops and counts anew: "g4", "op #2", "(3 so far)").
pub fn deadlock_key(message: &str) -> String {
    let mut parts: Vec<String> = message
        .split("; ")
        .map(|p| {
            let mut out = String::with_capacity(p.len());
            for c in p.chars() {
                match (c.is_ascii_digit(), out.ends_with('#')) {
                    (true, true) => {}
                    (true, false) => out.push('#'),
                    (false, _) => out.push(c),
                }
            }
            out
        })
        .collect();
    crate::order::sort_by(&mut parts, Ord::cmp);
    format!("deadlock:{}", parts.join("; "))
}

/// The key a search records a finding under, as `o` says.
pub(crate) fn finding_key(o: &Options, kind: OutcomeKind, message: &str, key: String) -> String {
    if o.detail_deadlocks && kind == OutcomeKind::Deadlock {
        deadlock_key(message)
    } else {
        key
    }
}

/// The keys of what a state shows (each broken invariant, a panic, a deadlock):
/// what [`Explorer::from_state`] takes as already known.
pub fn finding_keys<M: Model>(sc: &M, w: &M::State) -> Vec<String> {
    findings(sc, w).0.into_iter().map(|f| f.2).collect()
}

/// The report of a search: its counts (`stats`, why it stopped, paths cut at
/// the depth budget, the most bytes held) and what it found.
pub(crate) fn report<M: Model>(
    sc: &M,
    o: &Options,
    (stats, stopped, depth_cut, peak_bytes): (Progress, Stopped, u64, u64),
    violations: Vec<Found>,
) -> Exploration {
    let header = sc.header();
    Exploration {
        scenario: header.name.clone(),
        version: header.version,
        proposed: sc.proposed(),
        order: o.order,
        states: stats.states,
        transitions: stats.transitions,
        depth: stats.depth,
        stopped,
        depth_cut,
        scenario_step_limit: o.max_steps >= o.steps_left(header),
        // Paths cut where the scenario's runs stop leave none of its runs
        // unexplored: only a budget of the search's own truncates it.
        truncated: (depth_cut > 0 && o.max_steps < o.steps_left(header))
            || matches!(
                stopped,
                Stopped::MaxStates | Stopped::MaxBytes | Stopped::Cancelled
            ),
        peak_bytes,
        needed_bytes: None,
        collision_bound: collision_bound(stats.states),
        // The explorer turns `reduce` off where it does not apply.
        reduced: o.reduce,
        ids_merged: o.merges_ids::<M>(),
        depth_first_from: None,
        violations,
        gave_way: None,
        budget_on_threads: None,
        time_ms: None,
        options: Some(o.clone()),
    }
}

/// Breadth first: whether `queued` states of `state_bytes` each fill half of
/// `max_bytes`, so the search goes on depth first (see [`Order::Bfs`]). The one-
/// and the many-thread search ask it before each state they take off the queue.
pub(crate) fn queue_full(queued: u64, state_bytes: u64, max_bytes: u64) -> bool {
    queued.saturating_mul(state_bytes) > max_bytes / 2
}

/// Replays a shrinking attempt may take, per violation.
pub const SHRINK_REPLAYS: u32 = 20_000;

/// Whether a search with `o` shrinks (when shrinking) what it found as `f`: what
/// it found depth first, whose schedule is not necessarily a shortest one.
pub fn wants_shrink(o: &Options, f: &Found) -> bool {
    o.order == Order::Dfs || f.depth_first
}

/// The runnable choices the race lens looks ahead from: the first ones of a
/// step with more (a search each; 3,000 runnable goroutines never finished).
/// A choice is a goroutine, or one case of a goroutine's `select`.
pub const LENS_CHOICES: usize = 32;

/// Explores every interleaving of `sc` up to `max_steps` steps deep and
/// `max_states` distinct states, breadth first, to the end: each distinct
/// invariant broken on some path, Go panic and deadlock, with a shortest schedule
/// reaching it.
pub fn explore<M: Model>(sc: &M, max_steps: u32, max_states: u64) -> Exploration {
    explore_with(sc, &Options::exhaustive(max_steps, max_states), &mut |_| {
        true
    })
}

/// Explores `sc` as `o` says. `progress` runs every [`PROGRESS_EVERY`] states;
/// returning false cancels the search (what was found so far is reported).
pub fn explore_with<M: Model>(
    sc: &M,
    o: &Options,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Exploration {
    let mut x = Explorer::new(std::sync::Arc::new(sc.clone()), o.clone());
    while !x.run(PROGRESS_EVERY) {
        if !progress(&x.progress()) {
            x.cancel();
        }
    }
    x.finish()
}

/// What the tests that compare two ways of searching depth first share.
#[cfg(test)]
pub(crate) mod cases {
    use super::{Options, Order};
    use crate::AnyScenario;

    /// Depth first to the end, to the first violation, and under a state and
    /// a depth budget.
    pub fn depth_first() -> Vec<Options> {
        let all = Options {
            order: Order::Dfs,
            ..Options::exhaustive(200, 50_000)
        };
        vec![
            Options {
                all: false,
                ..all.clone()
            },
            Options {
                max_states: 700,
                ..all.clone()
            },
            Options {
                max_steps: 9,
                ..all.clone()
            },
            all,
        ]
    }

    /// `f` of each built-in and of `extra` (sync-2024 at every version), with
    /// its name and version.
    pub fn every_builtin(extra: &[&'static str], mut f: impl FnMut(&str, AnyScenario)) {
        for name in crate::builtin::names()
            .into_iter()
            .chain(extra.iter().copied())
        {
            let sc = crate::builtin::get(name).expect("a built-in");
            let mut every = sc.at_every_version();
            if every.is_empty() {
                every.push(sc);
            }
            for sc in every {
                f(&format!("{name}@{:?}", sc.header().version), sc);
            }
        }
    }
}
