//! The "meat" `S` of the sandwich covariance `H^{-1} S H^{-1}` of a GLM's maximum-likelihood
//! estimate, by `cov_type`, with statsmodels' definitions (`statsmodels.base.covtype` and
//! `stats.sandwich_covariance`):
//!
//! - `HC0` (White 1980): `S = sum_i g_i g_i^T`, `g_i = (mu_i - y_i) x_i` the row's score;
//! - the linear model's `HC1`: `S` times `N / (N - p)`; `HC2`: `sum_i g_i g_i^T / (1 - h_i)`;
//!   `HC3`: `sum_i g_i g_i^T / (1 - h_i)^2`, `h_i = x_i^T (X^T X)^{-1} x_i` the leverage
//!   (MacKinnon & White 1985). statsmodels' `GLM` and `Logit` give `HC0` for `HC1`-`HC3`, and so
//!   does this module for logistic and Poisson regression;
//! - `cluster` (CRV1, Liang & Zeger 1986; Cameron & Miller 2015): `S = sum_g s_g s_g^T`, `s_g`
//!   the summed scores of group `g`, times `G / (G - 1) (N - 1) / (N - p)`.

use rayon::prelude::*;

use super::{BLOCK, CovType, GlmSums, mirror_lower, spd_solve};
use crate::model::Family;
use crate::{Glm, InferenceError};

/// The rows of a fit: features (row-major), responses, and optionally an offset and a group
/// per row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows<'a> {
    pub x: &'a [f64],
    pub y: &'a [f64],
    pub off: Option<&'a [f64]>,
    pub groups: Option<&'a [u64]>,
}

/// The number of distinct groups.
pub(crate) fn count_groups(groups: &[u64]) -> usize {
    let mut g = groups.to_vec();
    g.sort_unstable();
    g.dedup();
    g.len()
}

/// The meat `S` of `cov` at the estimate `w` (see the module documentation), `None` for the
/// nonrobust covariance; `hess` is the Hessian of the summed loss at `w` (the linear model's
/// `X^T X`). Errors: `cluster` without groups or with one group, a leverage of 1 under `HC2` or
/// `HC3` (a row fitted exactly by its own coefficient: its corrected score is undefined).
pub(crate) fn meat(model: &Glm, w: &[f64], rows: &Rows, cov: CovType, hess: &[f64]) -> Result<Option<Vec<f64>>, InferenceError> {
    let (p, n) = (model.p, rows.y.len());
    let linear = model.family == Family::Linear;
    let hc0 = || GlmSums::over_offset(model, w, rows.x, rows.y, rows.off, true).outer;
    Ok(match cov {
        CovType::Nonrobust => None,
        CovType::Hc0 => hc0(),
        CovType::Hc1 | CovType::Hc2 | CovType::Hc3 if !linear => hc0(),
        CovType::Hc1 => {
            let f = hc1_factor(n as u64, p);
            hc0().map(|s| s.into_iter().map(|v| v * f).collect())
        }
        CovType::Hc2 | CovType::Hc3 => Some(leveraged(model, w, rows, hess, if cov == CovType::Hc2 { 1 } else { 2 })?),
        CovType::Cluster => Some(clustered(model, w, rows)?),
    })
}

/// `sum_i g_i g_i^T / (1 - h_i)^power` for the linear model.
fn leveraged(model: &Glm, w: &[f64], rows: &Rows, hess: &[f64], power: i32) -> Result<Vec<f64>, InferenceError> {
    let p = model.p;
    let inv = spd_solve(hess, p, &gradfree_core::linalg::scaled_identity(p, 1.0), p)
        .ok_or_else(|| InferenceError::SingularCovariance("the GLM's Hessian is singular at the estimate (collinear features?)".into()))?;
    let blocks: Vec<Result<Vec<f64>, InferenceError>> = rows
        .x
        .par_chunks(BLOCK * p)
        .zip(rows.y.par_chunks(BLOCK))
        .enumerate()
        .map(|(b, (xb, yb))| {
            let mut weights = Vec::with_capacity(yb.len());
            for (i, (row, &yi)) in xb.chunks_exact(p).zip(yb).enumerate() {
                let r = model.eta(w, row) + rows.off.map_or(0.0, |o| o[b * BLOCK + i]) - yi;
                let h: f64 = (0..p).map(|a| row[a] * (0..p).map(|c| inv[a * p + c] * row[c]).sum::<f64>()).sum();
                if 1.0 - h <= 1e-12 {
                    return Err(InferenceError::invalid(
                        "cov_type",
                        if power == 1 { "HC2" } else { "HC3" },
                        format!(
                            "HC0 or HC1 here: row {} has leverage 1 (it alone determines a coefficient), so its corrected residual r / (1 - h) is undefined",
                            b * BLOCK + i
                        ),
                    ));
                }
                weights.push(r * r / (1.0 - h).powi(power));
            }
            let mut s = vec![0.0; p * p];
            gradfree_core::linalg::add_weighted_outer_lower(&mut s, p, xb, &weights, &mut Vec::new());
            Ok(s)
        })
        .collect();
    let mut total = vec![0.0; p * p];
    for s in blocks {
        total.iter_mut().zip(s?).for_each(|(a, v)| *a += v);
    }
    mirror_lower(&mut total, p);
    Ok(total)
}

/// CRV1: the groups' summed scores' outer products, with statsmodels' correction.
fn clustered(model: &Glm, w: &[f64], rows: &Rows) -> Result<Vec<f64>, InferenceError> {
    let p = model.p;
    let n = rows.y.len();
    let Some(groups) = rows.groups else {
        return Err(InferenceError::invalid("groups", "none", "a group per row with cov_type cluster"));
    };
    // Groups by their label, in label order; every group's score summed in row order.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (groups[i], i));
    let mut total = vec![0.0; p * p];
    let mut count = 0usize;
    let mut s = vec![0.0; p];
    for (k, &i) in order.iter().enumerate() {
        let row = &rows.x[i * p..(i + 1) * p];
        let (m, _) = model.link(model.eta(w, row) + rows.off.map_or(0.0, |o| o[i]));
        let r = m - rows.y[i];
        s.iter_mut().zip(row).for_each(|(a, x)| *a += r * x);
        if k + 1 == n || groups[order[k + 1]] != groups[i] {
            for a in 0..p {
                for c in 0..p {
                    total[a * p + c] += s[a] * s[c];
                }
            }
            s.iter_mut().for_each(|v| *v = 0.0);
            count += 1;
        }
    }
    if count < 2 {
        return Err(InferenceError::invalid("groups", format!("{count} distinct group"), "at least 2 groups for cov_type cluster"));
    }
    let g = count as f64;
    let f = g / (g - 1.0) * (n as f64 - 1.0) / (n.saturating_sub(p).max(1)) as f64;
    total.iter_mut().for_each(|v| *v *= f);
    Ok(total)
}

/// HC1's small-sample factor `N / (N - p)` (MacKinnon & White 1985).
pub(crate) fn hc1_factor(n: u64, p: usize) -> f64 {
    n as f64 / (n.saturating_sub(p as u64).max(1)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Data;
    use crate::mle::fit_glm_with;

    fn line() -> Data {
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.5];
        let res = [0.3, -0.2, 0.1, 0.4, -0.5, 0.2, -0.1];
        let x: Vec<f64> = xs.iter().flat_map(|&v| [1.0, v]).collect();
        let y: Vec<f64> = xs.iter().zip(res).map(|(v, r)| 1.0 + 2.0 * v + r).collect();
        Data::new(x, 2, y).unwrap()
    }

    /// HC2 and HC3 of a straight line against their definitions written out: the leverage
    /// `h_i = 1/n + (x_i - xbar)^2 / Sxx`, the slope's variance `sum (x_i - xbar)^2 e_i^2 /
    /// (1 - h_i)^k / Sxx^2`.
    #[test]
    fn hc2_and_hc3_are_the_leverage_corrected_sandwiches() {
        let data = line();
        let model = Glm::new(Family::Linear, 2);
        let base = fit_glm_with(&model, &data, CovType::Nonrobust).unwrap();
        let n = data.len() as f64;
        let xs: Vec<f64> = (0..data.len()).map(|i| data.row(i)[1]).collect();
        let xbar = xs.iter().sum::<f64>() / n;
        let sxx: f64 = xs.iter().map(|v| (v - xbar).powi(2)).sum();
        for (cov, k) in [(CovType::Hc2, 1), (CovType::Hc3, 2)] {
            let fit = fit_glm_with(&model, &data, cov).unwrap();
            let want: f64 = (0..data.len())
                .map(|i| {
                    let e = data.response(i) - base.params[0] - base.params[1] * xs[i];
                    let h = 1.0 / n + (xs[i] - xbar).powi(2) / sxx;
                    (xs[i] - xbar).powi(2) * e * e / (1.0 - h).powi(k)
                })
                .sum::<f64>()
                / (sxx * sxx);
            assert!((fit.cov[3] - want).abs() < 1e-12 * want, "{cov:?}: {} vs {want}", fit.cov[3]);
        }
        // HC1 is HC0 times n / (n - p).
        let (h0, h1) = (fit_glm_with(&model, &data, CovType::Hc0).unwrap(), fit_glm_with(&model, &data, CovType::Hc1).unwrap());
        assert!((h1.cov[3] - h0.cov[3] * n / (n - 2.0)).abs() < 1e-14);
    }

    /// With every row its own cluster, CRV1's correction `G / (G - 1) (N - 1) / (N - p)` is
    /// `N / (N - p)`: the cluster covariance is HC1.
    #[test]
    fn singleton_clusters_are_hc1() {
        let data = line();
        let groups: Vec<u64> = (0..data.len() as u64).rev().collect();
        let data = data.with_groups(groups).unwrap();
        let model = Glm::new(Family::Linear, 2);
        let a = fit_glm_with(&model, &data, CovType::Cluster).unwrap();
        let b = fit_glm_with(&model, &data, CovType::Hc1).unwrap();
        assert!(a.cov.iter().zip(&b.cov).all(|(u, v)| (u - v).abs() < 1e-12 * v.abs().max(1e-12)), "{:?} vs {:?}", a.cov, b.cov);
        // One group is refused, naming the parameter.
        let one = line().with_groups(vec![3; 7]).unwrap();
        let e = fit_glm_with(&model, &one, CovType::Cluster).unwrap_err().to_string();
        assert!(e.contains("groups") && e.contains("at least 2"), "{e}");
    }
}
