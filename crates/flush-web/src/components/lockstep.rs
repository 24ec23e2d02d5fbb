//! Lockstep: the run's schedule replayed under two Milvus versions side by side,
//! the first step where they part marked (where the versions' code paths differ).

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::report::TraceLine;
use flush_core::{AnyRun, LockstepRow, Lockstepping};
use gloo::timers::callback::Interval;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Steps each replay may take in the page.
const LOCKSTEP_MAX_STEPS: u32 = 100_000;
/// Time the replays take between two frames: a run of thousands of segments
/// takes seconds (one of 2,000 held the page 24 s in one go).
const SLICE_MS: f64 = 8.0;
/// Steps of each run between two looks at the clock.
const STEPS_PER_LOOK: u32 = 4;
/// Identical steps shown before the first difference, and steps shown after it.
const CONTEXT_BEFORE: usize = 3;
const SHOWN_AFTER: usize = 12;

#[derive(Properties)]
pub struct LockstepProps {
    pub run: Rc<RefCell<AnyRun>>,
    pub rev: u64,
    pub version: Option<&'static str>,
    pub seed: u64,
}

impl PartialEq for LockstepProps {
    fn eq(&self, o: &Self) -> bool {
        (self.rev, self.version, self.seed) == (o.rev, o.version, o.seed)
            && Rc::ptr_eq(&self.run, &o.run)
    }
}

#[derive(Clone, PartialEq)]
enum Shown {
    Nothing,
    /// Replaying, a slice a frame: the steps each run has taken so far.
    Comparing([u32; 2]),
    Rows {
        /// The two versions as named (see [`super::version_name`]).
        here: String,
        other: String,
        rows: Rc<Vec<LockstepRow>>,
    },
    Error(String),
}

#[function_component(Lockstep)]
pub fn lockstep(p: &LockstepProps) -> Html {
    let run = p.run.borrow();
    let versions = run.scenario().versions();
    let others: Vec<&'static str> = versions
        .iter()
        .map(|v| v.id)
        .filter(|v| Some(*v) != p.version)
        .collect();
    let other = use_state(|| None::<String>);
    let shown = use_state(|| Shown::Nothing);
    // The comparison under way (with the two versions' names) and its timer.
    let job = use_mut_ref(|| None::<(Lockstepping, String, String)>);
    let timer = use_mut_ref(|| None::<Interval>);
    {
        let shown = shown.clone();
        use_effect_with((p.rev, p.version), move |_| shown.set(Shown::Nothing));
    }
    {
        // Done, cancelled or dropped: the replays and the timer go, in an
        // effect (never inside the timer's own tick).
        let (job, timer) = (job.clone(), timer.clone());
        let comparing = matches!(*shown, Shown::Comparing(_));
        use_effect_with(comparing, move |&comparing| {
            if !comparing {
                job.borrow_mut().take();
                timer.borrow_mut().take();
            }
        });
    }
    let Some(here) = p.version.filter(|_| !others.is_empty()) else {
        return html! {};
    };
    let sc = run.scenario();
    let name = |v: &str| super::version_name(&sc, v);
    let pick = (*other)
        .clone()
        .filter(|o| others.contains(&o.as_str()))
        .unwrap_or_else(|| others[0].to_owned());
    let on_pick = {
        let other = other.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            other.set(Some(s.value()));
        })
    };
    let compare = {
        let (shown, run, pick, seed) = (shown.clone(), p.run.clone(), pick.clone(), p.seed);
        let (job, timer) = (job.clone(), timer.clone());
        Callback::from(move |_: MouseEvent| {
            let r = run.borrow();
            let sc = r.scenario();
            match sc.lockstep_start(&r.schedule(), here, &pick, seed, LOCKSTEP_MAX_STEPS) {
                Ok(l) => {
                    let names = (
                        super::version_name(&sc, here),
                        super::version_name(&sc, &pick),
                    );
                    *job.borrow_mut() = Some((l, names.0, names.1));
                    shown.set(Shown::Comparing([0, 0]));
                    let (job, shown) = (job.clone(), shown.clone());
                    *timer.borrow_mut() = Some(Interval::new(0, move || tick(&job, &shown)));
                }
                Err(e) => shown.set(Shown::Error(e)),
            }
        })
    };
    let cancel = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| shown.set(Shown::Nothing))
    };
    html! {
        <section class="panel lockstep" id="lockstep" aria-labelledby="lockstep-title">
            <h3 id="lockstep-title">{"Lockstep: this schedule under another version"}</h3>
            <div class="lockstep-controls">
                <label>{format!("{} against ", name(here))}
                    // Keyed by its options: a select kept across new options
                    // showed one version and compared another.
                    <select id="lockstep-version" key={others.join(" ")} onchange={on_pick} aria-label={format!("version to compare {here} with")}>
                        {for others.iter().map(|v| html! { <option value={*v} selected={*v == pick}>{*v}</option> })}
                    </select>
                </label>
                <button id="lockstep-btn" onclick={compare}>{"Compare"}</button>
                if matches!(*shown, Shown::Comparing(_)) {
                    <button id="lockstep-cancel" onclick={cancel}>{"Cancel"}</button>
                }
            </div>
            // Only a sentence is announced, not the whole table.
            <p class="sr-only" role="status">{summary(&shown)}</p>
            <div>
                {match &*shown {
                    Shown::Nothing => html! {},
                    Shown::Comparing([a, b]) => html! {
                        <p id="lockstep-progress" class="muted">{format!("Replaying the schedule under both versions: {a} and {b} steps so far…")}</p>
                    },
                    Shown::Error(e) => html! { <p class="callout error">{e.clone()}</p> },
                    Shown::Rows { here, other, rows } => table(here, other, rows),
                }}
            </div>
        </section>
    }
}

/// The comparison's slice for this frame: both runs stepped for about
/// [`SLICE_MS`], then the rows once both have ended.
fn tick(job: &RefCell<Option<(Lockstepping, String, String)>>, shown: &UseStateHandle<Shown>) {
    let mut j = job.borrow_mut();
    let Some((l, ..)) = j.as_mut() else {
        return;
    };
    let t0 = now();
    loop {
        if l.advance(STEPS_PER_LOOK) {
            // The timer goes in the effect that sees the rows.
            if let Some((l, here, other)) = j.take() {
                shown.set(Shown::Rows {
                    here,
                    other,
                    rows: Rc::new(l.rows()),
                });
            }
            return;
        }
        if now() - t0 >= SLICE_MS {
            shown.set(Shown::Comparing(l.steps()));
            return;
        }
    }
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// What a screen reader hears when a comparison is shown.
fn summary(shown: &Shown) -> String {
    match shown {
        Shown::Nothing => String::new(),
        // Once, not at every slice's count.
        Shown::Comparing(_) => "Replaying the schedule under both versions…".to_owned(),
        Shown::Error(e) => e.clone(),
        Shown::Rows { other, rows, .. } => match rows.iter().position(|r| !r.same) {
            None => format!("Against {other}: both versions take the same {} steps.", rows.len()),
            Some(first) => format!(
                "Against {other}: the same {first} steps, then step {} parts; the table below shows both runs.",
                rows[first].step
            ),
        },
    }
}

fn cell(l: Option<&TraceLine>) -> Html {
    match l {
        Some(l) => html! {
            <td><div class="who"><span class="gid">{format!("g{}", l.goroutine)}</span>{" "}{l.name.clone()}</div>
                <code>{l.go.to_string()}</code><div>{l.event.clone()}</div></td>
        },
        None => html! { <td class="muted">{"(the run has ended)"}</td> },
    }
}

fn table(here: &str, other: &str, rows: &[LockstepRow]) -> Html {
    let Some(first) = rows.iter().position(|r| !r.same) else {
        return html! {
            <p id="lockstep-same" class="v-ok">{format!("Both versions take the same {} steps: this schedule does not tell them apart.", rows.len())}</p>
        };
    };
    let from = first.saturating_sub(CONTEXT_BEFORE);
    let to = (first + SHOWN_AFTER).min(rows.len());
    html! {
        <>
            <p id="lockstep-first" data-step={rows[first].step.to_string()}>
                {format!("The same {first} steps, then step {} parts: ", rows[first].step)}
                <code>{rows[first].a.as_ref().or(rows[first].b.as_ref()).map(|l| l.go.to_string()).unwrap_or_default()}</code>
            </p>
            <div class="table-scroll" tabindex="0" role="region" aria-label="the two runs side by side">
                <table>
                    <thead><tr><th scope="col">{"step"}</th><th scope="col">{here.to_owned()}</th><th scope="col">{other.to_owned()}</th></tr></thead>
                    <tbody>
                        {for rows[from..to].iter().map(|r| html! {
                            <tr class={classes!((r.step as usize == first + 1).then_some("diverge"), (!r.same).then_some("differs"))}
                                data-step={r.step.to_string()}>
                                <th scope="row">{r.step}
                                    // Not by colour alone: the row says how it differs.
                                    if r.step as usize == first + 1 { <span class="row-mark">{" parts here"}</span> }
                                    else if !r.same { <span class="row-mark">{" differs"}</span> }
                                </th>{cell(r.a.as_ref())}{cell(r.b.as_ref())}
                            </tr>
                        })}
                    </tbody>
                </table>
            </div>
            if to < rows.len() { <p class="muted">{format!("{} more steps not shown.", rows.len() - to)}</p> }
        </>
    }
}
