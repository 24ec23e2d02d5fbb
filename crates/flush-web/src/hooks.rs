//! The page's effects, one hook each: the run (from the URL fragment or local
//! storage), the permalink that follows the view, pasted permalinks, the
//! keyboard, the play timer, and uploads.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::explore::RunRaces;
use flush_core::view::Figures;
use flush_core::AnyRun;
use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::permalink;
use crate::state::{Action, AppState, Dispatch, Source, ViewSpec};

/// Local storage key of the last view (its permalink fragment).
pub const STORAGE_KEY: &str = "flushscope.view";
/// The address bar and local storage follow the view this long after it settles
/// (browsers throttle history.replaceState).
const PERMALINK_DEBOUNCE_MS: u32 = 250;
/// The fastest play timer.
const MIN_TICK_MS: u32 = 16;

/// The page's local storage (absent in some privacy modes: then nothing is saved).
fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// The view saved last (local storage), if any: built, or why it cannot be.
/// One whose scenario opens but whose step, knob or another part does not is
/// opened without that part, saying so ([`AppState::salvage`]).
fn saved_view() -> Option<Result<AppState, String>> {
    let saved = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())?;
    // Stored as a fragment, but no URL's: its messages name the stored view.
    let spec = match permalink::decode(&saved) {
        Ok(spec) => spec,
        Err(e) => return Some(Err(e.replacen("URL fragment: ", "the stored view: ", 1))),
    };
    Some(AppState::opening_saved(&spec))
}

/// The view the page opens on: the URL fragment, else the saved view, else the
/// default. A broken link leaves a message and the saved view (a stale link
/// must not cost the user an edited scenario: the saved view is written over
/// at the first change), else the default; a saved view whose scenario opens
/// but not all of it, that scenario and a message; a broken saved view, a
/// message and the default.
fn initial_state() -> AppState {
    let hash = gloo::utils::window().location().hash().unwrap_or_default();
    let frag = hash.trim_start_matches('#');
    if !frag.is_empty() {
        // A long run is built under the saved view (else the default), which
        // stays if the link then cannot be shown.
        let base = || saved_view().and_then(Result::ok);
        return match permalink::decode(frag).and_then(|spec| AppState::opening(&spec, base)) {
            Ok(s) => s,
            Err(e) => {
                let why = crate::state::sentence(&e);
                match saved_view() {
                    Some(Ok(mut s)) => {
                        // What the saved view itself lost, if anything, is said too.
                        let more = s.error.take().map(|n| format!(" {n}")).unwrap_or_default();
                        AppState::instead_of_link_with(
                            s,
                            format!("{why} Showing the view you had open last instead.{more}"),
                        )
                    }
                    // Why the saved view was passed over too (a review
                    // found only the link's fault said).
                    Some(Err(e)) => AppState::instead_of_link(format!(
                        "{why} Your saved view (local storage) could not be restored either: {} Showing the default scenario instead.",
                        crate::state::sentence(&e)
                    )),
                    None => AppState::instead_of_link(format!(
                        "{why} Showing the default scenario instead."
                    )),
                }
            }
        };
    }
    if let Some(saved) = saved_view() {
        return match saved {
            Ok(s) => s,
            Err(e) => {
                if let Some(s) = storage() {
                    let _ = s.remove_item(STORAGE_KEY);
                }
                AppState::fallback(format!(
                    "Your saved view (local storage) could not be restored: {} It was cleared.",
                    crate::state::sentence(&e)
                ))
            }
        };
    }
    AppState::from_spec(&ViewSpec::default_view()).expect("the default view loads")
}

/// The app's state, opened on the view the URL or local storage asks for.
#[hook]
pub fn use_run() -> UseReducerHandle<AppState> {
    use_reducer(initial_state)
}

/// The address bar shows `frag`: a new history entry when it is another run
/// than the one `shown` (see [`permalink::run_part`]) and not one Back or
/// Forward went to (`traversed`), else the entry written over.
fn write_address(frag: &str, shown: &RefCell<Option<String>>, traversed: &RefCell<bool>) {
    let Ok(h) = gloo::utils::window().history() else {
        return;
    };
    // A view too big for a link leaves the address bar without one (a reload
    // then opens the stored view, not a link the browser refuses).
    let url = match permalink::linkable(frag) {
        true => format!("#{frag}"),
        false => {
            let at = gloo::utils::window().location();
            let path = at.pathname().unwrap_or_default();
            format!("{path}{}", at.search().unwrap_or_default())
        }
    };
    let run = permalink::run_part(frag);
    let new_run = shown.borrow().as_ref().is_some_and(|r| *r != run);
    // Cleared at the first write after Back or Forward, whatever it is (the
    // next run the user opens is pushed: found by a helper, it replaced the
    // entry Back had gone to).
    let traversed = traversed.replace(false);
    // A view too big for a link is not pushed: its entry would have no
    // fragment to come back to.
    let push = new_run && !traversed && permalink::linkable(frag);
    let null = wasm_bindgen::JsValue::NULL;
    let _ = match push {
        true => h.push_state_with_url(&null, "", Some(&url)),
        false => h.replace_state_with_url(&null, "", Some(&url)),
    };
    *shown.borrow_mut() = Some(run);
}

/// The URL fragment and local storage follow the view; a pasted permalink
/// (hashchange) loads its view.
#[hook]
pub fn use_permalink(state: &UseReducerHandle<AppState>) {
    // The view whose storage refusal was said (its length and hash): said once,
    // not again at each change of the state the notice itself makes (a review
    // found it said every 250 ms, the notice's OK undone).
    let warned = use_mut_ref(|| None::<(usize, u64)>);
    // The run the address bar shows ([`permalink::run_part`]), at first the
    // run the page opened on: its first write replaces the link it was opened
    // with, and another run, opened before that write or in place of a link
    // that could not be opened, is a new entry (Back returns to the link).
    // A link to a long run opens on another view while it is built: the run
    // shown is then the one the link asks for (its entry is written over).
    let shown = use_mut_ref(|| {
        let building = state.building.as_ref();
        let asked = building.and_then(|b| b.borrow().as_ref().map(|b| b.spec.clone()));
        Some(permalink::run_part(&permalink::encode(
            &asked.unwrap_or_else(|| state.spec()),
        )))
    });
    // Set by Back or Forward (or a pasted link): the view that loads is
    // already an entry, written over, not pushed (that would cut the entries
    // after it).
    let traversed = use_mut_ref(|| false);
    {
        let state = state.clone();
        let (shown, traversed) = (shown.clone(), traversed.clone());
        use_effect_with((state.rev, state.mode), move |_| {
            let t = gloo::timers::callback::Timeout::new(PERMALINK_DEBOUNCE_MS, move || {
                // None while the view is the one shown instead of a link that
                // could not be opened: the address bar keeps that link.
                let Some(frag) = state.link_to_write() else {
                    return;
                };
                write_address(&frag, &shown, &traversed);
                // A Stop notice that said the link was kept is wrong from now.
                if state.notice.is_some() {
                    state.dispatch(Action::LinkReplaced);
                }
                let stored = storage().is_some_and(|s| s.set_item(STORAGE_KEY, &frag).is_ok());
                let this = {
                    use std::hash::{Hash, Hasher};
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    frag.hash(&mut h);
                    (frag.len(), h.finish())
                };
                if !stored && !permalink::linkable(&frag) && *warned.borrow() != Some(this) {
                    *warned.borrow_mut() = Some(this);
                    state.dispatch(Action::Notice(Some(format!(
                        "This view is {:.1} MB: too big for a link, and local storage would not take it, so a reload will not bring it back. Keep the scenario file (Edit, then Download JSON).",
                        frag.len() as f64 / 1e6
                    ))));
                }
            });
            move || drop(t)
        });
    }
    use_address_changes(state, shown, traversed);
}

/// Back, Forward or a link pasted: its view loaded (the address bar's run is
/// `shown`, and the view that loads is written over that entry: `traversed`).
#[hook]
fn use_address_changes(
    state: &UseReducerHandle<AppState>,
    shown: Rc<RefCell<Option<String>>>,
    traversed: Rc<RefCell<bool>>,
) {
    let d = state.dispatcher();
    // The state now, for the listener below (made once).
    let now = use_mut_ref(|| state.clone());
    *now.borrow_mut() = state.clone();
    use_effect_with((), move |_| {
        let l = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
            let hash = gloo::utils::window().location().hash().unwrap_or_default();
            let bare = hash.trim_start_matches('#').is_empty();
            // At the bare address no view loads: the entry shows the view
            // shown, and the next other run is pushed after it (found by an
            // attack: it was written over the bare entry, Back then left).
            let run = match bare {
                true => permalink::encode(&now.borrow().spec()),
                false => hash.clone(),
            };
            *shown.borrow_mut() = Some(permalink::run_part(&run));
            *traversed.borrow_mut() = !bare;
            // Back to the address without a fragment (the page as first
            // opened): no link to load, and the view shown is the one stored,
            // which is what that address opens. Not an error (a helper
            // attacking the page was told "it names no scenario"). A run
            // being built for the link left is dropped (a helper went Back
            // while it was built, and the link's view came anyway).
            if bare {
                d.dispatch(Action::LeaveLink);
                return;
            }
            match permalink::decode(&hash) {
                Ok(spec) => d.dispatch(Action::LoadLink(spec)),
                Err(e) => d.dispatch(Action::BadLink(e)),
            }
        });
        move || drop(l)
    });
}

/// Where the keyboard focus is when a key goes down, as far as shortcuts care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyTarget {
    /// The page itself (or something with no keys of its own).
    Page,
    /// A field: every key is typing.
    Field,
    /// A button, link or summary: Space and Enter press it.
    Button,
    /// A focusable scrolling region: arrows, Space, Home and End scroll it.
    Scroller,
}

/// The local-storage key that turns the one-character shortcuts (`?`, space) off
/// (WCAG 2.1.4): "off", set from the help dialog.
pub const CHAR_KEYS_KEY: &str = "flushscope.char-keys";

/// Whether the one-character shortcuts are on (the default).
pub fn char_keys_on() -> bool {
    storage()
        .and_then(|s| s.get_item(CHAR_KEYS_KEY).ok().flatten())
        .is_none_or(|v| v != "off")
}

/// Turns the one-character shortcuts on or off (kept in local storage).
pub fn set_char_keys(on: bool) {
    if let Some(s) = storage() {
        let _ = if on {
            s.remove_item(CHAR_KEYS_KEY)
        } else {
            s.set_item(CHAR_KEYS_KEY, "off")
        };
    }
}

/// The action a key stands for, if any: nothing while the focus is in a field, on
/// a control or scroller that uses the key itself, or (but for `?` and Esc) while
/// the help dialog is open; `chars` off drops the one-character keys.
pub fn key_action(
    key: &str,
    playing: bool,
    help: bool,
    at: KeyTarget,
    chars: bool,
) -> Option<Action> {
    let own = match at {
        // Esc closes the dialog or the message wherever the focus is.
        _ if key == "Escape" => false,
        KeyTarget::Page => false,
        KeyTarget::Field => true,
        KeyTarget::Button => matches!(key, " " | "Enter"),
        KeyTarget::Scroller => matches!(
            key,
            "ArrowRight"
                | "ArrowLeft"
                | "ArrowUp"
                | "ArrowDown"
                | " "
                | "Home"
                | "End"
                | "PageUp"
                | "PageDown"
        ),
    };
    if own || (!chars && matches!(key, " " | "?")) || (help && !matches!(key, "?" | "Escape")) {
        return None;
    }
    Some(match key {
        "ArrowRight" => Action::StepForward,
        "ArrowLeft" => Action::StepBack,
        " " => Action::Play(!playing),
        "Home" => Action::Goto(0),
        "End" => Action::ToEnd,
        "?" => Action::Help(!help),
        "Escape" if help => Action::Help(false),
        "Escape" => Action::DismissError,
        _ => return None,
    })
}

fn key_target(e: &web_sys::KeyboardEvent) -> KeyTarget {
    let Some(el) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return KeyTarget::Page;
    };
    match el.tag_name().as_str() {
        // A checkbox takes Space alone: the arrows still step (they did
        // nothing after a click on one, found by a helper attacking the page).
        "INPUT"
            if el
                .get_attribute("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("checkbox")) =>
        {
            KeyTarget::Button
        }
        "INPUT" | "SELECT" | "TEXTAREA" => KeyTarget::Field,
        "BUTTON" | "A" | "SUMMARY" => KeyTarget::Button,
        "BODY" | "HTML" => KeyTarget::Page,
        _ if el.has_attribute("tabindex") => KeyTarget::Scroller,
        _ => KeyTarget::Page,
    }
}

/// Keyboard shortcuts (see the help overlay), except where the focused element
/// uses the key itself.
#[hook]
pub fn use_keyboard(d: Dispatch, playing: bool, help: bool) {
    use_effect_with((playing, help), move |_| {
        let opts = EventListenerOptions::enable_prevent_default();
        let l =
            EventListener::new_with_options(&gloo::utils::document(), "keydown", opts, move |e| {
                let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if e.ctrl_key() || e.meta_key() || e.alt_key() {
                    return;
                }
                let (at, key) = (key_target(e), e.key());
                // Local storage only for the keys the setting covers (it took a
                // fiftieth of a step's time on every arrow key).
                let chars = !matches!(key.as_str(), " " | "?") || char_keys_on();
                if let Some(a) = key_action(&key, playing, help, at, chars) {
                    e.prevent_default();
                    d.dispatch(a);
                }
            });
        move || drop(l)
    });
}

/// Steps closer together than this do not slide the lane's boxes (web/lanes.css
/// slides them in 450 ms): a key held down (about 30 steps a second) or a fast
/// Play would restart every slide before it ends, and the drawing would lag the
/// step by several boxes while each frame repaints the lanes.
pub const RAPID_MS: f64 = 100.0;

/// True while the cursor moves faster than [`RAPID_MS`] a step: the step that
/// starts a run of steps slides, the ones hard on its heels jump.
#[hook]
pub fn use_rapid(cursor: u32) -> bool {
    let last = use_mut_ref(|| (cursor, f64::NEG_INFINITY, false));
    let mut l = last.borrow_mut();
    if l.0 != cursor {
        let now = js_sys::Date::now();
        *l = (cursor, now, now - l.1 < RAPID_MS);
    }
    l.2
}

/// Model steps and clock entries the page's whole-run race check may spend (the
/// CLI's `run --races` has 5 M): it runs once per run, when asked, in the page's thread.
pub const PAGE_RACE_BUDGET: u64 = 100_000;

/// An `Rc` compared by address: the figures are renewed exactly when the run's
/// recorded steps change, so they key what is computed once per run.
#[derive(Clone)]
pub struct ByPtr<T>(pub Rc<T>);
impl<T> PartialEq for ByPtr<T> {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// The page's data-race check: whether it is on, the whole run's races, and
/// what the step panel and the scrubber mark with them.
pub struct Races {
    pub on: UseStateHandle<bool>,
    pub in_run: Option<Rc<RunRaces>>,
    /// Said in the step panel when the cursor's step is a racing step.
    pub note: Option<String>,
    /// The racing steps, ticks on the scrubber.
    pub steps: Rc<Vec<u32>>,
}

/// The data races of the whole run (vector clocks and every state it passes; see
/// `flush_core::explore::run_races`), while on; recomputed when the run's steps
/// change (`figures` is renewed then), not when the cursor moves. None while off
/// or when the model declares no footprints.
#[hook]
pub fn use_races(run: &Rc<RefCell<AnyRun>>, figures: &Rc<Figures>) -> Races {
    let on = use_state(|| false);
    let in_run = {
        let run = run.clone();
        use_memo((ByPtr(figures.clone()), *on), move |(_, on)| {
            let r = run.borrow();
            (*on && r.footprints()).then(|| Rc::new(r.races(PAGE_RACE_BUDGET)))
        })
    };
    let in_run = (*in_run).clone();
    let (note, steps) = match &in_run {
        Some(r) => (
            crate::components::races::step_note(r, run.borrow().cursor()),
            Rc::new(crate::components::races::marked_steps(r)),
        ),
        None => (None, Rc::default()),
    };
    Races {
        on,
        in_run,
        note,
        steps,
    }
}

/// The tab says which scenario is open.
#[hook]
pub fn use_title(title: String) {
    use_effect_with(title, |t| {
        gloo::utils::document().set_title(&format!("{t} · FlushScope"))
    });
}

/// While playing, a timer steps forward at `speed` steps per second.
#[hook]
pub fn use_autoplay(d: Dispatch, playing: bool, speed: u32) {
    use_effect_with((playing, speed), move |(playing, speed)| {
        let timer = playing.then(|| {
            let ms = (1000 / (*speed).max(1)).max(MIN_TICK_MS);
            gloo::timers::callback::Interval::new(ms, move || d.dispatch(Action::Tick))
        });
        move || drop(timer)
    });
}

/// The file input's change handler: reads the file (refusing an oversized one
/// before reading it), checks it, and loads it; a bad file leaves a message and
/// the previous view.
#[hook]
pub fn use_upload(d: Dispatch) -> Callback<Event> {
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    use_callback(d, move |e: Event, d| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|l| l.get(0)) else {
            return;
        };
        input.set_value("");
        let file = gloo::file::File::from(file);
        // Every message shows the name escaped (a U+202E or a newline in it
        // reversed or split the message: found by a review of the page).
        let name = crate::permalink::file_name(&file.name());
        let limit = flush_core::scenario::MAX_SCENARIO_BYTES as u64;
        if file.size() > limit {
            d.dispatch(Action::Error(format!(
                "{name}: the file is {}.{} MB; scenario files are limited to {} MB. The previous view is still loaded.",
                file.size() / 1_000_000,
                file.size() / 100_000 % 10,
                limit / (1024 * 1024)
            )));
            return;
        }
        let d = d.clone();
        // Bytes, not text: a browser decodes a file that is not UTF-8 with
        // replacement characters, and the scenario would load altered. The CLI
        // refuses it; so does the page.
        let task = gloo::file::callbacks::read_as_bytes(&file, move |res| {
            match res
                .map_err(|e| format!("could not be read ({e})"))
                .and_then(|b| String::from_utf8(b).map_err(|e| format!("not UTF-8 text ({e})")))
            {
                Err(e) => d.dispatch(Action::Error(format!(
                    "{name}: {e}. The previous view is still loaded."
                ))),
                Ok(text) => {
                    let source = Source::Inline {
                        file: name,
                        text: text.into(),
                    };
                    // Read once: the view's build finds it read (see
                    // `state::scenario_of`). Loaded in this task, not a later
                    // one: a key or click between the two went to the view
                    // being replaced, and was lost (found by a helper).
                    match crate::state::scenario_of(&source) {
                        Err(e) => d.dispatch(Action::Error(format!(
                            "{} The previous view is still loaded.",
                            crate::state::sentence(&e)
                        ))),
                        Ok(sc) => d.dispatch(Action::Load(ViewSpec::fresh(source, &sc))),
                    }
                }
            }
        });
        *reader.borrow_mut() = Some(task);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        let page = |k: &str, playing, help| key_action(k, playing, help, KeyTarget::Page, true);
        assert!(matches!(
            page("ArrowRight", false, false),
            Some(Action::StepForward)
        ));
        assert!(matches!(page(" ", true, false), Some(Action::Play(false))));
        assert!(matches!(page(" ", false, false), Some(Action::Play(true))));
        assert!(matches!(
            page("Escape", false, true),
            Some(Action::Help(false))
        ));
        assert!(matches!(
            page("Escape", false, false),
            Some(Action::DismissError)
        ));
        assert!(matches!(page("?", false, true), Some(Action::Help(false))));
        assert!(page("x", false, false).is_none());
    }

    #[test]
    fn keys_the_focused_element_uses_are_left_to_it() {
        use KeyTarget::*;
        let act = |k: &str, at| key_action(k, false, false, at, true);
        for k in ["ArrowRight", " ", "Home", "End", "?"] {
            assert!(act(k, Field).is_none(), "{k} types in a field");
        }
        assert!(matches!(act("Escape", Field), Some(Action::DismissError)));
        assert!(act(" ", Button).is_none() && act("Enter", Button).is_none());
        assert!(matches!(
            act("ArrowRight", Button),
            Some(Action::StepForward)
        ));
        for k in ["ArrowRight", "ArrowLeft", " ", "Home", "End"] {
            assert!(act(k, Scroller).is_none(), "{k} scrolls a scroller");
        }
        assert!(matches!(act("?", Scroller), Some(Action::Help(true))));
    }

    #[test]
    fn the_help_dialog_and_the_char_keys_switch_hold_keys_back() {
        let open = |k: &str| key_action(k, false, true, KeyTarget::Page, true);
        assert!(open("ArrowRight").is_none() && open("End").is_none() && open(" ").is_none());
        assert!(matches!(open("Escape"), Some(Action::Help(false))));
        let off = |k: &str| key_action(k, false, false, KeyTarget::Page, false);
        assert!(off(" ").is_none() && off("?").is_none());
        assert!(matches!(off("ArrowRight"), Some(Action::StepForward)));
    }
}

/// Escape hides the glossary's hover and focus explanations (WCAG 1.4.13: content
/// on hover or focus can be dismissed) until the pointer moves or the focus does.
#[hook]
pub fn use_tip_dismiss() {
    use_effect_with((), |_| {
        let body = gloo::utils::body();
        let (b1, b2) = (body.clone(), body.clone());
        let off = EventListener::new(&gloo::utils::document(), "keydown", move |e| {
            if e.dyn_ref::<web_sys::KeyboardEvent>()
                .is_some_and(|k| k.key() == "Escape")
            {
                let _ = b1.class_list().add_1("tips-off");
            }
        });
        let on = move |_: &web_sys::Event| {
            let _ = b2.class_list().remove_1("tips-off");
        };
        let doc = gloo::utils::document();
        let moved = EventListener::new(&doc, "pointermove", on.clone());
        let focused = EventListener::new(&doc, "focusin", on);
        move || drop((off, moved, focused))
    });
}
