//! Asking the processor for memory before it is read: a breadth-first search
//! takes each state off its queue long after it made it, so the first reads of
//! a state miss the caches (perf, `sync-scaled-4x3`, one thread: breadth first
//! took twice the time of depth first, whose states are read while still in
//! cache; stepping, copying and judging a state each cost more, on their first
//! reads). The search asks for the next states' memory while it expands the
//! current one ([`crate::engine::Model::prefetch`]): 5 to 10% less time breadth
//! first, on one thread or two. A hint only: it changes no result, and where the
//! target has no such instruction (wasm) it does nothing.

/// Asks for the memory of the two states a search reads next: `after` (the one
/// after next) brings in its own bytes, whose pointers [`Model::prefetch`]
/// reads for `next` (then in cache, from the call before). The searches call
/// it from functions kept out of line: inlined into the breadth-first step
/// (itself inlined into the loop the depth-first search shares), it made depth
/// first measure 3-9% slower.
///
/// [`Model::prefetch`]: crate::engine::Model::prefetch
#[inline]
pub fn next_two<M: crate::engine::Model>(
    sc: &M,
    next: Option<&M::State>,
    after: Option<&M::State>,
) {
    if let Some(after) = after {
        value(after);
    }
    if let Some(next) = next {
        sc.prefetch(next);
    }
}

/// The cache line size assumed.
const LINE: usize = 64;

/// Lines asked for at most per object (a long vector is read from its start).
const MAX_LINES: usize = 16;

/// Asks for the memory of `items` (its first [`MAX_LINES`] lines).
#[inline]
pub fn slice<T>(items: &[T]) {
    let bytes = std::mem::size_of_val(items).min(MAX_LINES * LINE);
    lines(items.as_ptr().cast::<u8>(), bytes);
}

/// Asks for the memory of `items` (the first lines of each of its two parts).
#[inline]
pub fn deque<T>(items: &std::collections::VecDeque<T>) {
    let (a, b) = items.as_slices();
    slice(a);
    slice(b);
}

/// Asks for the memory of `value` itself (not what it points to).
#[inline]
pub fn value<T>(value: &T) {
    lines(
        (value as *const T).cast::<u8>(),
        std::mem::size_of::<T>().min(MAX_LINES * LINE),
    );
}

/// Asks for the line at `at`, any address (a stale one too: nothing is read).
#[inline]
pub fn address(at: *const u8) {
    line(at);
}

#[inline]
fn lines(start: *const u8, bytes: usize) {
    let mut at = 0;
    while at < bytes {
        line(start.wrapping_add(at));
        at += LINE;
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn line(p: *const u8) {
    // SAFETY: a prefetch is a hint; it never faults and reads nothing the
    // program sees, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn line(_: *const u8) {}
