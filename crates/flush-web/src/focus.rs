//! Where the keyboard focus is, and moving it: shared by the components whose
//! controls come and go (a search's Cancel, the editor's list buttons, a
//! goroutine's run button, the log's Stop), so the focus is never lost to the page.

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

/// Whether the keyboard focus fell to the page's body (or nowhere), or sits on a
/// control that was turned off under it.
pub fn lost() -> bool {
    let doc = gloo::utils::document();
    match doc.active_element() {
        None => true,
        Some(e) => {
            doc.body().is_some_and(|b| e == *b.as_ref()) || e.matches(":disabled").unwrap_or(false)
        }
    }
}

/// Whether the element with this id has the keyboard focus.
pub fn on(id: &str) -> bool {
    gloo::utils::document()
        .active_element()
        .is_some_and(|e| e.id() == id)
}

/// Whether the keyboard focus is inside the elements `selector` matches.
pub fn within(selector: &str) -> bool {
    gloo::utils::document()
        .active_element()
        .is_some_and(|e| e.closest(selector).ok().flatten().is_some())
}

fn element(id: &str) -> Option<HtmlElement> {
    gloo::utils::document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
}

/// Moves the keyboard focus to the element with this id, if it is there.
pub fn to(id: &str) {
    if let Some(e) = element(id) {
        let _ = e.focus();
    }
}

/// [`to`] without scrolling to it (the reader may have scrolled away).
pub fn to_in_place(id: &str) {
    if let Some(e) = element(id) {
        let o = web_sys::FocusOptions::new();
        o.set_prevent_scroll(true);
        let _ = e.focus_with_options(&o);
    }
}
