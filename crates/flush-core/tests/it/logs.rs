//! Milvus logs read into records (`flush_core::logs`): zap's text format with and
//! without the time, quoted messages and fields, panics with their dumps, cut and
//! foreign lines kept as such; every log line the models print reads back; any
//! input parses without a panic, in bounded records.

use flush_core::logs::{parse, Kind, LogLine, MAX_LOG_BYTES};
use proptest::prelude::*;

fn log(k: &Kind) -> &LogLine {
    match k {
        Kind::Log(l) => l,
        other => panic!("not a log line: {other:?}"),
    }
}

#[test]
fn a_zap_line_reads_into_its_parts() {
    let p = parse(concat!(
        "[2024/06/19 10:09:59.079 +00:00] [INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] ",
        "[channel=by-dev-rootcoord-dml_0_v0] [segments=\"[101,102,300]\"] [note=\"a \\\"quoted\\\" ] word\"]\r\n",
        "\n",
        "[2024/06/19 10:10:00.001 +00:00] [WARN] [syncmgr/task.go:133] [\"failed to sync data, segment not found in metacache\"] [segmentID=300]\n",
    ));
    assert_eq!((p.lines, p.records.len(), p.cut.clone()), (3, 2, None));
    let a = log(&p.records[0].kind);
    assert_eq!(a.time.as_deref(), Some("2024/06/19 10:09:59.079 +00:00"));
    assert_eq!(
        (a.level.as_str(), a.file.as_str(), a.line),
        ("INFO", "datacoord/sync_segments_scheduler.go", Some(145))
    );
    assert_eq!(a.message, "sync segments success");
    assert_eq!(a.field("segments"), Some("[101,102,300]"));
    assert_eq!(
        a.field("note"),
        Some("a \"quoted\" ] word"),
        "a ] inside quotes does not end the field"
    );
    assert!(!a.truncated);
    assert_eq!(p.records[1].at, 3);
    assert_eq!(log(&p.records[1].kind).field("segmentID"), Some("300"));
}

#[test]
fn panics_dumps_cut_and_foreign_lines_are_kept_as_what_they_are() {
    let p = parse(concat!(
        "\u{feff}some other component says hello\n",
        "[2024/06/19 10:10:00.002 +00:00] [ERROR] [conc/options.go:54] [\"Conc pool panicked\"] [panic=\"segment not found[segment=300]\"]\n",
        "panic: segment not found[segment=300] [recovered]\n",
        "\tpanic: segment not found[segment=300]\n",
        "\n",
        "goroutine 1234 [running]:\n",
        "github.com/milvus-io/milvus/internal/datanode/syncmgr.(*SyncTask).Run(0xc0012)\n",
        "\t/go/src/github.com/milvus-io/milvus/internal/datanode/syncmgr/task.go:140 +0x1a5\n",
        "created by github.com/milvus-io/milvus/pkg/util/conc.(*Pool).Submit in goroutine 77\n",
        "[2024/06/19 10:10:00.003 +00:00] [INFO] [a/b.go:1] [\"after\"]\n",
        "[INFO] [a/b.go:2] [\"cut short\"] [segmentID=3",
    ));
    let kinds: Vec<_> = p.records.iter().map(|r| &r.kind).collect();
    assert!(
        matches!(kinds[0], Kind::Unmatched { why, .. } if why.starts_with("not a Milvus log line"))
    );
    assert_eq!(
        log(kinds[1]).field("panic"),
        Some("segment not found[segment=300]")
    );
    assert_eq!(
        kinds[2],
        &Kind::Panic {
            message: "segment not found[segment=300]".into(),
            recovered: true,
            dump_lines: 5
        }
    );
    assert_eq!(
        log(kinds[3]).message,
        "after",
        "the dump ends at the next log line"
    );
    let cut = log(kinds[4]);
    assert!(cut.truncated && cut.time.is_none() && cut.line == Some(2));
    // The line ends inside the field: its ID may be partial, so it is not read.
    assert_eq!(
        (cut.field("segmentID"), cut.message.as_str()),
        (None, "cut short")
    );
    assert_eq!(p.records.len(), 5);
    let odd = parse("[just brackets]\n[INFO]\n[INFO] [has space.go:1]\n");
    assert!(
        odd.records
            .iter()
            .all(|r| matches!(r.kind, Kind::Unmatched { .. })),
        "{odd:?}"
    );
}

/// Runs `f` on every built-in scenario as its file has it, then at each of its
/// model's versions: (name, version, scenario).
fn each_builtin_at_each_version(mut f: impl FnMut(&str, Option<&str>, &flush_core::AnyScenario)) {
    for (name, _) in flush_core::builtin::FILES {
        let mut sc = flush_core::builtin::get(name).unwrap();
        f(name, None, &sc);
        let versions: Vec<_> = sc.versions().iter().map(|v| v.id).collect();
        for v in versions {
            sc.set_version(v).unwrap();
            f(name, Some(v), &sc);
        }
    }
}

#[test]
fn every_log_line_the_models_print_reads_back() {
    let mut seen = 0;
    each_builtin_at_each_version(|_, _, sc| {
        let mut run = sc.run(flush_core::Policy::Seeded(sc.header().seed));
        run.run_to_end();
        for l in run.lines() {
            for text in &l.log {
                let p = parse(text);
                assert_eq!(p.records.len(), 1, "{text}");
                match &p.records[0].kind {
                    Kind::Log(r) => {
                        assert!(
                            r.file.ends_with(".go") && r.line.is_some() && !r.message.is_empty(),
                            "{text}"
                        );
                        assert!(
                            !r.truncated && r.fields.iter().all(|f| !f.0.is_empty()),
                            "{text}"
                        );
                        assert!(
                            text.contains(&format!("[\"{}\"]", r.message))
                                || text.contains(&format!("[{}]", r.message)),
                            "{text}"
                        );
                    }
                    Kind::Panic { message, .. } => assert!(text.contains(message.as_str())),
                    other => panic!("{text}: {other:?}"),
                }
                seen += 1;
            }
        }
    });
    assert!(seen > 100, "only {seen} log lines");
}

#[test]
fn fifty_megabytes_parse_in_proportion_and_more_is_cut_with_a_message() {
    let line = "[2024/06/19 10:09:59.079 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=450880519004577549]\n";
    let big = line.repeat(50_000_000 / line.len());
    let p = parse(&big);
    assert_eq!(p.records.len(), 50_000_000 / line.len());
    assert_eq!(p.cut, None);
    let huge = format!("{}\n", "x".repeat(1000)).repeat(MAX_LOG_BYTES / 1001 + 10);
    let p = parse(&huge);
    assert!(
        p.cut
            .as_deref()
            .unwrap()
            .contains("the first 64 MB were read"),
        "{:?}",
        p.cut
    );
    assert!(p.records.len() <= MAX_LOG_BYTES / 1001 + 1);
    // At the record limit: the lines read are the records' (it said one more,
    // the line it stopped at).
    let many = "x\n".repeat(flush_core::logs::MAX_RECORDS + 5);
    let p = parse(&many);
    assert_eq!(p.records.len(), flush_core::logs::MAX_RECORDS);
    assert_eq!(p.lines as usize, flush_core::logs::MAX_RECORDS);
    assert_eq!(
        p.cut.as_deref(),
        Some("more than 1000000 records; the log was read to line 1000000")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_text_parses_without_a_panic(s in "(\\[|\\]|\"|\\\\|=| |\r|\n|panic: |goroutine |\t|[a-zA-Z0-9:./é]){0,200}") {
        let p = parse(&s);
        prop_assert!(p.records.len() <= p.lines as usize);
    }
}

fn report_log() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/logs/segment-not-found.log"
    ))
    .unwrap()
}

#[test]
fn the_34018_log_infers_its_scenario_and_replays_to_the_same_panic() {
    use flush_core::logs::{conform::Options, import};
    let i = import(&report_log(), None, &Options::default()).unwrap();
    println!("{}\n{:#?}", i.inferred.as_ref().unwrap().json, i.tried);
    // Only the two oldest commits log "DataNode receives SyncSegments" at
    // services.go:284 and "sync segments success" at :145.
    assert_eq!(
        i.inferred.as_ref().unwrap().versions,
        ["ca7ef26e4b", "b5c9a7364b"]
    );
    assert_eq!(i.version, "ca7ef26e4b");
    let c = &i.conformance;
    assert!(c.complete, "{c:#?}");
    assert_eq!(
        c.wanted, 10,
        "every line but SyncPolicy's is one the model prints"
    );
    assert_eq!(c.matched.len(), 10);
    assert_eq!(c.not_modelled.len(), 2);
    assert!(
        c.extra.is_empty(),
        "the replay prints nothing the log lacks: {:?}",
        c.extra
    );
    // The fix keeps the growing segment: it cannot print its removal.
    let fixed = &i.tried[1];
    assert!(!fixed.complete);
    let u = fixed.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 6, "{u:?}");
    assert!(u.line.contains("remove dropped segment"), "{u:?}");
    // The replay ends in the log's panic, for the log's segment.
    let mut run = i.scenario.run(flush_core::Policy::Scripted {
        script: c.schedule.clone(),
        fallback_seed: 1,
    });
    let out = run.run_to_end().unwrap().to_string();
    assert!(
        out.contains("segment not found[segment=451000000000000300]"),
        "{out}"
    );
}

/// Every built-in run under every version and a few seeds prints a log that the
/// conformance search explains in full from the same scenario, with a schedule
/// that prints it again; and every line it prints is one the model says it knows.
/// The Milvus log lines a run printed, a line each.
fn printed_log(run: &flush_core::AnyRun) -> String {
    run.lines()
        .iter()
        .flat_map(|l| l.log.iter())
        .map(|t| format!("{t}\n"))
        .collect()
}

#[test]
fn every_builtin_run_conforms_to_its_own_log() {
    use flush_core::logs::conform::Options;
    let mut checked = 0;
    each_builtin_at_each_version(|name, v, sc| {
        for seed in 1..=3 {
            let mut run = sc.run(flush_core::Policy::Seeded(seed));
            run.run_to_end();
            let text = printed_log(&run);
            if text.is_empty() {
                continue;
            }
            let log = parse(&text);
            let c = sc.conform(&log, &Options::default());
            assert!(c.not_modelled.is_empty(), "{name}: {:?}", c.not_modelled);
            assert!(
                c.complete,
                "{name} {v:?} seed {seed}: {:?}\n{text}",
                c.unexplained
            );
            assert_eq!(c.matched.len(), c.wanted);
            checked += 1;
        }
    });
    assert!(checked >= 20, "only {checked} runs print a log");
}

/// One process's lines out of their order cannot be explained, and the message
/// names the line and the lines before it; the other process's lines, merged at
/// any place, do not matter.
#[test]
fn a_log_out_of_its_process_order_is_not_explained() {
    use flush_core::logs::{conform::Options, import};
    let text = report_log();
    let lines: Vec<&str> = text.lines().collect();
    // The task's warning (line 10) before SyncSegments arrives (line 4).
    let mut moved: Vec<&str> = lines.clone();
    let warn = moved.remove(9);
    moved.insert(3, warn);
    let i = import(&moved.join("\n"), Some("ca7ef26e4b"), &Options::default()).unwrap();
    assert!(!i.conformance.complete);
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 4, "{u:?}");
    assert!(u.line.contains("failed to sync data"), "{u:?}");
    assert!(
        u.why
            .contains("no schedule prints it after the 1 datanode line(s) before it"),
        "{u:?}"
    );
    // The datacoord lines first: still explained.
    let mut dc_first: Vec<&str> = lines[7..9].to_vec();
    dc_first.extend(&lines[..7]);
    dc_first.extend(&lines[9..]);
    let i = import(&dc_first.join("\n"), None, &Options::default()).unwrap();
    assert!(i.conformance.complete, "{:?}", i.conformance.unexplained);
    // A datanode log alone: explained.
    let datanode: Vec<&str> = lines[..7].iter().chain(&lines[9..]).copied().collect();
    let i = import(&datanode.join("\n"), None, &Options::default()).unwrap();
    assert!(i.conformance.complete);
    assert_eq!(i.conformance.wanted, 8);
    // A line the log lacks (filtered out, or lost): the replay prints it, and it
    // is listed at its step.
    let sc = import(&text, None, &Options::default()).unwrap().scenario;
    let mut lost = lines.clone();
    lost.remove(6);
    let c = sc.conform(&parse(&lost.join("\n")), &Options::default());
    assert!(c.complete, "{c:?}");
    let extra: Vec<_> = c.extra.iter().map(|e| (e.step, e.line.as_str())).collect();
    assert_eq!(
        extra,
        [(6, "[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=451000000000000099]")]
    );
}

/// Requests for two partitions, one of them empty: each handler line belongs to
/// the partition of the request being handled, and an empty request (a partition
/// with no segment) is Go behaviour the model replays.
#[test]
fn two_partitions_and_an_empty_request_are_explained() {
    use flush_core::logs::{conform::Options, import};
    let text = concat!(
        "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=1]\n",
        "[INFO] [datanode/services.go:292] [\"sync segments is empty, skip it\"] [partitionID=1]\n",
        "[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=1] [segments=\"[]\"]\n",
        "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=2]\n",
        "[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=50]\n",
        "[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=2] [segments=\"[51]\"]\n",
    );
    let i = import(text, None, &Options::default()).unwrap();
    assert!(
        i.inferred
            .as_ref()
            .unwrap()
            .json
            .contains(r#"{ "segment": 50, "partition": 2, "state": "Flushed""#),
        "{}",
        i.inferred.as_ref().unwrap().json
    );
    assert!(i
        .inferred
        .as_ref()
        .unwrap()
        .json
        .contains(r#"{ "op": "sync_segments", "partition": 1 }"#));
    assert!(i.conformance.complete, "{:?}", i.tried);
    assert_eq!(i.conformance.wanted, 6);
    // The empty request's line names its partition: another partition's does not match.
    let other = text.replace(
        "skip it\\\"] [partitionID=1]",
        "skip it\\\"] [partitionID=2]",
    );
    let other = other.replace("skip it\"] [partitionID=1]", "skip it\"] [partitionID=2]");
    let i = import(&other, None, &Options::default()).unwrap();
    assert!(!i.conformance.complete);
    assert_eq!(i.conformance.unexplained.as_ref().unwrap().at, 2);
}

/// One message, two call sites: task.go:169 (writeMeta finds no segment) is a line
/// the model prints; task.go:150 (a storage write failed) is not, and is listed as
/// not modelled rather than matched to the model's line.
#[test]
fn a_message_at_another_call_site_is_not_modelled() {
    use flush_core::logs::conform::Options;
    let sc = flush_core::builtin::get("sealed-segment-flush").unwrap();
    let line = |n: u32| {
        format!("[WARN] [syncmgr/task.go:{n}] [\"failed to save serialized data into storage\"] [segmentID=300] [error=\"x\"]\n")
    };
    let c = sc.conform(&parse(&line(150)), &Options::default());
    assert_eq!((c.wanted, c.not_modelled.clone()), (0, vec![0]));
    assert!(!c.complete, "nothing to explain is not explained");
    let c = sc.conform(&parse(&line(169)), &Options::default());
    assert_eq!((c.wanted, c.not_modelled.len()), (1, 0));
    // A log without line numbers is read by file and message alone.
    let bare = parse("[WARN] [syncmgr/task.go] [\"failed to save serialized data into storage\"] [segmentID=300]\n");
    assert_eq!(sc.conform(&bare, &Options::default()).wanted, 1);
}

/// A log that goes on after the panic (two incidents in one file): the replay
/// stops at the panic, and the first line after it says so.
#[test]
fn a_log_that_goes_on_after_the_panic_says_the_replay_ended_there() {
    use flush_core::logs::{conform::Options, import};
    let text = report_log();
    let twice = format!("{text}{text}");
    let i = import(&twice, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 24, "{u:?}");
    assert!(
        u.why.contains(
            "ends at step 8 in the Go panic \"segment not found[segment=451000000000000300]\""
        ),
        "{u:?}"
    );
    assert_eq!(i.conformance.explained, 10);
}

/// What an attack on the import found (each was a false verdict, a refusal
/// blamed on FlushScope, or unbounded work), now read right.
#[test]
fn hostile_and_odd_logs_get_true_verdicts() {
    use flush_core::logs::{conform::Options, import, ImportError};
    let o = Options::default();
    let remove =
        "[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=5]\n";
    // A removal alone: the request carried some segment the log does not name,
    // which a stand-in (a new id, said so) plays; explained.
    let i = import(remove, None, &o).unwrap();
    assert!(i.conformance.complete, "{:?}", i.tried);
    let notes = &i.inferred.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("segment 6, not in the log, stands for them")),
        "{notes:?}"
    );
    // The same line under a version that logs it at :301: another version's line.
    let i = import(remove, Some("4cf1a358ba"), &o).unwrap();
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert!(u.why.contains("this version logs it at line 301"), "{u:?}");
    // A line no model prints, at a known message's file: nothing to explain, and
    // not "every one explained".
    let e = import(
        "[WARN] [syncmgr/task.go:999] [\"anything at all\"] [segmentID=5]\n",
        None,
        &o,
    );
    assert!(
        matches!(e, Err(ImportError::Unknown(_))),
        "{:?}",
        e.map(|i| i.tried)
    );
    // Datacoord's SaveBinlogPaths does not find the segment: the datanode syncs a
    // segment datacoord lacks.
    let i = import(
        "[WARN] [datacoord/services.go:489] [\"failed to get segment\"] [segmentID=5]\n",
        None,
        &o,
    )
    .unwrap();
    assert!(i.conformance.complete, "{:?}", i.tried);
    assert_eq!(
        i.inferred.as_ref().unwrap().versions,
        ["ca7ef26e4b", "b5c9a7364b", "c65f41dc60"]
    );
    // A request's list names its partition: datacoord's success for another
    // partition than the one received is another request, whose receive
    // line the log lacks (as it lacks the first one's success), not the
    // first one's (requests were paired by their place in the log).
    let two = concat!(
        "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=2]\n",
        "[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=3] [segments=\"[]\"]\n",
    );
    let i = import(two, None, &o).unwrap();
    let json = &i.inferred.as_ref().unwrap().json;
    assert!(
        json.contains(r#"{ "op": "sync_segments", "partition": 2 },"#)
            && json.contains(r#"{ "op": "sync_segments", "partition": 3 }"#),
        "{json}"
    );
    assert!(i
        .inferred
        .as_ref()
        .unwrap()
        .notes
        .iter()
        .any(|n| n.contains("request 2 for partition 3 (line 2, datacoord's): the log has no \"DataNode receives SyncSegments\" line for it")));
    // 60 synced segments, a tab and a U+202E in a caller: the scenario checks.
    let many: String = (1..=60)
        .map(|s| format!("[INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={s}]\n"))
        .collect();
    assert!(import(&many, None, &o).is_ok());
    let odd = "[INFO] [data\tnode\u{202e}x/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=1]\n".to_owned() + remove;
    assert!(import(&odd, None, &o).is_ok());
    // Ids are numbers: 007 and +7 are 7.
    let seven = "[INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key=+7]\n[INFO] [syncmgr/task.go:184] [\"task done\"] [segmentID=007]\n";
    assert!(import(seven, None, &o).unwrap().conformance.complete);
    // A line of many fields keeps 64 groups and is marked cut.
    let wide = format!("[INFO] [a/b.go:1] [\"m\"]{}\n", " [k=v]".repeat(1000));
    match &parse(&wide).records[0].kind {
        Kind::Log(l) => assert!(l.fields.len() == 61 && l.truncated, "{}", l.fields.len()),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(import("  \n", None, &o), Err(ImportError::Unknown(e)) if e == "the log is empty")
    );
    // Text without one line the reader reads (a scenario file, a JSON-format
    // log) is no log at all; one read line of another component is a log.
    let json_log = "{\"level\":\"INFO\",\"caller\":\"x.go:1\",\"msg\":\"m\"}\nhello\n";
    assert!(
        matches!(import(json_log, None, &o), Err(ImportError::NotALog(e)) if e.starts_with("no log FlushScope reads: none of its 2 lines")),
    );
    let foreign = "[INFO] [proxy/impl.go:10] [\"search\"]\nhello\n";
    assert!(matches!(
        import(foreign, None, &o),
        Err(ImportError::Unknown(_))
    ));
}

/// What a second attack found, now read right: a different error or level is
/// not the model's line; one step's lines keep their order (only a run of one
/// site's lines, Go ranging over a map, may come in any order); another
/// package's file of the same name tells nothing of the version; a step that
/// prints a later line first is named as the reason.
#[test]
fn errors_levels_step_order_and_foreign_files_are_read_right() {
    use flush_core::logs::{conform::Options, import, import_against};
    let o = Options::default();
    let text = report_log();
    let lines: Vec<&str> = text.lines().collect();
    // The task's warning with a storage error instead of "segment not found".
    let storage = "[2024/07/02 08:15:42.118 +00:00] [WARN] [syncmgr/task.go:169] [\"failed to save serialized data into storage\"] [segmentID=451000000000000300] [error=\"failed to put object: connection reset by peer\"]";
    let other_error: Vec<&str> = lines[..9].iter().copied().chain([storage]).collect();
    let i = import(&other_error.join("\n"), Some("ca7ef26e4b"), &o).unwrap();
    assert!(!i.conformance.complete);
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 10);
    assert!(u.why.contains("with another level or error"), "{u:?}");
    // The panic's line before the pool's log line: one step prints them in order.
    let mut panic_first = lines.clone();
    let panic = panic_first.remove(11);
    panic_first.insert(9, panic);
    let i = import(&panic_first.join("\n"), Some("ca7ef26e4b"), &o).unwrap();
    assert!(!i.conformance.complete, "{:?}", i.conformance.matched);
    // querycoord's services.go:490 is not datacoord's: the versions stay open.
    let foreign =
        "[WARN] [querycoordv2/services.go:490] [\"failed to get segment\"] [segmentID=7]\n"
            .to_owned()
            + &text;
    let i = import(&foreign, None, &o).unwrap();
    assert_eq!(
        i.inferred.as_ref().unwrap().versions,
        ["ca7ef26e4b", "b5c9a7364b"]
    );
    assert!(i.conformance.complete);
    assert_eq!(i.conformance.not_modelled.len(), 3);
    // Datacoord's success lines: the step that prints "success to sync segments"
    // prints "sync segments success" too, which this log has after another line.
    let sc = flush_core::builtin::get("sealed-segment-flush").unwrap();
    let dc = concat!(
        "[INFO] [datacoord/session_manager.go:256] [\"success to sync segments\"]\n",
        "[INFO] [datacoord/server.go:1069] [\"flush segment complete\"] [id=400]\n",
        "[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=1] [segments=\"[101,400]\"]\n",
    );
    let i = import_against(dc, &sc, Some("ca7ef26e4b"), &o).unwrap();
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 2);
    assert!(
        u.why.contains(
            "also prints INFO datacoord/sync_segments_scheduler.go \"sync segments success\""
        ),
        "{u:?}"
    );
    assert_eq!(
        i.conformance.matched.len(),
        1,
        "the first line is marked at the step that printed it"
    );
}

/// flush-2021: a pack whose halves failed is logged where Go logs it: getFlushPack's
/// warning (flush_task.go:211@891c202b73) when the runner starts, then
/// flushNotifyFunc's error (flush_manager.go:677) and the panic.
#[test]
fn a_failed_flush_logs_its_error_where_891c202b73_does() {
    let sc = flush_core::builtin::get("go-test-fail-error").unwrap();
    let mut run = sc.run(flush_core::Policy::Seeded(sc.header().seed));
    run.run_to_end();
    let lines: Vec<String> = run.lines().iter().flat_map(|l| l.log.clone()).collect();
    let at = |s: &str| lines.iter().position(|l| l.contains(s));
    let (warn, error) = (at("flush_task.go:211"), at("flush_manager.go:677"));
    assert!(warn.is_some() && warn < error, "{lines:?}");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("panic: execution failed")
    );
}

/// A search's budgets hold: it counts no more states than its budget (the
/// first one included: a budget of 1 said "2 states searched"), and its memory
/// budget counts the states as they grow, not as large as the first (a log of
/// 1,000 sync tasks held 1.6 GB under a 256 MB budget).
#[test]
fn the_search_stays_within_its_budgets() {
    use flush_core::logs::{conform::Options, import};
    for max_states in [1, 2, 7, 50] {
        let o = Options {
            max_states,
            ..Options::default()
        };
        let i = import(&report_log(), Some("ca7ef26e4b"), &o).unwrap();
        let c = &i.conformance;
        assert!(
            c.states <= max_states,
            "{} states under a budget of {max_states}",
            c.states
        );
        if max_states < 7 {
            let why = c.stopped.as_deref().unwrap_or_default();
            assert!(
                !c.complete && why.contains(&format!("budget of {max_states} states")),
                "{why}"
            );
        }
    }
    // A log of 1,000 sync tasks: the states grow as the tasks start. The byte
    // budget counts them at their size as sampled along the way (it counted
    // every state as small as the first, and held 1.6 GB under 256 MB).
    let tasks: Vec<String> = (1000..2000)
        .map(|key| format!("[2024/07/02 08:15:41.913 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={key}]"))
        .collect();
    let o = Options {
        max_bytes: 32 << 20,
        max_states: 100_000_000,
        ..Options::default()
    };
    let i = import(&tasks.join("\n"), None, &o).unwrap();
    let c = &i.conformance;
    let why = c.stopped.as_deref().unwrap_or_default();
    assert!(why.contains("memory budget of about 32 MB"), "{why}");
    println!("{} states under 32 MB", c.states);
    assert!(
        c.states < STATES_IN_32_MB,
        "{} states under 32 MB",
        c.states
    );
}

/// A search cut where the scenario's runs stop does not blame the step limit for
/// a line no run prints however long it goes on: the line's own cause is named.
/// A line some longer run prints is still put down to the limit.
#[test]
fn a_line_no_run_prints_is_not_put_down_to_the_step_limit() {
    use flush_core::logs::{conform::Options, import};
    let text = report_log();
    let sc = import(&text, Some("ca7ef26e4b"), &Options::default())
        .unwrap()
        .scenario;
    let why_asked = |max_steps: u32, log: &str, asked: u32| {
        let mut sc = sc.clone();
        sc.header_mut().max_steps = max_steps;
        let o = Options {
            max_steps: asked,
            ..Options::default()
        };
        let c = sc.conform(&parse(log), &o);
        assert!(!c.complete);
        let u = c.unexplained.unwrap();
        (u.at, u.why)
    };
    let why = |max_steps: u32, log: &str| why_asked(max_steps, log, 400);
    // Cut at 4 steps: line 5 is printed by longer runs.
    let (at, limit) = why(4, &text);
    assert_eq!(at, 4, "{limit}");
    assert!(
        limit.contains("(its \"max_steps\", 4), where its runs stop, and went no further before a schedule printed it"),
        "{limit}"
    );
    // Cut at 6 steps, line 6 as no run prints it: at WARN (the model logs it at
    // INFO), or for a segment no run removes.
    let lines: Vec<&str> = text.lines().collect();
    let with_line_6_asked = |line: String, asked: u32| {
        let mut odd = lines.clone();
        odd[5] = &line;
        why_asked(6, &odd.join("\n"), asked)
    };
    let with_line_6 = |line: String| with_line_6_asked(line, 400);
    let (at, level) = with_line_6(lines[5].replace("[INFO]", "[WARN]"));
    assert_eq!(at, 6, "{level}");
    assert_eq!(
        level,
        "the model prints this line, but with another level or error than the log's"
    );
    let (at, never) = with_line_6(lines[5].replace("451000000000000300", "451000000000000103"));
    assert_eq!(at, 6, "{never}");
    assert!(
        never.starts_with("no schedule of this scenario prints this line, even past its step limit (its \"max_steps\", 6)"),
        "{never}"
    );
    // Asked to look no further than the limit, the same causes, within it.
    let (_, level) = with_line_6_asked(lines[5].replace("[INFO]", "[WARN]"), 6);
    assert_eq!(
        level,
        "the model prints this line, but with another level or error than the log's"
    );
    let (_, never) = with_line_6_asked(
        lines[5].replace("451000000000000300", "451000000000000103"),
        6,
    );
    assert!(
        never.starts_with("no run of this scenario prints this line within its step limit (its \"max_steps\", 6), where its runs stop"),
        "{never}"
    );
    // At the scenario's own limit, a search for the line that is cut there has
    // seen every run: not "no schedule printed this line within ... steps".
    let (_, whole) = why(
        10,
        &text.replace(
            "[INFO] [metacache/meta_cache.go:299]",
            "[WARN] [metacache/meta_cache.go:299]",
        ),
    );
    assert!(!whole.contains("within"), "{whole}");
}

/// A request the datanode found empty ("sync segments is empty, skip it") while
/// datacoord selected segments: they were not sent, so they lack a PK statslog.
/// The inference took them for flushed segments with one, and no version
/// explained the model's own log of it (found by a CLI attack).
#[test]
fn an_empty_request_infers_segments_it_did_not_send() {
    use flush_core::logs::{conform::Options, import};
    let text = "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=1]
[INFO] [datanode/services.go:292] [\"sync segments is empty, skip it\"] [partitionID=1]
[INFO] [datacoord/session_manager.go:256] [\"success to sync segments\"]
[INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=1] [segments=\"[300]\"]
";
    let i = import(text, Some("ca7ef26e4b"), &Options::default()).unwrap();
    assert!(i.conformance.complete, "{:?}", i.conformance.unexplained);
    let json = &i.inferred.as_ref().unwrap().json;
    assert!(
        json.contains(r#""segment": 300"#) && json.contains(r#""statslog": false"#),
        "{json}"
    );
}

/// What the 1,000-task search reaches under 32 MB with its states' bytes sampled
/// is about 2,300 states; counting each state as small as the first, 7,539.
const STATES_IN_32_MB: u64 = 5_000;

/// A record's text escapes every part a log writer controls (the caller and
/// level too, not only the message and fields), and a field longer than a group
/// may hold is marked as cut, not cut silently.
#[test]
fn every_part_of_a_record_is_escaped_and_a_long_field_marked() {
    let line =
        "[2024/07/02 08:00:00.000 +00:00] [INFO] [evil\u{0}\u{1b}[2J\u{202e}.go:1] [\"m\"] [k=v]";
    let p = flush_core::logs::parse(line);
    let text = p.records[0].kind.text();
    assert!(!text.contains(['\u{0}', '\u{1b}', '\u{202e}']), "{text:?}");
    assert!(text.contains("\\u{202e}"), "{text:?}");
    let long = format!(
        "[2024/07/02 08:00:00.000 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=300] [stack=\"{}\"]",
        "x".repeat(100_000)
    );
    let p = flush_core::logs::parse(&long);
    let text = p.records[0].kind.text();
    assert!(
        text.ends_with(" (cut short)"),
        "{}",
        &text[text.len() - 40..]
    );
    assert!(text.len() < 70_000, "{}", text.len());
    // The value cut short is unquoted like a whole one.
    assert!(text.contains(" stack=xxx"), "{}", &text[..200]);
    let quoted = long.replace(&"x".repeat(100_000), &"\\\"".repeat(50_000));
    let text = flush_core::logs::parse(&quoted).records[0].kind.text();
    assert!(
        text.ends_with(" (cut short)") && text.len() < 140_000,
        "{}",
        text.len()
    );
    // Many long groups: a line's record keeps MAX_LINE_CHARS characters in all,
    // and each group its first 256 (each group kept 64 KiB, and 60 of them made
    // a record of 3 MB).
    let wide = format!(
        "[INFO] [a/b.go:1] [\"m\"]{}",
        format!(" [k=\"{}\"]", "y".repeat(60_000)).repeat(60)
    );
    let p = flush_core::logs::parse(&wide);
    let text = p.records[0].kind.text();
    let max = flush_core::logs::MAX_LINE_CHARS;
    let most = max + flush_core::logs::MAX_GROUPS * 256 + 200;
    assert!(text.chars().count() < most, "{}", text.chars().count());
    assert!(text.ends_with(" (cut short)"));
    match &p.records[0].kind {
        Kind::Log(l) => assert!(l.truncated && l.fields[0].1.len() > max / 2),
        other => panic!("{other:?}"),
    }
    // A line within the bounds is not marked.
    let p = flush_core::logs::parse(&long.replace(&"x".repeat(100_000), "short"));
    assert!(!p.records[0].kind.text().contains("cut short"));
}

/// An ID the model cannot read (too large for Go's int64) is named in the
/// inference's notes, not dropped silently; the count of such notes is bounded.
#[test]
fn an_id_out_of_range_is_named_in_the_notes() {
    use flush_core::logs::{conform::Options, import};
    let text = report_log().replacen(
        "segmentID=451000000000000300",
        "segmentID=99999999999999999999999",
        1,
    );
    let i = import(&text, None, &Options::default()).unwrap();
    let notes = &i.inferred.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("segmentID=99999999999999999999999 is not an ID the model reads")),
        "{notes:#?}"
    );
    // A log whose only line the model knows has an ID it cannot read says
    // which line and value (it said the log had no such line).
    let one = "[2024/07/02 08:15:41.902 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key=abc]\n";
    let e = import(one, None, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no line the sync-2024 model knows with IDs it can read (Line 1: key=abc is not an ID the model reads"),
        "{e}"
    );
    let many = (0..50)
        .map(|k| format!("[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=x{k}]\n"))
        .collect::<String>()
        + &report_log();
    let i = import(&many, None, &Options::default()).unwrap();
    let notes = &i.inferred.as_ref().unwrap().notes;
    let told = notes
        .iter()
        .filter(|n| n.contains("not an ID the model reads"))
        .count();
    assert_eq!(told, 3, "{notes:#?}");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("47 more lines have IDs")),
        "{notes:#?}"
    );
    // A list of many bad IDs names five and counts the rest.
    let list = format!(
        "[2024/07/02 08:15:42.100 +00:00] [INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=1] [segments=\"[{}]\"]\n",
        vec!["a"; 5_000].join(",")
    ) + &report_log();
    let i = import(&list, None, &Options::default()).unwrap();
    let notes = &i.inferred.as_ref().unwrap().notes;
    let n = notes
        .iter()
        .find(|n| n.contains("are not IDs"))
        .expect("a note");
    assert!(
        n.contains(
            "segments=a, segments=a, segments=a, segments=a, segments=a and 4995 more are not IDs"
        ),
        "{n}"
    );
    assert!(n.len() < 400, "{}", n.len());
}

/// A log naming more segments than the model holds: the segment standing in
/// for what a request carried is kept beside the first 63 named, the count
/// says the log's 200 (it said 201, and the stand-in took a named one's place),
/// and a line of a segment left out says so (it said the model never takes
/// the path that prints it).
#[test]
fn a_log_of_more_segments_than_the_model_holds_says_which_are_left_out() {
    use flush_core::logs::{conform::Options, import};
    let log: String = (1000..1200)
        .map(|s| format!("[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID={s}]\n"))
        .collect();
    let i = import(&log, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let inferred = i.inferred.as_ref().unwrap();
    assert!(
        inferred.notes.iter().any(|n| n.starts_with(
            "The log names 200 segments; the model holds 64, so the first 63 (by first line) are modelled beside the one standing in for what a request carried, and the lines of the other 137 cannot be explained."
        )),
        "{:#?}",
        inferred.notes
    );
    assert_eq!(inferred.left_out.len(), 137);
    assert_eq!(inferred.left_out[0], 1063);
    assert_eq!(i.conformance.explained, 63);
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 64);
    assert_eq!(
        u.why,
        "segment 1063 is not in the scenario: the log names more segments than the model holds (see the notes)"
    );
    // Sync tasks of 70 segments: the search of those kept reaches its memory
    // budget, and the first line left out still says why (it blamed the
    // budget, which raised explained nothing more; found by a helper).
    let log: String = (1000..1070)
        .map(|s| format!("[2024/07/02 08:15:41.902 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={s}]\n"))
        .collect();
    let i = import(&log, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert!(
        u.why.starts_with("segment 1064 is not in the scenario"),
        "{}: {}",
        u.line,
        u.why
    );
}

/// A long field does not starve the short ones after it (the line-wide cap
/// took a segment ID, and the line read as one the model never prints), and a
/// list cut short drops its partial last ID (a cut ID read as a segment); a
/// line naming a left-out segment in a list says so (found by a review helper).
#[test]
fn a_cut_line_keeps_its_short_fields_and_no_partial_id() {
    use flush_core::logs::{conform::Options, import};
    let junk = "y".repeat(20_000);
    let line = format!("[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [junk=\"{junk}\"] [segmentID=451000000000000300]");
    let p = parse(&line);
    let l = log(&p.records[0].kind);
    assert!(l.truncated);
    assert_eq!(l.field("segmentID"), Some("451000000000000300"));
    let ids: Vec<String> = (0..2000)
        .map(|i| format!("{}", 451000000000010000u64 + i))
        .collect();
    let line = format!("[2024/07/02 08:15:42.100 +00:00] [INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=1] [segments=\"[{}]\"]", ids.join(","));
    let p = parse(&line);
    let list = log(&p.records[0].kind).field("segments").unwrap();
    assert!(
        list.starts_with("[451000000000010000,") && list.ends_with(']'),
        "{}",
        &list[list.len() - 40..]
    );
    assert!(
        list.trim_matches(['[', ']'])
            .split(',')
            .all(|id| id.len() == 18),
        "a partial ID kept: {}",
        &list[list.len() - 40..]
    );
    // 70 segments in a list: those left out are named as such.
    let mut text = report_log();
    let extra: Vec<String> = (0..70)
        .map(|i| format!("{}", 451000000000010000u64 + i))
        .collect();
    text = text.replacen(
        "451000000000000102]",
        &format!("451000000000000102,{}]", extra.join(",")),
        1,
    );
    let i = import(&text, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let u = i.conformance.unexplained.as_ref().expect("unexplained");
    assert!(
        u.why
            .contains("is not in the scenario: the log names more segments than the model holds"),
        "{}: {}",
        u.line,
        u.why
    );
}

/// 70 requests, each removing one segment of its own partition and naming none
/// it carried: each needs a stand-in, so the named segments kept are those
/// whose stand-in fits beside them (the stand-ins took all 64 places, and none
/// of the log's segments was modelled), and a stand-in is never counted among
/// the log's segments left out (found by a review helper).
#[test]
fn stand_ins_share_the_cap_with_the_segments_they_stand_beside() {
    use flush_core::logs::{conform::Options, import};
    let log: String = (0..70)
        .map(|i| format!("[2024/07/02 08:15:42.010 +00:00] [INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID={}]\n[2024/07/02 08:15:42.032 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID={}]\n", i + 1, 5000 + i))
        .collect();
    let i = import(&log, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let inferred = i.inferred.as_ref().unwrap();
    assert!(
        inferred.notes.iter().any(|n| n.starts_with("The log names 70 segments; the model holds 64, so the first 32 (by first line) are modelled beside the 32 standing in for what requests carried, and the lines of the other 38 cannot be explained.")),
        "{:#?}",
        inferred.notes
    );
    assert_eq!(inferred.left_out, (5032..5070).collect::<Vec<i64>>());
}

/// A log the model printed is explained by the scenario inferred from it: every
/// sync-2024 built-in with a schedule, replayed scripted at each version, prints
/// lines whose inferred scenario (for that version) replays them all.
///
/// But two: sealed-segment-flush at b5c9a7364b and c65f41dc60 prints only a
/// sync, a request and the segment's removal, the same lines as #34018's log;
/// that the segment was sealed (which those versions need to remove it) is in
/// no line the model prints, and inferring it from the version alone would
/// explain #34018's own log under its fix too. They stay unexplained.
#[test]
fn every_scripted_builtin_log_is_explained_by_its_inferred_scenario() {
    use flush_core::logs::{conform::Options, import};
    const UNTOLD: [(&str, &str); 2] = [
        ("sealed-segment-flush", "b5c9a7364b"),
        ("sealed-segment-flush", "c65f41dc60"),
    ];
    let mut failed = Vec::new();
    let mut checked = 0;
    for (name, _) in flush_core::builtin::FILES {
        let mut sc = flush_core::builtin::get(name).unwrap();
        let (model, seed) = (sc.header().model, sc.header().seed);
        let Some(script) = sc.header().schedule.clone() else {
            continue;
        };
        if model != "sync-2024" {
            continue;
        }
        let versions: Vec<_> = sc.versions().iter().map(|v| v.id).collect();
        for v in versions {
            sc.set_version(v).unwrap();
            let mut run = sc.run(flush_core::Policy::Scripted {
                script: script.clone(),
                fallback_seed: seed,
            });
            run.run_to_end();
            let text = printed_log(&run);
            let i = import(&text, Some(v), &Options::default()).unwrap();
            checked += 1;
            if i.conformance.complete == UNTOLD.contains(&(*name, v)) {
                let notes = i.inferred.map(|i| i.notes).unwrap_or_default();
                failed.push(format!(
                    "{name} at {v}: complete {}: {:?}\n{text}{notes:#?}",
                    i.conformance.complete, i.conformance.unexplained
                ));
            }
        }
    }
    assert!(checked >= 30, "only {checked} scripted runs");
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Three inference rules read no more than their lines show (found by a
/// review helper): a nil-pointer panic of another pool after the request was
/// answered is no statslog load; a failed merged-stats serialization fails a
/// flush of its own (the syncs submitted before it stay plain); datacoord's
/// "flush segment complete" for a segment the log never shows synced may be
/// its start-up recovery, and is no flush of the log's.
#[test]
fn inference_rules_read_no_more_than_their_lines_show() {
    use flush_core::logs::{conform::Options, import};
    let req = "[2024/07/02 08:15:42.010 +00:00] [INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=2]\n";
    let ok = "[2024/07/02 08:15:42.092 +00:00] [INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=2] [segments=\"[101]\"]\n";
    let submit = "[2024/07/02 08:16:41.913 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key=300]\n";
    let nil = "[2024/07/02 08:16:42.119 +00:00] [ERROR] [conc/options.go:54] [\"Conc pool panicked\"] [panic=\"runtime error: invalid memory address or nil pointer dereference\"]";
    let notes = |log: &str| {
        import(log, None, &Options::default())
            .unwrap()
            .inferred
            .unwrap()
            .notes
    };
    let stats_pool = |n: &Vec<String>| n.iter().any(|n| n.contains("the stats pool panicked"));
    // While the request is handled: the statslog load.
    assert!(stats_pool(&notes(&format!("{req}{nil}\n"))));
    // After it was answered, or with another pool's stack: not.
    assert!(!stats_pool(&notes(&format!("{req}{ok}{submit}{nil}\n"))));
    let task = format!("{nil} [stack=\"syncmgr.(*SyncTask).Run task.go:140\"]\n");
    assert!(!stats_pool(&notes(&format!("{req}{submit}{task}"))));

    let merged = format!("{submit}{submit}[2024/07/02 08:16:43.913 +00:00] [WARN] [syncmgr/storage_serializer.go:115] [\"failed to serialize merged stats log\"] [segmentID=300] [error=\"stats empty\"]\n");
    let file = import(&merged, None, &Options::default())
        .unwrap()
        .inferred
        .unwrap()
        .json;
    let ops: Vec<&str> = file
        .lines()
        .filter(|l| l.contains("\"op\""))
        .map(str::trim)
        .collect();
    assert_eq!(
        ops[1..],
        [
            r#"{ "op": "sync", "segment": 300 },"#,
            r#"{ "op": "sync", "segment": 300 },"#,
            r#"{ "op": "seal", "segment": 300 },"#,
            r#"{ "op": "sync", "segment": 300, "flush": true } ] }"#,
        ],
        "{file}"
    );

    let complete = "[2024/07/02 08:16:45.000 +00:00] [INFO] [datacoord/server.go:1069] [\"flush segment complete\"] [id=300]\n";
    let flushed = |log: &str| {
        import(log, None, &Options::default())
            .unwrap()
            .inferred
            .unwrap()
            .json
            .contains("\"flush\": true")
    };
    assert!(flushed(&format!("{submit}{complete}")));
    assert!(!flushed(&format!("{req}{complete}")));
}

/// Against a scenario given (`logs --against`), a line of a segment the
/// scenario never names is blamed on that, not on the budget the search
/// reached: no schedule prints it, however far it goes (found by a helper
/// attacking the CLI: sync-scaled-12x8 blamed the memory budget). A line of
/// a segment the scenario has keeps the search's own reason.
#[test]
fn against_a_scenario_a_line_of_a_segment_it_lacks_names_the_segment() {
    use flush_core::logs::{conform::Options, import_against};
    let o = Options {
        max_states: 200,
        ..Options::default()
    };
    let sc = flush_core::builtin::get("sync-scaled-3x2").unwrap();
    assert!(!sc.segments().unwrap().contains(&451000000000000300));
    let i = import_against(&report_log(), &sc, Some("ca7ef26e4b"), &o).unwrap();
    let u = i.conformance.unexplained.as_ref().unwrap();
    assert!(
        u.why
            .starts_with("segment 451000000000000300 is not in the scenario"),
        "{u:?}"
    );
    // The budget's note says raising it would not help.
    let stopped = i.conformance.stopped.as_deref().unwrap_or_default();
    assert!(
        stopped
            .ends_with("raising it would not explain line 3, whose segment is not in the scenario"),
        "{stopped}"
    );
    // The same scenario's own segment: the search's reason stays.
    let own = *sc.segments().unwrap().iter().next().unwrap();
    let line = format!(
        "[2024/07/02 08:15:41.913 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key={own}]\n"
    );
    let i = import_against(&line, &sc, Some("ca7ef26e4b"), &o).unwrap();
    if let Some(u) = &i.conformance.unexplained {
        assert!(!u.why.contains("is not in the scenario"), "{u:?}");
    }
}

/// The log excerpt of the #34018 report itself (its lines 13-34, unchanged)
/// starts inside one SyncSegments request, whose receive line it lacks, and
/// its panicking segment is in neither logged list; after the panic, the next
/// request's handler goes on logging. Requests were paired by their place in
/// the log and the panic was the datanode's last line: 0 of its 11 lines
/// matched at any version (found by a helper). Now ca7ef26e4b explains every
/// line, and the fix cannot print the panic.
#[test]
fn the_real_34018_excerpt_is_explained_at_the_buggy_commit_only() {
    use flush_core::logs::{conform::Options, import};
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/logs/issue-34018-excerpt.log"
    ))
    .unwrap();
    let i = import(&text, None, &Options::default()).unwrap();
    let inferred = i.inferred.as_ref().unwrap();
    assert_eq!(inferred.versions, ["ca7ef26e4b", "b5c9a7364b"]);
    let c = &i.conformance;
    assert_eq!(i.version, "ca7ef26e4b");
    assert!(c.complete, "{c:#?}\n{}", inferred.json);
    assert_eq!((c.wanted, c.matched.len()), (11, 11));
    // Line 2 (the first request's RPC success) is matched with that request's
    // scheduler line, not with a request the log does not show.
    let step_of = |at: u32| c.matched.iter().find(|m| m.at == at).unwrap().step;
    assert_eq!(step_of(2), step_of(3));
    assert_eq!(step_of(20), step_of(21));
    let fixed = &i.tried[1];
    assert!(!fixed.complete);
    let u = fixed.unexplained.as_ref().unwrap();
    assert!(
        u.line
            .starts_with("panic: segment not found[segment=450570799632187110]"),
        "{u:?}"
    );
}

/// One step may print a line per segment (UpdateSegmentView removing 5,000),
/// in any order (Go ranges over a map): the log's lines, reversed, are all
/// matched to that step. Matching such a run looked each line up in the rest
/// of it (a helper's `logs --against` of 100,000 segments ran past a minute);
/// it now takes the log's lines in turn from the run's keys.
#[test]
fn a_step_of_thousands_of_lines_matches_them_in_any_order() {
    use flush_core::logs::conform::Options;
    let n = 5_000;
    let dn: Vec<String> = (0..n)
        .map(|i| format!(r#"{{ "segment": {}, "partition": 1, "state": "Flushed", "level": "L1", "rows": 10 }}"#, 1000 + i))
        .collect();
    let text = format!(
        r#"{{ "name": "many", "model": "sync-2024", "version": "ca7ef26e4b", "seed": 1,
          "datacoord": [ {{ "segment": 7, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 10 }} ],
          "datanode": [ {{ "segment": 7, "partition": 1, "state": "Flushed", "level": "L1", "rows": 10 }}, {} ],
          "actors": [ {{ "name": "datacoord", "ops": [ {{ "op": "sync_segments", "partition": 1 }} ] }} ] }}"#,
        dn.join(",")
    );
    let sc = flush_core::AnyScenario::parse(&text, "many.json").unwrap();
    let mut run = sc.run(flush_core::Policy::Seeded(1));
    run.run_to_end();
    let printed = printed_log(&run);
    let mut lines: Vec<&str> = printed.lines().collect();
    let removals: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("remove dropped segment"))
        .collect();
    assert_eq!(removals.len(), n);
    lines[removals[0]..=removals[n - 1]].reverse();
    let c = sc.conform(&parse(&lines.join("\n")), &Options::default());
    assert!(c.complete, "{:?}", c.unexplained);
    assert_eq!(c.matched.len(), c.wanted);
    assert!(c.wanted > n);
}

/// A log that ends inside a line (how a log is usually cut) reads that line's
/// list as a list cut short: its partial last ID dropped, its quote closed.
/// The first ID was lost and the partial `4505` read as a segment (a helper's
/// finding).
#[test]
fn a_log_that_ends_inside_a_list_loses_only_its_partial_id() {
    let text = "[2024/06/19 10:09:59.079 +00:00] [INFO] [datacoord/sync_segments_scheduler.go:145] [\"sync segments success\"] [partitionID=7] [segments=\"[450570799631185937,450570799631185738,4505";
    let p = parse(text);
    let l = log(&p.records[0].kind);
    assert!(l.truncated);
    assert_eq!(
        l.field("segments"),
        Some("[450570799631185937,450570799631185738]")
    );
    // A field the line ends inside that is no list is dropped: its ID may be
    // partial. The message before it stays.
    let p =
        parse("[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=45057");
    let l = log(&p.records[0].kind);
    assert_eq!(
        (l.field("segmentID"), l.message.as_str()),
        (None, "remove dropped segment")
    );
}

/// The sync task's lines: their `level` field (SyncTask.getLogger,
/// syncmgr/task.go:95-103@ca7ef26e4b; datacoord's SaveBinlogPaths logger too,
/// services.go:451-456) makes up no SyncSegments request (it did: "The
/// metacache changed with no request line", a review helper's F4), and the
/// "SaveBinlogPath" line's partition, `ParitionID` (sic,
/// syncmgr/meta_writer.go:72-75 at all six versions), is read (it fell back
/// to partition 1; F8).
#[test]
fn a_sync_tasks_lines_make_no_request_and_give_their_partition() {
    use flush_core::logs::{conform::Options, import};
    let submit = "[2024/06/19 10:09:59.079 +00:00] [INFO] [syncmgr/sync_manager.go:129] [\"sync mgr sumbit task with key\"] [key=300]\n";
    let save = "[2024/06/19 10:09:59.079 +00:00] [INFO] [syncmgr/meta_writer.go:72] [\"SaveBinlogPath\"] [SegmentID=300] [CollectionID=5] [ParitionID=77] [startPos=\"[]\"] [checkPoints=\"[]\"] [binlogNum=1] [statslogNum=1] [deltalogNum=0] [vChannelName=ch]\n";
    let done = "[2024/06/19 10:09:59.079 +00:00] [INFO] [syncmgr/task.go:184] [\"task done\"] [collectionID=5] [partitionID=77] [segmentID=300] [channel=ch] [level=L1] [flushedSize=100]\n";
    let i = import(&format!("{submit}{save}{done}"), None, &Options::default()).unwrap();
    let inferred = i.inferred.as_ref().unwrap();
    assert!(
        !inferred.json.contains("sync_segments"),
        "{}",
        inferred.json
    );
    assert!(
        !inferred.notes.iter().any(|n| n.contains("no request line")),
        "{:#?}",
        inferred.notes
    );
    assert!(i.conformance.complete);
    // Only the SaveBinlogPath line names the partition.
    let i = import(&format!("{submit}{save}"), None, &Options::default()).unwrap();
    let json = &i.inferred.as_ref().unwrap().json;
    assert!(
        json.contains(r#"{ "segment": 300, "partition": 77, "state": "Growing""#),
        "{json}"
    );
    assert!(
        json.contains(r#"{ "op": "insert", "segment": 300, "partition": 77"#),
        "{json}"
    );
    // An unreadable ParitionID is named like any other ID.
    let bad = save.replace("ParitionID=77", "ParitionID=7x");
    let notes = import(&format!("{submit}{bad}"), None, &Options::default())
        .unwrap()
        .inferred
        .unwrap()
        .notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("ParitionID=7x is not an ID")),
        "{notes:#?}"
    );
}

/// The handler's lines that only 2e434e4453 and later print
/// (datanode/services.go:317,319,322@2e434e4453) narrow the version; with a
/// line only older versions print, the log fits no single version, and the
/// notes say so (it inferred ca7ef26e4b..c65f41dc60, none of which prints
/// "segment loading PKs"; F7).
#[test]
fn lines_only_2e434e4453_prints_narrow_the_version() {
    use flush_core::logs::{conform::Options, import};
    let recv =
        "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=1]\n";
    let pks = "[INFO] [datanode/services.go:322] [\"segment loading PKs\"] [segmentID=103]\n";
    let add = "[INFO] [metacache/meta_cache.go:289] [\"metacache does not have segment, add it\"] [segmentID=103]\n";
    let l0 = "[WARN] [datanode/services.go:317] [\"segment level is L0, may be the channel has not been successfully watched yet\"] [segmentID=104]\n";
    let legacy = "[WARN] [datanode/services.go:319] [\"segment level is legacy, please check\"] [segmentID=105]\n";
    for line in [pks, l0, legacy] {
        let i = import(&format!("{line}{add}"), None, &Options::default()).unwrap();
        let inferred = i.inferred.unwrap();
        assert_eq!(inferred.versions, ["2e434e4453", "439fb24b32"], "{line}");
        assert!(
            inferred.notes.iter().any(|n| n.starts_with(
                "Version: 2e434e4453 or 439fb24b32 (from line 1: datanode/services.go:"
            )),
            "{:#?}",
            inferred.notes
        );
    }
    let i = import(&format!("{recv}{pks}{add}"), None, &Options::default()).unwrap();
    let inferred = i.inferred.unwrap();
    assert_eq!(inferred.versions.len(), 6);
    assert!(
        inferred.notes.iter().any(|n| n.starts_with(
            "The log's lines fit no single version: line 2 (datanode/services.go:322 \"segment loading PKs\") is logged there only by 2e434e4453 or 439fb24b32, and the lines before it only by ca7ef26e4b or b5c9a7364b or c65f41dc60 (line 1: datanode/services.go:284)."
        )),
        "{:#?}",
        inferred.notes
    );
    // At another version's line number it is no modelled version's.
    let other = format!("{}{add}", pks.replace(":322", ":321"));
    let i = import(&other, None, &Options::default()).unwrap();
    let notes = i.inferred.unwrap().notes;
    assert!(
        notes.iter().any(|n| n.starts_with(
            "Line 1 logs \"segment loading PKs\" at datanode/services.go:321, where no modelled version logs it (they log it at :322)"
        )),
        "{notes:#?}"
    );
}

/// Past the record limit the log is not read on, and an error that says the
/// log has no line FlushScope reads says where reading stopped, why, and how
/// to read the rest (it said "none of its 1000000 lines" and nothing of the
/// limit, though the real log began after it; F5).
#[test]
fn a_log_read_to_the_record_limit_says_where_reading_stopped() {
    use flush_core::logs::{conform::Options, import, MAX_RECORDS};
    let text = "x\n".repeat(MAX_RECORDS + 5) + &report_log();
    let e = import(&text, None, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("no log FlushScope reads: none of the 1000000 lines read is a Go panic"),
        "{e}"
    );
    assert!(
        e.ends_with(". Reading stopped before the end of the log: more than 1000000 records; the log was read to line 1000000; to read the rest, give FlushScope the log from line 1000001 on (for example `tail -n +1000001 FILE`), or only its Milvus lines"),
        "{e}"
    );
    // A log read whole says nothing of it.
    let e = import("x\ny\n", None, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("none of its 2 lines is") && !e.contains("stopped"),
        "{e}"
    );
}

/// A line the model knows whose segment field comes after the groups the
/// reader keeps (64) is named, with the cut (the log "had no line the model
/// knows"; F6); so is one the log ends inside.
#[test]
fn a_known_line_cut_before_its_segment_is_named() {
    use flush_core::logs::{conform::Options, import};
    let line = format!(
        "[2024/06/19 10:09:59.079 +00:00] [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] {}[segmentID=6]\n",
        "[k=v] ".repeat(1000)
    );
    let e = import(&line, None, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Line 1 (metacache/meta_cache.go:299 \"remove dropped segment\"), a line the model knows, is cut short after its first 64 bracketed groups (FlushScope reads no more of a line), before any field naming its segment or partition"),
        "{e}"
    );
    let e = import(
        "[INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=45057",
        None,
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("is cut short where the log ends inside it"),
        "{e}"
    );
    // A known line without IDs (session_manager.go:256) is not named for it.
    let e = import(
        "[INFO] [datacoord/session_manager.go:256] [\"success to sync segments\"] [nodeID=1",
        None,
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains("cut short"), "{e}");
}

/// A stand-in segment's ID is one no line names: past i64::MAX it took
/// `max - 1_000_000` unchecked, the segment line 3 removes, and replaced it
/// (F9).
#[test]
fn a_stand_in_takes_an_id_no_line_names() {
    use flush_core::logs::{conform::Options, import};
    let log = "[INFO] [datanode/services.go:284] [\"DataNode receives SyncSegments\"] [partitionID=1]\n\
        [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=9223372036854775807]\n\
        [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=9223372036853775807]\n";
    let i = import(log, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let notes = &i.inferred.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("segment 9223372036854775806, not in the log, stands for them")),
        "{notes:#?}"
    );
    assert!(i.conformance.complete, "{:?}", i.conformance.unexplained);
}

/// The report's log as `docker compose logs` prints it (`NAME  | `), as a
/// kubelet CRI log file holds it (`TIME stderr F `, a long line split in
/// partial `P` records with the other stream's records between them), and
/// with spaces before a line: read as the plain log, each record at its
/// line (the first part's) of the file given, and replayed as far (they were
/// refused as "no log FlushScope reads"; F12).
#[test]
fn container_log_prefixes_are_taken_whole() {
    use flush_core::logs::{conform::Options, import};
    let plain = report_log();
    let compose: String = plain
        .lines()
        .map(|l| format!("milvus-standalone  | {l}\n"))
        .collect();
    let time = "2024-07-02T08:15:41.902123456Z";
    // Line 4 split in three parts, a stdout record between the first two.
    let mut cri = String::new();
    let mut at = Vec::new();
    for (n, l) in plain.lines().enumerate() {
        at.push(cri.lines().count() as u32 + 1);
        match n {
            3 => {
                let (a, rest) = l.split_at(40);
                let (b, c) = rest.split_at(60);
                cri += &format!("{time} stderr P {a}\n{time} stdout F\n{time} stderr P:x {b}\n{time} stderr F {c}\n");
            }
            _ => cri += &format!("{time} stderr F {l}\n"),
        }
    }
    let spaced: String = plain
        .lines()
        .map(|l| match l.starts_with('[') {
            true => format!("  {l}\n"),
            false => format!("{l}\n"),
        })
        .collect();
    let timestamped: String = plain.lines().map(|l| format!("{time} {l}\n")).collect();
    let want = import(&plain, None, &Options::default()).unwrap();
    let kinds =
        |p: &flush_core::logs::Parsed| p.records.iter().map(|r| r.kind.clone()).collect::<Vec<_>>();
    for (name, text, lines) in [
        ("compose", &compose, None),
        ("cri", &cri, Some(&at)),
        ("spaces", &spaced, None),
        ("docker logs -t", &timestamped, None),
    ] {
        let got = import(text, None, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(kinds(&got.log), kinds(&want.log), "{name}");
        let ats: Vec<u32> = got.log.records.iter().map(|r| r.at).collect();
        let want_at: Vec<u32> = match lines {
            Some(at) => want
                .log
                .records
                .iter()
                .map(|r| at[r.at as usize - 1])
                .collect(),
            None => want.log.records.iter().map(|r| r.at).collect(),
        };
        assert_eq!(ats, want_at, "{name}: the file's own line numbers");
        assert_eq!(
            got.conformance.complete, want.conformance.complete,
            "{name}"
        );
        assert_eq!(got.version, want.version, "{name}");
    }
    // A partial record the log ends inside is read as far as it goes.
    let cut = format!("{time} stdout P [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] \n{time} stdout P [segmentID=7");
    let p = parse(&cut);
    assert_eq!(p.records.len(), 1);
    let l = log(&p.records[0].kind);
    assert!(l.truncated && l.fields.is_empty(), "{l:?}");
    // No prefix but a whole one: text before a log line is still no log.
    for junk in [
        "note: [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=7]\n",
        "milvus| [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=7]\n",
        "2024-07-02 08:15:41 stderr F [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=7]\n",
        "2024-07-02T08:15:41Z stdin F [INFO] [metacache/meta_cache.go:299] [\"remove dropped segment\"] [segmentID=7]\n",
    ] {
        let e = import(junk, None, &Options::default()).err().map(|e| e.to_string());
        assert!(
            e.as_deref().is_some_and(|e| e.starts_with("no log FlushScope reads: its one line is not a Go panic or a line of zap's text format")),
            "{junk}: {e:?}"
        );
    }
}

/// An ID that is no number makes the line unexplained, and the verdict says
/// which field, value and line (it said "the model never takes the path that
/// logs it").
#[test]
fn an_unreadable_id_is_named_as_the_cause() {
    use flush_core::logs::{conform::Options, import, import_against};
    let text = report_log().replace(
        "[partitionID=451000000000000002] [channel",
        "[partitionID=99999999999999999999999] [channel",
    );
    let i = import(&text, Some("ca7ef26e4b"), &Options::default()).unwrap();
    let u = i.conformance.unexplained.as_ref().expect("unexplained");
    assert_eq!(u.at, 4);
    assert!(
        u.why.starts_with(
            "line 4's partitionID=99999999999999999999999 is not an ID FlushScope reads"
        ),
        "{u:?}"
    );
    let sc = import(&report_log(), Some("ca7ef26e4b"), &Options::default())
        .unwrap()
        .scenario;
    let text = report_log().replace("[segmentID=451000000000000103]", "[segmentID=1_03]");
    let i = import_against(&text, &sc, None, &Options::default()).unwrap();
    let u = i.tried[0].unexplained.as_ref().expect("unexplained");
    assert!(
        u.why.starts_with("line 5's segmentID=1_03 is not an ID"),
        "{u:?}"
    );
}

/// A line at a number no modelled version logs it at (`meta_cache.go:0`) is
/// named and says nothing of the version: the other lines still narrow it
/// (it made every version tried).
#[test]
fn a_line_at_no_versions_number_keeps_what_the_others_tell() {
    use flush_core::logs::{conform::Options, import};
    let text = report_log().replacen("meta_cache.go:299", "meta_cache.go:0", 1);
    let i = import(&text, None, &Options::default()).unwrap();
    let inferred = i.inferred.as_ref().unwrap();
    assert_eq!(
        inferred.versions,
        ["ca7ef26e4b", "b5c9a7364b"],
        "{:#?}",
        inferred.notes
    );
    assert!(
        inferred.notes.iter().any(|n| n.starts_with(
            "Line 6 logs \"remove dropped segment\" at metacache/meta_cache.go:0, where no modelled version logs it (they log it at :299 or :301): it says nothing of the version"
        )),
        "{:#?}",
        inferred.notes
    );
    // Many such lines: three named, the rest counted.
    let many: String = (0..10)
        .map(|_| "[INFO] [metacache/meta_cache.go:1] [\"remove dropped segment\"] [segmentID=451000000000000099]\n")
        .collect::<String>()
        + &report_log();
    let i = import(&many, None, &Options::default()).unwrap();
    let inferred = i.inferred.unwrap();
    assert_eq!(inferred.versions, ["ca7ef26e4b", "b5c9a7364b"]);
    let n = inferred
        .notes
        .iter()
        .find(|n| n.starts_with("Line 1 logs"))
        .unwrap();
    assert!(
        n.contains("; line 3 logs") && n.contains("; and 7 more lines: each says nothing"),
        "{n}"
    );
}

/// Goroutine-dump lines after a zap line that another goroutine wrote inside
/// the dump stay the panic's (the real #34018 log: they were listed one by
/// one as no log line).
#[test]
fn a_dump_goes_on_past_a_log_line_inside_it() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/logs/issue-34018-excerpt.log"
    ))
    .unwrap();
    let p = parse(&text);
    assert!(
        p.records
            .iter()
            .all(|r| !matches!(r.kind, Kind::Unmatched { .. })),
        "{:#?}",
        p.records
    );
    let dump = p.records.iter().find_map(|r| match r.kind {
        Kind::Panic { dump_lines, .. } => Some(dump_lines),
        _ => None,
    });
    assert_eq!(dump, Some(7));
    // A line that is neither ends the dump.
    let p = parse("panic: x\n\ngoroutine 1 [running]:\n[INFO] [a/b.go:1] [\"m\"]\nhello\nf(0x1)\n");
    let kinds: Vec<_> = p.records.iter().map(|r| &r.kind).collect();
    assert!(
        matches!(kinds[0], Kind::Panic { dump_lines: 1, .. }),
        "{kinds:?}"
    );
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

/// flush-2021: a compaction whose first segment the Replica lacks logs "compact
/// wrong" with getCollectionAndPartitionID's error (compactor.go:305,
/// segment_replica.go:223 at 891c202b73); `logs --against` the scenario of
/// such a compaction explains a real line of it, whose planID (the model
/// knows none) is no part of what is compared, but not one naming another
/// segment, nor one of compact's other "compact wrong" lines (:289, allocID's).
#[test]
fn a_compaction_that_cannot_start_explains_its_compact_wrong_line() {
    use crate::flush2021::{compaction_of_2_and_3, COMPACTION_REPLICA_LACKS_2};
    use flush_core::logs::{conform::Options, import_against};
    let sc = crate::common::parse(&compaction_of_2_and_3(COMPACTION_REPLICA_LACKS_2));
    let o = Options::default();
    let line = |segment: i64| {
        format!("[2021/11/02 10:00:00.000 +00:00] [ERROR] [datanode/compactor.go:305] [\"compact wrong\"] [planID=437] [error=\"cannot find segment, id = {segment}\"]\n")
    };
    let i = import_against(&line(2), &sc, None, &o).unwrap();
    let c = &i.conformance;
    assert!(c.complete && c.not_modelled.is_empty(), "{c:?}");
    assert_eq!((c.wanted, c.matched.len()), (1, 1), "{c:?}");
    let i = import_against(&line(3), &sc, None, &o).unwrap();
    let c = &i.conformance;
    assert!(!c.complete && c.matched.is_empty(), "{c:?}");
    let u = c.unexplained.as_ref().unwrap();
    assert_eq!(u.at, 1);
    assert!(u.why.contains("with another level or error"), "{u:?}");
    // allocID's failure (compactor.go:289) is a path the model never takes.
    let alloc =
        "[ERROR] [datanode/compactor.go:289] [\"compact wrong\"] [error=\"alloc failed\"]\n";
    let i = import_against(alloc, &sc, None, &o).unwrap();
    assert_eq!(i.conformance.not_modelled, [0], "{:?}", i.conformance);
}

/// sync-2024 at ca7ef26e4b: datacoord holds segment 500 Sealed with a PK
/// statslog; the flow graph's insert looks it up before SyncSegments adds it
/// Sealed, then adds it Growing, and the stale Sealed entry that leaves makes
/// its sealed-segment policy flush it. The log (a flush of an added segment:
/// "flush segment complete", or a failed merged-stats serialization after a
/// re-seal) is explained by the scenario inferred from it, which holds 500
/// Sealed in datacoord, not Flushed (found by an attack).
#[test]
fn an_added_segment_flushed_through_its_stale_sealed_entry_is_explained() {
    use flush_core::logs::{conform::Options, import};
    let scenario = |fg: &str, requests: usize| {
        let sync_segments = vec![r#"{ "op": "sync_segments", "partition": 1 }"#; requests];
        format!(
            r#"{{ "name": "stale-sealed", "model": "sync-2024", "version": "ca7ef26e4b", "seed": 1,
  "datacoord": [
    {{ "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "statslog": true, "rows": 1000 }},
    {{ "segment": 500, "partition": 1, "state": "Sealed", "level": "L1", "statslog": true, "rows": 50 }} ],
  "datanode": [ {{ "segment": 101, "partition": 1, "state": "Flushed", "level": "L1", "rows": 1000 }} ],
  "actors": [
    {{ "name": "flowgraph", "ops": [ {fg} ] }},
    {{ "name": "datacoord", "ops": [ {} ] }} ] }}"#,
            sync_segments.join(", ")
        )
    };
    let insert = r#"{ "op": "insert", "segment": 500, "partition": 1, "rows": 10 }"#;
    let twice = scenario(
        &format!(r#"{insert}, {insert}, {{ "op": "sync", "segment": 500 }}"#),
        2,
    );
    let reseal = scenario(
        &format!(
            r#"{insert}, {{ "op": "seal", "segment": 500 }}, {{ "op": "sync", "segment": 500, "flush": true }}"#
        ),
        1,
    );
    let mut checked = 0;
    for (name, file) in [("twice", &twice), ("reseal", &reseal)] {
        let sc = crate::common::parse(file);
        for seed in [1, 5] {
            let mut run = sc.run(flush_core::Policy::Seeded(seed));
            run.run_to_end();
            let text = printed_log(&run);
            if !text.contains("metacache does not have segment, add it") {
                continue;
            }
            let i = import(&text, None, &Options::default()).unwrap();
            let notes = i.inferred.as_ref().map(|i| i.notes.clone());
            assert!(
                i.conformance.complete,
                "{name} seed {seed}: {:?}\n{text}{notes:#?}",
                i.conformance.unexplained
            );
            let json = i.inferred.map(|i| i.json).unwrap_or_default();
            assert!(
                json.contains(r#""segment": 500, "partition": 1, "state": "Sealed""#),
                "{json}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

/// A log of a `"retried"` tick (its first attempt times out: datacoord's
/// "failed to sync segments", session_manager.go:246@ca7ef26e4b, and two
/// handlers' "DataNode receives SyncSegments", the first maybe after the op's
/// success) infers one retried op, not two ticks, and is explained in full at
/// its version: each seed's run, and the schedule where the late handler
/// removes the new growing segment and its sync task panics (#34018's panic
/// through the retry).
#[test]
fn a_retried_ticks_log_infers_a_retried_op() {
    use flush_core::logs::{conform::Options, import};
    let sc = flush_core::AnyScenario::parse(crate::common::RETRIED, "retried.json").unwrap();
    let mut policies: Vec<_> = (1..=6).map(flush_core::Policy::Seeded).collect();
    policies.push(flush_core::Policy::Scripted {
        script: flush_core::sched::Choice::parse_list("0,0,3,0,1,1,1,2,4").unwrap(),
        fallback_seed: 1,
    });
    let mut late = 0;
    for policy in policies {
        let mut run = sc.run(policy.clone());
        run.run_to_end();
        let text = printed_log(&run);
        assert!(text.contains("session_manager.go:246"), "{text}");
        let i = import(&text, Some("ca7ef26e4b"), &Options::default()).unwrap();
        let inferred = i.inferred.as_ref().unwrap();
        assert!(
            i.conformance.complete,
            "{policy:?}: {:?}\n{text}{:#?}",
            i.conformance.unexplained, inferred.notes
        );
        let ticks = inferred.json.matches(r#""op": "sync_segments""#).count();
        assert_eq!(ticks, 1, "{}", inferred.json);
        assert!(
            inferred.json.contains(r#""retried": true"#),
            "{}",
            inferred.json
        );
        assert!(
            inferred
                .notes
                .iter()
                .any(|n| n.starts_with("Its first attempt failed (line ")),
            "{:#?}",
            inferred.notes
        );
        let success = text.find("success to sync segments").unwrap();
        late += usize::from(text[success..].contains("DataNode receives SyncSegments"));
        if text.contains("panic: segment not found") {
            assert!(i.conformance.complete);
            late += 100;
        }
    }
    assert!(
        late > 100,
        "the panic, and a handler after the op's success: {late}"
    );
}
