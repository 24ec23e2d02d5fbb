//! Partial-order reduction: the independence relation ([`Touched::independent`])
//! checked step by step against the models, both orders of every pair it calls
//! independent.

use std::collections::{HashSet, VecDeque};

use flush_core::engine::Model;
use flush_core::explore::reduce::Touched;
use flush_core::explore::{self, Exploration, Options, Order, Stopped};
use flush_core::models::{flush2021, sync2024, AnyScenario};
use flush_core::sched::Choice;

use crate::common;

struct Step<S> {
    c: Choice,
    go: String,
    after: S,
    touched: Touched,
}

fn take<M: Model>(sc: &M, w: &M::State, c: Choice) -> Step<M::State> {
    let (mut after, mut facts) = (w.clone(), Vec::new());
    sc.step(&mut after, c, &mut facts);
    Step {
        go: facts
            .first()
            .map(|f| sc.fact_go(f).func.to_string())
            .unwrap_or_default(),
        touched: Touched::of(sc, &after),
        c,
        after,
    }
}

/// Whether `a` then `b` and `b` then `a` both run and reach one world.
fn commute<M: Model>(sc: &M, a: &Step<M::State>, b: &Step<M::State>) -> bool {
    let mut runnable = Vec::new();
    let mut then = |first: &Step<M::State>, second: Choice| {
        sc.runnable(&first.after, &mut runnable);
        runnable.contains(&second).then(|| {
            let (mut w, mut facts) = (first.after.clone(), Vec::new());
            sc.step(&mut w, second, &mut facts);
            sc.fingerprint(&w)
        })
    };
    let ab = then(a, b.c);
    ab.is_some() && ab == then(b, a.c)
}

/// Breadth first over `budget` worlds of `sc`: every pair of steps of different
/// goroutines the relation calls independent is stepped both ways. Returns the
/// pairs checked, the pairs of different goroutines, and the failures.
fn diamonds<M: Model>(sc: &M, budget: usize) -> (usize, usize, Vec<String>) {
    let root = sc.init();
    let mut seen = HashSet::from([sc.fingerprint(&root)]);
    let mut queue = VecDeque::from([root]);
    let mut runnable = Vec::new();
    let (mut checked, mut pairs, mut bad) = (0, 0, Vec::new());
    while let Some(w) = queue.pop_front().filter(|_| seen.len() < budget) {
        sc.runnable(&w, &mut runnable);
        let steps: Vec<_> = runnable.iter().map(|&c| take(sc, &w, c)).collect();
        for (i, a) in steps.iter().enumerate() {
            for b in &steps[i + 1..] {
                if a.c.g == b.c.g {
                    continue;
                }
                pairs += 1;
                if !a.touched.independent(&b.touched) {
                    continue;
                }
                checked += 1;
                if bad.len() < 20 && !commute(sc, a, b) {
                    let what = |s: &M::State| {
                        let mut v: Vec<String> = sc
                            .accesses(s)
                            .iter()
                            .map(|a| format!("{}{}", a.field, a.object))
                            .collect();
                        v.extend(
                            sc.syncs(s)
                                .iter()
                                .map(|o| format!("{}{:?}", o.object, o.id)),
                        );
                        v.extend(
                            sc.order_keys(s)
                                .iter()
                                .map(|o| format!("order {}{:?}", o.0, o.1)),
                        );
                        v.join(",")
                    };
                    bad.push(format!(
                        "g{} {} [{}] / g{} {} [{}]",
                        a.c.g,
                        a.go,
                        what(&a.after),
                        b.c.g,
                        b.go,
                        what(&b.after)
                    ));
                }
            }
        }
        for s in steps {
            if seen.insert(sc.fingerprint(&s.after)) {
                queue.push_back(s.after);
            }
        }
    }
    (checked, pairs, bad)
}

/// Every pair of steps the independence relation calls independent commutes:
/// both orders run and reach one world. Breadth first, the first 1,500 worlds of
/// every built-in of a model that declares its footprints complete
/// (`Model::REDUCIBLE`), under each of its what-if combinations (flush-2021)
/// or versions (sync-2024). Each order key
/// and lock rule of `reduce` came from a failure here (a runner's poll of an
/// empty injectCh, a creator finding createMut held, a handler's `injectMut`
/// held at an access, ...); leaving one out fails this test.
#[test]
fn independent_steps_commute() {
    let (mut checked, mut pairs, mut bad) = (0, 0, Vec::new());
    for name in flush_core::builtin::names() {
        for (presets, v) in common::builtin(name).variants() {
            let (c, p, b) = match &v {
                AnyScenario::Flush(s) if flush2021::Scenario::REDUCIBLE => diamonds(&**s, 1_500),
                AnyScenario::Sync(s) if sync2024::Scenario::REDUCIBLE => diamonds(&**s, 1_500),
                AnyScenario::Flush(_) | AnyScenario::Sync(_) | AnyScenario::Mutex(_) => continue,
            };
            checked += c;
            pairs += p;
            bad.extend(
                b.into_iter()
                    .take(3)
                    .map(|b| format!("{name} {presets:?}: {b}")),
            );
        }
    }
    assert!(
        bad.is_empty(),
        "steps called independent that do not commute:\n{}",
        bad.join("\n")
    );
    // The relation is not trivially "dependent": most pairs commute.
    assert!(
        checked * 2 > pairs,
        "{checked} of {pairs} pairs independent"
    );
}

/// A sleep-set search (`Options::reduce`) visits exactly the states the full
/// search visits and finds the same violations (breadth first, with schedules
/// as short), in fewer steps of the model: every flush-2021 built-in the full
/// search exhausts within 50,000 states, under each what-if combination, depth
/// first and breadth first.
#[test]
fn sleep_sets_visit_every_state_and_find_every_violation() {
    for order in [Order::Dfs, Order::Bfs] {
        let (mut runs, mut full_steps, mut reduced_steps) = (0, 0, 0);
        for name in flush_core::builtin::names() {
            for (presets, v) in common::builtin(name).variants() {
                let r = match &v {
                    AnyScenario::Flush(sc) => agree(&**sc, order, 50_000),
                    AnyScenario::Sync(sc) => agree(&**sc, order, 50_000),
                    AnyScenario::Mutex(_) => continue,
                };
                match r {
                    Ok(Some((f, r))) => {
                        runs += 1;
                        full_steps += f;
                        reduced_steps += r;
                    }
                    Ok(None) => {}
                    Err(e) => panic!("{name} {presets:?} {order:?}: {e}"),
                }
            }
        }
        assert!(runs > 100, "{order:?}: {runs} searches compared");
        // Sleep sets must earn their keep: well under the full search's steps.
        assert!(
            reduced_steps * 10 < full_steps * 7,
            "{order:?}: {reduced_steps} of {full_steps} steps"
        );
    }
}

/// Every pair of steps the relation calls independent in the first 2,000
/// worlds of `sc` commutes (see [`diamonds`]), and [`agree`] depth first and
/// breadth first.
pub fn sleep_sets_agree<M: Model>(sc: &M, max_states: u64) -> Result<(), String> {
    let (_, _, bad) = diamonds(sc, 2_000);
    if !bad.is_empty() {
        return Err(format!(
            "steps called independent that do not commute:\n{}",
            bad.join("\n")
        ));
    }
    for order in [Order::Dfs, Order::Bfs] {
        agree(sc, order, max_states).map_err(|e| format!("{order:?}: {e}"))?;
    }
    Ok(())
}

/// A full search of `sc` in `order` and a sleep-set one agree: the same states
/// and violations (breadth first, each with a schedule as short), every reduced
/// schedule replaying to its violation, no more model steps. Returns both
/// searches' model steps, or `None` when the full search did not exhaust
/// within `max_states` (nothing compared).
fn agree<M: Model>(sc: &M, order: Order, max_states: u64) -> Result<Option<(u64, u64)>, String> {
    // Sleep sets name goroutines by id: both searches tell states apart by them.
    let Some((o, full)) = exact_search(sc, order, max_states) else {
        return Ok(None);
    };
    let reduced = explore::explore_with(sc, &Options { reduce: true, ..o }, &mut |_| true);
    let (f, r) = (&full, &reduced);
    if (r.stopped, r.states) != (f.stopped, f.states) || keys(r) != keys(f) || !r.reduced {
        return Err(format!(
            "full: {} states {:?} {:?}\nsleep sets: {} states {:?} {:?} (reduced: {})",
            f.states,
            f.stopped,
            keys(f),
            r.states,
            r.stopped,
            keys(r),
            r.reduced
        ));
    }
    if r.transitions > f.transitions {
        return Err(format!(
            "{} model steps, the full search {}",
            r.transitions, f.transitions
        ));
    }
    every_schedule_replays(sc, r)?;
    Ok(Some((f.transitions, r.transitions)))
}

/// An exhaustive search of `sc` in `order` that tells states apart by
/// goroutine ids, with its options; `None` when it did not exhaust within
/// `max_states`.
fn exact_search<M: Model>(sc: &M, order: Order, max_states: u64) -> Option<(Options, Exploration)> {
    let o = Options {
        order,
        shrink: false,
        ids: true,
        ..Options::exhaustive(400, max_states)
    };
    let x = explore::explore_with(sc, &o, &mut |_| true);
    (x.stopped == Stopped::Exhausted).then_some((o, x))
}

/// Each schedule `x` found replays to its violation.
fn every_schedule_replays<M: Model>(sc: &M, x: &Exploration) -> Result<(), String> {
    for v in &x.violations {
        let schedule = Choice::parse_list(&v.schedule).map_err(|e| e.to_string())?;
        if explore::reaches(sc, &schedule, &v.key).is_none() {
            return Err(format!("{} does not replay ({})", v.key, v.schedule));
        }
    }
    Ok(())
}

/// The violations of an exhaustive search, breadth first each with its
/// schedule's length.
fn keys(x: &Exploration) -> Vec<(&str, u32)> {
    let bfs = x.order == Order::Bfs;
    let mut k: Vec<_> = x
        .violations
        .iter()
        .map(|f| (f.key.as_str(), if bfs { f.steps } else { 0 }))
        .collect();
    k.sort_unstable();
    k
}

/// A search of `sc` in `order` that tells states apart by goroutine ids and
/// one that takes them as one (`Options::ids`) agree: the same violations
/// (breadth first, each with a schedule as short), every schedule of the
/// second replaying to its violation, no more states. Returns both searches'
/// states, or `None` when the first did not exhaust within `max_states`.
pub fn ids_agree<M: Model>(
    sc: &M,
    order: Order,
    max_states: u64,
) -> Result<Option<(u64, u64)>, String> {
    let Some((o, exact)) = exact_search(sc, order, max_states) else {
        return Ok(None);
    };
    let merged = explore::explore_with(sc, &Options { ids: false, ..o }, &mut |_| true);
    let (e, m) = (&exact, &merged);
    if m.stopped != e.stopped || keys(m) != keys(e) || m.states > e.states || e.ids_merged {
        return Err(format!(
            "ids told apart: {} states {:?} {:?}\nids merged ({}): {} states {:?} {:?}",
            e.states,
            e.stopped,
            keys(e),
            m.ids_merged,
            m.states,
            m.stopped,
            keys(m),
        ));
    }
    every_schedule_replays(sc, m)?;
    Ok(Some((e.states, m.states)))
}

/// Taking states that differ only in goroutine ids as one (sync-2024, by
/// default) finds every violation the search that tells them apart finds,
/// breadth first with schedules as short: every sync-2024 built-in under
/// every version and what-if combination the exact search exhausts within
/// 50,000 states, depth first and breadth first; and it must merge states.
#[test]
fn merging_goroutine_ids_keeps_every_violation() {
    for order in [Order::Dfs, Order::Bfs] {
        let (mut runs, mut exact, mut merged) = (0, 0, 0);
        for name in flush_core::builtin::names() {
            for (presets, v) in common::builtin(name).variants() {
                let agree = match &v {
                    AnyScenario::Sync(sc) => ids_agree(&**sc, order, 50_000),
                    AnyScenario::Flush(sc) => ids_agree(&**sc, order, 50_000),
                    AnyScenario::Mutex(_) => continue,
                };
                match agree {
                    Ok(Some((e, m))) => {
                        runs += 1;
                        exact += e;
                        merged += m;
                    }
                    Ok(None) => {}
                    Err(e) => panic!("{name} {presets:?} {order:?}: {e}"),
                }
            }
        }
        assert!(runs > 20, "{order:?}: {runs} searches compared");
        eprintln!("{order:?}: {runs} searches, {merged} of {exact} states");
        assert!(
            merged * 10 < exact * 9,
            "{order:?}: {merged} of {exact} states"
        );
    }
}
