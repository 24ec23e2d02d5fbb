//! A world up to its goroutine ids ([`crate::engine::Model::fingerprint_up_to_ids`]).
//!
//! The model numbers goroutines as it spawns them ([`World::spawn`]). A Go
//! program sees no goroutine id, and no step here depends on how two ids compare:
//! they are names (a goroutine is found by its id, a key lock and a datacoord
//! actor waiting for its handler name one). So two worlds that differ only in
//! the names are one Go state, with the same futures up to the names. Yet
//! interleavings that spawn sync tasks and SyncSegments handlers in other orders
//! reach it as different worlds: sync-scaled-4x3 has 2,504,888 worlds and
//! 279,222 states up to ids.
//!
//! The fingerprint takes the goroutines in an order of their own: by a hash of
//! their roles (a role holds no id but the handler a datacoord actor waits for,
//! left out of that hash), ties by id. Each id the world holds (that handler, a
//! key lock's holder, the goroutine that panicked) counts as the rank of its
//! goroutine in that order. The key locks count as a set: they are only looked up
//! and removed. `next_gid` does not count: a new id only has to be new.
//!
//! The test below renames worlds that way and checks, over the built-ins at every
//! version, that worlds with one fingerprint are one renamed world.

use std::hash::{Hash, Hasher};

use super::{ActorAt, Gid, Role, World};
use crate::explore::{fingerprint, fingerprint_hasher};

/// Goroutines a world ranks on the stack (more take a vector).
const ON_STACK: usize = 16;

/// A rank for an id no goroutine holds (a handler that has returned).
const GONE: u32 = u32::MAX;

/// A hash of a goroutine's role without the ids it holds (kept in [`super::Goroutine::key`]).
pub(super) fn role_key(r: &Role) -> u64 {
    match r {
        Role::Actor {
            actor,
            pc,
            at: ActorAt::SyncSegmentsRpc { selected, .. },
        } => fingerprint(&("SyncSegmentsRpc", actor, pc, selected)),
        Role::Actor {
            actor,
            pc,
            at: ActorAt::SyncSegmentsDeadline { req, selected, .. },
        } => fingerprint(&("SyncSegmentsDeadline", actor, pc, req, selected)),
        r => fingerprint(r),
    }
}

/// The goroutines' (role key, id, index in `World::goroutines`), in rank order.
struct Ranks<'a>(&'a [(u64, Gid, u32)]);

impl Ranks<'_> {
    fn of(&self, g: Gid) -> u32 {
        self.0
            .iter()
            .position(|k| k.1 == g)
            .map_or(GONE, |i| i as u32)
    }
}

impl World {
    /// The goroutines ranked (see the module's words), handed to `f`.
    fn with_ranks<T>(&self, f: impl FnOnce(Ranks) -> T) -> T {
        let n = self.goroutines.len();
        let mut stack = [(0u64, 0 as Gid, 0u32); ON_STACK];
        let mut heap = Vec::new();
        let keys: &mut [(u64, Gid, u32)] = if n <= ON_STACK {
            &mut stack[..n]
        } else {
            heap.resize(n, (0, 0, 0));
            &mut heap
        };
        for (i, (k, g)) in keys.iter_mut().zip(&self.goroutines).enumerate() {
            debug_assert_eq!(
                g.key,
                role_key(&g.role),
                "goroutine {}'s key is stale",
                g.id
            );
            *k = (g.key, g.id, i as u32);
        }
        keys.sort_unstable();
        f(Ranks(keys))
    }

    /// The handler a goroutine's role waits for, if it waits for one.
    fn handler_of(r: &Role) -> Option<Gid> {
        match r {
            Role::Actor {
                at:
                    ActorAt::SyncSegmentsRpc { handler, .. }
                    | ActorAt::SyncSegmentsDeadline { handler, .. },
                ..
            } => Some(*handler),
            _ => None,
        }
    }

    /// The fingerprint of this world up to its goroutine ids.
    pub(super) fn fingerprint_up_to_ids(&self) -> u64 {
        // Every field by name: a new one is a compile error here, not a state
        // taken for another.
        let World {
            version,
            knobs,
            goroutines,
            metacache,
            buffers,
            datacoord,
            flush_ch,
            key_locks,
            pinned,
            rows,
            last_state,
            actor_done,
            panic,
            violations,
            trigger,
            next_gid: _,
            next_task,
            footprint: _,
        } = self;
        let mut h = fingerprint_hasher();
        self.with_ranks(|ranks| {
            goroutines.len().hash(&mut h);
            for &(key, _, i) in ranks.0 {
                // The key and the rank of the handler it waits for (0: none)
                // in one 128-bit write: one multiply, no sponge.
                let role = &self.goroutines[i as usize].role;
                let handler = Self::handler_of(role).map_or(0, |g| u64::from(ranks.of(g)) + 1);
                h.write_u128(u128::from(key) | u128::from(handler) << 64);
            }
            // A set: the sum of its members' hashes.
            let locks = key_locks.iter().fold(0u64, |sum, &(segment, g)| {
                sum.wrapping_add(fingerprint(&(segment, ranks.of(g))))
            });
            (key_locks.len(), locks).hash(&mut h);
            panic
                .as_ref()
                .map(|p| (ranks.of(p.goroutine), &p.message))
                .hash(&mut h);
        });
        // The lists of segments by their cached fingerprints (see
        // `crate::shared::Shared`): a step writes few of them.
        (version, knobs).hash(&mut h);
        metacache.hash_fingerprint(&mut h);
        buffers.hash_fingerprint(&mut h);
        datacoord.hash_fingerprint(&mut h);
        rows.hash_fingerprint(&mut h);
        last_state.hash_fingerprint(&mut h);
        flush_ch.hash(&mut h);
        (pinned, actor_done, violations, trigger, next_task).hash(&mut h);
        h.finish()
    }

    /// This world with each goroutine id replaced by its rank, the goroutines in
    /// rank order, the key locks sorted and `next_gid` 0: one world for all that
    /// differ only in their ids (what the test checks the fingerprint against).
    #[cfg(test)]
    fn renamed(&self) -> World {
        let mut w = self.clone();
        self.with_ranks(|ranks| {
            w.goroutines = ranks
                .0
                .iter()
                .enumerate()
                .map(|(rank, &(_, _, i))| {
                    let mut role = self.goroutines[i as usize].role.clone();
                    if let Role::Actor {
                        at:
                            ActorAt::SyncSegmentsRpc { handler, .. }
                            | ActorAt::SyncSegmentsDeadline { handler, .. },
                        ..
                    } = &mut role
                    {
                        *handler = ranks.of(*handler);
                    }
                    super::Goroutine::new(rank as Gid, role)
                })
                .collect();
            for k in &mut w.key_locks {
                k.1 = ranks.of(k.1);
            }
            if let Some(p) = &mut w.panic {
                p.goroutine = ranks.of(p.goroutine);
            }
        });
        w.key_locks.sort_unstable();
        w.next_gid = 0;
        w
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::{Scenario, VERSIONS};
    use super::*;
    use crate::engine::Model;

    /// Worlds with one fingerprint up to ids are one world renamed, and a
    /// renamed world's fingerprint is its own: the fingerprint leaves out
    /// nothing but the ids. Over every sync-2024 built-in at every version, and
    /// a scaled one; some of them must merge worlds, or the test says nothing.
    #[test]
    fn one_fingerprint_up_to_ids_is_one_world_renamed() {
        let mut names: Vec<&str> = crate::builtin::names();
        names.push("sync-scaled-3x2");
        let mut merged = 0;
        for name in names {
            let Some(crate::AnyScenario::Sync(sc)) = crate::builtin::get(name) else {
                continue;
            };
            for v in VERSIONS.iter() {
                let mut sc = Scenario::clone(&sc);
                sc.set_version(v.id).expect("a version");
                let mut by_fp: HashMap<u64, World> = HashMap::new();
                let ws = crate::engine::reachable_states(&sc, 20_000);
                for w in &ws {
                    let r = w.renamed();
                    assert_eq!(
                        w.fingerprint_up_to_ids(),
                        r.fingerprint_up_to_ids(),
                        "{name}@{}: renaming changed the fingerprint of {w:?}",
                        v.id
                    );
                    match by_fp.get(&w.fingerprint_up_to_ids()) {
                        Some(x) => {
                            assert_eq!(x, &r, "{name}@{}: one fingerprint, two worlds", v.id)
                        }
                        None => {
                            by_fp.insert(w.fingerprint_up_to_ids(), r);
                        }
                    }
                }
                merged += ws.len() - by_fp.len();
            }
        }
        assert!(merged > 1000, "only {merged} worlds merged");
    }
}
