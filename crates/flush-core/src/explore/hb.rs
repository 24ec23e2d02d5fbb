//! The happens-before check along one run, with vector clocks (as Go's race
//! detector, ThreadSanitizer, keeps them): two accesses of one run to one field of
//! one instance, from different goroutines, one a write, that no chain of
//! happens-before edges orders, are a race even when the run never had both steps
//! runnable at once (what [`super::races_at`] looks at).
//!
//! The edges, as the Go memory model gives them, come from what the engine sees
//! of every step:
//! * program order: a goroutine's steps, in turn;
//! * `go f()`: the step that made a goroutine live is before its first step;
//! * a wake-up: a step that makes a choice of another goroutine runnable (a send,
//!   a close, a `wg.Done`, a `Once` that returns, a select case that becomes
//!   ready) is before that goroutine's step through that choice, because a
//!   goroutine of these models only waits on such a primitive;
//! * a mutex: a step holding a lock at an access (the footprint says which)
//!   acquires it at its start and releases it at its end (a model's critical
//!   sections lie within one step).
//!
//! A synchronisation the engine cannot see (a receive that did not wait, a lock
//! taken in a step with no footprint) is an edge missing, which can only make a
//! pair look unordered that is not. So a pair is only a *candidate*: it is
//! reported once a schedule shows it, found by running the same steps with the
//! first access's goroutine held back (and with it every goroutine that could no
//! longer follow its own steps) until both accesses are runnable together. That
//! state is the race's proof, the same one the explorer reports, and the schedule
//! to it is what the reader replays. Candidates no schedule showed are counted.

use std::collections::{HashMap, HashSet};

use crate::engine::{Access, Model, SyncOp};
use crate::sched::Choice;

/// A vector clock: the count of steps of each goroutine (by its slot) known to be
/// before the owner's current step.
type Clock = Vec<u32>;

fn join(into: &mut Clock, from: &Clock) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

/// An access seen so far, kept to compare with later ones.
#[derive(Clone, Copy, Debug)]
struct Seen {
    g: u32,
    slot: usize,
    /// The goroutine's own clock entry at the access.
    epoch: u32,
    /// Index in the schedule of the step that made it.
    index: usize,
    access: Access,
}

/// A pair of accesses of the run no edge orders: the earlier at schedule index
/// `first`, the later at `second`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Candidate {
    pub first: usize,
    pub second: usize,
    pub a: Access,
    pub b: Access,
}

/// The clocks of one run, fed a step at a time.
#[derive(Default)]
pub(super) struct Clocks {
    slot: HashMap<u32, usize>,
    /// Live goroutines' clocks.
    clock: HashMap<u32, Clock>,
    /// A choice made runnable by another goroutine's step: that step's clock.
    woken: HashMap<Choice, Clock>,
    /// Each synchronising object (a mutex, a channel, ...: name and id): what
    /// its releases published.
    lock: HashMap<(&'static str, i64), Clock>,
    /// Each field of each instance: its accesses, the last per goroutine, line
    /// and kind (an earlier one of those is ordered before whatever the last is).
    seen: HashMap<(&'static str, i64), Vec<Seen>>,
    /// Clock entries joined or copied so far: the check's cost.
    pub work: u64,
}

impl Clocks {
    fn slot_of(&mut self, g: u32) -> usize {
        let n = self.slot.len();
        *self.slot.entry(g).or_insert(n)
    }

    /// Feeds step `index` of the run, `c`, with the state before it (`live`,
    /// `before`: its live goroutines and runnable choices) and after it (`after`,
    /// `now_live`, and the step's footprint: `acc`, `syncs`); returns the pairs
    /// it makes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn step(
        &mut self,
        index: usize,
        c: Choice,
        before: &[Choice],
        after: &[Choice],
        live: &[u32],
        now_live: &[u32],
        acc: &[Access],
        syncs: &[SyncOp],
    ) -> Vec<Candidate> {
        let slot = self.slot_of(c.g);
        let mut v = self.clock.remove(&c.g).unwrap_or_default();
        if v.len() <= slot {
            v.resize(slot + 1, 0);
        }
        v[slot] += 1;
        if let Some(w) = self.woken.remove(&c) {
            self.work += w.len() as u64;
            join(&mut v, &w);
        }
        // The goroutine has moved on: what woke its other cases woke nothing it ran.
        self.woken.retain(|k, _| k.g != c.g);
        // Acquires first, releases last: a model's step is atomic, and placing
        // them at its ends can only add order within it.
        let mut acquire: Vec<(&'static str, i64)> = Vec::new();
        let mut release: Vec<(&'static str, i64)> = Vec::new();
        for a in acc {
            for &l in a.locks {
                for set in [&mut acquire, &mut release] {
                    if !set.contains(&(l, a.object)) {
                        set.push((l, a.object));
                    }
                }
            }
        }
        for s in syncs {
            let set = if s.release {
                &mut release
            } else {
                &mut acquire
            };
            if !set.contains(&(s.object, s.id)) {
                set.push((s.object, s.id));
            }
        }
        for l in &acquire {
            if let Some(w) = self.lock.get(l) {
                self.work += w.len() as u64;
                join(&mut v, w);
            }
        }
        let found = self.accesses(index, c.g, slot, &v, acc);
        for l in release {
            self.work += v.len() as u64;
            join(self.lock.entry(l).or_default(), &v);
        }
        self.edges_out(c.g, &v, before, after, live, now_live);
        self.clock.insert(c.g, v);
        found
    }

    /// Compares the step's accesses with those seen, then keeps them.
    fn accesses(
        &mut self,
        index: usize,
        g: u32,
        slot: usize,
        v: &Clock,
        acc: &[Access],
    ) -> Vec<Candidate> {
        let mut found = Vec::new();
        for a in acc {
            let seen = self.seen.entry((a.field, a.object)).or_default();
            self.work += seen.len() as u64;
            for p in seen.iter().filter(|p| p.g != g) {
                let ordered = v.get(p.slot).is_some_and(|&e| p.epoch <= e);
                if !ordered && a.conflicts(&p.access) {
                    found.push(Candidate {
                        first: p.index,
                        second: index,
                        a: p.access,
                        b: *a,
                    });
                }
            }
            let me = Seen {
                g,
                slot,
                epoch: v[slot],
                index,
                access: *a,
            };
            let same = |p: &Seen| {
                p.g == g && p.access.site.line == a.site.line && p.access.write == a.write
            };
            match seen.iter_mut().find(|p| same(p)) {
                Some(p) => *p = me,
                None => seen.push(me),
            }
        }
        found
    }

    /// The step's edges to other goroutines: to each one it made live, and to each
    /// choice of another goroutine it made runnable.
    fn edges_out(
        &mut self,
        g: u32,
        v: &Clock,
        before: &[Choice],
        after: &[Choice],
        live: &[u32],
        now_live: &[u32],
    ) {
        for &h in now_live {
            if h != g && live.binary_search(&h).is_err() && !self.clock.contains_key(&h) {
                self.work += v.len() as u64;
                self.clock.insert(h, v.clone());
            }
        }
        for &x in after {
            if x.g != g && before.binary_search(&x).is_err() {
                self.work += v.len() as u64;
                join(self.woken.entry(x).or_default(), v);
            }
        }
        // A goroutine gone has no more steps.
        if now_live.len() < live.len() + 1 {
            let gone: Vec<u32> = live
                .iter()
                .copied()
                .filter(|h| now_live.binary_search(h).is_err())
                .collect();
            for h in gone {
                self.clock.remove(&h);
                self.woken.retain(|k, _| k.g != h);
            }
        }
    }
}

/// Shows a candidate with a schedule: the run's steps before `first`; then its
/// steps up to `second` without the first access's goroutine, skipping those no
/// longer runnable and every later step of their goroutines; then the two racing
/// steps, runnable together with the two accesses in their footprints. `None` when
/// that does not reach such a state (or `budget`, in model steps, runs out).
pub(super) fn show<M: Model>(
    sc: &M,
    schedule: &[Choice],
    x: &Candidate,
    budget: &mut u64,
) -> Option<Vec<Choice>> {
    let cost = x.second as u64 + 4;
    if *budget < cost {
        return None;
    }
    *budget -= cost;
    let mut w = sc.init();
    let mut facts = Vec::new();
    for &c in &schedule[..x.first] {
        facts.clear();
        sc.step(&mut w, c, &mut facts);
    }
    let (ca, cb) = (schedule[x.first], schedule[x.second]);
    let mut held: HashSet<u32> = HashSet::from([ca.g]);
    let mut out = schedule[..x.first].to_vec();
    let mut runnable = Vec::new();
    for &c in &schedule[x.first + 1..x.second] {
        if held.contains(&c.g) {
            continue;
        }
        sc.runnable(&w, &mut runnable);
        if !runnable.contains(&c) {
            held.insert(c.g);
            continue;
        }
        facts.clear();
        sc.step(&mut w, c, &mut facts);
        out.push(c);
    }
    if held.contains(&cb.g) {
        return None;
    }
    sc.runnable(&w, &mut runnable);
    let touches = |c: Choice, want: &Access| {
        let mut s = w.clone();
        let mut facts = Vec::new();
        sc.step(&mut s, c, &mut facts);
        sc.accesses(&s).iter().any(|a| same_access(a, want))
    };
    if !(runnable.contains(&ca) && runnable.contains(&cb) && touches(ca, &x.a) && touches(cb, &x.b))
    {
        return None;
    }
    // The two in an order the second is still runnable after the first.
    for (p, q) in [(ca, cb), (cb, ca)] {
        let mut s = w.clone();
        facts.clear();
        sc.step(&mut s, p, &mut facts);
        sc.runnable(&s, &mut runnable);
        if runnable.contains(&q) {
            out.extend([p, q]);
            return Some(out);
        }
    }
    out.push(ca);
    Some(out)
}

/// The same access: field, instance, kind and Go line.
fn same_access(a: &Access, b: &Access) -> bool {
    a.field == b.field && a.object == b.object && a.write == b.write && a.site == b.site
}
