//! Breadth-first search over interleavings: every runnable choice (including each
//! ready case of a `select`) is a branch; states are merged by hash. Because the
//! search is breadth first, the first schedule found for each violation is a
//! shortest one.

use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::Serialize;

use crate::engine::Model;
use crate::scenario::{ModelKind, Scenario};
use crate::sched::{format_schedule, Choice};
use crate::{flush2021, sync2024};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// `panic`, `invariant` or `deadlock`.
    pub kind: &'static str,
    pub message: String,
    /// A shortest schedule reaching it (replay with `flushscope run --schedule`).
    pub schedule: String,
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exploration {
    pub scenario: String,
    pub version: Option<&'static str>,
    pub states: u64,
    /// True if the state or depth budget cut the search short.
    pub truncated: bool,
    pub violations: Vec<Found>,
    /// Wall time, filled in by the caller (the core has no clock).
    pub time_ms: Option<u64>,
}

impl Exploration {
    pub fn text(&self) -> String {
        let mut s = format!(
            "# explore {}{}\nstates explored: {}{}\n",
            self.scenario,
            self.version.map(|v| format!(" @ {v}")).unwrap_or_default(),
            self.states,
            if self.truncated {
                " (budget reached: the search is incomplete)"
            } else {
                ""
            }
        );
        if let Some(t) = self.time_ms {
            s.push_str(&format!("time: {t} ms\n"));
        }
        if self.violations.is_empty() {
            s.push_str("violations: none\n");
        }
        for v in &self.violations {
            s.push_str(&format!(
                "{}: {}\n  shortest schedule ({} steps): {}\n",
                v.kind, v.message, v.steps, v.schedule
            ));
        }
        s
    }
}

pub fn explore(sc: Arc<Scenario>, max_steps: u32, max_states: u64) -> Exploration {
    match sc.model {
        ModelKind::Flush2021 => explore_model::<flush2021::World>(&sc, max_steps, max_states),
        ModelKind::Sync2024 => explore_model::<sync2024::World>(&sc, max_steps, max_states),
    }
}

fn hash_of<M: Hash>(m: &M) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    m.hash(&mut h);
    h.finish()
}

fn explore_model<M: Model>(sc: &Scenario, max_steps: u32, max_states: u64) -> Exploration {
    // Parent links rebuild schedules without storing one per state.
    let mut links: Vec<(u32, Choice)> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut queue: VecDeque<(M, u32, u32)> = VecDeque::new(); // world, link index (+1; 0 = root), depth
    let mut found: Vec<Found> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut truncated = false;
    let root = M::new(sc);
    seen.insert(hash_of(&root));
    queue.push_back((root, 0, 0));
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
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
    while let Some((w, link, depth)) = queue.pop_front() {
        w.runnable(sc, &mut runnable);
        // Every distinct invariant broken on the path (the world keeps them all), a
        // Go panic, or a deadlock.
        let mut verdicts: Vec<(&'static str, String, String)> = w
            .violations(sc)
            .into_iter()
            .map(|(name, msg)| {
                (
                    "invariant",
                    format!("{name}: {msg}"),
                    format!("invariant:{name}"),
                )
            })
            .collect();
        let mut ended = false;
        if let Some((_, msg)) = w.go_panic() {
            verdicts.push(("panic", msg.to_owned(), format!("panic:{msg}")));
            ended = true;
        } else if runnable.is_empty() && !w.quiescent() {
            let b: Vec<String> = w
                .blocked(sc)
                .into_iter()
                .map(|(g, n, on)| format!("g{g} {n} waits on {on}"))
                .collect();
            verdicts.push(("deadlock", b.join("; "), "deadlock".to_owned()));
            ended = true;
        }
        for (kind, message, key) in verdicts {
            if !keys.contains(&key) {
                let s = schedule_of(&links, link);
                found.push(Found {
                    kind,
                    message,
                    steps: s.len() as u32,
                    schedule: format_schedule(&s),
                });
                keys.push(key);
            }
        }
        if ended {
            continue;
        }
        if depth >= max_steps {
            truncated |= !runnable.is_empty();
            continue;
        }
        for &c in &runnable {
            if seen.len() as u64 >= max_states {
                truncated = true;
                break;
            }
            let mut next = w.clone();
            scratch.clear();
            next.step(sc, c, &mut scratch);
            if seen.insert(hash_of(&next)) {
                links.push((link, c));
                queue.push_back((next, links.len() as u32, depth + 1));
            }
        }
    }
    Exploration {
        scenario: sc.name.clone(),
        version: sc.version.map(|v| v.as_str()),
        states: seen.len() as u64,
        truncated,
        violations: found,
        time_ms: None,
    }
}

/// The observable outcome of a finished flush-2021 run (see [`flush_outcomes`]):
/// `notified` the packs SaveBinlogPaths received, `w` the world at the end.
pub fn flush_outcome_words(
    sc: &Scenario,
    notified: &[flush2021::Pack],
    w: &flush2021::World,
) -> String {
    let words = |p: &flush2021::Pack| {
        let mut s = format!("{}/{}", p.segment, p.pos.map_or("nil", |x| sc.pos_name(x)));
        for (on, tag) in [(p.flushed, "+f"), (p.dropped, "+d"), (p.err, "+e")] {
            if on {
                s.push_str(tag);
            }
        }
        s
    };
    let end = if w.panic.is_some() {
        "panic"
    } else if w.quiescent() {
        "completed"
    } else {
        "deadlock"
    };
    let n: Vec<String> = notified.iter().map(words).collect();
    let d = match &w.drop.flush_and_drop {
        Some(ps) => ps.iter().map(words).collect::<Vec<_>>().join(" "),
        None => "-".to_owned(),
    };
    format!("N={} | D={d} | E={end}", n.join(" "))
}

/// One distinct observable outcome of a flush-2021 scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlushOutcome {
    /// `N=... | D=... | E=...` (see [`flush_outcomes`]).
    pub outcome: String,
    /// Distinct end states reaching it.
    pub ends: u64,
    /// A shortest schedule reaching it.
    pub schedule: String,
    pub steps: u32,
}

/// Every distinct observable outcome of a flush-2021 scenario, as the Go
/// conformance harness prints it: `N=` the packs SaveBinlogPaths received in order,
/// `D=` the packs given to flushAndDrop (`-` if never called), `E=` how the run
/// ended (`completed`, `deadlock`, `panic`). A pack is `SEG/POS` (`nil` for a
/// position-less drop-mode delete pack) with `+f`, `+d`, `+e` for flushed, dropped,
/// err. Breadth first, so each comes with a shortest schedule. States are merged on
/// the world plus what datacoord has seen so far. `None` when more than
/// `max_states` states would be visited.
pub fn flush_outcomes(sc: &Scenario, max_states: u64) -> Option<Vec<FlushOutcome>> {
    use flush2021::{Ev, Pack, World};
    // What a pack looks like to datacoord: (segment, position, flushed, dropped, err).
    type Seen = (i64, Option<u32>, bool, bool, bool);
    let key = |p: &Pack| -> Seen { (p.segment, p.pos, p.flushed, p.dropped, p.err) };
    let words = |k: &Seen| {
        let mut s = format!("{}/{}", k.0, k.1.map_or("nil", |x| sc.pos_name(x)));
        for (on, tag) in [(k.2, "+f"), (k.3, "+d"), (k.4, "+e")] {
            if on {
                s.push_str(tag);
            }
        }
        s
    };
    let mut seen: HashSet<u64> = HashSet::new();
    let mut links: Vec<(u32, Choice)> = Vec::new();
    let mut out: std::collections::BTreeMap<String, (u64, u32)> = Default::default();
    let mut queue: VecDeque<(World, Vec<Seen>, u32)> = VecDeque::new();
    queue.push_back((World::new(sc), Vec::new(), 0));
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
    while let Some((w, obs, link)) = queue.pop_front() {
        w.runnable(sc, &mut runnable);
        if runnable.is_empty() {
            let end = if w.panic.is_some() {
                "panic"
            } else if w.quiescent() {
                "completed"
            } else {
                "deadlock"
            };
            let n: Vec<String> = obs.iter().map(words).collect();
            let d = match &w.drop.flush_and_drop {
                Some(ps) => ps
                    .iter()
                    .map(|p| words(&key(p)))
                    .collect::<Vec<_>>()
                    .join(" "),
                None => "-".to_owned(),
            };
            out.entry(format!("N={} | D={} | E={end}", n.join(" "), d))
                .or_insert((0, link))
                .0 += 1;
            continue;
        }
        for &c in &runnable {
            let mut next = w.clone();
            scratch.clear();
            next.step(sc, c, &mut scratch);
            let mut obs2 = obs.clone();
            obs2.extend(scratch.iter().filter_map(|e| match e {
                Ev::Notified { pack, .. } => Some(key(pack)),
                _ => None,
            }));
            let mut h = std::collections::hash_map::DefaultHasher::new();
            next.hash(&mut h);
            obs2.hash(&mut h);
            if seen.insert(h.finish()) {
                if seen.len() as u64 > max_states {
                    return None;
                }
                links.push((link, c));
                queue.push_back((next, obs2, links.len() as u32));
            }
        }
    }
    let schedule_of = |mut at: u32| {
        let mut v = Vec::new();
        while at != 0 {
            let (parent, c) = links[(at - 1) as usize];
            v.push(c);
            at = parent;
        }
        v.reverse();
        v
    };
    Some(
        out.into_iter()
            .map(|(outcome, (ends, link))| {
                let s = schedule_of(link);
                FlushOutcome {
                    outcome,
                    ends,
                    steps: s.len() as u32,
                    schedule: format_schedule(&s),
                }
            })
            .collect(),
    )
}

/// A schedule under which a flush-2021 scenario ends in `outcome` (the
/// `N=... | D=... | E=...` of [`flush_outcomes`]), found depth first, pruning every
/// path whose SaveBinlogPaths packs stop matching the outcome's. For state spaces
/// too big to enumerate: "can the model do what Go did?" `None` when no schedule
/// exists or more than `max_states` states would be visited (the second bool says
/// which: true = budget).
pub fn find_flush_outcome(
    sc: &Scenario,
    outcome: &str,
    max_states: u64,
) -> Result<Vec<Choice>, bool> {
    use flush2021::{Ev, Pack, World};
    let words = |p: &Pack| {
        let mut s = format!("{}/{}", p.segment, p.pos.map_or("nil", |x| sc.pos_name(x)));
        for (on, tag) in [(p.flushed, "+f"), (p.dropped, "+d"), (p.err, "+e")] {
            if on {
                s.push_str(tag);
            }
        }
        s
    };
    let want_n: Vec<&str> = outcome
        .strip_prefix("N=")
        .and_then(|s| s.split(" | ").next())
        .map(|n| n.split(' ').filter(|x| !x.is_empty()).collect())
        .unwrap_or_default();
    let mut seen: HashSet<u64> = HashSet::new();
    // (world, packs notified so far, schedule)
    let mut stack: Vec<(World, usize, Vec<Choice>)> = vec![(World::new(sc), 0, Vec::new())];
    let mut runnable = Vec::new();
    let mut scratch = Vec::new();
    while let Some((w, matched, sched)) = stack.pop() {
        w.runnable(sc, &mut runnable);
        if runnable.is_empty() {
            let end = if w.panic.is_some() {
                "panic"
            } else if w.quiescent() {
                "completed"
            } else {
                "deadlock"
            };
            let d = match &w.drop.flush_and_drop {
                Some(ps) => ps.iter().map(words).collect::<Vec<_>>().join(" "),
                None => "-".to_owned(),
            };
            if matched == want_n.len()
                && format!("N={} | D={d} | E={end}", want_n.join(" ")) == outcome
            {
                return Ok(sched);
            }
            continue;
        }
        for &c in runnable.iter().rev() {
            let mut next = w.clone();
            scratch.clear();
            next.step(sc, c, &mut scratch);
            let mut m = matched;
            let mut ok = true;
            for e in &scratch {
                if let Ev::Notified { pack, .. } = e {
                    if want_n.get(m).is_some_and(|x| *x == words(pack)) {
                        m += 1;
                    } else {
                        ok = false;
                    }
                }
            }
            if !ok {
                continue;
            }
            let mut h = std::collections::hash_map::DefaultHasher::new();
            next.hash(&mut h);
            m.hash(&mut h);
            if seen.insert(h.finish()) {
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
