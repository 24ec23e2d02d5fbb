//! Tidy checks: the architecture rules of ARCHITECTURE.md, checked on the source.
//!
//! * Only the registry (`models/mod.rs`) names every model; nothing outside
//!   `models/` names one.
//! * A model knows nothing of its presentation: in a model's folder only
//!   `view.rs` uses the view vocabulary.
//! * Front ends (the CLI, the page) know no model internals.
//! * Functions stay short enough to read (flat tables excepted).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of code (comments and doc comments dropped), with their numbers.
fn code_lines(p: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("").to_owned()))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect()
}

const MODELS: [&str; 3] = ["flush2021", "sync2024", "mutex"];

fn names_a_model(line: &str) -> Option<&'static str> {
    MODELS
        .into_iter()
        .find(|m| line.contains(&format!("{m}::")) || line.contains(&format!("mod {m}")))
}

#[test]
fn only_the_registry_names_the_models() {
    let src = root().join("crates/flush-core/src");
    let models = src.join("models");
    let mut found = Vec::new();
    let mut registry_names = Vec::new();
    for dir in [
        "crates/flush-core/src",
        "crates/flush-cli/src",
        "crates/flush-web/src",
        "xtask/src",
    ] {
        for p in rust_files(&root().join(dir)) {
            if p.starts_with(&models) && p != models.join("mod.rs") {
                continue;
            }
            for (n, l) in code_lines(&p) {
                if let Some(m) = names_a_model(&l) {
                    if p == models.join("mod.rs") {
                        registry_names.push(m);
                    } else {
                        found.push(format!("{}:{n}: {}", p.display(), l.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "outside the registry:\n{}",
        found.join("\n")
    );
    for m in MODELS {
        assert!(registry_names.contains(&m), "the registry names {m}");
    }
}

#[test]
fn a_model_knows_nothing_of_its_presentation_or_of_other_models() {
    let models = root().join("crates/flush-core/src/models");
    for m in MODELS {
        for p in rust_files(&models.join(m)) {
            let view = p.file_name().is_some_and(|f| f == "view.rs");
            for (n, l) in code_lines(&p) {
                if !view {
                    assert!(
                        !l.contains("view::") && !l.contains("Present") && !l.contains("Stage"),
                        "{}:{n} uses the presentation: {}",
                        p.display(),
                        l.trim()
                    );
                }
                if let Some(other) = names_a_model(&l).filter(|o| *o != m) {
                    panic!("{}:{n} names model {other}: {}", p.display(), l.trim());
                }
            }
        }
    }
}

#[test]
fn front_ends_know_no_model_internals() {
    for dir in ["crates/flush-cli/src", "crates/flush-web/src"] {
        for p in rust_files(&root().join(dir)) {
            for (n, l) in code_lines(&p) {
                let bad = [
                    "World", "Role", "RunnerAt", "Runner", "MetaSeg", "SyncTask", "Ev",
                ]
                .into_iter()
                .find(|w| has_word(&l, w));
                assert!(
                    bad.is_none(),
                    "{}:{n} names {bad:?}: {}",
                    p.display(),
                    l.trim()
                );
                if l.contains("models::") {
                    assert!(
                        l.contains("models::FORMATS"),
                        "{}:{n}: {}",
                        p.display(),
                        l.trim()
                    );
                }
            }
        }
    }
}

/// `w` occurs in `line` as a whole identifier.
fn has_word(line: &str, w: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(w).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + w.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Functions longer than this are split (a match with one arm per fact or per
/// op reads best whole: those are listed).
const MAX_FN_LINES: usize = 80;
const TABLES: [&str; 6] = [
    "render",
    "go_fn",
    "log_line",
    "actor_waits",
    "read_op",
    "start_op",
];

#[test]
fn functions_stay_short() {
    let mut long = Vec::new();
    for dir in [
        "crates/flush-core/src",
        "crates/flush-cli/src",
        "crates/flush-web/src",
        "xtask/src",
    ] {
        for p in rust_files(&root().join(dir)) {
            let lines: Vec<String> = std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            let mut i = 0;
            while i < lines.len() {
                let t = lines[i].trim_start();
                let is_fn = ["fn ", "pub fn ", "pub(super) fn ", "pub(crate) fn "]
                    .iter()
                    .any(|k| t.starts_with(k));
                if !is_fn {
                    i += 1;
                    continue;
                }
                let name: String = t
                    .split("fn ")
                    .nth(1)
                    .unwrap_or("")
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let indent = lines[i].len() - t.len();
                // The function ends at the first `}` line at its own indentation.
                let end = (i + 1..lines.len())
                    .find(|j| {
                        lines[*j].len() > indent
                            && lines[*j][indent..].starts_with('}')
                            && lines[*j][..indent].trim().is_empty()
                    })
                    .unwrap_or(i);
                if t.trim_end().ends_with(';') {
                    i += 1;
                    continue;
                }
                let len = end + 1 - i;
                if len > MAX_FN_LINES && !TABLES.contains(&name.as_str()) {
                    long.push(format!(
                        "{}:{}: fn {name} is {len} lines",
                        p.display(),
                        i + 1
                    ));
                }
                i += 1;
            }
        }
    }
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}
