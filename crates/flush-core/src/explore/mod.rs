//! The explorer: a search over interleavings. Every runnable choice (including each
//! ready case of a `select`) is a branch; a visited state is remembered by its
//! 64-bit fingerprint only ([`fingerprint`]).
//!
//! * Breadth first ([`Order::Bfs`]), the first schedule found for each violation is
//!   a shortest one; the frontier holds whole states.
//! * Depth first ([`Order::Dfs`], explicit stack), memory is the fingerprints plus
//!   one state per level of the current path; schedules are then shrunk
//!   ([`shrink`]).
//!
//! By default the search stops at the first state that shows a violation;
//! [`Options::all`] goes on to exhaustion. Every budget (states, bytes, depth) stops
//! it with a [`Stopped`] reason and what was covered, never an abort.

mod fingerprint;
mod outcomes;
mod shrink;

use serde::Serialize;

pub use fingerprint::{collision_bound, fingerprint, state_bytes, FpSet};
pub use outcomes::{
    end_word, find_outcome, outcome_line, outcomes, run_outcome, Observe, ObservedOutcome,
};
pub use shrink::{reaches, shrink};

use crate::engine::{blocked_words, End, Model, OutcomeKind};
use crate::sched::{format_schedule, Choice};

/// One violation the search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// `panic`, `invariant` or `deadlock`.
    pub kind: OutcomeKind,
    pub message: String,
    /// A schedule reaching it (replay with `flushscope run --schedule`): a shortest
    /// one breadth first, a shrunk one depth first.
    pub schedule: String,
    pub steps: u32,
    /// The length of the schedule the search found, when shrinking shortened it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk_from: Option<u32>,
}

/// The search order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Breadth first: shortest schedules; the frontier holds whole states.
    Bfs,
    /// Depth first: little memory beyond the fingerprints.
    Dfs,
}

impl Order {
    pub fn words(self) -> &'static str {
        match self {
            Order::Bfs => "breadth-first",
            Order::Dfs => "depth-first",
        }
    }
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// Every state within the depth budget was visited.
    Exhausted,
    /// A violation was found (and [`Options::all`] was off).
    FirstViolation,
    /// The state budget was reached.
    MaxStates,
    /// The memory budget was reached.
    MaxBytes,
    /// The caller cancelled it (the progress callback said stop).
    Cancelled,
}

/// How to search, and the budgets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Paths longer than this are cut (and the search reported incomplete).
    pub max_steps: u32,
    /// Distinct states to visit at most.
    pub max_states: u64,
    /// Estimated bytes the search may hold (fingerprints, frontier, links).
    pub max_bytes: u64,
    pub order: Order,
    /// Go on after the first violation, to every distinct one.
    pub all: bool,
    /// Shrink each schedule found (drop choices while the same violation occurs).
    pub shrink: bool,
}

/// The default memory budget where the machine's memory is unknown (wasm).
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;
/// How often (in visited states) the progress callback runs and memory is checked.
pub const PROGRESS_EVERY: u64 = 4096;

impl Options {
    /// The search the CLI runs by default: breadth first, stop at the first
    /// violation, shrink.
    pub fn first(max_steps: u32, max_states: u64) -> Options {
        Options {
            max_steps,
            max_states,
            max_bytes: DEFAULT_MAX_BYTES,
            order: Order::Bfs,
            all: false,
            shrink: true,
        }
    }

    /// Every distinct violation with a shortest schedule (breadth first, to the end).
    pub fn exhaustive(max_steps: u32, max_states: u64) -> Options {
        Options {
            all: true,
            shrink: false,
            ..Options::first(max_steps, max_states)
        }
    }

    /// Zero budgets are refused: they would explore nothing.
    pub fn check(&self) -> Result<(), String> {
        if self.max_steps == 0 {
            return Err("--max-steps must be at least 1".into());
        }
        if self.max_states == 0 {
            return Err("--max-states must be at least 1".into());
        }
        if self.max_bytes < 1 << 20 {
            return Err(format!(
                "--max-memory must be at least 1M (got {} bytes)",
                self.max_bytes
            ));
        }
        Ok(())
    }
}

/// Where a running search stands (passed to the progress callback).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Progress {
    pub states: u64,
    pub transitions: u64,
    /// The deepest level reached.
    pub depth: u32,
    /// States waiting (breadth first) or on the path (depth first).
    pub frontier: u64,
    /// The estimated bytes held.
    pub bytes: u64,
    pub violations: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exploration {
    pub scenario: String,
    pub version: Option<&'static str>,
    pub order: Order,
    pub states: u64,
    pub transitions: u64,
    /// The deepest level reached.
    pub depth: u32,
    pub stopped: Stopped,
    /// Paths cut at `max_steps` (the search is then incomplete).
    pub depth_cut: u64,
    /// True if a budget (states, bytes, depth) or a cancel cut the search short.
    pub truncated: bool,
    /// The most bytes the search held (estimated).
    pub peak_bytes: u64,
    /// An upper bound on the chance that a fingerprint collision hid a state.
    pub collision_bound: f64,
    pub violations: Vec<Found>,
    /// Wall time, filled in by the caller (the core has no clock).
    pub time_ms: Option<u64>,
    /// The budgets, to say which to raise.
    #[serde(skip)]
    pub options: Option<Options>,
}

impl Exploration {
    pub fn text(&self) -> String {
        let mut s = format!(
            "# explore {}{}\n",
            self.scenario,
            self.version.map(|v| format!(" @ {v}")).unwrap_or_default(),
        );
        s.push_str(&format!(
            "states explored: {} ({} transitions, depth {}), {}\n",
            self.states,
            self.transitions,
            self.depth,
            self.order.words()
        ));
        match self.time_ms {
            // Below 10 ms a rate says more about the clock than the search.
            Some(t) if t >= 10 => {
                let rate = self.states as f64 * 1000.0 / t as f64;
                s.push_str(&format!("time: {t} ms ({rate:.0} states/s)\n"));
            }
            Some(t) => s.push_str(&format!("time: {t} ms\n")),
            None => {}
        }
        s.push_str(&format!("stopped: {}\n", self.stopped_words()));
        if self.depth_cut > 0 {
            let max = self.options.as_ref().map_or(0, |o| o.max_steps);
            s.push_str(&format!(
                "incomplete: {} {} cut at --max-steps {max}; raise it to look deeper\n",
                self.depth_cut,
                if self.depth_cut == 1 {
                    "path was"
                } else {
                    "paths were"
                }
            ));
        }
        s.push_str(&format!(
            "fingerprints: 64-bit; chance that a collision hid a state: at most {:.1e}; memory held at most ~{}\n",
            self.collision_bound,
            bytes_words(self.peak_bytes)
        ));
        if self.violations.is_empty() {
            s.push_str("violations: none");
            s.push_str(if self.truncated {
                " found so far\n"
            } else {
                "\n"
            });
        }
        for v in &self.violations {
            let what = match (self.order, v.shrunk_from) {
                (_, Some(from)) => format!("shrunk schedule (found with {from} steps)"),
                (Order::Bfs, None) => "shortest schedule".to_owned(),
                (Order::Dfs, None) => "schedule".to_owned(),
            };
            s.push_str(&format!(
                "{}: {}\n  {what}, {} steps: {}\n",
                v.kind.as_str(),
                v.message,
                v.steps,
                v.schedule
            ));
        }
        s
    }

    /// Why it stopped, and how to go further when a budget stopped it.
    pub fn stopped_words(&self) -> String {
        let o = self.options.clone().unwrap_or_else(|| Options::first(0, 0));
        match self.stopped {
            Stopped::Exhausted if self.depth_cut > 0 => {
                "every state within the depth budget was visited".to_owned()
            }
            Stopped::Exhausted => "every reachable state was visited".to_owned(),
            Stopped::FirstViolation => {
                "at the first violation (--all goes on to every distinct one)".to_owned()
            }
            Stopped::MaxStates => format!(
                "the state budget (--max-states {}) was reached: the search is incomplete; raise it to go on",
                o.max_states
            ),
            Stopped::MaxBytes => format!(
                "the memory budget (--max-memory {}) was reached: the search is incomplete; raise it{}",
                bytes_words(o.max_bytes),
                if o.order == Order::Bfs {
                    ", or search depth first (--order dfs), which holds far less"
                } else {
                    ""
                }
            ),
            Stopped::Cancelled => "cancelled: the search is incomplete".to_owned(),
        }
    }
}

/// `1.5 GiB`, `12 MiB`, `800 KiB`.
pub fn bytes_words(b: u64) -> String {
    const K: u64 = 1 << 10;
    const M: u64 = 1 << 20;
    const G: u64 = 1 << 30;
    if b >= G {
        format!("{:.1} GiB", b as f64 / G as f64)
    } else if b >= M {
        format!("{} MiB", b / M)
    } else {
        format!("{} KiB", b.div_ceil(K))
    }
}

/// One finding of a state: kind, message, and the key that makes it distinct.
pub(crate) type Finding = (OutcomeKind, String, String);

/// What a state shows: every distinct invariant broken on the path to it (the
/// state keeps them all), a Go panic, or a deadlock, as (kind, message, key); and
/// whether the run ended there. The verdict the run judges by.
pub(crate) fn findings<M: Model>(sc: &M, w: &M::State) -> (Vec<Finding>, bool) {
    let v = sc.verdict(w);
    let mut found: Vec<Finding> = v
        .violations
        .into_iter()
        .map(|x| {
            (
                OutcomeKind::Invariant,
                format!("{}: {}", x.id, x.message),
                format!("invariant:{}", x.id),
            )
        })
        .collect();
    let ended = v.end.is_some();
    match v.end {
        Some(End::Panic { message, .. }) => {
            let key = format!("panic:{message}");
            found.push((OutcomeKind::Panic, message, key));
        }
        Some(End::Deadlock(blocked)) => {
            found.push((
                OutcomeKind::Deadlock,
                blocked_words(&blocked),
                "deadlock".to_owned(),
            ));
        }
        Some(End::Completed) | None => {}
    }
    (found, ended)
}

/// What the search has found and counted so far.
struct Search<'o, M: Model> {
    o: &'o Options,
    seen: FpSet,
    found: Vec<(Found, String, Vec<Choice>)>,
    stats: Progress,
    depth_cut: u64,
    peak_bytes: u64,
    /// Bytes of one state, sampled (the largest seen).
    state_bytes: u64,
    stopped: Option<Stopped>,
    next_report: u64,
    _m: std::marker::PhantomData<M>,
}

impl<'o, M: Model> Search<'o, M> {
    fn new(o: &'o Options, root: &M::State) -> Self {
        Search {
            o,
            seen: FpSet::default(),
            found: Vec::new(),
            stats: Progress::default(),
            depth_cut: 0,
            peak_bytes: 0,
            state_bytes: state_bytes(root),
            stopped: None,
            next_report: PROGRESS_EVERY,
            _m: std::marker::PhantomData,
        }
    }

    /// Remembers a state; false when it was seen before.
    fn visit(&mut self, w: &M::State) -> bool {
        if !self.seen.insert(fingerprint(w)) {
            return false;
        }
        self.stats.states += 1;
        if self.stats.states % 256 == 0 {
            self.state_bytes = self.state_bytes.max(state_bytes(w));
        }
        true
    }

    /// Records the findings of a newly visited state; `schedule` gives its path.
    /// Returns whether the run ended there.
    fn judge(&mut self, sc: &M, w: &M::State, schedule: impl FnOnce() -> Vec<Choice>) -> bool {
        let (found, ended) = findings(sc, w);
        let mut schedule = Some(schedule);
        let mut path = Vec::new();
        for (kind, message, key) in found {
            if self.found.iter().any(|f| f.1 == key) {
                continue;
            }
            if let Some(f) = schedule.take() {
                path = f();
            }
            self.found.push((
                Found {
                    kind,
                    message,
                    schedule: format_schedule(&path),
                    steps: path.len() as u32,
                    shrunk_from: None,
                },
                key,
                path.clone(),
            ));
            self.stats.violations += 1;
            if !self.o.all {
                self.stopped = Some(Stopped::FirstViolation);
            }
        }
        ended
    }

    /// Checks the budgets that need room for one more state; sets `stopped`.
    fn room_for_one_more(&mut self, frontier: u64, extra: u64) -> bool {
        if self.stats.states >= self.o.max_states {
            self.stopped = Some(Stopped::MaxStates);
            return false;
        }
        let bytes = self.seen.bytes_to_insert() + frontier * self.state_bytes + extra;
        if bytes > self.o.max_bytes {
            self.stopped = Some(Stopped::MaxBytes);
            return false;
        }
        self.peak_bytes = self.peak_bytes.max(bytes);
        true
    }

    /// Runs the progress callback every [`PROGRESS_EVERY`] states; false to stop.
    fn report(&mut self, frontier: u64, progress: &mut dyn FnMut(&Progress) -> bool) -> bool {
        if self.stats.states < self.next_report {
            return true;
        }
        self.next_report = self.stats.states + PROGRESS_EVERY;
        self.stats.frontier = frontier;
        self.stats.bytes = self.peak_bytes;
        if progress(&self.stats) {
            true
        } else {
            self.stopped = Some(Stopped::Cancelled);
            false
        }
    }

    fn finish(self, sc: &M, order: Order) -> Exploration {
        let stopped = self.stopped.unwrap_or(Stopped::Exhausted);
        let mut violations = Vec::new();
        for (mut f, key, path) in self.found {
            if self.o.shrink && order == Order::Dfs {
                let short = shrink(sc, &path, &key, SHRINK_REPLAYS);
                if short.len() < path.len() {
                    f.shrunk_from = Some(f.steps);
                    f.steps = short.len() as u32;
                    f.schedule = format_schedule(&short);
                }
            }
            violations.push(f);
        }
        Exploration {
            scenario: sc.header().name.clone(),
            version: sc.header().version,
            order,
            states: self.stats.states,
            transitions: self.stats.transitions,
            depth: self.stats.depth,
            stopped,
            depth_cut: self.depth_cut,
            truncated: self.depth_cut > 0
                || matches!(
                    stopped,
                    Stopped::MaxStates | Stopped::MaxBytes | Stopped::Cancelled
                ),
            peak_bytes: self.peak_bytes.max(self.seen.bytes()),
            collision_bound: collision_bound(self.stats.states),
            violations,
            time_ms: None,
            options: Some(self.o.clone()),
        }
    }
}

/// Replays a shrinking attempt may take, per violation.
pub const SHRINK_REPLAYS: u32 = 20_000;

/// Explores every interleaving of `sc` up to `max_steps` steps deep and
/// `max_states` distinct states, breadth first, to the end: each distinct
/// invariant broken on some path, Go panic and deadlock, with a shortest schedule
/// reaching it.
pub fn explore<M: Model>(sc: &M, max_steps: u32, max_states: u64) -> Exploration {
    explore_with(sc, &Options::exhaustive(max_steps, max_states), &mut |_| {
        true
    })
}

/// Explores `sc` as `o` says. `progress` runs every [`PROGRESS_EVERY`] states;
/// returning false cancels the search (what was found so far is reported).
pub fn explore_with<M: Model>(
    sc: &M,
    o: &Options,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Exploration {
    match o.order {
        Order::Bfs => bfs(sc, o, progress),
        Order::Dfs => dfs(sc, o, progress),
    }
}

fn bfs<M: Model>(sc: &M, o: &Options, progress: &mut dyn FnMut(&Progress) -> bool) -> Exploration {
    use std::collections::VecDeque;
    // Parent links rebuild schedules without storing one per state.
    let mut links: Vec<(u32, Choice)> = Vec::new();
    let link_bytes = std::mem::size_of::<(u32, Choice)>() as u64;
    let schedule_of = |links: &Vec<(u32, Choice)>, mut at: u32| {
        let mut v = Vec::new();
        while at != 0 {
            let (parent, c) = links[(at - 1) as usize];
            v.push(c);
            at = parent;
        }
        v.reverse();
        v
    };
    let root = sc.init();
    let mut s: Search<M> = Search::new(o, &root);
    s.visit(&root);
    // state, link index (+1; 0 = root), depth
    let mut queue: VecDeque<(M::State, u32, u32)> = VecDeque::new();
    queue.push_back((root, 0, 0));
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
    'search: while let Some((w, link, depth)) = queue.pop_front() {
        s.stats.depth = s.stats.depth.max(depth);
        let ended = s.judge(sc, &w, || schedule_of(&links, link));
        if s.stopped.is_some() {
            break;
        }
        if ended {
            continue;
        }
        sc.runnable(&w, &mut runnable);
        if depth >= o.max_steps {
            s.depth_cut += u64::from(!runnable.is_empty());
            continue;
        }
        for &c in &runnable {
            let held = links.capacity() as u64 * link_bytes;
            if !s.room_for_one_more(queue.len() as u64 + 1, held) {
                break 'search;
            }
            let mut next = w.clone();
            scratch.clear();
            sc.step(&mut next, c, &mut scratch);
            s.stats.transitions += 1;
            if s.visit(&next) {
                links.push((link, c));
                queue.push_back((next, links.len() as u32, depth + 1));
            }
        }
        if !s.report(queue.len() as u64, progress) {
            break;
        }
    }
    s.finish(sc, Order::Bfs)
}

/// One level of the depth-first path: a state and its runnable choices (a range
/// of the shared choice buffer), `next` the one to try next.
struct Frame<S> {
    state: S,
    first: usize,
    len: u32,
    next: u32,
}

fn dfs<M: Model>(sc: &M, o: &Options, progress: &mut dyn FnMut(&Progress) -> bool) -> Exploration {
    let root = sc.init();
    let mut s: Search<M> = Search::new(o, &root);
    s.visit(&root);
    let path_of = |frames: &[Frame<M::State>], choices: &[Choice]| -> Vec<Choice> {
        frames
            .iter()
            .map(|f| choices[f.first + f.next as usize - 1])
            .collect()
    };
    let mut choices: Vec<Choice> = Vec::new();
    let mut frames: Vec<Frame<M::State>> = Vec::new();
    let ended = s.judge(sc, &root, Vec::new);
    if s.stopped.is_none() && !ended {
        sc.runnable(&root, &mut choices);
        let len = choices.len() as u32;
        frames.push(Frame {
            state: root,
            first: 0,
            len,
            next: 0,
        });
    }
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
    while let Some(top) = frames.last_mut() {
        if top.next == top.len {
            choices.truncate(top.first);
            frames.pop();
            continue;
        }
        let c = choices[top.first + top.next as usize];
        top.next += 1;
        let mut next = top.state.clone();
        let choice_bytes = choices.capacity() as u64 * std::mem::size_of::<Choice>() as u64;
        if !s.room_for_one_more(frames.len() as u64 + 1, choice_bytes) {
            break;
        }
        scratch.clear();
        sc.step(&mut next, c, &mut scratch);
        s.stats.transitions += 1;
        if !s.visit(&next) {
            continue;
        }
        let depth = frames.len() as u32;
        s.stats.depth = s.stats.depth.max(depth);
        let ended = s.judge(sc, &next, || path_of(&frames, &choices));
        if s.stopped.is_some() || !s.report(frames.len() as u64, progress) {
            break;
        }
        if ended {
            continue;
        }
        sc.runnable(&next, &mut runnable);
        if depth >= o.max_steps {
            s.depth_cut += u64::from(!runnable.is_empty());
            continue;
        }
        let first = choices.len();
        choices.extend_from_slice(&runnable);
        frames.push(Frame {
            state: next,
            first,
            len: runnable.len() as u32,
            next: 0,
        });
    }
    s.finish(sc, Order::Dfs)
}
