//! The error banner, the passing notice, the help overlay, and a long run's
//! build.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::hooks::ByPtr;
use crate::state::{for_ms, group, Action, Building, Dispatch, SLICE_MS};

pub fn error_banner(text: &str, d: &Dispatch) -> Html {
    let d = d.clone();
    html! {
        <div class="error" id="error" role="alert">
            <strong>{"Could not do that: "}</strong><span id="error-text">{text.to_owned()}</span>
            <button onclick={Callback::from(move |_| d.dispatch(Action::DismissError))}>{"Dismiss"}</button>
        </div>
    }
}

pub fn notice(text: &str, d: &Dispatch) -> Html {
    let d = d.clone();
    html! {
        <div class="notice" id="notice" role="status">
            <span id="notice-text">{text.to_owned()}</span>
            <button id="notice-ok" onclick={Callback::from(move |_| d.dispatch(Action::Notice(None)))}>{"OK"}</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    /// How to read this model's stage.
    pub legend: &'static str,
    pub dispatch: Dispatch,
}

/// The help dialog. It takes the focus when it opens (on its Close button), keeps
/// Tab inside, and gives the focus back to where it was when it closes.
#[function_component(Help)]
pub fn help(p: &HelpProps) -> Html {
    let close_ref = use_node_ref();
    {
        let close_ref = close_ref.clone();
        use_effect_with((), move |_| {
            let before = gloo::utils::document().active_element();
            if let Some(b) = close_ref.cast::<HtmlElement>() {
                let _ = b.focus();
            }
            move || {
                if let Some(el) = before.and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    let close = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::Help(false)))
    };
    let keys_ref = use_node_ref();
    // Tab and Shift+Tab go back and forth between the dialog's two controls.
    let trap = {
        let (close_ref, keys_ref) = (close_ref.clone(), keys_ref.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" {
                e.prevent_default();
                let on_close = gloo::utils::document()
                    .active_element()
                    .is_some_and(|a| a.id() == "help-close");
                let next = if on_close { &keys_ref } else { &close_ref };
                if let Some(el) = next.cast::<HtmlElement>() {
                    let _ = el.focus();
                }
            }
        })
    };
    let chars = use_state(crate::hooks::char_keys_on);
    let on_chars = {
        let chars = chars.clone();
        Callback::from(move |e: Event| {
            let on = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .checked();
            crate::hooks::set_char_keys(on);
            chars.set(on);
        })
    };
    html! {
        <div class="overlay" id="help-overlay" onclick={close.clone()}>
            <div class="help-box" role="dialog" aria-modal="true" aria-labelledby="help-title" onkeydown={trap}
                 onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2 id="help-title">{"Keyboard"}</h2>
                <table>
                    <tr><td><kbd>{"→"}</kbd></td><td>{"step forward"}</td></tr>
                    <tr><td><kbd>{"←"}</kbd></td><td>{"step back"}</td></tr>
                    <tr><td><kbd>{"space"}</kbd></td><td>{"play / pause (when no button or scrolling box has the focus)"}</td></tr>
                    <tr><td><kbd>{"Home"}</kbd>{" / "}<kbd>{"End"}</kbd></td><td>{"first / last step"}</td></tr>
                    <tr><td><kbd>{"?"}</kbd></td><td>{"this help"}</td></tr>
                    <tr><td><kbd>{"Esc"}</kbd></td><td>{"close help or an error"}</td></tr>
                    <tr><td><kbd>{"Tab"}</kbd></td><td>{"every control, in reading order; a screen reader hears each step as it happens"}</td></tr>
                </table>
                <h2>{"Reading the lanes"}</h2>
                <p>{crate::components::glossary::glossed(p.legend)}</p>
                <p>{"Steps: a goroutine runs until its next blocking point (B1–B14 of MODEL.md). In manual mode, runnable goroutines are buttons; a select with two ready cases offers both."}</p>
                <p><label><input type="checkbox" id="char-keys" ref={keys_ref} checked={*chars} onchange={on_chars} />
                    {" one-key shortcuts: space plays, ? opens this help (turn off if they clash with your screen reader or speech input)"}</label></p>
                <p class="muted">{"Click outside this box or press Esc to close."}</p>
                <button id="help-close" ref={close_ref} onclick={close}>{"Close"}</button>
            </div>
        </div>
    }
}

#[derive(Properties)]
pub struct BuildProps {
    pub building: Rc<RefCell<Option<Building>>>,
    pub dispatch: Dispatch,
}

impl PartialEq for BuildProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.building, &o.building)
    }
}

/// A long run being built (see [`Building`]): a slice of steps at a time, each
/// [`SLICE_MS`] long, in a timer task of its own, so the page paints and answers
/// between two; how far it got, and Stop. Only this component redraws meanwhile.
#[function_component(BuildProgress)]
pub fn build_progress(p: &BuildProps) -> Html {
    let slices = use_state(|| 0u32);
    {
        let (b, d, slices) = (p.building.clone(), p.dispatch.clone(), slices.clone());
        use_effect_with((*slices, ByPtr(p.building.clone())), move |_| {
            let t = gloo::timers::callback::Timeout::new(0, move || {
                let done = match b.borrow_mut().as_mut() {
                    Some(b) => b.grow(for_ms(SLICE_MS)),
                    None => return,
                };
                if done {
                    d.dispatch(Action::Built);
                } else {
                    slices.set(*slices + 1);
                }
            });
            move || drop(t)
        });
    }
    // Gone (built, stopped or replaced), it leaves the focus it had on Stop
    // to the notice Stop leaves, else to the step button.
    use_effect_with((), |_| {
        || {
            if !(crate::focus::lost() || crate::focus::on("build-stop")) {
                return;
            }
            gloo::timers::callback::Timeout::new(0, || {
                if crate::focus::lost() {
                    crate::focus::to_in_place("notice-ok");
                }
                if crate::focus::lost() {
                    crate::focus::to_in_place("step-btn");
                }
            })
            .forget();
        }
    });
    let (title, steps) = p
        .building
        .borrow()
        .as_ref()
        .map(|b| (b.title(), b.steps()))
        .unwrap_or_default();
    let d = p.dispatch.clone();
    html! {
        <div class="notice building" id="building" role="status">
            // The count changes every slice: a screen reader hears the
            // sentence once, not each count (aria-live off inside the status).
            <span id="building-text">
                {format!("Building the run of \u{201c}{title}\u{201d}: ")}
                <span aria-live="off">{group(steps)}</span>
                {" steps so far. The view below stays until it is built."}
            </span>
            <button id="build-stop" onclick={Callback::from(move |_| d.dispatch(Action::StopBuild))}>{"Stop"}</button>
        </div>
    }
}
