//! The verdict table: what each built-in scenario can end in under each Milvus
//! version, generated from the model by a test (flush-core's `verdicts.json`).

use flush_core::verdicts::{self, Row};
use flush_core::Version;
use yew::prelude::*;

fn cell_text(c: &verdicts::Cell) -> String {
    let mut s = c.verdicts.join(", ");
    if c.seeded_runs > 0 {
        s.push_str(&format!(" ({} seeded runs)", c.seeded_runs));
    }
    s
}

fn verdict_class(c: &verdicts::Cell) -> &'static str {
    if c.verdicts.iter().any(|v| v.starts_with("panic")) {
        "v-panic"
    } else if c.verdicts.iter().any(|v| v != "completed") {
        "v-finding"
    } else {
        "v-ok"
    }
}

#[derive(Properties)]
pub struct HereProps {
    pub scenario: String,
    pub version: Option<Version>,
    /// What `on_version` captured besides the version (seed, mode): when it changes the
    /// callback must be taken anew.
    pub captured: String,
    pub on_version: Callback<Version>,
}

/// The callback is made anew at every render of the app; comparing what it captured
/// instead lets Yew skip this component while stepping.
impl PartialEq for HereProps {
    fn eq(&self, o: &Self) -> bool {
        (&self.scenario, self.version, &self.captured) == (&o.scenario, o.version, &o.captured)
    }
}

/// This scenario's row (when it is a built-in): every version it can run as, each a
/// button that switches to it, the current one marked. A component, so Yew skips
/// it while stepping.
#[function_component(VerdictsHere)]
pub fn for_scenario(p: &HereProps) -> Html {
    let Some(row) = verdicts::generated()
        .iter()
        .find(|r| r.scenario == p.scenario)
    else {
        return html! {};
    };
    html! {
        <div class="verdicts" id="verdicts-here">
            <h4>{"What exploring every interleaving finds"}</h4>
            <table>
                <thead><tr><th scope="col">{"version"}</th><th scope="col">{"verdicts"}</th></tr></thead>
                <tbody>
                    {for row.cells.iter().map(|c| {
                        let v = c.version.as_deref().and_then(Version::parse);
                        let current = v.is_some() && v == p.version;
                        let label = c.version.clone().unwrap_or_else(|| "891c202b73".to_owned());
                        let cb = p.on_version.clone();
                        html! {
                            <tr class={classes!(current.then_some("current"))} data-version={label.clone()}>
                                <th scope="row">
                                    if let (Some(v), false) = (v, current) {
                                        <button class="link" title={v.summary()} onclick={Callback::from(move |_| cb.emit(v))}>{label}</button>
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

/// Every built-in, as README.md shows it (rendered once: no props).
#[function_component(VerdictTable)]
pub fn all() -> Html {
    let rows = verdicts::generated();
    let (flush, sync): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r.model == "flush-2021");
    html! {
        <details class="panel verdict-table" id="verdicts">
            <summary>{"Verdicts of every built-in scenario, per Milvus version"}</summary>
            <p class="muted">{"Each scenario explored exhaustively: every interleaving the model allows. A name is an invariant or a finding; \"panic: …\" is the Go panic that ends the datanode. Generated from the model by a test."}</p>
            <div class="table-scroll" tabindex="0" role="region" aria-label="sync-2024 verdicts per version">
                <table>
                    <thead><tr><th scope="col">{"sync-2024 scenario"}</th>
                        {for Version::ALL.iter().map(|v| html!{ <th scope="col" title={v.summary()}>{format!("{} ({})", v.as_str(), v.pr())}</th> })}
                    </tr></thead>
                    <tbody>
                        {for sync.iter().map(|r| html! {
                            <tr><th scope="row">{r.scenario.clone()}</th>
                                {for r.cells.iter().map(|c| html!{ <td class={verdict_class(c)}>{cell_text(c)}</td> })}
                            </tr>
                        })}
                    </tbody>
                </table>
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="flush-2021 verdicts">
                <table>
                    <thead><tr><th scope="col">{"flush-2021 scenario (891c202b73)"}</th><th scope="col">{"verdicts"}</th></tr></thead>
                    <tbody>
                        {for flush.iter().map(|r| html! {
                            <tr><th scope="row">{r.scenario.clone()}</th><td class={verdict_class(&r.cells[0])}>{cell_text(&r.cells[0])}</td></tr>
                        })}
                    </tbody>
                </table>
            </div>
        </details>
    }
}
