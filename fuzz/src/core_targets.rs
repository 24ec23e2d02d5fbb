//! The bodies of the `scenario` and `schedule` fuzz targets. Only `flush_core` is
//! named here: crates/flush-core/tests/fuzz_corpus.rs compiles this very file
//! (by `#[path]`) to replay the kept corpus, so the replay runs the fuzzed code.
//!
//! Each body returns `Ok` or `Err(message)`; anything else (a panic, a broken
//! assertion below, a hang) is a finding.

use std::sync::OnceLock;

use flush_core::sched::format_schedule;
use flush_core::{builtin, AnyScenario, Choice, Policy};

/// Inputs are cut to this many bytes.
pub const MAX_INPUT: usize = 64 * 1024;
/// Every run stops after at most this many steps.
pub const MAX_STEPS: u32 = 200;

fn cut(data: &[u8]) -> &[u8] {
    &data[..data.len().min(MAX_INPUT)]
}

fn text(data: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(cut(data)).map_err(|e| format!("not UTF-8: {e}"))
}

/// `scenario`: a scenario file through `AnyScenario::parse` (parser and checker,
/// any model); a checked one then runs, at most [`MAX_STEPS`] steps, seeded and
/// (when it carries a schedule) scripted, as the CLI's `run` does. `Ok`: the
/// steps run.
pub fn scenario(data: &[u8]) -> Result<u32, String> {
    let text = text(data)?;
    let mut sc = match AnyScenario::parse(text, "fuzz.json") {
        Ok(sc) => sc,
        Err(e) => {
            assert!(
                !e.message.trim().is_empty(),
                "a refusal without a message: {e:?}"
            );
            return Err(e.to_string());
        }
    };
    bound(&mut sc);
    let seed = sc.header().seed;
    let mut steps = bounded_run(&sc, Policy::Seeded(seed));
    if let Some(script) = sc.header().schedule.clone() {
        steps += bounded_run(
            &sc,
            Policy::Scripted {
                script,
                fallback_seed: seed,
            },
        );
    }
    Ok(steps)
}

/// `cut` (`cut_ops`): a scenario file, explored for its first violation (small budgets),
/// then its ops cut (`OpShrink`, small budgets). What the cut claims must hold:
/// the ops listed are the file's, the kept count agrees, the smaller file is a
/// scenario the checker takes, and its embedded schedule, replayed strictly,
/// shows the same violation at its last step (for a deadlock: the same
/// goroutines waiting at the same points). `Ok`: the ops kept.
pub fn cut_ops(data: &[u8]) -> Result<u32, String> {
    use flush_core::explore::{self, CutBudget, OpShrink, Options};
    let text = text(data)?;
    let mut sc = AnyScenario::parse(text, "fuzz.json").map_err(|e| e.to_string())?;
    bound(&mut sc);
    let o = Options {
        max_bytes: 16 << 20,
        ..Options::first(40, 2_000)
    };
    let x = sc.explore_with(&o, &mut |_| true);
    let Some(f) = x.violations.first() else {
        return Err("no violation to cut".to_owned());
    };
    let budget = CutBudget {
        per_try: 2_000,
        states: 20_000,
        tries: 30,
        bytes: 16 << 20,
    };
    let mut s = match OpShrink::new(text, &sc, f, &o, budget) {
        Ok(s) => s,
        Err(why) => {
            assert!(!why.trim().is_empty());
            return Err(why);
        }
    };
    let mut slices = 0;
    while !s.run(512) {
        slices += 1;
        assert!(slices < 100_000, "the cut does not end");
    }
    let c = s.finish();
    let tree = flush_core::scenario::json::parse(text, "fuzz.json").expect("it parsed");
    let ops = |t: &flush_core::scenario::json::Json| -> usize {
        t.arr("actors").iter().map(|a| a.arr("ops").len()).sum()
    };
    assert_eq!(c.ops.len(), ops(&tree), "every op of the file is listed");
    assert_eq!(c.kept as usize, c.ops.iter().filter(|l| !l.cut).count());
    let smaller = AnyScenario::parse(&c.scenario, "cut.json")
        .unwrap_or_else(|e| panic!("the cut file is refused: {e}\n{}", c.scenario));
    let small = flush_core::scenario::json::parse(&c.scenario, "cut.json").expect("parsed");
    assert_eq!(ops(&small), c.kept as usize, "the file holds the kept ops");
    let script = smaller
        .header()
        .schedule
        .clone()
        .expect("a schedule is embedded");
    let mut r = smaller.run(Policy::Manual);
    for &ch in &script {
        r.advance_with(ch)
            .unwrap_or_else(|e| panic!("the embedded schedule does not replay: {e}"));
    }
    let shows = match f.kind {
        flush_core::OutcomeKind::Deadlock => r.outcome().is_some_and(|e| {
            explore::deadlock_key(&e.message) == explore::deadlock_key(&f.message)
        }),
        flush_core::OutcomeKind::Panic => r.outcome().is_some_and(|e| e.message == f.message),
        _ => r
            .violation_ids()
            .iter()
            .any(|id| f.key == format!("invariant:{id}")),
    };
    assert!(shows, "the cut file's schedule does not show {}", f.key);
    Ok(c.kept)
}

/// `schedule`: the first byte picks a built-in scenario file, the rest is a
/// schedule (`0,3 5.1 g2`) for `Choice::parse_list`, as `--schedule` and the
/// permalink's `sched=` give it. A parsed schedule must print and parse back to
/// itself; it then drives the built-in scripted (the CLI's `--schedule`) and
/// manually, one choice after another (the page's manual mode), at most
/// [`MAX_STEPS`] steps each. `Ok`: the steps run.
pub fn schedule(data: &[u8]) -> Result<u32, String> {
    let Some((&pick, rest)) = data.split_first() else {
        return Err("empty input: no built-in picked".to_owned());
    };
    let text = text(rest)?;
    let script = match Choice::parse_list(text) {
        Ok(s) => s,
        Err(e) => {
            assert!(!e.trim().is_empty(), "a refusal without a message");
            return Err(e);
        }
    };
    let printed = format_schedule(&script);
    assert_eq!(
        Choice::parse_list(&printed).as_ref(),
        Ok(&script),
        "the schedule {text:?} printed as {printed:?} does not parse back"
    );
    let all = builtins();
    let sc = &all[usize::from(pick) % all.len()];
    let seed = sc.header().seed;
    let mut steps = bounded_run(
        sc,
        Policy::Scripted {
            script: script.clone(),
            fallback_seed: seed,
        },
    );
    let mut manual = sc.run(Policy::Manual);
    for &c in &script {
        match manual.advance_with(c) {
            Ok(_) => {}
            Err(stop) => {
                assert!(!stop.to_string().is_empty());
                break;
            }
        }
        assert!(
            manual.len() <= MAX_STEPS,
            "a manual run past its step limit"
        );
    }
    assert_eq!(manual.schedule().len() as u32, manual.len());
    steps += manual.len();
    manual.goto(0);
    let _ = manual.runnable_here();
    Ok(steps)
}

/// The built-in scenario files, parsed once, with the step limit applied.
fn builtins() -> &'static [AnyScenario] {
    static ALL: OnceLock<Vec<AnyScenario>> = OnceLock::new();
    ALL.get_or_init(|| {
        builtin::FILES
            .iter()
            .map(|(name, _)| {
                let mut sc = builtin::get(name).expect("a built-in scenario");
                bound(&mut sc);
                sc
            })
            .collect()
    })
}

fn bound(sc: &mut AnyScenario) {
    let h = sc.header_mut();
    h.max_steps = h.max_steps.min(MAX_STEPS);
}

/// Runs to the end (the step limit at most), renders the trace as the CLI does
/// (text with logs, JSON), travels back to the middle and forward again.
fn bounded_run(sc: &AnyScenario, policy: Policy) -> u32 {
    let mut r = sc.run(policy);
    r.run_to_end();
    let n = r.len();
    assert!(n <= MAX_STEPS, "{n} steps, past the limit of {MAX_STEPS}");
    assert!(r.outcome().is_some(), "the run stopped without an outcome");
    assert!(!r.outcome_line().is_empty());
    let _ = r.text(true);
    let _ = r.report_json(false);
    r.goto(n / 2);
    let _ = r.runnable_here();
    r.goto(n);
    assert_eq!(r.cursor(), n);
    n
}

/// States each version's conformance search may visit in the `logs` target.
pub const LOGS_MAX_STATES: u64 = 2_000;

/// `logs`: a Milvus log (bytes, invalid UTF-8 replaced as the CLI does) through
/// `flush_core::logs::import` (the parser, the sync-2024 inference and the
/// conformance search under each candidate version) and through
/// `import_against` a flush-2021 built-in (`handoff`), each with a small state
/// budget. An import must explain itself: it reads the log as `parse` does, each
/// matched record is one of the log's, matched at a step of its schedule, and
/// the schedule replays strictly. `Ok`: the records the inference matched.
pub fn logs(data: &[u8]) -> Result<u32, String> {
    use flush_core::logs::{conform::Options, import, import_against, parse};
    let text = String::from_utf8_lossy(cut(data));
    let parsed = parse(&text);
    assert!(parsed.records.len() <= text.lines().count().max(1));
    let o = Options {
        max_states: LOGS_MAX_STATES,
        ..Options::default()
    };
    let flush = builtin::get("handoff").expect("a built-in");
    match import_against(&text, &flush, None, &o) {
        Ok(against) => explains_itself(&against, &parsed),
        Err(e) => assert!(text.trim().is_empty(), "only an empty log is refused: {e}"),
    }
    let i = import(&text, None, &o).map_err(|e| e.to_string())?;
    explains_itself(&i, &parsed);
    Ok(i.conformance.matched.len() as u32)
}

fn explains_itself(i: &flush_core::logs::Import, parsed: &flush_core::logs::Parsed) {
    assert_eq!(&i.log, parsed, "import reads the log as parse does");
    let c = &i.conformance;
    let steps = c.schedule.len() as u32;
    for m in &c.matched {
        assert!(m.record < parsed.records.len() && (1..=steps).contains(&m.step));
        assert_eq!(m.at, parsed.records[m.record].at);
    }
    assert!(c.explained <= c.wanted && c.matched.len() <= c.wanted);
    assert_eq!(c.complete, c.wanted > 0 && c.unexplained.is_none(), "{c:?}");
    assert!(c.wanted > 0 || c.unexplained.is_none());
    let mut run = i.scenario.run(Policy::Scripted {
        script: c.schedule.clone(),
        fallback_seed: 1,
    });
    for &choice in &c.schedule {
        if let Err(e) = run.advance_with(choice) {
            panic!("an import's schedule replays on its scenario: {e:?}");
        }
    }
}
