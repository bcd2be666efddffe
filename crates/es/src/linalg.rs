//! Thin helpers over faer for square lower-triangular factors stored column-major in `Vec<f64>`
//! (so optimizer states serialize as plain vectors). A `d x n` column-major block is the same
//! memory as an `n x d` row-major population: column `i` is point `i`.

use faer::linalg::cholesky::llt::update::rank_r_update_clobber;
use faer::linalg::matmul::triangular::{BlockStructure, matmul};
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Accum, MatMut, MatRef, Par};

fn view(a: &[f64], rows: usize, cols: usize) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(a, rows, cols)
}

fn view_mut(a: &mut [f64], rows: usize, cols: usize) -> MatMut<'_, f64> {
    MatMut::from_column_major_slice_mut(a, rows, cols)
}

/// `X <- L^{-T} X` for lower-triangular `L` (`d x d`) and `X` (`d x n`).
pub fn solve_lt(l: &[f64], d: usize, x: &mut [f64], n: usize) {
    solve_upper_triangular_in_place(view(l, d, d).transpose(), view_mut(x, d, n), Par::Seq);
}

/// `X <- L^{-1} X`.
pub fn solve_l(l: &[f64], d: usize, x: &mut [f64], n: usize) {
    solve_lower_triangular_in_place(view(l, d, d), view_mut(x, d, n), Par::Seq);
}

/// `out <- L Z` for lower-triangular `L` (`d x d`) and `Z` (`d x n`).
pub fn mul_l(l: &[f64], d: usize, z: &[f64], n: usize, out: &mut [f64]) {
    matmul(
        view_mut(out, d, n),
        BlockStructure::Rectangular,
        Accum::Replace,
        view(l, d, d),
        BlockStructure::TriangularLower,
        view(z, d, n),
        BlockStructure::Rectangular,
        1.0,
        Par::Seq,
    );
}

/// `out <- A B` for column-major `A` (`m x k`) and `B` (`k x n`).
pub fn gemm(a: &[f64], m: usize, k: usize, b: &[f64], n: usize, out: &mut [f64]) {
    faer::linalg::matmul::matmul(view_mut(out, m, n), Accum::Replace, view(a, m, k), view(b, k, n), 1.0, Par::Seq);
}

/// `out <- Z^T Z` (`r x r`) for `Z` (`d x r`), both column-major.
pub fn gram(z: &[f64], d: usize, r: usize, out: &mut [f64]) {
    faer::linalg::matmul::matmul(view_mut(out, r, r), Accum::Replace, view(z, d, r).transpose(), view(z, d, r), 1.0, Par::Seq);
}

/// `C <- C + Y diag(c) Y^T` on the lower triangle (diagonal included) of a symmetric `C`
/// (`d x d`), `Y` is `d x r`; the strict upper triangle is not touched. `tmp` is scratch.
pub fn add_weighted_outer_lower(cmat: &mut [f64], d: usize, y: &[f64], c: &[f64], tmp: &mut Vec<f64>) {
    let r = c.len();
    tmp.clear();
    tmp.extend_from_slice(y);
    for (col, &ci) in tmp.chunks_exact_mut(d).zip(c) {
        col.iter_mut().for_each(|v| *v *= ci);
    }
    matmul(
        view_mut(cmat, d, d),
        BlockStructure::TriangularLower,
        Accum::Add,
        view(tmp, d, r),
        BlockStructure::Rectangular,
        view(y, d, r).transpose(),
        BlockStructure::Rectangular,
        1.0,
        Par::Seq,
    );
}

/// Eigendecomposition of a symmetric `d x d` matrix: eigenvalues ascending into `values`,
/// eigenvectors (columns) into `vectors`. `false` if it did not converge or is not finite.
pub fn sym_eigen(a: &[f64], d: usize, values: &mut [f64], vectors: &mut [f64]) -> bool {
    let Ok(e) = view(a, d, d).self_adjoint_eigen(faer::Side::Lower) else {
        return false;
    };
    let s = e.S();
    let u = e.U();
    for i in 0..d {
        values[i] = s[i];
        for j in 0..d {
            vectors[j * d + i] = u[(i, j)];
        }
    }
    values.iter().all(|v| v.is_finite()) && vectors.iter().all(|v| v.is_finite())
}

/// Rank-`r` update of a lower Cholesky factor: `L L^T <- L L^T + W diag(alpha) W^T`, in O(r d^2).
/// `w` (`d x r`) is overwritten. Returns `false` (with `L` partly overwritten: restore it from a
/// copy) when the result is not positive definite.
pub fn rank_update(l: &mut [f64], d: usize, w: &mut [f64], alpha: &mut [f64]) -> bool {
    let r = alpha.len();
    rank_r_update_clobber(view_mut(l, d, d), view_mut(w, d, r), faer::diag::DiagMut::from_slice_mut(alpha)).is_ok()
        && (0..d).all(|i| l[i * d + i].is_finite() && l[i * d + i] > 0.0)
}

/// The identity times `s`, column-major.
pub fn scaled_identity(d: usize, s: f64) -> Vec<f64> {
    let mut a = vec![0.0; d * d];
    for i in 0..d {
        a[i * d + i] = s;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(d: usize) -> Vec<f64> {
        let mut l = vec![0.0; d * d];
        for j in 0..d {
            for i in j..d {
                l[j * d + i] = if i == j { 1.5 + i as f64 } else { 0.3 * ((i * 7 + j * 3) % 5) as f64 - 0.6 };
            }
        }
        l
    }

    #[test]
    fn solves_and_products_agree_with_dense() {
        let d = 5;
        let l = lower(d);
        let z: Vec<f64> = (0..d * 2).map(|k| (k as f64 * 0.7).sin()).collect();
        let mut y = vec![0.0; d * 2];
        mul_l(&l, d, &z, 2, &mut y);
        for c in 0..2 {
            for i in 0..d {
                let want: f64 = (0..=i).map(|k| l[k * d + i] * z[c * d + k]).sum();
                assert!((y[c * d + i] - want).abs() < 1e-12);
            }
        }
        solve_l(&l, d, &mut y, 2);
        assert!(y.iter().zip(&z).all(|(a, b)| (a - b).abs() < 1e-12));
        // L^{-T} applied to L^T z (computed densely) gives z back.
        let mut t = vec![0.0; d * 2];
        for c in 0..2 {
            for i in 0..d {
                t[c * d + i] = (i..d).map(|k| l[i * d + k] * z[c * d + k]).sum();
            }
        }
        solve_lt(&l, d, &mut t, 2);
        assert!(t.iter().zip(&z).all(|(a, b)| (a - b).abs() < 1e-12));
    }

    #[test]
    fn rank_update_matches_dense_and_detects_indefinite() {
        let d = 4;
        let l = lower(d);
        let dense = |l: &[f64]| -> Vec<f64> {
            let mut a = vec![0.0; d * d];
            for i in 0..d {
                for j in 0..d {
                    a[j * d + i] = (0..d).map(|k| l[k * d + i] * l[k * d + j]).sum();
                }
            }
            a
        };
        let v = [0.5, -1.0, 0.25, 2.0, 1.0, 0.0, -0.5, 0.3];
        let alpha = [0.7, -0.2];
        let mut want = dense(&l);
        for (c, a) in alpha.iter().enumerate() {
            for i in 0..d {
                for j in 0..d {
                    want[j * d + i] += a * v[c * d + i] * v[c * d + j];
                }
            }
        }
        let mut l2 = l.clone();
        let (mut w, mut al) = (v.to_vec(), alpha.to_vec());
        assert!(rank_update(&mut l2, d, &mut w, &mut al));
        let got = dense(&l2);
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-10));
        // A large downdate leaves the cone.
        let mut l3 = l.clone();
        let (mut w, mut al) = (v.to_vec(), vec![-100.0, 0.0]);
        assert!(!rank_update(&mut l3, d, &mut w, &mut al));
    }
}
