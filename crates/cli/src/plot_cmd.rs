//! `gradfree plot`.

use anyhow::{Result, bail};
use gradfree_core::observer::read_generation_log;

use crate::cli::PlotArgs;
use crate::plot::{LineChart, Series, line_chart};

pub fn run(args: &PlotArgs) -> Result<()> {
    let mut series = Vec::new();
    for path in &args.logs {
        let records = read_generation_log(path)?;
        if records.is_empty() {
            bail!("{}: no generation records (is it a log written by `gradfree optimize --log`?)", path.display());
        }
        let label = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let points = records.iter().filter_map(|r| r.best_f.map(|f| (r.evaluations as f64, f))).collect();
        series.push(Series { label, points });
    }
    let log_y = !args.linear;
    if log_y && series.iter().all(|s| s.points.iter().all(|p| p.1 <= 0.0)) {
        bail!("every best f is <= 0: a log axis cannot show them; use --linear");
    }
    line_chart(&args.output, &LineChart { title: &args.title, x_label: "evaluations", y_label: "best f", log_y, series: &series })?;
    if args.json {
        let series: Vec<_> = series.iter().map(|s| serde_json::json!({"label": s.label, "points": s.points.len()})).collect();
        outln!("{}", serde_json::json!({"output": args.output, "series": series}));
    } else {
        outln!("wrote {}", args.output.display());
    }
    Ok(())
}
