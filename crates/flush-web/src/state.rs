//! The app's state and every transition of it (`reduce`). No DOM here: effects
//! (URL fragment, local storage, timers, downloads) live in `lib.rs` hooks.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use flush_core::sched::format_schedule;
use flush_core::{builtin, AnyRun, Choice, ModelKind, Policy, Scenario, Version};
use yew::Reducible;

use crate::stats::Stats;

/// The scenario shown by default: the #34018 story.
pub const DEFAULT_SCENARIO: &str = "segment-not-found";

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

/// Everything a view needs to be restored: what the permalink carries.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSpec {
    pub source: Source,
    pub version: Option<Version>,
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
            seed: None,
            mode: Mode::Scripted,
            schedule: None,
            step: 0,
        }
    }
}

pub struct AppState {
    pub run: Rc<RefCell<AnyRun>>,
    /// Bumped on every change of `run` (it is shared, so Yew cannot see inside).
    pub rev: u64,
    pub source: Source,
    pub mode: Mode,
    pub seed: u64,
    pub playing: bool,
    /// Steps per second while playing.
    pub speed: u32,
    pub error: Option<String>,
    /// A passing message (e.g. the permalink).
    pub notice: Option<String>,
    pub help: bool,
    pub stats: Rc<RefCell<Option<Rc<Stats>>>>,
}

impl PartialEq for AppState {
    fn eq(&self, o: &Self) -> bool {
        self.rev == o.rev
            && Rc::ptr_eq(&self.run, &o.run)
            && self.mode == o.mode
            && self.playing == o.playing
            && self.speed == o.speed
            && self.error == o.error
            && self.notice == o.notice
            && self.help == o.help
            && self.seed == o.seed
    }
}

pub enum Action {
    Load(ViewSpec),
    StepForward,
    StepBack,
    Goto(u32),
    ToEnd,
    Choose(Choice),
    Play(bool),
    Speed(u32),
    Error(String),
    DismissError,
    Notice(Option<String>),
    Help(bool),
}

/// Loads a scenario source into a checked scenario.
pub fn scenario_of(source: &Source) -> Result<Scenario, String> {
    match source {
        Source::Builtin(name) => builtin::get(name).ok_or_else(|| {
            format!(
                "There is no built-in scenario \"{name}\". Built-ins: {}.",
                builtin::names().join(", ")
            )
        }),
        Source::Inline { file, text } => Scenario::parse(text, file).map_err(|e| e.to_string()),
    }
}

/// Builds the run a view asks for, or says what is wrong.
pub fn build(spec: &ViewSpec) -> Result<(AnyRun, u64), String> {
    let mut sc = scenario_of(&spec.source)?;
    if let Some(v) = spec.version {
        if sc.model != ModelKind::Sync2024 {
            return Err(format!(
                "A version applies to sync-2024 scenarios; \"{}\" is {}.",
                sc.name,
                sc.model.as_str()
            ));
        }
        sc.version = Some(v);
    }
    let seed = spec.seed.unwrap_or(sc.seed);
    // The browser keeps the whole run; bound it so that a hostile file cannot freeze the page.
    sc.max_steps = sc.max_steps.min(1_000_000);
    let policy = match spec.mode {
        Mode::Seeded => Policy::Seeded(seed),
        Mode::Scripted => match &sc.schedule {
            Some(s) => Policy::Scripted {
                script: s.clone(),
                fallback_seed: seed,
            },
            None => Policy::Seeded(seed),
        },
        Mode::Manual => Policy::Manual,
    };
    let mut run = AnyRun::new(Arc::new(sc), policy);
    match spec.mode {
        Mode::Manual => {
            for (i, c) in spec.schedule.iter().flatten().enumerate() {
                run.advance_with(*c).map_err(|e| {
                    format!(
                        "The schedule's entry {} (goroutine {c}) cannot run at step {}: {e}.",
                        i + 1,
                        i + 1
                    )
                })?;
            }
        }
        _ => {
            run.run_to_end();
        }
    }
    if spec.step > run.len() {
        return Err(format!(
            "Step {} is past the end of this run ({} steps).",
            spec.step,
            run.len()
        ));
    }
    run.goto(spec.step);
    Ok((run, seed))
}

impl AppState {
    /// The state for a view, or the error that prevents it.
    pub fn from_spec(spec: &ViewSpec) -> Result<AppState, String> {
        let (run, seed) = build(spec)?;
        Ok(AppState {
            run: Rc::new(RefCell::new(run)),
            rev: 0,
            source: spec.source.clone(),
            mode: spec.mode,
            seed,
            playing: false,
            speed: 4,
            error: None,
            notice: None,
            help: false,
            stats: Rc::new(RefCell::new(None)),
        })
    }

    /// The default view with an error message on top (when the requested view is broken).
    pub fn fallback(error: String) -> AppState {
        let mut s =
            AppState::from_spec(&ViewSpec::default_view()).expect("the default view always loads");
        s.error = Some(error);
        s
    }

    /// The view this state shows, for the permalink.
    pub fn spec(&self) -> ViewSpec {
        let run = self.run.borrow();
        ViewSpec {
            source: self.source.clone(),
            version: run.scenario().version,
            seed: Some(self.seed),
            mode: self.mode,
            schedule: (self.mode == Mode::Manual).then(|| run.schedule()),
            step: run.cursor(),
        }
    }

    fn with(self: &Rc<Self>, f: impl FnOnce(&mut AppState)) -> Rc<AppState> {
        let mut next = AppState {
            run: self.run.clone(),
            rev: self.rev + 1,
            source: self.source.clone(),
            mode: self.mode,
            seed: self.seed,
            playing: self.playing,
            speed: self.speed,
            error: self.error.clone(),
            notice: self.notice.clone(),
            help: self.help,
            stats: self.stats.clone(),
        };
        f(&mut next);
        Rc::new(next)
    }

    /// The cached statistics of the whole run (for plots and the notify stream).
    pub fn stats(&self) -> Rc<Stats> {
        if let Some(s) = self.stats.borrow().as_ref() {
            if s.len == self.run.borrow().len() {
                return s.clone();
            }
        }
        let s = Rc::new(Stats::of(&self.run.borrow()));
        *self.stats.borrow_mut() = Some(s.clone());
        s
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Load(spec) => match AppState::from_spec(&spec) {
                Ok(mut s) => {
                    s.rev = self.rev + 1;
                    s.speed = self.speed;
                    Rc::new(s)
                }
                // The previous view stays; the message says what was wrong.
                Err(e) => self.with(|s| {
                    s.error = Some(format!("{e} The previous view is still loaded."));
                    s.playing = false;
                }),
            },
            Action::StepForward => {
                let moved = {
                    let mut run = self.run.borrow_mut();
                    let c = run.cursor();
                    if c < run.len() {
                        run.goto(c + 1);
                        true
                    } else {
                        false
                    }
                };
                self.with(|s| {
                    if !moved {
                        s.playing = false;
                    }
                })
            }
            Action::StepBack => {
                {
                    let mut run = self.run.borrow_mut();
                    let c = run.cursor();
                    run.goto(c.saturating_sub(1));
                }
                self.with(|s| s.playing = false)
            }
            Action::Goto(n) => {
                self.run.borrow_mut().goto(n);
                self.with(|_| {})
            }
            Action::ToEnd => {
                {
                    let mut run = self.run.borrow_mut();
                    let n = run.len();
                    run.goto(n);
                }
                self.with(|s| s.playing = false)
            }
            Action::Choose(c) => {
                let r = self.run.borrow_mut().advance_with(c);
                match r {
                    Ok(_) => self.with(|s| s.mode = Mode::Manual),
                    Err(e) => self
                        .with(|s| s.error = Some(format!("Goroutine {c} cannot run here: {e}."))),
                }
            }
            Action::Play(p) => self.with(|s| s.playing = p),
            Action::Speed(v) => self.with(|s| s.speed = v.clamp(1, 60)),
            Action::Error(e) => self.with(|s| {
                s.error = Some(e);
                s.playing = false;
            }),
            Action::DismissError => self.with(|s| s.error = None),
            Action::Notice(n) => self.with(|s| s.notice = n),
            Action::Help(h) => self.with(|s| s.help = h),
        }
    }
}

// ----- permalinks -----------------------------------------------------------

/// `scenario=NAME&version=V&mode=M&seed=S&step=N[&sched=..][&src=..]`
pub fn encode_fragment(spec: &ViewSpec) -> String {
    let mut parts = Vec::new();
    match &spec.source {
        Source::Builtin(name) => parts.push(format!("scenario={}", enc(name))),
        Source::Inline { file, text } => {
            parts.push(format!("scenario=inline&file={}", enc(file)));
            parts.push(format!("src={}", enc(text)));
        }
    }
    if let Some(v) = spec.version {
        parts.push(format!("version={}", v.as_str()));
    }
    parts.push(format!("mode={}", spec.mode.as_str()));
    if let Some(s) = spec.seed {
        parts.push(format!("seed={s}"));
    }
    if let Some(s) = &spec.schedule {
        parts.push(format!("sched={}", format_schedule(s)));
    }
    parts.push(format!("step={}", spec.step));
    parts.join("&")
}

/// Parses a fragment (without `#`), naming the first thing that is wrong.
pub fn decode_fragment(frag: &str) -> Result<ViewSpec, String> {
    let frag = frag.trim_start_matches('#');
    let mut spec = ViewSpec::default_view();
    let mut scenario = None;
    let mut file = None;
    let mut src = None;
    let mut mode_given = false;
    for pair in frag.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("URL fragment: \"{}\" is not key=value.", short(pair)))?;
        let v = dec(v).ok_or_else(|| {
            format!("URL fragment: the value of \"{k}\" is not valid percent-encoding.")
        })?;
        match k {
            "scenario" => scenario = Some(v),
            "file" => file = Some(v),
            "src" => src = Some(v),
            "version" => {
                spec.version = Some(Version::parse(&v).ok_or_else(|| {
                    format!(
                        "URL fragment: unknown version \"{}\" (known: {}).",
                        short(&v),
                        Version::list()
                    )
                })?)
            }
            "mode" => {
                spec.mode = Mode::parse(&v).ok_or_else(|| {
                    format!(
                        "URL fragment: mode \"{}\" is not seeded, scripted or manual.",
                        short(&v)
                    )
                })?;
                mode_given = true;
            }
            "seed" => {
                spec.seed = Some(v.parse().map_err(|_| {
                    format!("URL fragment: seed \"{}\" is not a number.", short(&v))
                })?)
            }
            "step" => {
                spec.step = v
                    .parse()
                    .map_err(|_| format!("URL fragment: step \"{}\" is not a number.", short(&v)))?
            }
            "sched" => {
                spec.schedule =
                    Some(Choice::parse_list(&v).map_err(|e| format!("URL fragment: sched: {e}."))?)
            }
            other => return Err(format!("URL fragment: unknown key \"{}\".", short(other))),
        }
    }
    match scenario.as_deref() {
        None => return Err("URL fragment: it names no scenario (scenario=...).".to_owned()),
        Some("inline") => {
            let text = src.ok_or("URL fragment: scenario=inline needs src=...")?;
            spec.source = Source::Inline {
                file: file.unwrap_or_else(|| "linked scenario".to_owned()),
                text: text.into(),
            };
        }
        Some(name) => spec.source = Source::Builtin(name.to_owned()),
    }
    if !mode_given && spec.schedule.is_some() {
        spec.mode = Mode::Manual;
    }
    Ok(spec)
}

fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_owned()
    }
}

fn enc(s: &str) -> String {
    js_sys::encode_uri_component(s).into()
}

fn dec(s: &str) -> Option<String> {
    if cfg!(target_arch = "wasm32") {
        js_sys::decode_uri_component(s).ok().map(String::from)
    } else {
        Some(s.to_owned())
    }
}
