//! The guided tours (`tours/*.json`): each parses, and each stop, replayed as the
//! page replays it, is at the Go function and the event its caption describes.

use std::collections::BTreeSet;

use flush_core::tours;

#[test]
fn every_tour_parses_and_each_stop_is_the_step_its_caption_describes() {
    let all: Vec<_> = tours::checked().into_iter().map(|t| t.unwrap()).collect();
    assert!(all.len() >= 3, "at least three tours");
    let ids: BTreeSet<_> = all.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), all.len(), "tour ids are unique");
    for t in &all {
        assert!(
            t.stops.len() >= 5,
            "{}: a tour of a few stops at least",
            t.id
        );
        for (i, s) in t.stops.iter().enumerate() {
            let at = format!(
                "{} stop {} ({}@{:?} step {})",
                t.id,
                i + 1,
                s.scenario,
                s.version,
                s.step
            );
            let run = s.run().unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(run.cursor(), s.step, "{at}");
            assert!(
                !s.caption.trim().is_empty() && s.caption.len() < 600,
                "{at}: one short paragraph"
            );
            if let Some(h) = &s.highlight {
                assert!(
                    h.starts_with('#') || h.starts_with('.'),
                    "{at}: highlight {h} is an id or a class"
                );
            }
            match run.line(s.step) {
                None => assert!(
                    s.go.is_none() && s.expect.is_none(),
                    "{at}: step 0 has no Go function"
                ),
                Some(l) => {
                    let go = s.go.as_deref().unwrap_or_else(|| {
                        panic!("{at}: a stop past step 0 names its Go function")
                    });
                    assert!(
                        l.go.func.contains(go),
                        "{at}: the step is {}, not {go}",
                        l.go.func
                    );
                    if let Some(e) = &s.expect {
                        assert!(
                            l.event.contains(e.as_str()),
                            "{at}: the event is {:?}",
                            l.event
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_bad_tour_file_is_refused_with_its_name_and_the_reason() {
    for (text, want) in [
        ("{", "tours/bad.json: EOF"),
        (
            r#"{"id":"x","title":"t","summary":"s","stops":[]}"#,
            "at least one stop",
        ),
        (
            r#"{"id":"x","title":"t","summary":"s","stops":[{"step":1,"caption":"c"}]}"#,
            "stops[0] names no scenario",
        ),
        (
            r#"{"id":"x","title":"t","summary":"s","stops":[{"scenario":"handoff","step":1,"caption":"c","colour":1}]}"#,
            "unknown field `colour`",
        ),
    ] {
        let e = tours::parse("bad", text).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    let far = tours::parse("far", r#"{"id":"x","title":"t","summary":"s","stops":[{"scenario":"handoff","step":9999,"caption":"c"}]}"#).unwrap();
    let Err(e) = far.stops[0].run() else {
        panic!("step 9999 of handoff")
    };
    assert!(e.contains("step 9999 is past the end of handoff"), "{e}");
}
