//! The built-in scenarios: the files of `scenarios/`, embedded at build time, plus
//! generated large ones for benchmarks and the browser's step-latency figure.

use crate::models::AnyScenario;

/// (file stem, JSON text) of every built-in scenario file, in presentation order.
pub const FILES: &[(&str, &str)] = &[
    (
        "segment-not-found",
        include_str!("../../../scenarios/segment-not-found.json"),
    ),
    (
        "segment-not-found-fixed",
        include_str!("../../../scenarios/segment-not-found-fixed.json"),
    ),
    (
        "sealed-segment-flush",
        include_str!("../../../scenarios/sealed-segment-flush.json"),
    ),
    (
        "rows-lost",
        include_str!("../../../scenarios/rows-lost.json"),
    ),
    (
        "follow-up-crash",
        include_str!("../../../scenarios/follow-up-crash.json"),
    ),
    ("handoff", include_str!("../../../scenarios/handoff.json")),
    (
        "idle-handler-injection",
        include_str!("../../../scenarios/idle-handler-injection.json"),
    ),
    (
        "ordered-flush",
        include_str!("../../../scenarios/ordered-flush.json"),
    ),
    (
        "runner-creation-race",
        include_str!("../../../scenarios/runner-creation-race.json"),
    ),
    (
        "inject-done-splice",
        include_str!("../../../scenarios/inject-done-splice.json"),
    ),
    (
        "compaction-race",
        include_str!("../../../scenarios/compaction-race.json"),
    ),
    (
        "failed-injection-sticky",
        include_str!("../../../scenarios/failed-injection-sticky.json"),
    ),
    (
        "drop-mode",
        include_str!("../../../scenarios/drop-mode.json"),
    ),
    (
        "drop-mode-injection",
        include_str!("../../../scenarios/drop-mode-injection.json"),
    ),
    (
        "drop-mode-compaction",
        include_str!("../../../scenarios/drop-mode-compaction.json"),
    ),
    ("retries", include_str!("../../../scenarios/retries.json")),
    // Milvus's own flush-manager tests at 891c202b73, ported (smaller sizes).
    (
        "go-test-order",
        include_str!("../../../scenarios/go-test-order.json"),
    ),
    (
        "go-test-execute",
        include_str!("../../../scenarios/go-test-execute.json"),
    ),
    (
        "go-test-inject",
        include_str!("../../../scenarios/go-test-inject.json"),
    ),
    (
        "go-test-drop-mode",
        include_str!("../../../scenarios/go-test-drop-mode.json"),
    ),
    (
        "go-test-drop-mode-injection",
        include_str!("../../../scenarios/go-test-drop-mode-injection.json"),
    ),
    (
        "go-test-close",
        include_str!("../../../scenarios/go-test-close.json"),
    ),
    (
        "go-test-fail-error",
        include_str!("../../../scenarios/go-test-fail-error.json"),
    ),
];

/// The generated scenario the page lists (`pairs-1000`, see
/// [`crate::models::flush2021::setup::pairs`]); other sizes load by name.
pub const PAIRS_1000: &str = "pairs-1000";

/// Every built-in name: the files, then the listed generated ones.
pub fn names() -> Vec<&'static str> {
    FILES
        .iter()
        .map(|f| f.0)
        .chain(crate::models::LISTED_GENERATED.iter().copied())
        .collect()
}

/// A size in a generated built-in's name: decimal digits, no sign, no leading
/// zero (`pairs-+4` and `sync-scaled-04x3` are not names of built-ins).
pub(crate) fn count(s: &str) -> Option<u32> {
    let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse().ok())
        .flatten()
}

/// Why `name` names no built-in, with the names there are.
pub fn unknown(name: &str) -> String {
    format!(
        "no built-in scenario \"{}\"; known: {}; also {}",
        crate::scenario::json::short(name),
        names().join(", "),
        crate::models::generated_words()
    )
}

/// A built-in's file (`None`: no such file, or a generated built-in).
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|f| f.0 == name).map(|f| f.1)
}

/// A built-in scenario by name: a file of `scenarios/`, or a generated one
/// (`pairs-N`, N from 1 to 20000; `sync-scaled-SxT`).
pub fn get(name: &str) -> Option<AnyScenario> {
    if let Some(sc) = AnyScenario::generated(name) {
        return Some(sc);
    }
    let text = text(name)?;
    // The files are checked by a test; a broken one is a build-time bug.
    Some(
        AnyScenario::parse(text, &format!("scenarios/{name}.json"))
            .expect("built-in scenario parses"),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_size_in_a_name_is_plain_digits() {
        for (s, n) in [("1", Some(1)), ("0", Some(0)), ("20000", Some(20_000))] {
            assert_eq!(super::count(s), n, "{s}");
        }
        for s in [
            "",
            "+4",
            "04",
            "00",
            "-1",
            " 4",
            "4 ",
            "1e3",
            "4294967296",
            "٤",
        ] {
            assert_eq!(super::count(s), None, "{s:?}");
        }
        assert!(super::get("pairs-04").is_none() && super::get("pairs-4").is_some());
    }
}
