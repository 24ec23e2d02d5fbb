//! Shrinking a scenario, after its schedule: cut actors' ops while the same
//! violation still occurs, so a reviewer reads the fewest ops that show it.
//!
//! Each try removes one op from the scenario file (the JSON tree, so the model's
//! own checker judges the result: a file it refuses is not tried) and searches
//! the smaller scenario breadth first for the same violation (its key). A try
//! that finds it keeps the cut, and its shortest schedule; one that does not
//! (nothing found within the try's budget, or the file refused) puts the op back.
//! Passes go on until a pass cuts nothing, or the budget is spent.
//!
//! What is never cut: `wait_for` ops, and the ops they wait for. They are the
//! scenario's happens-before (a flow-graph node receives only after the one
//! before it returned); without them a violation could come from an order the
//! Go code rules out.
//!
//! Resumable, like the search: [`OpShrink::run`] goes on for a number of model
//! steps and returns, so the page cuts in slices between frames.

use serde::Serialize;

use super::{Options, Order};
use crate::models::{AnyExplorer, AnyScenario};
use crate::scenario::json::{self, Json};

/// One op of the original scenario, for a reader: whose, which, what it says,
/// and whether the shrink cut it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpLine {
    pub actor: String,
    /// The op's index among its actor's ops, in the original file.
    pub index: u32,
    /// `insert segment=300 partition=1 rows=10`.
    pub op: String,
    pub cut: bool,
}

/// What shrinking the ops gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// Every op of the original scenario, the cut ones marked.
    pub ops: Vec<OpLine>,
    pub kept: u32,
    /// The smaller scenario file, with a shortest schedule to the violation
    /// embedded (`flushscope run FILE --scripted` replays it).
    pub scenario: String,
    /// That schedule (empty when no op was cut: the search's schedule stands).
    pub schedule: String,
    pub steps: u32,
    /// Tries made, and the states their searches visited.
    pub tries: u32,
    pub states: u64,
    /// False when a budget ended the shrink before a pass cut nothing.
    pub complete: bool,
}

impl Cut {
    /// The cut for the CLI's text: which ops went, and the schedule of the rest.
    pub fn text(&self) -> String {
        let total = self.ops.len();
        let gone = total - self.kept as usize;
        let more = if self.complete {
            ""
        } else {
            " (the shrink's budget ran out: more may go)"
        };
        if gone == 0 {
            return format!(
                "  ops: none of the {total} can be cut ({} tries){more}\n",
                self.tries
            );
        }
        let mut s = format!(
            "  ops: {gone} of {total} cut ({} tries){more}; the {} left reach it in {} steps: {}\n",
            self.tries, self.kept, self.steps, self.schedule
        );
        for l in self.ops.iter().filter(|l| l.cut) {
            s.push_str(&format!("    cut {} op {}: {}\n", l.actor, l.index, l.op));
        }
        s.push_str(
            "    (the smaller scenario, its schedule embedded: --json, \"cut\".\"scenario\")\n",
        );
        s
    }
}

/// The budgets of a shrink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutBudget {
    /// Distinct states one try's search may visit.
    pub per_try: u64,
    /// States all tries together may visit.
    pub states: u64,
    /// Tries at most.
    pub tries: u32,
    /// Bytes one try's search may hold.
    pub bytes: u64,
}

impl CutBudget {
    /// The CLI's budgets: a try as big as the search that found the violation
    /// (at least 20,000 states), at most 200 tries and 3 M states in all.
    pub fn cli(found_in: u64, bytes: u64) -> CutBudget {
        CutBudget {
            per_try: found_in.clamp(20_000, 1_000_000),
            states: 3_000_000,
            tries: 200,
            bytes,
        }
    }
}

/// What a try the checker refuses counts for against [`OpShrink::run`]'s steps.
const REFUSED_COST: u64 = 128;

/// An op of the original file: its actor's and its own index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    actor: usize,
    op: usize,
}

/// A try in progress: the op it cuts, the smaller tree, its search.
struct Try {
    slot: Slot,
    tree: Json,
    x: AnyExplorer,
}

/// A shrink in progress.
pub struct OpShrink {
    base: AnyScenario,
    key: String,
    o: Options,
    budget: CutBudget,
    /// The file as cut so far.
    tree: Json,
    original: Json,
    /// Per original actor: the original indices of its ops still in `tree`
    /// (empty: the actor is gone).
    alive: Vec<Vec<usize>>,
    /// Ops not tried yet in this pass.
    todo: Vec<Slot>,
    cut_this_pass: bool,
    now: Option<Try>,
    schedule: Option<(String, u32)>,
    tries: u32,
    states: u64,
    out_of_budget: bool,
}

fn actors(tree: &Json) -> &[Json] {
    match tree.get("actors") {
        Some(Json::Arr(a)) => a,
        _ => &[],
    }
}

fn ops(actor: &Json) -> &[Json] {
    match actor.get("ops") {
        Some(Json::Arr(o)) => o,
        _ => &[],
    }
}

fn str_field<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    match v.get(key) {
        Some(Json::Str(s)) => Some(s),
        _ => None,
    }
}

fn int_field(v: &Json, key: &str) -> Option<i64> {
    match v.get(key) {
        Some(Json::Num(n)) => n.as_i64(),
        _ => None,
    }
}

/// `insert segment=300 partition=1 rows=10`: the op's name, then its fields.
fn op_words(op: &Json) -> String {
    let mut s = json::escape_unsafe(str_field(op, "op").unwrap_or("?"), false).into_owned();
    if let Json::Obj(fields) = op {
        for (k, v) in fields.iter().filter(|(k, _)| k != "op") {
            let v = match v {
                Json::Str(t) => json::escape_unsafe(&json::short(t), false).into_owned(),
                Json::Num(n) => json::number(n),
                Json::Bool(b) => b.to_string(),
                other => other.describe(),
            };
            s.push_str(&format!(
                " {}={v}",
                json::escape_unsafe(&json::short(k), false)
            ));
        }
    }
    s
}

impl OpShrink {
    /// A shrink of `text` (the file `base` was read from; `base` may run it at
    /// another version or with other knobs: every try does too) for the
    /// violation `key`, searched as `o` says (breadth first, this key only).
    /// `None` when the file is not a scenario with actors and ops.
    pub fn new(
        text: &str,
        base: &AnyScenario,
        key: &str,
        o: &Options,
        budget: CutBudget,
    ) -> Option<OpShrink> {
        let tree = json::parse(text.strip_prefix('\u{feff}').unwrap_or(text), "cut").ok()?;
        let alive: Vec<Vec<usize>> = actors(&tree)
            .iter()
            .map(|a| (0..ops(a).len()).collect())
            .collect();
        if alive.iter().all(Vec::is_empty) {
            return None;
        }
        let o = Options {
            order: Order::Bfs,
            all: false,
            shrink: false,
            target: Some(key.to_owned()),
            max_states: budget.per_try,
            max_bytes: budget.bytes,
            ..o.clone()
        };
        let mut s = OpShrink {
            base: base.clone(),
            key: key.to_owned(),
            o,
            budget,
            original: tree.clone(),
            tree,
            alive,
            todo: Vec::new(),
            cut_this_pass: false,
            now: None,
            schedule: None,
            tries: 0,
            states: 0,
            out_of_budget: false,
        };
        s.new_pass();
        Some(s)
    }

    /// Queues every op still in the file that may be cut, last first (`pop`
    /// takes from the end: the first actor's first op is tried first).
    fn new_pass(&mut self) {
        self.cut_this_pass = false;
        let held = self.waited_for();
        self.todo = self
            .alive
            .iter()
            .enumerate()
            .flat_map(|(a, ops)| ops.iter().map(move |&op| Slot { actor: a, op }))
            .filter(|s| !held.contains(s) && !self.is_wait(*s))
            .collect();
        self.todo.reverse();
    }

    fn original_op(&self, s: Slot) -> &Json {
        &ops(&actors(&self.original)[s.actor])[s.op]
    }

    fn is_wait(&self, s: Slot) -> bool {
        str_field(self.original_op(s), "op") == Some("wait_for")
    }

    /// The ops some `wait_for` waits for (by actor name and original index).
    fn waited_for(&self) -> Vec<Slot> {
        let names: Vec<Option<&str>> = actors(&self.original)
            .iter()
            .map(|a| str_field(a, "name"))
            .collect();
        let mut held = Vec::new();
        for (a, kept) in self.alive.iter().enumerate() {
            for &op in kept {
                let o = self.original_op(Slot { actor: a, op });
                if str_field(o, "op") != Some("wait_for") {
                    continue;
                }
                let (Some(name), Some(index)) = (str_field(o, "actor"), int_field(o, "index"))
                else {
                    continue;
                };
                if let Some(t) = names.iter().position(|n| *n == Some(name)) {
                    held.push(Slot {
                        actor: t,
                        op: usize::try_from(index).unwrap_or(usize::MAX),
                    });
                }
            }
        }
        held
    }

    /// The file without `s` (and without its actor when that was its last op),
    /// each `wait_for` on a later op of that actor renumbered.
    fn without(&self, s: Slot) -> Json {
        let mut tree = self.tree.clone();
        let actor_at = self.alive[..s.actor]
            .iter()
            .filter(|v| !v.is_empty())
            .count();
        let op_at = self.alive[s.actor]
            .iter()
            .position(|&o| o == s.op)
            .unwrap_or(0);
        let name = str_field(&actors(&self.original)[s.actor], "name").map(str::to_owned);
        let last = self.alive[s.actor].len() == 1;
        if let Some(Json::Arr(list)) = tree.get_mut("actors") {
            if last {
                list.remove(actor_at);
            } else if let Some(Json::Arr(o)) = list[actor_at].get_mut("ops") {
                o.remove(op_at);
            }
            for a in list.iter_mut() {
                let Some(Json::Arr(o)) = a.get_mut("ops") else {
                    continue;
                };
                for op in o.iter_mut() {
                    let waits_here = str_field(op, "op") == Some("wait_for")
                        && name.is_some()
                        && str_field(op, "actor") == name.as_deref();
                    match int_field(op, "index") {
                        Some(i) if waits_here && i > op_at as i64 => {
                            op.set("index", Json::Num((i - 1).into()));
                        }
                        _ => {}
                    }
                }
            }
        }
        tree
    }

    /// The scenario of `tree`, run as `base` is (its version and knobs); `None`
    /// when the checker refuses the file.
    fn scenario(&self, tree: &Json) -> Option<AnyScenario> {
        let mut sc = AnyScenario::parse(&json::text(tree), "cut").ok()?;
        if let Some(v) = self.base.header().version {
            sc.set_version(v).ok()?;
        }
        for k in self.base.knobs() {
            sc.set_knob(k.key, k.current).ok()?;
        }
        Some(sc)
    }

    /// Starts the next try: `Some(true)` when its search runs, `Some(false)` when
    /// the checker refused the smaller file, `None` when no try is left (or no
    /// budget).
    fn next_try(&mut self) -> Option<bool> {
        loop {
            if self.tries >= self.budget.tries || self.states >= self.budget.states {
                self.out_of_budget = !self.todo.is_empty() || self.cut_this_pass;
                self.todo.clear();
                return None;
            }
            let Some(slot) = self.todo.pop() else {
                if !self.cut_this_pass {
                    return None;
                }
                self.new_pass();
                continue;
            };
            self.tries += 1;
            let tree = self.without(slot);
            let Some(sc) = self.scenario(&tree) else {
                return Some(false);
            };
            let left = self.budget.states - self.states;
            let o = Options {
                max_states: self.o.max_states.min(left).max(1),
                ..self.o.clone()
            };
            let x = AnyExplorer::new(&sc, o);
            self.now = Some(Try { slot, tree, x });
            return Some(true);
        }
    }

    /// Judges the finished try: its cut stays when it found the violation.
    fn end_try(&mut self, t: Try) {
        let x = t.x.finish();
        self.states += x.states;
        if let Some(f) = x.violations.iter().find(|f| f.key == self.key) {
            self.tree = t.tree;
            self.alive[t.slot.actor].retain(|&o| o != t.slot.op);
            self.schedule = Some((f.schedule.clone(), f.steps));
            self.cut_this_pass = true;
        }
    }

    /// Goes on for about `transitions` model steps; true when done.
    pub fn run(&mut self, transitions: u64) -> bool {
        let mut left = transitions.max(1);
        loop {
            if self.now.is_none() {
                match self.next_try() {
                    None => return true,
                    // Reading and checking the file is a slice's work too (a big
                    // file refused many times must not hold the page).
                    Some(false) => {
                        left = left.saturating_sub(REFUSED_COST);
                        if left == 0 {
                            return false;
                        }
                        continue;
                    }
                    Some(true) => {}
                }
            }
            let Some(t) = self.now.as_mut() else {
                return true;
            };
            let before = t.x.progress().transitions;
            let done = t.x.run(left);
            let spent = t.x.progress().transitions.saturating_sub(before).max(1);
            if done {
                if let Some(t) = self.now.take() {
                    self.end_try(t);
                }
            }
            left = left.saturating_sub(spent);
            if left == 0 {
                return false;
            }
        }
    }

    /// Where it stands: tries made, and ops cut so far.
    pub fn progress(&self) -> (u32, u32) {
        let cut = self
            .alive
            .iter()
            .zip(actors(&self.original))
            .map(|(k, a)| ops(a).len() - k.len())
            .sum::<usize>();
        (self.tries, cut as u32)
    }

    /// Stops it; [`OpShrink::finish`] reports what was cut so far.
    pub fn cancel(&mut self) {
        self.now = None;
        self.out_of_budget = true;
        self.todo.clear();
    }

    pub fn finish(mut self) -> Cut {
        if let Some(t) = self.now.take() {
            self.states += t.x.progress().states;
            self.out_of_budget = true;
        }
        let mut lines = Vec::new();
        for (a, actor) in actors(&self.original).iter().enumerate() {
            let name =
                json::escape_unsafe(str_field(actor, "name").unwrap_or("?"), false).into_owned();
            for (i, op) in ops(actor).iter().enumerate() {
                lines.push(OpLine {
                    actor: name.clone(),
                    index: i as u32,
                    op: op_words(op),
                    cut: !self.alive[a].contains(&i),
                });
            }
        }
        let kept = lines.iter().filter(|l| !l.cut).count() as u32;
        let (schedule, steps) = self.schedule.clone().unwrap_or_default();
        Cut {
            ops: lines,
            kept,
            scenario: self.file(&schedule),
            schedule,
            steps,
            tries: self.tries,
            states: self.states,
            complete: !self.out_of_budget,
        }
    }

    /// The cut file: named `NAME-cut`, run at `base`'s version, its schedule
    /// embedded (when an op was cut; the original's otherwise stands).
    fn file(&self, schedule: &str) -> String {
        let mut tree = self.tree.clone();
        if schedule.is_empty() {
            return json::text(&tree);
        }
        let name = format!("{}-cut", self.base.header().name);
        if name.chars().count() <= 100 {
            tree.set("name", Json::Str(name));
        }
        if let Some(v) = self.base.header().version {
            tree.set("version", Json::Str(v.to_owned()));
        }
        let total: usize = actors(&self.original).iter().map(|a| ops(a).len()).sum();
        let kept: usize = self.alive.iter().map(Vec::len).sum();
        let note = format!(
            "FlushScope cut {} of the {total} ops of {} while {} still occurs; the schedule reaches it. ",
            total - kept,
            self.base.header().name,
            json::short(&self.key)
        );
        let was = match tree.get("description") {
            Some(Json::Str(d)) => format!("The original said: {d}"),
            _ => String::new(),
        };
        // The checker's limit on a description (8,000 characters).
        let description: String = format!("{note}{was}").chars().take(8_000).collect();
        tree.set("description", Json::Str(description));
        let entries = schedule
            .split(',')
            .map(|c| match c.parse::<u64>() {
                Ok(g) => Json::Num(g.into()),
                Err(_) => Json::Str(c.to_owned()),
            })
            .collect();
        tree.set("schedule", Json::Arr(entries));
        json::text(&tree)
    }
}
