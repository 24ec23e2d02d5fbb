//! The app's state and every decision about it (`reduce`). No DOM here: effects
//! (URL fragment, local storage, timers, downloads) live in `hooks.rs` and
//! `export.rs`; this file is tested natively.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::tours::{self, Tour};
use flush_core::view::Figures;
use flush_core::{builtin, AnyRun, AnyScenario, Choice, Policy, Stop};
use yew::{Reducible, UseReducerDispatcher};

/// The scenario shown by default: the #34018 story.
pub const DEFAULT_SCENARIO: &str = "segment-not-found";
/// The browser keeps the whole run: a hostile file cannot make it longer.
pub const MAX_BROWSER_STEPS: u32 = 1_000_000;
/// Play speeds offered, in steps per second.
pub const SPEEDS: [u32; 7] = [1, 2, 4, 8, 16, 30, 60];
/// The speed a page starts with.
const DEFAULT_SPEED: u32 = 4;
/// How the jump field's refusal starts (see [`Action::Jump`]).
pub const JUMP_ERROR: &str = "Jump: ";
/// How the seed field's refusal starts: while it shows, the field keeps the
/// text refused (see `controls::Header`).
pub const SEED_ERROR: &str = "Seed \"";

/// Sends actions to the app's reducer; stable across renders (so props holding
/// it compare equal).
pub type Dispatch = UseReducerDispatcher<AppState>;

pub use flush_worker::Source;

thread_local! {
    /// The last inline scenario read, with its file name and text. A view of
    /// it at another seed, mode, version or knob reads the same text again:
    /// a 270 KB upload took 40 to 60 ms to read in Chromium, every time.
    static LAST_READ: RefCell<Option<(String, Rc<str>, AnyScenario)>> = const { RefCell::new(None) };
}

/// Loads a scenario source into a checked scenario (see
/// [`flush_worker::scenario_of`]); an inline text read last is not read again.
pub fn scenario_of(source: &Source) -> Result<AnyScenario, String> {
    let Source::Inline { file, text } = source else {
        return flush_worker::scenario_of(source);
    };
    let same = |(f, t, _): &&(String, Rc<str>, AnyScenario)| {
        f == file && (Rc::ptr_eq(t, text) || **t == **text)
    };
    if let Some(sc) = LAST_READ.with(|l| l.borrow().as_ref().filter(same).map(|l| l.2.clone())) {
        return Ok(sc);
    }
    let sc = flush_worker::scenario_of(source)?;
    LAST_READ.with(|l| *l.borrow_mut() = Some((file.clone(), text.clone(), sc.clone())));
    Ok(sc)
}

/// How the run is scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Seeded random: the whole run is computed up front; the scrubber covers it.
    Seeded,
    /// The scenario's embedded schedule, then the seed.
    Scripted,
    /// You pick every step (runnable goroutines are buttons).
    Manual,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Seeded => "seeded",
            Mode::Scripted => "scripted",
            Mode::Manual => "manual",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "seeded" => Some(Mode::Seeded),
            "scripted" => Some(Mode::Scripted),
            "manual" => Some(Mode::Manual),
            _ => None,
        }
    }
}

/// Which code the page shows: the scenario's source, its version and the page's
/// what-if knobs. The panels that search it key on it, and its counterexamples
/// open with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub source: Source,
    pub version: Option<&'static str>,
    pub knobs: Rc<Vec<(String, String)>>,
}

/// A search of the Explore panel, as a link carries it (`explore=`, see
/// [`crate::permalink`]). A search is deterministic (the same states, findings
/// and schedules each time), so a link to one opens with it run again: a
/// reviewer sends the verdict table, not a screenshot of it. The view has one
/// exactly while the panel shows that search, which is dropped when another
/// scenario or other knobs are shown, and a search of one version when
/// another version is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exploring {
    /// One search per version of the model (Every version), else one of the
    /// version shown.
    pub versions: bool,
    /// Go on after the first violation (a search per version always does).
    pub all: bool,
    /// Also look for data races.
    pub races: bool,
    /// Depth first from the start.
    pub dfs: bool,
}

/// Everything a view needs to be restored: what the permalink carries.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSpec {
    pub source: Source,
    /// A commit prefix, for a model with several versions.
    pub version: Option<String>,
    /// The version Lockstep replays this run's schedule under, side by side
    /// (`vs=`): a link to a comparison opens with it made.
    pub compare: Option<String>,
    /// The search the Explore panel shows (`explore=`): a link to an
    /// exploration opens with it run.
    pub explore: Option<Exploring>,
    /// The race lens is on (`lens=on`): a link to a step shows which
    /// goroutines lead to a violation from there.
    pub lens: bool,
    /// The What if panel's policy matrix is shown (`matrix=on`): a link opens
    /// with it explored.
    pub matrix: bool,
    /// What-if knobs set in the page, `(key, setting)`, applied after the version
    /// (see `AnyScenario::set_knob`).
    pub knobs: Vec<(String, String)>,
    /// The guided tour shown, by id, and its stop (0-based).
    pub tour: Option<(String, usize)>,
    pub seed: Option<u64>,
    pub mode: Mode,
    /// Manual choices to replay (manual mode).
    pub schedule: Option<Vec<Choice>>,
    pub step: u32,
}

impl ViewSpec {
    pub fn default_view() -> ViewSpec {
        ViewSpec {
            source: Source::Builtin(DEFAULT_SCENARIO.to_owned()),
            version: None,
            compare: None,
            explore: None,
            lens: false,
            matrix: false,
            knobs: Vec::new(),
            tour: None,
            seed: None,
            mode: Mode::Scripted,
            schedule: None,
            step: 0,
        }
    }

    /// A fresh view of `source`: its own schedule when it has one, else seeded.
    pub fn fresh(source: Source, sc: &AnyScenario) -> ViewSpec {
        ViewSpec {
            source,
            version: None,
            compare: None,
            explore: None,
            lens: false,
            matrix: false,
            knobs: Vec::new(),
            tour: None,
            seed: None,
            mode: if sc.header().schedule.is_some() {
                Mode::Scripted
            } else {
                Mode::Seeded
            },
            schedule: None,
            step: 0,
        }
    }
}

/// `e` as a sentence: a full stop added when it ends without one (a scenario
/// error ends with its message; a sentence follows it).
pub fn sentence(e: &str) -> String {
    let e = e.trim_end();
    if e.ends_with(['.', '!', '?']) {
        e.to_owned()
    } else {
        format!("{e}.")
    }
}

pub struct AppState {
    pub run: Rc<RefCell<AnyRun>>,
    /// Bumped on every change of `run` (it is shared, so Yew cannot see inside).
    pub rev: u64,
    pub source: Source,
    /// The what-if knobs set in the page (see [`ViewSpec::knobs`]).
    pub knobs: Rc<Vec<(String, String)>>,
    /// The guided tour shown and its stop (see [`ViewSpec::tour`]).
    pub tour: Option<(Rc<Tour>, usize)>,
    /// The version Lockstep compares with (see [`ViewSpec::compare`]).
    pub compare: Option<&'static str>,
    /// The search the Explore panel shows (see [`ViewSpec::explore`]).
    pub explore: Option<Exploring>,
    /// The race lens is on (see [`ViewSpec::lens`]).
    pub lens: bool,
    /// The policy matrix is shown (see [`ViewSpec::matrix`]).
    pub matrix: bool,
    pub mode: Mode,
    pub seed: u64,
    pub playing: bool,
    /// Steps per second while playing.
    pub speed: u32,
    pub error: Option<String>,
    /// A passing message (e.g. the permalink).
    pub notice: Option<String>,
    pub help: bool,
    /// The scenario editor is open.
    pub editor: bool,
    /// The figures of the run, computed once per run length.
    figures: Rc<RefCell<Option<Rc<Figures>>>>,
    /// The permalink of the view shown when a link could not be opened (at
    /// load, or pasted): while the view is still that one, the address bar
    /// keeps the link, to be corrected, and local storage the view saved last.
    /// Shared by the states that follow, so that the first view that differs
    /// releases it for all ([`AppState::link_to_write`]).
    pub held_link: Rc<RefCell<Option<String>>>,
    /// The view asked for last, while its run is built in slices (see
    /// [`Building`]); taken when [`Action::Built`] comes.
    pub building: Option<Rc<RefCell<Option<Building>>>>,
}

impl PartialEq for AppState {
    fn eq(&self, o: &Self) -> bool {
        self.rev == o.rev
            && Rc::ptr_eq(&self.run, &o.run)
            && (
                self.mode,
                self.playing,
                self.speed,
                self.help,
                self.seed,
                self.editor,
            ) == (o.mode, o.playing, o.speed, o.help, o.seed, o.editor)
            && (&self.error, &self.notice) == (&o.error, &o.notice)
            && self.compare == o.compare
            && self.explore == o.explore
            && (self.lens, self.matrix) == (o.lens, o.matrix)
            && match (&self.building, &o.building) {
                (None, None) => true,
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                _ => false,
            }
    }
}

#[derive(Debug)]
pub enum Action {
    Load(ViewSpec),
    /// Another version of the loaded scenario (a commit prefix).
    Version(String),
    /// One what-if knob of the loaded scenario set, `(key, setting)`.
    Knob(String, String),
    /// Every knob as the version has it (the page's knobs dropped).
    ClearKnobs,
    /// A guided tour's stop (tour id, 0-based stop): its view, with its caption.
    Tour(String, usize),
    /// Leaves the tour; the view stays.
    EndTour,
    /// Another schedule mode for the loaded scenario.
    Mode(Mode),
    /// Another seed (seeded mode).
    Seed(u64),
    /// Lockstep compares with this version (a commit id), or with none.
    Compare(Option<&'static str>),
    /// The Explore panel shows this search (started, or asked for by a link),
    /// or none (cancelled).
    Explore(Option<Exploring>),
    /// The race lens on or off.
    Lens(bool),
    /// The policy matrix explored (started, or asked for by a link), or not
    /// (cancelled).
    Matrix(bool),
    StepForward,
    /// Play's timer: a step forward while playing, nothing once paused. A tick
    /// queued before a Pause (each step of a heavy scenario outlasting the
    /// timer's period) must not step, nor render: its render kept Yew from
    /// running the effect that stops the timer, and the run played on.
    Tick,
    StepBack,
    Goto(u32),
    /// The jump field's Enter: [`Action::Goto`], and the field's own refusal
    /// (an error starting with [`JUMP_ERROR`]) goes.
    Jump(u32),
    ToEnd,
    Choose(Choice),
    Play(bool),
    Speed(u32),
    Error(String),
    /// A link pasted into the address bar that could not be read: the view
    /// stays, and the link is held (see [`AppState::held_link`]).
    BadLink(String),
    /// A link pasted into the address bar: its view, or, when that cannot be
    /// built, [`Action::BadLink`].
    LoadLink(ViewSpec),
    DismissError,
    Notice(Option<String>),
    Help(bool),
    /// Opens or closes the scenario editor.
    Editor(bool),
    /// The run being built ([`AppState::building`]) is: its view is shown, or
    /// why it cannot be.
    Built,
    /// Stop building the run asked for: the view shown stays.
    StopBuild,
    /// Back (or Forward) to the address with no fragment, the page as first
    /// opened: a run being built for a link (or a click) is not wanted any
    /// more, and is dropped without a word; the view shown stays.
    LeaveLink,
    /// The address bar and local storage now hold the view shown: a notice
    /// that said a stopped link was kept there says so no more.
    LinkReplaced,
}

/// A tour by id, with `stop` checked against its stops.
pub fn tour_of(id: &str, stop: usize) -> Result<Tour, String> {
    let all = tours::all();
    let names: Vec<_> = all.iter().map(|t| t.id.clone()).collect();
    let t = all.iter().find(|t| t.id == id).cloned().ok_or_else(|| {
        format!(
            "There is no tour \"{}\". Tours: {}.",
            crate::permalink::short(id),
            names.join(", ")
        )
    })?;
    if stop >= t.stops.len() {
        return Err(format!(
            "The tour \"{id}\" has {} stops; there is no stop {}.",
            t.stops.len(),
            stop + 1
        ));
    }
    Ok(t)
}

/// Whether `source` is the scenario of stop `i` of tour `t`, else why not: a
/// tour's caption is about its stop's scenario, never another one (a link
/// naming another showed it under the caption).
fn stop_shows(t: &Tour, i: usize, source: &Source) -> Result<(), String> {
    let want = &t.stops[i].scenario;
    let shown = match source {
        Source::Builtin(n) if n == want => return Ok(()),
        Source::Builtin(n) => crate::permalink::short(n),
        Source::Inline { file, .. } => format!("the file {file}"),
    };
    Err(format!(
        "Stop {} of the tour \"{}\" is about the scenario {want}, not {shown}: its caption would describe another run.",
        i + 1,
        t.id
    ))
}

/// The view of stop `i` of tour `t`: the built-in as `Stop::run` builds it (its
/// own schedule when it has one, else its seed).
pub fn stop_spec(t: &Tour, i: usize) -> ViewSpec {
    let s = &t.stops[i];
    let scripted = builtin::get(&s.scenario).is_some_and(|sc| sc.header().schedule.is_some());
    ViewSpec {
        source: Source::Builtin(s.scenario.clone()),
        version: s.version.clone(),
        compare: None,
        explore: None,
        lens: false,
        matrix: false,
        knobs: Vec::new(),
        tour: Some((t.id.clone(), i)),
        seed: None,
        mode: if scripted {
            Mode::Scripted
        } else {
            Mode::Seeded
        },
        schedule: None,
        step: s.step,
    }
}

/// Why the manual schedule's entry `i`, `c`, cannot run at step `i`, where the
/// choices `runnable` can: no goroutine `c.g` is alive there (`alive` false),
/// `c` names a select case the goroutine does not offer (`5.1`, which reads as
/// a goroutine number with a fraction), or the goroutine waits.
fn unrunnable(i: usize, c: Choice, alive: bool, runnable: &[Choice]) -> String {
    let g = c.g;
    let offers: Vec<String> = runnable
        .iter()
        .filter(|r| r.g == g)
        .map(Choice::to_string)
        .collect();
    let why = match (alive, c.alt) {
        (false, _) => format!("g{g} does not exist at that step"),
        (true, 0) if offers.is_empty() => format!("g{g} waits there"),
        (true, 0) => format!("g{g} is at a select there: it runs as {}", or_list(&offers)),
        (true, alt) if offers.is_empty() => format!(
            "\"{c}\" is not a goroutine number but case {alt} of a select in g{g}, and g{g} waits there"
        ),
        (true, alt) => format!(
            "\"{c}\" is not a goroutine number but case {alt} of a select in g{g}, which offers no case {alt} there (g{g} runs as {})",
            or_list(&offers)
        ),
    };
    let mut ids: Vec<String> = runnable.iter().map(|r| format!("g{}", r.g)).collect();
    ids.dedup();
    let more = ids.len().saturating_sub(8);
    ids.truncate(8);
    if more > 0 {
        ids.push(format!("{more} more"));
    }
    let can = match ids.is_empty() {
        true => "nothing can run there".to_owned(),
        false => format!("runnable there: {}", and_list(&ids)),
    };
    format!("The schedule's entry {i}, \"{c}\", cannot run at step {i}: {why}; {can}.")
}

/// `words` as an English choice: "a", "a or b", "a, b or c".
fn or_list(words: &[String]) -> String {
    word_list(words, "or")
}

/// The policy a mode asks for.
fn policy(mode: Mode, sc: &AnyScenario, seed: u64) -> Policy {
    match (mode, &sc.header().schedule) {
        (Mode::Manual, _) => Policy::Manual,
        (Mode::Scripted, Some(s)) => Policy::Scripted {
            script: s.clone(),
            fallback_seed: seed,
        },
        _ => Policy::Seeded(seed),
    }
}

/// Builds the run a view asks for, or says what is wrong.
pub fn build(spec: &ViewSpec) -> Result<(AnyRun, u64), String> {
    build_within(spec, MAX_BROWSER_STEPS)
}

/// [`build`] with runs cut at `max_steps` (the fuzz target's lower limit).
pub fn build_within(spec: &ViewSpec, max_steps: u32) -> Result<(AnyRun, u64), String> {
    let mut b = Building::start_within(spec, max_steps)?;
    b.grow(|| true);
    b.finish()
}

/// Steps [`Building::grow`] takes between two questions whether to go on.
const GROW_CHECK: u32 = 64;

/// A view's run being built (see [`AppState::building`]). A long run (a big
/// scenario's tens of thousands of steps) is built a slice at a time between
/// frames, so the page stays responsive and the build can be stopped; the view
/// shown meanwhile is the one the page had.
pub struct Building {
    pub spec: ViewSpec,
    run: AnyRun,
    seed: u64,
    /// The manual schedule's entries replayed so far.
    replayed: usize,
    /// Why the view cannot be built, found while stepping.
    failed: Option<String>,
    /// A link asked for the view: a failure holds it (see [`AppState::held_link`]).
    pub link: bool,
    /// The run is built ([`Building::grow`] said so).
    done: bool,
    /// The view is shown in place of a link that could not be opened (the
    /// saved view, long): why, said again over the view once built, and the
    /// link held (see [`AppState::instead_of_link_with`]).
    instead: Option<String>,
    /// The view is the one saved in local storage: a failure opens what of it
    /// can be ([`AppState::salvage`]).
    saved: bool,
}

impl Building {
    /// The view's scenario, version and knobs checked and its run started.
    pub fn start(spec: &ViewSpec) -> Result<Building, String> {
        Building::start_within(spec, MAX_BROWSER_STEPS)
    }

    fn start_within(spec: &ViewSpec, max_steps: u32) -> Result<Building, String> {
        let mut sc = scenario_of(&spec.source)?;
        if let Some(v) = &spec.version {
            sc.set_version(v).map_err(|e| format!("{e}."))?;
        }
        for (k, v) in &spec.knobs {
            sc.set_knob(k, v).map_err(|e| format!("What-if: {e}."))?;
        }
        let seed = spec.seed.unwrap_or(sc.header().seed);
        let h = sc.header_mut();
        h.max_steps = h.max_steps.min(max_steps);
        let run = sc.run(policy(spec.mode, &sc, seed));
        // What can be checked before the run is built is (found by an attack:
        // a bad vs= or tour= on a long run was said only once it was built).
        if let Some(v) = &spec.compare {
            compare_version(&run, v)?;
        }
        if let Some(e) = &spec.explore {
            explore_check(&run, e)?;
        }
        if spec.matrix {
            matrix_check(&run)?;
        }
        if let Some((id, stop)) = &spec.tour {
            stop_shows(&tour_of(id, *stop)?, *stop, &spec.source)?;
        }
        Ok(Building {
            spec: spec.clone(),
            run,
            seed,
            replayed: 0,
            failed: None,
            link: false,
            done: false,
            instead: None,
            saved: false,
        })
    }

    /// Steps the run, asking `more()` every [`GROW_CHECK`] steps whether to go
    /// on; returns whether the run is built (ended, waiting for a manual choice,
    /// or found broken).
    pub fn grow(&mut self, mut more: impl FnMut() -> bool) -> bool {
        loop {
            for _ in 0..GROW_CHECK {
                if !self.step_once() {
                    self.done = true;
                    return true;
                }
            }
            if !more() {
                return false;
            }
        }
    }

    /// One step: the manual schedule's next entry, else the scheduler's pick.
    /// Whether there was one.
    fn step_once(&mut self) -> bool {
        if self.failed.is_some() {
            return false;
        }
        if self.spec.mode != Mode::Manual {
            return self.run.advance().is_ok();
        }
        let schedule = self.spec.schedule.as_deref().unwrap_or_default();
        let Some(&c) = schedule.get(self.replayed) else {
            return false;
        };
        self.replayed += 1;
        match self.run.advance_with(c) {
            Ok(_) => true,
            Err(e) => {
                let i = self.replayed;
                self.failed = Some(match e {
                    Stop::NotRunnable(_) => {
                        let alive = self.run.goroutines(&[c], 1).first().map(|v| v.id) == Some(c.g);
                        unrunnable(i, c, alive, &self.run.runnable_here())
                    }
                    e => format!("The schedule's entry {i}, \"{c}\", cannot run at step {i}: {e}."),
                });
                false
            }
        }
    }

    /// Steps built so far.
    pub fn steps(&self) -> u32 {
        self.run.len()
    }

    /// The scenario's title.
    pub fn title(&self) -> String {
        self.run.header().title.clone()
    }

    /// The run built, at the view's step, with its seed; or why the view cannot be shown.
    pub fn finish(self) -> Result<(AnyRun, u64), String> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut run = self.run;
        let step = self.spec.step;
        if step > run.len() {
            return Err(format!(
                "Step {step} is past the end of this run ({} step{}).",
                run.len(),
                if run.len() == 1 { "" } else { "s" }
            ));
        }
        run.goto(step);
        Ok((run, self.seed))
    }
}

/// What Stop says: how far the build got, and that the view shown stays (and
/// a link that asked for the view stays in the address bar, held).
fn stopped_words(b: &Building) -> String {
    let steps = group(b.steps());
    let words = format!("{STOPPED} ({steps} steps built); the view shown stays.");
    match b.link {
        true => format!("{words}{LINK_KEPT}"),
        false => words,
    }
}

/// How what Stop says starts.
const STOPPED: &str = "Stopped building the run asked for";

/// The end of what Stop says when a link asked for the run: true only until
/// the address bar shows another view ([`Action::LinkReplaced`]).
const LINK_KEPT: &str =
    " The link or saved view that asked for it is kept, so a reload builds it again.";

/// `n` with a comma between thousands.
pub fn group(n: u32) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A budget for [`Building::grow`]: `ms` milliseconds from now (in the
/// browser). Natively (the tests) there is no clock: [`native_slice`] checks.
pub fn for_ms(ms: f64) -> impl FnMut() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        let perf = web_sys::window().and_then(|w| w.performance());
        let end = perf.as_ref().map_or(0.0, |p| p.now()) + ms;
        move || perf.as_ref().is_some_and(|p| p.now() < end)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = ms;
        let mut left = NATIVE_SLICE.with(std::cell::Cell::get);
        move || {
            left = left.saturating_sub(1);
            left > 0
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    /// Natively, the checks of [`GROW_CHECK`] steps a slice lasts (tests set it
    /// with [`native_slice`] to see a view built in slices).
    static NATIVE_SLICE: std::cell::Cell<u32> = const { std::cell::Cell::new(u32::MAX) };
}

/// Natively, slices of `checks` × [`GROW_CHECK`] steps from now on (this thread).
#[cfg(not(target_arch = "wasm32"))]
pub fn native_slice(checks: u32) {
    NATIVE_SLICE.with(|c| c.set(checks));
}

/// How long the build of a view may hold the page after reading its scenario,
/// before it goes on in slices between frames (most views are built within it,
/// in one go). Counting the reading in it was tried: a scenario that took
/// longer to read than this left no time for a short run, whose view then
/// opened behind "Building…" (on the default view, for a saved one).
pub const FIRST_SLICE_MS: f64 = 40.0;
/// Each later slice of a build (a frame is 16 ms).
pub const SLICE_MS: f64 = 10.0;

/// Whether `run` can be explored as a link asks (`explore=`): a search per
/// version needs a model with several.
fn explore_check(run: &AnyRun, e: &Exploring) -> Result<(), String> {
    match (e.versions, run.header().version) {
        (true, None) => Err(format!(
            "explore={}: the {} model has one version; explore=first or explore=all searches it.",
            crate::permalink::explore_words(e),
            run.header().model
        )),
        _ => Ok(()),
    }
}

/// Whether `run` has a policy matrix to explore (`matrix=on`): a model with
/// what-if knobs.
fn matrix_check(run: &AnyRun) -> Result<(), String> {
    match run.scenario().knobs().is_empty() {
        true => Err(format!(
            "matrix=on: the {} model has no what-if knobs, so there is no policy matrix.",
            run.header().model
        )),
        false => Ok(()),
    }
}

/// The version a link asks Lockstep to compare `run` with (`vs=`), by its
/// full id: one of the scenario's versions, not the one shown.
fn compare_version(run: &AnyRun, v: &str) -> Result<&'static str, String> {
    let sc = run.scenario();
    let Some(here) = run.header().version else {
        return Err(format!(
            "vs={}: the {} model has one version, so there is nothing to compare with.",
            crate::permalink::short(v),
            run.header().model
        ));
    };
    let mut other = sc.clone();
    other.set_version(v).map_err(|e| format!("vs: {e}."))?;
    match other.header().version {
        Some(o) if o == here => Err(format!(
            "vs={o} is the version shown: Lockstep compares it with another."
        )),
        Some(o) => Ok(o),
        None => Err(format!(
            "vs: no version \"{}\".",
            crate::permalink::short(v)
        )),
    }
}

/// What a saved view loses when [`AppState::salvage`] opens `now` in its
/// place: its step, schedule, comparison, search, matrix, tour, knobs and
/// version, each named when it was there and is gone.
fn dropped_words(was: &ViewSpec, now: &ViewSpec) -> Vec<String> {
    use crate::permalink::short;
    let mut w = Vec::new();
    if was.step != now.step {
        w.push(format!("step {}", was.step));
    }
    if was.schedule.is_some() && now.schedule.is_none() {
        w.push("its manual schedule (it replays seeded)".to_owned());
    }
    if let Some(v) = was.compare.as_deref().filter(|_| now.compare.is_none()) {
        w.push(format!("the comparison with version {}", short(v)));
    }
    if was.explore.is_some() && now.explore.is_none() {
        w.push("the Explore search".to_owned());
    }
    if was.matrix && !now.matrix {
        w.push("the policy matrix".to_owned());
    }
    if let Some((t, i)) = was.tour.as_ref().filter(|_| now.tour.is_none()) {
        w.push(format!("stop {} of the tour {}", i + 1, short(t)));
    }
    if was.knobs != now.knobs {
        let knobs: Vec<String> = was
            .knobs
            .iter()
            .map(|(k, v)| format!("{}:{}", short(k), short(v)))
            .collect();
        let s = if knobs.len() == 1 { "" } else { "s" };
        w.push(format!("the what-if knob{s} {}", knobs.join(", ")));
    }
    if let Some(v) = was.version.as_deref().filter(|_| now.version.is_none()) {
        w.push(format!("version {}", short(v)));
    }
    w
}

/// `words` as an English list: "a", "a and b", "a, b and c".
fn and_list(words: &[String]) -> String {
    word_list(words, "and")
}

/// `words` joined by commas, the last by `conjunction`: "a, b and c".
fn word_list(words: &[String], conjunction: &str) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {conjunction} {last}", rest.join(", ")),
    }
}

impl AppState {
    /// The state for a view, or the error that prevents it.
    pub fn from_spec(spec: &ViewSpec) -> Result<AppState, String> {
        let mut b = Building::start(spec)?;
        b.grow(|| true);
        AppState::built(b)
    }

    /// The state the page opens on for `spec`: its view when built within
    /// [`FIRST_SLICE_MS`], else `base` (the saved view, when a link asks)
    /// or the default view while the run is built in slices (the address bar
    /// and local storage keep what asked for it).
    pub fn opening(
        spec: &ViewSpec,
        base: impl FnOnce() -> Option<AppState>,
    ) -> Result<AppState, String> {
        let mut b = Building::start(spec)?;
        if b.grow(for_ms(FIRST_SLICE_MS)) {
            return AppState::built(b);
        }
        b.link = true;
        let mut s = match base() {
            Some(s) => s,
            None => AppState::from_spec(&ViewSpec::default_view())?,
        };
        // Shown only while the link's run is built: its search is not run
        // (found by an attack: the saved view's search ran under the build,
        // for a view the address did not name).
        (s.explore, s.matrix) = (None, false);
        s.building = Some(Rc::new(RefCell::new(Some(b))));
        s.hold_link();
        Ok(s)
    }

    /// The state the page opens on for the view saved in local storage:
    /// [`AppState::opening`], or when the view cannot be shown, as much of it
    /// as can be ([`AppState::salvage`]), also when that is found only once
    /// its run is built in slices.
    pub fn opening_saved(spec: &ViewSpec) -> Result<AppState, String> {
        match AppState::opening(spec, || None) {
            Ok(s) => {
                if let Some(b) = s.building.as_ref() {
                    if let Some(b) = b.borrow_mut().as_mut() {
                        b.saved = true;
                    }
                }
                Ok(s)
            }
            Err(e) => AppState::salvage(spec, &e).ok_or(e),
        }
    }

    /// The state for the view `b` built, or the error that prevents it.
    fn built(b: Building) -> Result<AppState, String> {
        let spec = b.spec.clone();
        let spec = &spec;
        let (run, seed) = b.finish()?;
        let compare = match &spec.compare {
            None => None,
            Some(v) => Some(compare_version(&run, v)?),
        };
        if let Some(e) = &spec.explore {
            explore_check(&run, e)?;
        }
        if spec.matrix {
            matrix_check(&run)?;
        }
        Ok(AppState {
            run: Rc::new(RefCell::new(run)),
            rev: 0,
            source: spec.source.clone(),
            knobs: Rc::new(spec.knobs.clone()),
            tour: match &spec.tour {
                None => None,
                Some((id, stop)) => Some((Rc::new(tour_of(id, *stop)?), *stop)),
            },
            compare,
            explore: spec.explore,
            lens: spec.lens,
            matrix: spec.matrix,
            mode: spec.mode,
            seed,
            playing: false,
            speed: DEFAULT_SPEED,
            error: None,
            notice: None,
            help: false,
            editor: false,
            figures: Rc::new(RefCell::new(None)),
            held_link: Rc::new(RefCell::new(None)),
            building: None,
        })
    }

    /// The view `spec` asks for, in place of this one: built at once when that
    /// takes less than [`FIRST_SLICE_MS`], else this view stays while it is
    /// built in slices ([`AppState::building`]). `link`: a link asked for it
    /// (a failure holds the link).
    fn begin(self: &Rc<Self>, spec: &ViewSpec, link: bool) -> Rc<AppState> {
        // The view asked for last wins: a build under way for an earlier
        // one stops, whether this one is built, refused or built in slices.
        let this = match (&self.building, self.says_stopped()) {
            (None, false) => self.clone(),
            _ => self.with(|s| {
                s.building = None;
                // What Stop said was of a run no longer asked for.
                if s.says_stopped() {
                    s.notice = None;
                }
            }),
        };
        let mut b = match Building::start(spec) {
            Ok(b) => b,
            Err(e) => return this.kept(&e, link),
        };
        b.link = link;
        if b.grow(for_ms(FIRST_SLICE_MS)) {
            return this.finished(b);
        }
        this.with(|s| {
            s.building = Some(Rc::new(RefCell::new(Some(b))));
            s.playing = false;
            if link {
                // The address bar keeps the link while it is built.
                s.hold_link();
            }
        })
    }

    /// The view `b` built, or this one with why it cannot be shown.
    fn finished(self: &Rc<Self>, mut b: Building) -> Rc<AppState> {
        let (link, instead) = (b.link, b.instead.take());
        let saved = b.saved.then(|| b.spec.clone());
        match AppState::built(b) {
            Ok(mut s) => match instead {
                Some(e) => self.loaded(AppState::instead_of_link_with(s, e)),
                None => {
                    // A view opened in the page (a counterexample, another
                    // mode, seed or version) keeps the search its panel
                    // still shows; a link says its own.
                    if !link && s.explore.is_none() {
                        s.explore = self.explore_kept_by(&s);
                    }
                    // The lens stays on from view to view in the page, as
                    // its box does; a link says whether it is.
                    s.lens |= !link && self.lens;
                    // The matrix is the scenario's, whatever the version and
                    // knobs (see `WhatIf`).
                    s.matrix |= !link && self.matrix && self.source == s.source;
                    self.loaded(s)
                }
            },
            Err(e) => match saved.and_then(|spec| AppState::salvage(&spec, &e)) {
                Some(s) => self.loaded(s),
                None => self.kept(&e, link),
            },
        }
    }

    /// [`Action::Built`] (`stop` false): the view built is shown; or
    /// [`Action::StopBuild`]: this view stays, saying how far the build got.
    fn on_build(self: &Rc<Self>, stop: bool) -> Rc<AppState> {
        match (self.take_built(!stop), stop) {
            (Some(b), false) => self.with(|s| s.building = None).finished(b),
            // A late Built (the build was stopped or replaced): no change.
            (None, false) => self.clone(),
            (b, true) => self.with(|s| {
                s.building = None;
                if let Some(b) = &b {
                    s.notice = Some(stopped_words(b));
                }
            }),
        }
    }

    /// The view being built in slices, taken: when it is built (`built`), or
    /// to be stopped. A Built from a build replaced since finds the new one
    /// not built and leaves it.
    fn take_built(self: &Rc<Self>, built: bool) -> Option<Building> {
        let mut b = self.building.as_ref()?.borrow_mut();
        if built && !b.as_ref().is_some_and(|b| b.done) {
            return None;
        }
        b.take()
    }

    /// The search of this view that the Explore panel still shows in the view
    /// `next`: one of the same scenario and knobs, and of the same version
    /// unless it searched every version (the panel's own rule: see
    /// `use_explorers`' key and `forget_one`).
    fn explore_kept_by(&self, next: &AppState) -> Option<Exploring> {
        let same_version =
            || self.run.borrow().header().version == next.run.borrow().header().version;
        self.explore.filter(|e| {
            self.source == next.source && self.knobs == next.knobs && (e.versions || same_version())
        })
    }

    /// The saved view `spec`, which could not be restored (`why`), opened as
    /// far as it can be (never losing a valid scenario text, uploaded or
    /// edited: found by a review of the page): its scenario at step 0 without
    /// its schedule, comparison, search, matrix and tour; failing that also
    /// without its what-if knobs; failing that at its default version. The
    /// state says what was dropped and why, and holds the saved view in local
    /// storage until the view changes. None when not even its scenario opens.
    pub fn salvage(spec: &ViewSpec, why: &str) -> Option<AppState> {
        let step0 = ViewSpec {
            step: 0,
            schedule: None,
            mode: match spec.mode {
                Mode::Manual => Mode::Seeded,
                m => m,
            },
            compare: None,
            explore: None,
            matrix: false,
            tour: None,
            ..spec.clone()
        };
        let bare = ViewSpec {
            knobs: Vec::new(),
            ..step0.clone()
        };
        let plain = ViewSpec {
            version: None,
            ..bare.clone()
        };
        let (s, now) = [step0, bare, plain]
            .into_iter()
            .find_map(|t| Some((AppState::opening(&t, || None).ok()?, t)))?;
        let name = match &spec.source {
            Source::Builtin(n) => crate::permalink::short(n),
            Source::Inline { file, .. } => file.clone(),
        };
        let lost = match dropped_words(spec, &now) {
            w if w.is_empty() => String::new(),
            w => format!(" without {}", and_list(&w)),
        };
        Some(AppState::instead_of_link_with(
            s,
            format!(
                "Your saved view (local storage) could not be restored as it was: {} Its scenario, {name}, is open{lost}, at step 0; the saved view stays in local storage until you change this one.",
                sentence(why)
            ),
        ))
    }

    /// The default view with an error message on top (when the requested view is broken).
    pub fn fallback(error: String) -> AppState {
        let mut s =
            AppState::from_spec(&ViewSpec::default_view()).expect("the default view always loads");
        s.error = Some(error);
        s
    }

    /// The default view, shown because the link opened could not be: the link
    /// is held (see [`AppState::held_link`]).
    pub fn instead_of_link(error: String) -> AppState {
        AppState::instead_of_link_with(AppState::fallback(String::new()), error)
    }

    /// `s`, shown because the link opened could not be: the link is held (see
    /// [`AppState::held_link`]), `error` says why.
    pub fn instead_of_link_with(mut s: AppState, error: String) -> AppState {
        // Nor are its searches run: the address keeps the link to correct.
        (s.explore, s.matrix) = (None, false);
        // A view still being built keeps the error and the hold when it comes
        // (found by an attack: the built view dropped both, and wrote itself
        // over the link to be corrected).
        if let Some(b) = s.building.as_ref() {
            if let Some(b) = b.borrow_mut().as_mut() {
                b.instead = Some(error.clone());
            }
        }
        s.error = Some(error);
        s.hold_link();
        s
    }

    /// Which code this state shows (see [`Shown`]).
    pub fn shown(&self) -> Shown {
        Shown {
            source: self.source.clone(),
            version: self.run.borrow().header().version,
            knobs: self.knobs.clone(),
        }
    }

    /// The view this state shows, for the permalink.
    pub fn spec(&self) -> ViewSpec {
        let run = self.run.borrow();
        ViewSpec {
            source: self.source.clone(),
            version: run.header().version.map(str::to_owned),
            compare: self.compare.map(str::to_owned),
            explore: self.explore,
            lens: self.lens,
            matrix: self.matrix,
            knobs: (*self.knobs).clone(),
            tour: self.tour.as_ref().map(|(t, i)| (t.id.clone(), *i)),
            seed: Some(self.seed),
            mode: self.mode,
            schedule: (self.mode == Mode::Manual).then(|| run.schedule()),
            step: run.cursor(),
        }
    }

    /// The same scenario and version, another mode or seed, from step 0.
    fn respec(&self, mode: Mode, seed: u64) -> ViewSpec {
        ViewSpec {
            seed: Some(seed),
            mode,
            schedule: None,
            step: 0,
            // Kept, or not, once built: see `AppState::explore_kept_by`.
            explore: None,
            lens: false,
            matrix: false,
            ..self.spec()
        }
    }

    /// The figures of the whole run (cached until the run grows or a choice replaces
    /// its future).
    pub fn figures(&self) -> Rc<Figures> {
        if let Some(f) = self.figures.borrow().as_ref() {
            if f.len == self.run.borrow().len() {
                return f.clone();
            }
        }
        let f = Rc::new(self.run.borrow().figures());
        *self.figures.borrow_mut() = Some(f.clone());
        f
    }

    fn with(self: &Rc<Self>, f: impl FnOnce(&mut AppState)) -> Rc<AppState> {
        let mut next = AppState {
            run: self.run.clone(),
            rev: self.rev + 1,
            source: self.source.clone(),
            knobs: self.knobs.clone(),
            tour: self.tour.clone(),
            compare: self.compare,
            error: self.error.clone(),
            notice: self.notice.clone(),
            figures: self.figures.clone(),
            held_link: self.held_link.clone(),
            building: self.building.clone(),
            ..**self
        };
        f(&mut next);
        Rc::new(next)
    }

    /// `s`, a view built, in place of this one.
    fn loaded(&self, mut s: AppState) -> Rc<AppState> {
        s.rev = self.rev + 1;
        s.speed = self.speed;
        s.editor = self.editor;
        // An open help stays open (a long run built under it closed it).
        s.help = self.help;
        Rc::new(s)
    }

    /// A step of the cursor (by hand, by Play's timer, or a jump).
    /// [`Action::Jump`]: to step `n`, and the jump field's own refusal goes.
    fn jump(self: &Rc<Self>, n: u32, cursor: u32, len: u32) -> Rc<AppState> {
        let s = self.step(&Action::Goto(n), cursor, len);
        if s.error
            .as_deref()
            .is_some_and(|e| e.starts_with(JUMP_ERROR))
        {
            s.with(|s| s.error = None)
        } else {
            s
        }
    }

    fn step(self: &Rc<Self>, a: &Action, cursor: u32, len: u32) -> Rc<AppState> {
        match a {
            Action::StepForward | Action::Tick => {
                let moved = cursor < len && self.goto(cursor + 1);
                self.with(|s| s.playing &= moved)
            }
            Action::StepBack => {
                self.goto(cursor.saturating_sub(1));
                self.with(|s| s.playing = false)
            }
            Action::Goto(n) => {
                self.goto(*n);
                self.with(|_| {})
            }
            _ => {
                self.goto(len);
                self.with(|s| s.playing = false)
            }
        }
    }

    /// A link that could not be opened (`e`, why): the view stays, and the link
    /// is held (see [`AppState::held_link`]).
    fn bad_link(self: &Rc<Self>, e: &str) -> Rc<AppState> {
        // The latest link wins: a build for an earlier one stops, and a link
        // Stop kept is no longer in the address bar.
        self.with(|s| s.building = None)
            .link_replaced()
            .kept(e, true)
    }

    /// The notice is what Stop said.
    fn says_stopped(&self) -> bool {
        self.notice
            .as_deref()
            .is_some_and(|n| n.starts_with(STOPPED))
    }

    /// This view kept, with why another could not be shown (`e`); `hold`: the
    /// link that asked for it is held (see [`AppState::held_link`]).
    fn kept(self: &Rc<Self>, e: &str, hold: bool) -> Rc<AppState> {
        self.with(|s| {
            s.error = Some(format!(
                "{} The previous view is still loaded.",
                sentence(e)
            ));
            s.playing = false;
            if hold {
                s.hold_link();
            }
        })
    }

    /// Holds the permalink of this view (see [`AppState::held_link`]).
    fn hold_link(&mut self) {
        self.held_link = Rc::new(RefCell::new(Some(crate::permalink::encode(&self.spec()))));
    }

    /// The permalink to write to the address bar and local storage, if any: none
    /// while the view is the one shown instead of a link that could not be
    /// opened; the first view that differs releases the hold for good.
    pub fn link_to_write(&self) -> Option<String> {
        // Nor while a link's run is built: the address bar keeps the link,
        // whatever the view shown meanwhile does (a step of it pushed an
        // entry, and the built view another).
        let building = self.building.as_ref();
        if building.is_some_and(|b| b.borrow().as_ref().is_some_and(|b| b.link)) {
            return None;
        }
        let frag = crate::permalink::encode(&self.spec());
        let mut held = self.held_link.borrow_mut();
        if held.as_ref() == Some(&frag) {
            return None;
        }
        *held = None;
        Some(frag)
    }

    /// [`Action::Choose`]: `c` runs next, in place of the recorded future.
    fn choose(self: Rc<Self>, c: Choice) -> Rc<AppState> {
        let r = self.run.borrow_mut().advance_with(c);
        match r {
            Ok(_) => {
                // The recorded future was replaced: the figures describe another
                // run now, even when its length is the same.
                *self.figures.borrow_mut() = None;
                self.with(|s| s.mode = Mode::Manual)
            }
            Err(e) => self.with(|s| s.error = Some(format!("Goroutine {c} cannot run here: {e}."))),
        }
    }

    /// [`Action::LeaveLink`]: a build under way is dropped, without a word.
    fn leave_link(self: Rc<Self>) -> Rc<AppState> {
        let left = match &self.building {
            Some(_) => self.with(|s| s.building = None),
            None => self,
        };
        left.link_replaced()
    }

    /// [`Action::LinkReplaced`]: a Stop notice no longer says the link is kept.
    fn link_replaced(self: Rc<Self>) -> Rc<AppState> {
        match self.notice.as_deref() {
            Some(n) if n.ends_with(LINK_KEPT) => {
                let n = n.trim_end_matches(LINK_KEPT).to_owned();
                self.with(|s| s.notice = Some(n))
            }
            _ => self,
        }
    }

    /// Loads a view; when it cannot be built, the previous one stays with a message.
    fn load(self: &Rc<Self>, spec: &ViewSpec) -> Rc<AppState> {
        self.begin(spec, false)
    }

    /// The mode after the scenario changes: a manual schedule belongs to one
    /// version and one set of knobs, so another replays seeded.
    fn unmanual(&self) -> Mode {
        if self.mode == Mode::Manual {
            Mode::Seeded
        } else {
            self.mode
        }
    }

    /// Moves the cursor; returns whether it moved.
    fn goto(&self, n: u32) -> bool {
        let mut run = self.run.borrow_mut();
        let before = run.cursor();
        run.goto(n);
        run.cursor() != before
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let (cursor, len) = {
            let r = self.run.borrow();
            (r.cursor(), r.len())
        };
        match action {
            // The same state: no render (see `Action::Tick`).
            Action::Tick if !self.playing => self,
            Action::Load(spec) => self.load(&spec),
            Action::Version(v) => self.load(&ViewSpec {
                // Lockstep goes on comparing with its version, unless that is
                // the one now shown.
                compare: self
                    .compare
                    .filter(|c| !c.starts_with(v.as_str()))
                    .map(str::to_owned),
                version: Some(v),
                knobs: Vec::new(),
                ..self.respec(self.unmanual(), self.seed)
            }),
            Action::Knob(key, value) => {
                let mut knobs: Vec<_> = (*self.knobs).clone();
                knobs.retain(|(k, _)| *k != key);
                knobs.push((key, value));
                self.load(&ViewSpec {
                    knobs,
                    ..self.respec(self.unmanual(), self.seed)
                })
            }
            Action::Tour(id, stop) => match tour_of(&id, stop) {
                Ok(t) => self.load(&stop_spec(&t, stop)),
                Err(e) => self.with(|s| s.error = Some(e)),
            },
            Action::EndTour => self.with(|s| s.tour = None),
            Action::ClearKnobs => self.load(&ViewSpec {
                knobs: Vec::new(),
                ..self.respec(self.unmanual(), self.seed)
            }),
            Action::Mode(m) => self.load(&self.respec(m, self.seed)),
            Action::Seed(seed) => self.load(&self.respec(Mode::Seeded, seed)),
            Action::Compare(v) => self.with(|s| s.compare = v),
            Action::Explore(e) => self.with(|s| s.explore = e),
            Action::Lens(on) => self.with(|s| s.lens = on),
            Action::Matrix(on) => self.with(|s| s.matrix = on),
            Action::StepForward
            | Action::Tick
            | Action::StepBack
            | Action::Goto(_)
            | Action::ToEnd => self.step(&action, cursor, len),
            Action::Jump(n) => self.jump(n, cursor, len),
            Action::Choose(c) => self.choose(c),
            Action::Play(p) => self.with(|s| s.playing = p && cursor < len),
            Action::Speed(v) => {
                self.with(|s| s.speed = v.clamp(SPEEDS[0], SPEEDS[SPEEDS.len() - 1]))
            }
            Action::Error(e) => self.with(|s| {
                s.error = Some(e);
                s.playing = false;
            }),
            Action::BadLink(e) => self.bad_link(&e),
            Action::LoadLink(spec) => self.begin(&spec, true),
            Action::DismissError => self.with(|s| s.error = None),
            Action::Notice(n) => self.with(|s| s.notice = n),
            Action::Help(h) => self.with(|s| s.help = h),
            Action::Editor(e) => self.with(|s| s.editor = e),
            Action::Built => self.on_build(false),
            Action::StopBuild => self.on_build(true),
            Action::LeaveLink => self.leave_link(),
            Action::LinkReplaced => self.link_replaced(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(frag: &str) -> Rc<AppState> {
        Rc::new(AppState::from_spec(&crate::permalink::decode(frag).unwrap()).unwrap())
    }

    fn cursor(s: &AppState) -> u32 {
        s.run.borrow().cursor()
    }

    #[test]
    fn a_message_is_made_a_sentence_once() {
        assert_eq!(
            sentence("a scenario needs the field \"model\""),
            "a scenario needs the field \"model\"."
        );
        assert_eq!(
            sentence("expected a whole number (rows) "),
            "expected a whole number (rows)."
        );
        assert_eq!(sentence("It was cleared."), "It was cleared.");
    }

    /// The steps of `s`'s run and its schedule.
    fn made(s: &AppState) -> (u32, Vec<Choice>) {
        let r = s.run.borrow();
        (r.len(), r.schedule())
    }

    /// Builds in slices what `s` is building; returns the slices it took.
    fn build_slices(s: &AppState) -> u32 {
        let b = s.building.clone().expect("a view being built");
        let mut slices = 1;
        while !b.borrow_mut().as_mut().unwrap().grow(for_ms(SLICE_MS)) {
            slices += 1;
            assert!(slices < 10_000, "the build never ends");
        }
        slices
    }

    #[test]
    fn thousands_are_grouped() {
        for (n, s) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (123_456, "123,456"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(group(n), s);
        }
    }

    /// A long run is built in slices while the view shown stays: what it
    /// builds is the run built in one go, and Stop keeps the view.
    #[test]
    fn a_long_run_is_built_in_slices_and_can_be_stopped() {
        let before = state("scenario=handoff&step=2");
        let frag = "scenario=pairs-100&mode=seeded&seed=7&step=5";
        let spec = crate::permalink::decode(frag).unwrap();
        let whole = AppState::from_spec(&spec).unwrap();
        assert!(
            made(&whole).0 > 10 * GROW_CHECK,
            "pairs-100 is not long enough to test slices"
        );
        // Two checks a slice: 128 steps.
        native_slice(2);
        let building = before.clone().reduce(Action::Load(spec.clone()));
        assert!(
            Rc::ptr_eq(&building.run, &before.run),
            "the view shown changed before the run was built"
        );
        assert_eq!(cursor(&building), 2);
        // The view shown still steps.
        let building = building.reduce(Action::StepForward);
        assert_eq!(cursor(&building), 3);
        assert!(building.building.is_some(), "a step dropped the build");
        assert!(build_slices(&building) > 5);
        let shown = building.reduce(Action::Built);
        assert!(shown.building.is_none());
        assert_eq!(
            made(&shown),
            made(&whole),
            "built in slices, the run differs"
        );
        assert_eq!((cursor(&shown), shown.seed), (5, 7));
        assert_eq!(shown.spec(), whole.spec());
        // A late Built (nothing being built) changes nothing.
        let again = shown.clone().reduce(Action::Built);
        assert!(Rc::ptr_eq(&again, &shown));
        // A Built that comes before the build ended (one from a build replaced
        // since) leaves it building.
        let building = before.clone().reduce(Action::Load(spec.clone()));
        let early = building.clone().reduce(Action::Built);
        assert!(
            Rc::ptr_eq(&early, &building),
            "a Built before the build ended took it"
        );
        assert!(early.building.as_ref().unwrap().borrow().is_some());
        // Stop: the view stays, with how far the build got.
        let building = before.clone().reduce(Action::Load(spec.clone()));
        let stopped = building.reduce(Action::StopBuild);
        assert!(stopped.building.is_none() && Rc::ptr_eq(&stopped.run, &before.run));
        assert!(
            stopped
                .notice
                .as_deref()
                .unwrap()
                .contains("(128 steps built); the view shown stays."),
            "{:?}",
            stopped.notice
        );
        // Another view asked for while one is built: the later one is shown.
        let building = before.clone().reduce(Action::Load(spec));
        let other = building.reduce(Action::Load(
            crate::permalink::decode("scenario=retries&step=1").unwrap(),
        ));
        assert!(other.building.is_none() && other.run.borrow().header().name == "retries");
        native_slice(u32::MAX);
    }

    /// The view asked for last wins over a build under way, and what the page
    /// had open (the help) stays open when the built view is shown.
    #[test]
    fn the_view_asked_for_last_wins_over_a_build() {
        let before = state("scenario=handoff&step=2");
        let spec = crate::permalink::decode("scenario=pairs-100&mode=seeded&seed=7").unwrap();
        native_slice(2);
        // What is asked for last wins: a view that cannot be shown, asked
        // for while one is built, stops that build; so does a bad link.
        let bad = ViewSpec {
            version: Some("zzz".into()),
            ..spec.clone()
        };
        let building = before.clone().reduce(Action::Load(spec.clone()));
        let refused = building.reduce(Action::LoadLink(bad));
        assert!(refused.building.is_none() && refused.error.is_some());
        let building = before.clone().reduce(Action::Load(spec.clone()));
        let refused = building.reduce(Action::BadLink("step \"x\" is not a number.".into()));
        assert!(refused.building.is_none() && refused.error.is_some());
        // Help opened while it builds stays open when the view is shown.
        let building = before
            .clone()
            .reduce(Action::Load(spec.clone()))
            .reduce(Action::Help(true));
        build_slices(&building);
        assert!(building.reduce(Action::Built).help, "the help closed");
        native_slice(u32::MAX);
    }

    /// Found by an attack: Back to the bare address while a link's run was
    /// built let the build go on (its view came anyway), and Stop's "the link
    /// is kept" stayed after a step had written another view over it.
    #[test]
    fn leaving_a_link_drops_its_build_and_stop_says_no_more_than_is_true() {
        let before = state("scenario=handoff&step=2");
        native_slice(2);
        let spec = crate::permalink::decode("scenario=pairs-100&mode=seeded&seed=4").unwrap();
        let building = before.clone().reduce(Action::LoadLink(spec.clone()));
        assert!(building.building.is_some(), "built in one slice");
        let left = building.reduce(Action::LeaveLink);
        assert!(left.building.is_none(), "the build went on");
        assert_eq!((&left.notice, &left.error), (&None, &None));
        assert!(Rc::ptr_eq(&left.run, &before.run));
        assert_eq!(
            left.link_to_write(),
            None,
            "the bare address was written over"
        );
        assert!(left.reduce(Action::StepForward).link_to_write().is_some());
        // Stop: the link is kept, until the address bar shows another view.
        let stopped = before
            .clone()
            .reduce(Action::LoadLink(spec.clone()))
            .reduce(Action::StopBuild);
        let said = stopped.notice.clone().unwrap();
        assert!(said.ends_with(LINK_KEPT), "{said}");
        let replaced = stopped.clone().reduce(Action::LinkReplaced);
        let now = replaced.notice.as_deref().unwrap();
        assert!(
            now.starts_with("Stopped building the run asked for (")
                && now.ends_with("steps built); the view shown stays."),
            "{now}"
        );
        let again = replaced.clone().reduce(Action::LinkReplaced);
        assert!(
            Rc::ptr_eq(&again, &replaced),
            "a notice without the claim changed"
        );
        assert_eq!(
            stopped.reduce(Action::LeaveLink).notice.as_deref(),
            Some(now)
        );
        // Other notices are left as they are.
        let other = before.reduce(Action::Notice(Some("Copied.".into())));
        assert!(Rc::ptr_eq(
            &other.clone().reduce(Action::LinkReplaced),
            &other
        ));
    }

    /// Found by an attack: a view shown only while a link's run is built, or
    /// instead of a link that cannot be opened, does not run its search (the
    /// address names another view); the link's view built has its own.
    #[test]
    fn a_view_shown_in_place_of_a_link_runs_no_search() {
        native_slice(2);
        let saved = || {
            let spec = crate::permalink::decode("scenario=segment-not-found&explore=versions");
            AppState::from_spec(&spec.unwrap()).ok()
        };
        assert!(saved().unwrap().explore.is_some());
        let link = crate::permalink::decode("scenario=pairs-100&explore=all").unwrap();
        let s = Rc::new(AppState::opening(&link, saved).unwrap());
        assert!(s.building.is_some(), "built in one slice");
        assert_eq!(s.explore, None);
        build_slices(&s);
        let built = s.reduce(Action::Built);
        assert_eq!(
            built.explore.map(|e| (e.all, e.versions)),
            Some((true, false))
        );
        let instead = AppState::instead_of_link_with(saved().unwrap(), "Bad link.".into());
        assert_eq!(instead.explore, None);
    }

    /// Found by an attack: a bad link shown over a saved view that is long
    /// lost its error and its hold when that view was built; and what Stop
    /// said stayed over another link asked for since.
    #[test]
    fn a_bad_link_over_a_long_saved_view_stays_said_and_held() {
        native_slice(2);
        let saved = crate::permalink::decode("scenario=pairs-100&mode=seeded&seed=5").unwrap();
        let base = AppState::opening(&saved, || None).unwrap();
        assert!(base.building.is_some(), "built in one slice");
        let s = Rc::new(AppState::instead_of_link_with(
            base,
            "Bad link. Showing the view you had open last instead.".into(),
        ));
        assert_eq!(s.link_to_write(), None);
        build_slices(&s);
        let built = s.reduce(Action::Built);
        assert_eq!(built.spec().seed, Some(5), "not the saved view");
        assert_eq!(
            built.error.as_deref(),
            Some("Bad link. Showing the view you had open last instead.")
        );
        assert_eq!(
            built.link_to_write(),
            None,
            "the built view wrote over the link"
        );
        assert!(built.reduce(Action::StepForward).link_to_write().is_some());
        // Stop, then another long link: what Stop said goes.
        let before = state("scenario=handoff&step=2");
        native_slice(2);
        let spec = crate::permalink::decode("scenario=pairs-100&mode=seeded&seed=4").unwrap();
        let stopped = before
            .clone()
            .reduce(Action::LoadLink(spec.clone()))
            .reduce(Action::StopBuild);
        assert!(stopped.says_stopped());
        let other = crate::permalink::decode("scenario=pairs-100&mode=seeded&seed=6").unwrap();
        let again = stopped.clone().reduce(Action::LoadLink(other));
        assert!(again.building.is_some());
        assert_eq!(again.notice, None, "the first Stop's notice stayed");
        // Stop, then a bad link: the link is no longer said to be kept.
        let bad = stopped.reduce(Action::BadLink("No such step.".into()));
        let n = bad.notice.as_deref().unwrap();
        assert!(n.ends_with("the view shown stays."), "{n}");
        assert!(bad.error.is_some());
    }

    /// A bad `vs=` or `tour=` is refused before a long run is built.
    #[test]
    fn what_can_be_checked_before_a_build_is() {
        native_slice(2);
        for (frag, says) in [
            (
                "scenario=pairs-100&mode=seeded&vs=b5c9a7364b",
                "the flush-2021 model has one version",
            ),
            (
                "scenario=pairs-100&mode=seeded&tour=nope",
                "There is no tour",
            ),
        ] {
            let spec = crate::permalink::decode(frag).unwrap();
            let e = Building::start(&spec)
                .err()
                .unwrap_or_else(|| panic!("{frag}"));
            assert!(e.contains(says), "{frag}: {e}");
        }
    }

    /// A link whose long run cannot be shown (its step is past the end) says so
    /// once built, and the link is held; a manual schedule replayed in slices
    /// names the entry that cannot run.
    #[test]
    fn a_view_built_in_slices_reports_what_is_wrong() {
        let before = state("scenario=handoff&step=2");
        native_slice(2);
        let spec = crate::permalink::decode("scenario=pairs-100&mode=seeded&step=999999").unwrap();
        let building = before.clone().reduce(Action::LoadLink(spec.clone()));
        assert_eq!(
            building.link_to_write(),
            None,
            "the address bar lost the link while it was built"
        );
        // A step of the view shown meanwhile leaves the link in the address bar.
        let stepped = building.reduce(Action::StepForward);
        assert_eq!(stepped.link_to_write(), None);
        let building = stepped.reduce(Action::StepBack);
        let stopped = building.clone().reduce(Action::StopBuild);
        assert!(stopped
            .notice
            .as_deref()
            .unwrap()
            .ends_with("so a reload builds it again."));
        assert_eq!(stopped.link_to_write(), None, "Stop let go of the link");
        let building = before.clone().reduce(Action::LoadLink(spec));
        build_slices(&building);
        let kept = building.reduce(Action::Built);
        let e = kept.error.as_deref().unwrap();
        assert!(
            e.starts_with("Step 999999 is past the end of this run (")
                && e.ends_with("The previous view is still loaded."),
            "{e}"
        );
        assert_eq!(kept.link_to_write(), None, "the link was not held");
        assert!(Rc::ptr_eq(&kept.run, &before.run));
        // Manual: the whole schedule of a long run, one entry broken late.
        native_slice(u32::MAX);
        let whole = state("scenario=pairs-100&mode=seeded&seed=3");
        let mut schedule = made(&whole).1;
        let n = schedule.len();
        schedule[n - 2] = Choice { g: 999, alt: 0 };
        let spec = ViewSpec {
            mode: Mode::Manual,
            schedule: Some(schedule),
            ..whole.spec()
        };
        native_slice(2);
        let building = before.clone().reduce(Action::Load(spec));
        build_slices(&building);
        let e = building.reduce(Action::Built).error.clone().unwrap();
        assert!(
            e.starts_with(&format!(
                "The schedule's entry {}, \"999\", cannot run at step {}: g999 does not exist at that step; runnable there: ",
                n - 1,
                n - 1
            )),
            "{e}"
        );
        native_slice(u32::MAX);
    }

    /// A link that could not be opened is held while the view is the one shown
    /// instead: the address bar and local storage are not rewritten until the
    /// view changes (the permalink effect compares the two).
    #[test]
    fn a_bad_link_is_held_until_the_view_changes() {
        let s = state("scenario=handoff&step=2");
        assert_eq!(*s.held_link.borrow(), None);
        let shown = crate::permalink::encode(&s.spec());
        assert_eq!(s.link_to_write().as_deref(), Some(shown.as_str()));
        let bad = s.reduce(Action::BadLink("step \"1x2\" is not a number.".into()));
        assert!(bad
            .error
            .as_deref()
            .unwrap()
            .ends_with("The previous view is still loaded."));
        // Held while the view is the one shown: dismissing the message keeps it.
        assert_eq!(bad.link_to_write(), None);
        let dismissed = bad.reduce(Action::DismissError);
        assert_eq!(dismissed.link_to_write(), None);
        // The first view that differs is written and releases the hold for
        // good: back at the same view (Home after a step), it is written too.
        let stepped = dismissed.reduce(Action::StepForward);
        assert_ne!(stepped.link_to_write(), None);
        let back = stepped.reduce(Action::StepBack);
        assert_eq!(back.link_to_write().as_deref(), Some(shown.as_str()));
        // A pasted link that reads but cannot be built is held as well.
        let s = state("scenario=handoff&step=2");
        let spec = crate::permalink::decode("scenario=handoff&step=999999").unwrap();
        let kept = s.reduce(Action::LoadLink(spec));
        assert!(kept
            .error
            .as_deref()
            .unwrap()
            .contains("The previous view is still loaded."));
        assert_eq!(kept.link_to_write(), None);
        let spec = crate::permalink::decode("scenario=retries&step=1").unwrap();
        assert!(kept.reduce(Action::LoadLink(spec)).error.is_none());
        let fallback = AppState::instead_of_link("nope.".into());
        assert_eq!(fallback.link_to_write(), None);
    }

    /// Play's ticks step while playing; one that comes after a Pause is the
    /// same state (no render, no step).
    #[test]
    fn a_tick_after_pause_neither_steps_nor_renders() {
        let s = state("scenario=segment-not-found&mode=scripted&step=0");
        let s = s.reduce(Action::Play(true)).reduce(Action::Tick);
        assert_eq!(cursor(&s), 1);
        let paused = s.reduce(Action::Play(false));
        let after = paused.clone().reduce(Action::Tick);
        assert!(
            Rc::ptr_eq(&paused, &after),
            "a tick after Pause made a new state"
        );
        assert_eq!(cursor(&after), 1);
        // A step by hand still steps when paused.
        assert_eq!(cursor(&after.reduce(Action::StepForward)), 2);
    }

    #[test]
    fn stepping_moves_the_cursor_and_stops_playing_at_the_ends() {
        let s = state("scenario=segment-not-found&mode=scripted&step=0");
        let s = s.reduce(Action::Play(true));
        assert!(s.playing);
        let s = s.reduce(Action::StepForward);
        assert_eq!(cursor(&s), 1);
        assert!(s.playing, "still playing mid-run");
        let s = s.reduce(Action::ToEnd);
        assert_eq!(cursor(&s), 7);
        assert!(!s.playing);
        let s = s.reduce(Action::Play(true));
        assert!(!s.playing, "nothing left to play");
        let s = s.reduce(Action::StepForward);
        assert_eq!(cursor(&s), 7);
        let s = s.reduce(Action::StepBack).reduce(Action::Goto(2));
        assert_eq!(cursor(&s), 2);
        let rev = s.rev;
        assert!(
            s.clone().reduce(Action::Goto(0)).rev > rev,
            "every change bumps the revision"
        );
        // A good jump clears the jump field's refusal, and only that.
        let bad = s.reduce(Action::Error(format!(
            "{JUMP_ERROR}\"99\" is not a step from 0 to 7."
        )));
        let s = bad.clone().reduce(Action::Jump(3));
        assert_eq!((cursor(&s), s.error.clone()), (3, None));
        let s = bad.reduce(Action::Goto(4));
        assert!(s.error.is_some(), "the scrubber leaves it");
        let other = s.reduce(Action::Error("Upload: not JSON.".into()));
        assert!(
            other.reduce(Action::Jump(1)).error.is_some(),
            "another error stays"
        );
    }

    /// A saved view whose scenario text is good but whose step or knob is not
    /// opens that scenario without the bad part, saying what was dropped (it
    /// An inline scenario is read once however many views of it are built
    /// (each seed, mode, version or knob builds one): the same text, even in
    /// another string, gives the scenario read before; another text or file
    /// name is read anew, and a text that does not read is said each time.
    #[test]
    fn an_inline_scenario_is_read_once() {
        let text = builtin::text("retries").unwrap();
        let inline = |file: &str, text: &str| Source::Inline {
            file: file.into(),
            text: text.into(),
        };
        let ptr = |sc: &AnyScenario| match sc {
            AnyScenario::Flush(s) => std::sync::Arc::as_ptr(s) as usize,
            _ => unreachable!("retries is a flush-2021 scenario"),
        };
        let first = scenario_of(&inline("a.json", text)).unwrap();
        let again = scenario_of(&inline("a.json", text)).unwrap();
        assert_eq!(ptr(&first), ptr(&again), "the same text was read again");
        let other_name = scenario_of(&inline("b.json", text)).unwrap();
        assert_ne!(ptr(&first), ptr(&other_name));
        let other = text.replace("\"seed\": 9", "\"seed\": 10");
        assert_ne!(other, text);
        let edited = scenario_of(&inline("b.json", &other)).unwrap();
        assert_eq!(edited.header().seed, 10, "an edited text is read anew");
        for _ in 0..2 {
            let e = scenario_of(&inline("b.json", "{")).unwrap_err();
            assert!(e.starts_with("b.json:1:"), "{e}");
        }
        // A view built at another seed does not change the scenario kept.
        let mut built = scenario_of(&inline("b.json", &other)).unwrap();
        built.header_mut().seed = 77;
        assert_eq!(
            scenario_of(&inline("b.json", &other))
                .unwrap()
                .header()
                .seed,
            10
        );
    }

    /// was cleared, text and all: found by a review of the page).
    #[test]
    fn a_saved_view_keeps_its_scenario_and_drops_only_what_fails() {
        let text = builtin::text("retries")
            .unwrap()
            .replace("\"retries\"", "\"my-precious-edit\"");
        let saved = |rest: &str| ViewSpec {
            source: Source::Inline {
                file: "mine.json".into(),
                text: text.clone().into(),
            },
            ..crate::permalink::decode(&format!("scenario=handoff&{rest}")).unwrap()
        };
        let spec = saved("mode=seeded&seed=9&step=999999");
        let s = AppState::opening_saved(&spec).unwrap();
        assert_eq!(s.source, spec.source, "the scenario text is kept");
        assert_eq!((cursor(&s), s.seed), (0, 9));
        let e = s.error.clone().unwrap();
        assert!(
            e.contains("Step 999999 is past the end of this run")
                && e.contains("Its scenario, mine.json, is open without step 999999, at step 0"),
            "{e}"
        );
        // Held: local storage keeps the saved view until the view changes.
        assert_eq!(s.link_to_write(), None);
        let spec = saved("knob=nope:x&mode=seeded&seed=9&step=3");
        let s = AppState::opening_saved(&spec).unwrap();
        assert_eq!(s.source, spec.source);
        assert!(s.knobs.is_empty());
        let e = s.error.clone().unwrap();
        assert!(
            e.starts_with(
                "Your saved view (local storage) could not be restored as it was: What-if:"
            ) && e.contains("without step 3 and the what-if knob nope:x"),
            "{e}"
        );
        // A scenario that cannot open at all is not salvaged.
        let bad = ViewSpec {
            source: Source::Builtin("nope".into()),
            ..ViewSpec::default_view()
        };
        assert!(AppState::opening_saved(&bad).is_err());
    }

    #[test]
    fn a_bad_load_keeps_the_view_and_says_why() {
        let s = state("scenario=handoff&mode=seeded&seed=1&step=5");
        let bad = ViewSpec {
            step: 999_999,
            ..s.spec()
        };
        let s = s.reduce(Action::Load(bad));
        assert_eq!(cursor(&s), 5);
        let e = s.error.clone().unwrap();
        assert!(e.contains("Step 999999 is past the end"), "{e}");
        assert!(e.ends_with("The previous view is still loaded."), "{e}");
        let s = s.reduce(Action::Version("ca7ef26e4b".into()));
        assert!(s
            .error
            .clone()
            .unwrap()
            .contains("flush-2021 is fixed at 891c202b73"));
        let s = s.reduce(Action::DismissError);
        assert_eq!(s.error, None);
    }

    #[test]
    fn a_link_names_the_version_lockstep_compares_with() {
        let s = state("scenario=segment-not-found&vs=b5c9a73&mode=scripted&step=2");
        assert_eq!(
            s.compare,
            Some("b5c9a7364b"),
            "a prefix, kept by its full id"
        );
        assert!(crate::permalink::encode(&s.spec()).contains("&vs=b5c9a7364b&"));
        // Another version shown: compared with the same one, unless it is the
        // one now shown.
        let s = s.reduce(Action::Version("c65f41dc60".into()));
        assert_eq!((s.error.clone(), s.compare), (None, Some("b5c9a7364b")));
        let s = s.reduce(Action::Version("b5c9a7364b".into()));
        assert_eq!((s.error.clone(), s.compare), (None, None));
        let s = s.reduce(Action::Compare(Some("ca7ef26e4b")));
        assert_eq!(s.compare, Some("ca7ef26e4b"));
        // A step keeps it; Cancel drops it.
        let s = s.reduce(Action::StepForward);
        assert_eq!(s.compare, Some("ca7ef26e4b"));
        assert_eq!(s.reduce(Action::Compare(None)).compare, None);
        for (frag, why) in [
            (
                "scenario=segment-not-found&vs=ca7ef26e4b",
                "vs=ca7ef26e4b is the version shown",
            ),
            (
                "scenario=segment-not-found&vs=abc",
                "vs: unknown version \"abc\"",
            ),
            (
                "scenario=handoff&vs=b5c9a7364b",
                "vs=b5c9a7364b: the flush-2021 model has one version",
            ),
        ] {
            let e = crate::permalink::decode(frag)
                .and_then(|spec| AppState::from_spec(&spec))
                .err()
                .unwrap_or_else(|| panic!("{frag} opened"));
            assert!(e.contains(why), "{frag}: {e}");
        }
    }

    /// A view has a search (`explore=`) exactly while the Explore panel shows
    /// it: the panel drops a search when another scenario or other knobs are
    /// shown, and a search of one version when another version is.
    #[test]
    fn a_view_keeps_the_search_its_panel_shows() {
        let s = state("scenario=segment-not-found&explore=all-dfs&mode=scripted&step=2");
        let e = s.explore.expect("the link's search");
        assert!((e.all, e.dfs, e.versions, e.races) == (true, true, false, false));
        assert!(crate::permalink::encode(&s.spec()).contains("&explore=all-dfs&"));
        // Steps, another mode or seed, and a counterexample of this version
        // opened in the stepper keep it.
        let s = s
            .reduce(Action::StepForward)
            .reduce(Action::Mode(Mode::Seeded));
        let s = s.reduce(Action::Seed(7));
        assert_eq!(s.explore, Some(e));
        let schedule = s.run.borrow().schedule();
        let opened = s.clone().reduce(Action::Load(ViewSpec {
            mode: Mode::Manual,
            schedule: Some(schedule),
            seed: None,
            step: 1,
            ..ViewSpec::fresh(s.source.clone(), &s.run.borrow().scenario())
        }));
        assert_eq!((opened.error.clone(), opened.explore), (None, Some(e)));
        // Another version drops a search of one version, not one of every version.
        let other = s.clone().reduce(Action::Version("c65f41dc60".into()));
        assert_eq!((other.error.clone(), other.explore), (None, None));
        let every = Exploring {
            versions: true,
            ..e
        };
        let s = s.reduce(Action::Explore(Some(every)));
        let s = s.reduce(Action::Version("c65f41dc60".into()));
        assert_eq!(s.explore, Some(every));
        // Knobs, another scenario, and Cancel drop it.
        let knob = s
            .clone()
            .reduce(Action::Knob("keep".into(), "growing".into()));
        assert!(knob.explore.is_none() && knob.rev > s.rev);
        let other = s.clone().reduce(Action::Load(ViewSpec {
            source: Source::Builtin("handoff".into()),
            ..ViewSpec::default_view()
        }));
        assert_eq!((other.error.clone(), other.explore), (None, None));
        assert_eq!(s.reduce(Action::Explore(None)).explore, None);
        // A search of every version needs a model with several.
        let e = crate::permalink::decode("scenario=handoff&explore=versions")
            .and_then(|spec| AppState::from_spec(&spec))
            .err()
            .expect("refused");
        assert!(
            e.contains("explore=versions: the flush-2021 model has one version"),
            "{e}"
        );
        assert!(state("scenario=handoff&explore=all-races")
            .explore
            .is_some());
    }

    /// The race lens stays on from view to view in the page (as its box did),
    /// goes in the link, and a link says its own.
    #[test]
    fn the_lens_stays_on_in_the_page_and_a_link_says_its_own() {
        let s = state("scenario=segment-not-found&lens=on&step=1");
        assert!(s.lens);
        let s = s
            .reduce(Action::StepForward)
            .reduce(Action::Mode(Mode::Seeded));
        let s = s.reduce(Action::Load(ViewSpec {
            source: Source::Builtin("handoff".into()),
            ..ViewSpec::default_view()
        }));
        assert_eq!((s.error.clone(), s.lens), (None, true));
        assert!(crate::permalink::encode(&s.spec()).contains("&lens=on&"));
        let linked = s.clone().reduce(Action::LoadLink(
            crate::permalink::decode("scenario=handoff&step=2").unwrap(),
        ));
        assert_eq!((linked.error.clone(), linked.lens), (None, false));
        assert!(!s.reduce(Action::Lens(false)).lens);
    }

    /// The policy matrix is the scenario's: a view keeps it whatever its
    /// version and knobs, as the panel does, and drops it with the scenario.
    #[test]
    fn the_matrix_goes_with_its_scenario() {
        let s = state("scenario=segment-not-found&matrix=on&step=1");
        assert!(s.matrix);
        let s = s.reduce(Action::Knob("keep".into(), "growing".into()));
        let s = s.reduce(Action::Version("c65f41dc60".into()));
        assert_eq!((s.error.clone(), s.matrix), (None, true));
        assert!(crate::permalink::encode(&s.spec()).contains("&matrix=on&"));
        let other = s.clone().reduce(Action::Load(ViewSpec {
            source: Source::Builtin("segment-not-found-fixed".into()),
            ..ViewSpec::default_view()
        }));
        assert_eq!((other.error.clone(), other.matrix), (None, false));
        assert!(!s.reduce(Action::Matrix(false)).matrix);
        // The toy model has no knobs.
        let toy = include_str!("../../../tests/toy/mutex-lost-update.json");
        let e = AppState::from_spec(&ViewSpec {
            source: Source::Inline {
                file: "mutex-lost-update.json".into(),
                text: toy.into(),
            },
            matrix: true,
            ..ViewSpec::default_view()
        })
        .err()
        .expect("refused");
        assert!(
            e.contains("matrix=on: the mutex-handoff model has no what-if knobs"),
            "{e}"
        );
    }

    /// A manual schedule's entry that cannot run says why: no such goroutine
    /// at that step, a select case its goroutine does not offer (`0.5` read
    /// as a goroutine number), or a goroutine that waits; and which goroutines
    /// can run there (found by an attack on the page: "goroutine 99 is not
    /// runnable here", "goroutine 0.5 is not runnable here").
    #[test]
    fn a_schedule_entry_that_cannot_run_says_why() {
        let refused = |frag: &str| {
            AppState::from_spec(&crate::permalink::decode(frag).unwrap())
                .err()
                .unwrap()
        };
        assert_eq!(
            refused("scenario=segment-not-found&sched=0,0,0,99,3,3"),
            "The schedule's entry 4, \"99\", cannot run at step 4: g99 does not exist at that step; runnable there: g1 and g2."
        );
        assert_eq!(
            refused("scenario=segment-not-found&sched=0.5"),
            "The schedule's entry 1, \"0.5\", cannot run at step 1: \"0.5\" is not a goroutine number but case 5 of a select in g0, which offers no case 5 there (g0 runs as 0); runnable there: g0 and g1."
        );
        let c = |g, alt| Choice { g, alt };
        let here = [c(0, 0), c(3, 1), c(3, 2)];
        assert_eq!(
            unrunnable(2, c(1, 0), true, &here),
            "The schedule's entry 2, \"1\", cannot run at step 2: g1 waits there; runnable there: g0 and g3."
        );
        assert!(unrunnable(2, c(3, 0), true, &here).contains(
            ": g3 is at a select there: it runs as 3.1 or 3.2; runnable there: g0 and g3."
        ));
        assert!(unrunnable(2, c(3, 5), true, &here)
            .contains("which offers no case 5 there (g3 runs as 3.1 or 3.2)"));
        assert!(unrunnable(2, c(1, 5), true, &here)
            .contains("case 5 of a select in g1, and g1 waits there"));
        let many: Vec<Choice> = (0..20).map(|g| c(g, 0)).collect();
        assert!(unrunnable(1, c(99, 0), false, &many)
            .ends_with("runnable there: g0, g1, g2, g3, g4, g5, g6, g7 and 12 more."));
    }

    #[test]
    fn choosing_a_goroutine_branches_into_manual_mode() {
        let s = state("scenario=handoff&mode=seeded&seed=1&step=3");
        let c = s.run.borrow().runnable_here()[0];
        let s = s.reduce(Action::Choose(c));
        assert_eq!(s.mode, Mode::Manual);
        assert_eq!(s.run.borrow().len(), 4, "the later history is dropped");
        let spec = s.spec();
        assert_eq!(spec.schedule.as_ref().map(Vec::len), Some(4));
        let s = s.reduce(Action::Choose(Choice::new(9999, 0)));
        assert!(s
            .error
            .clone()
            .unwrap()
            .contains("Goroutine 9999 cannot run here"));
    }

    #[test]
    fn a_choice_at_the_same_length_renews_the_figures() {
        // At len - 1, choosing another goroutine drops one step and adds one: the
        // length is unchanged but the figures must describe the new run.
        let s = state("scenario=handoff&mode=seeded&seed=1&step=0");
        let len = s.run.borrow().len();
        let s = s.reduce(Action::Goto(len - 1));
        let before = s.figures();
        let here = s.run.borrow().runnable_here();
        let other = here[here.len() - 1];
        let s = s.reduce(Action::Choose(other));
        assert!(s.run.borrow().len() >= len);
        assert!(
            !Rc::ptr_eq(&before, &s.figures()),
            "the figures were recomputed"
        );
        assert!(Rc::ptr_eq(&s.figures(), &s.figures()), "and cached again");
    }

    #[test]
    fn version_mode_and_seed_reload_from_step_zero() {
        let s = state("scenario=segment-not-found&mode=scripted&step=7");
        let s = s.reduce(Action::Version("b5c9a7364b".into()));
        assert_eq!(s.run.borrow().header().version, Some("b5c9a7364b"));
        assert_eq!(cursor(&s), 0);
        assert_eq!(s.mode, Mode::Scripted);
        let s = s.reduce(Action::Seed(42));
        assert_eq!((s.mode, s.seed), (Mode::Seeded, 42));
        let s = s.reduce(Action::Mode(Mode::Manual));
        assert_eq!(s.run.borrow().len(), 0);
        let s = s.reduce(Action::Version("4cf1a358ba".into()));
        assert_eq!(
            s.mode,
            Mode::Seeded,
            "a manual schedule does not carry over"
        );
        let s = s.reduce(Action::Speed(1000));
        assert_eq!(s.speed, 60);
    }

    #[test]
    fn a_knob_reloads_labelled_proposed_and_a_version_or_reset_drops_it() {
        let s = state("scenario=segment-not-found&mode=scripted&step=7");
        assert!(s
            .run
            .borrow()
            .outcome()
            .unwrap()
            .to_string()
            .contains("panic"));
        let s = s.reduce(Action::Knob("keep".into(), "growing".into()));
        assert_eq!(s.run.borrow().proposed(), ["keep=growing"]);
        assert_eq!(cursor(&s), 0);
        let s = s.reduce(Action::ToEnd);
        assert!(
            !s.run
                .borrow()
                .outcome()
                .unwrap()
                .to_string()
                .contains("panic"),
            "the fix of b5c9a7364b alone"
        );
        // Setting it again replaces it; the permalink carries it.
        let s = s.reduce(Action::Knob("keep".into(), "not_flushed".into()));
        assert_eq!(*s.knobs, [("keep".to_owned(), "not_flushed".to_owned())]);
        let again = state(&crate::permalink::encode(&s.spec()));
        assert_eq!(again.run.borrow().proposed(), ["keep=not_flushed"]);
        // A bad knob keeps the view and says why.
        let s = s.reduce(Action::Knob("keep".into(), "never".into()));
        assert!(s
            .error
            .clone()
            .unwrap()
            .contains("What-if: knob keep has no setting \"never\""));
        assert_eq!(s.run.borrow().proposed(), ["keep=not_flushed"]);
        let s = s.reduce(Action::ClearKnobs);
        assert!(s.run.borrow().proposed().is_empty() && s.knobs.is_empty());
        let s = s
            .reduce(Action::Knob("keep".into(), "growing".into()))
            .reduce(Action::Version("4cf1a358ba".into()));
        assert!(s.knobs.is_empty(), "a version is a preset: the knobs go");
    }

    #[test]
    fn a_tour_stop_loads_its_view_and_a_bad_one_says_why() {
        let s = state("scenario=handoff&mode=seeded&seed=1&step=3");
        let s = s.reduce(Action::Tour("issue-34018".into(), 6));
        assert_eq!(s.error, None);
        assert_eq!(s.run.borrow().header().version, Some("b5c9a7364b"));
        assert_eq!((cursor(&s), s.mode), (6, Mode::Scripted));
        assert_eq!(s.spec().tour, Some(("issue-34018".to_owned(), 6)));
        let again = state(&crate::permalink::encode(&s.spec()));
        assert_eq!(
            again.tour.as_ref().map(|(t, i)| (t.id.as_str(), *i)),
            Some(("issue-34018", 6))
        );
        assert_eq!(cursor(&again), 6);
        // Stepping keeps the tour (the panel says the view has moved).
        let s = s.reduce(Action::StepForward);
        assert!(s.tour.is_some() && cursor(&s) == 7);
        let s = s.reduce(Action::Tour("nope".into(), 0));
        assert!(s
            .error
            .clone()
            .unwrap()
            .starts_with("There is no tour \"nope\". Tours: one-flush, injections, issue-34018."));
        assert_eq!(cursor(&s), 7, "the view stays");
        let s = s.reduce(Action::Tour("one-flush".into(), 99));
        assert!(s
            .error
            .clone()
            .unwrap()
            .contains("has 14 stops; there is no stop 100"));
        let s = s.reduce(Action::EndTour);
        assert!(s.tour.is_none() && cursor(&s) == 7);
        let e = AppState::from_spec(
            &crate::permalink::decode("scenario=handoff&tour=nope&stop=1").unwrap(),
        )
        .err();
        assert!(e.unwrap().contains("There is no tour"));
    }

    /// A tour's stop is shown only with its own scenario: a link naming another
    /// is refused, naming both (found by an attack on the page: the handoff
    /// scenario was shown under a caption about segment-not-found). A pasted
    /// one leaves the view as it was.
    #[test]
    fn a_tour_stop_with_another_scenario_is_refused() {
        let link = "scenario=handoff&tour=issue-34018&stop=2&step=0";
        let e = AppState::from_spec(&crate::permalink::decode(link).unwrap()).err();
        assert_eq!(
            e.as_deref(),
            Some("Stop 2 of the tour \"issue-34018\" is about the scenario segment-not-found, not handoff: its caption would describe another run.")
        );
        let before = state("scenario=retries&mode=seeded&seed=9&step=1");
        let after = before
            .clone()
            .reduce(Action::LoadLink(crate::permalink::decode(link).unwrap()));
        assert!(Rc::ptr_eq(&after.run, &before.run) && after.tour.is_none());
        assert!(after
            .error
            .as_deref()
            .unwrap()
            .starts_with("Stop 2 of the tour"));
        // Its own scenario, even at another step or version, is the stop.
        let own =
            state("scenario=segment-not-found&version=b5c9a7364b&tour=issue-34018&stop=2&step=5");
        assert_eq!((own.tour.as_ref().map(|t| t.1), cursor(&own)), (Some(1), 5));
    }

    #[test]
    fn a_permalink_rebuilds_the_same_view() {
        let s = state("scenario=runner-creation-race&mode=manual&step=0");
        let mut s = s;
        for _ in 0..4 {
            let c = s.run.borrow().runnable_here()[0];
            s = s.reduce(Action::Choose(c));
        }
        let again = state(&crate::permalink::encode(&s.spec()));
        assert_eq!(again.run.borrow().schedule(), s.run.borrow().schedule());
        assert_eq!(again.spec(), s.spec());
    }
}
