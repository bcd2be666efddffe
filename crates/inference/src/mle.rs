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

/// The covariance of the Wald intervals (statsmodels' `cov_type` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CovType {
    /// The inverse Fisher information times the scale: exact under the model (statsmodels'
    /// default).
    #[default]
    #[serde(rename = "nonrobust")]
    Nonrobust,
    /// White's heteroskedasticity-consistent sandwich `H^{-1} S H^{-1}`, `S = sum g_i g_i^T`.
    #[serde(rename = "HC0")]
    Hc0,
}

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

/// The sums of a GLM over rows at one `theta`: the loss, the gradient `sum (c'(t_i) - y_i) x_i`,
/// the Hessian `sum c''(t_i) x_i x_i^T` and optionally `S = sum g_i g_i^T` (both `p x p`, full).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GlmSums {
    pub loss: f64,
    pub grad: Vec<f64>,
    pub hess: Vec<f64>,
    pub outer: Option<Vec<f64>>,
}

impl GlmSums {
    fn zero(p: usize, outer: bool) -> GlmSums {
        GlmSums { loss: 0.0, grad: vec![0.0; p], hess: vec![0.0; p * p], outer: outer.then(|| vec![0.0; p * p]) }
    }

    fn add(&mut self, other: &GlmSums) {
        self.loss += other.loss;
        self.grad.iter_mut().zip(&other.grad).for_each(|(a, b)| *a += b);
        self.hess.iter_mut().zip(&other.hess).for_each(|(a, b)| *a += b);
        if let (Some(a), Some(b)) = (self.outer.as_mut(), other.outer.as_ref()) {
            a.iter_mut().zip(b).for_each(|(u, v)| *u += v);
        }
    }

    /// The sums over the rows `x` (row-major, `p` per row) with responses `y`, at `theta`.
    pub fn over(model: &Glm, theta: &[f64], x: &[f64], y: &[f64], outer: bool) -> GlmSums {
        let p = model.p;
        let parts: Vec<GlmSums> = x
            .par_chunks(BLOCK * p)
            .zip(y.par_chunks(BLOCK))
            .map(|(xb, yb)| {
                let mut s = GlmSums::zero(p, outer);
                for (row, &yi) in xb.chunks_exact(p).zip(yb) {
                    let t = model.eta(theta, row);
                    let (m, v) = model.link(t);
                    let r = m - yi;
                    s.loss += model.loss_at(t, yi);
                    for (i, &xi) in row.iter().enumerate() {
                        s.grad[i] += r * xi;
                        let (vi, ri) = (v * xi, r * r * xi);
                        for (j, &xj) in row.iter().enumerate().skip(i) {
                            s.hess[i * p + j] += vi * xj;
                            if let Some(o) = s.outer.as_mut() {
                                o[i * p + j] += ri * xj;
                            }
                        }
                    }
                }
                s
            })
            .collect();
        let mut total = GlmSums::zero(p, outer);
        parts.iter().for_each(|s| total.add(s));
        // Mirror the upper triangles.
        for m in std::iter::once(&mut total.hess).chain(total.outer.as_mut()) {
            for i in 0..p {
                for j in 0..i {
                    m[i * p + j] = m[j * p + i];
                }
            }
        }
        total
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

/// [`fit_glm_with`] and statsmodels' default covariance.
pub fn fit_glm(model: &Glm, data: &Data) -> Result<GlmFit, InferenceError> {
    fit_glm_with(model, data, CovType::Nonrobust)
}

/// Newton's method on the negative log-likelihood of `model` over `data` from the origin, with
/// step halving, until the Newton decrement `g^T H^-1 g` (twice the predicted decrease) is below
/// `1e-13 max(1, |L|)` or no step decreases the loss; then the covariance `cov`.
pub fn fit_glm_with(model: &Glm, data: &Data, cov: CovType) -> Result<GlmFit, InferenceError> {
    model.check(data)?;
    let (p, n) = (model.dim(), data.len());
    let (x, y) = (data.rows(), data.responses());
    let total = |w: &[f64]| -> f64 {
        x.par_chunks(BLOCK * p)
            .zip(y.par_chunks(BLOCK))
            .map(|(xb, yb)| xb.chunks_exact(p).zip(yb).map(|(row, &yi)| model.loss_at(model.eta(w, row), yi)).sum::<f64>())
            .collect::<Vec<f64>>()
            .iter()
            .sum()
    };
    let mut w = vec![0.0; p];
    let mut sums = GlmSums::over(model, &w, x, y, false);
    let finish = |w: Vec<f64>, sums: &GlmSums, it: usize| -> Result<GlmFit, InferenceError> {
        let outer = match cov {
            CovType::Hc0 => GlmSums::over(model, &w, x, y, true).outer,
            CovType::Nonrobust => None,
        };
        let scale = pearson_scale(model.family, 2.0 * sums.loss, n as u64, p);
        Ok(GlmFit { cov: wald_cov(&sums.hess, p, scale, outer.as_deref())?, params: w, iterations: it, scale, nobs: n as u64 })
    };
    for it in 0..200 {
        let Some(step) = spd_solve(&sums.hess, p, &sums.grad, 1) else {
            return Err(InferenceError::SingularCovariance("the GLM's Hessian is singular (collinear features, or separable data)".into()));
        };
        // The Newton decrement g^T H^-1 g: half of it is the predicted decrease of the loss.
        let decrement: f64 = sums.grad.iter().zip(&step).map(|(a, b)| a * b).sum();
        if decrement <= 1e-13 * sums.loss.abs().max(1.0) || !decrement.is_finite() {
            return finish(w, &sums, it);
        }
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            let ft = total(&trial);
            if ft.is_finite() && ft < sums.loss {
                w = trial;
                break;
            }
            t *= 0.5;
            if t < 1e-12 {
                return finish(w, &sums, it);
            }
        }
        sums = GlmSums::over(model, &w, x, y, false);
    }
    Err(InferenceError::BadData("Newton's method did not converge in 200 steps (separable data?)".into()))
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
