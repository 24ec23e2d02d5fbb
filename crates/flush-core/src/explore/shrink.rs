//! Shrinking a schedule: drop scheduler choices while the same violation still
//! occurs, so a reviewer reads the fewest steps that show it.

use super::findings;
use crate::engine::Model;
use crate::sched::Choice;

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
    let Some(n) = reaches(sc, schedule, key) else {
        return schedule.to_vec();
    };
    let mut cur = schedule[..n].to_vec();
    let mut budget = max_replays;
    let mut chunk = (cur.len() / 2).max(1);
    loop {
        let mut removed = false;
        let mut i = 0;
        while i < cur.len() && budget > 0 {
            budget -= 1;
            let end = (i + chunk).min(cur.len());
            let cand: Vec<Choice> = cur[..i].iter().chain(&cur[end..]).copied().collect();
            match reaches(sc, &cand, key) {
                Some(n) => {
                    cur = cand;
                    cur.truncate(n);
                    removed = true;
                }
                None => i += chunk,
            }
        }
        if budget == 0 || (chunk == 1 && !removed) {
            return cur;
        }
        chunk = (chunk / 2).max(1);
    }
}
