//! The explorer's search as the worker runs it, for a steady figure of its
//! speed in wasm: `cargo xtask bench` builds this for wasm32 with the worker's
//! profile and allocator and times [`explore`] in node (V8, as Chromium's
//! worker), one search at a time, without a page, a worker start or a
//! browser's other work in the figure. The e2e test's figure counts the
//! worker's start as well.

/// The worker's allocator (see `flush-worker`'s `main.rs`).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The searches timed: (built-in, version or none for its own, depth first).
pub const CASES: [(&str, Option<&str>, bool); 2] = [
    // The page's search of the e2e figure: every violation, depth first.
    ("sync-scaled-5x3", None, true),
    ("sync-scaled-4x3", Some("b5c9a7364b"), true),
];

/// Explores case `case` of [`CASES`] up to `max_states` states; the states
/// visited, or 0 for a case that does not exist.
#[no_mangle]
pub extern "C" fn explore(case: u32, max_states: u32) -> u32 {
    let Some(&(name, version, dfs)) = CASES.get(case as usize) else {
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
        assert_eq!(super::explore(super::CASES.len() as u32, 500), 0);
    }
}
