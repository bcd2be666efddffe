//! Shared machinery of the experiments: seeded repeated runs (in parallel over runs), convergence
//! curves on a common evaluation grid, and summaries.
//!
//! Long experiments keep each finished run in a cache folder (`<out>/<experiment>/runs/`), one
//! JSON file per run written atomically, so an interrupted `gradfree reproduce` resumes where it
//! stopped: a rerun with the same settings reads the finished runs back and computes only the rest.
//! A file whose stored key (algorithm, parameters, start, budget, target, seeds, version) differs
//! from the requested run's is ignored and overwritten.

use std::path::{Path, PathBuf};

use gradfree_core::stats::median;
use gradfree_core::{Bounds, Driver, DriverOptions, History, StopRules, derive_seed, rng_from_seed};
use gradfree_es::StartSpec;
use gradfree_problems::Problem;
use rayon::prelude::*;

use crate::Result;
use crate::report::create_dir;

/// One method of a comparison: registry name, label, parameters, initial scale.
#[derive(Clone)]
pub struct Method {
    /// Registry name of the algorithm.
    pub algo: &'static str,
    /// Label in tables and legends.
    pub label: String,
    /// Algorithm parameters.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Initial scale.
    pub sigma0: f64,
}

impl Method {
    /// A method; `params` must be a JSON object (anything else means no parameters).
    pub fn new(algo: &'static str, label: &str, sigma0: f64, params: serde_json::Value) -> Self {
        let params = match params {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        Method { algo, label: label.to_string(), params, sigma0 }
    }
}

/// The four methods of the MiNES comparisons (sec. 6): MiNES with `mines_params`, DF
/// (Nesterov–Spokoiny) with b = 10 pairs, alpha = 1e-6 and step `b/(4(d+4)L)`, NES (xNES) and
/// CMA-ES with their defaults and sigma0 = 0.5.
pub fn mines_comparison(d: usize, lipschitz: f64, mut mines_params: serde_json::Value) -> [Method; 4] {
    let b = 10.0;
    // The papers' methods, without the step-size safeguard of the defaults.
    if let Some(m) = mines_params.as_object_mut() {
        m.insert("step_control".into(), "none".into());
    }
    [
        Method::new("mines", "MiNES", 0.5, mines_params),
        Method::new(
            "nesterov-spokoiny",
            "DF",
            0.5,
            serde_json::json!({"directions": 10, "smoothing": 1e-6, "step_size": b / (4.0 * (d as f64 + 4.0) * lipschitz), "step_control": "none"}),
        ),
        Method::new("xnes", "NES (xNES)", 0.5, serde_json::json!({})),
        Method::new("cmaes", "CMA-ES", 0.5, serde_json::json!({})),
    ]
}

/// A finished run: best f (evaluations, best f) at the points of [`curve_points`], and the final best.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Run {
    /// `(evaluations, best f so far)` at the points of [`curve_points`].
    pub curve: Vec<(f64, f64)>,
    /// Final best value.
    pub best_f: f64,
    /// Evaluations done.
    pub evaluations: u64,
    /// Whether the run stopped on its target.
    pub hit_target: bool,
}

/// Where finished runs are kept: a folder and a tag naming the problem instance (file names are
/// `<tag>-<algo>-<label>-r<run>.json`).
pub struct RunCache {
    /// The folder.
    pub dir: PathBuf,
    /// Names the problem instance within the experiment.
    pub tag: String,
    /// Read finished runs back (else recompute them and overwrite the files).
    pub reuse: bool,
    /// Told of planned and finished runs.
    pub progress: Option<crate::ProgressSink>,
}

/// The evaluation counts at which a run's best-so-far value is kept: 400 evenly spaced points up to
/// the budget (so every `budget * k / 400`, hence the 1%, 10% and 100% checkpoints and any
/// `linear_grid(budget, n)` with n dividing 400) and 100 log-spaced points from 10 evaluations.
pub fn curve_points(budget: u64) -> Vec<f64> {
    let b = budget as f64;
    let mut q = linear_grid(budget, 400);
    if b > 10.0 {
        q.extend((0..100).map(|i| (10f64.ln() + (b / 10.0).ln() * i as f64 / 100.0).exp().floor()));
    }
    q.sort_by(f64::total_cmp);
    q.dedup();
    q
}

/// The run's curve thinned to [`curve_points`]: `value_at` at those points is unchanged.
fn thin(curve: &[(f64, f64)], budget: u64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = curve_points(budget).into_iter().filter_map(|e| value_at(curve, e).map(|v| (e, v))).collect();
    out.dedup_by(|b, a| a.1 == b.1 && a.0 <= b.0);
    out
}

/// `runs` independent runs of `m` on `p` (run `r` uses seed `derive_seed(seed, r)` for the
/// algorithm and the start point `x0 ~ U(init)`), unconstrained, in parallel over runs; each stops
/// at `budget` evaluations or at `target`. With a `cache`, finished runs are read from and written
/// to it (see the module docs); the results are the same with or without it.
#[allow(clippy::too_many_arguments)]
pub fn run_many(
    p: &dyn Problem,
    m: &Method,
    init: &Bounds,
    runs: usize,
    budget: u64,
    target: Option<f64>,
    seed: u64,
    cache: Option<&RunCache>,
) -> Result<Vec<Run>> {
    if let Some(c) = cache {
        create_dir(&c.dir)?;
    }
    // The experiment announced its runs (Ctx::plan_runs); each finished one is reported here.
    let progress = cache.and_then(|c| c.progress.clone());
    let tell = |cached: bool| {
        if let Some(p) = &progress {
            p.send(crate::ProgressEvent::Finished { cached });
        }
    };
    (0..runs)
        .into_par_iter()
        .map(|r| {
            let key = serde_json::json!({
                "version": env!("CARGO_PKG_VERSION"), "problem": p.name(), "dim": p.dimension(), "algo": m.algo,
                "params": m.params, "sigma0": m.sigma0, "init": [init.lower(), init.upper()], "budget": budget,
                "target": target, "seed": seed, "run": r,
            });
            let file = cache.map(|c| c.dir.join(format!("{}-{}-{}-r{r}.json", c.tag, m.algo, slug(&m.label))));
            if let Some(run) = file.as_deref().filter(|_| cache.is_some_and(|c| c.reuse)).and_then(|f| read_cached(f, &key)) {
                tell(true);
                return Ok(run);
            }
            let run = one_run(p, m, init, budget, target, derive_seed(seed, r as u64))?;
            if let Some(f) = &file {
                let text = serde_json::to_vec(&serde_json::json!({ "key": key, "run": run }))?;
                gradfree_core::atomic_write(f, &text)?;
            }
            tell(false);
            Ok(run)
        })
        .collect()
}

fn slug(label: &str) -> String {
    label.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// One cached run: the run stored in `file` under `key` when `ctx` reuses runs, else the result
/// of `compute`, then stored in `file` (atomically); `ctx`'s progress hears of it either way.
pub(crate) fn cached_run<R: serde::Serialize + serde::de::DeserializeOwned>(
    ctx: &crate::Ctx,
    file: &Path,
    key: &serde_json::Value,
    compute: impl FnOnce() -> Result<R>,
) -> Result<R> {
    if ctx.reuse_runs
        && let Some(run) = read_cached::<R>(file, key)
    {
        ctx.finished_one_cached();
        return Ok(run);
    }
    let run = compute()?;
    gradfree_core::atomic_write(file, &serde_json::to_vec(&serde_json::json!({ "key": key, "run": run }))?)?;
    ctx.finished_one();
    Ok(run)
}

/// The cached run in `file` (a `{"key": ..., "run": ...}` document) if its key is `key`.
pub(crate) fn read_cached<R: serde::de::DeserializeOwned>(file: &Path, key: &serde_json::Value) -> Option<R> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    if v.get("key")? != key {
        return None;
    }
    serde_json::from_value(v.get("run")?.clone()).ok()
}

fn one_run(p: &dyn Problem, m: &Method, init: &Bounds, budget: u64, target: Option<f64>, s: u64) -> Result<Run> {
    let x0 = init.sample_uniform(&mut rng_from_seed(derive_seed(s, 1)));
    let alg = gradfree_es::build(m.algo, &StartSpec { x0, sigma0: m.sigma0, seed: s, params: m.params.clone() })?;
    let mut opts = DriverOptions::new(StopRules { target, ..StopRules::max_evaluations(budget) });
    opts.parallel = false;
    let mut h = History::default();
    let mut d = Driver::new(alg, opts)?;
    let res = d.run(&p, &mut [&mut h])?;
    let curve: Vec<(f64, f64)> = h.records.iter().filter_map(|r| r.best_f.map(|f| (r.evaluations as f64, f))).collect();
    Ok(Run {
        curve: thin(&curve, budget),
        best_f: res.best_f,
        evaluations: res.evaluations,
        hit_target: matches!(res.stop_reason, Some(gradfree_core::StopReason::Target)),
    })
}

/// Best f of a run at `evals` evaluations (the last record at or before it; a run that stopped
/// earlier keeps its final value). `None` before the first generation.
pub fn value_at(curve: &[(f64, f64)], evals: f64) -> Option<f64> {
    let k = curve.partition_point(|(e, _)| *e <= evals);
    (k > 0).then(|| curve[k - 1].1)
}

/// Mean of `log10(max(f, floor))` over runs at each grid point where every run has a value.
pub fn mean_log10_curve(runs: &[Run], grid: &[f64], floor: f64) -> Vec<(f64, f64)> {
    grid.iter()
        .filter_map(|&e| {
            let vals: Option<Vec<f64>> = runs.iter().map(|r| value_at(&r.curve, e)).collect();
            vals.map(|v| (e, v.iter().map(|f| f.max(floor).log10()).sum::<f64>() / v.len() as f64))
        })
        .collect()
}

/// `n` points evenly spaced from `budget / n` to `budget`.
pub fn linear_grid(budget: u64, n: usize) -> Vec<f64> {
    (1..=n).map(|i| budget as f64 * i as f64 / n as f64).collect()
}

/// The table cells "runs that hit the target / runs" and "median evaluations of those runs" (`-`
/// if none did).
pub fn target_cells(runs: &[Run]) -> [String; 2] {
    let hits: Vec<f64> = runs.iter().filter(|r| r.hit_target).map(|r| r.evaluations as f64).collect();
    [format!("{}/{}", hits.len(), runs.len()), if hits.is_empty() { "-".into() } else { format!("{:.0}", median(&hits)) }]
}
