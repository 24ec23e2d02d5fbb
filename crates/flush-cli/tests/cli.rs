//! The `flushscope` binary against DESIGN.md's CLI contract: golden traces (the
//! same files the core test checks), the JSON keys, exit codes, and bad input.

use std::process::{Command, Output};

fn flushscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flushscope"))
        .args(args)
        .output()
        .expect("run flushscope")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn scenario_path(name: &str) -> String {
    format!("{}/../../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn golden_traces_match_the_core() {
    for entry in
        std::fs::read_dir(format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR"))).unwrap()
    {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut args = vec!["run", path.to_str().unwrap(), "--logs"];
        if text.contains("\"schedule\"") {
            args.push("--scripted");
        }
        let o = flushscope(&args);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        insta::with_settings!({
            snapshot_path => "../../../tests/golden",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name.as_str(), stdout(&o));
        });
    }
}

#[test]
fn json_report_has_the_contract_keys() {
    let o = flushscope(&["run", &scenario_path("handoff"), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in [
        "scenario",
        "model",
        "seed",
        "steps",
        "outcome",
        "notified",
        "drop_packs",
        "trace",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["scenario"], "handoff");
    assert_eq!(v["model"], "flush-2021");
    assert_eq!(v["outcome"]["kind"], "completed");
    assert!(v["drop_packs"].is_null());
    let notified = v["notified"].as_array().unwrap();
    assert_eq!(notified.len(), 2);
    assert_eq!(notified[0]["segment"], 4);
    for k in ["segment", "pos", "flushed", "dropped", "err"] {
        assert!(notified[0].get(k).is_some(), "pack lacks {k}");
    }
    let step = &v["trace"][0];
    for k in ["step", "goroutine", "go", "event"] {
        assert!(step.get(k).is_some(), "trace step lacks {k}");
    }
    assert_eq!(
        v["steps"].as_u64().unwrap() as usize,
        v["trace"].as_array().unwrap().len()
    );

    let o = flushscope(&["run", &scenario_path("drop-mode"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let packs = v["drop_packs"].as_array().unwrap();
    assert_eq!(packs.len(), 4);
    assert!(
        packs.iter().any(|p| p["pos"].is_null()),
        "drop-mode delete packs have pos null"
    );
}

#[test]
fn sync_json_has_metacache_and_logs_and_version_override() {
    let o = flushscope(&["run", "builtin:segment-not-found", "--scripted", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"]["kind"], "panic");
    assert_eq!(v["outcome"]["message"], "segment not found[segment=300]");
    assert!(v["outcome"]["goroutine"]
        .as_str()
        .unwrap()
        .contains("sync task"));
    let mc = v["metacache"].as_array().unwrap();
    assert!(mc.iter().all(|s| s["segment"] != 300), "300 was removed");
    for k in ["segment", "partition", "state", "level", "rows"] {
        assert!(mc[0].get(k).is_some());
    }
    let logs: Vec<String> = v["trace"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["log"].as_array().cloned().unwrap_or_default())
        .map(|l| l.as_str().unwrap().to_owned())
        .collect();
    assert!(logs
        .iter()
        .any(|l| l.contains("\"remove dropped segment\"] [segmentID=300]")));
    let o = flushscope(&[
        "run",
        "builtin:segment-not-found",
        "--scripted",
        "--json",
        "--version",
        "b5c9a7364b",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], "b5c9a7364b");
    assert_eq!(v["outcome"]["kind"], "completed");
}

#[test]
fn seed_and_schedule_flags() {
    let a = stdout(&flushscope(&[
        "run",
        "builtin:ordered-flush",
        "--seed",
        "5",
    ]));
    let b = stdout(&flushscope(&[
        "run",
        "builtin:ordered-flush",
        "--seed",
        "5",
    ]));
    let c = stdout(&flushscope(&[
        "run",
        "builtin:ordered-flush",
        "--seed",
        "6",
    ]));
    assert_eq!(a, b);
    assert_ne!(a, c);
    let o = flushscope(&[
        "run",
        "builtin:segment-not-found",
        "--schedule",
        "0,0,0,1,3,3,2",
    ]);
    assert!(stdout(&o)
        .contains("outcome: panic in g2 sync task #1 seg=300: segment not found[segment=300]"));
}

#[test]
fn explore_exit_codes() {
    // By default the search stops at the first state showing a violation.
    let o = flushscope(&["explore", "builtin:segment-not-found", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped"], "first_violation");
    assert_eq!(v["order"], "bfs");
    assert_eq!(v["violations"].as_array().unwrap().len(), 1);
    let first = v["states"].as_u64().unwrap();
    // --all goes on, depth first, to every distinct violation.
    let o = flushscope(&["explore", "builtin:segment-not-found", "--all", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped"], "exhausted");
    assert_eq!(v["order"], "dfs");
    assert!(v["states"].as_u64().unwrap() > first);
    assert!(v["violations"].as_array().unwrap().len() >= 2);
    let found = &v["violations"][0];
    for k in ["kind", "message", "schedule", "steps"] {
        assert!(found.get(k).is_some());
    }
    // The schedule it prints replays the violation.
    let sched = v["violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "panic")
        .unwrap()["schedule"]
        .as_str()
        .unwrap()
        .to_owned();
    let o = flushscope(&["run", "builtin:segment-not-found", "--schedule", &sched]);
    assert!(stdout(&o).contains("outcome: panic"), "{}", stdout(&o));
    let o = flushscope(&["explore", "builtin:segment-not-found-fixed"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("violations: none"));
    assert!(stdout(&o).contains("stopped: every reachable state was visited"));
}

/// A budget reached stops the search with what it covered, which budget stopped
/// it and how to raise it; zero and malformed budgets are refused.
#[test]
fn explore_budgets() {
    let o = flushscope(&["explore", "builtin:pairs-1000", "--max-memory", "8M"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "the memory budget (8 MiB) was reached: the search is incomplete; raise --max-memory"
        ),
        "{out}"
    );
    assert!(out.contains("violations: none found so far"), "{out}");
    let o = flushscope(&[
        "explore",
        "builtin:pairs-1000",
        "--max-states",
        "500",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped"], "max_states");
    assert_eq!(v["states"], 500);
    assert_eq!(v["truncated"], true);
    let o = flushscope(&["explore", "builtin:ordered-flush", "--max-steps", "4"]);
    assert!(
        stdout(&o).contains("cut at --max-steps 4; raise it"),
        "{}",
        stdout(&o)
    );
    for (args, says) in [
        (
            &["--max-states", "0"][..],
            "--max-states must be at least 1",
        ),
        (&["--max-steps", "0"][..], "--max-steps must be at least 1"),
        (
            &["--max-memory", "0"][..],
            "--max-memory must be at least 1M",
        ),
        (
            &["--max-memory", "12Q"][..],
            "the unit must be K, M, G or T",
        ),
        (&["--max-memory", "lots"][..], "is not a size such as 512M"),
        (&["--max-memory", "99999999999T"][..], "is too large"),
        (&["--order", "random"][..], "random"),
        (&["--max-states", "5000000000"][..], "needs --order dfs"),
    ] {
        let mut a = vec!["explore", "builtin:handoff"];
        a.extend_from_slice(args);
        let o = flushscope(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let dir = std::env::temp_dir().join(format!("flushscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["run".into(), dir.join("nope.json").to_str().unwrap().into()],
            "nope.json: no such file",
        ),
        (
            vec![
                "run".into(),
                write("syntax.json", "{\n\"name\": \"x\",,\n}"),
            ],
            "syntax.json:2:13: key must be a string",
        ),
        (
            vec![
                "run".into(),
                write(
                    "unknown.json",
                    r#"{"name":"x","model":"flush-2021","actors":[{"name":"a","ops":[{"op":"wait_injected","id":"c"}]}]}"#,
                ),
            ],
            "actors[0].ops[0].id: unknown injection \"c\"",
        ),
        (
            vec!["run".into(), "builtin:nope".into()],
            "no built-in scenario \"nope\"",
        ),
        (
            vec![
                "run".into(),
                "builtin:handoff".into(),
                "--version".into(),
                "ca7ef26e4b".into(),
            ],
            "--version: flush-2021 is fixed at 891c202b73 and has no other version",
        ),
        (
            vec![
                "run".into(),
                "builtin:segment-not-found".into(),
                "--version".into(),
                "zzzzzzz".into(),
            ],
            "unknown version \"zzzzzzz\"",
        ),
        (
            vec![
                "run".into(),
                "builtin:handoff".into(),
                "--schedule".into(),
                "1,x".into(),
            ],
            "--schedule: \"x\" is not a schedule entry",
        ),
        (
            vec!["run".into(), "builtin:handoff".into(), "--scripted".into()],
            "no \"schedule\"",
        ),
        (
            vec!["run".into(), dir.to_str().unwrap().into()],
            "is a directory",
        ),
        (
            vec!["run".into(), write("binary.json", "\u{0}\u{1}")],
            "binary.json:1:1",
        ),
    ];
    for (args, want) in cases {
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o = flushscope(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
    // A 50 MB file is refused by size, before it is read.
    let big = dir.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(50 * 1000 * 1000).unwrap();
    let o = flushscope(&["run", big.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the file is 50.0 MB; scenario files are limited to 8 MB"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_documents_run() {
    let o = flushscope(&["--help"]);
    let s = stdout(&o);
    assert!(
        s.contains("run") && s.contains("explore") && s.contains("Exit codes"),
        "{s}"
    );
    let o = flushscope(&["run", "--help"]);
    let s = stdout(&o);
    for flag in ["--seed", "--version", "--json", "--schedule", "--scripted"] {
        assert!(s.contains(flag), "{flag}");
    }
}

/// The toy third model (crates/flush-core/src/models/mutex) runs through the same
/// CLI with no change outside its folder and the registry: run, JSON, explore.
#[test]
fn the_toy_model_runs_through_the_same_cli() {
    let toy = |f: &str| format!("{}/../../tests/toy/{f}.json", env!("CARGO_MANIFEST_DIR"));
    let o = flushscope(&["run", &toy("mutex-lost-update"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["model"], "mutex-handoff");
    assert_eq!(v["outcome"]["kind"], "invariant");
    assert_eq!(v["counter"], 11);
    assert_eq!(v["expected"], 12);
    assert_eq!(v["trace"][0]["go"], "toy.go: incr");

    let o = flushscope(&["explore", &toy("mutex-lost-update")]);
    assert_eq!(o.status.code(), Some(1), "a violation found: exit 1");
    let out = stdout(&o);
    assert!(out.contains("invariant: lost-update"), "{out}");
    assert!(out.contains("shortest schedule, 4 steps"), "{out}");

    let o = flushscope(&["explore", &toy("mutex-locked")]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("violations: none"));
    let o = flushscope(&["run", &toy("mutex-locked"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["outcome"]["kind"].as_str(), v["counter"].as_i64()),
        (Some("completed"), Some(2))
    );
}
