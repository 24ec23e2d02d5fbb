//! The figures of a run: plots drawn once per run (plotters SVG), with the cursor
//! as a separate line on top so that stepping does not redraw them.

use std::rc::Rc;

use flush_core::view::{Figures, Plot};
use yew::prelude::*;

use crate::plots::{self, css_color, tick_label, x_px, x_range, y_px, y_range, H, W};

/// A pixel position as an integer (keeps float formatting out of the bundle).
fn px(v: f64) -> String {
    (v.round() as i32).to_string()
}

#[derive(Properties, PartialEq)]
pub struct PlotsProps {
    pub figures: Rc<Figures>,
    pub cursor: u32,
}

/// The plots; their SVG is drawn once per run, the cursor line at every step.
#[function_component(Plots)]
pub fn plots_view(p: &PlotsProps) -> Html {
    let f = &p.figures;
    let svgs = use_memo(f.clone(), |f| {
        f.plots
            .iter()
            .map(|plot| AttrValue::from(plots::svg(&plot.series, f.len)))
            .collect::<Vec<_>>()
    });
    html! {
        <section class="panel plots" id="plots">
            <h3>{"Over the run"}</h3>
            <div class="plot-row" tabindex="0" role="region" aria-label="plots over the run">
                {for f.plots.iter().zip(svgs.iter()).map(|(plot, svg)| plot_box(plot, svg, f.len, p.cursor))}
            </div>
            {for f.notes.iter().map(|n| html! { <p class="muted">{n.clone()}</p> })}
        </section>
    }
}

fn plot_box(plot: &Plot, svg: &AttrValue, len: u32, cursor: u32) -> Html {
    let series = &plot.series;
    let (x0, x1) = x_range();
    let (y0, y1) = y_range();
    let x = if len == 0 {
        x0
    } else {
        x0 + (x1 - x0) * f64::from(cursor) / f64::from(len)
    };
    let title = plot.title.clone();
    html! {
        <div class="plot-box figure-light">
            <div class="plot-title">{title.clone()}</div>
            <figure class="plot" title={title.clone()} role="img" aria-label={format!(
                "plot: {title}; {}",
                series.iter().map(|s| plots::series_words(s, cursor)).collect::<Vec<_>>().join("; ")
            )}>
                {Html::from_html_unchecked(svg.clone())}
                <svg class="plot-cursor" width={W.to_string()} height={H.to_string()} aria-hidden="true">
                    <line x1={px(x)} x2={px(x)} y1={px(y0)} y2={px(y1)} />
                </svg>
                {for plots::y_ticks(series).iter().map(|v| html! {
                    <span class="tick y" style={format!("top:{}px; right:{}px", px(y_px(*v, series) - 9.0), px(f64::from(W) - x0 + 6.0))}>
                        {tick_label(*v)}</span>
                })}
                {for [0.0, 0.5, 1.0].iter().map(|f| html! {
                    <span class="tick x" style={format!("left:{}px; top:{}px", px(x_px(f * f64::from(len), len) - 20.0), px(y1 + 4.0))}>
                        {((f * f64::from(len)).round() as i64).to_string()}</span>
                })}
                <span class="tick axis" style={format!("left:{}px; top:{}px", px((x0 + x1) / 2.0 - 14.0), px(y1 + 16.0))}>{"step"}</span>
            </figure>
            <div class="legend">
                {for series.iter().enumerate().map(|(i, s)| html! {
                    <span class="legend-item">
                        <svg class="swatch" width="22" height="8" aria-hidden="true">
                            <line x1="1" y1="4" x2="21" y2="4" stroke={css_color(i)} stroke-width="3" stroke-dasharray={plots::dash(i)} />
                        </svg>{s.name.clone()}</span>
                })}
            </div>
        </div>
    }
}
