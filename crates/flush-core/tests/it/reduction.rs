//! Partial-order reduction: the independence relation ([`Touched::independent`])
//! checked step by step against the models, both orders of every pair it calls
//! independent.

use std::collections::{HashSet, VecDeque};

use flush_core::engine::Model;
use flush_core::explore::reduce::Touched;
use flush_core::explore::{self, Exploration, Options, Order, Stopped};
use flush_core::models::{flush2021, AnyScenario};
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
/// (`Model::REDUCIBLE`), under each of its what-if combinations. Each order key
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
/// depth-first search visits and finds the same violations, in fewer steps of
/// the model: every flush-2021 built-in the full search exhausts within 50,000
/// states, under each what-if combination.
#[test]
fn sleep_sets_visit_every_state_and_find_every_violation() {
    let (mut runs, mut full_steps, mut reduced_steps) = (0, 0, 0);
    for name in flush_core::builtin::names() {
        for (presets, v) in common::builtin(name).variants() {
            let AnyScenario::Flush(sc) = &v else {
                continue;
            };
            let o = Options {
                order: Order::Dfs,
                shrink: false,
                ..Options::exhaustive(400, 50_000)
            };
            let full = v.explore_with(&o, &mut |_| true);
            if full.stopped != Stopped::Exhausted {
                continue;
            }
            let reduced = v.explore_with(&Options { reduce: true, ..o }, &mut |_| true);
            let keys = |x: &Exploration| {
                let mut k: Vec<String> = x.violations.iter().map(|f| f.message.clone()).collect();
                k.sort();
                k
            };
            assert_eq!(reduced.stopped, Stopped::Exhausted, "{name} {presets:?}");
            assert_eq!(reduced.states, full.states, "{name} {presets:?}: states");
            assert_eq!(
                keys(&reduced),
                keys(&full),
                "{name} {presets:?}: violations"
            );
            for f in &reduced.violations {
                let schedule = Choice::parse_list(&f.schedule).expect("a schedule");
                let at = flush_core::explore::reaches(&**sc, &schedule, &f.key);
                assert!(at.is_some(), "{name} {presets:?}: {} not reached", f.key);
            }
            assert!(
                reduced.transitions <= full.transitions,
                "{name} {presets:?}"
            );
            runs += 1;
            full_steps += full.transitions;
            reduced_steps += reduced.transitions;
        }
    }
    assert!(runs > 100, "{runs} searches compared");
    // Sleep sets must earn their keep: well under the full search's steps.
    assert!(
        reduced_steps * 10 < full_steps * 7,
        "{reduced_steps} of {full_steps} steps"
    );
}

/// Every pair of steps the relation calls independent in the first 2,000
/// worlds of `sc` commutes (see [`diamonds`]), and a full depth-first search of
/// `sc` and a sleep-set one agree: the same states
/// and violations, every reduced schedule replaying to its violation, no more
/// model steps. `Ok(false)`: the full search did not exhaust within
/// `max_states` (nothing compared).
pub fn sleep_sets_agree<M: Model>(sc: &M, max_states: u64) -> Result<bool, String> {
    let (_, _, bad) = diamonds(sc, 2_000);
    if !bad.is_empty() {
        return Err(format!(
            "steps called independent that do not commute:\n{}",
            bad.join("\n")
        ));
    }
    let o = Options {
        order: Order::Dfs,
        shrink: false,
        ..Options::exhaustive(400, max_states)
    };
    let full = explore::explore_with(sc, &o, &mut |_| true);
    if full.stopped != Stopped::Exhausted {
        return Ok(false);
    }
    let reduced = explore::explore_with(sc, &Options { reduce: true, ..o }, &mut |_| true);
    fn keys(x: &Exploration) -> Vec<&str> {
        let mut k: Vec<&str> = x.violations.iter().map(|f| f.key.as_str()).collect();
        k.sort_unstable();
        k
    }
    let (f, r) = (&full, &reduced);
    if (r.stopped, r.states) != (f.stopped, f.states) || keys(r) != keys(f) {
        return Err(format!(
            "full: {} states {:?} {:?}\nsleep sets: {} states {:?} {:?}",
            f.states,
            f.stopped,
            keys(f),
            r.states,
            r.stopped,
            keys(r)
        ));
    }
    if r.transitions > f.transitions {
        return Err(format!(
            "{} model steps, the full search {}",
            r.transitions, f.transitions
        ));
    }
    for v in &r.violations {
        let schedule = Choice::parse_list(&v.schedule).map_err(|e| e.to_string())?;
        if explore::reaches(sc, &schedule, &v.key).is_none() {
            return Err(format!("{} does not replay ({})", v.key, v.schedule));
        }
    }
    Ok(true)
}
