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
    let replica = s
        .rows
        .iter()
        .flatten()
        .find(|p| p.id == "metacache")
        .unwrap();
    let Block::Table(t) = &replica.blocks[0] else {
        panic!("a table")
    };
    // Replica rows flash only at the steps whose facts touch them.
    let mut flashes = 0;
    for n in 1..=r.len() {
        let mut r = run_to("handoff", seeded(1), n);
        r.goto(n);
        let line = r.line(n).unwrap();
        let s = stage(&r);
        let replica = s
            .rows
            .iter()
            .flatten()
            .find(|p| p.id == "metacache")
            .unwrap();
        let Block::Table(t) = &replica.blocks[0] else {
            panic!("a table")
        };
        for row in &t.rows {
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
    assert_eq!(t.rows.len(), 2, "segments 2 and 3");
    assert!(
        flashes >= 2,
        "the rows flash when the segments are reported and flushed"
    );
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
    let meta = s
        .rows
        .iter()
        .flatten()
        .find(|p| p.id == "metacache")
        .unwrap();
    let Block::Table(t) = &meta.blocks[0] else {
        panic!("a table")
    };
    let removed = t.rows.iter().find(|r| r.key == "removed-300").unwrap();
    assert_eq!(removed.class, "removed");
    assert_eq!(data(&removed.data, "data-segment"), Some("300"));
    assert!(
        matches!(&removed.cells[2], Cell::Wide { text, .. } if text.contains("removed at this step"))
    );
}

/// Every built-in, at every 7th step: the stage builds (no Rust panic), every
/// arrow and token points at a box that exists, keys are unique per lane.
#[test]
fn every_stage_is_well_formed() {
    for name in flush_core::builtin::FILES.iter().map(|f| f.0) {
        let mut r = any_run(&builtin(name), seeded(1));
        let figures = r.figures();
        assert_eq!(figures.len, r.len());
        for n in (0..=r.len()).step_by(7) {
            r.goto(n);
            let s = r.stage(&figures);
            for l in &s.lanes {
                if let LaneBody::Chain(c) = &l.body {
                    let mut keys: Vec<&str> = c.boxes.iter().map(|b| b.key.as_str()).collect();
                    keys.sort_unstable();
                    keys.dedup();
                    assert_eq!(
                        keys.len(),
                        c.boxes.len(),
                        "{name} step {n}: box keys are unique"
                    );
                    for a in &c.arrows {
                        assert!(a.from < c.boxes.len());
                        if let ArrowTo::Box(j) = a.to {
                            assert!(j < c.boxes.len());
                        }
                    }
                    for t in &c.tokens {
                        if let TokenAt::Box(i) = t.at {
                            assert!(i < c.boxes.len(), "{name} step {n}: token on a box");
                        }
                    }
                }
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
