//! The design space the Milvus versions are points of: which segments datacoord's
//! SyncSegments tick sends, which cached segments `UpdateSegmentView` spares, which
//! missing ones the datanode loads, and whether each attempt of datacoord's call
//! has a deadline. Each [`Version`] is a preset of these knobs.

use super::setup::{DcSegment, Level, SegState, Version};
use super::MetaSeg;

/// A segment in datacoord's meta: the scenario's record, kept up to date by the run.
pub type DcSeg = DcSegment;

/// Which of a partition's segments datacoord's SyncSegments tick puts in the request
/// (`sync_segments_scheduler.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestFilter {
    /// Healthy segments that have a PK statslog (:117-139@ca7ef26e4b).
    HealthyWithPkStatslog,
    /// Flushing or Flushed segments, statslog optional (:117-140@c65f41dc60).
    FlushingOrFlushed,
    /// Every healthy segment, statslog optional (:120-142@4cf1a358ba).
    Healthy,
    /// Every healthy segment but L0 ones, statslog optional (:121@439fb24b32).
    HealthyNotL0,
}

/// Which cached segments `UpdateSegmentView` spares when the request lacks them
/// (`meta_cache.go`, the removal loop's skip).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewKeep {
    /// L0 Growing segments (:294-295@ca7ef26e4b).
    L0Growing,
    /// Growing segments (:294-295@b5c9a7364b).
    Growing,
    /// Everything but Flushing and Flushed segments (:294-295@c65f41dc60).
    NotFlushingOrFlushed,
    /// Everything but Flushed segments (:297@4cf1a358ba).
    NotFlushed,
}

/// Which missing segments the datanode's SyncSegments handler loads and adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadRule {
    /// Every missing segment (services.go:314-335@ca7ef26e4b).
    EveryMissing,
    /// Missing Flushed segments that are neither L0 nor Legacy; a warning for L0 and
    /// Legacy ones (services.go:315-343@2e434e4453).
    FlushedNotL0,
}

/// How datacoord's `SessionManagerImpl.SyncSegments` calls the datanode in each
/// attempt of its `retry.Do`: what a `"retried"` op's first attempt can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Deadline {
    /// Under `context.WithTimeout(.., CompactionRPCTimeout)` (10 s): an attempt
    /// times out while the datanode's handler may still run, and the same
    /// request is sent again (session_manager.go:240-250@ca7ef26e4b, the same
    /// lines up to 4cf1a358ba).
    PerAttempt,
    /// Under `context.Background()`: no attempt times out, a `"retried"` mark
    /// has no effect (session_manager.go:240-242@2e434e4453, #34226).
    Background,
}

/// The design space the versions are points of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Knobs {
    pub request: RequestFilter,
    pub keep: ViewKeep,
    pub load: LoadRule,
    pub deadline: Deadline,
}

fn name_of<T: PartialEq>(all: &[(&'static str, T)], v: T) -> &'static str {
    all.iter().find(|x| x.1 == v).map_or("?", |x| x.0)
}

impl Knobs {
    /// The knobs a scenario runs with: its version's preset, with what its
    /// `"policy"` sets apart.
    pub fn with(v: Version, p: super::setup::Policy) -> Knobs {
        let k = Knobs::of(v);
        Knobs {
            request: p.request.unwrap_or(k.request),
            keep: p.keep.unwrap_or(k.keep),
            load: p.load.unwrap_or(k.load),
            deadline: p.deadline.unwrap_or(k.deadline),
        }
    }

    /// `request=healthy` for each knob that differs from `preset`.
    pub fn differences(&self, preset: Knobs) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.request != preset.request {
            out.push(name_of(PROPOSED_REQUEST, self.request));
        }
        if self.keep != preset.keep {
            out.push(name_of(PROPOSED_KEEP, self.keep));
        }
        if self.load != preset.load {
            out.push(name_of(PROPOSED_LOAD, self.load));
        }
        if self.deadline != preset.deadline {
            out.push(name_of(PROPOSED_DEADLINE, self.deadline));
        }
        out
    }

    /// The knobs of a Milvus commit.
    pub fn of(v: Version) -> Knobs {
        use LoadRule::*;
        use RequestFilter::*;
        use ViewKeep::*;
        let (request, keep, load) = match v {
            Version::Ca7ef26e4b => (HealthyWithPkStatslog, L0Growing, EveryMissing),
            Version::B5c9a7364b => (HealthyWithPkStatslog, Growing, EveryMissing),
            Version::C65f41dc60 => (FlushingOrFlushed, NotFlushingOrFlushed, EveryMissing),
            Version::V4cf1a358ba => (Healthy, NotFlushed, EveryMissing),
            Version::V2e434e4453 => (Healthy, NotFlushed, FlushedNotL0),
            Version::V439fb24b32 => (HealthyNotL0, NotFlushed, FlushedNotL0),
        };
        Knobs {
            request,
            keep,
            load,
            deadline: if v.attempt_deadline() {
                Deadline::PerAttempt
            } else {
                Deadline::Background
            },
        }
    }
}

/// `request=...`, `keep=...`, `load=...` labels of each setting (static strings
/// for [`crate::engine::Model::proposed`]).
const PROPOSED_REQUEST: &[(&str, RequestFilter)] = &[
    (
        "request=healthy_with_pk_statslog",
        RequestFilter::HealthyWithPkStatslog,
    ),
    (
        "request=flushing_or_flushed",
        RequestFilter::FlushingOrFlushed,
    ),
    ("request=healthy", RequestFilter::Healthy),
    ("request=healthy_not_l0", RequestFilter::HealthyNotL0),
];
const PROPOSED_KEEP: &[(&str, ViewKeep)] = &[
    ("keep=l0_growing", ViewKeep::L0Growing),
    ("keep=growing", ViewKeep::Growing),
    (
        "keep=not_flushing_or_flushed",
        ViewKeep::NotFlushingOrFlushed,
    ),
    ("keep=not_flushed", ViewKeep::NotFlushed),
];
const PROPOSED_LOAD: &[(&str, LoadRule)] = &[
    ("load=every_missing", LoadRule::EveryMissing),
    ("load=flushed_not_l0", LoadRule::FlushedNotL0),
];
const PROPOSED_DEADLINE: &[(&str, Deadline)] = &[
    ("deadline=per_attempt", Deadline::PerAttempt),
    ("deadline=none", Deadline::Background),
];

/// Does datacoord's request include this segment? (`sync_segments_scheduler.go`)
pub fn request_includes(k: Knobs, s: &DcSeg) -> bool {
    selected(k, s)
        && match k.request {
            RequestFilter::HealthyWithPkStatslog => s.statslog,
            _ => true,
        }
}

/// Does datacoord's tick select this segment (and list it in its success log)?
pub fn selected(k: Knobs, s: &DcSeg) -> bool {
    // isSegmentHealthy: not None, NotExist or Dropped (datacoord/meta.go:1584-1589).
    let healthy = s.state != SegState::Dropped;
    match k.request {
        RequestFilter::HealthyWithPkStatslog | RequestFilter::Healthy => healthy,
        // isFlush (compaction_trigger.go:862-864).
        RequestFilter::FlushingOrFlushed => {
            matches!(s.state, SegState::Flushing | SegState::Flushed)
        }
        RequestFilter::HealthyNotL0 => healthy && s.level != Level::L0,
    }
}

/// Does the datanode's SyncSegments handler load a requested segment it lacks,
/// of this level and state? (services.go:314-335@ca7ef26e4b every one;
/// :315-343@2e434e4453 only Flushed ones neither L0 nor Legacy.)
pub fn loads(k: Knobs, level: Level, state: SegState) -> bool {
    match k.load {
        LoadRule::EveryMissing => true,
        LoadRule::FlushedNotL0 => level == Level::L1 && state == SegState::Flushed,
    }
}

/// Does `UpdateSegmentView` skip (keep) this cached segment whatever the request says?
/// The partition check comes first in every version.
pub fn view_keeps(k: Knobs, s: &MetaSeg, partition: i64) -> bool {
    if s.partition != partition {
        return true;
    }
    match k.keep {
        ViewKeep::L0Growing => s.level == Level::L0 && s.state == SegState::Growing,
        ViewKeep::Growing => s.state == SegState::Growing,
        ViewKeep::NotFlushingOrFlushed => {
            !matches!(s.state, SegState::Flushed | SegState::Flushing)
        }
        ViewKeep::NotFlushed => s.state != SegState::Flushed,
    }
}

/// A knob's settings: name, one sentence of Go, and how to read its field.
pub type Settings<T> = [(&'static str, &'static str, T)];

/// The settings of each knob as a scenario's `"policy"` names them, with what
/// each does in the Go code.
pub const REQUEST_SETTINGS: &Settings<RequestFilter> = &[
    (
        "healthy_with_pk_statslog",
        "Datacoord sends the healthy segments that have a PK statslog (sync_segments_scheduler.go:117-139@ca7ef26e4b).",
        RequestFilter::HealthyWithPkStatslog,
    ),
    (
        "flushing_or_flushed",
        "Datacoord sends the Flushing and Flushed segments, statslog or not (sync_segments_scheduler.go:117-140@c65f41dc60).",
        RequestFilter::FlushingOrFlushed,
    ),
    (
        "healthy",
        "Datacoord sends every healthy segment, statslog or not (sync_segments_scheduler.go:120-142@4cf1a358ba).",
        RequestFilter::Healthy,
    ),
    (
        "healthy_not_l0",
        "Datacoord sends every healthy segment but L0 ones (sync_segments_scheduler.go:121@439fb24b32).",
        RequestFilter::HealthyNotL0,
    ),
];
pub const KEEP_SETTINGS: &Settings<ViewKeep> = &[
    (
        "l0_growing",
        "UpdateSegmentView spares only L0 Growing segments missing from the request (meta_cache.go:294-295@ca7ef26e4b).",
        ViewKeep::L0Growing,
    ),
    (
        "growing",
        "UpdateSegmentView spares Growing segments missing from the request (meta_cache.go:294-295@b5c9a7364b).",
        ViewKeep::Growing,
    ),
    (
        "not_flushing_or_flushed",
        "UpdateSegmentView removes only Flushing and Flushed segments missing from the request (meta_cache.go:294-295@c65f41dc60).",
        ViewKeep::NotFlushingOrFlushed,
    ),
    (
        "not_flushed",
        "UpdateSegmentView removes only Flushed segments missing from the request (meta_cache.go:297@4cf1a358ba).",
        ViewKeep::NotFlushed,
    ),
];
pub const LOAD_SETTINGS: &Settings<LoadRule> = &[
    (
        "every_missing",
        "The datanode's SyncSegments loads and adds every requested segment it lacks (services.go:314-335@ca7ef26e4b).",
        LoadRule::EveryMissing,
    ),
    (
        "flushed_not_l0",
        "It loads only Flushed segments that are neither L0 nor Legacy; it warns for L0 and Legacy ones and skips the others silently (services.go:315-343@2e434e4453).",
        LoadRule::FlushedNotL0,
    ),
];
pub const DEADLINE_SETTINGS: &Settings<Deadline> = &[
    (
        "per_attempt",
        "Datacoord calls the datanode under a 10 s deadline per attempt: a \"retried\" op's first attempt times out while its handler may still run, and retry.Do sends the same request again (session_manager.go:240-250@ca7ef26e4b).",
        Deadline::PerAttempt,
    ),
    (
        "none",
        "Datacoord calls the datanode under context.Background(): no attempt times out, and a \"retried\" op sends its request once (session_manager.go:240-242@2e434e4453, #34226).",
        Deadline::Background,
    ),
];

fn knob<T: Copy + PartialEq>(
    (key, label, go): (&'static str, &'static str, &'static str),
    all: &Settings<T>,
    of: fn(Knobs) -> T,
    current: Knobs,
    preset: Knobs,
) -> crate::engine::Knob {
    let name = |v: T| all.iter().find(|x| x.2 == v).map_or("?", |x| x.0);
    crate::engine::Knob {
        key,
        label,
        go,
        settings: all
            .iter()
            .map(|&(name, about, v)| crate::engine::KnobSetting {
                name,
                about,
                presets: Version::ALL
                    .iter()
                    .filter(|&&x| of(Knobs::of(x)) == v)
                    .map(|x| x.as_str())
                    .collect(),
            })
            .collect(),
        current: name(of(current)),
        preset: name(of(preset)),
    }
}

/// The knobs of a scenario at version `v` with `policy`: three, and a fourth,
/// `deadline`, when `deadline` (the scenario has a `"retried"` op, or its
/// policy sets it; elsewhere it changes nothing).
pub fn knob_list(
    v: Version,
    policy: super::setup::Policy,
    deadline: bool,
) -> Vec<crate::engine::Knob> {
    let (current, preset) = (Knobs::with(v, policy), Knobs::of(v));
    let mut out = vec![
        knob(
            (
                "request",
                "Datacoord's request filter",
                "sync_segments_scheduler.go:117-142",
            ),
            REQUEST_SETTINGS,
            |k| k.request,
            current,
            preset,
        ),
        knob(
            (
                "keep",
                "Which cached segments UpdateSegmentView spares",
                "meta_cache.go:294-297",
            ),
            KEEP_SETTINGS,
            |k| k.keep,
            current,
            preset,
        ),
        knob(
            (
                "load",
                "Which missing segments the datanode loads",
                "services.go:314-343",
            ),
            LOAD_SETTINGS,
            |k| k.load,
            current,
            preset,
        ),
    ];
    if deadline {
        out.push(knob(
            (
                "deadline",
                "Whether each attempt of datacoord's call has a deadline",
                "session_manager.go:240-250",
            ),
            DEADLINE_SETTINGS,
            |k| k.deadline,
            current,
            preset,
        ));
    }
    out
}

fn setting<T: Copy>(key: &str, all: &Settings<T>, value: &str) -> Result<T, String> {
    all.iter()
        .find(|x| x.0 == value)
        .map(|x| x.2)
        .ok_or_else(|| {
            format!(
                "knob {key} has no setting \"{}\"; it has {}",
                crate::scenario::json::short(value),
                all.iter().map(|x| x.0).collect::<Vec<_>>().join(", ")
            )
        })
}

/// Sets knob `key` of `policy` to `value` (names as in [`knob_list`]).
pub fn set_knob(policy: &mut super::setup::Policy, key: &str, value: &str) -> Result<(), String> {
    match key {
        "request" => policy.request = Some(setting(key, REQUEST_SETTINGS, value)?),
        "keep" => policy.keep = Some(setting(key, KEEP_SETTINGS, value)?),
        "load" => policy.load = Some(setting(key, LOAD_SETTINGS, value)?),
        "deadline" => policy.deadline = Some(setting(key, DEADLINE_SETTINGS, value)?),
        _ => {
            return Err(format!(
                "the sync-2024 model has no knob \"{}\"; it has request, keep, load and deadline",
                crate::scenario::json::short(key)
            ))
        }
    }
    Ok(())
}
