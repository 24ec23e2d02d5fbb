//! FlushScope's browser app: components (`components/`) over the core's plain-data
//! stage, decisions in `state.rs` (`reduce`), effects in `hooks.rs` (run, permalink,
//! keyboard, autoplay, upload), downloads in `export.rs`. The app names no model:
//! everything model-specific comes from the core's registry.

pub mod components;
pub mod edit;
pub mod export;
pub mod focus;
pub mod hooks;
pub mod permalink;
pub mod plots;
pub mod state;
pub mod worker;

use std::rc::Rc;

use yew::prelude::*;

use components::controls::{Header, Transport};
use components::editor::{Editor, UnsavedEdits};
use components::explore::{ExplorePanel, RaceLens};
use components::glossary::Glossary;
use components::intro::Intro;
use components::lockstep::Lockstep;
use components::logs::LogPanel;
use components::overlays::{error_banner, notice, BuildProgress, Help};
use components::plots::Plots;
use components::races::RacesHere;
use components::side::{goroutine_rows, Goroutines, StepPanel};
use components::stage::{stage_view, svg_defs};
use components::tour::TourPanel;
use components::verdicts::VerdictTable;
use components::whatif::WhatIf;
use flush_core::report::TraceLine;
use state::{Action, Mode};

/// Shows a Rust panic in the page (it is our bug, never the model's), so a bug is
/// visible rather than a frozen page.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        web_sys::console::error_1(&format!("FlushScope bug: {msg}").into());
        let doc = gloo::utils::document();
        if let Ok(div) = doc.create_element("div") {
            div.set_id("crash");
            div.set_class_name("crash");
            div.set_attribute("role", "alert").ok();
            div.set_text_content(Some(&format!(
                "FlushScope hit a bug (a Rust panic), so this page stopped working. Please report it with this text and the link, then reload. {msg}"
            )));
            if let Some(body) = doc.body() {
                let _ = body.append_child(&div);
            }
        }
    }));
}

#[function_component(App)]
pub fn app() -> Html {
    let state = hooks::use_run();
    let d = state.dispatcher();
    hooks::use_permalink(&state);
    hooks::use_keyboard(d.clone(), state.playing, state.help);
    hooks::use_autoplay(d.clone(), state.playing, state.speed);
    hooks::use_tip_dismiss();
    let on_upload = hooks::use_upload(d.clone());
    let on_export_json = {
        let run = state.run.clone();
        Callback::from(move |_| export::trace_json(&run.borrow()))
    };
    let on_export_svg = {
        let run = state.run.clone();
        Callback::from(move |_| export::lanes_svg(&run.borrow()))
    };
    let on_copy_link = copy_link(&state);

    let figures = state.figures();
    hooks::use_title(state.run.borrow().header().title.clone());
    let races = hooks::use_races(&state.run, &figures);
    let run = state.run.borrow();
    let h = run.header();
    let (cursor, len) = (run.cursor(), run.len());
    let rapid = hooks::use_rapid(cursor);
    let stage = run.stage(&figures);
    let (rows, total, runnable) = goroutine_rows(&run);
    // The cursor's trace line, built once for the step panel and the narration.
    let line = run.line(cursor).map(Rc::new);
    let model = h.model;
    html! {
        <div class="app" data-model={model} data-step={cursor.to_string()} data-len={len.to_string()}>
            {svg_defs()}
            <Header source={state.source.clone()} versions={run.scenario().versions()} version={h.version}
                    scripted={h.schedule.is_some()} mode={state.mode} seed={state.seed} dispatch={d.clone()}
                    {on_upload} {on_export_json} {on_export_svg} {on_copy_link} editing={state.editor}
                    seed_refused={state.error.as_deref().is_some_and(|e| e.starts_with(state::SEED_ERROR))} />
            <Transport {cursor} {len} outcome={run.outcome().cloned()} playing={state.playing} speed={state.speed}
                       manual={state.mode == Mode::Manual} dispatch={d.clone()} race_steps={races.steps} />
            <div class="main">
                <main class="stage" id="stage">
                    if let Some(b) = &state.building { <BuildProgress building={b.clone()} dispatch={d.clone()} /> }
                    if let Some(e) = &state.error { {error_banner(e, &d)} }
                    if let Some(n) = &state.notice { {notice(n, &d)} }
                    <UnsavedEdits source={state.source.clone()} editor={state.editor} dispatch={d.clone()} />
                    if state.editor { <Editor source={state.source.clone()} dispatch={d.clone()} /> }
                    if let Some((tour, stop)) = &state.tour {
                        <TourPanel tour={tour.clone()} stop={*stop} here={at_stop(&tour.stops[*stop], &state, h, cursor)}
                                   {cursor} line={line.clone()} rev={state.rev} dispatch={d.clone()} />
                    }
                    {narration(&run, line.as_deref(), len, state.playing)}
                    {stage_title(h, &run.proposed())}
                    <Intro header={Rc::new(h.clone())} about={run.about()} builtin={is_builtin(&state.source, &h.name)}
                           proposed={!run.proposed().is_empty()} dispatch={d.clone()} />
                    {stage_view(&stage, rapid)}
                    <LogPanel scenario={run.scenario()} shown={state.shown()} {cursor} run={state.run.clone()} rev={state.rev} manual={state.mode == Mode::Manual} dispatch={d.clone()} />
                </main>
                <aside class="side" aria-labelledby="side-title">
                    <h2 id="side-title" class="sr-only">{"This step and the goroutines"}</h2>
                    <StepPanel line={line.clone()} {cursor} {len} outcome={run.outcome().cloned()} race_note={races.note} />
                    <Goroutines rows={Rc::new(rows)} {total} {runnable} stopped={run.panicked_here()} dispatch={d.clone()} />
                    <RacesHere run={state.run.clone()} rev={state.rev} {cursor} dispatch={d.clone()} on={races.on} in_run={races.in_run} />
                    <RaceLens run={state.run.clone()} rev={state.rev} {cursor} shown={state.shown()} on={state.lens} dispatch={d.clone()} />
                    <ExplorePanel scenario={run.scenario()} shown={state.shown()} explore={state.explore} dispatch={d.clone()} />
                </aside>
            </div>
            {bottom(&state, &run, figures, d.clone())}
            if state.help { <Help legend={run.legend()} dispatch={d.clone()} /> }
        </div>
    }
}

/// Permalink: a notice with the link to this view (the address bar holds it
/// too), or why there is none.
fn copy_link(state: &UseReducerHandle<state::AppState>) -> Callback<MouseEvent> {
    let state = state.clone();
    Callback::from(move |_| {
        let href = gloo::utils::window().location().href().unwrap_or_default();
        let base = href.split('#').next().unwrap_or_default().to_owned();
        let spec = state.spec();
        let frag = permalink::encode(&spec);
        let mut words = permalink::link_words(&base, &frag);
        if permalink::linkable(&frag) {
            if spec.explore.is_some() {
                words.push_str(" Opening it runs the Explore panel's search again.");
            }
            if spec.matrix {
                words.push_str(" Opening it explores the policy matrix again.");
            }
        }
        state.dispatch(Action::Notice(Some(words)));
    })
}

/// Whether `source` is the built-in `name` as shipped: the built-in itself, or a
/// file (uploaded, linked or edited) whose text is the built-in's, byte for byte.
fn is_builtin(source: &state::Source, name: &str) -> bool {
    match source {
        state::Source::Builtin(n) => n == name,
        state::Source::Inline { text, .. } => {
            flush_core::builtin::text(name).is_some_and(|b| b == &**text)
        }
    }
}

/// Whether the view is a tour stop's: its built-in, at its version (when it names
/// one), with no knob set, at its step.
fn at_stop(
    s: &flush_core::tours::Stop,
    state: &state::AppState,
    h: &flush_core::Header,
    cursor: u32,
) -> bool {
    state.source == state::Source::Builtin(s.scenario.clone())
        && s.version.as_deref().is_none_or(|v| h.version == Some(v))
        && state.knobs.is_empty()
        && cursor == s.step
}

/// Below the stage: what if, other versions, plots, every verdict, the glossary.
fn bottom(
    state: &state::AppState,
    run: &flush_core::AnyRun,
    figures: Rc<flush_core::view::Figures>,
    d: state::Dispatch,
) -> Html {
    let (h, cursor) = (run.header(), run.cursor());
    html! {
        <section class="bottom" aria-labelledby="bottom-title">
            <h2 id="bottom-title" class="sr-only">{"What if, other versions, plots and verdicts"}</h2>
            <WhatIf scenario={run.scenario()} shown={state.shown()} matrix={state.matrix} dispatch={d.clone()} />
            <Lockstep run={state.run.clone()} rev={state.rev} version={h.version} seed={state.seed}
                compare={state.compare} dispatch={d} />
            <Plots {figures} {cursor} />
            <VerdictTable />
            <Glossary />
        </section>
    }
}

/// The scenario's title, its model and version, and "proposed" when it is one.
fn stage_title(h: &flush_core::Header, proposed: &[&'static str]) -> Html {
    html! {
        <div class="stage-title">
            <h2>{h.title.clone()}</h2>
            <span class="badge model">{h.model}</span>
            if let Some(v) = h.version { <span class="badge version">{v}</span> }
            {proposed_badge(proposed)}
        </div>
    }
}

/// "proposed: ..." when the run changes the Go code (what-if knobs): a reviewer
/// must never take a proposal for Milvus.
fn proposed_badge(proposed: &[&'static str]) -> Html {
    if proposed.is_empty() {
        return html! {};
    }
    html! {
        <span class="badge proposed" id="proposed" title="What-if changes to the Go code, not in Milvus (docs/scenario-format.md)">
            {format!("proposed: {}", proposed.join(", "))}
        </span>
    }
}

/// The screen-reader narration of the cursor's step: one sentence in a polite live
/// region, or in an assertive one when the step panics or breaks an invariant. Both
/// regions are always in the page (a live region must exist before its text changes).
/// While playing, the polite one waits for the pause (steps at up to 60 a second would
/// queue up faster than anyone can hear them); a panic is said at once.
fn narration(run: &flush_core::AnyRun, line: Option<&TraceLine>, len: u32, playing: bool) -> Html {
    let cursor = run.cursor();
    let (calm, alarm) = match line {
        None => (
            format!(
                "{}. Step 0 of {len}: the initial state; nothing has run yet.",
                run.header().title
            ),
            String::new(),
        ),
        Some(l) => {
            let what = format!("goroutine g{}, {}: {}.", l.goroutine, l.name, l.event);
            let mut text = if l.panic {
                format!("Go panic at step {} of {len}: {what}", l.step)
            } else if l.violation {
                format!("Invariant broken at step {} of {len}: {what}", l.step)
            } else {
                format!("Step {} of {len}: {what}", l.step)
            };
            if let (true, Some(o)) = (cursor == len, run.outcome()) {
                text.push_str(&format!(" The run ends: {o}."));
            }
            if l.panic || l.violation {
                (String::new(), text)
            } else if playing {
                (String::new(), String::new())
            } else {
                (text, String::new())
            }
        }
    };
    html! {
        <>
            <div id="narration" class="sr-only" aria-live="polite" aria-atomic="true">{calm}</div>
            <div id="alarm" class="sr-only" aria-live="assertive" aria-atomic="true">{alarm}</div>
        </>
    }
}
