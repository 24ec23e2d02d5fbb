//! The independence relation a partial-order reduction builds on: what one step
//! touched, summed up from its footprint ([`crate::engine::Model::accesses`] and
//! [`crate::engine::Model::syncs`]), and when two steps of different goroutines
//! need not be tried in both orders.
//!
//! Two steps are dependent when they touch one shared field of one instance and
//! one of them writes it (held locks do not make them independent: a lock orders
//! them, in one order or the other), when they synchronise on one object (a
//! channel, a WaitGroup, a `Once`, a lock, ...: a send and a receive, two
//! receives, a close and a receive all depend on their order), or when both start
//! a goroutine (ids are given in step order). Anything else commutes: the test
//! `independent_steps_commute` steps every such pair both ways over every
//! built-in and checks both orders run and reach one world, and a sleep-set
//! search must visit exactly the states a full search visits.
//!
//! What a step touches besides Go memory and synchronisation comes in as order
//! keys ([`Model::order_keys`]): an id counter drawn from, a lock found held, a
//! channel polled empty or found open. A lock held at an access counts as taking
//! it. A step that panics ends the run and so depends on every other, as does
//! one with the order key [`EVERY_STEP`].

use std::hash::{BuildHasher as _, Hash, Hasher};

use crate::engine::{Model, EVERY_STEP, GO};

/// What one step touched: hashed (field, instance) or (sync object, id) keys,
/// each with whether the step writes it (every synchronisation counts as a
/// write). A hash collision only makes two steps look dependent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    keys: Vec<(u64, bool)>,
    /// The step panicked (it ends the run, so it disables every other step), or
    /// it has the order key [`EVERY_STEP`]: it depends on every other step.
    ends: bool,
}

/// The key every `go` statement shares.
const SPAWN: u64 = 0x9e37_79b9_7f4a_7c15;

fn key(kind: u8, name: &str, a: i64, b: i64) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x0700_f5e7).build_hasher();
    kind.hash(&mut h);
    name.hash(&mut h);
    a.hash(&mut h);
    b.hash(&mut h);
    h.finish()
}

impl Touched {
    /// The summary of the footprint of the step that produced `after`.
    pub fn of<M: Model>(sc: &M, after: &M::State) -> Touched {
        let mut t = Touched::default();
        t.set(sc, after);
        t
    }

    /// Refills `self` with the footprint of the step that produced `after` (keeps
    /// its allocation).
    pub fn set<M: Model>(&mut self, sc: &M, after: &M::State) {
        let (accesses, syncs, order) = (sc.accesses(after), sc.syncs(after), sc.order_keys(after));
        self.ends = sc.go_panic(after).is_some();
        self.keys.clear();
        for a in accesses {
            self.keys.push((key(0, a.field, a.object, 0), a.write));
            // A lock held at the access is taken and released around it: the
            // same key as a step that takes that lock by name.
            for lock in a.locks {
                self.keys.push((key(1, lock, a.object, 0), true));
            }
        }
        for s in syncs {
            let k = match s.object {
                GO => SPAWN,
                o => key(1, o, s.id.0, s.id.1),
            };
            self.keys.push((k, true));
        }
        for &(o, id) in order {
            self.ends |= o == EVERY_STEP;
            self.keys.push((key(1, o, id.0, id.1), true));
        }
        self.keys.sort_unstable();
        // One entry per key, a write if any access writes it.
        self.keys.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 |= later.1;
                true
            } else {
                false
            }
        });
    }

    /// Whether a step that touched `self` and one that touched `o` (of another
    /// goroutine) may be run in either order to one world.
    pub fn independent(&self, o: &Touched) -> bool {
        if self.ends || o.ends {
            return false;
        }
        let (mut i, mut j) = (0, 0);
        while i < self.keys.len() && j < o.keys.len() {
            let (a, b) = (self.keys[i], o.keys[j]);
            match a.0.cmp(&b.0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if a.1 || b.1 {
                        return false;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        true
    }
}
