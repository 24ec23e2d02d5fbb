//! Figures for the engine (printed by `cargo xtask bench`):
//! * steps per second on the 1,000-pair scenario (goal: at least 5 M steps/s on one core),
//!   both as a recorded run (trace kept) and as bare world steps;
//! * time to jump to a step of a 100,000-step run (goal: under 1 ms);
//! * explorer throughput in distinct states per second: #34018 scaled
//!   (`sync-scaled-3x3` at the fix, exhausted depth first and breadth first) and the
//!   time to the first counterexample of `sync-scaled-4x3` at the buggy commit.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use flush_core::engine::Run;
use flush_core::models::flush2021::{self, setup::pairs};
use flush_core::{Model, Policy};

fn steps(c: &mut Criterion) {
    let sc = Arc::new(pairs(1000));
    let mut probe = Run::<flush2021::Scenario>::new(sc.clone(), Policy::Seeded(1));
    probe.run_to_end();
    let n = probe.len();
    assert_eq!(
        probe.outcome().unwrap().kind,
        flush_core::OutcomeKind::Completed
    );
    let schedule = probe.schedule();
    eprintln!("pairs-1000: {n} steps per run");

    let mut g = c.benchmark_group("pairs-1000");
    g.throughput(Throughput::Elements(u64::from(n)));
    g.bench_function("recorded run (seeded scheduler, trace kept)", |b| {
        b.iter(|| {
            let mut r = Run::<flush2021::Scenario>::new(sc.clone(), Policy::Seeded(1));
            r.run_to_end();
            black_box(r.len())
        })
    });
    g.bench_function("bare world steps (replaying the schedule)", |b| {
        let mut evs = Vec::with_capacity(64);
        b.iter_batched(
            || sc.init(),
            |mut w| {
                for c in &schedule {
                    evs.clear();
                    sc.step(&mut w, *c, &mut evs);
                }
                black_box(w.notified)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn jump(c: &mut Criterion) {
    let sc = Arc::new(pairs(14_500));
    let mut r = Run::<flush2021::Scenario>::new(sc, Policy::Seeded(1));
    r.run_to_end();
    let n = r.len();
    assert!(n >= 100_000, "{n}");
    eprintln!("pairs-14500: {n} steps");
    let targets = [n / 2, n - 1, 37, n / 3 + 77, 99_999, 1_234];
    let mut i = 0;
    c.bench_function("jump to a step of a 100,000-step run", |b| {
        b.iter(|| {
            i = (i + 1) % targets.len();
            r.goto(targets[i]);
            black_box(r.world().notified)
        })
    });
    let mut w = r.world().clone();
    let mut out = Vec::new();
    c.bench_function("runnable set of a mid-run world", |b| {
        b.iter(|| {
            w.runnable(r.scenario(), &mut out);
            black_box(out.len())
        })
    });
    let _ = &mut w;
}

fn explore(c: &mut Criterion) {
    use flush_core::explore::{Options, Order};
    let sc = flush_core::builtin::get("sync-scaled-3x3").expect("generated");
    let all = |order| Options {
        order,
        all: true,
        shrink: false,
        ..Options::exhaustive(200, u64::MAX)
    };
    let states = sc.explore_with(&all(Order::Dfs), &mut |_| true).states;
    eprintln!("sync-scaled-3x3 @ b5c9a7364b: {states} states");
    let mut g = c.benchmark_group("explore sync-scaled-3x3 (fixed), states");
    g.sample_size(10);
    g.throughput(Throughput::Elements(states));
    for order in [Order::Dfs, Order::Bfs] {
        g.bench_function(format!("exhaust, {}", order.words()), |b| {
            b.iter(|| black_box(sc.explore_with(&all(order), &mut |_| true).states))
        });
    }
    g.finish();
    let mut bug = flush_core::builtin::get("sync-scaled-4x3").expect("generated");
    bug.set_version("ca7ef26e4b").expect("a version");
    c.bench_function(
        "explore sync-scaled-4x3 (ca7ef26e4b) to the first violation",
        |b| {
            b.iter(|| {
                black_box(
                    bug.explore_with(&Options::first(200, u64::MAX), &mut |_| true)
                        .states,
                )
            })
        },
    );
}

criterion_group!(benches, steps, jump, explore);
criterion_main!(benches);
