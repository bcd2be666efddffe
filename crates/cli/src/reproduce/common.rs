//! Shared machinery of the experiments: seeded repeated runs (in parallel over runs), convergence
//! curves on a common evaluation grid, and summaries.

use anyhow::Result;
use gradfree_core::{Bounds, Driver, DriverOptions, History, StopRules, derive_seed, rng_from_seed};
use gradfree_es::StartSpec;
use gradfree_problems::Problem;
use rayon::prelude::*;

/// One method of a comparison: registry name, label, parameters, initial scale.
#[derive(Clone)]
pub struct Method {
    pub algo: &'static str,
    pub label: String,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub sigma0: f64,
}

impl Method {
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
pub fn mines_comparison(d: usize, lipschitz: f64, mines_params: serde_json::Value) -> [Method; 4] {
    let b = 10.0;
    [
        Method::new("mines", "MiNES", 0.5, mines_params),
        Method::new(
            "nesterov-spokoiny",
            "DF",
            0.5,
            serde_json::json!({"directions": 10, "smoothing": 1e-6, "step_size": b / (4.0 * (d as f64 + 4.0) * lipschitz)}),
        ),
        Method::new("xnes", "NES (xNES)", 0.5, serde_json::json!({})),
        Method::new("cmaes", "CMA-ES", 0.5, serde_json::json!({})),
    ]
}

/// A finished run: best f after each generation (evaluations, best f), and the final best.
pub struct Run {
    pub curve: Vec<(f64, f64)>,
    pub best_f: f64,
    pub evaluations: u64,
    pub hit_target: bool,
}

/// `runs` independent runs of `m` on `p` (run `r` uses seed `derive_seed(seed, r)` for the
/// algorithm and the start point `x0 ~ U(init)`), unconstrained, in parallel over runs; each stops
/// at `budget` evaluations or at `target`.
pub fn run_many(p: &dyn Problem, m: &Method, init: &Bounds, runs: usize, budget: u64, target: Option<f64>, seed: u64) -> Result<Vec<Run>> {
    (0..runs)
        .into_par_iter()
        .map(|r| {
            let s = derive_seed(seed, r as u64);
            let x0 = init.sample_uniform(&mut rng_from_seed(derive_seed(s, 1)));
            let alg = gradfree_es::build(m.algo, &StartSpec { x0, sigma0: m.sigma0, seed: s, params: m.params.clone() })?;
            let mut opts = DriverOptions::new(StopRules { target, ..StopRules::max_evaluations(budget) });
            opts.parallel = false;
            let mut h = History::default();
            let mut d = Driver::new(alg, opts)?;
            let res = d.run(&p, &mut [&mut h])?;
            Ok(Run {
                curve: h.records.iter().filter_map(|r| r.best_f.map(|f| (r.evaluations as f64, f))).collect(),
                best_f: res.best_f,
                evaluations: res.evaluations,
                hit_target: matches!(res.stop_reason, Some(gradfree_core::StopReason::Target)),
            })
        })
        .collect()
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

/// Median of a non-empty slice.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 { s[n / 2] } else { 0.5 * (s[n / 2 - 1] + s[n / 2]) }
}
