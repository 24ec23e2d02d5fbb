//! Replays a kept corpus (fuzz/corpus/`target`) through a fuzz target's body:
//! included by `#[path]` from crates/flush-core/tests/fuzz_corpus.rs and
//! crates/flush-web/tests/fuzz_corpus.rs.

use std::path::{Path, PathBuf};

/// The files of fuzz/corpus/`target`, sorted; the corpus must not be empty (a
/// missing or emptied corpus would make this test pass without checking anything).
pub fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "{}: {} inputs; the kept corpus is missing",
        dir.display(),
        files.len()
    );
    files
}

/// Runs every input of `target`'s corpus; returns (accepted, refused).
pub fn replay(target: &str, body: fn(&[u8]) -> Result<u32, String>) -> (usize, usize) {
    let (mut ok, mut refused) = (0, 0);
    for p in corpus(target) {
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| body(&data))
            .unwrap_or_else(|_| panic!("{target}: {} panicked (see above)", p.display()));
        match r {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.trim().is_empty(), "{}: an empty error", p.display());
                refused += 1;
            }
        }
    }
    (ok, refused)
}
