//! Guided tours for engineers new to the datanode: scripted walks through
//! built-in scenarios, a caption per stop and the element of the page it is
//! about. The files are `tours/*.json`, embedded at build time; a test replays
//! each stop and checks that the step is the Go function and event its caption
//! describes (`go`, `expect`), so a caption cannot drift from the model.

use serde::Deserialize;

/// (file stem, JSON text) of every tour, in the order the page offers them.
const FILES: &[(&str, &str)] = &[
    ("one-flush", include_str!("../../../tours/one-flush.json")),
    ("injections", include_str!("../../../tours/injections.json")),
    (
        "issue-34018",
        include_str!("../../../tours/issue-34018.json"),
    ),
];

/// One stop of a tour: a view of a built-in (its own schedule, or its seed) at a
/// step, and what to say there.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub scenario: String,
    pub version: Option<String>,
    pub step: u32,
    pub caption: String,
    /// A CSS selector of the page element the caption is about.
    pub highlight: Option<String>,
    /// The Go function the step names (checked by a test).
    pub go: Option<String>,
    /// Words the step's event contains (checked by a test).
    pub expect: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tour {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub stops: Vec<Stop>,
}

/// A stop as written: scenario and version carry over from the stop before.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStop {
    scenario: Option<String>,
    version: Option<String>,
    step: u32,
    caption: String,
    highlight: Option<String>,
    go: Option<String>,
    expect: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTour {
    id: String,
    title: String,
    summary: String,
    stops: Vec<RawStop>,
}

/// Reads one tour file, naming what is wrong.
pub fn parse(stem: &str, text: &str) -> Result<Tour, String> {
    let raw: RawTour = serde_json::from_str(text).map_err(|e| format!("tours/{stem}.json: {e}"))?;
    let (mut scenario, mut version) = (None::<String>, None::<String>);
    let mut stops = Vec::with_capacity(raw.stops.len());
    for (i, s) in raw.stops.into_iter().enumerate() {
        if let Some(sc) = s.scenario {
            // Another scenario starts from its own version unless the stop names one.
            version = None;
            scenario = Some(sc);
        }
        if s.version.is_some() {
            version = s.version;
        }
        let scenario = scenario
            .clone()
            .ok_or_else(|| format!("tours/{stem}.json: stops[{i}] names no scenario"))?;
        stops.push(Stop {
            scenario,
            version: version.clone(),
            step: s.step,
            caption: s.caption,
            highlight: s.highlight,
            go: s.go,
            expect: s.expect,
        });
    }
    if stops.is_empty() {
        return Err(format!("tours/{stem}.json: a tour has at least one stop"));
    }
    Ok(Tour {
        id: raw.id,
        title: raw.title,
        summary: raw.summary,
        stops,
    })
}

/// Every tour, parsed once (the files are ours: one that does not parse is a
/// build bug, which the tours test catches; the page leaves it out rather than stop).
pub fn all() -> &'static [Tour] {
    static ALL: std::sync::OnceLock<Vec<Tour>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        FILES
            .iter()
            .filter_map(|(stem, text)| parse(stem, text).ok())
            .collect()
    })
}

/// Each file's parse result, for the test.
pub fn checked() -> Vec<Result<Tour, String>> {
    FILES.iter().map(|(stem, text)| parse(stem, text)).collect()
}

impl Stop {
    /// The run this stop shows, as the page builds it: the built-in at the stop's
    /// version, its own schedule when it has one (then its seed), else its seed,
    /// run to the end with the cursor at the stop's step.
    pub fn run(&self) -> Result<crate::AnyRun, String> {
        let mut sc = crate::builtin::get(&self.scenario)
            .ok_or_else(|| format!("no built-in scenario \"{}\"", self.scenario))?;
        if let Some(v) = &self.version {
            sc.set_version(v)?;
        }
        let h = sc.header();
        let policy = match &h.schedule {
            Some(s) => crate::Policy::Scripted {
                script: s.clone(),
                fallback_seed: h.seed,
            },
            None => crate::Policy::Seeded(h.seed),
        };
        let mut run = sc.run(policy);
        run.run_to_end();
        if self.step > run.len() {
            return Err(format!(
                "step {} is past the end of {} ({} steps)",
                self.step,
                self.scenario,
                run.len()
            ));
        }
        run.goto(self.step);
        Ok(run)
    }
}
