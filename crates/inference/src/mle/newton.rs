//! Newton's method for a GLM's maximum likelihood ([`fit_glm_with`]): from the origin (Poisson:
//! from statsmodels' first IRLS step), with step halving, until the estimate is within 1e-6
//! standard errors of the maximum or within the rounding of the sums; the exact fit of the linear
//! model is recognised and reported as such ([`GlmFit::exact`]).
//!
//! When it stops. The Newton decrement `g^T H^{-1} g` is the squared distance from the iterate to
//! the maximum of the quadratic model in standard errors (the covariance is `H^{-1}` for logistic
//! and Poisson regression, `scale H^{-1}` for the linear model), so the criterion is on it, not
//! relative to the size of the log-likelihood: a relative criterion stops at huge responses
//! (Poisson counts of 1e15, whose log-likelihood is near 1e18) many standard errors short. Below
//! the rounding of the score the decrement is noise: its floor is `(16 eps)^2 a^T H^{-1} a`, `a_j
//! = sum_i (|mu_i| + |y_i| + ...) |x_ij|` the size of the terms summed into the score. Where the
//! predicted decrease is below the rounding of the loss itself (`16 eps sum_i |l_i|`) the loss
//! cannot confirm a step, so the step is taken on the score's word, and the iteration stops
//! (converged) when the decrement no longer falls fourfold a step.

use rayon::prelude::*;

use super::robust::{Rows, meat};
use super::{BLOCK, CovType, GlmFit, GlmSums, lgamma_sum, log_likelihood, pearson_scale, spd_solve, wald_cov};
use crate::{Data, Glm, InferenceError, Model, model::Family};

/// Newton steps at most (statsmodels' `GLM.fit` allows 100 iterations).
pub const MAX_NEWTON: usize = 100;

/// The squared distance to the maximum, in standard errors, at which Newton's method stops: 1e-12
/// (1e-6 standard errors).
const TOL: f64 = 1e-12;

/// The rounding of a sum, relative to the sum of its terms' sizes (16 machine epsilons: sums in
/// blocks of 2048 rows round far less than their worst case).
const ROUNDING: f64 = 16.0 * f64::EPSILON;

/// Halvings of a step at most: past 1100 the step is below the smallest double.
const MAX_HALVINGS: usize = 1100;

/// The linear model's residuals count as 0 (an exact fit) within this many machine epsilons of
/// their row's `|y_i| + sum_j |x_ij theta_j|`.
const EXACT: f64 = 1024.0 * f64::EPSILON;

/// [`fit_glm_with`] and statsmodels' default covariance.
pub fn fit_glm(model: &Glm, data: &Data) -> Result<GlmFit, InferenceError> {
    fit_glm_with(model, data, CovType::Nonrobust)
}

/// Newton's method on the negative log-likelihood of `model` over `data` (see the module
/// documentation), then the covariance `cov`; `converged` is `false` when it stopped at
/// [`MAX_NEWTON`] steps (separated classes, whose likelihood grows without end) or when no step
/// along its direction decreased the loss. Every count 0 with the fitted means going to 0 (a
/// Poisson likelihood without a maximum) is an error.
pub fn fit_glm_with(model: &Glm, data: &Data, cov: CovType) -> Result<GlmFit, InferenceError> {
    model.check(data)?;
    let (p, n) = (model.dim(), data.len());
    let (x, y) = (data.rows(), data.responses());
    let rows = Rows { x, y, off: data.offset(), groups: data.groups() };
    // On many rows, start from the fit of every 10th row (a tenth of the work, within a few
    // standard errors of the estimate), so the full data see two or three Newton steps; the
    // estimate is the same maximum.
    let mut start = None;
    if n >= WARM_START_ROWS {
        let (sx, sy): (Vec<f64>, Vec<f64>) =
            (x.chunks_exact(p).step_by(10).flatten().copied().collect(), y.iter().step_by(10).copied().collect());
        let so: Option<Vec<f64>> = rows.off.map(|o| o.iter().step_by(10).copied().collect());
        let sub_rows = Rows { x: &sx, y: &sy, off: so.as_deref(), groups: None };
        if let Ok(sub) = newton(model, &sub_rows, start_point(model, &sub_rows), CovType::Nonrobust)
            && sub.converged
        {
            start = Some(sub.params);
        }
    }
    let fit = newton(model, &rows, start.unwrap_or_else(|| start_point(model, &rows)), cov)?;
    if model.family == Family::Poisson && y.iter().all(|&v| v == 0.0) {
        let top = x
            .chunks_exact(p)
            .enumerate()
            .map(|(i, row)| model.eta(&fit.params, row) + rows.off.map_or(0.0, |o| o[i]))
            .fold(f64::NEG_INFINITY, f64::max);
        if !fit.converged || top < -18.0 {
            return Err(InferenceError::BadData(format!(
                "every count is 0, so the Poisson likelihood has no maximum: it grows as the fitted means exp(x^T theta) go to 0 (here up to {:.1e} after {} Newton steps) and the coefficients to -infinity",
                top.exp(),
                fit.iterations
            )));
        }
    }
    Ok(fit)
}

/// Rows from which [`fit_glm_with`] starts from a subsample's fit.
const WARM_START_ROWS: usize = 50_000;

/// Where Newton's method starts: the origin, or for Poisson regression statsmodels' first IRLS
/// step (`GLM._fit_irls`): weighted least squares of `z_i = ln mu_i + (y_i - mu_i) / mu_i` on the
/// rows with weights `mu_i`, at `mu_i = (y_i + ybar) / 2` (the family's `starting_mu`). It puts
/// the linear predictor near `ln y` at once, where the origin is `ln y` away (35 at counts of
/// 1e15, with steps of `y` in between). The origin when the counts are all 0. With an offset,
/// `z_i` is less the row's offset (statsmodels' working response).
fn start_point(model: &Glm, rows: &Rows) -> Vec<f64> {
    let (x, y) = (rows.x, rows.y);
    let p = model.p;
    let origin = vec![0.0; p];
    let ybar = y.iter().sum::<f64>() / y.len().max(1) as f64;
    if model.family != Family::Poisson || !(ybar > 0.0 && ybar.is_finite()) {
        return origin;
    }
    // The weights over ybar (the solution does not depend on their scale), by blocks in parallel
    // added in block order.
    let sums: Vec<(Vec<f64>, Vec<f64>)> = x
        .par_chunks(BLOCK * p)
        .zip(y.par_chunks(BLOCK))
        .enumerate()
        .map(|(blk, (xb, yb))| {
            let (mut h, mut b, mut w) = (vec![0.0; p * p], vec![0.0; p], Vec::with_capacity(yb.len()));
            for (i, (row, &yi)) in xb.chunks_exact(p).zip(yb).enumerate() {
                let mu = 0.5 * (yi + ybar);
                let z = mu.ln() + (yi - mu) / mu - rows.off.map_or(0.0, |o| o[blk * BLOCK + i]);
                let wi = mu / ybar;
                b.iter_mut().zip(row).for_each(|(s, v)| *s += wi * z * v);
                w.push(wi);
            }
            gradfree_core::linalg::add_weighted_outer_lower(&mut h, p, xb, &w, &mut Vec::new());
            (h, b)
        })
        .collect();
    let (mut h, mut b) = (vec![0.0; p * p], vec![0.0; p]);
    for (hb, bb) in &sums {
        h.iter_mut().zip(hb).for_each(|(a, v)| *a += v);
        b.iter_mut().zip(bb).for_each(|(a, v)| *a += v);
    }
    for i in 0..p {
        for j in 0..i {
            h[i * p + j] = h[j * p + i];
        }
    }
    spd_solve(&h, p, &b, 1).filter(|s| s.iter().all(|v| v.is_finite())).unwrap_or(origin)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// An error when a sum of the fit overflows at a Newton iterate (the data's checks keep this
/// from happening; see [`super::range`]).
fn overflow(model: &Glm, it: usize) -> InferenceError {
    InferenceError::BadData(format!(
        "{} regression: the likelihood's sums overflow double precision at Newton step {it}: the responses or the features are too large for the fit; rescale them",
        model.name()
    ))
}

/// Whether every residual of the linear model at `w` (with the sums `sums` there) is 0 to
/// rounding: `|x_i^T w - y_i| <= EXACT (|y_i| + sum_j |x_ij w_j|) + 4 sqrt(floor)`. The second
/// term bounds the rounding `w` itself carries into the fitted values: `|x_i^T H^{-1} dg| <=
/// sqrt(x_i^T H^{-1} x_i) sqrt(dg^T H^{-1} dg)`, the leverage `x_i^T H^{-1} x_i` is at most 1, and
/// the score's rounding `dg` is at most `sqrt(floor)` in that norm ([`rounding_floor`]); so a
/// small response next to a large slope counts as fitted to the slope's rounding, not its own.
fn exact_fit(model: &Glm, w: &[f64], rows: &Rows, sums: &GlmSums) -> bool {
    let p = model.p;
    let Some(floor) = rounding_floor(sums, p) else { return false };
    let carried = 4.0 * floor.sqrt();
    rows.x.par_chunks(BLOCK * p).zip(rows.y.par_chunks(BLOCK)).enumerate().all(|(b, (xb, yb))| {
        xb.chunks_exact(p).zip(yb).enumerate().all(|(i, (row, &yi))| {
            let o = rows.off.map_or(0.0, |o| o[b * BLOCK + i]);
            let size = yi.abs() + o.abs() + row.iter().zip(w).map(|(a, b)| (a * b).abs()).sum::<f64>();
            (model.eta(w, row) + o - yi).abs() <= EXACT * size + carried
        })
    })
}

/// The reciprocal condition number below which the Hessian, scaled to a unit diagonal, counts as
/// singular (the features collinear to double precision): `1e-14`, 450 machine epsilons.
const COLLINEAR: f64 = 1e-14;

/// An error when the features are collinear to double precision: the Hessian `h` scaled to a unit
/// diagonal (so that the columns' scales do not count) has a smallest eigenvalue below
/// [`COLLINEAR`] times its largest. Cholesky factors such a matrix from its rounding and the
/// estimate would be noise along the collinear direction.
fn check_conditioning(h: &[f64], p: usize) -> Result<(), InferenceError> {
    let d: Vec<f64> = (0..p).map(|j| h[j * p + j]).collect();
    if let Some(j) = d.iter().position(|v| *v <= 0.0 || v.is_nan()) {
        return Err(InferenceError::BadData(format!(
            "column {j} is 0 in every row (where the model weighs it): its coefficient is not identified; drop the column"
        )));
    }
    let scaled: Vec<f64> = (0..p * p).map(|k| h[k] / d[k / p].sqrt() / d[k % p].sqrt()).collect();
    let mut values = vec![0.0; p];
    if !gradfree_core::linalg::sym_eigen(&scaled, p, &mut values, None, &mut Default::default()) {
        return Ok(());
    }
    let (lo, hi) = values.iter().fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v)));
    if lo <= COLLINEAR * hi {
        return Err(InferenceError::BadData(format!(
            "the features are collinear to double precision (the Hessian scaled to a unit diagonal has eigenvalues from {lo:.1e} to {hi:.1e}): a column is a combination of others (a constant column beside the intercept, a duplicated column); drop or combine columns"
        )));
    }
    Ok(())
}

/// The squared size, in the `H^{-1}` norm, of the score's rounding at the sums `sums`: `(16
/// eps)^2 a^T H^{-1} a` with `a` the sizes of the score's terms; `None` if `H` is singular.
fn rounding_floor(sums: &GlmSums, p: usize) -> Option<f64> {
    let a = spd_solve(&sums.hess, p, &sums.grad_abs, 1)?;
    Some(ROUNDING * ROUNDING * dot(&sums.grad_abs, &a))
}

/// Newton's method from `start` on the rows `x` (row-major) with responses `y` (see the module
/// documentation and [`fit_glm_with`]).
fn newton(model: &Glm, rows: &Rows, start: Vec<f64>, cov: CovType) -> Result<GlmFit, InferenceError> {
    let (x, y, off) = (rows.x, rows.y, rows.off);
    let (p, n) = (model.dim(), y.len());
    let over = |w: &[f64]| GlmSums::over_offset(model, w, x, y, off, false);
    let total = |w: &[f64]| -> f64 {
        x.par_chunks(BLOCK * p)
            .zip(y.par_chunks(BLOCK))
            .enumerate()
            .map(|(b, (xb, yb))| {
                xb.chunks_exact(p)
                    .zip(yb)
                    .enumerate()
                    .map(|(i, (row, &yi))| model.loss_at(model.eta(w, row) + off.map_or(0.0, |o| o[b * BLOCK + i]), yi))
                    .sum::<f64>()
            })
            .collect::<Vec<f64>>()
            .iter()
            .sum()
    };
    let finish = |w: Vec<f64>, sums: &GlmSums, it: usize, converged: bool| -> Result<GlmFit, InferenceError> {
        let exact = model.family == Family::Linear && exact_fit(model, &w, rows, sums);
        if exact {
            let c = vec![0.0; p * p];
            return Ok(GlmFit { cov: c, params: w, iterations: it, scale: 0.0, nobs: n as u64, llf: f64::INFINITY, converged, exact });
        }
        let outer = meat(model, &w, rows, cov, &sums.hess)?;
        let scale = pearson_scale(model.family, 2.0 * sums.loss, n as u64, p);
        let llf = match model.family {
            Family::Poisson => super::poisson_log_likelihood_offset(model, &w, x, y, off),
            _ => log_likelihood(model.family, sums.loss, n as u64, lgamma_sum(model.family, y)),
        };
        let cov = wald_cov(&sums.hess, p, scale, outer.as_deref())?;
        let fit = GlmFit { cov, params: w, iterations: it, scale, nobs: n as u64, llf, converged, exact };
        check_representable(&fit)?;
        Ok(fit)
    };
    let mut w = start;
    let mut sums = over(&w);
    if !sums.finite() {
        return Err(overflow(model, 0));
    }
    check_conditioning(&sums.hess, p)?;
    // The decrement of the step before (for the stall test where the loss cannot tell).
    let mut last = f64::INFINITY;
    for it in 0..MAX_NEWTON {
        let Some(step) = spd_solve(&sums.hess, p, &sums.grad, 1) else {
            return Err(InferenceError::SingularCovariance("the GLM's Hessian is singular (collinear features, or separable data)".into()));
        };
        let decrement = dot(&sums.grad, &step);
        let floor = rounding_floor(&sums, p).ok_or_else(|| overflow(model, it))?;
        // The squared standard error's unit: the scale's estimate for the linear model.
        let unit = if model.family == Family::Linear { 2.0 * sums.loss / (n.saturating_sub(p).max(1)) as f64 } else { 1.0 };
        if !(decrement.is_finite() && floor.is_finite()) {
            return Err(overflow(model, it));
        }
        if decrement <= (TOL * unit).max(floor) {
            return finish(w, &sums, it, true);
        }
        // Whether the loss can confirm the predicted decrease (half the decrement).
        let noise = ROUNDING * sums.loss_abs;
        let verifiable = 0.5 * decrement > noise;
        let full: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - s).collect();
        let at_full = over(&full);
        if at_full.finite() && (at_full.loss < sums.loss || (!verifiable && at_full.loss <= sums.loss + noise)) {
            let stalled = !verifiable && decrement > 0.25 * last;
            (w, sums, last) = (full, at_full, decrement);
            if stalled {
                return finish(w, &sums, it + 1, true);
            }
            continue;
        }
        // Halving (on the loss alone) until a step decreases the loss, or the step no longer
        // changes the estimate.
        let mut t = 0.5;
        let mut moved = false;
        for _ in 0..MAX_HALVINGS {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            if trial == w {
                break;
            }
            let ft = total(&trial);
            if ft.is_finite() && ft < sums.loss {
                w = trial;
                moved = true;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            // No step decreases the loss: converged to rounding if the loss could not have shown
            // the decrease, else stopped short (overflow along the whole direction).
            return finish(w, &sums, it, !verifiable);
        }
        sums = over(&w);
        if !sums.finite() {
            return Err(overflow(model, it + 1));
        }
        last = decrement;
    }
    finish(w, &sums, MAX_NEWTON, false)
}

/// An error when the fit's numbers are not representable: an estimate or covariance that
/// overflowed, or a standard error that underflowed to 0 (the response's scale against the
/// features' beyond double precision).
pub(crate) fn check_representable(fit: &GlmFit) -> Result<(), InferenceError> {
    let p = fit.params.len();
    let diag_ok = (0..p).all(|j| fit.cov[j * p + j] >= f64::MIN_POSITIVE);
    if fit.params.iter().chain(&fit.cov).all(|v| v.is_finite()) && diag_ok && fit.llf.is_finite() {
        return Ok(());
    }
    let what = if !fit.params.iter().all(|v| v.is_finite()) {
        "the estimates overflow"
    } else if !fit.cov.iter().all(|v| v.is_finite()) {
        "their variances overflow"
    } else if !diag_ok {
        "their variances underflow to 0"
    } else {
        "the log-likelihood overflows"
    };
    let top = fit.params.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    Err(InferenceError::BadData(format!(
        "the fit is beyond double precision: {what} (the estimates reach {top:.1e}; the response's scale against the features' is too extreme): rescale the response or the features"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From the subsample's fit or from the origin, Newton's method ends at the same maximum.
    #[test]
    fn the_warm_start_reaches_the_same_maximum() {
        let (data, _) = crate::simulate::simulate(crate::simulate::Design::Equicorrelation, 6, Family::Logistic, 60_000, 4).unwrap();
        let model = Glm::new(Family::Logistic, 6);
        let warm = fit_glm(&model, &data).unwrap();
        let rows = Rows { x: data.rows(), y: data.responses(), off: None, groups: None };
        let cold = newton(&model, &rows, vec![0.0; 6], CovType::Nonrobust).unwrap();
        assert!(warm.converged && warm.iterations < cold.iterations, "{} vs {} steps", warm.iterations, cold.iterations);
        let se = cold.bse();
        assert!(warm.params.iter().zip(&cold.params).zip(&se).all(|((a, b), s)| (a - b).abs() < 1e-6 * s));
        assert!((warm.llf - cold.llf).abs() < 1e-8 * cold.llf.abs());
    }
}
