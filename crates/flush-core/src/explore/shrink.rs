//! Shrinking a schedule: drop scheduler choices while the same violation still
//! occurs, so a reviewer reads the fewest steps that show it.

use super::{findings, Found};
use crate::engine::Model;
use crate::sched::{format_schedule, Choice};

/// Replays `schedule` from the start strictly (each choice must be runnable
/// when its turn comes), asking `stop` of the start and of the state after each
/// step. `Ok((state, Some(n)))`: `stop` said yes after `n` steps; `Ok((state,
/// None))`: the schedule ended first; `Err(i)`: choice `i` was not runnable.
pub fn replay<M: Model>(
    sc: &M,
    schedule: &[Choice],
    mut stop: impl FnMut(&M::State) -> bool,
) -> Result<(M::State, Option<usize>), usize> {
    let mut w = sc.init();
    if stop(&w) {
        return Ok((w, Some(0)));
    }
    let (mut runnable, mut facts) = (Vec::new(), Vec::new());
    for (i, &c) in schedule.iter().enumerate() {
        sc.runnable(&w, &mut runnable);
        if !runnable.contains(&c) {
            return Err(i);
        }
        facts.clear();
        sc.step(&mut w, c, &mut facts);
        if stop(&w) {
            return Ok((w, Some(i + 1)));
        }
    }
    Ok((w, None))
}

/// Replays `schedule` strictly (see [`replay`]) and returns the number of steps
/// after which the violation `key` first shows, or `None` if it does not within
/// the schedule.
pub fn reaches<M: Model>(sc: &M, schedule: &[Choice], key: &str) -> Option<usize> {
    let shows = |w: &M::State| findings(sc, w).0.iter().any(|f| f.2 == key);
    replay(sc, schedule, shows).ok().and_then(|(_, at)| at)
}

/// A shorter schedule that still shows the violation `key`, found by dropping
/// chunks of choices (halves first, then smaller, down to single choices) while
/// the strict replay still shows it; at most `max_replays` replays.
/// `schedule` itself must show it.
pub fn shrink<M: Model>(sc: &M, schedule: &[Choice], key: &str, max_replays: u32) -> Vec<Choice> {
    let mut s = Shrinking::new(sc, schedule, key, max_replays);
    while !s.step(sc) {}
    s.cur
}

/// A [`shrink`] under way, one replay per [`Shrinking::step`], so that a front
/// end can run it in slices (the page's worker does) and stop it anywhere: what
/// it holds always shows the violation. Run to the end, it gives what
/// [`shrink`] gives.
#[derive(Clone, Debug)]
pub struct Shrinking {
    key: String,
    /// The schedule as found, and the shortest that shows the violation so far.
    found: usize,
    cur: Vec<Choice>,
    budget: u32,
    replays: u32,
    /// This pass drops `chunk` choices at a time, from choice `i` on; `removed`:
    /// it dropped some.
    chunk: usize,
    i: usize,
    removed: bool,
    done: bool,
    /// The shrink ran to its end: no single choice can be dropped from `cur`
    /// (not stopped by its replay budget or a cancel).
    finished: bool,
}

impl Shrinking {
    /// A shrink of `schedule` (which must show the violation `key`; one that does
    /// not is left as it is), with at most `max_replays` replays.
    pub fn new<M: Model>(sc: &M, schedule: &[Choice], key: &str, max_replays: u32) -> Shrinking {
        let n = reaches(sc, schedule, key);
        let cur = schedule[..n.unwrap_or(schedule.len())].to_vec();
        Shrinking {
            key: key.to_owned(),
            found: schedule.len(),
            chunk: (cur.len() / 2).max(1),
            cur,
            budget: max_replays,
            replays: 0,
            i: 0,
            removed: false,
            done: n.is_none(),
            finished: n.is_none(),
        }
    }

    /// One replay (none where a pass ends); true once the shrink is over.
    pub fn step<M: Model>(&mut self, sc: &M) -> bool {
        if self.done {
            return true;
        }
        if self.i < self.cur.len() && self.budget > 0 {
            self.budget -= 1;
            self.replays += 1;
            let end = (self.i + self.chunk).min(self.cur.len());
            let cand: Vec<Choice> = self.cur[..self.i]
                .iter()
                .chain(&self.cur[end..])
                .copied()
                .collect();
            match reaches(sc, &cand, &self.key) {
                Some(n) => {
                    self.cur = cand;
                    self.cur.truncate(n);
                    self.removed = true;
                }
                None => self.i += self.chunk,
            }
            return false;
        }
        // A pass over single choices that dropped none (the budget may end a
        // pass before its end).
        self.finished = self.i >= self.cur.len() && self.chunk == 1 && !self.removed;
        if self.budget == 0 || self.finished {
            self.done = true;
            return true;
        }
        self.chunk = (self.chunk / 2).max(1);
        (self.i, self.removed) = (0, false);
        false
    }

    /// The shortest schedule found so far that shows the violation.
    pub fn schedule(&self) -> &[Choice] {
        &self.cur
    }

    /// Replays taken so far.
    pub fn replays(&self) -> u32 {
        self.replays
    }

    /// True when the shrink ran to its end (no single choice can be dropped);
    /// false while it runs, and when its replay budget or a cancel stopped it.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Gives `f` the shortest schedule found so far, when it is shorter than the
    /// one found (and says how long that was: [`Found::shrunk_from`]), and says
    /// whether the shrink was stopped before its end ([`Found::shrink_stopped`]).
    pub fn apply(&self, f: &mut Found) {
        f.shrink_stopped = !self.finished;
        if self.cur.len() < self.found {
            f.shrunk_from = Some(f.steps);
            f.steps = self.cur.len() as u32;
            f.schedule = format_schedule(&self.cur);
        }
    }
}
