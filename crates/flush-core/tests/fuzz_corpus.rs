//! Replays the fuzzers' kept corpus (fuzz/corpus/scenario, fuzz/corpus/schedule)
//! through the fuzz targets' own code (fuzz/src/core_targets.rs, compiled here by
//! path): every input must come back `Ok` or `Err` with a message, never panic.
//! The fuzzing itself (AFL++ through cargo-afl) is run by hand: fuzz/README.md.

#[path = "../../../fuzz/src/core_targets.rs"]
mod targets;

#[path = "../../../fuzz/src/replay.rs"]
mod replay;
use replay::replay;

#[test]
fn the_scenario_corpus_replays() {
    let (ok, refused) = replay("scenario", targets::scenario);
    // The corpus keeps the built-in scenarios' shapes: some must parse and run.
    assert!(
        ok > 0,
        "no scenario of the corpus was accepted ({refused} refused)"
    );
    assert!(refused > 0, "no refusal in the corpus ({ok} accepted)");
}

#[test]
fn the_schedule_corpus_replays() {
    let (ok, refused) = replay("schedule", targets::schedule);
    assert!(
        ok > 0,
        "no schedule of the corpus parsed ({refused} refused)"
    );
}

#[test]
fn the_logs_corpus_replays() {
    let (ok, refused) = replay("logs", targets::logs);
    // The corpus keeps the #34018 log and the models' own logs: some import.
    assert!(
        ok > 0,
        "no log of the corpus was imported ({refused} refused)"
    );
    assert!(refused > 0, "no refusal in the corpus ({ok} imported)");
}

#[test]
fn the_cut_corpus_replays() {
    let (ok, refused) = replay("cut", targets::cut_ops);
    // The corpus keeps built-ins with violations: some are cut.
    assert!(
        ok > 0,
        "no scenario of the corpus was cut ({refused} refused)"
    );
}
