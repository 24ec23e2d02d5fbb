//! The happens-before check along one run, with vector clocks (as Go's race
//! detector, ThreadSanitizer, keeps them): two accesses of one run to one field of
//! one instance, from different goroutines, one a write, that no chain of
//! happens-before edges orders, are a race even when the run never had both steps
//! runnable at once (what [`super::races_at`] looks at).
//!
//! The edges, as the Go memory model gives them:
//! * program order: a goroutine's steps, in turn, and within a step its accesses
//!   and synchronisation in the order the Go statements run;
//! * `go f()`: a goroutine made live by a step starts with what its `go`
//!   statement published (a release of [`GO`]), or, when the model does not say
//!   where in the step that stands, after the stepper's earlier steps only;
//! * what the step declares ([`Model::syncs`]): a release publishes the
//!   goroutine's clock to an object (a channel, a WaitGroup, a Once, a mutex,
//!   a `sync.Map` key), an acquire joins what was published there;
//! * a mutex held at an access: taken just before it, released just after it (its
//!   real critical section is at least that long).
//!
//! Every edge is one Go guarantees, each acquire recorded no earlier and each
//! release no later than Go performs it, so the clocks never order two accesses
//! Go leaves unordered (two reviews checked each declaration against the Go code;
//! tests pin the cases they found). An edge the model does not declare can only
//! make a pair look unordered that is not; so a pair is a *candidate*, reported
//! once a schedule shows it: the same steps run with the first access's goroutine
//! held back (and with it every goroutine that could no longer follow its own
//! steps), else a small breadth-first search from the state before the first
//! access, until both accesses are runnable together. That state is the race's
//! proof, the same one the explorer reports, and the schedule to it is what the
//! reader replays. Candidates no schedule showed are counted.

use std::collections::{HashMap, HashSet};

use crate::engine::{Access, Model, SyncOp, GO};
use crate::sched::Choice;

/// A vector clock: the count of steps of each goroutine (by its slot) known to be
/// before the owner's current step.
type Clock = Vec<u32>;

/// A synchronising object: its kind and the ids that tell its instances apart.
type Key = (&'static str, (i64, i64));

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
    /// Each synchronising object (a mutex, a channel, ...: name and ids): what
    /// its releases published.
    lock: HashMap<Key, Clock>,
    /// Each field of each instance: its accesses, the last per goroutine, line
    /// and kind (an earlier one of those is ordered before whatever the last is).
    seen: HashMap<(&'static str, i64), Vec<Seen>>,
    /// Clock entries joined or copied so far: the check's cost.
    pub work: u64,
}

impl Clocks {
    /// An upper bound on the clock entries held: every clock is at most one
    /// entry per goroutine seen.
    pub(super) fn cells_bound(&self) -> u64 {
        (self.slot.len() * (self.clock.len() + self.lock.len())) as u64
    }

    fn slot_of(&mut self, g: u32) -> usize {
        let n = self.slot.len();
        *self.slot.entry(g).or_insert(n)
    }

    /// Feeds step `index` of the run, `c`, with its live goroutines before
    /// (`live`) and after it (`now_live`) and its footprint (`acc`, `syncs`);
    /// returns the pairs it makes.
    pub(super) fn step(
        &mut self,
        index: usize,
        c: Choice,
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
        let before = v.clone();
        v[slot] += 1;
        let mut found = Vec::new();
        let mut next = syncs.iter().peekable();
        for (k, a) in acc.iter().enumerate() {
            while let Some(s) = next.next_if(|s| s.at as usize <= k) {
                self.sync(&mut v, slot, (s.object, s.id), s.release);
            }
            for &l in a.locks {
                self.sync(&mut v, slot, (l, (a.object, 0)), false);
            }
            found.extend(self.access(index, c.g, slot, &v, a));
            for &l in a.locks {
                self.sync(&mut v, slot, (l, (a.object, 0)), true);
            }
        }
        for s in next {
            self.sync(&mut v, slot, (s.object, s.id), s.release);
        }
        self.spawned(c.g, &before, live, now_live);
        self.clock.insert(c.g, v);
        found
    }

    /// An acquire joins what `object` published; a release publishes the clock
    /// and starts a new epoch (what follows it is not before its acquirers).
    fn sync(&mut self, v: &mut Clock, slot: usize, object: Key, release: bool) {
        if release {
            self.work += v.len() as u64;
            join(self.lock.entry(object).or_default(), v);
            v[slot] += 1;
        } else if let Some(w) = self.lock.get(&object) {
            self.work += w.len() as u64;
            join(v, w);
        }
    }

    /// Compares an access with those seen, then keeps it.
    fn access(
        &mut self,
        index: usize,
        g: u32,
        slot: usize,
        v: &Clock,
        a: &Access,
    ) -> Vec<Candidate> {
        let seen = self.seen.entry((a.field, a.object)).or_default();
        self.work += seen.len() as u64;
        let mut found = Vec::new();
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
        let same =
            |p: &Seen| p.g == g && p.access.site.line == a.site.line && p.access.write == a.write;
        match seen.iter_mut().find(|p| same(p)) {
            Some(p) => *p = me,
            None => seen.push(me),
        }
        found
    }

    /// The goroutines the step made live start with what their `go` statement
    /// published, else with `before` (the stepper's clock before the step); those
    /// gone leave.
    fn spawned(&mut self, g: u32, before: &Clock, live: &[u32], now_live: &[u32]) {
        for &h in now_live {
            if h != g && live.binary_search(&h).is_err() && !self.clock.contains_key(&h) {
                let v = match self.lock.remove(&(GO, (h.into(), 0))) {
                    Some(v) => v,
                    None => before.clone(),
                };
                self.work += v.len() as u64;
                self.clock.insert(h, v);
            }
        }
        if now_live.len() < live.len() + 1 {
            for h in live.iter().filter(|h| now_live.binary_search(h).is_err()) {
                if *h != g {
                    self.clock.remove(h);
                }
            }
        }
    }
}

/// States the search of [`show`] may visit for one candidate, when holding the
/// first goroutine back does not show it, and the memory its queue may hold.
const SEARCH_STATES: usize = 4_000;
const SEARCH_BYTES: u64 = 64 << 20;

/// Shows a candidate with a schedule whose last steps are the two racing ones,
/// runnable together: first by holding the first access's goroutine back
/// ([`hold_back`]), else by a breadth-first search from the state before the first
/// access for a state where the same two accesses race ([`search`]; goroutine ids
/// shift when the order of `go` statements changes, which the first cannot follow).
/// `None` when neither does within `budget` model steps.
pub(super) fn show<M: Model>(
    sc: &M,
    schedule: &[Choice],
    x: &Candidate,
    budget: &mut u64,
) -> Option<Vec<Choice>> {
    hold_back(sc, schedule, x, budget).or_else(|| search(sc, schedule, x, budget))
}

/// Breadth first from the state before `x.first`, every state checked with
/// [`races_at`](super::races_at) for a race between the same two accesses.
fn search<M: Model>(
    sc: &M,
    schedule: &[Choice],
    x: &Candidate,
    budget: &mut u64,
) -> Option<Vec<Choice>> {
    let w = before(sc, &schedule[..x.first]);
    let mut facts = Vec::new();
    *budget = budget.saturating_sub(x.first as u64);
    // A large world gets fewer states: the queue holds whole states.
    let states =
        SEARCH_STATES.min((SEARCH_BYTES / super::model_state_bytes::<M>(&w).max(1)) as usize);
    let mut seen = HashSet::from([sc.fingerprint(&w)]);
    let mut queue = std::collections::VecDeque::from([(w, Vec::<Choice>::new())]);
    let (mut runnable, mut spare) = (Vec::new(), Vec::new());
    while let Some((w, path)) = queue.pop_front() {
        sc.runnable(&w, &mut runnable);
        let cost = 2 * runnable.len() as u64 + 1;
        if *budget < cost || seen.len() > states {
            return None;
        }
        *budget -= cost;
        let here = super::races_at(sc, &w, &runnable, &mut spare);
        let same = |r: &super::Race| {
            let (a, b) = (&r.a.1, &r.b.1);
            (same_access(a, &x.a) && same_access(b, &x.b))
                || (same_access(a, &x.b) && same_access(b, &x.a))
        };
        if let Some(r) = here.into_iter().find(same) {
            let mut out = schedule[..x.first].to_vec();
            out.extend(path);
            out.extend(r.steps);
            return Some(out);
        }
        for &c in &runnable {
            // The queue holds whole states: the cap holds at every push.
            if seen.len() > states {
                return None;
            }
            let mut s = w.clone();
            facts.clear();
            sc.step(&mut s, c, &mut facts);
            if seen.insert(sc.fingerprint(&s)) {
                let mut p = path.clone();
                p.push(c);
                queue.push_back((s, p));
            }
        }
    }
    None
}

/// The run's steps before `first`; then its steps up to `second` without the
/// first access's goroutine, skipping those no longer runnable and every later
/// step of their goroutines; then the two racing steps, runnable together with
/// the two accesses in their footprints.
fn hold_back<M: Model>(
    sc: &M,
    schedule: &[Choice],
    x: &Candidate,
    budget: &mut u64,
) -> Option<Vec<Choice>> {
    let cost = 2 * x.second as u64 + 4;
    if *budget < cost {
        return None;
    }
    *budget -= cost;
    let mut w = before(sc, &schedule[..x.first]);
    let mut facts = Vec::new();
    // The run as it was (`o`) beside the one held back (`w`): goroutine ids are
    // handed out in `go` order, so a goroutine started in both may have another
    // id in `w`; `ids` maps the run's to `w`'s, and a goroutine only the run
    // started is held back too.
    let mut o = w.clone();
    let (ca, cb) = (schedule[x.first], schedule[x.second]);
    let mut held: HashSet<u32> = HashSet::from([ca.g]);
    let mut ids: HashMap<u32, u32> = HashMap::new();
    let mut out = schedule[..x.first].to_vec();
    let mut runnable = Vec::new();
    for &c in &schedule[x.first..x.second] {
        let before = sc.goroutine_ids(&o);
        facts.clear();
        sc.step(&mut o, c, &mut facts);
        let started = new_ids(&before, &sc.goroutine_ids(&o));
        let mine = Choice::new(*ids.get(&c.g).unwrap_or(&c.g), c.alt);
        sc.runnable(&w, &mut runnable);
        if held.contains(&c.g) || !runnable.contains(&mine) {
            held.insert(c.g);
            held.extend(started);
            continue;
        }
        let before = sc.goroutine_ids(&w);
        facts.clear();
        sc.step(&mut w, mine, &mut facts);
        out.push(mine);
        let also = new_ids(&before, &sc.goroutine_ids(&w));
        if also.len() != started.len() {
            return None;
        }
        ids.extend(started.into_iter().zip(also));
    }
    let cb = Choice::new(*ids.get(&cb.g).unwrap_or(&cb.g), cb.alt);
    if held.contains(&schedule[x.second].g) {
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

/// The state `schedule` leads to from the start.
fn before<M: Model>(sc: &M, schedule: &[Choice]) -> M::State {
    let mut w = sc.init();
    let mut facts = Vec::new();
    for &c in schedule {
        facts.clear();
        sc.step(&mut w, c, &mut facts);
    }
    w
}

/// The ids in `after` not in `before` (both sorted).
fn new_ids(before: &[u32], after: &[u32]) -> Vec<u32> {
    after
        .iter()
        .copied()
        .filter(|g| before.binary_search(g).is_err())
        .collect()
}

/// The same access: field, instance, kind and Go line.
fn same_access(a: &Access, b: &Access) -> bool {
    a.field == b.field && a.object == b.object && a.write == b.write && a.site == b.site
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::GoSite;

    fn acc(write: bool, locks: &'static [&'static str]) -> Access {
        Access {
            field: "f",
            object: 1,
            write,
            locks,
            site: GoSite {
                file: "x.go",
                line: if write { 1 } else { 2 },
                func: "f",
                code: "",
            },
        }
    }
    fn op(release: bool, at: u32) -> SyncOp {
        SyncOp {
            object: "ch",
            id: (7, 0),
            release,
            at,
        }
    }
    fn c(g: u32) -> Choice {
        Choice::new(g, 0)
    }

    #[test]
    fn a_release_orders_only_what_came_before_it() {
        // g1 writes, then closes ch; g2 receives, then reads: ordered.
        let mut k = Clocks::default();
        let live = [1, 2];
        assert!(k
            .step(0, c(1), &live, &live, &[acc(true, &[])], &[op(true, 1)])
            .is_empty());
        assert!(k
            .step(1, c(2), &live, &live, &[acc(false, &[])], &[op(false, 0)])
            .is_empty());
        // g1 closes ch, then writes (same step); g2 receives, then reads: unordered.
        let mut k = Clocks::default();
        k.step(0, c(1), &live, &live, &[acc(true, &[])], &[op(true, 0)]);
        let got = k.step(1, c(2), &live, &live, &[acc(false, &[])], &[op(false, 0)]);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].first, got[0].second), (0, 1));
        // g2 reads, then receives (a tail read before the receive, fm:478): unordered.
        let mut k = Clocks::default();
        k.step(0, c(1), &live, &live, &[acc(true, &[])], &[op(true, 1)]);
        let got = k.step(1, c(2), &live, &live, &[acc(false, &[])], &[op(false, 1)]);
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn a_goroutine_started_by_a_step_is_after_the_parents_earlier_steps_only() {
        // g1 writes, and in the same step starts g2, which reads: unordered (the
        // engine does not see whether the go statement came before the write).
        let mut k = Clocks::default();
        k.step(0, c(1), &[1], &[1, 2], &[acc(true, &[])], &[]);
        assert_eq!(
            k.step(1, c(2), &[1, 2], &[1, 2], &[acc(false, &[])], &[])
                .len(),
            1
        );
        // The model says where the go statement stands: after the write, ordered.
        let mut k = Clocks::default();
        let go = SyncOp {
            object: GO,
            id: (2, 0),
            release: true,
            at: 1,
        };
        k.step(0, c(1), &[1], &[1, 2], &[acc(true, &[])], &[go]);
        assert!(k
            .step(1, c(2), &[1, 2], &[1, 2], &[acc(false, &[])], &[])
            .is_empty());
        // Before it: unordered.
        let mut k = Clocks::default();
        k.step(
            0,
            c(1),
            &[1],
            &[1, 2],
            &[acc(true, &[])],
            &[SyncOp { at: 0, ..go }],
        );
        assert_eq!(
            k.step(1, c(2), &[1, 2], &[1, 2], &[acc(false, &[])], &[])
                .len(),
            1
        );
        // g1 writes, then starts g2 in its next step: ordered.
        let mut k = Clocks::default();
        k.step(0, c(1), &[1], &[1], &[acc(true, &[])], &[]);
        k.step(1, c(1), &[1], &[1, 2], &[], &[]);
        assert!(k
            .step(2, c(2), &[1, 2], &[1, 2], &[acc(false, &[])], &[])
            .is_empty());
    }

    #[test]
    fn a_mutex_held_at_accesses_orders_the_holders_other_accesses() {
        // g1: write f unlocked; then a step touching f under L. g2: under L; then read f.
        let (mut k, live) = (Clocks::default(), [1, 2]);
        let mut other = acc(false, &["L"]);
        other.field = "g";
        k.step(0, c(1), &live, &live, &[acc(true, &[])], &[]);
        k.step(1, c(1), &live, &live, &[other], &[]);
        k.step(2, c(2), &live, &live, &[other], &[]);
        assert!(k
            .step(3, c(2), &live, &live, &[acc(false, &[])], &[])
            .is_empty());
        // Without g2 taking L first, the read races the write.
        let mut k = Clocks::default();
        k.step(0, c(1), &live, &live, &[acc(true, &[])], &[]);
        k.step(1, c(1), &live, &live, &[other], &[]);
        assert_eq!(
            k.step(2, c(2), &live, &live, &[acc(false, &[])], &[]).len(),
            1
        );
    }
}
