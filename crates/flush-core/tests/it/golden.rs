//! Golden traces: every built-in scenario, run with its own seed (and, when it has
//! one, its embedded schedule), must print exactly the trace in tests/golden/. The
//! CLI test checks the same files against `flushscope run`. Review changes with
//! `cargo insta review` or rerun with INSTA_UPDATE=always.

use flush_core::Policy;

use crate::common::*;

pub fn golden_text(name: &str) -> String {
    let sc = builtin(name);
    let h = sc.header();
    let policy = match &h.schedule {
        Some(s) => Policy::Scripted {
            script: s.clone(),
            fallback_seed: h.seed,
        },
        None => Policy::Seeded(h.seed),
    };
    any_run(&sc, policy).text(true)
}

#[test]
fn builtin_traces_match_golden_files() {
    for name in flush_core::builtin::FILES.iter().map(|f| f.0) {
        let text = golden_text(name);
        insta::with_settings!({
            snapshot_path => "../../../../tests/golden",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, text);
        });
    }
}

/// The same run twice gives the same bytes (and so does its JSON report).
#[test]
fn runs_are_deterministic() {
    for name in flush_core::builtin::names() {
        let sc = builtin(name);
        for seed in [0, 1, 99] {
            let a = any_run(&sc, seeded(seed));
            let b = any_run(&sc, seeded(seed));
            assert_eq!(a.text(true), b.text(true), "{name} seed {seed}");
            assert_eq!(a.report_json(false), b.report_json(false));
        }
    }
}
