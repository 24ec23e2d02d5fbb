//! The header (scenario, version, mode, seed, upload, exports) and the transport
//! controls (step, play, scrub, jump).

use flush_core::builtin;
use flush_core::scenario::VersionInfo;
use flush_core::Outcome;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::state::{Action, Dispatch, Mode, Source, ViewSpec, SEED_ERROR, SPEEDS};

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub source: Source,
    pub versions: &'static [VersionInfo],
    pub version: Option<&'static str>,
    /// The scenario carries a schedule (scripted mode is offered).
    pub scripted: bool,
    pub mode: Mode,
    pub seed: u64,
    pub dispatch: Dispatch,
    pub on_upload: Callback<Event>,
    pub on_export_json: Callback<MouseEvent>,
    pub on_export_svg: Callback<MouseEvent>,
    pub on_copy_link: Callback<MouseEvent>,
    /// The scenario editor is open.
    pub editing: bool,
    /// The error shown is the seed field's refusal (it starts with
    /// [`SEED_ERROR`]): the field keeps the text refused, marked invalid.
    pub seed_refused: bool,
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

/// The pickers' change handlers: scenario, version, mode, seed. `typed`: the
/// seed field's text at its last change.
fn picker_callbacks(d: &Dispatch, typed: &UseStateHandle<String>) -> [Callback<Event>; 4] {
    let on_scenario = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let name = select_value(&e);
            if let Some(sc) = builtin::get(&name) {
                d.dispatch(Action::Load(ViewSpec::fresh(Source::Builtin(name), &sc)));
            }
        })
    };
    let on_version = {
        let d = d.clone();
        Callback::from(move |e: Event| d.dispatch(Action::Version(select_value(&e))))
    };
    let on_mode = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            if let Some(m) = Mode::parse(&select_value(&e)) {
                d.dispatch(Action::Mode(m));
            }
        })
    };
    let on_seed = {
        let (d, typed) = (d.clone(), typed.clone());
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            typed.set(input.value());
            match input.value().trim().parse::<u64>() {
                Ok(seed) => d.dispatch(Action::Seed(seed)),
                Err(_) => d.dispatch(Action::Error(format!(
                    "{SEED_ERROR}{}\" is not a whole number from 0 to {}.",
                    crate::permalink::short(&input.value()),
                    u64::MAX
                ))),
            }
        })
    };
    [on_scenario, on_version, on_mode, on_seed]
}

/// A select that shows `value` after every render. An option's `selected`
/// is only its default: once the user had picked one, a view loaded by Back,
/// Forward or a link left the picker showing the pick (found by a helper
/// attacking the history).
#[hook]
pub(crate) fn use_select_shows(value: String) -> NodeRef {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect(move || {
            if let Some(s) = node.cast::<web_sys::HtmlSelectElement>() {
                if s.value() != value {
                    s.set_value(&value);
                }
            }
        });
    }
    node
}

/// The Schedule picker's value: a scripted mode without a schedule in the
/// file runs seeded (see `state::policy`), and has no option of its own.
fn mode_value(mode: Mode, scripted: bool) -> &'static str {
    match mode {
        Mode::Scripted if scripted => "scripted",
        Mode::Seeded | Mode::Scripted => "seeded",
        Mode::Manual => "manual",
    }
}

/// The seed field: the seed run, except while its refusal shows: then the text
/// refused (`typed`), marked invalid and described by the refusal, to be
/// corrected (a render put the seed back, and the text was lost: found by an
/// attack on the page).
fn seed_field(p: &HeaderProps, typed: &str, on_seed: Callback<Event>) -> Html {
    let text = match p.seed_refused {
        true => typed.to_owned(),
        false => p.seed.to_string(),
    };
    html! {
        <label>{"Seed "}<input id="seed" type="number" min="0" value={text} onchange={on_seed}
            aria-invalid={p.seed_refused.then_some("true")}
            aria-describedby={p.seed_refused.then_some("error-text")} /></label>
    }
}

#[function_component(Header)]
pub fn header(p: &HeaderProps) -> Html {
    let d = p.dispatch.clone();
    let typed = use_state(String::new);
    let [on_scenario, on_version, on_mode, on_seed] = picker_callbacks(&d, &typed);
    let edit = {
        let (d, open) = (d.clone(), !p.editing);
        Callback::from(move |_: MouseEvent| d.dispatch(Action::Editor(open)))
    };
    let current = match &p.source {
        Source::Builtin(n) => n.as_str(),
        Source::Inline { .. } => "__inline",
    };
    let help = Callback::from(move |_| d.dispatch(Action::Help(true)));
    let mode = mode_value(p.mode, p.scripted);
    let shows = (
        use_select_shows(current.to_owned()),
        use_select_shows(p.version.unwrap_or_default().to_owned()),
        use_select_shows(mode.to_owned()),
    );
    html! {
        <header class="topbar">
            <div class="brand">
                <h1>{"FlushScope"}</h1>
                <span class="sub">{"Milvus's datanode flush machinery, one goroutine step at a time"}</span>
            </div>
            <div class="pickers">
                <label>{"Scenario "}
                    <select id="scenario" ref={shows.0} onchange={on_scenario}>
                        {for builtin::names().into_iter().map(|n| html! { <option value={n} selected={current == n}>{n}</option> })}
                        // A generated built-in the list does not name (sync-scaled-5x3,
                        // pairs-200 from a link) is shown as itself, not as the first.
                        if matches!(&p.source, Source::Builtin(_)) && !builtin::names().contains(&current) {
                            <option value={current.to_owned()} selected=true>{current}</option>
                        }
                        // A file: uploaded, linked, edited here or cut by the explorer.
                        if let Source::Inline { file, .. } = &p.source {
                            <option value="__inline" selected=true>{format!("file: {file}")}</option>
                        }
                    </select>
                </label>
                if !p.versions.is_empty() {
                    <label>{"Milvus version "}
                        <select id="version" ref={shows.1} onchange={on_version}>
                            {for p.versions.iter().map(|v| html! {
                                <option value={v.id} selected={p.version == Some(v.id)} title={v.summary}>{v.id}</option>
                            })}
                        </select>
                    </label>
                }
                <label>{"Schedule "}
                    <select id="mode" ref={shows.2} onchange={on_mode}>
                        <option value="seeded" selected={mode == "seeded"}>{"seeded random"}</option>
                        if p.scripted {
                            <option value="scripted" selected={mode == "scripted"}>{"scripted (the file's schedule)"}</option>
                        }
                        <option value="manual" selected={mode == "manual"}>{"manual (you pick)"}</option>
                    </select>
                </label>
                {seed_field(p, &typed, on_seed)}
            </div>
            <div class="actions">
                <label class="button" title="Load a scenario file (JSON)">{"Upload…"}
                    <input id="upload" type="file" accept=".json,application/json" onchange={p.on_upload.clone()} class="sr-only" />
                </label>
                <button id="edit" onclick={edit} aria-pressed={p.editing.to_string()} title="Edit this scenario: forms, the checker's errors, undo, a link to the edit">{"Edit"}</button>
                <button id="permalink" onclick={p.on_copy_link.clone()} title="Copy a link to exactly this view">{"Permalink"}</button>
                <button id="export-json" onclick={p.on_export_json.clone()} title="The trace as the CLI prints it with --json">{"Trace JSON"}</button>
                <button id="export-svg" onclick={p.on_export_svg.clone()} title="The lanes as an SVG image">{"SVG"}</button>
                <button id="help" onclick={help} title="Keyboard shortcuts and how to read the lanes (?)">{"Help"}</button>
            </div>
        </header>
    }
}

#[derive(Properties, PartialEq)]
pub struct TransportProps {
    pub cursor: u32,
    pub len: u32,
    pub outcome: Option<Outcome>,
    pub playing: bool,
    pub speed: u32,
    pub manual: bool,
    pub dispatch: Dispatch,
    /// Steps the scrubber marks (the run's racing steps).
    pub race_steps: std::rc::Rc<Vec<u32>>,
}

/// The scrubber's, the jump field's and the speed picker's handlers.
fn field_callbacks(
    d: &Dispatch,
    len: u32,
) -> (
    Callback<InputEvent>,
    Callback<KeyboardEvent>,
    Callback<Event>,
) {
    let on_scrub = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(n) = e
                .target_unchecked_into::<HtmlInputElement>()
                .value()
                .parse::<u32>()
            {
                d.dispatch(Action::Goto(n));
            }
        })
    };
    let on_jump = {
        let d = d.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() != "Enter" {
                return;
            }
            let input = e.target_unchecked_into::<HtmlInputElement>();
            match input.value().trim().parse::<u32>() {
                Ok(n) if n <= len => d.dispatch(Action::Jump(n)),
                _ => d.dispatch(Action::Error(format!(
                    "{}\"{}\" is not a step from 0 to {len}.",
                    crate::state::JUMP_ERROR,
                    crate::permalink::short(&input.value())
                ))),
            }
        })
    };
    let on_speed = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            if let Ok(v) = select_value(&e).parse::<u32>() {
                d.dispatch(Action::Speed(v));
            }
        })
    };
    (on_scrub, on_jump, on_speed)
}

#[function_component(Transport)]
pub fn transport(p: &TransportProps) -> Html {
    let (cursor, len) = (p.cursor, p.len);
    let cb = |a: fn() -> Action| {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(a()))
    };
    let (on_scrub, on_jump, on_speed) = field_callbacks(&p.dispatch, len);
    // Buttons that cannot act are aria-disabled, not disabled: a disabled button
    // drops the keyboard focus to the page, an aria-disabled one keeps it.
    let (no_back, no_step, no_play) = (cursor == 0, cursor >= len, cursor >= len && !p.playing);
    let guarded = |off: bool, a: fn() -> Action| {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            if !off {
                d.dispatch(a())
            }
        })
    };
    let play = {
        let (d, playing) = (p.dispatch.clone(), p.playing);
        Callback::from(move |_: MouseEvent| {
            if !no_play {
                d.dispatch(Action::Play(!playing))
            }
        })
    };
    let manual_end = p.manual && cursor == len && p.outcome.is_none();
    let speed_shows = use_select_shows(p.speed.to_string());
    html! {
        <nav class="controls" aria-label="step controls">
            <button id="restart" onclick={cb(|| Action::Goto(0))} title="Back to step 0 (Home)"><span aria-hidden="true">{"⇤ "}</span>{"Start"}</button>
            <button id="back" onclick={guarded(no_back, || Action::StepBack)} aria-disabled={no_back.to_string()} title="Step back (←)"><span aria-hidden="true">{"◀ "}</span>{"Back"}</button>
            <button id="step-btn" class="primary" onclick={guarded(no_step, || Action::StepForward)} aria-disabled={no_step.to_string()} title="Step (→)">{"Step"}<span aria-hidden="true">{" ▶"}</span></button>
            <button id="play" onclick={play} aria-disabled={no_play.to_string()} title="Play / pause (space)">
                {if p.playing { html! { "Pause" } } else { html! { <>{"Play"}<span aria-hidden="true">{" ▶▶"}</span></> } }}</button>
            <button id="end" onclick={cb(|| Action::ToEnd)} title="Last step (End)">{"End"}<span aria-hidden="true">{" ⇥"}</span></button>
            <label class="speed">{"speed "}
                <select id="speed" ref={speed_shows} onchange={on_speed}>
                    {for SPEEDS.iter().map(|v| html! {
                        <option value={v.to_string()} selected={p.speed == *v}>{format!("{v}/s")}</option> })}
                </select>
            </label>
            <input id="scrubber" type="range" min="0" max={len.to_string()} value={cursor.to_string()} oninput={on_scrub}
                   list={(!p.race_steps.is_empty()).then_some("race-steps")}
                   aria-label="step scrubber" aria-valuetext={format!("step {cursor} of {len}")} />
            if !p.race_steps.is_empty() {
                // The racing steps as ticks on the scrubber.
                <datalist id="race-steps">
                    {for p.race_steps.iter().map(|s| html! { <option value={s.to_string()} label={format!("racing step {s}")} /> })}
                </datalist>
            }
            <span id="counter" class="counter">{format!("step {cursor} / {len}")}</span>
            <label class="jump">{"jump to "}<input id="jump" type="number" min="0" max={len.to_string()} placeholder="step" onkeydown={on_jump} /></label>
            if let Some(o) = &p.outcome {
                <span id="outcome" class={classes!("outcome", o.kind.as_str())} title={o.to_string()}>
                    {format!("run ends: {}", o.kind.as_str())}</span>
            }
            if manual_end { <span class="hint">{"manual: pick a runnable goroutine on the right"}</span> }
        </nav>
    }
}
