//! GP-UCB-PE (Contal, Buffoni, Robicquet & Vayatis 2013, "Parallel Gaussian process optimization
//! with upper confidence bound and pure exploration", Alg. 1), for minimization:
//!
//! 1. the first point minimizes the lower bound `f⁻(x) = μ(x) − β_t^{1/2} σ(x)`;
//! 2. `y• = min_x f⁺(x)`, the best upper bound `f⁺ = μ + β_t^{1/2} σ`;
//! 3. the relevant region `R⁺ = {x : μ(x) − 2 β_{t+1}^{1/2} σ(x) ≤ y•}` holds the points that may
//!    still beat `y•`;
//! 4. each further point maximizes the variance `σ^{(k)}` inside `R⁺`, where `σ^{(k)}` is updated
//!    with the batch's earlier picks (pure exploration).
//!
//! `β_t` from [`super::beta_t`] unless overridden. Outside `R⁺` the inner objective is the
//! (positive) distance to the region's boundary in units of the bound, so CMA-ES is led back in.

use super::{Context, minimize_point};
use crate::BoError;
use gradfree_core::derive_seed;

/// `count` points by GP-UCB-PE.
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    let b0 = ctx.beta(0).sqrt();
    let first = minimize_point(ctx, ctx.gp, ctx.seed, |m, sd, _, _| m - b0 * sd)?;
    let mut out = first.clone();
    if count == 1 {
        return Ok(out);
    }
    let y_best = {
        let u = minimize_point(ctx, ctx.gp, derive_seed(ctx.seed, 0x7970), |m, sd, _, _| m + b0 * sd)?;
        let mut buf = vec![0.0; ctx.gp.len()];
        let (m, v) = ctx.gp.predict_std(&u, &mut buf);
        m + b0 * v.sqrt()
    };
    let b1 = ctx.beta(1).sqrt();
    let base = ctx.gp;
    let mut gp = base.hallucinate(&first)?;
    for k in 1..count {
        let u = minimize_point(ctx, &gp, derive_seed(ctx.seed, k as u64), |_, sd_k, rounded, aux| {
            aux.resize(base.len(), 0.0);
            let (m0, v0) = base.predict_std(rounded, aux);
            let lower = m0 - 2.0 * b1 * v0.sqrt();
            if lower <= y_best { -sd_k } else { lower - y_best }
        })?;
        if k + 1 < count {
            gp = gp.hallucinate(&u)?;
        }
        out.extend_from_slice(&u);
    }
    Ok(out)
}
