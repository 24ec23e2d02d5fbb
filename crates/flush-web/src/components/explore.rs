//! The explorer in the page: searches every interleaving of the loaded scenario in
//! slices of a few milliseconds between frames (the page stays responsive and
//! Cancel answers within a slice), shows progress, then each violation with a
//! button that opens its schedule in the stepper.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::explore::{bytes_words, Exploration, Options, Progress};
use flush_core::{AnyExplorer, AnyScenario, Choice};
use gloo::timers::callback::Interval;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch, Mode, Source, ViewSpec};

/// Main-thread time one slice of the search may take (a frame is 16.7 ms).
const SLICE_MS: f64 = 8.0;
/// Model steps between two looks at the clock.
const SLICE_TRANSITIONS: u64 = 512;
/// What the page lets a search hold (the browser's memory is the user's).
const PAGE_MAX_BYTES: u64 = 256 << 20;
const PAGE_MAX_STATES: u64 = 50_000_000;
const PAGE_MAX_STEPS: u32 = 200;

#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Running { p: Progress, ms: f64 },
    Done { x: Rc<Exploration>, ms: f64 },
}

struct Job {
    x: Option<AnyExplorer>,
    started: f64,
}

#[derive(Properties)]
pub struct ExploreProps {
    pub scenario: AnyScenario,
    pub source: Source,
    pub version: Option<&'static str>,
    pub dispatch: Dispatch,
}

impl PartialEq for ExploreProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.source, self.version) == (&o.source, o.version)
    }
}

fn now() -> f64 {
    gloo::utils::window()
        .performance()
        .map(|p| p.now())
        .unwrap_or_default()
}

/// One slice: runs the search for about [`SLICE_MS`], then shows where it stands
/// (or its report, when done).
fn tick(job: &RefCell<Option<Job>>, status: &UseStateHandle<Status>) {
    let mut slot = job.borrow_mut();
    let Some(j) = slot.as_mut() else { return };
    let Some(x) = j.x.as_mut() else { return };
    let t0 = now();
    let mut done = false;
    while !done && now() - t0 < SLICE_MS {
        done = x.run(SLICE_TRANSITIONS);
    }
    let ms = now() - j.started;
    if done {
        if let Some(x) = j.x.take() {
            status.set(Status::Done {
                x: Rc::new(x.finish()),
                ms,
            });
        }
    } else {
        status.set(Status::Running {
            p: x.progress(),
            ms,
        });
    }
}

/// The search's state, and how to start (with "go on after the first
/// violation" or not) and cancel it.
struct ExploreHandle {
    status: UseStateHandle<Status>,
    start: Callback<bool>,
    cancel: Callback<MouseEvent>,
}

/// A search of `sc`, run in slices by a timer; dropped when the scenario or
/// version changes.
#[hook]
fn use_explorer(sc: AnyScenario, source: Source, version: Option<&'static str>) -> ExploreHandle {
    let status = use_state(|| Status::Idle);
    let job = use_mut_ref(|| None::<Job>);
    let timer = use_mut_ref(|| None::<Interval>);
    {
        let (job, timer, status) = (job.clone(), timer.clone(), status.clone());
        use_effect_with((source, version), move |_| {
            status.set(Status::Idle);
            move || {
                job.borrow_mut().take();
                timer.borrow_mut().take();
            }
        });
    }
    // The timer stops once the search is done (dropped here, never inside its own tick).
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
        Callback::from(move |all: bool| {
            let o = Options {
                max_bytes: PAGE_MAX_BYTES,
                all,
                shrink: false,
                ..Options::first(PAGE_MAX_STEPS, PAGE_MAX_STATES)
            };
            *job.borrow_mut() = Some(Job {
                x: Some(AnyExplorer::new(&sc, o)),
                started: now(),
            });
            status.set(Status::Running {
                p: Progress::default(),
                ms: 0.0,
            });
            let (job, status) = (job.clone(), status.clone());
            // The first slice at once (a small search is done before the next frame).
            tick(&job, &status);
            *timer.borrow_mut() = Some(Interval::new(0, move || tick(&job, &status)));
        })
    };
    // Cancel reports what was covered at once (the next tick finds no search).
    let cancel = {
        let (job, status) = (job.clone(), status.clone());
        Callback::from(move |_: MouseEvent| {
            let mut slot = job.borrow_mut();
            let Some(j) = slot.as_mut() else { return };
            if let Some(mut x) = j.x.take() {
                x.cancel();
                status.set(Status::Done {
                    x: Rc::new(x.finish()),
                    ms: now() - j.started,
                });
            }
        })
    };
    ExploreHandle {
        status,
        start,
        cancel,
    }
}

#[function_component(ExplorePanel)]
pub fn explore_panel(p: &ExploreProps) -> Html {
    let x = use_explorer(p.scenario.clone(), p.source.clone(), p.version);
    let all = use_state(|| false);
    let start = {
        let (start, all) = (x.start.clone(), all.clone());
        Callback::from(move |_: MouseEvent| start.emit(*all))
    };
    let on_all = {
        let all = all.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            all.set(input.checked());
        })
    };
    let running = matches!(*x.status, Status::Running { .. });
    html! {
        <section class="panel explore" id="explore" aria-labelledby="explore-title">
            <h3 id="explore-title">{"Explore every interleaving"}</h3>
            <div class="explore-controls">
                if running {
                    <button id="explore-cancel" onclick={x.cancel.clone()}>{"Cancel"}</button>
                } else {
                    <button id="explore-btn" class="primary" onclick={start}>{"Explore"}</button>
                }
                <label class="check">
                    <input type="checkbox" id="explore-all" checked={*all} disabled={running} onchange={on_all} />
                    {" go on after the first violation"}
                </label>
            </div>
            // Progress is not announced (it changes every frame); the result is.
            if let Status::Running { p: pr, ms } = &*x.status {
                {running_view(pr, *ms)}
            }
            <div class="explore-status" role="status">
                {status_view(&x.status, p)}
            </div>
        </section>
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
            <p class="muted">{"Searches breadth first for an invariant broken, a Go panic or a deadlock, and gives the shortest schedule to each."}</p>
        },
        Status::Running { .. } => html! { <p class="muted">{"Exploring…"}</p> },
        Status::Done { x, ms } => report_view(x, *ms, p),
    }
}

fn running_view(pr: &Progress, ms: f64) -> Html {
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
            <ol class="found">
                {for x.violations.iter().map(|f| {
                    let schedule = Choice::parse_list(&f.schedule).unwrap_or_default();
                    let spec = ViewSpec {
                        source: p.source.clone(),
                        version: p.version.map(str::to_owned),
                        seed: None,
                        mode: Mode::Manual,
                        schedule: Some(schedule),
                        step: 1,
                    };
                    let d = p.dispatch.clone();
                    let open = Callback::from(move |_: MouseEvent| d.dispatch(Action::Load(spec.clone())));
                    html! {
                        <li class={format!("found-{}", f.kind.as_str())}>
                            <strong>{f.kind.as_str()}</strong>{": "}{f.message.clone()}
                            <div class="found-schedule">
                                <span>{format!("shortest schedule, {} steps: ", f.steps)}<code>{f.schedule.clone()}</code></span>
                                <button class="link open-stepper" onclick={open}
                                        aria-label={format!("open this {}-step schedule in the stepper", f.steps)}>{"open in stepper"}</button>
                            </div>
                        </li>
                    }
                })}
            </ol>
        </div>
    }
}
