//! Shared machinery of the Bayesian-optimization experiments (thesis §4.7): one run of a batch
//! method on a problem with a box, its simple-regret curve, a cache of finished runs, and the
//! mean ± standard deviation curves with error bars.

use gradfree_bo::{BatchBo, BoParams, InnerOptions, Method, Space};
use gradfree_core::{AskTell, Objective, Population, derive_seed};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::report::create_dir;
use crate::{Ctx, Result, Series};

/// A finished run: `(evaluations, simple regret of the best so far)` after the design and after
/// every batch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BoRun {
    /// The regret curve.
    pub curve: Vec<(f64, f64)>,
    /// Seconds the run took (model fits and acquisition searches; the objectives are cheap).
    pub seconds: f64,
}

/// One experiment cell: a problem (objective, box, minimum) and a method with its batch size.
pub struct Cell<'a> {
    /// Names the cell in cache file names.
    pub tag: String,
    /// The objective.
    pub f: &'a (dyn Objective + Sync),
    /// Its box.
    pub space: Space,
    /// Its minimum (regret = best − f*).
    pub f_star: f64,
    /// The method.
    pub method: Method,
    /// Batch size L.
    pub batch: usize,
    /// Initial lattice points.
    pub n_initial: usize,
    /// Total evaluations.
    pub budget: usize,
}

/// Parameters of every run: the thesis' (Matérn 5/2 ARD, covariance weight 1), a randomly shifted
/// lattice design per run (the same for every method of that run).
fn params(cell: &Cell<'_>, run_seed: u64) -> BoParams {
    BoParams {
        method: cell.method,
        batch_size: cell.batch,
        n_initial: Some(cell.n_initial),
        budget: (cell.method == Method::Bull).then_some(cell.budget),
        inner: InnerOptions::default(),
        design_seed: Some(run_seed),
        ..BoParams::default()
    }
}

/// One run: the design, then batches until the budget.
pub fn one_run(cell: &Cell<'_>, run_seed: u64) -> Result<BoRun> {
    let t0 = std::time::Instant::now();
    let method_seed = derive_seed(run_seed, cell.method as u64 + 1);
    let mut bo = BatchBo::new(cell.space.clone(), params(cell, run_seed), method_seed)?;
    let mut curve = Vec::new();
    let mut told = 0usize;
    let mut best = f64::INFINITY;
    let mut pop = Population::empty(cell.space.dim());
    while told < cell.budget {
        let want = bo.population_size().min(cell.budget - told);
        bo.ask_batch_into(want, &mut pop)?;
        let values: Vec<f64> = pop.rows().map(|x| cell.f.eval(x)).collect();
        bo.tell(&pop, &values)?;
        told += values.len();
        best = values.iter().copied().fold(best, f64::min);
        curve.push((told as f64, (best - cell.f_star).max(0.0)));
    }
    Ok(BoRun { curve, seconds: t0.elapsed().as_secs_f64() })
}

/// `runs` runs of a cell (run `r` seeded by `derive_seed(ctx.seed, r)`), in parallel, kept in
/// `<out>/runs/` (one JSON file per run, written atomically) and read back on a re-run.
pub fn runs(ctx: &Ctx, cell: &Cell<'_>, runs: usize) -> Result<Vec<BoRun>> {
    let dir = ctx.out.join("runs");
    create_dir(&dir)?;
    (0..runs)
        .into_par_iter()
        .map(|r| {
            let seed = derive_seed(ctx.seed, r as u64);
            let key = serde_json::json!({
                "version": env!("CARGO_PKG_VERSION"), "model": gradfree_bo::MODEL_REVISION, "tag": cell.tag, "method": cell.method.name(), "batch": cell.batch,
                "n_initial": cell.n_initial, "budget": cell.budget, "seed": seed,
            });
            let file = dir.join(format!("{}-{}-L{}-r{r}.json", cell.tag, cell.method.name(), cell.batch));
            crate::runs::cached_run(ctx, &file, &key, || one_run(cell, seed))
        })
        .collect()
}

/// Mean and standard deviation of the runs' regret at each evaluation count all of them share.
pub fn mean_std(runs: &[BoRun]) -> Vec<(f64, f64, f64)> {
    let Some(first) = runs.first() else { return Vec::new() };
    first
        .curve
        .iter()
        .enumerate()
        .filter_map(|(k, &(e, _))| {
            let vals: Vec<f64> = runs.iter().filter_map(|r| r.curve.get(k).filter(|p| p.0 == e).map(|p| p.1)).collect();
            (vals.len() == runs.len()).then(|| {
                let (m, sd) = gradfree_core::stats::mean_sd(&vals);
                (e, m, sd)
            })
        })
        .collect()
}

/// A regret series with error bars (mean ± one standard deviation, the lower end kept above a
/// tenth of the mean so it shows on a log axis) at about six of its points and the last, so the
/// bars of several series stay readable.
pub fn series(label: &str, stats: &[(f64, f64, f64)]) -> Series {
    Series::mean_std(label, stats, 6, true)
}

/// `mean ± std` of the last point.
pub fn final_cell(stats: &[(f64, f64, f64)]) -> String {
    stats.last().map_or("-".into(), |&(_, m, s)| format!("{m:.4} ± {s:.4}"))
}
