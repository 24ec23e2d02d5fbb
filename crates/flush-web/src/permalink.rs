//! The permalink: a view as a URL fragment and back. Every bad fragment gets a
//! message naming what is wrong; nothing here touches the DOM (native tests).
//!
//! `scenario=NAME&version=V[&vs=V2][&explore=WHAT][&lens=on][&matrix=on][&tour=ID&stop=K][&knob=KEY:SETTING..]&mode=M&seed=S&step=N[&sched=..][&file=..&src=..]`

use flush_core::link::{deflate, enc};
pub use flush_core::link::{file_name, MAX_FILE_NAME, MAX_LINK};
use flush_core::Choice;

use crate::state::{Exploring, Mode, Source, ViewSpec};

/// Fragments longer than this are refused before they are looked at (an inline
/// scenario is at most 8 MiB, percent-encoding triples it).
pub const MAX_FRAGMENT: usize = 3 * flush_core::scenario::MAX_SCENARIO_BYTES + 1024;

/// Whether a view whose fragment is `frag` can be opened as a link.
pub fn linkable(frag: &str) -> bool {
    frag.len() < MAX_LINK
}

/// What Permalink says of the view whose fragment is `frag`, the page being at
/// `base`: the link; past 2,000 characters (an uploaded scenario), its length
/// and its start, as a notice of megabytes of base64 pushed the page down by
/// screens; past [`MAX_LINK`], why there is none.
pub fn link_words(base: &str, frag: &str) -> String {
    if !linkable(frag) {
        return format!(
            "This view's link would be {:.1} MB, more than a browser opens (2 MiB): the page keeps the view in this browser's local storage, and the address bar leaves it out. To share it, send the scenario file (Edit, then Download JSON).",
            frag.len() as f64 / 1e6,
        );
    }
    if frag.len() > 2000 {
        return format!(
            "Link to this view: the address bar holds it ({} characters; copy it from there). It begins {base}#{}…",
            base.len() + 1 + frag.len(),
            frag.chars().take(200).collect::<String>()
        );
    }
    format!("Link to this view (the address bar shows it too): {base}#{frag}")
}

/// More knobs than any model has are refused (a fragment is the user's input).
const MAX_KNOBS: usize = 16;

thread_local! {
    /// The last scenario text deflated, and what it gave.
    static DEFLATED: std::cell::RefCell<Option<(std::rc::Rc<str>, std::rc::Rc<str>)>> =
        const { std::cell::RefCell::new(None) };
}

/// `deflate(text)`, kept for the text last asked: the link is written again at
/// each change of the view (a step, a search started), and level-9 DEFLATE of a
/// 4,000-actor upload took a frame of 100 ms each time (found by CI).
fn deflated(text: &std::rc::Rc<str>) -> std::rc::Rc<str> {
    DEFLATED.with(|d| {
        let mut d = d.borrow_mut();
        if let Some((t, z)) = d.as_ref() {
            if std::rc::Rc::ptr_eq(t, text) || **t == **text {
                return z.clone();
            }
        }
        let z: std::rc::Rc<str> = deflate(text).into();
        *d = Some((text.clone(), z.clone()));
        z
    })
}

pub fn encode(spec: &ViewSpec) -> String {
    let mut parts = Vec::new();
    match &spec.source {
        Source::Builtin(name) => parts.push(format!("scenario={}", enc(name))),
        Source::Inline { file, text } => {
            parts.push(format!("scenario=inline&file={}", enc(file)));
            parts.push(format!("z={}", deflated(text)));
        }
    }
    if let Some(v) = &spec.version {
        parts.push(format!("version={}", enc(v)));
    }
    if let Some(v) = &spec.compare {
        parts.push(format!("vs={}", enc(v)));
    }
    if let Some(e) = &spec.explore {
        parts.push(format!("explore={}", explore_words(e)));
    }
    if spec.lens {
        parts.push("lens=on".to_owned());
    }
    if spec.matrix {
        parts.push("matrix=on".to_owned());
    }
    if let Some((id, stop)) = &spec.tour {
        parts.push(format!("tour={}&stop={}", enc(id), stop + 1));
    }
    for (k, v) in &spec.knobs {
        parts.push(format!("knob={}", enc(&format!("{k}:{v}"))));
    }
    parts.push(format!("mode={}", spec.mode.as_str()));
    if let Some(s) = spec.seed {
        parts.push(format!("seed={s}"));
    }
    if let Some(s) = &spec.schedule {
        parts.push(format!(
            "sched={}",
            enc(&flush_core::sched::format_schedule(s))
        ));
    }
    parts.push(format!("step={}", spec.step));
    parts.join("&")
}

/// The run a fragment shows, without where in it: the fragment less its
/// `step=` and `sched=` (a manual run's choices so far), `vs=` (what Lockstep
/// compares it with), `explore=` (the search the Explore panel shows), `lens=`
/// (the race lens on) and `matrix=` (the policy matrix shown). Two
/// views with one run
/// are one entry of the browser's history (a step replaces it); another run
/// (another scenario, version, knob, mode, seed or tour stop) is a new one,
/// so Back returns to the run the user had (opening the smaller scenario an
/// explore cut replaced the entry, and Back left the page).
pub fn run_part(frag: &str) -> String {
    frag.trim_start_matches('#')
        .split('&')
        .filter(|p| {
            !["step=", "sched=", "vs=", "explore=", "lens=", "matrix="]
                .iter()
                .any(|k| p.starts_with(k))
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The keys of a fragment that are not a `ViewSpec` field as such.
#[derive(Default)]
struct Loose {
    scenario: Option<String>,
    file: Option<String>,
    src: Option<String>,
    tour: Option<String>,
    stop: Option<usize>,
    mode_given: bool,
}

/// Parses a fragment (with or without `#`), naming the first thing that is wrong.
pub fn decode(frag: &str) -> Result<ViewSpec, String> {
    if frag.len() > MAX_FRAGMENT {
        return Err(format!(
            "URL fragment: {} bytes is too long for a view (the limit is {MAX_FRAGMENT}).",
            frag.len()
        ));
    }
    let frag = frag.trim_start_matches('#');
    let mut spec = ViewSpec::default_view();
    let mut loose = Loose::default();
    let mut seen: Vec<&str> = Vec::new();
    for pair in frag.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("URL fragment: \"{}\" is not key=value.", short(pair)))?;
        // Knobs repeat; any other key given twice would have one value silently
        // win (src and z are one key: the scenario's text).
        let key = if k == "z" { "src" } else { k };
        if key != "knob" && seen.contains(&key) {
            return Err(format!(
                "URL fragment: \"{}\" is given twice; a view has one.",
                short(k)
            ));
        }
        seen.push(key);
        let v = dec(v).ok_or_else(|| {
            format!(
                "URL fragment: the value of \"{}\" is not valid percent-encoding.",
                short(k)
            )
        })?;
        read_pair(&mut spec, &mut loose, k, v)?;
    }
    spec.source = match loose.scenario.as_deref() {
        None => return Err("URL fragment: it names no scenario (scenario=...).".to_owned()),
        Some("inline") => Source::Inline {
            file: loose.file.unwrap_or_else(|| "linked scenario".to_owned()),
            text: loose
                .src
                .ok_or("URL fragment: scenario=inline needs src=...")?
                .into(),
        },
        Some(name) if loose.src.is_some() || loose.file.is_some() => {
            return Err(format!(
                "URL fragment: a file's text or name (src=, z=, file=) goes with scenario=inline, not scenario={}.",
                short(name)
            ))
        }
        Some(name) => Source::Builtin(name.to_owned()),
    };
    spec.tour = match (loose.tour, loose.stop) {
        (None, None) => None,
        (Some(t), s) => Some((t, s.unwrap_or(1) - 1)),
        (None, Some(_)) => return Err("URL fragment: stop=... needs tour=...".to_owned()),
    };
    if !loose.mode_given && spec.schedule.is_some() {
        spec.mode = Mode::Manual;
    }
    if spec.schedule.is_some() && spec.mode != Mode::Manual {
        return Err(format!(
            "URL fragment: sched=... is a manual run's schedule; mode={} would not use it (drop one of them).",
            spec.mode.as_str()
        ));
    }
    Ok(spec)
}

/// One `key=value` of a fragment (the value decoded).
fn read_pair(spec: &mut ViewSpec, loose: &mut Loose, k: &str, v: String) -> Result<(), String> {
    let number = not_a_number;
    match k {
        "scenario" => loose.scenario = Some(v),
        "file" if v.chars().count() > MAX_FILE_NAME => {
            return Err(format!(
            "URL fragment: file \"{}\" is longer than a file name ({MAX_FILE_NAME} characters).",
            short(&v)
        ))
        }
        "file" => {
            if let Some((i, c)) = v
                .chars()
                .enumerate()
                .find(|&(_, c)| flush_core::scenario::json::is_unsafe_char(c))
            {
                return Err(format!(
                    "URL fragment: file \"{}\" has the control, line-separator or bidirectional-formatting character U+{:04X} at character {}; a file name is shown as text, so such characters are refused.",
                    short(&v),
                    c as u32,
                    i + 1
                ));
            }
            loose.file = Some(v)
        }
        "src" => loose.src = Some(v),
        "z" => loose.src = Some(inflate(&v)?),
        "version" => spec.version = Some(v),
        "vs" => spec.compare = Some(v),
        "explore" => spec.explore = Some(exploring(&v)?),
        "lens" => spec.lens = on_off(&v, "lens", "the race lens")?,
        "matrix" => spec.matrix = on_off(&v, "matrix", "the policy matrix")?,
        "tour" => loose.tour = Some(v),
        "stop" => loose.stop = Some(stop_of(&v)?),
        "knob" => add_knob(spec, &v)?,
        "mode" => {
            spec.mode = Mode::parse(&v).ok_or_else(|| {
                format!(
                    "URL fragment: mode \"{}\" is not seeded, scripted or manual.",
                    short(&v)
                )
            })?;
            loose.mode_given = true;
        }
        "seed" => spec.seed = Some(v.parse().map_err(|_| number("seed", &v))?),
        "step" => spec.step = v.parse().map_err(|_| number("step", &v))?,
        "sched" => {
            spec.schedule =
                Some(Choice::parse_list(&v).map_err(|e| format!("URL fragment: sched: {e}."))?)
        }
        other => return Err(format!("URL fragment: unknown key \"{}\".", short(other))),
    }
    Ok(())
}

/// What to search: the first violation, every violation, or every violation
/// under every version (the words of `explore=`, the first one).
const EXPLORE_WHAT: [&str; 3] = ["first", "all", "versions"];

/// `explore=`'s value: what to search, then how (`all-races-dfs`, `versions`);
/// only characters a URL leaves as they are.
pub fn explore_words(e: &Exploring) -> String {
    let what = match (e.versions, e.all) {
        (true, _) => "versions",
        (false, true) => "all",
        (false, false) => "first",
    };
    let mut w = vec![what];
    w.extend(e.races.then_some("races"));
    w.extend(e.dfs.then_some("dfs"));
    w.join("-")
}

/// The search `explore=v` asks for, or what is wrong with it.
fn exploring(v: &str) -> Result<Exploring, String> {
    let mut words = v.split('-');
    let what = words.next().unwrap_or_default();
    let mut e = Exploring {
        versions: what == "versions",
        all: what != "first",
        races: false,
        dfs: false,
    };
    if !EXPLORE_WHAT.contains(&what) {
        return Err(format!(
            "URL fragment: explore=\"{}\" does not say what to search: it starts with first (the first violation), all (every violation) or versions (every violation under every version).",
            short(v)
        ));
    }
    for w in words {
        let flag = match w {
            "races" => &mut e.races,
            "dfs" => &mut e.dfs,
            _ => {
                return Err(format!(
                    "URL fragment: explore=\"{}\": \"{}\" is not a way to search; after {what} come races (also look for data races) or dfs (depth first), each once.",
                    short(v),
                    short(w)
                ))
            }
        };
        if std::mem::replace(flag, true) {
            return Err(format!(
                "URL fragment: explore=\"{}\" says \"{w}\" twice.",
                short(v)
            ));
        }
    }
    Ok(e)
}

/// A switch of a link (`k=on`, `k=off`), `what` it switches.
fn on_off(v: &str, k: &str, what: &str) -> Result<bool, String> {
    match v {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!(
            "URL fragment: {k} \"{}\" is not on or off ({what}).",
            short(v)
        )),
    }
}

/// Why a link's `what` is no number: too large when it is all digits,
/// negative when it is digits after a minus (it was "not a number").
fn not_a_number(what: &str, v: &str) -> String {
    let all_digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let why = if all_digits(v) {
        "is too large"
    } else if v.strip_prefix('-').is_some_and(all_digits) {
        "is negative (it counts from 0)"
    } else {
        "is not a number"
    };
    format!("URL fragment: {what} \"{}\" {why}.", short(v))
}

/// A tour's stop from a link (they count from 1).
fn stop_of(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Err(_) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            Err(not_a_number("stop", v))
        }
        _ => Err(format!(
            "URL fragment: stop \"{}\" is not a stop: they count from 1.",
            short(v)
        )),
    }
}

/// A link's `knob=key:setting`, once per key, at most [`MAX_KNOBS`].
fn add_knob(spec: &mut ViewSpec, v: &str) -> Result<(), String> {
    let (k, s) = v
        .split_once(':')
        .ok_or_else(|| format!("URL fragment: knob \"{}\" is not key:setting.", short(v)))?;
    if spec.knobs.iter().any(|(key, _)| key == k) {
        return Err(format!(
            "URL fragment: knob \"{}\" is given twice; a view sets it once.",
            short(k)
        ));
    }
    if spec.knobs.len() >= MAX_KNOBS {
        return Err(format!("URL fragment: more than {MAX_KNOBS} knobs."));
    }
    spec.knobs.push((k.to_owned(), s.to_owned()));
    Ok(())
}

/// A scenario's text as raw DEFLATE (level 9) in base64url without padding: a
/// review comment's link stays short (JSON deflates about 8 to 1).
/// The text of a `z=` value, never more than a scenario may be.
fn inflate(z: &str) -> Result<String, String> {
    use base64::Engine;
    // Padding is not ours, but a hand-made link may carry it.
    let packed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(z.trim_end_matches('='))
        .map_err(|_| {
            "URL fragment: z is not a deflated scenario in base64url (the link was cut or changed)."
                .to_owned()
        })?;
    let limit = flush_core::scenario::MAX_SCENARIO_BYTES;
    let bytes =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, limit).map_err(|e| match e
            .status
        {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!(
                "URL fragment: z unpacks to more than {} MB, the limit of a scenario.",
                limit >> 20
            ),
            _ => "URL fragment: z is not a deflated scenario (the link was cut or changed)."
                .to_owned(),
        })?;
    String::from_utf8(bytes)
        .map_err(|_| "URL fragment: z unpacks to text that is not UTF-8.".to_owned())
}

/// At most 40 characters, for messages.
pub fn short(s: &str) -> String {
    flush_core::scenario::json::short(s)
}

/// Percent-decoding; `None` on a bad escape or bytes that are not UTF-8.
fn dec(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None; // (from_str_radix alone would take "%+F")
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_keeps_the_run_part_and_another_run_changes_it() {
        let mut a = spec(Source::Builtin("handoff".into()));
        a.schedule = None;
        a.mode = Mode::Seeded;
        a.step = 2;
        let at2 = encode(&a);
        a.step = 9;
        assert_eq!(run_part(&at2), run_part(&encode(&a)));
        assert!(!run_part(&at2).contains("step="));
        // A manual run's choices so far are where in it, too.
        a.mode = Mode::Manual;
        a.schedule = Some(vec![Choice { g: 1, alt: 0 }]);
        let manual = encode(&a);
        a.schedule = Some(vec![Choice { g: 1, alt: 0 }, Choice { g: 2, alt: 0 }]);
        assert_eq!(run_part(&manual), run_part(&encode(&a)));
        assert_ne!(run_part(&manual), run_part(&at2), "another mode");
        for other in [
            ViewSpec {
                seed: Some(8),
                ..a.clone()
            },
            ViewSpec {
                version: Some("ca7ef26e4b".into()),
                ..a.clone()
            },
            ViewSpec {
                knobs: Vec::new(),
                ..a.clone()
            },
            ViewSpec {
                source: Source::Builtin("drop-mode".into()),
                ..a.clone()
            },
        ] {
            assert_ne!(run_part(&encode(&other)), run_part(&manual));
        }
        // Nor does what Lockstep compares the run with.
        let vs = ViewSpec {
            compare: None,
            ..a.clone()
        };
        assert_eq!(run_part(&encode(&vs)), run_part(&manual));
        assert!(encode(&a).contains("vs=ca7ef26e4b"));
        // A `#` in front changes nothing.
        assert_eq!(run_part(&format!("#{at2}")), run_part(&at2));
    }

    fn spec(source: Source) -> ViewSpec {
        ViewSpec {
            source,
            version: Some("b5c9a7364b".into()),
            compare: Some("ca7ef26e4b".into()),
            explore: None,
            lens: false,
            matrix: false,
            knobs: vec![
                ("keep".into(), "growing".into()),
                ("load".into(), "x:y".into()),
            ],
            tour: Some(("one-flush".into(), 2)),
            seed: Some(7),
            mode: Mode::Manual,
            schedule: Some(vec![Choice::new(0, 0), Choice::new(5, 1)]),
            step: 2,
        }
    }

    /// A link takes file names up to 255 characters, and every name the page
    /// makes fits: an upload's or an edit's longer name is cut, its end kept.
    #[test]
    fn long_file_names_are_refused_in_links_and_never_made() {
        let inline = |file: String| {
            encode(&spec(Source::Inline {
                file,
                text: "{}".into(),
            }))
        };
        let at_limit = "f".repeat(MAX_FILE_NAME);
        assert!(decode(&inline(at_limit.clone())).is_ok());
        let e = decode(&inline(format!("{at_limit}g"))).unwrap_err();
        assert!(
            e.contains("is longer than a file name (255 characters)"),
            "{e}"
        );
        let long = format!("edited-{at_limit}.json");
        let cut = file_name(&long);
        assert_eq!(cut.chars().count(), MAX_FILE_NAME);
        assert!(cut.starts_with('…') && cut.ends_with("f.json"), "{cut}");
        assert!(decode(&inline(cut)).is_ok());
        assert_eq!(file_name("short.json"), "short.json");
    }

    /// A file name is shown as text: a link's control or bidi character is
    /// refused (U+202E showed "report\u{202e}nosj.exe" as "reportexe.json"), and
    /// a name the page makes from an upload has them escaped, so its links load.
    #[test]
    fn file_names_with_control_or_bidi_characters() {
        for (name, code) in [
            ("report\u{202e}nosj.exe", "U+202E at character 7"),
            ("a\nb", "U+000A at character 2"),
        ] {
            let frag = encode(&spec(Source::Inline {
                file: name.into(),
                text: "{}".into(),
            }));
            let e = decode(&frag).unwrap_err();
            assert!(
                e.contains(code) && e.starts_with("URL fragment: file"),
                "{e}"
            );
        }
        let made = file_name("report\u{202e}nosj.exe");
        assert_eq!(made, "report\\u{202e}nosj.exe");
        let e = decode("scenario=handoff&step=99999999999999999999999").unwrap_err();
        assert!(
            e.contains("\"99999999999999999999999\" is too large"),
            "{e}"
        );
        let e = decode("scenario=handoff&src=%7B%7D&step=1").unwrap_err();
        assert!(
            e.contains("goes with scenario=inline, not scenario=handoff"),
            "{e}"
        );
        let e = decode("scenario=handoff&seed=-1").unwrap_err();
        assert!(
            e.ends_with("seed \"-1\" is negative (it counts from 0)."),
            "{e}"
        );
        let frag = encode(&spec(Source::Inline {
            file: made,
            text: "{}".into(),
        }));
        assert!(decode(&frag).is_ok());
    }

    /// A key given twice is refused, not read as its last value; knobs repeat.
    #[test]
    fn a_key_given_twice_is_refused() {
        for (frag, key) in [
            ("scenario=handoff&scenario=segment-not-found", "scenario"),
            ("scenario=handoff&step=3&step=4", "step"),
            ("scenario=inline&src=%7B%7D&z=qwE", "z"),
            ("scenario=handoff&mode=manual&sched=0&sched=1", "sched"),
        ] {
            let e = decode(frag).unwrap_err();
            assert!(
                e.contains(&format!("\"{key}\" is given twice")),
                "{frag}: {e}"
            );
        }
        let two_knobs = decode("scenario=segment-not-found&knob=a:x&knob=b:y").unwrap();
        assert_eq!(two_knobs.knobs.len(), 2);
        let e = decode("scenario=segment-not-found&knob=keep:growing&knob=keep:all").unwrap_err();
        assert!(e.contains("knob \"keep\" is given twice"), "{e}");
    }

    #[test]
    fn round_trips() {
        for s in [
            spec(Source::Builtin("segment-not-found".into())),
            spec(Source::Inline {
                file: "my file & co.json".into(),
                text: "{\"name\": \"é=&#%\"}\n".into(),
            }),
        ] {
            assert_eq!(decode(&encode(&s)), Ok(s.clone()));
            assert_eq!(decode(&format!("#{}", encode(&s))), Ok(s));
        }
    }

    /// `explore=` says what to search and how in words a URL leaves as they
    /// are, reads back as written, and is not another run (one history entry).
    #[test]
    fn a_search_travels_in_words() {
        let base = spec(Source::Builtin("segment-not-found".into()));
        let e = |versions, all, races, dfs| Exploring {
            versions,
            all,
            races,
            dfs,
        };
        for (x, words) in [
            (e(false, false, false, false), "first"),
            (e(false, true, false, false), "all"),
            (e(false, false, true, true), "first-races-dfs"),
            (e(true, true, false, true), "versions-dfs"),
            (e(true, true, true, false), "versions-races"),
        ] {
            let s = ViewSpec {
                explore: Some(x),
                ..base.clone()
            };
            let frag = encode(&s);
            assert!(frag.contains(&format!("&explore={words}&")), "{frag}");
            assert_eq!(decode(&frag), Ok(s));
            assert_eq!(run_part(&frag), run_part(&encode(&base)));
        }
        let lens = ViewSpec {
            lens: true,
            ..base.clone()
        };
        assert!(encode(&lens).contains("&lens=on&"));
        assert_eq!(decode(&encode(&lens)), Ok(lens.clone()));
        assert_eq!(run_part(&encode(&lens)), run_part(&encode(&base)));
        assert_eq!(
            decode("scenario=handoff&lens=off").map(|s| s.lens),
            Ok(false)
        );
        let matrix = ViewSpec {
            matrix: true,
            ..base.clone()
        };
        assert!(encode(&matrix).contains("&matrix=on&"));
        assert_eq!(decode(&encode(&matrix)), Ok(matrix.clone()));
        assert_eq!(run_part(&encode(&matrix)), run_part(&encode(&base)));
        // Either order after what to search.
        let dfs_first = decode("scenario=handoff&explore=all-dfs-races").unwrap();
        assert_eq!(dfs_first.explore, Some(e(false, true, true, true)));
    }

    /// The CLI's link to a finding (`flush_core::link`) opens in the page as
    /// the page's own "open in stepper" would: the scenario (a built-in, or a
    /// file's text and name), version, knobs, the schedule by hand, the step.
    #[test]
    fn the_clis_link_to_a_finding_reads_back() {
        let knobs = [("keep".to_owned(), "growing".to_owned())];
        let frag = flush_core::link::schedule_fragment(
            flush_core::link::Scenario::Builtin("segment-not-found"),
            Some("ca7ef26e4b"),
            &knobs,
            "0,0,0,1,3,3",
            1,
        )
        .unwrap();
        assert!(frag.contains("&sched=0,0,0,1,3,3&"), "{frag}");
        let spec = decode(&frag).unwrap();
        assert_eq!(spec.source, Source::Builtin("segment-not-found".into()));
        assert_eq!(spec.version.as_deref(), Some("ca7ef26e4b"));
        assert_eq!(spec.knobs, knobs.to_vec());
        assert_eq!((spec.mode, spec.step), (Mode::Manual, 1));
        assert_eq!(
            spec.schedule,
            Some(Choice::parse_list("0,0,0,1,3,3").unwrap())
        );
        let text = "{\"name\": \"é=&#%\"}\n";
        let frag = flush_core::link::schedule_fragment(
            flush_core::link::Scenario::File {
                name: "my file\u{202e}.json",
                text,
            },
            None,
            &[],
            "",
            0,
        )
        .unwrap();
        let spec = decode(&frag).unwrap();
        let Source::Inline { file, text: got } = spec.source else {
            panic!("{frag}")
        };
        assert_eq!((file.as_str(), &*got), ("my file\\u{202e}.json", text));
        assert_eq!((spec.schedule, spec.step), (None, 0));
        // Past what a browser opens, no link.
        let big = "x".repeat(3 << 20);
        let none = flush_core::link::schedule_fragment(
            flush_core::link::Scenario::File {
                name: "big.json",
                text: &big,
            },
            None,
            &[],
            "0",
            1,
        );
        assert!(none.is_none_or(|f| f.len() < MAX_LINK));
    }

    #[test]
    fn the_deflated_text_kept_is_the_texts_own() {
        // Each text, new or met again, equal or the same allocation, links as
        // itself: the text kept deflated is never another's.
        let files = flush_core::builtin::FILES;
        let texts: Vec<std::rc::Rc<str>> = vec![
            files[0].1.into(),
            files[1].1.into(),
            files[0].1.into(),
            files[0].1.into(),
        ];
        for text in texts.iter().chain([&texts[1], &texts[1]]) {
            let s = spec(Source::Inline {
                file: "f.json".into(),
                text: text.clone(),
            });
            let link = encode(&s);
            assert!(link.contains(&format!("&z={}&", deflate(text))));
            assert_eq!(decode(&link), Ok(s));
        }
    }

    #[test]
    fn an_inline_scenario_travels_deflated_and_a_bad_one_says_why() {
        let text = flush_core::builtin::FILES[0].1;
        let s = spec(Source::Inline {
            file: "edited.json".into(),
            text: text.into(),
        });
        let link = encode(&s);
        assert!(link.contains("&z=") && !link.contains("src="));
        let plain = enc(text).len();
        assert!(
            link.len() * 2 < plain,
            "{} bytes, {plain} percent-encoded",
            link.len()
        );
        assert_eq!(decode(&link), Ok(s));
        for (frag, want) in [
            (
                "scenario=inline&z=%25%25",
                "z is not a deflated scenario in base64url (the link was cut",
            ),
            ("scenario=inline&z=AAAA", "z is not a deflated scenario"),
        ] {
            let e = decode(frag).unwrap_err();
            assert!(e.contains(want), "{frag}: {e}");
        }
        // A bomb: 9 MB of spaces in a few kilobytes is refused, not unpacked.
        let bomb = deflate(&" ".repeat(flush_core::scenario::MAX_SCENARIO_BYTES + 1));
        assert!(bomb.len() < 40_000);
        let e = decode(&format!("scenario=inline&z={bomb}")).unwrap_err();
        assert!(e.contains("unpacks to more than 8 MB"), "{e}");
    }

    #[test]
    fn encodes_like_encode_uri_component() {
        assert_eq!(enc("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(enc("0,3,5.1"), "0%2C3%2C5.1");
        assert_eq!(dec("a%20b%26c%3Dd%2F%C3%A9").as_deref(), Some("a b&c=d/é"));
        assert_eq!(dec("%+F"), None, "a sign is not a hex digit");
        assert_eq!(dec("%4"), None);
    }

    #[test]
    fn a_schedule_without_a_mode_is_manual() {
        let s = decode("scenario=handoff&sched=0,1&step=2").unwrap();
        assert_eq!(s.mode, Mode::Manual);
        assert_eq!(s.schedule, Some(vec![Choice::new(0, 0), Choice::new(1, 0)]));
    }

    #[test]
    fn every_bad_fragment_says_what_is_wrong() {
        for (frag, want) in [
            ("", "names no scenario"),
            ("scenario=handoff&step=abc", "step \"abc\" is not a number"),
            (
                "scenario=handoff&seed=-1",
                "seed \"-1\" is negative (it counts from 0)",
            ),
            (
                "scenario=handoff&step=-1",
                "step \"-1\" is negative (it counts from 0)",
            ),
            ("scenario=handoff&step=-", "step \"-\" is not a number"),
            (
                "scenario=handoff&mode=fast",
                "mode \"fast\" is not seeded, scripted or manual",
            ),
            ("scenario=handoff&oops", "\"oops\" is not key=value"),
            ("scenario=handoff&colour=red", "unknown key \"colour\""),
            ("scenario=%E0%A4", "not valid percent-encoding"),
            ("scenario=%zz", "not valid percent-encoding"),
            ("scenario=inline", "scenario=inline needs src="),
            (
                "scenario=handoff&tour=one-flush&stop=0",
                "stop \"0\" is not a stop: they count from 1.",
            ),
            ("scenario=handoff&stop=2", "stop=... needs tour=..."),
            (
                "scenario=handoff&explore=",
                "explore=\"\" does not say what to search: it starts with first",
            ),
            (
                "scenario=handoff&explore=dfs-all",
                "explore=\"dfs-all\" does not say what to search",
            ),
            (
                "scenario=handoff&explore=all-fast",
                "\"fast\" is not a way to search; after all come races",
            ),
            (
                "scenario=handoff&explore=first-dfs-dfs",
                "explore=\"first-dfs-dfs\" says \"dfs\" twice",
            ),
            (
                "scenario=handoff&lens=yes",
                "lens \"yes\" is not on or off (the race lens)",
            ),
            (
                "scenario=handoff&matrix=1",
                "matrix \"1\" is not on or off (the policy matrix)",
            ),
            (
                "scenario=handoff&explore=all&explore=first",
                "\"explore\" is given twice",
            ),
            (
                "scenario=handoff&knob=keep",
                "knob \"keep\" is not key:setting",
            ),
            (
                "scenario=handoff&sched=1,x",
                "sched: \"x\" is not a schedule entry",
            ),
            (
                "scenario=handoff&mode=seeded&sched=0,0",
                "sched=... is a manual run's schedule; mode=seeded would not use it",
            ),
            (
                "scenario=handoff&tour=one-flush&stop=99999999999999999999999",
                "stop \"99999999999999999999999\" is too large",
            ),
        ] {
            let e = decode(frag).unwrap_err();
            assert!(e.contains(want), "{frag}: {e}");
        }
        let long = "a".repeat(MAX_FRAGMENT + 1);
        assert!(decode(&long).unwrap_err().contains("too long"));
    }

    /// Permalink spells out a short link, gives a long one's length and start,
    /// and says why a view past what a browser opens has none.
    #[test]
    fn permalink_words_fit_the_link() {
        let base = "http://h/";
        let short = "scenario=handoff&step=3";
        assert_eq!(
            link_words(base, short),
            "Link to this view (the address bar shows it too): http://h/#scenario=handoff&step=3"
        );
        let long = "z".repeat(5000);
        let w = link_words(base, &long);
        assert!(
            w.starts_with("Link to this view: the address bar holds it (5010 characters;"),
            "{w}"
        );
        assert!(w.len() < 400, "{w}");
        let huge = "z".repeat(MAX_LINK);
        assert!(link_words(base, &huge)
            .starts_with("This view's link would be 2.1 MB, more than a browser opens (2 MiB)"));
        assert!(linkable(&huge[1..]) && !linkable(&huge));
    }
}
