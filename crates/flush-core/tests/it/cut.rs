//! Cutting a violation's ops (`OpShrink`): the smaller file is a scenario the
//! checker takes, the schedule embedded in it replays strictly to the same
//! violation, every `wait_for` still waits for the op it waited for, the ops
//! listed are the original's, and a cut that says it is complete cannot lose
//! one more op (each kept op, removed, leaves a scenario whose search within the
//! same budget does not find the violation).

use flush_core::engine::CutGroup;
use flush_core::explore::{self, Cut, CutBudget, Found, Options};
use flush_core::scenario::json::{self, Json};
use flush_core::AnyScenario;

use crate::common::{parse, reaches};

fn budget() -> CutBudget {
    CutBudget::cli(0, 256 << 20)
}

/// The first violation of `sc` (read from `text`) and its cut.
fn cut_of(text: &str, sc: &AnyScenario) -> Option<(Found, Cut)> {
    let o = Options::first(200, 400_000);
    let x = sc.explore_with(&o, &mut |_| true);
    let f = x.violations.first()?;
    let mut s = explore::OpShrink::new(text, sc, f, &o, budget()).ok()?;
    while !s.run(4096) {}
    Some((f.clone(), s.finish()))
}

fn first_cut(text: &str) -> Option<(String, Cut)> {
    cut_of(text, &parse(text)).map(|(f, c)| (f.key, c))
}

fn actors(tree: &Json) -> &[Json] {
    tree.arr("actors")
}

fn ops(actor: &Json) -> &[Json] {
    actor.arr("ops")
}

fn name(v: &Json, key: &str) -> String {
    match v.get(key) {
        Some(Json::Str(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The op a `wait_for` names: (actor, the op's JSON).
fn target<'t>(tree: &'t Json, op: &Json) -> Option<&'t Json> {
    let (who, at) = (name(op, "actor"), op.get("index")?);
    let Json::Num(at) = at else { return None };
    let a = actors(tree).iter().find(|a| name(a, "name") == who)?;
    ops(a).get(at.as_u64()? as usize)
}

/// Everything a cut promises, checked against the original file.
fn check_cut(file: &str, text: &str, key: &str, cut: &Cut) {
    let original = json::parse(text, file).unwrap();
    let listed: Vec<(String, u32)> = cut.ops.iter().map(|l| (l.actor.clone(), l.index)).collect();
    let expected: Vec<(String, u32)> = actors(&original)
        .iter()
        .flat_map(|a| (0..ops(a).len() as u32).map(move |i| (name(a, "name"), i)))
        .collect();
    assert_eq!(
        listed, expected,
        "{file}: the ops listed are the original's"
    );
    assert_eq!(cut.kept as usize, cut.ops.iter().filter(|l| !l.cut).count());
    let smaller = parse(&cut.scenario);
    let schedule = smaller.header().schedule.clone().unwrap_or_default();
    assert_eq!(flush_core::sched::format_schedule(&schedule), cut.schedule);
    assert_eq!(
        reaches(&smaller, &schedule, key),
        Some(schedule.len()),
        "{file}: the cut file's schedule replays to {key} at its last step"
    );
    let tree = json::parse(&cut.scenario, "cut").unwrap();
    let kept_ops: usize = actors(&tree).iter().map(|a| ops(a).len()).sum();
    assert_eq!(
        kept_ops, cut.kept as usize,
        "{file}: the file holds the kept ops"
    );
    // Every wait_for still waits for the same op as in the original: waits are
    // never cut, so an actor's k-th wait is its k-th wait there.
    let waits = |t: &'_ Json, who: &str| -> Vec<Option<Json>> {
        actors(t)
            .iter()
            .filter(|a| name(a, "name") == who)
            .flat_map(ops)
            .filter(|o| name(o, "op") == "wait_for")
            .map(|o| target(t, o).cloned())
            .collect()
    };
    for actor in actors(&tree) {
        let who = name(actor, "name");
        assert_eq!(
            waits(&tree, &who),
            waits(&original, &who),
            "{file}: a wait_for of {who} waits for another op after the cut"
        );
    }
}

#[test]
fn every_builtin_violation_cuts_to_a_file_that_replays_it() {
    let mut cut_some = 0;
    let mut checked = 0;
    for (stem, text) in flush_core::builtin::FILES {
        let Some((key, cut)) = first_cut(text) else {
            continue;
        };
        check_cut(stem, text, &key, &cut);
        checked += 1;
        cut_some += usize::from(cut.kept as usize != cut.ops.len());
    }
    assert!(checked >= 8, "{checked} built-ins had a violation to cut");
    assert!(cut_some >= 2, "only {cut_some} built-ins lost an op");
}

/// segment-not-found with an op nobody needs (an insert into another segment)
/// ahead of the flow graph's, and datacoord's tick ordered after the flow graph's
/// sync op by a wait_for: the insert goes, the wait_for is renumbered to the
/// same sync op, and the tick still removes segment 300 under its sync task.
const PADDED: &str = r#"{
  "name": "padded", "model": "sync-2024", "version": "ca7ef26e4b",
  "datacoord": [
    { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 },
    { "segment": 300, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 },
    { "segment": 301, "partition": 1, "state": "Growing", "level": "L1", "statslog": false, "rows": 0 }
  ],
  "datanode": [
    { "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 }
  ],
  "actors": [
    { "name": "flowgraph", "ops": [
      { "op": "insert", "segment": 301, "partition": 1, "rows": 5 },
      { "op": "insert", "segment": 300, "partition": 1, "rows": 10 },
      { "op": "sync", "segment": 300 } ] },
    { "name": "datacoord", "ops": [
      { "op": "wait_for", "actor": "flowgraph", "index": 2 },
      { "op": "sync_segments", "partition": 1 } ] }
  ]
}"#;

#[test]
fn a_cut_renumbers_waits_and_keeps_what_they_wait_for() {
    let (key, cut) = first_cut(PADDED).expect("the padded scenario breaks");
    check_cut("padded", PADDED, &key, &cut);
    let gone: Vec<&str> = cut
        .ops
        .iter()
        .filter(|l| l.cut)
        .map(|l| l.op.as_str())
        .collect();
    assert!(
        gone.contains(&"insert segment=301 partition=1 rows=5"),
        "the unneeded insert is cut: {gone:?}"
    );
    assert!(
        cut.ops.iter().any(|l| !l.cut && l.op == "sync segment=300"),
        "the op a wait_for waits for is never cut"
    );
    assert!(cut
        .ops
        .iter()
        .any(|l| !l.cut && l.op.starts_with("wait_for")));
    assert!(cut.complete);
    assert!(
        cut.text()
            .contains("cut flowgraph op 0: insert segment=301"),
        "{}",
        cut.text()
    );
}

/// A complete cut is 1-minimal: each unit it kept (an op alone, or the ops
/// of one group: a flush's halves, an injection's calls, a segment's ops),
/// other than waits, what they wait for and barriers, removed by this test,
/// leaves a file the checker refuses or whose search within one try's budget
/// does not reach the violation.
#[test]
fn a_complete_cut_cannot_lose_one_more_op() {
    let splice = flush_core::builtin::text("inject-done-splice").unwrap();
    for text in [PADDED, splice] {
        let sc = parse(text);
        let (key, cut) = first_cut(text).unwrap();
        assert!(cut.complete);
        let tree = json::parse(&cut.scenario, "cut").unwrap();
        let mut tried = 0;
        for unit in units(&sc, &tree) {
            let mut t = tree.clone();
            if let Some(Json::Arr(list)) = t.get_mut("actors") {
                for &(a, i) in unit.iter().rev() {
                    if let Some(Json::Arr(o)) = list[a].get_mut("ops") {
                        o.remove(i);
                    }
                }
                list.retain(|a| !ops(a).is_empty());
            }
            t.remove("schedule");
            tried += 1;
            let Ok(sc) = AnyScenario::parse(&json::text(&t), "less") else {
                continue;
            };
            let o = Options {
                target: Some(key.clone()),
                ..Options::first(200, budget().per_try)
            };
            let x = sc.explore_with(&o, &mut |_| true);
            assert!(
                !x.violations.iter().any(|f| f.key == key),
                "{unit:?} could go too: {}",
                json::text(&t)
            );
        }
        assert!(tried >= 1);
    }
}

/// The units of `tree` that may go, each its (actor, op) in order (a test's
/// own reading of `CutGroup`, with no wait_for to renumber in its files).
fn units(sc: &AnyScenario, tree: &Json) -> Vec<Vec<(usize, usize)>> {
    #[allow(clippy::type_complexity)]
    let mut units: Vec<(Option<String>, Vec<(usize, usize)>, bool)> = Vec::new();
    for (a, actor) in actors(tree).iter().enumerate() {
        for (i, op) in ops(actor).iter().enumerate() {
            let held = actors(tree)
                .iter()
                .flat_map(ops)
                .any(|w| name(w, "op") == "wait_for" && target(tree, w) == Some(op));
            let (g, never) = match sc.cut_group(op) {
                CutGroup::Alone => (None, false),
                CutGroup::With(g) => (Some(g), false),
                CutGroup::Never => (None, true),
            };
            let stays = never || held || name(op, "op") == "wait_for";
            match units.iter_mut().find(|u| g.is_some() && u.0 == g) {
                Some(u) => {
                    u.1.push((a, i));
                    u.2 |= stays;
                }
                None => units.push((g, vec![(a, i)], stays)),
            }
        }
    }
    units.into_iter().filter(|u| !u.2).map(|u| u.1).collect()
}

/// An actor with no ops ahead of the others stays where it is, and the ops
/// listed, the file and the count agree (the attack helper's empty-actor.json
/// panicked, and its empty-actor2.json listed the wrong ops as cut).
#[test]
fn an_actor_without_ops_stays_and_the_counts_agree() {
    let text = r#"{"name": "idle", "model": "mutex-handoff", "actors": [
        {"name": "idle", "ops": []},
        {"name": "a", "ops": [{"op": "incr"}]},
        {"name": "b", "ops": [{"op": "incr"}]},
        {"name": "c", "ops": [{"op": "incr"}]}]}"#;
    let (key, cut) = first_cut(text).expect("a lost update");
    check_cut("idle", text, &key, &cut);
    let tree = json::parse(&cut.scenario, "cut").unwrap();
    let names: Vec<String> = actors(&tree).iter().map(|a| name(a, "name")).collect();
    let kept: Vec<&str> = cut
        .ops
        .iter()
        .filter(|l| !l.cut)
        .map(|l| l.actor.as_str())
        .collect();
    assert_eq!(names[0], "idle");
    assert_eq!(names[1..], kept[..], "the file's actors are the ones kept");
    assert_eq!(kept.len(), 2, "a lost update needs two incrementers");
}

/// The cut file runs as explored: at the version and with the knobs set apart
/// (a `--knob` lost from the file made its schedule unrunnable), and a deadlock
/// is cut only while the same goroutines wait at the same points (a cut that
/// swaps the real deadlock for a wait nothing answers is put back).
#[test]
fn the_cut_file_keeps_the_knobs_and_the_same_deadlock() {
    let text = flush_core::builtin::text("follow-up-crash").unwrap();
    let mut sc = parse(text);
    sc.set_version("439fb24b32").unwrap();
    sc.set_knob("load", "every_missing").unwrap();
    let (f, cut) = cut_of(text, &sc).expect("every_missing breaks the fix");
    let smaller = parse(&cut.scenario);
    assert_eq!(smaller.knobs(), sc.knobs(), "the knobs are in the cut file");
    let schedule = smaller.header().schedule.clone().unwrap_or_default();
    assert_eq!(reaches(&smaller, &schedule, &f.key), Some(schedule.len()));

    let text = flush_core::builtin::text("compaction-race").unwrap();
    let mut tree = json::parse(text, "cr").unwrap();
    let on = vec![("handler_locks_sticky".to_owned(), Json::Bool(true))];
    tree.set("what_if", Json::Obj(on));
    let text = json::text(&tree);
    let sc = parse(&text);
    let (f, cut) = cut_of(&text, &sc).expect("the sticky lock deadlocks");
    assert_eq!(f.kind, flush_core::OutcomeKind::Deadlock, "{}", f.message);
    let smaller = parse(&cut.scenario);
    assert_eq!(smaller.knobs(), sc.knobs());
    let end = deadlock_at_end(&smaller);
    assert_eq!(
        explore::deadlock_key(&end),
        explore::deadlock_key(&f.message),
        "the same goroutines wait at the same points"
    );
}

/// The outcome message of `sc`'s embedded schedule, replayed to its end (a
/// deadlock, in these tests).
fn deadlock_at_end(sc: &AnyScenario) -> String {
    let schedule = sc.header().schedule.clone().unwrap_or_default();
    let mut r = sc.run(flush_core::Policy::Scripted {
        script: schedule.clone(),
        fallback_seed: 1,
    });
    r.run_steps(schedule.len() as u32);
    let end = r.outcome().expect("the schedule ends in a deadlock");
    assert_eq!(
        end.kind,
        flush_core::OutcomeKind::Deadlock,
        "{}",
        end.message
    );
    end.message.clone()
}

/// A deadlock's text numbers goroutines, ops and counts, which a cut changes
/// ("waits for a to return from its op #2" becomes "op #1"): the same deadlock
/// still matches, so the op that does not matter goes (a review found it put
/// back); and the embedded schedule reaches that very deadlock.
#[test]
fn a_deadlock_matches_whatever_the_cut_renumbers() {
    let text = r#"{"name": "twice", "model": "mutex-handoff", "actors": [
        {"name": "a", "ops": [{"op": "incr"}, {"op": "lock"}, {"op": "lock"}]},
        {"name": "b", "ops": [{"op": "wait_for", "actor": "a", "index": 2}]}]}"#;
    let sc = parse(text);
    let (f, cut) = cut_of(text, &sc).expect("a locks twice");
    assert_eq!(f.kind, flush_core::OutcomeKind::Deadlock, "{}", f.message);
    let gone: Vec<&str> = cut
        .ops
        .iter()
        .filter(|l| l.cut)
        .map(|l| l.op.as_str())
        .collect();
    assert_eq!(gone, ["incr"], "{}", cut.text());
    assert!(cut.complete);
    check_cut("twice", text, &f.key, &cut);
    let smaller = parse(&cut.scenario);
    let end = deadlock_at_end(&smaller);
    assert_eq!(
        explore::deadlock_key(&end),
        explore::deadlock_key(&f.message)
    );
    assert_ne!(end, f.message, "the text itself was renumbered");
}

/// A try whose queue fills half its memory goes on depth first; what it finds
/// there is shrunk before the cut takes it, so the cut's schedule stays as
/// short as the shortest one here (runner-creation-race under 64 KiB: 16 steps;
/// the raw depth-first path has 19).
#[test]
fn a_try_that_goes_on_depth_first_gives_a_shrunk_schedule() {
    for name in [
        "compaction-race",
        "runner-creation-race",
        "inject-done-splice",
    ] {
        let file = format!("{}/../../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&file).unwrap();
        let sc = parse(&text);
        let o = Options::first(200, 400_000);
        let x = sc.explore_with(&o, &mut |_| true);
        let f = x.violations.first().expect("a violation");
        for bytes in [64 << 10, 128 << 10, 256 << 10] {
            let small = CutBudget { bytes, ..budget() };
            let mut s = explore::OpShrink::new(&text, &sc, f, &o, small).unwrap();
            while !s.run(4096) {}
            let cut = s.finish();
            check_cut(&file, &text, &f.key, &cut);
            assert!(
                cut.steps <= f.steps,
                "{name}, {bytes} bytes: {} steps, shortest {}",
                cut.steps,
                f.steps
            );
        }
    }
}

/// Four flushed segments split between two flow graphs: the first finding
/// is segment 301's, but once its ops go the same invariant breaks on
/// another segment. The cut keeps it (the same invariant) and says how the
/// smaller file breaks it (found by a helper attacking the page: "the 3 left
/// reach it" read as segment 301's); a cut whose file breaks it as found
/// says nothing more.
#[test]
fn a_cut_that_breaks_the_invariant_elsewhere_says_how() {
    let seg = |s: u32| {
        format!(
            r#"{{ "segment": {s}, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 10 }}"#
        )
    };
    let ops = |odd: u32| {
        (300..304)
            .filter(|s| s % 2 == odd)
            .map(|s| {
                format!(r#"{{ "op": "insert", "segment": {s}, "partition": 1, "rows": 10 }}, {{ "op": "sync", "segment": {s} }}"#)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = format!(
        r#"{{ "name": "four", "model": "sync-2024", "version": "ca7ef26e4b",
  "datacoord": [ {{ "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 }}, {} ],
  "datanode": [ {{ "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 }} ],
  "actors": [ {{ "name": "fg1", "ops": [ {} ] }}, {{ "name": "fg2", "ops": [ {} ] }},
    {{ "name": "datacoord", "ops": [ {{ "op": "sync_segments", "partition": 1 }}, {{ "op": "sync_segments", "partition": 1 }} ] }} ] }}"#,
        (300..304).map(seg).collect::<Vec<_>>().join(", "),
        ops(1),
        ops(0)
    );
    let (f, cut) = cut_of(&text, &parse(&text)).expect("a violation");
    assert!(f.message.contains("segment 301"), "{}", f.message);
    check_cut("four", &text, &f.key, &cut);
    let now = cut
        .now
        .as_deref()
        .expect("the smaller file breaks it elsewhere");
    assert!(
        now.starts_with("state-forward-only: segment 30") && !now.contains("301"),
        "{now}"
    );
    assert!(cut
        .text()
        .contains(&format!("the smaller scenario breaks it as: {now}")));
    // #34018 cut: the same panic message, nothing more said.
    let sc = flush_core::builtin::get("segment-not-found").unwrap();
    let (_, cut) = cut_of(flush_core::builtin::text("segment-not-found").unwrap(), &sc).unwrap();
    assert_eq!(cut.now, None);
}
