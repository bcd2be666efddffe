//! Maximizing an acquisition over the unit cube with our own CMA-ES from several starts, as the
//! thesis does (§4.7.2: "we employ the CMA-ES algorithm to optimize the acquisition function in
//! the continuous domain for all the methods"). Points outside the cube are evaluated at their
//! projection plus a quadratic penalty on the distance, so CMA-ES is pulled back inside. Starts
//! run in parallel, each with its own seed; the best value wins with ties to the earlier start,
//! so the result does not depend on the number of threads.

use gradfree_core::{AskTell, derive_seed};
use gradfree_es::gaussian::{CmaEs, CmaEsParams};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::BoError;

/// Budget of the inner optimization.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InnerOptions {
    /// CMA-ES starts (default 4).
    pub starts: usize,
    /// Acquisition evaluations per start, per variable (default 50: `50 D` for `D` variables,
    /// at least 400 and at most `max_evals`).
    #[schemars(extend("x-cli" = "acq-evals"))]
    pub evals_per_dim: usize,
    /// At most this many acquisition evaluations per start (default 2,000). With the default 50
    /// per variable it binds only beyond `D = 40` variables: BKOP's joint search over `L·d`
    /// variables (`L = 16`, `d = 6` gives 96), whose every evaluation conditions `L` points on
    /// all `n` observations (`O(n² L)`), and single-point searches in more than 40 dimensions.
    #[serde(default = "default_max_evals")]
    pub max_evals: usize,
    /// Initial CMA-ES step size in unit-cube coordinates (default 0.2).
    #[schemars(extend("x-cli" = "", "x-python" = ""))]
    pub sigma0: f64,
}

impl Default for InnerOptions {
    fn default() -> Self {
        InnerOptions { starts: 4, evals_per_dim: 50, sigma0: 0.2, max_evals: default_max_evals() }
    }
}

/// The default of [`InnerOptions::max_evals`] (also for checkpoints written before it existed).
fn default_max_evals() -> usize {
    2000
}

impl InnerOptions {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), BoError> {
        if self.starts == 0 || self.starts > 1024 {
            return Err(BoError::invalid("acq_starts", self.starts, "an integer in 1..=1024"));
        }
        if self.evals_per_dim == 0 || self.evals_per_dim > 100_000 {
            return Err(BoError::invalid("acq_evals_per_dim", self.evals_per_dim, "an integer in 1..=100000"));
        }
        if self.max_evals == 0 || self.max_evals > 10_000_000 {
            return Err(BoError::invalid("acq_max_evals", self.max_evals, "an integer in 1..=10000000"));
        }
        if !(self.sigma0.is_finite() && self.sigma0 > 0.0 && self.sigma0 <= 1.0) {
            return Err(BoError::invalid("acq_sigma0", self.sigma0, "in (0, 1]"));
        }
        Ok(())
    }
}

/// Minimizes `f` over `[0, 1]^dim` from the given start means (one CMA-ES run each; when fewer
/// than `opts.starts` are given the rest start at seeded uniform points). `f(u, scratch)` gets a
/// point inside the cube and a per-start scratch value. Returns the best point and its value.
pub fn minimize_in_cube<S, F>(dim: usize, starts: &[Vec<f64>], opts: &InnerOptions, seed: u64, f: F) -> Result<(Vec<f64>, f64), BoError>
where
    S: Default,
    F: Fn(&[f64], &mut S) -> f64 + Sync,
{
    use rand::RngExt;
    let mut means: Vec<Vec<f64>> = starts.iter().take(opts.starts).cloned().collect();
    let mut rng = gradfree_core::rng_from_seed(derive_seed(seed, 0x5354));
    while means.len() < opts.starts {
        means.push((0..dim).map(|_| rng.random::<f64>()).collect());
    }
    let budget = (opts.evals_per_dim * dim).max(400).min(opts.max_evals);
    let runs: Vec<Result<(Vec<f64>, f64), BoError>> = means
        .par_iter()
        .enumerate()
        .map(|(k, m0)| {
            let mut scratch = S::default();
            let mut clipped = vec![0.0; dim];
            let eval = |x: &[f64], clipped: &mut Vec<f64>, scratch: &mut S| {
                let mut pen = 0.0;
                for (c, v) in clipped.iter_mut().zip(x) {
                    *c = v.clamp(0.0, 1.0);
                    pen += (v - *c) * (v - *c);
                }
                let val = f(clipped, scratch);
                if val.is_finite() { val + 1e3 * pen } else { f64::INFINITY }
            };
            let m: Vec<f64> = m0.iter().map(|v| v.clamp(0.0, 1.0)).collect();
            let mut best = (m.clone(), eval(&m, &mut clipped, &mut scratch));
            let mut es = CmaEs::new(m, opts.sigma0, &CmaEsParams::default(), derive_seed(seed, k as u64))?;
            let mut used = 1;
            let mut values = Vec::new();
            while used < budget {
                let pop = es.ask()?;
                values.clear();
                for row in pop.rows() {
                    let v = eval(row, &mut clipped, &mut scratch);
                    if v < best.1 {
                        best = (clipped.clone(), v);
                    }
                    values.push(v);
                }
                used += pop.len();
                if values.iter().all(|v| !v.is_finite()) {
                    break;
                }
                let told: Vec<f64> = values.iter().map(|v| if v.is_finite() { *v } else { f64::MAX }).collect();
                es.tell(&pop, &told)?;
                if es.failure().is_some() || es.sigma() < 1e-9 {
                    break;
                }
            }
            Ok(best)
        })
        .collect();
    let mut out: Option<(Vec<f64>, f64)> = None;
    for r in runs {
        let (x, v) = r?;
        if out.as_ref().is_none_or(|(_, b)| v < *b) {
            out = Some((x, v));
        }
    }
    out.ok_or_else(|| BoError::invalid("acq_starts", 0, "at least 1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_an_interior_and_a_corner_minimum() {
        let o = InnerOptions::default();
        let (x, v) = minimize_in_cube::<(), _>(3, &[], &o, 1, |u, _| u.iter().map(|v| (v - 0.3) * (v - 0.3)).sum()).unwrap();
        assert!(v < 1e-8 && x.iter().all(|v| (v - 0.3).abs() < 1e-3), "{x:?}");
        let (x, _) = minimize_in_cube::<(), _>(2, &[vec![0.5, 0.5]], &o, 1, |u, _| -u[0] - 2.0 * u[1]).unwrap();
        assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-6), "{x:?}");
    }

    /// Beyond 40 variables the search stops at `max_evals` per start (up to one CMA-ES
    /// generation over), not at `50 D`; below, `50 D` (at least 400) is the budget.
    #[test]
    fn the_budget_is_capped_per_start() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let count = |dim: usize, o: &InnerOptions| {
            let n = AtomicUsize::new(0);
            minimize_in_cube::<(), _>(dim, &[], o, 3, |u, _| {
                n.fetch_add(1, Ordering::Relaxed);
                u.iter().map(|v| (v - 0.3).abs().sqrt()).sum()
            })
            .unwrap();
            n.into_inner()
        };
        let one = InnerOptions { starts: 1, ..InnerOptions::default() };
        let lambda = 4 + (3.0 * 96f64.ln()) as usize;
        let big = count(96, &one);
        assert!((2000..2000 + lambda).contains(&big), "{big} evaluations at D = 96");
        let small = count(20, &one);
        assert!((1000..1000 + 4 + (3.0 * 20f64.ln()) as usize).contains(&small), "{small} evaluations at D = 20");
        let raised = count(96, &InnerOptions { max_evals: 10_000, ..one });
        assert!(raised >= 4800, "{raised} evaluations at D = 96 with max_evals = 10000");
        // Checkpoints written before the cap existed read with its default.
        let old: InnerOptions = serde_json::from_str(r#"{"starts": 4, "evals_per_dim": 50, "sigma0": 0.2}"#).unwrap();
        assert_eq!(old, InnerOptions::default());
    }
}
