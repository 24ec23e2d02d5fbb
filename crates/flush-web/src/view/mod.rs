//! Rendering: pure functions from state to `Html`. Callbacks carry `Action`s.

pub mod controls;
pub mod flush;
pub mod side;
pub mod sync;
pub mod verdicts;

use yew::prelude::*;

/// A small labelled value, e.g. `running 2`.
pub fn badge(label: &str, value: impl std::fmt::Display, class: &str) -> Html {
    html! { <span class={classes!("badge", class.to_owned())}><span class="badge-label">{label}</span>{" "}{value.to_string()}</span> }
}

/// The `<defs>` every lane SVG refers to (arrow heads).
pub fn svg_defs() -> Html {
    html! {
        <svg class="defs" width="0" height="0" aria-hidden="true">
            <defs>
                <marker id="arrow-open" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" fill="#c2410c" />
                </marker>
                <marker id="arrow-closed" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" fill="#15803d" />
                </marker>
            </defs>
        </svg>
    }
}

/// The same arrow-head definitions as text, for exported SVG files.
pub const SVG_DEFS_TEXT: &str = r##"<defs><marker id="arrow-open" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#c2410c"/></marker><marker id="arrow-closed" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#15803d"/></marker></defs>"##;
