//! `gradfree reproduce`: the experiments of the source documents. Each experiment is a function
//! from a [`Ctx`] to a [`Report`] (tables, written files); this module prints the tables, writes
//! each as CSV next to the figures, and offers `--json`.

mod boltzmann;
mod common;
mod ingo_discrete;
mod ingo_synthetic;
mod lattice_search;
mod lattice_tables;
mod mines_logistic;
mod mines_synthetic;
mod qmc_integration;
mod sphere_coherence;
mod test_functions;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::cli::ReproduceArgs;

/// What an experiment needs to run.
pub struct Ctx {
    /// Shrink budgets so the experiment runs in seconds.
    pub quick: bool,
    /// The experiment's own output folder (created).
    pub out: PathBuf,
    /// Base seed.
    pub seed: u64,
    /// Runs per method, overriding the experiment's default.
    pub runs: Option<usize>,
    /// Reuse the finished runs kept in `<out>/runs/` (off with `--recompute`; runs are kept either way).
    pub reuse_runs: bool,
}

impl Ctx {
    /// The number of runs: `--runs` if given, else `quick` or `full`.
    pub fn runs(&self, quick: usize, full: usize) -> usize {
        self.runs.unwrap_or(if self.quick { quick } else { full })
    }

    /// The run cache for one problem instance (`tag` names it within the experiment).
    pub fn run_cache(&self, tag: &str) -> Option<common::RunCache> {
        Some(common::RunCache { dir: self.out.join("runs"), tag: tag.to_string(), reuse: self.reuse_runs })
    }
}

/// A table: printed aligned, written as CSV.
#[derive(Serialize)]
pub struct Table {
    pub title: String,
    /// File stem of the CSV.
    pub slug: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(title: impl Into<String>, slug: impl Into<String>, headers: &[&str]) -> Self {
        Table { title: title.into(), slug: slug.into(), headers: headers.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }

    fn print(&self) -> Result<()> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (wi, c) in w.iter_mut().zip(r) {
                *wi = (*wi).max(c.chars().count());
            }
        }
        outln!("\n{}", self.title);
        let line = |cells: &[String]| cells.iter().zip(&w).map(|(c, wi)| format!("{c:<wi$}")).collect::<Vec<_>>().join("  ");
        outln!("{}", line(&self.headers));
        outln!("{}", w.iter().map(|wi| "-".repeat(*wi)).collect::<Vec<_>>().join("  "));
        for r in &self.rows {
            outln!("{}", line(r));
        }
        Ok(())
    }

    fn write_csv(&self, dir: &Path) -> Result<PathBuf> {
        let esc = |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
        let mut text = self.headers.iter().map(|h| esc(h)).collect::<Vec<_>>().join(",") + "\n";
        for r in &self.rows {
            text += &(r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(",") + "\n");
        }
        let path = dir.join(format!("{}.csv", self.slug));
        gradfree_core::atomic_write(&path, text.as_bytes())?;
        Ok(path)
    }
}

/// What an experiment produced.
#[derive(Default, Serialize)]
pub struct Report {
    pub tables: Vec<Table>,
    /// Figures and other files written.
    pub files: Vec<PathBuf>,
    /// Remarks printed under the tables (choices where the source is silent, deviations).
    pub notes: Vec<String>,
}

/// A registered experiment.
pub struct Experiment {
    pub name: &'static str,
    pub source: &'static str,
    pub summary: &'static str,
    pub run: fn(&Ctx) -> Result<Report>,
}

/// Every registered experiment.
pub fn experiments() -> &'static [Experiment] {
    &[
        Experiment {
            name: "test-functions",
            source: "thesis Tables 3.1, 4.4; MiNES Table 1; thesis sec. 3.7.3",
            summary: "the benchmark functions: formulas, domains, minimizers, f(x*) checks, 2-D landscapes",
            run: test_functions::run,
        },
        Experiment {
            name: "ingo-synthetic",
            source: "thesis sec. 3.7.1, Fig. 3.1",
            summary: "Table 3.1 functions at d=100: INGO, INGOstep, Fast-INGO, IGO, CMA-ES, ES; log10 f vs evaluations",
            run: ingo_synthetic::run,
        },
        Experiment {
            name: "ingo-discrete",
            source: "thesis sec. 3.7.3, Fig. 3.3",
            summary: "binary reconstruction, d=100..2000: discrete INGO (with/without baseline) vs GA; mean regret vs evaluations",
            run: ingo_discrete::run,
        },
        Experiment {
            name: "mines-synthetic",
            source: "MiNES sec. 6.1, Fig. 1",
            summary: "ssphere d=400, quadratic d=200 (cond 2.306e3), diffpow d=100: MiNES, DF, NES, CMA-ES",
            run: mines_synthetic::run,
        },
        Experiment {
            name: "mines-logistic",
            source: "MiNES sec. 6.2, Fig. 2",
            summary: "l2-logistic regression on breast-cancer and digits (odd/even): train loss and test accuracy",
            run: mines_logistic::run,
        },
        Experiment {
            name: "lattice-search",
            source: "thesis sec. 4.6.4, Tables 4.1-4.3",
            summary: "min distance of 1000-3000 lattice points, d=10..50: Algorithm 10, Korobov, SCS, Algorithm 11",
            run: lattice_search::run,
        },
        Experiment {
            name: "lattice-distances",
            source: "thesis sec. 5.5.1, Tables 5.1-5.2",
            summary: "min l1/l2 toroidal distance of SubGroup and Korobov-searched lattices, d=50..500, vs the printed values",
            run: lattice_tables::distances,
        },
        Experiment {
            name: "lattice-timing",
            source: "thesis sec. 5.5.1, timing table",
            summary: "construction time of SubGroup lattices and of the Korobov search, d=500 and 1000",
            run: lattice_tables::timing,
        },
        Experiment {
            name: "sphere-coherence",
            source: "thesis sec. 5.6, Table 5.3",
            summary: "mutual coherence of SubGroup sphere points and i.i.d. Gaussian directions, d=50..1000",
            run: sphere_coherence::run,
        },
        Experiment {
            name: "qmc-integration",
            source: "thesis sec. 5.5.2, Fig. 5.1",
            summary: "integration error of exp(sum x_j j^-2) vs n, d=100 and 500: MC, Hua, Halton, Sobol, Korobov, SubGroup",
            run: qmc_integration::run,
        },
        Experiment {
            name: "boltzmann",
            source: "thesis sec. 5.5.4, Fig. 5.4",
            summary: "normalization constant and marginal likelihood of a continuous Boltzmann machine: MC, SubGroup, Sobol",
            run: boltzmann::run,
        },
    ]
}

#[derive(Serialize)]
struct JsonOut<'a> {
    experiment: &'a str,
    quick: bool,
    seconds: f64,
    report: &'a Report,
}

pub fn run(args: &ReproduceArgs) -> Result<()> {
    if args.list {
        for e in experiments() {
            outln!("{:<20} {} [{}]", e.name, e.summary, e.source);
        }
        return Ok(());
    }
    let name = args.experiment.as_deref().unwrap_or_default();
    let chosen: Vec<&Experiment> = if name == "all" {
        experiments().iter().collect()
    } else {
        match experiments().iter().find(|e| e.name == name) {
            Some(e) => vec![e],
            None => {
                bail!("unknown experiment `{name}`; known: all, {}", experiments().iter().map(|e| e.name).collect::<Vec<_>>().join(", "))
            }
        }
    };
    if args.runs == Some(0) {
        bail!("--runs 0: need at least one run");
    }
    let mut json = Vec::new();
    for e in chosen {
        let out = args.out.join(e.name);
        std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
        let t = std::time::Instant::now();
        if !args.json {
            outln!("== {} ({}){}", e.name, e.source, if args.quick { " [quick]" } else { "" });
        }
        let mut report =
            (e.run)(&Ctx { quick: args.quick, out: out.clone(), seed: args.seed, runs: args.runs, reuse_runs: !args.recompute })
                .with_context(|| format!("experiment {}", e.name))?;
        for table in &report.tables {
            let p = table.write_csv(&out)?;
            report.files.push(p);
        }
        let seconds = t.elapsed().as_secs_f64();
        if args.json {
            json.push(serde_json::to_value(JsonOut { experiment: e.name, quick: args.quick, seconds, report: &report })?);
        } else {
            for table in &report.tables {
                table.print()?;
            }
            for n in &report.notes {
                outln!("note: {n}");
            }
            outln!("\nwrote: {}", report.files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
            outln!("({:.1} s)\n", seconds);
        }
    }
    if args.json {
        outln!("{}", serde_json::json!({ "experiments": json }));
    }
    Ok(())
}

/// Formats a float for tables: 4 significant digits, scientific when small or large.
pub fn fmt(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if !v.is_finite() {
        format!("{v}")
    } else if v.abs() >= 1e-3 && v.abs() < 1e5 {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
}
