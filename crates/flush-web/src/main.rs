fn main() {
    flush_web::install_panic_hook();
    yew::Renderer::<flush_web::App>::new().render();
}
