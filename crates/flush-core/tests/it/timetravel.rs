//! Time travel: going to step N (backwards, forwards, far, near) gives the very
//! world a fresh run has after N steps; branching from step N keeps steps 1..N.

use std::sync::Arc;

use flush_core::engine::Run;
use flush_core::models::flush2021::{self, Scenario};
use flush_core::{Choice, Model, Policy};

use crate::common::*;

fn fresh(sc: &Arc<Scenario>, seed: u64, n: u32) -> flush2021::World {
    let mut r = Run::<Scenario>::new(sc.clone(), Policy::Seeded(seed));
    r.run_steps(n);
    r.head().clone()
}

#[test]
fn goto_matches_a_fresh_run() {
    let sc = Arc::new(flush2021::setup::pairs(300));
    let mut r = Run::<Scenario>::new(sc.clone(), Policy::Seeded(5));
    r.run_to_end();
    let len = r.len();
    assert!(len > 2000, "{len}");
    for n in [
        len,
        0,
        1,
        129,
        128,
        127,
        len - 1,
        1000,
        1001,
        999,
        5,
        len / 2,
    ] {
        r.goto(n);
        assert_eq!(r.cursor(), n);
        assert_eq!(r.world(), &fresh(&sc, 5, n), "step {n}");
    }
}

#[test]
fn branching_keeps_the_prefix_and_switches_to_manual() {
    let sc = flush_of(&builtin("handoff"));
    let mut r = Run::<Scenario>::new(sc, Policy::Seeded(1));
    r.run_to_end();
    let before: Vec<Choice> = r.schedule();
    r.goto(8);
    let c = r.runnable_here()[0];
    r.advance_with(c).unwrap();
    assert_eq!(r.len(), 9);
    assert_eq!(&r.schedule()[..8], &before[..8]);
    assert_eq!(r.policy(), &Policy::Manual);
    assert_eq!(r.advance(), Err(flush_core::Stop::NeedChoice));
    assert!(r.outcome().is_none());
}

/// Exploration counts every distinct state once: a naive depth-first search that
/// compares whole worlds (not hashes) reaches exactly as many.
#[test]
fn explore_counts_the_reachable_states() {
    use std::collections::HashSet;
    for name in ["handoff", "idle-handler-injection", "drop-mode"] {
        let sc = flush_of(&builtin(name));
        let mut seen: HashSet<flush2021::World> = HashSet::new();
        let mut stack = vec![sc.init()];
        let mut evs = Vec::new();
        let mut runnable = Vec::new();
        while let Some(w) = stack.pop() {
            if !seen.insert(w.clone()) {
                continue;
            }
            sc.runnable(&w, &mut runnable);
            for c in runnable.clone() {
                let mut n = w.clone();
                evs.clear();
                sc.step(&mut n, c, &mut evs);
                stack.push(n);
            }
        }
        // Told apart by every name, as the naive search does.
        let o = flush_core::explore::Options {
            ids: true,
            ..flush_core::explore::Options::exhaustive(10_000, 10_000_000)
        };
        let e = flush_core::explore::explore_with(&*sc, &o, &mut |_| true);
        assert_eq!(e.states, seen.len() as u64, "{name}");
        assert!(!e.truncated);
    }
}

/// The figures sample a run every `every` steps: the worlds they are given,
/// from snapshots or the sample before, are a fresh run's at those steps and
/// the last, in order, whatever the spacing against the snapshots'.
#[test]
fn every_nth_world_is_a_fresh_runs() {
    let sc = Arc::new(flush2021::setup::pairs(300));
    let mut r = Run::<Scenario>::new(sc.clone(), Policy::Seeded(5));
    r.run_to_end();
    let len = r.len();
    let mut all = Vec::new();
    r.for_each_world(|n, w| all.push((n, w.clone())));
    assert_eq!(all.len() as u32, len + 1);
    for every in [0, 1, 7, 255, 256, 257, 600, len - 1, len, len + 5, u32::MAX] {
        let mut seen = Vec::new();
        r.for_each_world_every(every, |n, w| {
            assert!(*w == all[n as usize].1, "every {every}: step {n}");
            seen.push(n);
        });
        let e = every.max(1);
        let want: Vec<u32> = (0..=len).filter(|n| n % e == 0 || *n == len).collect();
        assert_eq!(seen, want, "every {every}");
    }
    // After going back, the snapshots past the cursor still serve.
    r.goto(len / 3);
    let mut last = None;
    r.for_each_world_every(1000, |n, w| {
        assert!(*w == all[n as usize].1);
        last = Some(n);
    });
    assert_eq!(last, Some(len));
    assert!(fresh(&sc, 5, len) == all[len as usize].1);
}
