//! The page's permalink decoder, then the view it names, bounded (see `web_targets::permalink`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = flushscope_fuzz::web_targets::permalink(data);
    });
}
