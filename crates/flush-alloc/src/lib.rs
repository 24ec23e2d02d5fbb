//! The allocator of FlushScope's wasm modules: the page, the explorer's worker
//! and its bench each declare
//!
//! ```text
//! #[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
//! #[global_allocator]
//! static ALLOC: flush_alloc::Talc = flush_alloc::new();
//! ```
//!
//! Talc is faster than the standard library's dlmalloc on wasm for the
//! search's many small vectors, and smaller. Its own wasm source
//! (`talc::wasm::WasmGrowAndExtend`) grows the memory by just what the
//! allocation at hand needs, a 64 KiB page for a small one, and so does
//! dlmalloc: a search that fills hundreds of MiB grows it thousands of times.
//! In node 20's V8 each `memory.grow` is dear (a new `ArrayBuffer`, and
//! external memory its garbage collector counts): the bench's breadth-first
//! search of sync-scaled-5x3 to 300,000 states (260 MiB) spent 39% of its time
//! in the grows and 24% in the collector, at 86-93 k states/s against 300 k
//! for its first 30,000 states (`node --cpu-prof`). Chromium's V8 pays less
//! for a grow (the page's worker ran that search at about 350 k states/s
//! either way). `Grow` grows the memory by at least an eighth of what it holds
//! ([`grow_pages`]): tens of grows instead of thousands, for at most an eighth
//! more memory than held; that search now runs at about 300 k states/s in node.

#![no_std]

/// A wasm page: 64 KiB.
pub const PAGE: usize = 64 * 1024;

/// The fewest pages grown at once: 1 MiB.
pub const MIN_PAGES: usize = 16;

/// The pages to grow the memory by, holding `have` pages, for an allocation
/// that needs `need` more: at least `need`, an eighth of `have` and
/// [`MIN_PAGES`].
pub fn grow_pages(need: usize, have: usize) -> usize {
    need.max(have / 8).max(MIN_PAGES)
}

/// Pages that surely hold an allocation of `size` bytes aligned to `align`
/// with Talc's bookkeeping (a chunk's header and footer and the alignment's
/// padding: tens of bytes; 256 are counted).
pub fn pages_for(size: usize, align: usize) -> usize {
    size.saturating_add(align)
        .saturating_add(256)
        .div_ceil(PAGE)
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod wasm {
    use core::arch::wasm32::{memory_grow, memory_size};
    use core::ptr::NonNull;

    use talc::base::{binning::Binning, Talc};
    use talc::cell::TalcSyncCell;
    use talc::wasm::WasmBinning;

    use super::{grow_pages, pages_for, PAGE};

    /// The allocator (see the crate's words).
    pub type Talc_ = TalcSyncCell<Grow, WasmBinning>;

    /// Talc's source of memory: grows the wasm memory by [`grow_pages`] and
    /// extends the heap over it (as `talc::wasm::WasmGrowAndExtend` does, by
    /// more at a time).
    #[derive(Debug)]
    pub struct Grow {
        end: Option<NonNull<u8>>,
    }

    /// The allocator, for a `#[global_allocator]` static.
    pub const fn new() -> Talc_ {
        TalcSyncCell::new_wasm(Grow { end: None })
    }

    // SAFETY: uses no allocator and touches the heap only through `talc`.
    unsafe impl talc::source::Source for Grow {
        fn acquire<B: Binning>(
            talc: &mut Talc<Self, B>,
            layout: core::alloc::Layout,
        ) -> Result<(), ()> {
            let need = pages_for(layout.size(), layout.align());
            let want = grow_pages(need, memory_size::<0>());
            // Near the memory's limit, grow by just what is needed.
            let (prev, pages) = match memory_grow::<0>(want) {
                usize::MAX => match memory_grow::<0>(need) {
                    usize::MAX => return Err(()),
                    prev => (prev, need),
                },
                prev => (prev, want),
            };
            let base = (prev * PAGE) as *mut u8;
            let bytes = pages * PAGE;
            if let Some(old_end) = talc.source.end.take() {
                if old_end.as_ptr() == base {
                    // SAFETY: the pages just grown follow the heap's end and are the allocator's.
                    let end = unsafe { talc.extend(old_end, base.wrapping_add(bytes)) };
                    talc.source.end = Some(end);
                    return Ok(());
                }
            }
            // SAFETY: the pages just grown are the allocator's alone.
            talc.source.end = unsafe { talc.claim(base, bytes) };
            match talc.source.end {
                Some(_) => Ok(()),
                None => Err(()),
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub use wasm::{new, Grow, Talc_ as Talc};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_an_eighth_of_the_memory_at_least() {
        // A small allocation in a 2 MiB memory: the least step.
        assert_eq!(grow_pages(1, 32), MIN_PAGES);
        // In 256 MiB (4,096 pages): 32 MiB.
        assert_eq!(grow_pages(1, 4096), 512);
        // An allocation bigger than that: all it needs.
        assert_eq!(grow_pages(1000, 4096), 1000);
    }

    #[test]
    fn filling_256_mib_takes_tens_of_grows() {
        // From the 2 MiB a module starts with, one small allocation after another.
        let (mut have, mut grows) = (32usize, 0);
        while have < 4096 {
            have += grow_pages(pages_for(48, 8), have);
            grows += 1;
        }
        assert!(grows <= 50, "{grows} grows");
        // Talc's source grew by one page at a time: 4,064 grows.
        assert_eq!(pages_for(48, 8), 1);
    }

    #[test]
    fn an_allocation_fits_the_pages_counted_for_it() {
        assert_eq!(pages_for(PAGE - 256 - 8, 8), 1);
        assert_eq!(pages_for(PAGE, 8), 2);
        assert_eq!(pages_for(usize::MAX, 8), usize::MAX.div_ceil(PAGE));
    }
}
