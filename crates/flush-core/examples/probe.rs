//! Runs the 1,000-pair scenario 20 times (for profilers: `valgrind --tool=callgrind`).
use flush_core::engine::Run;
use flush_core::models::flush2021::{self, setup::pairs};
use flush_core::Policy;
use std::sync::Arc;
fn main() {
    let sc = Arc::new(pairs(1000));
    let mut total = 0;
    for _ in 0..20 {
        let mut r = Run::<flush2021::Scenario>::new(sc.clone(), Policy::Seeded(1));
        r.run_to_end();
        total += r.len();
    }
    println!("{total} steps");
}
