//! Reading back what crosses between the page and the explorer's worker.
//!
//! Both ends write with serde (`Serialize`, which the CLI's JSON needs anyway) and
//! read through the core's JSON tree (`Json`, which the scenario checker already
//! has), field by field here: derived `Deserialize` impls for the explorer's
//! reports cost about 29 KB of the gzipped bundle, these readers a few. The
//! worker's tests check that everything comes back equal.

use flush_core::explore::{Cut, Exploration, Found, OpLine, Options, Order, Progress, Stopped};
use flush_core::scenario::json::Json;
use flush_core::OutcomeKind;
use serde::Serialize;

/// What went wrong reading a message: the field, and what it should have been.
pub(crate) type Read<T> = Result<T, String>;

/// An object's fields, read by name.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'a>(pub &'a Json);

impl<'a> Obj<'a> {
    pub fn of(j: &'a Json, what: &str) -> Read<Obj<'a>> {
        match j {
            Json::Obj(_) => Ok(Obj(j)),
            other => Err(format!(
                "{what} should be an object, not {}",
                other.describe()
            )),
        }
    }

    fn field(self, key: &str) -> Read<&'a Json> {
        self.0.get(key).ok_or_else(|| format!("no field \"{key}\""))
    }

    /// A field that may be missing or null.
    pub fn opt(self, key: &str) -> Option<&'a Json> {
        self.0.get(key).filter(|j| **j != Json::Null)
    }

    pub fn obj(self, key: &str) -> Read<Obj<'a>> {
        Obj::of(self.field(key)?, key)
    }

    pub fn u64(self, key: &str) -> Read<u64> {
        match self.field(key)? {
            Json::Num(n) => n
                .as_u64()
                .ok_or_else(|| format!("\"{key}\" is not a whole number")),
            other => Err(format!(
                "\"{key}\" should be a number, not {}",
                other.describe()
            )),
        }
    }

    pub fn u32(self, key: &str) -> Read<u32> {
        u32::try_from(self.u64(key)?).map_err(|_| format!("\"{key}\" is too large"))
    }

    pub fn f64(self, key: &str) -> Read<f64> {
        match self.field(key)? {
            Json::Num(n) => n
                .as_f64()
                .ok_or_else(|| format!("\"{key}\" is not a number")),
            other => Err(format!(
                "\"{key}\" should be a number, not {}",
                other.describe()
            )),
        }
    }

    pub fn bool(self, key: &str) -> Read<bool> {
        match self.field(key)? {
            Json::Bool(b) => Ok(*b),
            other => Err(format!(
                "\"{key}\" should be true or false, not {}",
                other.describe()
            )),
        }
    }

    pub fn str(self, key: &str) -> Read<String> {
        string(self.field(key)?, key)
    }

    pub fn opt_str(self, key: &str) -> Read<Option<String>> {
        self.opt(key).map(|j| string(j, key)).transpose()
    }

    pub fn arr(self, key: &str) -> Read<&'a [Json]> {
        match self.field(key)? {
            Json::Arr(v) => Ok(v),
            other => Err(format!(
                "\"{key}\" should be an array, not {}",
                other.describe()
            )),
        }
    }

    /// A field holding one of `all`, by its serialised name.
    pub fn named<T: Serialize + Copy>(self, key: &str, all: &[T]) -> Read<T> {
        let name = self.str(key)?;
        all.iter()
            .copied()
            .find(|t| serde_json::to_string(t).ok().as_deref() == Some(&format!("\"{name}\"")))
            .ok_or_else(|| format!("\"{key}\" cannot be \"{name}\""))
    }
}

pub(crate) fn string(j: &Json, what: &str) -> Read<String> {
    match j {
        Json::Str(s) => Ok(s.clone()),
        other => Err(format!(
            "\"{what}\" should be a string, not {}",
            other.describe()
        )),
    }
}

/// `f` over each element of an array, the index named in an error.
pub(crate) fn each<T>(v: &[Json], what: &str, f: impl Fn(&Json) -> Read<T>) -> Read<Vec<T>> {
    v.iter()
        .enumerate()
        .map(|(i, j)| f(j).map_err(|e| format!("{what}[{i}]: {e}")))
        .collect()
}

/// Every variant of the enums a report names, for [`Obj::named`]. A variant added
/// to one of them fails to compile [`every_variant_is_listed`] until it is listed.
pub(crate) const ORDERS: [Order; 2] = [Order::Bfs, Order::Dfs];
pub(crate) const STOPS: [Stopped; 5] = [
    Stopped::Exhausted,
    Stopped::FirstViolation,
    Stopped::MaxStates,
    Stopped::MaxBytes,
    Stopped::Cancelled,
];
pub(crate) const KINDS: [OutcomeKind; 6] = [
    OutcomeKind::Completed,
    OutcomeKind::Panic,
    OutcomeKind::Deadlock,
    OutcomeKind::Invariant,
    OutcomeKind::StepLimit,
    OutcomeKind::Race,
];

/// Never called: its matches name every variant, so a new one is a compile error
/// here, a reminder to list it above.
#[allow(dead_code)]
fn every_variant_is_listed(o: Order, s: Stopped, k: OutcomeKind) {
    match o {
        Order::Bfs | Order::Dfs => {}
    }
    match s {
        Stopped::Exhausted
        | Stopped::FirstViolation
        | Stopped::MaxStates
        | Stopped::MaxBytes
        | Stopped::Cancelled => {}
    }
    match k {
        OutcomeKind::Completed
        | OutcomeKind::Panic
        | OutcomeKind::Deadlock
        | OutcomeKind::Invariant
        | OutcomeKind::StepLimit
        | OutcomeKind::Race => {}
    }
}

pub(crate) fn options(o: Obj) -> Read<Options> {
    Ok(Options {
        max_steps: o.u32("max_steps")?,
        max_states: o.u64("max_states")?,
        max_bytes: o.u64("max_bytes")?,
        order: o.named("order", &ORDERS)?,
        all: o.bool("all")?,
        shrink: o.bool("shrink")?,
        races: o.bool("races")?,
        target: o.opt_str("target")?,
        threads: o.u32("threads")?,
        detail_deadlocks: o.bool("detail_deadlocks")?,
        reduce: o.bool("reduce")?,
        ids: o.bool("ids")?,
        from_depth: o.u32("from_depth")?,
    })
}

pub(crate) fn progress(o: Obj) -> Read<Progress> {
    Ok(Progress {
        states: o.u64("states")?,
        transitions: o.u64("transitions")?,
        depth: o.u32("depth")?,
        frontier: o.u64("frontier")?,
        bytes: o.u64("bytes")?,
        violations: o.u32("violations")?,
    })
}

/// A report as `Exploration`'s JSON has it. `options` and the findings' keys are
/// not in it, and `version` and `proposed` are `&'static str`s this reader
/// cannot make: `restore` puts all four back from the job.
pub(crate) fn exploration(o: Obj) -> Read<Exploration> {
    Ok(Exploration {
        scenario: o.str("scenario")?,
        version: None,
        proposed: Vec::new(),
        order: o.named("order", &ORDERS)?,
        states: o.u64("states")?,
        transitions: o.u64("transitions")?,
        depth: o.u32("depth")?,
        stopped: o.named("stopped", &STOPS)?,
        depth_cut: o.u64("depth_cut")?,
        scenario_step_limit: o.bool("scenario_step_limit")?,
        truncated: o.bool("truncated")?,
        peak_bytes: o.u64("peak_bytes")?,
        needed_bytes: o
            .opt("needed_bytes")
            .map(|_| o.u64("needed_bytes"))
            .transpose()?,
        collision_bound: o.f64("collision_bound")?,
        reduced: o.bool("reduced")?,
        ids_merged: o.bool("ids_merged")?,
        depth_first_from: o
            .opt("depth_first_from")
            .map(|_| o.u32("depth_first_from"))
            .transpose()?,
        violations: each(o.arr("violations")?, "violations", |j| {
            found(Obj::of(j, "a finding")?)
        })?,
        gave_way: o.opt("gave_way").map(|_| o.str("gave_way")).transpose()?,
        budget_on_threads: o
            .opt("budget_on_threads")
            .map(|_| o.u32("budget_on_threads"))
            .transpose()?,
        time_ms: o.opt("time_ms").map(|_| o.u64("time_ms")).transpose()?,
        options: None,
    })
}

fn found(o: Obj) -> Read<Found> {
    Ok(Found {
        kind: o.named("kind", &KINDS)?,
        message: o.str("message")?,
        schedule: o.str("schedule")?,
        steps: o.u32("steps")?,
        shrunk_from: o
            .opt("shrunk_from")
            .map(|_| o.u32("shrunk_from"))
            .transpose()?,
        shrink_stopped: o.opt("shrink_stopped").is_some() && o.bool("shrink_stopped")?,
        depth_first: o.opt("depth_first").is_some() && o.bool("depth_first")?,
        key: String::new(),
        cut: o.opt("cut").map(|_| cut(o.obj("cut")?)).transpose()?,
        link: o.opt("link").map(|_| o.str("link")).transpose()?,
    })
}

fn cut(o: Obj) -> Read<Cut> {
    Ok(Cut {
        ops: each(o.arr("ops")?, "ops", |j| {
            let l = Obj::of(j, "an op")?;
            Ok(OpLine {
                actor: l.str("actor")?,
                index: l.u32("index")?,
                op: l.str("op")?,
                cut: l.bool("cut")?,
            })
        })?,
        kept: o.u32("kept")?,
        scenario: o.str("scenario")?,
        schedule: o.str("schedule")?,
        steps: o.u32("steps")?,
        tries: o.u32("tries")?,
        refused: o.u32("refused")?,
        states: o.u64("states")?,
        held: o.u32("held")?,
        complete: o.bool("complete")?,
        skipped: o.opt_str("skipped")?,
        now: o.opt_str("now")?,
    })
}

/// A count that fits a u32, if `j` is one.
pub(crate) fn count(j: &Json) -> Option<u32> {
    match j {
        Json::Num(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        _ => None,
    }
}

/// A schedule as it crosses: each choice `[goroutine, case]` (the race lens's
/// run to its cursor, an imported log's replay).
pub(crate) fn schedule(v: &[Json]) -> Read<Vec<[u32; 2]>> {
    each(v, "schedule", |j| match j {
        Json::Arr(v) if v.len() == 2 => match (count(&v[0]), count(&v[1])) {
            (Some(g), Some(alt)) => Ok([g, alt]),
            _ => Err("a step of the schedule should be [goroutine, case]".into()),
        },
        other => Err(format!(
            "a step of the schedule should be [goroutine, case], not {}",
            other.describe()
        )),
    })
}
