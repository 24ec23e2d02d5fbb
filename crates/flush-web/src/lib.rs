//! FlushScope's browser app. `state` holds every transition; `view` renders;
//! this file wires the effects (URL fragment, local storage, keyboard, the play
//! timer, uploads, downloads) and installs the panic hook.

pub mod gofns;
pub mod plots;
pub mod state;
pub mod stats;
pub mod view;

use flush_core::scenario::MAX_SCENARIO_BYTES;
use flush_core::AnyRun;
use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use state::{decode_fragment, encode_fragment, Action, AppState, Mode, Source, ViewSpec};

/// Local storage key of the last view (its permalink fragment).
pub const STORAGE_KEY: &str = "flushscope.view";

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
            div.set_text_content(Some(&format!(
                "FlushScope hit a bug (a Rust panic), so this page stopped working. Please report it with this text and the link, then reload. {msg}"
            )));
            if let Some(body) = doc.body() {
                let _ = body.append_child(&div);
            }
        }
    }));
}

/// The page's local storage (absent in some privacy modes: then nothing is saved).
fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

fn initial_state() -> AppState {
    let hash = gloo::utils::window().location().hash().unwrap_or_default();
    let frag = hash.trim_start_matches('#');
    if !frag.is_empty() {
        return match decode_fragment(frag).and_then(|spec| AppState::from_spec(&spec)) {
            Ok(s) => s,
            Err(e) => AppState::fallback(format!("{e} Showing the default scenario instead.")),
        };
    }
    if let Some(saved) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) {
        return match decode_fragment(&saved).and_then(|spec| AppState::from_spec(&spec)) {
            Ok(s) => s,
            Err(e) => {
                if let Some(s) = storage() {
                    let _ = s.remove_item(STORAGE_KEY);
                }
                AppState::fallback(format!(
                    "Your saved view (local storage) could not be restored: {e} It was cleared."
                ))
            }
        };
    }
    AppState::from_spec(&ViewSpec::default_view()).expect("the default view loads")
}

fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let doc = gloo::utils::document();
    if let Ok(a) = doc.create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The lanes of the current view as one SVG document.
fn export_svg(run: &AnyRun) -> String {
    let doc = gloo::utils::document();
    let ser = web_sys::XmlSerializer::new().ok();
    let mut parts = String::new();
    let mut y = 60.0;
    let mut width: f64 = 900.0;
    if let (Some(ser), Ok(nodes)) = (ser, doc.query_selector_all(".lane")) {
        for i in 0..nodes.length() {
            let Some(lane) = nodes
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let title = lane
                .query_selector("h3")
                .ok()
                .flatten()
                .and_then(|h| h.text_content())
                .unwrap_or_default();
            parts.push_str(&format!(
                "<text x='12' y='{}' font-size='16' font-weight='bold'>{}</text>",
                y,
                esc(&title)
            ));
            y += 8.0;
            if let Some(svg) = lane.query_selector("svg").ok().flatten() {
                let w: f64 = svg
                    .get_attribute("width")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(900.0);
                let h: f64 = svg
                    .get_attribute("height")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(150.0);
                width = width.max(w + 20.0);
                if let Ok(s) = ser.serialize_to_string(&svg) {
                    parts.push_str(&format!("<g transform='translate(10 {y})'>{s}</g>"));
                }
                y += h + 24.0;
            } else if let Some(text) = lane.text_content() {
                parts.push_str(&format!(
                    "<text x='12' y='{}' font-size='13'>{}</text>",
                    y + 14.0,
                    esc(&text)
                ));
                y += 36.0;
            }
        }
    }
    let line = run
        .line(run.cursor())
        .map(|l| format!("step {}: g{} {} — {}", l.step, l.goroutine, l.go, l.event))
        .unwrap_or_else(|| "step 0".into());
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{}' font-family='sans-serif'><style>{}</style>{}<rect width='100%' height='100%' fill='white'/><text x='12' y='24' font-size='18' font-weight='bold'>FlushScope · {}</text><text x='12' y='44' font-size='12'>{}</text>{parts}</svg>",
        y + 20.0,
        include_str!("../../../web/lanes.css"),
        view::SVG_DEFS_TEXT,
        esc(&run.scenario().name),
        esc(&line),
    )
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a: Action| state.dispatch(a))
    };

    // The URL fragment and local storage follow the view.
    {
        let state = state.clone();
        use_effect_with((state.rev, state.mode), move |_| {
            // Debounced: browsers throttle history.replaceState, and stepping or
            // playing changes the view many times a second.
            let t = gloo::timers::callback::Timeout::new(250, move || {
                let frag = encode_fragment(&state.spec());
                let url = format!("#{frag}");
                if let Ok(h) = gloo::utils::window().history() {
                    let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
                }
                if let Some(s) = storage() {
                    let _ = s.set_item(STORAGE_KEY, &frag);
                }
            });
            move || drop(t)
        });
    }
    // A pasted permalink (hashchange) loads that view.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let l = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                let hash = gloo::utils::window().location().hash().unwrap_or_default();
                match decode_fragment(&hash) {
                    Ok(spec) => dispatch.emit(Action::Load(spec)),
                    Err(e) => dispatch.emit(Action::Error(e)),
                }
            });
            move || drop(l)
        });
    }
    // Keyboard shortcuts.
    {
        let dispatch = dispatch.clone();
        let playing = state.playing;
        let help = state.help;
        use_effect_with((playing, help), move |_| {
            let opts = gloo::events::EventListenerOptions::enable_prevent_default();
            let l = EventListener::new_with_options(
                &gloo::utils::document(),
                "keydown",
                opts,
                move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    let typing = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| {
                            matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                        });
                    if typing {
                        return;
                    }
                    let action = match e.key().as_str() {
                        "ArrowRight" => Some(Action::StepForward),
                        "ArrowLeft" => Some(Action::StepBack),
                        " " => Some(Action::Play(!playing)),
                        "Home" => Some(Action::Goto(0)),
                        "End" => Some(Action::ToEnd),
                        "?" => Some(Action::Help(!help)),
                        "Escape" => Some(if help {
                            Action::Help(false)
                        } else {
                            Action::DismissError
                        }),
                        _ => None,
                    };
                    if let Some(a) = action {
                        e.prevent_default();
                        dispatch.emit(a);
                    }
                },
            );
            move || drop(l)
        });
    }
    // Play: a timer steps forward until the end.
    {
        let dispatch = dispatch.clone();
        use_effect_with((state.playing, state.speed), move |(playing, speed)| {
            let timer = playing.then(|| {
                let ms = (1000 / (*speed).max(1)).max(16);
                gloo::timers::callback::Interval::new(ms, move || {
                    dispatch.emit(Action::StepForward)
                })
            });
            move || drop(timer)
        });
    }

    let upload = {
        let dispatch = dispatch.clone();
        let reader = reader.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|l| l.get(0)) else {
                return;
            };
            input.set_value("");
            let file = gloo::file::File::from(file);
            let name = file.name();
            if file.size() > MAX_SCENARIO_BYTES as u64 {
                dispatch.emit(Action::Error(format!(
                    "{name}: the file is {}.{} MB; scenario files are limited to {} MB. The previous view is still loaded.",
                    file.size() / 1_000_000,
                    file.size() / 100_000 % 10,
                    MAX_SCENARIO_BYTES / (1024 * 1024)
                )));
                return;
            }
            let d = dispatch.clone();
            let task = gloo::file::callbacks::read_as_text(&file, move |res| match res {
                Err(e) => d.emit(Action::Error(format!(
                    "{name}: could not be read as text ({e}). The previous view is still loaded."
                ))),
                Ok(text) => match flush_core::Scenario::parse(&text, &name) {
                    Err(e) => d.emit(Action::Error(format!(
                        "{e}. The previous view is still loaded."
                    ))),
                    Ok(sc) => d.emit(Action::Load(ViewSpec {
                        source: Source::Inline {
                            file: name.clone(),
                            text: text.into(),
                        },
                        version: None,
                        seed: None,
                        mode: if sc.schedule.is_some() {
                            Mode::Scripted
                        } else {
                            Mode::Seeded
                        },
                        schedule: None,
                        step: 0,
                    })),
                },
            });
            *reader.borrow_mut() = Some(task);
        })
    };
    let export_json = {
        let run = state.run.clone();
        Callback::from(move |_| {
            let r = run.borrow();
            match serde_json::to_string_pretty(&r.report()) {
                Ok(text) => download(
                    &format!("{}.trace.json", r.scenario().name),
                    "application/json",
                    &text,
                ),
                Err(e) => web_sys::console::error_1(&e.to_string().into()),
            }
        })
    };
    let export_svg_cb = {
        let run = state.run.clone();
        Callback::from(move |_| {
            let r = run.borrow();
            let svg = export_svg(&r);
            download(
                &format!("{}-step-{}.svg", r.scenario().name, r.cursor()),
                "image/svg+xml",
                &svg,
            );
        })
    };
    let copy_link = {
        let state = state.clone();
        Callback::from(move |_| {
            let href = gloo::utils::window().location().href().unwrap_or_default();
            let base = href.split('#').next().unwrap_or_default().to_owned();
            let link = format!("{base}#{}", encode_fragment(&state.spec()));
            state.dispatch(Action::Notice(Some(format!(
                "Link to this view (the address bar shows it too): {link}"
            ))));
        })
    };
    let hooks = view::controls::Hooks {
        dispatch: dispatch.clone(),
        upload,
        export_json,
        export_svg: export_svg_cb,
        copy_link,
    };
    render(&state, &hooks)
}

/// Switches the loaded scenario to another Milvus version (from the verdicts).
fn on_version(
    state: &AppState,
    sc: &flush_core::Scenario,
    d: &Callback<Action>,
) -> Callback<flush_core::Version> {
    let d = d.clone();
    let source = state.source.clone();
    let seed = state.seed;
    let mode = if sc.schedule.is_some() {
        state.mode
    } else {
        Mode::Seeded
    };
    Callback::from(move |v| {
        d.emit(Action::Load(ViewSpec {
            source: source.clone(),
            version: Some(v),
            seed: Some(seed),
            mode: if mode == Mode::Manual {
                Mode::Seeded
            } else {
                mode
            },
            schedule: None,
            step: 0,
        }))
    })
}

fn render(state: &UseReducerHandle<AppState>, hooks: &view::controls::Hooks) -> Html {
    let stats = state.stats();
    let run = state.run.borrow();
    let sc = run.scenario();
    let (cursor, len) = (run.cursor(), run.len());
    let line = run.line(cursor);
    let stage = match &*run {
        AnyRun::Flush(r) => {
            let changed = r
                .record(cursor)
                .map(|rec| view::flush::changed_segments(r.events_of(rec)))
                .unwrap_or_default();
            view::flush::stage(r.world(), sc, &changed, &stats.notified, cursor)
        }
        AnyRun::Sync(r) => {
            let w = r.world();
            let before = (cursor > 0).then(|| r.world_at(cursor - 1));
            let removed: Vec<i64> = match r.record(cursor) {
                Some(rec) => r
                    .events_of(rec)
                    .iter()
                    .filter_map(|e| match e {
                        flush_core::sync2024::Ev::MetacacheRemoved { segment, .. } => {
                            Some(*segment)
                        }
                        _ => None,
                    })
                    .collect(),
                None => Vec::new(),
            };
            view::sync::stage(w, before.as_ref(), &removed)
        }
    };
    let model = sc.model.as_str();
    html! {
        <div class="app" data-model={model} data-step={cursor.to_string()} data-len={len.to_string()}>
            {view::svg_defs()}
            {view::controls::header(state, sc, hooks)}
            if let Some(e) = &state.error { {view::controls::error_banner(e, &hooks.dispatch)} }
            if let Some(n) = &state.notice { {view::controls::notice(n, &hooks.dispatch)} }
            {view::controls::transport(state, len, cursor, run.outcome(), &hooks.dispatch)}
            <main class="main">
                <section class="stage" id="stage">
                    <div class="stage-title">
                        <h2>{sc.title.clone()}</h2>
                        <span class="badge model">{model}</span>
                        if let Some(v) = sc.version { <span class="badge version" title={v.summary()}>{v.as_str()}</span> }
                    </div>
                    {view::controls::intro(sc, &on_version(state, sc, &hooks.dispatch), format!("{:?} {:?} {:?}", state.source, state.seed, state.mode))}
                    {stage}
                </section>
                <aside class="side">
                    {view::side::step_panel(line.as_ref(), cursor, len, run.outcome())}
                    {view::side::goroutines(&run, &hooks.dispatch)}
                </aside>
            </main>
            <section class="bottom">
                {view::controls::plots(&stats, cursor)}
                <view::verdicts::VerdictTable />
            </section>
            if state.help { {view::controls::help(&hooks.dispatch)} }
        </div>
    }
}
