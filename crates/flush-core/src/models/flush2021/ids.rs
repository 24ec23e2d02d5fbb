//! A world up to the names it gave ([`crate::engine::Model::fingerprint_up_to_ids`]).
//!
//! The model numbers goroutines, runners and signals as it creates them, and
//! keeps the dispatcher's queues in the order they were stored. Go has none of
//! these numbers: a goroutine has no id a program sees, a runner and a channel
//! are pointers, and `sync.Map` has no order. Steps only look these names up
//! (which goroutine holds a mutex, which runner a `working` entry is, whether a
//! signal is still open) and the dispatcher's `Range` takes any queue next (a
//! scheduler choice). So two worlds that differ only in the names are one Go
//! state with the same futures up to the names; yet interleavings that create
//! the same runners or spawn the same goroutines in other orders reach it as
//! different worlds.
//!
//! The fingerprint hashes the world renamed canonically ([`World::renamed`]):
//! queues in segment order (a dispatcher has one queue per segment); live
//! runners ranked by segment and creation order in their queue (drop-mode ones
//! by position and half); actors keep their ids (goroutines `0..n`, the same in
//! every world); the other live goroutines are ranked by a hash of their roles
//! with runners named by rank and no other names; ties go by the old name
//! (which only keeps some equal worlds apart); every other name
//! (signals, runners and goroutines that are gone but still named) numbered in
//! the order a walk of the renamed world meets it. `next_gid`, `next_runner` and
//! `next_sig` do not count: a new name only has to be new.
//!
//! Every name is mapped by one walk ([`World::map_names`]) that names each field
//! (a new field is a compile error there). The tests below apply random
//! renamings to the reachable worlds of every built-in and check that the
//! fingerprint does not change.

use std::collections::VecDeque;

use super::world::Parts;
use super::{ActorAt, DropState, Gid, GoPanic, Goroutine, Handler, HandlerAt, Pack, Queue};
use super::{Resume, Role, Runner, RunnerId, SigId, SigOrigin, SignalRef, TailAt, World};
use crate::explore::fingerprint;

/// A renaming: a function on each kind of name.
pub(super) trait Names {
    fn gid(&mut self, g: Gid) -> Gid;
    fn runner(&mut self, r: RunnerId) -> RunnerId;
    fn sig(&mut self, s: SigId) -> SigId;
    /// A queue's index in the dispatcher (`World::queues`).
    fn queue(&mut self, q: u32) -> u32;
}

/// Every name to 0 but runners, which get their rank (`ranks`, by old id; a
/// runner not ranked, one gone, gets the same mark in every world): what a
/// goroutine's sort key sees.
struct Anonymous<'a> {
    ranks: &'a [u32],
}

impl Names for Anonymous<'_> {
    fn gid(&mut self, _: Gid) -> Gid {
        0
    }
    fn runner(&mut self, r: RunnerId) -> RunnerId {
        self.ranks.get(r as usize).copied().unwrap_or(0)
    }
    fn sig(&mut self, _: SigId) -> SigId {
        0
    }
    fn queue(&mut self, _: u32) -> u32 {
        0
    }
}

/// No name yet (in [`Canonical`]'s tables).
const UNNAMED: u32 = u32::MAX;

/// One kind of name: old → new, new names handed out in the order asked.
#[derive(Default)]
struct Table {
    new: Vec<u32>,
    next: u32,
}

impl Table {
    fn reset(&mut self, len: u32) {
        self.new.clear();
        self.new.resize(len as usize, UNNAMED);
        self.next = 0;
    }

    fn name(&mut self, old: u32) -> u32 {
        if old as usize >= self.new.len() {
            self.new.resize(old as usize + 1, UNNAMED);
        }
        let slot = &mut self.new[old as usize];
        if *slot == UNNAMED {
            *slot = self.next;
            self.next += 1;
        }
        *slot
    }
}

/// The canonical renaming: ranked names first, then in the order met.
#[derive(Default)]
struct Canonical {
    g: Table,
    r: Table,
    s: Table,
    q: Vec<u32>,
}

impl Names for Canonical {
    fn gid(&mut self, g: Gid) -> Gid {
        self.g.name(g)
    }
    fn runner(&mut self, r: RunnerId) -> RunnerId {
        self.r.name(r)
    }
    fn sig(&mut self, s: SigId) -> SigId {
        self.s.name(s)
    }
    fn queue(&mut self, q: u32) -> u32 {
        self.q.get(q as usize).copied().unwrap_or(q)
    }
}

fn map_sig_ref(s: &mut SignalRef, n: &mut impl Names) {
    let SignalRef { id, origin } = s;
    *id = n.sig(*id);
    match origin {
        SigOrigin::InjectDone { handler } => *handler = n.gid(*handler),
        SigOrigin::QueueInit | SigOrigin::Runner { .. } => {}
    }
}

fn map_pack(p: &mut Pack, n: &mut impl Names) {
    let Pack {
        runner,
        source: _,
        segment: _,
        pos: _,
        flushed: _,
        dropped: _,
        err: _,
    } = p;
    *runner = n.runner(*runner);
}

fn map_runner(r: &mut Runner, n: &mut impl Names) {
    let Runner {
        id,
        segment: _,
        pos: _,
        seq: _,
        chain: _,
        feeders: _,
        adhoc: _,
        wg: _,
        insert_set: _,
        delete_set: _,
        has_pos: _,
        flushed: _,
        dropped: _,
        insert_err: _,
        delete_err: _,
        start,
        finish,
        goroutine,
        pack,
    } = r;
    *id = n.runner(*id);
    if let Some(s) = start {
        map_sig_ref(s, n);
    }
    if let Some(s) = finish {
        *s = n.sig(*s);
    }
    if let Some(g) = goroutine {
        *g = n.gid(*g);
    }
    if let Some(p) = pack {
        map_pack(p, n);
    }
}

fn map_actor_at(at: &mut ActorAt, n: &mut impl Names) {
    match at {
        ActorAt::RunnerInjectMut { runner, .. }
        | ActorAt::ChainRunner { runner, .. }
        | ActorAt::DropWait { runner } => *runner = n.runner(*runner),
        ActorAt::CloseHandler { handler, then, .. } => {
            *handler = n.gid(*handler);
            match then {
                Resume::NewRunner(r) => *r = n.runner(*r),
                Resume::Close => {}
            }
        }
        ActorAt::DropMutex { pack } => map_pack(pack, n),
        ActorAt::CloseLock { queue } => *queue = n.queue(*queue),
        ActorAt::Ready
        | ActorAt::NormalMode
        | ActorAt::QueueInit { .. }
        | ActorAt::DropDeleteNormal
        | ActorAt::CreateMut { .. }
        | ActorAt::Inject { .. }
        | ActorAt::StartDroppingMake
        | ActorAt::CloseQueues => {}
    }
}

fn map_role(role: &mut Role, n: &mut impl Names) {
    match role {
        Role::Actor { at, .. } => map_actor_at(at, n),
        Role::Runner { runner, at: _ } | Role::Half { runner, .. } => *runner = n.runner(*runner),
        Role::Handler { at, segment: _ } => match at {
            HandlerAt::Select => {}
            HandlerAt::Handling { done, old, .. } | HandlerAt::LockSticky { done, old, .. } => {
                *done = n.sig(*done);
                if let Some(o) = old {
                    *o = n.sig(*o);
                }
            }
            HandlerAt::WaitOldTail { done, old, .. } => {
                *done = n.sig(*done);
                *old = n.sig(*old);
            }
        },
        Role::TailWaiter { at, segment: _ } => match at {
            TailAt::ReadTail | TailAt::WaitTail { sig: None } => {}
            TailAt::WaitTail { sig: Some(s) } => *s = n.sig(*s),
        },
        Role::WaitInjected { .. } | Role::Finaliser { .. } => {}
    }
}

fn map_queue(q: &mut Queue, n: &mut impl Names) {
    let Queue {
        segment: _,
        tail,
        running: _,
        handler,
        post_inj: _,
        inject_ch: _,
        working,
        next_seq: _,
        next_chain: _,
        inject_mut,
        create_mut,
    } = q;
    if let Some(t) = tail {
        map_sig_ref(t, n);
    }
    if let Some(Handler { goroutine, done: _ }) = handler {
        *goroutine = n.gid(*goroutine);
    }
    for (_, r) in working.iter_mut() {
        *r = n.runner(*r);
    }
    for g in [inject_mut, create_mut].into_iter().flatten() {
        *g = n.gid(*g);
    }
}

/// Orders to walk a world in: its queues, runners and goroutines, as indices.
#[derive(Default)]
pub(super) struct Walk {
    pub queues: Vec<u32>,
    pub runners: Vec<usize>,
    pub goroutines: Vec<usize>,
}

/// The fields of a world that hold names, renamed (buffers kept from one
/// world to the next).
#[derive(Default)]
struct Renamed {
    goroutines: VecDeque<Goroutine>,
    runners: VecDeque<Runner>,
    queues: Vec<Queue>,
    /// `None` until the first world.
    drop: Option<DropState>,
    panic: Option<GoPanic>,
    open_signals: Vec<SigId>,
    closing_left: Vec<(Gid, Vec<u32>)>,
    finaliser: Option<Gid>,
}

/// `out` becomes a copy of `from`, each passed through `map`, in the buffers
/// `out` has (`clone_from`: no allocation once they are large enough).
fn copy_into<'a, T: Clone + 'a>(
    out: &mut impl List<T>,
    from: impl Iterator<Item = &'a T>,
    mut map: impl FnMut(&mut T),
) {
    let mut len = 0;
    for x in from {
        match out.at(len) {
            Some(slot) => {
                slot.clone_from(x);
                map(slot);
            }
            None => {
                let mut y = x.clone();
                map(&mut y);
                out.add(y);
            }
        }
        len += 1;
    }
    out.keep(len);
}

/// What [`copy_into`] fills: a `Vec` or a `VecDeque`.
trait List<T> {
    fn at(&mut self, i: usize) -> Option<&mut T>;
    fn add(&mut self, x: T);
    fn keep(&mut self, len: usize);
}

impl<T> List<T> for Vec<T> {
    fn at(&mut self, i: usize) -> Option<&mut T> {
        self.get_mut(i)
    }
    fn add(&mut self, x: T) {
        self.push(x);
    }
    fn keep(&mut self, len: usize) {
        self.truncate(len);
    }
}

impl<T> List<T> for std::collections::VecDeque<T> {
    fn at(&mut self, i: usize) -> Option<&mut T> {
        self.get_mut(i)
    }
    fn add(&mut self, x: T) {
        self.push_back(x);
    }
    fn keep(&mut self, len: usize) {
        self.truncate(len);
    }
}

/// What ranks a runner: its queue's segment, its creation order there, its
/// position and, in drop mode, its half.
type RunnerKey = (i64, u32, super::PosId, Option<super::HalfKind>);

/// What the fingerprint up to names keeps from one world to the next.
#[derive(Default)]
struct Scratch {
    names: Canonical,
    walk: Walk,
    keys: Vec<(u64, u32, usize)>,
    runner_keys: Vec<(RunnerKey, RunnerId, usize)>,
    out: Renamed,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = Default::default();
}

impl World {
    /// The fields of this world that hold names, each name passed through `n`,
    /// walking the queues, the runners and the goroutines in `walk`'s orders
    /// (the order names are met in), then the drop packs, the panic, `close()`'s
    /// books, the finaliser and the open signals. Queues come out in `walk`'s
    /// order (`n.queue` must give each its place there), runners and goroutines
    /// in `walk`'s orders (the canonical walk's are those of their new names),
    /// the books of lists sorted.
    fn rename_into(&self, n: &mut impl Names, walk: &Walk, out: &mut Renamed) {
        let queues = walk.queues.iter().map(|&i| &self.queues[i as usize]);
        copy_into(&mut out.queues, queues, |q| map_queue(q, n));
        let runners = walk.runners.iter().map(|&i| &self.runners[i]);
        copy_into(&mut out.runners, runners, |r| map_runner(r, n));

        out.goroutines.clear();
        out.goroutines.extend(walk.goroutines.iter().map(|&i| {
            let mut g = self.goroutines[i];
            g.id = n.gid(g.id);
            map_role(&mut g.role, n);
            g
        }));
        let drop = out.drop.get_or_insert_with(|| self.drop.clone());
        drop.clone_from(&self.drop);
        for p in drop
            .packs
            .iter_mut()
            .chain(drop.flush_and_drop.iter_mut().flatten())
        {
            map_pack(p, n);
        }
        out.panic.clone_from(&self.panic);
        if let Some(GoPanic { goroutine, .. }) = &mut out.panic {
            *goroutine = n.gid(*goroutine);
        }
        out.closing_left.clone_from(&self.closing_left);
        for (g, left) in out.closing_left.iter_mut() {
            *g = n.gid(*g);
            left.iter_mut().for_each(|q| *q = n.queue(*q));
            left.sort_unstable();
        }
        out.closing_left.sort_unstable();
        out.finaliser = self.finaliser.map(|g| n.gid(g));
        out.open_signals.clear();
        out.open_signals
            .extend(self.open_signals.iter().map(|&s| n.sig(s)));
        out.open_signals.sort_unstable();
    }

    /// What the fingerprint hashes of a world renamed: `Parts` of this world
    /// with the renamed fields and no counters of names.
    fn renamed_parts<'a>(&'a self, out: &'a Renamed) -> Parts<'a> {
        Parts {
            goroutines: &out.goroutines,
            runners: &out.runners,
            queues: &out.queues,
            drop: out.drop.as_ref().unwrap_or(&self.drop),
            panic: &out.panic,
            open_signals: &out.open_signals,
            closing_left: &out.closing_left,
            finaliser: out.finaliser,
            next_gid: 0,
            next_runner: 0,
            next_sig: 0,
            ..Parts::of(self)
        }
    }

    /// This world with every name passed through `n` (see
    /// [`World::rename_into`]). Only the fields the fingerprint hashes are
    /// renamed: the result is for hashing and comparing, not for stepping.
    #[cfg(test)]
    fn map_names(&self, n: &mut impl Names, walk: &Walk) -> World {
        let mut out = Renamed::default();
        self.rename_into(n, walk, &mut out);
        let mut w = self.clone();
        let Renamed {
            goroutines,
            runners,
            queues,
            drop,
            panic,
            open_signals,
            closing_left,
            finaliser,
        } = out;
        (w.goroutines, w.runners, w.queues) = (goroutines, runners, queues);
        w.drop = drop.unwrap_or(w.drop);
        (w.panic, w.open_signals, w.closing_left) = (panic, open_signals, closing_left);
        w.finaliser = finaliser;
        (w.next_gid, w.next_runner, w.next_sig) = (0, 0, 0);
        w
    }

    /// The canonical names of this world (see the module's words), in `s`:
    /// queues by segment, runners and goroutines ranked.
    fn canonical_names(&self, s: &mut Scratch) {
        let Scratch {
            names,
            walk,
            keys,
            runner_keys,
            ..
        } = s;
        walk.queues.clear();
        walk.queues.extend(0..self.queues.len() as u32);
        walk.queues
            .sort_unstable_by_key(|&i| self.queues[i as usize].segment);
        names.q.clear();
        names.q.resize(walk.queues.len(), 0);
        for (new, &old) in walk.queues.iter().enumerate() {
            names.q[old as usize] = new as u32;
        }
        names.g.reset(self.next_gid.max(self.n_actors));
        names.r.reset(self.next_runner);
        names.s.reset(self.next_sig);
        // Runners by what tells them apart in a queue: a normal runner's
        // creation order there, a drop-mode one's position and half.
        // (Within a queue they come in that order already: a sort that checks
        // runs is cheap on them.)
        runner_keys.clear();
        runner_keys.extend(
            self.runners
                .iter()
                .enumerate()
                .map(|(i, r)| ((r.segment, r.seq, r.pos, r.adhoc), r.id, i)),
        );
        runner_keys.sort_unstable();
        walk.runners.clear();
        walk.runners.extend(runner_keys.iter().map(|k| k.2));
        runner_keys.iter().for_each(|k| _ = names.r.name(k.1));
        // Actors keep their ids (goroutines `0..n_actors`, spawned first, the
        // same in every world of a scenario); the others are ranked by role.
        let actors = self.n_actors as usize;
        for a in 0..actors {
            names.g.new[a] = a as u32;
        }
        names.g.next = self.n_actors;
        let ranked = &mut Anonymous {
            ranks: &names.r.new,
        };
        keys.clear();
        let spawned = self
            .goroutines
            .iter()
            .enumerate()
            .filter(|(_, g)| g.id >= self.n_actors);
        keys.extend(spawned.map(|(i, g)| {
            let mut role = g.role;
            map_role(&mut role, ranked);
            (fingerprint(&role), g.id, i)
        }));
        keys.sort_unstable();
        walk.goroutines.clear();
        let actors = self.goroutines.iter().take_while(|g| g.id < self.n_actors);
        walk.goroutines.extend(0..actors.count());
        walk.goroutines.extend(keys.iter().map(|k| k.2));
        keys.iter().for_each(|k| _ = names.g.name(k.1));
    }

    /// This world renamed canonically (see the module's words): one world for
    /// all that differ only in their names, but for ties.
    #[cfg(test)]
    pub(super) fn renamed(&self) -> World {
        let mut s = Scratch::default();
        self.canonical_names(&mut s);
        let Scratch { names, walk, .. } = &mut s;
        self.map_names(names, walk)
    }

    /// The fingerprint of this world up to its names: that of the world
    /// renamed canonically (the test checks it against [`World::renamed`]).
    pub(super) fn fingerprint_up_to_ids(&self) -> u64 {
        SCRATCH.with_borrow_mut(|s| {
            self.canonical_names(s);
            let Scratch {
                names, walk, out, ..
            } = s;
            self.rename_into(names, walk, out);
            debug_assert!(out.goroutines.iter().is_sorted_by_key(|g| g.id));
            debug_assert!(out.runners.iter().is_sorted_by_key(|r| r.id));
            fingerprint(&self.renamed_parts(out))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::engine::Model;

    /// A random renaming: a shuffle of each kind of name (actors keep theirs,
    /// as a renaming of the model's must: they are goroutines `0..n`).
    struct Shuffle {
        g: Vec<u32>,
        r: Vec<u32>,
        s: Vec<u32>,
        q: Vec<u32>,
    }

    fn shuffled(rng: &mut crate::rng::Rng, lo: u32, len: u32) -> Vec<u32> {
        let mut v: Vec<u32> = (0..len).collect();
        for i in (lo as usize + 1..v.len()).rev() {
            let j = lo as usize + rng.below((i + 1 - lo as usize) as u32) as usize;
            v.swap(i, j);
        }
        v
    }

    impl Names for Shuffle {
        fn gid(&mut self, g: Gid) -> Gid {
            self.g[g as usize]
        }
        fn runner(&mut self, r: RunnerId) -> RunnerId {
            self.r[r as usize]
        }
        fn sig(&mut self, s: SigId) -> SigId {
            self.s[s as usize]
        }
        fn queue(&mut self, q: u32) -> u32 {
            self.q[q as usize]
        }
    }

    /// `w` under a random renaming.
    fn shuffle(w: &World, rng: &mut crate::rng::Rng) -> World {
        let mut n = Shuffle {
            g: shuffled(rng, w.n_actors, w.next_gid),
            r: shuffled(rng, 0, w.next_runner),
            s: shuffled(rng, 0, w.next_sig),
            q: shuffled(rng, 0, w.queues.len() as u32),
        };
        let mut queues = vec![0; w.queues.len()];
        for (old, &new) in n.q.iter().enumerate() {
            queues[new as usize] = old as u32;
        }
        let walk = Walk {
            queues,
            runners: (0..w.runners.len()).collect(),
            goroutines: (0..w.goroutines.len()).collect(),
        };
        let mut out = w.map_names(&mut n, &walk);
        // Stored by id, as a world keeps them.
        out.goroutines
            .make_contiguous()
            .sort_unstable_by_key(|g| g.id);
        out.runners.make_contiguous().sort_unstable_by_key(|r| r.id);
        // The counters as the renamed world would have them.
        (out.next_gid, out.next_runner, out.next_sig) = (w.next_gid, w.next_runner, w.next_sig);
        out
    }

    /// True when two live runners or two goroutines have one sort key: the
    /// canonical names then depend on the old ones.
    fn has_ties(w: &World) -> bool {
        let r = w.renamed();
        let keys = |v: Vec<u64>| {
            let n = v.len();
            v.into_iter().collect::<HashSet<_>>().len() < n
        };
        let runners = r
            .runners
            .iter()
            .map(|x| fingerprint(&(x.segment, x.seq, x.pos, x.adhoc)));
        let ranks: Vec<u32> = (0..r.next_runner.max(r.runners.len() as u32 + 1)).collect();
        let roles = r.goroutines.iter().filter(|g| g.id >= r.n_actors).map(|g| {
            let mut role = g.role;
            map_role(&mut role, &mut Anonymous { ranks: &ranks });
            fingerprint(&role)
        });
        keys(runners.collect()) || keys(roles.collect())
    }

    /// Renaming a world's goroutines, runners, signals and queues does not
    /// change its fingerprint up to ids (where no two of them tie), and the
    /// renamed world is its own canonical form: over the first 4,000 worlds of
    /// every flush-2021 built-in, and 300 under each what-if combination.
    #[test]
    fn a_renamed_world_has_one_fingerprint() {
        let mut rng = crate::rng::Rng::new(7);
        let (mut checked, mut tied, mut merged) = (0, 0, 0);
        for name in crate::builtin::names() {
            let Some(crate::AnyScenario::Flush(base)) = crate::builtin::get(name) else {
                continue;
            };
            for (presets, sc) in base.variants() {
                let mut seen = HashSet::new();
                let max = if presets.is_empty() { 4_000 } else { 300 };
                for w in crate::engine::reachable_states(&sc, max) {
                    let fp = w.fingerprint_up_to_ids();
                    merged += usize::from(!seen.insert(fp));
                    let r = w.renamed();
                    assert_eq!(r.renamed(), r, "{name}: renaming twice changes the world");
                    let whole = fingerprint(&super::super::world::Identity(&r));
                    assert_eq!(
                        fp, whole,
                        "{name}: the fingerprint is not the renamed world's"
                    );
                    if has_ties(&w) {
                        tied += 1;
                        continue;
                    }
                    for _ in 0..3 {
                        let s = shuffle(&w, &mut rng);
                        assert_eq!(s.renamed(), r, "{name}: {w:?}");
                        assert_eq!(s.fingerprint_up_to_ids(), fp, "{name}: {w:?}");
                    }
                    checked += 1;
                }
            }
        }
        eprintln!("{checked} worlds renamed, {tied} with ties, {merged} merged");
        assert!(checked > 20_000 && tied * 4 < checked, "{checked} {tied}");
        assert!(merged > 1_000, "{merged}");
    }
}
