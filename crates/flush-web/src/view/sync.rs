//! The sync-2024 stage: lanes for the write buffer, the sync manager's tasks (each
//! pointing at its segment, red when the metacache lost it) and SyncSegments; the
//! metacache and datacoord's meta side by side.

use flush_core::scenario::Version;
use flush_core::sync2024::{At, MetaSeg, Role, World};
use yew::prelude::*;

use super::badge;

pub fn stage(w: &World, before: Option<&World>, removed_now: &[i64]) -> Html {
    let tasks: Vec<(u32, &flush_core::sync2024::SyncTask, &At, bool)> = w
        .goroutines
        .iter()
        .filter_map(|g| match (&g.role, &g.at) {
            (Role::Task(t), at) => Some((g.id, t, at, false)),
            (_, At::KeyLock(t)) => Some((g.id, t, &g.at, true)),
            _ => None,
        })
        .collect();
    let rpc = w.goroutines.iter().find_map(|g| match &g.at {
        At::SyncSegmentsRpc { handler, .. } => Some((g.id, *handler)),
        _ => None,
    });
    let handler = w
        .goroutines
        .iter()
        .find(|g| matches!(g.role, Role::Handler(_)));
    html! {
        <div class="stage-sync">
            <section class="lane" data-lane="write-buffer">
                <header class="lane-head"><h3>{"Write buffer (flow graph)"}</h3>
                    {badge("buffered segments", w.buffers.len(), "")}</header>
                <div class="cards">
                    if w.buffers.is_empty() { <span class="muted">{"empty: inserts buffer rows here until a sync takes them"}</span> }
                    {for w.buffers.iter().map(|b| html! {
                        <div class="card buffer" data-segment={b.segment.to_string()}>
                            <div class="card-title">{format!("segment {}", b.segment)}</div>
                            <div>{format!("{} rows buffered (last chunk {})", b.rows, b.last_chunk)}</div>
                        </div>
                    })}
                </div>
            </section>
            <section class="lane" data-lane="sync-manager">
                <header class="lane-head"><h3>{"Sync manager (tasks in flight)"}</h3>
                    {badge("tasks", tasks.len(), "")}</header>
                <div class="cards">
                    if tasks.is_empty() { <span class="muted">{"no sync task in flight"}</span> }
                    {for tasks.iter().map(|(g, t, at, waiting)| {
                        let present = w.metacache.get(t.segment).is_some();
                        let stage = match at {
                            _ if *waiting => "waits for its segment's key lock",
                            At::RunStart => "submitted: Run not started",
                            At::WriteLogs => "Run: segment found, writing binlogs",
                            At::SaveBinlogPaths { .. } => "writeMeta: SaveBinlogPaths in flight",
                            _ => "",
                        };
                        html! {
                            <div class={classes!("card", "task", (!present && !t.is_drop).then_some("danger"))}
                                 data-task={t.n.to_string()} data-segment={t.segment.to_string()} data-present={present.to_string()}>
                                <div class="card-title">{format!("sync task #{} · g{g}", t.n)}</div>
                                <div>{format!("segment {} · {} rows{}{}", t.segment, t.batch,
                                    if t.is_flush { " · flush" } else { "" }, if t.is_drop { " · drop" } else { "" })}</div>
                                <div class="muted">{stage}</div>
                                <div class={classes!("seglink", if present { "ok" } else { "missing" })}>
                                    {if present { format!("→ segment {} is in the metacache ✓", t.segment) }
                                     else { format!("→ segment {} is MISSING from the metacache ✗", t.segment) }}
                                </div>
                            </div>
                        }
                    })}
                </div>
            </section>
            <section class="lane" data-lane="sync-segments">
                <header class="lane-head"><h3>{"SyncSegments (datacoord → datanode)"}</h3>
                    {badge("version", w.version.as_str(), "version")}</header>
                <div class="cards">
                    if rpc.is_none() && handler.is_none() { <span class="muted">{"no SyncSegments call in flight"}</span> }
                    if let Some((dc, h)) = rpc {
                        <div class="card rpc"><div class="card-title">{format!("datacoord g{dc}")}</div>
                            <div>{format!("waits for the datanode's handler g{h} to return")}</div></div>
                    }
                    if let Some(h) = handler {
                        if let Role::Handler(req) = &h.role {
                            <div class="card handler">
                                <div class="card-title">{format!("DataNode.SyncSegments g{} · partition {}", h.id, req.partition)}</div>
                                <div>{format!("request: {}", if req.segments.is_empty() { "empty".to_owned() } else {
                                    req.segments.iter().map(|s| s.segment.to_string()).collect::<Vec<_>>().join(", ") })}</div>
                                <div class="muted">{match &h.at { At::LoadStats { load } => format!("loading PK stats of {}", load.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ")), _ => "arrived".to_owned() }}</div>
                            </div>
                        }
                    }
                </div>
            </section>
            <div class="row2">
                {metacache(w, before, removed_now)}
                {datacoord(w, before)}
            </div>
        </div>
    }
}

fn meta_row(s: &MetaSeg, changed: bool) -> Html {
    html! {
        <tr class={classes!(changed.then_some("changed"))} data-segment={s.segment.to_string()}>
            <td>{s.segment}</td><td>{s.partition}</td>
            <td><span class={classes!("state", s.state.as_str())}>{s.state.as_str()}</span></td>
            <td>{s.level.as_str()}</td>
            <td>{s.flushed_rows}</td><td>{s.buffer_rows}</td><td>{s.syncing_rows}</td><td>{s.syncing_tasks}</td>
        </tr>
    }
}

fn metacache(w: &World, before: Option<&World>, removed_now: &[i64]) -> Html {
    let changed = |s: &MetaSeg| before.is_some_and(|b| b.metacache.get(s.segment) != Some(s));
    html! {
        <section class="panel metacache" id="metacache">
            <h3>{"Datanode metacache"}</h3>
            <table>
                <thead><tr><th>{"segment"}</th><th>{"partition"}</th><th>{"state"}</th><th>{"level"}</th>
                    <th>{"flushed"}</th><th>{"buffered"}</th><th>{"syncing"}</th><th>{"tasks"}</th></tr></thead>
                <tbody>
                    {for w.metacache.segments().iter().map(|s| meta_row(s, changed(s)))}
                    {for removed_now.iter().filter_map(|id| before.and_then(|b| b.metacache.get(*id))).map(|s| html! {
                        <tr class="removed" data-segment={s.segment.to_string()}>
                            <td>{s.segment}</td><td>{s.partition}</td><td colspan="6">{format!("removed at this step (was {} {})", s.state.as_str(), s.level.as_str())}</td>
                        </tr>
                    })}
                </tbody>
            </table>
        </section>
    }
}

fn datacoord(w: &World, before: Option<&World>) -> Html {
    html! {
        <section class="panel datacoord" id="datacoord">
            <h3>{"Datacoord's meta"}</h3>
            <table>
                <thead><tr><th>{"segment"}</th><th>{"partition"}</th><th>{"state"}</th><th>{"level"}</th><th>{"PK statslog"}</th><th>{"rows"}</th></tr></thead>
                <tbody>
                    {for w.datacoord.iter().map(|d| {
                        let changed = before.is_some_and(|b| b.dc(d.segment) != Some(d));
                        html! {
                            <tr class={classes!(changed.then_some("changed"))} data-segment={d.segment.to_string()}>
                                <td>{d.segment}</td><td>{d.partition}</td>
                                <td><span class={classes!("state", d.state.as_str())}>{d.state.as_str()}</span></td>
                                <td>{d.level.as_str()}</td><td>{if d.statslog { "yes" } else { "no" }}</td><td>{d.rows}</td>
                            </tr>
                        }
                    })}
                </tbody>
            </table>
        </section>
    }
}

pub fn version_note(v: Version) -> String {
    format!("{}: {}", v.as_str(), v.summary())
}
