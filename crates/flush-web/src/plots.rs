//! Plots of a run with plotters (SVG backend): drawn once per run, with the
//! cursor drawn on top as a separate line so that stepping does not redraw them.

use plotters::prelude::*;

use crate::stats::Series;

pub const W: u32 = 460;
pub const H: u32 = 210;
const MARGIN: u32 = 12;
const Y_LABELS: u32 = 44;
const X_LABELS: u32 = 30;
const CAPTION: u32 = 26;

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
    (f64::from(MARGIN + CAPTION), f64::from(H - MARGIN - X_LABELS))
}

/// An SVG document of one plot. Never panics: a drawing error gives a note instead.
pub fn svg(title: &str, series: &[Series], len: u32) -> String {
    let mut out = String::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE)?;
        let ymax = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0f64, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin(MARGIN)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(0u32..len.max(1), 0f64..ymax)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_label_formatter(&|v| if v.fract().abs() < 1e-9 { format!("{v:.0}") } else { String::new() })
            .light_line_style(WHITE.mix(0.0))
            .label_style(("sans-serif", 13))
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let c = COLORS[i % COLORS.len()];
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?
                .label(s.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.2))
            .label_font(("sans-serif", 12))
            .draw()?;
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
