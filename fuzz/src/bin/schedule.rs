//! Schedule parser, then scripted and manual runs of a built-in (see `core_targets::schedule`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = flushscope_fuzz::core_targets::schedule(data);
    });
}
