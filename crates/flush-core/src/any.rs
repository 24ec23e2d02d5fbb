//! [`AnyRun`]: a run of either model, for front ends that load any scenario.

use std::sync::Arc;

use crate::engine::{Model, Outcome, Run, Stop};
use crate::report::{self, Report, TraceLine};
use crate::scenario::{ModelKind, Scenario};
use crate::sched::{Choice, Policy};
use crate::{flush2021, sync2024};

/// A run of whichever model the scenario names. (One lives per front end, so the
/// size difference of the variants does not matter.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub enum AnyRun {
    Flush(Run<flush2021::World>),
    Sync(Run<sync2024::World>),
}

macro_rules! each {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            AnyRun::Flush($r) => $body,
            AnyRun::Sync($r) => $body,
        }
    };
}

impl AnyRun {
    pub fn new(sc: Arc<Scenario>, policy: Policy) -> AnyRun {
        match sc.model {
            ModelKind::Flush2021 => AnyRun::Flush(Run::new(sc, policy)),
            ModelKind::Sync2024 => AnyRun::Sync(Run::new(sc, policy)),
        }
    }

    pub fn scenario(&self) -> &Scenario {
        each!(self, r => r.scenario())
    }
    pub fn scenario_arc(&self) -> &Arc<Scenario> {
        each!(self, r => r.scenario_arc())
    }
    pub fn policy(&self) -> &Policy {
        each!(self, r => r.policy())
    }
    pub fn len(&self) -> u32 {
        each!(self, r => r.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn cursor(&self) -> u32 {
        each!(self, r => r.cursor())
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        each!(self, r => r.outcome())
    }
    pub fn schedule(&self) -> Vec<Choice> {
        each!(self, r => r.schedule())
    }
    pub fn runnable_here(&self) -> Vec<Choice> {
        each!(self, r => r.runnable_here())
    }
    pub fn advance(&mut self) -> Result<u32, Stop> {
        each!(self, r => r.advance())
    }
    pub fn advance_with(&mut self, c: Choice) -> Result<u32, Stop> {
        each!(self, r => r.advance_with(c))
    }
    pub fn run_to_end(&mut self) -> Option<&Outcome> {
        each!(self, r => r.run_to_end())
    }
    pub fn run_steps(&mut self, n: u32) {
        each!(self, r => r.run_steps(n))
    }
    pub fn goto(&mut self, n: u32) {
        each!(self, r => r.goto(n))
    }

    /// The live goroutines at the cursor, runnable ones first, at most `max`.
    pub fn goroutines(&self, runnable: &[Choice], max: usize) -> Vec<crate::engine::GoroutineView> {
        each!(self, r => r.world().goroutine_views(r.scenario(), runnable, max))
    }

    /// How many goroutines are alive at the cursor.
    pub fn goroutine_count(&self) -> usize {
        match self {
            AnyRun::Flush(r) => r.world().goroutines.len(),
            AnyRun::Sync(r) => r.world().goroutines.len(),
        }
    }

    /// The trace line of step `n` (from 1).
    pub fn line(&self, n: u32) -> Option<TraceLine> {
        each!(self, r => r.record(n).map(|rec| report::line(r, rec)))
    }

    /// Every trace line.
    pub fn lines(&self) -> Vec<TraceLine> {
        each!(self, r => r.records().iter().map(|rec| report::line(r, rec)).collect())
    }

    /// The text trace: one line per step, then the outcome.
    pub fn text(&self, with_logs: bool) -> String {
        report::text(self, with_logs)
    }

    /// The JSON report of the whole recorded run.
    pub fn report(&self) -> Report {
        report::report(self)
    }

    /// The hash of the world at the cursor (for "same state" checks and exploration).
    pub fn state_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        each!(self, r => r.world().hash(&mut h));
        h.finish()
    }

    /// What a runnable choice at the cursor does, for a button.
    pub fn choice_label(&self, c: Choice) -> String {
        each!(self, r => r.world().choice_label(r.scenario(), c))
    }

    /// The names of the invariants broken by the end of the recorded run.
    pub fn violation_names(&self) -> Vec<&'static str> {
        each!(self, r => r.head().violations(r.scenario()).into_iter().map(|v| v.0).collect())
    }

    /// True if the world at the cursor panicked (Go panic).
    pub fn panicked_here(&self) -> bool {
        each!(self, r => r.world().go_panic().is_some())
    }
}
