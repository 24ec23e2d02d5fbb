//! The error banner, the passing notice, and the help overlay.

use yew::prelude::*;

use crate::state::{Action, Dispatch};

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
            <button onclick={Callback::from(move |_| d.dispatch(Action::Notice(None)))}>{"OK"}</button>
        </div>
    }
}

/// The help overlay; `legend` says how to read this model's stage.
pub fn help(legend: &'static str, d: &Dispatch) -> Html {
    let d = d.clone();
    html! {
        <div class="overlay" id="help-overlay" role="dialog" aria-modal="true" aria-label="Help"
             onclick={Callback::from(move |_| d.dispatch(Action::Help(false)))}>
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
                <p>{legend}</p>
                <p>{"Steps: a goroutine runs until its next blocking point (B1–B14 of MODEL.md). In manual mode, runnable goroutines are buttons; a select with two ready cases offers both."}</p>
                <p class="muted">{"Click anywhere to close."}</p>
            </div>
        </div>
    }
}
