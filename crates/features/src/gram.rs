//! Exact and approximate Gram matrices and the error measures of thesis sec. 6.6.2: relative
//! Frobenius error `||K~ - K||_F / ||K||_F` and relative element-wise max error `||K~ - K||_max /
//! ||K||_max`, on a sample of rows.
//!
//! Both Gram matrices come from one matrix product each (faer, parallel): `X X^T` gives the inner
//! products the exact kernel needs, `Z Z^T` the approximation.

use faer::{Accum, MatMut, MatRef, Par};
use gradfree_core::GfRng;
use rand::seq::index;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::kernel::Kernel;
use crate::{FeatureError, check_rows};

/// `X X^T` for row-major `x` (`s x d`) into row-major `out` (`s x s`): one matrix product per
/// block of rows, blocks in parallel.
fn inner_products_into(x: &[f64], d: usize, out: &mut [f64]) {
    const B: usize = 128;
    let s = x.len() / d;
    let all = MatRef::from_row_major_slice(x, s, d);
    out.par_chunks_mut(B * s.max(1)).enumerate().for_each(|(bi, o)| {
        let rows = o.len() / s;
        let xb = MatRef::from_row_major_slice(&x[bi * B * d..(bi * B + rows) * d], rows, d);
        let om = MatMut::from_row_major_slice_mut(o, rows, s);
        faer::linalg::matmul::matmul(om, Accum::Replace, xb, all.transpose(), 1.0, Par::Seq);
    });
}

/// The exact `s x s` Gram matrix of `kernel` on the rows of `x` (row-major `s x d`), row-major.
pub fn exact_gram(kernel: &Kernel, x: &[f64], d: usize) -> Result<Vec<f64>, FeatureError> {
    kernel.check()?;
    let s = check_rows(x, d)?;
    FeatureError::check_memory(&format!("a {s} x {s} Gram matrix"), (s as u128) * (s as u128))?;
    let mut out = vec![0.0; s * s];
    inner_products_into(x, d, &mut out);
    let diag: Vec<f64> = (0..s).map(|i| out[i * s + i]).collect();
    out.par_chunks_mut(s.max(1)).enumerate().for_each(|(i, row)| {
        for (j, v) in row.iter_mut().enumerate() {
            *v = kernel.from_inner(*v, diag[i], diag[j]);
        }
    });
    Ok(out)
}

/// The approximate Gram matrix `Z Z^T` of features `z` (row-major `s x q`), row-major.
pub fn feature_gram(z: &[f64], q: usize) -> Result<Vec<f64>, FeatureError> {
    let s = check_rows(z, q)?;
    FeatureError::check_memory(&format!("a {s} x {s} Gram matrix"), (s as u128) * (s as u128))?;
    let mut out = vec![0.0; s * s];
    inner_products_into(z, q, &mut out);
    Ok(out)
}

/// Relative errors of an approximate Gram matrix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GramErrors {
    /// `||K~ - K||_F / ||K||_F`.
    pub rel_frobenius: f64,
    /// `max |K~ - K| / max |K|`.
    pub rel_max: f64,
}

impl GramErrors {
    /// Compares two Gram matrices of the same size.
    pub fn between(exact: &[f64], approx: &[f64]) -> Result<GramErrors, FeatureError> {
        if exact.len() != approx.len() {
            return Err(FeatureError::BadInput(format!("Gram matrices differ in size: {} vs {} entries", exact.len(), approx.len())));
        }
        let (mut diff2, mut ref2, mut diff_max, mut ref_max) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (k, a) in exact.iter().zip(approx) {
            let e = a - k;
            diff2 += e * e;
            ref2 += k * k;
            diff_max = diff_max.max(e.abs());
            ref_max = ref_max.max(k.abs());
        }
        if ref2 == 0.0 {
            return Err(FeatureError::BadInput("the exact Gram matrix is zero: relative errors are undefined".into()));
        }
        Ok(GramErrors { rel_frobenius: (diff2 / ref2).sqrt(), rel_max: diff_max / ref_max })
    }
}

/// `k` distinct row indexes of `0..n` drawn uniformly, sorted (all rows if `k >= n`).
pub fn sample_rows(n: usize, k: usize, rng: &mut GfRng) -> Vec<usize> {
    if k >= n {
        return (0..n).collect();
    }
    let mut idx = index::sample(rng, n, k).into_vec();
    idx.sort_unstable();
    idx
}

/// The rows `idx` of row-major `x` (`d` columns), converted to `f64`.
pub fn gather<T: crate::projection::Real>(x: &[T], d: usize, idx: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(idx.len() * d);
    for &i in idx {
        out.extend(x[i * d..(i + 1) * d].iter().map(|v| v.to_f64()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_matches_pairwise_evaluation_and_errors_are_relative() {
        let d = 3;
        let x: Vec<f64> = (0..5 * d).map(|i| (i as f64 * 0.61).sin()).collect();
        for k in [Kernel::Gaussian { sigma: 0.8 }, Kernel::ArcCos { order: 0 }, Kernel::ArcCos { order: 1 }, Kernel::ArcCos { order: 2 }] {
            let g = exact_gram(&k, &x, d).unwrap();
            for i in 0..5 {
                for j in 0..5 {
                    let direct = k.eval(&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]);
                    assert!((g[i * 5 + j] - direct).abs() < 1e-12, "{k:?} ({i}, {j})");
                }
            }
            let e = GramErrors::between(&g, &g).unwrap();
            assert_eq!((e.rel_frobenius, e.rel_max), (0.0, 0.0));
            let scaled: Vec<f64> = g.iter().map(|v| 1.1 * v).collect();
            let e = GramErrors::between(&g, &scaled).unwrap();
            assert!((e.rel_frobenius - 0.1).abs() < 1e-12 && (e.rel_max - 0.1).abs() < 1e-12);
        }
        assert!(GramErrors::between(&[0.0], &[1.0]).is_err());
        assert!(exact_gram(&Kernel::ArcCos { order: 1 }, &[1.0, 2.0], 3).is_err());
    }
}
