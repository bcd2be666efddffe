//! # gradfree-experiments
//!
//! Every experiment of the source documents as a library, and the construction of single runs.
//!
//! - [`Experiment`]: a named, cited computation from a [`Ctx`] (quick or full, seed, runs, a
//!   folder for its run cache) to a [`Report`]: tables, figures *as data* ([`Figure`]: line charts
//!   of any `(x, y)` series, heat maps) and notes. Nothing here prints or draws; the `gradfree`
//!   binary renders and prints reports, Python receives them as data. Best-f curves are one kind
//!   of series among others (integration errors, lattice distances, coherence, accuracy).
//! - [`experiments`]: the registry of every `gradfree reproduce` experiment.
//! - [`runs`]: seeded repeated runs with a run cache (finished runs are kept, so an interrupted
//!   reproduction resumes), convergence curves on a common grid, summaries.
//! - [`run_spec`]: one optimization run as a serializable specification with its defaults
//!   (budget `10^4 d`, start point uniform in the problem's initial region, `sigma0 = 0.3` of the
//!   domain width), as `gradfree optimize` and checkpoints use it.
//! - [`bo_run`]: one batch-BO run of a benchmark problem, as `gradfree bo` runs and checkpoints it.
//! - [`infer_run`] and `train_run` (feature `train`): one inference run and one training run as
//!   `gradfree infer` and `gradfree train` run and checkpoint them (and Python's classes build
//!   them); the front ends' run layer is these specification modules.
//! - [`integration`]: the named integration rules of `gradfree integrate` and the experiments.
//! - `progress` (feature `progress`): progress bars for the front ends.

pub mod bo_run;
pub mod catalog;
pub mod error;
pub mod infer_run;
pub mod integration;
#[cfg(feature = "progress")]
pub mod progress;
pub mod report;
pub mod run_spec;
pub mod runs;
#[cfg(feature = "train")]
pub mod train_run;
pub mod tuning;

use std::path::PathBuf;

pub use error::{ExperimentError, Result};
pub use gradfree_core::registry::{Entry, Registry};
pub use report::{Chart, Figure, Heatmap, Report, Series, Table, fmt};

/// The most runs per method an experiment takes ([`Ctx::runs`]; the documents use 5 to 50).
pub const MAX_RUNS: usize = 100_000;

/// What an experiment needs to run.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// Shrink budgets so the experiment runs in seconds (CI).
    pub quick: bool,
    /// The experiment's own folder (created by the caller): the run cache lives in `runs/`.
    pub out: PathBuf,
    /// Base seed.
    pub seed: u64,
    /// Runs per method, overriding the experiment's default (at most [`MAX_RUNS`]; front ends
    /// check it, and a larger value is taken as [`MAX_RUNS`]).
    pub runs: Option<usize>,
    /// Reuse the finished runs kept in `<out>/runs/` (runs are kept either way).
    pub reuse_runs: bool,
    /// Told how many runs are planned and when each finishes (a front end draws a progress bar
    /// from it; the library never prints).
    pub progress: Option<ProgressSink>,
}

/// What an experiment reports about its progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressEvent {
    /// This many more runs are planned.
    Planned(u64),
    /// One run finished (`cached`: read back from the run cache rather than computed).
    Finished {
        /// Read from the run cache.
        cached: bool,
    },
}

/// A receiver of [`ProgressEvent`]s, called from any thread.
#[derive(Clone)]
pub struct ProgressSink(pub std::sync::Arc<dyn Fn(ProgressEvent) + Send + Sync>);

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

impl ProgressSink {
    /// Sends one event.
    pub fn send(&self, e: ProgressEvent) {
        (self.0)(e)
    }
}

impl Ctx {
    /// A context with the given folder and defaults: full budgets, seed 0, the experiment's number
    /// of runs, cached runs reused.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        Ctx { quick: false, out: out.into(), seed: 0, runs: None, reuse_runs: true, progress: None }
    }

    /// The number of runs: `runs` if given, else `quick` or `full`.
    pub fn runs(&self, quick: usize, full: usize) -> usize {
        self.runs.unwrap_or(if self.quick { quick } else { full }).min(MAX_RUNS)
    }

    /// Announces the number of optimization runs the experiment will make (before making them),
    /// so a progress bar can show an ETA; [`runs::run_many`] reports each finished one.
    pub fn plan_runs(&self, n: u64) {
        if let Some(p) = &self.progress {
            p.send(ProgressEvent::Planned(n));
        }
    }

    /// Reports one finished unit of work that is not an optimization run (a Gram-error
    /// measurement, a timing), counted against [`Ctx::plan_runs`].
    pub fn finished_one(&self) {
        if let Some(p) = &self.progress {
            p.send(ProgressEvent::Finished { cached: false });
        }
    }

    /// Reports one unit of work read back from a run cache.
    pub fn finished_one_cached(&self) {
        if let Some(p) = &self.progress {
            p.send(ProgressEvent::Finished { cached: true });
        }
    }

    /// The run cache for one problem instance (`tag` names it within the experiment).
    pub fn run_cache(&self, tag: &str) -> runs::RunCache {
        runs::RunCache { dir: self.out.join("runs"), tag: tag.to_string(), reuse: self.reuse_runs, progress: self.progress.clone() }
    }
}

/// A reproducible experiment: a registry [`Entry`] (its name for `gradfree reproduce NAME`, a
/// one-line summary, and the table, figure or section it reproduces as its source) and the
/// computation.
pub trait Experiment: Entry {
    /// Runs it.
    fn run(&self, ctx: &Ctx) -> Result<Report>;
}

/// A registry entry: an experiment given by a function.
pub struct Registered {
    /// Name on the command line.
    pub name: &'static str,
    /// What it reproduces.
    pub source: &'static str,
    /// One line on what it computes.
    pub summary: &'static str,
    /// The computation.
    pub run: fn(&Ctx) -> Result<Report>,
}

impl Entry for Registered {
    fn info(&self) -> gradfree_core::registry::Info {
        gradfree_core::registry::Info { name: self.name, summary: self.summary, source: self.source }
    }
}

impl Experiment for Registered {
    fn run(&self, ctx: &Ctx) -> Result<Report> {
        (self.run)(ctx)
    }
}

/// Every registered experiment, in the order `reproduce all` runs them.
pub fn experiments() -> &'static [Registered] {
    catalog::ALL
}

/// Every registry of the project, in the order `gradfree list` shows them: algorithms, problems,
/// feature-map methods, batch BO rules, experiments.
pub fn registries() -> Vec<Registry> {
    vec![
        Registry::new("algorithms", "Algorithms", "gradfree optimize --algo NAME", gradfree_es::list()),
        Registry::new("problems", "Problems", "gradfree optimize --problem NAME", gradfree_problems::list()),
        Registry::new("feature_methods", "Feature-map methods", "gradfree features --method NAME", gradfree_features::METHODS),
        Registry::new("bo_methods", "Batch Bayesian optimization", "gradfree bo --method NAME", gradfree_bo::METHODS),
        Registry::new("experiments", "Experiments", "gradfree reproduce NAME", experiments()),
    ]
}

/// The experiment called `name`.
pub fn find(name: &str) -> Result<&'static Registered> {
    experiments().iter().find(|e| e.name == name).ok_or_else(|| ExperimentError::Unknown {
        name: name.to_string(),
        known: format!("all, {}", gradfree_core::registry::names(experiments())),
    })
}
