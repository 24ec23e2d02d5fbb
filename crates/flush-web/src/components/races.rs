//! "Data races at this step": the steps runnable at the cursor whose footprints
//! race (the core's race check), each side with its goroutine, the Go line and
//! statement, and the locks held, side by side, one click from running it.

use std::cell::RefCell;
use std::rc::Rc;

use flush_core::explore::RaceSide;
use flush_core::AnyRun;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::state::{Action, Dispatch};

/// Above this many runnable goroutines the check is not run (each is stepped on a
/// copy of the world), so a large scenario keeps stepping fast.
pub const MAX_RUNNABLE: usize = 200;

#[derive(Properties)]
pub struct RacesProps {
    pub run: Rc<RefCell<AnyRun>>,
    /// Bumped on every change of `run`.
    pub rev: u64,
    pub cursor: u32,
    pub dispatch: Dispatch,
}

impl PartialEq for RacesProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.run, &o.run)
            && (self.rev, self.cursor) == (o.rev, o.cursor)
            && self.dispatch == o.dispatch
    }
}

/// What the check says at the cursor.
#[derive(Clone, PartialEq)]
enum Here {
    Off,
    /// The model declares no footprints.
    Unknown,
    TooMany(usize),
    Races(Rc<Vec<[RaceSide; 2]>>),
}

#[function_component(RacesHere)]
pub fn races_here(p: &RacesProps) -> Html {
    let on = use_state(|| false);
    let here = {
        let run = p.run.clone();
        use_memo((p.rev, p.cursor, *on), move |&(_, _, on)| {
            let r = run.borrow();
            let runnable = r.runnable_here().len();
            if !on {
                Here::Off
            } else if runnable > MAX_RUNNABLE {
                Here::TooMany(runnable)
            } else {
                r.races_here()
                    .map_or(Here::Unknown, |v| Here::Races(Rc::new(v)))
            }
        })
    };
    let toggle = {
        let on = on.clone();
        Callback::from(move |e: Event| {
            on.set(e.target_unchecked_into::<HtmlInputElement>().checked())
        })
    };
    html! {
        <section class="panel races" id="races-here" aria-labelledby="races-title">
            <h3 id="races-title">{"Data races at this step"}</h3>
            <label class="check">
                <input type="checkbox" id="races-on" checked={*on} onchange={toggle} />
                {" check the steps runnable here for unordered accesses to one shared field"}
            </label>
            {match &*here {
                Here::Off => html! {},
                Here::Unknown => html! { <p class="muted">{"This model declares no footprints: nothing to check."}</p> },
                Here::TooMany(n) => html! {
                    <p class="muted">{format!("{n} goroutines are runnable here: the check runs at {MAX_RUNNABLE} or fewer.")}</p>
                },
                Here::Races(list) if list.is_empty() => html! {
                    <p id="races-none" class="v-ok">{"No two steps runnable here race."}</p>
                },
                Here::Races(list) => html! {
                    <>
                        <ul class="race-list">{for list.iter().map(|pair| race(pair, &p.dispatch))}</ul>
                        // The racing goroutines' boxes on the lanes get a thick outline.
                        <style>{lane_marks(list)}</style>
                    </>
                },
            }}
        </section>
    }
}

/// CSS that outlines, on the lanes, the runner boxes and handler slots of the
/// racing goroutines (the view marks each with `data-g`).
fn lane_marks(list: &[[RaceSide; 2]]) -> String {
    let mut sel = Vec::new();
    for s in list.iter().flatten() {
        let g = s.choice.g;
        sel.push(format!(".lane .runner[data-g=\"{g}\"] .runner-box"));
        sel.push(format!(".lane .handler-slot[data-g=\"{g}\"] > rect"));
    }
    format!(
        "{} {{ stroke: #b91c1c; stroke-width: 4.5; stroke-dasharray: none; }}",
        sel.join(", ")
    )
}

fn race(pair: &[RaceSide; 2], d: &Dispatch) -> Html {
    let a = &pair[0].access;
    html! {
        <li class="race" data-field={a.field}>
            <p><strong>{"race: "}</strong>{format!("{} of segment {}, unordered by happens-before", a.field, a.object)}</p>
            <div class="race-sides">{for pair.iter().map(|s| side(s, d))}</div>
        </li>
    }
}

fn side(s: &RaceSide, d: &Dispatch) -> Html {
    let a = &s.access;
    let (d, c) = (d.clone(), s.choice);
    html! {
        <div class="race-side" data-g={c.g.to_string()} data-line={a.site.line.to_string()}>
            <div class="who">{s.goroutine.clone()}</div>
            <div>{if a.write { "writes" } else { "reads" }}{" at "}<code>{format!("{}:{}", a.site.file, a.site.line)}</code></div>
            <div class="muted">{a.site.func}</div>
            <pre class="go-line"><code>{a.site.code}</code></pre>
            <div class={if a.locks.is_empty() { "unlocked" } else { "locked" }}>
                {if a.locks.is_empty() { "holding no lock".to_owned() } else { format!("holding {}", a.locks.join(", ")) }}
            </div>
            <button class="run-g" onclick={Callback::from(move |_| d.dispatch(Action::Choose(c)))}
                    aria-label={format!("run g{} (this side of the race)", c.g)}>{format!("run g{}", c.g)}</button>
        </div>
    }
}
