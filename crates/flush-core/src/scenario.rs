//! Scenario files: the public JSON format of DESIGN.md, parsed and checked.
//!
//! Parsing happens in two passes. serde turns the text into raw structs (syntax
//! and type errors come with serde_json's line and column); `check` then turns
//! the raw structs into a [`Scenario`], rejecting anything inconsistent (an op
//! naming an unknown injection, a segment in two partitions, ...) with the JSON
//! path of the culprit, located in the text by [`crate::locate`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

use crate::locate::{locate, JsonPath};
use crate::sched::Choice;

/// Upper bound on a scenario file. A bigger file is refused before parsing.
pub const MAX_SCENARIO_BYTES: usize = 8 * 1024 * 1024;
/// Upper bound on ops in all actors together.
pub const MAX_OPS: usize = 1_000_000;
/// Default step limit of a run.
pub const DEFAULT_MAX_STEPS: u32 = 2_000_000;
/// `retry.Do`'s default attempt count (`internal/util/retry/options.go`).
pub const RETRY_ATTEMPTS: u32 = 10;
/// Capacity of `orderFlushQueue.injectCh` (`make(chan *taskInjection, 100)`).
pub const INJECT_CH_CAP: usize = 100;

/// Which machine a scenario runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
pub enum ModelKind {
    #[serde(rename = "flush-2021")]
    Flush2021,
    #[serde(rename = "sync-2024")]
    Sync2024,
}

impl ModelKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelKind::Flush2021 => "flush-2021",
            ModelKind::Sync2024 => "sync-2024",
        }
    }
}

/// The Milvus commits the sync-2024 model can run as (MODEL.md §0.2, §3.5), in
/// history order. Each is a preset of the model's knobs (`sync2024::Knobs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// `ca7ef26e4b`: the buggy parent of the fix; skips only L0 Growing segments.
    Ca7ef26e4b,
    /// `b5c9a7364b` (#34056): skips every Growing segment.
    B5c9a7364b,
    /// `c65f41dc60` (#34156): datacoord sends only Flushing/Flushed segments, the
    /// datanode removes only Flushing/Flushed ones.
    C65f41dc60,
    /// `4cf1a358ba` (#34301): datacoord sends every healthy segment, the datanode
    /// removes only Flushed ones.
    V4cf1a358ba,
    /// `2e434e4453` (#34390): the datanode loads (adds) only missing segments that
    /// are Flushed and neither L0 nor Legacy.
    V2e434e4453,
    /// `439fb24b32` (#34388): datacoord leaves L0 segments out of the request.
    V439fb24b32,
}

impl Version {
    pub const ALL: [Version; 6] = [
        Version::Ca7ef26e4b,
        Version::B5c9a7364b,
        Version::C65f41dc60,
        Version::V4cf1a358ba,
        Version::V2e434e4453,
        Version::V439fb24b32,
    ];

    const FULL: [(&'static str, Version); 6] = [
        (
            "ca7ef26e4bf2bfc574737b622cc5fe7703e17806",
            Version::Ca7ef26e4b,
        ),
        (
            "b5c9a7364bf60736c2d56f7eb81a059d4ac8e69f",
            Version::B5c9a7364b,
        ),
        (
            "c65f41dc60fe5ad2102a1bc56f1190b414389239",
            Version::C65f41dc60,
        ),
        (
            "4cf1a358ba589dadefefb6aab7e2fcf06f9044fd",
            Version::V4cf1a358ba,
        ),
        (
            "2e434e44536d7b6ebe15b6b4d85b82b2d284f4a9",
            Version::V2e434e4453,
        ),
        (
            "439fb24b32b2ca7a5f3794d1ea4cb61cf0c7e467",
            Version::V439fb24b32,
        ),
    ];

    pub fn as_str(self) -> &'static str {
        &Self::full(self)[..10]
    }

    /// The full commit hash.
    pub fn full(self) -> &'static str {
        Self::FULL
            .iter()
            .find(|f| f.1 == self)
            .map(|f| f.0)
            .unwrap_or_default()
    }

    /// The pull request that made this commit.
    pub fn pr(self) -> &'static str {
        match self {
            Version::Ca7ef26e4b => "#34027",
            Version::B5c9a7364b => "#34056",
            Version::C65f41dc60 => "#34156",
            Version::V4cf1a358ba => "#34301",
            Version::V2e434e4453 => "#34390",
            Version::V439fb24b32 => "#34388",
        }
    }

    /// One line for a reviewer: what this commit changed.
    pub fn summary(self) -> &'static str {
        match self {
            Version::Ca7ef26e4b => "buggy parent of #34056: datacoord sends healthy segments with a PK statslog; UpdateSegmentView spares only L0 Growing segments",
            Version::B5c9a7364b => "#34056 fix: UpdateSegmentView spares every Growing segment",
            Version::C65f41dc60 => "#34156: datacoord sends only Flushing/Flushed segments, statslog optional; the datanode removes only Flushing/Flushed ones and loads every missing one",
            Version::V4cf1a358ba => "#34301: datacoord sends every healthy segment, statslog optional; the datanode removes only Flushed ones",
            Version::V2e434e4453 => "#34390: the datanode loads only missing Flushed segments that are neither L0 nor Legacy",
            Version::V439fb24b32 => "#34388: datacoord leaves L0 segments out of the request",
        }
    }

    /// Accepts the short hash or any longer prefix of the full hash.
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim().to_ascii_lowercase();
        if s.len() < 7 {
            return None;
        }
        Self::FULL
            .iter()
            .find(|(full, _)| full.starts_with(&s))
            .map(|(_, v)| *v)
    }

    pub fn list() -> String {
        Version::ALL
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Segment state, as in `commonpb.SegmentState` (the subset the model uses).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
pub enum SegState {
    Growing,
    Sealed,
    Flushing,
    Flushed,
    Dropped,
}

impl SegState {
    pub fn as_str(self) -> &'static str {
        match self {
            SegState::Growing => "Growing",
            SegState::Sealed => "Sealed",
            SegState::Flushing => "Flushing",
            SegState::Flushed => "Flushed",
            SegState::Dropped => "Dropped",
        }
    }
}

/// Segment level, as in `datapb.SegmentLevel`. `Legacy` (segments written before
/// levels existed) is what datacoord may report; the datanode's `NewSegmentInfo`
/// reads it as L1, `UpdateSegmentView` keeps it as it comes (meta_cache.go:278-286).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
pub enum Level {
    Legacy,
    L0,
    L1,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Legacy => "Legacy",
            Level::L0 => "L0",
            Level::L1 => "L1",
        }
    }
}

/// State of a segment in the 2021 datanode `Replica` (`newSegments`,
/// `normalSegments`, `flushedSegments`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplicaState {
    New,
    Normal,
    Flushed,
}

impl ReplicaState {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplicaState::New => "new",
            ReplicaState::Normal => "normal",
            ReplicaState::Flushed => "flushed",
        }
    }
}

/// Index into [`Scenario::positions`] (MsgIDs are strings in the file).
pub type PosId = u32;
/// Index into [`Scenario::injections`].
pub type InjId = u16;

/// A checked op. Which ops a model accepts is checked at parse time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    FlushInsert {
        segment: i64,
        pos: PosId,
        flushed: bool,
        dropped: bool,
        fail: u32,
    },
    FlushDelete {
        segment: i64,
        pos: PosId,
        fail: u32,
    },
    Inject {
        inj: InjId,
    },
    WaitInjected {
        inj: InjId,
    },
    InjectDone {
        inj: InjId,
        success: bool,
    },
    StartDropping,
    NotifyAllFlushed,
    Close,
    WaitNotified {
        count: u32,
    },
    /// Block until `actor` has returned from its op `index` (0-based): the flow
    /// graph's delivery order (a node gets a message only after the node before it
    /// returned from `Operate`).
    WaitFor {
        actor: u16,
        index: u32,
    },
    Insert {
        segment: i64,
        partition: i64,
        rows: i64,
    },
    Seal {
        segment: i64,
    },
    Sync {
        segment: i64,
        flush: bool,
    },
    SyncSegments {
        partition: i64,
    },
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::FlushInsert { .. } => "flush_insert",
            Op::FlushDelete { .. } => "flush_delete",
            Op::Inject { .. } => "inject",
            Op::WaitInjected { .. } => "wait_injected",
            Op::InjectDone { .. } => "inject_done",
            Op::StartDropping => "start_dropping",
            Op::NotifyAllFlushed => "notify_all_flushed",
            Op::Close => "close",
            Op::WaitNotified { .. } => "wait_notified",
            Op::WaitFor { .. } => "wait_for",
            Op::Insert { .. } => "insert",
            Op::Seal { .. } => "seal",
            Op::Sync { .. } => "sync",
            Op::SyncSegments { .. } => "sync_segments",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Actor {
    pub name: String,
    pub ops: Vec<Op>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Injection {
    pub id: String,
    pub segments: Vec<i64>,
    /// `postInjection` rewrites `pack.segmentID` to this; `None` is a no-op function.
    pub remap_to: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaSegment {
    pub segment: i64,
    pub state: ReplicaState,
    pub rows: i64,
}

/// Injected RPC failures: the first `n` calls of each RPC fail.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Faults {
    pub save_binlog_paths: u32,
    pub drop_virtual_channel: u32,
}

/// A segment in datacoord's meta (sync-2024).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct DcSegment {
    pub segment: i64,
    pub partition: i64,
    pub state: SegState,
    pub level: Level,
    pub statslog: bool,
    pub rows: i64,
}

/// A segment in the datanode's metacache at the start (sync-2024); also how the
/// JSON report lists the final metacache.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct DnSegment {
    pub segment: i64,
    pub partition: i64,
    pub state: SegState,
    pub level: Level,
    pub rows: i64,
}

/// A checked scenario. Build one with [`Scenario::parse`] or [`crate::builtin`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scenario {
    pub name: String,
    pub title: String,
    pub description: String,
    pub model: ModelKind,
    pub version: Option<Version>,
    pub seed: u64,
    pub max_steps: u32,
    /// A scripted schedule carried by the file (replayed by `--scripted`).
    pub schedule: Option<Vec<Choice>>,
    /// Interned MsgIDs, in first-appearance order.
    pub positions: Vec<String>,
    pub injections: Vec<Injection>,
    pub replica: Vec<ReplicaSegment>,
    pub faults: Faults,
    pub datacoord: Vec<DcSegment>,
    pub datanode: Vec<DnSegment>,
    pub actors: Vec<Actor>,
}

impl Scenario {
    pub fn pos_name(&self, p: PosId) -> &str {
        &self.positions[p as usize]
    }
    pub fn inj_name(&self, i: InjId) -> &str {
        &self.injections[i as usize].id
    }
    pub fn op_count(&self) -> usize {
        self.actors.iter().map(|a| a.ops.len()).sum()
    }
}

/// Why a scenario was refused: where (file, line, column, JSON path) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub path: Option<String>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        f.write_str(": ")?;
        if let Some(p) = &self.path {
            write!(f, "{p}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

// ---------------------------------------------------------------------------
// Raw (serde) form.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    model: ModelKind,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    max_steps: Option<u32>,
    #[serde(default)]
    schedule: Option<Vec<RawChoice>>,
    #[serde(default)]
    injections: Option<BTreeMap<String, RawInjection>>,
    #[serde(default)]
    replica: Option<Vec<RawReplica>>,
    #[serde(default)]
    faults: Option<RawFaults>,
    #[serde(default)]
    datacoord: Option<Vec<RawDc>>,
    #[serde(default)]
    datanode: Option<Vec<RawDn>>,
    actors: Vec<RawActor>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawChoice {
    Num(u32),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInjection {
    segments: Vec<i64>,
    #[serde(default)]
    remap_to: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplica {
    segment: i64,
    state: ReplicaState,
    #[serde(default)]
    rows: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFaults {
    #[serde(default)]
    save_binlog_paths: u32,
    #[serde(default)]
    drop_virtual_channel: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDc {
    segment: i64,
    partition: i64,
    state: SegState,
    level: Level,
    statslog: bool,
    #[serde(default)]
    rows: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDn {
    segment: i64,
    partition: i64,
    state: SegState,
    level: Level,
    #[serde(default)]
    rows: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawActor {
    name: String,
    ops: Vec<RawOp>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
enum OpName {
    FlushInsert,
    FlushDelete,
    Inject,
    WaitInjected,
    InjectDone,
    StartDropping,
    NotifyAllFlushed,
    Close,
    WaitNotified,
    WaitFor,
    Insert,
    Seal,
    Sync,
    SyncSegments,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOp {
    op: OpName,
    segment: Option<i64>,
    pos: Option<String>,
    flushed: Option<bool>,
    dropped: Option<bool>,
    fail: Option<u32>,
    id: Option<String>,
    success: Option<bool>,
    count: Option<u32>,
    partition: Option<i64>,
    rows: Option<i64>,
    flush: Option<bool>,
    actor: Option<String>,
    index: Option<u32>,
}

impl RawOp {
    /// Names of the optional fields that are present.
    fn present(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let fields: [(&'static str, bool); 13] = [
            ("segment", self.segment.is_some()),
            ("pos", self.pos.is_some()),
            ("flushed", self.flushed.is_some()),
            ("dropped", self.dropped.is_some()),
            ("fail", self.fail.is_some()),
            ("id", self.id.is_some()),
            ("success", self.success.is_some()),
            ("count", self.count.is_some()),
            ("partition", self.partition.is_some()),
            ("rows", self.rows.is_some()),
            ("flush", self.flush.is_some()),
            ("actor", self.actor.is_some()),
            ("index", self.index.is_some()),
        ];
        for (name, here) in fields {
            if here {
                v.push(name);
            }
        }
        v
    }
}

// ---------------------------------------------------------------------------
// Checking.

struct Checker<'t> {
    file: &'t str,
    text: &'t str,
}

impl Checker<'_> {
    fn err(&self, path: &JsonPath, message: impl Into<String>) -> ScenarioError {
        let at = locate(self.text, path);
        ScenarioError {
            file: self.file.to_owned(),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            path: Some(path.to_string()),
            message: message.into(),
        }
    }
}

const FLUSH_OPS: &str = "flush_insert, flush_delete, inject, wait_injected, inject_done, start_dropping, notify_all_flushed, close, wait_notified, wait_for";
const SYNC_OPS: &str = "insert, seal, sync, sync_segments, wait_for";

impl Scenario {
    /// Parses and checks a scenario. `file` names the source in messages.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError {
                file: file.to_owned(),
                line: None,
                column: None,
                path: None,
                message: format!(
                    "the file is {} bytes; scenario files are limited to {} bytes",
                    text.len(),
                    MAX_SCENARIO_BYTES
                ),
            });
        }
        let raw: RawScenario = serde_json::from_str(text).map_err(|e| {
            let (line, column) = (e.line(), e.column());
            let mut message = e.to_string();
            // serde_json appends " at line L column C"; we print the place up front instead.
            if let Some(cut) = message.rfind(" at line ") {
                message.truncate(cut);
            }
            ScenarioError {
                file: file.to_owned(),
                line: (line > 0).then_some(line),
                column: (line > 0).then_some(column),
                path: None,
                message,
            }
        })?;
        Checker { file, text }.check(raw)
    }
}

impl Checker<'_> {
    fn check(&self, raw: RawScenario) -> Result<Scenario, ScenarioError> {
        let root = JsonPath::root();
        if raw.name.trim().is_empty() {
            return Err(self.err(&root.key("name"), "the scenario needs a non-empty name"));
        }
        let version =
            match (&raw.version, raw.model) {
                (Some(v), ModelKind::Sync2024) => Some(Version::parse(v).ok_or_else(|| {
                    self.err(
                        &root.key("version"),
                        format!(
                            "unknown version \"{v}\"; the sync-2024 model knows {}",
                            Version::list()
                        ),
                    )
                })?),
                (None, ModelKind::Sync2024) => {
                    return Err(self.err(
                        &root.key("model"),
                        format!(
                            "a sync-2024 scenario names its Milvus \"version\" (one of {})",
                            Version::list()
                        ),
                    ))
                }
                (Some(_), ModelKind::Flush2021) => return Err(self.err(
                    &root.key("version"),
                    "\"version\" applies to sync-2024 scenarios; flush-2021 is fixed at 891c202b73",
                )),
                (None, ModelKind::Flush2021) => None,
            };
        let max_steps = raw.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        if max_steps == 0 || max_steps > 50_000_000 {
            return Err(self.err(
                &root.key("max_steps"),
                "max_steps must be between 1 and 50000000",
            ));
        }
        let schedule = match &raw.schedule {
            None => None,
            Some(list) => {
                let mut out = Vec::with_capacity(list.len());
                for (i, c) in list.iter().enumerate() {
                    let parsed = match c {
                        RawChoice::Num(n) => Some(Choice::new(*n, 0)),
                        RawChoice::Text(t) => Choice::parse(t),
                    };
                    out.push(parsed.ok_or_else(|| {
                        self.err(
                            &root.key("schedule").index(i),
                            "a schedule entry is a goroutine number (3) or goroutine.case (\"5.1\")",
                        )
                    })?);
                }
                Some(out)
            }
        };

        let mut sc = Scenario {
            name: raw.name.clone(),
            title: raw.title.clone().unwrap_or_else(|| raw.name.clone()),
            description: raw.description.clone().unwrap_or_default(),
            model: raw.model,
            version,
            seed: raw.seed.unwrap_or(1),
            max_steps,
            schedule,
            positions: Vec::new(),
            injections: Vec::new(),
            replica: Vec::new(),
            faults: Faults::default(),
            datacoord: Vec::new(),
            datanode: Vec::new(),
            actors: Vec::new(),
        };

        match raw.model {
            ModelKind::Flush2021 => self.check_flush_setup(&raw, &mut sc)?,
            ModelKind::Sync2024 => self.check_sync_setup(&raw, &mut sc)?,
        }

        if raw.actors.is_empty() {
            return Err(self.err(&root.key("actors"), "a scenario needs at least one actor"));
        }
        let total: usize = raw.actors.iter().map(|a| a.ops.len()).sum();
        if total > MAX_OPS {
            return Err(self.err(
                &root.key("actors"),
                format!("{total} ops in all; the limit is {MAX_OPS}"),
            ));
        }
        let mut names = BTreeSet::new();
        let mut pos_index: BTreeMap<String, PosId> = BTreeMap::new();
        for (ai, a) in raw.actors.iter().enumerate() {
            let ap = root.key("actors").index(ai);
            if a.name.trim().is_empty() {
                return Err(self.err(&ap.key("name"), "an actor needs a non-empty name"));
            }
            if !names.insert(a.name.clone()) {
                return Err(self.err(
                    &ap.key("name"),
                    format!("two actors are named \"{}\"", a.name),
                ));
            }
            let mut ops = Vec::with_capacity(a.ops.len());
            for (oi, o) in a.ops.iter().enumerate() {
                let op = self.check_op(&sc, o, &ap.key("ops").index(oi), &mut pos_index)?;
                ops.push(op);
            }
            sc.actors.push(Actor {
                name: a.name.clone(),
                ops,
            });
        }
        let mut positions = vec![String::new(); pos_index.len()];
        for (name, id) in pos_index {
            positions[id as usize] = name;
        }
        sc.positions = positions;
        self.resolve_wait_for(&raw, &mut sc)?;
        self.check_whole(&sc)?;
        Ok(sc)
    }

    /// Resolves the actor names of `wait_for` ops and refuses waits that can never
    /// end: on the actor itself, on an op it does not have, or in a cycle.
    fn resolve_wait_for(&self, raw: &RawScenario, sc: &mut Scenario) -> Result<(), ScenarioError> {
        let root = JsonPath::root();
        let op_path = |ai: usize, oi: usize| root.key("actors").index(ai).key("ops").index(oi);
        let by_name: BTreeMap<String, usize> = sc
            .actors
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        for (ai, a) in raw.actors.iter().enumerate() {
            for (oi, o) in a.ops.iter().enumerate() {
                if o.op != OpName::WaitFor {
                    continue;
                }
                let name = o.actor.as_deref().unwrap_or_default();
                let p = op_path(ai, oi);
                let Some(&target) = by_name.get(name) else {
                    let known: Vec<&str> = sc.actors.iter().map(|a| a.name.as_str()).collect();
                    return Err(self.err(
                        &p.key("actor"),
                        format!(
                            "unknown actor \"{name}\"; the actors are {}",
                            known.join(", ")
                        ),
                    ));
                };
                if target == ai {
                    return Err(self.err(
                        &p.key("actor"),
                        "an actor cannot wait for one of its own ops: it runs them in order",
                    ));
                }
                let index = o.index.unwrap_or_default();
                let len = sc.actors[target].ops.len();
                if index as usize >= len {
                    return Err(self.err(
                        &p.key("index"),
                        format!("actor \"{name}\" has {len} op(s) (indices 0 to {}), so op {index} never returns", len.saturating_sub(1)),
                    ));
                }
                sc.actors[ai].ops[oi] = Op::WaitFor {
                    actor: target as u16,
                    index,
                };
            }
        }
        // A cycle of waits (a waits for b's op that comes after b waits for a's op)
        // would deadlock before the run starts: find one with Kahn's algorithm over the
        // ops (program order edges plus wait_for edges), in O(ops).
        let offsets: Vec<usize> = sc
            .actors
            .iter()
            .scan(0, |acc, a| {
                let o = *acc;
                *acc += a.ops.len();
                Some(o)
            })
            .collect();
        let total: usize = sc.actors.iter().map(|a| a.ops.len()).sum();
        let mut indeg = vec![0u32; total];
        let mut waiters: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (ai, a) in sc.actors.iter().enumerate() {
            for (oi, op) in a.ops.iter().enumerate() {
                let node = offsets[ai] + oi;
                if oi > 0 {
                    indeg[node] += 1;
                }
                if let Op::WaitFor { actor, index } = *op {
                    indeg[node] += 1;
                    waiters
                        .entry(offsets[actor as usize] + index as usize)
                        .or_default()
                        .push(node);
                }
            }
        }
        let mut ready: Vec<usize> = (0..total).filter(|n| indeg[*n] == 0).collect();
        let mut seen = 0usize;
        while let Some(n) = ready.pop() {
            seen += 1;
            let actor = offsets.partition_point(|o| *o <= n) - 1;
            let next = n + 1;
            if next < offsets[actor] + sc.actors[actor].ops.len() {
                indeg[next] -= 1;
                if indeg[next] == 0 {
                    ready.push(next);
                }
            }
            for w in waiters.remove(&n).unwrap_or_default() {
                indeg[w] -= 1;
                if indeg[w] == 0 {
                    ready.push(w);
                }
            }
        }
        if seen < total {
            let stuck = (0..total).find(|n| {
                indeg[*n] > 0 && {
                    let actor = offsets.partition_point(|o| *o <= *n) - 1;
                    matches!(sc.actors[actor].ops[n - offsets[actor]], Op::WaitFor { .. })
                }
            });
            let at = stuck.map_or(root.key("actors"), |n| {
                let actor = offsets.partition_point(|o| *o <= n) - 1;
                op_path(actor, n - offsets[actor])
            });
            return Err(self.err(
                &at,
                "this wait_for is part of a cycle of waits (each actor waits for an op the other reaches only after its own wait): the run could never start it",
            ));
        }
        Ok(())
    }

    fn check_flush_setup(&self, raw: &RawScenario, sc: &mut Scenario) -> Result<(), ScenarioError> {
        let root = JsonPath::root();
        for (key, here) in [
            ("datacoord", raw.datacoord.is_some()),
            ("datanode", raw.datanode.is_some()),
        ] {
            if here {
                return Err(self.err(
                    &root.key(key),
                    format!("\"{key}\" belongs to sync-2024 scenarios"),
                ));
            }
        }
        if let Some(injs) = &raw.injections {
            if injs.len() > usize::from(u16::MAX) {
                return Err(self.err(&root.key("injections"), "too many injections"));
            }
            for (id, inj) in injs {
                let p = root.key("injections").key(id);
                if inj.segments.is_empty() {
                    return Err(self.err(
                        &p.key("segments"),
                        format!("injection \"{id}\" lists no segments"),
                    ));
                }
                let mut seen = BTreeSet::new();
                for (i, s) in inj.segments.iter().enumerate() {
                    if !seen.insert(*s) {
                        return Err(self.err(
                            &p.key("segments").index(i),
                            format!("injection \"{id}\" lists segment {s} twice; injectFlush takes distinct segments"),
                        ));
                    }
                }
                if inj.segments.len() > 1000 {
                    return Err(self.err(
                        &p.key("segments"),
                        "an injection may name at most 1000 segments",
                    ));
                }
                sc.injections.push(Injection {
                    id: id.clone(),
                    segments: inj.segments.clone(),
                    remap_to: inj.remap_to,
                });
            }
        }
        if let Some(rep) = &raw.replica {
            let mut seen = BTreeSet::new();
            for (i, r) in rep.iter().enumerate() {
                let p = root.key("replica").index(i);
                if !seen.insert(r.segment) {
                    return Err(self.err(
                        &p.key("segment"),
                        format!("segment {} is in the replica twice", r.segment),
                    ));
                }
                if r.rows < 0 || r.rows > 1_000_000_000_000 {
                    return Err(self.err(
                        &p.key("rows"),
                        format!("rows must be between 0 and 10^12, not {}", r.rows),
                    ));
                }
                let at = sc.replica.partition_point(|x| x.segment < r.segment);
                sc.replica.insert(
                    at,
                    ReplicaSegment {
                        segment: r.segment,
                        state: r.state,
                        rows: r.rows,
                    },
                );
            }
        }
        if let Some(f) = &raw.faults {
            for (key, n) in [
                ("save_binlog_paths", f.save_binlog_paths),
                ("drop_virtual_channel", f.drop_virtual_channel),
            ] {
                if n > 1000 {
                    return Err(self.err(
                        &root.key("faults").key(key),
                        format!("{n} failures is absurd; the limit is 1000"),
                    ));
                }
            }
            sc.faults = Faults {
                save_binlog_paths: f.save_binlog_paths,
                drop_virtual_channel: f.drop_virtual_channel,
            };
        }
        Ok(())
    }

    fn check_sync_setup(&self, raw: &RawScenario, sc: &mut Scenario) -> Result<(), ScenarioError> {
        let root = JsonPath::root();
        for (key, here) in [
            ("injections", raw.injections.is_some()),
            ("replica", raw.replica.is_some()),
            ("faults", raw.faults.is_some()),
        ] {
            if here {
                return Err(self.err(
                    &root.key(key),
                    format!("\"{key}\" belongs to flush-2021 scenarios"),
                ));
            }
        }
        let mut partition_of: BTreeMap<i64, (i64, JsonPath)> = BTreeMap::new();
        let mut note = |seg: i64,
                        part: i64,
                        p: JsonPath,
                        this: &Self|
         -> Result<(), ScenarioError> {
            if let Some((other, where_)) = partition_of.get(&seg) {
                if *other != part {
                    return Err(this.err(
                        &p.key("partition"),
                        format!("segment {seg} is in partition {part} here but in partition {other} at {where_}"),
                    ));
                }
            } else {
                partition_of.insert(seg, (part, p));
            }
            Ok(())
        };
        let rows_ok = |rows: i64| (0..=1_000_000_000_000).contains(&rows);
        for (list, key) in [(raw.datacoord.as_deref().unwrap_or(&[]), "datacoord")] {
            let mut seen = BTreeSet::new();
            for (i, d) in list.iter().enumerate() {
                let p = root.key(key).index(i);
                if !seen.insert(d.segment) {
                    return Err(self.err(
                        &p.key("segment"),
                        format!("segment {} is listed twice in {key}", d.segment),
                    ));
                }
                if !rows_ok(d.rows) {
                    return Err(self.err(
                        &p.key("rows"),
                        format!("rows must be between 0 and 10^12, not {}", d.rows),
                    ));
                }
                note(d.segment, d.partition, p.clone(), self)?;
                let at = sc.datacoord.partition_point(|x| x.segment < d.segment);
                sc.datacoord.insert(
                    at,
                    DcSegment {
                        segment: d.segment,
                        partition: d.partition,
                        state: d.state,
                        level: d.level,
                        statslog: d.statslog,
                        rows: d.rows,
                    },
                );
            }
        }
        let mut seen = BTreeSet::new();
        for (i, d) in raw.datanode.as_deref().unwrap_or(&[]).iter().enumerate() {
            let p = root.key("datanode").index(i);
            if !seen.insert(d.segment) {
                return Err(self.err(
                    &p.key("segment"),
                    format!("segment {} is listed twice in datanode", d.segment),
                ));
            }
            if !rows_ok(d.rows) {
                return Err(self.err(
                    &p.key("rows"),
                    format!("rows must be between 0 and 10^12, not {}", d.rows),
                ));
            }
            note(d.segment, d.partition, p.clone(), self)?;
            let at = sc.datanode.partition_point(|x| x.segment < d.segment);
            sc.datanode.insert(
                at,
                DnSegment {
                    segment: d.segment,
                    partition: d.partition,
                    state: d.state,
                    level: d.level,
                    rows: d.rows,
                },
            );
        }
        Ok(())
    }

    fn check_op(
        &self,
        sc: &Scenario,
        o: &RawOp,
        p: &JsonPath,
        pos_index: &mut BTreeMap<String, PosId>,
    ) -> Result<Op, ScenarioError> {
        let (allowed, needed): (&[&str], &[&str]) = match o.op {
            OpName::FlushInsert => (
                &["segment", "pos", "flushed", "dropped", "fail"],
                &["segment", "pos"],
            ),
            OpName::FlushDelete => (&["segment", "pos", "fail"], &["segment", "pos"]),
            OpName::Inject | OpName::WaitInjected => (&["id"], &["id"]),
            OpName::InjectDone => (&["id", "success"], &["id", "success"]),
            OpName::StartDropping | OpName::NotifyAllFlushed | OpName::Close => (&[], &[]),
            OpName::WaitNotified => (&["count"], &["count"]),
            OpName::WaitFor => (&["actor", "index"], &["actor", "index"]),
            OpName::Insert => (
                &["segment", "partition", "rows"],
                &["segment", "partition", "rows"],
            ),
            OpName::Seal => (&["segment"], &["segment"]),
            OpName::Sync => (&["segment", "flush"], &["segment"]),
            OpName::SyncSegments => (&["partition"], &["partition"]),
        };
        let is_flush_op = matches!(
            o.op,
            OpName::FlushInsert
                | OpName::FlushDelete
                | OpName::Inject
                | OpName::WaitInjected
                | OpName::InjectDone
                | OpName::StartDropping
                | OpName::NotifyAllFlushed
                | OpName::Close
                | OpName::WaitNotified
        );
        match (sc.model, is_flush_op) {
            _ if o.op == OpName::WaitFor => {}
            (ModelKind::Flush2021, false) => {
                return Err(self.err(
                    &p.key("op"),
                    format!(
                        "this op belongs to sync-2024 scenarios; flush-2021 ops are {FLUSH_OPS}"
                    ),
                ))
            }
            (ModelKind::Sync2024, true) => {
                return Err(self.err(
                    &p.key("op"),
                    format!(
                        "this op belongs to flush-2021 scenarios; sync-2024 ops are {SYNC_OPS}"
                    ),
                ))
            }
            _ => {}
        }
        let present = o.present();
        let name = o.op.as_str();
        for f in &present {
            if !allowed.contains(f) {
                return Err(self.err(
                    &p.key(f),
                    format!(
                        "field \"{f}\" does not apply to op {name} (its fields: {})",
                        list_or_none(allowed)
                    ),
                ));
            }
        }
        for f in needed {
            if !present.contains(f) {
                return Err(self.err(p, format!("op {name} needs \"{f}\"")));
            }
        }
        let inj = |this: &Self| -> Result<InjId, ScenarioError> {
            let id = o.id.as_deref().unwrap_or_default();
            sc.injections
                .iter()
                .position(|i| i.id == id)
                .map(|i| i as InjId)
                .ok_or_else(|| {
                    let known: Vec<&str> = sc.injections.iter().map(|i| i.id.as_str()).collect();
                    this.err(
                        &p.key("id"),
                        format!(
                            "unknown injection \"{id}\"; declared injections: {}",
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        ),
                    )
                })
        };
        let fail = |this: &Self| -> Result<u32, ScenarioError> {
            let f = o.fail.unwrap_or(0);
            if f > RETRY_ATTEMPTS {
                return Err(this.err(
                    &p.key("fail"),
                    format!("fail is {f}, but retry.Do makes only {RETRY_ATTEMPTS} attempts; use {RETRY_ATTEMPTS} for a final failure"),
                ));
            }
            Ok(f)
        };
        let mut pos = |this: &Self| -> Result<PosId, ScenarioError> {
            let s = o.pos.clone().unwrap_or_default();
            if s.is_empty() || s.len() > 64 {
                return Err(this.err(
                    &p.key("pos"),
                    "a position (MsgID) is a string of 1 to 64 characters",
                ));
            }
            let next = pos_index.len() as PosId;
            Ok(*pos_index.entry(s).or_insert(next))
        };
        Ok(match o.op {
            OpName::FlushInsert => Op::FlushInsert {
                segment: o.segment.unwrap_or_default(),
                pos: pos(self)?,
                flushed: o.flushed.unwrap_or(false),
                dropped: o.dropped.unwrap_or(false),
                fail: fail(self)?,
            },
            OpName::FlushDelete => Op::FlushDelete {
                segment: o.segment.unwrap_or_default(),
                pos: pos(self)?,
                fail: fail(self)?,
            },
            OpName::Inject => Op::Inject { inj: inj(self)? },
            OpName::WaitInjected => Op::WaitInjected { inj: inj(self)? },
            OpName::InjectDone => Op::InjectDone {
                inj: inj(self)?,
                success: o.success.unwrap_or(false),
            },
            OpName::StartDropping => Op::StartDropping,
            OpName::NotifyAllFlushed => Op::NotifyAllFlushed,
            OpName::Close => Op::Close,
            OpName::WaitNotified => {
                let count = o.count.unwrap_or(0);
                if count == 0 || count as usize > MAX_OPS {
                    return Err(self.err(
                        &p.key("count"),
                        format!("count must be between 1 and {MAX_OPS}, not {count}"),
                    ));
                }
                Op::WaitNotified { count }
            }
            // The actor is resolved once every actor is known (`resolve_wait_for`).
            OpName::WaitFor => Op::WaitFor {
                actor: u16::MAX,
                index: o.index.unwrap_or_default(),
            },
            OpName::Insert => {
                let rows = o.rows.unwrap_or(0);
                if !(1..=1_000_000_000).contains(&rows) {
                    return Err(self.err(
                        &p.key("rows"),
                        format!("an insert carries 1 to 10^9 rows, not {rows}"),
                    ));
                }
                Op::Insert {
                    segment: o.segment.unwrap_or_default(),
                    partition: o.partition.unwrap_or_default(),
                    rows,
                }
            }
            OpName::Seal => Op::Seal {
                segment: o.segment.unwrap_or_default(),
            },
            OpName::Sync => Op::Sync {
                segment: o.segment.unwrap_or_default(),
                flush: o.flush.unwrap_or(false),
            },
            OpName::SyncSegments => Op::SyncSegments {
                partition: o.partition.unwrap_or_default(),
            },
        })
    }

    /// Checks that need the whole scenario: ids named by ops exist, counts are possible.
    fn check_whole(&self, sc: &Scenario) -> Result<(), ScenarioError> {
        let root = JsonPath::root();
        let op_path = |ai: usize, oi: usize| root.key("actors").index(ai).key("ops").index(oi);
        match sc.model {
            ModelKind::Flush2021 => {
                let mut done_seen: BTreeMap<InjId, (usize, usize)> = BTreeMap::new();
                let mut inject_seen: BTreeMap<InjId, (usize, usize)> = BTreeMap::new();
                let mut start_dropping = None;
                let mut packs_possible = 0u64;
                for (ai, a) in sc.actors.iter().enumerate() {
                    for (oi, op) in a.ops.iter().enumerate() {
                        match op {
                            Op::InjectDone { inj, .. } => {
                                if let Some((a0, o0)) = done_seen.insert(*inj, (ai, oi)) {
                                    return Err(self.err(
                                        &op_path(ai, oi),
                                        format!(
                                            "injection \"{}\" is already finished at {}: a second injectDone would close or fill injectOver twice",
                                            sc.inj_name(*inj),
                                            op_path(a0, o0)
                                        ),
                                    ));
                                }
                            }
                            Op::Inject { inj } => {
                                if let Some((a0, o0)) = inject_seen.insert(*inj, (ai, oi)) {
                                    return Err(self.err(
                                        &op_path(ai, oi),
                                        format!(
                                            "injection \"{}\" is already injected at {}: a second injectFlush of one taskInjection would call injectOne more often than its WaitGroup allows (Go panics: negative WaitGroup counter)",
                                            sc.inj_name(*inj),
                                            op_path(a0, o0)
                                        ),
                                    ));
                                }
                            }
                            Op::StartDropping => {
                                if let Some((a0, o0)) = start_dropping.replace((ai, oi)) {
                                    return Err(self.err(
                                        &op_path(ai, oi),
                                        format!("start_dropping is already called at {}; the flow graph calls it once", op_path(a0, o0)),
                                    ));
                                }
                            }
                            Op::FlushInsert { .. } | Op::FlushDelete { .. } => packs_possible += 1,
                            _ => {}
                        }
                    }
                }
                for (ai, a) in sc.actors.iter().enumerate() {
                    for (oi, op) in a.ops.iter().enumerate() {
                        if let Op::WaitNotified { count } = op {
                            if u64::from(*count) > packs_possible {
                                return Err(self.err(
                                    &op_path(ai, oi).key("count"),
                                    format!("count {count} can never be reached: the scenario has only {packs_possible} flush ops"),
                                ));
                            }
                        }
                    }
                }
            }
            ModelKind::Sync2024 => {
                let dc: BTreeMap<i64, &DcSegment> =
                    sc.datacoord.iter().map(|d| (d.segment, d)).collect();
                let dn: BTreeMap<i64, &DnSegment> =
                    sc.datanode.iter().map(|d| (d.segment, d)).collect();
                let mut partitions: BTreeSet<i64> =
                    sc.datacoord.iter().map(|d| d.partition).collect();
                partitions.extend(sc.datanode.iter().map(|d| d.partition));
                for (ai, a) in sc.actors.iter().enumerate() {
                    for (oi, op) in a.ops.iter().enumerate() {
                        let p = op_path(ai, oi);
                        match *op {
                            Op::Insert {
                                segment, partition, ..
                            } => {
                                let Some(d) = dc.get(&segment) else {
                                    return Err(self.err(
                                        &p.key("segment"),
                                        format!("segment {segment} is not in datacoord's view; datacoord allocates every segment the flow graph inserts into (AssignSegmentID)"),
                                    ));
                                };
                                if d.partition != partition {
                                    return Err(self.err(
                                        &p.key("partition"),
                                        format!("segment {segment} belongs to partition {}, not {partition}", d.partition),
                                    ));
                                }
                            }
                            Op::Seal { segment } | Op::Sync { segment, .. }
                                if !dc.contains_key(&segment) && !dn.contains_key(&segment) =>
                            {
                                return Err(self.err(
                                    &p.key("segment"),
                                    format!("segment {segment} is neither in datacoord's view nor in the datanode's metacache"),
                                ));
                            }
                            Op::SyncSegments { partition } if !partitions.contains(&partition) => {
                                return Err(self.err(
                                    &p.key("partition"),
                                    format!("partition {partition} has no segments in the setup; the collection's partitions are {}", join_ids(&partitions)),
                                ));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn join_ids(ids: &BTreeSet<i64>) -> String {
    if ids.is_empty() {
        return "none".to_owned();
    }
    ids.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_or_none(l: &[&str]) -> String {
    if l.is_empty() {
        "none".to_owned()
    } else {
        l.join(", ")
    }
}

impl OpName {
    /// The op name as the file spells it.
    fn as_str(self) -> &'static str {
        match self {
            OpName::FlushInsert => "flush_insert",
            OpName::FlushDelete => "flush_delete",
            OpName::Inject => "inject",
            OpName::WaitInjected => "wait_injected",
            OpName::InjectDone => "inject_done",
            OpName::StartDropping => "start_dropping",
            OpName::NotifyAllFlushed => "notify_all_flushed",
            OpName::Close => "close",
            OpName::WaitNotified => "wait_notified",
            OpName::WaitFor => "wait_for",
            OpName::Insert => "insert",
            OpName::Seal => "seal",
            OpName::Sync => "sync",
            OpName::SyncSegments => "sync_segments",
        }
    }
}
