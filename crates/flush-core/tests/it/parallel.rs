//! Breadth first on several threads gives what one thread gives: for every
//! built-in at every version, under the first-violation stop, exhaustion, a
//! state budget, a depth budget and a memory budget, `explore_threads` on 1, 2
//! and 3 threads reports the same states, transitions, depth, cuts, stop
//! reason, bytes held and violations (kind, message, schedule) as the
//! one-thread `Explorer`.

use flush_core::explore::{self, Exploration, Options, Order};
use flush_core::{AnyScenario, Model};

use crate::common::{builtin, builtins_at_every_version};

fn threads<M>(sc: &M, o: &Options, t: usize) -> Exploration
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Fact: Send,
{
    explore::explore_threads(sc, o, t, &mut |_| true)
}

fn each(sc: &AnyScenario, o: &Options, t: usize) -> Exploration {
    match sc {
        AnyScenario::Flush(s) => threads(&**s, o, t),
        AnyScenario::Sync(s) => threads(&**s, o, t),
        AnyScenario::Mutex(s) => threads(&**s, o, t),
    }
}

/// What must be equal (the time is the caller's; the options are the same).
fn seen(x: &Exploration) -> String {
    let found: Vec<String> = x
        .violations
        .iter()
        .map(|f| {
            format!(
                "{:?} {} @ {} {}",
                f.kind, f.message, f.schedule, f.depth_first
            )
        })
        .collect();
    format!(
        "states {} transitions {} depth {} cut {} stopped {:?} truncated {} bytes {} needed {:?} depth first from {:?} found {found:#?}",
        x.states, x.transitions, x.depth, x.depth_cut, x.stopped, x.truncated, x.peak_bytes, x.needed_bytes, x.depth_first_from
    )
}

/// A mutex-handoff scenario of `actors` actors g0, g1, ..., each with `incrs`
/// `incr` ops.
fn mutex(name: &str, actors: usize, incrs: usize) -> AnyScenario {
    let ops = vec![r#"{"op": "incr"}"#; incrs].join(", ");
    let actors: Vec<String> = (0..actors)
        .map(|i| format!(r#"{{"name": "g{i}", "ops": [{ops}]}}"#))
        .collect();
    let text = format!(
        r#"{{"name": "{name}", "model": "mutex-handoff", "actors": [{}]}}"#,
        actors.join(",")
    );
    crate::common::parse(&text)
}

fn budgets() -> Vec<(&'static str, Options)> {
    let bfs = |o: Options| Options {
        order: Order::Bfs,
        ..o
    };
    vec![
        ("first", bfs(Options::first(200, 60_000))),
        ("all", bfs(Options::exhaustive(200, 60_000))),
        ("500 states", bfs(Options::exhaustive(200, 500))),
        ("depth 6", bfs(Options::exhaustive(6, 60_000))),
        (
            "1 MiB",
            Options {
                max_bytes: 1 << 20,
                ..bfs(Options::exhaustive(200, 60_000))
            },
        ),
    ]
}

#[test]
fn threads_give_what_one_thread_gives() {
    let (mut compared, mut deep) = (0, 0);
    for (name, s) in &builtins_at_every_version() {
        for (what, o) in budgets() {
            let x = s.explore_with(&o, &mut |_| true);
            // The 1 MiB budget's queue fills half of it: on one thread
            // the search goes on depth first; on several, one thread
            // takes over there.
            deep += usize::from(x.depth_first_from.is_some());
            let one = seen(&x);
            for t in [1, 2, 3] {
                assert_eq!(
                    seen(&each(s, &o, t)),
                    one,
                    "{name} @ {:?}, {what}, {t} threads",
                    s.header().version
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 150, "{compared} searches compared");
    assert!(deep >= 10, "{deep} searches went on depth first");
}

/// A search big enough for many batches on every thread, and levels of
/// several batches (under the default 512 MiB a thread's memory share cuts
/// these levels into batches; it also goes on depth first): the same, and the
/// CLI's `--threads` goes through the same function.
#[test]
fn many_batches_on_two_threads_give_the_same() {
    let mut sc = builtin("sync-scaled-5x2");
    sc.set_version("ca7ef26e4b").unwrap();
    let o = Options {
        order: Order::Bfs,
        ..Options::exhaustive(200, 300_000)
    };
    let one = sc.explore_with(&o, &mut |_| true);
    assert!(one.states >= 300_000, "{} states", one.states);
    assert_eq!(seen(&each(&sc, &o, 2)), seen(&one));
    let many = Options { threads: 2, ..o };
    // Progress comes after each batch, with the depth reached (its level's children).
    let mut batches = std::collections::BTreeMap::new();
    let two = sc.explore_with(&many, &mut |p| {
        *batches.entry(p.depth).or_insert(0) += 1;
        true
    });
    assert_eq!(seen(&two), seen(&one));
    assert!(
        batches.values().filter(|&&n| n >= 3).count() >= 2,
        "batches a level: {batches:?}"
    );
}

/// Each parent with 300 children and a budget of a few MiB: a thread's share
/// of a batch is a few dozen children, so batches are cut short by memory and merged only
/// up to the first parent not expanded; still the one-thread result.
#[test]
fn batches_cut_short_by_memory_give_the_same() {
    let sc = mutex("wide", 300, 2);
    for o in [
        Options {
            order: Order::Bfs,
            max_bytes: 16 << 20,
            ..Options::exhaustive(200, 100_000)
        },
        Options {
            order: Order::Bfs,
            max_bytes: 32 << 20,
            ..Options::first(200, 100_000)
        },
    ] {
        let one = sc.explore_with(&o, &mut |_| true);
        assert!(one.states > 300, "{} states", one.states);
        for t in [2, 3] {
            assert_eq!(seen(&each(&sc, &o, t)), seen(&one), "{t} threads");
        }
    }
}

/// A root with more children than the memory budget has room for (2,000
/// actors): a thread stops stepping them at the budget (it held every child
/// before, gigabytes for a big scenario), and the result is still the
/// one-thread result, stopped by memory.
#[test]
fn a_parent_wider_than_the_budget_gives_the_same() {
    let sc = mutex("wider", 2000, 1);
    let o = Options {
        order: Order::Bfs,
        max_bytes: 4 << 20,
        ..Options::exhaustive(200, 100_000)
    };
    let one = sc.explore_with(&o, &mut |_| true);
    assert_eq!(one.stopped, explore::Stopped::MaxBytes);
    assert!(one.states < 2000, "{} states", one.states);
    // It reached depth 1, stepping the root's children, as depth first counts.
    assert_eq!(one.depth, 1);
    for t in [2, 3] {
        assert_eq!(seen(&each(&sc, &o, t)), seen(&one), "{t} threads");
    }
}

/// Several threads hand a full queue over to one depth-first thread, which
/// runs the race check and sleep sets when asked: the states it steps record
/// their footprints (the levels before it need none). With sleep sets the same
/// states as without; with the race check, the race one thread finds.
#[test]
fn the_depth_first_handover_keeps_footprints_for_races_and_sleep_sets() {
    let o = |reduce: bool, races: bool| Options {
        order: Order::Bfs,
        max_bytes: 1 << 20,
        ids: true,
        reduce,
        races,
        ..Options::exhaustive(200, 60_000)
    };
    let sc = builtin("ordered-flush");
    let full = each(&sc, &o(false, false), 2);
    assert!(full.depth_first_from.is_some(), "no handover: {full:?}");
    let reduced = each(&sc, &o(true, false), 2);
    assert_eq!(
        (reduced.states, reduced.stopped),
        (full.states, full.stopped)
    );
    let sc = builtin("compaction-race");
    let one = sc.explore_with(&o(false, true), &mut |_| true);
    let races = |x: &Exploration| {
        x.violations
            .iter()
            .filter(|f| f.kind == flush_core::OutcomeKind::Race)
            .count()
    };
    assert!(races(&one) > 0, "{one:?}");
    let two = each(&sc, &o(false, true), 2);
    assert!(two.depth_first_from.is_some(), "no handover: {two:?}");
    assert_eq!(races(&two), races(&one));
}

/// A parent whose last new child fills the visited set, then a child seen
/// before, then the switch to depth first (found by a review): one thread's
/// insert of that seen child grows the table, so the bytes it hands over count
/// one table; the merge, which skips the look-up of children not kept, must
/// grow it there too, or the bytes held differ (by 48 here).
#[test]
fn the_visited_set_grows_where_one_thread_grows_it() {
    let sc = mutex("m6x2", 6, 2);
    for max_states in [137_887, 140_000] {
        let o = Options {
            order: Order::Bfs,
            shrink: false,
            max_bytes: 71_928_395,
            ..Options::exhaustive(200, max_states)
        };
        let one = sc.explore_with(&o, &mut |_| true);
        assert!(one.depth_first_from.is_some(), "no switch: {one:?}");
        for t in [1, 2, 3] {
            assert_eq!(
                seen(&each(&sc, &o, t)),
                seen(&one),
                "{max_states}, {t} threads"
            );
        }
    }
}

/// A share big enough for big batches, whose threads take their parents (the
/// last choice steps the parent itself), yet batches cut by it: 10 actors of
/// small states branch ten ways, most children new. The parents taken past a
/// cut are made again from their schedules (`restore`: about 15,000 times
/// here on two threads), and the result is still the one-thread result.
#[test]
fn parents_taken_past_a_cut_are_made_again() {
    let sc = mutex("m10", 10, 2);
    let o = Options {
        order: Order::Bfs,
        shrink: false,
        max_bytes: 300 << 20,
        ..Options::exhaustive(200, 300_000)
    };
    let one = sc.explore_with(&o, &mut |_| true);
    assert_eq!(one.states, 300_000);
    for t in [2, 3] {
        assert_eq!(seen(&each(&sc, &o, t)), seen(&one), "{t} threads");
    }
}
