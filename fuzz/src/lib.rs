//! The fuzz targets' bodies. Each file is also compiled into a replay test by
//! path (`#[path = ...] mod`), so the corpus replay runs exactly this code:
//! `core_targets.rs` from crates/flush-core/tests/fuzz_corpus.rs and
//! `web_targets.rs` from crates/flush-web/tests/fuzz_corpus.rs.

pub mod core_targets;
pub mod web_targets;
