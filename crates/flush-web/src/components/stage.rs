//! The stage: lanes, chains, cards, panels and tables, drawn from the core's
//! plain-data [`Stage`]. Every part is a component whose props compare by value,
//! so a step redraws only what it changed.

use std::rc::Rc;

use flush_core::view::*;
use yew::prelude::*;

/// Width of a box of a chain.
const BOX_W: i32 = 178;
/// Height of a box (and of the slot).
const BOX_H: i32 = 100;
/// Space between two boxes (where the arrows run).
const GAP: i32 = 46;
/// Where the first box starts (after the slot).
const X0: i32 = 250;
/// Height of a chain lane's drawing.
const LANE_H: i32 = 168;
/// Top of the boxes in a lane.
const BOX_Y: i32 = 38;
const SLOT_X: i32 = 14;
const SLOT_W: i32 = 156;
/// A pill's size and the x of the two pills of a box.
const PILL_W: i32 = 78;
const PILL_H: i32 = 22;
const PILL_X: [i32; 2] = [8, 92];
/// Room after the last box.
const RIGHT_PAD: i32 = 40;
/// How far an arrow between distant boxes bends below them.
const ARROW_BEND: i32 = 46;
/// Half the size of a token's diamond.
const TOKEN_R: i32 = 16;
/// The spacing of queued tokens under the slot.
const QUEUED_DX: i32 = 28;

/// Room for a line of text in a box or the slot (its x of 10, a little margin).
const TEXT_PAD: i32 = 14;
/// A character's average width, in ems: a bold title's, a plain line's.
const TITLE_EM: f32 = 0.6;
const LINE_EM: f32 = 0.55;

/// How far a line may run past its box: into the gap after it, short of what
/// comes next (the first box after the slot, the next box after a box).
const SLOT_SPILL: i32 = X0 - SLOT_X - SLOT_W - 10;
const BOX_SPILL: i32 = GAP - 6;

/// `text` for an SVG line (SVG text does not wrap) with `room` px in its box and
/// `spill` px of gap after it, at `font_px` with characters `em` wide on
/// average ([`char_ems`]): as it is while it fits that estimate, else cut with
/// an ellipsis to its room (the box's tooltip and the list a screen reader
/// reads keep it whole).
fn fit(text: &str, room: i32, spill: i32, font_px: f32, em: f32) -> String {
    let px = |c: char| char_ems(c, em) * font_px;
    if text.chars().map(px).sum::<f32>() <= (room + spill) as f32 {
        return text.to_owned();
    }
    let mut left = room as f32 - px('…');
    let mut out: String = text
        .chars()
        .take_while(|&c| {
            left -= px(c);
            left >= 0.0
        })
        .collect();
    out.push('…');
    out
}

/// A character's width in ems: `em` on average for Latin text, a whole em for
/// the wide characters of CJK scripts and emoji, none for combining marks and
/// zero-width characters (a short table: the page carries no Unicode data).
fn char_ems(c: char, em: f32) -> f32 {
    match u32::from(c) {
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F => 0.0,
        0x1100..=0x115F
        | 0x2E80..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 1.0,
        _ => em,
    }
}

/// [`fit`] for a line of the slot and of a box.
fn slot_line(text: &str, font_px: f32, em: f32) -> String {
    fit(text, SLOT_W - TEXT_PAD, SLOT_SPILL, font_px, em)
}
fn box_line(text: &str, font_px: f32, em: f32) -> String {
    fit(text, BOX_W - TEXT_PAD, BOX_SPILL, font_px, em)
}

fn box_x(i: usize) -> i32 {
    X0 + i as i32 * (BOX_W + GAP)
}

/// `data-*` attributes onto an element.
fn with_data(mut tag: Html, data: &Data) -> Html {
    if let Html::VTag(t) = &mut tag {
        let t = std::rc::Rc::make_mut(t);
        for (k, v) in data {
            t.add_attribute(k, v.clone());
        }
    }
    tag
}

/// A small labelled value, e.g. `running 2`.
pub fn badge(b: &Badge) -> Html {
    html! {
        <span class={classes!("badge", b.class)}>
            <span class="badge-label">{b.label.clone()}</span>{" "}{b.value.clone()}
        </span>
    }
}

/// A badge whose label's Milvus words are explained (see `glossary::glossed`).
fn glossed_badge(b: &Badge) -> Html {
    html! {
        <span class={classes!("badge", b.class)}>
            <span class="badge-label">{super::glossary::glossed(&b.label)}</span>{" "}{b.value.clone()}
        </span>
    }
}

/// The whole stage (a function: each lane and panel is a component of its own).
/// `rapid`: the steps come too fast for the boxes to slide (see `hooks::use_rapid`).
pub fn stage_view(s: &Stage, rapid: bool) -> Html {
    html! {
        <div class={s.class}>
            if let Some(e) = &s.empty { <p class="empty">{e.clone()}</p> }
            <div class={classes!("lanes", rapid.then_some("rapid"))} id="lanes">
                {for s.lanes.iter().enumerate().map(|(i, l)| html! { <LaneView key={l.key.clone()} lane={l.clone()} gloss={i == 0} /> })}
            </div>
            if let Some(more) = &s.more_lanes { <p class="muted more-lanes">{more.clone()}</p> }
            {for s.rows.iter().map(|row| html! {
                <div class={if row.len() > 1 { "row2" } else { "row1" }}>
                    {for row.iter().map(|p| html! { <PanelView key={p.id} panel={p.clone()} /> })}
                </div>
            })}
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct LaneProps {
    pub lane: Rc<Lane>,
    /// Its badges' Milvus words explained on hover and focus (the first lane's
    /// only: every lane has the same badges, and each would be a Tab stop).
    #[prop_or_default]
    pub gloss: bool,
}

/// A lane; Yew skips it when it is equal to the last step's.
#[function_component(LaneView)]
pub fn lane_view(p: &LaneProps) -> Html {
    let l = &p.lane;
    let body = match &l.body {
        LaneBody::Chain(c) => chain_view(&l.title, c),
        LaneBody::Cards { cards, empty } => html! {
            <div class="cards">
                if cards.is_empty() { <span class="muted">{empty.clone()}</span> }
                <div class="card-list">{for cards.iter().map(card_view)}</div>
            </div>
        },
    };
    with_data(
        html! {
            <section class="lane" aria-label={l.title.clone()}>
                <header class="lane-head">
                    <h3>{l.title.clone()}</h3>
                    {for l.badges.iter().map(|b| if p.gloss { glossed_badge(b) } else { badge(b) })}
                </header>
                {body}
            </section>
        },
        &l.data,
    )
}

fn card_view(c: &Card) -> Html {
    with_data(
        html! {
            <div key={c.key.clone()} class={format!("card {}", c.class)}>
                <div class="card-title">{c.title.clone()}</div>
                {for c.lines.iter().map(|l| html! { <div class={l.class}>{l.text.clone()}</div> })}
            </div>
        },
        &c.data,
    )
}

/// A chain lane: the slot, the boxes in order, arrows, tokens (SVG), and the same
/// as a list a screen reader can walk (the drawing itself is one image to it).
fn chain_view(title: &str, c: &Chain) -> Html {
    let width = box_x(c.boxes.len()) + RIGHT_PAD;
    html! {
        <>
        <div class="lane-scroll figure-light" tabindex="0" role="region" aria-label={format!("drawing of {title}")}>
            <svg class="lane-svg" width={width.to_string()} height={LANE_H.to_string()}
                 xmlns="http://www.w3.org/2000/svg" role="img" aria-label={chain_label(c)}>
                {with_data(html! {
                    <g class={classes!("handler-slot", c.slot.class)} style={format!("transform: translate({SLOT_X}px, {BOX_Y}px)")}>
                        <title>{format!("{}: {}", c.slot.title, slot_words(&c.slot.lines))}</title>
                        <rect width={SLOT_W.to_string()} height={BOX_H.to_string()} rx="8" />
                        <text x="10" y="21" class="runner-title">{slot_line(&c.slot.title, 15.0, TITLE_EM)}</text>
                        <g>{for c.slot.lines.iter().zip([46, 70, 86]).map(|(l, y)| html! {
                            <text x="10" y={y.to_string()} class="runner-status">{slot_line(l, 12.5, LINE_EM)}</text>
                        })}</g>
                    </g>
                }, &c.slot.data)}
                // Each list in a group of its own: Yew 0.23 pairs the children of a
                // parent from the back, so a list that grows beside others would
                // re-create its siblings (yewstack/yew#3262, fixed by #4099).
                <g class="arrows">{for c.arrows.iter().map(arrow)}</g>
                <g class="boxes">{for c.boxes.iter().enumerate().map(|(i, b)| html! {
                    <ChainBoxView key={b.key.clone()} x={box_x(i)} chain_box={b.clone()} />
                })}</g>
                <g class="tokens">{for c.tokens.iter().map(token)}</g>
            </svg>
        </div>
        {chain_list(title, c)}
        </>
    }
}

/// The chain as text: the slot, each box with its halves, and each token, in order.
/// Keyed by what each line stands for, so a runner that ends removes its line
/// instead of rewriting every line after it.
fn chain_list(title: &str, c: &Chain) -> Html {
    let slot = format!("{}: {}", c.slot.title, slot_words(&c.slot.lines));
    html! {
        <ul class="sr-only chain-list" aria-label={format!("{title}, in order")}>
            <li key="slot">{slot}</li>
            {for c.boxes.iter().map(|b| {
                let mut parts = vec![b.tooltip.clone()];
                parts.extend(b.pills.iter().map(|p| format!("{} half: {} ({})", p.label, p.class, p.text)));
                parts.push(b.status.clone());
                parts.extend(b.extra.clone());
                parts.retain(|p| !p.is_empty());
                html! { <li key={format!("box {}", b.key)}>{parts.join(", ")}</li> }
            })}
            {for c.arrows.iter().filter_map(|a| {
                let from = c.boxes.get(a.from)?;
                let (to, to_key) = match &a.to {
                    ArrowTo::Box(j) => (c.boxes.get(*j)?.title.clone(), c.boxes.get(*j)?.key.clone()),
                    ArrowTo::Slot => (c.slot.title.clone(), "slot".to_owned()),
                    ArrowTo::Label(l) => (l.clone(), format!("label {l}")),
                };
                let state = if a.closed { "closed" } else { "still open" };
                let key = format!("arrow {} to {to_key}", from.key);
                Some(html! { <li {key}>{format!("{} waits on the tail signal of {to}: {state}", from.title)}</li> })
            })}
            {for c.tokens.iter().map(|t| html! { <li key={format!("token {}", t.key)}>{format!("token {}: {}", t.label, t.tooltip)}</li> })}
        </ul>
    }
}

/// The slot's lines as one phrase ("queue tail:" runs on into the line after it).
fn slot_words(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines {
        if !s.is_empty() {
            s.push_str(if s.ends_with(':') { " " } else { ", " });
        }
        s.push_str(l);
    }
    s
}

/// What a chain shows, for a screen reader.
fn chain_label(c: &Chain) -> String {
    let boxes: Vec<String> = c
        .boxes
        .iter()
        .map(|b| format!("{} ({})", b.title, b.status))
        .collect();
    format!(
        "{}: {}; then {}",
        c.slot.title,
        slot_words(&c.slot.lines),
        if boxes.is_empty() {
            "no runners".to_owned()
        } else {
            boxes.join(", ")
        }
    )
}

#[derive(Properties, PartialEq)]
pub struct ChainBoxProps {
    pub x: i32,
    pub chain_box: Rc<ChainBox>,
}

#[function_component(ChainBoxView)]
pub fn chain_box_view(p: &ChainBoxProps) -> Html {
    let b = &p.chain_box;
    with_data(
        html! {
            <g class={classes!("runner", b.class)} style={format!("transform: translate({}px, {BOX_Y}px)", p.x)}>
                <title>{b.tooltip.clone()}</title>
                <rect class="runner-box" width={BOX_W.to_string()} height={BOX_H.to_string()} rx="8" />
                <text x="10" y="21" class="runner-title">{box_line(&b.title, 15.0, TITLE_EM)}</text>
                <text x="10" y="37" class="runner-seq">{box_line(&b.subtitle, 12.0, LINE_EM)}</text>
                <g class="pills">{for b.pills.iter().zip(PILL_X).map(|(pill, x)| html! {
                    <g class={classes!("half", pill.class)} data-half={pill.label}>
                        <rect x={x.to_string()} y="45" width={PILL_W.to_string()} height={PILL_H.to_string()} rx="11" />
                        <text x={(x + PILL_W / 2).to_string()} y="61" text-anchor="middle">{pill.text.clone()}</text>
                    </g>
                })}</g>
                <text x="10" y="84" class="runner-status">{box_line(&b.status, 12.5, LINE_EM)}</text>
                // Always there (maybe empty), so the box keeps one shape from step to step.
                <text x="10" y="97" class="runner-remap">{box_line(b.extra.as_deref().unwrap_or_default(), 12.0, LINE_EM)}</text>
            </g>
        },
        &b.data,
    )
}

fn arrow(a: &Arrow) -> Html {
    let x = box_x(a.from);
    let y = BOX_Y + BOX_H / 2;
    let class = if a.closed { "tail closed" } else { "tail open" };
    let marker = if a.closed {
        "url(#arrow-closed)"
    } else {
        "url(#arrow-open)"
    };
    let target = match &a.to {
        ArrowTo::Box(j) => Some(box_x(*j) + BOX_W),
        ArrowTo::Slot => Some(SLOT_X + SLOT_W),
        ArrowTo::Label(_) => None,
    };
    let tag = match (target, &a.to) {
        (Some(tx), _) => {
            let d = if (x - tx).abs() < GAP + 1 {
                format!("M {x} {y} L {} {y}", tx + 2)
            } else {
                format!(
                    "M {x} {y} C {} {}, {} {}, {} {y}",
                    x - 40,
                    y + ARROW_BEND,
                    tx + 40,
                    y + ARROW_BEND,
                    tx + 2
                )
            };
            html! { <path class={class} d={d} marker-end={marker} /> }
        }
        (None, ArrowTo::Label(l)) => html! {
            <g class={class}>
                <path d={format!("M {x} {y} L {} {y}", x - 26)} />
                <text x={(x - 28).to_string()} y={(y + 4).to_string()} text-anchor="end" class="tail-label">{l.clone()}</text>
            </g>
        },
        (None, _) => html! {},
    };
    with_data(tag, &a.data)
}

fn token(t: &Token) -> Html {
    let (x, y) = match t.at {
        TokenAt::Box(i) => (box_x(i) + BOX_W - 18, BOX_Y - 2),
        TokenAt::Slot => (SLOT_X + SLOT_W - 18, BOX_Y - 2),
        TokenAt::Queued(i) => (SLOT_X + 16 + i as i32 * QUEUED_DX, BOX_Y + BOX_H + 8),
    };
    html! {
        <g key={t.key.clone()} class={classes!("token", t.class)} data-token={t.key.clone()}
           style={format!("transform: translate({x}px, {y}px)")}>
            <title>{t.tooltip.clone()}</title>
            <path d={format!("M 0 -{TOKEN_R} L {TOKEN_R} 0 L 0 {TOKEN_R} L -{TOKEN_R} 0 Z")} />
            <text y="4.5" text-anchor="middle">{t.label.clone()}</text>
        </g>
    }
}

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    pub panel: Rc<Panel>,
}

/// A panel; Yew skips it when it is equal to the last step's.
#[function_component(PanelView)]
pub fn panel_view(p: &PanelProps) -> Html {
    let panel = &p.panel;
    // Its tables' folded rows shown (see `flush_core::view::Fold`).
    let unfolded = use_state(|| false);
    html! {
        <section class={format!("panel {}", panel.class)} id={panel.id}>
            <h3>{super::glossary::glossed(&panel.title)}</h3>
            {for panel.blocks.iter().map(|b| block(&panel.title, b, &unfolded))}
        </section>
    }
}

fn block(title: &str, b: &Block, unfolded: &UseStateHandle<bool>) -> Html {
    match b {
        Block::Note(t) => html! { <p class="muted">{t.clone()}</p> },
        Block::Badges(bs) => html! { <p>{for bs.iter().map(badge)}</p> },
        Block::Chips {
            lead,
            strong,
            chips,
        } => html! {
            <div class="packs">
                if let Some(l) = lead {
                    if *strong { <strong>{l.clone()}</strong> } else { <span class="muted">{l.clone()}</span> }
                }
                <ul class="pack-list">
                    {for chips.iter().map(chip)}
                </ul>
            </div>
        },
        Block::Table(t) => table_view(title, t, unfolded),
    }
}

/// A chip, keyed when its list slides (see [`flush_core::view::Chip::key`]).
fn chip(c: &flush_core::view::Chip) -> Html {
    let mut li = html! {
        <li class={classes!("pack", c.class)} title={c.tooltip.clone()}>{c.text.clone()}
            // Not by colour or a tooltip alone: the newest says so, and the tooltip is text too.
            if c.class == "fresh" { <span class="row-mark">{" new"}</span> }
            if let Some(t) = &c.tooltip { <span class="sr-only">{format!(", {t}")}</span> }
        </li>
    };
    // Just built, so not shared.
    if let (Html::VTag(t), Some(k)) = (&mut li, c.key) {
        if let Some(t) = Rc::get_mut(t) {
            t.key = Some(k.into());
        }
    }
    li
}

/// A table; its folded rows (if any) behind a button that shows or hides them,
/// drawn only when shown. Every row of the body is keyed, the button's too, in
/// one list, so a step that adds or removes a row moves one element.
fn table_view(title: &str, t: &Table, unfolded: &UseStateHandle<bool>) -> Html {
    let open = **unfolded;
    let fold = t.fold.as_ref().map(|f| {
        let toggle = {
            let unfolded = unfolded.clone();
            Callback::from(move |_| unfolded.set(!open))
        };
        let words = format!("{} {}", if open { "Hide" } else { "Show" }, f.words);
        html! {
            <tr key="fold" class="fold">
                <td colspan={t.columns.len().to_string()}>
                    <button type="button" class="fold-toggle" aria-expanded={open.to_string()} onclick={toggle}>{words}</button>
                </td>
            </tr>
        }
    });
    let folded = t.fold.iter().filter(|_| open).flat_map(|f| &f.rows);
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-label={title.to_owned()}>
        <table>
            <thead><tr>{for t.columns.iter().map(|(name, tip)| html! {
                <th scope="col" title={tip.clone()}>{name.clone()}</th>
            })}</tr></thead>
            <tbody>
                {for t.rows.iter().map(row_view).chain(fold).chain(folded.map(row_view))}
            </tbody>
        </table>
        </div>
    }
}

fn row_view(r: &Row) -> Html {
    with_data(
        html! {
            <tr key={r.key.clone()} class={r.class}>
                {for r.cells.iter().enumerate().map(|(i, c)| cell(c, i == 0 && r.class == "changed"))}
            </tr>
        },
        &r.data,
    )
}

/// A table cell; `changed` marks the first cell of a row the step changed (the row
/// also flashes, but not by colour alone).
fn cell(c: &Cell, changed: bool) -> Html {
    let mark = changed.then(|| html! { <span class="row-mark">{" changed"}</span> });
    match c {
        Cell::Text(t) => html! { <td>{t.clone()}{mark}</td> },
        Cell::State(s) => {
            html! { <td><span class={classes!("state", s.clone())}>{s.clone()}</span>{mark}</td> }
        }
        Cell::Wide { text, span } => {
            html! { <td colspan={span.to_string()}>{text.clone()}{mark}</td> }
        }
    }
}

/// The `<defs>` every lane SVG refers to (arrow heads).
pub fn svg_defs() -> Html {
    html! {
        <svg class="defs" width="0" height="0" aria-hidden="true">
            <defs>
                <marker id="arrow-open" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" fill="#c2410c" />
                </marker>
                <marker id="arrow-closed" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" fill="#15803d" />
                </marker>
            </defs>
        </svg>
    }
}

/// The same arrow-head definitions as text, for exported SVG files.
pub const SVG_DEFS_TEXT: &str = r##"<defs><marker id="arrow-open" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#c2410c"/></marker><marker id="arrow-closed" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#15803d"/></marker></defs>"##;

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-ins' longest lines are drawn as they are; a 64-character pos is
    /// cut to its box.
    #[test]
    fn fit_cuts_only_far_too_long_lines() {
        for t in ["B2 waits on its start signal", "runner pos=id2 (closed)"] {
            assert_eq!(box_line(t, 12.5, LINE_EM), t);
        }
        assert_eq!(
            slot_line("g12 closing (done closed)", 12.5, LINE_EM),
            "g12 closing (done closed)"
        );
        assert_eq!(box_line("pos=a", 15.0, TITLE_EM), "pos=a");
        let long = format!("pos={}", "p".repeat(64));
        let cut = box_line(&long, 15.0, TITLE_EM);
        assert!(cut.ends_with('…') && cut.starts_with("pos=ppp"), "{cut}");
        assert!(
            (cut.chars().count() as f32) * 15.0 * TITLE_EM <= (BOX_W - TEXT_PAD) as f32,
            "{cut}"
        );
        assert_eq!(box_line("", 15.0, TITLE_EM), "");
        // Wide characters count a whole em: 20 CJK characters do not fit a box
        // that 20 Latin ones fit, and the cut fits its room.
        let latin = format!("pos={}", "p".repeat(16));
        assert_eq!(box_line(&latin, 15.0, TITLE_EM), latin);
        let cjk = format!("pos={}", "段".repeat(16));
        let cut = box_line(&cjk, 15.0, TITLE_EM);
        assert!(cut.ends_with('…'), "{cut}");
        let width: f32 = cut.chars().map(|c| char_ems(c, TITLE_EM) * 15.0).sum();
        assert!(width <= (BOX_W - TEXT_PAD) as f32, "{cut}: {width} px");
        // Combining marks take no room.
        let marks = format!("pos={}", "e\u{301}".repeat(16));
        assert_eq!(box_line(&marks, 15.0, TITLE_EM), marks);
    }
}
