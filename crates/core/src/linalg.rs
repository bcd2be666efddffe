//! The dense linear algebra the methods share, as thin helpers over faer. Matrices are `Vec<f64>`
//! stored column-major (so states serialize as plain vectors); a `d x n` column-major block is the
//! same memory as an `n x d` row-major [`crate::Population`]: column `i` is point `i`. Every
//! subsystem uses these instead of its own matrix code. The in-place routines do not allocate once
//! their outputs and workspaces have grown to size.

use faer::dyn_stack::MemStack;
use faer::linalg::evd::{ComputeEigenvectors, self_adjoint_evd, self_adjoint_evd_scratch};
use faer::linalg::matmul::triangular::{BlockStructure, matmul};
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Accum, MatMut, MatRef, Par};
use std::mem::MaybeUninit;

mod rank_update;
pub use rank_update::rank_update;

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

/// `dst <- A B` (or `dst += A B`) with the triangular structures given, sequentially: faer's
/// triangular product, which reads and writes only the triangles named.
fn structured(
    dst: (MatMut<'_, f64>, BlockStructure),
    accum: Accum,
    a: (MatRef<'_, f64>, BlockStructure),
    b: (MatRef<'_, f64>, BlockStructure),
) {
    matmul(dst.0, dst.1, accum, a.0, a.1, b.0, b.1, 1.0, Par::Seq);
}

/// `out <- L Z` for lower-triangular `L` (`d x d`) and `Z` (`d x n`).
pub fn mul_l(l: &[f64], d: usize, z: &[f64], n: usize, out: &mut [f64]) {
    use BlockStructure::{Rectangular, TriangularLower};
    structured((view_mut(out, d, n), Rectangular), Accum::Replace, (view(l, d, d), TriangularLower), (view(z, d, n), Rectangular));
}

/// `out <- A B` for column-major `A` (`m x k`) and `B` (`k x n`).
pub fn gemm(a: &[f64], m: usize, k: usize, b: &[f64], n: usize, out: &mut [f64]) {
    faer::linalg::matmul::matmul(view_mut(out, m, n), Accum::Replace, view(a, m, k), view(b, k, n), 1.0, Par::Seq);
}

/// `out <- A B^T` for column-major `A` (`m x k`) and `B` (`n x k`).
pub fn gemm_nt(a: &[f64], m: usize, k: usize, b: &[f64], n: usize, out: &mut [f64]) {
    faer::linalg::matmul::matmul(view_mut(out, m, n), Accum::Replace, view(a, m, k), view(b, n, k).transpose(), 1.0, Par::Seq);
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
    use BlockStructure::{Rectangular, TriangularLower};
    structured(
        (view_mut(cmat, d, d), TriangularLower),
        Accum::Add,
        (view(tmp, d, r), Rectangular),
        (view(y, d, r).transpose(), Rectangular),
    );
}

/// Reusable workspace of [`sym_eigen`], so repeated decompositions do not allocate. Cloning
/// gives an empty workspace (it holds no state).
#[derive(Default)]
pub struct EigenWork {
    buf: Vec<MaybeUninit<u8>>,
}

impl Clone for EigenWork {
    fn clone(&self) -> Self {
        EigenWork::default()
    }
}

impl std::fmt::Debug for EigenWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EigenWork({} bytes)", self.buf.len())
    }
}

/// Eigendecomposition of a symmetric `d x d` matrix (lower triangle read): eigenvalues ascending
/// into `values`, eigenvectors (columns, column-major `d x d`) into `vectors` if given. `false`
/// if it did not converge or is not finite. No allocation once `work` has grown to size.
pub fn sym_eigen(a: &[f64], d: usize, values: &mut [f64], vectors: Option<&mut [f64]>, work: &mut EigenWork) -> bool {
    let which = if vectors.is_some() { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
    let need = self_adjoint_evd_scratch::<f64>(d, which, Par::Seq, Default::default()).unaligned_bytes_required();
    if work.buf.len() < need {
        work.buf.resize(need, MaybeUninit::uninit());
    }
    let stack = MemStack::new(&mut work.buf[..need]);
    let s = faer::diag::DiagMut::from_slice_mut(&mut values[..d]);
    let ok = match vectors {
        Some(v) => {
            self_adjoint_evd(view(a, d, d), s, Some(view_mut(&mut v[..d * d], d, d)), Par::Seq, stack, Default::default()).is_ok()
                && v[..d * d].iter().all(|x| x.is_finite())
        }
        None => self_adjoint_evd(view(a, d, d), s, None, Par::Seq, stack, Default::default()).is_ok(),
    };
    ok && values[..d].iter().all(|v| v.is_finite())
}

/// Cholesky factorization `A = L L^T` in place: reads the lower triangle of the symmetric
/// `n x n` column-major `A`, writes `L` there and zeros the strict upper triangle. `false` (with
/// `A` overwritten) if `A` is not numerically positive definite or the factor is not finite.
/// `work` is reused across calls, as for [`sym_eigen`].
pub fn cholesky_in_place(a: &mut [f64], n: usize, work: &mut EigenWork) -> bool {
    use faer::linalg::cholesky::llt::factor::{cholesky_in_place as llt, cholesky_in_place_scratch};
    let need = cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()).unaligned_bytes_required();
    if work.buf.len() < need {
        work.buf.resize(need, MaybeUninit::uninit());
    }
    let stack = MemStack::new(&mut work.buf[..need]);
    let ok = llt(view_mut(&mut a[..n * n], n, n), Default::default(), Par::Seq, stack, Default::default()).is_ok();
    for j in 0..n {
        for i in 0..j {
            a[j * n + i] = 0.0;
        }
    }
    ok && (0..n).all(|i| a[i * n + i].is_finite() && a[i * n + i] > 0.0) && a[..n * n].iter().all(|v| v.is_finite())
}

/// Whether every entry of `a` is finite, at memory speed: `v * 0` is 0 for finite `v` and NaN
/// for infinities and NaN, summed over 8 lanes (a scalar `all(is_finite)` runs one entry per
/// cycle, a tenth of INGO's generation at d = 1000).
pub fn all_finite(a: &[f64]) -> bool {
    let mut acc = [0.0f64; 8];
    let chunks = a.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (s, v) in acc.iter_mut().zip(c) {
            *s += v * 0.0;
        }
    }
    acc.iter().chain(tail).all(|v| v.is_finite())
}

/// Solves `A x = b` in place for a small dense `n x n` column-major `A` (overwritten by its LU
/// factors) by Gaussian elimination with partial pivoting, O(n^3). `false` if `A` is singular to
/// working precision or the result is not finite.
pub fn solve_dense(a: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[k * n + i].abs().total_cmp(&a[k * n + j].abs())).unwrap_or(k);
        if a[k * n + p].abs() <= scale * 1e-14 || !a[k * n + p].is_finite() {
            return false;
        }
        if p != k {
            for j in 0..n {
                a.swap(j * n + k, j * n + p);
            }
            b.swap(k, p);
        }
        let pivot = a[k * n + k];
        for i in k + 1..n {
            let f = a[k * n + i] / pivot;
            a[k * n + i] = f;
            for j in k + 1..n {
                a[j * n + i] -= f * a[j * n + k];
            }
            b[i] -= f * b[k];
        }
    }
    for k in (0..n).rev() {
        let t: f64 = (k + 1..n).map(|j| a[j * n + k] * b[j]).sum();
        b[k] = (b[k] - t) / a[k * n + k];
    }
    b[..n].iter().all(|v| v.is_finite())
}

/// Minimum-norm least-squares solution of `A x = b` for a column-major `m x n` `A`, through the
/// thin singular value decomposition, `x = A^+ b` (the Moore-Penrose pseudo-inverse; singular
/// values below `max(m, n) eps s_max` count as zero, NumPy's `pinv` rule). Written into `x`
/// (length `n`). `false` if the decomposition fails or the result is not finite. Allocates:
/// meant for model fits, not per-sample loops.
pub fn lstsq_min_norm(a: &[f64], m: usize, n: usize, b: &[f64], x: &mut Vec<f64>) -> bool {
    x.clear();
    x.resize(n, 0.0);
    if m == 0 || n == 0 {
        return true;
    }
    let Ok(svd) = view(&a[..m * n], m, n).thin_svd() else {
        return false;
    };
    let (u, s, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let k = s.nrows();
    let smax = (0..k).map(|i| s[i]).fold(0.0f64, f64::max);
    let cut = m.max(n) as f64 * f64::EPSILON * smax;
    for i in 0..k {
        if s[i].is_nan() || s[i] <= cut {
            continue;
        }
        let c = (0..m).map(|r| u[(r, i)] * b[r]).sum::<f64>() / s[i];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj += v[(j, i)] * c;
        }
    }
    x.iter().all(|v| v.is_finite())
}

/// The identity times `s`, column-major.
pub fn scaled_identity(d: usize, s: f64) -> Vec<f64> {
    let mut a = vec![0.0; d * d];
    for i in 0..d {
        a[i * d + i] = s;
    }
    a
}

/// A Haar-distributed random orthogonal `d x d` matrix, **row-major**, from `seed`: the Q factor
/// of the QR decomposition of a standard Gaussian matrix (drawn row by row from
/// [`crate::rng_from_seed`]`(seed)`), with columns multiplied by `sign(R_jj)` (Mezzadri, "How to
/// generate random matrices from the classical compact groups", Notices AMS 54, 2007), so the
/// distribution is exactly uniform on O(d). Used by rotated problems, orthogonal random features,
/// Haar-rotated SSF maps and anything else that needs a random rotation.
pub fn random_orthogonal(d: usize, seed: u64) -> Vec<f64> {
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = crate::rng_from_seed(seed);
    let g: Vec<f64> = (0..d * d).map(|_| StandardNormal.sample(&mut rng)).collect();
    let gm = faer::Mat::from_fn(d, d, |i, j| g[i * d + j]);
    let qr = gm.qr();
    let q = qr.compute_Q();
    let r = qr.R();
    let mut out = vec![0.0; d * d];
    for j in 0..d {
        let s = if r[(j, j)] < 0.0 { -1.0 } else { 1.0 };
        for i in 0..d {
            out[i * d + j] = s * q[(i, j)];
        }
    }
    out
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

    /// Overdetermined and consistent: the exact coefficients; underdetermined: the solution of
    /// smallest norm (for `[1 1] x = 2`, `x = (1, 1)`); rank-deficient: the component along the
    /// null space stays zero.
    #[test]
    fn lstsq_min_norm_is_the_pseudo_inverse_solution() {
        // A = [[1, 0], [1, 1], [1, 2]], x = (0.5, -2).
        let a = [1.0, 1.0, 1.0, 0.0, 1.0, 2.0];
        let b = [0.5, -1.5, -3.5];
        let mut x = Vec::new();
        assert!(lstsq_min_norm(&a, 3, 2, &b, &mut x));
        assert!((x[0] - 0.5).abs() < 1e-12 && (x[1] + 2.0).abs() < 1e-12, "{x:?}");
        assert!(lstsq_min_norm(&[1.0, 1.0], 1, 2, &[2.0], &mut x));
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12, "{x:?}");
        // Two equal columns: x1 + x2 = 3 at every row; the minimum norm splits it evenly.
        assert!(lstsq_min_norm(&[1.0, 2.0, 1.0, 2.0], 2, 2, &[3.0, 6.0], &mut x));
        assert!((x[0] - 1.5).abs() < 1e-12 && (x[1] - 1.5).abs() < 1e-12, "{x:?}");
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
    fn cholesky_reconstructs_and_rejects_indefinite() {
        let d = 5;
        let l = lower(d);
        let mut a = vec![0.0; d * d];
        gemm_nt(&l, d, d, &l, d, &mut a);
        let mut f = a.clone();
        let mut work = EigenWork::default();
        assert!(cholesky_in_place(&mut f, d, &mut work));
        let mut back = vec![0.0; d * d];
        gemm_nt(&f, d, d, &f, d, &mut back);
        assert!(back.iter().zip(&a).all(|(x, y)| (x - y).abs() < 1e-10));
        let mut bad = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky_in_place(&mut bad, 2, &mut work));
    }

    #[test]
    fn solve_dense_matches_the_system_and_rejects_singular() {
        // A needs pivoting (zero in the corner).
        let n = 4;
        let a: Vec<f64> = vec![0.0, 2.0, 1.0, -1.0, 3.0, 1.0, 0.5, 2.0, 1.0, -2.0, 4.0, 0.0, 2.0, 0.0, 1.0, 3.0];
        let x = [1.0, -2.0, 0.5, 3.0];
        let mut b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[j * n + i] * x[j]).sum()).collect();
        let mut lu = a.clone();
        assert!(solve_dense(&mut lu, n, &mut b));
        assert!(b.iter().zip(&x).all(|(u, v)| (u - v).abs() < 1e-12), "{b:?}");
        let mut sing = vec![1.0, 2.0, 2.0, 4.0];
        assert!(!solve_dense(&mut sing, 2, &mut [1.0, 1.0]));
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
        assert!(rank_update(&mut l2, d, &mut w, &mut al, &mut Vec::new()));
        let got = dense(&l2);
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-10));
        // A large downdate leaves the cone.
        let mut l3 = l.clone();
        let (mut w, mut al) = (v.to_vec(), vec![-100.0, 0.0]);
        assert!(!rank_update(&mut l3, d, &mut w, &mut al, &mut Vec::new()));
    }

    #[test]
    fn all_finite_finds_any_infinity_or_nan() {
        let mut a = vec![1.5; 37];
        assert!(all_finite(&a) && all_finite(&[]));
        for i in [0, 7, 8, 31, 32, 36] {
            for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
                a[i] = bad;
                assert!(!all_finite(&a), "{i} {bad}");
                a[i] = -2.0;
            }
        }
    }

    /// The eigensolver reads only the lower triangle (CMA-ES and xNES keep only that current),
    /// and its decomposition reconstructs the matrix.
    #[test]
    fn sym_eigen_reads_the_lower_triangle_and_reconstructs() {
        let d = 6;
        let mut a = vec![0.0; d * d];
        for j in 0..d {
            for i in j..d {
                let v = ((i * 5 + j * 3) % 7) as f64 - 3.0 + if i == j { 4.0 } else { 0.0 };
                a[j * d + i] = v;
            }
        }
        let mut full = a.clone();
        let mut garbage = a.clone();
        for j in 0..d {
            for i in 0..j {
                full[j * d + i] = full[i * d + j];
                garbage[j * d + i] = 1e3 * (i + j) as f64;
            }
        }
        let mut work = EigenWork::default();
        let (mut v1, mut u1) = (vec![0.0; d], vec![0.0; d * d]);
        let (mut v2, mut u2) = (vec![0.0; d], vec![0.0; d * d]);
        assert!(sym_eigen(&full, d, &mut v1, Some(&mut u1), &mut work));
        assert!(sym_eigen(&garbage, d, &mut v2, Some(&mut u2), &mut work));
        assert_eq!(v1, v2);
        assert!(v1.windows(2).all(|w| w[0] <= w[1]), "ascending");
        let mut scaled = u1.clone();
        for (col, l) in scaled.chunks_exact_mut(d).zip(&v1) {
            col.iter_mut().for_each(|x| *x *= l);
        }
        let mut back = vec![0.0; d * d];
        gemm_nt(&scaled, d, d, &u1, d, &mut back);
        assert!(back.iter().zip(&full).all(|(x, y)| (x - y).abs() < 1e-12), "U diag U^T = A");
        let mut values_only = vec![0.0; d];
        assert!(sym_eigen(&full, d, &mut values_only, None, &mut work));
        assert!(values_only.iter().zip(&v1).all(|(x, y)| (x - y).abs() < 1e-12));
    }

    #[test]
    fn orthogonal_is_orthogonal_and_seeded() {
        let d = 17;
        let q = random_orthogonal(d, 5);
        for i in 0..d {
            for j in 0..d {
                let dot: f64 = (0..d).map(|k| q[i * d + k] * q[j * d + k]).sum();
                assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert_eq!(q, random_orthogonal(d, 5));
        assert_ne!(q, random_orthogonal(d, 6));
    }
}
