//! `gradfree plot`.

use anyhow::{Result, bail};
use gradfree_core::observer::read_generation_log;

use std::path::PathBuf;

use crate::chart::{LineChart, Series, line_chart};
use clap::Args;

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// JSON-lines logs written by `gradfree optimize --log` or `gradfree bo --log` (best f vs
    /// evaluations), or by `gradfree train --log` (test accuracy and label precision per epoch).
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Output image (.png or .svg).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Chart title [default: best f vs evaluations; training logs: test accuracy and label precision per epoch].
    #[arg(long)]
    pub title: Option<String>,
    /// Linear instead of log y axis.
    #[arg(long)]
    pub linear: bool,
    /// Plot the simple regret `best f - F_STAR` instead of best f (e.g. `--f-star 0` for the
    /// thesis' test functions; `gradfree bo` runs print f*).
    #[arg(long, allow_negative_numbers = true)]
    pub f_star: Option<f64>,
    /// Print one JSON object (output file, series) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &PlotArgs) -> Result<()> {
    if let Some(f) = args.f_star.filter(|f| !f.is_finite()) {
        bail!("invalid --f-star {f}: expected a finite number");
    }
    let shift = args.f_star.unwrap_or(0.0);
    let mut files = gradfree_core::RunFiles::new().add(gradfree_core::Role::Output, "--output", Some(&args.output));
    for log in &args.logs {
        files = files.add(gradfree_core::Role::Input, "a log", Some(log));
    }
    let _files = files.claim()?;
    // One chart draws logs of one kind: training curves (per epoch) or optimization runs (best
    // value per evaluation).
    let training: Vec<bool> = args.logs.iter().map(|p| start_record(p).is_some_and(|v| train_label(&v).is_some())).collect();
    if let (Some(t), Some(o)) = (training.iter().position(|&t| t), training.iter().position(|&t| !t)) {
        bail!(
            "{} is a log of `gradfree train` and {} is not: training and optimization logs cannot share a plot; plot each kind on its own",
            args.logs[t].display(),
            args.logs[o].display()
        );
    }
    if training.first() == Some(&true) {
        return plot_training(args);
    }
    let mut series = Vec::new();
    for path in &args.logs {
        let records = read_generation_log(path)?;
        if records.is_empty() {
            bail!("{}: no generation records (is it a log written by `gradfree optimize --log`?)", path.display());
        }
        let label = log_algorithm(path).unwrap_or_else(|| stem(path));
        let points: Vec<(f64, f64)> = records.iter().filter_map(|r| r.best_f.map(|f| (r.evaluations as f64, f - shift))).collect();
        warn_missing(path, records.len() - points.len(), records.len(), "best f");
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
    let title =
        args.title.as_deref().unwrap_or(if args.f_star.is_some() { "simple regret vs evaluations" } else { "best f vs evaluations" });
    draw(args, &LineChart { title, x_label: "evaluations", y_label, log_y, series: &series })
}

/// Draws the chart to `--output` and says so (one JSON object with `--json`).
fn draw(args: &PlotArgs, chart: &LineChart) -> Result<()> {
    line_chart(&args.output, chart)?;
    if args.json {
        let series: Vec<_> = chart.series.iter().map(|s| serde_json::json!({"label": s.label, "points": s.points.len()})).collect();
        outln!("{}", serde_json::json!({"output": args.output, "series": series}));
    } else {
        outln!("wrote {}", args.output.display());
    }
    Ok(())
}

/// Says on stderr that `missing` of a log's `total` records have no value of `what` (`null`: a
/// value that was not finite, or a record written without it), so they are not drawn.
fn warn_missing(path: &std::path::Path, missing: usize, total: usize, what: &str) {
    if missing > 0 {
        eprintln!("warning: {}: {missing} of {total} records have no {what} (null: not finite), so they are not drawn", path.display());
    }
}

fn stem(path: &std::path::Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A log's first record if it is a start record (`gradfree optimize`, `bo` and `train` write
/// one first); only regular files are read, and only their first line (at most 1 MiB).
fn start_record(path: &std::path::Path) -> Option<serde_json::Value> {
    use std::io::{BufRead, Read};
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let first = std::io::BufReader::new(file.take(1 << 20)).lines().next()?.ok()?;
    let v: serde_json::Value = serde_json::from_str(&first).ok()?;
    (v.get("type")?.as_str()? == "start").then_some(v)
}

/// The algorithm a log's start record names, if any.
fn log_algorithm(path: &std::path::Path) -> Option<String> {
    start_record(path)?.get("algorithm")?.as_str().map(str::to_string)
}

/// A `gradfree train` start record's label (loss and noise); `None` for other start records.
fn train_label(start: &serde_json::Value) -> Option<String> {
    let run = start.get("run")?;
    let loss = run.get("loss")?.as_str()?;
    Some(format!("{loss}, {}", run.get("noise").and_then(|l| l.as_str()).unwrap_or("")))
}

/// The per-epoch records of a `gradfree train --log` file (`None` for any other log): the run's
/// label (loss and noise) and `(epoch, test accuracy, label precision)`.
type TrainCurve = (String, Vec<(f64, Option<f64>, Option<f64>)>);

fn train_log(path: &std::path::Path) -> Result<Option<TrainCurve>> {
    let bytes = gradfree_core::read_regular_file(path)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines().map(serde_json::from_str::<serde_json::Value>);
    let Some(Ok(start)) = lines.next() else { return Ok(None) };
    let Some(label) = train_label(&start).filter(|_| start.get("type").and_then(|t| t.as_str()) == Some("start")) else {
        return Ok(None);
    };
    let mut points = Vec::new();
    let count = text.lines().count();
    let torn = !text.ends_with('\n');
    for (i, v) in lines.enumerate() {
        let line = text.lines().nth(i + 1).unwrap_or_default();
        // Blank lines are skipped, as in every log; so is a torn last line (a run killed while
        // writing it).
        if line.trim().is_empty() || (v.is_err() && torn && i + 2 == count) {
            continue;
        }
        let v = v.map_err(|e| {
            anyhow::anyhow!("{}: line {}: {}", path.display(), i + 2, gradfree_core::observer::describe_json_error(line, &e))
        })?;
        if v.get("type").and_then(|t| t.as_str()) == Some("generation") {
            let epoch = v.get("epoch").and_then(|e| e.as_f64()).unwrap_or(f64::NAN);
            points.push((epoch, v.get("test_accuracy").and_then(|a| a.as_f64()), v.get("label_precision").and_then(|a| a.as_f64())));
        }
    }
    Ok(Some((label, points)))
}

/// Test accuracy and label precision per epoch of `gradfree train` logs (linear axis).
fn plot_training(args: &PlotArgs) -> Result<()> {
    let mut series = Vec::new();
    for path in &args.logs {
        let Some((label, points)) = train_log(path)? else {
            bail!("{}: not a `gradfree train --log` file; training and optimization logs cannot share a plot", path.display());
        };
        if points.is_empty() {
            bail!("{}: no epoch records", path.display());
        }
        warn_missing(path, points.iter().filter(|p| p.1.is_none()).count(), points.len(), "test accuracy");
        let label = if args.logs.len() > 1 { format!("{label} ({})", stem(path)) } else { label };
        let test: Vec<(f64, f64)> = points.iter().filter_map(|p| p.1.map(|a| (p.0, a))).collect();
        let precision: Vec<(f64, f64)> = points.iter().filter_map(|p| p.2.map(|a| (p.0, a))).collect();
        series.push(Series { label: format!("test accuracy: {label}"), points: test, errors: Vec::new() });
        if !precision.is_empty() {
            series.push(Series { label: format!("label precision: {label}"), points: precision, errors: Vec::new() });
        }
    }
    let title = args.title.as_deref().unwrap_or("test accuracy and label precision per epoch");
    draw(args, &LineChart { title, x_label: "epoch", y_label: "accuracy / precision", log_y: false, series: &series })
}
