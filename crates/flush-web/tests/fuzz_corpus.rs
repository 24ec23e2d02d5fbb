//! Replays the permalink fuzzer's kept corpus (fuzz/corpus/permalink) through the
//! fuzz target's own code (fuzz/src/web_targets.rs, compiled here by path): every
//! fragment must come back `Ok` or `Err` with a message, never panic. The fuzzing
//! itself (AFL++ through cargo-afl) is run by hand: fuzz/README.md.

#[path = "../../../fuzz/src/web_targets.rs"]
mod targets;

#[path = "../../../fuzz/src/replay.rs"]
mod replay;

#[test]
fn the_permalink_corpus_replays() {
    let (ok, refused) = replay::replay("permalink", targets::permalink);
    assert!(
        ok > 0,
        "no fragment of the corpus built a view ({refused} refused)"
    );
    assert!(refused > 0, "no refusal in the corpus ({ok} accepted)");
}
