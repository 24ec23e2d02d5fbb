//! Scenario parser and checker, then a bounded run (see `core_targets::scenario`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = flushscope_fuzz::core_targets::scenario(data);
    });
}
