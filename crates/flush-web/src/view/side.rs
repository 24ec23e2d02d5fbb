//! The side column: the current step explained, and every goroutine with what it
//! waits on (runnable ones are buttons).

use flush_core::report::TraceLine;
use flush_core::{AnyRun, Choice};
use yew::prelude::*;

use crate::gofns;
use crate::state::Action;

/// Goroutine rows drawn (the rest are counted).
const MAX_ROWS: usize = 40;

pub fn step_panel(
    line: Option<&TraceLine>,
    cursor: u32,
    len: u32,
    outcome: Option<&flush_core::Outcome>,
) -> Html {
    let Some(l) = line else {
        return html! {
            <section class="panel step" id="step">
                <h3>{"Step 0: the initial state"}</h3>
                <p>{format!("Nothing has run yet. Press → (or Step) to run the first of {len} steps, or pick a runnable goroutine below.")}</p>
            </section>
        };
    };
    let at_end = cursor == len;
    html! {
        <section class={classes!("panel", "step", l.panic.then_some("panic"), l.violation.then_some("violation"))} id="step">
            <h3>{format!("Step {} of {len}", l.step)}</h3>
            <p class="who"><span class="gid">{format!("g{}", l.goroutine)}</span>{" "}{&l.name}</p>
            <p class="gofn"><code>{l.go}</code></p>
            if let Some(x) = gofns::excerpt(l.go) { <p class="excerpt">{x}</p> }
            <p class="event" id="event">{&l.event}</p>
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
                if let Some(o) = outcome { <p class={classes!("callout", "outcome", o.kind.as_str())}>{format!("Outcome: {o}")}</p> }
            }
        </section>
    }
}

pub fn goroutines(run: &AnyRun, dispatch: &Callback<Action>) -> Html {
    let runnable = run.runnable_here();
    let sorted = run.goroutines(&runnable, MAX_ROWS);
    let stopped = run.panicked_here();
    let total = run.goroutine_count();
    html! {
        <section class="panel goroutines" id="goroutines">
            <h3>{format!("Goroutines: {total} alive, {} runnable", runnable.iter().map(|c| c.g).collect::<std::collections::BTreeSet<_>>().len())}</h3>
            if total == 0 { <p class="muted">{"None left."}</p> }
            if stopped { <p class="callout panic">{"The process has panicked: no goroutine runs any more. The list shows where each one stood."}</p> }
            <ul>
                {for sorted.iter().map(|v| {
                    let (g, name, on, f) = (&v.id, &v.name, &v.waits_on, &v.go);
                    let cases: Vec<Choice> = runnable.iter().copied().filter(|c| c.g == *g).collect();
                    let state = if stopped { "stopped" } else if cases.is_empty() { "blocked" } else { "runnable" };
                    html! {
                        <li class={classes!("g", state)} data-g={g.to_string()} data-state={state}>
                            <div class="g-head">
                                <span class="gid">{format!("g{g}")}</span>
                                <span class="g-name">{name.clone()}</span>
                                <span class={classes!("g-state", state)}>{state}</span>
                            </div>
                            <div class="g-wait">{if stopped || !cases.is_empty() { format!("at {on}") } else { format!("waits on {on}") }}</div>
                            <div class="g-fn"><code>{*f}</code></div>
                            if !cases.is_empty() {
                                <div class="g-run">
                                    {for cases.iter().map(|c| {
                                        let d = dispatch.clone();
                                        let c2 = *c;
                                        let label = run.choice_label(c2);
                                        html! { <button class="run-g" data-choice={c.to_string()} onclick={Callback::from(move |_| d.emit(Action::Choose(c2)))}>
                                            {format!("▶ {label}")}</button> }
                                    })}
                                </div>
                            }
                        </li>
                    }
                })}
            </ul>
            if total > MAX_ROWS { <p class="muted">{format!("+{} more goroutines not listed", total - MAX_ROWS)}</p> }
        </section>
    }
}
