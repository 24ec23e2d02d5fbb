//! "Data races": those of the whole run (the core's vector clocks and state
//! check), each with its two steps one click away, and those between the steps
//! runnable at the cursor, each side with its goroutine, the Go line and
//! statement, and the locks held, side by side, one click from running it.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::engine::Access;
use flush_core::explore::{RaceSide, RunRace, RunRaces};
use flush_core::AnyRun;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch};

/// Above this many runnable goroutines the check is not run (each is stepped on a
/// copy of the world), so a large scenario keeps stepping fast.
pub const MAX_RUNNABLE: usize = 200;

#[derive(Properties)]
pub struct RacesProps {
    pub run: Rc<RefCell<AnyRun>>,
    /// Bumped on every change of `run`.
    pub rev: u64,
    pub cursor: u32,
    pub dispatch: Dispatch,
    /// The check is on (the app keeps it: the step panel and scrubber mark races too).
    pub on: UseStateHandle<bool>,
    /// The whole run's races, while on.
    pub in_run: Option<Rc<RunRaces>>,
}

impl PartialEq for RacesProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.run, &o.run)
            && (self.rev, self.cursor) == (o.rev, o.cursor)
            && self.dispatch == o.dispatch
            && *self.on == *o.on
            && self.in_run == o.in_run
    }
}

/// What the check says at the cursor.
#[derive(Clone, PartialEq)]
enum Here {
    Off,
    /// The model declares no footprints.
    Unknown,
    TooMany(usize),
    Races(Rc<Vec<[RaceSide; 2]>>),
}

#[function_component(RacesHere)]
pub fn races_here(p: &RacesProps) -> Html {
    let on = p.on.clone();
    let here = {
        let run = p.run.clone();
        use_memo((p.rev, p.cursor, *on), move |&(_, _, on)| {
            let r = run.borrow();
            let runnable = r.runnable_here().len();
            if !on {
                Here::Off
            } else if runnable > MAX_RUNNABLE {
                Here::TooMany(runnable)
            } else {
                r.races_here()
                    .map_or(Here::Unknown, |v| Here::Races(Rc::new(v)))
            }
        })
    };
    let toggle = {
        let on = on.clone();
        Callback::from(move |e: Event| {
            on.set(e.target_unchecked_into::<HtmlInputElement>().checked())
        })
    };
    html! {
        <section class="panel races" id="races-here" aria-labelledby="races-title">
            <h3 id="races-title">{"Data races"}</h3>
            <label class="check">
                <input type="checkbox" id="races-on" checked={*on} onchange={toggle} />
                {" look for unordered accesses to one shared field, in this run and at this step"}
            </label>
            if let Some(r) = &p.in_run { {in_run(r, p.cursor, &p.dispatch)} }
            <div id="races-at-step">
            if *on { <h4 class="races-sub">{"At this step"}</h4> }
            {match &*here {
                Here::Off => html! {},
                Here::Unknown => html! { <p class="muted">{"This model declares no footprints: nothing to check."}</p> },
                Here::TooMany(n) => html! {
                    <p class="muted">{format!("{n} goroutines are runnable here: the check runs at {MAX_RUNNABLE} or fewer.")}</p>
                },
                Here::Races(list) if list.is_empty() => html! {
                    <p id="races-none" class="muted">{"No two steps runnable here race."}</p>
                },
                Here::Races(list) => html! {
                    <>
                        <ul class="race-list">{for list.iter().map(|pair| race(pair, &p.dispatch))}</ul>
                        // The racing goroutines' boxes on the lanes get a thick outline.
                        <style>{lane_marks(list)}</style>
                    </>
                },
            }}
            </div>
        </section>
    }
}

/// CSS that outlines, on the lanes, the runner boxes and handler slots of the
/// racing goroutines (the view marks each with `data-g`).
fn lane_marks(list: &[[RaceSide; 2]]) -> String {
    marks(list.iter().flatten().map(|s| s.choice.g))
}

/// CSS that outlines the runner boxes and handler slots of goroutines `gs`.
fn marks(gs: impl Iterator<Item = u32>) -> String {
    let mut sel = Vec::new();
    for g in gs {
        sel.push(format!(".lane .runner[data-g=\"{g}\"] .runner-box"));
        sel.push(format!(".lane .handler-slot[data-g=\"{g}\"] > rect"));
    }
    format!(
        "{} {{ stroke: #b91c1c; stroke-width: 4.5; stroke-dasharray: none; }}",
        sel.join(", ")
    )
}

fn race(pair: &[RaceSide; 2], d: &Dispatch) -> Html {
    let a = &pair[0].access;
    html! {
        <li class="race" data-field={a.field}>
            <p><strong>{"race: "}</strong>{format!("{}{}, unordered by happens-before", a.field, a.of_instance())}</p>
            <div class="race-sides">{for pair.iter().map(|s| side(s, d))}</div>
        </li>
    }
}

fn side(s: &RaceSide, d: &Dispatch) -> Html {
    let (d, c) = (d.clone(), s.choice);
    let run = html! {
        <button class="run-g" onclick={Callback::from(move |_| d.dispatch(Action::Choose(c)))}
                aria-label={format!("run g{} (this side of the race)", c.g)}>{format!("run g{}", c.g)}</button>
    };
    access_side(&s.access, c.g, s.goroutine.clone(), run)
}

/// The whole run's races: each with its two steps (buttons to go there) or the
/// state where both racing steps were runnable, and the two accesses.
fn in_run(r: &RunRaces, cursor: u32, d: &Dispatch) -> Html {
    let budget = (!r.complete).then(|| {
        html! { <p class="muted" id="races-budget">{format!(
            "A budget ran out: {} states checked for racing steps runnable together, {} steps with vector clocks.",
            r.checked, r.clocked)}</p> }
    });
    html! {
        <div id="races-in-run">
            <h4 class="races-sub">{"In this run"}</h4>
            {budget.unwrap_or_default()}
            if r.found.is_empty() && !r.complete {
                <p id="run-races-none" class="muted">{"None found in what the budget let it check."}</p>
            } else if r.found.is_empty() {
                <p id="run-races-none" class="v-ok">{"No data race in this run (the explorer's \"also look for data races\" tries every interleaving)."}</p>
            } else {
                <ol class="race-list run-races">{for r.found.iter().map(|f| run_race(f, cursor, d))}</ol>
            }
            if r.untried > 0 {
                <p class="muted">{format!("{} race(s) whose accesses the clocks left unordered were not tried (the budget ran out).", r.untried)}</p>
            }
            if r.unshown > 0 {
                <p class="muted">{format!("{} race(s) whose accesses the clocks left unordered showed no race when replayed.", r.unshown)}</p>
            }
            // At a racing step, its two goroutines are outlined on the lanes too.
            if let Some(gs) = racing_here(r, cursor) { <style>{marks(gs.into_iter())}</style> }
        </div>
    }
}

fn run_race(f: &RunRace, cursor: u32, d: &Dispatch) -> Html {
    let go = |n: u32| {
        let d = d.clone();
        let here = n == cursor;
        html! {
            <button class={classes!("goto-step", here.then_some("here"))} data-step={n.to_string()}
                    aria-current={here.then_some("step")}
                    aria-label={format!("go to step {n}")}
                    onclick={Callback::from(move |_| d.dispatch(Action::Goto(n)))}>{n.to_string()}</button>
        }
    };
    let a = &f.accesses[0];
    let what = match f.steps[..] {
        [x, y] => html! { <>{"steps "}{go(x)}{" and "}{go(y)}{", unordered by happens-before"}</> },
        _ => html! { <>{"both racing steps runnable after step "}{go(f.step)}</> },
    };
    html! {
        <li class="race run-race" data-field={a.field} data-steps={f.steps.iter().map(u32::to_string).collect::<Vec<_>>().join(",")}>
            <p><strong>{"race: "}</strong>{format!("{}{}: ", a.field, a.of_instance())}{what}</p>
            <div class="race-sides">
                {for f.accesses.iter().zip(f.goroutines).map(|(a, g)| access_side(a, g, format!("g{g}"), html! {}))}
            </div>
        </li>
    }
}

/// One side of a race: who, the Go line and statement, the locks held, then `tail`.
fn access_side(a: &Access, g: u32, who: String, tail: Html) -> Html {
    html! {
        <div class="race-side" data-g={g.to_string()} data-line={a.site.line.to_string()}>
            <div class="who">{who}</div>
            <div>{if a.write { "writes" } else { "reads" }}{" at "}<code>{format!("{}:{}", a.site.file, a.site.line)}</code></div>
            <div class="muted">{a.site.func}</div>
            <pre class="go-line"><code>{a.site.code}</code></pre>
            <div class={if a.locks.is_empty() { "unlocked" } else { "locked" }}>
                {if a.locks.is_empty() { "holding no lock".to_owned() } else { format!("holding {}", a.locks.join(", ")) }}
            </div>
            {tail}
        </div>
    }
}

/// What the step panel says of the cursor's step when it is one of a race's two
/// steps in this run.
pub fn step_note(r: &RunRaces, cursor: u32) -> Option<String> {
    let notes: Vec<String> = r
        .found
        .iter()
        .filter_map(|f| {
            let i = f.steps.iter().position(|&s| s == cursor)?;
            let (me, other) = (&f.accesses[i], &f.accesses[1 - i]);
            Some(format!(
                "Racing step: its {} of {} ({}:{}) and step {}'s {} by g{} are unordered by happens-before.",
                if me.write { "write" } else { "read" },
                me.field,
                me.site.file,
                me.site.line,
                f.steps[1 - i],
                if other.write { "write" } else { "read" },
                f.goroutines[1 - i],
            ))
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join(" "))
}

/// The goroutines of the races one of whose steps is the cursor's.
fn racing_here(r: &RunRaces, cursor: u32) -> Option<Vec<u32>> {
    let gs: Vec<u32> = r
        .found
        .iter()
        .filter(|f| f.steps.contains(&cursor))
        .flat_map(|f| f.goroutines)
        .collect();
    (!gs.is_empty()).then_some(gs)
}

/// The steps the scrubber marks: every racing step of the run.
pub fn marked_steps(r: &RunRaces) -> Vec<u32> {
    let mut v: Vec<u32> = r
        .found
        .iter()
        .flat_map(|f| f.steps.iter().copied())
        .collect();
    flush_core::order::sort_dedup(&mut v);
    v
}
