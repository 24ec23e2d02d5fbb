//! A scenario's first violation, then its ops cut (see `core_targets::cut_ops`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = flushscope_fuzz::core_targets::cut_ops(data);
    });
}
