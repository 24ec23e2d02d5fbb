//! Lockstep: the run's schedule replayed under two Milvus versions side by side,
//! the first step where they part marked (where the versions' code paths differ).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use flush_core::report::{steps_words, TraceLine};
use flush_core::{AnyRun, LockstepRow, Lockstepping};
use gloo::timers::callback::Interval;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch};

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
    /// The version compared with, as the view has it (the permalink's `vs=`):
    /// set, the comparison is made (again when the schedule changes).
    pub compare: Option<&'static str>,
    pub dispatch: Dispatch,
}

impl PartialEq for LockstepProps {
    fn eq(&self, o: &Self) -> bool {
        (self.rev, self.version, self.seed, self.compare) == (o.rev, o.version, o.seed, o.compare)
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

/// A comparison under way, with the two versions' names.
type Job = Rc<RefCell<Option<(Lockstepping, String, String)>>>;

/// What a comparison needs across renders.
#[derive(Clone)]
struct Comparison {
    shown: UseStateHandle<Shown>,
    job: Job,
    timer: Rc<RefCell<Option<Interval>>>,
    /// Compare, where the focus goes when Cancel, focused, goes.
    compare: NodeRef,
    cancel_focused: Rc<Cell<bool>>,
}

/// The comparison shown and the one under way: dropped when the run's
/// schedule (`key`) or the version changes, and once done or cancelled (its timer in an effect, never
/// inside its own tick). The focus on Cancel, which goes with it, moves to
/// Compare.
#[hook]
fn use_comparison(key: u64, version: Option<&'static str>) -> Comparison {
    let c = Comparison {
        shown: use_state(|| Shown::Nothing),
        job: use_mut_ref(|| None),
        timer: use_mut_ref(|| None),
        compare: use_node_ref(),
        cancel_focused: (*use_state(|| Rc::new(Cell::new(false)))).clone(),
    };
    {
        let (shown, job) = (c.shown.clone(), c.job.clone());
        use_effect_with((key, version), move |_| {
            job.borrow_mut().take();
            shown.set(Shown::Nothing)
        });
    }
    let comparing = matches!(*c.shown, Shown::Comparing(_));
    let c2 = c.clone();
    use_effect_with(comparing, move |&comparing| {
        if !comparing {
            c2.job.borrow_mut().take();
            c2.timer.borrow_mut().take();
            if c2.cancel_focused.replace(false) {
                if let Some(b) = c2.compare.cast::<web_sys::HtmlElement>() {
                    let o = web_sys::FocusOptions::new();
                    o.set_prevent_scroll(true);
                    let _ = b.focus_with_options(&o);
                }
            }
        }
    });
    c
}

impl Comparison {
    /// Compares `run`'s schedule under `here` and `pick`, a slice a frame.
    fn start(&self, run: &AnyRun, here: &'static str, pick: &str, seed: u64) {
        let sc = run.scenario();
        match sc.lockstep_start(&run.schedule(), here, pick, seed, LOCKSTEP_MAX_STEPS) {
            Ok(l) => {
                let names = (
                    super::version_name(&sc, here),
                    super::version_name(&sc, pick),
                );
                *self.job.borrow_mut() = Some((l, names.0, names.1));
                self.shown.set(Shown::Comparing([0, 0]));
                let (job, shown) = (self.job.clone(), self.shown.clone());
                *self.timer.borrow_mut() = Some(Interval::new(0, move || tick(&job, &shown)));
            }
            Err(e) => self.shown.set(Shown::Error(e)),
        }
    }

    /// Cancel, and whether the focus is on it: the view compares with no
    /// version any more.
    fn cancel(&self, d: &Dispatch) -> Html {
        let d = d.clone();
        let (on, off) = (self.cancel_focused.clone(), self.cancel_focused.clone());
        html! {
            <button id="lockstep-cancel" onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::Compare(None)))}
                onfocus={Callback::from(move |_: FocusEvent| on.set(true))}
                onblur={Callback::from(move |_: FocusEvent| off.set(false))}>{"Cancel"}</button>
        }
    }
}

/// Clear: the view compares with no version (the link drops `vs=`); the
/// focus, on Clear as it goes, moves to Compare.
fn clear(d: &Dispatch, compare: &NodeRef) -> Callback<MouseEvent> {
    let (d, compare) = (d.clone(), compare.clone());
    Callback::from(move |_: MouseEvent| {
        d.dispatch(Action::Compare(None));
        if let Some(b) = compare.cast::<web_sys::HtmlElement>() {
            let _ = b.focus();
        }
    })
}

/// What a comparison depends on: the run's schedule, not its cursor (a step
/// bumps `rev`, and dropped a comparison of seconds at each arrow key, found
/// by a review). Hashed only where Lockstep shows (`none`: no other
/// version): a run of 100,000 steps would pay for it at every step.
fn schedule_key(p: &LockstepProps, run: &AnyRun, none: bool) -> u64 {
    if none {
        return 0;
    }
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (Rc::as_ptr(&p.run) as usize, run.schedule(), p.seed).hash(&mut h);
    h.finish()
}

/// The view compares with a version (a link, or Compare): made whenever the
/// schedule (`key`) or a version changes; none, nothing shown (Cancel).
#[hook]
fn use_made(c: &Comparison, p: &LockstepProps, key: u64, compare: Option<&'static str>) {
    let (c, run, here, seed) = (c.clone(), p.run.clone(), p.version, p.seed);
    use_effect_with((key, here, compare), move |&(_, here, compare)| {
        match (here, compare) {
            (Some(here), Some(pick)) => c.start(&run.borrow(), here, pick, seed),
            _ => {
                // The job goes now: a tick before the effect that drops the
                // timer would show its progress again (Cancel undone, found
                // with the CPU slowed).
                c.job.borrow_mut().take();
                c.shown.set(Shown::Nothing)
            }
        }
    });
}

/// Compare sets the version the view compares with (see [`use_made`]); the
/// same one again, it is made again.
fn on_compare(
    c: &Comparison,
    p: &LockstepProps,
    here: &'static str,
    pick: Option<&'static str>,
    compare: Option<&'static str>,
) -> Callback<MouseEvent> {
    let (c, run, d, seed) = (c.clone(), p.run.clone(), p.dispatch.clone(), p.seed);
    Callback::from(move |_: MouseEvent| match pick {
        Some(v) if compare == Some(v) => c.start(&run.borrow(), here, v, seed),
        v => d.dispatch(Action::Compare(v)),
    })
}

/// The version picked by hand, if any. It goes with the comparison the view
/// has (Back to a link with another `vs=` showed the old pick); when that
/// ends (Cancel, Clear), the version it compared stays picked (found by an
/// attack: the first was, and Enter on Compare compared that).
#[hook]
fn use_picked(compare: Option<&'static str>) -> UseStateHandle<Option<String>> {
    let other = use_state(|| None::<String>);
    let picked = other.clone();
    let last = use_mut_ref(|| None::<&'static str>);
    use_effect_with(compare, move |&compare| {
        match (compare, last.replace(compare)) {
            (Some(_), _) => picked.set(None),
            (None, Some(was)) => picked.set(Some(was.to_owned())),
            (None, None) => {}
        }
    });
    other
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
    let key = schedule_key(p, &run, others.is_empty());
    let c = use_comparison(key, p.version);
    let compare = p.compare.filter(|v| others.contains(v));
    use_made(&c, p, key, compare);
    let other = use_picked(compare);
    let pick = (*other)
        .clone()
        .filter(|o| others.contains(&o.as_str()))
        .or(compare.map(str::to_owned))
        .or(others.first().map(|v| (*v).to_owned()))
        .unwrap_or_default();
    // Every hook before the return below.
    let pick_shows = super::controls::use_select_shows(pick.clone());
    let Some(here) = p.version.filter(|_| !others.is_empty()) else {
        return html! {};
    };
    let sc = run.scenario();
    let name = |v: &str| super::version_name(&sc, v);
    let on_compare = on_compare(
        &c,
        p,
        here,
        others.iter().copied().find(|v| *v == pick),
        compare,
    );
    let on_pick = {
        let other = other.clone();
        Callback::from(move |e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            other.set(Some(s.value()));
        })
    };
    let shown = &c.shown;
    html! {
        <section class="panel lockstep" id="lockstep" aria-labelledby="lockstep-title">
            <h3 id="lockstep-title">{"Lockstep: this schedule under another version"}</h3>
            <div class="lockstep-controls">
                <label>{format!("{} against ", name(here))}
                    // Keyed by its options: a select kept across new options
                    // showed one version and compared another.
                    <select id="lockstep-version" key={others.join(" ")} ref={pick_shows} onchange={on_pick} aria-label={format!("version to compare {here} with")}>
                        {for others.iter().map(|v| html! { <option value={*v} selected={*v == pick}>{*v}</option> })}
                    </select>
                </label>
                <button id="lockstep-btn" ref={c.compare.clone()} onclick={on_compare}>{"Compare"}</button>
                if matches!(**shown, Shown::Comparing(_)) { {c.cancel(&p.dispatch)} }
                // A comparison made stays (and in the link) until cleared.
                if matches!(**shown, Shown::Rows { .. } | Shown::Error(_)) {
                    <button id="lockstep-clear" onclick={clear(&p.dispatch, &c.compare)}>{"Clear"}</button>
                }
            </div>
            // Only a sentence is announced, not the whole table.
            <p class="sr-only" role="status">{summary(shown)}</p>
            <div>
                {match &**shown {
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

/// Where the runs part, in words: `the same 5 steps, then step 6 parts`.
fn parts_words(same: usize, step: u32) -> String {
    match same {
        0 => format!("step {step}, the first, parts"),
        n => format!("the same {}, then step {step} parts", steps_words(n as u64)),
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// What a screen reader hears when a comparison is shown.
fn summary(shown: &Shown) -> String {
    match shown {
        Shown::Nothing => String::new(),
        // Once, not at every slice's count.
        Shown::Comparing(_) => "Replaying the schedule under both versions…".to_owned(),
        Shown::Error(e) => e.clone(),
        Shown::Rows { other, rows, .. } => match rows.iter().position(|r| !r.same) {
            None => format!(
                "Against {other}: both versions take the same {}.",
                steps_words(rows.len() as u64)
            ),
            Some(first) => format!(
                "Against {other}: {}; the table below shows both runs.",
                parts_words(first, rows[first].step)
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
            <p id="lockstep-same" class="v-ok">{format!("Both versions take the same {}: this schedule does not tell them apart.", steps_words(rows.len() as u64))}</p>
        };
    };
    let from = first.saturating_sub(CONTEXT_BEFORE);
    let to = (first + SHOWN_AFTER).min(rows.len());
    html! {
        <>
            <p id="lockstep-first" data-step={rows[first].step.to_string()}>
                {format!("{}: ", upper_first(&parts_words(first, rows[first].step)))}
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
            if to < rows.len() { <p class="muted">{format!("{} more not shown.", steps_words((rows.len() - to) as u64))}</p> }
        </>
    }
}
