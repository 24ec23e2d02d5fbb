//! Plots of a run with plotters (SVG backend): drawn once per run, with the
//! cursor drawn on top as a separate line so that stepping does not redraw them.

use plotters::prelude::*;

use flush_core::view::Series;

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

/// The dash pattern of series `i` (SVG `stroke-dasharray`; empty: solid), so the
/// series differ by more than colour.
pub fn dash(i: usize) -> &'static str {
    ["", "7 4", "2 3", "10 3 2 3", "12 6", "1 5"][i % 6]
}

/// A series in words: its highest value and its value at step `cursor`.
pub fn series_words(s: &Series, cursor: u32) -> String {
    let max = s
        .points
        .iter()
        .copied()
        .fold(None::<(u32, f64)>, |m, p| match m {
            Some(m) if m.1 >= p.1 => Some(m),
            _ => Some(p),
        });
    let now = s.points.iter().take_while(|p| p.0 <= cursor).last();
    match (max, now) {
        (Some(m), Some(n)) => format!(
            "{}: highest {} (step {}), {} at step {cursor}",
            s.name,
            tick_label(m.1),
            m.0,
            tick_label(n.1)
        ),
        _ => format!("{}: no data", s.name),
    }
}

/// The color of series `i` as CSS (the legend is HTML, beside the plot).
pub fn css_color(i: usize) -> String {
    let c = COLORS[i % COLORS.len()];
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// Where the data range maps to pixels: the plotting area of every plot.
pub fn x_px(step: f64, len: u32) -> f64 {
    let (x0, x1) = x_range();
    x0 + (x1 - x0) * step / f64::from(len.max(1))
}

/// The value at the top of the y axis for these series (10% headroom).
pub fn y_top(series: &[Series]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0f64, f64::max)
        * 1.1
}

/// The tick values of the y axis (0, half, the largest value).
pub fn y_ticks(series: &[Series]) -> [f64; 3] {
    let top = y_top(series) / 1.1;
    [0.0, top / 2.0, top]
}

/// A tick label: whole numbers plainly, others with one decimal.
pub fn tick_label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        // One decimal, by integer arithmetic: float formatting would cost bundle size.
        let t = (v * 10.0).round() as i64;
        format!("{}.{}", t / 10, t % 10)
    }
}

pub fn y_px(v: f64, series: &[Series]) -> f64 {
    let (y0, y1) = y_range();
    y1 - (y1 - y0) * v / y_top(series)
}

/// An SVG document of one plot: grid, axes and lines. Titles, tick labels and
/// legends are HTML around it (plotters' text layout and configure_mesh would
/// cost about 18 KiB of gzipped wasm). Never panics: a drawing error gives a
/// note instead.
pub fn svg(series: &[Series], len: u32) -> String {
    let mut out = String::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let xmax = f64::from(len.max(1));
        let ymax = y_top(series);
        let mut chart = ChartBuilder::on(&root)
            .margin(MARGIN)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(0f64..xmax, 0f64..ymax)?;
        let grid = RGBColor(0xe2, 0xe8, 0xf0);
        for y in y_ticks(series) {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, y), (xmax, y)],
                grid,
            )))?;
        }
        for (i, s) in series.iter().enumerate() {
            chart.draw_series(LineSeries::new(
                s.points.iter().map(|p| (f64::from(p.0), p.1)),
                COLORS[i % COLORS.len()].stroke_width(2),
            ))?;
        }
        let axis = RGBColor(0x55, 0x60, 0x6e);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, ymax), (0.0, 0.0), (xmax, 0.0)],
            axis,
        )))?;
        root.present()?;
        Ok(())
    })();
    match drawn {
        // Dashes as the legend shows them (plotters draws every series solid).
        Ok(()) => (1..series.len()).fold(out, |svg, i| {
            let c = COLORS[i % COLORS.len()];
            let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
            svg.replace(&stroke, &format!("{stroke} stroke-dasharray=\"{}\"", dash(i)))
        }),
        Err(e) => format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='{W}' height='{H}'><text x='10' y='20'>plot unavailable: {}</text></svg>",
            e.to_string().replace('<', "&lt;")
        ),
    }
}
