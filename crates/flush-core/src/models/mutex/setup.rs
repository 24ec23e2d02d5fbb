//! A mutex-handoff scenario: actors that lock, increment a shared counter (a read
//! then a write: two steps) and unlock. The file adds `start` (the counter's first
//! value) and the ops `lock`, `unlock`, `incr`.

use crate::scenario::json::{Node, Res};
use crate::scenario::{self, Actor, Format, Header, ModelOp, OpNode, WaitFor};

/// The model's name in scenario files.
pub const MODEL: &str = "mutex-handoff";

/// The keys and ops a mutex-handoff scenario adds to the header.
pub const FORMAT: Format = Format {
    model: MODEL,
    fixed_at: None,
    versions: &[],
    keys: &["start"],
    ops: &["lock", "unlock", "incr"],
    max_actors: crate::scenario::MAX_ACTORS,
};

/// The largest counter a scenario may start at.
const MAX_START: i64 = 1_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `mu.Lock()`.
    Lock,
    /// `mu.Unlock()`.
    Unlock,
    /// `x := counter; counter = x + 1`: a read, then a write in a later step.
    Incr,
    WaitFor(WaitFor),
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Lock => "lock",
            Op::Unlock => "unlock",
            Op::Incr => "incr",
            Op::WaitFor(_) => "wait_for",
        }
    }
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

/// A checked mutex-handoff scenario: the model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scenario {
    pub head: Header,
    /// The counter's first value.
    pub start: i64,
    pub actors: Vec<Actor<Op>>,
}

impl Scenario {
    /// Reads a mutex-handoff scenario from its JSON tree.
    pub fn read(root: &Node, formats: &[Format]) -> Res<Scenario> {
        let (top, head) = scenario::header(root, &FORMAT, formats)?;
        let start = match top.get("start") {
            Some(n) => n.int("the counter's first value", 0, MAX_START)?,
            None => 0,
        };
        let actors = scenario::actors(&top, &FORMAT, formats, |o: &OpNode| {
            o.fields(&[])?;
            Ok(match o.name {
                "lock" => Op::Lock,
                "unlock" => Op::Unlock,
                _ => Op::Incr,
            })
        })?;
        Ok(Scenario {
            head,
            start,
            actors,
        })
    }

    /// The increments the scenario's ops make in all.
    pub fn increments(&self) -> i64 {
        self.actors
            .iter()
            .flat_map(|a| &a.ops)
            .filter(|o| **o == Op::Incr)
            .count() as i64
    }
}
