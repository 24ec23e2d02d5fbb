//! "Paste a Milvus log" (issue 12): the log read into records, the sync-2024
//! scenario inferred from it, each version's replay, and a button that opens the
//! matched replay in the stepper. While that replay is shown, the records its
//! current step printed are highlighted (and scrolled to, inside the list).
//!
//! The log stays in the text box whatever happens; it is not put in the
//! permalink (a production log may be large and private): the inferred scenario
//! and its schedule are.

use std::rc::Rc;

use flush_core::logs::conform::{Mark, Options};
use std::cell::RefCell;

use flush_core::logs::{Import, ImportError, Importing};
use flush_core::scenario::json::escape_unsafe;
use flush_core::AnyScenario;
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::state::{Action, Dispatch, Mode, Shown, Source, ViewSpec};

/// The name the inferred scenario is shown under.
pub const IMPORTED_FILE: &str = "imported-log.json";
/// Bytes of log the page reads (`flushscope logs` reads 64 MB).
pub const MAX_PASTE_BYTES: usize = 8 << 20;
/// Records listed (a longer log is summed up; the CLI lists them all).
pub const MAX_LISTED: usize = 2_000;
/// States each version's search may visit in the page.
const PAGE_MAX_STATES: u64 = 20_000;
/// A log in the format of the #34018 report, for a first look.
const EXAMPLE: &str = include_str!("../../../../tests/logs/segment-not-found.log");

/// A log imported, and the view its replay is shown in.
pub struct Imported {
    pub import: Import,
    pub at: Shown,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario shown, for "Replay against the scenario shown".
    pub scenario: AnyScenario,
    pub shown: Shown,
    pub cursor: u32,
    pub dispatch: Dispatch,
}

fn options() -> Options {
    Options {
        max_states: PAGE_MAX_STATES,
        hint: " (the page's budget; flushscope logs on the command line takes --max-states, --max-steps and --max-memory)",
        ..Options::default()
    }
}

/// Why `text` cannot be read at all, if it cannot.
fn refuse(text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return Some("Paste a Milvus log into the box first (or use the example).".to_owned());
    }
    (text.len() > MAX_PASTE_BYTES).then(|| {
        format!(
            "The log is {:.1} MB; the page reads up to {} MB. `flushscope logs FILE` reads 64 MB.",
            text.len() as f64 / 1e6,
            MAX_PASTE_BYTES >> 20
        )
    })
}

/// Where an import's replay is shown: the inferred scenario, or the one on screen.
#[derive(Clone)]
enum Target {
    Inferred,
    Shown(Shown),
}

/// An import under way: one version is searched per task, so the page paints
/// between them (each search is bounded by [`PAGE_MAX_STATES`]).
struct Job {
    importing: Importing,
    target: Target,
    text: Rc<str>,
    /// The next task; dropping it cancels the job.
    timer: Option<Timeout>,
}

/// Starts reading `text`: the inference (or the scenario on screen) first,
/// then the versions, one per task.
fn start(text: &str, target: Target, sc: &AnyScenario) -> Result<Job, String> {
    if let Some(e) = refuse(text) {
        return Err(e);
    }
    let importing = match &target {
        Target::Inferred => Importing::new(text, None),
        Target::Shown(_) => Importing::against(text, sc, None),
    };
    let importing = importing.map_err(|e| message(e, text))?;
    Ok(Job {
        importing,
        target,
        text: Rc::from(text),
        timer: None,
    })
}

fn message(e: ImportError, text: &str) -> String {
    match e {
        ImportError::Unknown(e) => {
            let p = flush_core::logs::parse(text);
            let e = escape_unsafe(&e, false);
            format!(
                "Read {} lines ({} records), but {e}. (A flush-2021 log is read with \"Replay against the scenario shown\".)",
                p.lines,
                p.records.len()
            )
        }
        e => escape_unsafe(&e.to_string(), false).into_owned(),
    }
}

/// The finished import and where its replay is shown.
fn done(job: Job) -> Result<Imported, String> {
    let Job {
        importing,
        target,
        text,
        ..
    } = job;
    let import = importing
        .finish(&options())
        .map_err(|e| message(e, &text))?;
    let at = match target {
        Target::Shown(shown) => Shown {
            version: (!import.version.is_empty()).then_some(import.version),
            ..shown
        },
        Target::Inferred => Shown {
            source: Source::Inline {
                file: IMPORTED_FILE.to_owned(),
                text: Rc::from(import.inferred.as_ref().map_or("", |i| i.json.as_str())),
            },
            version: Some(import.version),
            knobs: Rc::new(Vec::new()),
        },
    };
    Ok(Imported { import, at })
}

type Slot = Rc<RefCell<Option<Job>>>;
type Outcome = UseStateHandle<Option<Rc<Result<Imported, String>>>>;
type Busy = UseStateHandle<Option<(usize, usize)>>;

/// Searches the job's next version and schedules the one after, or finishes.
fn tick(slot: Slot, result: Outcome, busy: Busy) {
    let mut guard = slot.borrow_mut();
    let Some(job) = guard.as_mut() else { return };
    match job.importing.next(&options()) {
        Ok(true) => {
            busy.set(Some(job.importing.progress()));
            let (s, r, b) = (slot.clone(), result.clone(), busy.clone());
            job.timer = Some(Timeout::new(0, move || tick(s, r, b)));
        }
        Ok(false) => {
            let job = guard.take().expect("a job");
            drop(guard);
            busy.set(None);
            result.set(Some(Rc::new(done(job))));
        }
        Err(e) => {
            let text = job.text.clone();
            guard.take();
            drop(guard);
            busy.set(None);
            result.set(Some(Rc::new(Err(message(e, &text)))));
        }
    }
}

/// Starts a job in `slot` (dropping any job under way), or shows why not.
fn launch(
    text: &str,
    target: Target,
    sc: &AnyScenario,
    slot: &Slot,
    result: &Outcome,
    busy: &Busy,
) {
    slot.borrow_mut().take();
    match start(text, target, sc) {
        Err(e) => {
            busy.set(None);
            result.set(Some(Rc::new(Err(e))));
        }
        Ok(job) => {
            busy.set(Some(job.importing.progress()));
            result.set(None);
            *slot.borrow_mut() = Some(job);
            let (s, r, b) = (slot.clone(), result.clone(), busy.clone());
            if let Some(job) = slot.borrow_mut().as_mut() {
                job.timer = Some(Timeout::new(0, move || tick(s, r, b)));
            }
        }
    }
}

#[function_component(LogPanel)]
pub fn log_panel(p: &Props) -> Html {
    let area = use_node_ref();
    let result: Outcome = use_state(|| None);
    let busy: Busy = use_state(|| None);
    let slot: Slot = use_mut_ref(|| None);
    let list = use_node_ref();
    let on_go = |target: Option<Target>, example: bool| {
        let (area, result, busy, slot) = (area.clone(), result.clone(), busy.clone(), slot.clone());
        let (sc, shown) = (p.scenario.clone(), p.shown.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(a) = area.cast::<HtmlTextAreaElement>() else {
                return;
            };
            if example {
                a.set_value(EXAMPLE);
            }
            let target = target
                .clone()
                .unwrap_or_else(|| Target::Shown(shown.clone()));
            launch(&a.value(), target, &sc, &slot, &result, &busy);
        })
    };
    let on_read = on_go(Some(Target::Inferred), false);
    let on_against = on_go(None, false);
    let on_example = on_go(Some(Target::Inferred), true);
    let on_stop = {
        let (slot, busy) = (slot.clone(), busy.clone());
        Callback::from(move |_: MouseEvent| {
            slot.borrow_mut().take();
            busy.set(None);
        })
    };
    let shown_here = result
        .as_ref()
        .and_then(|r| r.as_ref().as_ref().ok())
        .is_some_and(|i| p.shown == i.at);
    let now = if shown_here { p.cursor } else { 0 };
    {
        let list = list.clone();
        use_effect_with(now, move |_| scroll_to_now(&list));
    }
    html! {
        <section class="panel logs" aria-labelledby="logs-title">
            <h3 id="logs-title">{"Paste a Milvus log"}</h3>
            <p class="hint">{"A datanode or datacoord log (zap text lines, panics with their goroutine dumps; other lines are kept). \"Read the log\" infers the sync-2024 scenario it shows and finds a schedule that prints its lines in order; \"Replay against the scenario shown\" searches the scenario on screen instead (how a flush-2021 log is read). Then replay it in the stepper."}</p>
            <label for="log-text">{"Milvus log"}</label>
            <textarea id="log-text" ref={area} rows="6" spellcheck="false" autocomplete="off"
                      placeholder="[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=300]" />
            <div class="row">
                <button id="log-read" onclick={on_read}>{"Read the log"}</button>
                <button id="log-against" onclick={on_against}>{"Replay against the scenario shown"}</button>
                <button id="log-example" class="link" onclick={on_example}>{"Use the example log (#34018)"}</button>
            </div>
            if let Some((n, of)) = *busy {
                <p id="log-busy" role="status">
                    {format!("Searching for a schedule that prints the log: version {} of {of}… ", n + 1)}
                    <button id="log-stop" class="link" onclick={on_stop}>{"Stop"}</button>
                </p>
            }
            {match result.as_ref().map(|r| r.as_ref()) {
                None => html! {},
                Some(Err(e)) => html! { <p id="log-error" class="error" role="alert">{e.clone()}</p> },
                Some(Ok(i)) => result_view(i, now, shown_here, &p.dispatch, &list),
            }}
        </section>
    }
}

/// Scrolls the record list (not the page) so that its first highlighted record shows.
fn scroll_to_now(list: &NodeRef) {
    let Some(ol) = list.cast::<HtmlElement>() else {
        return;
    };
    let Ok(Some(li)) = ol.query_selector("li.now") else {
        return;
    };
    let Ok(li) = li.dyn_into::<HtmlElement>() else {
        return;
    };
    let (top, bottom) = (li.offset_top(), li.offset_top() + li.offset_height());
    let (view_top, view_h) = (ol.scroll_top(), ol.client_height());
    if top < view_top || bottom > view_top + view_h {
        ol.set_scroll_top((top - view_h / 3).max(0));
    }
}

fn result_view(i: &Imported, now: u32, shown_here: bool, d: &Dispatch, list: &NodeRef) -> Html {
    let im = &i.import;
    let c = &im.conformance;
    let under = version_words(im.version);
    let summary = if c.complete {
        format!(
            "Under {under}, a schedule of {} steps prints all {} lines the model knows, in order.",
            c.schedule.len(),
            c.wanted
        )
    } else {
        format!(
            "No schedule explains the whole log: under {under}, {} of the {} lines the model knows are explained in order.",
            c.explained, c.wanted
        )
    };
    let spec = ViewSpec {
        source: i.at.source.clone(),
        version: i.at.version.map(str::to_owned),
        knobs: i.at.knobs.to_vec(),
        tour: None,
        seed: None,
        mode: Mode::Manual,
        schedule: Some(c.schedule.clone()),
        step: 0,
    };
    let d = d.clone();
    let replay = Callback::from(move |_: MouseEvent| d.dispatch(Action::Load(spec.clone())));
    html! {
        <div id="log-result" data-complete={c.complete.to_string()} data-version={im.version}>
            <p id="log-summary" class={if c.complete { "v-ok" } else { "v-bad" }}>{summary}</p>
            <ul class="log-notes">{for im.inferred.iter().flat_map(|i| &i.notes).map(|n| html! { <li>{escape_unsafe(n, false).into_owned()}</li> })}</ul>
            {versions_table(im)}
            <button id="log-replay" onclick={replay} aria-pressed={shown_here.to_string()}>
                {if shown_here { format!("Replaying under {under} (step back to 0 to start again)") }
                 else { format!("Replay it in the stepper, under {under}") }}
            </button>
            {records_view(im, now, list)}
            {extra_view(im)}
        </div>
    }
}

/// A version as the panel names it; `""` is a model without versions.
fn version_words(v: &str) -> String {
    if v.is_empty() {
        "the scenario's code".to_owned()
    } else {
        v.to_owned()
    }
}

fn versions_table(im: &Import) -> Html {
    let caption = if im.inferred.is_some() {
        "Each version the log's line numbers allow"
    } else {
        "Each version of the scenario shown"
    };
    html! {
        <table id="log-versions" class="matrix">
            <caption>{caption}</caption>
            <thead><tr><th scope="col">{"version"}</th><th scope="col">{"lines explained"}</th><th scope="col">{"first line not explained, and why"}</th></tr></thead>
            <tbody>
            {for im.tried.iter().map(|t| html! {
                <tr data-version={t.version} data-complete={t.complete.to_string()}>
                    <th scope="row">{version_words(t.version)}</th>
                    <td>{format!("{} of {}", t.matched, t.wanted)}</td>
                    <td>{match &t.unexplained {
                        Some(u) => escape_unsafe(&format!("line {}: {} — {}", u.at, u.line, u.why), false).into_owned(),
                        None => "every one".to_owned(),
                    }}</td>
                </tr>
            })}
            </tbody>
        </table>
    }
}

fn records_view(im: &Import, now: u32, list: &NodeRef) -> Html {
    let c = &im.conformance;
    let records = &im.log.records;
    let shown = records.len().min(MAX_LISTED);
    html! {
        <>
        <h4 id="log-records-title">{format!("The log: {} lines, {} records", im.log.lines, records.len())}</h4>
        if shown < records.len() {
            <p class="hint">{format!("The first {shown} records are listed; `flushscope logs` lists them all.")}</p>
        }
        if let Some(cut) = &im.log.cut { <p class="hint">{cut.clone()}</p> }
        <ol id="log-records" ref={list.clone()} class="log-records" tabindex="0" aria-labelledby="log-records-title">
            {for records[..shown].iter().enumerate().map(|(n, r)| {
                let mark = c.mark(n, r);
                let (class, step) = match mark {
                    Mark::Step(s) => ("matched", s.to_string()),
                    Mark::Unexplained => ("unexplained", String::new()),
                    Mark::NotModelled => ("not-modelled", String::new()),
                    Mark::NotALogLine => ("foreign", String::new()),
                    Mark::NotReached => ("not-reached", String::new()),
                };
                let is_now = now > 0 && mark == Mark::Step(now);
                html! {
                    <li class={classes!(class, is_now.then_some("now"))} data-at={r.at.to_string()} data-step={step}
                        aria-current={is_now.then_some("step")}>
                        <span class="at">{r.at}</span>
                        <span class="mark">{mark.words()}</span>
                        <code>{r.kind.text()}</code>
                    </li>
                }
            })}
        </ol>
        </>
    }
}

fn extra_view(im: &Import) -> Html {
    let extra = &im.conformance.extra;
    if extra.is_empty() {
        return html! {};
    }
    html! {
        <details id="log-extra">
            <summary>{format!("Lines the replay prints that the log lacks ({})", extra.len())}</summary>
            <ul>{for extra.iter().take(MAX_LISTED).map(|e| html! {
                <li><span class="mark">{format!("step {}", e.step)}</span>{" "}<code>{escape_unsafe(&e.line, false).into_owned()}</code></li>
            })}</ul>
        </details>
    }
}
