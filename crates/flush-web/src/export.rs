//! Downloads: the trace as `flushscope run --json` prints it, and the lanes of the
//! current step as one SVG document.

use flush_core::AnyRun;
use wasm_bindgen::JsCast;

use crate::components::stage::SVG_DEFS_TEXT;

/// Width of an exported SVG when the lanes are narrower.
const MIN_WIDTH: i32 = 900;
/// Space above the first lane (the title).
const TOP: i32 = 60;
/// A lane drawing's height when its SVG does not say.
const LANE_H: i32 = 150;

/// Offers `text` as a file download.
pub fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = gloo::utils::document().create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The trace of the run as JSON, downloaded.
pub fn trace_json(run: &AnyRun) {
    download(
        &format!("{}.trace.json", run.header().name),
        "application/json",
        &run.report_json(true),
    );
}

/// The lanes of the page as one SVG document, downloaded.
pub fn lanes_svg(run: &AnyRun) {
    let svg = export_svg(run);
    download(
        &format!("{}-step-{}.svg", run.header().name, run.cursor()),
        "image/svg+xml",
        &svg,
    );
}

/// One lane: its title, then its drawing (or its text when it has none).
fn lane_svg(
    lane: &web_sys::Element,
    ser: &web_sys::XmlSerializer,
    y: &mut i32,
    width: &mut i32,
) -> String {
    let title = lane
        .query_selector("h3")
        .ok()
        .flatten()
        .and_then(|h| h.text_content())
        .unwrap_or_default();
    let mut out = format!(
        "<text x='12' y='{}' font-size='16' font-weight='bold'>{}</text>",
        y,
        esc(&title)
    );
    *y += 8;
    if let Some(svg) = lane.query_selector("svg").ok().flatten() {
        let dim = |a: &str, d: i32| {
            svg.get_attribute(a)
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let (w, h) = (dim("width", MIN_WIDTH), dim("height", LANE_H));
        *width = (*width).max(w + 20);
        if let Ok(s) = ser.serialize_to_string(&svg) {
            out.push_str(&format!("<g transform='translate(10 {y})'>{s}</g>"));
        }
        *y += h + 24;
    } else if let Some(text) = lane.text_content() {
        out.push_str(&format!(
            "<text x='12' y='{}' font-size='13'>{}</text>",
            *y + 14,
            esc(&text)
        ));
        *y += 36;
    }
    out
}

fn export_svg(run: &AnyRun) -> String {
    let doc = gloo::utils::document();
    let mut parts = String::new();
    let mut y = TOP;
    let mut width = MIN_WIDTH;
    if let (Ok(ser), Ok(nodes)) = (
        web_sys::XmlSerializer::new(),
        doc.query_selector_all(".lane"),
    ) {
        for i in 0..nodes.length() {
            if let Some(lane) = nodes
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                parts.push_str(&lane_svg(&lane, &ser, &mut y, &mut width));
            }
        }
    }
    // The lanes not drawn, as the page says under them.
    if let Some(more) = doc
        .query_selector(".more-lanes")
        .ok()
        .flatten()
        .and_then(|m| m.text_content())
    {
        parts.push_str(&format!(
            "<text x='12' y='{}' font-size='13'>{}</text>",
            y + 4,
            esc(&more)
        ));
        y += 24;
    }
    let line = run
        .line(run.cursor())
        .map(|l| format!("step {}: g{} {} — {}", l.step, l.goroutine, l.go, l.event))
        .unwrap_or_else(|| "step 0".into());
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{}' font-family='sans-serif'><style>{}</style>{}<rect width='100%' height='100%' fill='white'/><text x='12' y='24' font-size='18' font-weight='bold'>FlushScope · {}</text><text x='12' y='44' font-size='12'>{}</text>{parts}</svg>",
        y + 20,
        include_str!("../../../web/lanes.css"),
        SVG_DEFS_TEXT,
        esc(&run.header().name),
        esc(&line),
    )
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
