//! "What am I looking at?": the scenario's description, what exploring it finds
//! under each version, and which Go code the model follows.

use flush_core::Header;
use yew::prelude::*;

use crate::components::glossary::glossed;
use crate::components::tour::tour_list;
use crate::components::verdicts::VerdictsHere;
use crate::state::Dispatch;

/// The intro panel of a scenario (`h`), with which Go code its model follows (`about`).
pub fn intro(h: &Header, about: String, d: &Dispatch) -> Html {
    html! {
        <details class="panel intro" id="intro" open=true>
            <summary>{"What am I looking at?"}</summary>
            <p id="description">{glossed(&h.description)}</p>
            <VerdictsHere scenario={h.name.clone()} version={h.version} dispatch={d.clone()} />
            <p class="muted">{glossed(&about)}</p>
            {tour_list(d)}
        </details>
    }
}
