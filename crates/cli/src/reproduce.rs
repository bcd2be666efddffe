//! `gradfree reproduce`: runs experiments of `gradfree_experiments`, prints their tables and notes,
//! writes each table as CSV and draws each figure next to them, and offers `--json`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use gradfree_experiments::progress::{self, ProgressBar};
use gradfree_experiments::{Ctx, Experiment, MAX_RUNS, ProgressEvent, ProgressSink, Report, experiments, find};
use serde::Serialize;

use clap::Args;

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment name, or `all` (see `gradfree reproduce --list`).
    #[arg(required_unless_present = "list")]
    pub experiment: Option<String>,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// Shrink budgets so each experiment runs in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Output folder for CSV and PNG files.
    #[arg(long, short, default_value = "out")]
    pub out: PathBuf,
    /// Base seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of independent runs per method (default: the document's, or fewer with --quick).
    #[arg(long)]
    pub runs: Option<usize>,
    /// Recompute every run (and overwrite the kept copy) instead of reusing the finished runs kept
    /// in `<out>/<experiment>/runs/`; without it, an interrupted experiment resumes where it stopped.
    #[arg(long)]
    pub recompute: bool,
    /// Print one JSON object (tables and files) instead of text.
    #[arg(long)]
    pub json: bool,
}

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
        files.push(crate::chart::draw_figure(dir, figure)?);
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
    if let Some(r) = args.runs.filter(|r| !(1..=MAX_RUNS).contains(r)) {
        bail!("invalid --runs {r}: must be an integer in 1..={MAX_RUNS}");
    }
    // The output folder: a folder, or nothing yet (its files are then written atomically, each a
    // regular file or refused, as every command's).
    if let Ok(m) = std::fs::metadata(&args.out)
        && !m.is_dir()
    {
        bail!("--out {}: is not a folder; give a folder (it is created if missing)", args.out.display());
    }
    let all = name == "all";
    let mut json = Vec::new();
    let mut outcomes = Vec::new();
    for e in chosen {
        let t = std::time::Instant::now();
        match run_one(e, args) {
            Ok(v) => {
                json.extend(v);
                outcomes.push(Outcome::passed(e.name(), t));
            }
            // One experiment: its error is the command's. `all` goes on to the next experiment,
            // unless standard output is closed (every next one would fail the same way).
            Err(err) if !all || err.downcast_ref::<crate::StdoutError>().is_some() => return Err(err),
            Err(err) => {
                let install = err.downcast_ref::<gradfree_experiments::ExperimentError>().and_then(|x| x.install_line());
                eprintln!("error: {err:#}");
                outcomes.push(Outcome {
                    experiment: e.name(),
                    result: if install.is_some() { "skipped" } else { "failed" },
                    seconds: t.elapsed().as_secs_f64(),
                    error: Some(format!("{err:#}")),
                    install,
                });
            }
        }
    }
    if args.json {
        let mut out = serde_json::json!({ "experiments": json });
        if all {
            out["summary"] = serde_json::to_value(&outcomes)?;
        }
        outln!("{out}");
    } else if all {
        print_summary(&outcomes)?;
    }
    let failed = outcomes.iter().filter(|o| o.result == "failed").count();
    if failed > 0 {
        bail!("{failed} of {} experiments failed (see the summary)", outcomes.len());
    }
    Ok(())
}

/// What became of one experiment of `reproduce all`: `passed`, `failed`, or `skipped` when
/// something it needs is not installed (`install` says how to install it).
#[derive(Serialize)]
struct Outcome {
    experiment: &'static str,
    result: &'static str,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    install: Option<String>,
}

impl Outcome {
    fn passed(experiment: &'static str, t: std::time::Instant) -> Self {
        Outcome { experiment, result: "passed", seconds: t.elapsed().as_secs_f64(), error: None, install: None }
    }
}

/// The table that ends `reproduce all`: each experiment's result and time, and the install line
/// of each one skipped.
fn print_summary(outcomes: &[Outcome]) -> Result<()> {
    let count = |r: &str| outcomes.iter().filter(|o| o.result == r).count();
    outln!("== summary: {} passed, {} failed, {} skipped (not installed)", count("passed"), count("failed"), count("skipped"));
    let width = outcomes.iter().map(|o| o.experiment.len()).max().unwrap_or(10).max(10);
    outln!("{:<width$}  {:<7}  {:>9}  {}", "experiment", "result", "seconds", "to install / error");
    for o in outcomes {
        let detail = match (&o.install, &o.error) {
            (Some(i), _) => i.as_str(),
            (None, Some(e)) => e.lines().next().unwrap_or_default(),
            (None, None) => "",
        };
        let line = format!("{:<width$}  {:<7}  {:>9.1}  {}", o.experiment, o.result, o.seconds, detail);
        outln!("{}", line.trim_end());
    }
    Ok(())
}

/// Runs one experiment: prints its tables and notes (or returns its JSON object with `--json`)
/// and writes its files under `<out>/<name>/`.
fn run_one(e: &dyn Experiment, args: &ReproduceArgs) -> Result<Option<serde_json::Value>> {
    let out = args.out.join(e.name());
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let t = std::time::Instant::now();
    if !args.json {
        outln!("== {} ({}){}", e.name(), e.source(), if args.quick { " [quick]" } else { "" });
    }
    let bar = run_bar(e.name(), args.json);
    let progress = bar.clone().map(|b| {
        ProgressSink(std::sync::Arc::new(move |ev| match ev {
            ProgressEvent::Planned(n) => {
                b.set_style(progress::style(TEMPLATE_RUNS));
                b.inc_length(n)
            }
            ProgressEvent::Finished { .. } => b.inc(1),
        }))
    });
    let ctx = Ctx { quick: args.quick, out: out.clone(), seed: args.seed, runs: args.runs, reuse_runs: !args.recompute, progress };
    let report = e.run(&ctx).with_context(|| format!("experiment {}", e.name()));
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let report = report?;
    let files = write_report(&report, &out)?;
    let seconds = t.elapsed().as_secs_f64();
    if args.json {
        let report = JsonReport { tables: &report.tables, files: &files, notes: &report.notes };
        let o = JsonOut { experiment: e.name(), quick: args.quick, seconds, report };
        return Ok(Some(serde_json::to_value(o)?));
    }
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
    Ok(None)
}

/// A progress bar on stderr for one experiment, counting its runs with an ETA (none when stderr is
/// not a terminal or the output is JSON). Experiments without optimization runs show the elapsed
/// time only.
fn run_bar(name: &str, json: bool) -> Option<ProgressBar> {
    use std::io::IsTerminal;
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = progress::bar(Some(0), TEMPLATE_ELAPSED, true);
    bar.set_prefix(name.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    Some(bar)
}

/// The spinner with elapsed time, before runs are announced.
const TEMPLATE_ELAPSED: &str = "{spinner} {prefix} [{elapsed_precise}]";
/// The bar with an ETA, once runs are announced.
const TEMPLATE_RUNS: &str = "{spinner} {prefix} [{elapsed_precise}] {bar:30} {pos}/{len} runs, ETA {eta}";
