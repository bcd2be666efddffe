//! The goodness-of-fit numbers of a GLM's maximum-likelihood fit that statsmodels' results
//! carry ([`GlmStats`]): the deviance and Pearson's chi-squared (McCullagh & Nelder 1989, sec.
//! 2.3), the null model's log-likelihood and deviance (the model with a constant only and the
//! offset, as statsmodels' `llnull` and `null_deviance` fit it whether or not the model has a
//! constant), the linear model's sums of squares, the rank and whether the model has a constant
//! (statsmodels' `k_constant`: an intercept or a column whose every row holds the same nonzero
//! value).

use serde::{Deserialize, Serialize};

use super::robust::Rows;
use super::{BLOCK, CovType, fit_glm_with};
use crate::model::Family;
use crate::{Data, Glm, InferenceError};
use rayon::prelude::*;

/// The statistics a maximum-likelihood fit in memory carries (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlmStats {
    /// The rank of the design (the coefficients estimated; fewer than the columns when some are
    /// collinear: the minimum-norm fit of the pseudo-inverse).
    pub rank: usize,
    /// The design's constant column (an intercept, or a column whose every row holds the same
    /// nonzero value; statsmodels' `k_constant` is 1 when there is one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant: Option<usize>,
    /// Distinct groups (`cov_type` cluster).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_groups: Option<u64>,
    /// Whether the fit had an offset (or exposure).
    #[serde(default)]
    pub offset: bool,
    /// The deviance `2 (l_saturated - l)`: the residual sum of squares for the linear model,
    /// `-2 llf` for logistic regression, `2 sum [y ln(y / mu) - (y - mu)]` for Poisson.
    pub deviance: f64,
    /// The null model's deviance.
    pub null_deviance: f64,
    /// Pearson's `sum (y - mu)^2 / V(mu)`, `V` the variance function (1, `mu (1 - mu)`, `mu`).
    pub pearson_chi2: f64,
    /// The null model's log-likelihood (logistic and Poisson regression; `None` for the linear
    /// model, as statsmodels' `OLS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llnull: Option<f64>,
    /// `sum (y - ybar)^2`.
    pub centered_tss: f64,
    /// `sum y^2`.
    pub uncentered_tss: f64,
}

/// `y ln(y / mu)`, 0 at `y = 0`.
fn ylog(y: f64, mu: f64) -> f64 {
    if y == 0.0 { 0.0 } else { y * (y / mu).ln() }
}

/// The deviance and Pearson's chi-squared of the means `mu` (one per row).
fn deviance_pearson(family: Family, y: &[f64], mu: impl Fn(usize) -> f64 + Sync) -> (f64, f64) {
    let parts: Vec<(f64, f64)> = y
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(b, yb)| {
            let (mut d, mut c) = (0.0, 0.0);
            for (i, &yi) in yb.iter().enumerate() {
                let m = mu(b * BLOCK + i);
                let r = yi - m;
                match family {
                    Family::Linear => {
                        d += r * r;
                        c += r * r;
                    }
                    Family::Logistic => {
                        d += 2.0 * (ylog(yi, m) + ylog(1.0 - yi, 1.0 - m));
                        c += r * r / (m * (1.0 - m));
                    }
                    Family::Poisson => {
                        d += 2.0 * (ylog(yi, m) - r);
                        c += r * r / m;
                    }
                }
            }
            (d, c)
        })
        .collect();
    parts.iter().fold((0.0, 0.0), |(a, b), (d, c)| (a + d, b + c))
}

/// The Bernoulli log-likelihood of means `mu`, `sum y ln mu + (1 - y) ln(1 - mu)` (0 ln 0 = 0).
fn bernoulli_log_likelihood(y: &[f64], mu: impl Fn(usize) -> f64 + Sync) -> f64 {
    let parts: Vec<f64> = y
        .par_chunks(BLOCK)
        .enumerate()
        .map(|(b, yb)| {
            yb.iter()
                .enumerate()
                .map(|(i, &yi)| {
                    let m = mu(b * BLOCK + i);
                    (if yi > 0.0 { yi * m.ln() } else { 0.0 }) + (if yi < 1.0 { (1.0 - yi) * (1.0 - m).ln() } else { 0.0 })
                })
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum()
}

/// The statistics of the fit `theta` of `model` on `rows` (see the module documentation); `rank`
/// the design's rank, `constant` its constant column.
pub(crate) fn compute(model: &Glm, theta: &[f64], rows: &Rows, rank: usize, constant: Option<usize>) -> Result<GlmStats, InferenceError> {
    let (p, n) = (model.p, rows.y.len());
    let y = rows.y;
    let mean_at = |i: usize| {
        let row = &rows.x[i * p..(i + 1) * p];
        model.link(model.eta(theta, row) + rows.off.map_or(0.0, |o| o[i])).0
    };
    let (deviance, pearson_chi2) = deviance_pearson(model.family, y, mean_at);
    let ybar = y.iter().sum::<f64>() / n as f64;
    let centered_tss = y.iter().map(|v| (v - ybar) * (v - ybar)).sum::<f64>();
    let uncentered_tss = y.iter().map(|v| v * v).sum::<f64>();
    // The null model: a constant and the offset. Without an offset its mean is ybar.
    let null_mu: Vec<f64> = match rows.off {
        Some(o)
            if model.family != Family::Linear
                && ybar > 0.0
                && ybar < if model.family == Family::Logistic { 1.0 } else { f64::INFINITY } =>
        {
            let data = Data::new(vec![1.0; n], 1, y.to_vec())?.with_offset(o.to_vec())?;
            // A null model that cannot be fitted (its likelihood without a maximum under this
            // offset) leaves the null statistics undefined (NaN), not the fit an error.
            match fit_glm_with(&Glm::new(model.family, 1), &data, CovType::Nonrobust) {
                Ok(fit) => o.iter().map(|oi| model.link(fit.params[0] + oi).0).collect(),
                Err(_) => vec![f64::NAN; n],
            }
        }
        Some(o) if model.family == Family::Linear => {
            // Least squares of y - offset on a constant.
            let c = y.iter().zip(o).map(|(a, b)| a - b).sum::<f64>() / n as f64;
            o.iter().map(|oi| c + oi).collect()
        }
        _ => Vec::new(),
    };
    let null_at = |i: usize| if null_mu.is_empty() { ybar } else { null_mu[i] };
    let (null_deviance, _) = deviance_pearson(model.family, y, null_at);
    let llnull = match model.family {
        Family::Linear => None,
        Family::Logistic => Some(bernoulli_log_likelihood(y, null_at)),
        // The Poisson log-likelihood summed without cancellation (super::poisson_log_likelihood):
        // the null model as a constant column with the offset of its means.
        Family::Poisson => {
            let ones = vec![1.0; n];
            let off: Vec<f64> = (0..n).map(|i| null_at(i).ln()).collect();
            Some(super::poisson_log_likelihood_offset(&Glm::new(Family::Poisson, 1), &[0.0], &ones, y, Some(&off)))
        }
    };
    Ok(GlmStats {
        rank,
        constant,
        n_groups: rows.groups.map(|g| super::robust::count_groups(g) as u64),
        offset: rows.off.is_some(),
        deviance,
        null_deviance,
        pearson_chi2,
        llnull,
        centered_tss,
        uncentered_tss,
    })
}
