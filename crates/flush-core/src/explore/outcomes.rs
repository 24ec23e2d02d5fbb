//! Observable outcomes: what an observer outside the modelled code sees (the
//! conformance harness records the same of the real Go code).

use std::collections::{BTreeMap, VecDeque};
use std::hash::Hash;

use serde::Serialize;

use super::fingerprint::{bytes_with_inline, fingerprint, FpSet};
use super::search::schedule_of;
use crate::engine::{End, Model, Violation};
use crate::sched::{format_schedule, Choice};

/// What an observer outside the modelled code sees: the conformance harness
/// records the same of the real Go code (`tests/conformance/`). An outcome is the
/// line `N=<observations in order> | <end>`.
pub trait Observe: Model {
    /// True when [`Observe::observed`] shows anything along a run; a model that
    /// observes nothing has one outcome per way a run ends (`N= | E=...`).
    const OBSERVES: bool = false;
    /// What a fact shows the observer, if anything (flush-2021: a pack datacoord
    /// receives).
    fn observed(&self, _f: &Self::Fact) -> Option<String> {
        None
    }
    /// What the end state shows (flush-2021: the packs of flushAndDrop, then how
    /// the run ended). By default, how the run ended and the invariants it broke
    /// (`E=completed | I=sync-task-segment-present`): a run that breaks one ends
    /// `invariant` in `flushscope run`, and an outcome must not read as if none was.
    fn end_observed(&self, s: &Self::State) -> String {
        let v = self.verdict(s);
        let ids = invariant_ids(&v.violations, Vec::new());
        match ids.is_empty() {
            true => format!("E={}", word_of(&v.end)),
            false => format!("E={} | I={}", word_of(&v.end), ids.join(",")),
        }
    }
}

/// `completed`, `deadlock` or `panic` for an ended state; `step_limit` for a
/// state the scenario's step limit ended (its goroutines could go on).
pub fn end_word<M: Model>(sc: &M, s: &M::State) -> &'static str {
    word_of(&sc.verdict(s).end)
}

fn word_of(end: &Option<End>) -> &'static str {
    match end {
        Some(End::Panic { .. }) => "panic",
        Some(End::Deadlock(_)) => "deadlock",
        Some(End::Completed) => "completed",
        None => "step_limit",
    }
}

/// `ids` with the ids of `violations` it lacks, in order.
fn invariant_ids(violations: &[Violation], mut ids: Vec<&'static str>) -> Vec<&'static str> {
    for v in violations {
        if !ids.contains(&v.id) {
            ids.push(v.id);
        }
    }
    ids
}

/// `N=... | ...`: the observations and the end.
pub fn outcome_line<M: Observe>(sc: &M, observed: &[String], end: &M::State) -> String {
    format!("N={} | {}", observed.join(" "), sc.end_observed(end))
}

fn hash2(a: &impl Hash, b: &impl Hash) -> u64 {
    fingerprint(&(a, b))
}

/// One distinct observable outcome of a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObservedOutcome {
    /// `N=... | D=... | E=...`.
    pub outcome: String,
    /// Distinct end states reaching it.
    pub ends: u64,
    /// A shortest schedule reaching it.
    pub schedule: String,
    pub steps: u32,
    /// The invariants broken by some end state reaching it (flush-2021's
    /// outcome line is what an observer sees, and does not show them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<&'static str>,
}

/// Every distinct observable outcome, breadth first, so each comes with a
/// shortest schedule. States are merged on the world plus what datacoord has seen
/// so far. `None` when more than `max_states` states would be visited.
pub fn outcomes<M: Observe>(sc: &M, max_states: u64) -> Option<Vec<ObservedOutcome>> {
    let found = outcomes_within(sc, max_states, super::DEFAULT_MAX_BYTES);
    found.stopped.is_none().then_some(found.outcomes)
}

/// Which budget stopped a search for outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomesStop {
    States,
    Bytes,
}

/// What a search for outcomes found: every outcome when `stopped` is `None`,
/// else those the ended states visited before the budget showed (each still with
/// a shortest schedule, the search being breadth first; their `ends` count only
/// the end states visited).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcomes {
    pub outcomes: Vec<ObservedOutcome>,
    /// Distinct states visited (world plus what datacoord has seen).
    pub states: u64,
    pub stopped: Option<OutcomesStop>,
}

/// [`outcomes`] within a memory budget too: the visited set and the queue of
/// states (each estimated as the explorer does) stay under `max_bytes`.
pub fn outcomes_within<M: Observe>(sc: &M, max_states: u64, max_bytes: u64) -> Outcomes {
    outcomes_with(sc, (max_states, max_bytes), &mut |_| ())
}

/// Transitions between two calls of the progress callback of [`outcomes_with`].
const PROGRESS_EVERY: u64 = 4096;

/// [`outcomes_within`], telling `progress` where it stands every few thousand
/// transitions (`violations` stays 0: this search looks for outcomes). A state
/// at the scenario's step limit (`max_steps`) ends its run there, as in a run:
/// its outcome ends `E=step_limit`.
pub fn outcomes_with<M: Observe>(
    sc: &M,
    (max_states, max_bytes): (u64, u64),
    progress: &mut dyn FnMut(&super::Progress),
) -> Outcomes {
    let mut seen = FpSet::default();
    let mut links: Vec<(u32, Choice)> = Vec::new();
    let mut out = Seen::default();
    let mut queue: VecDeque<Entry<M>> = VecDeque::new();
    let mut held = Held::of::<M>();
    let limit = sc.header().max_steps;
    let root = sc.init();
    // The initial state is one of those visited, as `explore` counts it.
    seen.insert(hash2(&root, &Vec::<String>::new()));
    queue.push_back((root, Vec::new(), 0, 0, 0));
    let mut now = super::Progress::default();
    let (mut runnable, mut scratch) = (Vec::new(), Vec::new());
    let mut stopped = None;
    'search: while let Some((w, obs, link, depth, heap)) = queue.pop_front() {
        held.queued -= heap;
        now.depth = depth;
        sc.runnable(&w, &mut runnable);
        if runnable.is_empty() || depth >= limit {
            held.outcomes += out.end(sc, &obs, &w, link);
            if held.bytes(&seen, &queue, &links, 0) > max_bytes {
                stopped = Some(OutcomesStop::Bytes);
                break 'search;
            }
            continue;
        }
        for &c in &runnable {
            now.transitions += 1;
            if now.transitions % PROGRESS_EVERY == 0 {
                now.states = seen.len() as u64;
                now.frontier = queue.len() as u64;
                now.bytes = held.bytes(&seen, &queue, &links, 0);
                progress(&now);
            }
            let mut next = w.clone();
            scratch.clear();
            sc.step(&mut next, c, &mut scratch);
            let mut obs2 = obs.clone();
            obs2.extend(scratch.iter().filter_map(|f| sc.observed(f)));
            let fp = hash2(&next, &obs2);
            if seen.contains(fp) {
                continue;
            }
            if seen.len() as u64 >= max_states {
                stopped = Some(OutcomesStop::States);
                break 'search;
            }
            // Every entry measured, the queue's and the links' growth counted
            // before it happens: the budget holds whatever the states weigh.
            let heap = bytes_with_inline(&(&next, &obs2), 0);
            if held.bytes(&seen, &queue, &links, heap) > max_bytes {
                stopped = Some(OutcomesStop::Bytes);
                break 'search;
            }
            seen.insert(fp);
            held.queued += heap;
            links.push((link, c));
            queue.push_back((next, obs2, links.len() as u32, depth + 1, heap));
        }
    }
    if stopped.is_some() {
        // The ends already queued were reached too (as many as the budget
        // holds: the queue is freed as they are read).
        while let Some((w, obs, link, depth, heap)) = queue.pop_front() {
            held.queued -= heap;
            sc.runnable(&w, &mut runnable);
            if runnable.is_empty() || depth >= limit {
                held.outcomes += out.end(sc, &obs, &w, link);
                if held.bytes(&seen, &queue, &links, 0) > max_bytes {
                    break;
                }
            }
        }
    }
    found(out, &links, seen.len() as u64, stopped)
}

/// A queued state of a search for outcomes: the world, the words of the packs
/// notified so far, its link index + 1 (0: the root), its depth, and the heap
/// bytes it holds.
type Entry<M> = (<M as Model>::State, Vec<String>, u32, u32, u64);

/// The bytes a search for outcomes holds: the visited set, the queue (its
/// slots and what its entries own on the heap) and the links.
struct Held {
    /// Heap bytes of the queued entries.
    queued: u64,
    /// Bytes of the outcomes seen ([`Seen::end`]).
    outcomes: u64,
    /// Bytes of a queue slot and of a link.
    slot: u64,
    link: u64,
}

impl Held {
    fn of<M: Model>() -> Held {
        Held {
            queued: 0,
            outcomes: 0,
            slot: std::mem::size_of::<Entry<M>>() as u64,
            link: std::mem::size_of::<(u32, Choice)>() as u64,
        }
    }

    /// The bytes held once one more entry of `heap` bytes is queued (`0`: as
    /// they stand): a full queue or link list grows by doubling, and the old
    /// and the new buffer both live while it does.
    fn bytes<T, L>(&self, seen: &FpSet, queue: &VecDeque<T>, links: &Vec<L>, heap: u64) -> u64 {
        let grown = |len: usize, cap: usize, size: u64| -> u64 {
            let cap = cap as u64;
            match heap > 0 && len as u64 >= cap {
                true => (cap + (cap * 2).max(4)) * size,
                false => cap * size,
            }
        };
        let set = match heap > 0 {
            true => seen.bytes_to_insert(),
            false => seen.bytes(),
        };
        set + self.queued
            + self.outcomes
            + heap
            + grown(queue.len(), queue.capacity(), self.slot)
            + grown(links.len(), links.capacity(), self.link)
    }
}

/// The outcomes seen: per outcome line, the end states reaching it, the link
/// of a first one, and the invariants they broke.
#[derive(Default)]
struct Seen(BTreeMap<String, OutcomeSeen>);

/// Per outcome line: the end states reaching it, the link of a first one, and
/// the invariants they broke.
type OutcomeSeen = (u64, u32, Vec<&'static str>);

impl Seen {
    /// End state `w`, reached by `link` with `obs` observed; returns the bytes
    /// this added: a new outcome's line and entry (a map node holds up to 11,
    /// and is counted as if half full), and the invariant ids' growth.
    fn end<M: Observe>(&mut self, sc: &M, obs: &[String], w: &M::State, link: u32) -> u64 {
        let line = outcome_line(sc, obs, w);
        let new = match self.0.contains_key(&line) {
            true => 0,
            false => line.capacity() + 2 * std::mem::size_of::<(String, OutcomeSeen)>(),
        };
        let e = self.0.entry(line).or_insert((0, link, Vec::new()));
        let had = e.2.capacity();
        e.0 += 1;
        e.2 = invariant_ids(&sc.violations(w), std::mem::take(&mut e.2));
        let ids = (e.2.capacity().saturating_sub(had) * std::mem::size_of::<&str>()) as u64;
        new as u64 + ids
    }
}

/// The outcomes seen, as [`Outcomes`].
fn found(
    out: Seen,
    links: &[(u32, Choice)],
    states: u64,
    stopped: Option<OutcomesStop>,
) -> Outcomes {
    Outcomes {
        outcomes: out
            .0
            .into_iter()
            .map(|(outcome, (ends, link, invariants))| {
                let s = schedule_of(links, link);
                ObservedOutcome {
                    outcome,
                    ends,
                    steps: s.len() as u32,
                    schedule: format_schedule(&s),
                    invariants,
                }
            })
            .collect(),
        states,
        stopped,
    }
}

/// A schedule under which the scenario ends in `outcome` (an `N=... | ...`
/// line), found depth first, pruning every path whose SaveBinlogPaths packs
/// stop matching the outcome's. For state spaces too big to enumerate: "can the
/// model do what Go did?" `Err(true)` when more than `max_states` states would be
/// visited, `Err(false)` when no schedule exists.
pub fn find_outcome<M: Observe>(
    sc: &M,
    outcome: &str,
    max_states: u64,
) -> Result<Vec<Choice>, bool> {
    let want_n: Vec<&str> = outcome
        .strip_prefix("N=")
        .and_then(|s| s.split(" | ").next())
        .map(|n| n.split(' ').filter(|x| !x.is_empty()).collect())
        .unwrap_or_default();
    let mut seen = FpSet::default();
    // (world, packs notified so far, schedule)
    let mut stack: Vec<(M::State, usize, Vec<Choice>)> = vec![(sc.init(), 0, Vec::new())];
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
    while let Some((w, matched, sched)) = stack.pop() {
        sc.runnable(&w, &mut runnable);
        if runnable.is_empty() {
            let n: Vec<String> = want_n.iter().map(|s| (*s).to_owned()).collect();
            if matched == want_n.len() && outcome_line(sc, &n, &w) == outcome {
                return Ok(sched);
            }
            continue;
        }
        for &c in runnable.iter().rev() {
            let mut next = w.clone();
            scratch.clear();
            sc.step(&mut next, c, &mut scratch);
            let mut m = matched;
            let mut ok = true;
            for o in scratch.iter().filter_map(|f| sc.observed(f)) {
                if want_n.get(m).is_some_and(|x| *x == o) {
                    m += 1;
                } else {
                    ok = false;
                }
            }
            if !ok {
                continue;
            }
            if seen.insert(hash2(&next, &m)) {
                if seen.len() as u64 > max_states {
                    return Err(true);
                }
                let mut s = sched.clone();
                s.push(c);
                stack.push((next, m, s));
            }
        }
    }
    Err(false)
}

/// The outcome line of a recorded run (its observations and its end state).
pub fn run_outcome<M: Observe>(run: &crate::engine::Run<M>) -> String {
    let sc = run.scenario();
    let observed: Vec<String> = run
        .records()
        .iter()
        .flat_map(|r| run.events_of(r))
        .filter_map(|f| sc.observed(f))
        .collect();
    outcome_line(sc, &observed, run.head())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outcomes seen count against the budget: a new line adds its bytes
    /// and its entry's, the same line again adds nothing.
    #[test]
    fn an_outcome_seen_is_counted_once_with_its_line() {
        let Some(crate::AnyScenario::Flush(sc)) = crate::builtin::get("pairs-2") else {
            panic!("pairs-2 is a flush-2021 built-in")
        };
        let sc = &*sc;
        let mut w = sc.init();
        let (mut runnable, mut facts, mut obs) = (Vec::new(), Vec::new(), Vec::new());
        loop {
            sc.runnable(&w, &mut runnable);
            let Some(&c) = runnable.first() else { break };
            facts.clear();
            sc.step(&mut w, c, &mut facts);
            obs.extend(facts.iter().filter_map(|f| sc.observed(f)));
        }
        assert!(!obs.is_empty(), "pairs-2 notifies its packs");
        let line = outcome_line(sc, &obs, &w);
        let mut seen = Seen::default();
        let first = seen.end(sc, &obs, &w, 1);
        assert!(first >= line.len() as u64 + 2 * 24, "{first} for {line:?}");
        assert_eq!(seen.end(sc, &obs, &w, 2), 0);
        let other = seen.end(sc, &obs[1..], &w, 3);
        assert!(other > 0 && seen.0.len() == 2);
    }
}
