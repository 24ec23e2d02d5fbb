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
        let verdict = if let Some((_, msg)) = w.go_panic() {
            Some(("panic", msg.to_owned(), format!("panic:{msg}")))
        } else if let Some((name, msg)) = w.violations(sc).into_iter().next() {
            Some((
                "invariant",
                format!("{name}: {msg}"),
                format!("invariant:{name}"),
            ))
        } else if runnable.is_empty() && !w.quiescent() {
            let b: Vec<String> = w
                .blocked(sc)
                .into_iter()
                .map(|(g, n, on)| format!("g{g} {n} waits on {on}"))
                .collect();
            Some(("deadlock", b.join("; "), "deadlock".to_owned()))
        } else {
            None
        };
        if let Some((kind, message, key)) = verdict {
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
            if kind != "invariant" {
                continue;
            }
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
