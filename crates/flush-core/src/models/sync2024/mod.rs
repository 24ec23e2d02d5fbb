//! The 2024 datanode metacache, write buffer, sync manager and datacoord's
//! SyncSegments, at the commits of issue #34018 and the fixes that followed it
//! (MODEL.md §3; the Go at each commit, cited file:line@commit in the steps).
//!
//! Goroutines: scenario actors (the flow graph's write buffer, datacoord's
//! sync-segments scheduler), one goroutine per submitted `SyncTask`, the datanode's
//! `SyncSegments` RPC handler, and datacoord's flush loop; each [`Role`] carries
//! the point it stands at, typed per role. The metacache is [`MetaCache`], with
//! the operations of `meta_cache.go`. What differs between the commits is three
//! knobs ([`Knobs`]); each [`Version`] is a preset of them.
//!
//! The folder: `setup` (the scenario part), `world` (the state), `knobs`, the steps
//! by Go type (`write_buffer`, `task`: SyncTask and datacoord's SaveBinlogPaths,
//! `sync_segments`: the tick and the datanode's handler; `step` dispatches),
//! `metacache`, `facts` (what a step did, in words, and the log lines), `go` (the
//! Go functions), `view` (what front ends show; the model never calls it).

mod facts;
mod footprint;
pub mod go;
mod ids;
pub mod import;
mod knobs;
mod metacache;
pub mod setup;
mod step;
mod sync_segments;
mod task;
pub mod view;
mod world;
mod write_buffer;

pub use facts::{Ev, Few, Violation};
use footprint::Site;
pub use knobs::*;
pub use metacache::{MetaCache, MetaSeg};
pub use setup::{DcSegment, DnSegment, Level, Op, Scenario, SegState, Version, FORMAT, VERSIONS};
pub use world::*;

impl crate::engine::Model for Scenario {
    type State = World;
    type Fact = Ev;
    type Who = Who;

    fn header(&self) -> &crate::scenario::Header {
        &self.head
    }
    fn header_mut(&mut self) -> &mut crate::scenario::Header {
        &mut self.head
    }
    fn versions(&self) -> &'static [crate::scenario::VersionInfo] {
        &VERSIONS
    }
    fn set_version(&mut self, id: &str) -> Result<(), String> {
        let v = Version::parse(id).ok_or_else(|| {
            format!(
                "unknown version \"{}\"; the sync-2024 model knows {} (a commit hash, or its first 7 characters or more)",
                crate::scenario::json::short(id),
                Version::list()
            )
        })?;
        self.at_version(v);
        Ok(())
    }
    fn init(&self) -> World {
        World::new(self)
    }
    const MERGES_IDS: bool = true;
    fn fingerprint_up_to_ids(&self, s: &World) -> u64 {
        s.fingerprint_up_to_ids()
    }
    fn runnable(&self, s: &World, out: &mut Vec<crate::sched::Choice>) {
        s.runnable(self, out)
    }
    fn runnable_len(&self, s: &World) -> u32 {
        if s.panic.is_some() {
            return 0;
        }
        s.ready_goroutines(self).count() as u32
    }
    fn runnable_at(&self, s: &World, i: u32) -> crate::sched::Choice {
        let g = s.ready_goroutines(self).nth(i as usize);
        crate::sched::Choice::new(g.expect("runnable_at below runnable_len").id, 0)
    }
    fn step(&self, s: &mut World, c: crate::sched::Choice, ev: &mut Vec<Ev>) -> Who {
        let who = s.who(c.g);
        s.step(self, c, ev);
        who
    }
    fn who_name(&self, who: &Who) -> String {
        match *who {
            Who::Actor(a) => self.actors[a as usize].name.clone(),
            Who::Task { n, segment } => format!("sync task #{n} seg={segment}"),
            Who::Handler { partition } => format!("SyncSegments handler partition={partition}"),
            Who::FlushLoop => "datacoord flush loop".to_owned(),
            Who::Gone => "?".to_owned(),
        }
    }
    fn go_panic<'s>(&self, s: &'s World) -> Option<(u32, &'s str)> {
        s.panic.as_ref().map(|p| (p.goroutine, p.message.as_str()))
    }
    fn violations(&self, s: &World) -> Vec<crate::engine::Violation> {
        s.violations
            .iter()
            .map(|v| crate::engine::Violation {
                id: v.name(),
                message: v.to_string(),
            })
            .collect()
    }
    fn violation_ids(&self, s: &World, f: &mut dyn FnMut(&'static str)) {
        s.violations.iter().for_each(|v| f(v.name()));
    }
    fn goroutine_ids(&self, s: &World) -> Vec<u32> {
        s.goroutines.iter().map(|g| g.id).collect()
    }
    fn describe(&self, s: &World, g: u32) -> Option<crate::engine::GoroutineView> {
        let g = s.goroutine(g)?;
        let (waits_on, go) = facts::waits_on(self, s, g);
        Some(crate::engine::GoroutineView {
            id: g.id,
            name: s.goroutine_name(self, g),
            waits_on,
            go,
            idle: false,
        })
    }
    fn fact_go(&self, ev: &Ev) -> crate::engine::GoFn {
        ev.go_fn()
    }
    fn fact_words(&self, ev: &Ev, out: &mut String) {
        ev.render(self, out)
    }
    fn fact_log(&self, ev: &Ev) -> Option<String> {
        ev.log_line(self.version)
    }
    fn log_known(&self, file: &str, message: &str, line: Option<u32>) -> bool {
        crate::logs::conform::knows(facts::LOG_SITES, file, message, line)
    }
    fn log_keeps_error(&self, file: &str, message: &str) -> bool {
        crate::logs::conform::keeps_error(facts::LOG_SITES, file, message)
    }
    /// An attempt's failure is the model's only path to these lines: a
    /// `"retried"` op's first attempt, timed out under a per-attempt deadline
    /// (session_manager.go:240-250@ca7ef26e4b; the handler's load under its
    /// done ctx, services.go:328@ca7ef26e4b).
    fn log_needs(&self, file: &str, message: &str) -> Option<&'static str> {
        match (file, message) {
            ("datacoord/session_manager.go", "failed to sync segments")
            | ("datanode/services.go", "failed to load segment stats log") => Some(
                "it logs it only where an attempt times out, at a sync_segments op marked \"retried\" under a per-attempt deadline (up to 4cf1a358ba, or the knob deadline=per_attempt)",
            ),
            _ => None,
        }
    }
    fn log_line_at(&self, file: &str, message: &str) -> Option<u32> {
        facts::line_of(self.version, file, message)
            .or_else(|| crate::logs::conform::line_here(facts::LOG_SITES, file, message))
    }
    fn fact_kind(&self, ev: &Ev) -> crate::engine::FactKind {
        match ev {
            Ev::Invariant(_) => crate::engine::FactKind::Violation,
            Ev::GoPanic { .. } => crate::engine::FactKind::Panic,
            _ => crate::engine::FactKind::Plain,
        }
    }
    fn prefetch(&self, w: &World) {
        w.prefetch();
    }
    fn accesses<'s>(&self, w: &'s World) -> &'s [crate::engine::Access] {
        w.footprint.accesses()
    }
    fn syncs<'s>(&self, w: &'s World) -> &'s [crate::engine::SyncOp] {
        w.footprint.syncs()
    }
    fn order_keys<'s>(&self, w: &'s World) -> &'s [(&'static str, (i64, i64))] {
        w.footprint.order_keys()
    }
    fn record_footprints(&self, w: &mut World, on: bool) {
        w.footprint.set_records(on);
    }
    fn proposed(&self) -> Vec<&'static str> {
        Knobs::with(self.version, self.policy).differences(Knobs::of(self.version))
    }
    fn knobs(&self) -> Vec<crate::engine::Knob> {
        knob_list(self.version, self.policy, self.shows_deadline())
    }
    /// `deadline` apart from the version, with no op `"retried"`: only an
    /// attempt that times out reads it.
    fn idle_knobs(&self) -> Vec<String> {
        let retried = self.retried();
        self.proposed()
            .into_iter()
            .filter(|p| !retried && p.starts_with("deadline="))
            .map(|p| format!("{p} changes nothing here: no sync_segments op is \"retried\" (the deadline matters only to a first attempt that times out)"))
            .collect()
    }
    fn set_knob(&mut self, key: &str, value: &str) -> Result<(), String> {
        set_knob(&mut self.policy, key, value)
    }
    /// A segment's insert, seal and sync go together: without its insert a
    /// sync finds no buffer, without its seal the story is another one (a
    /// growing segment's sync); SyncSegments ticks go alone.
    fn cut_group(&self, op: &crate::scenario::json::Json) -> crate::engine::CutGroup {
        use crate::engine::CutGroup;
        use crate::scenario::json::Json;
        match (op.get("op"), op.get("segment")) {
            (Some(Json::Str(o)), Some(Json::Num(n))) if o != "sync_segments" => {
                CutGroup::With(format!("segment {}", crate::scenario::json::number(n)))
            }
            _ => CutGroup::Alone,
        }
    }
    /// `"policy"`: the knobs set apart from the version's preset.
    fn knob_entries(&self) -> Option<(&'static str, Vec<(String, crate::scenario::json::Json)>)> {
        let apart = self
            .knobs()
            .into_iter()
            .filter(|k| k.current != k.preset)
            .map(|k| {
                let v = crate::scenario::json::Json::Str(k.current.to_owned());
                (k.key.to_owned(), v)
            })
            .collect();
        Some(("policy", apart))
    }
    /// Every combination of the knobs [`Model::knobs`] lists: `deadline` only
    /// where it matters (a `"retried"` op) or the policy sets it, else the
    /// version's own, and a version is then the preset of a row whatever its
    /// deadline.
    fn variants(&self) -> Vec<(Vec<&'static str>, Scenario)> {
        let deadlines: Vec<Option<Deadline>> = if self.shows_deadline() {
            DEADLINE_SETTINGS.iter().map(|x| Some(x.2)).collect()
        } else {
            vec![None]
        };
        let mut out = Vec::new();
        for &(_, _, request) in REQUEST_SETTINGS {
            for &(_, _, keep) in KEEP_SETTINGS {
                for &(_, _, load) in LOAD_SETTINGS {
                    for &deadline in &deadlines {
                        let mut v = self.clone();
                        v.policy = setup::Policy {
                            request: Some(request),
                            keep: Some(keep),
                            load: Some(load),
                            deadline,
                        };
                        let k = Knobs::with(v.version, v.policy);
                        let presets = Version::ALL
                            .iter()
                            .filter(|&&x| {
                                let p = Knobs::of(x);
                                p == k
                                    || (deadline.is_none()
                                        && Knobs {
                                            deadline: k.deadline,
                                            ..p
                                        } == k)
                            })
                            .map(|x| x.as_str())
                            .collect();
                        out.push((presets, v));
                    }
                }
            }
        }
        out
    }
    const FOOTPRINTS: bool = true;
    const REDUCIBLE: bool = true;
    const STATE_SIZE_64: usize = 464;
}
