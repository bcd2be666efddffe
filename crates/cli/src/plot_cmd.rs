//! `gradfree plot`.

use anyhow::{Result, bail};
use gradfree_core::observer::read_generation_log;

use crate::cli::PlotArgs;
use crate::plot::{LineChart, Series, line_chart};

pub fn run(args: &PlotArgs) -> Result<()> {
    if let Some(f) = args.f_star.filter(|f| !f.is_finite()) {
        bail!("invalid --f-star {f}: expected a finite number");
    }
    let shift = args.f_star.unwrap_or(0.0);
    let mut series = Vec::new();
    for path in &args.logs {
        let records = read_generation_log(path)?;
        if records.is_empty() {
            bail!("{}: no generation records (is it a log written by `gradfree optimize --log`?)", path.display());
        }
        let label = log_algorithm(path).unwrap_or_else(|| stem(path));
        let points = records.iter().filter_map(|r| r.best_f.map(|f| (r.evaluations as f64, f - shift))).collect();
        series.push(Series { label, points, errors: Vec::new() });
    }
    // Several runs of one algorithm: tell them apart by file name.
    let labels: Vec<String> = series.iter().map(|s| s.label.clone()).collect();
    for (s, path) in series.iter_mut().zip(&args.logs) {
        if labels.iter().filter(|l| **l == s.label).count() > 1 {
            s.label = format!("{} ({})", s.label, stem(path));
        }
    }
    let log_y = !args.linear;
    let y_label = if args.f_star.is_some() { "simple regret (best f - f*)" } else { "best f" };
    if log_y && series.iter().all(|s| s.points.iter().all(|p| p.1 <= 0.0)) {
        bail!("every {y_label} is <= 0: a log axis cannot show them; use --linear");
    }
    line_chart(&args.output, &LineChart { title: &args.title, x_label: "evaluations", y_label, log_y, series: &series })?;
    if args.json {
        let series: Vec<_> = series.iter().map(|s| serde_json::json!({"label": s.label, "points": s.points.len()})).collect();
        outln!("{}", serde_json::json!({"output": args.output, "series": series}));
    } else {
        outln!("wrote {}", args.output.display());
    }
    Ok(())
}

fn stem(path: &std::path::Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The algorithm a log's start record names (`gradfree optimize --log` writes it first), if any.
fn log_algorithm(path: &std::path::Path) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let first = std::io::BufReader::new(file).lines().next()?.ok()?;
    let v: serde_json::Value = serde_json::from_str(&first).ok()?;
    (v.get("type")?.as_str()? == "start").then(|| v.get("algorithm")?.as_str().map(str::to_string)).flatten()
}
