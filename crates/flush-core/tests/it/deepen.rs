//! Breadth first goes on depth first once its queued states fill half the
//! memory budget ([`Order::Bfs`]), so the rest of the budget holds
//! fingerprints: every state is still visited and every violation found. What
//! breadth first found keeps its shortest schedule; what depth first found
//! replays to its violation. Checked on every built-in the full search exhausts
//! within 50,000 states, at every version, against a search with room to stay
//! breadth first; on two threads (which hand the queue to one); and with sleep
//! sets.

use flush_core::explore::{self, Exploration, Options, Order, Stopped};
use flush_core::sched::Choice;
use flush_core::{AnyScenario, Model};

use crate::common::{builtin, builtins_at_every_version, reaches};

/// A budget where a search whose peak was `peak` bytes, most of them queued
/// states, goes on depth first: half of it is three quarters of the peak.
fn small(peak: u64) -> u64 {
    peak * 3 / 2
}

fn bfs(max_bytes: u64) -> Options {
    Options {
        order: Order::Bfs,
        max_bytes,
        ..Options::exhaustive(200, 50_000)
    }
}

fn violations(x: &Exploration) -> Vec<&str> {
    let mut k: Vec<_> = x.violations.iter().map(|f| f.key.as_str()).collect();
    k.sort_unstable();
    k
}

/// Everything two searches that must be one search report alike.
fn whole(x: &Exploration) -> String {
    let found: Vec<String> = x
        .violations
        .iter()
        .map(|f| format!("{} @ {} {}", f.key, f.schedule, f.depth_first))
        .collect();
    format!(
        "{} {} {} {:?} {} {:?} {found:?}",
        x.states, x.transitions, x.depth, x.stopped, x.peak_bytes, x.depth_first_from
    )
}

fn replays(sc: &AnyScenario, key: &str, schedule: &str) -> bool {
    let schedule = Choice::parse_list(schedule).expect("a schedule");
    reaches(sc, &schedule, key).is_some()
}

/// `x`, the search that went on depth first, covers what `full` did.
fn covers(sc: &AnyScenario, x: &Exploration, full: &Exploration) -> Result<(), String> {
    let same =
        (x.stopped, x.states, x.transitions) == (full.stopped, full.states, full.transitions);
    if !same || violations(x) != violations(full) || x.depth < full.depth {
        return Err(format!(
            "went on depth first: {} states {} transitions {:?} {:?}\nbreadth first: {} states {} transitions {:?} {:?}",
            x.states, x.transitions, x.stopped, violations(x),
            full.states, full.transitions, full.stopped, violations(full)
        ));
    }
    for v in &x.violations {
        if v.depth_first {
            if !replays(sc, &v.key, &v.schedule) {
                return Err(format!("{} does not replay ({})", v.key, v.schedule));
            }
        } else {
            let f = full
                .violations
                .iter()
                .find(|f| f.key == v.key)
                .expect("the same keys");
            if f.steps != v.steps {
                return Err(format!(
                    "{}: {} steps, shortest {}",
                    v.key, v.steps, f.steps
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn a_full_queue_goes_on_depth_first_and_misses_nothing() {
    let (mut compared, mut switched, mut found_deep) = (0, 0, 0);
    for (name, s) in &builtins_at_every_version() {
        let at = format!("{name} @ {:?}", s.header().version);
        let full = s.explore_with(&bfs(1 << 30), &mut |_| true);
        if full.stopped != Stopped::Exhausted {
            continue;
        }
        assert_eq!(
            full.depth_first_from, None,
            "{at}: room to stay breadth first"
        );
        compared += 1;
        let o = bfs(small(full.peak_bytes));
        let x = s.explore_with(&o, &mut |_| true);
        let two = s.explore_with(&Options { threads: 2, ..o }, &mut |_| true);
        assert_eq!(whole(&two), whole(&x), "{at}: two threads");
        if x.depth_first_from.is_none() {
            assert!(x.violations.iter().all(|v| !v.depth_first), "{at}");
            continue;
        }
        if x.stopped == Stopped::MaxBytes {
            // The fingerprints did not fit either (a small search's budget
            // is small): what it found so far is real.
            let (x_keys, full_keys) = (violations(&x), violations(&full));
            assert!(x_keys.iter().all(|k| full_keys.contains(k)), "{at}");
            continue;
        }
        switched += 1;
        found_deep += x.violations.iter().filter(|v| v.depth_first).count();
        covers(s, &x, &full).unwrap_or_else(|e| panic!("{at}: {e}"));
        // The text says where the order changed, and which schedules are not shortest.
        let text = x.text();
        assert!(
            text.contains("then depth first from each of them"),
            "{at}:\n{text}"
        );
        assert_eq!(
            text.matches("shortest schedule").count(),
            x.violations.iter().filter(|v| !v.depth_first).count(),
            "{at}:\n{text}"
        );
    }
    assert!(compared >= 40, "{compared} built-in searches compared");
    // The budget must make bigger searches change order, some finding there.
    assert!(switched >= 8, "{switched} searches went on depth first");
    assert!(
        found_deep >= 3,
        "{found_deep} violations found after going on depth first"
    );
}

/// With sleep sets (states told apart by goroutine ids, as they need), the
/// search that goes on depth first visits the states the full search visits,
/// in no more model steps.
#[test]
fn sleep_sets_go_on_depth_first_too() {
    let mut switched = 0;
    for name in [
        "ordered-flush",
        "compaction-race",
        "go-test-order",
        "sync-scaled-3x2",
    ] {
        let sc = builtin(name);
        let exact = Options {
            ids: true,
            ..bfs(1 << 30)
        };
        let full = sc.explore_with(&exact, &mut |_| true);
        let max_bytes = small(full.peak_bytes);
        let small = Options {
            reduce: true,
            max_bytes,
            ..exact
        };
        let x = sc.explore_with(&small, &mut |_| true);
        assert!(x.reduced, "{name}");
        if x.depth_first_from.is_none() || full.stopped != Stopped::Exhausted {
            continue;
        }
        switched += 1;
        let mut x_all = x.clone();
        x_all.transitions = full.transitions;
        covers(&sc, &x_all, &full).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            x.transitions <= full.transitions,
            "{name}: {} steps, full {}",
            x.transitions,
            full.transitions
        );
    }
    assert!(switched >= 2, "{switched} searches went on depth first");
}

/// A search from a state of a run (the race lens's) stays breadth first: its
/// schedules are relative to that state (shrinking replays from the start),
/// and a few steps deep it must visit each state at its shortest depth. Its
/// queue filling the budget stops it, as before, and the lens says so.
#[test]
fn a_search_from_a_state_of_a_run_stays_breadth_first() {
    let AnyScenario::Sync(sc) = builtin("sync-scaled-3x3") else {
        panic!("a sync-2024 built-in")
    };
    let o = Options {
        max_bytes: 1 << 20,
        ..bfs(1 << 20)
    };
    let from_start = explore::explore_with(&*sc, &o, &mut |_| true);
    assert!(
        from_start.depth_first_from.is_some(),
        "the budget makes the search from the start change order"
    );
    let mut here = sc.init();
    let mut runnable = Vec::new();
    sc.runnable(&here, &mut runnable);
    sc.step(&mut here, runnable[0], &mut Vec::new());
    let mut x = explore::Explorer::from_state(sc.clone(), here, o, Vec::new());
    while !x.run(4096) {}
    let x = x.finish();
    assert_eq!(x.depth_first_from, None);
    assert_eq!(x.stopped, Stopped::MaxBytes);
    assert!(x.violations.iter().all(|v| !v.depth_first));
}
