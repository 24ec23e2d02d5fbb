//! The page's effects, one hook each: the run (from the URL fragment or local
//! storage), the permalink that follows the view, pasted permalinks, the
//! keyboard, the play timer, and uploads.

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

/// The view the page opens on: the URL fragment, else the saved view, else the
/// default. A broken one leaves a message and the default view.
fn initial_state() -> AppState {
    let hash = gloo::utils::window().location().hash().unwrap_or_default();
    let frag = hash.trim_start_matches('#');
    if !frag.is_empty() {
        return match permalink::decode(frag).and_then(|spec| AppState::from_spec(&spec)) {
            Ok(s) => s,
            Err(e) => AppState::fallback(format!("{e} Showing the default scenario instead.")),
        };
    }
    if let Some(saved) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) {
        return match permalink::decode(&saved).and_then(|spec| AppState::from_spec(&spec)) {
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

/// The app's state, opened on the view the URL or local storage asks for.
#[hook]
pub fn use_run() -> UseReducerHandle<AppState> {
    use_reducer(initial_state)
}

/// The URL fragment and local storage follow the view; a pasted permalink
/// (hashchange) loads its view.
#[hook]
pub fn use_permalink(state: &UseReducerHandle<AppState>) {
    {
        let state = state.clone();
        use_effect_with((state.rev, state.mode), move |_| {
            let t = gloo::timers::callback::Timeout::new(PERMALINK_DEBOUNCE_MS, move || {
                let frag = permalink::encode(&state.spec());
                if let Ok(h) = gloo::utils::window().history() {
                    let url = format!("#{frag}");
                    let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
                }
                if let Some(s) = storage() {
                    let _ = s.set_item(STORAGE_KEY, &frag);
                }
            });
            move || drop(t)
        });
    }
    let d = state.dispatcher();
    use_effect_with((), move |_| {
        let l = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
            let hash = gloo::utils::window().location().hash().unwrap_or_default();
            match permalink::decode(&hash) {
                Ok(spec) => d.dispatch(Action::Load(spec)),
                Err(e) => d.dispatch(Action::Error(e)),
            }
        });
        move || drop(l)
    });
}

/// The action a key stands for (none while typing in a field).
pub fn key_action(key: &str, playing: bool, help: bool) -> Option<Action> {
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

/// Keyboard shortcuts (see the help overlay), except while typing in a field.
#[hook]
pub fn use_keyboard(d: Dispatch, playing: bool, help: bool) {
    use_effect_with((playing, help), move |_| {
        let opts = EventListenerOptions::enable_prevent_default();
        let l =
            EventListener::new_with_options(&gloo::utils::document(), "keydown", opts, move |e| {
                let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                let tag = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .map(|el| el.tag_name());
                let typing = matches!(tag.as_deref(), Some("INPUT" | "SELECT" | "TEXTAREA"));
                // Space and Enter press the focused button, link or summary.
                let pressing = matches!(tag.as_deref(), Some("BUTTON" | "A" | "SUMMARY"))
                    && matches!(e.key().as_str(), " " | "Enter");
                if typing || pressing || e.ctrl_key() || e.meta_key() || e.alt_key() {
                    return;
                }
                if let Some(a) = key_action(&e.key(), playing, help) {
                    e.prevent_default();
                    d.dispatch(a);
                }
            });
        move || drop(l)
    });
}

/// While playing, a timer steps forward at `speed` steps per second.
#[hook]
pub fn use_autoplay(d: Dispatch, playing: bool, speed: u32) {
    use_effect_with((playing, speed), move |(playing, speed)| {
        let timer = playing.then(|| {
            let ms = (1000 / (*speed).max(1)).max(MIN_TICK_MS);
            gloo::timers::callback::Interval::new(ms, move || d.dispatch(Action::StepForward))
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
        let name = file.name();
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
        let task = gloo::file::callbacks::read_as_text(&file, move |res| match res {
            Err(e) => d.dispatch(Action::Error(format!(
                "{name}: could not be read as text ({e}). The previous view is still loaded."
            ))),
            Ok(text) => match flush_core::AnyScenario::parse(&text, &name) {
                Err(e) => d.dispatch(Action::Error(format!(
                    "{e}. The previous view is still loaded."
                ))),
                Ok(sc) => {
                    let source = Source::Inline {
                        file: name.clone(),
                        text: text.into(),
                    };
                    d.dispatch(Action::Load(ViewSpec::fresh(source, &sc)));
                }
            },
        });
        *reader.borrow_mut() = Some(task);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        assert!(matches!(
            key_action("ArrowRight", false, false),
            Some(Action::StepForward)
        ));
        assert!(matches!(
            key_action(" ", true, false),
            Some(Action::Play(false))
        ));
        assert!(matches!(
            key_action(" ", false, false),
            Some(Action::Play(true))
        ));
        assert!(matches!(
            key_action("Escape", false, true),
            Some(Action::Help(false))
        ));
        assert!(matches!(
            key_action("Escape", false, false),
            Some(Action::DismissError)
        ));
        assert!(matches!(
            key_action("?", false, true),
            Some(Action::Help(false))
        ));
        assert!(key_action("x", false, false).is_none());
    }
}
