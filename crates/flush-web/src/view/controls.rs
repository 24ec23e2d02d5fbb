//! The header (scenario, version, mode, seed, upload, exports), the transport
//! controls, the help overlay, the error banner, the intro and the plots.

use flush_core::{builtin, ModelKind, Scenario, Version};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::plots;
use crate::state::{Action, AppState, Mode, Source, ViewSpec};
use crate::stats::Stats;

pub struct Hooks {
    pub dispatch: Callback<Action>,
    pub upload: Callback<Event>,
    pub export_json: Callback<MouseEvent>,
    pub export_svg: Callback<MouseEvent>,
    pub copy_link: Callback<MouseEvent>,
}

pub fn header(state: &AppState, sc: &Scenario, h: &Hooks) -> Html {
    let d = h.dispatch.clone();
    let current = match &state.source {
        Source::Builtin(n) => n.clone(),
        Source::Inline { .. } => "__inline".to_owned(),
    };
    let on_scenario = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if v != "__inline" {
                let mode = if builtin::get(&v).is_some_and(|s| s.schedule.is_some()) {
                    Mode::Scripted
                } else {
                    Mode::Seeded
                };
                d.emit(Action::Load(ViewSpec {
                    source: Source::Builtin(v),
                    version: None,
                    seed: None,
                    mode,
                    schedule: None,
                    step: 0,
                }));
            }
        })
    };
    let on_version = {
        let d = d.clone();
        let st_mode = state.mode;
        let source = state.source.clone();
        let seed = state.seed;
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(v) = Version::parse(&v) {
                d.emit(Action::Load(ViewSpec {
                    source: source.clone(),
                    version: Some(v),
                    seed: Some(seed),
                    mode: if st_mode == Mode::Manual {
                        Mode::Seeded
                    } else {
                        st_mode
                    },
                    schedule: None,
                    step: 0,
                }));
            }
        })
    };
    let on_mode = {
        let d = d.clone();
        let source = state.source.clone();
        let seed = state.seed;
        let version = sc.version;
        Callback::from(move |e: Event| {
            if let Some(m) = Mode::parse(&e.target_unchecked_into::<HtmlSelectElement>().value()) {
                d.emit(Action::Load(ViewSpec {
                    source: source.clone(),
                    version,
                    seed: Some(seed),
                    mode: m,
                    schedule: None,
                    step: 0,
                }));
            }
        })
    };
    let on_seed = {
        let d = d.clone();
        let source = state.source.clone();
        let version = sc.version;
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            match input.value().trim().parse::<u64>() {
                Ok(seed) => d.emit(Action::Load(ViewSpec {
                    source: source.clone(),
                    version,
                    seed: Some(seed),
                    mode: Mode::Seeded,
                    schedule: None,
                    step: 0,
                })),
                Err(_) => d.emit(Action::Error(format!(
                    "Seed \"{}\" is not a whole number from 0 to 18446744073709551615.",
                    input.value()
                ))),
            }
        })
    };
    html! {
        <header class="topbar">
            <div class="brand">
                <h1>{"FlushScope"}</h1>
                <span class="sub">{"Milvus's datanode flush machinery, one goroutine step at a time"}</span>
            </div>
            <div class="pickers">
                <label>{"Scenario "}
                    <select id="scenario" onchange={on_scenario}>
                        {for builtin::names().into_iter().map(|n| html! { <option value={n} selected={current == n}>{n}</option> })}
                        if let Source::Inline { file, .. } = &state.source {
                            <option value="__inline" selected=true>{format!("uploaded: {file}")}</option>
                        }
                    </select>
                </label>
                if sc.model == ModelKind::Sync2024 {
                    <label>{"Milvus version "}
                        <select id="version" onchange={on_version}>
                            {for Version::ALL.iter().map(|v| html! {
                                <option value={v.as_str()} selected={sc.version == Some(*v)} title={v.summary()}>{v.as_str()}</option>
                            })}
                        </select>
                    </label>
                }
                <label>{"Schedule "}
                    <select id="mode" onchange={on_mode}>
                        <option value="seeded" selected={state.mode == Mode::Seeded}>{"seeded random"}</option>
                        if sc.schedule.is_some() {
                            <option value="scripted" selected={state.mode == Mode::Scripted}>{"scripted (the file's schedule)"}</option>
                        }
                        <option value="manual" selected={state.mode == Mode::Manual}>{"manual (you pick)"}</option>
                    </select>
                </label>
                <label>{"Seed "}<input id="seed" type="number" min="0" value={state.seed.to_string()} onchange={on_seed} /></label>
            </div>
            <div class="actions">
                <label class="button" title="Load a scenario file (JSON)">{"Upload…"}
                    <input id="upload" type="file" accept=".json,application/json" onchange={h.upload.clone()} hidden=true />
                </label>
                <button id="permalink" onclick={h.copy_link.clone()} title="Copy a link to exactly this view">{"Permalink"}</button>
                <button id="export-json" onclick={h.export_json.clone()} title="The trace as the CLI prints it with --json">{"Trace JSON"}</button>
                <button id="export-svg" onclick={h.export_svg.clone()} title="The lanes as an SVG image">{"SVG"}</button>
                <button id="help" onclick={let d = d.clone(); Callback::from(move |_| d.emit(Action::Help(true)))} title="Keyboard shortcuts (?)">{"?"}</button>
            </div>
        </header>
    }
}

pub fn transport(
    state: &AppState,
    len: u32,
    cursor: u32,
    outcome: Option<&flush_core::Outcome>,
    d: &Callback<Action>,
) -> Html {
    let cb = |a: fn() -> Action| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.emit(a()))
    };
    let on_scrub = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(n) = e
                .target_unchecked_into::<HtmlInputElement>()
                .value()
                .parse::<u32>()
            {
                d.emit(Action::Goto(n));
            }
        })
    };
    let on_jump = {
        let d = d.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                let input = e.target_unchecked_into::<HtmlInputElement>();
                match input.value().trim().parse::<u32>() {
                    Ok(n) if n <= len => d.emit(Action::Goto(n)),
                    _ => d.emit(Action::Error(format!(
                        "Jump: \"{}\" is not a step from 0 to {len}.",
                        input.value()
                    ))),
                }
            }
        })
    };
    let on_speed = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            if let Ok(v) = e
                .target_unchecked_into::<HtmlSelectElement>()
                .value()
                .parse::<u32>()
            {
                d.emit(Action::Speed(v));
            }
        })
    };
    let play = {
        let d = d.clone();
        let p = state.playing;
        Callback::from(move |_: MouseEvent| d.emit(Action::Play(!p)))
    };
    let manual_end = state.mode == Mode::Manual && cursor == len && outcome.is_none();
    html! {
        <section class="controls">
            <button id="restart" onclick={cb(|| Action::Goto(0))} title="Back to step 0 (Home)">{"⇤ Start"}</button>
            <button id="back" onclick={cb(|| Action::StepBack)} disabled={cursor == 0} title="Step back (←)">{"◀ Back"}</button>
            <button id="step-btn" class="primary" onclick={cb(|| Action::StepForward)} disabled={cursor >= len} title="Step (→)">{"Step ▶"}</button>
            <button id="play" onclick={play} disabled={cursor >= len && !state.playing} title="Play / pause (space)">
                {if state.playing { "Pause" } else { "Play ▶▶" }}</button>
            <button id="end" onclick={cb(|| Action::ToEnd)} title="Last step (End)">{"End ⇥"}</button>
            <label class="speed">{"speed "}
                <select id="speed" onchange={on_speed}>
                    {for [1u32, 2, 4, 8, 16, 30, 60].iter().map(|v| html! {
                        <option value={v.to_string()} selected={state.speed == *v}>{format!("{v}/s")}</option> })}
                </select>
            </label>
            <input id="scrubber" type="range" min="0" max={len.to_string()} value={cursor.to_string()} oninput={on_scrub}
                   aria-label="step scrubber" />
            <span id="counter" class="counter">{format!("step {cursor} / {len}")}</span>
            <label class="jump">{"jump to "}<input id="jump" type="number" min="0" max={len.to_string()} placeholder="step" onkeydown={on_jump} /></label>
            if let Some(o) = outcome {
                <span id="outcome" class={classes!("outcome", o.kind.as_str())} title={o.to_string()}>
                    {format!("run ends: {}", o.kind.as_str())}</span>
            }
            if manual_end { <span class="hint">{"manual: pick a runnable goroutine on the right"}</span> }
        </section>
    }
}

pub fn error_banner(e: &str, d: &Callback<Action>) -> Html {
    let d = d.clone();
    html! {
        <div class="error" id="error" role="alert">
            <strong>{"Could not do that: "}</strong><span id="error-text">{e.to_owned()}</span>
            <button onclick={Callback::from(move |_| d.emit(Action::DismissError))}>{"Dismiss"}</button>
        </div>
    }
}

pub fn notice(text: &str, d: &Callback<Action>) -> Html {
    let d = d.clone();
    html! {
        <div class="notice" id="notice" role="status">
            <span id="notice-text">{text.to_owned()}</span>
            <button onclick={Callback::from(move |_| d.emit(Action::Notice(None)))}>{"OK"}</button>
        </div>
    }
}

pub fn help(d: &Callback<Action>) -> Html {
    let d = d.clone();
    html! {
        <div class="overlay" id="help-overlay" onclick={Callback::from(move |_| d.emit(Action::Help(false)))}>
            <div class="help-box">
                <h2>{"Keyboard"}</h2>
                <table>
                    <tr><td><kbd>{"→"}</kbd></td><td>{"step forward"}</td></tr>
                    <tr><td><kbd>{"←"}</kbd></td><td>{"step back"}</td></tr>
                    <tr><td><kbd>{"space"}</kbd></td><td>{"play / pause"}</td></tr>
                    <tr><td><kbd>{"Home"}</kbd>{" / "}<kbd>{"End"}</kbd></td><td>{"first / last step"}</td></tr>
                    <tr><td><kbd>{"?"}</kbd></td><td>{"this help"}</td></tr>
                    <tr><td><kbd>{"Esc"}</kbd></td><td>{"close help or an error"}</td></tr>
                </table>
                <h2>{"Reading the lanes"}</h2>
                <p>{"Each lane is one orderFlushQueue. Boxes are flushTaskRunners in creation order; the arrow from a box points at the signal it waits on before it may notify (orange: still open, green: closed). The diamond is an injection (compaction): in the injectCh row while queued, on the handler or a runner while held."}</p>
                <p>{"Steps: a goroutine runs until its next blocking point (B1–B14 of MODEL.md). In manual mode, runnable goroutines are buttons; a select with two ready cases offers both."}</p>
                <p class="muted">{"Click anywhere to close."}</p>
            </div>
        </div>
    }
}

pub fn intro(sc: &Scenario, on_version: &Callback<Version>, captured: String) -> Html {
    html! {
        <details class="panel intro" id="intro" open=true>
            <summary>{"What am I looking at?"}</summary>
            <p id="description">{sc.description.clone()}</p>
            <crate::view::verdicts::VerdictsHere scenario={sc.name.clone()} version={sc.version} {captured} on_version={on_version.clone()} />
            if let Some(v) = sc.version { <p class="muted">{crate::view::sync::version_note(v)}</p> }
            <p class="muted">{match sc.model {
                ModelKind::Flush2021 => "Model: flush-2021, Milvus's rendezvousFlushManager at 891c202b73 (internal/datanode/flush_manager.go, flush_task.go). Every step names the Go function it models.",
                ModelKind::Sync2024 => "Model: sync-2024, the datanode metacache, write buffer and sync manager, and datacoord's SyncSegments, at the commits of issue #34018. Every step names the Go function it models.",
            }}</p>
        </details>
    }
}

/// A pixel position as an integer (keeps float formatting out of the bundle).
fn px(v: f64) -> String {
    (v.round() as i32).to_string()
}

pub fn plots(stats: &Stats, cursor: u32) -> Html {
    let (x0, x1) = plots::x_range();
    let (y0, y1) = plots::y_range();
    let x = if stats.len == 0 {
        x0
    } else {
        x0 + (x1 - x0) * f64::from(cursor) / f64::from(stats.len)
    };
    html! {
        <section class="panel plots" id="plots">
            <h3>{"Over the run"}</h3>
            <div class="plot-row">
                {for stats.svgs.iter().zip(&stats.plots).map(|((title, svg), (_, series))| html! {
                    <div class="plot-box">
                        <div class="plot-title">{title.clone()}</div>
                        <figure class="plot" title={title.clone()}>
                            {Html::from_html_unchecked(AttrValue::from(svg.clone()))}
                            <svg class="plot-cursor" width={plots::W.to_string()} height={plots::H.to_string()}>
                                <line x1={px(x)} x2={px(x)} y1={px(y0)} y2={px(y1)} />
                            </svg>
                            {for plots::y_ticks(series).iter().map(|v| html! {
                                <span class="tick y" style={format!("top:{}px; right:{}px", px(plots::y_px(*v, series) - 9.0), px(f64::from(plots::W) - plots::x_range().0 + 6.0))}>
                                    {plots::tick_label(*v)}</span>
                            })}
                            {for [0.0, 0.5, 1.0].iter().map(|f| html! {
                                <span class="tick x" style={format!("left:{}px; top:{}px", px(plots::x_px(f * f64::from(stats.len), stats.len) - 20.0), px(y1 + 4.0))}>
                                    {format!("{}", (f * f64::from(stats.len)).round() as i64)}</span>
                            })}
                            <span class="tick axis" style={format!("left:{}px; top:{}px", px((plots::x_range().0 + plots::x_range().1) / 2.0 - 14.0), px(y1 + 16.0))}>{"step"}</span>
                        </figure>
                        <div class="legend">
                            {for series.iter().enumerate().map(|(i, s)| html! {
                                <span class="legend-item"><span class="swatch" style={format!("background:{}", plots::css_color(i))}></span>{s.name.clone()}</span>
                            })}
                        </div>
                    </div>
                })}
            </div>
            if !stats.waits.is_empty() {
                <p class="muted">{format!("Injection waits (steps from injectOne to the injectOver answer): {}",
                    stats.waits.iter().map(|(i, s, n)| format!("{i}@{s}: {n}")).collect::<Vec<_>>().join(", "))}</p>
            }
        </section>
    }
}
