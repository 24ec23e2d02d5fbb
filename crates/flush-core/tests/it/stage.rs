//! What the page draws, checked natively on the core's plain-data stage: the
//! same facts the browser test checks in the DOM, at more steps and for every
//! built-in.

use flush_core::view::{ArrowTo, Block, Cell, LaneBody, Stage, TokenAt};
use flush_core::{AnyRun, Policy};

use crate::common::*;

fn run_to(name: &str, policy: Policy, step: u32) -> AnyRun {
    let mut r = any_run(&builtin(name), policy);
    r.goto(step);
    r
}

fn stage(r: &AnyRun) -> Stage {
    r.stage(&r.figures())
}

/// The first table of panel `id`.
fn table<'s>(s: &'s Stage, id: &str) -> &'s flush_core::view::Table {
    let panel = s.rows.iter().flatten().find(|p| p.id == id).unwrap();
    match &panel.blocks[0] {
        Block::Table(t) => t,
        _ => panic!("panel {id} starts with a table"),
    }
}

fn data<'a>(d: &'a [(&'static str, String)], key: &str) -> Option<&'a str> {
    d.iter().find(|x| x.0 == key).map(|x| x.1.as_str())
}

#[test]
fn handoff_lanes_show_who_holds_the_injection() {
    let r = run_to("handoff", seeded(1), 22);
    let s = stage(&r);
    assert_eq!(s.lanes.len(), 2);
    let lane2 = s
        .lanes
        .iter()
        .find(|l| data(&l.data, "data-segment") == Some("2"))
        .unwrap();
    assert_eq!(data(&lane2.data, "data-holder"), Some("runner pos=a (c1)"));
    let LaneBody::Chain(chain) = &lane2.body else {
        panic!("a queue is a chain")
    };
    let a = chain
        .boxes
        .iter()
        .position(|b| data(&b.data, "data-pos") == Some("a"))
        .unwrap();
    assert_eq!(chain.boxes[a].class, "holding");
    assert!(chain.boxes[a].pills.iter().all(|p| p.class == "done"));
    assert!(chain
        .tokens
        .iter()
        .any(|t| t.class == "held" && t.at == TokenAt::Box(a) && t.label == "c1"));
    assert!(chain.arrows.iter().any(|x| x.from == a));
    // Step 33: the remapped pack is notified; the notify panel and the Replica show it.
    let r = run_to("handoff", seeded(1), 33);
    let s = stage(&r);
    let notify = s.rows.iter().flatten().find(|p| p.id == "notify").unwrap();
    assert!(notify.title.ends_with(": 1"), "{}", notify.title);
    let Block::Chips { chips, .. } = notify.blocks.last().unwrap() else {
        panic!("packs")
    };
    assert_eq!(chips.last().unwrap().text, "seg=4 pos=a flushed");
    assert_eq!(chips.last().unwrap().class, "fresh");
    let t = table(&s, "metacache");
    // Replica rows flash only at the steps whose facts touch them.
    let mut flashes = 0;
    let mut r = r;
    for n in 1..=r.len() {
        r.goto(n);
        let line = r.line(n).unwrap();
        let s = stage(&r);
        for row in &table(&s, "metacache").rows {
            let touched = line.event.contains(&format!("segment {} ", row.key))
                || line.event.contains(&format!("seg={} ", row.key));
            if row.class == "changed" {
                flashes += 1;
                assert!(
                    touched,
                    "step {n}: row {} flashes, but the step says: {}",
                    row.key, line.event
                );
            }
        }
    }
    // The compactor removed 2 and 3 and added 4 as flushed before its
    // injectDone(true) (compactor.go:452-461 at 891c202b73).
    let keys: Vec<&str> = t.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["4"], "only the compaction's target is left");
    assert!(flashes >= 1, "the row flashes when the compaction adds it");
}

#[test]
fn tail_arrows_point_at_the_predecessor_in_the_chain() {
    let r = run_to("ordered-flush", seeded(2), 13);
    let s = stage(&r);
    let LaneBody::Chain(c) = &s.lanes[0].body else {
        panic!("a chain")
    };
    for a in &c.arrows {
        if let ArrowTo::Box(j) = a.to {
            assert!(j < a.from, "an arrow points back along the chain");
        }
    }
    assert!(c.arrows.iter().any(|a| matches!(a.to, ArrowTo::Box(_))));
}

#[test]
fn the_removed_segment_and_the_lost_task_show_at_step_six() {
    let sc = builtin("segment-not-found");
    let script = sc.header().schedule.clone().unwrap();
    let r = {
        let mut r = any_run(
            &sc,
            Policy::Scripted {
                script,
                fallback_seed: 1,
            },
        );
        r.goto(6);
        r
    };
    let s = stage(&r);
    assert_eq!(s.lanes.len(), 3);
    let tasks = s.lanes.iter().find(|l| l.key == "sync-manager").unwrap();
    let LaneBody::Cards { cards, .. } = &tasks.body else {
        panic!("cards")
    };
    assert_eq!(data(&cards[0].data, "data-present"), Some("false"));
    assert!(cards[0].class.contains("danger"));
    let t = table(&s, "metacache");
    let removed = t.rows.iter().find(|r| r.key == "removed-300").unwrap();
    assert_eq!(removed.class, "removed");
    assert_eq!(data(&removed.data, "data-segment"), Some("300"));
    assert!(
        matches!(&removed.cells[2], Cell::Wide { text, .. } if text.contains("removed at this step"))
    );
}

/// Every built-in (and the toy model, and pairs-1000) under three seeds, at every
/// 7th step and the last: the stage builds (no Rust panic), every arrow and token
/// points at a box that exists, and every key Yew diffs by is unique among its
/// siblings (lanes, boxes, tokens, cards, table rows, panel ids).
#[test]
fn every_stage_is_well_formed() {
    let mut scenarios: Vec<(String, flush_core::AnyScenario)> = flush_core::builtin::FILES
        .iter()
        .map(|f| (f.0.to_owned(), builtin(f.0)))
        .collect();
    for toy in ["mutex-lost-update", "mutex-locked"] {
        let path = format!("{}/../../tests/toy/{toy}.json", env!("CARGO_MANIFEST_DIR"));
        scenarios.push((
            toy.to_owned(),
            parse(&std::fs::read_to_string(path).unwrap()),
        ));
    }
    scenarios.push((
        "pairs-1000".to_owned(),
        flush_core::AnyScenario::generated("pairs-1000").unwrap(),
    ));
    for (name, sc) in &scenarios {
        for seed in [1, 2, 3] {
            let mut r = any_run(sc, seeded(seed));
            let figures = r.figures();
            assert_eq!(figures.len, r.len());
            let stride = if r.len() > 2000 { 97 } else { 7 };
            for n in (0..=r.len()).step_by(stride).chain([r.len()]) {
                r.goto(n);
                well_formed(&r.stage(&figures), &format!("{name} seed {seed} step {n}"));
            }
        }
    }
}

fn unique<'a>(keys: impl IntoIterator<Item = &'a str>, what: &str, at: &str) {
    let mut v: Vec<&str> = keys.into_iter().collect();
    let n = v.len();
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), n, "{at}: {what} keys are unique");
}

fn well_formed(s: &Stage, at: &str) {
    unique(s.lanes.iter().map(|l| l.key.as_str()), "lane", at);
    unique(s.rows.iter().flatten().map(|p| p.id), "panel id", at);
    for l in &s.lanes {
        match &l.body {
            LaneBody::Chain(c) => {
                unique(c.boxes.iter().map(|b| b.key.as_str()), "box", at);
                unique(c.tokens.iter().map(|t| t.key.as_str()), "token", at);
                for a in &c.arrows {
                    assert!(a.from < c.boxes.len(), "{at}: arrow from a box");
                    if let ArrowTo::Box(j) = a.to {
                        assert!(j < c.boxes.len(), "{at}: arrow to a box");
                    }
                }
                for t in &c.tokens {
                    match t.at {
                        TokenAt::Box(i) => assert!(i < c.boxes.len(), "{at}: token on a box"),
                        TokenAt::Queued(i) => assert!(i < 6, "{at}: queued tokens are few"),
                        TokenAt::Slot => {}
                    }
                }
            }
            LaneBody::Cards { cards, .. } => {
                unique(cards.iter().map(|c| c.key.as_str()), "card", at)
            }
        }
    }
    for p in s.rows.iter().flatten() {
        for b in &p.blocks {
            if let Block::Table(t) = b {
                unique(t.rows.iter().map(|r| r.key.as_str()), "table row", at);
            }
        }
    }
}

/// The toy model plugs in through the registry: parsed, run, drawn, explored.
#[test]
fn the_toy_model_runs_and_is_drawn() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/toy");
    let text = std::fs::read_to_string(root.join("mutex-lost-update.json")).unwrap();
    let sc = parse(&text);
    assert_eq!(sc.header().model, "mutex-handoff");
    let x = sc.explore(50, 10_000);
    assert_eq!(x.violations.len(), 1);
    assert!(x.violations[0].message.starts_with("lost-update"));
    let mut r = sc.run(Policy::Scripted {
        script: flush_core::Choice::parse_list(&x.violations[0].schedule).unwrap(),
        fallback_seed: 1,
    });
    r.run_to_end();
    assert_eq!(
        r.outcome().unwrap().kind,
        flush_core::OutcomeKind::Invariant
    );
    r.goto(1);
    let s = stage(&r);
    assert_eq!(s.lanes[0].key, "actors");
    let text = std::fs::read_to_string(root.join("mutex-locked.json")).unwrap();
    let locked = parse(&text);
    assert!(locked.explore(50, 10_000).violations.is_empty());
}

/// Go lets one goroutine unlock a mutex another locked ("A locked Mutex is not
/// associated with a particular goroutine", sync/mutex.go); only unlocking one
/// nobody holds is fatal. The toy model called the handoff a panic.
#[test]
fn the_toy_mutex_may_be_unlocked_by_another_goroutine() {
    let handoff = |then: &str| {
        parse(&format!(
            r#"{{"name":"unlock-handoff","model":"mutex-handoff","actors":[
              {{"name":"a","ops":[{{"op":"lock"}},{{"op":"incr"}}{then}]}},
              {{"name":"b","ops":[{{"op":"wait_for","actor":"a","index":1}},{{"op":"unlock"}}]}}]}}"#
        ))
    };
    let x = handoff("").explore(50, 10_000);
    assert_eq!(x.stopped, flush_core::explore::Stopped::Exhausted);
    assert!(x.violations.is_empty(), "{:?}", x.violations);
    // a unlocks it again after b did: that one is fatal.
    let x =
        handoff(r#",{"op":"wait_for","actor":"b","index":1},{"op":"unlock"}"#).explore(50, 10_000);
    assert_eq!(x.violations.len(), 1, "{:?}", x.violations);
    assert!(x.violations[0].message.contains("unlock of unlocked mutex"));
}

/// A lane draws every runner up to its budget and counts the rest in a badge.
#[test]
fn a_lane_past_its_budget_counts_the_runners_it_does_not_draw() {
    use flush_core::models::flush2021::view::MAX_BOXES;
    let ops: Vec<String> = (0..MAX_BOXES + 5)
        .map(|i| format!(r#"{{"op":"flush_insert","segment":1,"pos":"p{i}"}}"#))
        .collect();
    let text = format!(
        r#"{{"name":"many","model":"flush-2021","actors":[{{"name":"a","ops":[{}]}}]}}"#,
        ops.join(",")
    );
    let sc = flush_core::AnyScenario::parse(&text, "many.json").unwrap();
    let mut r = sc.run(seeded(1));
    r.run_to_end();
    let s = stage(&r);
    let LaneBody::Chain(chain) = &s.lanes[0].body else {
        panic!("a queue is a chain")
    };
    assert_eq!(chain.boxes.len(), MAX_BOXES);
    assert!(chain.arrows.iter().all(|a| a.from < MAX_BOXES));
    let more = s.lanes[0]
        .badges
        .iter()
        .find(|b| b.label == "runners not drawn")
        .expect("a badge counts the rest");
    assert_eq!(more.value, "5");
}

/// Past its budget of lanes the stage draws the first queues and the queue of
/// the goroutine that took the step, and says how many it left out; the Replica
/// folds the segments the step did not change (a scenario of thousands of
/// queues took seconds a step in the page).
#[test]
fn a_stage_past_its_lanes_draws_the_stepping_queue_and_counts_the_rest() {
    use flush_core::models::flush2021::view::MAX_LANES;
    // Enough segments for the Replica to fold too.
    let extra = flush_core::view::FOLD_FROM
        .saturating_sub(MAX_LANES)
        .max(10);
    let n = MAX_LANES + extra;
    let actors: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"a{i}","ops":[{{"op":"flush_insert","segment":{i},"pos":"p{i}"}},{{"op":"flush_delete","segment":{i},"pos":"p{i}"}}]}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"name":"lanes","model":"flush-2021","actors":[{}]}}"#,
        actors.join(",")
    );
    let sc = flush_core::AnyScenario::parse(&text, "lanes.json").unwrap();
    let mut r = sc.run(seeded(3));
    r.run_to_end();
    let (mut own_seen, mut folded_seen, mut most_left) = (0, 0, 0);
    for step in 1..=r.len() {
        r.goto(step);
        let s = stage(&r);
        assert!(
            s.lanes.len() <= MAX_LANES,
            "step {step}: {} lanes",
            s.lanes.len()
        );
        let segment_of = |l: &flush_core::view::Lane| {
            l.data
                .iter()
                .find(|d| d.0 == "data-segment")
                .map(|d| d.1.clone())
        };
        if let Some(more) = s.more_lanes.as_deref() {
            assert_eq!(s.lanes.len(), MAX_LANES, "step {step}: {more}");
            let left: usize = more.split(' ').next().unwrap().parse().unwrap();
            assert!((1..=extra).contains(&left), "{more}");
            let queues = if left == 1 { "queue" } else { "queues" };
            assert!(
                more.starts_with(&format!("{left} more flush {queues} not drawn")),
                "{more}"
            );
            most_left = most_left.max(left);
        }
        // A runner's or a half's step, or an actor's on a queue: its queue is drawn.
        let line = r.line(step).unwrap();
        let who = line.name;
        let seg = match who.split("seg=").nth(1) {
            Some(t) => t.split(' ').next(),
            None => line
                .event
                .strip_prefix("queue ")
                .and_then(|t| t.split([' ', '\'']).next()),
        };
        if let Some(seg) = seg {
            assert!(
                s.lanes
                    .iter()
                    .any(|l| segment_of(l).as_deref() == Some(seg)),
                "step {step}: {who}'s queue is not drawn"
            );
            own_seen += usize::from(seg.parse::<usize>().unwrap() >= MAX_LANES);
        }
        folded_seen += usize::from(table(&s, "metacache").fold.is_some());
    }
    assert_eq!(most_left, extra, "every queue existed at some step");
    assert!(
        own_seen > 0,
        "a step of a queue past the first ones was checked"
    );
    assert!(folded_seen > 0, "the Replica folded its quiet rows");
}

/// Plots: a queue's series is 0 before the queue exists, and every series of a
/// plot has a point at every sampled step (so lines start at the left edge).
#[test]
fn queue_series_start_at_zero_and_share_the_sampled_steps() {
    let r = any_run(&builtin("handoff"), seeded(1));
    let f = r.figures();
    let running = &f.plots[0];
    assert_eq!(running.title, "Tasks running per queue");
    assert_eq!(running.series.len(), 2, "queues 2 and 3");
    let steps = |i: usize| -> Vec<u32> { running.series[i].points.iter().map(|p| p.0).collect() };
    assert_eq!(steps(0), steps(1));
    assert_eq!(steps(0).first(), Some(&0));
    assert_eq!(steps(0).last(), Some(&r.len()));
    for s in &running.series {
        assert_eq!(s.points[0], (0, 0.0), "{} starts at 0", s.name);
        assert!(
            s.points.iter().any(|p| p.1 > 0.0),
            "{} runs a task at some point",
            s.name
        );
    }
}

/// The notified packs are a window of the latest: each chip's key is its place
/// in the whole stream, so a key stands for one pack at every step (the page
/// keeps a chip's element by it, and a notify moves one chip in and one out
/// instead of rewriting thirty).
#[test]
fn a_notified_chip_keeps_its_key_as_the_window_slides() {
    let chips = |r: &AnyRun| -> Vec<(Option<u32>, String)> {
        let s = stage(r);
        let notify = s.rows.iter().flatten().find(|p| p.id == "notify").unwrap();
        let Some(Block::Chips { chips, .. }) = notify.blocks.last() else {
            panic!("packs")
        };
        chips.iter().map(|c| (c.key, c.text.clone())).collect()
    };
    let mut r = run_to("pairs-1000", seeded(1), 3000);
    let mut last = chips(&r);
    let (mut slid, mut seen) = (0, std::collections::BTreeMap::new());
    for step in 3001..3200 {
        r.goto(step);
        let now = chips(&r);
        assert_eq!(now.len(), 30, "step {step}");
        let keys: Vec<u32> = now.iter().map(|c| c.0.unwrap()).collect();
        let first = keys[0];
        assert_eq!(keys, (first..first + 30).collect::<Vec<_>>(), "step {step}");
        for (k, text) in &now {
            let was = seen.entry(k.unwrap()).or_insert_with(|| text.clone());
            assert_eq!(was, text, "step {step}: key {k:?}");
        }
        slid += usize::from(now[0].0 != last[0].0);
        last = now;
    }
    assert!(slid >= 10, "the window slid {slid} times");
}

/// #34018 at ca7ef26e4b among `extra` flushed segments no op names.
fn wide(extra: i64) -> flush_core::AnyScenario {
    let seg = |id: i64, state: &str, more: &str| {
        format!(r#"{{"segment":{id},"partition":1,"state":"{state}","level":"L1",{more}}}"#)
    };
    let mut dc = vec![seg(101, "Flushed", r#""statslog":true,"rows":1000"#)];
    let mut dn = vec![seg(101, "Flushed", r#""rows":1000"#)];
    let mut flow = Vec::new();
    for s in 300..303 {
        dc.push(seg(s, "Growing", r#""statslog":false,"rows":0"#));
        flow.push(format!(
            r#"{{"op":"insert","segment":{s},"partition":1,"rows":10}},{{"op":"sync","segment":{s}}}"#
        ));
    }
    for s in 1000..1000 + extra {
        dc.push(seg(s, "Flushed", r#""statslog":true,"rows":1"#));
        dn.push(seg(s, "Flushed", r#""rows":1"#));
    }
    parse(&format!(
        r#"{{"name":"wide","title":"wide","model":"sync-2024","version":"ca7ef26e4b","seed":1,
        "datacoord":[{}],"datanode":[{}],
        "actors":[{{"name":"flowgraph","ops":[{}]}},{{"name":"datacoord","ops":[{{"op":"sync_segments","partition":1}}]}}]}}"#,
        dc.join(","),
        dn.join(","),
        flow.join(",")
    ))
}

/// A long table folds what nothing touched: a segment no op names, as the
/// scenario declares it. What a step changes or removes, and what an op names,
/// is always a row; a short table folds nothing.
#[test]
fn long_tables_fold_the_segments_nothing_touched() {
    let folded = |t: &flush_core::view::Table| t.fold.as_ref().map_or(0, |f| f.rows.len());
    let mut r = any_run(&wide(60), seeded(1));
    let mut changed = 0;
    for step in 0..=r.len() {
        r.goto(step);
        let s = stage(&r);
        for id in ["metacache", "datacoord"] {
            let t = table(&s, id);
            let (all, fold) = (t.rows.len() + folded(t), t.fold.as_ref());
            for row in t.rows.iter().chain(fold.iter().flat_map(|f| &f.rows)) {
                let id: i64 = data(&row.data, "data-segment").unwrap().parse().unwrap();
                let is_folded = fold.is_some_and(|f| f.rows.contains(row));
                // What an op names, or a step changed or removed, is shown.
                if (300..303).contains(&id) || !row.class.is_empty() {
                    assert!(!is_folded, "step {step}: {id} in {:?}", row.class);
                }
                // The declared segments nothing touched are folded.
                if id >= 1000 && row.class.is_empty() {
                    assert!(is_folded, "step {step}: {id} shown");
                }
                changed += usize::from(row.class == "changed");
            }
            let f = fold.expect("60 untouched segments fold");
            assert!(f
                .words
                .starts_with(&format!("{} segments untouched so far", f.rows.len())));
            assert!(all >= 61, "step {step}: {all} rows in {id}");
        }
    }
    assert!(changed > 0, "the run changes rows");
    // A short table folds nothing.
    let r = any_run(&wide(30), seeded(1));
    let s = stage(&r);
    assert!(["metacache", "datacoord"]
        .iter()
        .all(|id| table(&s, id).fold.is_none()));
}

/// A dropped segment's sync task takes it out of the metacache when it is done
/// (task.go: Run removes a dropped segment, which logs no removal of its own):
/// the table says so at that step, as it does for SyncSegments's removals.
#[test]
fn a_drop_sync_task_removing_its_segment_shows_the_removal() {
    let sc = parse(
        r#"{"name":"drop","title":"drop","model":"sync-2024","version":"ca7ef26e4b","seed":1,
        "datacoord":[{"segment":5,"partition":1,"state":"Dropped","level":"L1","statslog":true,"rows":10}],
        "datanode":[{"segment":5,"partition":1,"state":"Dropped","level":"L1","rows":10}],
        "actors":[{"name":"flowgraph","ops":[{"op":"sync","segment":5}]}]}"#,
    );
    let mut r = any_run(&sc, seeded(1));
    let last = r.len();
    r.goto(last - 1);
    assert_eq!(table(&stage(&r), "metacache").rows[0].key, "5");
    r.goto(last);
    let s = stage(&r);
    let t = table(&s, "metacache");
    assert_eq!(t.rows.len(), 1);
    assert_eq!(
        (t.rows[0].key.as_str(), t.rows[0].class),
        ("removed-5", "removed")
    );
}
