//! Breadth first on several threads, with the result of one: the same states,
//! transitions, depth, stop reason, violations and schedules as
//! [`super::Explorer`]'s breadth-first search, whatever the thread count.
//!
//! A level is searched in batches of parents, in their breadth-first order
//! (their link indexes). In a batch, each thread takes a contiguous run of the
//! parents, judges each (its findings, whether the run ended there) and steps
//! every runnable choice, fingerprinting each child; children already visited
//! before the batch are not kept. Then one thread merges the batch in order,
//! doing exactly what the one-thread search does when it takes each parent off
//! its queue: record new findings (and stop at the first, unless `all`), count
//! depth cuts, check the budgets before each child, insert each child's
//! fingerprint and link it to its parent. So a child found twice in a batch is
//! kept where the one-thread search would keep it, and the budgets stop at the
//! same child.
//!
//! A thread keeps the children it made, and the merge tells it which to keep;
//! the next level's parents are taken by the thread that expands them, whose
//! last choice steps the parent itself, as on one thread (one copy fewer a
//! state: sync-scaled-4x4 on two threads 0.58 -> 0.54 s). A parent taken whose
//! children the merge then did not take (a batch cut short by memory, the
//! switch to depth first) is made again from its schedule ([`restore`]). A
//! state's box so moves between threads; it is mostly reused (a spare) rather
//! than freed (the allocator pays dearly for frees across threads).
//!
//! Memory: a thread holds at most its share of a sixteenth of the budget in
//! children (64 MiB at most); past it, it stops after the parent at hand, the
//! merge takes the batch only up to the first parent not expanded, and the
//! next batch starts there. The one-thread budget checks then apply as they are.
//! A parent with more children than the whole budget has room for (a scenario
//! of thousands of actors) is cut there: the merge, which needs room for each
//! child it keeps, stops at the budget before the cut, so a thread holds at
//! most the budget in children.
//!
//! On this 2-core machine the search is bound by memory more than by the cores:
//! two threads are 1.1 to 1.4 times as fast as one (sync-scaled-4x3: 0.51 s
//! on one thread, 0.38 on two; 4x4 0.66 and 0.47; 5x2 to two million states,
//! 1.4 GB, 5.7 and 5.0); the threads' stepping alone scales 1.8 times, and two one-thread
//! searches side by side each run as fast as one alone. Where the second
//! thread's time goes (perf, `sync-scaled-4x3`, 1.5 M states, one thread 5.5 s
//! of CPU, two 8.6 s): malloc and free about 0.9 s more (`malloc_consolidate`
//! among them; reusing roles' vectors in `clone_from` left one thread's as it was),
//! memmove 0.4 s more, reading parents another core made, and two cache misses a child in the
//! visited set instead of one (`contains` while expanding, `insert` while
//! merging, which is serial).

use std::collections::VecDeque;
use std::ops::{Deref, Range};
use std::sync::{mpsc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};

use super::fingerprint::{bytes_with_inline, model_state_bytes, FpSet};
use super::search::{schedule_of, Handover, Queued};
use super::{findings_new, is_invariant_key, Exploration, Explorer, Finding, Found};
use super::{Options, Progress, Stopped};
use crate::engine::Model;
use crate::sched::Choice;

/// Parents a thread takes in one batch. A batch costs each thread a wake-up
/// or two (tens of microseconds on a virtual machine) and the others a wait
/// for the merge, so fewer, bigger batches are faster while a batch's states
/// stay in the caches: on two threads, sync-scaled-4x4 took 0.54 s with
/// 1,024, 0.48 with 4,096 and 0.44 with 16,384; but sync-scaled-5x2 to two
/// million states (1.4 GB) took 5.1 s with 1,024 or 4,096 and 9.4 with 16,384.
const BATCH_PER_THREAD: usize = 4096;
/// Kept children a thread's share must hold per parent of its run for it to
/// take big batches and parents (see [`Work::expand`]).
const TAKE_FROM: usize = 4;
/// Parents a thread takes in one batch where its share is small: a batch cut
/// short by memory wastes the work past the cut (sync-scaled-5x2 to 300,000
/// states under 512 MiB, two threads: 0.62 s with 1,024 parents, 0.82 with
/// 4,096).
const SMALL_BATCH_PER_THREAD: usize = 1024;

/// The parents a thread takes in a batch, given the children its share holds.
fn batch_per_thread(max_cands: usize) -> usize {
    match max_cands >= TAKE_FROM * BATCH_PER_THREAD {
        true => BATCH_PER_THREAD,
        false => SMALL_BATCH_PER_THREAD,
    }
}
/// Spare states a thread keeps for reuse (`clone_from`): a batch's worth, so
/// the parents a batch is done with become the next batch's children without
/// the allocator; no more than its share of children's bytes (`max_cands`).
const SPARES: usize = 4 * BATCH_PER_THREAD;
/// The most bytes of children a thread holds in a batch.
const MAX_SHARE: u64 = 64 << 20;
/// A child not kept (visited before its batch).
const NOT_KEPT: u32 = u32::MAX;
/// A child not stepped: its thread held as many children as the whole memory
/// budget has room for, so the merge stops before it (see [`Work::expand`]).
const OVER: u32 = u32::MAX - 1;

/// A state a thread holds. Boxed: a world is hundreds of bytes, and it moves
/// from spare to candidate to the next level and back.
type Held<S> = Box<S>;

/// A parent of the level: its state and link (its breadth-first index + 1).
/// The thread that expands it takes the state (its last choice steps the
/// state itself, as on one thread: one copy fewer a state); one taken whose
/// children the merge did not take is made again from its schedule
/// ([`restore`]). A lock no two threads want at once: a batch gives each
/// parent to one thread.
struct Entry<S> {
    state: Mutex<Option<Held<S>>>,
    link: u32,
}

impl<S> Entry<S> {
    fn new(state: Held<S>, link: u32) -> Self {
        Entry {
            state: Mutex::new(Some(state)),
            link,
        }
    }

    /// Its state, unless a thread took it.
    fn into_state(self) -> Option<Held<S>> {
        self.state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// One stepped choice of a parent: its fingerprint, and its state's index in the
/// thread's candidates (or [`NOT_KEPT`]).
#[derive(Clone, Copy)]
struct Kid {
    choice: Choice,
    fp: u64,
    cand: u32,
}

/// What a thread found of one parent.
struct Parent {
    link: u32,
    found: Vec<Finding>,
    ended: bool,
    runnable: u32,
    kids: Range<usize>,
}

/// What a thread owns: the level's parents it made, and the next level's.
struct Owned<S> {
    cur: VecDeque<Entry<S>>,
    next: Vec<Entry<S>>,
    /// Entries of the level already freed (the level's order indexes count them).
    base: usize,
}

/// A thread's work of one batch, and its reusable buffers.
struct Work<S, F> {
    cands: Vec<Held<S>>,
    /// Per candidate: its link once the merge keeps it, else 0.
    keep: Vec<u32>,
    parents: Vec<Parent>,
    kids: Vec<Kid>,
    spare: Vec<Held<S>>,
    runnable: Vec<Choice>,
    facts: Vec<F>,
    /// The children this thread made in this batch: a child made twice is kept
    /// once (where it came first, as the merge would keep it).
    batch: FpSet,
    /// Spares kept at most (fewer for big states, see [`SPARES`]).
    max_spares: usize,
}

impl<S: Clone + std::hash::Hash, F> Work<S, F> {
    fn new() -> Self {
        Work {
            cands: Vec::new(),
            keep: Vec::new(),
            parents: Vec::new(),
            kids: Vec::new(),
            spare: Vec::new(),
            runnable: Vec::new(),
            facts: Vec::new(),
            batch: FpSet::default(),
            max_spares: SPARES,
        }
    }

    fn recycle(&mut self, s: Held<S>) {
        if self.spare.len() < self.max_spares {
            self.spare.push(s);
        }
    }

    fn copy(&mut self, w: &S) -> Held<S> {
        match self.spare.pop() {
            Some(mut s) => {
                (*s).clone_from(w);
                s
            }
            None => Box::new(w.clone()),
        }
    }

    /// Before a batch: the kept children of the last merge join the next level
    /// (in link order), the others are freed here, and so are the parents
    /// before link `done_below`; at a new level, the next level becomes the
    /// current one.
    fn settle(&mut self, own: &mut Owned<S>, new_level: bool, done_below: u32) {
        // Drained, not taken: the buffers keep their capacity from batch to batch.
        let (mut cands, mut keep) = (
            std::mem::take(&mut self.cands),
            std::mem::take(&mut self.keep),
        );
        for (s, link) in cands.drain(..).zip(keep.drain(..)) {
            if link != 0 {
                own.next.push(Entry::new(s, link));
            } else {
                self.recycle(s);
            }
        }
        (self.cands, self.keep) = (cands, keep);
        self.parents.clear();
        self.kids.clear();
        self.batch.clear();
        while own.cur.front().is_some_and(|e| e.link < done_below) {
            if let Some(s) = own.cur.pop_front().and_then(Entry::into_state) {
                self.recycle(s);
            }
            own.base += 1;
        }
        if new_level {
            for s in own.cur.drain(..).filter_map(Entry::into_state) {
                self.recycle(s);
            }
            own.cur = std::mem::take(&mut own.next).into();
            own.base = 0;
        }
    }

    /// Judges each parent of `order` (owner, index) and steps its choices.
    fn expand<M: Model<State = S, Fact = F>>(
        &mut self,
        sc: &M,
        owned: &[impl Deref<Target = Owned<S>>],
        order: &[(u32, u32)],
        (seen, merge_ids, found_keys): (&FpSet, bool, &[String]),
        (depth, max_steps, (max_cands, max_kids), most): (u32, u32, (usize, usize), usize),
    ) {
        self.max_spares = SPARES.min(max_cands);
        // Parents are taken (their last choice steps them) only with big
        // batches, where a thread's share holds a few kept children a parent:
        // under a small budget batches are cut, and each parent taken past a
        // cut would be replayed.
        let take = batch_per_thread(max_cands) == BATCH_PER_THREAD;
        self.spare.truncate(self.max_spares);
        for (k, &(owner, i)) in order.iter().enumerate() {
            // Memory: past its share of children (or of records of children
            // stepped, kept or not: wide parents whose children are mostly
            // visited), a thread stops (after one parent at least); the merge
            // takes the batch only up to there.
            let full = self.cands.len() >= max_cands || self.kids.len() >= max_kids;
            if !self.parents.is_empty() && full {
                break;
            }
            prefetch_after(sc, owned, order, k);
            let own = &owned[owner as usize];
            let e = &own.cur[i as usize - own.base];
            let state = lock(&e.state).take();
            let state = state.expect("a parent is expanded once, or restored");
            // Invariants found before the batch are left out before their
            // messages are built: the merge would skip them.
            let known = |id: &str| found_keys.iter().any(|k| is_invariant_key(k, id));
            let (found, ended) = findings_new(sc, &state, known);
            let start = self.kids.len();
            let mut runnable = std::mem::take(&mut self.runnable);
            runnable.clear();
            if !ended {
                sc.runnable(&state, &mut runnable);
            }
            let left = match !ended && depth < max_steps {
                true => self.children(sc, state, &runnable, (seen, merge_ids), (most, take)),
                false => Some(state),
            };
            match (left, take) {
                (Some(p), true) => self.recycle(p),
                (Some(p), false) => *lock(&e.state) = Some(p),
                (None, _) => {}
            }
            self.parents.push(Parent {
                link: e.link,
                found,
                ended,
                runnable: runnable.len() as u32,
                kids: start..self.kids.len(),
            });
            self.runnable = runnable;
        }
    }

    /// Steps each of `runnable` from `state` (with `take`, the last choice
    /// steps it itself), keeping the children neither visited before the batch
    /// nor made before in it. Returns the parent unless it was stepped.
    fn children<M: Model<State = S, Fact = F>>(
        &mut self,
        sc: &M,
        state: Held<S>,
        runnable: &[Choice],
        (seen, merge_ids): (&FpSet, bool),
        (most, take): (usize, bool),
    ) -> Option<Held<S>> {
        let mut parent = Some(state);
        for (j, &c) in runnable.iter().enumerate() {
            // A parent with more children than the budget holds (one
            // of thousands of actors): the merge stops at the budget
            // before the `most`-th kept child, as it needs room for each
            // kept one (each counts in the frontier of `Books::room`).
            if self.cands.len() >= most {
                self.kids.push(Kid {
                    choice: c,
                    fp: 0,
                    cand: OVER,
                });
                break;
            }
            // The last choice steps the parent itself.
            let mut next = match (take && j + 1 == runnable.len(), parent.as_deref()) {
                (false, Some(p)) => self.copy(p),
                _ => parent
                    .take()
                    .expect("the parent is stepped by its last choice only"),
            };
            self.facts.clear();
            sc.step(&mut next, c, &mut self.facts);
            let fp = match merge_ids {
                true => sc.fingerprint_up_to_ids(&next),
                false => sc.fingerprint(&next),
            };
            let cand = if seen.contains(fp) || !self.batch.insert(fp) {
                self.recycle(next);
                NOT_KEPT
            } else {
                self.cands.push(next);
                self.keep.push(0);
                (self.cands.len() - 1) as u32
            };
            self.kids.push(Kid {
                choice: c,
                fp,
                cand,
            });
        }
        parent
    }
}

/// Asks for the memory of the parents after the `k`-th of `order` while it is
/// expanded (as breadth first on one thread does; see [`super::prefetch`]).
#[inline(never)]
fn prefetch_after<M: Model>(
    sc: &M,
    owned: &[impl Deref<Target = Owned<M::State>>],
    order: &[(u32, u32)],
    k: usize,
) {
    // Parents of this thread's run: no other thread holds their locks.
    let at = |j: usize| {
        order.get(j).and_then(|&(owner, i)| {
            let own = &owned[owner as usize];
            own.cur[i as usize - own.base].state.try_lock().ok()
        })
    };
    let (next, after) = (at(k + 1), at(k + 2));
    super::prefetch::next_two(
        sc,
        next.as_ref().and_then(|g| g.as_deref()),
        after.as_ref().and_then(|g| g.as_deref()),
    );
}

/// The search's books, kept by the merging thread.
struct Books {
    o: Options,
    links: Vec<(u32, Choice)>,
    found: Vec<Found>,
    stats: Progress,
    depth_cut: u64,
    peak_bytes: u64,
    /// What one more state would have held when the memory budget stopped it.
    needed_bytes: Option<u64>,
    state_bytes: u64,
    /// A state's inline size as the estimate takes it ([`Model::STATE_SIZE_64`]).
    inline: usize,
    stopped: Option<Stopped>,
    /// The level's parents, and how many the merge has taken.
    level_len: u64,
    popped: u64,
    /// The next level, in link order: (thread, index in its `next`).
    next_order: Vec<(u32, u32)>,
    next_count: Vec<u32>,
    /// Once the queue fills half the memory budget ([`super::queue_full`]): the
    /// level's first parent not taken (its index in the level's order) and the
    /// level's depth. The search goes on depth first on one thread from there.
    deepen: Option<(usize, u32)>,
}

impl Books {
    /// The books of a search whose root, of `state_bytes` (`inline` of them in
    /// place), is visited.
    fn new(o: &Options, threads: usize, (state_bytes, inline): (u64, usize)) -> Books {
        let stats = Progress {
            states: 1,
            ..Progress::default()
        };
        Books {
            o: o.clone(),
            links: Vec::new(),
            found: Vec::new(),
            stats,
            depth_cut: 0,
            peak_bytes: 0,
            needed_bytes: None,
            state_bytes,
            inline,
            stopped: None,
            level_len: 1,
            popped: 0,
            next_order: Vec::new(),
            next_count: vec![0; threads],
            deepen: None,
        }
    }

    /// The children a thread may hold in a batch, and its records of children
    /// stepped: a sixteenth of the memory budget shared by the threads, and 64
    /// MiB at most (the merge's budget checks come after).
    fn shares(&self, threads: usize) -> (usize, usize) {
        let share = (self.o.max_bytes / 16 / threads as u64).min(MAX_SHARE);
        let max_cands = (share / self.state_bytes.max(1)).max(1) as usize;
        let max_kids = (share / std::mem::size_of::<Kid>() as u64).max(1) as usize;
        (max_cands, max_kids)
    }

    /// The one-thread search's queue length: the level's parents not taken and
    /// the next level's kept children.
    fn queued(&self) -> u64 {
        self.level_len - self.popped + self.next_order.len() as u64
    }

    /// The one-thread search's `room_for_one_more`, with its queue's length:
    /// for a state `new` says is new (asked only at the state budget, which
    /// lets a state visited before by).
    fn room(&mut self, seen: &FpSet, new: impl FnOnce(&FpSet) -> bool) -> bool {
        let full =
            self.stats.states >= self.o.max_states || self.links.len() >= u32::MAX as usize - 1;
        if full && new(seen) {
            self.stopped = Some(Stopped::MaxStates);
            return false;
        }
        let queue = self.queued();
        let extra = (self.links.capacity() * std::mem::size_of::<(u32, Choice)>()) as u64;
        let bytes = seen.bytes_to_insert() + (queue + 1) * self.state_bytes + extra;
        if bytes > self.o.max_bytes {
            self.stopped = Some(Stopped::MaxBytes);
            self.needed_bytes = Some(bytes);
            return false;
        }
        self.peak_bytes = self.peak_bytes.max(bytes);
        true
    }

    /// Records a parent's new findings, as the one-thread search's `judge`.
    fn judge(&mut self, p: &mut Parent) {
        for (kind, message, key) in std::mem::take(&mut p.found) {
            let key = super::finding_key(&self.o, kind, &message, key);
            if self.found.iter().any(|f| f.key == key) {
                continue;
            }
            let schedule = schedule_of(&self.links, p.link);
            let stops = self.o.stops_at(&key);
            self.found.push(Found::new(kind, message, key, &schedule));
            self.stats.violations += 1;
            if stops {
                self.stopped = Some(Stopped::FirstViolation);
            }
        }
    }

    /// Takes one batch's parents in order, as the one-thread search takes them
    /// off its queue, up to the first a thread did not expand (see
    /// [`Work::expand`]); marks the children to keep. Returns how many it took.
    fn merge<S: std::hash::Hash, F>(
        &mut self,
        works: &mut [MutexGuard<'_, Work<S, F>>],
        seen: &mut FpSet,
        (batch, depth): (Range<usize>, u32),
    ) -> usize {
        let n = works.len();
        let mut taken = 0;
        for (t, w) in works.iter_mut().enumerate() {
            let parents = std::mem::take(&mut w.parents);
            let whole = parents.len() == run_of(batch.clone(), n, t).len();
            for mut p in parents {
                if self.stopped.is_some() {
                    return taken;
                }
                // Where the one-thread search goes on depth first.
                if super::queue_full(self.queued(), self.state_bytes, self.o.max_bytes) {
                    self.deepen = Some((batch.start + taken, depth));
                    return taken;
                }
                taken += 1;
                self.popped += 1;
                self.stats.depth = self.stats.depth.max(depth);
                self.judge(&mut p);
                if self.stopped.is_some() || p.ended {
                    continue;
                }
                if depth >= self.o.max_steps {
                    self.depth_cut += u64::from(p.runnable > 0);
                    continue;
                }
                for k in p.kids.clone() {
                    // A child not stepped (`OVER`) counts as new: the budget
                    // must stop before it.
                    let kid = &w.kids[k];
                    let new = |seen: &FpSet| match kid.cand {
                        OVER => true,
                        NOT_KEPT => false,
                        _ => !seen.contains(kid.fp),
                    };
                    if !self.room(seen, new) {
                        break;
                    }
                    if w.kids[k].cand == OVER {
                        // Not reached (see `Work::expand`); were it, the budget stops here.
                        self.stopped = Some(Stopped::MaxBytes);
                        break;
                    }
                    self.stats.transitions += 1;
                    let kid = w.kids[k];
                    // Not kept: visited before the batch, or made before in it
                    // by this thread (and so inserted just before): the insert
                    // would find it, after growing a table due to grow, as the
                    // one-thread search's does (the bytes it counts at the
                    // switch to depth first follow the table).
                    if kid.cand == NOT_KEPT {
                        seen.grow_if_due();
                        continue;
                    }
                    if !seen.insert(kid.fp) {
                        continue;
                    }
                    self.stats.states += 1;
                    self.stats.depth = self.stats.depth.max(depth + 1);
                    if self.stats.states % 256 == 0 {
                        let s = &w.cands[kid.cand as usize];
                        self.state_bytes = self.state_bytes.max(bytes_with_inline(s, self.inline));
                    }
                    self.links.push((p.link, kid.choice));
                    w.keep[kid.cand as usize] = self.links.len() as u32;
                    self.next_order.push((t as u32, self.next_count[t]));
                    self.next_count[t] += 1;
                }
            }
            if !whole {
                return taken;
            }
        }
        taken
    }
}

/// What the merging thread asks of a worker thread.
#[derive(Clone, Copy)]
enum Job {
    /// Take in the last merge's children (and start the next level).
    Settle { new_level: bool, done_below: u32 },
    /// Expand this thread's run of the batch `order[lo..hi]`, keeping at most
    /// about `max_cands` children (and `max_kids` records of children stepped),
    /// and never more than `most`.
    Expand {
        lo: usize,
        hi: usize,
        depth: u32,
        max_cands: usize,
        max_kids: usize,
        most: usize,
    },
}

/// What the threads share: each thread's states and work, the level's order,
/// the visited set. A thread locks only its own work and states for writing;
/// the merge runs while the others wait.
struct Shared<S, F> {
    owned: Vec<RwLock<Owned<S>>>,
    works: Vec<Mutex<Work<S, F>>>,
    order: RwLock<Vec<(u32, u32)>>,
    seen: RwLock<FpSet>,
    /// The keys of what the merges found so far (see [`Work::expand`]).
    found: RwLock<Vec<String>>,
    max_steps: u32,
    /// [`Options::merges_ids`]: which fingerprint the search remembers.
    merge_ids: bool,
}

impl<S: Clone + std::hash::Hash, F> Shared<S, F> {
    /// `threads` threads' books, the first holding `root` (of fingerprint
    /// `fp`), visited.
    fn new((root, fp): (S, u64), threads: usize, (o, merge_ids): (&Options, bool)) -> Self {
        let mut seen = FpSet::default();
        seen.insert(fp);
        let mut root = Some(Entry::new(Box::new(root), 0));
        let owned = (0..threads).map(|_| Owned {
            cur: root.take().into_iter().collect(),
            next: Vec::new(),
            base: 0,
        });
        Shared {
            owned: owned.map(RwLock::new).collect(),
            works: (0..threads).map(|_| Mutex::new(Work::new())).collect(),
            order: RwLock::new(vec![(0, 0)]),
            seen: RwLock::new(seen),
            found: RwLock::new(Vec::new()),
            max_steps: o.max_steps,
            merge_ids,
        }
    }

    /// Thread `t`'s part of a job.
    fn part<M: Model<State = S, Fact = F>>(&self, sc: &M, t: usize, job: Job) {
        let mut w = lock(&self.works[t]);
        match job {
            Job::Settle {
                new_level,
                done_below,
            } => {
                let mut own = self.owned[t]
                    .write()
                    .unwrap_or_else(PoisonError::into_inner);
                w.settle(&mut own, new_level, done_below);
            }
            Job::Expand {
                lo,
                hi,
                depth,
                max_cands,
                max_kids,
                most,
            } => {
                let order = read(&self.order);
                let owned: Vec<_> = self.owned.iter().map(read).collect();
                let (seen, found) = (read(&self.seen), read(&self.found));
                let part = &order[run_of(lo..hi, self.works.len(), t)];
                let limits = (depth, self.max_steps, (max_cands, max_kids), most);
                w.expand(sc, &owned, part, (&seen, self.merge_ids, &found), limits);
            }
        }
    }
}

/// A state made again from its schedule (see [`restore`]).
type Replay<'a, S> = dyn Fn(&[Choice]) -> S + 'a;

/// The state `path` reaches from the root, as the search made it (its root
/// records footprints as `explore_threads` has it record them).
fn replay<M: Model>(sc: &M, o: &Options, path: &[Choice]) -> M::State {
    let mut s = sc.init();
    sc.record_footprints(&mut s, o.races || o.reduce);
    let mut facts = Vec::new();
    for &c in path {
        facts.clear();
        sc.step(&mut s, c, &mut facts);
    }
    s
}

/// Makes again, from their schedules, the parents of the level's `range` a
/// thread took but the merge did not (a batch cut short by memory, or where the
/// search goes on depth first): the next batch, or the depth-first search,
/// starts with them. A replay gives the very state (a step is a function of
/// the state and the choice). Threads take parents only where their share
/// holds a few kept children a parent (see [`batch_per_thread`]), so cuts
/// are few there: 10 mutex actors to 300,000 states under 300 MiB make about
/// 15,000 again. Under a smaller share (sync-scaled-5x2 under 512 MiB, where
/// taking parents replayed about a step per transition and cost 0.12 s of
/// 0.6) parents are copied as before.
fn restore<S, F>(
    sh: &Shared<S, F>,
    links: &[(u32, Choice)],
    range: Range<usize>,
    replay: &Replay<'_, S>,
) {
    let order = read(&sh.order);
    for &(owner, i) in &order[range] {
        let own = read(&sh.owned[owner as usize]);
        let e = &own.cur[i as usize - own.base];
        let mut state = lock(&e.state);
        if state.is_none() {
            *state = Some(Box::new(replay(&schedule_of(links, e.link))));
        }
    }
}

/// The link of the level's `i`-th parent (read while the threads wait).
fn link_at<S, F>(sh: &Shared<S, F>, i: usize) -> u32 {
    let (owner, at) = read(&sh.order)[i];
    let own = read(&sh.owned[owner as usize]);
    own.cur[at as usize - own.base].link
}

/// Thread `t`'s run of a batch of `n` threads.
fn run_of(batch: Range<usize>, n: usize, t: usize) -> Range<usize> {
    let per = batch.len().div_ceil(n);
    let from = (batch.start + t * per).min(batch.end);
    from..(from + per).min(batch.end)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(m: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(PoisonError::into_inner)
}

/// Explores `sc` breadth first as `o` says (its `races` aside: the race check
/// runs on one thread) on `threads` threads; `progress` runs after each batch,
/// false cancels. The threads live as long as the search, so each frees the
/// states it made.
pub fn explore_threads<M>(
    sc: &M,
    o: &Options,
    threads: usize,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Exploration
where
    M: Model + Sync,
    M::State: Send + Sync,
    M::Fact: Send,
{
    let threads = threads.clamp(1, 256);
    let o = &o.applied(sc);
    let mut root = sc.init();
    // The levels here read no step's footprint, but the depth-first search a
    // full queue hands over to does with `races` or `reduce` (see `depth_first`).
    sc.record_footprints(&mut root, o.races || o.reduce);
    let mut b = Books::new(
        o,
        threads,
        (model_state_bytes::<M>(&root), M::STATE_SIZE_64),
    );
    let fp = o.fingerprint(sc, &root);
    let sh = Shared::new((root, fp), threads, (o, o.merges_ids::<M>()));
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = mpsc::channel::<bool>();
        let mut jobs = Vec::new();
        for t in 1..threads {
            let (tx, rx) = mpsc::channel::<Job>();
            jobs.push(tx);
            let (done_tx, sh) = (done_tx.clone(), &sh);
            scope.spawn(move || {
                while let Ok(job) = rx.recv() {
                    // A panic (a bug in a model) is reported, not waited for forever.
                    let part = || sh.part(sc, t, job);
                    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(part)).is_ok();
                    if done_tx.send(ok).is_err() || !ok {
                        return;
                    }
                }
            });
        }
        let mut run = |job: Job| {
            for tx in &jobs {
                let _ = tx.send(job);
            }
            sh.part(sc, 0, job);
            for _ in &jobs {
                if !done_rx.recv().unwrap_or(false) {
                    panic!("a search thread panicked (its message is above)");
                }
            }
        };
        let replay = |path: &[Choice]| replay(sc, o, path);
        search(&sh, &mut b, (&mut run, &replay), progress);
    });
    // A cancel at the switch stands: the report is of the search so far.
    if let (Some(at), None) = (b.deepen, b.stopped) {
        return depth_first(sc, o, handover(sc, o, sh, b, at), progress);
    }
    let stopped = b.stopped.unwrap_or(Stopped::Exhausted);
    let seen_bytes = read(&sh.seen).bytes();
    let mut x = super::report::<M>(
        sc,
        o,
        (b.stats, stopped, b.depth_cut, b.peak_bytes.max(seen_bytes)),
        b.found,
    );
    x.needed_bytes = b.needed_bytes;
    x
}

/// The search from where the queue filled half the memory budget, depth first
/// on one thread, as the one-thread search goes on (see [`Books::deepen`]).
fn depth_first<M: Model>(
    sc: &M,
    o: &Options,
    h: Handover<M::State>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Exploration {
    let mut x = Explorer::resume_depth_first(std::sync::Arc::new(sc.clone()), o.clone(), h);
    while !x.run(super::PROGRESS_EVERY) {
        if !progress(&x.progress()) {
            x.cancel();
        }
    }
    x.finish()
}

/// What the one-thread search holds where the queue filled half the memory
/// budget: the level's parents from the `from`-th of its order (at `depth`),
/// then the next level's kept children, the last merge's among them.
fn handover<S: Clone + std::hash::Hash, F, M: Model<State = S, Fact = F>>(
    sc: &M,
    o: &Options,
    sh: Shared<S, F>,
    b: Books,
    (from, depth): (usize, u32),
) -> Handover<S> {
    let Shared {
        owned,
        works,
        order,
        seen,
        ..
    } = sh;
    let order = order.into_inner().unwrap_or_else(PoisonError::into_inner);
    let mut cur = Vec::new();
    let mut next = Vec::new();
    for (own, w) in owned.into_iter().zip(works) {
        let mut own = own.into_inner().unwrap_or_else(PoisonError::into_inner);
        let mut w = w.into_inner().unwrap_or_else(PoisonError::into_inner);
        // Takes in the last merge's kept children (and frees nothing else).
        w.settle(&mut own, false, 0);
        let base = own.base;
        let states = |v: Vec<Entry<S>>| {
            v.into_iter()
                .map(|e| Some((e.link, e.into_state())))
                .collect::<Vec<_>>()
        };
        cur.push((base, states(own.cur.into())));
        next.push(states(own.next));
    }
    let mut queue: VecDeque<Queued<S>> = VecDeque::new();
    let mut push = |e: Option<(u32, Option<Held<S>>)>, depth: u32| {
        let (link, state) = e.expect("a queued state is taken once");
        let state = state.expect("a parent the merge did not take is restored");
        let fp = o.fingerprint(sc, &state);
        queue.push_back((state, link, depth, fp, None));
    };
    for &(owner, i) in &order[from..] {
        let (base, states) = &mut cur[owner as usize];
        push(states[i as usize - *base].take(), depth);
    }
    for &(t, i) in &b.next_order {
        push(next[t as usize][i as usize].take(), depth + 1);
    }
    Handover {
        seen: seen.into_inner().unwrap_or_else(PoisonError::into_inner),
        links: b.links,
        queue,
        found: b.found,
        stats: b.stats,
        depth_cut: b.depth_cut,
        peak_bytes: b.peak_bytes,
        state_bytes: b.state_bytes,
    }
}

/// The levels, batch by batch: `run` has every thread do a job; the merge is
/// done here.
fn search<S: Clone + std::hash::Hash, F>(
    sh: &Shared<S, F>,
    b: &mut Books,
    (run, replay): (&mut dyn FnMut(Job), &Replay<'_, S>),
    progress: &mut dyn FnMut(&Progress) -> bool,
) {
    let threads = sh.works.len();
    let mut batch = SMALL_BATCH_PER_THREAD * threads;
    let mut depth = 0;
    let mut new_level = false;
    loop {
        let len = read(&sh.order).len();
        if len == 0 {
            return;
        }
        let mut lo = 0;
        while lo < len {
            let (max_cands, max_kids) = b.shares(threads);
            let most = batch_per_thread(max_cands) * threads;
            batch = batch.min(most);
            let hi = (lo + batch).min(len);
            // The parents before this batch are done with (none at a new level:
            // the whole last level goes).
            let done_below = if new_level { 0 } else { link_at(sh, lo) };
            run(Job::Settle {
                new_level,
                done_below,
            });
            new_level = false;
            run(Job::Expand {
                lo,
                hi,
                depth,
                max_cands,
                max_kids,
                most: b.o.max_bytes.div_ceil(b.state_bytes.max(1)) as usize,
            });
            {
                let mut works: Vec<_> = sh.works.iter().map(lock).collect();
                let mut seen = sh.seen.write().unwrap_or_else(PoisonError::into_inner);
                let taken = b.merge(&mut works, &mut seen, (lo..hi, depth));
                let mut found = sh.found.write().unwrap_or_else(PoisonError::into_inner);
                if found.len() != b.found.len() {
                    *found = b.found.iter().map(|f| f.key.clone()).collect();
                }
                // A batch cut short by memory: the next is as big as what was taken.
                batch = if taken < hi - lo {
                    taken.max(sh.works.len())
                } else {
                    (batch * 2).min(most)
                };
                if taken < hi - lo && b.stopped.is_none() {
                    restore(sh, &b.links, lo + taken..hi, replay);
                }
                lo += taken;
                b.stats.frontier = b.level_len - b.popped + b.next_order.len() as u64;
                b.stats.bytes = b.peak_bytes.max(seen.bytes());
            }
            // As one thread: no progress call once the search is done.
            let last = lo >= len && b.next_order.is_empty();
            if b.stopped.is_none() && !last && !progress(&b.stats) {
                b.stopped = Some(Stopped::Cancelled);
            }
            if b.stopped.is_some() || b.deepen.is_some() {
                return;
            }
        }
        *sh.order.write().unwrap_or_else(PoisonError::into_inner) =
            std::mem::take(&mut b.next_order);
        b.next_count.iter_mut().for_each(|c| *c = 0);
        b.level_len = read(&sh.order).len() as u64;
        b.popped = 0;
        depth += 1;
        new_level = true;
    }
}
