//! The explorer in the page: searches every interleaving of the loaded scenario in
//! slices of a few milliseconds between frames (the page stays responsive and
//! Cancel answers within a slice), shows progress, then each violation with a
//! button that opens its schedule in the stepper.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::explore::{
    bytes_words, not_cut, Cut, CutBudget, Exploration, Found, OpShrink, Options, Progress,
};
use flush_core::{AnyExplorer, AnyScenario, Choice, OutcomeKind};
use gloo::timers::callback::Interval;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch, Mode, Shown, Source, ViewSpec};

/// Main-thread time one slice of the search may take (a frame is 16.7 ms).
const SLICE_MS: f64 = 8.0;
/// Model steps between two looks at the clock.
const SLICE_TRANSITIONS: u64 = 512;
/// What the page lets a search hold (the browser's memory is the user's).
pub(crate) const PAGE_MAX_BYTES: u64 = 256 << 20;
const PAGE_MAX_STATES: u64 = 50_000_000;
pub(crate) const PAGE_MAX_STEPS: u32 = 200;

/// Violations whose ops the page cuts after a search (each cut is a few
/// searches of its own).
const MAX_CUTS: usize = 4;
/// One try's states in the page, and all tries' (a cut takes a few seconds at most).
const PAGE_CUT_TRY_STATES: u64 = 200_000;
const PAGE_CUT_STATES: u64 = 2_000_000;

#[derive(Clone, PartialEq)]
pub(crate) enum Status {
    Idle,
    /// `done` of `of` searches finished; `p` is the running one's progress;
    /// `cutting`: (tries, ops cut) once the search is done and its findings' ops
    /// are being cut.
    Running {
        p: Progress,
        ms: f64,
        done: usize,
        of: usize,
        cutting: Option<(u32, u32)>,
    },
    Done {
        xs: Rc<Vec<Exploration>>,
        ms: f64,
    },
}

/// What a single search's findings are cut from: the scenario file, the
/// scenario as explored (version, knobs) and the search's options.
pub(crate) struct CutPlan {
    pub text: Rc<str>,
    pub sc: AnyScenario,
    pub o: Options,
}

/// The cut in progress: which finding, and its shrink.
struct Cutting {
    plan: CutPlan,
    at: usize,
    now: Option<OpShrink>,
}

impl Cutting {
    /// Goes on with the cuts of `x`'s findings for about one slice's steps;
    /// true when every finding (up to [`MAX_CUTS`]) has its cut.
    fn run(&mut self, x: &mut Exploration) -> bool {
        let n = x.violations.len().min(MAX_CUTS);
        while self.at < n {
            if self.now.is_none() {
                let f = &x.violations[self.at];
                let budget = CutBudget {
                    per_try: PAGE_CUT_TRY_STATES,
                    states: PAGE_CUT_STATES,
                    tries: 200,
                    bytes: PAGE_MAX_BYTES / 4,
                };
                match OpShrink::new(&self.plan.text, &self.plan.sc, f, &self.plan.o, budget) {
                    Ok(s) => self.now = Some(s),
                    Err(why) => {
                        x.violations[self.at].cut = Some(not_cut(why));
                        self.at += 1;
                        continue;
                    }
                }
            }
            let Some(s) = self.now.as_mut() else {
                return true;
            };
            if !s.run(SLICE_TRANSITIONS) {
                return false;
            }
            x.violations[self.at].cut = self.now.take().map(OpShrink::finish);
            self.at += 1;
        }
        true
    }

    /// Ends the running cut where it stands (a cancel).
    fn stop(&mut self, x: &mut Exploration) {
        if let Some(mut s) = self.now.take() {
            s.cancel();
            if let Some(f) = x.violations.get_mut(self.at) {
                f.cut = Some(s.finish());
            }
        }
    }

    fn progress(&self) -> (u32, u32) {
        self.now.as_ref().map_or((0, 0), OpShrink::progress)
    }
}

/// Searches run one after the other, each in slices; then, for a single
/// search, the cuts of its findings.
struct Job {
    xs: Vec<Option<AnyExplorer>>,
    out: Vec<Exploration>,
    started: f64,
    /// When the last search ended (the cuts after it are not the search's time).
    searched: Option<f64>,
    cut: Option<Cutting>,
}

impl Job {
    fn finished(&mut self, status: &UseStateHandle<Status>) {
        status.set(Status::Done {
            xs: Rc::new(std::mem::take(&mut self.out)),
            ms: self.searched.unwrap_or_else(now) - self.started,
        });
    }
}

#[derive(Properties)]
pub struct ExploreProps {
    pub scenario: AnyScenario,
    pub shown: Shown,
    pub dispatch: Dispatch,
}

impl PartialEq for ExploreProps {
    fn eq(&self, o: &Self) -> bool {
        self.shown == o.shown
    }
}

fn now() -> f64 {
    gloo::utils::window()
        .performance()
        .map(|p| p.now())
        .unwrap_or_default()
}

/// One slice: runs the searches in turn for about [`SLICE_MS`], then shows where
/// they stand (or their reports, when all are done).
fn tick(job: &RefCell<Option<Job>>, status: &UseStateHandle<Status>) {
    let mut slot = job.borrow_mut();
    let Some(j) = slot.as_mut() else { return };
    let t0 = now();
    let mut cut_done = false;
    while now() - t0 < SLICE_MS {
        let i = j.out.len();
        let Some(x) = j.xs.get_mut(i).and_then(Option::as_mut) else {
            // Every search is done: cut the findings' ops, a slice at a time.
            cut_done = match (&mut j.cut, &mut j.out[..]) {
                (Some(c), [x]) => c.run(x),
                _ => true,
            };
            if cut_done {
                break;
            }
            continue;
        };
        if x.run(SLICE_TRANSITIONS) {
            if let Some(x) = j.xs[i].take() {
                j.out.push(x.finish());
            }
            if j.out.len() == j.xs.len() {
                j.searched = Some(now());
            }
        }
    }
    match j.xs.get(j.out.len()).and_then(Option::as_ref) {
        None if cut_done => j.finished(status),
        None => status.set(Status::Running {
            p: j.out
                .last()
                .map(|x| Progress {
                    states: x.states,
                    depth: x.depth,
                    bytes: x.peak_bytes,
                    ..Progress::default()
                })
                .unwrap_or_default(),
            ms: now() - j.started,
            done: j.out.len().saturating_sub(1),
            of: j.xs.len(),
            cutting: Some(j.cut.as_ref().map_or((0, 0), Cutting::progress)),
        }),
        Some(x) => status.set(Status::Running {
            p: x.progress(),
            ms: now() - j.started,
            done: j.out.len(),
            of: j.xs.len(),
            cutting: None,
        }),
    }
}

/// Searches in progress and how to start and cancel them.
pub(crate) struct ExploreHandle {
    pub status: UseStateHandle<Status>,
    /// The searches, and for a single search where to cut its findings' ops from.
    pub start: Callback<(Vec<AnyExplorer>, Option<CutPlan>)>,
    pub cancel: Callback<MouseEvent>,
}

/// Searches run in slices by a timer; dropped when `key` changes.
#[hook]
pub(crate) fn use_explorers<K: PartialEq + Clone + 'static>(key: K) -> ExploreHandle {
    let status = use_state(|| Status::Idle);
    let job = use_mut_ref(|| None::<Job>);
    let timer = use_mut_ref(|| None::<Interval>);
    {
        let (job, timer, status) = (job.clone(), timer.clone(), status.clone());
        use_effect_with(key, move |_| {
            status.set(Status::Idle);
            move || {
                job.borrow_mut().take();
                timer.borrow_mut().take();
            }
        });
    }
    // The timer stops once the searches are done (dropped here, never inside its own tick).
    {
        let timer = timer.clone();
        use_effect_with((*status).clone(), move |s| {
            if !matches!(s, Status::Running { .. }) {
                timer.borrow_mut().take();
            }
        });
    }
    let start = {
        let (job, status) = (job.clone(), status.clone());
        Callback::from(move |(xs, plan): (Vec<AnyExplorer>, Option<CutPlan>)| {
            let of = xs.len();
            *job.borrow_mut() = Some(Job {
                xs: xs.into_iter().map(Some).collect(),
                out: Vec::new(),
                started: now(),
                searched: None,
                cut: plan.map(|plan| Cutting {
                    plan,
                    at: 0,
                    now: None,
                }),
            });
            status.set(Status::Running {
                p: Progress::default(),
                ms: 0.0,
                done: 0,
                of,
                cutting: None,
            });
            let (job, status) = (job.clone(), status.clone());
            // The first slice at once (a small search is done before the next frame).
            tick(&job, &status);
            *timer.borrow_mut() = Some(Interval::new(0, move || tick(&job, &status)));
        })
    };
    // Cancel reports what was covered at once (the next tick finds nothing to run).
    let cancel = {
        let (job, status) = (job.clone(), status.clone());
        Callback::from(move |_: MouseEvent| {
            let mut slot = job.borrow_mut();
            let Some(j) = slot.as_mut() else { return };
            let i = j.out.len();
            if let Some(mut x) = j.xs.get_mut(i).and_then(Option::take) {
                x.cancel();
                j.out.push(x.finish());
                j.xs.truncate(i + 1);
                j.finished(&status);
            } else if let (Some(c), [x]) = (&mut j.cut, &mut j.out[..]) {
                c.stop(x);
                j.finished(&status);
            }
        })
    };
    ExploreHandle {
        status,
        start,
        cancel,
    }
}

/// A checkbox's change handler that sets `flag`.
fn toggle(flag: &UseStateHandle<bool>) -> Callback<Event> {
    let flag = flag.clone();
    Callback::from(move |e: Event| {
        flag.set(e.target_unchecked_into::<HtmlInputElement>().checked())
    })
}

/// The Explore and Every version buttons' handlers: one search of `sc`, or one per
/// version, with the panel's choices (`all`, `races`).
fn start_callbacks(
    x: &ExploreHandle,
    (all, races): (&UseStateHandle<bool>, &UseStateHandle<bool>),
    sc: &AnyScenario,
    source: &Source,
) -> (Callback<MouseEvent>, Callback<MouseEvent>) {
    let start = {
        let (start, all, races, sc) = (x.start.clone(), all.clone(), races.clone(), sc.clone());
        let source = source.clone();
        Callback::from(move |_: MouseEvent| {
            let o = Options {
                max_bytes: PAGE_MAX_BYTES,
                all: *all,
                shrink: false,
                races: *races,
                ..Options::first(PAGE_MAX_STEPS, PAGE_MAX_STATES)
            };
            let plan = source_text(&source).map(|text| CutPlan {
                text,
                sc: sc.clone(),
                o: o.clone(),
            });
            start.emit((vec![AnyExplorer::new(&sc, o)], plan));
        })
    };
    let every_version = {
        let (start, races, sc) = (x.start.clone(), races.clone(), sc.clone());
        Callback::from(move |_: MouseEvent| {
            let o = Options {
                max_bytes: PAGE_MAX_BYTES / 2,
                all: true,
                shrink: false,
                races: *races,
                ..Options::first(PAGE_MAX_STEPS, PAGE_MAX_STATES)
            };
            let xs = sc
                .versions()
                .iter()
                .filter_map(|v| {
                    let mut s = sc.clone();
                    s.set_version(v.id).ok()?;
                    Some(AnyExplorer::new(&s, o.clone()))
                })
                .collect();
            start.emit((xs, None));
        })
    };
    (start, every_version)
}

#[function_component(ExplorePanel)]
pub fn explore_panel(p: &ExploreProps) -> Html {
    let x = use_explorers(p.shown.clone());
    let all = use_state(|| false);
    let races = use_state(|| false);
    let (start, every_version) = start_callbacks(&x, (&all, &races), &p.scenario, &p.shown.source);
    let versions = !p.scenario.versions().is_empty();
    let (on_all, on_races) = (toggle(&all), toggle(&races));
    let running = matches!(*x.status, Status::Running { .. });
    html! {
        <section class="panel explore" id="explore" aria-labelledby="explore-title">
            <h3 id="explore-title">{"Explore every interleaving"}</h3>
            <div class="explore-controls">
                if running {
                    <button id="explore-cancel" onclick={x.cancel.clone()}>{"Cancel"}</button>
                } else {
                    <button id="explore-btn" class="primary" onclick={start}>{"Explore"}</button>
                    if versions {
                        <button id="explore-versions-btn" onclick={every_version}
                                title="Every distinct violation under each Milvus version">{"Every version"}</button>
                    }
                }
                <label class="check">
                    <input type="checkbox" id="explore-all" checked={*all} disabled={running} onchange={on_all} />
                    {" go on after the first violation"}
                </label>
                <label class="check">
                    <input type="checkbox" id="explore-races" checked={*races} disabled={running} onchange={on_races} />
                    {" also look for data races"}
                </label>
            </div>
            // Progress is not announced (it changes every frame); the result is.
            if let Status::Running { p: pr, ms, done, of, cutting } = &*x.status {
                {running_view(pr, *ms)}
                if *of > 1 { <p class="muted">{format!("Search {} of {of}", done + 1)}</p> }
                if let Some((tries, cut)) = cutting {
                    <p class="muted" id="explore-cutting">{format!("Cutting the ops a violation does not need: {tries} tries, {cut} cut so far")}</p>
                }
            }
            <div class="explore-status" role="status">
                {status_view(&x.status, p)}
            </div>
        </section>
    }
}

/// The scenario file behind `source`, to cut ops from (`None`: a generated one).
fn source_text(source: &Source) -> Option<Rc<str>> {
    match source {
        Source::Builtin(name) => flush_core::builtin::FILES
            .iter()
            .find(|f| f.0 == name)
            .map(|f| Rc::from(f.1)),
        Source::Inline { text, .. } => Some(text.clone()),
    }
}

fn rate(states: u64, ms: f64) -> String {
    if ms < 10.0 {
        String::new()
    } else {
        format!(", {:.0} states/s", states as f64 * 1000.0 / ms)
    }
}

fn status_view(s: &Status, p: &ExploreProps) -> Html {
    match s {
        Status::Idle => html! {
            <p class="muted">{"Searches breadth first for an invariant broken, a Go panic or a deadlock, gives the shortest schedule to each, then cuts the scenario's ops it does not need."}</p>
        },
        Status::Running { .. } => html! { <p class="muted">{"Exploring…"}</p> },
        Status::Done { xs, ms } => match &xs[..] {
            [x] => report_view(x, *ms, p),
            [] => html! {},
            many => versions_view(many, p),
        },
    }
}

pub(crate) fn running_view(pr: &Progress, ms: f64) -> Html {
    html! {
        <div class="explore-running">
            <progress id="explore-progress" aria-label="exploring"></progress>
            <p id="explore-running">{format!(
                "{} states{}, depth {}, {} held, {:.1} s",
                pr.states, rate(pr.states, ms), pr.depth, bytes_words(pr.bytes), ms / 1000.0
            )}</p>
        </div>
    }
}

fn report_view(x: &Exploration, ms: f64, p: &ExploreProps) -> Html {
    html! {
        <div id="explore-result" data-states={x.states.to_string()} data-found={x.violations.len().to_string()}>
            <p>{format!("{} states ({} transitions, depth {}) in {:.0} ms{}.", x.states, x.transitions, x.depth, ms, rate(x.states, ms))}</p>
            <p class="muted">{format!("Stopped: {}.", x.stopped_words())}</p>
            if x.violations.is_empty() && x.truncated {
                <p>{"No violation found so far."}</p>
            } else if x.violations.is_empty() {
                <p class="v-ok">{"No violation: every interleaving ends well."}</p>
            }
            {found_list(x, p)}
        </div>
    }
}

/// What one search found, for a table cell: nothing (or nothing so far), or each
/// finding with a button that opens its schedule at `at`, labelled by `label`.
pub(crate) fn findings_cell(
    x: &Exploration,
    at: &Shown,
    d: &Dispatch,
    label: &dyn Fn(&Found) -> String,
) -> Html {
    html! {
        <>
        if x.violations.is_empty() {
            <span class={if x.truncated { "" } else { "v-ok" }}>
                {if x.truncated { format!("nothing found so far ({})", x.stopped_words()) } else { "completed: nothing breaks".to_owned() }}
            </span>
        }
        <ul class="found">
            {for x.violations.iter().map(|f| html! {
                <li class={format!("found-{}", f.kind.as_str())}>
                    <strong>{f.kind.as_str()}</strong>{": "}{verdict_words(f)}{format!(" ({} steps) ", f.steps)}
                    {open_found(at, d, f, label(f))}
                </li>
            })}
        </ul>
        </>
    }
}

/// A button that loads `schedule` in the stepper (manual mode) at `version`,
/// showing step `step`.
pub(crate) fn open_button(
    at: &Shown,
    schedule: Vec<Choice>,
    step: u32,
    d: &Dispatch,
    (text, label): (&'static str, String),
) -> Html {
    let spec = ViewSpec {
        source: at.source.clone(),
        version: at.version.map(str::to_owned),
        knobs: at.knobs.to_vec(),
        tour: None,
        seed: None,
        mode: Mode::Manual,
        schedule: Some(schedule),
        step,
    };
    let d = d.clone();
    let open = Callback::from(move |_: MouseEvent| d.dispatch(Action::Load(spec.clone())));
    html! { <button class="link open-stepper" onclick={open} aria-label={label}>{text}</button> }
}

/// The button that opens a found schedule in the stepper at `version`: from step 1,
/// or for a race at the step where both racing steps can run (its last two).
pub(crate) fn open_found(at: &Shown, d: &Dispatch, f: &Found, label: String) -> Html {
    let schedule = Choice::parse_list(&f.schedule).unwrap_or_default();
    let (step, text) = match f.kind {
        OutcomeKind::Race => (
            (schedule.len() as u32).saturating_sub(2),
            "open where both steps can run",
        ),
        _ => (1, "open in stepper"),
    };
    open_button(at, schedule, step, d, (text, label))
}

fn found_list(x: &Exploration, p: &ExploreProps) -> Html {
    let races = x
        .violations
        .iter()
        .filter(|f| f.kind == OutcomeKind::Race)
        .count();
    html! {
        <>
        // The filter is CSS (`:has`): the list stays whole, the other findings hide.
        if races > 0 && races < x.violations.len() {
            <label class="check"><input type="checkbox" id="found-races-only" />
                {format!(" show only the {races} data race{}", if races == 1 { "" } else { "s" })}</label>
        }
        <ol class="found">
            {for x.violations.iter().map(|f| html! {
                <li class={format!("found-{}", f.kind.as_str())}>
                    <strong>{f.kind.as_str()}</strong>{": "}{f.message.clone()}
                    <div class="found-schedule">
                        <span>{format!("shortest schedule, {} steps: ", f.steps)}<code>{f.schedule.clone()}</code></span>
                        {open_found(&Shown { version: x.version, ..p.shown.clone() }, &p.dispatch, f, format!("open this {}-step schedule in the stepper", f.steps))}
                    </div>
                    if let Some(c) = &f.cut {
                        {cut_view(c, &x.scenario, &Shown { version: x.version, ..p.shown.clone() }, &p.dispatch)}
                    }
                </li>
            })}
        </ol>
        </>
    }
}

/// One search per version: a row each, what it found, each one click from the stepper.
fn versions_view(xs: &[Exploration], p: &ExploreProps) -> Html {
    html! {
        <div id="explore-versions" class="table-scroll" tabindex="0" role="region" aria-label="verdicts of this scenario per version">
            <table>
                <thead><tr><th scope="col">{"version"}</th><th scope="col">{"what exploring finds"}</th></tr></thead>
                <tbody>
                    {for xs.iter().map(|x| {
                        let v = x.version.unwrap_or("-");
                        html! {
                            <tr data-version={v}>
                                <th scope="row">{v}{if x.version == p.shown.version { " (shown)" } else { "" }}</th>
                                <td>{findings_cell(x, &Shown { version: x.version, ..p.shown.clone() }, &p.dispatch,
                                    &|f| format!("open the {}-step schedule at {v} in the stepper", f.steps))}</td>
                            </tr>
                        }
                    })}
                </tbody>
            </table>
        </div>
    }
}

/// A short name for a finding: the invariant's id, or the panic message.
/// A finding's cut: every op of the scenario, the cut ones struck through,
/// greyed and labelled "cut" (not by colour alone), and a button that opens the
/// smaller scenario at its schedule.
fn cut_view(c: &Cut, name: &str, at: &Shown, d: &Dispatch) -> Html {
    if let Some(why) = &c.skipped {
        return html! { <div class="found-cut"><p class="cut-summary">{format!("Ops not cut: {why}.")}</p></div> };
    }
    let gone = c.ops.len() - c.kept as usize;
    let more = if c.complete {
        ""
    } else {
        " A budget ran out: more may go."
    };
    let held = if c.held > 0 {
        format!(
            " {} stay as waits, what they wait for, or barriers.",
            c.held
        )
    } else {
        String::new()
    };
    let summary = if gone == 0 {
        format!(
            "Ops: none of the {} was cut ({} tries).{held}{more}",
            c.ops.len(),
            c.tries
        )
    } else {
        format!(
            "Ops: {gone} of {} cut; the {} left reach it in {} steps.{held}{more}",
            c.ops.len(),
            c.kept,
            c.steps
        )
    };
    html! {
        <div class="found-cut">
            <p class="cut-summary">{summary}</p>
            <ol class="cut-ops" aria-label="the scenario's ops, the ones cut marked">
                {for c.ops.iter().map(|l| {
                    let what = format!("{} op {}: {}", l.actor, l.index, l.op);
                    if l.cut {
                        html! { <li class="cut"><del>{what}</del>{" "}<span class="cut-tag">{"cut"}</span></li> }
                    } else {
                        html! { <li>{what}</li> }
                    }
                })}
            </ol>
            if gone > 0 {
                {open_button(
                    &Shown {
                        source: Source::Inline { file: format!("{name}-cut.json"), text: Rc::from(c.scenario.as_str()) },
                        ..at.clone()
                    },
                    Choice::parse_list(&c.schedule).unwrap_or_default(),
                    1,
                    d,
                    ("open the smaller scenario", format!("open the scenario without the {gone} cut ops at its {}-step schedule", c.steps)),
                )}
            }
        </div>
    }
}

pub(crate) fn verdict_words(f: &flush_core::explore::Found) -> String {
    match f.kind {
        flush_core::OutcomeKind::Invariant => {
            f.message.split(':').next().unwrap_or_default().to_owned()
        }
        _ => f.message.clone(),
    }
}

/// How far the race lens looks past each runnable choice, and how many states
/// each of its searches may visit.
const LENS_STEPS: u32 = 8;
const LENS_STATES: u64 = 20_000;

#[derive(Properties)]
pub struct LensProps {
    pub run: Rc<RefCell<flush_core::AnyRun>>,
    /// The run's revision and cursor: the lens looks again when either changes.
    pub rev: u64,
    pub cursor: u32,
    pub shown: Shown,
    pub dispatch: Dispatch,
}

impl PartialEq for LensProps {
    fn eq(&self, o: &Self) -> bool {
        (self.rev, self.cursor, &self.shown) == (o.rev, o.cursor, &o.shown)
    }
}

/// The race lens: for each runnable goroutine here, whether some continuation
/// that starts by running it breaks something new within [`LENS_STEPS`] steps.
#[function_component(RaceLens)]
pub fn race_lens(p: &LensProps) -> Html {
    let on = use_state(|| false);
    let key = (p.rev, p.cursor, *on);
    let x = use_explorers(key);
    let choices = use_mut_ref(Vec::<Choice>::new);
    {
        let (start, run, choices) = (x.start.clone(), p.run.clone(), choices.clone());
        use_effect_with(key, move |&(_, _, on)| {
            if on {
                let list = AnyExplorer::lens(&run.borrow(), LENS_STEPS, LENS_STATES);
                *choices.borrow_mut() = list.iter().map(|(c, _)| *c).collect();
                start.emit((list.into_iter().map(|(_, x)| x).collect(), None));
            }
        });
    }
    let toggle = {
        let on = on.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on.set(input.checked());
        })
    };
    html! {
        <section class="panel lens" id="lens" aria-labelledby="lens-title">
            <h3 id="lens-title">{"Race lens"}</h3>
            <label class="check">
                <input type="checkbox" id="lens-on" checked={*on} onchange={toggle} />
                {format!(" look {LENS_STEPS} steps ahead from each runnable goroutine")}
            </label>
            // Not a live region: it changes at every step, which the step narration covers.
            <div>
                if *on {
                    {match &*x.status {
                        Status::Idle => html! {},
                        Status::Running { done, of, .. } => html! {
                            <p class="muted">{format!("Looking ahead: {done} of {of} choices…")}</p>
                        },
                        Status::Done { xs, .. } => lens_list(&choices.borrow(), xs, p),
                    }}
                }
            </div>
        </section>
    }
}

fn lens_list(choices: &[Choice], xs: &[Exploration], p: &LensProps) -> Html {
    if choices.is_empty() {
        return html! { <p class="muted">{"Nothing can run here."}</p> };
    }
    let run = p.run.borrow();
    let prefix: Vec<Choice> = run.schedule().into_iter().take(p.cursor as usize).collect();
    html! {
        <ul class="lens-list">
            {for choices.iter().zip(xs).map(|(c, x)| {
                let label = run.choice_label(*c);
                let who = match label.as_str() {
                    "run" => format!("g{}", c.g),
                    _ => format!("g{} ({label})", c.g),
                };
                match x.violations.first() {
                    Some(f) => {
                        let mut schedule = prefix.clone();
                        schedule.push(*c);
                        schedule.extend(Choice::parse_list(&f.schedule).unwrap_or_default());
                        let what = match f.kind {
                            flush_core::OutcomeKind::Invariant => verdict_words(f),
                            _ => format!("{}: {}", f.kind.as_str(), verdict_words(f)),
                        };
                        let label = format!("open the schedule that runs {who} and reaches {what}");
                        html! {
                            <li class="lens-bad" data-choice={c.to_string()} title={f.message.clone()}>
                                <strong>{format!("⚠ {who}")}</strong>
                                {format!(" can lead to {what} within {} steps ", f.steps + 1)}
                                {open_button(&p.shown, schedule, p.cursor + 1, &p.dispatch, ("open", label))}
                            </li>
                        }
                    }
                    None if x.truncated && x.depth_cut == 0 => html! {
                        <li class="lens-unknown" data-choice={c.to_string()}>
                            {format!("? {who}: nothing found in {} states (the look-ahead budget ran out)", x.states)}</li>
                    },
                    None => html! {
                        <li class="lens-ok" data-choice={c.to_string()}>
                            {format!("✓ {who}: nothing new breaks within {LENS_STEPS} steps")}</li>
                    },
                }
            })}
        </ul>
    }
}
