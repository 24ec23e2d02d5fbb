//! The explorer worker's module: everything it does is exported by the library
//! (`worker_message`, `worker_slice`); there is nothing to start. Naming them
//! here links the library in (a binary links only the crates it uses).

fn main() {
    let _ = (flush_worker::worker_message, flush_worker::worker_slice);
}
