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
    assert_eq!(cut.field("segmentID"), Some("3"));
    assert_eq!(p.records.len(), 5);
    let odd = parse("[just brackets]\n[INFO]\n[INFO] [has space.go:1]\n");
    assert!(
        odd.records
            .iter()
            .all(|r| matches!(r.kind, Kind::Unmatched { .. })),
        "{odd:?}"
    );
}

#[test]
fn every_log_line_the_models_print_reads_back() {
    let mut seen = 0;
    for (name, _) in flush_core::builtin::FILES {
        let mut sc = flush_core::builtin::get(name).unwrap();
        let versions: Vec<_> = sc.versions().iter().map(|v| v.id).collect();
        for v in versions.iter().map(Some).chain([None]) {
            if let Some(v) = v {
                sc.set_version(v).unwrap();
            }
            let mut run = sc.run(flush_core::Policy::Seeded(sc.header().seed));
            run.run_to_end();
            for l in run.lines() {
                for text in &l.log {
                    let p = parse(text);
                    assert_eq!(p.records.len(), 1, "{text}");
                    match &p.records[0].kind {
                        Kind::Log(r) => {
                            assert!(
                                r.file.ends_with(".go")
                                    && r.line.is_some()
                                    && !r.message.is_empty(),
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
        }
    }
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
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_text_parses_without_a_panic(s in "(\\[|\\]|\"|\\\\|=| |\r|\n|panic: |goroutine |\t|[a-zA-Z0-9:./é]){0,200}") {
        let p = parse(&s);
        prop_assert!(p.records.len() <= p.lines as usize);
    }
}
