//! Charts drawn with plotters and an embedded font (DejaVu Sans, Bitstream Vera licence, in
//! `assets/`), so PNG and SVG output needs no system font or fontconfig.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        // The font is compiled in; registration of valid TTF bytes cannot fail at run time.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

pub use gradfree_experiments::{Figure, Heatmap, Series};

/// A line chart: title, axis labels, and whether y is on a log scale.
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_y: bool,
    pub series: &'a [Series],
}

fn color(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

/// Encodes `pixels` (RGB, `size` = width x height) as PNG and writes them to `path` atomically:
/// an existing file is replaced only by a complete image, and a failure names the path and the
/// cause.
fn write_png(path: &Path, size: (u32, u32), pixels: &[u8]) -> Result<()> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(pixels, size.0, size.1, image::ColorType::Rgb8)
        .with_context(|| format!("encoding {}", path.display()))?;
    gradfree_core::atomic_write(path, &png)?;
    Ok(())
}

/// Writes `chart` to `path` (`.png` or `.svg`, 900 x 600), atomically.
pub fn line_chart(path: &Path, chart: &LineChart) -> Result<()> {
    register_font();
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => {
            let size = (900, 600);
            let mut pixels = vec![0u8; 900 * 600 * 3];
            let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
            draw_line_chart(&root, chart, true)?;
            root.present().map_err(|e| anyhow::anyhow!("drawing {}: {e}", path.display()))?;
            drop(root);
            write_png(path, size, &pixels)?;
        }
        Some("svg") => {
            let mut svg = String::new();
            let root = SVGBackend::with_string(&mut svg, (900, 600)).into_drawing_area();
            draw_line_chart(&root, chart, true)?;
            root.present().map_err(|e| anyhow::anyhow!("drawing {}: {e}", path.display()))?;
            drop(root);
            gradfree_core::atomic_write(path, svg.as_bytes())?;
        }
        _ => bail!("{}: output must end in .png or .svg", path.display()),
    }
    Ok(())
}

/// The font size, at most `size`, at which `title` fits the width of `area` (less its margins):
/// a long title is drawn smaller rather than cut at both edges.
fn title_size<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, size: f64) -> f64 {
    let avail = area.dim_in_pixel().0.saturating_sub(24) as f64;
    match area.estimate_text_size(title, &TextStyle::from(("sans-serif", size).into_font())) {
        Ok((w, _)) if w as f64 > avail && w > 0 => (size * avail / w as f64).max(9.0),
        _ => size,
    }
}

/// Draws a line chart into a drawing area (also used for panels of a grid), with its legend in the
/// emptiest corner if `legend`.
pub fn draw_line_chart<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &LineChart, legend: bool) -> Result<()>
where
    DB::ErrorType: 'static,
{
    register_font();
    area.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let pts =
        || chart.series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| x.is_finite() && y.is_finite() && (!chart.log_y || *y > 0.0));
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    // Error bars widen the range too (their ends stay visible).
    for (_, lo, hi) in chart.series.iter().flat_map(|s| s.errors.iter()) {
        for v in [*lo, *hi] {
            if v.is_finite() && (!chart.log_y || v > 0.0) && x0.is_finite() {
                y0 = y0.min(v);
                y1 = y1.max(v);
            }
        }
    }
    if !x0.is_finite() {
        bail!("nothing to plot: no finite{} values", if chart.log_y { " positive" } else { "" });
    }
    let (x0, x1) = axis_range(x0, x1, false);
    let (mut y0, mut y1) = axis_range(y0, y1, chart.log_y);
    // A log axis is drawn as a linear axis of log10(y) with labels 10^v: plotters' own log scale
    // loops forever or allocates gigabytes on ranges that reach subnormals or span 400 decades.
    let to_axis = |y: f64| if chart.log_y { y.log10() } else { y };
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e}");
    let mut builder = ChartBuilder::on(area);
    // The right margin leaves room for the last x tick label, which is centred on the edge.
    builder
        .caption(chart.title, ("sans-serif", title_size(area, chart.title, 22.0)))
        .margin(12)
        .margin_right(40)
        .x_label_area_size(45)
        .y_label_area_size(75);
    let (legend_at, crowded) = legend_position(chart, (x0, x1), (to_axis(y0), to_axis(y1)), &to_axis);
    // No corner is empty: make room above (or below) the data for the legend.
    if legend && crowded && chart.series.len() > 1 {
        let top = matches!(legend_at, SeriesLabelPosition::UpperRight | SeriesLabelPosition::UpperLeft);
        match (chart.log_y, top) {
            (true, true) => y1 = (y1 * 10.0).min(1e300),
            (true, false) => y0 = (y0 / 10.0).max(1e-300),
            (false, true) => y1 += 0.4 * (y1 - y0),
            (false, false) => y0 -= 0.4 * (y1 - y0),
        }
    }
    // On a log axis the range spans whole decades (axis_range) and the labels sit on decades.
    let decades = if chart.log_y { (to_axis(y1) - to_axis(y0)).round() as usize } else { 0 };
    let y_labels = if chart.log_y { decades.clamp(1, 10) + 1 } else { 8 };
    macro_rules! body {
        ($c:expr) => {{
            let mut c = $c;
            c.configure_mesh()
                .x_labels(7)
                .y_labels(y_labels)
                .x_label_formatter(&|v: &f64| fmt_tick(*v))
                .y_label_formatter(&|v: &f64| if chart.log_y { fmt_pow10(*v) } else { fmt_tick(*v) })
                .x_desc(chart.x_label)
                .y_desc(chart.y_label)
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 16))
                .draw()
                .map_err(e)?;
            for (i, s) in chart.series.iter().enumerate() {
                let col = color(i);
                // Values beyond the axis range (e.g. subnormals on a log axis) sit on its edge.
                let data: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|(x, y)| x.is_finite() && y.is_finite() && (!chart.log_y || *y > 0.0))
                    .map(|(x, y)| (x, to_axis(y.clamp(y0, y1))))
                    .collect();
                // Sparse series (a few sizes) also get markers, so a single point is visible.
                if data.len() <= 12 {
                    c.draw_series(data.iter().map(|p| Circle::new(*p, 3, col.filled()))).map_err(e)?;
                }
                // Error bars: a whisker from low to high with short caps.
                let bars: Vec<(f64, f64, f64)> = s
                    .errors
                    .iter()
                    .copied()
                    .filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite())
                    .map(|(x, lo, hi)| {
                        let clip = |v: f64| to_axis(if chart.log_y { v.max(y0) } else { v }.clamp(y0, y1));
                        (x, clip(lo), clip(hi))
                    })
                    .collect();
                let cap = 0.006 * (x1 - x0);
                // Bars at every point of a long series are a band: shaded, no whiskers.
                let band = bars.len() == s.points.len() && bars.len() > 12;
                if band {
                    let outline: Vec<(f64, f64)> =
                        bars.iter().map(|&(x, lo, _)| (x, lo)).chain(bars.iter().rev().map(|&(x, _, hi)| (x, hi))).collect();
                    c.draw_series(std::iter::once(Polygon::new(outline, col.mix(0.18).filled()))).map_err(e)?;
                }
                let bars = if band { Vec::new() } else { bars };
                c.draw_series(bars.iter().flat_map(|&(x, lo, hi)| {
                    [
                        PathElement::new(vec![(x, lo), (x, hi)], col.stroke_width(1)),
                        PathElement::new(vec![(x - cap, lo), (x + cap, lo)], col.stroke_width(1)),
                        PathElement::new(vec![(x - cap, hi), (x + cap, hi)], col.stroke_width(1)),
                    ]
                }))
                .map_err(e)?;
                c.draw_series(LineSeries::new(data, col.stroke_width(2)))
                    .map_err(e)?
                    .label(s.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
            }
            if legend && (chart.series.len() > 1 || chart.series.iter().any(|s| !s.label.is_empty())) {
                c.configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 14))
                    .position(legend_at)
                    .draw()
                    .map_err(e)?;
            }
        }};
    }
    body!(builder.build_cartesian_2d(x0..x1, to_axis(y0)..to_axis(y1)).map_err(e)?);
    Ok(())
}

/// The corner of the plot whose quarter holds the fewest data points, for the legend (the top
/// corners win ties, the right one first), and whether that corner still holds data.
fn legend_position(
    chart: &LineChart,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    to_axis: &dyn Fn(f64) -> f64,
) -> (SeriesLabelPosition, bool) {
    // Count points in the four corner boxes (40% of the width, 40% of the height, where a legend
    // of a few lines sits), and in the box the legend itself covers (a third of the width, 7% of
    // the height per line).
    let mut counts = [0usize; 4]; // upper right, upper left, lower right, lower left
    let mut covered = [0usize; 4];
    let h = (0.07 * chart.series.len() as f64 + 0.04).min(0.45);
    let mut count = |u: f64, v: f64| {
        let (right, left, top, bottom) = (u > 0.55, u < 0.45, v > 0.55, v < 0.45);
        counts[0] += (right && top) as usize;
        counts[1] += (left && top) as usize;
        counts[2] += (right && bottom) as usize;
        counts[3] += (left && bottom) as usize;
        let (right, left, top, bottom) = (u > 0.64, u < 0.36, v > 1.0 - h, v < h);
        covered[0] += (right && top) as usize;
        covered[1] += (left && top) as usize;
        covered[2] += (right && bottom) as usize;
        covered[3] += (left && bottom) as usize;
    };
    for s in chart.series {
        // Points in axis units [0, 1]^2, and 16 points along each segment between them: a
        // flat line stored as two points still covers its corner.
        let mut last: Option<(f64, f64)> = None;
        for &(x, y) in &s.points {
            if !(x.is_finite() && y.is_finite()) || (chart.log_y && y <= 0.0) {
                continue;
            }
            let (u, v) = ((x - x0) / (x1 - x0), ((to_axis(y) - y0) / (y1 - y0)).clamp(0.0, 1.0));
            match last {
                Some((pu, pv)) => {
                    for k in 1..=16 {
                        let t = k as f64 / 16.0;
                        count(pu + t * (u - pu), pv + t * (v - pv));
                    }
                }
                None => count(u, v),
            }
            last = Some((u, v));
        }
    }
    let best = (0..4).min_by_key(|&i| (counts[i], i)).unwrap_or(0);
    let corner =
        [SeriesLabelPosition::UpperRight, SeriesLabelPosition::UpperLeft, SeriesLabelPosition::LowerRight, SeriesLabelPosition::LowerLeft]
            [best]
            .clone();
    (corner, covered[best] > 0)
}

/// A drawable axis range around the data range `[lo, hi]` (finite, `lo <= hi`, positive when
/// `log`): padded by 5% (linear), or widened to whole decades with some room (log, at least one
/// decade), a nonzero width on a linear axis, and clamped to `[1e-300, 1e300]` (log) or `+-1e300`
/// (linear) so that no bound, width or tick computation overflows or reaches zero.
pub fn axis_range(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    const BIG: f64 = 1e300;
    if log {
        let clamp = |v: f64| v.max(1e-300).log10().clamp(-300.0, 300.0);
        let (mut l0, mut l1) = (clamp(lo) - 0.3, clamp(hi) + 0.3);
        if l1 - l0 < 1.0 {
            let mid = (l0 + l1) / 2.0;
            (l0, l1) = (mid - 0.5, mid + 0.5);
        }
        let shift = (-300.0 - l0).max(0.0) - (l1 - 300.0).max(0.0);
        (l0, l1) = ((l0 + shift).floor().max(-300.0), (l1 + shift).ceil().min(300.0));
        (10f64.powf(l0), 10f64.powf(l1))
    } else {
        let (lo, hi) = (lo.clamp(-BIG, BIG), hi.clamp(-BIG, BIG));
        let span = hi - lo;
        let pad = if span > 0.0 { 0.05 * span } else { (0.05 * lo.abs()).max(1.0) };
        ((lo - pad).max(-1.05 * BIG), (hi + pad).min(1.05 * BIG))
    }
}

/// Labels of a log axis drawn in log10 space: `1e-8` at integer exponents, `3.2e-3` between.
fn fmt_pow10(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 { format!("1e{}", v.round() as i64) } else { format!("{:.1e}", 10f64.powf(v)) }
}

/// Tick labels: integers without decimals, otherwise 3 significant digits; a tick within rounding
/// of zero (`-5.55e-17` from stepping an axis by 0.1) is `0`.
fn fmt_tick(v: f64) -> String {
    let v = if v.abs() < 1e-12 { 0.0 } else { v };
    if v == v.round() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if v != 0.0 && (v.abs() < 1e-2 || v.abs() >= 1e5) {
        format!("{v:.2e}")
    } else {
        format!("{:.3}", v).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Writes a grid of heat maps (`cols` per row) to a PNG.
pub fn heatmap_grid(path: &Path, title: &str, panels: &[Heatmap], cols: usize) -> Result<()> {
    register_font();
    let rows = panels.len().div_ceil(cols);
    let size = (400 * cols as u32, 340 * rows as u32 + 40);
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(40);
    top.titled(title, ("sans-serif", 24))?;
    for (panel, area) in panels.iter().zip(body.split_evenly((rows, cols))) {
        let finite = panel.values.iter().copied().filter(|v| v.is_finite());
        let (vmin, vmax) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        // The colour bar: a strip on the right with the values at its ends and middle.
        let (map_area, bar_area) = area.split_horizontally(area.dim_in_pixel().0 as i32 - 80);
        let mut bar = ChartBuilder::on(&bar_area)
            .margin_top(30)
            .margin_bottom(45)
            .margin_right(8)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
        let (bmin, bmax) = if vmax > vmin { (vmin, vmax) } else { (vmin, vmin + 1.0) };
        bar.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(3)
            .y_label_formatter(&|t: &f64| fmt_tick(bmin + t * (bmax - bmin)))
            .label_style(("sans-serif", 11))
            .draw()?;
        bar.draw_series((0..64).map(|k| {
            let t = k as f64 / 64.0;
            Rectangle::new([(0.0, t), (1.0, t + 1.0 / 64.0)], viridis(t + 0.5 / 64.0).filled())
        }))?;
        let mut c = ChartBuilder::on(&map_area)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(8)
            .margin_right(16)
            .x_label_area_size(38)
            .y_label_area_size(48)
            .build_cartesian_2d(panel.lo..panel.hi, panel.lo..panel.hi)?;
        c.configure_mesh()
            .disable_mesh()
            .label_style(("sans-serif", 11))
            .axis_desc_style(("sans-serif", 13))
            .x_desc("x1")
            .y_desc("x2")
            .x_labels(5)
            .y_labels(5)
            .draw()?;
        let h = (panel.hi - panel.lo) / panel.n as f64;
        c.draw_series(panel.values.iter().enumerate().map(|(k, &v)| {
            let (i, j) = (k / panel.n, k % panel.n);
            let x = panel.lo + j as f64 * h;
            let y = panel.lo + i as f64 * h;
            let t = if vmax > vmin && v.is_finite() { (v - vmin) / (vmax - vmin) } else { 0.0 };
            Rectangle::new([(x, y), (x + h, y + h)], viridis(t).filled())
        }))?;
    }
    root.present().map_err(|e| anyhow::anyhow!("drawing {}: {e}", path.display()))?;
    drop((top, body, root));
    write_png(path, size, &pixels)
}

/// A compact approximation of the viridis color map, `t` in [0, 1].
fn viridis(t: f64) -> RGBColor {
    const K: [(f64, f64, f64); 5] = [(68., 1., 84.), (59., 82., 139.), (33., 145., 140.), (94., 201., 98.), (253., 231., 37.)];
    let t = t.clamp(0.0, 1.0) * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let (a, b) = (K[i], K[i + 1]);
    let m = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// Writes several line charts as panels of one PNG (`cols` per row, 600 x 420 each). When every
/// panel shows the same series, one legend for all of them is drawn in a strip below the panels
/// (a legend inside each panel covered data).
pub fn line_chart_grid(path: &Path, charts: &[LineChart], cols: usize) -> Result<()> {
    register_font();
    let rows = charts.len().div_ceil(cols);
    let labels: Vec<&str> = charts.first().map(|c| c.series.iter().map(|s| s.label.as_str()).collect()).unwrap_or_default();
    let shared = charts.len() > 1
        && labels.iter().any(|l| !l.is_empty())
        && charts.iter().all(|c| c.series.iter().map(|s| s.label.as_str()).eq(labels.iter().copied()));
    let width = 600 * cols as u32;
    // Legend entries laid out in rows across the width.
    let entry_width: u32 = labels.iter().map(|l| 40 + 8 * l.chars().count() as u32).max().unwrap_or(0).max(120);
    let per_row = (width.saturating_sub(40) / entry_width).max(1) as usize;
    let legend_rows = if shared { labels.len().div_ceil(per_row) } else { 0 };
    let strip = if shared { 16 + 24 * legend_rows as u32 } else { 0 };
    let size = (width, 420 * rows as u32 + strip);
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (panels, legend_area) = root.split_vertically(420 * rows as u32);
    for (chart, area) in charts.iter().zip(panels.split_evenly((rows, cols))) {
        draw_line_chart(&area, chart, !shared)?;
    }
    if shared {
        let start_x = (width - per_row.min(labels.len()) as u32 * entry_width) as i32 / 2;
        for (i, label) in labels.iter().enumerate() {
            let (row, col) = (i / per_row, i % per_row);
            let (x, y) = (start_x + (col as u32 * entry_width) as i32, 8 + 24 * row as i32 + 10);
            legend_area.draw(&PathElement::new(vec![(x, y), (x + 28, y)], color(i).stroke_width(3)))?;
            legend_area.draw(&Text::new(label.to_string(), (x + 36, y - 9), ("sans-serif", 16)))?;
        }
    }
    root.present().map_err(|e| anyhow::anyhow!("drawing {}: {e}", path.display()))?;
    drop((panels, legend_area, root));
    write_png(path, size, &pixels)
}

/// Draws an experiment's figure into `dir` (as PNG, under the figure's file name) and returns
/// the path.
pub fn draw_figure(dir: &Path, figure: &Figure) -> Result<std::path::PathBuf> {
    let path = dir.join(figure.file());
    match figure {
        Figure::Charts { charts, cols, .. } => {
            let charts: Vec<LineChart> = charts
                .iter()
                .map(|c| LineChart { title: &c.title, x_label: &c.x_label, y_label: &c.y_label, log_y: c.log_y, series: &c.series })
                .collect();
            line_chart_grid(&path, &charts, (*cols).max(1))?;
        }
        Figure::Heatmaps { title, panels, cols, .. } => heatmap_grid(&path, title, panels, (*cols).max(1))?,
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ranges_are_finite_and_wide() {
        for (lo, hi, log) in [
            (5e-324, 5e-324, true),
            (5e-324, 1.0, true),
            (1e307, 1e307, true),
            (1e-200, 1e200, true),
            (f64::MAX, f64::MAX, false),
            (-f64::MAX, f64::MAX, false),
            (0.0, 0.0, false),
            (1e300, 1e300 + 1e284, false),
        ] {
            let (a, b) = axis_range(lo, hi, log);
            assert!(a.is_finite() && b.is_finite() && a < b, "{lo} {hi} {log}: {a} {b}");
            assert!(b - a > 0.0 && (b - a).is_finite(), "{lo} {hi}: width");
            if log {
                assert!(a > 0.0 && b / a >= 10.0, "{lo} {hi}: {a} {b}");
                // Whole decades, so the ends are labelled.
                assert!((a.log10() - a.log10().round()).abs() < 1e-9 && (b.log10() - b.log10().round()).abs() < 1e-9, "{a} {b}");
            }
        }
        assert_eq!(axis_range(3e-11, 2e3, true), (1e-11, 1e4));
    }

    #[test]
    fn the_legend_goes_to_the_emptiest_corner() {
        let line = |pts: &[(f64, f64)]| Series { label: "a".into(), points: pts.to_vec(), errors: Vec::new() };
        let pos = |series: &[Series]| {
            let chart = LineChart { title: "", x_label: "", y_label: "", log_y: false, series };
            legend_position(&chart, (0.0, 1.0), (0.0, 1.0), &|y| y).0
        };
        // A line falling from the upper left to the lower right: the upper right is empty.
        assert!(matches!(pos(&[line(&[(0.0, 1.0), (1.0, 0.0)])]), SeriesLabelPosition::UpperRight));
        // A flat line along the top, stored as two points, leaves the lower corners; the right wins.
        assert!(matches!(pos(&[line(&[(0.0, 0.9), (1.0, 0.9)])]), SeriesLabelPosition::LowerRight));
        // Rising from the lower left: the upper left is empty.
        assert!(matches!(pos(&[line(&[(0.0, 0.0), (1.0, 1.0)])]), SeriesLabelPosition::UpperLeft));
    }

    /// A title wider than the image is drawn smaller so that it fits; a short one keeps its size.
    #[test]
    fn long_titles_shrink_to_fit() {
        register_font();
        let mut svg = String::new();
        let area = SVGBackend::with_string(&mut svg, (600, 400)).into_drawing_area();
        assert_eq!(title_size(&area, "coverage", 22.0), 22.0);
        let long = "coverage of 95% intervals: configurations 1-6 linear, 7-12 logistic (identity, Toeplitz, equicorrelation)";
        let size = title_size(&area, long, 22.0);
        assert!(size < 22.0, "{size}");
        let (w, _) = area.estimate_text_size(long, &TextStyle::from(("sans-serif", size).into_font())).unwrap();
        assert!(w <= 576 + 2, "{w}");
    }

    /// Data that used to hang or abort the plot (subnormals, constant huge values, 400 decades).
    #[test]
    fn extreme_values_plot_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let cases: Vec<(bool, Vec<(f64, f64)>)> = vec![
            (true, vec![(1.0, 1.0), (2.0, 1e-300), (3.0, 5e-324), (4.0, 0.0)]),
            (true, vec![(1.0, 1e307), (2.0, 1e307)]),
            (true, vec![(1.0, 1e200), (2.0, 1e-200)]),
            (false, vec![(1.0, -1e308), (2.0, 1e308)]),
            (false, vec![(1e300, 2.0), (1e300, 2.0)]),
        ];
        let (tx, rx) = std::sync::mpsc::channel();
        let out = dir.path().to_owned();
        std::thread::spawn(move || {
            for (i, (log_y, points)) in cases.into_iter().enumerate() {
                let series = [Series { label: String::new(), points, errors: Vec::new() }];
                let chart = LineChart { title: "t", x_label: "x", y_label: "y", log_y, series: &series };
                tx.send(line_chart(&out.join(format!("{i}.png")), &chart).map_err(|e| e.to_string())).unwrap();
            }
        });
        for i in 0..5 {
            let r = rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap_or_else(|_| panic!("case {i} hangs"));
            r.unwrap_or_else(|e| panic!("case {i}: {e}"));
        }
    }
}
