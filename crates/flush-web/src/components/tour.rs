//! Guided tours (`flush_core::tours`): the tour list, and while a tour runs a
//! panel above the stage with the stop's caption, the Go function of its step,
//! Previous / Next, and the element the caption is about outlined in the page.
//! Every other control stays usable; the panel says when the view has left the stop.

use std::rc::Rc;

use flush_core::report::TraceLine;
use flush_core::tours::Tour;
use yew::prelude::*;

use super::glossary::glossed;
use crate::state::{Action, Dispatch};

/// The class that outlines a tour stop's element.
const HIGHLIGHT: &str = "tour-highlight";

/// Buttons that start each tour (in the intro panel).
pub fn tour_list(d: &Dispatch) -> Html {
    html! {
        <div class="tour-list" id="tours">
            <h3 id="tours-title" tabindex="-1">{"Guided tours"}</h3>
            <ul aria-labelledby="tours-title">
                {for flush_core::tours::all().iter().map(|t| {
                    let (d, id) = (d.clone(), t.id.clone());
                    let start = Callback::from(move |_: MouseEvent| d.dispatch(Action::Tour(id.clone(), 0)));
                    html! {
                        <li>
                            <button id={format!("tour-start-{}", t.id)} onclick={start}>{t.title.clone()}</button>
                            <span class="muted">{format!(" {} stops. {}", t.stops.len(), t.summary)}</span>
                        </li>
                    }
                })}
            </ul>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct TourProps {
    pub tour: Rc<Tour>,
    pub stop: usize,
    /// Where the view is: the stop is "here" when scenario, version and step match.
    pub here: bool,
    pub cursor: u32,
    /// The cursor's step, for its Go function.
    pub line: Option<Rc<TraceLine>>,
    /// The page's revision: the highlight is placed again after every render.
    pub rev: u64,
    pub dispatch: Dispatch,
}

/// Outlines the elements `sel` matches (and only them).
fn highlight(sel: Option<&str>) {
    let doc = gloo::utils::document();
    if let Ok(old) = doc.query_selector_all(&format!(".{HIGHLIGHT}")) {
        for i in 0..old.length() {
            if let Some(e) = old
                .item(i)
                .and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
            {
                let _ = e.class_list().remove_1(HIGHLIGHT);
            }
        }
    }
    // A selector the browser refuses only loses its outline.
    if let Some(Ok(Some(e))) = sel.map(|s| doc.query_selector(s)) {
        let _ = e.class_list().add_1(HIGHLIGHT);
    }
}

#[function_component(TourPanel)]
pub fn tour_panel(p: &TourProps) -> Html {
    let s = &p.tour.stops[p.stop];
    let n = p.tour.stops.len();
    {
        let sel = s.highlight.clone().filter(|_| p.here);
        use_effect_with((p.tour.id.clone(), p.stop, p.here, p.rev), move |_| {
            highlight(sel.as_deref());
            || highlight(None)
        });
    }
    // Starting a tour moves the focus to it (its heading: the title and the first
    // caption are read next); Next and Previous keep it where it is.
    use_effect_with(p.tour.id.clone(), |_| crate::focus::to("tour-title"));
    // `then`: where the focus goes after (Next at the last stop and Previous at
    // the first are turned off under it).
    let go_then = |i: usize, then: Option<&'static str>| {
        let (d, id) = (p.dispatch.clone(), p.tour.id.clone());
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::Tour(id.clone(), i));
            if let Some(then) = then {
                crate::focus::to(then);
            }
        })
    };
    let go = |i: usize| go_then(i, None);
    let prev = p.stop.saturating_sub(1);
    let next = (p.stop + 1).min(n - 1);
    let end = {
        let d = p.dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::EndTour);
            crate::focus::to("tours-title");
        })
    };
    html! {
        <section class="panel tour" id="tour" aria-labelledby="tour-title">
            <h2 id="tour-title" tabindex="-1">{format!("Tour: {}", p.tour.title)}</h2>
            <p class="tour-count" id="tour-count">{format!("Stop {} of {n}", p.stop + 1)}
                {if s.step > 0 { format!(", step {}", s.step) } else { ", before the first step".to_owned() }}</p>
            <p class="tour-caption" id="tour-caption">{glossed(&s.caption)}</p>
            if p.here {
                if let Some(l) = p.line.as_deref().filter(|_| s.step > 0) {
                    <p class="tour-go"><code>{format!("{}: {}", l.go.file, l.go.func)}</code>
                        if !l.go.excerpt.is_empty() { <span class="excerpt">{format!(" {}", l.go.excerpt)}</span> }</p>
                }
            } else {
                <p class="callout" id="tour-away">{format!("The view has moved from this stop (now at step {}); the caption is about step {} of {}.", p.cursor, s.step, s.scenario)}</p>
            }
            <div class="tour-nav">
                <button id="tour-prev" onclick={go_then(prev, (prev == 0).then_some("tour-next"))} disabled={p.stop == 0}>{"◀ Previous"}</button>
                if !p.here { <button id="tour-back" onclick={go(p.stop)}>{"Back to this stop"}</button> }
                <button id="tour-next" class="primary" onclick={go_then(next, (next + 1 == n).then_some("tour-end"))} disabled={p.stop + 1 == n}>{"Next ▶"}</button>
                <button id="tour-end" onclick={end}>{"Leave the tour"}</button>
            </div>
        </section>
    }
}
