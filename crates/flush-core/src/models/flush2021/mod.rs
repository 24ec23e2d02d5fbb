//! The 2021 flush manager (`internal/datanode/flush_manager.go` and
//! `flush_task.go` at `891c202b73`), as a deterministic step machine.
//!
//! Every goroutine of the Go code is a [`Goroutine`] whose [`Role`] carries the
//! point it stands at, typed per role ([`ActorAt`], [`RunnerAt`], [`HalfAt`],
//! [`HandlerAt`], [`FinaliserAt`], [`TailAt`]: B1–B14 of MODEL.md §1.3 and the
//! preemption points of ARCHITECTURE.md, "granularity"). A step runs one goroutine
//! past one point and on to the next; [`World::step`] is the only mutator. Go
//! channels that are only ever closed are signals (an id that is open until
//! closed); `injectCh` is a FIFO; `injectOver` is [`Over`].
//!
//! The folder: `setup` (the scenario part), `world` (the state), the steps by Go
//! type (`actor`, `queue`, `runner`, `handler`, `drop`; `step` dispatches), `facts`
//! (what a step did, in words), `go` (the Go functions), `view` (what front ends
//! show; the model never calls it).

mod actor;
mod drop;
mod facts;
mod footprint;
pub mod go;
mod handler;
mod ids;
mod queue;
mod runner;
pub mod setup;
mod step;
pub mod view;
mod world;

pub use facts::{pack_words, Ev, NamedPack, Violation, LOG_SITES};
use footprint::Site;
pub use setup::{
    Faults, InjId, Injection, Op, PosId, ReplicaSegment, ReplicaState, Scenario, FORMAT,
    INJECT_CH_CAP, RETRY_ATTEMPTS,
};
pub use step::{retry_sleep_ms, Rpc, TailSeen};
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
    /// Its one version, named by a prefix of 7 characters or more, is no
    /// change; any other is refused.
    fn set_version(&mut self, id: &str) -> Result<(), String> {
        // As sync-2024's versions: any prefix of 7+ characters of the full hash.
        let id = id.trim().to_ascii_lowercase();
        debug_assert!(setup::FULL_COMMIT.starts_with(setup::COMMIT));
        if id.len() >= 7 && setup::FULL_COMMIT.starts_with(&id) {
            return Ok(());
        }
        Err(format!(
            "flush-2021 is fixed at {} and has no other version (asked for \"{}\")",
            setup::COMMIT,
            crate::scenario::json::short(&id)
        ))
    }
    fn init(&self) -> World {
        World::new(self)
    }
    fn runnable(&self, s: &World, out: &mut Vec<crate::sched::Choice>) {
        s.runnable(self, out)
    }
    fn runnable_len(&self, s: &World) -> u32 {
        if s.panic.is_some() {
            return 0;
        }
        let n = if s.multi_case == 0 {
            s.ready.len() as u32
        } else {
            s.ready.iter().map(|r| r.1).sum()
        };
        #[cfg(debug_assertions)]
        {
            // `runnable` cross-checks the incremental set against a full scan.
            let mut v = Vec::new();
            s.runnable(self, &mut v);
            assert_eq!(v.len() as u32, n);
        }
        n
    }
    fn runnable_at(&self, s: &World, i: u32) -> crate::sched::Choice {
        if s.multi_case == 0 {
            return crate::sched::Choice::new(s.ready[i as usize].0, 0);
        }
        let mut left = i;
        for &(g, n) in &s.ready {
            if left < n {
                return crate::sched::Choice::new(g, left);
            }
            left -= n;
        }
        unreachable!("runnable_at beyond runnable_len")
    }
    fn step(&self, s: &mut World, c: crate::sched::Choice, ev: &mut Vec<Ev>) -> Who {
        s.step(self, c, ev)
    }
    fn who_name(&self, who: &Who) -> String {
        let sc = self;
        match *who {
            Who::Actor(a) => sc.actors[a as usize].name.clone(),
            Who::Runner { segment, pos } => {
                format!("runner seg={segment} pos={}", sc.pos_name(pos))
            }
            Who::Half {
                segment,
                pos,
                kind,
                adhoc,
            } => format!(
                "{} half seg={segment} pos={}{}",
                kind.as_str(),
                sc.pos_name(pos),
                if adhoc { " (drop mode)" } else { "" }
            ),
            Who::Handler { segment } => format!("inject handler seg={segment}"),
            Who::WaitInjected(i) => format!("waitForInjected {}", sc.inj_name(i)),
            Who::Finaliser => "drop finaliser".to_owned(),
            Who::TailWaiter { segment } => format!("tail waiter seg={segment}"),
            Who::Gone => "?".to_owned(),
        }
    }
    fn fingerprint(&self, s: &World) -> u64 {
        crate::explore::fingerprint(&world::Identity(s))
    }
    const MERGES_IDS: bool = true;
    fn fingerprint_up_to_ids(&self, s: &World) -> u64 {
        s.fingerprint_up_to_ids()
    }
    fn go_panic<'s>(&self, s: &'s World) -> Option<(u32, &'s str)> {
        s.panic.as_ref().map(|p| (p.goroutine, p.message.as_str()))
    }
    fn violations(&self, s: &World) -> Vec<crate::engine::Violation> {
        s.violations
            .iter()
            .map(|v| crate::engine::Violation {
                id: v.name(),
                message: v.describe(self),
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
        let (waits_on, go) = facts::waits_on(s, self, g);
        Some(crate::engine::GoroutineView {
            id: g.id,
            name: s.goroutine_name(self, g),
            waits_on,
            go,
            // Go leaves an idle inject handler in its select: not a deadlock.
            idle: matches!(
                g.role,
                Role::Handler {
                    at: HandlerAt::Select,
                    ..
                }
            ),
        })
    }
    fn choice_label(&self, s: &World, c: crate::sched::Choice) -> String {
        let Some(g) = s.goroutine(c.g) else {
            return "run".to_owned();
        };
        match g.role {
            Role::Handler {
                at: HandlerAt::Select,
                ..
            } if s.cases(self, g) == 2 => {
                if c.alt == 0 {
                    "take the injection (case 0)".to_owned()
                } else {
                    "return on done (case 1)".to_owned()
                }
            }
            Role::Actor {
                at: ActorAt::CloseQueues,
                ..
            } => s
                .closing_left
                .iter()
                .find(|x| x.0 == g.id)
                .and_then(|x| x.1.get(c.alt as usize))
                .map_or("run".to_owned(), |q| {
                    format!("Range visits queue {} next", s.queues[*q as usize].segment)
                }),
            _ => "run".to_owned(),
        }
    }
    fn fact_go(&self, ev: &Ev) -> crate::engine::GoFn {
        ev.go_fn()
    }
    fn fact_words(&self, ev: &Ev, out: &mut String) {
        ev.render(self, out)
    }
    fn fact_log(&self, ev: &Ev) -> Option<String> {
        ev.log_line()
    }
    fn log_known(&self, file: &str, message: &str, line: Option<u32>) -> bool {
        crate::logs::conform::knows(facts::LOG_SITES, file, message, line)
    }
    fn log_keeps_error(&self, file: &str, message: &str) -> bool {
        crate::logs::conform::keeps_error(facts::LOG_SITES, file, message)
    }
    fn log_line_at(&self, file: &str, message: &str) -> Option<u32> {
        crate::logs::conform::line_here(facts::LOG_SITES, file, message)
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
        self.what_if.names()
    }
    fn knobs(&self) -> Vec<crate::engine::Knob> {
        let mut w = self.what_if;
        setup::WHAT_IFS
            .iter()
            .map(|k| crate::engine::Knob {
                key: k.key,
                label: k.label,
                go: k.go,
                settings: vec![
                    crate::engine::KnobSetting {
                        name: "off",
                        about: k.off,
                        presets: vec![setup::COMMIT],
                    },
                    crate::engine::KnobSetting {
                        name: "on",
                        about: k.on,
                        presets: Vec::new(),
                    },
                ],
                current: if *(k.field)(&mut w) { "on" } else { "off" },
                preset: "off",
            })
            .collect()
    }
    /// A flush's insert and delete halves (by segment and position) go
    /// together, and so do an injection's inject, wait_injected and
    /// inject_done (by id): the manager "makes sure insert & del buf all
    /// flushed" (flush_manager.go:236@891c202b73; a pack is notified only once
    /// handleInsertTask and handleDeleteTask both ran, :260-300), so the flow
    /// graph flushes both halves of a position; the compactor makes the three
    /// calls. `wait_notified` is a barrier and stays.
    fn cut_group(&self, op: &crate::scenario::json::Json) -> crate::engine::CutGroup {
        use crate::engine::CutGroup;
        use crate::scenario::json::Json;
        let field = |k: &str| match op.get(k) {
            Some(Json::Str(s)) => s.clone(),
            Some(Json::Num(n)) => crate::scenario::json::number(n),
            _ => String::new(),
        };
        match field("op").as_str() {
            "flush_insert" | "flush_delete" => {
                CutGroup::With(format!("flush {} {}", field("segment"), field("pos")))
            }
            "inject" | "wait_injected" | "inject_done" => {
                CutGroup::With(format!("injection {}", field("id")))
            }
            "wait_notified" => CutGroup::Never,
            _ => CutGroup::Alone,
        }
    }
    /// `"what_if"`: the changes that are on.
    fn knob_entries(&self) -> Option<(&'static str, Vec<(String, crate::scenario::json::Json)>)> {
        let on = self
            .knobs()
            .into_iter()
            .filter(|k| k.current == "on")
            .map(|k| (k.key.to_owned(), crate::scenario::json::Json::Bool(true)))
            .collect();
        Some(("what_if", on))
    }
    fn set_knob(&mut self, key: &str, value: &str) -> Result<(), String> {
        let field = self.what_if.knob(key)?;
        *field = match value {
            "on" => true,
            "off" => false,
            _ => {
                return Err(format!(
                    "knob {key} is \"on\" or \"off\", not \"{}\"",
                    crate::scenario::json::short(value)
                ))
            }
        };
        Ok(())
    }
    fn variants(&self) -> Vec<(Vec<&'static str>, Scenario)> {
        (0..1u8 << setup::WHAT_IFS.len())
            .map(|bits| {
                let mut v = self.clone();
                for (i, k) in setup::WHAT_IFS.iter().enumerate() {
                    *(k.field)(&mut v.what_if) = bits & (1 << i) != 0;
                }
                let presets = if bits == 0 {
                    vec![setup::COMMIT]
                } else {
                    Vec::new()
                };
                (presets, v)
            })
            .collect()
    }
    const FOOTPRINTS: bool = true;
    const REDUCIBLE: bool = true;
    const STATE_SIZE_64: usize = 752;
}
