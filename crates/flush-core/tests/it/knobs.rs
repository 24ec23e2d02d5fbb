//! The what-if knobs as every face sees them (`AnyScenario::knobs`, `set_knob`,
//! `variants`): each knob's settings name the versions that have them, setting a
//! knob by name is the same as the scenario file's `"policy"` / `"what_if"`, and
//! the matrix's rows are exactly the combinations of the settings.

use std::collections::BTreeSet;

use flush_core::AnyScenario;

use crate::common;

/// The toy model (no knobs).
fn toy() -> AnyScenario {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/toy");
    let text = std::fs::read_to_string(root.join("mutex-lost-update.json")).unwrap();
    AnyScenario::parse(&text, "mutex-lost-update.json").unwrap()
}

/// segment-not-found with its SyncSegments tick `"retried"` (the knob
/// `deadline` then matters, and is listed).
fn retried() -> AnyScenario {
    let mut tree = common::builtin_json("segment-not-found");
    let ops = tree["actors"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|a| a["ops"].as_array_mut().unwrap().iter_mut());
    let mut marked = 0;
    for op in ops.filter(|o| o["op"] == "sync_segments") {
        op["retried"] = serde_json::json!(true);
        marked += 1;
    }
    assert!(marked > 0);
    AnyScenario::parse(&tree.to_string(), "retried.json").unwrap()
}

fn settings(sc: &AnyScenario) -> Vec<(&'static str, &'static str)> {
    sc.knobs().iter().map(|k| (k.key, k.current)).collect()
}

#[test]
fn each_version_is_the_preset_its_knobs_name() {
    let mut sc = common::builtin("segment-not-found");
    for v in sc.versions() {
        sc.set_version(v.id).unwrap();
        let knobs = sc.knobs();
        assert_eq!(knobs.len(), 3);
        for k in &knobs {
            assert_eq!(
                k.current, k.preset,
                "{}: no policy, the version's own",
                k.key
            );
            let mine: Vec<_> = k
                .settings
                .iter()
                .filter(|s| s.presets.contains(&v.id))
                .map(|s| s.name)
                .collect();
            assert_eq!(mine, [k.preset], "{} at {}", k.key, v.id);
            assert!(k.settings.iter().all(|s| !s.about.is_empty()));
        }
    }
    let f = common::builtin("compaction-race");
    let knobs = f.knobs();
    assert_eq!(knobs.len(), 4);
    assert!(knobs
        .iter()
        .all(|k| k.current == "off" && k.preset == "off"));
    assert!(knobs
        .iter()
        .all(|k| k.settings[0].presets == ["891c202b73"] && k.settings[1].presets.is_empty()));
    assert!(toy().knobs().is_empty());
}

#[test]
fn setting_a_knob_by_name_is_the_scenario_files_policy() {
    let mut sc = common::builtin("segment-not-found");
    sc.set_knob("keep", "growing").unwrap();
    let file = common::builtin_with(
        "segment-not-found",
        "policy",
        serde_json::json!({"keep": "growing"}),
    )
    .unwrap();
    assert_eq!(sc, file);
    assert_eq!(sc.proposed(), ["keep=growing"]);
    let keep = sc.knobs().into_iter().find(|k| k.key == "keep").unwrap();
    assert_eq!((keep.current, keep.preset), ("growing", "l0_growing"));

    let mut f = common::builtin("compaction-race");
    f.set_knob("handler_chains_tail", "on").unwrap();
    let file = common::builtin_with(
        "compaction-race",
        "what_if",
        serde_json::json!({"handler_chains_tail": true}),
    )
    .unwrap();
    assert_eq!(f, file);
    f.set_knob("handler_chains_tail", "off").unwrap();
    assert_eq!(f, common::builtin("compaction-race"));

    for (mut sc, key, value, want) in [
        (
            common::builtin("segment-not-found"),
            "keep",
            "sometimes",
            "knob keep has no setting \"sometimes\"; it has l0_growing, growing",
        ),
        (
            common::builtin("segment-not-found"),
            "filter",
            "healthy",
            "no knob \"filter\"; it has request, keep, load and deadline",
        ),
        (
            common::builtin("compaction-race"),
            "handler_chains_tail",
            "yes",
            "knob handler_chains_tail is \"on\" or \"off\", not \"yes\"",
        ),
        (
            common::builtin("compaction-race"),
            "locks",
            "on",
            "no knob \"locks\"; it has handler_locks_sticky, waiter_locks_tail",
        ),
        (toy(), "keep", "growing", "no knob \"keep\""),
    ] {
        let before = sc.clone();
        let e = sc.set_knob(key, value).unwrap_err();
        assert!(e.contains(want), "{e}");
        assert_eq!(sc, before, "a refused knob changes nothing");
    }
}

#[test]
fn the_matrix_rows_are_every_combination_once_and_set_knob_rebuilds_each() {
    for (name, base) in [
        ("segment-not-found", common::builtin("segment-not-found")),
        ("compaction-race", common::builtin("compaction-race")),
        ("retried", retried()),
    ] {
        let variants = base.variants();
        let distinct: BTreeSet<_> = variants.iter().map(|(_, v)| settings(v)).collect();
        let product: usize = base.knobs().iter().map(|k| k.settings.len()).product();
        assert_eq!(
            (variants.len(), distinct.len()),
            (product, product),
            "{name}"
        );
        for (presets, v) in &variants {
            let mut again = base.clone();
            for (k, s) in settings(v) {
                again.set_knob(k, s).unwrap();
            }
            assert_eq!(settings(&again), settings(v));
            assert_eq!(again.proposed(), v.proposed());
            // A row is a version's exactly when all its knobs are that version's.
            for id in presets {
                let mut at = base.clone();
                if !at.versions().is_empty() {
                    at.set_version(id).unwrap();
                }
                assert!(at
                    .knobs()
                    .iter()
                    .zip(v.knobs())
                    .all(|(a, b)| a.preset == b.current));
            }
        }
        let with_preset = variants.iter().filter(|(p, _)| !p.is_empty()).count();
        assert_eq!(
            with_preset,
            base.versions().len().max(1),
            "{name}: each version is one row"
        );
        let deadline = base.knobs().iter().any(|k| k.key == "deadline");
        assert_eq!(deadline, name == "retried", "{name}");
    }
    // Set in a file's policy, the knob is listed (and kept on export) even
    // without a "retried" op.
    let mut sc = common::builtin("segment-not-found");
    sc.set_knob("deadline", "none").unwrap();
    assert_eq!(sc.proposed(), ["deadline=none"]);
    assert_eq!(sc.knobs().len(), 4);
    assert_eq!(sc.variants().len(), 64);
}
