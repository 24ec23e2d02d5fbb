//! The page's link to a view (its URL fragment), as far as the CLI writes one
//! too: a finding's schedule, replayed by hand in the page from a step. The
//! page reads every key back (`flush-web`'s `permalink::decode`, which also
//! writes the rest of a view: see its `encode`); what both write is here, once.

/// The longest address a browser opens: Chromium refuses a URL over 2 MiB
/// (`url::kMaxURLChars`). A link is kept under it, with room for the page's
/// own address.
pub const MAX_LINK: usize = 2 * 1024 * 1024 - 4096;

/// The longest `file=` name a link takes (a file name's limit on common systems).
pub const MAX_FILE_NAME: usize = 255;

/// What a link opens: a built-in by name (generated ones too), or a file's text
/// (it travels deflated, `z=`).
#[derive(Clone, Copy, Debug)]
pub enum Scenario<'a> {
    Builtin(&'a str),
    File { name: &'a str, text: &'a str },
}

/// The fragment (without `#`) of `sc` at `version` with `knobs` set, the
/// choices `schedule` (as `flushscope run --schedule` takes them) replayed by
/// hand, shown at `step`; `None` when it would be longer than a browser opens.
pub fn schedule_fragment(
    sc: Scenario,
    version: Option<&str>,
    knobs: &[(String, String)],
    schedule: &str,
    step: u32,
) -> Option<String> {
    let mut parts = vec![match sc {
        Scenario::Builtin(name) => format!("scenario={}", enc(name)),
        Scenario::File { name, text } => format!(
            "scenario=inline&file={}&z={}",
            enc(&file_name(name)),
            deflate(text)
        ),
    }];
    if let Some(v) = version {
        parts.push(format!("version={}", enc(v)));
    }
    for (k, v) in knobs {
        parts.push(format!("knob={}", enc(&format!("{k}:{v}"))));
    }
    parts.push("mode=manual".to_owned());
    if !schedule.is_empty() {
        // Its commas as they are: a fragment may hold them, and a terminal
        // shows the choices.
        parts.push(format!("sched={}", enc(schedule).replace("%2C", ",")));
    }
    parts.push(format!("step={step}"));
    let frag = parts.join("&");
    (frag.len() < MAX_LINK).then_some(frag)
}

/// `name` cut to [`MAX_FILE_NAME`] characters, its end kept (`….json`), its
/// control and bidirectional-formatting characters written as escapes (the
/// page shows a file name as text, and a link with such characters is
/// refused): every name given to a scenario in a link reads back.
pub fn file_name(name: &str) -> String {
    let name = &*crate::scenario::json::escape_unsafe(name, false);
    let n = name.chars().count();
    if n <= MAX_FILE_NAME {
        return name.to_owned();
    }
    let tail: String = name.chars().skip(n - (MAX_FILE_NAME - 1)).collect();
    format!("…{tail}")
}

/// A scenario's text as a link carries it: raw DEFLATE, then base64url
/// without padding.
pub fn deflate(text: &str) -> String {
    use base64::Engine;
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed)
}

/// Percent-encoding of everything but `A-Z a-z 0-9 - _ . ! ~ * ' ( )` (what
/// `encodeURIComponent` leaves alone).
pub fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
