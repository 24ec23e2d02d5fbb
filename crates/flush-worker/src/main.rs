//! The explorer worker's module: the worker's script (`flush-web`'s
//! `WorkerLink::spawn`) calls these two; there is nothing to start. They live
//! here, not in the library, so that the page's module (which links the library
//! for its first slice) does not carry them.

use wasm_bindgen::prelude::*;

/// The worker's allocator: Talc, faster than dlmalloc on wasm for the search's
/// many small vectors, growing the memory in big steps (see `flush-alloc`).
/// One thread: no atomics.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: flush_alloc::Talc = flush_alloc::new();

/// A message from the page (see [`flush_worker::message`]).
#[wasm_bindgen]
pub fn worker_message(data: &str) {
    flush_worker::message(data)
}

/// A slice of the job; what to send the page (see [`flush_worker::slice`]).
#[wasm_bindgen]
pub fn worker_slice() -> Option<String> {
    flush_worker::slice()
}

fn main() {}
