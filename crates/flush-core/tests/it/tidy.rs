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

/// The lines of code with their numbers: string literals emptied (their text is
/// words, not names), then comments and doc comments dropped.
fn code_lines(p: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            (
                i + 1,
                without_strings(l)
                    .split("//")
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .filter(|(_, l)| !l.trim().is_empty())
        .collect()
}

/// `line` with the contents of its string literals removed (`"..."` becomes `""`;
/// escapes honoured; a char literal `'"'` is left alone).
fn without_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        match (in_str, c) {
            (false, '\'') if chars.peek() == Some(&'"') => {
                out.push(c);
                out.push(chars.next().unwrap());
            }
            (false, '"') => {
                in_str = true;
                out.push(c);
            }
            (true, '\\') => {
                chars.next();
            }
            (true, '"') => {
                in_str = false;
                out.push(c);
            }
            (true, _) => {}
            (false, _) => out.push(c),
        }
    }
    out
}

/// Every folder of Rust source the rules cover.
const SOURCE_DIRS: [&str; 6] = [
    "crates/flush-core/src",
    "crates/flush-cli/src",
    "crates/flush-web/src",
    "crates/flush-worker/src",
    "crates/flush-bench-wasm/src",
    "xtask/src",
];

const MODELS: [&str; 3] = ["flush2021", "sync2024", "mutex"];

/// The model a line of code names (as an identifier: a path, a `use` list, an alias).
fn names_a_model(line: &str) -> Option<&'static str> {
    MODELS.into_iter().find(|m| has_word(line, m))
}

#[test]
fn the_checks_see_through_strings_and_lists() {
    assert_eq!(
        without_strings(r#"let a = "x // y \" z"; b"#),
        r#"let a = ""; b"#
    );
    assert_eq!(names_a_model("    flush2021,"), Some("flush2021"));
    assert_eq!(
        names_a_model("use crate::models::mutex as m;"),
        Some("mutex")
    );
    assert_eq!(
        names_a_model(&without_strings(r#"f("holds the mutex")"#)),
        None
    );
    assert_eq!(names_a_model("let flush2021x = 1;"), None);
    assert!(is_fn_start("pub(in crate::models) const fn f() {"));
    assert!(is_fn_start("async unsafe fn g() {"));
    assert!(!is_fn_start("let fn_name = 1;"));
}

#[test]
fn only_the_registry_names_the_models() {
    let src = root().join("crates/flush-core/src");
    let models = src.join("models");
    let mut found = Vec::new();
    let mut registry_names = Vec::new();
    for dir in SOURCE_DIRS {
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
                // (Declaring the `view` module is the folder's own business.)
                let declares_view = matches!(l.trim(), "pub mod view;" | "mod view;");
                if !view && !declares_view {
                    let vocabulary = [
                        "view", "Present", "Stage", "Lane", "Card", "Panel", "Badge", "Chain",
                        "Token", "Figures",
                    ];
                    assert!(
                        !vocabulary.iter().any(|w| has_word(&l, w)),
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
    for dir in [
        "crates/flush-cli/src",
        "crates/flush-web/src",
        "crates/flush-worker/src",
    ] {
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
/// (file name, function): the flat tables, and only these.
const TABLES: [(&str, &str); 5] = [
    ("facts.rs", "render"),
    ("facts.rs", "go_fn"),
    ("facts.rs", "log_line"),
    ("actor.rs", "start_op"),
    ("setup.rs", "read_op"),
];

/// A line that starts a function: `fn`, after any of `pub`, `pub(..)`, `const`,
/// `async`, `unsafe`, `extern "C"`.
fn is_fn_start(t: &str) -> bool {
    let Some((head, _)) = t.split_once("fn ") else {
        return false;
    };
    head.split_whitespace().all(|w| {
        w.starts_with("pub")
            || [
                "const",
                "async",
                "unsafe",
                "extern",
                "\"C\"",
                "crate::models)",
            ]
            .contains(&w)
    })
}

#[test]
fn functions_stay_short() {
    let mut long = Vec::new();
    for dir in SOURCE_DIRS {
        for p in rust_files(&root().join(dir)) {
            let lines: Vec<String> = std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            let mut i = 0;
            while i < lines.len() {
                let t = lines[i].trim_start();
                if !is_fn_start(t) {
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
                let file = p.file_name().unwrap().to_string_lossy();
                let table = TABLES.contains(&(file.as_ref(), name.as_str()));
                if len > MAX_FN_LINES && !table {
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
