//! Bull's non-adaptive batch (Bull 2011, "Convergence rates of efficient global optimization
//! algorithms", §3.3 and Theorem 1; thesis §4.7.1): every query point but the last is fixed in
//! advance (here a rank-1 lattice of large packing radius, Algorithm 10), and the last is the
//! minimizer of the posterior mean. The design part is the optimizer's initial design (its
//! size is the budget minus one); this rule is the final step.

use super::{Context, minimize_point};
use crate::BoError;

/// The minimizer of the posterior mean (repeated if more than one point is asked for).
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    let u = minimize_point(ctx, ctx.gp, ctx.seed, |m, _, _, _| m)?;
    Ok(u.repeat(count))
}
