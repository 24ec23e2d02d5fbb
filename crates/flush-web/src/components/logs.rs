//! "Paste a Milvus log" (issue 12): the log read into records, the sync-2024
//! scenario inferred from it, each version's replay, and a button that opens the
//! matched replay in the stepper. While that replay is shown, the records its
//! current step printed are highlighted (and scrolled to, inside the list).
//!
//! The log stays in the text box whatever happens; it is not put in the
//! permalink (a production log may be large and private): the inferred scenario
//! and its schedule are.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use flush_core::logs::conform::Mark;
use flush_core::scenario::json::escape_unsafe;
use flush_core::{AnyRun, AnyScenario};
use flush_worker::import::{self, count, MAX_LISTED};
use flush_worker::ImportView;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::state::{Action, Dispatch, Mode, Shown, Source, ViewSpec};
use crate::worker::{FromWorker, ToWorker, WorkerLink};

/// The name the inferred scenario is shown under.
pub const IMPORTED_FILE: &str = "imported-log.json";
/// Bytes of log the page reads (`flushscope logs` reads 64 MiB).
pub const MAX_PASTE_BYTES: usize = 8 << 20;
/// A log in the format of the #34018 report, for a first look.
const EXAMPLE: &str = include_str!("../../../../tests/logs/segment-not-found.log");

/// A log imported, and the view its replay is shown in: `source` at
/// `view.version` with `knobs`.
pub struct Imported {
    pub view: ImportView,
    pub source: Source,
    pub knobs: Rc<Vec<(String, String)>>,
}

impl Imported {
    /// The replay is the run shown: the same scenario, version and knobs, run by
    /// hand along the import's schedule (or part of it, or further on from its
    /// end).
    fn is(&self, p: &Props) -> bool {
        p.manual
            && p.shown.source == self.source
            && p.shown.version.unwrap_or("") == self.view.version
            && p.shown.knobs == self.knobs
            && !self.view.schedule.is_empty()
            && {
                // Running the replay's next goroutine by hand drops the run's
                // later steps: the steps both have must agree.
                let run = p.run.borrow().schedule();
                !run.is_empty()
                    && (run.iter().zip(&self.view.schedule))
                        .all(|(c, &[g, alt])| c.g == g && c.alt == alt)
            }
    }
}

#[derive(Properties)]
pub struct Props {
    /// The scenario shown, for "Replay against the scenario shown".
    pub scenario: AnyScenario,
    pub shown: Shown,
    pub cursor: u32,
    /// The run shown, its revision, and whether its schedule is the user's
    /// (manual): the replay is on screen only while that schedule is the
    /// import's, or goes on from it.
    pub run: Rc<RefCell<AnyRun>>,
    pub rev: u64,
    pub manual: bool,
    pub dispatch: Dispatch,
}

impl PartialEq for Props {
    fn eq(&self, o: &Self) -> bool {
        (
            self.cursor,
            self.rev,
            self.manual,
            &self.shown,
            &self.scenario,
        ) == (o.cursor, o.rev, o.manual, &o.shown, &o.scenario)
            && self.dispatch == o.dispatch
    }
}

/// Why `text` cannot be read at all, if it cannot.
fn refuse(text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return Some("Paste a Milvus log into the box first (or use the example).".to_owned());
    }
    (text.len() > MAX_PASTE_BYTES).then(|| {
        format!(
            "The log is {} bytes; the page reads up to {} MiB ({MAX_PASTE_BYTES} bytes). `flushscope logs FILE` reads {} MiB.",
            text.len(),
            MAX_PASTE_BYTES >> 20,
            flush_core::logs::MAX_LOG_BYTES >> 20
        )
    })
}

/// Where an import's replay is shown: the inferred scenario, or the one on screen.
#[derive(Clone)]
enum Target {
    Inferred,
    Shown(Shown),
}

/// Why an import gave no result, and whether the log pasted is what is wrong
/// (the box is then marked invalid), not the worker that reads it.
#[derive(Clone, PartialEq)]
struct Failure {
    why: String,
    in_text: bool,
}

/// An import's outcome.
type Read = Result<Imported, Failure>;

type Outcome = UseStateHandle<Option<Rc<Read>>>;
/// Versions searched, of how many (`of` 0: the log is still being read).
type Busy = UseStateHandle<Option<(u32, u32)>>;

/// The import runs in a worker of its own (see `flush_worker::import`): the
/// page's module does not carry the log's reader and search.
struct Reader {
    worker: Option<WorkerLink>,
    /// The import under way (its number, where its replay goes), if any:
    /// messages about another are dropped.
    id: u32,
    running: Option<Target>,
    result: Outcome,
    busy: Busy,
}

type Slot = Rc<RefCell<Reader>>;

impl Reader {
    /// Shows `r` and forgets the import under way.
    fn end(&mut self, r: Read) {
        keep_focus();
        self.running = None;
        self.busy.set(None);
        self.result.set(Some(Rc::new(r)));
    }

    /// What the worker said.
    fn heard(&mut self, m: Result<FromWorker, String>) {
        let m = match m {
            Ok(m) => m,
            Err(why) => return self.broke(&why),
        };
        match m {
            FromWorker::Reading { id, done, of } if id == self.id && self.running.is_some() => {
                self.busy.set(Some((done, of)))
            }
            FromWorker::Imported { id, view } if id == self.id => {
                if let Some(target) = self.running.take() {
                    self.end(Ok(imported(*view, target)));
                }
            }
            FromWorker::Failed { id, why } if id == self.id && self.running.is_some() => {
                self.end(Err(Failure {
                    why: escape_unsafe(&why, false).into_owned(),
                    in_text: true,
                }))
            }
            FromWorker::Broken { why } => self.broke(&why),
            _ => {}
        }
    }

    /// The worker failed: the import under way ends with why, and the next one
    /// starts a new worker.
    fn broke(&mut self, why: &str) {
        self.worker = None;
        if self.running.is_some() {
            self.end(Err(Failure {
                why: format!(
                    "The log is read in a Web Worker, which failed: {}. Try again (a new worker starts), or use `flushscope logs FILE`.",
                    escape_unsafe(why, false).trim_end_matches('.')
                ),
                in_text: false,
            }));
        }
    }

    /// Stops the import under way, if any (`true`: there was one).
    fn stop(&mut self) -> bool {
        keep_focus();
        let was = self.running.take().is_some();
        if was {
            if let Some(w) = &self.worker {
                w.send(&ToWorker::Stop {
                    id: self.id,
                    report: false,
                });
            }
        }
        self.busy.set(None);
        was
    }
}

/// The Stop button goes once nothing runs: if it has the focus, "Read the log"
/// takes it, so that the focus is not lost to the page.
fn keep_focus() {
    if crate::focus::on("log-stop") {
        crate::focus::to("log-read");
    }
}

/// A scenario source as the panel names it.
fn source_name(s: &Source) -> &str {
    match s {
        Source::Builtin(name) => name,
        Source::Inline { file, .. } => file,
    }
}

/// The import's replay, where `target` puts it.
fn imported(view: ImportView, target: Target) -> Imported {
    match target {
        Target::Shown(shown) => Imported {
            view,
            source: shown.source,
            knobs: shown.knobs,
        },
        Target::Inferred => Imported {
            source: Source::Inline {
                file: IMPORTED_FILE.to_owned(),
                text: Rc::from(view.inferred.as_deref().unwrap_or("")),
            },
            view,
            knobs: Rc::new(Vec::new()),
        },
    }
}

/// A worker for `slot`, started if there is none.
fn worker(slot: &Slot) -> Option<()> {
    if slot.borrow().worker.is_some() {
        return Some(());
    }
    let (a, b): (Weak<_>, Weak<_>) = (Rc::downgrade(slot), Rc::downgrade(slot));
    let link = WorkerLink::spawn(
        move |m| {
            if let Some(s) = a.upgrade() {
                s.borrow_mut().heard(m);
            }
        },
        move |e: web_sys::Event| {
            if let Some(s) = b.upgrade() {
                let what = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "it stopped with an error".to_owned());
                s.borrow_mut().broke(&what);
            }
        },
    )?;
    slot.borrow_mut().worker = Some(link);
    Some(())
}

/// Starts importing `text` (stopping any import under way), or shows why not.
fn launch(text: &str, target: Target, sc: &AnyScenario, slot: &Slot) {
    slot.borrow_mut().stop();
    if let Some(why) = refuse(text) {
        return slot.borrow_mut().end(Err(Failure { why, in_text: true }));
    }
    let against = match &target {
        Target::Inferred => None,
        Target::Shown(shown) => Some(Box::new(import::against(&shown.source, sc, &shown.knobs))),
    };
    if worker(slot).is_none() {
        return slot.borrow_mut().end(Err(Failure {
            why: "The log is read in a Web Worker, which this page could not start (it needs module workers, and the page served as `cargo xtask serve` serves it). `flushscope logs FILE` reads it on the command line.".to_owned(),
            in_text: false,
        }));
    }
    let mut r = slot.borrow_mut();
    r.id = r.id.wrapping_add(1);
    let m = ToWorker::Import {
        id: r.id,
        text: text.to_owned(),
        against,
    };
    if !r.worker.as_ref().is_some_and(|w| w.send(&m)) {
        r.worker = None;
        return r.end(Err(Failure {
            why: "The log could not be handed to the Web Worker that reads it.".to_owned(),
            in_text: false,
        }));
    }
    r.running = Some(target);
    r.busy.set(Some((0, 0)));
    r.result.set(None);
}

/// Whether the import's replay is the run on screen (see `Imported::is`),
/// looked at again only when the run, its mode, the view or the result change,
/// not at every step (`is` reads the run's whole schedule).
#[hook]
fn use_shown_here(p: &Props, result: Option<&Rc<Read>>) -> bool {
    *use_memo(
        (
            p.rev,
            p.manual,
            p.shown.clone(),
            result.map(|r| Rc::as_ptr(r) as usize),
        ),
        |_| {
            result
                .and_then(|r| r.as_ref().as_ref().ok())
                .is_some_and(|i| i.is(p))
        },
    )
}

#[function_component(LogPanel)]
pub fn log_panel(p: &Props) -> Html {
    let area = use_node_ref();
    let result: Outcome = use_state(|| None);
    let busy: Busy = use_state(|| None);
    let slot: Slot = {
        let (result, busy) = (result.clone(), busy.clone());
        use_mut_ref(move || Reader {
            worker: None,
            id: 0,
            running: None,
            result,
            busy,
        })
    };
    let list = use_node_ref();
    // The user stopped the last import (the live region says so).
    let stopped = use_state(|| false);
    let on_go = |target: Option<Target>, example: bool| {
        let (area, slot, stopped) = (area.clone(), slot.clone(), stopped.clone());
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
            stopped.set(false);
            launch(&a.value(), target, &sc, &slot);
        })
    };
    let on_read = on_go(Some(Target::Inferred), false);
    let on_against = on_go(None, false);
    let on_example = on_go(Some(Target::Inferred), true);
    let on_stop = {
        let (slot, stopped) = (slot.clone(), stopped.clone());
        Callback::from(move |_: MouseEvent| {
            if slot.borrow_mut().stop() {
                stopped.set(true);
            }
        })
    };
    let shown_here = use_shown_here(p, result.as_ref());
    // A log the reader refuses marks its box, as the editor's fields are marked.
    let invalid = matches!(result.as_deref(), Some(Err(f)) if f.in_text);
    let now = if shown_here { p.cursor } else { 0 };
    {
        // The records are drawn once per result (up to 2,000 of them: redrawing
        // them every step cost a frame); a step marks its own here.
        let list = list.clone();
        let shown = result.as_ref().map(Rc::as_ptr);
        use_effect_with((now, shown), move |_| mark_now(&list, now));
    }
    html! {
        <section class="panel logs" aria-labelledby="logs-title">
            <h3 id="logs-title">{"Paste a Milvus log"}</h3>
            <p class="hint">{"A datanode or datacoord log (zap text lines, panics with their goroutine dumps; other lines are kept). \"Read the log\" infers the sync-2024 scenario it shows and finds a schedule that prints its lines in order; \"Replay against the scenario shown\" searches the scenario on screen instead (how a flush-2021 log is read). Then replay it in the stepper."}</p>
            <label for="log-text">{"Milvus log"}</label>
            <textarea id="log-text" ref={area} rows="6" spellcheck="false" autocomplete="off"
                      aria-invalid={invalid.then_some("true")} aria-describedby={invalid.then_some("log-error")}
                      placeholder="[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=300]" />
            <div class="row">
                <button id="log-read" onclick={on_read}>{"Read the log"}</button>
                <button id="log-against" onclick={on_against}>{"Replay against the scenario shown"}</button>
                <button id="log-example" class="link" onclick={on_example}>{"Use the example log (#34018)"}</button>
            </div>
            {progress_view(*busy, *stopped, result.as_ref().map(|r| r.as_ref()), on_stop)}
            {match result.as_ref().map(|r| r.as_ref()) {
                None => html! {},
                Some(Err(f)) => html! { <p id="log-error" class="error" role="alert">{f.why.clone()}</p> },
                Some(Ok(i)) => result_view(i, result.as_ref().map(Rc::clone), shown_here, &p.dispatch, &list),
            }}
        </section>
    }
}

/// A live region that is always there (its text changes, so screen readers
/// hear it): progress with a Stop button beside it, then the outcome's summary.
fn progress_view(
    busy: Option<(u32, u32)>,
    stopped: bool,
    result: Option<&Read>,
    on_stop: Callback<MouseEvent>,
) -> Html {
    html! {
        <div class={classes!("log-progress", busy.is_some().then_some("row"))}>
            <p id="log-status" role="status" class={classes!(busy.is_none().then_some("sr-only"))}>
                {match (busy, result) {
                    (Some((n, of)), _) => html! { <span id="log-busy">{if of == 0 { "Reading the log…".to_owned() } else {
                        format!("Searching for a schedule that prints the log: version {} of {of}…", (n + 1).min(of))
                    }}</span> },
                    (None, Some(Ok(i))) => html! { {summary(&i.view)} },
                    (None, None) if stopped => html! { {"Stopped: the log was not read to the end."} },
                    _ => html! {},
                }}
            </p>
            if busy.is_some() {
                <button id="log-stop" class="link" onclick={on_stop}>{"Stop"}</button>
            }
        </div>
    }
}

/// Marks the records step `now` printed (none for 0) as the current ones, and
/// scrolls the record list (not the page) so that the first of them shows.
fn mark_now(list: &NodeRef, now: u32) {
    let Some(ol) = list.cast::<HtmlElement>() else {
        return;
    };
    let each = |sel: &str, f: &dyn Fn(&web_sys::Element)| {
        if let Ok(all) = ol.query_selector_all(sel) {
            for i in 0..all.length() {
                if let Some(e) = all
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    f(&e);
                }
            }
        }
    };
    each("li.now", &|e| {
        let _ = e.class_list().remove_1("now");
        let _ = e.remove_attribute("aria-current");
    });
    if now == 0 {
        return;
    }
    each(&format!("li[data-step=\"{now}\"]"), &|e| {
        let _ = e.class_list().add_1("now");
        let _ = e.set_attribute("aria-current", "step");
    });
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

fn result_view(
    i: &Imported,
    shown: Option<Rc<Read>>,
    shown_here: bool,
    d: &Dispatch,
    list: &NodeRef,
) -> Html {
    let v = &i.view;
    let under = shown_words(v);
    let summary = summary(v);
    let spec = ViewSpec {
        source: i.source.clone(),
        version: (!v.version.is_empty()).then(|| v.version.clone()),
        compare: None,
        explore: None,
        lens: false,
        matrix: false,
        knobs: i.knobs.to_vec(),
        tour: None,
        seed: None,
        mode: Mode::Manual,
        schedule: Some(v.choices()),
        step: 0,
    };
    let d = d.clone();
    let replay = Callback::from(move |_: MouseEvent| d.dispatch(Action::Load(spec.clone())));
    html! {
        <div id="log-result" data-complete={v.complete.to_string()} data-version={v.version.clone()}>
            <p id="log-summary" class={if v.complete { "v-ok" } else { "v-bad" }}>{summary}</p>
            <ul class="log-notes">{for v.notes.iter().map(|n| html! { <li>{escape_unsafe(n, false).into_owned()}</li> })}</ul>
            {versions_table(v, &i.source)}
            <button id="log-replay" onclick={replay} aria-pressed={shown_here.to_string()}>
                {if shown_here { format!("Replaying under {under} (step back to 0 to start again)") }
                 else { format!("Replay it in the stepper, under {under}") }}
            </button>
            if let Some(result) = shown { <Records {result} list={list.clone()} /> }
            {extra_view(v)}
        </div>
    }
}

/// What the import found, in a sentence.
fn summary(v: &ImportView) -> String {
    let under = shown_words(v);
    if v.complete {
        format!(
            "Under {under}, a schedule of {} prints {} the model knows, in order.",
            count(v.schedule.len(), "step", "steps"),
            match v.wanted {
                1 => "the one line".to_owned(),
                n => format!("all {n} lines"),
            }
        )
    } else {
        format!(
            "No schedule explains the whole log: under {under}, {} of the {} the model knows {} explained in order.",
            v.explained,
            count(v.wanted, "line", "lines"),
            if v.explained == 1 { "is" } else { "are" }
        )
    }
}

/// A version as the panel names it, with the knobs that make its replay a
/// proposal's (a reviewer must never take one for Milvus as released); `""`
/// is a model without versions.
fn version_words(v: &str, proposed: &[String]) -> String {
    let name = if v.is_empty() {
        "the scenario's code"
    } else {
        v
    };
    format!(
        "{name}{}",
        flush_core::report::proposed_words(" (", proposed)
    )
}

/// The version the replay is shown under, as [`version_words`] names it.
fn shown_words(v: &ImportView) -> String {
    let tried = v.tried.iter().find(|t| t.version == v.version);
    version_words(&v.version, tried.map_or(&[][..], |t| &t.proposed))
}

fn versions_table(v: &ImportView, source: &Source) -> Html {
    let caption = if v.inferred.is_some() {
        "Each version the log's line numbers allow".to_owned()
    } else {
        format!(
            "Each version of the scenario shown when it was read ({})",
            source_name(source)
        )
    };
    html! {
        <table id="log-versions" class="matrix">
            <caption>{caption}</caption>
            <thead><tr><th scope="col">{"version"}</th><th scope="col">{"lines explained"}</th><th scope="col">{"first line not explained, and why"}</th></tr></thead>
            <tbody>
            {for v.tried.iter().map(|t| html! {
                <tr data-version={t.version.clone()} data-complete={t.complete.to_string()}>
                    <th scope="row">{version_words(&t.version, &t.proposed)}</th>
                    <td>{format!("{} of {}", t.matched, t.wanted)}</td>
                    <td>{match &t.unexplained {
                        Some(u) => escape_unsafe(u, false).into_owned(),
                        None => "every one".to_owned(),
                    }}</td>
                </tr>
            })}
            </tbody>
        </table>
    }
}

#[derive(Properties)]
struct RecordsProps {
    result: Rc<Read>,
    list: NodeRef,
}

impl PartialEq for RecordsProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.result, &o.result) && self.list == o.list
    }
}

/// The log's records with the replay's mark for each; the records of the step
/// shown are marked by [`mark_now`], so a step does not redraw the list.
#[function_component(Records)]
fn records(p: &RecordsProps) -> Html {
    let Ok(i) = p.result.as_ref() else {
        return html! {};
    };
    let v = &i.view;
    let shown = v.listed.len();
    html! {
        <>
        <h4 id="log-records-title">{format!("The log: {}, {}", count(v.lines as usize, "line", "lines"), count(v.records, "record", "records"))}</h4>
        if shown < v.records {
            <p class="hint">{format!("The first {shown} records are listed; `flushscope logs` lists them all.")}</p>
        }
        if let Some(cut) = &v.cut { <p class="hint">{cut.clone()}</p> }
        <ol id="log-records" ref={p.list.clone()} class="log-records" tabindex="0" aria-labelledby="log-records-title">
            {for v.listed.iter().map(|r| {
                let mark = r.mark();
                let (class, step) = match mark {
                    Mark::Step(s) => ("matched", s.to_string()),
                    Mark::Unexplained => ("unexplained", String::new()),
                    Mark::NotModelled => ("not-modelled", String::new()),
                    Mark::CutShort => ("cut-short", String::new()),
                    Mark::NotALogLine => ("foreign", String::new()),
                    Mark::NotReached => ("not-reached", String::new()),
                };
                html! {
                    <li class={class} data-at={r.at.to_string()} data-step={step}>
                        <span class="at">{r.at}</span>
                        <span class="mark">{mark.words()}</span>
                        <code>{r.text.clone()}</code>
                    </li>
                }
            })}
        </ol>
        </>
    }
}

fn extra_view(v: &ImportView) -> Html {
    if v.extra == 0 {
        return html! {};
    }
    html! {
        <details id="log-extra">
            <summary>{format!("Lines the replay prints that the log lacks ({})", v.extra)}</summary>
            <ul>{for v.extra_listed.iter().take(MAX_LISTED).map(|(step, line)| html! {
                <li><span class="mark">{format!("step {step}")}</span>{" "}<code>{escape_unsafe(line, false).into_owned()}</code></li>
            })}</ul>
        </details>
    }
}
