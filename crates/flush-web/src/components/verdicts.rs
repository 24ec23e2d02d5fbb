//! The verdict table: what each built-in scenario can end in under each Milvus
//! version, generated from the model by a test (flush-core's `verdicts.json`).

use flush_core::models::FORMATS;
use flush_core::scenario::Format;
use flush_core::verdicts::{self, Cell, Row};
use yew::prelude::*;

use crate::state::{Action, Dispatch};

fn cell_text(c: &Cell) -> String {
    let mut s = c.verdicts.join(", ");
    if c.seeded_runs > 0 {
        s.push_str(&format!(" ({} seeded runs)", c.seeded_runs));
    }
    s
}

fn verdict_class(c: &Cell) -> &'static str {
    if c.verdicts.iter().any(|v| v.starts_with("panic")) {
        "v-panic"
    } else if c.verdicts.iter().any(|v| v != "completed") {
        "v-finding"
    } else {
        "v-ok"
    }
}

/// What a cell's version is called: its commit, or the one a fixed model follows.
fn version_label(row: &Row, c: &Cell) -> String {
    c.version.clone().unwrap_or_else(|| {
        FORMATS
            .iter()
            .find(|f| f.model == row.model)
            .and_then(|f| f.fixed_at)
            .unwrap_or("-")
            .to_owned()
    })
}

#[derive(Properties, PartialEq)]
pub struct HereProps {
    pub scenario: String,
    pub version: Option<&'static str>,
    /// See [`crate::components::intro::IntroProps::builtin`].
    pub builtin: bool,
    /// See [`crate::components::intro::IntroProps::proposed`].
    pub proposed: bool,
    pub dispatch: Dispatch,
}

/// This scenario's row (when it is a built-in): every version it can run as, each a
/// button that switches to it, the current one marked.
#[function_component(VerdictsHere)]
pub fn for_scenario(p: &HereProps) -> Html {
    let Some(row) = verdicts::generated()
        .iter()
        .find(|r| r.scenario == p.scenario)
    else {
        return html! {};
    };
    if !p.builtin {
        // The table is the shipped built-in's: this file only shares its name.
        return html! {
            <p class="verdicts muted" id="verdicts-here">
                {format!(
                    "This file is named like the built-in {}, but it is not that scenario as shipped, so the built-in's verdicts are not shown: {}",
                    p.scenario,
                    if row.cells.iter().any(|c| c.version.is_some()) {
                        "“Every version” explores this file under each version."
                    } else {
                        "“Explore” explores this file."
                    }
                )}
            </p>
        };
    }
    html! {
        <div class="verdicts" id="verdicts-here">
            <h3>{"What exploring every interleaving finds"}</h3>
            if p.proposed {
                <p class="muted">{"The run shown sets what-if knobs: this table is each version as released."}</p>
            }
            <table>
                <thead><tr><th scope="col">{"version"}</th><th scope="col">{"verdicts"}</th></tr></thead>
                <tbody>
                    {for row.cells.iter().map(|c| {
                        let same = c.version.is_some() && c.version.as_deref() == p.version;
                        // Under what-if knobs the run shown is no version's row.
                        let current = same && !p.proposed;
                        let label = version_label(row, c);
                        let switch = c.version.clone().filter(|_| !same).map(|v| {
                            let d = p.dispatch.clone();
                            Callback::from(move |_: MouseEvent| {
                                d.dispatch(Action::Version(v.clone()));
                                // The button becomes this row's text: the focus goes
                                // to the version picker, which now shows it.
                                crate::focus::to("version");
                            })
                        });
                        html! {
                            <tr class={classes!(current.then_some("current"))} data-version={label.clone()}>
                                <th scope="row">
                                    if let Some(cb) = switch {
                                        <button class="link" onclick={cb} aria-label={format!("show version {label}")}>{label}</button>
                                    } else {
                                        {label}{if current { " (shown)" } else { "" }}
                                    }
                                </th>
                                <td class={verdict_class(c)}>{cell_text(c)}</td>
                            </tr>
                        }
                    })}
                </tbody>
            </table>
        </div>
    }
}

/// Every built-in, one table per model, as README.md shows it (no props: drawn once).
#[function_component(VerdictTable)]
pub fn all() -> Html {
    let rows = verdicts::generated();
    html! {
        <details class="panel verdict-table" id="verdicts">
            <summary>{"Verdicts of every built-in scenario, per Milvus version"}</summary>
            <p class="muted">{"Each scenario explored exhaustively: every interleaving the model allows. A name is an invariant or a finding; \"panic: …\" is the Go panic that ends the datanode. Generated from the model by a test."}</p>
            {for FORMATS.iter().rev().map(|f| model_table(f, rows))}
        </details>
    }
}

fn model_table(f: &Format, rows: &[Row]) -> Html {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.model == f.model).collect();
    if mine.is_empty() {
        return html! {};
    }
    let label = format!("{} verdicts", f.model);
    let first = match f.fixed_at {
        Some(c) => format!("{} scenario ({c})", f.model),
        None => format!("{} scenario", f.model),
    };
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-label={label}>
            <table>
                <thead><tr><th scope="col">{first}</th>
                    if f.versions.is_empty() {
                        <th scope="col">{"verdicts"}</th>
                    }
                    {for f.versions.iter().map(|v| html!{ <th scope="col" title={v.summary}>{format!("{} ({})", v.id, v.pr)}</th> })}
                </tr></thead>
                <tbody>
                    {for mine.iter().map(|r| html! {
                        <tr><th scope="row">{r.scenario.clone()}</th>
                            {for r.cells.iter().map(|c| html!{ <td class={verdict_class(c)}>{cell_text(c)}</td> })}
                        </tr>
                    })}
                </tbody>
            </table>
        </div>
    }
}
