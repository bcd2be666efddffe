//! The maximum-likelihood fit of a GLM by Newton's method (iteratively reweighted least squares)
//! and its Wald covariance, as statsmodels' `GLM(...).fit()` computes them: `(X^T W X)^{-1}` at the
//! estimate, times the Pearson scale `sum r_i^2 / (N - p)` for the linear model (whose scale is
//! estimated) and 1 for logistic and Poisson regression ([`CovType::Nonrobust`], statsmodels'
//! default), or White's sandwich `H^{-1} (sum g_i g_i^T) H^{-1}` ([`CovType::Hc0`], statsmodels'
//! `cov_type="HC0"`), valid when the model is misspecified. The truths of the paper's figures
//! ("fitted with R glm"), the Wald baseline of the coverage study, and the in-memory half of the
//! default method (the streamed half is [`crate::cuee`]).
//!
//! The sums over rows run in parallel over fixed blocks of rows added in block order, so the
//! result does not depend on the thread count.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::intervals::normal_quantile;
use crate::{Data, Glm, InferenceError, Model, model::Family};

pub mod measures;
mod newton;
mod range;
pub(crate) mod rank;
pub(crate) mod robust;
pub mod stats;

pub use stats::GlmStats;

pub(crate) use newton::check_representable;
pub use newton::{MAX_NEWTON, fit_glm, fit_glm_with};
pub(crate) use range::{ResponseRange, check_ranges, check_scale};

pub use crate::spec::CovType;

/// A fitted GLM: the estimate and its Wald covariance (`p x p`, row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct GlmFit {
    /// The estimate.
    pub params: Vec<f64>,
    /// The Wald covariance.
    pub cov: Vec<f64>,
    /// Newton steps taken (streamed fits: blocks read).
    pub iterations: usize,
    /// The scale: the Pearson estimate `sum r_i^2 / (N - p)` of the noise variance for the linear
    /// model, 1 otherwise.
    pub scale: f64,
    /// Rows fitted.
    pub nobs: u64,
    /// The log-likelihood at the estimate ([`log_likelihood`]).
    pub llf: f64,
    /// Whether Newton's method met its tolerance (`false`: it stopped at its step limit, as on
    /// separated classes, whose likelihood has no maximum).
    pub converged: bool,
    /// The linear model only: every residual is 0 to double precision (an exact fit, as of a
    /// constant or all-zero response with an intercept). The scale's estimate is then 0, so the
    /// covariance is 0, the log-likelihood `+inf`, and the t statistics and p-values undefined
    /// (statsmodels' `OLS` gives the same: `bse` 0, `tvalues` and `pvalues` NaN, `llf` inf).
    pub exact: bool,
}

/// The log-likelihood of a GLM from the summed loss `loss` of `n` rows: `-loss` for logistic
/// regression; `-loss - sum log(y_i!)` (`lgamma`, the sum of `ln Gamma(y_i + 1)`) for Poisson;
/// for the linear model the Gaussian one at the maximum-likelihood variance `rss / n` (the loss
/// is `rss / 2`), `-n/2 (ln(2 pi rss / n) + 1)`, as statsmodels' `OLS` and Gaussian `GLM` give it.
pub fn log_likelihood(family: Family, loss: f64, n: u64, lgamma: f64) -> f64 {
    match family {
        Family::Logistic => -loss,
        Family::Poisson => -loss - lgamma,
        Family::Linear => {
            let n = n as f64;
            -0.5 * n * ((2.0 * std::f64::consts::PI * 2.0 * loss / n).ln() + 1.0)
        }
    }
}

/// `sum ln Gamma(y_i + 1)` over Poisson responses (0 for the other families).
pub(crate) fn lgamma_sum(family: Family, y: &[f64]) -> f64 {
    if family != Family::Poisson {
        return 0.0;
    }
    y.par_chunks(BLOCK)
        .map(|c| c.iter().map(|v| statrs::function::gamma::ln_gamma(v + 1.0)).sum::<f64>())
        .collect::<Vec<f64>>()
        .iter()
        .sum()
}

/// The Poisson log-likelihood at `theta` over the rows `x` with counts `y`, `sum_i (y_i ln mu_i -
/// mu_i - ln y_i!)`, summed without the cancellation of its terms: with `d_i = (mu_i - y_i) /
/// y_i`, each is `-y_i (d_i - ln(1 + d_i)) - s(y_i)`, `s(y) = ln y! - (y ln y - y)` (Stirling's
/// series `ln(2 pi y) / 2 + 1/(12 y) - 1/(360 y^3)` from `y = 1e4`), and `-mu_i` where `y_i = 0`.
/// The plain sum subtracts `sum ln y_i!` from `sum y_i ln mu_i`, both near `1e18` at counts of
/// `1e15`, and keeps none of the digits of their difference (statsmodels prints -504.0 there).
pub(crate) fn poisson_log_likelihood(model: &Glm, theta: &[f64], x: &[f64], y: &[f64]) -> f64 {
    poisson_log_likelihood_offset(model, theta, x, y, None)
}

/// [`poisson_log_likelihood`] with an offset per row.
pub(crate) fn poisson_log_likelihood_offset(model: &Glm, theta: &[f64], x: &[f64], y: &[f64], off: Option<&[f64]>) -> f64 {
    let p = model.p;
    let term = |row: &[f64], yi: f64, o: f64| -> f64 {
        let mu = (model.eta(theta, row) + o).exp();
        if yi == 0.0 {
            return -mu;
        }
        let d = (mu - yi) / yi;
        let stirling = if yi >= 1e4 {
            0.5 * (2.0 * std::f64::consts::PI * yi).ln() + 1.0 / (12.0 * yi) - 1.0 / (360.0 * yi * yi * yi)
        } else {
            statrs::function::gamma::ln_gamma(yi + 1.0) - (yi * yi.ln() - yi)
        };
        -yi * (d - d.ln_1p()) - stirling
    };
    x.par_chunks(BLOCK * p)
        .zip(y.par_chunks(BLOCK))
        .enumerate()
        .map(|(b, (xb, yb))| {
            xb.chunks_exact(p).zip(yb).enumerate().map(|(i, (row, &yi))| term(row, yi, off.map_or(0.0, |o| o[b * BLOCK + i]))).sum::<f64>()
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum()
}

/// What a maximum-likelihood [`crate::Fit`] carries besides its estimate and covariance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlmInfo {
    /// The covariance's kind.
    pub cov_type: CovType,
    /// The scale (the linear model's Pearson estimate of the noise variance, 1 otherwise).
    pub scale: f64,
    /// The log-likelihood at the estimate ([`log_likelihood`]); for streamed logistic and Poisson
    /// fits the sum of every block's second-order expansion about its own expansion point,
    /// evaluated at the final estimate ([`crate::cuee`]).
    pub llf: f64,
    /// Newton steps (streamed: blocks).
    pub iterations: usize,
    /// Rows fitted.
    pub nobs: u64,
    /// Whether the fit converged ([`GlmFit::converged`]).
    pub converged: bool,
    /// Whether the rows were streamed (the one-pass estimate of [`crate::cuee`]).
    pub one_pass: bool,
    /// Whether the linear model fits exactly ([`GlmFit::exact`]): scale 0, log-likelihood
    /// `+inf` (`null` in JSON), t statistics and p-values undefined.
    #[serde(default)]
    pub exact_fit: bool,
    /// In memory: the deviance, Pearson's chi-squared, the null model, the rank and the constant
    /// ([`GlmStats`]); `None` for streamed fits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<GlmStats>,
}

impl GlmFit {
    /// The Wald intervals `params +- z_{(1 + level)/2} se` (`lower`, `upper`).
    pub fn wald(&self, level: f64) -> (Vec<f64>, Vec<f64>) {
        let z = normal_quantile((1.0 + level) / 2.0);
        let se = self.bse();
        (self.params.iter().zip(&se).map(|(m, s)| m - z * s).collect(), self.params.iter().zip(&se).map(|(m, s)| m + z * s).collect())
    }

    /// The standard errors, `sqrt(diag(cov))`.
    pub fn bse(&self) -> Vec<f64> {
        let p = self.params.len();
        (0..p).map(|j| self.cov[j * p + j].sqrt()).collect()
    }
}

/// Rows per block of the parallel sums (fixed, so the order of additions is too).
const BLOCK: usize = 2048;

/// Blocks summed in parallel at a time ([`crate::spec::MLE_GROUP`]).
pub(crate) use crate::spec::MLE_GROUP as GROUP;

/// The sums of a GLM over rows at one `theta`: the loss, the gradient `sum (c'(t_i) - y_i) x_i`,
/// the Hessian `sum c''(t_i) x_i x_i^T` and optionally `S = sum g_i g_i^T` (both `p x p`, full);
/// and the sizes of what they add, which bound their rounding: `sum |l_i|` and, per coordinate,
/// `sum (|c'(t_i)| + |y_i| + c''(t_i) sum_k |x_ik theta_k|) |x_ij|` (the terms of the gradient,
/// and the rounding of `t_i` carried into `c'(t_i)`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GlmSums {
    pub loss: f64,
    pub grad: Vec<f64>,
    pub hess: Vec<f64>,
    pub outer: Option<Vec<f64>>,
    pub loss_abs: f64,
    pub grad_abs: Vec<f64>,
}

impl GlmSums {
    fn zero(p: usize, outer: bool) -> GlmSums {
        GlmSums {
            loss: 0.0,
            grad: vec![0.0; p],
            hess: vec![0.0; p * p],
            outer: outer.then(|| vec![0.0; p * p]),
            loss_abs: 0.0,
            grad_abs: vec![0.0; p],
        }
    }

    /// Whether every sum is finite (none overflowed).
    pub fn finite(&self) -> bool {
        self.loss.is_finite() && self.grad.iter().chain(&self.hess).all(|v| v.is_finite())
    }

    /// Adds `other`'s sums to these.
    pub(crate) fn add(&mut self, other: &GlmSums) {
        self.loss += other.loss;
        self.loss_abs += other.loss_abs;
        self.grad_abs.iter_mut().zip(&other.grad_abs).for_each(|(a, b)| *a += b);
        self.grad.iter_mut().zip(&other.grad).for_each(|(a, b)| *a += b);
        self.hess.iter_mut().zip(&other.hess).for_each(|(a, b)| *a += b);
        if let (Some(a), Some(b)) = (self.outer.as_mut(), other.outer.as_ref()) {
            a.iter_mut().zip(b).for_each(|(u, v)| *u += v);
        }
    }

    /// The sums over the rows `x` (row-major, `p` per row) with responses `y`, at `theta`.
    pub fn over(model: &Glm, theta: &[f64], x: &[f64], y: &[f64], outer: bool) -> GlmSums {
        Self::over_offset(model, theta, x, y, None, outer)
    }

    /// [`GlmSums::over`] with an offset per row added to the linear predictor.
    pub fn over_offset(model: &Glm, theta: &[f64], x: &[f64], y: &[f64], off: Option<&[f64]>, outer: bool) -> GlmSums {
        let p = model.p;
        let mut total = GlmSums::zero(p, outer);
        // Groups of GROUP blocks in parallel, their sums added in block order: the memory of
        // GROUP sums, whatever the rows.
        for (g, (xg, yg)) in x.chunks(GROUP * BLOCK * p).zip(y.chunks(GROUP * BLOCK)).enumerate() {
            let og = off.map(|o| &o[g * GROUP * BLOCK..g * GROUP * BLOCK + yg.len()]);
            Self::group(model, theta, xg, yg, og, outer).iter().for_each(|s| total.add(s));
        }
        // Mirror the upper triangles.
        for m in std::iter::once(&mut total.hess).chain(total.outer.as_mut()) {
            mirror_lower(m, p);
        }
        total
    }

    /// Every block's sums of a group of rows, in block order.
    fn group(model: &Glm, theta: &[f64], x: &[f64], y: &[f64], off: Option<&[f64]>, outer: bool) -> Vec<GlmSums> {
        let p = model.p;
        x.par_chunks(BLOCK * p)
            .zip(y.par_chunks(BLOCK))
            .enumerate()
            .map(|(b, (xb, yb))| {
                let ob = off.map(|o| &o[b * BLOCK..b * BLOCK + yb.len()]);
                let mut s = GlmSums::zero(p, outer);
                // Per row: the residual r_i = c'(t_i) - y_i and the weight c''(t_i); then the
                // block's X^T diag(w) X (and X^T diag(r^2) X) as one weighted product: the rows,
                // row-major, are the columns of a p x n column-major matrix.
                let n = yb.len();
                let (mut w, mut r2) = (Vec::with_capacity(n), Vec::with_capacity(if outer { n } else { 0 }));
                for (i, (row, &yi)) in xb.chunks_exact(p).zip(yb).enumerate() {
                    let t = model.eta(theta, row) + ob.map_or(0.0, |o| o[i]);
                    let (m, v) = model.link(t);
                    let r = m - yi;
                    let l = model.loss_at(t, yi);
                    s.loss += l;
                    s.loss_abs += l.abs();
                    s.grad.iter_mut().zip(row).for_each(|(g, x)| *g += r * x);
                    let size = m.abs() + yi.abs() + v * row.iter().zip(theta).map(|(a, b)| (a * b).abs()).sum::<f64>();
                    s.grad_abs.iter_mut().zip(row).for_each(|(g, x)| *g += size * x.abs());
                    w.push(v);
                    if outer {
                        r2.push(r * r);
                    }
                }
                let mut tmp = Vec::new();
                gradfree_core::linalg::add_weighted_outer_lower(&mut s.hess, p, xb, &w, &mut tmp);
                if let Some(o) = s.outer.as_mut() {
                    gradfree_core::linalg::add_weighted_outer_lower(o, p, xb, &r2, &mut tmp);
                }
                s
            })
            .collect()
    }
}

/// Copies the lower triangle of a symmetric `p x p` matrix (column-major, as
/// [`gradfree_core::linalg::add_weighted_outer_lower`] fills it) to its upper triangle.
pub(crate) fn mirror_lower(m: &mut [f64], p: usize) {
    for i in 0..p {
        for j in 0..i {
            m[i * p + j] = m[j * p + i];
        }
    }
}

/// `H^{-1} B` for symmetric positive definite `H` (`p x p`) and `B` (`p x cols`, column-major), by
/// Cholesky; `None` if `H` is not numerically positive definite.
pub(crate) fn spd_solve(h: &[f64], p: usize, b: &[f64], cols: usize) -> Option<Vec<f64>> {
    let mut l = h.to_vec();
    if !gradfree_core::linalg::cholesky_in_place(&mut l, p, &mut Default::default()) {
        return None;
    }
    let mut x = b.to_vec();
    gradfree_core::linalg::solve_l(&l, p, &mut x, cols);
    gradfree_core::linalg::solve_lt(&l, p, &mut x, cols);
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The covariance of an estimate from the Hessian `h` of the summed loss (and `outer`, `S`, for the
/// sandwich) and the scale.
pub(crate) fn wald_cov(h: &[f64], p: usize, scale: f64, outer: Option<&[f64]>) -> Result<Vec<f64>, InferenceError> {
    let singular = || InferenceError::SingularCovariance("the GLM's Hessian is singular at the estimate (collinear features?)".into());
    let eye = gradfree_core::linalg::scaled_identity(p, 1.0);
    let inv = spd_solve(h, p, &eye, p).ok_or_else(singular)?;
    Ok(match outer {
        // H^{-1} S H^{-1}: S H^{-1} is (H^{-1} S)^T, both symmetric.
        Some(s) => {
            let hs = spd_solve(h, p, s, p).ok_or_else(singular)?;
            let mut out = vec![0.0; p * p];
            gradfree_core::linalg::gemm(&hs, p, p, &inv, p, &mut out);
            // Symmetrize the rounding.
            for i in 0..p {
                for j in 0..i {
                    let m = 0.5 * (out[i * p + j] + out[j * p + i]);
                    out[i * p + j] = m;
                    out[j * p + i] = m;
                }
            }
            out
        }
        None => inv.iter().map(|v| v * scale).collect(),
    })
}

/// The Pearson scale of the linear model at its estimate (`rss / (N - p)`), 1 for the others.
pub(crate) fn pearson_scale(family: Family, rss: f64, n: u64, p: usize) -> f64 {
    match family {
        Family::Linear => rss / (n.saturating_sub(p as u64).max(1)) as f64,
        _ => 1.0,
    }
}

/// The GLM a model is (by its name), or an error naming the method and the models it fits.
pub fn as_glm(model: &dyn Model) -> Result<Glm, InferenceError> {
    let family = match model.name() {
        "linear" => Family::Linear,
        "logistic" => Family::Logistic,
        "poisson" => Family::Poisson,
        other => {
            return Err(InferenceError::invalid(
                "method",
                "mle",
                format!(
                    "a GLM model (linear, logistic, poisson) for maximum likelihood, not {other}: use random-scaling for confidence intervals, or a chain method for the process"
                ),
            ));
        }
    };
    Ok(Glm::new(family, model.dim()))
}

/// Maximum likelihood ([`Method::Mle`](crate::Method::Mle)) of `model` on `data` with the
/// covariance `spec.cov_type`, as a [`crate::Fit`], with the separation warning where the classes
/// are separated ([`crate::separation`]).
pub fn run_mle(model: &dyn Model, data: &Data, spec: &crate::InferenceSpec) -> Result<crate::Fit, InferenceError> {
    let glm = as_glm(model)?;
    model.check(data)?;
    check_ranges(glm.family, data)?;
    spec.check_settings(Some(data.len()), model.dim())?;
    spec.footprint(Some(data.len()), None, model.dim(), model.size_param()).check()?;
    if data.len() <= model.dim() {
        return Err(InferenceError::invalid(
            "data",
            format!("with {} rows", data.len()),
            format!("more rows than the {} parameters for maximum likelihood", model.dim()),
        ));
    }
    if spec.cov_type == CovType::Cluster && data.groups().is_none() {
        return Err(InferenceError::invalid("groups", "none", "a group per row with cov_type cluster (cov_kwds={\"groups\": ...})"));
    }
    let reduction = rank::reduce(data)?;
    let fitted = match &reduction {
        None => fit_glm_with(&glm, data, spec.cov_type),
        Some(r) => fit_glm_with(&Glm::new(glm.family, r.rank), &r.data, spec.cov_type).map(|f| GlmFit {
            params: r.params(&f.params),
            cov: r.cov(&f.cov),
            ..f
        }),
    };
    let fit = fitted.map_err(|e| match e {
        InferenceError::SingularCovariance(m) if glm.family == Family::Logistic => InferenceError::SingularCovariance(format!(
            "{m}; if the classes are separated: {} (the likelihood has no maximum)",
            crate::separation::MESSAGE
        )),
        e => e,
    })?;
    let rows = robust::Rows { x: data.rows(), y: data.responses(), off: data.offset(), groups: data.groups() };
    let rank = reduction.as_ref().map_or(glm.p, |r| r.rank);
    let stats = stats::compute(&glm, &fit.params, &rows, rank, data.constant_columns().next())?;
    let mut fit = crate::Fit::of_glm(spec.clone(), model.name(), fit, false);
    if let Some(g) = fit.glm.as_mut() {
        g.stats = Some(stats);
    }
    if let Some(r) = &reduction {
        fit.warnings.push(crate::warning::Warning::new(
            crate::warning::WarningKind::Other,
            format!(
                "The design's {} columns have rank {}: columns {:?} (counted from 0) are combinations of others, so their coefficients are not identified; the estimate is the minimum-norm one and the covariance the pseudo-inverse's (statsmodels' pinv), and the degrees of freedom count {} coefficients. Drop or combine the collinear columns for coefficients that mean something on their own.",
                glm.p, r.rank, r.columns, r.rank
            ),
        ));
    }
    crate::separation::diagnose(&mut fit, model, data);
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_fit_is_least_squares_with_the_classical_covariance() {
        // y = 1 + 2x exactly plus fixed residuals.
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let res = [0.1, -0.2, 0.0, 0.2, -0.1];
        let x: Vec<f64> = xs.iter().flat_map(|&v| [1.0, v]).collect();
        let y: Vec<f64> = xs.iter().zip(res).map(|(v, r)| 1.0 + 2.0 * v + r).collect();
        let data = Data::new(x, 2, y).unwrap();
        let fit = fit_glm(&Glm::new(Family::Linear, 2), &data).unwrap();
        // Least squares by hand: slope = Sxy / Sxx, Sxx = 10.
        let slope = 2.0 + xs.iter().zip(res).map(|(v, r)| (v - 2.0) * r).sum::<f64>() / 10.0;
        assert!((fit.params[1] - slope).abs() < 1e-12, "{:?}", fit.params);
        let resid: Vec<f64> = xs.iter().zip(res).map(|(v, r)| r - (slope - 2.0) * (v - 2.0)).collect();
        let rss: f64 = resid.iter().map(|e| e * e).sum();
        assert!((fit.cov[3] - rss / 3.0 / 10.0).abs() < 1e-12, "var(slope) = s^2 / Sxx");
        assert!((fit.scale - rss / 3.0).abs() < 1e-12 && fit.nobs == 5);
        // HC0 for the slope of a centred regressor: sum (x_i - xbar)^2 e_i^2 / Sxx^2.
        let hc0 = fit_glm_with(&Glm::new(Family::Linear, 2), &data, CovType::Hc0).unwrap();
        let want: f64 = xs.iter().zip(&resid).map(|(v, e)| (v - 2.0).powi(2) * e * e).sum::<f64>() / 100.0;
        assert!((hc0.cov[3] - want).abs() < 1e-12, "{} vs {want}", hc0.cov[3]);
    }

    /// Sums over blocks equal the plain sum, and do not depend on the thread count.
    #[test]
    fn parallel_sums_are_thread_count_free() {
        let (data, _) = crate::simulate::simulate(crate::simulate::Design::Toeplitz, 4, Family::Logistic, 9000, 3).unwrap();
        let model = Glm::new(Family::Logistic, 4);
        let theta = [0.1, -0.2, 0.3, 0.0];
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| GlmSums::over(&model, &theta, data.rows(), data.responses(), true));
        let b = GlmSums::over(&model, &theta, data.rows(), data.responses(), true);
        assert_eq!(a, b);
        let mut g = vec![0.0; 4];
        let mut plain = vec![0.0; 4];
        for i in 0..data.len() {
            model.grad(&theta, &data, i, &mut g);
            plain.iter_mut().zip(&g).for_each(|(s, v)| *s += v);
        }
        assert!(plain.iter().zip(&a.grad).all(|(u, v)| (u - v).abs() < 1e-9), "{plain:?} vs {:?}", a.grad);
    }
}
