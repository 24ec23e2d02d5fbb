//! Plots of a run with plotters (SVG backend): drawn once per run, with the
//! cursor drawn on top as a separate line so that stepping does not redraw them.

use plotters::prelude::*;

use crate::stats::Series;

pub const W: u32 = 460;
pub const H: u32 = 190;
const MARGIN: u32 = 12;
const Y_LABELS: u32 = 44;
const X_LABELS: u32 = 30;
const CAPTION: u32 = 0;

const COLORS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x6f, 0xb2),
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x1b, 0x9e, 0x77),
    RGBColor(0x75, 0x70, 0xb3),
    RGBColor(0xe7, 0x29, 0x8a),
    RGBColor(0x66, 0x66, 0x66),
];

/// The x pixel range of the plotting area (for the cursor overlay).
pub fn x_range() -> (f64, f64) {
    (f64::from(MARGIN + Y_LABELS), f64::from(W - MARGIN))
}

/// The y pixel range of the plotting area.
pub fn y_range() -> (f64, f64) {
    (
        f64::from(MARGIN + CAPTION),
        f64::from(H - MARGIN - X_LABELS),
    )
}

/// The color of series `i` as CSS (the legend is HTML, beside the plot).
pub fn css_color(i: usize) -> String {
    let c = COLORS[i % COLORS.len()];
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// An SVG document of one plot (title and legend are HTML around it). Never
/// panics: a drawing error gives a note instead.
pub fn svg(series: &[Series], len: u32) -> String {
    let mut out = String::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let ymax = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(1.0f64, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .margin(MARGIN)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(0f64..f64::from(len.max(1)), 0f64..ymax)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| {
                if v.fract().abs() < 1e-9 {
                    format!("{v:.0}")
                } else {
                    String::new()
                }
            })
            .light_line_style(WHITE.mix(0.0))
            .label_style(("sans-serif", 13))
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            chart.draw_series(LineSeries::new(
                s.points.iter().map(|p| (f64::from(p.0), p.1)),
                COLORS[i % COLORS.len()].stroke_width(2),
            ))?;
        }
        root.present()?;
        Ok(())
    })();
    match drawn {
        Ok(()) => out,
        Err(e) => format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='{W}' height='{H}'><text x='10' y='20'>plot unavailable: {}</text></svg>",
            e.to_string().replace('<', "&lt;")
        ),
    }
}
