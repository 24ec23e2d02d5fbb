//! A Milvus log through the parser, the inference and the conformance search
//! (see `core_targets::logs`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = flushscope_fuzz::core_targets::logs(data);
    });
}
