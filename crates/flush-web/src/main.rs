/// The page's allocator: Talc, smaller than dlmalloc on wasm and faster for the
/// in-page search (see Cargo.toml). One thread: no atomics.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    flush_web::install_panic_hook();
    yew::Renderer::<flush_web::App>::new().render();
}
