//! The flush-2021 stage: a lane per orderFlushQueue (handler, injectCh, runners in
//! creation order with their halves, tail arrows, the injection token), the drop
//! panel, the notify stream and the Replica.

use std::collections::BTreeMap;

use flush_core::flush2021::{At, HalfKind, Role, Runner, SigOrigin, World};
use flush_core::report::PackJson;
use flush_core::scenario::InjId;
use flush_core::Scenario;
use yew::prelude::*;

use super::badge;

const BOX_W: i32 = 178;
const BOX_H: i32 = 100;
const GAP: i32 = 46;
const X0: i32 = 250;
const LANE_H: i32 = 168;
/// Top of the boxes in a lane.
const BOX_Y: i32 = 38;
const HANDLER_X: i32 = 14;
const HANDLER_W: i32 = 156;
/// The latest notified packs shown (the count shows them all).
const MAX_PACKS: usize = 30;
/// Runners drawn per lane (the rest are counted).
const MAX_RUNNERS: usize = 14;

/// State of one half of a runner, for drawing.
#[derive(Clone, Copy, PartialEq)]
enum HalfState {
    Absent,
    Running(u8),
    Retrying(u8),
    Done,
    Failed,
}

fn half_state(r: &Runner, kind: HalfKind, live: &BTreeMap<(u32, HalfKind), At>) -> HalfState {
    let set = match kind {
        HalfKind::Insert => r.insert_set,
        HalfKind::Delete => r.delete_set,
    };
    if !set {
        return HalfState::Absent;
    }
    match live.get(&(r.id, kind)) {
        Some(At::Attempt { n }) => HalfState::Running(*n),
        Some(At::RetrySleep { n }) => HalfState::Retrying(*n),
        _ => {
            let err = match kind {
                HalfKind::Insert => r.insert_err,
                HalfKind::Delete => r.delete_err,
            };
            if err {
                HalfState::Failed
            } else {
                HalfState::Done
            }
        }
    }
}

fn half_pill(x: i32, y: i32, label: &str, st: HalfState) -> Html {
    let (class, text) = match st {
        HalfState::Absent => ("half absent", format!("{label} —")),
        HalfState::Running(n) => ("half running", format!("{label} try {n}")),
        HalfState::Retrying(n) => ("half retrying", format!("{label} retry {n}")),
        HalfState::Done => ("half done", format!("{label} ✓")),
        HalfState::Failed => ("half failed", format!("{label} ✗ err")),
    };
    html! {
        <g class={class} data-half={label.to_owned()}>
            <rect x={(x).to_string()} y={y.to_string()} width="78" height="22" rx="11" />
            <text x={(x + 39).to_string()} y={(y + 16).to_string()} text-anchor="middle">{text}</text>
        </g>
    }
}

/// Where each token sits, as (x, y) in lane coordinates.
fn token(key: String, label: &str, x: i32, y: i32, class: &str, title: String) -> Html {
    html! {
        <g key={key.clone()} class={classes!("token", class.to_owned())} data-token={key}
           style={format!("transform: translate({x}px, {y}px)")}>
            <title>{title}</title>
            <path d="M 0 -16 L 16 0 L 0 16 L -16 0 Z" />
            <text y="4.5" text-anchor="middle">{label.to_owned()}</text>
        </g>
    }
}

/// The token of an injection held (injectOne done, waiting on injectOver), on the
/// top edge of its holder's box, whose right edge is at `right`.
fn held_token(sc: &Scenario, inj: InjId, segment: i64, right: i32, holder: &str) -> Html {
    let name = sc.inj_name(inj);
    token(
        format!("tok-{name}-{segment}"),
        name,
        right - 18,
        BOX_Y - 2,
        "held",
        format!("{name} is held by {holder} (injectOne done; waiting on injectOver)"),
    )
}

pub fn stage(
    w: &World,
    sc: &Scenario,
    changed: &[i64],
    notified: &[(u32, PackJson)],
    cursor: u32,
) -> Html {
    let mut live: BTreeMap<(u32, HalfKind), At> = BTreeMap::new();
    for g in &w.goroutines {
        if let Role::Half { runner, kind, .. } = g.role {
            live.insert((runner, kind), g.at.clone());
        }
    }
    let lanes: Html = w
        .queues
        .iter()
        .map(|q| lane(w, sc, q.segment, &live))
        .collect();
    html! {
        <div class="stage-flush">
            if w.queues.is_empty() {
                <p class="empty">{"No flush queue yet: the first flush or injection of a segment creates one (getFlushQueue)."}</p>
            }
            <div class="lanes" id="lanes">{lanes}</div>
            <div class="row2">
                {drop_panel(w, sc, &live)}
                {notify_stream(notified, cursor)}
            </div>
            {replica(w, sc, changed)}
        </div>
    }
}

fn handler_words(w: &World, sc: &Scenario, segment: i64) -> (String, &'static str) {
    let q = w.queue(segment).expect("lane of a queue");
    let alive = q
        .handler
        .and_then(|h| w.goroutine(h.goroutine).map(|g| (h, g)));
    match alive {
        None if q.handler.is_some() => ("stopped (close)".into(), "stopped"),
        None => (format!("none: {} task(s) running", q.running), "none"),
        Some((h, g)) => match &g.at {
            At::Handling { inj, .. } => (
                format!("g{} handling {} (B6)", h.goroutine, sc.inj_name(*inj)),
                "handling",
            ),
            _ if h.done => (format!("g{} closing (done closed)", h.goroutine), "closing"),
            _ => (format!("g{} idle in select (B5)", h.goroutine), "idle"),
        },
    }
}

fn lane(w: &World, sc: &Scenario, segment: i64, live: &BTreeMap<(u32, HalfKind), At>) -> Html {
    let q = w.queue(segment).expect("queue");
    let (hwords, hclass) = handler_words(w, sc, segment);
    let mut runners: Vec<&Runner> = w
        .runners
        .iter()
        .filter(|r| r.segment == segment && r.adhoc.is_none())
        .collect();
    // In tail-chain order (what decides the notify order); runners stored in working
    // but not chained yet come last, in creation order.
    runners.sort_by_key(|r| (r.chain.is_none(), r.chain, r.seq));
    let hidden = runners.len().saturating_sub(MAX_RUNNERS);
    runners.truncate(MAX_RUNNERS);
    let width = X0 + (runners.len() as i32) * (BOX_W + GAP) + 40;
    let x_of = |i: usize| X0 + i as i32 * (BOX_W + GAP);
    let box_y = BOX_Y;
    let handler_g = q.handler.map(|h| h.goroutine);

    // Tail arrows and runner boxes.
    let mut arrows = Vec::new();
    let mut boxes = Vec::new();
    let mut tokens = Vec::new();
    for (i, r) in runners.iter().enumerate() {
        let x = x_of(i);
        let g = r.goroutine.and_then(|g| w.goroutine(g));
        let (status, st_class) = match g.map(|g| &g.at) {
            None => ("not chained yet".to_owned(), "pending"),
            Some(At::WaitHalves) => (format!("B1: {} half(s) to finish", r.wg), "wait"),
            Some(At::WaitStart) => ("B2 waits on its start signal".to_owned(), "wait"),
            Some(At::WaitInjectOver { inj }) => (
                format!("B3 holds {}: injectOver?", sc.inj_name(*inj)),
                "holding",
            ),
            Some(At::PostTaskDelete { .. }) => ("postTask: working.Delete next".to_owned(), "wait"),
            Some(At::PostTaskLock { .. }) => ("postTask waits for injectMut".to_owned(), "wait"),
            Some(At::PostTaskSticky { .. } | At::PostTaskApply) => {
                ("postTask holds injectMut".to_owned(), "wait")
            }
            Some(At::SaveBinlogPaths { n }) => (format!("B14 SaveBinlogPaths #{n}"), "notifying"),
            Some(_) => ("running".to_owned(), "wait"),
        };
        if let Some(At::WaitInjectOver { inj }) = g.map(|g| &g.at) {
            tokens.push(held_token(
                sc,
                *inj,
                segment,
                x + BOX_W,
                &format!("runner pos={}", sc.pos_name(r.pos)),
            ));
        }
        // The tail arrow: from this runner to what its start signal is.
        if let Some(start) = r.start {
            let closed = w.is_closed(start.id);
            let (tx, label) = match start.origin {
                SigOrigin::Runner { chain, pos, .. } => {
                    match runners.iter().position(|p| p.chain == Some(chain)) {
                        Some(j) => (Some(x_of(j) + BOX_W), None),
                        None => (None, Some(format!("pos={} ✓", sc.pos_name(pos)))),
                    }
                }
                SigOrigin::InjectDone { handler }
                    if Some(handler) == handler_g && w.goroutine(handler).is_some() =>
                {
                    (Some(HANDLER_X + HANDLER_W), None)
                }
                SigOrigin::InjectDone { .. } => (None, Some("injectDone ✓".to_owned())),
                SigOrigin::QueueInit => (None, Some("init ✓".to_owned())),
            };
            let y = box_y + BOX_H / 2;
            let class = if closed { "tail closed" } else { "tail open" };
            let marker = if closed {
                "url(#arrow-closed)"
            } else {
                "url(#arrow-open)"
            };
            match (tx, label) {
                (Some(tx), _) => {
                    let d = if (x - tx).abs() < GAP + 1 {
                        format!("M {x} {y} L {} {y}", tx + 2)
                    } else {
                        format!("M {x} {y} C {} {}, {} {}, {} {y}", x - 40, y + 46, tx + 40, y + 46, tx + 2)
                    };
                    arrows.push(html! { <path class={class} d={d} marker-end={marker} data-tail-of={sc.pos_name(r.pos).to_owned()} /> });
                }
                (None, Some(l)) => arrows.push(html! {
                    <g class={class} data-tail-of={sc.pos_name(r.pos).to_owned()}>
                        <path d={format!("M {x} {y} L {} {y}", x - 26)} />
                        <text x={(x - 28).to_string()} y={(y + 4).to_string()} text-anchor="end" class="tail-label">{l}</text>
                    </g>
                }),
                _ => {}
            }
        }
        let pack_seg = r.pack.map(|p| p.segment).filter(|s| *s != segment);
        boxes.push(html! {
            <g key={format!("r{}", r.id)} class={classes!("runner", st_class)} data-pos={sc.pos_name(r.pos).to_owned()}
               style={format!("transform: translate({x}px, {box_y}px)")}>
                <title>{format!("flushTaskRunner seg={segment} pos={} (#{} in creation order, {}){}", sc.pos_name(r.pos), r.seq,
                    r.chain.map_or("not in the tail chain yet".to_owned(), |c| format!("#{c} in the tail chain")),
                    r.goroutine.map(|g| format!(", waitFinish goroutine g{g}")).unwrap_or_default())}</title>
                <rect class="runner-box" width={BOX_W.to_string()} height={BOX_H.to_string()} rx="8" />
                <text x="10" y="21" class="runner-title">{format!("pos={}", sc.pos_name(r.pos))}</text>
                <text x="10" y="37" class="runner-seq">
                    {format!("runner #{}{}", r.seq, r.goroutine.map(|g| format!(" · g{g}")).unwrap_or_default())}
                </text>
                {half_pill(8, 45, "ins", half_state(r, HalfKind::Insert, live))}
                {half_pill(92, 45, "del", half_state(r, HalfKind::Delete, live))}
                <text x="10" y="84" class="runner-status">{status}</text>
                if let Some(to) = pack_seg {
                    <text x="10" y="97" class="runner-remap">{format!("pack → segment {to}")}</text>
                }
            </g>
        });
    }

    // The handler slot and tokens it holds; queued injections in injectCh.
    if let Some(h) = q.handler {
        if let Some(At::Handling { inj, .. }) = w.goroutine(h.goroutine).map(|g| &g.at) {
            tokens.push(held_token(
                sc,
                *inj,
                segment,
                HANDLER_X + HANDLER_W,
                "the inject handler",
            ));
        }
    }
    for (i, inj) in q.inject_ch.iter().enumerate().take(6) {
        tokens.push(token(
            format!("tok-{}-{}", sc.inj_name(*inj), segment),
            sc.inj_name(*inj),
            HANDLER_X + 16 + i as i32 * 28,
            box_y + BOX_H + 8,
            "queued",
            format!("{} queued in injectCh", sc.inj_name(*inj)),
        ));
    }
    let post = q.post_inj.map(|p| {
        let to = sc.injections[p as usize]
            .remap_to
            .map(|t| format!(" → {t}"))
            .unwrap_or_default();
        format!("{}{to}", sc.inj_name(p))
    });
    let holder = token_holder(w, sc, segment);
    html! {
        <section class="lane" data-segment={segment.to_string()} data-running={q.running.to_string()}
                 data-handler={hclass} data-holder={holder.clone()}>
            <header class="lane-head">
                <h3>{format!("queue {segment}")}</h3>
                {badge("running", q.running, "running")}
                {badge("inject handler", hwords, hclass)}
                {badge("injectCh", if q.inject_ch.is_empty() { "empty".to_owned() } else {
                    q.inject_ch.iter().map(|i| sc.inj_name(*i).to_owned()).collect::<Vec<_>>().join(", ") }, "injectch")}
                {badge("postInjection", post.unwrap_or_else(|| "none".into()), "postinj")}
                if !holder.is_empty() { {badge("injection held by", holder, "holder")} }
                if hidden > 0 { <span class="more">{format!("+{hidden} more runners not drawn")}</span> }
            </header>
            <div class="lane-scroll">
                <svg class="lane-svg" width={width.to_string()} height={LANE_H.to_string()} xmlns="http://www.w3.org/2000/svg">
                    <g class={classes!("handler-slot", hclass)} style={format!("transform: translate({HANDLER_X}px, {box_y}px)")}>
                        <rect width={HANDLER_W.to_string()} height={BOX_H.to_string()} rx="8" />
                        <text x="10" y="21" class="runner-title">{"inject handler"}</text>
                        <text x="10" y="46" class="runner-status">{short_handler(w, sc, segment)}</text>
                        <text x="10" y="70" class="runner-status">{"queue tail:"}</text>
                        <text x="10" y="86" class="runner-status">{tail_words(w, sc, segment)}</text>
                    </g>
                    {for arrows}
                    {for boxes}
                    {for tokens}
                </svg>
            </div>
        </section>
    }
}

fn short_handler(w: &World, sc: &Scenario, segment: i64) -> String {
    let (words, _) = handler_words(w, sc, segment);
    words
}

fn tail_words(w: &World, sc: &Scenario, segment: i64) -> String {
    let q = w.queue(segment).expect("queue");
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

/// Who holds an injection in this queue right now: "handler" or "runner pos=x", or "".
pub fn token_holder(w: &World, sc: &Scenario, segment: i64) -> String {
    for g in &w.goroutines {
        match (&g.role, &g.at) {
            (Role::Handler { segment: s }, At::Handling { inj, .. }) if *s == segment => {
                return format!("handler ({})", sc.inj_name(*inj));
            }
            (Role::Runner(r), At::WaitInjectOver { inj }) => {
                if let Some(r) = w.runner(*r) {
                    if r.segment == segment {
                        return format!(
                            "runner pos={} ({})",
                            sc.pos_name(r.pos),
                            sc.inj_name(*inj)
                        );
                    }
                }
            }
            _ => {}
        }
    }
    String::new()
}

fn drop_panel(w: &World, sc: &Scenario, live: &BTreeMap<(u32, HalfKind), At>) -> Html {
    let d = &w.drop;
    let fin = w.goroutines.iter().find(|g| g.role == Role::Finaliser);
    let fin_words = match (fin.map(|g| &g.at), d.flush_and_drop.is_some()) {
        (Some(At::WaitAllFlushed), _) => "B12: waits for allFlushed".to_owned(),
        (Some(At::WaitTailWaiters), _) => {
            format!("B13: waits for {} queue tail waiter(s)", d.tail_waiters)
        }
        (Some(At::FinaliserPack { next } | At::QueueInit { resume: next, .. }), _) => {
            format!("postInjection pass: pack #{next} of {}", d.packs.len())
        }
        (Some(At::DropVirtualChannel { n }), _) => format!("B14: DropVirtualChannel attempt {n}"),
        (None, true) => "done: flushAndDrop returned".to_owned(),
        _ => "not started".to_owned(),
    };
    let adhoc: Vec<&Runner> = w.runners.iter().filter(|r| r.adhoc.is_some()).collect();
    let chip = |p: &flush_core::flush2021::Pack| {
        let j = PackJson::from_pack(sc, p);
        html! { <span class={classes!("pack", p.err.then_some("err"))}>{j.to_string()}</span> }
    };
    html! {
        <section class={classes!("panel", "drop", (!d.dropping).then_some("idle"))} id="drop">
            <h3>{"Drop mode"}</h3>
            if !d.dropping {
                <p class="muted">{"Off: flushes go through the queues. startDropping switches to drop mode."}</p>
            } else {
                <p>
                    {badge("allFlushed", d.all_flushed.as_str(), "allflushed")}
                    {badge("finaliser", fin_words, "finaliser")}
                </p>
                if !adhoc.is_empty() {
                    <p class="muted">{for adhoc.iter().map(|r| {
                        let kind = r.adhoc.unwrap_or(HalfKind::Insert);
                        let st = half_state(r, kind, live);
                        let s = match st { HalfState::Running(n) => format!("try {n}"), HalfState::Retrying(n) => format!("retry {n}"), _ => "done".into() };
                        html!{ <span class="pack pending">{format!("{} seg={} pos={} · {s} · caller waits (B11)", kind.as_str(), r.segment, sc.pos_name(r.pos))}</span> }
                    })}</p>
                }
                <div class="packs">
                    <span class="muted">{format!("{} pack(s) collected: ", d.packs.len())}</span>
                    {for d.packs.iter().map(chip)}
                </div>
                if let Some(f) = &d.flush_and_drop {
                    <div class="packs"><strong>{"flushAndDrop got: "}</strong>{for f.iter().map(chip)}</div>
                }
            }
        </section>
    }
}

fn notify_stream(notified: &[(u32, PackJson)], cursor: u32) -> Html {
    let upto = notified.partition_point(|(s, _)| *s <= cursor);
    let shown = &notified[upto.saturating_sub(MAX_PACKS)..upto];
    html! {
        <section class="panel notify" id="notify">
            <h3>{format!("Notified (SaveBinlogPaths): {upto}")}</h3>
            if upto == 0 { <p class="muted">{"No pack notified yet. Packs appear here in notify order, with their segment after any remap."}</p> }
            <div class="packs">
                {for shown.iter().enumerate().map(|(i, (step, p))| html! {
                    <span class={classes!("pack", (i + 1 == shown.len() && *step == cursor).then_some("fresh"))}
                          title={format!("notified at step {step}")}>{p.to_string()}</span>
                })}
            </div>
        </section>
    }
}

fn replica(w: &World, sc: &Scenario, changed: &[i64]) -> Html {
    html! {
        <section class="panel metacache" id="metacache">
            <h3>{"Replica (the datanode's meta cache)"}</h3>
            <table>
                <thead><tr><th>{"segment"}</th><th>{"state"}</th><th>{"rows"}</th><th title="the position of the last SaveBinlogPaths sent for it; datacoord keeps the newest by timestamp">{"last checkpoint sent"}</th></tr></thead>
                <tbody>
                    {for w.replica.iter().map(|s| html! {
                        <tr class={classes!(changed.contains(&s.segment).then_some("changed"))} data-segment={s.segment.to_string()}>
                            <td>{s.segment}</td>
                            <td><span class={classes!("state", s.state.as_str())}>{s.state.as_str()}</span></td>
                            <td>{s.rows}</td>
                            <td>{s.checkpoint.map(|p| sc.pos_name(p).to_owned()).unwrap_or_else(|| "—".into())}</td>
                        </tr>
                    })}
                </tbody>
            </table>
        </section>
    }
}

/// Segments whose Replica row a step changed: the facts that touch the Replica are
/// listNewSegmentsStartPositions, segmentFlushed and a notify's checkpoint.
pub fn changed_segments(events: &[flush_core::flush2021::Ev]) -> Vec<i64> {
    use flush_core::flush2021::Ev;
    events
        .iter()
        .filter_map(|e| match e {
            Ev::ReplicaNewToNormal { segment } | Ev::ReplicaFlushed { segment } => Some(*segment),
            Ev::Notified { pack, .. } => Some(pack.segment),
            _ => None,
        })
        .collect()
}
