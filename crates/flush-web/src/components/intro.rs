//! "What am I looking at?": the scenario's description, what exploring it finds
//! under each version, and which Go code the model follows.

use std::rc::Rc;

use flush_core::Header;
use yew::prelude::*;

use crate::components::glossary::glossed;
use crate::components::tour::tour_list;
use crate::components::verdicts::VerdictsHere;
use crate::state::Dispatch;

#[derive(Properties, PartialEq)]
pub struct IntroProps {
    pub header: Rc<Header>,
    pub about: String,
    /// Whether the scenario shown is the built-in of its name, as shipped (not an
    /// edited, uploaded or linked file that keeps the name).
    pub builtin: bool,
    /// Whether the run sets what-if knobs apart from its version's preset.
    pub proposed: bool,
    pub dispatch: Dispatch,
}

/// The intro panel of a scenario, with which Go code its model follows (`about`):
/// a component, so a step (which changes neither) does not draw it again.
#[function_component(Intro)]
pub fn intro(p: &IntroProps) -> Html {
    let (h, about, d) = (&p.header, &p.about, &p.dispatch);
    html! {
        <details class="panel intro" id="intro" open=true>
            <summary>{"What am I looking at?"}</summary>
            <p id="description">{glossed(&h.description)}</p>
            <VerdictsHere scenario={h.name.clone()} version={h.version} builtin={p.builtin}
                          proposed={p.proposed} dispatch={d.clone()} />
            <p class="muted">{glossed(about)}</p>
            {tour_list(d)}
        </details>
    }
}
