//! The data-race check: two steps runnable in the same state, of different
//! goroutines, whose footprints ([`Model::accesses`]) touch one field of one
//! instance, one of them writing, with no mutex held at both. Nothing orders two
//! steps that are both runnable but such a mutex, so the accesses are unordered
//! by happens-before (the Go memory model's data race). Conversely, two accesses
//! unordered by happens-before in any execution are runnable together in some
//! state an interleaving reaches (reorder the execution: their happens-before
//! predecessors first), so an exhaustive search that checks every state finds
//! every race of the footprints, as Java PathFinder's race detector does.

use super::hb::{show, Candidate, Clocks};
use crate::engine::{Access, Model};
use crate::sched::Choice;

/// A race found in a state: the two steps and their two accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    pub a: (Choice, Access),
    pub b: (Choice, Access),
    /// The two choices in an order the second is still runnable after the first
    /// (one choice when each disables the other, as two cases of one channel).
    pub steps: Vec<Choice>,
}

impl Race {
    /// What makes a race distinct: the field and the two Go lines, in either order.
    pub fn key(&self) -> String {
        let (a, b) = (&self.a.1, &self.b.1);
        let (x, y) = if (a.site.line, a.write) <= (b.site.line, b.write) {
            (a, b)
        } else {
            (b, a)
        };
        format!(
            "race:{}:{}:{}:{}:{}",
            a.field, x.site.line, x.write, y.site.line, y.write
        )
    }

    /// `orderFlushQueue.postInjection of segment 1: g4 read ... / g9 write ...`.
    pub fn message(&self) -> String {
        format!(
            "{}{}: g{} {} / g{} {}",
            self.a.1.field,
            self.a.1.of_instance(),
            self.a.0.g,
            self.a.1.words(),
            self.b.0.g,
            self.b.1.words()
        )
    }
}

/// The races of state `w`, whose runnable choices are `runnable`: each choice runs
/// on a copy (from `spare` when there is one) to learn its footprint.
pub fn races_at<M: Model>(
    sc: &M,
    w: &M::State,
    runnable: &[Choice],
    spare: &mut Vec<M::State>,
) -> Vec<Race> {
    let mut facts = Vec::new();
    let mut run = |c: Choice, spare: &mut Vec<M::State>| {
        let mut s = match spare.pop() {
            Some(mut s) => {
                s.clone_from(w);
                s
            }
            None => w.clone(),
        };
        facts.clear();
        sc.step(&mut s, c, &mut facts);
        s
    };
    let mut prints: Vec<(Choice, Vec<Access>)> = Vec::new();
    for &c in runnable {
        let s = run(c, spare);
        let acc = sc.accesses(&s);
        if !acc.is_empty() {
            prints.push((c, acc.to_vec()));
        }
        spare.push(s);
    }
    let mut out = Vec::new();
    for (i, (ca, fa)) in prints.iter().enumerate() {
        for (cb, fb) in prints[i + 1..].iter().filter(|p| p.0.g != ca.g) {
            for a in fa {
                for b in fb.iter().filter(|b| a.conflicts(b)) {
                    let mut r = Race {
                        a: (*ca, *a),
                        b: (*cb, *b),
                        steps: Vec::new(),
                    };
                    // One per race and instance (the explorer keeps one per race).
                    let same = |o: &Race| o.key() == r.key() && o.a.1.object == a.object;
                    if out.iter().any(same) {
                        continue;
                    }
                    r.steps = order_of(sc, *ca, *cb, &mut run, spare);
                    out.push(r);
                }
            }
        }
    }
    spare.truncate(64);
    out
}

/// `[a, b]` if `b` is still runnable after `a`, else `[b, a]` if `a` is after
/// `b`, else `[a]`.
fn order_of<M: Model>(
    sc: &M,
    a: Choice,
    b: Choice,
    run: &mut impl FnMut(Choice, &mut Vec<M::State>) -> M::State,
    spare: &mut Vec<M::State>,
) -> Vec<Choice> {
    let mut after = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        let s = run(x, spare);
        sc.runnable(&s, &mut after);
        spare.push(s);
        if after.contains(&y) {
            return vec![x, y];
        }
    }
    vec![a]
}

/// A race seen in a run. Either both steps were runnable together at a state the
/// run passed (`steps` empty; `step` is that state), or the run made both
/// accesses, unordered by happens-before ([`hb`](super::hb); `steps` are the two
/// steps of the run, numbered as the trace numbers them, and `step` the second).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RunRace {
    pub step: u32,
    /// The run's two racing steps, when the run made both accesses.
    pub steps: Vec<u32>,
    pub message: String,
    /// A schedule whose last steps are the two racing ones, runnable together.
    pub schedule: String,
    pub accesses: [Access; 2],
    /// The two goroutines as this run numbers them (the schedule, which may start
    /// goroutines in another order, can number them otherwise).
    pub goroutines: [u32; 2],
    #[serde(skip)]
    key: String,
}

/// The race check along one run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RunRaces {
    /// Each distinct race, in the order of `step`.
    pub found: Vec<RunRace>,
    /// States checked for two racing steps runnable together (the run has
    /// `schedule.len() + 1`).
    pub checked: u32,
    /// Steps the vector clocks covered (of `schedule.len()`).
    pub clocked: u32,
    /// False when a budget stopped either check before the run's end.
    pub complete: bool,
    /// Races (field and lines) whose accesses the clocks left unordered but no
    /// schedule showed racing (an edge the model does not declare, or a race its
    /// steps are too coarse to show).
    pub unshown: u32,
    /// Such races the budget left no room to try.
    pub untried: u32,
    /// False for a model whose steps declare no footprints (nothing was checked).
    pub declared: bool,
    /// The budget the checks were given, in model steps.
    pub budget: u64,
    /// The clocks stopped at their memory cap (not at the budget).
    pub clocks_full: bool,
}

/// How many pairs of one race (field and lines) the check tries to show before it
/// gives up on that race.
const SHOW_TRIES: u32 = 3;

/// Replays `schedule` from the start and checks every state it passes through
/// (see [`races_at`]) and every pair of its accesses (see [`hb`](super::hb)).
/// Each check has `budget`: the state check counts, per state, the runnable
/// steps it tries times the live goroutines (what copying the world costs), the
/// clocks count clock entries and the model steps spent showing a pair. A big
/// run's state check stops early; the cheap clocks usually go on to the end.
pub fn run_races<M: Model>(sc: &M, schedule: &[Choice], budget: u64) -> RunRaces {
    let mut w = sc.init();
    let (mut runnable, mut facts, mut spare) = (Vec::new(), Vec::new(), Vec::new());
    let mut out = RunRaces {
        found: Vec::new(),
        checked: 0,
        clocked: 0,
        complete: true,
        unshown: 0,
        untried: 0,
        declared: M::FOOTPRINTS,
        budget,
        clocks_full: false,
    };
    if !M::FOOTPRINTS {
        // Nothing declared: nothing to check (and no copy of the check for such a model).
        return out;
    }
    let mut clocks = Clocks::default();
    let mut pairs = Vec::new();
    let mut kept = std::collections::HashMap::new();
    let mut live = sc.goroutine_ids(&w);
    sc.runnable(&w, &mut runnable);
    let (mut spent, mut states_on, mut clocks_on) = (0u64, true, true);
    for i in 0..=schedule.len() {
        spent += (runnable.len() * (live.len() + 1)) as u64;
        states_on &= spent <= budget;
        if states_on {
            out.checked += 1;
            // A race whose two steps go past the scenario's step limit is
            // none the run can take.
            let room = (sc.header().max_steps as usize).saturating_sub(i);
            for r in races_at(sc, &w, &runnable, &mut spare) {
                if r.steps.len() > room {
                    continue;
                }
                let mut s = schedule[..i].to_vec();
                s.extend(&r.steps);
                out.add(&r, i as u32, Vec::new(), &s);
            }
        }
        // Each check stops at its own budget; the replay goes on while either runs.
        let full = clocks.cells_bound() > MAX_CLOCK_CELLS;
        out.clocks_full |= clocks_on && full;
        clocks_on &= clocks.work <= budget.saturating_mul(CLOCK_ENTRIES_PER_STEP) && !full;
        let Some(&c) = schedule.get(i) else { break };
        if !runnable.contains(&c) || !(states_on || clocks_on) {
            break;
        }
        facts.clear();
        sc.step(&mut w, c, &mut facts);
        sc.runnable(&w, &mut runnable);
        let now_live = sc.goroutine_ids(&w);
        if clocks_on {
            let (acc, syncs) = (sc.accesses(&w), sc.syncs(&w));
            for x in clocks.step(i, c, &live, &now_live, acc, syncs) {
                // At most SHOW_TRIES candidates per race are ever tried: keep no more
                // (thousands of unordered goroutines would otherwise make millions).
                let k = pair_key(&x);
                let n = kept.entry(k).or_insert(0u32);
                if *n < SHOW_TRIES {
                    *n += 1;
                    pairs.push(x);
                }
            }
            out.clocked += 1;
        }
        live = now_live;
    }
    out.complete =
        out.checked as usize == schedule.len() + 1 && out.clocked as usize == schedule.len();
    out.show(sc, schedule, pairs, budget);
    crate::order::sort_by_key(&mut out.found, |f| f.step);
    out
}

/// What tells races apart (as [`Race::key`]): the field and the two lines and kinds.
fn pair_key(x: &Candidate) -> (&'static str, (u32, bool), (u32, bool)) {
    let (a, b) = ((x.a.site.line, x.a.write), (x.b.site.line, x.b.write));
    (x.a.field, a.min(b), a.max(b))
}

/// What a clock entry costs against a budget counted in model steps (a `max` of
/// two integers against copying and stepping a world).
const CLOCK_ENTRIES_PER_STEP: u64 = 64;
/// The clocks' memory: at most this many entries (4 bytes each) live at once.
const MAX_CLOCK_CELLS: u64 = 16 << 20;

impl RunRaces {
    /// Shows each candidate pair with a schedule (a few tries per race), spending at
    /// most `budget` model steps; what is left untried is counted.
    fn show<M: Model>(&mut self, sc: &M, schedule: &[Choice], pairs: Vec<Candidate>, budget: u64) {
        let mut left = budget;
        // Each race not yet shown: how often it was tried, and whether the budget
        // stopped a try.
        let mut tries: Vec<(String, u32, bool)> = Vec::new();
        for x in pairs {
            let (ca, cb) = (schedule[x.first], schedule[x.second]);
            let r = Race {
                a: (ca, x.a),
                b: (cb, x.b),
                steps: Vec::new(),
            };
            let key = r.key();
            if self.found.iter().any(|f| f.key == key) {
                continue;
            }
            let t = match tries.iter().position(|t| t.0 == key) {
                Some(i) => i,
                None => {
                    tries.push((key, 0, false));
                    tries.len() - 1
                }
            };
            if tries[t].1 == SHOW_TRIES {
                continue;
            }
            if left < 2 * x.second as u64 + 4 {
                tries[t].2 = true;
                continue;
            }
            tries[t].1 += 1;
            // A schedule past the scenario's step limit would not replay.
            let fits = |s: &Vec<Choice>| s.len() <= sc.header().max_steps as usize;
            if let Some(s) = show(sc, schedule, &x, &mut left).filter(fits) {
                let steps = vec![x.first as u32 + 1, x.second as u32 + 1];
                self.add(&r, x.second as u32 + 1, steps, &s);
            }
        }
        for (key, tried, starved) in tries {
            if self.found.iter().any(|f| f.key == key) {
                continue;
            }
            if tried > 0 {
                self.unshown += 1;
            } else if starved {
                self.untried += 1;
            }
        }
        self.complete &= self.untried == 0;
    }

    /// Keeps `r` unless a race with its key is kept already.
    fn add(&mut self, r: &Race, step: u32, steps: Vec<u32>, schedule: &[Choice]) {
        let key = r.key();
        if self.found.iter().any(|f| f.key == key) {
            return;
        }
        self.found.push(RunRace {
            step,
            steps,
            message: r.message(),
            schedule: crate::sched::format_schedule(schedule),
            accesses: [r.a.1, r.b.1],
            goroutines: [r.a.0.g, r.b.0.g],
            key,
        });
    }

    /// Which limit stopped the checks short of the run's `states`, in words
    /// (empty when none did).
    fn stopped_words(&self, states: u32) -> String {
        let clocks_short = self.clocked < states.saturating_sub(1);
        let mut why = Vec::new();
        if self.checked < states || (clocks_short && !self.clocks_full) {
            why.push(format!(
                "the budget of {} model steps ran out: `run --races --race-budget` raises it",
                self.budget
            ));
        }
        if clocks_short && self.clocks_full {
            why.push(format!(
                "the clocks reached their memory cap of {MAX_CLOCK_CELLS} entries"
            ));
        }
        match why.is_empty() {
            true => String::new(),
            false => format!(" ({})", why.join("; ")),
        }
    }

    /// The races as text, after a run's trace.
    pub fn text(&self, states: u32) -> String {
        if !self.declared {
            return "races: this model's steps declare no footprints: nothing to check\n"
                .to_owned();
        }
        let mut s = format!(
            "races: checked {} of the run's {states} states for racing steps runnable together, and {} of its {} steps with vector clocks{}\n",
            self.checked,
            self.clocked,
            states.saturating_sub(1),
            self.stopped_words(states)
        );
        if self.found.is_empty() && self.complete {
            s.push_str("  none in this run (explore --races looks at every interleaving)\n");
        } else if self.found.is_empty() {
            // The budget may have stopped the checks, or only the tries below.
            s.push_str("  none found in what the budget let it check\n");
        }
        for f in &self.found {
            let at = match f.steps[..] {
                [a, b] => format!("steps {a} and {b} (unordered by happens-before)"),
                _ => format!("step {} (both runnable)", f.step),
            };
            s.push_str(&format!(
                "  race at {at}: {}\n    schedule, {}: {}\n",
                f.message,
                crate::report::steps_words(
                    f.schedule.split(',').filter(|x| !x.is_empty()).count() as u64
                ),
                f.schedule
            ));
        }
        if self.untried > 0 {
            s.push_str(&format!(
                "  {} race(s) whose accesses the clocks left unordered were not tried (the budget of {} model steps ran out)\n",
                self.untried, self.budget
            ));
        }
        if self.unshown > 0 {
            s.push_str(&format!(
                "  {} race{} whose accesses the clocks left unordered showed no race when replayed\n",
                self.unshown,
                if self.unshown == 1 { "" } else { "s" }
            ));
        }
        s
    }
}

/// One side of a race at a run's cursor, for a reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceSide {
    /// The step to run it.
    pub choice: Choice,
    /// `g4 runner seg=1 pos=a`.
    pub goroutine: String,
    pub access: Access,
}

/// The races between the steps runnable at the run's cursor; `None` when the model
/// declares no footprints (then the check would say nothing).
pub fn races_here<M: Model>(r: &crate::engine::Run<M>) -> Option<Vec<[RaceSide; 2]>> {
    if !M::FOOTPRINTS {
        return None;
    }
    let (sc, w) = (r.scenario(), r.world());
    let name = |g: u32| match sc.describe(w, g) {
        Some(v) => format!("g{g} {}", v.name),
        None => format!("g{g}"),
    };
    let side = |(choice, access): (Choice, Access)| RaceSide {
        choice,
        goroutine: name(choice.g),
        access,
    };
    let found = races_at(sc, w, &r.runnable_here(), &mut Vec::new());
    Some(found.into_iter().map(|x| [side(x.a), side(x.b)]).collect())
}
