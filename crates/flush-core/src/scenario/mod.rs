//! The scenario file format, the part every model shares: the header (name,
//! title, model, seed, step limit, schedule), the actors with their ops (each
//! model reads its own ops) and the `wait_for` op every model has; the limits; and
//! the refusals, each naming the file, line, column and JSON path.
//!
//! A model's own keys and ops are read by its `setup` module with the same
//! [`json::Node`] reader, so every message has the same form. The public format is
//! `docs/scenario-format.md`.

pub mod json;
pub mod locate;

use std::fmt;

use crate::sched::Choice;
use json::{Fields, Node, Res};
use locate::JsonPath;

/// Larger scenario files are refused before parsing.
pub const MAX_SCENARIO_BYTES: usize = 8 * 1024 * 1024;
/// Ops in all actors together.
pub const MAX_OPS: usize = 1_000_000;
/// The step limit when a scenario gives none.
pub const DEFAULT_MAX_STEPS: u32 = 2_000_000;
/// The largest step limit a scenario may ask for.
pub const MAX_MAX_STEPS: u32 = 50_000_000;
/// Actors in one scenario (actor indices are `u16`).
pub const MAX_ACTORS: usize = 10_000;
/// Entries of an embedded schedule.
pub const MAX_SCHEDULE: usize = 1_000_000;
/// Characters of a name shown on every trace line (scenario, actor, injection id).
pub const MAX_NAME_CHARS: usize = 100;
/// Characters of a scenario's title.
pub const MAX_TITLE_CHARS: usize = 200;
/// Characters of a scenario's description.
pub const MAX_DESCRIPTION_CHARS: usize = 8_000;

/// The keys of the header, which every model's scenario has.
pub const HEADER_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "model",
    "seed",
    "max_steps",
    "schedule",
    "actors",
];

/// What a model adds to the file format: its name, its top-level keys and its op
/// names. The registry lists every model's, so that a key or an op of another
/// model is refused with the model it belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    pub model: &'static str,
    /// The one Milvus commit a model without versions follows.
    pub fixed_at: Option<&'static str>,
    /// The Milvus versions a model can run at (the `version` key), if several.
    pub versions: &'static [VersionInfo],
    pub keys: &'static [&'static str],
    pub ops: &'static [&'static str],
    /// The most actors the model takes (at most [`MAX_ACTORS`]): a model whose
    /// step looks at every goroutine takes fewer, so a run stays within seconds.
    pub max_actors: usize,
}

/// The part of a checked scenario every model has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    pub name: String,
    pub title: String,
    pub description: String,
    /// The model's name as the file gives it (`flush-2021`).
    pub model: &'static str,
    /// The Milvus version modelled, for a model that has several.
    pub version: Option<&'static str>,
    pub seed: u64,
    pub max_steps: u32,
    /// A scripted schedule carried by the file (replayed by `--scripted`).
    pub schedule: Option<Vec<Choice>>,
}

/// A Milvus version a model can run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    /// The short commit the file and the command line name it by.
    pub id: &'static str,
    /// The full commit hash.
    pub commit: &'static str,
    /// The pull request that brought it.
    pub pr: &'static str,
    /// What it changed, in a sentence.
    pub summary: &'static str,
}

/// `wait_for`: block until actor `actor` has returned from its op `index`
/// (0-based). Every model has it: it is how a scenario says "after" (the flow
/// graph's delivery order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaitFor {
    pub actor: u16,
    pub index: u32,
}

/// A model's op type: it must carry `wait_for`.
pub trait ModelOp: Sized {
    fn wait_for(w: WaitFor) -> Self;
    fn as_wait_for(&self) -> Option<WaitFor>;
}

/// The first of `ops` from `pc` that is not a `wait_for` already passed (its
/// actor has returned from the op it waits on: `done[actor]` ops returned).
/// Every model passes such waits in the step of the op after them, so an
/// actor is ready when the op there is, and waits on what that op waits on.
#[inline]
pub fn past_waits<O: ModelOp>(ops: &[O], pc: usize, done: &[u32]) -> usize {
    let mut i = pc;
    while let Some(w) = ops.get(i).and_then(ModelOp::as_wait_for) {
        if done[w.actor as usize] <= w.index {
            break;
        }
        i += 1;
    }
    i
}

/// A goroutine of the scenario running its ops in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Actor<O> {
    pub name: String,
    pub ops: Vec<O>,
}

/// Why a scenario was refused: where (file, line, column, JSON path) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub path: Option<String>,
    pub message: String,
}

impl ScenarioError {
    /// A refusal of the whole file (no place in it).
    pub fn whole(file: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: file.to_owned(),
            line: None,
            column: None,
            path: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        f.write_str(": ")?;
        if let Some(p) = &self.path {
            write!(f, "{p}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

impl From<Box<ScenarioError>> for ScenarioError {
    fn from(b: Box<ScenarioError>) -> ScenarioError {
        *b
    }
}

/// Refuses an oversized text, then parses it into a tree.
pub fn parse_text(text: &str, file: &str) -> Res<json::Json> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(Box::new(ScenarioError::whole(
            file,
            format!(
                "the file is {} bytes; scenario files are limited to {} bytes",
                text.len(),
                MAX_SCENARIO_BYTES
            ),
        )));
    }
    Ok(json::parse(text, file)?)
}

/// The `model` a scenario names, checked against the known formats.
pub fn model_of<'f>(root: &Node, formats: &'f [Format]) -> Res<&'f Format> {
    let top = root.object("a scenario")?;
    let names: Vec<&str> = formats.iter().map(|f| f.model).collect();
    let model = top.req("model", "a scenario")?;
    let i = model.one_of("model", &names)?;
    Ok(&formats[i])
}

/// The top-level object of a scenario of model `me`: unknown keys are refused
/// (naming the model a key belongs to, if any), and the header is read.
pub fn header<'a, 't>(
    root: &Node<'a, 't>,
    me: &Format,
    formats: &[Format],
) -> Res<(Fields<'a, 't>, Header)> {
    let what = format!("a {} scenario", me.model);
    let top = root.object(&what)?;
    for key in top.keys() {
        if HEADER_KEYS.contains(&key) || me.keys.contains(&key) {
            continue;
        }
        let at = top.get(key).expect("a key of the object");
        if let Some(other) = formats.iter().find(|f| f.keys.contains(&key)) {
            return Err(at.err(format!(
                "\"{key}\" belongs to {} scenarios; this one is {}",
                other.model, me.model
            )));
        }
        let mut known: Vec<&str> = HEADER_KEYS.to_vec();
        known.extend(me.keys);
        return Err(at.err(format!(
            "unknown field \"{}\" in {what}; its fields are {}",
            json::short(key),
            known.join(", ")
        )));
    }
    let name = top
        .req("name", "a scenario")?
        .name("the scenario's name", MAX_NAME_CHARS, false)?;
    let text = |key: &str, max: usize, lines: bool| -> Res<Option<String>> {
        top.get(key)
            .map(|n| n.name(&format!("the {key}"), max, lines).map(str::to_owned))
            .transpose()
    };
    let max_steps = match top.get("max_steps") {
        Some(n) => n.int("the step limit", 1, i64::from(MAX_MAX_STEPS))? as u32,
        None => DEFAULT_MAX_STEPS,
    };
    let seed = match top.get("seed") {
        Some(n) => n.u64("the seed")?,
        None => 1,
    };
    let schedule = match top.get("schedule") {
        None => None,
        Some(n) => Some(schedule(&n)?),
    };
    let head = Header {
        name: name.to_owned(),
        title: text("title", MAX_TITLE_CHARS, false)?.unwrap_or_else(|| name.to_owned()),
        description: text("description", MAX_DESCRIPTION_CHARS, true)?.unwrap_or_default(),
        model: me.model,
        version: None,
        seed,
        max_steps,
        schedule,
    };
    Ok((top, head))
}

fn schedule(n: &Node) -> Res<Vec<Choice>> {
    let items = n.items("a schedule: goroutine numbers")?;
    if items.len() > MAX_SCHEDULE {
        return Err(n.err(format!(
            "{} schedule entries; the limit is {MAX_SCHEDULE}",
            items.len()
        )));
    }
    items
        .iter()
        .map(|item| {
            let parsed = match item.json {
                json::Json::Num(x) => x.as_u64().and_then(|g| u32::try_from(g).ok()).map(|g| Choice::new(g, 0)),
                json::Json::Str(s) => Choice::parse(s),
                _ => None,
            };
            parsed.ok_or_else(|| {
                item.err(format!(
                    "a schedule entry is a goroutine number (3) or goroutine.case (\"5.1\"), not {}",
                    schedule_entry(item.json)
                ))
            })
        })
        .collect()
}

/// A schedule entry that is none, in words ([`json::Json::describe`]); a
/// whole number past a goroutine's range says that range.
fn schedule_entry(j: &json::Json) -> String {
    let what = j.describe();
    let json::Json::Num(n) = j else {
        return what;
    };
    let too_big = n.as_u64().is_some() || n.as_f64().is_some_and(|f| f >= 1e15);
    match too_big {
        true => format!("{what}: a goroutine number is at most {}", u32::MAX),
        false => what,
    }
}

/// One op of an actor, for the model to read: its name and its object.
pub struct OpNode<'a, 't> {
    pub name: &'a str,
    pub node: Node<'a, 't>,
}

impl<'a, 't> OpNode<'a, 't> {
    /// The op's fields, which must be among `allowed` (besides `op`).
    pub fn fields(&self, allowed: &[&str]) -> Res<OpFields<'a, 't>> {
        let obj = self.node.object("an op")?;
        for key in obj.keys() {
            if key != "op" && !allowed.contains(&key) {
                let list = if allowed.is_empty() {
                    "none".to_owned()
                } else {
                    allowed.join(", ")
                };
                return Err(obj.get(key).expect("a key").err(format!(
                    "field \"{}\" does not apply to op {} (its fields: {list})",
                    json::short(key),
                    self.name
                )));
            }
        }
        Ok(OpFields {
            name: self.name,
            obj,
        })
    }
}

/// The fields of one op.
pub struct OpFields<'a, 't> {
    pub name: &'a str,
    pub obj: Fields<'a, 't>,
}

impl<'a, 't> OpFields<'a, 't> {
    /// A field the op needs.
    pub fn req(&self, key: &str) -> Res<Node<'a, 't>> {
        self.obj.get(key).ok_or_else(|| {
            self.obj
                .node()
                .err(format!("op {} needs \"{key}\"", self.name))
        })
    }
    /// A field the op may give.
    pub fn get(&self, key: &str) -> Option<Node<'a, 't>> {
        self.obj.get(key)
    }
    /// An optional `true`/`false` (false when absent).
    pub fn flag(&self, key: &str) -> Res<bool> {
        self.get(key).map_or(Ok(false), |n| n.bool(key))
    }
    /// The op's own node.
    pub fn node(&self) -> &Node<'a, 't> {
        self.obj.node()
    }
}

/// Reads `actors`: each actor's name and ops (`op` reads one op of the model),
/// then resolves and checks the `wait_for` ops. `me` is the model; other models'
/// ops are refused naming the model they belong to.
pub fn actors<O: ModelOp>(
    top: &Fields,
    me: &Format,
    formats: &[Format],
    mut op: impl FnMut(&OpNode) -> Res<O>,
) -> Res<Vec<Actor<O>>> {
    let list = top.req("actors", "a scenario")?;
    let items = list.items("the actors")?;
    if items.is_empty() {
        return Err(list.err("a scenario needs at least one actor"));
    }
    let limit = me.max_actors.min(MAX_ACTORS);
    if items.len() > limit {
        return Err(list.err(format!(
            "{} actors; the {} model takes up to {limit}",
            items.len(),
            me.model
        )));
    }
    let mut out = Vec::with_capacity(items.len());
    let mut names = Vec::with_capacity(items.len());
    let mut waits: Vec<(usize, usize, Node, Node)> = Vec::new();
    let mut total = 0usize;
    for (ai, item) in items.iter().enumerate() {
        let a = item.fields("an actor", &["name", "ops"])?;
        let name_node = a.req("name", "an actor")?;
        let name = name_node.name("the actor's name", MAX_NAME_CHARS, false)?;
        names.push((name, name_node));
        let ops_node = a.req("ops", "an actor")?;
        let op_items = ops_node.items("the actor's ops")?;
        total += op_items.len();
        if total > MAX_OPS {
            return Err(ops_node.err(format!("more than {MAX_OPS} ops in all; that is the limit")));
        }
        let mut ops = Vec::with_capacity(op_items.len());
        for (oi, o) in op_items.into_iter().enumerate() {
            match read_op(&o, me, formats, &mut op)? {
                Some(x) => ops.push(x),
                None => {
                    let f = OpNode {
                        name: "wait_for",
                        node: o.clone(),
                    }
                    .fields(&["actor", "index"])?;
                    waits.push((ai, oi, f.req("actor")?, f.req("index")?));
                    ops.push(O::wait_for(WaitFor {
                        actor: u16::MAX,
                        index: 0,
                    }));
                }
            }
        }
        out.push(Actor {
            name: name.to_owned(),
            ops,
        });
    }
    if let Some((name, node)) = first_duplicate(&names) {
        return Err(node.err(format!("two actors are named \"{}\"", json::short(name))));
    }
    resolve_waits(&mut out, waits)?;
    Ok(out)
}

/// Reads one op with the model's reader; `None` for a `wait_for` (read by the
/// caller). Another model's op is refused naming the model it belongs to.
fn read_op<O>(
    o: &Node,
    me: &Format,
    formats: &[Format],
    op: &mut impl FnMut(&OpNode) -> Res<O>,
) -> Res<Option<O>> {
    let obj = o.object("an op")?;
    let name_node = obj.req("op", "an op")?;
    let op_name = name_node.str("the op's name")?;
    if op_name == "wait_for" {
        return Ok(None);
    }
    if !me.ops.contains(&op_name) {
        let mut all = me.ops.to_vec();
        all.push("wait_for");
        let msg = match formats.iter().find(|f| f.ops.contains(&op_name)) {
            Some(other) => format!(
                "op {op_name} belongs to {} scenarios; {} ops are {}",
                other.model,
                me.model,
                all.join(", ")
            ),
            None => format!(
                "unknown op \"{}\"; {} ops are {}",
                json::short(op_name),
                me.model,
                all.join(", ")
            ),
        };
        return Err(name_node.err(msg));
    }
    op(&OpNode {
        name: op_name,
        node: o.clone(),
    })
    .map(Some)
}

/// The first name (in file order) that an earlier entry already has, with its node.
fn first_duplicate<'n, 'a, 't>(
    names: &'n [(&'a str, Node<'a, 't>)],
) -> Option<(&'a str, &'n Node<'a, 't>)> {
    let order = crate::order::order(names.len(), &|a, b| names[a].0.cmp(names[b].0));
    order
        .windows(2)
        .filter(|w| names[w[0]].0 == names[w[1]].0)
        .map(|w| w[1])
        .min()
        .map(|i| (names[i].0, &names[i].1))
}

/// Resolves the actor names of `wait_for` ops and refuses waits that can never
/// end: on the actor itself, on an op it does not have, or in a cycle.
fn resolve_waits<O: ModelOp>(
    actors: &mut [Actor<O>],
    waits: Vec<(usize, usize, Node, Node)>,
) -> Res<()> {
    let mut by_name: Vec<(&str, usize)> = actors
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.as_str(), i))
        .collect();
    crate::order::sort_by(&mut by_name, |a, b| a.cmp(b));
    let mut resolved = Vec::with_capacity(waits.len());
    for (ai, oi, actor, index) in &waits {
        let name = actor.str("the actor waited for")?;
        let Ok(found) = by_name.binary_search_by(|x| x.0.cmp(name)) else {
            let known: Vec<&str> = by_name.iter().map(|x| x.0).collect();
            return Err(actor.err(format!(
                "unknown actor \"{}\"; the actors are {}",
                json::short(name),
                known.join(", ")
            )));
        };
        let target = by_name[found].1;
        if target == *ai {
            return Err(
                actor.err("an actor cannot wait for one of its own ops: it runs them in order")
            );
        }
        let len = actors[target].ops.len();
        let i = index.int("the index of the op waited for", 0, i64::from(u32::MAX))? as usize;
        if i >= len {
            return Err(index.err(format!(
                "actor \"{}\" has {len} op(s) (indices 0 to {}), so op {i} never returns",
                json::short(name),
                len.saturating_sub(1)
            )));
        }
        resolved.push((*ai, *oi, target, i));
    }
    for &(ai, oi, target, i) in &resolved {
        actors[ai].ops[oi] = O::wait_for(WaitFor {
            actor: target as u16,
            index: i as u32,
        });
    }
    if let Some((ai, oi)) = wait_cycle(actors) {
        let (_, _, actor, _) = waits
            .iter()
            .find(|w| w.0 == ai && w.1 == oi)
            .expect("the op in a cycle is a wait_for");
        let op = JsonPath::root()
            .key("actors")
            .index(ai)
            .key("ops")
            .index(oi);
        return Err(actor.src.err(
            &op,
            "this wait_for is part of a cycle of waits (each actor waits for an op the other reaches only after its own wait): the run could never start it",
        ));
    }
    Ok(())
}

/// A `wait_for` op in a cycle of waits, if any: Kahn's algorithm over the ops
/// (program-order edges plus wait edges), in O(ops).
fn wait_cycle<O: ModelOp>(actors: &[Actor<O>]) -> Option<(usize, usize)> {
    let offsets: Vec<usize> = actors
        .iter()
        .scan(0, |acc, a| {
            let o = *acc;
            *acc += a.ops.len();
            Some(o)
        })
        .collect();
    let total: usize = actors.iter().map(|a| a.ops.len()).sum();
    let actor_of = |n: usize| offsets.partition_point(|o| *o <= n) - 1;
    let mut indeg = vec![0u32; total];
    // (op waited for, the waiting op), sorted by the first.
    let mut waiters: Vec<(usize, usize)> = Vec::new();
    for (ai, a) in actors.iter().enumerate() {
        for (oi, op) in a.ops.iter().enumerate() {
            let node = offsets[ai] + oi;
            if oi > 0 {
                indeg[node] += 1;
            }
            if let Some(w) = op.as_wait_for() {
                indeg[node] += 1;
                waiters.push((offsets[w.actor as usize] + w.index as usize, node));
            }
        }
    }
    crate::order::sort_by(&mut waiters, |a, b| a.cmp(b));
    let mut ready: Vec<usize> = (0..total).filter(|n| indeg[*n] == 0).collect();
    while let Some(n) = ready.pop() {
        let a = actor_of(n);
        let next = n + 1;
        if next < offsets[a] + actors[a].ops.len() {
            indeg[next] -= 1;
            if indeg[next] == 0 {
                ready.push(next);
            }
        }
        let from = waiters.partition_point(|x| x.0 < n);
        let to = waiters.partition_point(|x| x.0 <= n);
        for &(_, w) in &waiters[from..to] {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                ready.push(w);
            }
        }
    }
    (0..total)
        .filter(|n| indeg[*n] > 0)
        .map(|n| (actor_of(n), n - offsets[actor_of(n)]))
        .find(|&(a, o)| actors[a].ops[o].as_wait_for().is_some())
}

/// The path of op `oi` of actor `ai`, for messages about the whole scenario.
pub fn op_path(ai: usize, oi: usize) -> JsonPath {
    JsonPath::root()
        .key("actors")
        .index(ai)
        .key("ops")
        .index(oi)
}

/// `1, 2, 3`, or `none`.
pub fn join_ids(ids: impl IntoIterator<Item = i64>) -> String {
    let v: Vec<String> = ids.into_iter().map(|i| i.to_string()).collect();
    if v.is_empty() {
        "none".to_owned()
    } else {
        v.join(", ")
    }
}
