//! The thesis' batch rule (Alg. 6 noise-free, Alg. 8 with the regularizer; "BKOP" in §4.7):
//!
//! ```text
//! X_n = argmax_X (1/L) Σ_i m(X_{·,i}) + w (2 sqrt(tr(cov(X,X)) / L) − sqrt(1ᵀ cov(X,X) 1 / L²))
//! ```
//!
//! with the joint posterior covariance `cov` of eq. 4.8 / 4.17 and the covariance weight `w = 1`
//! (§4.7.2). The batch is chosen jointly, over `L·d` variables, by CMA-ES. Written here for
//! minimization: `(1/L) Σ μ_i − w (2 sqrt(tr C / L) − sqrt(1ᵀC1 / L²))`. The covariance term
//! rewards variance (`tr C`) and penalizes correlated points (`1ᵀC1`), so it spreads the batch
//! out. With `L = 1` it is `μ − w σ`, the sequential rule of Alg. 5/7.

use super::Context;
use crate::BoError;
use crate::inner::minimize_in_cube;

#[derive(Default)]
struct Scratch {
    rounded: Vec<f64>,
    mean: Vec<f64>,
    cov: Vec<f64>,
    v: Vec<f64>,
}

/// The batch acquisition (to be minimized) of the `l` points of `u` (row-major, unit cube,
/// discrete coordinates already rounded), in standardized units.
pub fn value(ctx: &Context<'_>, u: &[f64], l: usize, mean: &mut Vec<f64>, cov: &mut Vec<f64>, v: &mut Vec<f64>) -> f64 {
    mean.resize(l, 0.0);
    cov.resize(l * l, 0.0);
    v.resize(ctx.gp.len() * l, 0.0);
    ctx.gp.predict_batch_std(u, mean, cov, v);
    let lf = l as f64;
    let tr: f64 = (0..l).map(|i| cov[i * l + i]).sum();
    let total: f64 = cov.iter().sum();
    mean.iter().sum::<f64>() / lf - ctx.weight * (2.0 * (tr.max(0.0) / lf).sqrt() - (total.max(0.0) / (lf * lf)).sqrt())
}

/// `count` points chosen jointly.
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    let d = ctx.space.dim();
    let dim = count * d;
    // Start 0: the best observed points (cycled), nudged apart so no two coincide; the other
    // starts are uniform batches.
    let mut starts = Vec::new();
    if !ctx.starts.is_empty() {
        let mut s = Vec::with_capacity(dim);
        for k in 0..count {
            let p = &ctx.starts[k % ctx.starts.len()];
            let nudge = if k < ctx.starts.len() { 0.0 } else { 0.02 * (k / ctx.starts.len()) as f64 };
            s.extend(p.iter().enumerate().map(|(i, v)| (v + if i % 2 == 0 { nudge } else { -nudge }).clamp(0.0, 1.0)));
        }
        starts.push(s);
    }
    let (mut u, _) = minimize_in_cube::<Scratch, _>(dim, &starts, ctx.inner, ctx.seed, |u, s| {
        s.rounded.clear();
        s.rounded.extend_from_slice(u);
        for p in s.rounded.chunks_exact_mut(d) {
            ctx.space.round_unit(p);
        }
        value(ctx, &s.rounded, count, &mut s.mean, &mut s.cov, &mut s.v)
    })?;
    for p in u.chunks_exact_mut(d) {
        ctx.space.round_unit(p);
    }
    Ok(u)
}
