//! The body of the `permalink` fuzz target. Only `flush_core` and `flush_web` are
//! named here: crates/flush-web/tests/fuzz_corpus.rs compiles this very file (by
//! `#[path]`) to replay the kept corpus.

use flush_web::permalink::{decode, encode};
use flush_web::state::{build_within, ViewSpec};

/// Inputs are cut to this many bytes.
pub const MAX_INPUT: usize = 64 * 1024;
/// Every run stops after at most this many steps.
pub const MAX_STEPS: u32 = 200;

/// `permalink`: a URL fragment through `permalink::decode`. A decoded view must
/// encode and decode back to itself; it is then built as the page builds it
/// (`state::build`, but with the step limit lowered to [`MAX_STEPS`]). `Ok`: the
/// steps of the view's run.
pub fn permalink(data: &[u8]) -> Result<u32, String> {
    let text = std::str::from_utf8(&data[..data.len().min(MAX_INPUT)])
        .map_err(|e| format!("not UTF-8: {e}"))?;
    let spec = match decode(text) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.trim().is_empty(), "a refusal without a message");
            return Err(e);
        }
    };
    let link = encode(&spec);
    assert_eq!(
        decode(&link).as_ref(),
        Ok(&spec),
        "the view of {text:?} encoded as {link:?} does not decode back"
    );
    let r = build(&spec);
    if let Err(e) = &r {
        assert!(!e.trim().is_empty(), "a refusal without a message");
    }
    r
}

/// The view built as the page builds it, with runs cut at [`MAX_STEPS`] (the
/// page's own limit, a million steps, is too slow for a fuzzer).
fn build(spec: &ViewSpec) -> Result<u32, String> {
    let (mut run, _) = build_within(spec, MAX_STEPS)?;
    assert!(run.len() <= MAX_STEPS);
    assert_eq!(run.cursor(), spec.step);
    let _ = run.runnable_here();
    run.goto(0);
    Ok(run.len())
}
