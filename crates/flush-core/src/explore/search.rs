//! The search itself, resumable: [`Explorer::run`] goes on for a number of
//! transitions and returns, so the CLI can report progress and the page can
//! explore in slices between frames.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::fingerprint::{model_state_bytes, FpSet};
use super::races::races_at;
use super::reduce::Touched;
use super::{
    findings_new, is_invariant_key, wants_shrink, Exploration, Found, Options, Order, Progress,
    Shrinking, Stopped, SHRINK_REPLAYS,
};
// Only a search of several threads tells a shared set its states.
#[cfg(not(target_arch = "wasm32"))]
use super::TELL_STATES;
use crate::engine::{Model, OutcomeKind};
use crate::sched::Choice;

/// A step asleep or taken, with what it touched (shared: sleep sets copy it
/// from state to state).
type Stepped = (Choice, Arc<Touched>);

/// A state the search holds (on the path, in the queue, spare). Boxed: a world
/// is hundreds of bytes, and it moves from copy to path and back to the spares
/// once per transition.
type Held<S> = Box<S>;

/// A breadth-first state waiting: (state, link index + 1 (0 = root), depth,
/// fingerprint, the only steps to take when it is queued again to wake them).
pub(super) type Queued<S> = (Held<S>, u32, u32, u64, Option<Vec<Choice>>);

/// A breadth-first search of several threads whose queue filled half the
/// memory budget ([`super::queue_full`]), handed to one thread to go on depth
/// first: what [`Explorer::go_depth_first`] keeps of its own search.
#[cfg(not(target_arch = "wasm32"))]
pub(super) struct Handover<S> {
    pub seen: FpSet,
    pub links: Vec<(u32, Choice)>,
    pub queue: VecDeque<Queued<S>>,
    pub found: Vec<Found>,
    pub stats: Progress,
    pub depth_cut: u64,
    pub peak_bytes: u64,
    pub state_bytes: u64,
}

/// One level of the depth-first path: a state and its runnable choices (a range
/// of the shared choice buffer), `next` the one to step next, `at` the one whose
/// child the path goes on from (or was last looked up), and the child of the
/// one after it, made ahead ([`Made`]).
struct Frame<S> {
    state: Held<S>,
    first: usize,
    len: u32,
    next: u32,
    at: u32,
    ahead: Option<Made<S>>,
    /// With [`Options::reduce`]: the steps not to take here (each commutes with
    /// every step taken since an earlier level took it), and the steps taken from
    /// here so far (the later ones sleep on them where they commute).
    sleep: Vec<Stepped>,
    taken: Vec<Stepped>,
}

/// Depth first: the child a level's choice `at` stepped to, not looked up in
/// the visited set yet, with its fingerprint and sleep set. A level makes the
/// child of its next choice before it looks up the one at hand: the lookup's
/// slot, asked for ([`FpSet::prefetch`]) when its child was made, comes in
/// from memory while the next is stepped, instead of stalling the search
/// (perf, sync-scaled-5x3 depth first: that load was 20% of the time), once
/// the set is past the caches ([`AHEAD_FROM`]). Which states are visited, in
/// which order, and every count are as without.
struct Made<S> {
    at: u32,
    state: Held<S>,
    fp: u64,
    sleep: Vec<Stepped>,
}

/// The visited set's bytes from which a level makes a child ahead ([`Made`]):
/// a smaller table stays in the caches, where a lookup costs little and a
/// child made ahead only holds memory (a small budget stops sooner).
const AHEAD_FROM: u64 = 8 << 20;

/// The visited set: the search's own, or one several depth-first searches
/// share ([`super::swarm`]).
enum Seen {
    Own(FpSet),
    #[cfg(not(target_arch = "wasm32"))]
    Shared(
        Arc<super::fingerprint::SharedFpSet>,
        Box<super::fingerprint::Recent>,
    ),
}

impl Seen {
    /// Adds `fp`, reached at `depth` (read for a shared set only); false
    /// when it was there already.
    #[inline]
    fn insert(&mut self, fp: u64, _depth: impl FnOnce() -> u32) -> bool {
        match self {
            Seen::Own(s) => s.insert(fp),
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, recent) => recent.insert(s, fp, _depth()),
        }
    }

    /// The states visited by every search that shares this set, `mine` of
    /// them this one's not told yet ([`TELL_STATES`]).
    fn states(&self, mine: u64) -> u64 {
        match self {
            Seen::Own(_) => mine,
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, _) => s.states() + mine % TELL_STATES,
        }
    }

    /// Counts one more state visited by a search that has now visited `mine`.
    #[inline]
    fn visited(&self, _mine: u64) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Seen::Shared(s, _) = self {
            if _mine % TELL_STATES == 0 {
                s.add_states(TELL_STATES);
            }
        }
    }

    fn contains(&self, fp: u64) -> bool {
        match self {
            Seen::Own(s) => s.contains(fp),
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, _) => s.contains(fp),
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Seen::Own(s) => s.bytes(),
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, _) => s.bytes(),
        }
    }

    fn bytes_to_insert(&self, _fp: u64) -> u64 {
        match self {
            Seen::Own(s) => s.bytes_to_insert(),
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, _) => s.bytes_to_insert(_fp),
        }
    }

    /// See [`FpSet::prefetch`].
    #[inline]
    fn prefetch(&self, fp: u64) {
        match self {
            Seen::Own(s) => s.prefetch(fp),
            #[cfg(not(target_arch = "wasm32"))]
            Seen::Shared(s, _) => s.prefetch(fp),
        }
    }
}

/// What is left to explore.
enum Frontier<S> {
    /// Breadth first: the states waiting ([`Queued`]), and the parent links
    /// that rebuild schedules without storing one per state.
    Bfs {
        queue: VecDeque<Queued<S>>,
        links: Vec<(u32, Choice)>,
    },
    /// Depth first: the current path, and the choices of each level. After
    /// breadth first went on depth first ([`super::queue_full`]): the queued
    /// states left, each the root of a depth-first search in turn, their links,
    /// and the schedule and depth of the root at hand.
    Dfs {
        frames: Vec<Frame<S>>,
        /// The levels holding a child made ahead (counted as they change: the
        /// memory budget reads it at every step).
        ahead: usize,
        choices: Vec<Choice>,
        roots: VecDeque<Queued<S>>,
        links: Vec<(u32, Choice)>,
        base: Vec<Choice>,
        base_depth: u32,
    },
}

impl<S> Frontier<S> {
    /// Depth first from the start.
    fn dfs() -> Frontier<S> {
        Frontier::Dfs {
            frames: Vec::new(),
            ahead: 0,
            choices: Vec::new(),
            roots: VecDeque::new(),
            links: Vec::new(),
            base: Vec::new(),
            base_depth: 0,
        }
    }

    /// The schedule of the state at hand: breadth first, the one queued at
    /// `link`; depth first, the deepest level's, after the root's (`link` is
    /// not read).
    fn path(&self, link: u32) -> Vec<Choice> {
        match self {
            Frontier::Bfs { links, .. } => schedule_of(links, link),
            Frontier::Dfs {
                frames,
                choices,
                base,
                ..
            } => {
                let taken = frames.iter().map(|f| choices[f.first + f.at as usize]);
                base.iter().copied().chain(taken).collect()
            }
        }
    }
}

/// What a search has counted ([`Explorer::counts`]).
#[cfg(not(target_arch = "wasm32"))]
pub(super) struct Counts {
    pub stats: Progress,
    pub depth_cut: u64,
    /// Why it stopped before its end, if it did (a budget, the first violation).
    pub stopped: Option<Stopped>,
    /// It found a violation.
    pub found: bool,
    pub peak_bytes: u64,
    /// Bytes of one state, sampled (the largest seen).
    pub state_bytes: u64,
}

/// Breadth first: the state whose children are being made, a few at a time:
/// a state of thousands of actors has thousands, a millisecond each, and the
/// page looks at its clock between them (it held the page 0.25 s).
struct Expanding<S> {
    /// The parent, until its last choice steps it.
    parent: Option<Held<S>>,
    link: u32,
    depth: u32,
    runnable: Vec<Choice>,
    /// The next choice of `runnable` to step.
    next: usize,
    sleep: Vec<Stepped>,
    /// With [`Options::reduce`]: the choices stepped so far, with what they touched.
    taken: Vec<Stepped>,
}

/// A search in progress.
pub struct Explorer<M: Model> {
    sc: Arc<M>,
    o: Options,
    seen: Seen,
    /// Depth first: each state's choices are taken in reverse order (a
    /// search of several threads but the first, [`Explorer::swarm`]).
    reversed: bool,
    found: Vec<(Found, String, Vec<Choice>)>,
    stats: Progress,
    depth_cut: u64,
    peak_bytes: u64,
    /// What one more state would have held when the memory budget stopped it.
    needed_bytes: Option<u64>,
    /// Bytes of one state, sampled (the largest seen).
    state_bytes: u64,
    stopped: Option<Stopped>,
    frontier: Frontier<M::State>,
    /// Breadth first: the state being expanded, if one is half done.
    expanding: Option<Expanding<M::State>>,
    runnable: Vec<Choice>,
    facts: Vec<M::Fact>,
    /// Keys of violations the start state already showed (not reported).
    known: Vec<String>,
    /// States no longer needed, cloned into (`clone_from`) instead of allocating.
    spare: Vec<Held<M::State>>,
    /// Spares of the race check ([`races_at`]).
    race_spare: Vec<M::State>,
    /// Depth first: [`AHEAD_FROM`] (a test makes children ahead from the start).
    ahead_from: u64,
    /// With [`Options::reduce`]: the sleep set of each state that has one, by
    /// fingerprint (see [`Asleep`]).
    asleep: HashMap<u64, Asleep>,
    slept_bytes: u64,
    /// Breadth first: the depth at which the queue filled half the memory
    /// budget and the search went on depth first.
    depth_first_from: Option<u32>,
    /// The search starts at the model's initial state (not [`Explorer::from_state`]):
    /// its schedules replay from there, so they can be shrunk, and breadth first
    /// may go on depth first. A search from a state of a run (the race lens,
    /// `max_steps` a few) stays breadth first, every state within its depth
    /// budget visited at its shortest depth.
    from_start: bool,
}

/// With [`Options::reduce`]: the steps a state is left with asleep
/// (Godefroid's sleep sets with state matching). Reached again before it is
/// expanded (breadth first), it keeps only what sleeps on both paths; reached
/// again after, the steps that slept and are awake now are taken from it, and
/// it keeps what slept both times (see [`Explorer::woken`]).
enum Asleep {
    /// Queued, not expanded yet: the steps asleep, with what each touched.
    Queued(Vec<Stepped>),
    /// Expanded: the steps that slept (what they touched is let go: a woken
    /// step's child gets no sleep set, which only means more steps taken).
    Expanded(Vec<Choice>),
}

/// The sleep set of `next`, the state step `c` leads to: what slept where `c`
/// was taken, or was taken there before it, where it commutes with `c`.
/// Records `c` as taken there, with what it touched.
fn sleep_after_step<M: Model>(
    sc: &M,
    sleep: &[Stepped],
    taken: &mut Vec<Stepped>,
    c: Choice,
    next: &M::State,
) -> Vec<Stepped> {
    let touched = Arc::new(Touched::of(sc, next));
    let child = sleep
        .iter()
        .chain(taken.iter())
        .filter(|(t, tt)| t.g != c.g && tt.independent(&touched))
        .cloned()
        .collect();
    taken.push((c, touched));
    child
}

/// Breadth first: asks for the memory of the next queued states while the one
/// taken off is expanded: they were made long ago (see [`super::prefetch`]).
#[inline(never)]
fn prefetch_queued<M: Model>(sc: &M, queue: &VecDeque<Queued<M::State>>) {
    let at = |i: usize| queue.get(i).map(|q| &*q.0);
    super::prefetch::next_two(sc, at(0), at(1));
}

/// Bytes a sleep set of `n` steps is counted for in the memory budget.
fn sleep_bytes(n: usize) -> u64 {
    64 + 48 * n as u64
}

/// Spare states kept for reuse.
const SPARES: usize = 64;

impl<M: Model> Explorer<M> {
    /// A search of `sc` as `o` says; the initial state is judged at once.
    pub fn new(sc: Arc<M>, o: Options) -> Explorer<M> {
        let root = sc.init();
        // From the start: no step taken before the root, whatever `o` says.
        let o = Options { from_depth: 0, ..o };
        let mut x = Explorer::from_state(sc, root, o, Vec::new());
        x.from_start = true;
        x
    }

    /// A search from `root`, some state of a run; schedules are relative to it.
    /// Violations whose keys are in `known` (see [`super::finding_keys`]: what the
    /// run showed before) are not reported: only what the search adds.
    pub fn from_state(sc: Arc<M>, root: M::State, o: Options, known: Vec<String>) -> Explorer<M> {
        Explorer::from_state_in(sc, root, o, known, (Seen::Own(FpSet::default()), false))
    }

    /// One of the depth-first searches of several threads ([`super::swarm`]),
    /// from the start, visiting states into `seen` (which holds the start state
    /// already: the first search counts it). A search but the first takes each
    /// state's choices in reverse order, so that the searches part early.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn swarm(
        sc: Arc<M>,
        o: Options,
        seen: Arc<super::fingerprint::SharedFpSet>,
        t: usize,
    ) -> Explorer<M> {
        let root = sc.init();
        let recent = Box::new(super::fingerprint::Recent::new(&seen));
        let o = Options {
            from_depth: 0,
            order: Order::Dfs,
            ..o
        };
        let mut x =
            Explorer::from_state_in(sc, root, o, Vec::new(), (Seen::Shared(seen, recent), t > 0));
        x.from_start = true;
        x.stats.states = u64::from(t == 0);
        x
    }

    /// The choices of the start state the search goes through (a search of
    /// several threads goes through them in each: see [`super::swarm`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn root_choices(&self) -> u64 {
        match &self.frontier {
            Frontier::Dfs { frames, .. } => frames.first().map_or(0, |f| u64::from(f.len)),
            Frontier::Bfs { .. } => 0,
        }
    }

    /// The search's counts as they stand.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn counts(&self) -> Counts {
        Counts {
            stats: self.stats,
            depth_cut: self.depth_cut,
            stopped: self.stopped,
            found: !self.found.is_empty(),
            peak_bytes: self.peak_bytes,
            state_bytes: self.state_bytes,
        }
    }

    fn from_state_in(
        sc: Arc<M>,
        mut root: M::State,
        o: Options,
        known: Vec<String>,
        (seen, reversed): (Seen, bool),
    ) -> Explorer<M> {
        let o = o.applied(&*sc);
        // Only the race check and sleep sets read a step's footprint.
        sc.record_footprints(&mut root, o.races || o.reduce);
        let frontier = match o.order {
            Order::Bfs => Frontier::Bfs {
                queue: VecDeque::new(),
                links: Vec::new(),
            },
            Order::Dfs => Frontier::dfs(),
        };
        let mut x = Explorer {
            state_bytes: model_state_bytes::<M>(&root),
            sc,
            o,
            seen,
            reversed,
            found: Vec::new(),
            stats: Progress::default(),
            depth_cut: 0,
            peak_bytes: 0,
            needed_bytes: None,
            stopped: None,
            frontier,
            expanding: None,
            runnable: Vec::new(),
            facts: Vec::new(),
            known,
            spare: Vec::new(),
            race_spare: Vec::new(),
            ahead_from: AHEAD_FROM,
            asleep: HashMap::new(),
            slept_bytes: 0,
            depth_first_from: None,
            from_start: false,
        };
        let fp = x.o.fingerprint(&*x.sc, &root);
        if matches!(x.seen, Seen::Own(_)) {
            x.visit_fp(fp, &root);
        }
        match x.frontier {
            Frontier::Bfs { ref mut queue, .. } => {
                queue.push_back((Box::new(root), 0, 0, fp, None));
            }
            Frontier::Dfs { .. } => x.push_root(Box::new(root), (0, 0, fp), None),
        }
        x
    }

    /// Goes on depth first from a breadth-first search of several threads, as
    /// this search does after [`Explorer::go_depth_first`] (sleep sets aside:
    /// the search of several threads runs without).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn resume_depth_first(sc: Arc<M>, o: Options, h: Handover<M::State>) -> Self {
        let found = h.found.into_iter().map(|f| {
            let key = f.key.clone();
            (f, key, Vec::new())
        });
        let mut x = Explorer {
            sc,
            o,
            seen: Seen::Own(h.seen),
            reversed: false,
            found: found.collect(),
            stats: h.stats,
            depth_cut: h.depth_cut,
            peak_bytes: h.peak_bytes,
            needed_bytes: None,
            state_bytes: h.state_bytes,
            stopped: None,
            frontier: Frontier::Bfs {
                queue: h.queue,
                links: h.links,
            },
            expanding: None,
            runnable: Vec::new(),
            facts: Vec::new(),
            known: Vec::new(),
            spare: Vec::new(),
            race_spare: Vec::new(),
            ahead_from: AHEAD_FROM,
            asleep: HashMap::new(),
            slept_bytes: 0,
            depth_first_from: None,
            from_start: true,
        };
        x.go_depth_first();
        x
    }

    /// Where the search stands.
    pub fn progress(&self) -> Progress {
        let mut p = self.stats;
        p.frontier = match &self.frontier {
            Frontier::Bfs { queue, .. } => queue.len() as u64,
            Frontier::Dfs {
                frames,
                ahead,
                roots,
                ..
            } => (frames.len() + ahead + roots.len()) as u64,
        };
        p.bytes = self.peak_bytes.max(self.seen.bytes());
        p
    }

    /// Stops the search; [`Explorer::finish`] reports what was covered.
    pub fn cancel(&mut self) {
        self.stopped.get_or_insert(Stopped::Cancelled);
    }

    /// True once the search has stopped (exhausted, found, a budget, cancelled).
    pub fn done(&self) -> bool {
        self.stopped.is_some() || self.frontier_empty()
    }

    fn frontier_empty(&self) -> bool {
        match &self.frontier {
            Frontier::Bfs { queue, .. } => queue.is_empty() && self.expanding.is_none(),
            Frontier::Dfs { frames, roots, .. } => frames.is_empty() && roots.is_empty(),
        }
    }

    /// Goes on for about `transitions` steps of the model; true when the search
    /// is done.
    pub fn run(&mut self, transitions: u64) -> bool {
        let until = self.stats.transitions + transitions.max(1);
        while !self.done() && self.stats.transitions < until {
            match self.frontier {
                Frontier::Bfs { .. } => self.bfs_expand_one(until),
                Frontier::Dfs { .. } => self.dfs_step(),
            }
        }
        self.done()
    }

    /// The report: violations (shrunk depth first), counts, why it stopped.
    pub fn finish(mut self) -> Exploration {
        self.report()
    }

    /// The report ([`Explorer::finish`]) without freeing the states the search
    /// holds: a front end shows it first and frees them after (a breadth-first
    /// frontier of a few hundred MiB takes tens of milliseconds to free). The
    /// search is over after it: a search not done is reported cancelled, never
    /// exhausted; a second report says the same.
    pub fn report(&mut self) -> Exploration {
        let end = match self.frontier_empty() {
            true => Stopped::Exhausted,
            false => Stopped::Cancelled,
        };
        let stopped = *self.stopped.get_or_insert(end);
        let mut violations = Vec::new();
        for (f, key, path) in &self.found {
            let mut f = f.clone();
            if self.o.shrink && self.from_start && wants_shrink(&self.o, &f) {
                let mut s = Shrinking::new(&*self.sc, path, key, SHRINK_REPLAYS);
                while !s.step(&*self.sc) {}
                s.apply(&mut f);
            }
            violations.push(f);
        }
        let peak = self.peak_bytes.max(self.seen.bytes());
        let counts = (self.stats, stopped, self.depth_cut, peak);
        let mut x = super::report::<M>(&*self.sc, &self.o, counts, violations);
        x.needed_bytes = self.needed_bytes;
        x.depth_first_from = self.depth_first_from;
        // Depth first, a state first reached at the depth limit is not searched
        // again from a shorter path: a cut leaves it incomplete, whoever's limit.
        x.truncated |= x.depth_cut > 0 && x.goes_depth_first();
        x
    }

    /// A copy of `w`, into a spare state when there is one.
    fn copy(spare: &mut Vec<Held<M::State>>, w: &M::State) -> Held<M::State> {
        match spare.pop() {
            Some(mut s) => {
                (*s).clone_from(w);
                s
            }
            None => Box::new(w.clone()),
        }
    }

    fn recycle(&mut self, s: Held<M::State>) {
        if self.spare.len() < SPARES {
            self.spare.push(s);
        }
    }

    /// Remembers a state whose fingerprint is `fp`; false when it was seen before.
    fn visit_fp(&mut self, fp: u64, w: &M::State) -> bool {
        // A shared set is depth first's (several threads: `Explorer::swarm`).
        let frontier = &self.frontier;
        let depth = || match frontier {
            Frontier::Dfs {
                frames, base_depth, ..
            } => base_depth + frames.len() as u32,
            Frontier::Bfs { .. } => 0,
        };
        if !self.seen.insert(fp, depth) {
            return false;
        }
        self.stats.states += 1;
        self.seen.visited(self.stats.states);
        if self.stats.states % 256 == 0 {
            self.state_bytes = self.state_bytes.max(model_state_bytes::<M>(w));
        }
        true
    }

    /// Records the findings of a newly visited state; `path` gives its schedule
    /// (from the frontier, and only when there is something new to record).
    /// Returns whether the run ended there.
    fn judge(
        &mut self,
        w: &M::State,
        path: impl FnOnce(&Frontier<M::State>) -> Vec<Choice>,
    ) -> bool {
        // Invariants already found or known are left out before their
        // messages are built: the loop below would skip them.
        let (had, known) = (&self.found, &self.known);
        let (found, ended) = findings_new(&*self.sc, w, |id| {
            let is = |k: &String| is_invariant_key(k, id);
            had.iter().any(|f| is(&f.1)) || known.iter().any(is)
        });
        let mut path = Some(path);
        let mut schedule = Vec::new();
        for (kind, message, key) in found {
            let key = super::finding_key(&self.o, kind, &message, key);
            if self.found.iter().any(|f| f.1 == key) || self.known.contains(&key) {
                continue;
            }
            if let Some(f) = path.take() {
                schedule = f(&self.frontier);
            }
            let mut found = Found::new(kind, message, key.clone(), &schedule);
            found.depth_first = self.depth_first_from.is_some();
            self.found.push((found, key.clone(), schedule.clone()));
            self.stats.violations += 1;
            if self.o.stops_at(&key) {
                self.stopped = Some(Stopped::FirstViolation);
            }
        }
        ended
    }

    /// Checks the budgets that need room for one more state, whose
    /// fingerprint is `fp`; sets `stopped`. The state budget lets a state
    /// visited before by (a search of exactly `max_states` states ends
    /// complete); it is looked up only at the budget.
    fn room_for_one_more(&mut self, fp: u64) -> bool {
        // Breadth first links states by 32-bit indexes (Options::check says so too).
        let links_full = matches!(&self.frontier, Frontier::Bfs { links, .. } if links.len() >= u32::MAX as usize - 1);
        let full = self.seen.states(self.stats.states) >= self.o.max_states || links_full;
        if full && !self.seen.contains(fp) {
            self.stopped = Some(Stopped::MaxStates);
            return false;
        }
        let (frontier, extra) = match &self.frontier {
            Frontier::Bfs { queue, links } => (
                queue.len() as u64 + 1,
                (links.capacity() * std::mem::size_of::<(u32, Choice)>()) as u64,
            ),
            Frontier::Dfs {
                frames,
                ahead,
                choices,
                roots,
                links,
                ..
            } => (
                (frames.len() + ahead + roots.len()) as u64 + 1,
                (choices.capacity() * std::mem::size_of::<Choice>()
                    + links.capacity() * std::mem::size_of::<(u32, Choice)>())
                    as u64,
            ),
        };
        let bytes =
            self.seen.bytes_to_insert(fp) + frontier * self.state_bytes + extra + self.slept_bytes;
        if bytes > self.o.max_bytes {
            self.stopped = Some(Stopped::MaxBytes);
            self.needed_bytes = Some(bytes);
            return false;
        }
        self.peak_bytes = self.peak_bytes.max(bytes);
        true
    }

    /// Breadth first: goes on with the state being expanded, or judges the
    /// oldest waiting state and starts on its children; stops making them
    /// once the search has made `until` transitions.
    fn bfs_expand_one(&mut self, until: u64) {
        if self.expanding.is_some() {
            self.bfs_children(until);
            return;
        }
        let Frontier::Bfs { queue, .. } = &mut self.frontier else {
            unreachable!("a breadth-first search has a queue")
        };
        if self.from_start
            && super::queue_full(queue.len() as u64, self.state_bytes, self.o.max_bytes)
        {
            self.go_depth_first();
            return;
        }
        let Some((w, link, depth, fp, only)) = queue.pop_front() else {
            return;
        };
        prefetch_queued(&*self.sc, queue);
        match self.take_queued(&w, (link, depth, fp), only.as_deref()) {
            Some(sleep) => {
                self.expanding = Some(Expanding {
                    parent: Some(w),
                    link,
                    depth,
                    runnable: std::mem::take(&mut self.runnable),
                    next: 0,
                    sleep,
                    taken: Vec::new(),
                });
                self.bfs_children(until);
            }
            None => self.recycle(w),
        }
    }

    /// A state taken off the queue, breadth first or as a depth-first root: its
    /// sleep set, judged (unless it was queued again to wake the steps `only`),
    /// race-checked, its choices to take left in `self.runnable` (less those
    /// asleep, or not in `only`). Returns its sleep set when it is to be
    /// expanded: not when the search stopped, the run ended there, or it is at
    /// the depth budget (a cut).
    fn take_queued(
        &mut self,
        w: &M::State,
        (link, depth, fp): (u32, u32, u64),
        only: Option<&[Choice]>,
    ) -> Option<Vec<Stepped>> {
        let sleep = match (self.o.reduce, only) {
            (true, None) => self.bfs_sleep(fp),
            _ => Vec::new(),
        };
        self.stats.depth = self.stats.depth.max(depth);
        // A state queued again to wake steps was judged when first expanded.
        let ended = only.is_none() && self.judge(w, |f| f.path(link));
        if self.stopped.is_some() || ended {
            return None;
        }
        let mut runnable = std::mem::take(&mut self.runnable);
        self.sc.runnable(w, &mut runnable);
        if M::FOOTPRINTS && self.o.races && only.is_none() {
            self.check_races(w, &runnable, depth, |f| f.path(link));
        }
        if let Some(only) = only {
            runnable.retain(|c| only.contains(c));
        }
        runnable.retain(|c| !sleep.iter().any(|s| s.0 == *c));
        let cut = depth >= self.o.max_steps;
        if cut && self.stopped.is_none() {
            self.depth_cut += u64::from(!runnable.is_empty());
        }
        self.runnable = runnable;
        (!cut && self.stopped.is_none()).then_some(sleep)
    }

    /// Breadth first: steps the choices left of the state being expanded (at
    /// `depth`, reached by `link`, with `sleep` asleep) and queues the
    /// children not seen before, until the search has made `until`
    /// transitions. The last choice steps the parent itself: one copy fewer a
    /// state.
    fn bfs_children(&mut self, until: u64) {
        let Some(mut e) = self.expanding.take() else {
            return;
        };
        let (link, depth) = (e.link, e.depth);
        while let Some(&c) = e.runnable.get(e.next) {
            if self.stats.transitions >= until {
                self.expanding = Some(e);
                return;
            }
            e.next += 1;
            let mut next = match (e.next == e.runnable.len(), e.parent.as_deref()) {
                (false, Some(w)) => Self::copy(&mut self.spare, w),
                _ => e
                    .parent
                    .take()
                    .expect("the parent is stepped by the last choice only"),
            };
            self.facts.clear();
            self.sc.step(&mut next, c, &mut self.facts);
            let fp = self.o.fingerprint(&*self.sc, &next);
            if !self.room_for_one_more(fp) {
                self.recycle(next);
                break;
            }
            self.stats.transitions += 1;
            let new = self.visit_fp(fp, &next);
            // The deepest level reached, as depth first counts it: a search a
            // budget stops while expanding the start state has been to depth
            // 1, not 0.
            if new {
                self.stats.depth = self.stats.depth.max(depth + 1);
            }
            let mut wake = None;
            if self.o.reduce {
                let child = sleep_after_step(&*self.sc, &e.sleep, &mut e.taken, c, &next);
                wake = self.bfs_arrive(fp, new, child);
            }
            if new || wake.is_some() {
                let Frontier::Bfs { queue, links } = &mut self.frontier else {
                    unreachable!()
                };
                links.push((link, c));
                queue.push_back((next, links.len() as u32, depth + 1, fp, wake));
            } else {
                self.recycle(next);
            }
        }
        if let Some(w) = e.parent.take() {
            self.recycle(w);
        }
        // Its vector, for the next state's choices.
        self.runnable = e.runnable;
    }

    /// Breadth first with [`Options::reduce`]: the state `fp` is expanded now;
    /// the steps to leave asleep.
    fn bfs_sleep(&mut self, fp: u64) -> Vec<Stepped> {
        let Some(Asleep::Queued(sleep)) = self.asleep.get_mut(&fp) else {
            return Vec::new();
        };
        let sleep = std::mem::take(sleep);
        let slept = sleep.iter().map(|s| s.0).collect();
        self.asleep.insert(fp, Asleep::Expanded(slept));
        sleep
    }

    /// Breadth first with [`Options::reduce`]: a step reached state `fp` (`new`
    /// if first seen) with `sleep` asleep. Returns the steps to take from it
    /// when it is to be queued again (see [`Explorer::woken`]).
    fn bfs_arrive(&mut self, fp: u64, new: bool, sleep: Vec<Stepped>) -> Option<Vec<Choice>> {
        if new {
            if !sleep.is_empty() {
                self.slept_bytes += sleep_bytes(sleep.len());
                self.asleep.insert(fp, Asleep::Queued(sleep));
            }
            return None;
        }
        let awake = self.woken(fp, &sleep);
        (!awake.is_empty()).then_some(awake)
    }

    /// A state seen before is reached again with `sleep` asleep. Not expanded
    /// yet, it keeps asleep only what sleeps on both paths; expanded, the
    /// steps that slept there and are awake now are returned, to be taken from
    /// it, and it keeps what slept both times. A state without an entry is (or
    /// will be) expanded with every step.
    fn woken(&mut self, fp: u64, sleep: &[Stepped]) -> Vec<Choice> {
        let asleep_now = |c: &Choice| sleep.iter().any(|s| s.0 == *c);
        let mut awake = Vec::new();
        let left = match self.asleep.get_mut(&fp) {
            None => return awake,
            Some(Asleep::Queued(before)) => {
                before.retain(|s| asleep_now(&s.0));
                before.len()
            }
            Some(Asleep::Expanded(before)) => {
                awake.extend(before.iter().filter(|c| !asleep_now(c)));
                before.retain(asleep_now);
                before.len()
            }
        };
        if left == 0 {
            self.asleep.remove(&fp);
        }
        awake
    }

    /// The race check of state `w` (see [`Options::races`] and [`races_at`]): each
    /// new race is recorded with the schedule to `w` (`path`) and the two steps.
    /// A race's schedule takes its two steps from `w`, at `depth`: one that
    /// the steps left to the depth budget (never past the scenario's step
    /// limit) cannot hold would not replay, and is not reported.
    fn check_races(
        &mut self,
        w: &M::State,
        runnable: &[Choice],
        depth: u32,
        path: impl FnOnce(&Frontier<M::State>) -> Vec<Choice>,
    ) {
        let mut path = Some(path);
        let mut base = Vec::new();
        for r in races_at(&*self.sc, w, runnable, &mut self.race_spare) {
            if r.steps.len() > self.o.max_steps.saturating_sub(depth) as usize {
                continue;
            }
            let key = r.key();
            if self.found.iter().any(|f| f.1 == key) || self.known.contains(&key) {
                continue;
            }
            if let Some(p) = path.take() {
                base = p(&self.frontier);
            }
            let mut schedule = base.clone();
            schedule.extend(&r.steps);
            let mut found = Found::new(OutcomeKind::Race, r.message(), key.clone(), &schedule);
            found.depth_first = self.depth_first_from.is_some();
            self.found.push((found, key.clone(), schedule));
            self.stats.violations += 1;
            if self.o.stops_at(&key) {
                self.stopped = Some(Stopped::FirstViolation);
                return;
            }
        }
    }

    /// Depth first: a root (the start, or a state breadth first queued at
    /// `link` and `depth`), taken as breadth first takes a state off its queue
    /// ([`Explorer::take_queued`]), becomes the first level unless the search
    /// stops there.
    fn push_root(
        &mut self,
        w: Held<M::State>,
        (link, depth, fp): (u32, u32, u64),
        only: Option<&[Choice]>,
    ) {
        match self.take_queued(&w, (link, depth, fp), only) {
            Some(sleep) => {
                let runnable = std::mem::take(&mut self.runnable);
                self.push_level(w, &runnable, sleep);
                self.runnable = runnable;
            }
            None => self.recycle(w),
        }
    }

    /// Depth first: `state` becomes the deepest level, to take `runnable` from
    /// with `sleep` asleep.
    fn push_level(&mut self, state: Held<M::State>, runnable: &[Choice], sleep: Vec<Stepped>) {
        let Frontier::Dfs {
            frames, choices, ..
        } = &mut self.frontier
        else {
            unreachable!("a depth-first search has frames")
        };
        let first = choices.len();
        match self.reversed {
            false => choices.extend_from_slice(runnable),
            true => choices.extend(runnable.iter().rev()),
        }
        frames.push(Frame {
            state,
            first,
            len: runnable.len() as u32,
            next: 0,
            at: 0,
            ahead: None,
            sleep,
            taken: Vec::new(),
        });
    }

    /// Depth first: looks up the next child of the deepest level (made ahead,
    /// or now) and enters it when it is new; first makes the child after it.
    fn dfs_step(&mut self) {
        let Frontier::Dfs { frames, ahead, .. } = &mut self.frontier else {
            unreachable!("a depth-first search has frames")
        };
        let Some(top) = frames.last_mut() else {
            self.dfs_next_root();
            return;
        };
        let made = match top.ahead.take() {
            Some(made) => {
                *ahead -= 1;
                made
            }
            None => match self.make_next() {
                Some(made) => made,
                None => return self.dfs_pop(),
            },
        };
        let next_ahead = match self.seen.bytes() >= self.ahead_from {
            true => self.make_next(),
            false => None,
        };
        let Frontier::Dfs { frames, ahead, .. } = &mut self.frontier else {
            unreachable!("a depth-first search has frames")
        };
        let top = frames.last_mut().expect("the level stepped");
        *ahead += usize::from(next_ahead.is_some());
        (top.ahead, top.at) = (next_ahead, made.at);
        let Made {
            state: next,
            fp,
            sleep,
            ..
        } = made;
        if !self.room_for_one_more(fp) {
            self.recycle(next);
            return;
        }
        self.stats.transitions += 1;
        if !self.visit_fp(fp, &next) {
            if self.o.reduce {
                self.wake(fp, next, sleep);
            } else {
                self.recycle(next);
            }
            return;
        }
        if !sleep.is_empty() {
            self.slept_bytes += sleep_bytes(sleep.len());
            let slept = sleep.iter().map(|s| s.0).collect();
            self.asleep.insert(fp, Asleep::Expanded(slept));
        }
        self.dfs_enter(next, sleep);
    }

    /// Depth first: the deepest level has no child left; it goes.
    fn dfs_pop(&mut self) {
        let Frontier::Dfs {
            frames, choices, ..
        } = &mut self.frontier
        else {
            unreachable!("a depth-first search has frames")
        };
        if let Some(f) = frames.pop() {
            choices.truncate(f.first);
            self.recycle(f.state);
        }
    }

    /// Depth first: steps the deepest level's next choice not asleep (see
    /// [`Made`]), recording it as taken there; `None` when none is left.
    /// Inlined: out of line, its result went through memory in wasm, and the
    /// worker's depth-first search measured 3-5% slower (`cargo xtask bench`).
    #[inline(always)]
    fn make_next(&mut self) -> Option<Made<M::State>> {
        let Frontier::Dfs {
            frames, choices, ..
        } = &mut self.frontier
        else {
            unreachable!("a depth-first search has frames")
        };
        let top = frames.last_mut()?;
        while top.next < top.len {
            let at = top.next;
            let c = choices[top.first + at as usize];
            top.next += 1;
            if self.o.reduce && top.sleep.iter().any(|s| s.0 == c) {
                continue;
            }
            // The level's last choice steps its state itself (it is not read
            // again: the level only gives its choices to schedules from here
            // on), leaving a spare in its place: one copy fewer a state.
            let mut next = match (top.next == top.len, self.spare.pop()) {
                (true, Some(spare)) => std::mem::replace(&mut top.state, spare),
                (_, spare) => {
                    self.spare.extend(spare);
                    Self::copy(&mut self.spare, &top.state)
                }
            };
            self.facts.clear();
            self.sc.step(&mut next, c, &mut self.facts);
            let sleep = match self.o.reduce {
                true => sleep_after_step(&*self.sc, &top.sleep, &mut top.taken, c, &next),
                false => Vec::new(),
            };
            let fp = self.o.fingerprint(&*self.sc, &next);
            self.seen.prefetch(fp);
            return Some(Made {
                at,
                state: next,
                fp,
                sleep,
            });
        }
        None
    }

    /// Depth first: the depth of the state the deepest level steps to.
    fn dfs_depth(&self) -> u32 {
        match &self.frontier {
            Frontier::Dfs {
                frames, base_depth, ..
            } => base_depth + frames.len() as u32,
            Frontier::Bfs { .. } => unreachable!("a depth-first search has frames"),
        }
    }

    /// Breadth first, once the queue fills half the memory budget: the search
    /// goes on depth first from each queued state in turn, in queue order.
    fn go_depth_first(&mut self) {
        let Frontier::Bfs { queue, links } = &mut self.frontier else {
            return;
        };
        let (roots, links) = (std::mem::take(queue), std::mem::take(links));
        self.depth_first_from = roots.front().map(|q| q.2);
        self.frontier = Frontier::Dfs {
            frames: Vec::new(),
            ahead: 0,
            choices: Vec::new(),
            roots,
            links,
            base: Vec::new(),
            base_depth: 0,
        };
    }

    /// Depth first after breadth first: the next queued state becomes the root,
    /// taken as breadth first takes it off its queue (judged, unless it was
    /// queued again to wake steps; its sleep set).
    fn dfs_next_root(&mut self) {
        let Frontier::Dfs {
            roots,
            links,
            base,
            base_depth,
            ..
        } = &mut self.frontier
        else {
            return;
        };
        let Some((w, link, depth, fp, only)) = roots.pop_front() else {
            return;
        };
        *base = schedule_of(links, link);
        *base_depth = depth;
        self.push_root(w, (link, depth, fp), only.as_deref());
    }

    /// Depth first: judges a newly visited state and, unless the search stops
    /// there, makes it the deepest level (with `sleep` asleep).
    fn dfs_enter(&mut self, next: Held<M::State>, sleep: Vec<Stepped>) {
        let depth = self.dfs_depth();
        self.stats.depth = self.stats.depth.max(depth);
        let ended = self.judge(&next, |f| f.path(0));
        if self.stopped.is_some() || ended {
            // A spare (an end state is one in five at a buggy version: dropped,
            // the next copy was a new world).
            self.recycle(next);
            return;
        }
        let mut runnable = std::mem::take(&mut self.runnable);
        self.sc.runnable(&next, &mut runnable);
        if M::FOOTPRINTS && self.o.races {
            self.check_races(&next, &runnable, depth, |f| f.path(0));
            if self.stopped.is_some() {
                self.runnable = runnable;
                self.recycle(next);
                return;
            }
        }
        if depth >= self.o.max_steps {
            self.depth_cut += u64::from(!runnable.is_empty());
            self.recycle(next);
        } else {
            self.push_level(next, &runnable, sleep);
        }
        self.runnable = runnable;
    }

    /// A visited state reached again with `sleep` asleep: the steps it was left
    /// with asleep before and that are awake now are taken from it (a level of
    /// their own); the state keeps only what slept both times.
    fn wake(&mut self, fp: u64, next: Held<M::State>, sleep: Vec<Stepped>) {
        let awake = self.woken(fp, &sleep);
        if awake.is_empty() {
            self.recycle(next);
            return;
        }
        if self.dfs_depth() >= self.o.max_steps {
            self.depth_cut += 1;
            self.recycle(next);
            return;
        }
        let mut runnable = std::mem::take(&mut self.runnable);
        self.sc.runnable(&next, &mut runnable);
        runnable.retain(|c| awake.contains(c));
        self.push_level(next, &runnable, sleep);
        self.runnable = runnable;
    }
}

/// The schedule of a breadth-first state, from its parent links.
pub(super) fn schedule_of(links: &[(u32, Choice)], mut at: u32) -> Vec<Choice> {
    let mut v = Vec::new();
    while at != 0 {
        let (parent, c) = links[(at - 1) as usize];
        v.push(c);
        at = parent;
    }
    v.reverse();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Options;
    use crate::AnyScenario;

    /// A search of `sc` as `o` says, making children ahead from a visited set
    /// of `ahead_from` bytes; the memory figures left out (a child made ahead
    /// is held, and counted).
    fn explore<M: Model>(sc: &Arc<M>, o: &Options, ahead_from: u64) -> Exploration {
        let mut x = Explorer::new(sc.clone(), o.clone());
        x.ahead_from = ahead_from;
        while !x.run(997) {}
        let mut r = x.finish();
        (r.peak_bytes, r.needed_bytes) = (0, None);
        r
    }

    fn alike<M: Model>(name: &str, sc: &Arc<M>) -> usize {
        let mut cases = crate::explore::cases::depth_first();
        let all = cases.last().expect("to the end").clone();
        cases.push(Options {
            reduce: true,
            ids: true,
            ..all.clone()
        });
        cases.push(Options { races: true, ..all });
        for o in &cases {
            let (without, with) = (explore(sc, o, u64::MAX), explore(sc, o, 0));
            assert_eq!(without, with, "{name}: {o:?}");
        }
        cases.len()
    }

    /// Children made ahead change no result: the same states, transitions,
    /// violations and schedules (unshrunk, so each is the path the search
    /// took), budgets and cuts, with sleep sets too, over every built-in
    /// (sync-2024 at every version).
    #[test]
    fn children_made_ahead_change_no_result() {
        let mut compared = 0;
        crate::explore::cases::every_builtin(&[], |name, sc| {
            compared += match sc {
                AnyScenario::Flush(sc) => alike(name, &sc),
                AnyScenario::Sync(sc) => alike(name, &sc),
                AnyScenario::Mutex(sc) => alike(name, &sc),
            };
        });
        assert!(compared > 200, "{compared} searches compared");
    }
}
