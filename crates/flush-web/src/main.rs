/// The page's allocator: Talc, smaller than dlmalloc on wasm and faster for the
/// in-page search, growing the memory in big steps (see `flush-alloc`). One
/// thread: no atomics.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: flush_alloc::Talc = flush_alloc::new();

fn main() {
    flush_web::install_panic_hook();
    yew::Renderer::<flush_web::App>::new().render();
}
