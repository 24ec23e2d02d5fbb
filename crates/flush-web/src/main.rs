fn main() {
    // The explorer's worker loads this module too (see `flush_web::worker`): no page there.
    if web_sys::window().is_none() {
        return;
    }
    flush_web::install_panic_hook();
    yew::Renderer::<flush_web::App>::new().render();
}
