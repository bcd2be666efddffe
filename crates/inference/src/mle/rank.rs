//! Collinear columns, as statsmodels treats them: the estimate is the minimum-norm maximum of the
//! likelihood (the pseudo-inverse's, `np.linalg.pinv` in statsmodels' `OLS` and IRLS), with the
//! covariance `pinv(H)`, and `rank` coefficients are counted in the degrees of freedom.
//!
//! How: the null space of `X` is read off `X^T X` scaled to a unit diagonal (eigenvalues at most
//! [`COLLINEAR`] times the largest, so the columns' scales do not count); the fit runs on the
//! `rank` coordinates `z = T^T theta` of an orthonormal basis `T` of the null space's orthogonal
//! complement (the row space of `X`), where the design `X T` has full rank, and maps back,
//! `theta = T z`, `cov = T C T^T`. Every `theta` in the row space is the minimum-norm one of its
//! fitted values, and `T (T^T H T)^{-1} T^T` is `pinv(H)` for `H` whose null space is `X`'s.

use rayon::prelude::*;

use super::BLOCK;
use crate::{Data, InferenceError};

/// Eigenvalues of the scaled `X^T X` at most this times the largest count as 0 (the tolerance of
/// Newton's collinearity check, 450 machine epsilons).
pub const COLLINEAR: f64 = 1e-14;

/// A rank-deficient design's reduction (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct Reduction {
    /// The rows in the reduced coordinates `X T` (with the offset and groups of the original).
    pub data: Data,
    /// `T`, `p x rank`, row-major.
    pub basis: Vec<f64>,
    /// The rank.
    pub rank: usize,
    /// The columns that are 0 in every row, or the largest loadings of the null directions: the
    /// columns named in the warning.
    pub columns: Vec<usize>,
}

impl Reduction {
    /// `T z`.
    pub fn params(&self, z: &[f64]) -> Vec<f64> {
        let (p, r) = (self.basis.len() / self.rank, self.rank);
        (0..p).map(|a| (0..r).map(|k| self.basis[a * r + k] * z[k]).sum()).collect()
    }

    /// `T C T^T` for the `rank x rank` row-major `C`.
    pub fn cov(&self, c: &[f64]) -> Vec<f64> {
        let (p, r) = (self.basis.len() / self.rank, self.rank);
        let t = &self.basis;
        let mut tc = vec![0.0; p * r];
        for a in 0..p {
            for k in 0..r {
                tc[a * r + k] = (0..r).map(|l| t[a * r + l] * c[l * r + k]).sum();
            }
        }
        let mut out = vec![0.0; p * p];
        for a in 0..p {
            for b in 0..=a {
                let v: f64 = (0..r).map(|k| tc[a * r + k] * t[b * r + k]).sum();
                out[a * p + b] = v;
                out[b * p + a] = v;
            }
        }
        out
    }
}

/// The reduction of `data`'s design when its columns are collinear, `None` when it has full
/// rank; an error when every column is 0.
pub(crate) fn reduce(data: &Data) -> Result<Option<Reduction>, InferenceError> {
    let (p, x) = (data.dim(), data.rows());
    let blocks: Vec<Vec<f64>> = x
        .par_chunks(BLOCK * p)
        .map(|xb| {
            let mut g = vec![0.0; p * p];
            gradfree_core::linalg::add_weighted_outer_lower(&mut g, p, xb, &vec![1.0; xb.len() / p], &mut Vec::new());
            g
        })
        .collect();
    let mut g = vec![0.0; p * p];
    for b in &blocks {
        g.iter_mut().zip(b).for_each(|(a, v)| *a += v);
    }
    super::mirror_lower(&mut g, p);
    let d: Vec<f64> = (0..p).map(|j| if g[j * p + j] > 0.0 { g[j * p + j].sqrt() } else { 1.0 }).collect();
    let scaled: Vec<f64> = (0..p * p).map(|k| g[k] / d[k / p] / d[k % p]).collect();
    let (mut values, mut vectors) = (vec![0.0; p], vec![0.0; p * p]);
    if !gradfree_core::linalg::sym_eigen(&scaled, p, &mut values, Some(&mut vectors), &mut Default::default()) {
        return Ok(None);
    }
    let top = values.iter().fold(0.0f64, |a, v| a.max(*v));
    if top <= 0.0 {
        return Err(InferenceError::BadData("every column is 0 in every row: no coefficient is identified".into()));
    }
    // The null directions in the original coordinates, orthonormalized (Gram-Schmidt).
    let mut null: Vec<Vec<f64>> = Vec::new();
    let mut columns = Vec::new();
    for k in (0..p).filter(|&k| values[k] <= COLLINEAR * top) {
        let mut u: Vec<f64> = (0..p).map(|a| vectors[k * p + a] / d[a]).collect();
        // The column that loads most on this direction, for the warning.
        if let Some(j) = (0..p).max_by(|&a, &b| u[a].abs().total_cmp(&u[b].abs())) {
            columns.push(j);
        }
        for q in &null {
            let c: f64 = u.iter().zip(q).map(|(a, b)| a * b).sum();
            u.iter_mut().zip(q).for_each(|(a, b)| *a -= c * b);
        }
        let norm = u.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > 0.0 {
            null.push(u.into_iter().map(|v| v / norm).collect());
        }
    }
    if null.is_empty() {
        return Ok(None);
    }
    let rank = p - null.len();
    // The projector onto the complement, I - Q Q^T, and its eigenvectors of eigenvalue 1.
    let mut proj = gradfree_core::linalg::scaled_identity(p, 1.0);
    for q in &null {
        for a in 0..p {
            for b in 0..p {
                proj[a * p + b] -= q[a] * q[b];
            }
        }
    }
    let (mut pv, mut pvec) = (vec![0.0; p], vec![0.0; p * p]);
    if !gradfree_core::linalg::sym_eigen(&proj, p, &mut pv, Some(&mut pvec), &mut Default::default()) {
        return Ok(None);
    }
    // Ascending eigenvalues: the last `rank` are 1. Signs fixed (largest component positive) so
    // that the basis does not depend on the eigen solver's choice.
    let mut basis = vec![0.0; p * rank];
    for (k, col) in (p - rank..p).enumerate() {
        let v = &pvec[col * p..(col + 1) * p];
        let sign = v.iter().copied().max_by(|a, b| a.abs().total_cmp(&b.abs())).map_or(1.0, f64::signum);
        for a in 0..p {
            basis[a * rank + k] = sign * v[a];
        }
    }
    let t = &basis;
    let reduced: Vec<f64> =
        x.par_chunks(p).flat_map_iter(|row| (0..rank).map(move |k| (0..p).map(|a| row[a] * t[a * rank + k]).sum::<f64>())).collect();
    let mut out = Data::new(reduced, rank, data.responses().to_vec())?;
    if let Some(o) = data.offset() {
        out = out.with_offset(o.to_vec())?;
    }
    if let Some(g) = data.groups() {
        out = out.with_groups(g.to_vec())?;
    }
    columns.sort_unstable();
    columns.dedup();
    Ok(Some(Reduction { data: out, basis, rank, columns }))
}

#[cfg(test)]
mod tests {
    use crate::mle::fit_glm;
    use crate::{Data, Family, Glm, InferenceSpec, run};

    /// A duplicated column scaled by 2: the estimate is the minimum-norm one, `theta_1 + 2
    /// theta_2 = b` and `theta ⊥ (2, -1)`, so `theta_1 = b / 5`, `theta_2 = 2 b / 5`, with `b` the
    /// slope of the design without the copy; the fit warns, and its degrees of freedom count 2.
    #[test]
    fn collinear_columns_give_the_minimum_norm_estimate() {
        let xs: Vec<f64> = (0..40).map(|i| ((i * 7 % 13) as f64 - 6.0) / 3.0).collect();
        let y: Vec<f64> = xs.iter().enumerate().map(|(i, v)| 0.5 + 1.5 * v + ((i * 5 % 7) as f64 - 3.0) / 10.0).collect();
        let full = Data::new(xs.iter().flat_map(|&v| [1.0, v]).collect(), 2, y.clone()).unwrap();
        let b = fit_glm(&Glm::new(Family::Linear, 2), &full).unwrap();
        let dup = Data::new(xs.iter().flat_map(|&v| [1.0, v, 2.0 * v]).collect(), 3, y).unwrap();
        let fit = run(&Glm::new(Family::Linear, 3), &dup, &InferenceSpec::default(), None).unwrap();
        let want = [b.params[0], b.params[1] / 5.0, 2.0 * b.params[1] / 5.0];
        assert!(fit.params.iter().zip(want).all(|(a, w)| (a - w).abs() < 1e-10), "{:?} vs {want:?}", fit.params);
        assert!(fit.warnings.iter().any(|w| w.to_string().contains("rank 2")));
        let m = fit.measures().unwrap();
        assert_eq!((m.rank, m.df_model, m.df_resid), (2, 1.0, 38.0));
        // The variance of the identified combination theta_1 + 2 theta_2 is the slope's.
        let c = &fit.cov_params;
        let v = c[4] + 4.0 * c[5] + 4.0 * c[8];
        assert!((v - b.cov[3]).abs() < 1e-10 * b.cov[3], "{v} vs {}", b.cov[3]);
    }
}
