//! What a toy step did, in words.

use super::go;
use super::world::Violation;
use crate::engine::GoFn;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fact {
    /// A `wait_for` passed.
    Delivered {
        actor: u16,
        index: u32,
    },
    Locked,
    Unlocked,
    Read {
        value: i64,
    },
    Wrote {
        value: i64,
    },
    Returned,
    Invariant(Violation),
    Panic,
}

impl Fact {
    pub fn go_fn(self) -> GoFn {
        match self {
            Fact::Locked => go::LOCK,
            Fact::Unlocked => go::UNLOCK,
            Fact::Read { .. } | Fact::Wrote { .. } => go::INCR,
            Fact::Delivered { .. } | Fact::Returned => go::ACTOR,
            Fact::Invariant(_) => crate::engine::INVARIANT_CHECK,
            Fact::Panic => go::PANIC,
        }
    }

    pub fn words(self, actors: &[crate::scenario::Actor<super::Op>], out: &mut String) {
        use std::fmt::Write as _;
        let _ = match self {
            Fact::Delivered { actor, index } => write!(
                out,
                "{} returned from its op #{index}: go on",
                actors[actor as usize].name
            ),
            Fact::Locked => write!(out, "mu.Lock(): holds the mutex"),
            Fact::Unlocked => write!(out, "mu.Unlock(): the mutex is free"),
            Fact::Read { value } => write!(out, "x := counter (reads {value})"),
            Fact::Wrote { value } => write!(out, "counter = x + 1 (writes {value})"),
            Fact::Returned => write!(out, "returned from its last op"),
            Fact::Invariant(Violation::LostUpdate { counter, expected }) => write!(
                out,
                "INVARIANT lost-update: the counter is {counter}, but the increments make {expected}"
            ),
            Fact::Panic => write!(out, "PANIC: fatal error: sync: unlock of unlocked mutex"),
        };
    }
}
