//! The explorer's search as the worker runs it, for a steady figure of its
//! speed in wasm: `cargo xtask bench` builds this for wasm32 with the worker's
//! profile and allocator and times [`explore`] in node (V8, as Chromium's
//! worker), one search at a time, without a page, a worker start or a
//! browser's other work in the figure. The e2e test's figure counts the
//! worker's start as well.

/// The worker's allocator (see `flush-worker`'s `main.rs`).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: flush_alloc::Talc = flush_alloc::new();

/// The searches timed: (what the bench prints, built-in, version or none for
/// its own, depth first).
pub const CASES: [(&str, &str, Option<&str>, bool); 3] = [
    // The scenario of the e2e figure, every violation, depth first (as
    // `explore --all`) and breadth first (as the page searches it: its queue
    // holds hundreds of MiB, where the wasm memory's growth shows).
    (
        "sync-scaled-5x3 (its version), every violation, depth first",
        "sync-scaled-5x3",
        None,
        true,
    ),
    (
        "sync-scaled-5x3 (its version), every violation, breadth first (as the page)",
        "sync-scaled-5x3",
        None,
        false,
    ),
    (
        "sync-scaled-4x3 @ b5c9a7364b, depth first",
        "sync-scaled-4x3",
        Some("b5c9a7364b"),
        true,
    ),
];

/// The cases in [`CASES`].
#[no_mangle]
pub extern "C" fn cases() -> u32 {
    CASES.len() as u32
}

/// Where case `case`'s label starts in memory (its UTF-8 bytes; see
/// [`label_len`]), or null for a case that does not exist.
#[no_mangle]
pub extern "C" fn label(case: u32) -> *const u8 {
    CASES
        .get(case as usize)
        .map_or(std::ptr::null(), |c| c.0.as_ptr())
}

/// The bytes of case `case`'s label.
#[no_mangle]
pub extern "C" fn label_len(case: u32) -> u32 {
    CASES.get(case as usize).map_or(0, |c| c.0.len() as u32)
}

/// Explores case `case` of [`CASES`] up to `max_states` states; the states
/// visited, or 0 for a case that does not exist.
#[no_mangle]
pub extern "C" fn explore(case: u32, max_states: u32) -> u32 {
    let Some(&(_, name, version, dfs)) = CASES.get(case as usize) else {
        return 0;
    };
    let Some(mut sc) = flush_core::builtin::get(name) else {
        return 0;
    };
    if let Some(v) = version {
        if sc.set_version(v).is_err() {
            return 0;
        }
    }
    let mut o = flush_core::explore::Options::exhaustive(10_000, u64::from(max_states));
    o.order = match dfs {
        true => flush_core::explore::Order::Dfs,
        false => flush_core::explore::Order::Bfs,
    };
    o.max_bytes = 1 << 30;
    sc.explore_with(&o, &mut |_| true).states as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_case_explores() {
        for case in 0..super::CASES.len() as u32 {
            assert_eq!(super::explore(case, 500), 500, "case {case}");
        }
        let n = super::cases();
        assert_eq!(super::explore(n, 500), 0);
        assert!(super::label(n).is_null() && super::label_len(n) == 0);
        assert_eq!(super::label_len(0) as usize, super::CASES[0].0.len());
    }
}
