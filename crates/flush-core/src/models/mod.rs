//! The models, and the registry: the one file that names every model. Front ends
//! hold an [`AnyScenario`] or an [`AnyRun`] and never a model's own types.
//!
//! Adding a model: a folder here with its scenario type implementing
//! [`crate::engine::Model`], [`crate::view::Present`] and
//! [`crate::explore::Observe`], then one line in each list below
//! (ARCHITECTURE.md, "Add a model").

pub mod flush2021;
pub mod mutex;
pub mod sync2024;

use std::sync::Arc;

use crate::engine::{Model, Outcome, Run, Stop};
use crate::explore::{self, Exploration, ObservedOutcome};
use crate::report::{self, TraceLine};
use crate::scenario::json::{Node, Src};
use crate::scenario::{self, Format, Header, ScenarioError, VersionInfo};
use crate::sched::{Choice, Policy};
use crate::view::{Figures, Present, Stage};

/// Every model's file format, in the order `flushscope list` shows them.
pub const FORMATS: &[Format] = &[flush2021::FORMAT, sync2024::FORMAT, mutex::FORMAT];

/// A checked scenario of any model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyScenario {
    Flush(Arc<flush2021::Scenario>),
    Sync(Arc<sync2024::Scenario>),
    Mutex(Arc<mutex::Scenario>),
}

/// A run of any model. (One lives per front end, so the size difference of the
/// variants does not matter.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub enum AnyRun {
    Flush(Run<flush2021::Scenario>),
    Sync(Run<sync2024::Scenario>),
    Mutex(Run<mutex::Scenario>),
}

macro_rules! each_scenario {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            AnyScenario::Flush($s) => $body,
            AnyScenario::Sync($s) => $body,
            AnyScenario::Mutex($s) => $body,
        }
    };
}

macro_rules! each_run {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            AnyRun::Flush($r) => $body,
            AnyRun::Sync($r) => $body,
            AnyRun::Mutex($r) => $body,
        }
    };
}

/// The generated scenarios listed beside the files (other sizes load by name).
pub const LISTED_GENERATED: &[&str] = &[crate::builtin::PAIRS_1000, sync2024::setup::SCALED_4X3];

/// What is not in the list of [`crate::builtin::names`]: the other sizes of the generated
/// built-ins, in words.
pub fn generated_words() -> String {
    use {flush2021::setup::PAIRS, sync2024::setup as sync};
    let range = |r: &std::ops::RangeInclusive<u32>| format!("{} to {}", r.start(), r.end());
    format!(
        "pairs-N (N from {}) and sync-scaled-SxT (S segments from {}, T ticks from {}) in other sizes",
        range(&PAIRS),
        range(&sync::SCALED_SEGMENTS),
        range(&sync::SCALED_TICKS)
    )
}

impl AnyScenario {
    /// Searches for a schedule of this scenario that prints `log`'s lines in order
    /// (see [`crate::logs::conform`]).
    pub fn conform(
        &self,
        log: &crate::logs::Parsed,
        o: &crate::logs::conform::Options,
    ) -> crate::logs::conform::Conformance {
        each_scenario!(self, s => crate::logs::conform::conform(s.as_ref(), log, o))
    }

    /// A scenario file inferred from a log, for the one model that infers them
    /// (sync-2024: the #34018 machinery; flush-2021's lines at 891c202b73 name a
    /// segment and little else, too little to infer its actors).
    pub fn infer_from_log(log: &crate::logs::Parsed) -> Result<crate::logs::Inferred, String> {
        sync2024::import::infer(log)
    }

    /// The segments a log line names, as [`AnyScenario::infer_from_log`] reads them.
    pub fn segments_named(l: &crate::logs::LogLine) -> Vec<i64> {
        sync2024::import::named_segments(l).collect()
    }

    /// Every segment this scenario names (datacoord's, the datanode's, the
    /// actors' ops'), for the model whose log lines name segments (sync-2024);
    /// `None` for the others. No schedule prints a line of another segment:
    /// the model makes none.
    pub fn segments(&self) -> Option<std::collections::BTreeSet<i64>> {
        let AnyScenario::Sync(s) = self else {
            return None;
        };
        use sync2024::setup::Op;
        let ops = s
            .actors
            .iter()
            .flat_map(|a| &a.ops)
            .filter_map(|op| match op {
                Op::Insert { segment, .. } | Op::Seal { segment } | Op::Sync { segment, .. } => {
                    Some(*segment)
                }
                Op::SyncSegments { .. } | Op::WaitFor(_) => None,
            });
        Some(
            s.datacoord
                .iter()
                .map(|d| d.segment)
                .chain(s.datanode.iter().map(|d| d.segment))
                .chain(ops)
                .collect(),
        )
    }

    /// Parses and checks a scenario file of any model. `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<AnyScenario, ScenarioError> {
        // A UTF-8 byte order mark (some Windows editors write one) is not JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let json = scenario::parse_text(text, file)?;
        let root = Node::root(&json, Src { file, text });
        let format = scenario::model_of(&root, FORMATS)?;
        Ok(match format.model {
            flush2021::setup::MODEL => {
                AnyScenario::Flush(Arc::new(flush2021::Scenario::read(&root, FORMATS)?))
            }
            sync2024::setup::MODEL => {
                AnyScenario::Sync(Arc::new(sync2024::Scenario::read(&root, FORMATS)?))
            }
            mutex::MODEL => AnyScenario::Mutex(Arc::new(mutex::Scenario::read(&root, FORMATS)?)),
            other => unreachable!("model {other} is in FORMATS but not here"),
        })
    }

    /// A generated scenario (`pairs-N`, `sync-scaled-SxT`), if some model makes one
    /// by that name.
    pub fn generated(name: &str) -> Option<AnyScenario> {
        if let Some(s) = flush2021::setup::generated(name) {
            return Some(AnyScenario::Flush(Arc::new(s)));
        }
        let text = sync2024::setup::generated_json(name)?;
        // Generated text from fixed pieces: failing to parse is a bug here.
        Some(AnyScenario::parse(&text, name).expect("generated scenario parses"))
    }

    pub fn header(&self) -> &Header {
        each_scenario!(self, s => s.header())
    }

    /// Changes the header (a front end's step limit, a seed).
    pub fn header_mut(&mut self) -> &mut Header {
        each_scenario!(self, s => Model::header_mut(Arc::make_mut(s)))
    }

    /// The Milvus versions the model can run at (none for a model fixed at one).
    pub fn versions(&self) -> &'static [VersionInfo] {
        each_scenario!(self, s => s.versions())
    }

    /// The scenario at each version its model lists, in order (none for a model
    /// fixed at one).
    pub fn at_every_version(&self) -> Vec<AnyScenario> {
        self.versions()
            .iter()
            .map(|v| {
                let mut s = self.clone();
                s.set_version(v.id).expect("a version the model lists");
                s
            })
            .collect()
    }

    /// Runs the scenario at another version (`id`: a commit prefix).
    pub fn set_version(&mut self, id: &str) -> Result<(), String> {
        each_scenario!(self, s => Model::set_version(Arc::make_mut(s), id))
    }
    /// The what-if changes to the Go code the scenario makes (see `Model::proposed`).
    pub fn proposed(&self) -> Vec<&'static str> {
        each_scenario!(self, s => s.proposed())
    }

    /// The knobs set that change nothing here, each with why (see `Model::idle_knobs`).
    pub fn idle_knobs(&self) -> Vec<String> {
        each_scenario!(self, s => s.idle_knobs())
    }

    /// The model's what-if knobs (see [`crate::engine::Knob`]).
    pub fn knobs(&self) -> Vec<crate::engine::Knob> {
        each_scenario!(self, s => s.knobs())
    }
    /// Sets one knob, or says what is wrong.
    /// How the op cut treats `op` (see [`crate::engine::CutGroup`]).
    pub fn cut_group(&self, op: &scenario::json::Json) -> crate::engine::CutGroup {
        each_scenario!(self, s => s.cut_group(op))
    }

    /// The knobs as the scenario's file sets them (see [`Model::knob_entries`]).
    pub fn knob_entries(&self) -> Option<(&'static str, Vec<(String, scenario::json::Json)>)> {
        each_scenario!(self, s => s.knob_entries())
    }

    pub fn set_knob(&mut self, key: &str, value: &str) -> Result<(), String> {
        each_scenario!(self, s => Model::set_knob(Arc::make_mut(s), key, value))
    }
    /// The policy matrix's rows unexplored: this scenario under every combination
    /// of its model's knobs, each with the versions whose preset it is.
    pub fn variants(&self) -> Vec<(Vec<&'static str>, AnyScenario)> {
        match self {
            AnyScenario::Flush(s) => s
                .variants()
                .into_iter()
                .map(|(p, v)| (p, AnyScenario::Flush(Arc::new(v))))
                .collect(),
            AnyScenario::Sync(s) => s
                .variants()
                .into_iter()
                .map(|(p, v)| (p, AnyScenario::Sync(Arc::new(v))))
                .collect(),
            AnyScenario::Mutex(s) => s
                .variants()
                .into_iter()
                .map(|(p, v)| (p, AnyScenario::Mutex(Arc::new(v))))
                .collect(),
        }
    }

    /// The policy matrix (see [`explore::matrix`]): every combination of the
    /// model's knobs explored with `o`; empty for a model without knobs.
    pub fn matrix(
        &self,
        o: &explore::Options,
        progress: &mut dyn FnMut(&explore::MatrixRow),
    ) -> Vec<explore::MatrixRow> {
        each_scenario!(self, s => explore::matrix(&**s, o, progress))
    }

    pub fn run(&self, policy: Policy) -> AnyRun {
        match self {
            AnyScenario::Flush(s) => AnyRun::Flush(Run::new(s.clone(), policy)),
            AnyScenario::Sync(s) => AnyRun::Sync(Run::new(s.clone(), policy)),
            AnyScenario::Mutex(s) => AnyRun::Mutex(Run::new(s.clone(), policy)),
        }
    }

    /// Every distinct observable outcome (see [`explore::outcomes`]); `None` over
    /// `max_states` states.
    pub fn outcomes(&self, max_states: u64) -> Option<Vec<ObservedOutcome>> {
        each_scenario!(self, s => explore::outcomes(&**s, max_states))
    }

    /// [`AnyScenario::outcomes`] within a memory budget too (see
    /// [`explore::outcomes_within`]).
    pub fn outcomes_within(&self, max_states: u64, max_bytes: u64) -> explore::Outcomes {
        each_scenario!(self, s => explore::outcomes_within(&**s, max_states, max_bytes))
    }

    /// Whether the model observes anything along a run (see
    /// [`explore::Observe::OBSERVES`]): flush-2021's packs.
    pub fn observes(&self) -> bool {
        fn of<M: explore::Observe>(_: &M) -> bool {
            M::OBSERVES
        }
        each_scenario!(self, s => of(&**s))
    }

    /// Whether the model's steps declare footprints (so a race check means
    /// something; see [`crate::engine::Model::FOOTPRINTS`]).
    pub fn footprints(&self) -> bool {
        fn of<M: Model>(_: &M) -> bool {
            M::FOOTPRINTS
        }
        each_scenario!(self, s => of(&**s))
    }

    /// [`AnyScenario::outcomes_within`] with a progress callback (see
    /// [`explore::outcomes_with`]).
    pub fn outcomes_with(
        &self,
        budgets: (u64, u64),
        progress: &mut dyn FnMut(&explore::Progress),
    ) -> explore::Outcomes {
        each_scenario!(self, s => explore::outcomes_with(&**s, budgets, progress))
    }

    /// Breadth-first search over every interleaving, to the end (see [`explore`]).
    pub fn explore(&self, max_steps: u32, max_states: u64) -> Exploration {
        each_scenario!(self, s => explore::explore(&**s, max_steps, max_states))
    }

    /// A search as `o` says, with a progress callback that may cancel it (see
    /// [`explore::explore_with`]).
    pub fn explore_with(
        &self,
        o: &explore::Options,
        progress: &mut dyn FnMut(&explore::Progress) -> bool,
    ) -> Exploration {
        // Breadth first on several threads gives what one thread gives (see
        // `explore::explore_threads`); so does depth first, where its result
        // cannot depend on the order (`explore::explore_swarm`; else one thread
        // searches again). The race check and sleep sets (where the model
        // allows them) run on one.
        #[cfg(not(target_arch = "wasm32"))]
        let mut gave_way: Option<explore::GaveWay> = None;
        #[cfg(not(target_arch = "wasm32"))]
        if o.threads > 1 && o.order == explore::Order::Dfs && !o.races {
            let t = o.threads as usize;
            let swarm = each_scenario!(self, s => match reduces(&**s, o) {
                true => None,
                false => Some(explore::explore_swarm(&**s, o, t, progress)),
            });
            match swarm {
                Some(Ok(x)) => return x,
                Some(Err(g)) => gave_way = Some(g),
                None => {}
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        if o.threads > 1 && o.order == explore::Order::Bfs && !o.races {
            let t = o.threads as usize;
            let full = explore::Options {
                reduce: false,
                ..o.clone()
            };
            return each_scenario!(self, s => match reduces(&**s, o) {
                true => explore::explore_with(&**s, o, progress),
                false => explore::explore_threads(&**s, &full, t, progress),
            });
        }
        #[allow(unused_mut)]
        let mut x = each_scenario!(self, s => explore::explore_with(&**s, o, progress));
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(g) = gave_way {
            gave_way_to_one(&mut x, g, o.threads);
        }
        x
    }
}

/// The report of the one thread that searched again after `threads` threads
/// gave way (see [`explore::explore_swarm`]), with what they found that it
/// did not: it stopped at a budget (or was cancelled) before it got there,
/// as a thread taking the choices in reverse may find a violation at once
/// that the first order reaches late (sync-scaled-4x3 at 4cf1a358ba under
/// `--max-states 1000`: a 3-step panic, and "none found so far").
#[cfg(not(target_arch = "wasm32"))]
fn gave_way_to_one(x: &mut explore::Exploration, g: explore::GaveWay, threads: u32) {
    let mut words = format!(
        "{threads} threads searched depth first to about {} states, then gave way to one, which searched again from the start: {}",
        g.states, g.why
    );
    if x.truncated {
        let missed: Vec<_> = g
            .found
            .into_iter()
            .filter(|f| x.violations.iter().all(|v| v.key != f.key))
            .collect();
        if !missed.is_empty() {
            words.push_str(&format!(
                "; it stopped before it reached {} the threads found, listed with the threads' schedules",
                match missed.len() {
                    1 => "one violation".to_owned(),
                    n => format!("{n} violations"),
                }
            ));
            x.violations.extend(missed);
        }
    }
    x.gave_way = Some(words);
}

/// Whether a search of `M` with `o` uses sleep sets (see [`explore::Options::applied`]).
#[cfg(not(target_arch = "wasm32"))]
fn reduces<M: Model>(sc: &M, o: &explore::Options) -> bool {
    o.applied(sc).reduce
}

impl AnyRun {
    pub fn new(sc: &AnyScenario, policy: Policy) -> AnyRun {
        sc.run(policy)
    }

    pub fn scenario(&self) -> AnyScenario {
        match self {
            AnyRun::Flush(r) => AnyScenario::Flush(r.scenario_arc().clone()),
            AnyRun::Sync(r) => AnyScenario::Sync(r.scenario_arc().clone()),
            AnyRun::Mutex(r) => AnyScenario::Mutex(r.scenario_arc().clone()),
        }
    }
    pub fn header(&self) -> &Header {
        each_run!(self, r => r.header())
    }
    pub fn policy(&self) -> &Policy {
        each_run!(self, r => r.policy())
    }
    pub fn len(&self) -> u32 {
        each_run!(self, r => r.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn cursor(&self) -> u32 {
        each_run!(self, r => r.cursor())
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        each_run!(self, r => r.outcome())
    }
    pub fn schedule(&self) -> Vec<Choice> {
        each_run!(self, r => r.schedule())
    }
    /// The races between the steps runnable at the cursor (see
    /// [`explore::races_here`]); `None` for a model without footprints.
    pub fn races_here(&self) -> Option<Vec<[explore::RaceSide; 2]>> {
        each_run!(self, r => explore::races_here(r))
    }

    /// The what-if changes to the Go code the run makes (see `Model::proposed`).
    pub fn proposed(&self) -> Vec<&'static str> {
        each_run!(self, r => r.scenario().proposed())
    }

    /// True when the model's steps declare footprints (so a race check means something).
    pub fn footprints(&self) -> bool {
        fn of<M: Model>(_: &Run<M>) -> bool {
            M::FOOTPRINTS
        }
        each_run!(self, r => of(r))
    }

    /// The race check at every state of this run (see [`explore::run_races`]), at
    /// most `budget` model steps spent on footprints.
    pub fn races(&self, budget: u64) -> explore::RunRaces {
        each_run!(self, r => explore::run_races(r.scenario(), &r.schedule(), budget))
    }
    pub fn runnable_here(&self) -> Vec<Choice> {
        each_run!(self, r => r.runnable_here())
    }
    pub fn advance(&mut self) -> Result<u32, Stop> {
        each_run!(self, r => r.advance())
    }
    pub fn advance_with(&mut self, c: Choice) -> Result<u32, Stop> {
        each_run!(self, r => r.advance_with(c))
    }
    pub fn run_to_end(&mut self) -> Option<&Outcome> {
        each_run!(self, r => r.run_to_end())
    }
    pub fn run_steps(&mut self, n: u32) {
        each_run!(self, r => r.run_steps(n))
    }
    pub fn goto(&mut self, n: u32) {
        each_run!(self, r => r.goto(n))
    }

    /// The live goroutines at the cursor, runnable ones first, at most `max`.
    pub fn goroutines(&self, runnable: &[Choice], max: usize) -> Vec<crate::engine::GoroutineView> {
        each_run!(self, r => r.scenario().goroutines(r.world(), runnable, max))
    }

    /// How many goroutines are alive at the cursor.
    pub fn goroutine_count(&self) -> usize {
        each_run!(self, r => r.scenario().goroutine_ids(r.world()).len())
    }

    /// What a runnable choice at the cursor does, for a button.
    pub fn choice_label(&self, c: Choice) -> String {
        each_run!(self, r => r.scenario().choice_label(r.world(), c))
    }

    /// True if the state at the cursor panicked (Go panic).
    pub fn panicked_here(&self) -> bool {
        each_run!(self, r => r.scenario().go_panic(r.world()).is_some())
    }

    /// The ids of the invariants broken by the end of the recorded run.
    pub fn violation_ids(&self) -> Vec<&'static str> {
        each_run!(self, r => r.scenario().violations(r.head()).into_iter().map(|v| v.id).collect())
    }

    /// The trace line of step `n` (from 1).
    pub fn line(&self, n: u32) -> Option<TraceLine> {
        each_run!(self, r => r.record(n).map(|rec| report::line(r, rec)))
    }

    /// Every trace line.
    pub fn lines(&self) -> Vec<TraceLine> {
        each_run!(self, r => r.records().iter().map(|rec| report::line(r, rec)).collect())
    }

    /// The text trace: one line per step, then the outcome.
    pub fn text(&self, with_logs: bool) -> String {
        each_run!(self, r => report::text(r, with_logs))
    }

    /// [`AnyRun::text`], written to `out` as it is made (none of it held).
    pub fn write_text(&self, with_logs: bool, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        each_run!(self, r => report::write_text(r, with_logs, out))
    }

    /// The observable outcome of the recorded run (see [`explore::Observe`]).
    pub fn outcome_line(&self) -> String {
        each_run!(self, r => explore::run_outcome(r))
    }

    /// The stage at the cursor: what the page draws. `figures`: this run's.
    pub fn stage(&self, figures: &Figures) -> Stage {
        each_run!(self, r => r.scenario().stage(r, figures))
    }

    /// The figures of the whole recorded run (plots, the result stream, notes).
    pub fn figures(&self) -> Figures {
        each_run!(self, r => r.scenario().figures(r))
    }

    /// Which Go code the model follows, in a sentence.
    pub fn about(&self) -> String {
        each_run!(self, r => r.scenario().about())
    }

    /// How to read the stage.
    pub fn legend(&self) -> &'static str {
        each_run!(self, r => r.scenario().legend())
    }

    /// The JSON report of the whole recorded run (DESIGN.md's `--json`).
    pub fn report_json(&self, pretty: bool) -> String {
        each_run!(self, r => report::to_json(&report::report(r), pretty))
    }

    /// [`AnyRun::report_json`], written to `out` as it is made (its trace
    /// lines are not held).
    pub fn write_json(&self, pretty: bool, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        each_run!(self, r => report::write_json(&report::report(r), pretty, out))
    }
}

/// A search of any model in progress (see [`explore::Explorer`]): the page runs
/// it in slices between frames.
pub enum AnyExplorer {
    Flush(explore::Explorer<flush2021::Scenario>),
    Sync(explore::Explorer<sync2024::Scenario>),
    Mutex(explore::Explorer<mutex::Scenario>),
}

impl From<explore::Explorer<flush2021::Scenario>> for AnyExplorer {
    fn from(x: explore::Explorer<flush2021::Scenario>) -> AnyExplorer {
        AnyExplorer::Flush(x)
    }
}
impl From<explore::Explorer<sync2024::Scenario>> for AnyExplorer {
    fn from(x: explore::Explorer<sync2024::Scenario>) -> AnyExplorer {
        AnyExplorer::Sync(x)
    }
}
impl From<explore::Explorer<mutex::Scenario>> for AnyExplorer {
    fn from(x: explore::Explorer<mutex::Scenario>) -> AnyExplorer {
        AnyExplorer::Mutex(x)
    }
}

macro_rules! each_explorer {
    ($self:expr, $x:ident => $body:expr) => {
        match $self {
            AnyExplorer::Flush($x) => $body,
            AnyExplorer::Sync($x) => $body,
            AnyExplorer::Mutex($x) => $body,
        }
    };
}

/// The race lens from `here`, `at` steps into the run: for each runnable choice
/// (the first [`explore::LENS_CHOICES`]), a search of the state it leads to;
/// what `here` already showed is not reported again. None at the scenario's
/// step limit, and none going past it (a run stops there).
fn lens_from<M: Model>(
    sc: Arc<M>,
    here: &M::State,
    at: u32,
    o: &explore::Options,
) -> Vec<(Choice, AnyExplorer)>
where
    AnyExplorer: From<explore::Explorer<M>>,
{
    // The state after each choice is `at + 1` steps into the run; the search
    // goes no further than the scenario's step limit (`Options::applied`), and
    // a cut there is where the run stops, not a look-ahead budget.
    if at >= sc.header().max_steps {
        return Vec::new();
    }
    let o = explore::Options {
        from_depth: at + 1,
        ..o.clone()
    };
    let known = explore::finding_keys(&*sc, here);
    let mut runnable = Vec::new();
    sc.runnable(here, &mut runnable);
    runnable
        .into_iter()
        .take(explore::LENS_CHOICES)
        .map(|c| {
            let mut w = here.clone();
            let mut facts = Vec::new();
            sc.step(&mut w, c, &mut facts);
            let x = explore::Explorer::from_state(sc.clone(), w, o.clone(), known.clone());
            (c, AnyExplorer::from(x))
        })
        .collect()
}

impl AnyExplorer {
    /// The race lens's searches: at most `steps` further steps deep and
    /// `max_states` states each, breadth first, stopping at the first violation
    /// not already shown where they start.
    pub fn lens_options(steps: u32, max_states: u64) -> explore::Options {
        explore::Options {
            max_bytes: 64 << 20,
            ..explore::Options::first(steps.max(1), max_states)
        }
    }

    /// The race lens at the run's cursor: for each runnable choice (the first
    /// [`explore::LENS_CHOICES`]), a search of the state it leads to (see
    /// [`AnyExplorer::lens_options`]).
    pub fn lens(run: &AnyRun, steps: u32, max_states: u64) -> Vec<(Choice, AnyExplorer)> {
        let o = AnyExplorer::lens_options(steps, max_states);
        each_run!(run, r => lens_from(r.scenario_arc().clone(), r.world(), r.cursor(), &o))
    }

    /// The race lens after `schedule` from the start of `sc` (how the worker is
    /// told where the run stands): the run's cursor replayed, each choice
    /// checked runnable where it is taken. The same searches as
    /// [`AnyExplorer::lens`] at that cursor.
    pub fn lens_after(
        sc: &AnyScenario,
        schedule: &[Choice],
        o: &explore::Options,
    ) -> Result<Vec<(Choice, AnyExplorer)>, String> {
        fn replay<M: Model>(sc: &M, schedule: &[Choice]) -> Result<M::State, String> {
            explore::replay(sc, schedule, |_| false)
                .map(|(w, _)| w)
                .map_err(|i| {
                    format!(
                        "the run's step {} (goroutine {}) cannot be taken: it is not runnable there",
                        i + 1,
                        schedule[i].g
                    )
                })
        }
        let at = u32::try_from(schedule.len()).unwrap_or(u32::MAX);
        each_scenario!(sc, s => Ok(lens_from(s.clone(), &replay(&**s, schedule)?, at, o)))
    }

    pub fn new(sc: &AnyScenario, o: explore::Options) -> AnyExplorer {
        match sc {
            AnyScenario::Flush(s) => AnyExplorer::Flush(explore::Explorer::new(s.clone(), o)),
            AnyScenario::Sync(s) => AnyExplorer::Sync(explore::Explorer::new(s.clone(), o)),
            AnyScenario::Mutex(s) => AnyExplorer::Mutex(explore::Explorer::new(s.clone(), o)),
        }
    }

    /// Goes on for about `transitions` model steps; true when done.
    pub fn run(&mut self, transitions: u64) -> bool {
        each_explorer!(self, x => x.run(transitions))
    }

    pub fn progress(&self) -> explore::Progress {
        each_explorer!(self, x => x.progress())
    }

    pub fn cancel(&mut self) {
        each_explorer!(self, x => x.cancel())
    }

    pub fn finish(self) -> Exploration {
        each_explorer!(self, x => x.finish())
    }

    /// The report, the search's states kept (see [`explore::Explorer::report`]).
    pub fn report(&mut self) -> Exploration {
        each_explorer!(self, x => x.report())
    }
}

impl AnyScenario {
    /// A shrink of what a search of this scenario found as `f` (see
    /// [`explore::Shrinking`]), taken one replay at a time by
    /// [`AnyScenario::shrink_step`]; `Err` when `f`'s schedule cannot be read.
    pub fn shrinking(
        &self,
        f: &explore::Found,
        max_replays: u32,
    ) -> Result<explore::Shrinking, String> {
        let schedule = Choice::parse_list(&f.schedule)?;
        Ok(each_scenario!(self, s => explore::Shrinking::new(&**s, &schedule, &f.key, max_replays)))
    }

    /// Steps after which a strict replay of `schedule` shows the violation `key`
    /// (see [`explore::reaches`]).
    pub fn reaches(&self, schedule: &[Choice], key: &str) -> Option<usize> {
        each_scenario!(self, s => explore::reaches(&**s, schedule, key))
    }

    /// One replay of `s` (see [`explore::Shrinking::step`]); true once it is over.
    pub fn shrink_step(&self, s: &mut explore::Shrinking) -> bool {
        each_scenario!(self, sc => s.step(&**sc))
    }
}

/// One step of two runs of the same schedule side by side (see
/// [`AnyScenario::lockstep`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LockstepRow {
    pub step: u32,
    pub a: Option<TraceLine>,
    pub b: Option<TraceLine>,
    /// Same goroutine, same Go function and same event at this step.
    pub same: bool,
}

impl AnyScenario {
    /// Replays `schedule` under versions `a` and `b` (the seeded scheduler with
    /// `seed` takes over where the schedule runs out or names a goroutine that
    /// cannot run), step by step: where the two first differ is where the versions'
    /// code paths part. At most `max_steps` steps each, or the scenario's own
    /// step limit when lower.
    pub fn lockstep(
        &self,
        schedule: &[Choice],
        a: &str,
        b: &str,
        seed: u64,
        max_steps: u32,
    ) -> Result<Vec<LockstepRow>, String> {
        let mut l = self.lockstep_start(schedule, a, b, seed, max_steps)?;
        while !l.advance(u32::MAX) {}
        Ok(l.rows())
    }

    /// [`AnyScenario::lockstep`] a few steps at a time (the page steps it
    /// between frames: a run of thousands of segments takes seconds).
    pub fn lockstep_start(
        &self,
        schedule: &[Choice],
        a: &str,
        b: &str,
        seed: u64,
        max_steps: u32,
    ) -> Result<Lockstepping, String> {
        let run = |v: &str| -> Result<AnyRun, String> {
            let mut sc = self.clone();
            sc.set_version(v)?;
            // The scenario's own step limit holds, as in the run shown.
            let h = sc.header_mut();
            h.max_steps = h.max_steps.min(max_steps);
            Ok(sc.run(Policy::Scripted {
                script: schedule.to_vec(),
                fallback_seed: seed,
            }))
        };
        let id = |v: &str| {
            self.versions()
                .iter()
                .find(|x| x.id.starts_with(v) || v.starts_with(x.id))
                .map_or(v.to_owned(), |x| x.id.to_owned())
        };
        Ok(Lockstepping {
            runs: [run(a)?, run(b)?],
            ended: [false, false],
            names: [id(a), id(b)],
            rows: Vec::new(),
        })
    }
}

/// A lockstep comparison under way (see [`AnyScenario::lockstep_start`]):
/// the two runs stepped, then their steps lined up, a few at a time.
pub struct Lockstepping {
    runs: [AnyRun; 2],
    ended: [bool; 2],
    /// The two versions' full ids.
    names: [String; 2],
    rows: Vec<LockstepRow>,
}

impl Lockstepping {
    /// Steps each run at most `n` times, or once both have ended lines up at
    /// most `n` more of their steps; true once every step is lined up.
    pub fn advance(&mut self, n: u32) -> bool {
        if self.ended != [true, true] {
            for (r, ended) in self.runs.iter_mut().zip(&mut self.ended) {
                for _ in 0..n {
                    if *ended {
                        break;
                    }
                    *ended = r.advance().is_err();
                }
            }
            return false;
        }
        let len = self.runs[0].len().max(self.runs[1].len());
        let from = self.rows.len() as u32;
        for step in from + 1..=len.min(from.saturating_add(n)) {
            let row = self.row(step);
            self.rows.push(row);
        }
        self.rows.len() as u32 == len
    }

    /// The steps each run has taken so far.
    pub fn steps(&self) -> [u32; 2] {
        [self.runs[0].len(), self.runs[1].len()]
    }

    /// The steps lined up so far (all of them once [`Lockstepping::advance`]
    /// said so).
    pub fn rows(self) -> Vec<LockstepRow> {
        self.rows
    }

    /// Step `step` (from 1) of both runs.
    fn row(&self, step: u32) -> LockstepRow {
        let (a, b) = (self.runs[0].line(step), self.runs[1].line(step));
        let [va, vb] = &self.names;
        // A line may name its version ("[ca7ef26e4b] request ..."): that alone
        // is no difference.
        let same = match (&a, &b) {
            (Some(x), Some(y)) => {
                (x.goroutine, &x.go) == (y.goroutine, &y.go)
                    && x.event.replace(va.as_str(), vb) == y.event
            }
            _ => false,
        };
        LockstepRow { step, a, b, same }
    }
}

#[cfg(test)]
mod tests {
    use super::AnyScenario;
    use crate::engine::Model;

    /// The byte estimate takes each model's stated 64-bit state size on every
    /// target (so the page stops at a byte budget where the CLI does): it must be
    /// the true one.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn each_model_states_its_state_size_on_64_bit() {
        use std::mem::size_of;
        let stated = [
            super::flush2021::Scenario::STATE_SIZE_64,
            super::sync2024::Scenario::STATE_SIZE_64,
            super::mutex::Scenario::STATE_SIZE_64,
        ];
        let real = [
            size_of::<super::flush2021::World>(),
            size_of::<super::sync2024::World>(),
            size_of::<super::mutex::World>(),
        ];
        assert_eq!(stated, real, "update the models' STATE_SIZE_64");
    }

    /// What a search judges a state by is what the run judges it by
    /// ([`Model::verdict`]), less the invariants the search knows: a model's
    /// `violation_ids` names the ids of its `violations` in order, and
    /// `findings_new` leaves out exactly the known ones, ended or not. Returns
    /// how many states broke an invariant.
    fn check<M: Model>(sc: &M, max: usize) -> usize {
        let mut broken = 0;
        for w in crate::engine::reachable_states(sc, max) {
            let mut ids = Vec::new();
            sc.violation_ids(&w, &mut |id| ids.push(id));
            let verdict = sc.verdict(&w);
            let whole: Vec<&str> = verdict.violations.iter().map(|v| v.id).collect();
            assert_eq!(ids, whole);
            for known in [&[][..], &ids[..ids.len().min(1)], &ids[..]] {
                let (found, ended) = crate::explore::findings_new(sc, &w, |id| known.contains(&id));
                assert_eq!(ended, verdict.end.is_some());
                let invariants: Vec<(String, String)> = found
                    .iter()
                    .filter(|f| f.0 == crate::engine::OutcomeKind::Invariant)
                    .map(|f| (f.1.clone(), f.2.clone()))
                    .collect();
                let expected: Vec<(String, String)> = verdict
                    .violations
                    .iter()
                    .filter(|v| !known.contains(&v.id))
                    .map(|v| {
                        (
                            format!("{}: {}", v.id, v.message),
                            format!("invariant:{}", v.id),
                        )
                    })
                    .collect();
                assert_eq!(invariants, expected, "known: {known:?}");
                let ends = usize::from(matches!(
                    verdict.end,
                    Some(crate::engine::End::Panic { .. } | crate::engine::End::Deadlock(_))
                ));
                assert_eq!(found.len(), expected.len() + ends);
            }
            broken += usize::from(!ids.is_empty());
        }
        broken
    }

    /// Over the reachable states of every built-in at every version (the
    /// first sync-2024 one loses segments) and a toy race of the mutex model.
    #[test]
    fn a_search_leaves_out_only_the_invariants_it_knows() {
        let mut broken = [0; 3];
        let mut add = |m: usize, n: usize| broken[m] += n;
        for name in crate::builtin::names() {
            let sc = crate::builtin::get(name).expect("a built-in");
            let versions = sc.at_every_version();
            for sc in if versions.is_empty() {
                vec![sc]
            } else {
                versions
            } {
                match sc {
                    AnyScenario::Flush(sc) => add(0, check(&*sc, 1_500)),
                    AnyScenario::Sync(sc) => add(1, check(&*sc, 1_500)),
                    AnyScenario::Mutex(sc) => add(2, check(&*sc, 1_500)),
                }
            }
        }
        let text = r#"{"name": "race", "model": "mutex-handoff", "actors": [
            {"name": "a", "ops": [{"op": "incr"}]}, {"name": "b", "ops": [{"op": "incr"}]}]}"#;
        let Ok(AnyScenario::Mutex(sc)) = AnyScenario::parse(text, "race.json") else {
            panic!("a mutex scenario");
        };
        add(2, check(&*sc, 1_500));
        assert!(broken.iter().all(|&b| b > 0), "{broken:?}");
    }
}
