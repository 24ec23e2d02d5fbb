//! The explorer's worker: a job (searches one after the other, then the shrinks
//! of what they found depth first, then the cuts of a single search's findings)
//! that runs in slices, in a Web Worker or in the
//! page, and the messages that cross between them.
//!
//! This crate is built twice: into the page's module (`flush-web`, which runs a
//! job itself for its first slice and until the worker has loaded, and whole
//! where no worker starts), and alone into `flush-worker_bg.wasm` (`src/main.rs`),
//! the worker's module, without the page's code and optimised for speed
//! (`profile.worker`). The worker's script (`flush-web`'s `WorkerLink::spawn`)
//! hands each message from the page to [`message`] and calls [`slice`] until it
//! has nothing to say, a `MessageChannel` message between two slices so that a
//! Cancel gets in. Scenarios cross as the page built them (source, version,
//! knobs, step limit: [`SearchWire`]), results as the explorer's JSON, read back
//! by [`wire`]; the tests here and in `flush-web` check that both come back equal.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use flush_core::builtin;
use flush_core::explore::{
    collision_bound, not_cut, wants_shrink, CutBudget, Exploration, OpShrink, Options, Progress,
    Shrinking, SHRINK_REPLAYS,
};
use flush_core::scenario::json::{self as core_json, Json};
use flush_core::{AnyExplorer, AnyScenario, Choice};
use serde::Serialize;
use wasm_bindgen::prelude::*;

pub mod import;
pub mod wire;
pub use import::ImportView;
use wire::{each, string, Obj, Read};

/// Where the scenario comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Builtin(String),
    /// An uploaded (or permalinked) file: its name and text.
    Inline {
        file: String,
        text: Rc<str>,
    },
}

/// Loads a scenario source into a checked scenario.
pub fn scenario_of(source: &Source) -> Result<AnyScenario, String> {
    match source {
        Source::Builtin(name) => {
            builtin::get(name).ok_or_else(|| format!("There is {}.", builtin::unknown(name)))
        }
        Source::Inline { file, text } => AnyScenario::parse(text, file).map_err(|e| e.to_string()),
    }
}

/// What the page lets a search hold (the browser's memory is the user's).
pub const PAGE_MAX_BYTES: u64 = 256 << 20;
/// Model steps between two looks at the clock, at most: a fast model's step
/// takes a microsecond or two.
const SLICE_TRANSITIONS: u64 = 512;
/// ... and at first: a state of 10,000 actors takes a millisecond a step, so
/// 512 steps held the page for 0.3 to 0.9 s (found by a helper attacking it).
const FIRST_TRANSITIONS: u64 = 8;

/// How many model steps a search runs between two looks at the clock, paced to
/// what a step costs here: a batch takes at most a quarter of a slice, as near
/// as the last batch tells.
#[derive(Clone, Copy, Debug)]
struct Pace(u64);

impl Pace {
    fn new() -> Pace {
        Pace(FIRST_TRANSITIONS)
    }

    /// Runs `f` for one batch, then sizes the next from the time it took.
    fn run(&mut self, slice_ms: f64, f: impl FnOnce(u64) -> bool) -> bool {
        let t0 = now();
        let done = f(self.0);
        self.took(now() - t0, slice_ms);
        done
    }

    /// The last batch took `ms`: halve the next if it took over a quarter of
    /// the slice, double it (to [`SLICE_TRANSITIONS`]) if under a sixteenth.
    fn took(&mut self, ms: f64, slice_ms: f64) {
        if ms > slice_ms / 4.0 {
            self.0 = (self.0 / 2).max(1);
        } else if ms < slice_ms / 16.0 {
            self.0 = (self.0 * 2).min(SLICE_TRANSITIONS);
        }
    }
}
/// A worker's slice: long enough that messages cost little, short enough that a
/// Cancel is answered well within 100 ms.
pub const WORKER_SLICE_MS: f64 = 25.0;

/// Violations whose ops are cut after a search (each cut is a few searches of
/// its own).
const MAX_CUTS: usize = 4;
/// One try's states, and all tries' (a cut takes a few seconds at most).
const PAGE_CUT_TRY_STATES: u64 = 200_000;
const PAGE_CUT_STATES: u64 = 2_000_000;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`, in a window or a worker alike.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Milliseconds on the page's (or the worker's) clock.
#[cfg(target_arch = "wasm32")]
pub fn now() -> f64 {
    performance_now()
}

/// Milliseconds since the first call (native tests run jobs too).
#[cfg(not(target_arch = "wasm32"))]
pub fn now() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1000.0
}

/// One search: of `sc` (built from `source` by the page), with `o`.
#[derive(Clone)]
pub struct Search {
    pub source: Source,
    pub sc: AnyScenario,
    pub o: Options,
}

/// Searches to run one after the other; `cut`: the file to cut a single
/// search's findings' ops from; `lens`: the race lens's searches, after them.
#[derive(Clone)]
pub struct JobSpec {
    pub searches: Vec<Search>,
    pub cut: Option<Rc<str>>,
    pub lens: Option<Lens>,
}

/// The race lens where a run stands: `search`'s scenario and options (see
/// `AnyExplorer::lens_options`), the run replayed from the start by `schedule`;
/// one search per choice runnable there.
#[derive(Clone)]
pub struct Lens {
    pub search: Search,
    pub schedule: Vec<Choice>,
}

impl JobSpec {
    /// What each report of the job was searched with: a search's, or the lens's
    /// for each of its searches.
    fn search_of(&self, i: usize) -> Option<&Search> {
        match (self.searches.get(i), &self.lens) {
            (Some(s), _) => Some(s),
            (None, Some(l)) => Some(&l.search),
            (None, None) => None,
        }
    }
}

/// A job under way: `done` of `of` searches finished; `p` is the running one's
/// progress; `shrinking`: replays so far once the searches are done and what
/// they found depth first is being shrunk; `cutting`: (tries, ops cut) after
/// that, while the findings' ops are being cut.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Running {
    pub p: Progress,
    pub ms: f64,
    pub done: usize,
    pub of: usize,
    pub shrinking: Option<u32>,
    pub cutting: Option<(u32, u32)>,
}

/// Where a job stands after a slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Tick {
    Running(Running),
    /// Every search's report, and the time the searches took (not the shrinks or
    /// the cuts after them).
    Done {
        xs: Vec<Exploration>,
        ms: f64,
    },
}

/// The cut in progress: which finding, and its shrink.
struct Cutting {
    text: Rc<str>,
    sc: AnyScenario,
    o: Options,
    at: usize,
    now: Option<OpShrink>,
}

impl Cutting {
    /// Goes on with the cuts of `x`'s findings for about one slice's steps;
    /// true when every finding (up to [`MAX_CUTS`]) has its cut.
    fn run(&mut self, x: &mut Exploration, pace: &mut Pace, slice_ms: f64) -> bool {
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
                match OpShrink::new(&self.text, &self.sc, f, &self.o, budget) {
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
            if !pace.run(slice_ms, |n| s.run(n)) {
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

/// The shrinks of what the searches found depth first (see
/// `explore::wants_shrink`). The page's searches do not shrink in their reports
/// (a shrink may take thousands of replays, and a report is made in one go): the
/// job shrinks them after the searches, a replay at a time, with the CLI's
/// budget, so the page shows the schedule `flushscope explore` gives.
struct Shrinks {
    /// Each search's scenario and options (not the race lens's: its searches
    /// start where the run stands, and breadth first to the end).
    of: Vec<(AnyScenario, Options)>,
    /// The finding being shrunk: (search, violation).
    at: (usize, usize),
    now: Option<Shrinking>,
    /// Replays the finished shrinks took.
    replays: u32,
    /// Every finding that wants it is shrunk.
    over: bool,
}

impl Shrinks {
    fn of(of: Vec<(AnyScenario, Options)>) -> Shrinks {
        Shrinks {
            of,
            at: (0, 0),
            now: None,
            replays: 0,
            over: false,
        }
    }

    /// One replay (or a step to the next finding to shrink); true once every
    /// finding that wants it is shrunk.
    fn step(&mut self, out: &mut [Exploration]) -> bool {
        loop {
            let (i, j) = self.at;
            let (Some((sc, o)), Some(x)) = (self.of.get(i), out.get_mut(i)) else {
                self.over = true;
                return true;
            };
            let Some(f) = x.violations.get_mut(j) else {
                self.at = (i + 1, 0);
                continue;
            };
            let Some(s) = self.now.as_mut() else {
                if o.shrink || !wants_shrink(o, f) {
                    self.at.1 += 1;
                    continue;
                }
                // A schedule the search wrote always reads back; one that did
                // not would keep its length.
                self.now = sc.shrinking(f, SHRINK_REPLAYS).ok();
                self.at.1 += usize::from(self.now.is_none());
                return false;
            };
            if sc.shrink_step(s) {
                s.apply(f);
                self.replays += s.replays();
                self.now = None;
                self.at.1 += 1;
            }
            return false;
        }
    }

    /// Ends the shrinks where they stand (a cancel): the running one's finding
    /// gets the shortest schedule found so far, and it and every finding not yet
    /// shrunk that wants it are marked [`Found::shrink_stopped`], so the page
    /// does not call them shrunk.
    fn stop(&mut self, out: &mut [Exploration]) {
        let (i, mut j) = self.at;
        if let (Some(s), Some(x)) = (self.now.take(), out.get_mut(i)) {
            if let Some(f) = x.violations.get_mut(j) {
                s.apply(f);
            }
            j += 1;
        }
        if std::mem::replace(&mut self.over, true) {
            return;
        }
        for (k, ((_, o), x)) in self.of.iter().zip(out.iter_mut()).enumerate().skip(i) {
            let from = if k == i { j } else { 0 };
            for f in x.violations.iter_mut().skip(from) {
                f.shrink_stopped |= !o.shrink && wants_shrink(o, f);
            }
        }
    }

    /// Replays so far, once a shrink has started and until every one is over.
    fn progress(&self) -> Option<u32> {
        let now = self.now.as_ref().map(Shrinking::replays);
        (now.is_some() || (self.replays > 0 && !self.over)).then(|| self.replays + now.unwrap_or(0))
    }
}

/// A job under way.
pub struct Job {
    xs: Vec<Option<AnyExplorer>>,
    /// The last search that ended, its states not yet freed (see
    /// `Explorer::report`): freed when the next one ends, or with the job, once
    /// its report is on its way.
    spent: Option<AnyExplorer>,
    out: Vec<Exploration>,
    started: f64,
    /// When the last search ended (the cuts after it are not the search's time).
    searched: Option<f64>,
    shrinks: Shrinks,
    cut: Option<Cutting>,
    pace: Pace,
}

impl Job {
    fn of(xs: Vec<AnyExplorer>, of: Vec<(AnyScenario, Options)>) -> Job {
        Job {
            shrinks: Shrinks::of(of),
            xs: xs.into_iter().map(Some).collect(),
            spent: None,
            out: Vec::new(),
            started: now(),
            searched: None,
            cut: None,
            pace: Pace::new(),
        }
    }

    fn with_cut(
        xs: Vec<AnyExplorer>,
        of: Vec<(AnyScenario, Options)>,
        cut: Option<Cutting>,
    ) -> Job {
        Job {
            cut,
            ..Job::of(xs, of)
        }
    }

    /// The job of `spec`; `Err` when the lens's schedule cannot be replayed.
    pub fn new(spec: &JobSpec) -> Result<Job, String> {
        let cut = match (&spec.cut, &spec.searches[..]) {
            (Some(text), [s]) => Some(Cutting {
                text: text.clone(),
                sc: s.sc.clone(),
                o: s.o.clone(),
                at: 0,
                now: None,
            }),
            _ => None,
        };
        let mut xs: Vec<AnyExplorer> = spec
            .searches
            .iter()
            .map(|s| AnyExplorer::new(&s.sc, s.o.clone()))
            .collect();
        if let Some(l) = &spec.lens {
            let lens = AnyExplorer::lens_after(&l.search.sc, &l.schedule, &l.search.o)?;
            xs.extend(lens.into_iter().map(|(_, x)| x));
        }
        let of = spec
            .searches
            .iter()
            .map(|s| (s.sc.clone(), s.o.clone()))
            .collect();
        Ok(Job::with_cut(xs, of, cut))
    }

    /// Runs the searches in turn, then the shrinks, then the cuts, for about
    /// `ms`; says where the job stands.
    pub fn slice(&mut self, ms: f64) -> Tick {
        let t0 = now();
        let mut cut_done = false;
        while now() - t0 < ms {
            let i = self.out.len();
            let Some(x) = self.xs.get_mut(i).and_then(Option::as_mut) else {
                // Every search is done: shrink what they found depth first, a
                // replay at a time, then cut the findings' ops, a slice at a time.
                cut_done = self.shrinks.step(&mut self.out)
                    && match (&mut self.cut, &mut self.out[..]) {
                        (Some(c), [x]) => c.run(x, &mut self.pace, ms),
                        _ => true,
                    };
                if cut_done {
                    break;
                }
                continue;
            };
            if self.pace.run(ms, |n| x.run(n)) {
                self.out.push(x.report());
                // The last search's states go once its report is on its way; the
                // others' now (a job of many searches would hold them all).
                let x = self.xs[i].take();
                if self.out.len() == self.xs.len() {
                    self.spent = x;
                }
                if self.out.len() == self.xs.len() {
                    self.searched = Some(now());
                }
            }
        }
        self.tick(cut_done)
    }

    fn tick(&mut self, cut_done: bool) -> Tick {
        let ms = now() - self.started;
        match self.xs.get(self.out.len()).and_then(Option::as_ref) {
            None if cut_done => self.finished(),
            None => Tick::Running(Running {
                p: self
                    .out
                    .last()
                    .map(|x| Progress {
                        states: x.states,
                        depth: x.depth,
                        bytes: x.peak_bytes,
                        ..Progress::default()
                    })
                    .unwrap_or_default(),
                ms,
                done: self.out.len().saturating_sub(1),
                of: self.xs.len(),
                shrinking: self.shrinks.progress(),
                // The cut starts once the shrinks are over.
                cutting: match self.shrinks.over {
                    true => self.cut.as_ref().map(Cutting::progress),
                    false => None,
                },
            }),
            Some(x) => Tick::Running(Running {
                p: x.progress(),
                ms,
                done: self.out.len(),
                of: self.xs.len(),
                shrinking: None,
                cutting: None,
            }),
        }
    }

    /// Milliseconds since the job started.
    pub fn elapsed(&self) -> f64 {
        now() - self.started
    }

    fn finished(&mut self) -> Tick {
        Tick::Done {
            xs: std::mem::take(&mut self.out),
            ms: self.searched.unwrap_or_else(now) - self.started,
        }
    }

    /// Stops where it stands and reports what was covered (the searches after
    /// the running one are dropped).
    pub fn cancel(&mut self) -> Tick {
        let i = self.out.len();
        if let Some(mut x) = self.xs.get_mut(i).and_then(Option::take) {
            x.cancel();
            self.out.push(x.report());
            self.spent = Some(x);
            self.searched = Some(now());
            // What the searches found depth first is not shrunk.
            self.shrinks.stop(&mut self.out);
        } else {
            self.shrinks.stop(&mut self.out);
            if let (Some(c), [x]) = (&mut self.cut, &mut self.out[..]) {
                c.stop(x);
            }
        }
        self.finished()
    }
}

/// A search as it crosses to the worker: the scenario as the page built it
/// (`scenario_of`, then version, knobs and step limit as `build` sets them). Every
/// knob crosses set to what the scenario runs with; one left at its version's
/// preset is resolved to that same preset by the model, so the search is the same.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchWire {
    pub builtin: Option<String>,
    pub file: String,
    pub text: Option<String>,
    pub version: Option<String>,
    pub knobs: Vec<(String, String)>,
    pub max_steps: u32,
    pub o: Options,
}

impl SearchWire {
    pub fn of(s: &Search) -> SearchWire {
        let (builtin, file, text) = match &s.source {
            Source::Builtin(name) => (Some(name.clone()), String::new(), None),
            Source::Inline { file, text } => (None, file.clone(), Some(text.to_string())),
        };
        let h = s.sc.header();
        SearchWire {
            builtin,
            file,
            text,
            version: h.version.map(str::to_owned),
            knobs: s
                .sc
                .knobs()
                .iter()
                .map(|k| (k.key.to_owned(), k.current.to_owned()))
                .collect(),
            max_steps: h.max_steps,
            o: s.o.clone(),
        }
    }

    fn read(o: Obj) -> Read<SearchWire> {
        Ok(SearchWire {
            builtin: o.opt_str("builtin")?,
            file: o.str("file")?,
            text: o.opt_str("text")?,
            version: o.opt_str("version")?,
            knobs: each(o.arr("knobs")?, "knobs", |j| match j {
                Json::Arr(kv) if kv.len() == 2 => {
                    Ok((string(&kv[0], "knob")?, string(&kv[1], "setting")?))
                }
                other => Err(format!(
                    "a knob should be [key, setting], not {}",
                    other.describe()
                )),
            })?,
            max_steps: o.u32("max_steps")?,
            o: wire::options(o.obj("o")?)?,
        })
    }

    /// The search again, as the page had it (see `scenario_of` and `build`).
    pub fn search(self) -> Result<Search, String> {
        let source = match (self.builtin, self.text) {
            (Some(name), _) => Source::Builtin(name),
            (None, Some(text)) => Source::Inline {
                file: self.file,
                text: text.into(),
            },
            (None, None) => return Err("a search without a scenario".into()),
        };
        let mut sc = scenario_of(&source)?;
        if let Some(v) = &self.version {
            sc.set_version(v)?;
        }
        for (k, v) in &self.knobs {
            sc.set_knob(k, v)?;
        }
        sc.header_mut().max_steps = self.max_steps;
        Ok(Search {
            source,
            sc,
            o: self.o,
        })
    }
}

/// The race lens as it crosses to the worker: the scenario and options, and
/// the run's schedule to its cursor, each choice `[goroutine, case]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LensWire {
    pub search: SearchWire,
    pub schedule: Vec<[u32; 2]>,
}

impl LensWire {
    pub fn of(l: &Lens) -> LensWire {
        LensWire {
            search: SearchWire::of(&l.search),
            schedule: l.schedule.iter().map(|c| [c.g, c.alt]).collect(),
        }
    }

    fn read(o: Obj) -> Read<LensWire> {
        Ok(LensWire {
            search: SearchWire::read(o.obj("search")?)?,
            schedule: wire::schedule(o.arr("schedule")?)?,
        })
    }

    /// The lens again, as the page had it.
    pub fn lens(self) -> Result<Lens, String> {
        Ok(Lens {
            search: self.search.search()?,
            schedule: self
                .schedule
                .iter()
                .map(|&[g, alt]| Choice::new(g, alt))
                .collect(),
        })
    }
}

/// From the page to the worker.
#[derive(Debug, PartialEq, Serialize)]
pub enum ToWorker {
    Start {
        id: u32,
        searches: Vec<SearchWire>,
        cut: Option<String>,
        /// Boxed: most messages carry none.
        lens: Option<Box<LensWire>>,
    },
    /// Stop job `id`; `report`: send what it covered (a Cancel), else drop it.
    Stop { id: u32, report: bool },
    /// Import the log `text` (see [`import`]): infer its scenario, or replay it
    /// against the scenario `against` names (boxed: most messages carry none).
    Import {
        id: u32,
        text: String,
        against: Option<Box<SearchWire>>,
    },
}

/// From the worker to the page.
#[derive(Debug, PartialEq, Serialize)]
pub enum FromWorker {
    /// Where job `id` stands; `keys`: each finding's key, for `Tick::Done` (JSON
    /// leaves them out).
    Tick {
        id: u32,
        tick: Tick,
        keys: Vec<Vec<String>>,
    },
    /// The worker could not run job `id` (the page runs a search itself; an
    /// import says why it could not be read).
    Failed { id: u32, why: String },
    /// Import `id` has searched `done` versions of `of`.
    Reading { id: u32, done: u32, of: u32 },
    /// Import `id` is done.
    Imported { id: u32, view: Box<ImportView> },
    /// The worker could not load this module (its script says so): the page
    /// runs every search from then on.
    Broken { why: String },
    /// The worker has loaded its module (its script says so): a job handed over
    /// now starts at once.
    Ready {},
}

/// A serde enum as JSON: `{"Variant": {fields}}`.
fn one_field(j: &Json) -> Read<(&str, Obj<'_>)> {
    match j {
        Json::Obj(f) if f.len() == 1 => Ok((&f[0].0, Obj::of(&f[0].1, &f[0].0)?)),
        other => Err(format!(
            "should be an object with one field, not {}",
            other.describe()
        )),
    }
}

/// A message: a serde enum as JSON, parsed into `tree`.
fn tagged<'a>(text: &str, tree: &'a mut Option<Json>) -> Read<(&'a str, Obj<'a>)> {
    let t = tree.insert(core_json::parse(text, "message").map_err(|e| e.to_string())?);
    one_field(t).map_err(|e| format!("a message {e}"))
}

impl ToWorker {
    /// The job a message names, as far as it can be read (0: none): the page
    /// runs that job itself when the worker cannot.
    fn id_of(text: &str) -> u32 {
        let mut tree = None;
        tagged(text, &mut tree)
            .and_then(|(_, o)| o.u32("id"))
            .unwrap_or(0)
    }

    pub fn read(text: &str) -> Read<ToWorker> {
        let mut tree = None;
        let (tag, o) = tagged(text, &mut tree)?;
        match tag {
            "Start" => Ok(ToWorker::Start {
                id: o.u32("id")?,
                searches: each(o.arr("searches")?, "searches", |j| {
                    SearchWire::read(Obj::of(j, "a search")?)
                })?,
                cut: o.opt_str("cut")?,
                lens: match o.opt("lens") {
                    None | Some(Json::Null) => None,
                    Some(j) => Some(Box::new(LensWire::read(Obj::of(j, "lens")?)?)),
                },
            }),
            "Stop" => Ok(ToWorker::Stop {
                id: o.u32("id")?,
                report: o.bool("report")?,
            }),
            "Import" => Ok(ToWorker::Import {
                id: o.u32("id")?,
                text: o.str("text")?,
                against: match o.opt("against") {
                    None => None,
                    Some(j) => Some(Box::new(SearchWire::read(Obj::of(j, "against")?)?)),
                },
            }),
            other => Err(format!("no message \"{}\"", core_json::short(other))),
        }
    }
}

impl Tick {
    fn read(j: &Json) -> Read<Tick> {
        let (tag, o) = one_field(j)?;
        match tag {
            "Running" => Ok(Tick::Running(Running {
                p: wire::progress(o.obj("p")?)?,
                ms: o.f64("ms")?,
                done: o.u64("done")? as usize,
                of: o.u64("of")? as usize,
                shrinking: match o.opt("shrinking") {
                    None => None,
                    Some(j) => Some(wire::count(j).ok_or("\"shrinking\" holds a count")?),
                },
                cutting: match o.opt("cutting") {
                    None => None,
                    Some(Json::Arr(v)) if v.len() == 2 => {
                        let n = |j| wire::count(j).ok_or("\"cutting\" holds two counts");
                        Some((n(&v[0])?, n(&v[1])?))
                    }
                    Some(_) => return Err("\"cutting\" holds two counts".into()),
                },
            })),
            "Done" => Ok(Tick::Done {
                xs: each(o.arr("xs")?, "xs", |j| {
                    wire::exploration(Obj::of(j, "a report")?)
                })?,
                ms: o.f64("ms")?,
            }),
            other => Err(format!("no tick \"{}\"", core_json::short(other))),
        }
    }
}

impl FromWorker {
    pub fn read(text: &str) -> Read<FromWorker> {
        let mut tree = None;
        let (tag, o) = tagged(text, &mut tree)?;
        match tag {
            "Tick" => Ok(FromWorker::Tick {
                id: o.u32("id")?,
                tick: Tick::read(o.0.get("tick").ok_or("no field \"tick\"")?)?,
                keys: each(o.arr("keys")?, "keys", |j| match j {
                    Json::Arr(v) => each(v, "keys", |k| string(k, "key")),
                    other => Err(format!("should be an array, not {}", other.describe())),
                })?,
            }),
            "Failed" => Ok(FromWorker::Failed {
                id: o.u32("id")?,
                why: o.str("why")?,
            }),
            "Reading" => Ok(FromWorker::Reading {
                id: o.u32("id")?,
                done: o.u32("done")?,
                of: o.u32("of")?,
            }),
            "Imported" => Ok(FromWorker::Imported {
                id: o.u32("id")?,
                view: Box::new(ImportView::read(o.obj("view")?)?),
            }),
            "Broken" => Ok(FromWorker::Broken { why: o.str("why")? }),
            "Ready" => Ok(FromWorker::Ready {}),
            other => Err(format!("no message \"{}\"", core_json::short(other))),
        }
    }

    fn reading(id: u32, (done, of): (usize, usize)) -> FromWorker {
        let n = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        FromWorker::Reading {
            id,
            done: n(done),
            of: n(of),
        }
    }

    fn tick(id: u32, tick: Tick) -> FromWorker {
        let keys = match &tick {
            Tick::Done { xs, .. } => xs
                .iter()
                .map(|x| x.violations.iter().map(|f| f.key.clone()).collect())
                .collect(),
            Tick::Running(_) => Vec::new(),
        };
        FromWorker::Tick { id, tick, keys }
    }
}

/// Puts back what a report's JSON leaves out: each search's version, options and
/// findings' keys, and the collision bound exactly.
pub fn restore(xs: &mut [Exploration], keys: &[Vec<String>], spec: &JobSpec) {
    for (i, x) in xs.iter_mut().enumerate() {
        if let Some(s) = spec.search_of(i) {
            x.version = s.sc.header().version;
            x.proposed = s.sc.proposed();
            // As the search applied them: a lens's searches start after the
            // run's schedule and the choice each looks at, and none goes past
            // the scenario's step limit (`Options::applied`).
            let mut o = s.o.clone();
            if spec.searches.get(i).is_none() {
                if let Some(l) = &spec.lens {
                    o.from_depth = u32::try_from(l.schedule.len() + 1).unwrap_or(u32::MAX);
                }
            }
            o.max_steps = o.max_steps.min(o.steps_left(s.sc.header()));
            x.options = Some(o);
        }
        x.collision_bound = collision_bound(x.states);
        for (f, k) in x
            .violations
            .iter_mut()
            .zip(keys.get(i).into_iter().flatten())
        {
            f.key = k.clone();
        }
    }
}

/// What the worker runs: a search job, or a log's import (both boxed: they
/// differ in size, and one is held at a time).
enum Work {
    Explore(Box<Job>),
    Import(Box<import::Reading>),
}

/// What the worker holds: the work it runs, replies to send before its next
/// slice, and work that ended, freed once its report is on its way (the page
/// hears first).
#[derive(Default)]
struct State {
    job: Option<(u32, Work)>,
    outbox: VecDeque<String>,
    spent: Option<Work>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn json(m: &FromWorker) -> String {
    serde_json::to_string(m)
        .unwrap_or_else(|e| format!("{{\"Failed\":{{\"id\":0,\"why\":\"{e}\"}}}}"))
}

impl State {
    /// Runs `work` as job `id` from now on.
    fn start(&mut self, id: u32, work: Work) {
        self.spent = self.job.replace((id, work)).map(|(_, w)| w);
    }

    fn say(&mut self, m: &FromWorker) {
        self.outbox.push_back(json(m));
    }

    fn explore(
        &mut self,
        id: u32,
        searches: Vec<SearchWire>,
        cut: Option<String>,
        lens: Option<Box<LensWire>>,
    ) {
        let job = searches
            .into_iter()
            .map(SearchWire::search)
            .collect::<Result<_, _>>()
            .and_then(|searches| {
                Job::new(&JobSpec {
                    searches,
                    cut: cut.map(Rc::from),
                    lens: lens.map(|l| l.lens()).transpose()?,
                })
            });
        match job {
            Ok(job) => self.start(id, Work::Explore(Box::new(job))),
            Err(why) => self.say(&FromWorker::Failed { id, why }),
        }
    }

    fn import(&mut self, id: u32, text: String, against: Option<Box<SearchWire>>) {
        match import::Reading::new(text, against.map(|a| *a)) {
            Ok(r) => {
                self.say(&FromWorker::reading(id, r.progress()));
                self.start(id, Work::Import(Box::new(r)));
            }
            Err(why) => self.say(&FromWorker::Failed { id, why }),
        }
    }

    fn stop(&mut self, id: u32, report: bool) {
        if self.job.as_ref().is_none_or(|(j, _)| *j != id) {
            return;
        }
        if let Some((_, mut work)) = self.job.take() {
            if let (true, Work::Explore(job)) = (report, &mut work) {
                let tick = job.cancel();
                self.say(&FromWorker::tick(id, tick));
            }
            self.spent = Some(work);
        }
    }

    /// A slice of the running work, and what to tell the page.
    fn slice(&mut self) -> Option<FromWorker> {
        let (id, work) = self.job.as_mut()?;
        let id = *id;
        match work {
            Work::Explore(job) => {
                let tick = job.slice(WORKER_SLICE_MS);
                if let Tick::Done { .. } = tick {
                    self.spent = self.job.take().map(|(_, w)| w);
                }
                Some(FromWorker::tick(id, tick))
            }
            Work::Import(r) => match r.slice() {
                Ok(true) => Some(FromWorker::reading(id, r.progress())),
                Ok(false) => {
                    let Some((_, Work::Import(r))) = self.job.take() else {
                        return None;
                    };
                    Some(match r.finish() {
                        Ok(view) => FromWorker::Imported {
                            id,
                            view: Box::new(view),
                        },
                        Err(why) => FromWorker::Failed { id, why },
                    })
                }
                Err(why) => {
                    self.spent = self.job.take().map(|(_, w)| w);
                    Some(FromWorker::Failed { id, why })
                }
            },
        }
    }
}

/// In the worker: a message from the page (work to start, or to stop). A
/// message it cannot read, or a Stop for another job, leaves the running work
/// as it is.
pub fn message(data: &str) {
    STATE.with(|st| {
        let mut st = st.borrow_mut();
        match ToWorker::read(data) {
            Ok(ToWorker::Start {
                id,
                searches,
                cut,
                lens,
            }) => st.explore(id, searches, cut, lens),
            Ok(ToWorker::Import { id, text, against }) => st.import(id, text, against),
            Ok(ToWorker::Stop { id, report }) => st.stop(id, report),
            Err(e) => st.say(&FromWorker::Failed {
                id: ToWorker::id_of(data),
                why: format!("the worker could not read a message: {e}"),
            }),
        }
    });
}

/// In the worker: runs the work for a slice; what to send the page (`None`:
/// nothing to do until the next message).
pub fn slice() -> Option<String> {
    STATE.with(|st| {
        let mut st = st.borrow_mut();
        if let Some(reply) = st.outbox.pop_front() {
            return Some(reply);
        }
        // The last report went out with the slice before: now its states go.
        st.spent = None;
        st.slice().map(|m| json(&m))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flush_core::explore::{Found, Order, Stopped};
    use flush_core::OutcomeKind;

    /// A slow model's batches shrink until one takes a quarter of a slice at
    /// most (one step at worst), a fast one's grow back to the full batch.
    #[test]
    fn the_batches_follow_what_a_step_costs() {
        let mut p = Pace::new();
        assert_eq!(p.0, FIRST_TRANSITIONS);
        // A millisecond a step (10,000 actors), slices of 8 ms.
        for _ in 0..10 {
            p.took(p.0 as f64, 8.0);
        }
        assert_eq!(p.0, 2, "2 steps take 2 ms, a quarter of the slice");
        p.took(30.0, 8.0);
        p.took(30.0, 8.0);
        assert_eq!(p.0, 1, "never less than one step");
        // A microsecond a step.
        for _ in 0..20 {
            p.took(p.0 as f64 * 0.001, 8.0);
        }
        assert_eq!(p.0, SLICE_TRANSITIONS);
        // In between: no change.
        p.took(1.0, 8.0);
        assert_eq!(p.0, SLICE_TRANSITIONS);
    }

    /// A report crosses back equal to the one the page would have made, findings'
    /// keys and cuts included.
    #[test]
    fn a_report_crosses_back_unchanged() {
        let mut crossed = 0;
        for name in [
            "segment-not-found",
            "runner-creation-race",
            "inject-done-splice",
        ] {
            let Some(sc) = builtin::get(name) else {
                panic!("no built-in {name}")
            };
            let o = Options {
                all: true,
                shrink: false,
                ..Options::first(60, 200_000)
            };
            let mut x = AnyExplorer::new(&sc, o.clone());
            while !x.run(10_000) {}
            let mut x = x.finish();
            let text = builtin::text(name);
            if let (Some(text), Some(f)) = (text, x.violations.first()) {
                let budget = CutBudget {
                    per_try: 100_000,
                    states: 1_000_000,
                    tries: 50,
                    bytes: 64 << 20,
                };
                let mut cut = OpShrink::new(text, &sc, f, &o, budget).unwrap();
                while !cut.run(10_000) {}
                x.violations[0].cut = Some(cut.finish());
            }
            assert!(!x.violations.is_empty(), "{name} found nothing");
            let m = FromWorker::tick(
                3,
                Tick::Done {
                    xs: vec![x.clone()],
                    ms: 1.5,
                },
            );
            let back = FromWorker::read(&json(&m)).unwrap();
            let FromWorker::Tick {
                id: 3,
                tick: Tick::Done { mut xs, ms },
                keys,
            } = back
            else {
                panic!("not a done tick")
            };
            assert_eq!(ms, 1.5);
            let spec = JobSpec {
                searches: vec![Search {
                    source: Source::Builtin(name.into()),
                    sc: sc.clone(),
                    o: o.clone(),
                }],
                cut: None,
                lens: None,
            };
            restore(&mut xs, &keys, &spec);
            assert_eq!(xs, vec![x], "{name}");
            crossed += 1;
        }
        assert_eq!(crossed, 3);
    }

    /// Progress crosses too, with and without a cut under way.
    #[test]
    fn progress_crosses_back_unchanged() {
        for (shrinking, cutting) in [(None, None), (Some(7), None), (None, Some((4, 2)))] {
            let tick = Tick::Running(Running {
                p: Progress {
                    states: 5,
                    transitions: 9,
                    depth: 2,
                    frontier: 3,
                    bytes: 100,
                    violations: 1,
                },
                ms: 2.5,
                done: 1,
                of: 3,
                shrinking,
                cutting,
            });
            let back = FromWorker::read(&json(&FromWorker::tick(9, tick.clone()))).unwrap();
            let want = FromWorker::Tick {
                id: 9,
                tick,
                keys: Vec::new(),
            };
            assert_eq!(back, want);
        }
    }

    fn cut_of(skipped: Option<String>) -> flush_core::explore::Cut {
        flush_core::explore::Cut {
            ops: vec![flush_core::explore::OpLine {
                actor: "flowgraph".into(),
                index: 1,
                op: "insert segment=300".into(),
                cut: true,
            }],
            kept: 0,
            scenario: "{}".into(),
            schedule: "0,1".into(),
            steps: 2,
            tries: 3,
            refused: 1,
            states: 9,
            held: 2,
            complete: false,
            skipped: skipped.clone(),
            now: skipped
                .is_none()
                .then(|| "invariant x: segment 301".to_owned()),
        }
    }

    fn found(shrunk_from: Option<u32>, cut: Option<flush_core::explore::Cut>) -> Found {
        Found {
            kind: OutcomeKind::Deadlock,
            message: "all goroutines are asleep".into(),
            schedule: "0,1".into(),
            steps: 2,
            shrunk_from,
            // Both ways: a shrink stopped early or not, found after a
            // breadth-first search went on depth first or not.
            shrink_stopped: shrunk_from.is_some(),
            depth_first: shrunk_from.is_some(),
            key: "deadlock".into(),
            cut,
            // Both ways too: the CLI's link to the page, or none.
            link: shrunk_from.map(|_| "http://127.0.0.1:8080/#scenario=x&step=1".into()),
        }
    }

    /// A Start with every field set (a search, a cut, a lens) crosses unchanged.
    fn a_start_crosses(search: &Search) {
        let lens = Lens {
            search: search.clone(),
            schedule: vec![Choice::new(0, 0), Choice::new(3, 1)],
        };
        let m = ToWorker::Start {
            id: 2,
            searches: vec![SearchWire::of(search)],
            cut: Some("{}".into()),
            lens: Some(Box::new(LensWire::of(&lens))),
        };
        assert_eq!(
            ToWorker::read(&serde_json::to_string(&m).unwrap()).unwrap(),
            m
        );
    }

    /// A report with every optional field set.
    fn an_exploration(version: Option<&'static str>, o: Options) -> Exploration {
        Exploration {
            scenario: "segment-not-found".into(),
            version,
            proposed: Vec::new(),
            order: Order::Dfs,
            states: 12,
            transitions: 30,
            depth: 4,
            stopped: Stopped::MaxBytes,
            depth_cut: 2,
            scenario_step_limit: false,
            truncated: true,
            peak_bytes: 4096,
            needed_bytes: Some(5120),
            collision_bound: collision_bound(12),
            reduced: true,
            ids_merged: true,
            depth_first_from: Some(3),
            violations: vec![
                found(Some(5), Some(cut_of(Some("over 2,000 ops".into())))),
                found(None, Some(cut_of(None))),
                found(None, None),
            ],
            gave_way: Some("2 threads gave way".into()),
            budget_on_threads: Some(2),
            time_ms: Some(17),
            options: Some(o),
        }
    }

    /// Every field and variant a report or a search may carry crosses: a
    /// depth-first finding with its length before shrinking, a cut that was
    /// skipped, a time, a target, and each order, stop and kind.
    #[test]
    fn every_field_and_variant_crosses() {
        let sc = builtin::get("segment-not-found").unwrap();
        let o = Options {
            target: Some("panic:segment not found[segment=300]".into()),
            order: Order::Dfs,
            ..Options::first(30, 1000)
        };
        let search = Search {
            source: Source::Builtin("segment-not-found".into()),
            sc: sc.clone(),
            o: o.clone(),
        };
        a_start_crosses(&search);
        let spec = JobSpec {
            searches: vec![search],
            cut: None,
            lens: None,
        };
        let x = an_exploration(sc.header().version, o);
        let mut variants: Vec<_> = wire::ORDERS
            .map(|order| Exploration { order, ..x.clone() })
            .into();
        for (reduced, ids_merged) in [(false, true), (true, false)] {
            let flags = x.clone();
            variants.push(Exploration {
                reduced,
                ids_merged,
                depth_first_from: None,
                ..flags
            });
        }
        variants.extend(wire::STOPS.map(|stopped| Exploration {
            stopped,
            ..x.clone()
        }));
        for kind in wire::KINDS {
            let mut v = x.clone();
            v.violations[0].kind = kind;
            variants.push(v);
        }
        for v in variants {
            let m = FromWorker::tick(
                1,
                Tick::Done {
                    xs: vec![v.clone()],
                    ms: 0.5,
                },
            );
            let Ok(FromWorker::Tick {
                tick: Tick::Done { mut xs, .. },
                keys,
                ..
            }) = FromWorker::read(&json(&m))
            else {
                panic!("{v:?} did not cross")
            };
            restore(&mut xs, &keys, &spec);
            assert_eq!(xs, vec![v]);
        }
    }

    /// A message that is not what it should be says what is wrong, and where;
    /// the worker answers it with a failure, never a panic.
    #[test]
    fn a_bad_message_says_what_is_wrong() {
        for (text, want) in [
            ("", "empty"),
            ("[1]", "one field"),
            (
                r#"{"Start":{"id":1,"searches":[{"file":"x"}],"cut":null}}"#,
                "searches[0]: no field \"knobs\"",
            ),
            (
                r#"{"Stop":{"id":-1,"report":true}}"#,
                "\"id\" is not a whole number",
            ),
            (r#"{"Launch":{}}"#, "no message \"Launch\""),
        ] {
            let why = ToWorker::read(text).expect_err(text);
            assert!(why.contains(want), "{text}: {why}");
        }
        let why = FromWorker::read(
            r#"{"Tick":{"id":1,"tick":{"Done":{"xs":[{"scenario":"x"}],"ms":1}},"keys":[]}}"#,
        )
        .expect_err("a report without its fields");
        assert!(why.contains("xs[0]: no field \"order\""), "{why}");
        let why = FromWorker::read(r#"{"Tick":{"id":1,"tick":{"Running":{"p":{},"ms":0,"done":0,"of":1,"cutting":[1]}},"keys":[]}}"#)
            .expect_err("a progress without its fields");
        assert!(why.contains("no field \"states\""), "{why}");
        // A Start it cannot read is answered under its own id: the page runs that job.
        message(r#"{"Start":{"id":9,"searches":[{"file":"x"}],"cut":null}}"#);
        let reply = slice().expect("a reply");
        assert!(
            matches!(
                FromWorker::read(&reply),
                Ok(FromWorker::Failed { id: 9, .. })
            ),
            "{reply}"
        );
        message("{not json");
        let reply = slice().expect("a reply");
        match FromWorker::read(&reply) {
            Ok(FromWorker::Failed { why, .. }) => assert!(why.contains("could not read"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(slice(), None);
    }

    fn start(id: u32, name: &str, all: bool) -> String {
        let sc = builtin::get(name).unwrap();
        let s = Search {
            source: Source::Builtin(name.into()),
            sc,
            o: Options {
                all,
                shrink: false,
                ..Options::first(200, 5_000_000)
            },
        };
        serde_json::to_string(&ToWorker::Start {
            id,
            searches: vec![SearchWire::of(&s)],
            cut: None,
            lens: None,
        })
        .unwrap()
    }

    /// The race lens crosses as the run's schedule: the worker replays it and
    /// reports what the lens at the run's cursor reports, choice for choice; a
    /// schedule that cannot be replayed is refused, naming the step, and the
    /// job before it goes on.
    #[test]
    fn the_lens_runs_in_the_worker_as_at_the_cursor() {
        let name = "segment-not-found";
        let sc = builtin::get(name).unwrap();
        let mut run = sc.run(flush_core::Policy::Scripted {
            script: sc.header().schedule.clone().unwrap(),
            fallback_seed: 1,
        });
        run.run_to_end();
        let schedule = run.schedule();
        run.goto(3);
        let o = AnyExplorer::lens_options(8, 20_000);
        let want: Vec<Exploration> = AnyExplorer::lens(&run, 8, 20_000)
            .into_iter()
            .map(|(_, mut x)| {
                while !x.run(4096) {}
                x.finish()
            })
            .collect();
        assert!(want.len() >= 2 && want.iter().any(|x| !x.violations.is_empty()));
        let lens = Lens {
            search: Search {
                source: Source::Builtin(name.into()),
                sc: sc.clone(),
                o,
            },
            schedule: schedule[..3].to_vec(),
        };
        let start = |id, lens: &Lens| {
            serde_json::to_string(&ToWorker::Start {
                id,
                searches: Vec::new(),
                cut: None,
                lens: Some(Box::new(LensWire::of(lens))),
            })
            .unwrap()
        };
        message(&start(11, &lens));
        let (mut xs, keys) = loop {
            match FromWorker::read(&slice().expect("a reply")).unwrap() {
                FromWorker::Tick {
                    id: 11,
                    tick: Tick::Done { xs, .. },
                    keys,
                } => break (xs, keys),
                FromWorker::Tick { id: 11, .. } => {}
                other => panic!("{other:?}"),
            }
        };
        restore(
            &mut xs,
            &keys,
            &JobSpec {
                searches: Vec::new(),
                cut: None,
                lens: Some(lens.clone()),
            },
        );
        let strip = |v: &[Exploration]| {
            v.iter()
                .map(|x| Exploration {
                    time_ms: None,
                    ..x.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&xs), strip(&want));
        let bad = Lens {
            schedule: vec![Choice::new(0, 0), Choice::new(99, 0)],
            ..lens
        };
        message(&start(12, &bad));
        let reply = FromWorker::read(&slice().expect("a reply")).unwrap();
        let FromWorker::Failed { id: 12, why } = reply else {
            panic!("{reply:?}")
        };
        assert!(why.contains("step 2 (goroutine 99)"), "{why}");
        assert_eq!(slice(), None, "nothing else runs");
    }

    /// The worker's end of a job: an unreadable message and a Stop for another
    /// job leave it running; two Stops in a row give one report; a new Start
    /// replaces the job.
    #[test]
    fn the_running_job_survives_noise_and_a_double_cancel() {
        message(&start(5, "go-test-execute", true));
        let first = slice().expect("progress");
        assert!(
            matches!(
                FromWorker::read(&first),
                Ok(FromWorker::Tick {
                    id: 5,
                    tick: Tick::Running(_),
                    ..
                })
            ),
            "{first}"
        );
        message("{not json");
        message(r#"{"Stop":{"id":4,"report":true}}"#);
        let failed = slice().expect("the failure");
        assert!(
            matches!(
                FromWorker::read(&failed),
                Ok(FromWorker::Failed { id: 0, .. })
            ),
            "{failed}"
        );
        let going = slice().expect("still searching");
        assert!(
            matches!(
                FromWorker::read(&going),
                Ok(FromWorker::Tick {
                    id: 5,
                    tick: Tick::Running(_),
                    ..
                })
            ),
            "{going}"
        );
        message(r#"{"Stop":{"id":5,"report":true}}"#);
        message(r#"{"Stop":{"id":5,"report":true}}"#);
        let done = slice().expect("the report");
        match FromWorker::read(&done) {
            Ok(FromWorker::Tick {
                id: 5,
                tick: Tick::Done { xs, .. },
                ..
            }) => {
                assert_eq!(xs.len(), 1);
                assert_eq!(xs[0].stopped, flush_core::explore::Stopped::Cancelled);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(slice(), None, "one report, then nothing");
        // A new job replaces one still running, and runs to its end.
        message(&start(6, "go-test-execute", true));
        message(&start(7, "segment-not-found", false));
        let mut last = None;
        while let Some(m) = slice() {
            last = Some(m);
        }
        match FromWorker::read(&last.unwrap()) {
            Ok(FromWorker::Tick {
                id: 7,
                tick: Tick::Done { xs, .. },
                ..
            }) => {
                assert_eq!(xs[0].violations.len(), 1)
            }
            other => panic!("{other:?}"),
        }
    }

    /// Every built-in at every version with a search the page would run: breadth
    /// first, every violation, without shrinking in the report, under a budget
    /// that makes a search exhausting within 50,000 states go on depth first (half
    /// of it is three quarters of its peak).
    fn deep_searches() -> Vec<(String, Search)> {
        let mut out = Vec::new();
        for name in builtin::names() {
            let base = builtin::get(name).unwrap();
            let mut scs = vec![base.clone()];
            scs.extend(base.at_every_version());
            for sc in scs {
                let o = Options {
                    all: true,
                    shrink: false,
                    ..Options::exhaustive(200, 50_000)
                };
                let full = sc.explore_with(&o, &mut |_| true);
                if full.stopped != Stopped::Exhausted || full.violations.is_empty() {
                    continue;
                }
                let o = Options {
                    max_bytes: full.peak_bytes * 3 / 2,
                    ..o
                };
                let at = format!("{name} @ {:?}", sc.header().version);
                let source = Source::Builtin(name.to_owned());
                out.push((at, Search { source, sc, o }));
            }
        }
        out
    }

    fn run_job(s: &Search, mut cancel: impl FnMut(&Running) -> bool) -> Exploration {
        let spec = JobSpec {
            searches: vec![s.clone()],
            cut: None,
            lens: None,
        };
        let mut job = Job::new(&spec).unwrap();
        loop {
            let tick = match job.slice(0.05) {
                Tick::Running(r) if cancel(&r) => job.cancel(),
                t => t,
            };
            if let Tick::Done { mut xs, .. } = tick {
                return xs.remove(0);
            }
        }
    }

    /// What a page search finds depth first, the job shrinks after it, a replay
    /// at a time, to the schedule the CLI's search gives (it shrinks in its
    /// report); a cancel while it shrinks keeps the shortest schedule so far,
    /// which still shows the violation.
    #[test]
    fn the_job_shrinks_what_depth_first_found_as_the_cli_does() {
        let (mut deep, mut shrunk, mut cancelled) = (0, 0, 0);
        for (at, s) in deep_searches() {
            let x = run_job(&s, |_| false);
            let cli = s.sc.explore_with(
                &Options {
                    shrink: true,
                    ..s.o.clone()
                },
                &mut |_| true,
            );
            assert_eq!(x.violations, cli.violations, "{at}");
            assert_eq!(
                (x.states, x.depth_first_from),
                (cli.states, cli.depth_first_from),
                "{at}"
            );
            deep += x.violations.iter().filter(|f| f.depth_first).count();
            shrunk += x
                .violations
                .iter()
                .filter(|f| f.shrunk_from.is_some())
                .count();
            let mut seen = 0;
            let y = run_job(&s, |r| {
                seen += u32::from(r.shrinking.is_some());
                seen == 2
            });
            if seen < 2 {
                continue;
            }
            cancelled += 1;
            let mut stopped = 0;
            for (f, g) in y.violations.iter().zip(&x.violations) {
                let schedule = Choice::parse_list(&f.schedule).unwrap();
                let n = s.sc.reaches(&schedule, &f.key);
                assert_eq!(n, Some(schedule.len()), "{at}: {} {}", f.key, f.schedule);
                assert!(f.steps >= g.steps, "{at}: {}", f.key);
                // What the cancel left unshrunk or half shrunk says so; the
                // rest is what the whole job gives.
                match f.shrink_stopped {
                    true => assert!(f.depth_first, "{at}: {}", f.key),
                    false => assert_eq!(f, g, "{at}"),
                }
                stopped += usize::from(f.shrink_stopped);
            }
            assert!(stopped >= 1, "{at}: a cancelled shrink is marked");
        }
        for (at, s) in deep_searches() {
            let mut x = s.sc.explore_with(&s.o, &mut |_| true);
            let mut shrinks = Shrinks::of(vec![(s.sc.clone(), s.o.clone())]);
            shrinks.stop(std::slice::from_mut(&mut x));
            for f in &x.violations {
                // A cancel before the shrinks began leaves every depth-first
                // finding unshrunk, and marked.
                assert_eq!(f.shrink_stopped, f.depth_first, "{at}: {}", f.key);
            }
        }
        assert!(
            deep >= 3 && shrunk >= 2,
            "{deep} found depth first, {shrunk} shrunk"
        );
        assert!(cancelled >= 1, "no job was cancelled while it shrank");
    }
}
