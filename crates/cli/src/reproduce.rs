//! `gradfree reproduce`: runs experiments of `gradfree_experiments`, prints their tables and notes,
//! writes each table as CSV and draws each figure next to them, and offers `--json`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use gradfree_experiments::{Ctx, Experiment, Report, experiments, find};
use serde::Serialize;

use crate::cli::ReproduceArgs;

#[derive(Serialize)]
struct JsonOut<'a> {
    experiment: &'a str,
    quick: bool,
    seconds: f64,
    report: JsonReport<'a>,
}

/// The report as `--json` prints it: tables, the files written, notes (figures are in the files).
#[derive(Serialize)]
struct JsonReport<'a> {
    tables: &'a [gradfree_experiments::Table],
    files: &'a [PathBuf],
    notes: &'a [String],
}

/// Writes the tables as CSV and draws the figures into `dir`; returns the files written.
pub fn write_report(report: &Report, dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for figure in &report.figures {
        files.push(crate::plot::draw_figure(dir, figure)?);
    }
    for table in &report.tables {
        files.push(table.write_csv(dir)?);
    }
    Ok(files)
}

pub fn run(args: &ReproduceArgs) -> Result<()> {
    if args.list {
        for e in experiments() {
            outln!("{:<20} {} [{}]", e.name, e.summary, e.source);
        }
        return Ok(());
    }
    let name = args.experiment.as_deref().unwrap_or_default();
    let chosen: Vec<&dyn Experiment> =
        if name == "all" { experiments().iter().map(|e| e as &dyn Experiment).collect() } else { vec![find(name)?] };
    if args.runs == Some(0) {
        bail!("--runs 0: need at least one run");
    }
    let mut json = Vec::new();
    for e in chosen {
        let out = args.out.join(e.name());
        std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
        let t = std::time::Instant::now();
        if !args.json {
            outln!("== {} ({}){}", e.name(), e.source(), if args.quick { " [quick]" } else { "" });
        }
        let ctx = Ctx { quick: args.quick, out: out.clone(), seed: args.seed, runs: args.runs, reuse_runs: !args.recompute };
        let report = e.run(&ctx).with_context(|| format!("experiment {}", e.name()))?;
        let files = write_report(&report, &out)?;
        let seconds = t.elapsed().as_secs_f64();
        if args.json {
            let report = JsonReport { tables: &report.tables, files: &files, notes: &report.notes };
            let o = JsonOut { experiment: e.name(), quick: args.quick, seconds, report };
            json.push(serde_json::to_value(o)?);
        } else {
            for table in &report.tables {
                outln!("");
                for line in table.lines() {
                    outln!("{line}");
                }
            }
            for n in &report.notes {
                outln!("note: {n}");
            }
            outln!("\nwrote: {}", files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
            outln!("({:.1} s)\n", seconds);
        }
    }
    if args.json {
        outln!("{}", serde_json::json!({ "experiments": json }));
    }
    Ok(())
}
