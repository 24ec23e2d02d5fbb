//! Figures for the engine (printed by `cargo xtask bench`):
//! * steps per second on the 1,000-pair scenario (goal: at least 5 M steps/s on one core),
//!   both as a recorded run (trace kept) and as bare world steps;
//! * time to jump to a step of a 100,000-step run (goal: under 1 ms);
//! * explorer throughput in distinct states per second: #34018 scaled
//!   (`sync-scaled-3x3` at the fix, exhausted depth first and breadth first) and the
//!   time to the first counterexample of `sync-scaled-4x3` at the buggy commit;
//!   compaction-race exhausted depth first with states one up to names (the
//!   default) and with every name kept;
//! * large inputs (issue 10: no quadratic work): parse, check and run to the end a
//!   flush-2021 scenario of 10,000 actors (a flush pair each) over a Replica of
//!   100,000 segments, and a sync-2024 SyncSegments over a metacache of 90,000
//!   segments (goal: well under a second each).

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
    // Breadth first on one thread and on every core: the same result (see
    // `explore::explore_threads`); the goal is 1.7 times one thread's rate on
    // two cores.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let big = flush_core::builtin::get("sync-scaled-4x3").expect("generated");
    let bfs = |threads| Options {
        threads,
        ..all(Order::Bfs)
    };
    let states = big.explore_with(&bfs(1), &mut |_| true).states;
    eprintln!("sync-scaled-4x3 @ b5c9a7364b: {states} states; {cores} cores");
    let mut g = c.benchmark_group("explore sync-scaled-4x3 (fixed), breadth first, states");
    g.sample_size(10);
    g.throughput(Throughput::Elements(states));
    let mut counts = vec![1, cores];
    counts.dedup();
    for t in counts {
        g.bench_function(format!("{t} thread(s)"), |b| {
            b.iter(|| black_box(big.explore_with(&bfs(t), &mut |_| true).states))
        });
    }
    g.finish();
    // flush-2021: states one up to names (the default) against told apart.
    let race = flush_core::builtin::get("compaction-race").expect("built in");
    let mut g = c.benchmark_group("explore compaction-race, depth first, every state");
    g.sample_size(10);
    for ids in [false, true] {
        let o = Options {
            ids,
            ..all(Order::Dfs)
        };
        let states = race.explore_with(&o, &mut |_| true).states;
        let words = if ids { "ids kept" } else { "names merged" };
        eprintln!("compaction-race, {words}: {states} states");
        g.bench_function(format!("{words} ({states} states)"), |b| {
            b.iter(|| black_box(race.explore_with(&o, &mut |_| true).states))
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
    // Every violation at the buggy version: most states show ones already found.
    let mut bug3 = flush_core::builtin::get("sync-scaled-3x3").expect("generated");
    bug3.set_version("ca7ef26e4b").expect("a version");
    let states = bug3.explore_with(&all(Order::Dfs), &mut |_| true).states;
    let mut g = c.benchmark_group("explore sync-scaled-3x3 (ca7ef26e4b), every violation, states");
    g.sample_size(10);
    g.throughput(Throughput::Elements(states));
    g.bench_function("depth first", |b| {
        b.iter(|| black_box(bug3.explore_with(&all(Order::Dfs), &mut |_| true).states))
    });
    g.finish();
}

/// 10,000 actors, each flushing its own segment, over a Replica of 100,000.
fn many_actors_json() -> String {
    let replica: Vec<String> = (1..=100_000)
        .rev()
        .map(|i| {
            let state = if i > 10_000 { "flushed" } else { "new" };
            format!(r#"{{"segment":{i},"state":"{state}"}}"#)
        })
        .collect();
    let actors: Vec<String> = (1..=10_000)
        .map(|i| {
            format!(
                r#"{{"name":"a{i}","ops":[{{"op":"flush_insert","segment":{i},"pos":"a"}},{{"op":"flush_delete","segment":{i},"pos":"a"}}]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"name":"many-actors","model":"flush-2021","replica":[{}],"actors":[{}]}}"#,
        replica.join(","),
        actors.join(",")
    )
}

/// A metacache of 90,000 segments (listed in descending order), datacoord's newest
/// 15,000 with statslogs: one SyncSegments removes 75,000.
fn big_metacache_json() -> String {
    let dn: Vec<String> = (1..=90_000)
        .rev()
        .map(|i| {
            format!(r#"{{"segment":{i},"partition":1,"state":"Flushed","level":"L1","rows":1}}"#)
        })
        .collect();
    let dc: Vec<String> = (75_001..=90_000)
        .rev()
        .map(|i| format!(r#"{{"segment":{i},"partition":1,"state":"Flushed","level":"L1","statslog":true,"rows":1}}"#))
        .collect();
    format!(
        r#"{{"name":"big-metacache","model":"sync-2024","version":"ca7ef26e4b","datacoord":[{}],"datanode":[{}],"actors":[{{"name":"dc","ops":[{{"op":"sync_segments","partition":1}}]}}]}}"#,
        dc.join(","),
        dn.join(",")
    )
}

/// 1,000 sync-2024 actors inserting into and syncing 60 segments, each then
/// calling SyncSegments (the page's lockstep test file).
fn lockstep_json() -> String {
    let dc: Vec<String> = (1000..1060)
        .map(|s| format!(r#"{{"segment":{s},"partition":1,"state":"Growing","level":"L1","statslog":false,"rows":0}}"#))
        .collect();
    let actors: Vec<String> = (0..1000)
        .map(|i| {
            let s = 1000 + i % 60;
            format!(
                r#"{{"name":"a{i}","ops":[{{"op":"insert","segment":{s},"partition":1,"rows":1}},{{"op":"sync","segment":{s}}},{{"op":"sync_segments","partition":1}}]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"name":"lockstep-long","model":"sync-2024","version":"b5c9a7364b","datacoord":[{}],"actors":[{}]}}"#,
        dc.join(","),
        actors.join(",")
    )
}

/// A schedule replayed (the scripted scheduler): the page's lockstep replays
/// one under two versions, and a script's choice was looked for by listing
/// the runnable goroutines once per candidate (6 s in the page for 1,000
/// actors, 15 times a seeded run natively).
fn replay(c: &mut Criterion) {
    let text = lockstep_json();
    let sc = flush_core::AnyScenario::parse(&text, "lockstep").expect("parses");
    let mut seeded = sc.run(Policy::Seeded(1));
    seeded.run_to_end();
    let schedule = seeded.schedule();
    eprintln!("lockstep-long: {} steps", schedule.len());
    let mut g = c.benchmark_group("replay 1,000 sync-2024 actors");
    g.sample_size(10);
    g.throughput(Throughput::Elements(schedule.len() as u64));
    g.bench_function("seeded run", |b| {
        b.iter(|| {
            let mut r = sc.run(Policy::Seeded(1));
            r.run_to_end();
            black_box(r.len())
        })
    });
    g.bench_function("its schedule replayed (scripted)", |b| {
        b.iter(|| {
            let mut r = sc.run(Policy::Scripted {
                script: schedule.clone(),
                fallback_seed: 1,
            });
            r.run_to_end();
            black_box(r.len())
        })
    });
    g.bench_function("lockstep under b5c9a7364b and c65f41dc60", |b| {
        b.iter(|| {
            let rows = sc
                .lockstep(&schedule, "b5c9a7364b", "c65f41dc60", 1, u32::MAX)
                .expect("both versions run");
            black_box(rows.len())
        })
    });
    g.finish();
}

fn large_inputs(c: &mut Criterion) {
    let mut g = c.benchmark_group("large inputs");
    g.sample_size(10);
    for (name, text) in [
        (
            "10,000 actors over a 100,000-segment Replica",
            many_actors_json(),
        ),
        (
            "SyncSegments over a 90,000-segment metacache",
            big_metacache_json(),
        ),
    ] {
        let probe = flush_core::AnyScenario::parse(&text, name).expect("parses");
        let mut r = probe.run(Policy::Seeded(1));
        r.run_to_end();
        eprintln!(
            "{name}: {} KB of JSON, {} steps",
            text.len() / 1000,
            r.len()
        );
        g.bench_function(format!("{name}: parse, check, run to the end"), |b| {
            b.iter(|| {
                let sc = flush_core::AnyScenario::parse(&text, name).expect("parses");
                let mut r = sc.run(Policy::Seeded(1));
                r.run_to_end();
                black_box(r.len())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, steps, jump, explore, large_inputs, replay);
criterion_main!(benches);
