//! The side column: the current step explained, and every goroutine with what it
//! waits on (runnable ones are buttons).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;

use flush_core::report::TraceLine;
use flush_core::{AnyRun, Choice, Outcome};
use yew::prelude::*;

use crate::state::{Action, Dispatch};

/// Goroutine rows drawn (the rest are counted).
const MAX_ROWS: usize = 40;

#[derive(Properties, PartialEq)]
pub struct StepProps {
    /// The trace line of the cursor's step (`None` at step 0).
    pub line: Option<Rc<TraceLine>>,
    pub cursor: u32,
    pub len: u32,
    pub outcome: Option<Outcome>,
    /// The cursor's step is one of a data race's two steps: what to say of it.
    pub race_note: Option<String>,
}

#[function_component(StepPanel)]
pub fn step_panel(p: &StepProps) -> Html {
    let Some(l) = &p.line else {
        return html! {
            <section class="panel step" id="step">
                <h3>{"Step 0: the initial state"}</h3>
                <p>{format!("Nothing has run yet. Press → (or Step) to run the first of {} steps, or pick a runnable goroutine below.", p.len)}</p>
            </section>
        };
    };
    let at_end = p.cursor == p.len;
    html! {
        <section class={classes!("panel", "step", l.panic.then_some("panic"), l.violation.then_some("violation"))} id="step">
            <h3>{format!("Step {} of {}", l.step, p.len)}</h3>
            <p class="who"><span class="gid">{format!("g{}", l.goroutine)}</span>{" "}{&l.name}</p>
            <p class="gofn"><code>{l.go.to_string()}</code></p>
            if !l.go.excerpt.is_empty() { <p class="excerpt">{l.go.excerpt}</p> }
            <p class="event" id="event">{&l.event}</p>
            if let Some(n) = &p.race_note { <p class="callout race-step" id="race-step">{n}</p> }
            if !l.log.is_empty() {
                <div class="logs"><div class="muted">{"Milvus would log:"}</div>
                    {for l.log.iter().map(|g| html!{ <pre class="log">{g}</pre> })}</div>
            }
            if let Some(n) = &l.note { <p class="note">{format!("Scheduler: {n}")}</p> }
            if l.panic {
                <p class="callout panic">{"Go panic: the datanode process would exit here. This is the model's outcome, not a FlushScope error."}</p>
            }
            if l.violation {
                <p class="callout violation">{"An invariant broke at this step (see INVARIANT above). The run goes on as Go would."}</p>
            }
            if at_end {
                if let Some(o) = &p.outcome { <p class={classes!("callout", "outcome", o.kind.as_str())}>{format!("Outcome: {o}")}</p> }
            }
        </section>
    }
}

/// One goroutine as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct GoroutineRow {
    pub id: u32,
    pub name: String,
    pub waits_on: String,
    pub go: String,
    /// Its runnable choices with their button labels (none: blocked).
    pub cases: Vec<(Choice, String)>,
}

/// The goroutines at the cursor: the runnable ones first, at most [`MAX_ROWS`].
pub fn goroutine_rows(run: &AnyRun) -> (Vec<GoroutineRow>, usize, usize) {
    let runnable = run.runnable_here();
    let rows = run
        .goroutines(&runnable, MAX_ROWS)
        .into_iter()
        .map(|v| GoroutineRow {
            id: v.id,
            cases: runnable
                .iter()
                .filter(|c| c.g == v.id)
                .map(|c| (*c, run.choice_label(*c)))
                .collect(),
            name: v.name,
            waits_on: v.waits_on,
            go: v.go.to_string(),
        })
        .collect();
    let mut ids: Vec<u32> = runnable.iter().map(|c| c.g).collect();
    ids.dedup();
    (rows, run.goroutine_count(), ids.len())
}

#[derive(Properties, PartialEq)]
pub struct GoroutinesProps {
    pub rows: Rc<Vec<GoroutineRow>>,
    pub total: usize,
    pub runnable: usize,
    /// The process panicked: nothing runs any more.
    pub stopped: bool,
    pub dispatch: Dispatch,
}

#[function_component(Goroutines)]
pub fn goroutines(p: &GoroutinesProps) -> Html {
    // A goroutine's button goes when it blocks or returns: the keyboard focus then
    // moves to the first runnable goroutine's button (or the list), not the page.
    let refocus = use_mut_ref(|| false);
    {
        let refocus = refocus.clone();
        use_effect_with(p.rows.clone(), move |_| {
            let lost = crate::focus::lost();
            if std::mem::take(&mut *refocus.borrow_mut()) && lost {
                let doc = gloo::utils::document();
                let to = doc
                    .query_selector("#goroutines .run-g")
                    .ok()
                    .flatten()
                    .or_else(|| doc.query_selector("#goroutines ul").ok().flatten());
                if let Some(el) = to.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    html! {
        <section class="panel goroutines" id="goroutines">
            <h3>{format!("Goroutines: {} alive, {} runnable", p.total, p.runnable)}</h3>
            if p.total == 0 { <p class="muted">{"None left."}</p> }
            if p.stopped { <p class="callout panic">{"The process has panicked: no goroutine runs any more. The list shows where each one stood."}</p> }
            <ul tabindex="0" aria-label="goroutines">{for p.rows.iter().map(|r| row(r, p.stopped, &p.dispatch, &refocus))}</ul>
            if p.total > MAX_ROWS { <p class="muted">{format!("+{} more goroutines not listed", p.total - MAX_ROWS)}</p> }
        </section>
    }
}

fn row(r: &GoroutineRow, stopped: bool, d: &Dispatch, refocus: &Rc<RefCell<bool>>) -> Html {
    let state = if stopped {
        "stopped"
    } else if r.cases.is_empty() {
        "blocked"
    } else {
        "runnable"
    };
    let wait = if stopped || !r.cases.is_empty() {
        format!("at {}", r.waits_on)
    } else {
        format!("waits on {}", r.waits_on)
    };
    html! {
        <li key={r.id} class={classes!("g", state)} data-g={r.id.to_string()} data-state={state}>
            <div class="g-head">
                <span class="gid">{format!("g{}", r.id)}</span>
                <span class="g-name">{r.name.clone()}</span>
                <span class={classes!("g-state", state)}>{state}</span>
            </div>
            <div class="g-wait">{wait}</div>
            <div class="g-fn"><code>{r.go.clone()}</code></div>
            // Always there (empty when blocked): see stage.rs on Yew's list pairing.
            <div class="g-run">
                if !r.cases.is_empty() && !stopped {
                    {for r.cases.iter().map(|(c, label)| {
                        let (d, c, refocus) = (d.clone(), *c, refocus.clone());
                        let name = if label == "run" { format!("run g{}", c.g) } else { format!("run g{}: {label}", c.g) };
                        html! {
                            <button class="run-g" data-choice={c.to_string()}
                                    aria-label={name}
                                    onclick={Callback::from(move |_| {
                                        *refocus.borrow_mut() = true;
                                        d.dispatch(Action::Choose(c))
                                    })}>
                                {format!("▶ {label}")}</button>
                        }
                    })}
                }
            </div>
        </li>
    }
}
