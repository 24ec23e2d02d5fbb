//! The flush-2021 model as front ends show it: the JSON summary, the stage (a
//! lane per orderFlushQueue with its inject handler, runners in tail-chain order,
//! tail arrows and injection tokens; the drop panel; the notify stream; the
//! Replica), the figures, and what datacoord observes. Reads the world and the
//! facts; the model never calls in here.

use serde::Serialize;

use super::*;
use crate::engine::Run;
use crate::explore::{end_word, Observe};
use std::rc::Rc;

use crate::view::*;

/// The latest notified packs shown (the count shows them all).
const MAX_PACKS: usize = 30;
/// Queued injections drawn under a lane's handler.
const MAX_QUEUED_TOKENS: usize = 6;
/// Runner boxes drawn per lane. Every runner of a datanode-sized run is drawn (a few
/// dozen at most); a scenario that keeps more alive at once gets the first ones and
/// a badge counting the rest, so the page stays responsive on any input.
pub const MAX_BOXES: usize = 300;

/// Flush queues drawn as lanes. A datanode-sized run has a few; a scenario
/// of thousands (one flush pair per segment) drew every one at every step and
/// took seconds a step in the page.
pub const MAX_LANES: usize = 24;

/// The queues drawn, in their order: all of them, or past [`MAX_LANES`] the
/// first but one, and the queue of the goroutine `who` that took the step (an
/// actor's: the first queue its step's `facts` name; the next queue when
/// the step is no queue's).
fn drawn_queues<'w>(
    w: &'w World,
    who: Option<&Who>,
    facts: &[Ev],
) -> impl Iterator<Item = &'w Queue> {
    let segment = match who {
        Some(
            Who::Runner { segment, .. }
            | Who::Half { segment, .. }
            | Who::Handler { segment }
            | Who::TailWaiter { segment },
        ) => Some(*segment),
        _ => facts.iter().find_map(Ev::segment),
    };
    let own = segment.and_then(|s| w.queues.iter().position(|q| q.segment == s));
    let all = w.queues.len() <= MAX_LANES;
    let own = own.filter(|&i| i >= MAX_LANES).unwrap_or(MAX_LANES - 1);
    w.queues
        .iter()
        .enumerate()
        .filter(move |&(i, _)| all || i < MAX_LANES - 1 || i == own)
        .map(|(_, q)| q)
}

/// A Replica segment at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaJson {
    pub segment: i64,
    pub state: &'static str,
    pub rows: i64,
    pub checkpoint: Option<String>,
}

/// `notified`, `drop_packs` and `replica` of the `--json` report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Packs in notify order (SaveBinlogPaths succeeded), segment after any remap.
    pub notified: Vec<NamedPack>,
    /// The packs given to flushAndDrop, or null.
    pub drop_packs: Option<Vec<NamedPack>>,
    pub replica: Vec<ReplicaJson>,
}

/// Every pack notified in the recorded run, with the step that notified it: the
/// one scan of the facts that the report, the page and the explorer share.
pub fn notified(run: &Run<Scenario>) -> impl Iterator<Item = (u32, &super::Pack)> {
    run.records().iter().flat_map(move |rec| {
        run.events_of(rec).iter().filter_map(move |e| match e {
            Ev::Notified { pack, .. } => Some((rec.step, pack)),
            _ => None,
        })
    })
}

impl Present for Scenario {
    type Summary = Summary;

    fn stage(&self, run: &Run<Scenario>, figures: &Figures) -> Stage {
        let w = run.world();
        let cursor = run.cursor();
        let facts = run.record(cursor).map_or(&[][..], |r| run.events_of(r));
        let live = live_halves(w);
        Stage {
            class: "stage-flush",
            empty: w.queues.is_empty().then(|| {
                "No flush queue yet: the first flush or injection of a segment creates one (getFlushQueue).".to_owned()
            }),
            lanes: drawn_queues(w, run.record(cursor).map(|r| &r.who), facts)
                .map(|q| Rc::new(lane(w, self, q, &live)))
                .collect(),
            more_lanes: (w.queues.len() > MAX_LANES).then(|| {
                let n = w.queues.len() - MAX_LANES;
                format!(
                    "{n} more flush queue{} not drawn: {MAX_LANES} are, the first ones and the queue this step acts on",
                    if n == 1 { "" } else { "s" },
                )
            }),
            rows: vec![
                vec![
                    Rc::new(drop_panel(w, self, &live)),
                    Rc::new(notify_panel(&figures.stream, cursor)),
                ],
                vec![Rc::new(replica_panel(w, self, &changed_segments(facts)))],
            ],
        }
    }

    fn figures(&self, run: &Run<Scenario>) -> Figures {
        let titles = [
            "Tasks running per queue",
            "Packs notified (SaveBinlogPaths)",
            "Injection wait",
        ];
        let plots = sample(run, &titles, |w, out| {
            for q in &w.queues {
                out.push((0, format!("queue {}", q.segment), f64::from(q.running)));
            }
            out.push((1, "packs notified".into(), f64::from(w.notified)));
            let held = w
                .goroutines
                .iter()
                .filter(|g| {
                    matches!(
                        g.role,
                        Role::Runner {
                            at: RunnerAt::WaitInjectOver { .. },
                            ..
                        } | Role::Handler {
                            at: HandlerAt::Handling { .. },
                            ..
                        }
                    )
                })
                .count();
            out.push((
                2,
                "injections held (waiting on injectOver)".into(),
                held as f64,
            ));
        });
        let waits = injection_waits(self, run);
        Figures {
            len: run.len(),
            plots,
            stream: notified(run)
                .map(|(step, p)| (step, NamedPack::of(self, p).to_string()))
                .collect(),
            notes: (!waits.is_empty())
                .then(|| {
                    format!(
                        "Injection waits (steps from injectOne to the injectOver answer): {}",
                        waits.join(", ")
                    )
                })
                .into_iter()
                .collect(),
        }
    }

    fn about(&self) -> String {
        let mut s = format!("Model: flush-2021, Milvus's rendezvousFlushManager at {} (internal/datanode/flush_manager.go, flush_task.go). Every step names the Go function it models.", setup::COMMIT);
        let proposed = self.what_if.names();
        if !proposed.is_empty() {
            s.push_str(&format!(
                " Proposed changes, not in Milvus (docs/scenario-format.md, what_if): {}; the steps they change say \"proposed\".",
                proposed.join(", ")
            ));
        }
        s
    }

    fn legend(&self) -> &'static str {
        "Each lane is one orderFlushQueue. Boxes are flushTaskRunners in tail-chain order; the arrow from a box points at the signal it waits on before it may notify (orange: still open, green: closed). The diamond is an injection (compaction): in the injectCh row while queued, on the handler or a runner while held."
    }

    fn summary(&self, run: &Run<Scenario>) -> Summary {
        let w = run.head();
        Summary {
            notified: notified(run).map(|(_, p)| NamedPack::of(self, p)).collect(),
            drop_packs: w
                .drop
                .flush_and_drop
                .as_ref()
                .map(|ps| ps.iter().map(|p| NamedPack::of(self, p)).collect()),
            replica: w
                .replica
                .iter()
                .map(|s| ReplicaJson {
                    segment: s.segment,
                    state: s.state.as_str(),
                    rows: s.rows,
                    checkpoint: s.checkpoint.map(|p| self.pos_name(p).to_owned()),
                })
                .collect(),
        }
    }
}

/// `2/a+f`: a pack as the conformance harness prints it (`nil` for a
/// position-less drop-mode delete pack; `+f`, `+d`, `+e` for flushed, dropped, err).
fn pack_word(sc: &Scenario, p: &Pack) -> String {
    let mut s = format!("{}/{}", p.segment, p.pos.map_or("nil", |x| sc.pos_name(x)));
    for (on, tag) in [(p.flushed, "+f"), (p.dropped, "+d"), (p.err, "+e")] {
        if on {
            s.push_str(tag);
        }
    }
    s
}

/// What datacoord sees of a flush-2021 run: the packs SaveBinlogPaths receives in
/// order (`N=`), the packs flushAndDrop gets (`D=`, `-` if never called), and how
/// the run ended (`E=`).
impl Observe for Scenario {
    const OBSERVES: bool = true;
    fn observed(&self, f: &Ev) -> Option<String> {
        match f {
            Ev::Notified { pack, .. } => Some(pack_word(self, pack)),
            _ => None,
        }
    }
    fn end_observed(&self, w: &World) -> String {
        let d = match &w.drop.flush_and_drop {
            Some(ps) => ps
                .iter()
                .map(|p| pack_word(self, p))
                .collect::<Vec<_>>()
                .join(" "),
            None => "-".to_owned(),
        };
        format!("D={d} | E={}", end_word(self, w))
    }
}

// ----- the stage ------------------------------------------------------------------

/// Where each live half goroutine stands: (runner, kind) → its point.
fn live_halves(w: &World) -> Vec<((RunnerId, HalfKind), HalfAt)> {
    let mut v: Vec<_> = w
        .goroutines
        .iter()
        .filter_map(|g| match g.role {
            Role::Half {
                runner, kind, at, ..
            } => Some(((runner, kind), at)),
            _ => None,
        })
        .collect();
    crate::order::sort_by_key(&mut v, |x| x.0);
    v
}

/// One half of a runner as a pill: absent, trying, retrying, done or failed.
fn half_pill(r: &Runner, kind: HalfKind, live: &[((RunnerId, HalfKind), HalfAt)]) -> Pill {
    let label = match kind {
        HalfKind::Insert => "ins",
        HalfKind::Delete => "del",
    };
    let (set, err) = match kind {
        HalfKind::Insert => (r.insert_set, r.insert_err),
        HalfKind::Delete => (r.delete_set, r.delete_err),
    };
    let at = live
        .binary_search_by_key(&(r.id, kind), |x| x.0)
        .ok()
        .map(|i| live[i].1);
    let (class, text) = match at {
        _ if !set => ("absent", format!("{label} —")),
        Some(HalfAt::Attempt { n }) => ("running", format!("{label} try {n}")),
        Some(HalfAt::RetrySleep { n }) => ("retrying", format!("{label} retry {n}")),
        None if err => ("failed", format!("{label} ✗ err")),
        None => ("done", format!("{label} ✓")),
    };
    Pill { label, text, class }
}

/// What a runner's waitFinish is doing, in words, with its state class.
fn runner_status(w: &World, sc: &Scenario, r: &Runner) -> (String, &'static str) {
    let at = r
        .goroutine
        .and_then(|g| w.goroutine(g))
        .and_then(|g| match g.role {
            Role::Runner { at, .. } => Some(at),
            _ => None,
        });
    match at {
        None => ("not chained yet".to_owned(), "pending"),
        Some(RunnerAt::WaitHalves) => (format!("B1: {} half(s) to finish", r.wg), "wait"),
        Some(RunnerAt::WaitStart) => ("B2 waits on its start signal".to_owned(), "wait"),
        Some(RunnerAt::WaitInjectOver { inj }) => (
            format!("B3 holds {}: injectOver?", sc.inj_name(inj)),
            "holding",
        ),
        Some(RunnerAt::PostTaskDelete { .. }) => {
            ("postTask: working.Delete next".to_owned(), "wait")
        }
        Some(RunnerAt::PostTaskLock { .. }) => ("postTask waits for injectMut".to_owned(), "wait"),
        Some(RunnerAt::PostTaskSticky { .. } | RunnerAt::PostTaskApply) => {
            ("postTask holds injectMut".to_owned(), "wait")
        }
        Some(RunnerAt::SaveBinlogPaths { n }) => (format!("B14 SaveBinlogPaths #{n}"), "notifying"),
    }
}

/// The runners of a queue in tail-chain order (what decides the notify order);
/// runners stored in `working` but not chained yet come last, in creation order.
fn chain_order(w: &World, segment: i64) -> Vec<&Runner> {
    let mut runners: Vec<&Runner> = w
        .runners
        .iter()
        .filter(|r| r.segment == segment && r.adhoc.is_none())
        .collect();
    // (`seq` is unique within a queue.)
    crate::order::sort_by_key(&mut runners, |r| (r.chain.is_none(), r.chain, r.seq));
    runners
}

fn runner_box(
    w: &World,
    sc: &Scenario,
    r: &Runner,
    live: &[((RunnerId, HalfKind), HalfAt)],
) -> ChainBox {
    let (status, class) = runner_status(w, sc, r);
    let pos = sc.pos_name(r.pos).to_owned();
    let chained = r.chain.map_or("not in the tail chain yet".to_owned(), |c| {
        format!("#{c} in the tail chain")
    });
    let g = r.goroutine.map(|g| format!(" · g{g}")).unwrap_or_default();
    let mut data = vec![("data-pos", pos.clone())];
    data.extend(r.goroutine.map(|g| ("data-g", g.to_string())));
    ChainBox {
        key: format!("r{}", r.id),
        class,
        data,
        tooltip: format!(
            "flushTaskRunner seg={} pos={pos} (#{} in creation order, {chained}){}",
            r.segment,
            r.seq,
            r.goroutine
                .map(|g| format!(", waitFinish goroutine g{g}"))
                .unwrap_or_default()
        ),
        title: format!("pos={pos}"),
        subtitle: format!("runner #{}{g}", r.seq),
        pills: vec![
            half_pill(r, HalfKind::Insert, live),
            half_pill(r, HalfKind::Delete, live),
        ],
        status,
        extra: r
            .pack
            .map(|p| p.segment)
            .filter(|s| *s != r.segment)
            .map(|to| format!("pack → segment {to}")),
    }
}

/// The arrow from box `i` (runner `r`) to what its start signal is.
fn tail_arrow(w: &World, sc: &Scenario, q: &Queue, runners: &[&Runner], i: usize) -> Option<Arrow> {
    let r = runners[i];
    let start = r.start?;
    let handler_g = q.handler.map(|h| h.goroutine);
    let to = match start.origin {
        SigOrigin::Runner { chain, pos, .. } => {
            match runners.iter().position(|p| p.chain == Some(chain)) {
                Some(j) => ArrowTo::Box(j),
                None => ArrowTo::Label(format!("pos={} ✓", sc.pos_name(pos))),
            }
        }
        SigOrigin::InjectDone { handler }
            if Some(handler) == handler_g && w.goroutine(handler).is_some() =>
        {
            ArrowTo::Slot
        }
        SigOrigin::InjectDone { .. } => ArrowTo::Label("injectDone ✓".to_owned()),
        SigOrigin::QueueInit => ArrowTo::Label("init ✓".to_owned()),
    };
    Some(Arrow {
        from: i,
        to,
        closed: w.is_closed(start.id),
        data: vec![("data-tail-of", sc.pos_name(r.pos).to_owned())],
    })
}

fn lane(w: &World, sc: &Scenario, q: &Queue, live: &[((RunnerId, HalfKind), HalfAt)]) -> Lane {
    let mut runners = chain_order(w, q.segment);
    let hidden = runners.len().saturating_sub(MAX_BOXES);
    runners.truncate(MAX_BOXES);
    let (hwords, hclass) = handler_words(w, sc, q);
    let holder = token_holder(w, sc, q.segment);
    let mut tokens = Vec::new();
    for (i, r) in runners.iter().enumerate() {
        let at = r.goroutine.and_then(|g| w.goroutine(g)).map(|g| g.role);
        if let Some(Role::Runner {
            at: RunnerAt::WaitInjectOver { inj },
            ..
        }) = at
        {
            let holder = format!("runner pos={}", sc.pos_name(r.pos));
            tokens.push(held_token(sc, inj, q.segment, TokenAt::Box(i), &holder));
        }
    }
    if let Some(Role::Handler {
        at: HandlerAt::Handling { inj, .. },
        ..
    }) = q
        .handler
        .and_then(|h| w.goroutine(h.goroutine))
        .map(|g| g.role)
    {
        tokens.push(held_token(
            sc,
            inj,
            q.segment,
            TokenAt::Slot,
            "the inject handler",
        ));
    }
    for (i, inj) in q.inject_ch.iter().enumerate().take(MAX_QUEUED_TOKENS) {
        let name = sc.inj_name(*inj);
        tokens.push(Token {
            key: format!("tok-{name}-{}", q.segment),
            label: name.to_owned(),
            at: TokenAt::Queued(i),
            class: "queued",
            tooltip: format!("{name} queued in injectCh"),
        });
    }
    let chain = Chain {
        slot: Slot {
            class: hclass,
            title: "inject handler".to_owned(),
            lines: vec![
                hwords.clone(),
                "queue tail:".to_owned(),
                tail_words(w, sc, q),
            ],
            data: q
                .handler
                .map(|h| vec![("data-g", h.goroutine.to_string())])
                .unwrap_or_default(),
        },
        boxes: runners
            .iter()
            .map(|r| Rc::new(runner_box(w, sc, r, live)))
            .collect(),
        arrows: (0..runners.len())
            .filter_map(|i| tail_arrow(w, sc, q, &runners, i))
            .collect(),
        tokens,
    };
    Lane {
        key: format!("queue-{}", q.segment),
        title: format!("queue {}", q.segment),
        data: vec![
            ("data-segment", q.segment.to_string()),
            ("data-running", q.running.to_string()),
            ("data-handler", hclass.to_owned()),
            ("data-holder", holder.clone()),
        ],
        badges: lane_badges(sc, q, hwords, hclass, holder, hidden),
        body: LaneBody::Chain(chain),
    }
}

fn lane_badges(
    sc: &Scenario,
    q: &Queue,
    hwords: String,
    hclass: &'static str,
    holder: String,
    hidden: usize,
) -> Vec<Badge> {
    let queued = if q.inject_ch.is_empty() {
        "empty".to_owned()
    } else {
        q.inject_ch
            .iter()
            .map(|i| sc.inj_name(*i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let post = q.post_inj.map_or("none".to_owned(), |p| {
        let to = sc.injections[p as usize]
            .remap_to
            .map(|t| format!(" → {t}"))
            .unwrap_or_default();
        format!("{}{to}", sc.inj_name(p))
    });
    let mut badges = vec![
        Badge::new("running", q.running, "running"),
        Badge::new("inject handler", hwords, hclass),
        Badge::new("injectCh", queued, "injectch"),
        Badge::new("postInjection", post, "postinj"),
    ];
    if !holder.is_empty() {
        badges.push(Badge::new("injection held by", holder, "holder"));
    }
    if hidden > 0 {
        badges.push(Badge::new("runners not drawn", hidden, "more"));
    }
    badges
}

/// The token of an injection held (injectOne done, waiting on injectOver).
fn held_token(sc: &Scenario, inj: InjId, segment: i64, at: TokenAt, holder: &str) -> Token {
    let name = sc.inj_name(inj);
    Token {
        key: format!("tok-{name}-{segment}"),
        label: name.to_owned(),
        at,
        class: "held",
        tooltip: format!("{name} is held by {holder} (injectOne done; waiting on injectOver)"),
    }
}

/// The inject handler of a queue in words, and its state class.
fn handler_words(w: &World, sc: &Scenario, q: &Queue) -> (String, &'static str) {
    let alive = q
        .handler
        .and_then(|h| w.goroutine(h.goroutine).map(|g| (h, g)));
    match alive {
        None if q.handler.is_some() => ("stopped (close)".into(), "stopped"),
        None => (format!("none: {} task(s) running", q.running), "none"),
        Some((h, g)) => match g.role {
            Role::Handler {
                at: HandlerAt::Handling { inj, .. },
                ..
            } => (
                format!("g{} handling {} (B6)", h.goroutine, sc.inj_name(inj)),
                "handling",
            ),
            Role::Handler {
                at: HandlerAt::WaitOldTail { inj, .. },
                ..
            } => (
                format!(
                    "g{} waits for the old tail after {} (proposed)",
                    h.goroutine,
                    sc.inj_name(inj)
                ),
                "handling",
            ),
            _ if h.done => (format!("g{} closing (done closed)", h.goroutine), "closing"),
            _ => (format!("g{} idle in select (B5)", h.goroutine), "idle"),
        },
    }
}

fn tail_words(w: &World, sc: &Scenario, q: &Queue) -> String {
    let Some(tail) = q.tail else {
        return "nil (init not run)".to_owned();
    };
    let state = if w.is_closed(tail.id) {
        "closed"
    } else {
        "open"
    };
    match tail.origin {
        SigOrigin::QueueInit => format!("initial ({state})"),
        SigOrigin::Runner { pos, .. } => format!("runner pos={} ({state})", sc.pos_name(pos)),
        SigOrigin::InjectDone { handler } => format!("g{handler} injectDone ({state})"),
    }
}

/// Who holds an injection in this queue right now: "handler (c1)" or "runner pos=x
/// (c1)", or "".
pub fn token_holder(w: &World, sc: &Scenario, segment: i64) -> String {
    for g in &w.goroutines {
        match g.role {
            Role::Handler {
                segment: s,
                at: HandlerAt::Handling { inj, .. },
            } if s == segment => {
                return format!("handler ({})", sc.inj_name(inj));
            }
            Role::Runner {
                runner,
                at: RunnerAt::WaitInjectOver { inj },
            } => {
                if let Some(r) = w.runner(runner).filter(|r| r.segment == segment) {
                    return format!("runner pos={} ({})", sc.pos_name(r.pos), sc.inj_name(inj));
                }
            }
            _ => {}
        }
    }
    String::new()
}

fn finaliser_words(w: &World) -> String {
    let d = &w.drop;
    let at = w.goroutines.iter().find_map(|g| match g.role {
        Role::Finaliser { at } => Some(at),
        _ => None,
    });
    match at {
        Some(FinaliserAt::WaitAllFlushed) => "B12: waits for allFlushed".to_owned(),
        Some(FinaliserAt::WaitTailWaiters) => {
            format!("B13: waits for {} queue tail waiter(s)", d.tail_waiters)
        }
        Some(FinaliserAt::Pack { next } | FinaliserAt::QueueInit { next, .. }) => {
            format!("postInjection pass: pack #{next} of {}", d.packs.len())
        }
        Some(FinaliserAt::DropVirtualChannel { n }) => {
            format!("B14: DropVirtualChannel attempt {n}")
        }
        None if d.flush_and_drop.is_some() => "done: flushAndDrop returned".to_owned(),
        None => "not started".to_owned(),
    }
}

fn pack_chip(sc: &Scenario, p: &Pack) -> Chip {
    Chip {
        key: None,
        text: NamedPack::of(sc, p).to_string(),
        class: if p.err { "err" } else { "" },
        tooltip: None,
    }
}

fn drop_panel(w: &World, sc: &Scenario, live: &[((RunnerId, HalfKind), HalfAt)]) -> Panel {
    let d = &w.drop;
    let mut blocks = Vec::new();
    if !d.dropping {
        blocks.push(Block::Note(
            "Off: flushes go through the queues. startDropping switches to drop mode.".to_owned(),
        ));
    } else {
        blocks.push(Block::Badges(vec![
            Badge::new("allFlushed", d.all_flushed.as_str(), "allflushed"),
            Badge::new("finaliser", finaliser_words(w), "finaliser"),
        ]));
        let adhoc: Vec<Chip> = w
            .runners
            .iter()
            .filter_map(|r| {
                let kind = r.adhoc?;
                let pill = half_pill(r, kind, live);
                let state = match pill.class {
                    "running" | "retrying" => {
                        pill.text.trim_start_matches(pill.label).trim().to_owned()
                    }
                    _ => "done".to_owned(),
                };
                Some(Chip {
                    key: None,
                    text: format!(
                        "{} seg={} pos={} · {state} · caller waits (B11)",
                        kind.as_str(),
                        r.segment,
                        sc.pos_name(r.pos)
                    ),
                    class: "pending",
                    tooltip: None,
                })
            })
            .collect();
        if !adhoc.is_empty() {
            blocks.push(Block::Chips {
                lead: None,
                strong: false,
                chips: adhoc,
            });
        }
        blocks.push(Block::Chips {
            lead: Some(format!("{} pack(s) collected: ", d.packs.len())),
            strong: false,
            chips: d.packs.iter().map(|p| pack_chip(sc, p)).collect(),
        });
        if let Some(f) = &d.flush_and_drop {
            blocks.push(Block::Chips {
                lead: Some("flushAndDrop got: ".to_owned()),
                strong: true,
                chips: f.iter().map(|p| pack_chip(sc, p)).collect(),
            });
        }
    }
    Panel {
        id: "drop",
        class: if d.dropping {
            "drop".into()
        } else {
            "drop idle".into()
        },
        title: "Drop mode".to_owned(),
        blocks,
    }
}

/// The packs notified up to the cursor (the latest [`MAX_PACKS`]).
fn notify_panel(stream: &[(u32, String)], cursor: u32) -> Panel {
    let upto = stream.partition_point(|(s, _)| *s <= cursor);
    let from = upto.saturating_sub(MAX_PACKS);
    let shown = &stream[from..upto];
    let mut blocks = Vec::new();
    if upto == 0 {
        blocks.push(Block::Note(
            "No pack notified yet. Packs appear here in notify order, with their segment after any remap.".to_owned(),
        ));
    }
    blocks.push(Block::Chips {
        lead: None,
        strong: false,
        chips: shown
            .iter()
            .enumerate()
            .map(|(i, (step, text))| Chip {
                // Its place in the whole stream: the window slides by one as a
                // pack is notified.
                key: Some((from + i) as u32),
                text: text.clone(),
                class: if i + 1 == shown.len() && *step == cursor {
                    "fresh"
                } else {
                    ""
                },
                tooltip: Some(format!("notified at step {step}")),
            })
            .collect(),
    });
    Panel {
        id: "notify",
        class: "notify".into(),
        title: format!("Notified (SaveBinlogPaths): {upto}"),
        blocks,
    }
}

fn replica_panel(w: &World, sc: &Scenario, changed: &[i64]) -> Panel {
    let columns = vec![
        ("segment".to_owned(), None),
        ("state".to_owned(), None),
        ("rows".to_owned(), None),
        (
            "last checkpoint sent".to_owned(),
            Some("the position of the last SaveBinlogPaths sent for it; datacoord keeps the newest by timestamp".to_owned()),
        ),
    ];
    let rows = w
        .replica
        .iter()
        .map(|s| {
            (
                Row {
                    key: s.segment.to_string(),
                    class: if changed.contains(&s.segment) {
                        "changed"
                    } else {
                        ""
                    },
                    data: vec![("data-segment", s.segment.to_string())],
                    cells: vec![
                        Cell::Text(s.segment.to_string()),
                        Cell::State(s.state.as_str().to_owned()),
                        Cell::Text(s.rows.to_string()),
                        Cell::Text(
                            s.checkpoint
                                .map_or("—".to_owned(), |p| sc.pos_name(p).to_owned()),
                        ),
                    ],
                },
                !changed.contains(&s.segment),
            )
        })
        .collect();
    Panel {
        id: "metacache",
        class: "metacache".into(),
        title: "Replica (the datanode's meta cache)".to_owned(),
        blocks: vec![Block::Table(Table::folding(
            columns,
            rows,
            "segments this step did not change",
        ))],
    }
}

/// Segments whose Replica row a step changed: the facts that touch the Replica are
/// listNewSegmentsStartPositions, segmentFlushed and a notify's checkpoint.
fn changed_segments(facts: &[Ev]) -> Vec<i64> {
    facts
        .iter()
        .filter_map(|e| match e {
            Ev::ReplicaNewToNormal { segment } | Ev::ReplicaFlushed { segment } => Some(*segment),
            Ev::Notified { pack, .. } => Some(pack.segment),
            _ => None,
        })
        .collect()
}

/// `c1@2: 5`: per injection and queue, steps from injectOne to the injectOver answer.
fn injection_waits(sc: &Scenario, run: &Run<Scenario>) -> Vec<String> {
    let mut taken: Vec<(InjId, i64, u32)> = Vec::new();
    let mut waits = Vec::new();
    for rec in run.records() {
        for e in run.events_of(rec) {
            match *e {
                Ev::RunnerTookInjection { segment, inj, .. }
                | Ev::HandlerTookInjection { segment, inj, .. } => {
                    taken.push((inj, segment, rec.step))
                }
                Ev::RunnerInjectOver { segment, inj, .. }
                | Ev::HandlerInjectOver { segment, inj, .. } => {
                    if let Some(i) = taken.iter().position(|t| t.0 == inj && t.1 == segment) {
                        let t = taken.remove(i);
                        waits.push(format!("{}@{}: {}", sc.inj_name(t.0), t.1, rec.step - t.2));
                    }
                }
                _ => {}
            }
        }
    }
    waits
}
