//! Shrinking a scenario, after its schedule: cut actors' ops while the same
//! violation still occurs, so a reviewer reads the fewest ops that show it.
//!
//! Ops go in units: alone, or with the ops the model says belong with them
//! ([`CutGroup`]: a flush's two halves, an injection's three calls, a segment's
//! insert, seal and sync), since a file with half of such a unit shows a run
//! the Go callers never make. Each try removes one unit from the scenario file
//! (the JSON tree, so the model's own checker judges the result: a file it
//! refuses is not tried) and searches the smaller scenario breadth first for
//! the same violation: the same invariant, the same panic message, or a
//! deadlock with the same goroutines waiting at the same points. A try that
//! finds it keeps the cut, and its shortest schedule; one that does not puts
//! the unit back. Passes go on until a pass cuts nothing, or the budget is
//! spent; a try that a budget stopped before it found anything makes the cut
//! incomplete (it says so), not "needed".
//!
//! Never cut: `wait_for` ops, the ops they wait for, and ops the model calls
//! barriers. They order the others; without them a violation could come from
//! an order the Go code rules out.
//!
//! Resumable, like the search: [`OpShrink::run`] goes on for a number of model
//! steps and returns, so the page cuts in slices between frames.

use serde::Serialize;

use super::{deadlock_key, Found, Options, Order, Stopped};
use crate::engine::{CutGroup, OutcomeKind};
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
    /// The scenario file with the cut ops gone (the original when none went),
    /// at the version and knobs explored, a shortest schedule to the violation
    /// (shrunk instead when the try went on depth first) embedded (`flushscope
    /// run FILE --scripted` replays it).
    pub scenario: String,
    /// That schedule.
    pub schedule: String,
    pub steps: u32,
    /// Tries made (the first searches the file as it is, for the schedule),
    /// those the checker refused, and the states their searches visited.
    pub tries: u32,
    pub refused: u32,
    pub states: u64,
    /// Ops that may not go (waits, what they wait for, barriers).
    pub held: u32,
    /// False when a budget ended the shrink, or stopped a try before it found
    /// anything: more ops may go.
    pub complete: bool,
    /// Why the ops were not cut at all, if they were not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// How the smaller scenario breaks, where its message is not the
    /// finding's: the same invariant, of another segment say, once the ops
    /// of the first one went (found by a helper attacking the page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
}

impl Cut {
    /// The cut for the CLI's text: which ops went, and the schedule of the rest.
    pub fn text(&self) -> String {
        if let Some(why) = &self.skipped {
            return format!("  ops: not cut: {why}\n");
        }
        let total = self.ops.len();
        let gone = total - self.kept as usize;
        let mut notes = vec![format!("{} tries", self.tries)];
        if self.refused > 0 {
            notes.push(format!("{} refused by the checker", self.refused));
        }
        if self.held > 0 {
            notes.push(format!(
                "{} held: waits, what they wait for, barriers",
                self.held
            ));
        }
        let more = if self.complete {
            ""
        } else {
            "; a budget ran out: more may go"
        };
        let notes = notes.join(", ");
        if gone == 0 {
            return format!("  ops: none of the {total} was cut ({notes}){more}\n");
        }
        let mut s = format!(
            "  ops: {gone} of {total} cut ({notes}){more}; the {} left reach it in {}: {}\n",
            self.kept,
            crate::report::steps_words(self.steps),
            self.schedule
        );
        if let Some(now) = &self.now {
            s.push_str(&format!("    the smaller scenario breaks it as: {now}\n"));
        }
        for l in self.ops.iter().filter(|l| l.cut) {
            s.push_str(&format!("    cut {} op {}: {}\n", l.actor, l.index, l.op));
        }
        s.push_str(
            "    (the smaller scenario, its schedule embedded: --json, \"cut\".\"scenario\")\n",
        );
        s
    }
}

/// The budgets of a shrink (of one violation).
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
    /// The CLI's budgets for each violation: a try as big as the search that
    /// found it (at least 20,000 states, at most 1 M), at most 200 tries and
    /// 3 M states in all.
    pub fn cli(found_in: u64, bytes: u64) -> CutBudget {
        CutBudget {
            per_try: found_in.clamp(20_000, 1_000_000),
            states: 3_000_000,
            tries: 200,
            bytes,
        }
    }
}

/// Ops a file may have for its ops to be cut (each try reads the whole file).
pub const MAX_CUT_OPS: usize = 2_000;
/// What a try costs [`OpShrink::run`]'s steps for reading and checking its
/// file: a step per this many bytes (a big file must not hold the page).
const BYTES_A_STEP: usize = 64;

/// Ops that go together: (actor, op) in the original file.
type Unit = Vec<(usize, usize)>;

/// A try in progress: the unit it cuts (none: the first try, of the file as it
/// is, for a shortest schedule to this very violation), its search.
struct Try {
    unit: Option<usize>,
    x: AnyExplorer,
}

/// A shrink in progress.
pub struct OpShrink {
    base: AnyScenario,
    /// The key the tries look for (a deadlock's with who waits where).
    key: String,
    o: Options,
    budget: CutBudget,
    original: Json,
    /// Per original actor, per op: still in the file.
    alive: Vec<Vec<bool>>,
    /// The units that may go.
    units: Vec<Unit>,
    /// Units not tried yet in this pass (popped from the end).
    todo: Vec<usize>,
    cut_this_pass: bool,
    now: Option<Try>,
    schedule: (String, u32),
    /// The finding's message, and that of the violation the kept cut shows.
    message: (String, String),
    tries: u32,
    refused: u32,
    states: u64,
    held: u32,
    incomplete: bool,
    /// The file as it is was searched (see [`Try`]).
    baseline: bool,
}

fn actors(tree: &Json) -> &[Json] {
    tree.arr("actors")
}

fn ops(actor: &Json) -> &[Json] {
    actor.arr("ops")
}

fn str_field<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    match v.get(key) {
        Some(Json::Str(s)) => Some(s),
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
            let k = json::escape_unsafe(&json::short(k), false).into_owned();
            s.push_str(&format!(" {k}={v}"));
        }
    }
    s
}

/// The (actor, op) a `wait_for` op waits for, if it names one.
fn waited_op(original: &Json, op: &Json) -> Option<(usize, usize)> {
    if str_field(op, "op") != Some("wait_for") {
        return None;
    }
    let name = str_field(op, "actor")?;
    let a = actors(original)
        .iter()
        .position(|a| str_field(a, "name") == Some(name))?;
    let Some(Json::Num(i)) = op.get("index") else {
        return None;
    };
    Some((a, usize::try_from(i.as_u64()?).ok()?))
}

/// The units of `original` that may go, and how many ops are held.
fn units_of(base: &AnyScenario, original: &Json) -> (Vec<Unit>, u32) {
    let mut held = Vec::new();
    for actor in actors(original) {
        for op in ops(actor) {
            held.extend(waited_op(original, op));
        }
    }
    // (group, its ops, whether one of them must stay)
    let mut groups: Vec<(Option<String>, Unit, bool)> = Vec::new();
    for (a, actor) in actors(original).iter().enumerate() {
        for (i, op) in ops(actor).iter().enumerate() {
            let stays = held.contains(&(a, i)) || str_field(op, "op") == Some("wait_for");
            let (group, never) = match base.cut_group(op) {
                CutGroup::Alone => (None, false),
                CutGroup::With(g) => (Some(g), false),
                CutGroup::Never => (None, true),
            };
            match groups.iter_mut().find(|g| group.is_some() && g.0 == group) {
                Some(g) => {
                    g.1.push((a, i));
                    g.2 |= stays || never;
                }
                None => groups.push((group, vec![(a, i)], stays || never)),
            }
        }
    }
    let held = groups
        .iter()
        .filter(|g| g.2)
        .map(|g| g.1.len() as u32)
        .sum();
    let units = groups.into_iter().filter(|g| !g.2).map(|g| g.1).collect();
    (units, held)
}

impl OpShrink {
    /// A shrink of `text` (the file `base` was read from; `base` may run it at
    /// another version or with other knobs: every try does too) for the
    /// violation `found`, searched as `o` says (breadth first, this violation
    /// only). Refused, with why, when the file cannot be cut.
    pub fn new(
        text: &str,
        base: &AnyScenario,
        found: &Found,
        o: &Options,
        budget: CutBudget,
    ) -> Result<OpShrink, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let original = json::parse(text, "cut").map_err(|e| e.to_string())?;
        let alive: Vec<Vec<bool>> = actors(&original)
            .iter()
            .map(|a| vec![true; ops(a).len()])
            .collect();
        let n: usize = alive.iter().map(Vec::len).sum();
        if n > MAX_CUT_OPS {
            return Err(format!(
                "the file has {n} ops; the cut tries them one at a time, up to {MAX_CUT_OPS}"
            ));
        }
        let (units, held) = units_of(base, &original);
        let detail = found.kind == OutcomeKind::Deadlock;
        let key = if detail {
            deadlock_key(&found.message)
        } else {
            found.key.clone()
        };
        let o = Options {
            order: Order::Bfs,
            all: false,
            // Breadth first gives a shortest schedule; a try whose queue filled
            // half its memory goes on depth first, and what it finds there is
            // shrunk (a try starts at the file's initial state).
            shrink: true,
            target: Some(key.clone()),
            max_states: budget.per_try,
            max_bytes: budget.bytes,
            threads: 1,
            detail_deadlocks: detail,
            ..o.clone()
        };
        let mut s = OpShrink {
            base: base.clone(),
            key,
            o,
            budget,
            original,
            alive,
            todo: Vec::new(),
            units,
            cut_this_pass: true,
            now: None,
            schedule: (found.schedule.clone(), found.steps),
            message: (found.message.clone(), found.message.clone()),
            tries: 0,
            refused: 0,
            states: 0,
            held,
            incomplete: false,
            baseline: false,
        };
        s.new_pass();
        Ok(s)
    }

    /// Queues every unit still in the file, the first tried first.
    fn new_pass(&mut self) {
        self.cut_this_pass = false;
        self.todo = (0..self.units.len())
            .filter(|&u| self.units[u].iter().all(|&(a, i)| self.alive[a][i]))
            .rev()
            .collect();
    }

    /// The file with the ops of `alive`: an actor with none left (that had
    /// some) is gone, each `wait_for` renumbered to the op it waited for.
    fn tree(&self, alive: &[Vec<bool>]) -> Json {
        let mut tree = self.original.clone();
        let index = |a: usize, i: usize| alive[a][..i].iter().filter(|&&x| x).count();
        let mut list = Vec::new();
        for (a, actor) in actors(&self.original).iter().enumerate() {
            if !alive[a].is_empty() && !alive[a].iter().any(|&x| x) {
                continue;
            }
            let mut kept = Vec::new();
            let here = ops(actor).iter().enumerate().filter(|(i, _)| alive[a][*i]);
            for (_, op) in here {
                let mut op = op.clone();
                if let Some((t, j)) = waited_op(&self.original, &op) {
                    op.set("index", Json::Num((index(t, j) as u64).into()));
                }
                kept.push(op);
            }
            let mut actor = actor.clone();
            actor.set("ops", Json::Arr(kept));
            list.push(actor);
        }
        tree.set("actors", Json::Arr(list));
        tree
    }

    /// `alive` without unit `u`.
    fn without(&self, u: Option<usize>) -> Vec<Vec<bool>> {
        let mut alive = self.alive.clone();
        for &(a, i) in u.map_or(&[][..], |u| &self.units[u]) {
            alive[a][i] = false;
        }
        alive
    }

    /// The scenario of `tree`, run as `base` is (its version and knobs); `None`
    /// when the checker refuses the file.
    fn scenario(&self, text: &str) -> Option<AnyScenario> {
        let mut sc = AnyScenario::parse(text, "cut").ok()?;
        if let Some(v) = self.base.header().version {
            sc.set_version(v).ok()?;
        }
        for k in self.base.knobs() {
            sc.set_knob(k.key, k.current).ok()?;
        }
        Some(sc)
    }

    /// Starts the next try: `Some(cost)` (in steps) when one was made, its
    /// search running unless the checker refused its file; `None` when no try
    /// is left or the budget is spent.
    fn next_try(&mut self) -> Option<u64> {
        if self.todo.is_empty() && self.cut_this_pass {
            self.new_pass();
        }
        let spent = self.tries >= self.budget.tries || self.states >= self.budget.states;
        if spent && !self.todo.is_empty() {
            self.incomplete = true;
        }
        if spent {
            return None;
        }
        let unit = if self.baseline {
            Some(self.todo.pop()?)
        } else {
            self.baseline = true;
            None
        };
        self.tries += 1;
        let text = json::compact(&self.tree(&self.without(unit)));
        let cost = (text.len() / BYTES_A_STEP) as u64;
        let Some(sc) = self.scenario(&text) else {
            self.refused += 1;
            return Some(cost);
        };
        let left = self.budget.states - self.states;
        let o = Options {
            max_states: self.o.max_states.min(left).max(1),
            ..self.o.clone()
        };
        let x = AnyExplorer::new(&sc, o);
        self.now = Some(Try { unit, x });
        Some(cost)
    }

    /// Judges the finished try: its cut stays when it found the violation; a
    /// try a budget stopped first leaves the cut incomplete.
    fn end_try(&mut self, t: Try) {
        let x = t.x.finish();
        self.states += x.states;
        if let Some(f) = x.violations.iter().find(|f| f.key == self.key) {
            self.alive = self.without(t.unit);
            self.schedule = (f.schedule.clone(), f.steps);
            self.message.1.clone_from(&f.message);
            self.cut_this_pass |= t.unit.is_some();
        } else if t.unit.is_some() && (x.truncated || x.stopped != Stopped::Exhausted) {
            self.incomplete = true;
        }
    }

    /// Goes on for about `transitions` model steps (reading a try's file counts
    /// too); true when done.
    pub fn run(&mut self, transitions: u64) -> bool {
        let mut left = transitions.max(1);
        loop {
            if self.now.is_none() {
                let Some(cost) = self.next_try() else {
                    return true;
                };
                left = left.saturating_sub(cost);
            }
            if let Some(t) = self.now.as_mut() {
                let before = t.x.progress().transitions;
                let done = t.x.run(left.max(1));
                let spent = t.x.progress().transitions.saturating_sub(before).max(1);
                left = left.saturating_sub(spent);
                if done {
                    if let Some(t) = self.now.take() {
                        self.end_try(t);
                    }
                }
            }
            if left == 0 {
                return false;
            }
        }
    }

    /// Where it stands: tries made, and ops cut so far.
    pub fn progress(&self) -> (u32, u32) {
        let cut = self.alive.iter().flatten().filter(|&&x| !x).count();
        (self.tries, cut as u32)
    }

    /// Stops it; [`OpShrink::finish`] reports what was cut so far.
    pub fn cancel(&mut self) {
        if let Some(t) = self.now.take() {
            self.states += t.x.progress().states;
        }
        self.incomplete = true;
        self.todo.clear();
        self.cut_this_pass = false;
    }

    pub fn finish(mut self) -> Cut {
        if self.now.is_some() || !self.todo.is_empty() || self.cut_this_pass {
            self.cancel();
        }
        let mut lines = Vec::new();
        for (a, actor) in actors(&self.original).iter().enumerate() {
            let name = json::escape_unsafe(str_field(actor, "name").unwrap_or("?"), false);
            for (i, op) in ops(actor).iter().enumerate() {
                lines.push(OpLine {
                    actor: name.clone().into_owned(),
                    index: i as u32,
                    op: op_words(op),
                    cut: !self.alive[a][i],
                });
            }
        }
        let kept = lines.iter().filter(|l| !l.cut).count() as u32;
        let gone = lines.len() - kept as usize;
        Cut {
            ops: lines,
            kept,
            scenario: self.file(gone),
            schedule: self.schedule.0.clone(),
            steps: self.schedule.1,
            tries: self.tries,
            refused: self.refused,
            states: self.states,
            held: self.held,
            complete: !self.incomplete,
            skipped: None,
            // Only a smaller file breaks it: the first try searches the file
            // as it is, and may reach the invariant by another path.
            now: Some(self.message.1).filter(|m| gone > 0 && *m != self.message.0),
        }
    }

    /// The cut file: at `base`'s version and knobs, its schedule embedded;
    /// when ops went, named `NAME-cut` with a note ahead of its description.
    /// Indented when small, on one line when big.
    fn file(&self, gone: usize) -> String {
        let mut tree = self.tree(&self.alive);
        if let Some(v) = self.base.header().version {
            tree.set("version", Json::Str(v.to_owned()));
        }
        if let Some((key, entries)) = self.base.knob_entries() {
            tree.remove(key);
            if !entries.is_empty() {
                tree.set(key, Json::Obj(entries));
            }
        }
        let entries = self
            .schedule
            .0
            .split(',')
            .filter(|c| !c.is_empty())
            .map(|c| match c.parse::<u64>() {
                Ok(g) => Json::Num(g.into()),
                Err(_) => Json::Str(c.to_owned()),
            })
            .collect();
        tree.set("schedule", Json::Arr(entries));
        // A step limit below the schedule would stop its replay short.
        if let Some(Json::Num(m)) = tree.get("max_steps") {
            if m.as_u64().is_some_and(|m| m < u64::from(self.schedule.1)) {
                tree.set("max_steps", Json::Num(self.schedule.1.into()));
            }
        }
        if gone > 0 {
            self.name_it(&mut tree, gone);
        }
        let text = json::text(&tree);
        if text.len() > SMALL_FILE {
            json::compact(&tree) + "\n"
        } else {
            text
        }
    }

    /// `NAME-cut`, and a note ahead of the description.
    fn name_it(&self, tree: &mut Json, gone: usize) {
        let total: usize = self.alive.iter().map(Vec::len).sum();
        let name = format!("{}-cut", self.base.header().name);
        if name.chars().count() <= 100 {
            tree.set("name", Json::Str(name));
        }
        let note = format!(
            "FlushScope cut {gone} of the {total} ops of {} while {} still occurs; the schedule reaches it. ",
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
    }
}

/// A cut file up to this size is indented; a bigger one is written on one line.
const SMALL_FILE: usize = 256 * 1024;

/// A cut that was not made, and why (no op listed).
pub fn not_cut(why: String) -> Cut {
    Cut {
        ops: Vec::new(),
        kept: 0,
        scenario: String::new(),
        schedule: String::new(),
        steps: 0,
        tries: 0,
        refused: 0,
        states: 0,
        held: 0,
        complete: false,
        skipped: Some(why),
        now: None,
    }
}
