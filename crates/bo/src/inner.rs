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
    /// at least 400).
    pub evals_per_dim: usize,
    /// Initial CMA-ES step size in unit-cube coordinates (default 0.2).
    pub sigma0: f64,
}

impl Default for InnerOptions {
    fn default() -> Self {
        InnerOptions { starts: 4, evals_per_dim: 50, sigma0: 0.2 }
    }
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
    let budget = (opts.evals_per_dim * dim).max(400);
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
}
