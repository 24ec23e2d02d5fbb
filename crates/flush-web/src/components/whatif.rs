//! What if: the model's knobs (`AnyScenario::knobs`) as selects that rerun the
//! scenario with another setting, and the policy matrix: every combination of the
//! knobs explored in the explorer's worker, a row each, the Milvus versions among them, each
//! finding one click from the stepper.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::engine::Knob;
use flush_core::explore::{Exploration, Options};
use flush_core::AnyScenario;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::explore::{
    findings_cell, one_click, running_view, use_explorers, ExploreHandle, Running, Status,
    PAGE_MAX_BYTES, PAGE_MAX_STEPS,
};
use crate::state::{Action, Dispatch, Shown, Source};
use crate::worker::{JobSpec, Search};

/// What each row of the matrix may explore (a row is one search); the page says
/// "1,000,000".
const ROW_MAX_STATES: u64 = 1_000_000;

#[derive(Properties)]
pub struct WhatIfProps {
    pub scenario: AnyScenario,
    pub shown: Shown,
    /// The view has the matrix explored (the link's `matrix=on`): explored
    /// when the panel did not start it.
    pub matrix: bool,
    pub dispatch: Dispatch,
}

impl PartialEq for WhatIfProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.shown, self.matrix) == (&o.shown, o.matrix)
    }
}

/// The scenario whose matrix the panel last started (see [`use_linked_matrix`]).
type Asked = Rc<RefCell<Option<Source>>>;

/// One row of the matrix before it is explored: the versions whose preset it is
/// and every knob's setting.
#[derive(Clone, PartialEq)]
struct Row {
    presets: Vec<&'static str>,
    settings: Vec<(&'static str, &'static str)>,
}

#[function_component(WhatIf)]
pub fn what_if(p: &WhatIfProps) -> Html {
    let knobs = p.scenario.knobs();
    // The matrix is the scenario's whatever the version and knobs shown (every row
    // sets every knob, and the versions differ only in their knobs): opening a
    // row's counterexample keeps the table.
    let x = use_explorers(p.shown.source.clone());
    let rows = use_mut_ref(Vec::<Row>::new);
    let was: Asked = use_mut_ref(|| None);
    use_linked_matrix(&x, &rows, p, &was);
    if knobs.is_empty() {
        return html! {};
    }
    let start = matrix_start(&x, &rows, p, &was);
    let cancel = {
        let (cancel, d, was) = (x.cancel.clone(), p.dispatch.clone(), was.clone());
        one_click(Callback::from(move |e: MouseEvent| {
            cancel.emit(e);
            *was.borrow_mut() = None;
            d.dispatch(Action::Matrix(false));
        }))
    };
    let proposed = knobs.iter().any(|k| k.current != k.preset);
    let reset = {
        let d = p.dispatch.clone();
        // The button goes with the knobs' proposals: the focus goes to the first knob.
        let first = knobs.first().map(|k| format!("knob-{}", k.key));
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::ClearKnobs);
            if let Some(id) = &first {
                crate::focus::to(id);
            }
        })
    };
    let running = matches!(*x.status, Status::Running { .. });
    let code = p.shown.version.unwrap_or("the model's commit");
    html! {
        <section class="panel whatif" id="whatif" aria-labelledby="whatif-title">
            <h3 id="whatif-title">{"What if"}</h3>
            <p class="muted">{"Each knob is a choice the Go code makes: the Milvus versions made some of them differently, and a reviewer may propose others. A setting no version has is labelled “proposed” everywhere it shows."}</p>
            <div class="knobs">
                {for knobs.iter().map(|k| knob_view(k, &p.dispatch))}
            </div>
            if proposed {
                <button id="knobs-reset" onclick={reset}>{format!("Back to the code of {code}")}</button>
            }
            <h4 id="matrix-title">{"Policy matrix"}</h4>
            <p class="muted">{format!("This scenario under every combination of the knobs ({}), each explored breadth first (at most {} states a row).", rows_count(&knobs), "1,000,000")}</p>
            if running {
                <button id="matrix-cancel" onclick={cancel}>{"Cancel"}</button>
            } else {
                <button id="matrix-btn" class="primary" onclick={start}
                        onpointerenter={x.warm.reform(|_: PointerEvent| ())} onfocus={x.warm.reform(|_: FocusEvent| ())}>
                    {"Explore every combination"}</button>
            }
            if let Status::Running { run: Running { p: pr, ms, done, of, .. }, .. } = &*x.status {
                {running_view(pr, *ms)}
                <p class="muted">{format!("Combination {} of {of}", done + 1)}</p>
            }
            <div role="status">
                if let Status::Done { xs, .. } = &*x.status {
                    {matrix_view(&rows.borrow(), xs, &knobs, p)}
                }
            </div>
        </section>
    }
}

/// The matrix's searches: one per combination of the knobs of `sc`, the rows'
/// settings kept in `rows` for the table.
fn matrix_job(sc: &AnyScenario, source: &Source, rows: &RefCell<Vec<Row>>) -> JobSpec {
    let o = Options {
        max_bytes: PAGE_MAX_BYTES / 2,
        all: true,
        shrink: false,
        ..Options::first(PAGE_MAX_STEPS, ROW_MAX_STATES)
    };
    let variants = sc.variants();
    *rows.borrow_mut() = variants
        .iter()
        .map(|(presets, v)| Row {
            presets: presets.clone(),
            settings: v.knobs().iter().map(|k| (k.key, k.current)).collect(),
        })
        .collect();
    JobSpec {
        searches: variants
            .into_iter()
            .map(|(_, sc)| Search {
                source: source.clone(),
                sc,
                o: o.clone(),
            })
            .collect(),
        cut: None,
        lens: None,
    }
}

/// The matrix button's handler: the matrix explored, and the view (the link)
/// says so.
fn matrix_start(
    x: &ExploreHandle,
    rows: &Rc<RefCell<Vec<Row>>>,
    p: &WhatIfProps,
    was: &Asked,
) -> Callback<MouseEvent> {
    let (start, rows, sc) = (x.start.clone(), rows.clone(), p.scenario.clone());
    let (source, d, was) = (p.shown.source.clone(), p.dispatch.clone(), was.clone());
    one_click(Callback::from(move |_: MouseEvent| {
        *was.borrow_mut() = Some(source.clone());
        d.dispatch(Action::Matrix(true));
        start.emit(matrix_job(&sc, &source, &rows));
    }))
}

/// A view with the matrix the panel did not start (a link opened, Back to one)
/// explores it; a view without drops the one shown (as the Explore panel's
/// `use_linked_search` does).
#[hook]
fn use_linked_matrix(
    x: &ExploreHandle,
    rows: &Rc<RefCell<Vec<Row>>>,
    p: &WhatIfProps,
    was: &Asked,
) {
    let (start, forget, rows) = (x.start.clone(), x.forget.clone(), rows.clone());
    let (sc, was) = (p.scenario.clone(), was.clone());
    use_effect_with((p.matrix, p.shown.source.clone()), move |(on, source)| {
        if !*on {
            if was.borrow_mut().take().is_some() {
                forget.emit(());
            }
            return;
        }
        if was.borrow().as_ref() == Some(source) || sc.knobs().is_empty() {
            return;
        }
        *was.borrow_mut() = Some(source.clone());
        start.emit(matrix_job(&sc, source, &rows));
    });
}

fn rows_count(knobs: &[Knob]) -> usize {
    knobs.iter().map(|k| k.settings.len()).product()
}

/// A knob as a labelled select: each setting with the versions that have it, the
/// current one's Go behaviour below.
fn knob_view(k: &Knob, d: &Dispatch) -> Html {
    let id = format!("knob-{}", k.key);
    let about_id = format!("{id}-about");
    let on_change = {
        let (d, key) = (d.clone(), k.key);
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            d.dispatch(Action::Knob(key.to_owned(), v));
        })
    };
    let current = k.settings.iter().find(|s| s.name == k.current);
    html! {
        <div class={classes!("knob", (k.current != k.preset).then_some("proposed"))} data-knob={k.key}>
            <label for={id.clone()}>{k.label}</label>
            <select id={id} aria-describedby={about_id.clone()} onchange={on_change}>
                {for k.settings.iter().map(|s| html! {
                    <option value={s.name} selected={s.name == k.current}>
                        {format!("{} ({})", s.name, presets_words(&s.presets))}
                    </option>
                })}
            </select>
            <p class="muted knob-about" id={about_id}>
                if k.current != k.preset { <strong>{"Proposed: "}</strong> }
                {current.map(|s| s.about).unwrap_or_default()}
            </p>
        </div>
    }
}

fn presets_words(presets: &[&str]) -> String {
    if presets.is_empty() {
        "proposed".to_owned()
    } else {
        format!("as in {}", presets.join(", "))
    }
}

/// The matrix: a row per combination, a column per knob, what exploring found.
fn matrix_view(rows: &[Row], xs: &[Exploration], knobs: &[Knob], p: &WhatIfProps) -> Html {
    let shown: Vec<_> = knobs.iter().map(|k| (k.key, k.current)).collect();
    html! {
        <div id="matrix" class="table-scroll" tabindex="0" role="region" aria-labelledby="matrix-title">
            <table>
                <thead><tr>
                    <th scope="col">{"Milvus"}</th>
                    {for knobs.iter().map(|k| html! { <th scope="col" title={k.label}>{k.key}</th> })}
                    <th scope="col">{"what exploring finds"}</th>
                </tr></thead>
                <tbody>
                    {for rows.iter().zip(xs).map(|(r, x)| row_view(r, x, r.settings == shown, p))}
                </tbody>
            </table>
            if xs.len() < rows.len() {
                <p class="muted">{format!("Cancelled after {} of {} combinations.", xs.len(), rows.len())}</p>
            }
        </div>
    }
}

fn row_view(r: &Row, x: &Exploration, shown: bool, p: &WhatIfProps) -> Html {
    let verdict = match (x.violations.is_empty(), x.truncated) {
        (false, _) => "finds",
        (true, false) => "ok",
        (true, true) => "unknown",
    };
    // A version's row opens at that version, so it is labelled as that code; every
    // knob is set, so a scenario file's own "policy" cannot change the row.
    let at = Shown {
        version: match (r.presets.first(), p.scenario.versions().is_empty()) {
            (Some(v), false) => Some(*v),
            _ => p.shown.version,
        },
        knobs: Rc::new(
            r.settings
                .iter()
                .map(|(k, s)| ((*k).to_owned(), (*s).to_owned()))
                .collect(),
        ),
        ..p.shown.clone()
    };
    let who = presets_words(&r.presets);
    html! {
        <tr data-verdict={verdict} data-settings={r.settings.iter().map(|(k, s)| format!("{k}={s}")).collect::<Vec<_>>().join(",")}
            class={classes!(r.presets.is_empty().then_some("proposed"))} aria-current={shown.then_some("true")}>
            <th scope="row">{who.clone()}{if shown { " (shown)" } else { "" }}</th>
            {for r.settings.iter().map(|(_, s)| html! { <td class="setting">{*s}</td> })}
            <td>{findings_cell(x, &at, &p.dispatch,
                &|f| format!("open the {}-step schedule of this combination ({who}) in the stepper", f.steps))}</td>
        </tr>
    }
}
