//! A sync-2024 scenario: the header, the Milvus version, datacoord's segments and
//! the datanode's metacache at the start, and the actors' ops. Reading and
//! checking the file's sync-2024 part lives here too.

use serde::Serialize;

use crate::scenario::json::{Fields, Node, Res};
use crate::scenario::{
    self, op_path, Actor, Format, Header, ModelOp, OpNode, VersionInfo, WaitFor,
};

/// The model's name in scenario files.
pub const MODEL: &str = "sync-2024";

/// The keys and ops a sync-2024 scenario adds to the header.
/// Each sync-2024 step looks at every goroutine (readiness, the invariants), so a
/// run costs actors squared: 2,000 actors run in about half a second natively
/// (10,000 took 11 s, and froze the page for 22).
pub const SYNC_MAX_ACTORS: usize = 2_000;

pub const FORMAT: Format = Format {
    model: MODEL,
    fixed_at: None,
    versions: &VERSIONS,
    keys: &["version", "policy", "datacoord", "datanode"],
    ops: &["insert", "seal", "sync", "sync_segments"],
    max_actors: SYNC_MAX_ACTORS,
};

/// Rows a segment may start with.
const MAX_ROWS: i64 = 1_000_000_000_000;
/// Rows one insert may carry.
const MAX_INSERT_ROWS: i64 = 1_000_000_000;

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

/// The versions' commits, pull requests and summaries, in [`Version::ALL`] order.
pub static VERSIONS: [VersionInfo; 6] = [
    VersionInfo {
        id: "ca7ef26e4b",
        commit: "ca7ef26e4bf2bfc574737b622cc5fe7703e17806",
        pr: "#34027",
        summary: "buggy parent of #34056: datacoord sends healthy segments with a PK statslog; UpdateSegmentView spares only L0 Growing segments",
    },
    VersionInfo {
        id: "b5c9a7364b",
        commit: "b5c9a7364bf60736c2d56f7eb81a059d4ac8e69f",
        pr: "#34056",
        summary: "#34056 fix: UpdateSegmentView spares every Growing segment",
    },
    VersionInfo {
        id: "c65f41dc60",
        commit: "c65f41dc60fe5ad2102a1bc56f1190b414389239",
        pr: "#34156",
        summary: "#34156: datacoord sends only Flushing/Flushed segments, statslog optional; the datanode removes only Flushing/Flushed ones and loads every missing one",
    },
    VersionInfo {
        id: "4cf1a358ba",
        commit: "4cf1a358ba589dadefefb6aab7e2fcf06f9044fd",
        pr: "#34301",
        summary: "#34301: datacoord sends every healthy segment, statslog optional; the datanode removes only Flushed ones",
    },
    VersionInfo {
        id: "2e434e4453",
        commit: "2e434e44536d7b6ebe15b6b4d85b82b2d284f4a9",
        pr: "#34390",
        summary: "#34390: the datanode loads only missing Flushed segments that are neither L0 nor Legacy",
    },
    VersionInfo {
        id: "439fb24b32",
        commit: "439fb24b32b2ca7a5f3794d1ea4cb61cf0c7e467",
        pr: "#34388",
        summary: "#34388: datacoord leaves L0 segments out of the request",
    },
];

impl Version {
    pub const ALL: [Version; 6] = [
        Version::Ca7ef26e4b,
        Version::B5c9a7364b,
        Version::C65f41dc60,
        Version::V4cf1a358ba,
        Version::V2e434e4453,
        Version::V439fb24b32,
    ];

    pub fn info(self) -> &'static VersionInfo {
        &VERSIONS[self as usize]
    }
    /// The short commit, `ca7ef26e4b`.
    pub fn as_str(self) -> &'static str {
        self.info().id
    }
    /// The full commit hash.
    pub fn full(self) -> &'static str {
        self.info().commit
    }
    /// The pull request that made this commit.
    pub fn pr(self) -> &'static str {
        self.info().pr
    }
    /// One line for a reviewer: what this commit changed.
    pub fn summary(self) -> &'static str {
        self.info().summary
    }

    /// Whether datacoord's `SessionManagerImpl.SyncSegments` calls the datanode
    /// under a per-attempt deadline, so that an attempt can time out while the
    /// datanode's handler runs and `retry.Do` sends the same request again:
    /// `context.WithTimeout(.., CompactionRPCTimeout)` (10 s) inside the retry
    /// closure at session_manager.go:240-250@ca7ef26e4b (the same lines at
    /// b5c9a7364b, c65f41dc60, 4cf1a358ba); #34226 calls with
    /// `context.Background()` instead (session_manager.go:240-242@2e434e4453,
    /// and at 439fb24b32), so no attempt times out there.
    pub fn attempt_deadline(self) -> bool {
        !matches!(self, Version::V2e434e4453 | Version::V439fb24b32)
    }

    /// Accepts the short hash or any longer prefix of the full hash (7 characters at least).
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim().to_ascii_lowercase();
        if s.len() < 7 {
            return None;
        }
        Version::ALL.into_iter().find(|v| v.full().starts_with(&s))
    }

    pub fn list() -> String {
        Version::ALL.map(Version::as_str).join(", ")
    }
}

/// Segment state, as in `commonpb.SegmentState` (the subset the model uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum SegState {
    Growing,
    Sealed,
    Flushing,
    Flushed,
    Dropped,
}

impl SegState {
    pub const ALL: [SegState; 5] = [
        SegState::Growing,
        SegState::Sealed,
        SegState::Flushing,
        SegState::Flushed,
        SegState::Dropped,
    ];
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Level {
    Legacy,
    L0,
    L1,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Legacy, Level::L0, Level::L1];
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Legacy => "Legacy",
            Level::L0 => "L0",
            Level::L1 => "L1",
        }
    }
}

/// A checked sync-2024 op.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
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
        /// `"retried": true`: the first attempt times out at datacoord and is
        /// sent again with the same request (knob [`super::Deadline`]).
        retried: bool,
    },
    WaitFor(WaitFor),
}

impl ModelOp for Op {
    fn wait_for(w: WaitFor) -> Op {
        Op::WaitFor(w)
    }
    fn as_wait_for(&self) -> Option<WaitFor> {
        match self {
            Op::WaitFor(w) => Some(*w),
            _ => None,
        }
    }
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::Insert { .. } => "insert",
            Op::Seal { .. } => "seal",
            Op::Sync { .. } => "sync",
            Op::SyncSegments { .. } => "sync_segments",
            Op::WaitFor(_) => "wait_for",
        }
    }
}

/// A segment in datacoord's meta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DcSegment {
    pub segment: i64,
    pub partition: i64,
    pub state: SegState,
    pub level: Level,
    pub statslog: bool,
    pub rows: i64,
}

/// A segment in the datanode's metacache at the start; also how the JSON report
/// lists the final metacache.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DnSegment {
    pub segment: i64,
    pub partition: i64,
    pub state: SegState,
    pub level: Level,
    pub rows: i64,
}

/// A checked sync-2024 scenario: the model (`&self` of [`crate::engine::Model`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scenario {
    pub head: Header,
    pub version: Version,
    /// Datacoord's segments, sorted by id.
    pub datacoord: Vec<DcSegment>,
    /// The datanode's metacache at the start, sorted by id.
    pub datanode: Vec<DnSegment>,
    pub actors: Vec<Actor<Op>>,
    /// The knobs set apart from the version's preset (`"policy"`), each `None` to
    /// follow the version.
    pub policy: Policy,
}

/// A scenario's `"policy"`: knobs set independently of the version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Policy {
    pub request: Option<super::RequestFilter>,
    pub keep: Option<super::ViewKeep>,
    pub load: Option<super::LoadRule>,
    pub deadline: Option<super::Deadline>,
}

impl Scenario {
    /// Whether an op is `"retried"` (the knob `deadline` then matters).
    pub fn retried(&self) -> bool {
        self.actors.iter().any(|a| {
            a.ops
                .iter()
                .any(|o| matches!(o, Op::SyncSegments { retried: true, .. }))
        })
    }

    /// Whether the scenario shows the knob `deadline`: it has a `"retried"` op,
    /// or its policy sets the knob.
    pub fn shows_deadline(&self) -> bool {
        self.policy.deadline.is_some() || self.retried()
    }

    /// Runs the scenario at another version.
    pub fn at_version(&mut self, v: Version) {
        self.version = v;
        self.head.version = Some(v.as_str());
    }

    /// Reads a sync-2024 scenario from its JSON tree (`formats`: every model's, to
    /// name the model a foreign key or op belongs to).
    pub fn read(root: &Node, formats: &[Format]) -> Res<Scenario> {
        let (top, mut head) = scenario::header(root, &FORMAT, formats)?;
        let version = version(&top)?;
        head.version = Some(version.as_str());
        let policy = policy(&top)?;
        let datacoord = segments(&top, "datacoord", |f, seg| {
            Ok(DcSegment {
                segment: seg.segment,
                partition: seg.partition,
                state: seg.state,
                level: seg.level,
                statslog: f
                    .req("statslog", "a datacoord segment")?
                    .bool("whether it has a PK statslog")?,
                rows: seg.rows,
            })
        })?;
        let datanode = segments(&top, "datanode", |_, seg| {
            Ok(DnSegment {
                segment: seg.segment,
                partition: seg.partition,
                state: seg.state,
                level: seg.level,
                rows: seg.rows,
            })
        })?;
        consistent(&datacoord, &datanode)?;
        let actors = scenario::actors(&top, &FORMAT, formats, read_op)?;
        let sc = Scenario {
            head,
            version,
            datacoord: datacoord.into_iter().map(|x| x.value).collect(),
            datanode: datanode.into_iter().map(|x| x.value).collect(),
            actors,
            policy,
        };
        sc.check_whole(top.node())?;
        Ok(sc)
    }

    /// Checks that need the whole scenario: the segments and partitions ops name exist.
    fn check_whole(&self, root: &Node) -> Res<()> {
        // Both lists are sorted by segment.
        let dc = |s: i64| {
            self.datacoord
                .binary_search_by_key(&s, |d| d.segment)
                .ok()
                .map(|i| &self.datacoord[i])
        };
        let in_dn = |s: i64| {
            self.datanode
                .binary_search_by_key(&s, |d| d.segment)
                .is_ok()
        };
        // A request may name a partition no segment is in: datacoord ranges over
        // the collection's partitions (sync_segments_scheduler.go:100@ca7ef26e4b), and a
        // new partition has none; the request is empty (services.go:291@ca7ef26e4b).
        for (ai, a) in self.actors.iter().enumerate() {
            for (oi, op) in a.ops.iter().enumerate() {
                let at = |key: &str, msg: String| root.src.err(&op_path(ai, oi).key(key), msg);
                match *op {
                    Op::Insert {
                        segment, partition, ..
                    } => {
                        let Some(d) = dc(segment) else {
                            return Err(at("segment", format!("segment {segment} is not in datacoord's view; datacoord allocates every segment the flow graph inserts into (AssignSegmentID)")));
                        };
                        if d.partition != partition {
                            return Err(at(
                                "partition",
                                format!(
                                    "segment {segment} belongs to partition {}, not {partition}",
                                    d.partition
                                ),
                            ));
                        }
                    }
                    Op::Seal { segment } | Op::Sync { segment, .. }
                        if dc(segment).is_none() && !in_dn(segment) =>
                    {
                        return Err(at("segment", format!("segment {segment} is neither in datacoord's view nor in the datanode's metacache")));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// The `"policy"` object: `request`, `keep` and `load`, each optional, by the
/// names [`super::knobs::REQUEST_SETTINGS`] and its siblings list.
fn policy(top: &Fields) -> Res<Policy> {
    let Some(node) = top.get("policy") else {
        return Ok(Policy::default());
    };
    let f = node.fields(
        "the knobs set apart from the version",
        &["request", "keep", "load", "deadline"],
    )?;
    fn pick<T: Copy>(f: &Fields, key: &str, all: &super::knobs::Settings<T>) -> Res<Option<T>> {
        let Some(n) = f.get(key) else { return Ok(None) };
        let v = n.str("a knob's setting")?;
        match all.iter().find(|x| x.0 == v) {
            Some(x) => Ok(Some(x.2)),
            None => Err(n.err(format!(
                "unknown {key} \"{}\"; one of {}",
                scenario::json::short(v),
                all.iter().map(|x| x.0).collect::<Vec<_>>().join(", ")
            ))),
        }
    }
    Ok(Policy {
        request: pick(&f, "request", super::knobs::REQUEST_SETTINGS)?,
        keep: pick(&f, "keep", super::knobs::KEEP_SETTINGS)?,
        load: pick(&f, "load", super::knobs::LOAD_SETTINGS)?,
        deadline: pick(&f, "deadline", super::knobs::DEADLINE_SETTINGS)?,
    })
}

fn version(top: &Fields) -> Res<Version> {
    let Some(n) = top.get("version") else {
        return Err(top.node().err(format!(
            "a sync-2024 scenario names its Milvus \"version\" (one of {})",
            Version::list()
        )));
    };
    let v = n.str("a Milvus commit")?;
    Version::parse(v).ok_or_else(|| {
        n.err(format!(
            "unknown version \"{}\"; the sync-2024 model knows {}",
            scenario::json::short(v),
            Version::list()
        ))
    })
}

/// The fields both segment lists share.
struct SegFields {
    segment: i64,
    partition: i64,
    state: SegState,
    level: Level,
    rows: i64,
}

/// One entry of a segment list: its segment and partition, its node, and what the
/// list keeps of it.
struct Listed<'a, 't, T> {
    segment: i64,
    partition: i64,
    node: Node<'a, 't>,
    value: T,
}

/// Reads the segment list `key`, sorted by segment; a segment listed twice is
/// refused where it comes the second time.
fn segments<'a, 't, T>(
    top: &Fields<'a, 't>,
    key: &str,
    make: impl Fn(&Fields, SegFields) -> Res<T>,
) -> Res<Vec<Listed<'a, 't, T>>> {
    let Some(node) = top.get(key) else {
        return Ok(Vec::new());
    };
    let (what, allowed): (&str, &[&str]) = if key == "datacoord" {
        (
            "a datacoord segment",
            &["segment", "partition", "state", "level", "statslog", "rows"],
        )
    } else {
        (
            "a metacache segment",
            &["segment", "partition", "state", "level", "rows"],
        )
    };
    let states: Vec<&str> = SegState::ALL.iter().map(|s| s.as_str()).collect();
    let levels: Vec<&str> = Level::ALL.iter().map(|s| s.as_str()).collect();
    let mut out = Vec::new();
    for item in node.items(&format!("the {key} segments"))? {
        let f = item.fields(what, allowed)?;
        let segment = f.req("segment", what)?.i64("a segment id")?;
        let partition = f.req("partition", what)?.i64("a partition id")?;
        let state = SegState::ALL[f.req("state", what)?.one_of("segment state", &states)?];
        let level = Level::ALL[f.req("level", what)?.one_of("segment level", &levels)?];
        let rows = match f.get("rows") {
            Some(n) => n.int("rows", 0, MAX_ROWS)?,
            None => 0,
        };
        let value = make(
            &f,
            SegFields {
                segment,
                partition,
                state,
                level,
                rows,
            },
        )?;
        out.push(Listed {
            segment,
            partition,
            node: item,
            value,
        });
    }
    // Sorted by segment; the second of two equal segments is refused.
    let place = |x: &Listed<T>| x.node.path.0.last().map_or(0, seg_index);
    if let Some(i) = crate::order::sort_find_repeat(&mut out, |x| x.segment, place) {
        let (seg, node) = (out[i].segment, &out[i].node);
        return Err(node.src.err(
            &node.path.key("segment"),
            format!("segment {seg} is listed twice in {key}"),
        ));
    }
    Ok(out)
}

/// The index of a list item from the last step of its path.
fn seg_index(s: &crate::scenario::locate::Seg) -> usize {
    match s {
        crate::scenario::locate::Seg::Index(i) => *i,
        crate::scenario::locate::Seg::Key(_) => 0,
    }
}

/// A segment in both lists is one segment: the same partition, and L0 on both sides
/// or on neither (datacoord sets the level when it creates a segment: `CreateL0Operator`
/// for L0; only clustering compaction changes a level later, L1 to L2,
/// meta.go:768@ca7ef26e4b). Refused at the datanode's entry.
///
/// A segment Dropped in the metacache while datacoord still has it alive is accepted
/// (issue 10 asked to refuse it, but the Go code allows it): the datanode marks a
/// dropped partition's segments Dropped before datacoord hears of the drop
/// (`dropPartitions`, write_buffer.go:321-327@ca7ef26e4b), and a SyncSegments request
/// built from datacoord's meta before that can still arrive.
fn consistent(dc: &[Listed<DcSegment>], dn: &[Listed<DnSegment>]) -> Res<()> {
    for d in dn {
        let Ok(i) = dc.binary_search_by_key(&d.segment, |x| x.segment) else {
            continue;
        };
        let (c, at, seg) = (&dc[i], &dc[i].node.path, d.segment);
        let refuse = |key: &str, msg: String| Err(d.node.src.err(&d.node.path.key(key), msg));
        if c.partition != d.partition {
            let (here, other) = (d.partition, c.partition);
            return refuse(
                "partition",
                format!(
                    "segment {seg} is in partition {here} here but in partition {other} at {at}"
                ),
            );
        }
        if (c.value.level == Level::L0) != (d.value.level == Level::L0) {
            let (here, other) = (d.value.level.as_str(), c.value.level.as_str());
            return refuse(
                "level",
                format!("segment {seg} is {here} here but {other} at {at}; a segment's level is set when datacoord creates it, so L0 on one side only cannot happen"),
            );
        }
    }
    Ok(())
}

fn read_op(o: &OpNode) -> Res<Op> {
    let id = |f: &scenario::OpFields, key: &str| {
        f.req(key)?.i64(if key == "segment" {
            "a segment id"
        } else {
            "a partition id"
        })
    };
    Ok(match o.name {
        "insert" => {
            let f = o.fields(&["segment", "partition", "rows"])?;
            let rows_node = f.req("rows")?;
            let rows = rows_node.i64("rows")?;
            if !(1..=MAX_INSERT_ROWS).contains(&rows) {
                return Err(rows_node.err(format!("an insert carries 1 to 10^9 rows, not {rows}")));
            }
            Op::Insert {
                segment: id(&f, "segment")?,
                partition: id(&f, "partition")?,
                rows,
            }
        }
        "seal" => Op::Seal {
            segment: id(&o.fields(&["segment"])?, "segment")?,
        },
        "sync" => {
            let f = o.fields(&["segment", "flush"])?;
            Op::Sync {
                segment: id(&f, "segment")?,
                flush: f.flag("flush")?,
            }
        }
        "sync_segments" => {
            let f = o.fields(&["partition", "retried"])?;
            Op::SyncSegments {
                partition: id(&f, "partition")?,
                retried: f.flag("retried")?,
            }
        }
        other => unreachable!("op {other} is not in FORMAT.ops"),
    })
}

/// The listed scaled #34018 scenario (see [`scaled_json`]).
pub const SCALED_4X3: &str = "sync-scaled-4x3";

/// A generated scenario by name: `sync-scaled-SxT`, S new growing segments (1 to
/// 12) and T SyncSegments ticks (1 to 8); see [`scaled_json`].
pub fn generated_json(name: &str) -> Option<String> {
    let (s, t) = name.strip_prefix("sync-scaled-")?.split_once('x')?;
    let (s, t) = (crate::builtin::count(s)?, crate::builtin::count(t)?);
    (SCALED_SEGMENTS.contains(&s) && SCALED_TICKS.contains(&t)).then(|| scaled_json(name, s, t))
}

/// The segments and the ticks `sync-scaled-SxT` comes with.
pub const SCALED_SEGMENTS: std::ops::RangeInclusive<u32> = 1..=12;
pub const SCALED_TICKS: std::ops::RangeInclusive<u32> = 1..=8;

/// #34018 scaled, as the explorer's benchmark: the flow graph inserts into and
/// syncs `segments` new growing L1 segments (300, 301, ...) that datacoord knows
/// without a PK statslog, while datacoord sends `ticks` SyncSegments requests.
/// At the fix (b5c9a7364b, the default here) no segment is lost; `--version
/// ca7ef26e4b` shows the panic.
pub fn scaled_json(name: &str, segments: u32, ticks: u32) -> String {
    let mut dc = vec![
        r#"{"segment":101,"partition":1,"state":"Flushed","level":"L1","statslog":true,"rows":1000}"#.to_owned(),
        r#"{"segment":102,"partition":1,"state":"Flushed","level":"L1","statslog":true,"rows":800}"#.to_owned(),
    ];
    let mut flow = Vec::new();
    for i in 0..segments {
        let seg = 300 + i;
        dc.push(format!(
            r#"{{"segment":{seg},"partition":1,"state":"Growing","level":"L1","statslog":false,"rows":0}}"#
        ));
        flow.push(format!(
            r#"{{"op":"insert","segment":{seg},"partition":1,"rows":10}},{{"op":"sync","segment":{seg}}}"#
        ));
    }
    let tick = r#"{"op":"sync_segments","partition":1}"#;
    let ticks = vec![tick; ticks as usize].join(",");
    format!(
        r##"{{"name":"{name}","title":"#34018 scaled: {segments} new growing segments, {ticks_n} SyncSegments ticks (the explorer's benchmark)","description":"The flow graph inserts into and syncs {segments} new growing L1 segments that datacoord knows without a PK statslog, while datacoord sends {ticks_n} SyncSegments requests. At the fix (b5c9a7364b) every interleaving keeps the segments; explore it with --version ca7ef26e4b to find the panic of #34018.","model":"sync-2024","version":"b5c9a7364b","seed":1,"datacoord":[{dc}],"datanode":[{dn}],"actors":[{{"name":"flowgraph","ops":[{flow}]}},{{"name":"datacoord","ops":[{ticks}]}}]}}"##,
        ticks_n = ticks.matches("sync_segments").count(),
        dc = dc.join(","),
        dn = r#"{"segment":101,"partition":1,"state":"Flushed","level":"L1","rows":1000},{"segment":102,"partition":1,"state":"Flushed","level":"L1","rows":800}"#,
        flow = flow.join(","),
    )
}
