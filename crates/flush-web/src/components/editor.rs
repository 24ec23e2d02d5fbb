//! The scenario editor: the scenario file as forms (every object a group of
//! fields, every list with add, remove, duplicate and move), the JSON beside it,
//! the CLI's checker after every edit with its error at the field it names,
//! undo and redo, and "Run" (the edited scenario travels in the permalink,
//! deflated) and "Download JSON". Decisions are in `edit.rs`.

use std::rc::Rc;

use flush_core::scenario::json::Json;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::edit::{self, path_text, Edit, History, Seg, Value};
use crate::state::{Action, Dispatch, Source, ViewSpec};

/// Items of one list drawn as forms; the rest are edited in the JSON view.
const MAX_ITEMS: usize = 100;
/// Fields drawn as forms in all (each edit draws the form again: a big file
/// stays responsive); the rest are edited in the JSON view.
const MAX_FIELDS: usize = 1_500;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub source: Source,
    pub dispatch: Dispatch,
}

/// The file behind a source, with the name a download gets.
fn source_text(source: &Source) -> Result<(String, String), String> {
    match source {
        Source::Builtin(name) => flush_core::builtin::text(name)
            .map(|t| (format!("{name}.json"), t.to_owned()))
            .ok_or_else(|| {
                format!("{name} is generated, not a file: pick another scenario to edit.")
            }),
        Source::Inline { file, text } => Ok((file.clone(), text.to_string())),
    }
}

/// The editor's state: the file name, the versions, and a JSON draft that does
/// not parse yet (kept, never lost, until it does or is dropped).
#[derive(Clone, PartialEq)]
struct Doc {
    /// The source these edits started from or were last run as: another source
    /// shown in the page (a scenario picked) opens that one instead.
    shows: Source,
    file: String,
    history: History,
    draft: Option<Draft>,
    /// Why the last edit was refused (the size limit, a stale path).
    refused: Option<String>,
    /// The version `shows` has (opened, or last run): the edits are unsaved
    /// while the current version or a draft differs from it.
    base: Rc<Value>,
}

impl Doc {
    /// Whether the edits are unsaved: a draft, or a version that `shows` has not.
    fn changed(&self) -> bool {
        // By pointer first: this runs at every render, and a scenario may be
        // hundreds of kilobytes of JSON.
        let now = self.history.current();
        self.draft.is_some() || !(Rc::ptr_eq(now, &self.base) || **now == *self.base)
    }
}

/// The JSON view's text that the editor could not take: the text, why, and
/// where its syntax error is (a UTF-16 offset, as a textarea counts) when it
/// does not parse.
#[derive(Clone, PartialEq)]
struct Draft {
    text: String,
    why: String,
    at: Option<u32>,
}

/// Edits kept for this many sources (the most recent ones); unsaved edits are
/// kept whatever their number, until run or discarded.
const KEPT_SOURCES: usize = 3;
/// Local storage key of the unsaved edits (see [`store_unsaved`]).
pub const UNSAVED_KEY: &str = "flushscope.unsaved";

thread_local! {
    /// The editor's edits per source they show, kept when it closes or another
    /// scenario is picked: opening it again on that source gives back the edits,
    /// the draft and the undo history. The most recent last.
    static KEPT: std::cell::RefCell<Vec<Doc>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Whether [`KEPT`] has been given the unsaved edits local storage kept.
    static LOADED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Whether the unsaved edits are in local storage (else leaving the page
    /// asks first: see [`use_leave_guard`]).
    static STORED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// The kept edits of `source`, else `source` opened afresh.
fn reopen(source: &Source) -> Result<Doc, String> {
    load_unsaved();
    let kept = KEPT.with(|k| {
        k.borrow()
            .iter()
            .rev()
            .find(|d| d.shows == *source)
            .cloned()
    });
    // An edit refused before the editor closed is old news.
    kept.map(|d| Doc { refused: None, ..d })
        .map_or_else(|| open_doc(source), Ok)
}

/// Keeps `doc`, in place of the edits that showed `was` (a Run changes what
/// they show).
fn keep(was: &Source, doc: &Doc) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.retain(|d| d.shows != *was && d.shows != doc.shows);
        k.push(doc.clone());
        // The oldest saved edits go; unsaved ones never do by themselves
        // (found by a review of the page: picking another scenario, Back or a
        // link dropped them from sight, and a reload for good).
        while k.len() > KEPT_SOURCES {
            let Some(i) = k.iter().position(|d| !d.changed()) else {
                break;
            };
            k.remove(i);
        }
        store_unsaved(&k);
    });
}

/// An unsaved edit as local storage keeps it: the source it started from
/// (a built-in's name, or a file's name and text), the editor's file name,
/// the last version the editor took, and the JSON view's draft.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    builtin: Option<String>,
    from_file: Option<String>,
    from_text: Option<String>,
    file: String,
    text: String,
    draft: Option<String>,
}

fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// Local storage follows the unsaved edits of `docs` (a reload offers them
/// back); [`STORED`] says whether it took them.
fn store_unsaved(docs: &[Doc]) {
    let unsaved: Vec<Stored> = docs
        .iter()
        .filter(|d| d.changed())
        .map(|d| {
            let (builtin, from_file, from_text) = match &d.shows {
                Source::Builtin(n) => (Some(n.clone()), None, None),
                Source::Inline { file, text } => (None, Some(file.clone()), Some(text.to_string())),
            };
            Stored {
                builtin,
                from_file,
                from_text,
                file: d.file.clone(),
                text: edit::text(d.history.current()),
                draft: d.draft.as_ref().map(|d| d.text.clone()),
            }
        })
        .collect();
    let ok = storage().is_some_and(|s| match unsaved.is_empty() {
        true => s.remove_item(UNSAVED_KEY).is_ok(),
        false => serde_json::to_string(&unsaved).is_ok_and(|j| s.set_item(UNSAVED_KEY, &j).is_ok()),
    });
    STORED.with(|s| s.set(ok));
}

/// The unsaved edit local storage kept as `r`, as the editor holds it; none
/// when it is not one (a stored text that is not JSON comes back as a draft).
fn stored_doc(r: Stored) -> Option<Doc> {
    let shows = match (r.builtin, r.from_file, r.from_text) {
        (Some(n), _, _) => Source::Builtin(n),
        (None, Some(file), Some(text)) => Source::Inline {
            file: crate::permalink::file_name(&file),
            text: text.into(),
        },
        _ => return None,
    };
    let base = source_text(&shows)
        .ok()
        .and_then(|(_, t)| edit::open(&t).ok())
        .unwrap_or(Json::Null);
    let (current, draft) = match take(&r.text) {
        Ok(v) => (v, r.draft),
        Err(_) => (base.clone(), Some(r.text)),
    };
    let draft = draft.map(|text| {
        let (why, at) = take(&text).err().unwrap_or_default();
        Draft { text, why, at }
    });
    Some(Doc {
        shows,
        file: crate::permalink::file_name(&r.file),
        history: History::new(current),
        draft,
        refused: None,
        base: Rc::new(base),
    })
}

/// [`KEPT`] given the unsaved edits local storage kept (once, when the page
/// opens): a reload loses none.
fn load_unsaved() {
    if LOADED.with(|l| l.replace(true)) {
        return;
    }
    let Some(j) = storage().and_then(|s| s.get_item(UNSAVED_KEY).ok().flatten()) else {
        return;
    };
    let docs: Vec<Doc> = serde_json::from_str::<Vec<Stored>>(&j)
        .unwrap_or_default()
        .into_iter()
        .filter_map(stored_doc)
        .collect();
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.retain(|d| docs.iter().all(|n| n.shows != d.shows));
        k.splice(0..0, docs);
    });
}

/// The unsaved edits kept, the most recent first, but the one the editor shows.
fn unsaved_elsewhere(open: Option<&Source>) -> Vec<Doc> {
    load_unsaved();
    KEPT.with(|k| {
        k.borrow()
            .iter()
            .rev()
            .filter(|d| d.changed() && Some(&d.shows) != open)
            .cloned()
            .collect()
    })
}

fn open_doc(source: &Source) -> Result<Doc, String> {
    let (file, text) = source_text(source)?;
    let file = if file.starts_with("edited-") {
        file
    } else {
        crate::permalink::file_name(&format!("edited-{file}"))
    };
    Ok(Doc {
        shows: source.clone(),
        file,
        history: History::new(edit::open(&text)?),
        draft: None,
        refused: None,
        base: Rc::new(Json::Null),
    }
    .based())
}

impl Doc {
    /// This doc with its current version as its base (nothing unsaved).
    fn based(mut self) -> Doc {
        self.base = self.history.current().clone();
        self
    }
}

/// Where a field's input lives in the page: an id from its path, one per path.
/// A key keeps its ASCII letters and digits and writes any other character as
/// `_` and its hex code (so `c-1`, `c.1` and `c_1` differ); a key follows a
/// `-`, an index stands between two.
fn field_id(path: &[Seg]) -> String {
    use std::fmt::Write as _;
    let mut id = "ed".to_owned();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                id.push('-');
                for c in k.chars() {
                    if c.is_ascii_alphanumeric() {
                        id.push(c);
                    } else {
                        let _ = write!(id, "_{:x}_", u32::from(c));
                    }
                }
            }
            Seg::Index(i) => {
                let _ = write!(id, "-{i}-");
            }
        }
    }
    id
}

/// What the form needs at every node: how to edit, and the checker's error.
#[derive(Clone)]
struct Ctx {
    edit: Callback<Edit>,
    error: Option<(String, String)>,
    /// Fields still to draw (see [`MAX_FIELDS`]).
    left: Rc<std::cell::Cell<usize>>,
}

impl Ctx {
    fn error_at(&self, path: &[Seg]) -> Option<&str> {
        self.error
            .as_ref()
            .filter(|(p, _)| *p == path_text(path))
            .map(|(_, m)| m.as_str())
    }
}

fn child(path: &[Seg], seg: Seg) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(seg);
    p
}

fn label_of(path: &[Seg]) -> String {
    match path.last() {
        Some(Seg::Key(k)) => k.clone(),
        Some(Seg::Index(i)) => format!("item {}", i + 1),
        None => "scenario".to_owned(),
    }
}

/// An object's legend: its place, and the field that tells it apart (an actor's
/// name, an op, an injection's id, a segment).
fn legend_of(path: &[Seg], fields: &[(String, Value)]) -> String {
    let tell = ["name", "op", "id", "segment"]
        .iter()
        .find_map(|k| fields.iter().find(|f| f.0 == *k));
    match tell {
        Some((k, Json::Str(v))) => format!("{}: {k} {v}", label_of(path)),
        Some((k, v @ (Json::Num(_) | Json::Bool(_)))) => {
            format!("{}: {k} {}", label_of(path), edit::text(v).trim_end())
        }
        _ => label_of(path),
    }
}

/// One scalar: a checkbox for a boolean, a text field else (numbers stay numbers).
fn scalar_view(path: &[Seg], v: &Value, cx: &Ctx) -> Html {
    cx.left.set(cx.left.get().saturating_sub(1));
    let id = field_id(path);
    let err = cx.error_at(path);
    let err_id = format!("{id}-error");
    let p = path.to_vec();
    let input = match v {
        Json::Bool(b) => {
            let (edit, p) = (cx.edit.clone(), p.clone());
            let on = Callback::from(move |e: Event| {
                let on = e.target_unchecked_into::<HtmlInputElement>().checked();
                edit.emit(Edit::Set(p.clone(), Json::Bool(on)))
            });
            html! { <input type="checkbox" id={id.clone()} checked={*b} onchange={on} /> }
        }
        _ => {
            let edit = cx.edit.clone();
            let on = Callback::from(move |e: Event| {
                let t = e.target_unchecked_into::<HtmlInputElement>().value();
                edit.emit(Edit::Text(p.clone(), t))
            });
            let text = match v {
                Json::Str(s) => s.clone(),
                other => edit::text(other).trim_end().to_owned(),
            };
            html! { <input type="text" id={id.clone()} value={text} onchange={on}
            aria-invalid={err.is_some().then_some("true")}
            aria-describedby={err.is_some().then(|| err_id.clone())} /> }
        }
    };
    html! {
        <div class={classes!("ed-field", err.is_some().then_some("bad"))} data-path={path_text(path)}>
            <label for={id}>{label_of(path)}</label>
            {input}
            if let Some(m) = err { <p class="ed-error" id={err_id}>{m}</p> }
        </div>
    }
}

/// The buttons of a list item: move up, move down, duplicate, remove.
fn item_tools(array: &[Seg], i: usize, n: usize, cx: &Ctx) -> Html {
    let name = path_text(&child(array, Seg::Index(i)));
    let button = |text: &'static str, what: &str, tool: Tool, e: Edit, off: bool| {
        let edit = cx.edit.clone();
        let on = Callback::from(move |_: MouseEvent| edit.emit(e.clone()));
        html! { <button class="ed-tool" id={tool_id(array, Some(i), tool)} onclick={on} disabled={off} aria-label={format!("{what} {name}")} title={format!("{what} {name}")}>{text}</button> }
    };
    let a = array.to_vec();
    html! {
        <span class="ed-tools">
            {button("↑", "Move up", Tool::Up, Edit::Move { array: a.clone(), from: i, to: i.saturating_sub(1) }, i == 0)}
            {button("↓", "Move down", Tool::Down, Edit::Move { array: a.clone(), from: i, to: i + 1 }, i + 1 == n)}
            {button("Copy", "Duplicate", Tool::Copy, Edit::Duplicate(a.clone(), i), false)}
            {button("✕", "Remove", Tool::Remove, Edit::Remove(a, i), false)}
        </span>
    }
}

/// A list's buttons: an item's four, and the list's Add.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Up,
    Down,
    Copy,
    Remove,
    Add,
}

impl Tool {
    /// Its part of the button's id (ASCII: no Unicode case tables in the page).
    fn word(self) -> &'static str {
        match self {
            Tool::Up => "up",
            Tool::Down => "down",
            Tool::Copy => "copy",
            Tool::Remove => "remove",
            Tool::Add => "add",
        }
    }
}

/// Where a list's button lives in the page: its item's place (none for Add).
fn tool_id(array: &[Seg], item: Option<usize>, tool: Tool) -> String {
    let at = match item {
        Some(i) => field_id(&child(array, Seg::Index(i))),
        None => field_id(array),
    };
    format!("{at}--{}", tool.word())
}

/// The button that takes the keyboard focus after a list edit, as its item
/// moved: the copy's Duplicate, the moved item's button (the other one at an
/// end), the Remove of the item after a removed one (else before it, else the
/// list's Add). `len` is the list's length before the edit.
fn focus_after(e: &Edit, len: usize) -> Option<String> {
    Some(match e {
        Edit::Duplicate(a, i) => tool_id(a, Some(i + 1), Tool::Copy),
        Edit::Move { array, from, to } => {
            let tool = match (to < from, *to) {
                (true, 0) => Tool::Down,
                (true, _) => Tool::Up,
                (false, t) if t + 1 >= len => Tool::Up,
                (false, _) => Tool::Down,
            };
            tool_id(array, Some(*to), tool)
        }
        Edit::Remove(a, i) if i + 1 < len => tool_id(a, Some(*i), Tool::Remove),
        Edit::Remove(a, i) if *i > 0 => tool_id(a, Some(i - 1), Tool::Remove),
        Edit::Remove(a, _) => tool_id(a, None, Tool::Add),
        _ => return None,
    })
}

/// The length of the list at `path` in `v` (0 if there is none).
fn list_len(v: &Value, path: &[Seg]) -> usize {
    match edit::get(v, path) {
        Some(Json::Arr(items)) => items.len(),
        _ => 0,
    }
}

fn array_view(path: &[Seg], items: &[Value], cx: &Ctx) -> Html {
    let add = {
        let (edit, p) = (cx.edit.clone(), path.to_vec());
        Callback::from(move |_: MouseEvent| edit.emit(Edit::Add(p.clone())))
    };
    let n = items.len();
    html! {
        <fieldset class="ed-list" data-path={path_text(path)}>
            <legend>{format!("{} ({n})", label_of(path))}</legend>
            if let Some(m) = cx.error_at(path) { <p class="ed-error">{m}</p> }
            <ol>
                {for items.iter().take(MAX_ITEMS).enumerate().map(|(i, x)| html! {
                    <li>
                        {item_tools(path, i, n, cx)}
                        {node_view(&child(path, Seg::Index(i)), x, cx)}
                    </li>
                })}
            </ol>
            if n > MAX_ITEMS { <p class="muted">{format!("{} more items: edit them in the JSON view.", n - MAX_ITEMS)}</p> }
            <button class="ed-add" id={tool_id(path, None, Tool::Add)} onclick={add}>{format!("Add to {}", label_of(path))}</button>
        </fieldset>
    }
}

fn node_view(path: &[Seg], v: &Value, cx: &Ctx) -> Html {
    if cx.left.get() == 0 {
        return html! {};
    }
    match v {
        Json::Obj(m) => {
            let fields = html! {
                {for m.iter().map(|(k, x)| node_view(&child(path, Seg::Key(k.clone())), x, cx))}
            };
            if path.is_empty() {
                return fields;
            }
            html! {
                <fieldset class="ed-object" data-path={path_text(path)}>
                    <legend>{legend_of(path, m)}</legend>
                    if let Some(m) = cx.error_at(path) { <p class="ed-error">{m}</p> }
                    {fields}
                </fieldset>
            }
        }
        Json::Arr(a) => array_view(path, a, cx),
        _ => scalar_view(path, v, cx),
    }
}

/// The editor's state for `source`: kept edits, or the file opened afresh; a
/// scenario picked in the page opens its own.
#[hook]
fn use_doc(source: &Source) -> UseStateHandle<Result<Doc, String>> {
    // The edits live here while the page shows what they started from or ran as.
    // Closing keeps them (see `KEPT`): every change is kept as it is made.
    let opened = use_state(|| reopen(source));
    {
        let opened = opened.clone();
        use_effect_with(source.clone(), move |s| {
            if !matches!(&*opened, Ok(d) if d.shows == *s) {
                opened.set(reopen(s));
            }
        });
    }
    opened
}

/// The id of the element that takes the keyboard focus once the editor is drawn
/// again (see [`focus_after`]).
#[hook]
fn use_focus_next() -> FocusNext {
    let focus_next = use_mut_ref(|| None::<(String, bool)>);
    {
        let f = focus_next.clone();
        use_effect(move || {
            if let Some((id, only_if_lost)) = f.borrow_mut().take() {
                if !only_if_lost || crate::focus::lost() {
                    crate::focus::to(&id);
                }
            }
        });
    }
    focus_next
}

/// What a form edit does: the draft goes (the forms are off while one is held),
/// the history takes the edit, and a list edit's button keeps the focus.
fn edit_callback(update: &Update, current: &Rc<Value>, focus_next: FocusNext) -> Callback<Edit> {
    let (update, current) = (update.clone(), current.clone());
    Callback::from(move |e: Edit| {
        let array = match &e {
            Edit::Duplicate(a, _) | Edit::Remove(a, _) | Edit::Move { array: a, .. } => a,
            _ => &Vec::new(),
        };
        let target = focus_after(&e, list_len(&current, array));
        let focus_next = focus_next.clone();
        update.emit(Box::new(move |d: &mut Doc| {
            d.draft = None;
            d.refused = d.history.edit(&e).err();
            // A refused edit moved nothing: the focus stays.
            if d.refused.is_none() {
                *focus_next.borrow_mut() = target.clone().map(|id| (id, false));
            }
        }))
    })
}

#[function_component(Editor)]
pub fn editor(p: &EditorProps) -> Html {
    let opened = use_doc(&p.source);
    // Opening moves the focus to the editor (its heading); closing gives it back to Edit.
    use_effect_with((), |_| crate::focus::to("editor-title"));
    // After a list edit, the button its item moved to takes the focus (the one
    // clicked may be gone, or now another item's).
    let focus_next = use_focus_next();
    let close = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::Editor(false));
            crate::focus::to("edit");
        })
    };
    let doc = match &*opened {
        Err(e) => {
            return html! {
                <section class="panel editor" id="editor" aria-labelledby="editor-title">
                    <h2 id="editor-title" tabindex="-1">{"Edit the scenario"}</h2>
                    <p class="callout" id="editor-refused">{e.clone()}</p>
                    <button onclick={close}>{"Close the editor"}</button>
                </section>
            };
        }
        Ok(doc) => doc.clone(),
    };
    let current = doc.history.current().clone();
    let verdict = edit::check(&current, &doc.file);
    let update = {
        let opened = opened.clone();
        Callback::from(move |f: Box<dyn Fn(&mut Doc)>| {
            if let Ok(doc) = &*opened {
                let mut next = doc.clone();
                f(&mut next);
                keep(&doc.shows, &next);
                opened.set(Ok(next));
            }
        })
    };
    let on_edit = edit_callback(&update, &current, focus_next.clone());
    let error = verdict
        .as_ref()
        .err()
        .map(|e| (e.path.clone().unwrap_or_default(), e.message.clone()));
    let cx = Ctx {
        edit: on_edit.clone(),
        error: error.clone(),
        left: Rc::new(std::cell::Cell::new(MAX_FIELDS)),
    };
    let form = node_view(&[], &current, &cx);
    html! {
        <section class="panel editor" id="editor" aria-labelledby="editor-title">
            <h2 id="editor-title" tabindex="-1">{format!("Edit the scenario: {}", doc.file)}</h2>
            {toolbar(&doc, &current, verdict.as_ref().ok(), &update, &p.dispatch, (close, &focus_next))}
            {status(verdict.as_ref().err(), doc.draft.as_ref().map(|d| d.why.as_str()), doc.refused.as_deref())}
            if cx.left.get() == 0 {
                <p class="callout" id="ed-cut">{format!("The form shows the first {MAX_FIELDS} fields; edit the others in the JSON view.")}</p>
            }
            if let Some(d) = &doc.draft { {drop_draft(&update, d.at)} }
            <div class="ed-body">
                <div class="ed-form" role="group" aria-label="the scenario as forms">
                    // A form edit would replace the JSON view's draft: the forms
                    // wait until it parses or is dropped.
                    <fieldset class="ed-lock" disabled={doc.draft.is_some()}>
                        {form}
                    </fieldset>
                </div>
                {json_view(&doc, &current, &update, on_edit, focus_next)}
            </div>
        </section>
    }
}

type Update = Callback<Box<dyn Fn(&mut Doc)>>;
/// The id of the element that takes the focus once the editor is drawn again,
/// and whether only if the focus was lost (see [`use_focus_next`]).
type FocusNext = Rc<std::cell::RefCell<Option<(String, bool)>>>;

/// While the JSON view holds a draft the editor cannot take: a button that drops
/// it for the forms' version (the only way a draft goes but by being fixed).
/// With `at` (where the draft's syntax error is), a button that puts the caret
/// there.
fn drop_draft(update: &Update, at: Option<u32>) -> Html {
    let u = update.clone();
    let drop = Callback::from(move |_: MouseEvent| {
        u.emit(Box::new(|d: &mut Doc| d.draft = None));
        crate::focus::to("ed-json");
    });
    let goto = Callback::from(move |_: MouseEvent| {
        let Some(at) = at else { return };
        let Some(t) = gloo::utils::document().get_element_by_id("ed-json") else {
            return;
        };
        if let Ok(t) = t.dyn_into::<HtmlTextAreaElement>() {
            // Selecting does not scroll the box; focusing it again does
            // (Chromium, Firefox), to the caret.
            let _ = t.set_selection_range(at, at);
            let _ = t.blur();
            let _ = t.focus();
        }
    });
    html! {
        <p class="ed-draft">
            {"The forms, Undo and Redo wait until the JSON view's text is taken. "}
            if at.is_some() {
                <button id="ed-goto" onclick={goto}>{"Show where it does not parse"}</button>
                {" "}
            }
            <button id="ed-drop" onclick={drop}>{"Drop the JSON draft"}</button>
            {" (the JSON view then shows the forms' version)."}
        </p>
    }
}

fn toolbar(
    doc: &Doc,
    current: &Rc<Value>,
    ok: Option<&flush_core::AnyScenario>,
    update: &Update,
    d: &Dispatch,
    (close, focus_next): (Callback<MouseEvent>, &FocusNext),
) -> Html {
    // The oldest (newest) version turns Undo (Redo) off under the focus: the
    // other button, which that step turned on, takes it.
    let step = |f: fn(&mut History), other: &'static str| {
        let (u, focus_next) = (update.clone(), focus_next.clone());
        Callback::from(move |_: MouseEvent| {
            *focus_next.borrow_mut() = Some((other.to_owned(), true));
            u.emit(Box::new(move |d: &mut Doc| f(&mut d.history)))
        })
    };
    let undo = step(History::undo, "ed-redo");
    let redo = step(History::redo, "ed-undo");
    let text = edit::text(current);
    let run = ok.filter(|_| doc.draft.is_none()).map(|sc| {
        let source = Source::Inline {
            file: doc.file.clone(),
            text: text.clone().into(),
        };
        let spec = ViewSpec::fresh(source.clone(), sc);
        let (d, u) = (d.clone(), update.clone());
        Callback::from(move |_: MouseEvent| {
            let s = source.clone();
            u.emit(Box::new(move |doc: &mut Doc| {
                // Run: the edits are the view's now (its link carries them).
                doc.shows = s.clone();
                doc.base = doc.history.current().clone();
            }));
            d.dispatch(Action::Load(spec.clone()))
        })
    });
    let download = {
        let (file, text) = (doc.file.clone(), text);
        Callback::from(move |_: MouseEvent| {
            crate::export::download(&file, "application/json", &text)
        })
    };
    html! {
        <div class="ed-toolbar">
            <button id="ed-undo" onclick={undo} disabled={doc.draft.is_some() || !doc.history.can_undo()}>{"↶ Undo"}</button>
            <button id="ed-redo" onclick={redo} disabled={doc.draft.is_some() || !doc.history.can_redo()}>{"↷ Redo"}</button>
            <button id="ed-run" class="primary" onclick={run.clone().unwrap_or_default()} disabled={run.is_none()}
                    title="Run the edited scenario (the permalink then carries it)">{"Run this scenario"}</button>
            <button id="ed-download" onclick={download}
                    title={if doc.draft.is_some() { "The last version the editor took, not the JSON draft" } else { "A file flushscope run accepts" }}>{"Download JSON"}</button>
            <button id="ed-close" onclick={close}>{"Close the editor"}</button>
        </div>
    }
}

/// The checker's verdict, said once per change (a status region).
fn status(
    e: Option<&flush_core::ScenarioError>,
    draft_error: Option<&str>,
    refused: Option<&str>,
) -> Html {
    let bad = e.is_some() || draft_error.is_some() || refused.is_some();
    html! {
        <div role="status" id="ed-status" class={classes!("ed-status", bad.then_some("bad"))}>
            if let Some(j) = draft_error {
                {j.to_owned()}
            } else if let Some(r) = refused {
                {format!("That edit was not made: {r}")}
            } else if let Some(e) = e {
                {format!("The checker refuses it: {}{}", e.path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default(), e.message)}
            } else {
                {"The checker accepts it: Run shows it, Download gives the file."}
            }
        </div>
    }
}

/// The JSON view's text `t` as the editor takes it, or why it cannot (it does
/// not parse, or is too big once laid out: it then stays in the box as a
/// draft), and where its syntax error is (found once: a draft may be megabytes).
fn take(t: &str) -> Result<Value, (String, Option<u32>)> {
    match edit::parse(t) {
        Err(_) if t.trim().is_empty() => Err(("The JSON view is empty; a scenario is a JSON object. The forms show the last version the editor took; Run waits for the text.".to_owned(), None)),
        Err(j) => match edit::error_offset(t) {
            // It parses, with a number the editor cannot write back exactly.
            None => Err((format!("The JSON view is not taken: {j}. The forms show the last version the editor took; Run waits until it is fixed."), None)),
            at => Err((format!("The JSON view does not parse: {j}. The forms show the last version that did; Run waits until it parses."), at)),
        },
        Ok(v) => match edit::too_big(&v) {
            None => Ok(v),
            Some(size) => Err((format!(
                "This scenario is {} KB as the editor lays it out; the editor takes up to {} KB, so the JSON view keeps it as it is. Copy it into a file and load that with Upload (Download JSON saves the last version the editor took, not this text); the forms show that version.",
                size / 1024,
                edit::MAX_EDIT_BYTES / 1024
            ), None)),
        },
    }
}

/// The JSON of the current version; edits there replace the tree once they parse.
fn json_view(
    doc: &Doc,
    current: &Value,
    update: &Update,
    on_edit: Callback<Edit>,
    focus_next: FocusNext,
) -> Html {
    let shown = doc
        .draft
        .as_ref()
        .map_or_else(|| edit::text(current), |d| d.text.clone());
    let on_change = {
        let u = update.clone();
        Callback::from(move |e: Event| {
            let t = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            match take(&t) {
                Ok(v) => on_edit.emit(Edit::Replace(v)),
                Err((msg, at)) => {
                    // Leaving the box for a form field, which the draft now
                    // turns off: the focus goes to the way out of the draft.
                    *focus_next.borrow_mut() = Some(("ed-drop".to_owned(), true));
                    u.emit(Box::new(move |d: &mut Doc| {
                        d.draft = Some(Draft {
                            text: t.clone(),
                            why: msg.clone(),
                            at,
                        })
                    }))
                }
            }
        })
    };
    html! {
        <div class="ed-json">
            <label for="ed-json">{"JSON (edit here too; it applies when you leave the field)"}</label>
            <textarea id="ed-json" spellcheck="false" value={shown} onchange={on_change} rows="30"
                      aria-invalid={doc.draft.is_some().then_some("true")}
                      aria-describedby={doc.draft.is_some().then_some("ed-status")} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct UnsavedProps {
    /// The source the page shows.
    pub source: Source,
    /// The editor is open (on `source`).
    pub editor: bool,
    pub dispatch: Dispatch,
}

/// Leaving the page (reload, another address, closing the tab) asks first
/// while an unsaved edit is not in local storage (it would be lost); one that
/// is comes back with [`UnsavedEdits`].
#[hook]
fn use_leave_guard() {
    use_effect_with((), |_| {
        let opts = gloo::events::EventListenerOptions::enable_prevent_default();
        let win = gloo::utils::window();
        let l = gloo::events::EventListener::new_with_options(&win, "beforeunload", opts, |e| {
            let unsaved = KEPT.with(|k| k.borrow().iter().any(Doc::changed));
            if unsaved && !STORED.with(|s| s.get()) {
                e.prevent_default();
                let _ = js_sys::Reflect::set(e, &"returnValue".into(), &"".into());
            }
        });
        move || drop(l)
    });
}

/// What Restore does: the page shows the scenario the edit started from
/// (a fresh view of it) with the editor open on the edit.
fn restore(doc: &Doc, shown: &Source, d: &Dispatch) {
    if doc.shows != *shown {
        match crate::state::scenario_of(&doc.shows) {
            Ok(sc) => d.dispatch(Action::Load(ViewSpec::fresh(doc.shows.clone(), &sc))),
            Err(e) => {
                return d.dispatch(Action::Error(format!(
                    "The scenario your edit of {} started from cannot be opened: {} Download keeps the edit as a file.",
                    doc.file,
                    crate::state::sentence(&e)
                )))
            }
        }
    }
    d.dispatch(Action::Editor(true));
    crate::focus::to("editor-title");
}

/// The unsaved edits the editor does not show (another scenario was picked,
/// Back, a link, a reload, or the editor closed), each offered back: Restore,
/// Download, Discard. Nothing the user edited is lost without their word.
#[function_component(UnsavedEdits)]
pub fn unsaved_edits(p: &UnsavedProps) -> Html {
    use_leave_guard();
    let redraw = use_force_update();
    let docs = unsaved_elsewhere(p.editor.then_some(&p.source));
    let item = |(i, doc): (usize, Doc)| {
        let file = doc.file.clone();
        let on_restore = {
            let (doc, shown, d) = (doc.clone(), p.source.clone(), p.dispatch.clone());
            Callback::from(move |_: MouseEvent| restore(&doc, &shown, &d))
        };
        let on_download = {
            let (file, text) = (
                doc.file.clone(),
                doc.draft
                    .as_ref()
                    .map_or_else(|| edit::text(doc.history.current()), |d| d.text.clone()),
            );
            Callback::from(move |_: MouseEvent| {
                crate::export::download(&file, "application/json", &text)
            })
        };
        let on_discard = {
            let (shows, redraw) = (doc.shows.clone(), redraw.clone());
            Callback::from(move |_: MouseEvent| {
                KEPT.with(|k| {
                    let mut k = k.borrow_mut();
                    k.retain(|d| d.shows != shows);
                    store_unsaved(&k);
                });
                redraw.force_update();
                crate::focus::to("edit");
            })
        };
        html! {
            <div class="notice unsaved" id={format!("unsaved-{i}")}>
                <span id={format!("unsaved-text-{i}")}>{format!("Your unsaved edit of {file} was kept (it is not in the view shown):")}</span>
                <button id={format!("unsaved-restore-{i}")} onclick={on_restore} aria-label={format!("Restore your edit of {file}")}>{"Restore"}</button>
                <button id={format!("unsaved-download-{i}")} onclick={on_download} aria-label={format!("Download your edit of {file}")}>{"Download"}</button>
                <button id={format!("unsaved-discard-{i}")} onclick={on_discard} aria-label={format!("Discard your edit of {file}")}>{"Discard"}</button>
            </div>
        }
    };
    // Always in the page, empty or not: a live region must exist before its
    // text changes.
    html! {
        <div id="unsaved" role="status">
            {for docs.into_iter().enumerate().map(item)}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids tell apart keys that differ only in punctuation, and keep the
    /// plain ones the tests name.
    #[test]
    fn field_ids_are_one_per_path() {
        let key = |k: &str| Seg::Key(k.to_owned());
        let ids: Vec<String> = ["c-1", "c.1", "c_1", "c1"]
            .iter()
            .map(|k| field_id(&[key("injections"), key(k), key("remap_to")]))
            .collect();
        for (i, a) in ids.iter().enumerate() {
            assert!(ids[i + 1..].iter().all(|b| b != a), "{ids:?}");
        }
        assert_eq!(field_id(&[key("seed")]), "ed-seed");
        assert_eq!(
            field_id(&[key("datacoord"), Seg::Index(3), key("statslog")]),
            "ed-datacoord-3--statslog"
        );
        assert_ne!(
            field_id(&[key("a"), Seg::Index(3), key("b")]),
            field_id(&[key("a"), key("3"), key("b")])
        );
    }

    fn actors() -> Vec<Seg> {
        vec![Seg::Key("actors".into())]
    }

    /// After a list edit the focus goes where its item went, never nowhere.
    #[test]
    fn the_focus_follows_a_list_edit() {
        let a = actors();
        let id = |i: Option<usize>, t: Tool| tool_id(&a, i, t);
        assert_eq!(id(Some(0), Tool::Remove), "ed-actors-0---remove");
        assert_eq!(id(None, Tool::Add), "ed-actors--add");
        let at = |e: Edit, len: usize| focus_after(&e, len);
        // Removing the first of three: the next one (now first) takes it.
        assert_eq!(
            at(Edit::Remove(a.clone(), 0), 3),
            Some(id(Some(0), Tool::Remove))
        );
        // The last of three: the one before it.
        assert_eq!(
            at(Edit::Remove(a.clone(), 2), 3),
            Some(id(Some(1), Tool::Remove))
        );
        // The only one: the list's Add.
        assert_eq!(at(Edit::Remove(a.clone(), 0), 1), Some(id(None, Tool::Add)));
        assert_eq!(
            at(Edit::Duplicate(a.clone(), 0), 2),
            Some(id(Some(1), Tool::Copy))
        );
        let mv = |from, to| Edit::Move {
            array: a.clone(),
            from,
            to,
        };
        assert_eq!(at(mv(2, 1), 3), Some(id(Some(1), Tool::Up)));
        assert_eq!(
            at(mv(1, 0), 3),
            Some(id(Some(0), Tool::Down)),
            "Up is off at the top"
        );
        assert_eq!(at(mv(0, 1), 3), Some(id(Some(1), Tool::Down)));
        assert_eq!(
            at(mv(1, 2), 3),
            Some(id(Some(2), Tool::Up)),
            "Down is off at the end"
        );
        assert_eq!(at(Edit::Add(a.clone()), 3), None);
    }

    #[test]
    fn list_len_reads_the_list_at_a_path() {
        let v = edit::parse(r#"{"actors": [{"ops": [1, 2]}, {}]}"#).unwrap();
        assert_eq!(list_len(&v, &actors()), 2);
        let ops = vec![
            Seg::Key("actors".into()),
            Seg::Index(0),
            Seg::Key("ops".into()),
        ];
        assert_eq!(list_len(&v, &ops), 2);
        assert_eq!(list_len(&v, &[Seg::Key("none".into())]), 0);
    }
}
