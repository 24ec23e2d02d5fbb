//! A flush-2021 scenario: the header, the injections (`taskInjection`s), the
//! datanode `Replica` at the start, injected RPC failures, and the actors' ops.
//! Reading and checking the file's flush-2021 part lives here too.

use crate::scenario::json::{Fields, Node, Res};
use crate::scenario::{self, op_path, Actor, Format, Header, ModelOp, OpNode, WaitFor};

/// The model's name in scenario files.
pub const MODEL: &str = "flush-2021";
/// The Milvus commit the model follows (the model has no other version).
pub const COMMIT: &str = "891c202b73";
/// Its full hash: a `--version` may give any prefix of 7+ characters of it.
pub const FULL_COMMIT: &str = "891c202b733a4d1471e0102c40df93a666036c4d";

/// The keys and ops a flush-2021 scenario adds to the header.
pub const FORMAT: Format = Format {
    model: MODEL,
    fixed_at: Some(COMMIT),
    versions: &[],
    keys: &["injections", "replica", "faults", "what_if"],
    ops: &[
        "flush_insert",
        "flush_delete",
        "inject",
        "wait_injected",
        "inject_done",
        "start_dropping",
        "notify_all_flushed",
        "close",
        "wait_notified",
    ],
    max_actors: crate::scenario::MAX_ACTORS,
};

/// `retry.Do`'s attempts (retry.Attempts(10) is the default at 891c202b73).
pub const RETRY_ATTEMPTS: u32 = 10;
/// `injectCh`'s capacity (`make(chan *taskInjection, 100)`).
pub const INJECT_CH_CAP: usize = 100;
/// Segments one injection may name.
const MAX_INJECTION_SEGMENTS: usize = 1000;
/// Injected failures per RPC.
const MAX_FAULTS: i64 = 1000;
/// Rows a Replica segment may start with.
const MAX_ROWS: i64 = 1_000_000_000_000;
/// A MsgID's length in characters.
const MAX_POS_LEN: usize = 64;

/// Index into [`Scenario::positions`] (MsgIDs are strings in the file).
pub type PosId = u32;
/// Index into [`Scenario::injections`].
pub type InjId = u16;

/// State of a segment in the 2021 datanode `Replica` (`newSegments`,
/// `normalSegments`, `flushedSegments`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReplicaState {
    New,
    Normal,
    Flushed,
}

impl ReplicaState {
    pub const ALL: [ReplicaState; 3] = [
        ReplicaState::New,
        ReplicaState::Normal,
        ReplicaState::Flushed,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            ReplicaState::New => "new",
            ReplicaState::Normal => "normal",
            ReplicaState::Flushed => "flushed",
        }
    }
}

/// A checked flush-2021 op.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    FlushInsert {
        segment: i64,
        pos: PosId,
        flushed: bool,
        dropped: bool,
        fail: u32,
    },
    FlushDelete {
        segment: i64,
        pos: PosId,
        fail: u32,
    },
    Inject {
        inj: InjId,
    },
    WaitInjected {
        inj: InjId,
    },
    InjectDone {
        inj: InjId,
        success: bool,
        /// The op ends a real `compactor.compact`: before `injectDone(true)` it
        /// edits the Replica (compactor.go:452-461 at 891c202b73). When the
        /// same actor injected `inj` before it, that `inject` is the
        /// compaction's start and checks the Replica first (:303-307, see
        /// `Scenario::compaction_end`). Go's tests call `injectDone` bare,
        /// without it.
        compacted: bool,
    },
    StartDropping,
    NotifyAllFlushed,
    Close,
    WaitNotified {
        count: u32,
    },
    /// Block until another actor has returned from one of its ops: the flow graph's
    /// delivery order (a node gets a message only after the node before it returned
    /// from `Operate`).
    WaitFor(WaitFor),
}

impl ModelOp for Op {
    fn wait_for(w: WaitFor) -> Op {
        Op::WaitFor(w)
    }
    fn as_wait_for(&self) -> Option<WaitFor> {
        match self {
            Op::WaitFor(w) => Some(*w),
            _ => None,
        }
    }
}

impl Op {
    /// The segment and position a flush op flushes.
    pub fn flush_target(&self) -> Option<(i64, PosId)> {
        match *self {
            Op::FlushInsert { segment, pos, .. } | Op::FlushDelete { segment, pos, .. } => {
                Some((segment, pos))
            }
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Op::FlushInsert { .. } => "flush_insert",
            Op::FlushDelete { .. } => "flush_delete",
            Op::Inject { .. } => "inject",
            Op::WaitInjected { .. } => "wait_injected",
            Op::InjectDone { .. } => "inject_done",
            Op::StartDropping => "start_dropping",
            Op::NotifyAllFlushed => "notify_all_flushed",
            Op::Close => "close",
            Op::WaitNotified { .. } => "wait_notified",
            Op::WaitFor(_) => "wait_for",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Injection {
    pub id: String,
    pub segments: Vec<i64>,
    /// `postInjection` rewrites `pack.segmentID` to this; `None` is a no-op function.
    pub remap_to: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaSegment {
    pub segment: i64,
    pub state: ReplicaState,
    pub rows: i64,
}

/// Injected RPC failures: the first `n` calls of each RPC fail.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Faults {
    pub save_binlog_paths: u32,
    pub drop_virtual_channel: u32,
}

/// Changes a reviewer may propose to the Go code at 891c202b73, each off by default
/// (the code as it is). They answer "would taking the lock fix the data race?".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WhatIf {
    /// `handleInjection` takes `q.injectMut` around `q.postInjection = ...`
    /// (fm:212): the handler then waits for the mutex after `<-injectOver`.
    pub handler_locks_sticky: bool,
    /// `waitForAllFlushQueue`'s goroutines read `queue.tailCh` under `q.tailMut`
    /// (fm:478); tailMut is only held within one step, so only the footprint changes.
    pub waiter_locks_tail: bool,
    /// `handleInjection` keeps the tail chain: it reads the old tail when it sets
    /// `q.tailCh = injectDone` (fm:205, under tailMut) and waits for it to close
    /// before `close(injectDone)` (fm:214), so a runner chained after the
    /// handler's injectDone still waits for every runner before it (no splice).
    pub handler_chains_tail: bool,
    /// `getFlushTaskRunner` is one critical section: a per-queue mutex taken before
    /// `working.LoadOrStore` (fm:121) and released when it returns (after fm:137),
    /// so runners join the tail chain in the order they were stored.
    pub runner_creation_locked: bool,
}

/// One what-if knob: its scenario key, what it changes, where, what "on" and
/// "off" do, and its field.
pub struct WhatIfKnob {
    pub key: &'static str,
    pub label: &'static str,
    pub go: &'static str,
    pub off: &'static str,
    pub on: &'static str,
    pub field: fn(&mut WhatIf) -> &mut bool,
}

/// Every what-if knob of flush-2021, in matrix order (the first varies fastest).
pub const WHAT_IFS: [WhatIfKnob; 4] = [
    WhatIfKnob {
        key: "handler_locks_sticky",
        label: "handleInjection takes injectMut to set postInjection",
        go: "flush_manager.go:212@891c202b73",
        off: "handleInjection sets q.postInjection with no lock (fm:212), as in 891c202b73.",
        on: "handleInjection takes q.injectMut around q.postInjection = ... (fm:212), after <-injectOver.",
        field: |w| &mut w.handler_locks_sticky,
    },
    WhatIfKnob {
        key: "waiter_locks_tail",
        label: "waitForAllFlushQueue reads the tail under tailMut",
        go: "flush_manager.go:478@891c202b73",
        off: "waitForAllFlushQueue's goroutines read queue.tailCh with no lock (fm:478), as in 891c202b73.",
        on: "waitForAllFlushQueue's goroutines read queue.tailCh under q.tailMut (fm:478).",
        field: |w| &mut w.waiter_locks_tail,
    },
    WhatIfKnob {
        key: "handler_chains_tail",
        label: "The inject handler chains the old tail",
        go: "flush_manager.go:205-214@891c202b73",
        off: "handleInjection sets q.tailCh = injectDone and closes it when the injection ends (fm:205, fm:214), as in 891c202b73: runners chained before it are spliced out.",
        on: "handleInjection keeps the old tail and waits for it before close(injectDone) (fm:205, fm:214): no runner is spliced out of the chain.",
        field: |w| &mut w.handler_chains_tail,
    },
    WhatIfKnob {
        key: "runner_creation_locked",
        label: "Runner creation and chaining are one critical section",
        go: "flush_manager.go:121-137@891c202b73",
        off: "getFlushTaskRunner stores the runner (fm:121) and chains it to the tail (fm:135-136) in separate steps, as in 891c202b73.",
        on: "getFlushTaskRunner holds a per-queue mutex from working.LoadOrStore (fm:121) to the end of chaining (fm:137): runners chain in the order they were stored.",
        field: |w| &mut w.runner_creation_locked,
    },
];

impl WhatIf {
    /// The knobs that are on, by their scenario keys.
    pub fn names(&self) -> Vec<&'static str> {
        let mut w = *self;
        WHAT_IFS
            .iter()
            .filter(|k| *(k.field)(&mut w))
            .map(|k| k.key)
            .collect()
    }

    /// Knob `key`'s field, or what is wrong.
    pub fn knob(&mut self, key: &str) -> Result<&mut bool, String> {
        let k = WHAT_IFS.iter().find(|k| k.key == key).ok_or_else(|| {
            format!(
                "the flush-2021 model has no knob \"{}\"; it has {}",
                scenario::json::short(key),
                WHAT_IFS.map(|k| k.key).join(", ")
            )
        })?;
        Ok((k.field)(self))
    }
}

/// A checked flush-2021 scenario: the model (`&self` of [`crate::engine::Model`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scenario {
    pub head: Header,
    /// Interned MsgIDs, in first-appearance order.
    pub positions: Vec<String>,
    pub injections: Vec<Injection>,
    pub replica: Vec<ReplicaSegment>,
    pub faults: Faults,
    pub what_if: WhatIf,
    pub actors: Vec<Actor<Op>>,
}

impl Scenario {
    pub fn pos_name(&self, p: PosId) -> &str {
        &self.positions[p as usize]
    }
    pub fn inj_name(&self, i: InjId) -> &str {
        &self.injections[i as usize].id
    }

    /// Reads a flush-2021 scenario from its JSON tree (`formats`: every model's,
    /// to name the model a foreign key or op belongs to).
    pub fn read(root: &Node, formats: &[Format]) -> Res<Scenario> {
        if let Some(v) = root.object("a scenario")?.get("version") {
            return Err(v.err(format!(
                "\"version\" applies to models with several versions; flush-2021 is fixed at {COMMIT}"
            )));
        }
        let (top, head) = scenario::header(root, &FORMAT, formats)?;
        let mut sc = Scenario {
            head,
            positions: Vec::new(),
            injections: injections(&top)?,
            replica: replica(&top)?,
            faults: faults(&top)?,
            what_if: what_if(&top)?,
            actors: Vec::new(),
        };
        let mut seen: Vec<String> = Vec::new();
        let injections = &sc.injections;
        sc.actors = scenario::actors(&top, &FORMAT, formats, |o| {
            read_op(o, injections, &mut seen)
        })?;
        sc.intern_positions(seen);
        sc.check_whole(top.node())?;
        sc.check_compactions(top.node())?;
        Ok(sc)
    }

    /// The ops carry the index of their position in `seen` (every op's MsgID, in
    /// file order): make them indices into `positions`, each MsgID once, in
    /// first-appearance order.
    fn intern_positions(&mut self, seen: Vec<String>) {
        let order: Vec<u32> = crate::order::order(seen.len(), &|a, b| seen[a].cmp(&seen[b]))
            .into_iter()
            .map(|i| i as u32)
            .collect();
        // The first occurrence of each MsgID, and every occurrence's first.
        let mut first = vec![0u32; seen.len()];
        let mut firsts = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            let new = k == 0 || seen[order[k - 1] as usize] != seen[i as usize];
            let f = if new { i } else { first[order[k - 1] as usize] };
            first[i as usize] = f;
            if new {
                firsts.push(f);
            }
        }
        crate::order::sort_by(&mut firsts, u32::cmp);
        let id_of_first = |f: u32| firsts.binary_search(&f).unwrap_or(0) as PosId;
        self.positions = firsts.iter().map(|f| seen[*f as usize].clone()).collect();
        for op in self.actors.iter_mut().flat_map(|a| a.ops.iter_mut()) {
            if let Op::FlushInsert { pos, .. } | Op::FlushDelete { pos, .. } = op {
                *pos = id_of_first(first[*pos as usize]);
            }
        }
    }

    /// When actor `actor`'s `inject` of `inj` at `pc` starts a compaction, the
    /// index of its compacted `inject_done` of `inj`, later in the same actor:
    /// the actor stands for `compactionTask.compact`, which checks the Replica
    /// before it injects (compactor.go:303-307 at 891c202b73). `None` for an
    /// injection Go's tests make by hand (no compacted `inject_done`), or
    /// finished by another actor.
    pub fn compaction_end(&self, actor: u16, pc: u32, inj: InjId) -> Option<u32> {
        let ops = &self.actors[actor as usize].ops;
        let after = ops.get(pc as usize + 1..)?;
        let k = after.iter().position(
            |op| matches!(op, Op::InjectDone { inj: i, compacted: true, .. } if *i == inj),
        )?;
        Some(pc + 1 + k as u32)
    }

    /// An `inject_done` with `compacted` stands for the end of a successful
    /// `compactor.compact`, which always remaps: its injection's postInjection
    /// sets `pack.segmentID = targetSegID` (compactor.go:310-312 at 891c202b73)
    /// and `injectDone(true)` comes after the Replica edit (:452-463); a
    /// failed compaction returns before it (`defer close(ti.injectOver)`, :313).
    fn check_compacted(&self, inj: InjId, success: bool, compacted: bool) -> Result<(), String> {
        if !compacted {
            return Ok(());
        }
        let name = self.inj_name(inj);
        if !success {
            return Err(format!(
                "\"compacted\": true needs \"success\": true: a compaction that fails returns before it edits the Replica (compactor.go:452-463), and injection \"{name}\" fails here"
            ));
        }
        if self.injections[inj as usize].remap_to.is_none() {
            return Err(format!(
                "\"compacted\": true needs a \"remap_to\" on injection \"{name}\": compactor.compact always remaps packs to its target segment (compactor.go:310-312), which the Replica edit adds"
            ));
        }
        Ok(())
    }

    /// An actor with a compacted `inject_done` and its injection's `inject`
    /// stands for one `compactionTask.compact`: it injects first (compactor.go:315
    /// at 891c202b73), then only waits until `injectDone` (:316-463), and skips
    /// all of that when its start check fails (:303-307). So the `inject` comes
    /// before the `inject_done`, and only waits (`wait_injected`, `wait_for`,
    /// `wait_notified`) come between them. Some actor injects it, and the
    /// actor waits for it (`wait_injected`, :316) before the `inject_done`. An
    /// injection injected by another actor (as a test may call injectFlush)
    /// makes no start check.
    fn check_compactions(&self, root: &Node) -> Res<()> {
        let err = |ai, oi, msg: String| root.src.err(&op_path(ai, oi), msg);
        for (ai, a) in self.actors.iter().enumerate() {
            for (d, op) in a.ops.iter().enumerate() {
                let Op::InjectDone {
                    inj,
                    compacted: true,
                    ..
                } = *op
                else {
                    continue;
                };
                let name = self.inj_name(inj);
                let at = |i| matches!(a.ops[i], Op::Inject { inj: j } if j == inj);
                let injects = |o: &Op| matches!(o, Op::Inject { inj: j } if *j == inj);
                if !self.actors.iter().any(|b| b.ops.iter().any(injects)) {
                    return Err(err(ai, d, format!(
                        "inject_done of \"{name}\" has \"compacted\": true, but no actor injects \"{name}\": compactionTask.compact injects (compactor.go:315) before it calls injectDone (:463)"
                    )));
                }
                // Back to its own inject, if it made one: the wait is after it.
                let waited = (0..d)
                    .rev()
                    .take_while(|&i| !at(i))
                    .any(|i| matches!(a.ops[i], Op::WaitInjected { inj: j } if j == inj));
                if !waited {
                    return Err(err(ai, d, format!(
                        "inject_done of \"{name}\" has \"compacted\": true, but its actor does not wait_injected \"{name}\" before it: compactionTask.compact waits on <-ti.Injected() (compactor.go:316) before it compacts and edits the Replica (:452-463)"
                    )));
                }
                if let Some(i) = (d + 1..a.ops.len()).find(|&i| at(i)) {
                    return Err(err(ai, d, format!(
                        "inject_done of \"{name}\" has \"compacted\": true, but its inject comes after it, at {}: compactionTask.compact injects (compactor.go:315) before it calls injectDone (:463)",
                        op_path(ai, i)
                    )));
                }
                let Some(i) = (0..d).find(|&i| at(i)) else {
                    continue;
                };
                let waits = |o: &Op| {
                    matches!(
                        o,
                        Op::WaitInjected { .. } | Op::WaitFor(_) | Op::WaitNotified { .. }
                    )
                };
                if let Some(k) = (i + 1..d).find(|&k| !waits(&a.ops[k])) {
                    return Err(err(ai, k, format!(
                        "op {} comes between the inject of \"{name}\" ({}) and its compacted inject_done ({}): compactionTask.compact only waits between injectFlush and injectDone (compactor.go:316-463), and returns before all of them when the Replica lacks its first segment (:303-307); give this op to another actor",
                        a.ops[k].name(),
                        op_path(ai, i),
                        op_path(ai, d)
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks that need the whole scenario: each injection is injected and finished
    /// at most once, drop mode starts once, barriers can be reached.
    fn check_whole(&self, root: &Node) -> Res<()> {
        // Per injection: where it was finished, where it was injected.
        let mut done_seen: Vec<Option<(usize, usize)>> = vec![None; self.injections.len()];
        let mut inject_seen = done_seen.clone();
        let mut start_dropping = None;
        let mut packs_possible = 0u64;
        let err = |ai, oi, msg: String| root.src.err(&op_path(ai, oi), msg);
        for (ai, a) in self.actors.iter().enumerate() {
            for (oi, op) in a.ops.iter().enumerate() {
                match op {
                    Op::InjectDone {
                        inj,
                        success,
                        compacted,
                    } => {
                        self.check_compacted(*inj, *success, *compacted)
                            .map_err(|m| err(ai, oi, m))?;
                        if let Some((a0, o0)) = done_seen[*inj as usize].replace((ai, oi)) {
                            return Err(err(ai, oi, format!(
                                "injection \"{}\" is already finished at {}: a second injectDone would close or fill injectOver twice",
                                self.inj_name(*inj),
                                op_path(a0, o0)
                            )));
                        }
                    }
                    Op::Inject { inj } => {
                        if let Some((a0, o0)) = inject_seen[*inj as usize].replace((ai, oi)) {
                            return Err(err(ai, oi, format!(
                                "injection \"{}\" is already injected at {}: a second injectFlush of one taskInjection would call injectOne more often than its WaitGroup allows (Go panics: negative WaitGroup counter)",
                                self.inj_name(*inj),
                                op_path(a0, o0)
                            )));
                        }
                    }
                    Op::StartDropping => {
                        if let Some((a0, o0)) = start_dropping.replace((ai, oi)) {
                            return Err(err(ai, oi, format!(
                                "start_dropping is already called at {}; the flow graph calls it once",
                                op_path(a0, o0)
                            )));
                        }
                    }
                    Op::FlushInsert { .. } | Op::FlushDelete { .. } => packs_possible += 1,
                    _ => {}
                }
            }
        }
        for (ai, a) in self.actors.iter().enumerate() {
            for (oi, op) in a.ops.iter().enumerate() {
                if let Op::WaitNotified { count } = op {
                    if u64::from(*count) > packs_possible {
                        return Err(root.src.err(
                            &op_path(ai, oi).key("count"),
                            format!("count {count} can never be reached: the scenario has only {packs_possible} flush ops"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn injections(top: &Fields) -> Res<Vec<Injection>> {
    let Some(node) = top.get("injections") else {
        return Ok(Vec::new());
    };
    let entries = node.entries("the injections, by id")?;
    if entries.len() > usize::from(u16::MAX) {
        return Err(node.err("too many injections"));
    }
    let mut out: Vec<Injection> = Vec::with_capacity(entries.len());
    for (id, n) in entries {
        scenario::json::check_name(id, "an injection id", scenario::MAX_NAME_CHARS, false)
            .map_err(|m| n.err(m))?;
        let f = n.fields("an injection", &["segments", "remap_to"])?;
        let segs_node = f.req("segments", "an injection")?;
        let items = segs_node.items("the segments it compacts")?;
        if items.is_empty() {
            return Err(segs_node.err(format!("injection \"{id}\" lists no segments")));
        }
        if items.len() > MAX_INJECTION_SEGMENTS {
            return Err(segs_node.err(format!(
                "an injection may name at most {MAX_INJECTION_SEGMENTS} segments"
            )));
        }
        let mut segments = Vec::with_capacity(items.len());
        for item in items {
            let s = item.i64("a segment id")?;
            // At most MAX_INJECTION_SEGMENTS: a scan is fine.
            if segments.contains(&s) {
                return Err(item.err(format!(
                    "injection \"{id}\" lists segment {s} twice; injectFlush takes distinct segments"
                )));
            }
            segments.push(s);
        }
        let remap_to = f
            .get("remap_to")
            .map(|n| n.i64("the segment it remaps packs to"))
            .transpose()?;
        out.push(Injection {
            id: id.to_owned(),
            segments,
            remap_to,
        });
    }
    // Sorted by id, so that an injection's index does not depend on the file's key order.
    crate::order::sort_by(&mut out, |a, b| a.id.cmp(&b.id));
    Ok(out)
}

fn replica(top: &Fields) -> Res<Vec<ReplicaSegment>> {
    let Some(node) = top.get("replica") else {
        return Ok(Vec::new());
    };
    let mut out: Vec<(ReplicaSegment, Node, usize)> = Vec::new();
    for (index, item) in node
        .items("the Replica's segments")?
        .into_iter()
        .enumerate()
    {
        let f = item.fields("a Replica segment", &["segment", "state", "rows"])?;
        let seg_node = f.req("segment", "a Replica segment")?;
        let segment = seg_node.i64("a segment id")?;
        let names: Vec<&str> = ReplicaState::ALL.iter().map(|s| s.as_str()).collect();
        let state = ReplicaState::ALL[f
            .req("state", "a Replica segment")?
            .one_of("Replica state", &names)?];
        let rows = match f.get("rows") {
            Some(n) => n.int("rows", 0, MAX_ROWS)?,
            None => 0,
        };
        out.push((
            ReplicaSegment {
                segment,
                state,
                rows,
            },
            seg_node,
            index,
        ));
    }
    // Sorted once; a segment listed twice is refused where it comes the second time.
    if let Some(i) = crate::order::sort_find_repeat(&mut out, |x| x.0.segment, |x| x.2) {
        let segment = out[i].0.segment;
        return Err(out[i]
            .1
            .err(format!("segment {segment} is in the replica twice")));
    }
    Ok(out.into_iter().map(|x| x.0).collect())
}

fn faults(top: &Fields) -> Res<Faults> {
    let Some(node) = top.get("faults") else {
        return Ok(Faults::default());
    };
    let f = node.fields(
        "the injected RPC failures",
        &["save_binlog_paths", "drop_virtual_channel"],
    )?;
    let n = |key: &str| -> Res<u32> {
        f.get(key).map_or(Ok(0), |n| {
            n.int("failures of the first calls", 0, MAX_FAULTS)
                .map(|v| v as u32)
        })
    };
    Ok(Faults {
        save_binlog_paths: n("save_binlog_paths")?,
        drop_virtual_channel: n("drop_virtual_channel")?,
    })
}

fn what_if(top: &Fields) -> Res<WhatIf> {
    let mut w = WhatIf::default();
    let Some(node) = top.get("what_if") else {
        return Ok(w);
    };
    let f = node.fields("the proposed changes", &WHAT_IFS.map(|k| k.key))?;
    for k in &WHAT_IFS {
        if let Some(n) = f.get(k.key) {
            *(k.field)(&mut w) = n.bool("on or off")?;
        }
    }
    Ok(w)
}

/// Reads one op; a position becomes its index in `seen` (see `intern_positions`).
fn read_op(o: &OpNode, injections: &[Injection], seen: &mut Vec<String>) -> Res<Op> {
    let inj = |f: &scenario::OpFields| -> Res<InjId> {
        let n = f.req("id")?;
        let id = n.str("an injection id")?;
        injections
            .iter()
            .position(|i| i.id == id)
            .map(|i| i as InjId)
            .ok_or_else(|| {
                let known: Vec<&str> = injections.iter().map(|i| i.id.as_str()).collect();
                n.err(format!(
                    "unknown injection \"{}\"; declared injections: {}",
                    scenario::json::short(id),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ))
            })
    };
    let fail = |f: &scenario::OpFields| -> Res<u32> {
        let Some(n) = f.get("fail") else {
            return Ok(0);
        };
        let v = n.int("failed attempts", 0, i64::from(u32::MAX))?;
        if v > i64::from(RETRY_ATTEMPTS) {
            return Err(n.err(format!(
                "fail is {v}, but retry.Do makes only {RETRY_ATTEMPTS} attempts; use {RETRY_ATTEMPTS} for a final failure"
            )));
        }
        Ok(v as u32)
    };
    let mut pos = |f: &scenario::OpFields| -> Res<PosId> {
        let n = f.req("pos")?;
        let s = n.name("a position (MsgID)", MAX_POS_LEN, false)?;
        seen.push(s.to_owned());
        Ok((seen.len() - 1) as PosId)
    };
    let segment = |f: &scenario::OpFields| f.req("segment")?.i64("a segment id");
    Ok(match o.name {
        "flush_insert" => {
            let f = o.fields(&["segment", "pos", "flushed", "dropped", "fail"])?;
            Op::FlushInsert {
                segment: segment(&f)?,
                pos: pos(&f)?,
                flushed: f.flag("flushed")?,
                dropped: f.flag("dropped")?,
                fail: fail(&f)?,
            }
        }
        "flush_delete" => {
            let f = o.fields(&["segment", "pos", "fail"])?;
            Op::FlushDelete {
                segment: segment(&f)?,
                pos: pos(&f)?,
                fail: fail(&f)?,
            }
        }
        "inject" => {
            if let Some(n) = o.node.object("an op")?.get("compacted") {
                return Err(n.err(
                    "\"compacted\" does not apply to op inject: mark the compaction's inject_done with \"compacted\": true, and the inject of its injection in the same actor, before it, checks the Replica first (compactor.go:303-307)",
                ));
            }
            Op::Inject {
                inj: inj(&o.fields(&["id"])?)?,
            }
        }
        "wait_injected" => Op::WaitInjected {
            inj: inj(&o.fields(&["id"])?)?,
        },
        "inject_done" => {
            let f = o.fields(&["id", "success", "compacted"])?;
            Op::InjectDone {
                inj: inj(&f)?,
                success: f.req("success")?.bool("whether the compaction succeeded")?,
                compacted: match f.get("compacted") {
                    Some(n) => n.bool("whether the compactor's Replica edit runs")?,
                    None => false,
                },
            }
        }
        "start_dropping" => {
            o.fields(&[])?;
            Op::StartDropping
        }
        "notify_all_flushed" => {
            o.fields(&[])?;
            Op::NotifyAllFlushed
        }
        "close" => {
            o.fields(&[])?;
            Op::Close
        }
        "wait_notified" => {
            let f = o.fields(&["count"])?;
            let count = f
                .req("count")?
                .int("packs notified", 1, scenario::MAX_OPS as i64)?;
            Op::WaitNotified {
                count: count as u32,
            }
        }
        other => unreachable!("op {other} is not in FORMAT.ops"),
    })
}

/// A generated scenario by name: `pairs-N`, N from 1 to 20000 (pairs-14500 runs
/// about 100,000 steps).
pub fn generated(name: &str) -> Option<Scenario> {
    let n = crate::builtin::count(name.strip_prefix("pairs-")?)?;
    PAIRS.contains(&n).then(|| pairs(n))
}

/// The sizes `pairs-N` comes in.
pub const PAIRS: std::ops::RangeInclusive<u32> = 1..=20_000;

/// `n` insert/delete pairs on segment 1 from two actors (the insert node and the
/// delete node, which gets each position after the insert node returned from it, as
/// the flow graph delivers), with a compaction injected every 100 pairs: the shape
/// of TestRendezvousFlushManager_Inject, scaled. Used by the benchmarks and the
/// browser's step-latency figure.
pub fn pairs(n: u32) -> Scenario {
    let mut ins = Vec::new();
    let mut del = Vec::new();
    let mut comp = Vec::new();
    let mut injections = Vec::new();
    for i in 0..n {
        ins.push(Op::FlushInsert {
            segment: 1,
            pos: i,
            flushed: i % 10 == 9,
            dropped: false,
            fail: 0,
        });
        del.push(Op::WaitFor(WaitFor {
            actor: 0,
            index: ins.len() as u32 - 1,
        }));
        del.push(Op::FlushDelete {
            segment: 1,
            pos: i,
            fail: 0,
        });
        if i % 100 == 50 {
            let id = injections.len() as u16;
            injections.push(Injection {
                id: format!("c{id}"),
                segments: vec![1],
                remap_to: None,
            });
            ins.push(Op::Inject { inj: id });
            comp.push(Op::WaitInjected { inj: id });
            comp.push(Op::InjectDone {
                inj: id,
                success: true,
                compacted: false,
            });
        }
    }
    let mut actors = vec![
        Actor {
            name: "insert-node".into(),
            ops: ins,
        },
        Actor {
            name: "delete-node".into(),
            ops: del,
        },
    ];
    if !comp.is_empty() {
        actors.push(Actor {
            name: "compactor".into(),
            ops: comp,
        });
    }
    Scenario {
        head: Header {
            name: format!("pairs-{n}"),
            title: format!("{n} flush pairs on one queue, with compactions"),
            description: format!(
                "The insert node and the delete node flush segment 1 at {n} positions (the delete node after the insert node, as the flow graph delivers); a compaction is injected every 100 positions. A long, busy run for scrubbing and for timing the stepper."
            ),
            model: MODEL,
            version: None,
            seed: 1,
            max_steps: scenario::DEFAULT_MAX_STEPS,
            schedule: None,
        },
        positions: (0..n).map(|i| format!("m{i}")).collect(),
        injections,
        replica: Vec::new(),
        faults: Faults::default(),
        what_if: WhatIf::default(),
        actors,
    }
}
