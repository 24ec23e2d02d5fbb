//! Depth first on several threads, for a search whose result no order of
//! visiting can change: one that visits every state it can reach and finds
//! nothing.
//!
//! Each thread runs the one-thread depth-first search ([`Explorer::swarm`])
//! from the start state into one shared visited set ([`SharedFpSet`]); the
//! first takes each state's choices in order, the others in reverse, so they
//! part at once and mostly meet states the other has visited. A state is
//! expanded by the thread that visited it first, so every reachable state is
//! counted once and every transition from it once (the start state's, which
//! every thread goes through, are counted once): the states and transitions
//! are those of the one-thread search. This needs no coordination but the
//! set's locks, so two threads run nearly as two searches side by side do:
//! on this 2-core machine, each at 90% of its speed alone.
//!
//! What the order can change, the result of several threads must not (the
//! same result whatever the thread count): which schedule reaches a
//! violation, which states a depth cut leaves unexplored, the deepest level.
//! So a search that finds a violation or cuts a path at the depth budget
//! gives nothing ([`explore_swarm`] returns [`GaveWay`], all threads stop at
//! once), and the caller searches again on one thread. So does one whose
//! visited set a one-thread search might not have had the memory for.
//!
//! What the threads found goes with their way to one thread ([`GaveWay`]):
//! that one may stop at a budget before it reaches a violation a thread
//! taking the choices in reverse found early, and the caller lists it then.
//!
//! A search the state budget stops and that found nothing is the exception:
//! which states it covered depends on its order on one thread as on several,
//! and one thread would only stop at the same budget after as long again
//! (sync-scaled-6x4 passed 50 million states in 6 minutes on two threads,
//! then one thread started again from the start). Its report is the
//! threads', and says so ([`Exploration::budget_on_threads`]). Each thread
//! stops at the state budget as the shared set counts it, told
//! [`TELL_STATES`] states at a time by each thread. The memory budget gives
//! way: one thread fits more states in it (the shared set's 256 tables take
//! 2.5 MiB before they hold anything, and 10 bytes a slot to one thread's 8).
//!
//! The deepest level is the same on one thread as on several where every
//! path from the start to a state has one length. The shared set keeps the
//! depth each state was first visited at, and each step that finds a state
//! there checks it arrives at that depth: as every transition is looked up
//! once, no mismatch means every path to a state is as long as the one it was
//! first reached by. A mismatch (flush-2021's merged runners and queue orders
//! reach some states by paths of two lengths: ordered-flush, 39 levels deep on
//! one thread and 33 on three) gives nothing, as above. sync-2024's searches
//! all pass the check.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};

use super::fingerprint::{FpSet, SharedFpSet};
use super::search::Counts;
#[cfg(doc)]
use super::TELL_STATES;
use super::{Exploration, Explorer, Found, Options, Progress, Stopped, PROGRESS_EVERY};
use crate::engine::Model;

/// How often the thread that reports progress looks again once its own
/// search is done and others go on.
const POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// What the threads share.
struct Swarm<M> {
    sc: Arc<M>,
    o: Options,
    seen: Arc<SharedFpSet>,
    /// Every thread stops: one found something or stopped, the budget of
    /// states is passed, or the search is cancelled.
    abort: AtomicBool,
    /// Some thread's search found something or stopped (not by `abort`).
    stirred: AtomicBool,
    /// The state budget stopped a thread, and none found anything.
    states_budget: AtomicBool,
    /// The memory budget stopped a thread, and none found anything.
    memory_budget: AtomicBool,
    /// What the threads found (each thread's, shrunk), one per key: given
    /// with the threads' way to one thread, which may stop at a budget
    /// before it reaches them.
    found: Mutex<Vec<Found>>,
    /// Each thread's progress, as of its last slice.
    live: Vec<Mutex<Progress>>,
    finished: AtomicUsize,
}

/// What a thread's search ended with: its counts, its start state's choices,
/// and whether it was stopped before its end (what it found goes to
/// [`Swarm::found`]).
type End = (Counts, u64, bool);

/// Counts a thread's search as finished however it ends: a thread that
/// panics (a model's bug) stops the others, and the thread waiting for them
/// goes on to the join, which passes the panic on.
struct Finished<'a, M>(&'a Swarm<M>);

impl<M> Drop for Finished<'_, M> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stirred.store(true, Relaxed);
            self.0.abort.store(true, Relaxed);
        }
        self.0.finished.fetch_add(1, Relaxed);
    }
}

/// A thread's search to its end (see [`End`]). `between` runs between its slices.
fn search<M: Model>(sw: &Swarm<M>, t: usize, between: &mut dyn FnMut()) -> End {
    let _finished = Finished(sw);
    let mut x = Explorer::swarm(sw.sc.clone(), sw.o.clone(), sw.seen.clone(), t);
    let root = x.root_choices();
    let mut aborted = false;
    loop {
        let done = x.run(PROGRESS_EVERY);
        if !aborted {
            let c = x.counts();
            match c.stopped {
                _ if c.found => sw.stirred.store(true, Relaxed),
                Some(Stopped::MaxStates) => sw.states_budget.store(true, Relaxed),
                Some(Stopped::MaxBytes) => sw.memory_budget.store(true, Relaxed),
                Some(_) => sw.stirred.store(true, Relaxed),
                None => {}
            }
        }
        let budget = sw.states_budget.load(Relaxed) || sw.memory_budget.load(Relaxed);
        if sw.stirred.load(Relaxed) || sw.seen.ungraded() || budget {
            sw.abort.store(true, Relaxed);
        }
        *sw.live[t].lock().unwrap_or_else(PoisonError::into_inner) = x.progress();
        if done {
            break;
        }
        between();
        if sw.abort.load(Relaxed) {
            x.cancel();
            aborted = true;
        }
    }
    if x.counts().found {
        sw.keep(x.report().violations);
    }
    (x.counts(), root, aborted)
}

impl<M> Swarm<M> {
    /// Keeps what a thread found: of two findings of one key, the shorter.
    fn keep(&self, found: Vec<Found>) {
        let mut kept = self.found.lock().unwrap_or_else(PoisonError::into_inner);
        for f in found {
            match kept.iter_mut().find(|k| k.key == f.key) {
                Some(k) if (f.steps, &f.schedule) < (k.steps, &k.schedule) => *k = f,
                Some(_) => {}
                None => kept.push(f),
            }
        }
        kept.sort_by(|a, b| a.key.cmp(&b.key));
    }

    /// The threads' progress summed (the deepest level, the most).
    fn progress(&self) -> Progress {
        let mut p = Progress::default();
        for l in &self.live {
            let l = *l.lock().unwrap_or_else(PoisonError::into_inner);
            p.states += l.states;
            p.transitions += l.transitions;
            p.depth = p.depth.max(l.depth);
            p.frontier += l.frontier;
            p.violations += l.violations;
        }
        p.bytes = self.seen.bytes();
        p
    }

    /// Reports progress (false cancels); true when the search goes on.
    fn check(&self, progress: &mut dyn FnMut(&Progress) -> bool) -> bool {
        let p = self.progress();
        if !progress(&p) {
            self.abort.store(true, Relaxed);
            return false;
        }
        true
    }
}

/// Explores `sc` depth first as `o` says on `threads` threads (2 to 256), and
/// reports as one thread would, or as the threads searched where the state
/// budget stopped them; [`GaveWay`] where the result could depend on the
/// order of visiting (see the module's words): search on one thread then. A
/// cancel (`progress` says false) reports the search so far, cancelled.
pub fn explore_swarm<M>(
    sc: &M,
    o: &Options,
    threads: usize,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Exploration, GaveWay>
where
    M: Model + Send + Sync,
{
    swarm(sc, o, threads, progress).map_err(|(n, states, found)| GaveWay {
        states,
        why: n.words(),
        found,
    })
}

/// Why several threads gave nothing, how many states they had visited before
/// they did, and what they found (shrunk; one per key): the one thread that
/// searches again may stop at a budget before it reaches a violation the
/// threads found, which is no less real for it.
#[derive(Clone, Debug, PartialEq)]
pub struct GaveWay {
    pub states: u64,
    pub why: &'static str,
    pub found: Vec<Found>,
}

/// Why several threads gave nothing (see [`explore_swarm`]).
#[derive(Debug, PartialEq)]
enum Nothing {
    /// A violation found (or a thread's panic).
    Stirred,
    /// The memory budget stopped them: one thread fits more states in it.
    MemoryBudget,
    /// A path cut at the depth budget.
    Cut,
    /// A state reached by paths of two lengths.
    Ungraded,
    /// One thread might not have had the memory for the visited set.
    Memory,
}

impl Nothing {
    fn words(&self) -> &'static str {
        match self {
            Nothing::Stirred => "they found a violation, and which schedule a search reports depends on the order it visits states in",
            Nothing::MemoryBudget => "the memory budget stopped them, and one thread fits more states in it (its visited set takes fewer bytes a state than the threads' shared one)",
            Nothing::Cut => "a path was cut at the depth budget, and which states a cut leaves unexplored depends on the order states are visited in",
            Nothing::Ungraded => "a state is reached by paths of two lengths, so the deepest level depends on the order states are visited in",
            Nothing::Memory => "one thread might not have had the memory for the states they visited",
        }
    }
}

fn swarm<M>(
    sc: &M,
    o: &Options,
    threads: usize,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Exploration, (Nothing, u64, Vec<Found>)>
where
    M: Model + Send + Sync,
{
    let threads = threads.clamp(2, 256);
    let sc = Arc::new(sc.clone());
    // From the start, as `Explorer::swarm` searches (and `Explorer::new`).
    let o = Options {
        from_depth: 0,
        ..o.clone()
    }
    .applied(&*sc);
    let seen = Arc::new(SharedFpSet::new());
    seen.insert(o.fingerprint(&*sc, &sc.init()), 0);
    let sw = Swarm {
        sc,
        o,
        seen,
        abort: AtomicBool::new(false),
        stirred: AtomicBool::new(false),
        states_budget: AtomicBool::new(false),
        memory_budget: AtomicBool::new(false),
        found: Mutex::new(Vec::new()),
        live: (0..threads).map(|_| Mutex::default()).collect(),
        finished: AtomicUsize::new(0),
    };
    let mut cancelled = false;
    let ends: Vec<End> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let sw = &sw;
                scope.spawn(move || search(sw, t, &mut || {}))
            })
            .collect();
        // This thread reports progress between slices of its own search, and
        // then while the others finish theirs.
        let mine = search(&sw, 0, &mut || cancelled |= !sw.check(progress));
        while sw.finished.load(Relaxed) < threads {
            std::thread::sleep(POLL);
            cancelled |= !sw.check(progress);
        }
        let mut ends = vec![mine];
        for h in others {
            match h.join() {
                Ok(end) => ends.push(end),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        ends
    });
    sw.check(&mut |_| true);
    merge(&sw, &ends, cancelled).map_err(|n| {
        let found = sw.found.lock().unwrap_or_else(PoisonError::into_inner);
        (n, sw.progress().states, found.clone())
    })
}

/// The threads' counts as one search's report, or why not (see [`explore_swarm`]).
fn merge<M: Model>(sw: &Swarm<M>, ends: &[End], cancelled: bool) -> Result<Exploration, Nothing> {
    if sw.stirred.load(Relaxed) {
        return Err(Nothing::Stirred);
    }
    if sw.memory_budget.load(Relaxed) {
        return Err(Nothing::MemoryBudget);
    }
    let mut stats = Progress::default();
    let (mut peak, mut state_bytes) = (0, 0);
    for (c, ..) in ends {
        stats.states += c.stats.states;
        stats.transitions += c.stats.transitions;
        stats.depth = stats.depth.max(c.stats.depth);
        peak = peak.max(c.peak_bytes);
        state_bytes = state_bytes.max(c.state_bytes);
    }
    // Every thread but one went through the start state's choices again (a
    // thread cancelled went through fewer: a cancelled report's transitions
    // may be short by those, as its counts are of a search cut anywhere).
    for (c, root, _) in &ends[1..] {
        stats.transitions -= (*root).min(c.stats.transitions);
    }
    let peak = peak.max(sw.seen.bytes());
    // Paths cut at the depth budget (a search they end gives way, below).
    let cut = ends.iter().map(|e| e.0.depth_cut).sum();
    let report = |stopped| {
        let counts = (stats, stopped, cut, peak);
        super::report::<M>(&*sw.sc, &sw.o, counts, Vec::new())
    };
    // The state budget stopped them and nothing was found: one thread would
    // stop at that budget too, after as long again, among other states.
    // Which states a stopped search covered depends on its order whatever
    // the threads: the report says what these covered, and that the count is
    // theirs. (The memory budget gives way: one thread fits more in it.)
    if sw.states_budget.load(Relaxed) {
        let mut x = report(Stopped::MaxStates);
        x.budget_on_threads = Some(ends.len() as u32);
        return Ok(x);
    }
    if ends.iter().any(|e| e.0.depth_cut > 0) {
        return Err(Nothing::Cut);
    }
    if sw.seen.ungraded() {
        return Err(Nothing::Ungraded);
    }
    // The most a one-thread search of these states could have held: its
    // table's growth, and a path of the deepest level with a child made
    // ahead at each. Its sampled size of a state may be another, its
    // choices are not counted here: within half the budget, it had room.
    let path = (2 * u64::from(stats.depth) + 2) * state_bytes;
    if FpSet::peak_bytes_for(stats.states) + path + (1 << 20) > sw.o.max_bytes / 2 {
        return Err(Nothing::Memory);
    }
    // A cancel that came after every thread was done stops nothing.
    let stopped = match cancelled && ends.iter().any(|e| e.2) {
        true => Stopped::Cancelled,
        false => Stopped::Exhausted,
    };
    Ok(report(stopped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{explore_with, Order};
    use crate::AnyScenario;

    /// `x` without its memory figures (several threads hold other tables).
    fn counts_only(mut x: Exploration) -> Exploration {
        (x.peak_bytes, x.needed_bytes) = (0, None);
        x
    }

    /// Compares depth first on 2 and 3 threads with one thread over some
    /// option sets: (searches several threads gave, searches compared).
    /// `graded`: no state is reached by paths of two lengths.
    fn alike<M: Model + Send + Sync>(name: &str, sc: &M, graded: bool) -> (usize, usize) {
        let mut cases = crate::explore::cases::depth_first();
        let all = cases.last().expect("to the end").clone();
        cases.push(Options { ids: true, ..all });
        let (mut swarmed, mut compared, mut budgeted) = (0, 0, 0);
        for o in &cases {
            let one = counts_only(explore_with(sc, o, &mut |_| true));
            for t in [2, 3] {
                compared += 1;
                match swarm(sc, o, t, &mut |_| true) {
                    Ok(x) if x.budget_on_threads.is_some() => {
                        budget_alike(&x, &one, o, t);
                        budgeted += 1;
                    }
                    Ok(x) => {
                        assert_eq!(counts_only(x), one, "{name} on {t} threads: {o:?}");
                        swarmed += 1;
                    }
                    Err((Nothing::Ungraded, ..)) => assert!(!graded, "{name}: {o:?}"),
                    // Only where the order could change the result.
                    Err((why, ..)) => assert!(
                        !one.violations.is_empty()
                            || one.depth_cut > 0
                            || one.stopped != Stopped::Exhausted,
                        "{name} on {t} threads gave nothing ({why:?}): {o:?}"
                    ),
                }
            }
        }
        (swarmed + budgeted, compared)
    }

    /// A search of `t` threads that a budget stopped, beside one thread's:
    /// stopped at that budget, having found nothing, within the slack the
    /// threads' counting leaves.
    fn budget_alike(x: &Exploration, one: &Exploration, o: &Options, t: usize) {
        let why = format!("{} on {t} threads: {o:?}", x.scenario);
        assert_eq!(x.stopped, Stopped::MaxStates, "{why}");
        assert!(x.truncated && x.violations.is_empty(), "{why}");
        assert_eq!(x.budget_on_threads, Some(t as u32), "{why}");
        let slack = crate::explore::TELL_STATES * (t as u64 - 1);
        assert!(
            (o.max_states..=o.max_states + slack).contains(&x.states),
            "{why}: {} states, {} transitions, depth {}; one thread: {} states, {:?}",
            x.states,
            x.transitions,
            x.depth,
            one.states,
            one.stopped
        );
        // One thread stops at that budget too, unless the states it covered
        // hold a violation (another order, other states).
        if one.violations.is_empty() {
            assert_eq!(one.stopped, x.stopped, "{why}");
        }
    }

    /// Several threads depth first give what one thread gives (states,
    /// transitions, depth, stop reason), or nothing where a violation, a
    /// budget, a cut or paths of two lengths to a state could make the order
    /// matter, over every built-in (sync-2024 at every version) and a scaled
    /// #34018. No sync-2024 search meets paths of two lengths.
    #[test]
    fn several_threads_depth_first_give_what_one_gives() {
        let (mut swarmed, mut compared, mut sync_swarmed) = (0, 0, 0);
        crate::explore::cases::every_builtin(&["sync-scaled-3x2"], |name, sc| {
            let (s, c) = match sc {
                AnyScenario::Flush(sc) => alike(name, &*sc, false),
                AnyScenario::Sync(sc) => {
                    let (s, c) = alike(name, &*sc, true);
                    sync_swarmed += s;
                    (s, c)
                }
                AnyScenario::Mutex(sc) => alike(name, &*sc, false),
            };
            (swarmed, compared) = (swarmed + s, compared + c);
        });
        assert!(
            swarmed > 60 && sync_swarmed > 20 && compared > 300,
            "{swarmed} of {compared} searches on several threads ({sync_swarmed} of sync-2024)"
        );
    }

    /// A search of more states than the budget allows is reported as the
    /// threads searched it, stopped at the budget; one that finds a violation
    /// gives nothing; a cancel reports what was searched, cancelled.
    #[test]
    fn a_budget_or_a_cancel_stops_every_thread() {
        let sc = crate::builtin::get("sync-scaled-3x3").expect("a built-in");
        let AnyScenario::Sync(sc) = sc else {
            panic!("a sync-2024 scenario")
        };
        let o = Options {
            order: Order::Dfs,
            ..Options::exhaustive(200, 100)
        };
        let x = swarm(&*sc, &o, 2, &mut |_| true).expect("the threads' report");
        assert_eq!(x.stopped, Stopped::MaxStates);
        assert!(x.truncated && x.violations.is_empty());
        assert_eq!(x.budget_on_threads, Some(2));
        // Each thread stops at the budget as the shared set counts it.
        assert!(
            (100..=100 + crate::explore::TELL_STATES).contains(&x.states),
            "{} states",
            x.states
        );
        assert!(
            x.text().contains("threads: 2 searched depth first until a budget stopped them (they tell each other their counts 64 states at a time, so theirs may pass the state budget by up to 64);"),
            "{}",
            x.text()
        );
        assert!(x.text().contains("raise --max-states"), "{}", x.text());
        // The memory budget gives way: the shared set's tables take 2.5 MiB
        // before they hold anything, so the threads stopped within a few
        // hundred states of a 1 MiB budget where one thread visits 45,000
        // (sync-scaled-6x4).
        let small = Options {
            max_states: u64::MAX,
            max_bytes: 1 << 20,
            ..o.clone()
        };
        let (why, states, found) = swarm(&*sc, &small, 2, &mut |_| true).expect_err("gave way");
        assert_eq!((why, found), (Nothing::MemoryBudget, Vec::new()));
        assert!(states > 0);
        // A violation found gives way, budget or not: one thread finds which.
        let mut bug = (*sc).clone();
        bug.set_version("ca7ef26e4b").expect("a version");
        let o = Options {
            max_states: 1_000_000,
            ..Options::first(200, 1_000_000)
        };
        let o = Options {
            order: Order::Dfs,
            ..o
        };
        let (why, _, found) = swarm(&bug, &o, 2, &mut |_| true).expect_err("gave way");
        assert_eq!(why, Nothing::Stirred);
        // With what they found, shrunk, for the one thread that may stop
        // at a budget before it reaches it.
        assert!(!found.is_empty());
        for f in &found {
            assert!(f.steps > 0 && !f.key.is_empty(), "{f:?}");
        }
        let o = Options {
            max_states: 1_000_000,
            ..o
        };
        let x = explore_swarm(&*sc, &o, 2, &mut |_| false).expect("a report");
        assert_eq!(x.stopped, Stopped::Cancelled);
        assert!(x.truncated);
    }
}
