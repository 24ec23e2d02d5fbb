//! The explorer in the page: searches every interleaving of the loaded scenario in
//! a Web Worker (see [`crate::worker`]; in slices of a few milliseconds between
//! frames where there is none), shows progress, then each violation with a
//! button that opens its schedule in the stepper.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use flush_core::explore::{
    bytes_words, Cut, Exploration, Found, Options, Order, Progress, Stopped,
};
use flush_core::report::steps_words;
use flush_core::{AnyExplorer, AnyScenario, Choice, OutcomeKind};
use gloo::timers::callback::Interval;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch, Exploring, Mode, Shown, Source, ViewSpec};
pub(crate) use crate::worker::Running;
pub(crate) use crate::worker::PAGE_MAX_BYTES;
use crate::worker::{
    restore, FromWorker, Job, JobSpec, Lens, LensWire, Search, SearchWire, Tick, ToWorker,
    WorkerLink,
};

/// A job that has run here this long when the worker becomes ready stays here:
/// the worker would start it again from nothing, and is not twice as fast.
const HAND_OVER_MS: f64 = 500.0;
/// A worker whose search held more than this is ended once it reports.
const RETIRE_BYTES: u64 = 64 << 20;
/// Main-thread time one slice of the search may take (a frame is 16.7 ms).
const SLICE_MS: f64 = 8.0;
const PAGE_MAX_STATES: u64 = 50_000_000;
pub(crate) const PAGE_MAX_STEPS: u32 = 200;

#[derive(Clone, PartialEq)]
pub(crate) enum Status {
    Idle,
    /// Where the job stands; `worker`: it runs in the worker.
    Running {
        run: Running,
        worker: bool,
    },
    Done {
        xs: Rc<Vec<Exploration>>,
        ms: f64,
        worker: bool,
        /// The searches the job was to run: more than `xs` when it was cancelled.
        of: usize,
    },
}

impl Status {
    /// `of`: the searches of the job.
    fn of(t: Tick, worker: bool, of: usize) -> Status {
        match t {
            Tick::Running(run) => Status::Running { run, worker },
            Tick::Done { xs, ms } => Status::Done {
                xs: Rc::new(xs),
                ms,
                worker,
                of,
            },
        }
    }
}

/// What the searches of one panel share: the job running here or in the
/// worker, and the worker.
struct Shared {
    status: UseStateHandle<Status>,
    /// The job's number: the worker's messages about an older one are dropped.
    id: Cell<u32>,
    /// A job running on this thread, and the timer that runs its slices.
    here: RefCell<Option<Job>>,
    timer: RefCell<Option<Interval>>,
    /// The job handed to the worker (run here instead if the worker fails).
    there: RefCell<Option<JobSpec>>,
    /// That job's first slice, run here: kept until the worker reports, so that a
    /// Cancel before then reports what it covered (and a failing worker's job
    /// goes on from it).
    head: RefCell<Option<Job>>,
    worker: RefCell<Option<WorkerLink>>,
    /// The worker failed (to load, or later): jobs run here from then on.
    broken: Cell<bool>,
    /// The worker has loaded its module.
    ready: Cell<bool>,
    /// A job running here while the worker loads, handed over once it is ready.
    pending: RefCell<Option<JobSpec>>,
    /// A Cancel was sent to the worker: if it fails now, its job is not rerun.
    cancelling: Cell<bool>,
    /// The searches of the job at hand (one, or one per version).
    of: Cell<usize>,
    /// The most bytes a search in the worker was seen to hold: its module's
    /// memory, which never shrinks (see [`RETIRE_BYTES`]).
    peak: Cell<u64>,
    /// How long the job handed to the worker had run here before (its first
    /// slice, or its slices while the worker loaded): the worker starts it again,
    /// so its times count from the click only with this added.
    lead: Cell<f64>,
}

impl Shared {
    /// Shows where the job stands (`worker`: it runs there).
    fn show(&self, t: Tick, worker: bool) {
        self.status.set(Status::of(t, worker, self.of.get()));
    }

    /// Forgets the job running (here or there) without a report.
    fn forget(self: &Rc<Self>) {
        self.id.set(self.id.get().wrapping_add(1));
        self.here.borrow_mut().take();
        self.head.borrow_mut().take();
        self.pending.borrow_mut().take();
        self.timer.borrow_mut().take();
        self.cancelling.set(false);
        if self.there.borrow_mut().take().is_some() {
            if let Some(w) = self.worker.borrow().as_ref() {
                w.send(&ToWorker::Stop {
                    id: self.id.get().wrapping_sub(1),
                    report: false,
                });
            }
            if self.peak.get() > RETIRE_BYTES {
                self.retire();
            }
        }
    }

    /// Runs `spec`: its first slice here at once (a small search is done before
    /// the next frame), then in the worker once it has loaded (here in slices
    /// until then), or here in slices without one.
    fn start(self: &Rc<Self>, spec: JobSpec) {
        self.forget();
        self.of.set(spec.searches.len());
        let mut job = match Job::new(&spec) {
            Ok(job) => job,
            Err(why) => return self.unable(&why),
        };
        let first = job.slice(SLICE_MS);
        if let Tick::Done { .. } = first {
            self.show(first, false);
            return;
        }
        if self.ready.get() && self.send(&spec) {
            self.lead.set(job.elapsed());
            *self.there.borrow_mut() = Some(spec);
            *self.head.borrow_mut() = Some(job);
            self.show(first, true);
            return;
        }
        self.warm();
        if self.worker.borrow().is_some() {
            *self.pending.borrow_mut() = Some(spec);
        }
        *self.here.borrow_mut() = Some(job);
        self.show(first, false);
        self.run_here();
    }

    /// The worker is ready: the job running here (if any still, and not for
    /// long: [`HAND_OVER_MS`]) starts again there, its progress here kept for a
    /// Cancel before the worker's first word.
    fn hand_over(self: &Rc<Self>) {
        let Some(spec) = self.pending.borrow_mut().take() else {
            return;
        };
        if self
            .here
            .borrow()
            .as_ref()
            .is_none_or(|j| j.elapsed() > HAND_OVER_MS)
        {
            return;
        }
        let Some(job) = self.here.borrow_mut().take() else {
            return;
        };
        if !self.send(&spec) {
            *self.here.borrow_mut() = Some(job);
            return;
        }
        self.timer.borrow_mut().take();
        self.lead.set(job.elapsed());
        *self.there.borrow_mut() = Some(spec);
        *self.head.borrow_mut() = Some(job);
    }

    /// A job that cannot be set up (the lens's schedule does not replay: a bug,
    /// never the user's input): the console says why, the panel shows nothing.
    fn unable(&self, why: &str) {
        web_sys::console::warn_1(&format!("FlushScope: a search could not start: {why}").into());
        self.status.set(Status::Idle);
    }

    /// Starts the worker ahead of a search (a pointer over, or focus on, a button
    /// that starts one): it loads while the user clicks.
    fn warm(self: &Rc<Self>) {
        if !self.broken.get() && self.worker.borrow().is_none() {
            self.spawn();
        }
    }

    fn spawn(self: &Rc<Self>) {
        self.peak.set(0);
        self.ready.set(false);
        let (a, b) = (Rc::downgrade(self), Rc::downgrade(self));
        let link = WorkerLink::spawn(
            move |m: Result<FromWorker, String>| {
                if let Some(s) = a.upgrade() {
                    match m {
                        Ok(m) => s.heard(m),
                        // What it says cannot be read: it is not used again.
                        Err(why) => s.failed(&why),
                    }
                }
            },
            move |e: web_sys::Event| {
                if let Some(s) = b.upgrade() {
                    let what = e
                        .dyn_ref::<web_sys::ErrorEvent>()
                        .map(|e| e.message())
                        .unwrap_or_default();
                    s.failed(&what)
                }
            },
        );
        *self.worker.borrow_mut() = link;
    }

    /// Hands `spec` to the worker, started now if need be; false when there is
    /// no worker to take it.
    fn send(self: &Rc<Self>, spec: &JobSpec) -> bool {
        if self.broken.get() {
            return false;
        }
        if self.worker.borrow().is_none() {
            self.spawn();
        }
        let m = ToWorker::Start {
            id: self.id.get(),
            searches: spec.searches.iter().map(SearchWire::of).collect(),
            cut: spec.cut.as_deref().map(str::to_owned),
            lens: spec.lens.as_ref().map(|l| Box::new(LensWire::of(l))),
        };
        self.worker.borrow().as_ref().is_some_and(|w| w.send(&m))
    }

    /// Runs the job here, a slice per timer tick.
    fn run_here(self: &Rc<Self>) {
        let me = Rc::downgrade(self);
        *self.timer.borrow_mut() = Some(Interval::new(0, move || tick(&me)));
    }

    /// Ends the worker after a search that held much memory (a wasm module's memory
    /// never shrinks): the next search starts another. Not from inside the
    /// worker's own message handler: a moment later, unless a job was handed to
    /// it (or waits for it) since.
    fn retire(self: &Rc<Self>) {
        let me = Rc::downgrade(self);
        gloo::timers::callback::Timeout::new(0, move || {
            if let Some(s) = me.upgrade() {
                if s.there.borrow().is_none() && s.pending.borrow().is_none() {
                    s.worker.borrow_mut().take();
                    s.peak.set(0);
                    s.ready.set(false);
                }
            }
        })
        .forget();
    }

    /// A message from the worker.
    fn heard(self: &Rc<Self>, m: FromWorker) {
        match m {
            FromWorker::Tick { id, tick, keys } if id == self.id.get() => {
                self.head.borrow_mut().take();
                let t = match tick {
                    Tick::Done { mut xs, ms } => {
                        if let Some(spec) = self.there.borrow_mut().take() {
                            restore(&mut xs, &keys, &spec);
                        }
                        let held = xs.iter().map(|x| x.peak_bytes).max().unwrap_or(0);
                        self.peak.set(self.peak.get().max(held));
                        if self.peak.get() > RETIRE_BYTES {
                            self.retire();
                        }
                        Tick::Done {
                            xs,
                            ms: ms + self.lead.get(),
                        }
                    }
                    Tick::Running(mut run) => {
                        self.peak.set(self.peak.get().max(run.p.bytes));
                        run.ms += self.lead.get();
                        Tick::Running(run)
                    }
                };
                self.show(t, true);
            }
            FromWorker::Failed { id, why } if id == self.id.get() => {
                web_sys::console::warn_1(
                    &format!("FlushScope: the explorer's worker could not run a search ({why}); the page runs it.").into(),
                );
                self.run_there_here();
            }
            FromWorker::Failed { why, .. } => web_sys::console::warn_1(
                &format!("FlushScope: the explorer's worker: {why}").into(),
            ),
            FromWorker::Broken { why } => self.failed(&why),
            FromWorker::Ready {} => {
                self.ready.set(true);
                self.hand_over();
            }
            // Another job's, or an import's (the log panel has a worker of its own).
            FromWorker::Tick { .. } | FromWorker::Reading { .. } | FromWorker::Imported { .. } => {}
        }
    }

    /// The worker failed to load or broke: it is not used again; its job runs here.
    fn failed(self: &Rc<Self>, what: &str) {
        web_sys::console::warn_1(
            &format!(
                "FlushScope: the explorer's worker failed ({what}); searches run in the page."
            )
            .into(),
        );
        self.broken.set(true);
        self.pending.borrow_mut().take();
        if let Some(w) = self.worker.borrow().as_ref() {
            w.end();
        }
        self.run_there_here();
    }

    fn run_there_here(self: &Rc<Self>) {
        let spec = self.there.borrow_mut().take();
        if let Some(spec) = spec {
            let head = self.head.borrow_mut().take();
            let mut job = match head.map_or_else(|| Job::new(&spec), Ok) {
                Ok(job) => job,
                Err(why) => return self.unable(&why),
            };
            if self.cancelling.get() {
                // It was cancelled: report what the page covered, not a rerun.
                self.show(job.cancel(), false);
                return;
            }
            *self.here.borrow_mut() = Some(job);
            self.run_here();
        }
    }

    /// Cancel: the job here reports what it covered at once; the worker within a
    /// slice.
    fn cancel(&self) {
        let here = self.here.borrow_mut().take();
        if let Some(mut j) = here {
            self.timer.borrow_mut().take();
            self.show(j.cancel(), false);
            // Its states are freed after the report is shown.
            drop_later(j);
        } else if self.there.borrow().is_some() {
            // Before the worker's first word, its job has covered less than the
            // first slice here did: that one reports, the worker's is dropped.
            let head = self.head.borrow_mut().take();
            let report = head.is_none();
            self.cancelling.set(report);
            if let Some(w) = self.worker.borrow().as_ref() {
                w.send(&ToWorker::Stop {
                    id: self.id.get(),
                    report,
                });
            }
            if let Some(mut j) = head {
                // What the worker still says of it is not heard.
                self.id.set(self.id.get().wrapping_add(1));
                self.there.borrow_mut().take();
                self.show(j.cancel(), false);
            }
        }
    }
}

/// One slice of the job running here; then shows where it stands.
fn tick(me: &Weak<Shared>) {
    let Some(s) = me.upgrade() else { return };
    let t = {
        let mut here = s.here.borrow_mut();
        let Some(j) = here.as_mut() else { return };
        let t = j.slice(SLICE_MS);
        if let Tick::Done { .. } = t {
            // Its states are freed after the report is shown.
            if let Some(j) = here.take() {
                drop_later(j);
            }
            s.pending.borrow_mut().take();
        }
        t
    };
    // The timer stops once the job is done (dropped by an effect, never inside its own tick).
    s.show(t, false);
}

/// Searches in progress and how to start and cancel them.
pub(crate) struct ExploreHandle {
    pub status: UseStateHandle<Status>,
    /// The searches, and for a single search the file to cut its findings' ops from.
    pub start: Callback<JobSpec>,
    pub cancel: Callback<MouseEvent>,
    /// For the buttons that start a search: loads the worker ahead of the click.
    pub warm: Callback<()>,
    /// Drops a job of one search (and its report), not one per version.
    pub forget_one: Callback<()>,
    /// Drops any job (and its report).
    pub forget: Callback<()>,
}

/// Searches run in a worker (or here in slices); dropped when `key` changes.
#[hook]
pub(crate) fn use_explorers<K: PartialEq + Clone + 'static>(key: K) -> ExploreHandle {
    let status = use_state(|| Status::Idle);
    let shared = {
        let status = status.clone();
        (*use_memo((), move |_| {
            Rc::new(Shared {
                status,
                id: Cell::new(0),
                here: RefCell::new(None),
                timer: RefCell::new(None),
                there: RefCell::new(None),
                head: RefCell::new(None),
                worker: RefCell::new(None),
                broken: Cell::new(false),
                cancelling: Cell::new(false),
                of: Cell::new(1),
                ready: Cell::new(false),
                pending: RefCell::new(None),
                peak: Cell::new(0),
                lead: Cell::new(0.0),
            })
        }))
        .clone()
    };
    {
        let (shared, status) = (shared.clone(), status.clone());
        use_effect_with(key, move |_| {
            status.set(Status::Idle);
            move || shared.forget()
        });
    }
    // The worker ends with the panel.
    {
        let shared = shared.clone();
        use_effect_with((), move |_| {
            move || {
                shared.forget();
                shared.worker.borrow_mut().take();
            }
        });
    }
    {
        let shared = shared.clone();
        use_effect_with((*status).clone(), move |s| {
            if !matches!(s, Status::Running { .. }) {
                shared.timer.borrow_mut().take();
            }
        });
    }
    let start = {
        let shared = shared.clone();
        Callback::from(move |spec: JobSpec| shared.start(spec))
    };
    let warm = {
        let shared = shared.clone();
        Callback::from(move |()| shared.warm())
    };
    let (forget_one, forget) = (
        forgets(&shared, &status, true),
        forgets(&shared, &status, false),
    );
    let cancel = one_click(Callback::from(move |_: MouseEvent| shared.cancel()));
    ExploreHandle {
        warm,
        status,
        start,
        cancel,
        forget_one,
        forget,
    }
}

/// A callback that drops the job (and its report): a job of one search only
/// when `one`.
fn forgets(shared: &Rc<Shared>, status: &UseStateHandle<Status>, one: bool) -> Callback<()> {
    let (shared, status) = (shared.clone(), status.clone());
    Callback::from(move |()| {
        if !one || shared.of.get() <= 1 {
            shared.forget();
            status.set(Status::Idle);
        }
    })
}

#[derive(Properties)]
pub struct ExploreProps {
    pub scenario: AnyScenario,
    pub shown: Shown,
    /// The search the view has (the link's `explore=`): run when it asks for
    /// one the panel did not start.
    pub explore: Option<Exploring>,
    pub dispatch: Dispatch,
}

impl PartialEq for ExploreProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.shown, self.explore) == (&o.shown, o.explore)
    }
}

/// A checkbox's change handler that sets `flag`.
fn toggle(flag: &UseStateHandle<bool>) -> Callback<Event> {
    let flag = flag.clone();
    Callback::from(move |e: Event| {
        flag.set(e.target_unchecked_into::<HtmlInputElement>().checked())
    })
}

/// The panel's choices: go on after the first violation, look for data
/// races, search depth first.
type Choices = (
    UseStateHandle<bool>,
    UseStateHandle<bool>,
    UseStateHandle<bool>,
);

/// The order the "depth first" box asks for.
fn order(depth: bool) -> Order {
    match depth {
        true => Order::Dfs,
        false => Order::Bfs,
    }
}

/// The searches `e` asks for: of `sc` (the scenario shown, from `source`), or
/// of it under each version.
fn job(sc: &AnyScenario, source: &Source, e: Exploring) -> JobSpec {
    let o = Options {
        max_bytes: match e.versions {
            true => PAGE_MAX_BYTES / 2,
            false => PAGE_MAX_BYTES,
        },
        all: e.all || e.versions,
        shrink: false,
        races: e.races,
        order: order(e.dfs),
        ..Options::first(PAGE_MAX_STEPS, PAGE_MAX_STATES)
    };
    if !e.versions {
        return JobSpec {
            searches: vec![Search {
                source: source.clone(),
                sc: sc.clone(),
                o,
            }],
            cut: source_text(source),
            lens: None,
        };
    }
    let searches = sc
        .at_every_version()
        .into_iter()
        .map(|sc| Search {
            source: source.clone(),
            sc,
            o: o.clone(),
        })
        .collect();
    JobSpec {
        searches,
        cut: None,
        lens: None,
    }
}

/// The search last started for the view shown (see [`use_linked_search`]):
/// what it searched (the view, less its version for a search of every version)
/// and how.
type Asked = Rc<RefCell<Option<(Shown, Exploring)>>>;

/// What a search `e` of the view `shown` is of: the view, or for a search of
/// every version the view at any version.
fn asked(shown: &Shown, e: Exploring) -> (Shown, Exploring) {
    let version = if e.versions { None } else { shown.version };
    (
        Shown {
            version,
            ..shown.clone()
        },
        e,
    )
}

/// The Explore and Every version buttons' handlers: one search of `sc`, or one per
/// version, with the panel's choices; the view (and so the link) says which.
fn start_callbacks(
    x: &ExploreHandle,
    (all, races, depth): &Choices,
    p: &ExploreProps,
    was: &Asked,
) -> (Callback<MouseEvent>, Callback<MouseEvent>) {
    let begin = |versions: bool| {
        let (start, all, races, depth) =
            (x.start.clone(), all.clone(), races.clone(), depth.clone());
        let (sc, shown, d, was) = (
            p.scenario.clone(),
            p.shown.clone(),
            p.dispatch.clone(),
            was.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let e = Exploring {
                versions,
                all: *all || versions,
                races: *races,
                dfs: *depth,
            };
            *was.borrow_mut() = Some(asked(&shown, e));
            d.dispatch(Action::Explore(Some(e)));
            start.emit(job(&sc, &shown.source, e));
        })
    };
    (one_click(begin(false)), one_click(begin(true)))
}

/// Cancel: the search stops, and the view (the link) has none any more: a
/// link would run it whole.
fn cancel_callback(x: &ExploreHandle, d: &Dispatch, was: &Asked) -> Callback<MouseEvent> {
    let (cancel, d, was) = (x.cancel.clone(), d.clone(), was.clone());
    one_click(Callback::from(move |e: MouseEvent| {
        cancel.emit(e);
        *was.borrow_mut() = None;
        d.dispatch(Action::Explore(None));
    }))
}

/// A view with a search the panel did not start (a link opened, Back to one)
/// runs it, the panel's boxes set as it asks, the keyboard focus left where
/// it is (`clicked` false: see [`use_search_focus`]); a view with none (a link
/// without `explore=`) drops the one shown (found by an attack: a link of the
/// same scenario without it left the search running under it).
#[hook]
fn use_linked_search(
    x: &ExploreHandle,
    choices: &Choices,
    p: &ExploreProps,
    refs: (&Asked, &Clicked),
) {
    let (was, clicked) = refs;
    let (start, forget, (all, races, depth)) = (x.start.clone(), x.forget.clone(), choices.clone());
    let (sc, was, clicked) = (p.scenario.clone(), was.clone(), clicked.clone());
    use_effect_with((p.explore, p.shown.clone()), move |(explore, shown)| {
        let Some(e) = *explore else {
            // Cancel took the search off the view itself, and its report stays.
            if was.borrow_mut().take().is_some() {
                forget.emit(());
            }
            return;
        };
        let this = asked(shown, e);
        if was.borrow().as_ref() == Some(&this) {
            return;
        }
        *was.borrow_mut() = Some(this);
        *clicked.borrow_mut() = false;
        if !e.versions {
            all.set(e.all);
        }
        races.set(e.races);
        depth.set(e.dfs);
        start.emit(job(&sc, &shown.source, e));
    });
}

/// A button's handler that ignores the second click of a double click: a
/// search's start and its Cancel take the same place, so that click would undo
/// the first (a key press's click has no count, and goes through).
pub(crate) fn one_click(cb: Callback<MouseEvent>) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        if e.detail() <= 1 {
            cb.emit(e)
        }
    })
}

/// A start or Cancel button's key handler: a held Enter repeats its key down,
/// and each would click the button that took the focus (Explore, then Cancel
/// in its place, then Explore again...); only the first press counts.
fn first_press() -> Callback<KeyboardEvent> {
    Callback::from(|e: KeyboardEvent| {
        if e.repeat() && e.key() == "Enter" {
            e.prevent_default();
        }
    })
}

/// Frees `x` (a search's states) after this task: the report shows first.
fn drop_later<T: 'static>(x: T) {
    gloo::timers::callback::Timeout::new(0, move || drop(x)).forget();
}

/// Whether the search shown was started by a click of the panel's buttons
/// (not by a link).
type Clicked = Rc<RefCell<bool>>;

/// Keeps the keyboard focus in place while Cancel stands in for the start
/// buttons: on Cancel once a search starts, and back on the button that started
/// it once the search ends (unless the focus went elsewhere meanwhile). A
/// search a link started leaves a focus nowhere (on the page) there: Space
/// plays the run, as on any link (found by an attack: it went to Cancel, and
/// Space cancelled the search).
#[hook]
fn use_search_focus(
    running: bool,
    clicked: &Clicked,
    start: Callback<MouseEvent>,
    every_version: Callback<MouseEvent>,
) -> (Callback<MouseEvent>, Callback<MouseEvent>) {
    let origin = use_mut_ref(|| "explore-btn");
    let was = use_mut_ref(|| running);
    {
        let (origin, clicked) = (origin.clone(), clicked.clone());
        use_effect_with(running, move |&running| {
            // Not when the panel is drawn first (the page's focus stays put).
            let changed = std::mem::replace(&mut *was.borrow_mut(), running) != running;
            // The focus fell (its button went) or is still on the search's buttons.
            let fell = *clicked.borrow() && crate::focus::lost();
            if changed && (fell || crate::focus::within(".explore-controls")) {
                let id = if running {
                    "explore-cancel"
                } else {
                    *origin.borrow()
                };
                crate::focus::to_in_place(id);
            }
        });
    }
    let mark = |cb: Callback<MouseEvent>, id: &'static str| {
        let (origin, clicked) = (origin.clone(), clicked.clone());
        Callback::from(move |e: MouseEvent| {
            *origin.borrow_mut() = id;
            *clicked.borrow_mut() = true;
            cb.emit(e)
        })
    };
    (
        mark(start, "explore-btn"),
        mark(every_version, "explore-versions-btn"),
    )
}

#[function_component(ExplorePanel)]
pub fn explore_panel(p: &ExploreProps) -> Html {
    // A search of the version shown is dropped when another is shown; a table of
    // every version stays, so that each of its counterexamples is one click away.
    let x = use_explorers((p.shown.source.clone(), p.shown.knobs.clone()));
    {
        let forget_one = x.forget_one.clone();
        use_effect_with(p.shown.version, move |_| forget_one.emit(()));
    }
    let choices: Choices = (
        use_state(|| false),
        use_state(|| false),
        use_state(|| false),
    );
    let (was, clicked): (Asked, Clicked) = (use_mut_ref(|| None), use_mut_ref(|| false));
    use_linked_search(&x, &choices, p, (&was, &clicked));
    let (start, every_version) = start_callbacks(&x, &choices, p, &was);
    let cancel = cancel_callback(&x, &p.dispatch, &was);
    let versions = !p.scenario.versions().is_empty();
    let (all, races, depth) = &choices;
    let (on_all, on_races, on_depth) = (toggle(all), toggle(races), toggle(depth));
    let running = matches!(*x.status, Status::Running { .. });
    let (start, every_version) = use_search_focus(running, &clicked, start, every_version);
    let (warm, warm_focus) = (
        x.warm.reform(|_: PointerEvent| ()),
        x.warm.reform(|_: FocusEvent| ()),
    );
    html! {
        <section class="panel explore" id="explore" aria-labelledby="explore-title">
            <h3 id="explore-title">{"Explore every interleaving"}</h3>
            <div class="explore-controls">
                if running {
                    <button id="explore-cancel" onclick={cancel}
                            onkeydown={first_press()}>{"Cancel"}</button>
                } else {
                    <button id="explore-btn" class="primary" onclick={start} onkeydown={first_press()}
                            onpointerenter={warm.clone()} onfocus={warm_focus.clone()}>{"Explore"}</button>
                    if versions {
                        <button id="explore-versions-btn" onclick={every_version} onkeydown={first_press()}
                                onpointerenter={warm} onfocus={warm_focus}
                                title="Every distinct violation under each Milvus version">{"Every version"}</button>
                    }
                }
                <label class="check">
                    <input type="checkbox" id="explore-all" checked={**all} disabled={running} onchange={on_all} />
                    {" go on after the first violation"}
                </label>
                <label class="check">
                    <input type="checkbox" id="explore-races" checked={**races} disabled={running} onchange={on_races} />
                    {" also look for data races"}
                </label>
                <label class="check">
                    <input type="checkbox" id="explore-dfs" checked={**depth} disabled={running} onchange={on_depth} />
                    {" depth first from the start (least memory; its schedules are shrunk, not always the shortest)"}
                </label>
            </div>
            // Progress is not announced (it changes every frame); the result is.
            if let Status::Running { run: Running { p: pr, ms, done, of, shrinking, cutting }, .. } = &*x.status {
                {running_view(pr, *ms)}
                if *of > 1 { <p class="muted">{format!("Search {} of {of}", done + 1)}</p> }
                if let Some(replays) = shrinking {
                    <p class="muted" id="explore-shrinking">{format!("Shrinking a schedule found depth first: {replays} replays so far")}</p>
                }
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
        Source::Builtin(name) => flush_core::builtin::text(name).map(Rc::from),
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
            <p class="muted">{"Searches breadth first for an invariant broken, a Go panic or a deadlock, gives the shortest schedule to each, then cuts the scenario's ops it does not need. Once the queued states fill half its memory, it goes on depth first and shrinks what it finds there (tick \"depth first from the start\" for the least memory)."}</p>
        },
        Status::Running { worker, .. } => html! {
            <p class="muted" id="explore-where" data-runner={if *worker { "worker" } else { "page" }}>
                {if *worker { "Exploring in a background worker: the page stays free…" } else { "Exploring…" }}
            </p>
        },
        // A search per version, even when a Cancel left one: its row names
        // the version it searched (a lone report reads as the shown one's).
        Status::Done { xs, of, .. } if *of > 1 => versions_view(xs, *of, p),
        Status::Done { xs, ms, worker, .. } => match &xs[..] {
            [x] => report_view(x, *ms, *worker, p),
            [] => html! {},
            many => versions_view(many, many.len(), p),
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

fn report_view(x: &Exploration, ms: f64, worker: bool, p: &ExploreProps) -> Html {
    html! {
        <div id="explore-result" data-states={x.states.to_string()} data-ms={format!("{ms:.0}")} data-found={x.violations.len().to_string()}
             data-runner={if worker { "worker" } else { "page" }} data-peak={x.peak_bytes.to_string()}>
            <p>{format!("{} states ({} transitions, depth {}) in {:.0} ms{}{}.", x.states, x.transitions, x.depth, ms, rate(x.states, ms),
                if worker { ", in a background worker" } else { "" })}</p>
            <p class="muted">{format!("Stopped: {}.", x.stopped_words())}</p>
            if let Some(w) = x.depth_first_words() {
                <p class="muted" id="explore-depth-first">{format!("Order: {w}.")}</p>
            } else if x.order == Order::Dfs {
                <p class="muted" id="explore-depth-first">{"Order: depth first from the start (the schedules found are shrunk, not necessarily shortest)."}</p>
            }
            // The CLI says --order dfs here: a breadth-first queue (or one
            // state's thousands of children) filled the memory.
            if x.stopped == Stopped::MaxBytes && x.order == Order::Bfs {
                <p id="explore-hint">{"Depth first holds far less memory: tick \"depth first from the start\" and explore again."}</p>
            }
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
                {match (x.truncated, x.scenario_step_limit && x.depth_cut > 0) {
                    (true, _) => format!("nothing found so far ({})", x.stopped_words()),
                    // Its runs stop at the limit: nothing breaks in them.
                    (false, true) => format!(
                        "completed: nothing breaks within the scenario's step limit ({} steps)",
                        x.options.as_ref().map_or(0, |o| o.max_steps)
                    ),
                    (false, false) => "completed: nothing breaks".to_owned(),
                }}
            </span>
        }
        <ul class="found">
            {for x.violations.iter().map(|f| html! {
                <li class={format!("found-{}", f.kind.as_str())}>
                    <strong>{f.kind.as_str()}</strong>{": "}{verdict_words(f)}{format!(" ({}) ", steps_words(f.steps))}
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
    words: (&'static str, String),
) -> Html {
    open_button_then(at, schedule, step, d, words, None)
}

/// [`open_button`], the focus moved to the element `then` once clicked (where
/// the button goes with the view it opens).
fn open_button_then(
    at: &Shown,
    schedule: Vec<Choice>,
    step: u32,
    d: &Dispatch,
    (text, label): (&'static str, String),
    then: Option<&'static str>,
) -> Html {
    let spec = ViewSpec {
        source: at.source.clone(),
        version: at.version.map(str::to_owned),
        compare: None,
        explore: None,
        lens: false,
        matrix: false,
        knobs: at.knobs.to_vec(),
        tour: None,
        seed: None,
        mode: Mode::Manual,
        schedule: Some(schedule),
        step,
    };
    let d = d.clone();
    let open = Callback::from(move |_: MouseEvent| {
        d.dispatch(Action::Load(spec.clone()));
        if let Some(then) = then {
            crate::focus::to(then);
        }
    });
    html! { <button class="link open-stepper" onclick={open} aria-label={label}>{text}</button> }
}

/// The button that opens a found schedule in the stepper at `version`: from step 1,
/// or for a race at the step where both racing steps can run (its last two).
pub(crate) fn open_found(at: &Shown, d: &Dispatch, f: &Found, label: String) -> Html {
    let schedule = Choice::parse_list(&f.schedule).unwrap_or_default();
    let text = match f.kind {
        OutcomeKind::Race => "open where both steps can run",
        _ => "open in stepper",
    };
    open_button(at, schedule, f.open_step(), d, (text, label))
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
                        <span>{format!("{}, {}: ", schedule_words(f, f.depth_first || x.order == Order::Dfs), steps_words(f.steps))}<code>{f.schedule.clone()}</code></span>
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
/// `of`: the versions the job was to search (more than `xs` once cancelled).
fn versions_view(xs: &[Exploration], of: usize, p: &ExploreProps) -> Html {
    html! {
        <>
        if xs.len() < of {
            <p id="explore-versions-cut">{format!(
                "Cancelled: {} of the {of} versions searched; the others were not.{}",
                xs.len(),
                match xs.last() {
                    Some(x) if x.truncated => format!(" The search of {} was cut short: it may break in more ways.", x.version.unwrap_or("-")),
                    _ => String::new(),
                }
            )}</p>
        }
        <div id="explore-versions" class="table-scroll" tabindex="0" role="region" aria-label="verdicts of this scenario per version">
            <table>
                <thead><tr><th scope="col">{"version"}</th><th scope="col">{"what exploring finds"}</th></tr></thead>
                <tbody>
                    {for xs.iter().map(|x| {
                        let v = x.version.unwrap_or("-");
                        html! {
                            <tr data-version={v}>
                                <th scope="row">{super::version_name(&p.scenario, v)}{if x.version == p.shown.version { " (shown)" } else { "" }}</th>
                                <td>{findings_cell(x, &Shown { version: x.version, ..p.shown.clone() }, &p.dispatch,
                                    &|f| format!("open the {}-step schedule at {v} in the stepper", f.steps))}</td>
                            </tr>
                        }
                    })}
                </tbody>
            </table>
        </div>
        </>
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
        let now = c
            .now
            .as_ref()
            .map(|m| format!(" They break it as: {m}."))
            .unwrap_or_default();
        format!(
            "Ops: {gone} of {} cut; the {} left reach it in {}.{now}{held}{more}",
            c.ops.len(),
            c.kept,
            steps_words(c.steps)
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
                        source: Source::Inline { file: crate::permalink::file_name(&format!("{name}-cut.json")), text: Rc::from(c.scenario.as_str()) },
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

/// What a finding's schedule is: a shortest one (breadth first), or one found
/// depth first, shrunk by the job after the search (as the CLI shrinks it), or
/// not all the way when a Cancel (or the shrink's budget) stopped it. `deep`:
/// found depth first, by a search that went on depth first
/// ([`Found::depth_first`]) or went so from the start (the page's "depth
/// first" box: its findings were called shortest).
fn schedule_words(f: &Found, deep: bool) -> String {
    match (deep, f.shrunk_from, f.shrink_stopped) {
        (false, _, _) => "shortest schedule".to_owned(),
        (true, None, false) => "schedule found depth first".to_owned(),
        (true, None, true) => {
            "schedule found depth first (not shrunk: its shrink was stopped)".to_owned()
        }
        (true, Some(n), false) => format!("shrunk schedule (found depth first with {n} steps)"),
        (true, Some(n), true) => format!(
            "partly shrunk schedule (found depth first with {n} steps; its shrink was stopped, a shorter one may exist)"
        ),
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
    /// The lens is on (the view's, so a link carries it: `lens=on`).
    pub on: bool,
    pub dispatch: Dispatch,
}

impl PartialEq for LensProps {
    fn eq(&self, o: &Self) -> bool {
        (self.rev, self.cursor, &self.shown, self.on) == (o.rev, o.cursor, &o.shown, o.on)
    }
}

/// The race lens: for each runnable goroutine here, whether some continuation
/// that starts by running it breaks something new within [`LENS_STEPS`] steps.
#[function_component(RaceLens)]
pub fn race_lens(p: &LensProps) -> Html {
    let on = p.on;
    let key = (p.rev, p.cursor, on);
    let x = use_explorers(key);
    let choices = use_mut_ref(Vec::<Choice>::new);
    // How many goroutines could run here (the lens looks at the first
    // `LENS_CHOICES` of them).
    let runnable = use_mut_ref(|| 0usize);
    // The view the searches shown were started for: the first frame of a new
    // step is drawn before the effect below drops the last step's (its goroutines
    // listed under the new step, one click from opening a wrong schedule).
    let searched = use_mut_ref(|| None::<(u64, u32, bool)>);
    let current = *searched.borrow() == Some(key);
    {
        let (start, run, choices) = (x.start.clone(), p.run.clone(), choices.clone());
        let runnable = runnable.clone();
        let (source, cursor) = (p.shown.source.clone(), p.cursor as usize);
        let searched = searched.clone();
        use_effect_with(key, move |&(_, _, on)| {
            *searched.borrow_mut() = Some(key);
            if on {
                // The worker gets the run's schedule to the cursor and replays it.
                let run = run.borrow();
                let mut here = run.runnable_here();
                *runnable.borrow_mut() = here.len();
                here.truncate(flush_core::explore::LENS_CHOICES);
                *choices.borrow_mut() = here;
                let mut schedule = run.schedule();
                schedule.truncate(cursor);
                start.emit(JobSpec {
                    searches: Vec::new(),
                    cut: None,
                    lens: Some(Lens {
                        search: Search {
                            source,
                            sc: run.scenario(),
                            o: AnyExplorer::lens_options(LENS_STEPS, LENS_STATES),
                        },
                        schedule,
                    }),
                });
            }
        });
    }
    let toggle = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            d.dispatch(Action::Lens(input.checked()));
        })
    };
    html! {
        <section class="panel lens" id="lens" aria-labelledby="lens-title">
            <h3 id="lens-title">{"Race lens"}</h3>
            <label class="check">
                <input type="checkbox" id="lens-on" checked={on} onchange={toggle}
                       onpointerenter={x.warm.reform(|_: PointerEvent| ())} onfocus={x.warm.reform(|_: FocusEvent| ())} />
                {format!(" look {LENS_STEPS} steps ahead from each runnable goroutine")}
            </label>
            // Not a live region: it changes at every step, which the step narration covers.
            <div>
                if on {
                    {match &*x.status {
                        Status::Idle => html! {},
                        Status::Running { run: Running { done, of, .. }, .. } => html! {
                            <p class="muted">{format!("Looking ahead: {done} of {of} choices…")}</p>
                        },
                        Status::Done { xs, worker, .. } if current => html! {
                            <>{lens_list(&choices.borrow(), xs, *worker, p)}{lens_more(choices.borrow().len(), *runnable.borrow())}</>
                        },
                        Status::Done { .. } => html! {},
                    }}
                }
            </div>
        </section>
    }
}

/// Said under the lens's list when it looked at only the first choices.
fn lens_more(shown: usize, runnable: usize) -> Html {
    match runnable > shown {
        true => html! {
            <p class="muted lens-more">{format!(
                "The lens looked ahead from the first {shown} of the {runnable} steps that can run here."
            )}</p>
        },
        false => html! {},
    }
}

fn lens_list(choices: &[Choice], xs: &[Exploration], worker: bool, p: &LensProps) -> Html {
    if choices.is_empty() {
        return html! { <p class="muted">{"Nothing can run here."}</p> };
    }
    // One search per choice, in the order of the run's runnable set: should the
    // replay have found another set (a bug), no label may go to another's finding.
    if xs.len() != choices.len() {
        let why = format!(
            "The look-ahead found {} runnable goroutines where the run has {}; it is not shown.",
            xs.len(),
            choices.len()
        );
        web_sys::console::warn_1(&format!("FlushScope: {why}").into());
        return html! { <p class="error lens-error" role="status">{why}</p> };
    }
    let run = p.run.borrow();
    let prefix: Vec<Choice> = run.schedule().into_iter().take(p.cursor as usize).collect();
    html! {
        <ul class="lens-list" data-runner={if worker { "worker" } else { "page" }} data-cursor={p.cursor.to_string()}>
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
                                {format!(" can lead to {what} within {} ", steps_words(f.steps + 1))}
                                // The list is the next step's once open: the focus goes to
                                // Step, where the arrows and End walk the schedule opened.
                                {open_button_then(&p.shown, schedule, p.cursor + 1, &p.dispatch, ("open", label), Some("step-btn"))}
                            </li>
                        }
                    }
                    None if matches!(x.stopped, Stopped::MaxStates | Stopped::MaxBytes | Stopped::Cancelled) => html! {
                        <li class="lens-unknown" data-choice={c.to_string()}>
                            {format!("? {who}: nothing found in {} states (the look-ahead budget ran out)", x.states)}</li>
                    },
                    // Cut where the run stops: it looked at every step the run has
                    // left, fewer than the look-ahead's own.
                    None if x.scenario_step_limit && x.depth_cut > 0 => html! {
                        <li class="lens-ok" data-choice={c.to_string()}>
                            {format!("✓ {who}: nothing new breaks in the {} left before the run's step limit", flush_worker::import::count(run.header().max_steps.saturating_sub(p.cursor) as usize, "step", "steps"))}</li>
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A finding is called shrunk only when its shrink ran to its end.
    #[test]
    fn a_stopped_shrink_is_not_called_shrunk() {
        let f = |depth_first, shrunk_from, shrink_stopped| {
            schedule_words(
                &Found {
                    kind: flush_core::OutcomeKind::Panic,
                    message: String::new(),
                    schedule: "0".into(),
                    steps: 12,
                    shrunk_from,
                    shrink_stopped,
                    depth_first,
                    key: String::new(),
                    cut: None,
                    link: None,
                },
                depth_first,
            )
        };
        assert_eq!(f(false, None, false), "shortest schedule");
        assert_eq!(f(true, None, false), "schedule found depth first");
        assert_eq!(
            f(true, Some(21), false),
            "shrunk schedule (found depth first with 21 steps)"
        );
        let partly = f(true, Some(21), true);
        assert!(partly.starts_with("partly shrunk schedule"), "{partly}");
        assert!(partly.contains("a shorter one may exist"), "{partly}");
        assert!(f(true, None, true).contains("not shrunk"));
        // Found by a search depth first from the start (not marked as gone on
        // depth first): never called shortest.
        let dfs = Found {
            kind: flush_core::OutcomeKind::Panic,
            message: String::new(),
            schedule: "0".into(),
            steps: 6,
            shrunk_from: None,
            shrink_stopped: false,
            depth_first: false,
            key: String::new(),
            cut: None,
            link: None,
        };
        assert_eq!(schedule_words(&dfs, true), "schedule found depth first");
    }
}
