//! "Paste a Milvus log", run in the worker: the log read, the scenario inferred,
//! each version searched for a schedule that prints it (one version per slice),
//! and what the page's log panel shows of the result ([`ImportView`]).
//!
//! It runs here, not in the page, so that the page's module does not carry the
//! log's reader, the inference and the conformance search (about 30 KB of its
//! gzipped wasm, issue 8). The page sends the log's text and, to replay against
//! the scenario shown, that scenario ([`SearchWire`]); it gets back progress
//! and then the view below, which holds only what the panel draws.

use std::rc::Rc;

use flush_core::logs::conform::{Mark, Options};
use flush_core::logs::{self, Import, ImportError, Importing};
use flush_core::scenario::json::Json;
use flush_core::Choice;
use serde::Serialize;

use crate::wire::{self, each, string, Obj, Read};
use crate::{Search, SearchWire, Source};
use flush_core::AnyScenario;

/// States each version's search may visit in the page (the CLI's default is 500,000).
pub const PAGE_MAX_STATES: u64 = 20_000;
/// Records (and lines the replay adds) listed: a longer log is summed up (the
/// CLI lists them all).
pub const MAX_LISTED: usize = 2_000;

/// The page's budgets for the search, and how to get more.
fn options() -> Options {
    Options {
        max_states: PAGE_MAX_STATES,
        hint: " (the page's budget; flushscope logs on the command line takes --max-states, --max-steps and --max-memory)",
        ..Options::default()
    }
}

/// An import under way in the worker.
pub(crate) struct Reading {
    importing: Importing,
    text: Rc<str>,
}

impl Reading {
    /// Reads `text`: inferring its scenario (`against`: `None`), or to replay
    /// against the scenario `against` names.
    pub fn new(text: String, against: Option<SearchWire>) -> Result<Reading, String> {
        let importing = match against {
            None => Importing::new(&text, None),
            Some(w) => {
                let sc = w.search()?.sc;
                Importing::against(&text, &sc, None)
            }
        };
        match importing {
            Ok(importing) => Ok(Reading {
                importing,
                text: Rc::from(text),
            }),
            Err(e) => Err(message(e, &text)),
        }
    }

    /// Versions searched, of how many.
    pub fn progress(&self) -> (usize, usize) {
        self.importing.progress()
    }

    /// Searches one version; `false` once none is left to search.
    pub fn slice(&mut self) -> Result<bool, String> {
        self.importing
            .next(&options())
            .map_err(|e| message(e, &self.text))
    }

    /// The import, once [`Reading::slice`] said every version is searched.
    pub fn finish(self) -> Result<ImportView, String> {
        let import = self
            .importing
            .finish(&options())
            .map_err(|e| message(e, &self.text))?;
        Ok(ImportView::of(&import))
    }
}

/// The scenario shown, for "Replay against the scenario shown": its source and
/// version, and only the knobs the view sets (`knobs`). Each version is then
/// searched with its own presets for the others, as the CLI's
/// `logs --against` does; [`SearchWire::of`] would fix every knob at the
/// shown version's setting.
pub fn against(source: &Source, sc: &AnyScenario, knobs: &[(String, String)]) -> SearchWire {
    SearchWire {
        knobs: knobs.to_vec(),
        ..SearchWire::of(&Search {
            source: source.clone(),
            sc: sc.clone(),
            o: flush_core::explore::Options::first(sc.header().max_steps, 1),
        })
    }
}

/// `n` and the noun, singular or plural ("1 line", "2 lines").
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Why a log could not be imported, as the panel says it.
fn message(e: ImportError, text: &str) -> String {
    match e {
        ImportError::Unknown(e) => {
            let p = logs::parse(text);
            format!(
                "Read {} ({}), but {e}. (A flush-2021 log is read with \"Replay against the scenario shown\".)",
                count(p.lines as usize, "line", "lines"),
                count(p.records.len(), "record", "records"),
            )
        }
        e => e.to_string(),
    }
}

/// A version the log was searched under.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TriedView {
    /// `""`: a model without versions.
    pub version: String,
    /// The knobs the scenario sets apart from this version: the replay is of
    /// a proposal (see `flush_core::logs::Tried::proposed`).
    pub proposed: Vec<String>,
    pub complete: bool,
    pub matched: usize,
    pub wanted: usize,
    /// The first record not explained, and why, in words.
    pub unexplained: Option<String>,
}

/// A record of the log as the panel lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecordView {
    /// Its input line.
    pub at: u32,
    pub text: String,
    /// What the replay made of it: `"step"` (with `step`), `"unexplained"`,
    /// `"not-modelled"`, `"cut-short"`, `"foreign"` or `"not-reached"`.
    pub mark: &'static str,
    pub step: u32,
}

impl RecordView {
    /// The replay's mark, again.
    pub fn mark(&self) -> Mark {
        match self.mark {
            "step" => Mark::Step(self.step),
            "unexplained" => Mark::Unexplained,
            "not-modelled" => Mark::NotModelled,
            "cut-short" => Mark::CutShort,
            "foreign" => Mark::NotALogLine,
            _ => Mark::NotReached,
        }
    }
}

/// The names of [`RecordView::mark`], read back.
const MARKS: [&str; 6] = [
    "step",
    "unexplained",
    "not-modelled",
    "cut-short",
    "foreign",
    "not-reached",
];

fn mark_name(m: Mark) -> (&'static str, u32) {
    match m {
        Mark::Step(s) => ("step", s),
        Mark::Unexplained => ("unexplained", 0),
        Mark::NotModelled => ("not-modelled", 0),
        Mark::CutShort => ("cut-short", 0),
        Mark::NotALogLine => ("foreign", 0),
        Mark::NotReached => ("not-reached", 0),
    }
}

/// What the log panel shows of an import.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImportView {
    /// The version the replay runs under (`""`: a model without versions).
    pub version: String,
    pub complete: bool,
    /// Records the model prints, and those explained in order.
    pub wanted: usize,
    pub explained: usize,
    /// The schedule that prints the log (or most of it), `[goroutine, case]`.
    pub schedule: Vec<[u32; 2]>,
    /// The inferred scenario's file; `None` when replayed against the one shown.
    pub inferred: Option<String>,
    /// What was inferred from which line.
    pub notes: Vec<String>,
    pub tried: Vec<TriedView>,
    /// Input lines read, and records found in them.
    pub lines: u32,
    pub records: usize,
    /// The first [`MAX_LISTED`] records.
    pub listed: Vec<RecordView>,
    /// What a budget left unread, in words.
    pub cut: Option<String>,
    /// Lines the replay prints that the log lacks: how many, the first
    /// [`MAX_LISTED`] `(step, line)`.
    pub extra: usize,
    pub extra_listed: Vec<(u32, String)>,
}

impl ImportView {
    pub fn of(im: &Import) -> ImportView {
        let c = &im.conformance;
        ImportView {
            version: im.version.to_owned(),
            complete: c.complete,
            wanted: c.wanted,
            explained: c.explained,
            schedule: c.schedule.iter().map(|c| [c.g, c.alt]).collect(),
            inferred: im.inferred.as_ref().map(|i| i.json.clone()),
            notes: im
                .inferred
                .iter()
                .flat_map(|i| i.notes.iter().cloned())
                .collect(),
            tried: im
                .tried
                .iter()
                .map(|t| TriedView {
                    version: t.version.to_owned(),
                    proposed: t.proposed.iter().map(|k| (*k).to_owned()).collect(),
                    complete: t.complete,
                    matched: t.matched,
                    wanted: t.wanted,
                    unexplained: t
                        .unexplained
                        .as_ref()
                        .map(|u| format!("line {}: {} — {}", u.at, u.line, u.why)),
                })
                .collect(),
            lines: im.log.lines,
            records: im.log.records.len(),
            listed: (im.log.records.iter().enumerate().take(MAX_LISTED))
                .map(|(n, r)| {
                    let (mark, step) = mark_name(c.mark(n, r));
                    RecordView {
                        at: r.at,
                        text: r.kind.text(),
                        mark,
                        step,
                    }
                })
                .collect(),
            cut: im.log.cut.clone(),
            extra: c.extra.len(),
            extra_listed: (c.extra.iter().take(MAX_LISTED))
                .map(|e| (e.step, e.line.clone()))
                .collect(),
        }
    }

    /// The schedule, as the stepper takes it.
    pub fn choices(&self) -> Vec<Choice> {
        self.schedule
            .iter()
            .map(|&[g, alt]| Choice::new(g, alt))
            .collect()
    }

    pub(crate) fn read(o: Obj) -> Read<ImportView> {
        let count = |k: &str| o.u64(k).map(|n| n as usize);
        Ok(ImportView {
            version: o.str("version")?,
            complete: o.bool("complete")?,
            wanted: count("wanted")?,
            explained: count("explained")?,
            schedule: wire::schedule(o.arr("schedule")?)?,
            inferred: o.opt_str("inferred")?,
            notes: each(o.arr("notes")?, "notes", |j| string(j, "a note"))?,
            tried: each(o.arr("tried")?, "tried", |j| {
                let t = Obj::of(j, "a version tried")?;
                Ok(TriedView {
                    version: t.str("version")?,
                    proposed: each(t.arr("proposed")?, "proposed", |j| string(j, "a knob"))?,
                    complete: t.bool("complete")?,
                    matched: t.u64("matched")? as usize,
                    wanted: t.u64("wanted")? as usize,
                    unexplained: t.opt_str("unexplained")?,
                })
            })?,
            lines: o.u32("lines")?,
            records: count("records")?,
            listed: each(o.arr("listed")?, "listed", |j| {
                let r = Obj::of(j, "a record")?;
                Ok(RecordView {
                    at: r.u32("at")?,
                    text: r.str("text")?,
                    mark: r.named("mark", &MARKS)?,
                    step: r.u32("step")?,
                })
            })?,
            cut: o.opt_str("cut")?,
            extra: count("extra")?,
            extra_listed: each(o.arr("extra_listed")?, "extra_listed", |j| match j {
                Json::Arr(v) if v.len() == 2 => Ok((
                    wire::count(&v[0]).ok_or("a step should be a count")?,
                    string(&v[1], "a line")?,
                )),
                other => Err(format!(
                    "a line the replay adds should be [step, line], not {}",
                    other.describe()
                )),
            })?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FromWorker, Search, Source, ToWorker};
    use flush_core::{builtin, AnyScenario};

    const LOG: &str = include_str!("../../../tests/logs/segment-not-found.log");

    /// Sends `m` as the page would and runs slices until the worker has nothing
    /// more to say: every message, read back as the page reads it.
    fn converse(m: &ToWorker) -> Vec<FromWorker> {
        crate::message(&serde_json::to_string(m).unwrap());
        let mut said = Vec::new();
        for _ in 0..1_000 {
            match crate::slice() {
                Some(s) => said.push(FromWorker::read(&s).unwrap()),
                None => return said,
            }
        }
        panic!("the worker never went quiet: {said:?}")
    }

    /// The view the worker sends is the one made from the CLI's import, equal
    /// once read back; progress comes first, one version a slice.
    #[test]
    fn an_import_crosses_back_unchanged() {
        let said = converse(&ToWorker::Import {
            id: 7,
            text: LOG.to_owned(),
            against: None,
        });
        let want = ImportView::of(
            &Importing::new(LOG, None)
                .unwrap()
                .finish(&options())
                .unwrap(),
        );
        let (last, progress) = said.split_last().unwrap();
        assert_eq!(
            *last,
            FromWorker::Imported {
                id: 7,
                view: Box::new(want.clone())
            }
        );
        let of = want.tried.len() as u32;
        assert!(of >= 2, "the example log fits {of} versions");
        let steps: Vec<_> = progress
            .iter()
            .map(|m| match m {
                FromWorker::Reading { id: 7, done, of } => (*done, *of),
                other => panic!("not progress: {other:?}"),
            })
            .collect();
        assert_eq!(steps, (0..=of).map(|d| (d, of)).collect::<Vec<_>>());
        assert!(want.complete && want.version == "ca7ef26e4b", "{want:?}");
        assert!(want
            .inferred
            .as_deref()
            .is_some_and(|f| f.contains("\"model\"")));
        assert_eq!(want.listed.len(), want.records);
        assert!(want.listed.iter().any(|r| r.mark() == Mark::NotModelled));
        assert_eq!(
            want.listed
                .iter()
                .filter(|r| matches!(r.mark(), Mark::Step(_)))
                .count(),
            want.wanted
        );
    }

    /// A log replayed against a scenario the page names (a built-in at a
    /// version, and a file), and one the model cannot read at all, in words.
    #[test]
    fn against_a_scenario_and_refusals() {
        let sc = builtin::get("handoff").unwrap();
        let mut run = sc.run(flush_core::Policy::Seeded(3));
        run.run_to_end();
        let log = (run.lines().iter().flat_map(|l| l.log.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(log.contains("SaveBinlogPath"), "{log}");
        let wire = |source: Source, sc: &AnyScenario| {
            Some(Box::new(SearchWire::of(&Search {
                source,
                sc: sc.clone(),
                o: flush_core::explore::Options::first(60, 1),
            })))
        };
        let said = converse(&ToWorker::Import {
            id: 1,
            text: log.clone(),
            against: wire(Source::Builtin("handoff".into()), &sc),
        });
        let Some(FromWorker::Imported { id: 1, view }) = said.last() else {
            panic!("{said:?}")
        };
        let want = ImportView::of(
            &Importing::against(&log, &sc, None)
                .unwrap()
                .finish(&options())
                .unwrap(),
        );
        assert_eq!(**view, want);
        assert!(view.complete && view.inferred.is_none(), "{view:?}");

        // A log line of another component: read, but nothing the model knows.
        let said = converse(&ToWorker::Import {
            id: 2,
            text: "[INFO] [proxy/impl.go:10] [\"search\"]".into(),
            against: None,
        });
        let [FromWorker::Failed { id: 2, why }] = &said[..] else {
            panic!("{said:?}")
        };
        assert!(why.starts_with("Read 1 line (1 record), but "), "{why}");
        // Text with no line the reader reads is no log at all.
        let said = converse(&ToWorker::Import {
            id: 3,
            text: "a\nb".into(),
            against: None,
        });
        let [FromWorker::Failed { why, .. }] = &said[..] else {
            panic!("{said:?}")
        };
        assert!(
            why.starts_with("no log FlushScope reads: none of its 2 lines is a Go panic"),
            "{why}"
        );
        let said = converse(&ToWorker::Import {
            id: 4,
            text: "hello".into(),
            against: None,
        });
        let [FromWorker::Failed { why, .. }] = &said[..] else {
            panic!("{said:?}")
        };
        assert!(
            why.starts_with("no log FlushScope reads: its one line is not a Go panic"),
            "{why}"
        );
    }

    /// A log replayed against a scenario whose knobs differ from a version is
    /// a proposal's replay there: each version tried names those knobs, as
    /// the CLI's report does, across the wire.
    #[test]
    fn a_version_tried_under_knobs_says_proposed() {
        // As the page sends it: the view's knobs, each version's presets for
        // the others.
        let mut sc = builtin::get("segment-not-found").unwrap();
        sc.set_knob("keep", "growing").unwrap();
        let source = Source::Builtin("segment-not-found".into());
        let knobs = [("keep".to_owned(), "growing".to_owned())];
        let said = converse(&ToWorker::Import {
            id: 5,
            text: LOG.to_owned(),
            against: Some(Box::new(against(&source, &sc, &knobs))),
        });
        let Some(FromWorker::Imported { id: 5, view }) = said.last() else {
            panic!("{said:?}")
        };
        let tried = |v: &str| view.tried.iter().find(|t| t.version == v).unwrap();
        assert_eq!(tried("ca7ef26e4b").proposed, ["keep=growing"]);
        assert!(tried("b5c9a7364b").proposed.is_empty(), "its own keep");
        assert_eq!(
            tried("4cf1a358ba").proposed,
            ["keep=growing"],
            "the knob goes with the scenario to every version"
        );
    }

    /// "Against the scenario shown" searches each version with its own presets
    /// for the knobs the view does not set: a log of a run at another version
    /// is explained under that version, as the CLI explains it.
    #[test]
    fn against_a_view_each_version_keeps_its_presets() {
        let shown = builtin::get("segment-not-found").unwrap();
        let versions: Vec<&str> = shown.versions().iter().map(|v| v.id).collect();
        assert!(versions.len() >= 3, "{versions:?}");
        let mut checked = 0;
        for v in versions
            .iter()
            .filter(|v| Some(**v) != shown.header().version)
        {
            let mut at = shown.clone();
            at.set_version(v).unwrap();
            let mut run = at.run(flush_core::Policy::Seeded(3));
            run.run_to_end();
            let log = (run.lines().iter().flat_map(|l| l.log.clone()))
                .collect::<Vec<_>>()
                .join("\n");
            let source = Source::Builtin("segment-not-found".into());
            let said = converse(&ToWorker::Import {
                id: 1,
                text: log.clone(),
                against: Some(Box::new(against(&source, &shown, &[]))),
            });
            let Some(FromWorker::Imported { view, .. }) = said.last() else {
                panic!("{said:?}")
            };
            let cli = Importing::against(&log, &shown, None)
                .unwrap()
                .finish(&options())
                .unwrap();
            assert_eq!(**view, ImportView::of(&cli), "a log of {v}");
            let own = view.tried.iter().find(|t| t.version == *v).unwrap();
            assert!(own.complete, "a log of {v} is explained under {v}: {own:?}");
            checked += 1;
        }
        assert!(checked >= 2);
    }

    /// A Stop ends an import at once: nothing more is said of it.
    #[test]
    fn a_stopped_import_says_nothing_more() {
        crate::message(
            &serde_json::to_string(&ToWorker::Import {
                id: 9,
                text: LOG.to_owned(),
                against: None,
            })
            .unwrap(),
        );
        let first = FromWorker::read(&crate::slice().unwrap()).unwrap();
        assert!(
            matches!(first, FromWorker::Reading { id: 9, done: 0, .. }),
            "{first:?}"
        );
        let said = converse(&ToWorker::Stop {
            id: 9,
            report: true,
        });
        assert_eq!(said, Vec::new());
    }

    /// Every mark, and every field that may be missing, crosses both ways;
    /// and so does the page's message with the scenario shown.
    #[test]
    fn every_mark_and_field_crosses() {
        let mut v = ImportView::of(
            &Importing::new(LOG, None)
                .unwrap()
                .finish(&options())
                .unwrap(),
        );
        for (r, mark) in v.listed.iter_mut().zip(MARKS) {
            r.mark = mark;
        }
        v.cut = Some("the log was cut at 64 MB".into());
        v.extra = 3;
        v.extra_listed = vec![(4, "[INFO] a \"quoted\" line".into())];
        v.tried[0].unexplained = Some("line 6: it — why".into());
        v.inferred = None;
        let m = FromWorker::Imported {
            id: 4,
            view: Box::new(v.clone()),
        };
        let back = FromWorker::read(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        let marks: Vec<_> = v.listed.iter().take(6).map(RecordView::mark).collect();
        assert_eq!(
            marks,
            [
                Mark::Step(v.listed[0].step),
                Mark::Unexplained,
                Mark::NotModelled,
                Mark::CutShort,
                Mark::NotALogLine,
                Mark::NotReached
            ]
        );
        let sc = builtin::get("segment-not-found").unwrap();
        let m = ToWorker::Import {
            id: 5,
            text: "a log\nwith two lines".into(),
            against: Some(Box::new(SearchWire::of(&Search {
                source: Source::Builtin("segment-not-found".into()),
                sc,
                o: flush_core::explore::Options::first(60, 1),
            }))),
        };
        assert_eq!(ToWorker::read(&serde_json::to_string(&m).unwrap()), Ok(m));
        let bad = r#"{"Imported":{"id":1,"view":{"version":"x"}}}"#;
        assert!(FromWorker::read(bad).is_err());
    }
}
