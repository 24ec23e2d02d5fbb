//! Bad scenario files: each is refused with the place (file:line:column and JSON
//! path) and the problem, never a Rust panic.

use flush_core::AnyScenario;

fn err(text: &str) -> String {
    match AnyScenario::parse(text, "bad.json") {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

const OK_FLUSH: &str = r#"{"name":"x","model":"flush-2021","actors":[{"name":"a","ops":[{"op":"flush_insert","segment":1,"pos":"p"}]}]}"#;

#[test]
fn a_good_file_parses() {
    let Ok(AnyScenario::Flush(sc)) = AnyScenario::parse(OK_FLUSH, "ok.json") else {
        panic!("a flush-2021 scenario")
    };
    assert_eq!(sc.positions, vec!["p".to_owned()]);
}

#[test]
fn syntax_errors_name_line_and_column() {
    let e = err("{\n  \"name\": \"x\",\n  \"model\": \"flush-2021\"\n  \"actors\": []\n}");
    assert!(e.starts_with("bad.json:4:3: "), "{e}");
    assert!(e.contains("expected `,` or `}`"), "{e}");
    // Lines end at "\n", "\r\n" or a lone "\r" (old Mac files), for a syntax
    // error and for a checker's refusal alike.
    for end in ["\n", "\r\n", "\r"] {
        let text = "{\n  \"name\": \"x\",\n  \"model\": \"flush-2021\"\n  \"actors\": []\n}";
        let e = err(&text.replace('\n', end));
        assert!(e.starts_with("bad.json:4:3: "), "{end:?}: {e}");
        let text = OK_FLUSH
            .replace(r#""segment":1"#, r#""segment":"one""#)
            .replace(",", &format!(",{end}"));
        let e = err(&text);
        assert!(
            e.starts_with("bad.json:5:11: actors[0].ops[0].segment"),
            "{end:?}: {e}"
        );
    }
    let e = err(" \n");
    assert_eq!(
        e,
        "bad.json: the file is empty; a scenario is a JSON object"
    );
    let e = err("[1,2");
    assert!(e.contains("bad.json:1:"), "{e}");
    // A file that is not JSON (YAML) is told so in plain words, at its first
    // word, as a bare word (`hello`) is; so is a misspelt null or true.
    for (text, at) in [
        ("name: x\n", "1:1"),
        ("hello", "1:1"),
        ("{\"seed\": nul}", "1:10"),
        ("[\n  tru,\n]", "2:3"),
    ] {
        assert_eq!(
            err(text),
            format!("bad.json:{at}: expected a JSON value here (an object, array, string, number, true, false or null)"),
            "{text:?}"
        );
    }
    // A number too large for serde_json is refused before any path exists:
    // the key before it is named.
    let e = err(&OK_FLUSH.replace(r#""model""#, r#""seed":1e400,"model""#));
    assert!(e.starts_with("bad.json:1:"), "{e}");
    assert!(e.contains("seed: a number too large to read"), "{e}");
    // Deeper, its whole path, through arrays, escapes and brackets in strings.
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":1e400"#));
    assert!(
        e.contains(":1:98: actors[0].ops[0].segment: a number too large to read"),
        "{e}"
    );
    // A key written with escapes is named as it reads.
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""se\u0067ment":1e400"#));
    assert!(
        e.contains("actors[0].ops[0].segment: a number too large"),
        "{e}"
    );
    let two = OK_FLUSH.replace(
        r#"{"name":"a","#,
        r#"{"name":"b\"],{","ops":[]},{"name":"a","#,
    );
    let e = err(&two.replace(r#""segment":1"#, "\"segment\":\n  -2e999"));
    assert!(
        e.contains(":2:8: actors[1].ops[0].segment: a number too large to read"),
        "{e}"
    );
}

/// A bad `\u` escape is named for what is wrong with it: a lone half of a
/// UTF-16 pair (either half), or too few hex digits, at its place.
#[test]
fn bad_unicode_escapes_say_what_is_wrong() {
    let named =
        |name: &str| err(&OK_FLUSH.replace(r#""name":"x""#, &format!(r#""name":"{name}""#)));
    let first_half =
        "a \\u escape of the first half of a UTF-16 pair (\\uD800-\\uDBFF) with no second half";
    for (name, says) in [
        (r"a\ud800x", first_half),
        (r"a\ud800\n", first_half),
        (
            r"a\udc00x",
            "a \\u escape of half a UTF-16 pair (a lone surrogate)",
        ),
        (
            r"a\ud800\u0041",
            "a \\u escape of half a UTF-16 pair (a lone surrogate)",
        ),
        (r"a\u00", "a \\u without four hex digits"),
        (r"a\u00zz", "a \\u without four hex digits"),
        (r"a\q", "a backslash escape JSON does not have"),
    ] {
        let e = named(name);
        assert!(e.starts_with("bad.json:1:"), "{name}: {e}");
        assert!(e.contains(says), "{name}: {e}");
    }
    // A whole pair is a character.
    assert!(AnyScenario::parse(
        &OK_FLUSH.replace(r#""name":"x""#, r#""name":"\ud83d\ude00""#),
        "ok.json"
    )
    .is_ok());
}

#[test]
fn wrong_types_unknown_ops_and_fields() {
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":"one""#));
    assert_eq!(
        e,
        "bad.json:1:94: actors[0].ops[0].segment: expected a whole number (a segment id), found the string \"one\""
    );
    // Digits in quotes: a number quoted, or one more than a whole number holds
    // (what the page's editor keeps when such digits are typed in a number field).
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":"-12""#));
    assert!(
        e.ends_with(r#"found the string "-12" (a number in quotes: write it without them)"#),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":"007""#));
    assert!(e.ends_with(r#"found the string "007""#), "{e}");
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":"99999999999999999999""#));
    assert!(
        e.ends_with(r#"found the string "99999999999999999999" (digits, but more than a whole number holds)"#),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace("flush_insert", "flush"));
    assert!(
        e.contains("actors[0].ops[0].op: unknown op \"flush\"; flush-2021 ops are flush_insert, flush_delete,"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""pos":"p""#, r#""pos":"p","segmnt":2"#));
    assert!(
        e.contains("actors[0].ops[0].segmnt: field \"segmnt\" does not apply to op flush_insert (its fields: segment, pos, flushed, dropped, fail)"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace("flush-2021", "flush-2022"));
    assert!(
        e.contains("model: unknown model \"flush-2022\"; expected one of flush-2021, sync-2024"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""name":"x","#, r#""name":"x","nmae":"y","#));
    assert!(
        e.contains(
            "nmae: unknown field \"nmae\" in a flush-2021 scenario; its fields are name, title,"
        ),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""name":"x","#, r#""name":"x","datacoord":[],"#));
    assert!(
        e.contains(
            "datacoord: \"datacoord\" belongs to sync-2024 scenarios; this one is flush-2021"
        ),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""name":"x","#, r#""name":"x","version":"ca7ef26e4b","#));
    assert!(e.contains("flush-2021 is fixed at 891c202b73"), "{e}");
}

#[test]
fn semantic_errors_name_the_path() {
    let text = "{\"name\":\"x\",\"model\":\"flush-2021\",\n\"injections\":{\"c1\":{\"segments\":[2]}},\n\"actors\":[{\"name\":\"a\",\"ops\":[\n  {\"op\":\"wait_injected\",\"id\":\"c9\"}]}]}";
    let e = err(text);
    assert_eq!(
        e,
        "bad.json:4:30: actors[0].ops[0].id: unknown injection \"c9\"; declared injections: c1"
    );
    let e = err(&OK_FLUSH.replace(r#""pos":"p""#, r#""pos":"p","fail":11"#));
    assert!(
        e.contains("actors[0].ops[0].fail: fail is 11, but retry.Do makes only 10 attempts"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#""pos":"p""#, r#""pos":"p","id":"c1""#));
    assert!(
        e.contains("field \"id\" does not apply to op flush_insert"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(r#","pos":"p""#, ""));
    assert!(
        e.contains("actors[0].ops[0]: op flush_insert needs \"pos\""),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(
        r#"{"op":"flush_insert","segment":1,"pos":"p"}"#,
        r#"{"op":"wait_notified","count":4000000000}"#,
    ));
    assert!(
        e.contains("count: 4000000000 is out of range: expected a whole number from 1 to 1000000 (packs notified)"),
        "{e}"
    );
    let e = err(&OK_FLUSH.replace(
        r#"{"op":"flush_insert","segment":1,"pos":"p"}"#,
        r#"{"op":"wait_notified","count":2}"#,
    ));
    assert!(e.contains("can never be reached"), "{e}");
    let e = err(&OK_FLUSH.replace(
        r#"{"op":"flush_insert","segment":1,"pos":"p"}"#,
        r#"{"op":"insert","segment":1,"partition":1,"rows":1}"#,
    ));
    assert!(
        e.contains("op insert belongs to sync-2024 scenarios; flush-2021 ops are"),
        "{e}"
    );
    let e = err(r#"{"name":"x","model":"flush-2021","actors":[]}"#);
    assert!(e.contains("at least one actor"), "{e}");
    let e = err(
        r#"{"name":"x","model":"flush-2021","injections":{"c":{"segments":[1,1]}},"actors":[{"name":"a","ops":[]}]}"#,
    );
    assert!(
        e.contains("injections.c.segments[1]: injection \"c\" lists segment 1 twice"),
        "{e}"
    );
    let e = err(
        r#"{"name":"x","model":"flush-2021","actors":[{"name":"a","ops":[{"op":"start_dropping"},{"op":"start_dropping"}]}]}"#,
    );
    assert!(
        e.contains("actors[0].ops[1]: start_dropping is already called at actors[0].ops[0]"),
        "{e}"
    );
    let e = err(
        r#"{"name":"x","model":"flush-2021","injections":{"c":{"segments":[1]}},"actors":[{"name":"a","ops":[{"op":"inject","id":"c"}]},{"name":"b","ops":[{"op":"inject","id":"c"}]}]}"#,
    );
    assert!(
        e.contains("actors[1].ops[0]: injection \"c\" is already injected at actors[0].ops[0]"),
        "{e}"
    );
    let e = err(
        r#"{"name":"x","model":"flush-2021","faults":{"save_binlog_paths":-1},"actors":[{"name":"a","ops":[]}]}"#,
    );
    assert!(
        e.contains(
            "faults.save_binlog_paths: -1 is out of range: expected a whole number from 0 to 1000"
        ),
        "{e}"
    );
}

const SYNC: &str = r#"{"name":"s","model":"sync-2024","version":"ca7ef26e4b",
"datacoord":[{"segment":1,"partition":1,"state":"Growing","level":"L1","statslog":false}],
"datanode":[{"segment":1,"partition":1,"state":"Growing","level":"L1"}],
"actors":[{"name":"fg","ops":[{"op":"insert","segment":1,"partition":1,"rows":5}]}]}"#;

#[test]
fn sync_setup_errors() {
    assert!(AnyScenario::parse(SYNC, "ok.json").is_ok());
    let e = err(&SYNC.replace("ca7ef26e4b", "deadbeef00"));
    assert!(e.contains("version: unknown version \"deadbeef00\"; the sync-2024 model knows ca7ef26e4b, b5c9a7364b, c65f41dc60, 4cf1a358ba"), "{e}");
    let e = err(&SYNC.replace(r#""version":"ca7ef26e4b","#, ""));
    assert!(e.contains("names its Milvus \"version\""), "{e}");
    let e = err(&SYNC.replace(
        r#"{"segment":1,"partition":1,"state":"Growing","level":"L1"}"#,
        r#"{"segment":1,"partition":2,"state":"Growing","level":"L1"}"#,
    ));
    assert!(e.contains("bad.json:3:"), "{e}");
    assert!(e.contains("datanode[0].partition: segment 1 is in partition 2 here but in partition 1 at datacoord[0]"), "{e}");
    let e = err(&SYNC.replace(
        r#""segment":1,"partition":1,"rows":5"#,
        r#""segment":9,"partition":1,"rows":5"#,
    ));
    assert!(e.contains("segment 9 is not in datacoord's view"), "{e}");
    let e = err(&SYNC.replace(r#""rows":5"#, r#""rows":-5"#));
    assert!(
        e.contains("an insert carries 1 to 10^9 rows, not -5"),
        "{e}"
    );
    // A partition no segment is in is a new partition: its request is empty
    // (services.go:291@ca7ef26e4b), not an error.
    let empty = SYNC.replace(
        r#"{"op":"insert","segment":1,"partition":1,"rows":5}"#,
        r#"{"op":"sync_segments","partition":8}"#,
    );
    let sc = flush_core::AnyScenario::parse(&empty, "t.json").unwrap();
    let mut run = sc.run(flush_core::Policy::Seeded(1));
    run.run_to_end();
    assert!(
        run.text(true)
            .contains("sync segments is empty, skip it\"] [partitionID=8]"),
        "{}",
        run.text(true)
    );
    let e = err(&SYNC.replace(
        r#""state":"Growing","level":"L1","statslog""#,
        r#""state":"Growing","level":"L2","statslog""#,
    ));
    assert!(
        e.contains(
            "datacoord[0].level: unknown segment level \"L2\"; expected one of Legacy, L0, L1"
        ),
        "{e}"
    );
}

/// serde keeps the last of two equal keys silently; a scenario file refuses them.
#[test]
fn duplicate_keys_are_refused() {
    let e = err(&OK_FLUSH.replace(r#""segment":1"#, r#""segment":1,"segment":2"#));
    assert!(e.starts_with("bad.json:1:"), "{e}");
    assert!(
        e.contains("the key \"segment\" appears twice in one object"),
        "{e}"
    );
    let e = err(r#"{"name":"x","name":"y","model":"flush-2021","actors":[]}"#);
    assert!(e.contains("the key \"name\" appears twice"), "{e}");
    // A large object (past the searched size) finds its duplicate by set...
    let keys: Vec<String> = (0..100).map(|i| format!(r#""k{i}":0"#)).collect();
    let e = err(&format!(
        r#"{{"name":"x","pad":{{{},"k7":1}}}}"#,
        keys.join(",")
    ));
    assert!(
        e.contains("the key \"k7\" appears twice in one object"),
        "{e}"
    );
    // ...and a hostile one of 200,000 distinct keys is refused for what it is, not
    // after 2 * 10^10 key comparisons (the whole test would time out).
    let keys: Vec<String> = (0..200_000).map(|i| format!(r#""k{i}":0"#)).collect();
    let e = err(&format!(
        r#"{{"name":"x","model":"flush-2021","pad":{{{}}},"actors":[]}}"#,
        keys.join(",")
    ));
    assert!(e.contains("pad"), "{e}");
}

#[test]
fn wait_for_errors() {
    let two = |a: &str, b: &str| {
        format!(
            r#"{{"name":"x","model":"flush-2021","actors":[{{"name":"a","ops":[{a}]}},{{"name":"b","ops":[{b}]}}]}}"#
        )
    };
    let fi = r#"{"op":"flush_insert","segment":1,"pos":"p"}"#;
    let e = err(&two(r#"{"op":"wait_for","actor":"c","index":0}"#, fi));
    assert!(
        e.contains("actors[0].ops[0].actor: unknown actor \"c\"; the actors are a, b"),
        "{e}"
    );
    let e = err(&two(r#"{"op":"wait_for","actor":"a","index":0}"#, fi));
    assert!(e.contains("cannot wait for one of its own ops"), "{e}");
    let e = err(&two(r#"{"op":"wait_for","actor":"b","index":3}"#, fi));
    assert!(e.contains("actors[0].ops[0].index: actor \"b\" has 1 op(s) (indices 0 to 0), so op 3 never returns"), "{e}");
    let e = err(&two(
        &format!(r#"{{"op":"wait_for","actor":"b","index":1}},{fi}"#),
        &format!(r#"{{"op":"wait_for","actor":"a","index":1}},{fi}"#),
    ));
    assert!(e.contains("is part of a cycle of waits"), "{e}");
}

#[test]
fn oversized_text_is_refused_before_parsing() {
    let big = format!(
        "{{\"name\":\"{}\"}}",
        "x".repeat(flush_core::scenario::MAX_SCENARIO_BYTES)
    );
    let e = err(&big);
    assert!(e.contains("scenario files are limited to"), "{e}");
}

#[test]
fn every_builtin_file_parses() {
    for (name, text) in flush_core::builtin::FILES {
        let sc = AnyScenario::parse(text, name).unwrap_or_else(|e| panic!("{e}"));
        let h = sc.header();
        assert_eq!(&h.name, name, "file stem and name agree");
        assert!(h.description.len() > 80, "{name} explains what to watch");
        assert!(h.title != h.name, "{name} has a title");
    }
}

/// A model whose step looks at every goroutine takes fewer actors: sync-2024
/// refuses more than 2,000 with the limit (10,000 took 11 s natively and froze
/// the page for 22), flush-2021 takes them.
#[test]
fn too_many_actors_for_a_model_are_refused_with_its_limit() {
    let actors = |n: usize, op: serde_json::Value| {
        serde_json::Value::Array(
            (0..n)
                .map(|i| serde_json::json!({"name": format!("a{i}"), "ops": [op.clone()]}))
                .collect(),
        )
    };
    let sync_op = serde_json::json!({"op": "insert", "segment": 300, "partition": 1, "rows": 1});
    let ok = crate::common::builtin_with(
        "segment-not-found",
        "actors",
        actors(2_000, sync_op.clone()),
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
    let e = crate::common::builtin_with("segment-not-found", "actors", actors(2_001, sync_op))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("actors: 2001 actors; the sync-2024 model takes up to 2000"),
        "{e}"
    );
    let flush_op = serde_json::json!({"op": "flush_insert", "segment": 1, "pos": "a"});
    let big = crate::common::builtin_with("ordered-flush", "actors", actors(5_000, flush_op));
    assert!(big.is_ok(), "{:?}", big.err());
}

/// A whole number written with a decimal point or an exponent (`1e2`, `10.0`) is
/// refused for what it is, not as "100 is not a whole number"; a fraction is
/// not whole; a seed of `1e5` is not "out of range for a u64".
#[test]
fn numbers_written_as_floats_are_named_for_what_they_are() {
    let seg = |v: &str| err(&OK_FLUSH.replace(r#""segment":1"#, &format!(r#""segment":{v}"#)));
    for (v, shown) in [("1e2", "100"), ("10.0", "10"), ("2e9", "2000000000")] {
        let e = seg(v);
        assert!(
            e.ends_with(&format!(
                "actors[0].ops[0].segment: a number with a decimal point or an exponent (it is {shown}; write it in plain digits): expected a whole number (a segment id)"
            )),
            "{v}: {e}"
        );
    }
    assert!(seg("1.5").contains("segment: 1.5 is not a whole number"));
    assert!(seg("1e20").contains("segment: a very large number is out of range"));
    let seed = |v: &str| err(&OK_FLUSH.replace(r#""model""#, &format!(r#""seed":{v},"model""#)));
    let e = seed("1e5");
    assert!(e.contains("seed: a number with a decimal point or an exponent (it is 100000; write it in plain digits): expected a whole number from 0 to"), "{e}");
    assert!(!e.contains("out of range"), "{e}");
    assert!(seed("-1").contains("seed: -1 is negative"));
    assert!(seed("1e30").contains("seed: a very large number is out of range"));
    assert!(seed("0.5").contains("seed: 0.5 is not a whole number"));
    // The edges: 1.84e19 is below 2^64 (u64's end), 1e15 and more are printed
    // in digits, and a negative float is negative.
    assert!(seed("1.84e19").contains("(it is 18400000000000000000; write it in plain digits)"));
    assert!(seed("2e19").contains("seed: a very large number is out of range"));
    assert!(seed("-1e2").contains("seed: -100 is negative"));
    // `-0` has no decimal point: serde_json reads it as a float.
    for v in ["-0", "-0.0"] {
        assert!(
            seed(v).contains("seed: a negative zero (write 0)"),
            "{v}: {}",
            seed(v)
        );
        assert!(
            seg(v).contains("segment: a negative zero (write 0)"),
            "{v}: {}",
            seg(v)
        );
    }
    assert!(seg("9.2e18").contains("(it is 9200000000000000000; write it in plain digits)"));
    assert!(seg("-9.3e18").contains("segment: a very large negative number is out of range"));
    // At the very edge a float cannot tell inside from past: u64::MAX written
    // with `.0` is 2^64 as a float, as is 2^64 itself; so are an i64's ends.
    // Plain digits just past the range read as that float too: the message
    // names both (it told 18446744073709551616 to be written in plain digits).
    let edge = |n: &str, range: &str| {
        format!("a number that reads as {n}: past the range ({range}), or written with a decimal point or an exponent that cannot be read exactly (write plain digits)")
    };
    let u64s = edge("18446744073709551616", "from 0 to 18446744073709551615");
    for v in [
        "18446744073709551615.0",
        "18446744073709551616.0",
        "18446744073709551616",
    ] {
        assert!(
            seed(v).contains(&format!("seed: {u64s}")),
            "{v}: {}",
            seed(v)
        );
    }
    let i64s = "from -9223372036854775808 to 9223372036854775807";
    for (v, n) in [
        ("9223372036854775807.0", "9223372036854775808"),
        ("-9223372036854775809.0", "-9223372036854775808"),
        ("-9223372036854775809", "-9223372036854775808"),
    ] {
        assert!(
            seg(v).contains(&format!("segment: {}", edge(n, i64s))),
            "{v}: {}",
            seg(v)
        );
    }
    // A number with a range: whole but out of it, or in it but written as a float.
    let fail =
        |v: &str| err(&OK_FLUSH.replace(r#""pos":"p""#, &format!(r#""pos":"p","fail":{v}"#)));
    let e = fail("1e11");
    assert!(e.contains("actors[0].ops[0].fail: 100000000000 is out of range: expected a whole number from 0 to"), "{e}");
    let e = fail("1e0");
    assert!(e.contains("fail: a number with a decimal point or an exponent (it is 1; write it in plain digits): expected a whole number from 0 to"), "{e}");
}

/// `compacted` stands for the end of a successful compactor.compact, which
/// always remaps (compactor.go:310-312, 452-463 at 891c202b73): a failed one, or
/// one with no target, is refused and the message says why.
#[test]
fn a_compacted_inject_done_needs_success_and_a_target() {
    let sc = |inj: &str, success: &str| {
        format!(
            r#"{{"name":"x","model":"flush-2021","injections":{{"c1":{{"segments":[1]{inj}}}}},"actors":[{{"name":"a","ops":[{{"op":"inject","id":"c1"}},{{"op":"wait_injected","id":"c1"}},{{"op":"inject_done","id":"c1","success":{success},"compacted":true}}]}}]}}"#
        )
    };
    assert!(AnyScenario::parse(&sc(r#","remap_to":2"#, "true"), "ok.json").is_ok());
    let e = err(&sc(r#","remap_to":2"#, "false"));
    assert!(e.contains("needs \"success\": true"), "{e}");
    assert!(e.contains("actors[0].ops[2]"), "{e}");
    let e = err(&sc("", "true"));
    assert!(
        e.contains("needs a \"remap_to\" on injection \"c1\""),
        "{e}"
    );
    let e = err(&sc(r#","remap_to":2"#, r#""yes""#));
    assert!(e.contains("success"), "{e}");
}

/// A schedule entry past a goroutine's range reads as words (it said "not the
/// number a very large number", a review helper's finding).
#[test]
fn a_schedule_entry_out_of_range_reads_as_words() {
    let with = |entry: &str| {
        err(&OK_FLUSH.replacen(
            r#""model""#,
            &format!(r#""schedule":[0,{entry}],"model""#),
            1,
        ))
    };
    let e = with("99999999999999999999");
    assert!(
        e.ends_with("a schedule entry is a goroutine number (3) or goroutine.case (\"5.1\"), not a very large number: a goroutine number is at most 4294967295"),
        "{e}"
    );
    let e = with("4294967296");
    assert!(
        e.ends_with("not the number 4294967296: a goroutine number is at most 4294967295"),
        "{e}"
    );
    assert!(with("-1").ends_with("not the number -1"), "{}", with("-1"));
    assert!(
        with("1.5").ends_with("not the number 1.5"),
        "{}",
        with("1.5")
    );
}
