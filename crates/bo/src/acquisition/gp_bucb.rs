//! GP-BUCB (Desautels, Krause & Burdick 2014, "Parallelizing exploration-exploitation tradeoffs
//! in Gaussian process bandit optimization", Alg. 1): inside a batch,
//! `x_t = argmax μ_{fb[t]}(x) + β_t^{1/2} σ_{t−1}(x)`: the mean stays at the last real update
//! (`fb[t]`), the variance is updated with the batch's earlier picks as if observed
//! ("hallucinated"). For minimization: `argmin μ − β_t^{1/2} σ_{t−1}`, `β_t` from
//! [`super::beta_t`] unless overridden.

use super::Context;
use crate::BoError;

/// `count` points by GP-BUCB.
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    super::ucb::sequential(ctx, count, |k| ctx.beta(k).sqrt())
}
