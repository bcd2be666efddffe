//! Constant-weight confidence bound, thesis Alg. 5 (noise-free, eq. 4.4-4.5) and Alg. 7 (with
//! the regularizer σ², eq. 4.11-4.12): `x_t = argmax m_{t−1}(x) + w σ_{t−1}(x)` with a constant
//! weight `w` (the thesis' `‖f‖_{H_k}`, unknown in practice: 1 in standardized units, as for
//! BKOP in §4.7.2), written here for minimization: `argmin μ(x) − w σ(x)`. Asked for a batch,
//! it picks one point at a time and conditions on each pick at its posterior mean before the next
//! (the hallucination of GP-BUCB with a constant weight).

use super::{Context, minimize_point};
use crate::BoError;
use gradfree_core::derive_seed;

/// `count` points by the constant-weight rule.
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    sequential(ctx, count, |_| ctx.weight)
}

/// Shared by UCB and GP-BUCB: point `k` minimizes `μ − w_k σ_k`, where `σ_k` includes the
/// hallucinated picks `0..k`.
pub(crate) fn sequential(ctx: &Context<'_>, count: usize, weight: impl Fn(usize) -> f64) -> Result<Vec<f64>, BoError> {
    let mut out = Vec::with_capacity(count * ctx.space.dim());
    let mut gp = ctx.gp.clone();
    for k in 0..count {
        let w = weight(k);
        let u = minimize_point(ctx, &gp, derive_seed(ctx.seed, k as u64), |m, sd, _, _| m - w * sd)?;
        if k + 1 < count {
            gp = gp.hallucinate(&u)?;
        }
        out.extend_from_slice(&u);
    }
    Ok(out)
}
