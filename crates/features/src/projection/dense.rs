//! Projections by an explicit `N x d` matrix `W` whose rows are standard-Gaussian-distributed
//! directions: i.i.d. (Rahimi & Recht 2007), orthogonal random features (Yu et al. 2016: Haar
//! blocks with chi(d) row norms), and QMC features (thesis eq. 5.21; Avron et al. 2016), rows
//! `Phi^{-1}(u_i)` of a randomized Halton, scrambled Sobol or randomly shifted rank-1 lattice point
//! set. `W x` for a block of rows is one matrix product (faer).

use faer::{Accum, MatMut, MatRef, Par};
use gradfree_core::{GfRng, derive_seed};
use gradfree_qmc::transform::normal_quantile;
use gradfree_qmc::{Halton, Scramble, Sequence, Sobol};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use super::op::{LinearOp, Workspace, rows};
use crate::FeatureError;

/// `N` directions in `R^d` as a row-major `N x d` matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseProjection {
    d: usize,
    w: Vec<f64>,
}

impl DenseProjection {
    /// From row-major directions (`w.len()` a multiple of `d`).
    pub fn from_rows(w: Vec<f64>, d: usize) -> Result<Self, FeatureError> {
        if d == 0 || w.is_empty() || !w.len().is_multiple_of(d) {
            return Err(FeatureError::invalid("w", format!("{} values", w.len()), format!("a positive multiple of d = {d}")));
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(FeatureError::BadInput("projection directions must be finite".into()));
        }
        Ok(DenseProjection { d, w })
    }

    /// `n` i.i.d. `N(0, I_d)` directions.
    pub fn iid(d: usize, n: usize, rng: &mut GfRng) -> Self {
        let w = (0..n * d).map(|_| StandardNormal.sample(rng)).collect();
        DenseProjection { d, w }
    }

    /// Orthogonal random features: blocks of `d` rows of a Haar orthogonal matrix (QR of a
    /// Gaussian matrix with the sign fix), each row scaled by an independent chi(d) radius, so rows
    /// are marginally `N(0, I_d)` and orthogonal within a block; the last block is truncated.
    pub fn orthogonal(d: usize, n: usize, rng: &mut GfRng) -> Self {
        let mut w = Vec::with_capacity(n * d);
        let blocks = n.div_ceil(d);
        for _ in 0..blocks {
            let q = gradfree_core::linalg::random_orthogonal(d, rng.random::<u64>());
            for row in q.chunks_exact(d) {
                if w.len() == n * d {
                    break;
                }
                let radius = (0..d).map(|_| StandardNormal.sample(rng)).map(|v: f64| v * v).sum::<f64>().sqrt();
                w.extend(row.iter().map(|v| v * radius));
            }
        }
        DenseProjection { d, w }
    }

    /// `Phi^{-1}` of `n` points of a unit-cube point set (row-major `n x d`; coordinates clamped
    /// away from 0 and 1 by [`normal_quantile`]).
    pub fn from_uniform(mut u: Vec<f64>, d: usize) -> Result<Self, FeatureError> {
        u.iter_mut().for_each(|v| *v = normal_quantile(*v));
        Self::from_rows(u, d)
    }

    /// Halton points randomized by digit permutations (seeded), through `Phi^{-1}`.
    pub fn halton(d: usize, n: usize, seed: u64) -> Result<Self, FeatureError> {
        let mut h = Halton::new(d, Some(seed))?;
        // Point 0 of a randomized Halton sequence is random, not the origin; keep it.
        Self::from_uniform(h.sample(n)?, d)
    }

    /// Sobol points with linear matrix scrambling and a digital shift (seeded), through `Phi^{-1}`.
    pub fn sobol(d: usize, n: usize, seed: u64) -> Result<Self, FeatureError> {
        let mut s = Sobol::new(d, Scramble::LmsShift { seed })?;
        Self::from_uniform(s.sample(n)?, d)
    }

    /// The first `n` points of the randomly shifted subgroup rank-1 lattice (thesis eq. 5.14) of the
    /// smallest admissible size `>= n` (a prime `p` with `2d | p - 1`), through `Phi^{-1}`. With
    /// `n` itself admissible this is the whole lattice (the thesis' setting).
    pub fn lattice(d: usize, n: usize, seed: u64) -> Result<Self, FeatureError> {
        let size = *gradfree_qmc::admissible_sizes(d, n as u64, 1)
            .first()
            .ok_or_else(|| FeatureError::invalid("n", n, "a size with an admissible prime above it"))?;
        let mut rng = gradfree_core::rng_from_seed(derive_seed(seed, 0x1a77));
        let lat = gradfree_qmc::subgroup(d, size)?.random_shift(&mut rng);
        let mut u = vec![0.0; n * d];
        lat.fill_par(0, n, &mut u);
        Self::from_uniform(u, d)
    }

    /// Input dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Number of directions `N`.
    pub fn len(&self) -> usize {
        self.w.len() / self.d
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        self.w.is_empty()
    }

    /// The directions, row-major `N x d`.
    pub fn rows(&self) -> &[f64] {
        &self.w
    }

    /// `out = scale * X W^T` for a block of `b` rows (`x`: `b x d` row-major, `out`: `b x N`).
    pub fn project_block(&self, x: &[f64], scale: f64, out: &mut [f64]) {
        let (d, n) = (self.d, self.len());
        let b = x.len() / d;
        let xm = MatRef::from_row_major_slice(x, b, d);
        let wm = MatRef::from_row_major_slice(&self.w, n, d);
        let om = MatMut::from_row_major_slice_mut(out, b, n);
        faer::linalg::matmul::matmul(om, Accum::Replace, xm, wm.transpose(), scale, Par::Seq);
    }
}

/// `W x` is one matrix product per block (faer), and so is the adjoint `Y W`.
impl LinearOp for DenseProjection {
    fn dim_in(&self) -> usize {
        self.d
    }
    fn dim_out(&self) -> usize {
        self.len()
    }
    fn apply(&self, x: &[f64], scale: f64, out: &mut [f64], _ws: &mut Workspace) {
        rows(x, self.d, out, self.len());
        self.project_block(x, scale, out);
    }
    fn apply_adjoint(&self, y: &[f64], scale: f64, out: &mut [f64], _ws: &mut Workspace) {
        let (d, n) = (self.d, self.len());
        let b = rows(y, n, out, d);
        let ym = MatRef::from_row_major_slice(y, b, n);
        let wm = MatRef::from_row_major_slice(&self.w, n, d);
        let om = MatMut::from_row_major_slice_mut(out, b, d);
        faer::linalg::matmul::matmul(om, Accum::Replace, ym, wm, scale, Par::Seq);
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gradfree_core::rng_from_seed;

    /// Every construction gives rows with the moments of `N(0, I)`: mean 0, `E[w_j^2] = 1`.
    #[test]
    fn rows_are_standard_gaussian_in_distribution() {
        let (d, n) = (8, 4096);
        let mut rng = rng_from_seed(1);
        let sets = [
            ("iid", DenseProjection::iid(d, n, &mut rng)),
            ("orf", DenseProjection::orthogonal(d, n, &mut rng)),
            ("halton", DenseProjection::halton(d, n, 3).unwrap()),
            ("sobol", DenseProjection::sobol(d, n, 3).unwrap()),
            ("lattice", DenseProjection::lattice(d, n, 3).unwrap()),
        ];
        for (name, p) in &sets {
            assert_eq!(p.len(), n, "{name}");
            for j in 0..d {
                let col = p.rows().iter().skip(j).step_by(d);
                let (s1, s2) = col.fold((0.0, 0.0), |(a, b), v| (a + v, b + v * v));
                let (mean, var) = (s1 / n as f64, s2 / n as f64);
                assert!(mean.abs() < 0.1 && (var - 1.0).abs() < 0.12, "{name} coordinate {j}: mean {mean}, var {var}");
            }
        }
    }

    #[test]
    fn orthogonal_blocks_are_orthogonal() {
        let d = 6;
        let p = DenseProjection::orthogonal(d, 15, &mut rng_from_seed(2));
        assert_eq!(p.len(), 15);
        for block in p.rows().chunks(d * d) {
            let rows: Vec<&[f64]> = block.chunks_exact(d).collect();
            for i in 0..rows.len() {
                for j in 0..i {
                    let dot: f64 = rows[i].iter().zip(rows[j]).map(|(a, b)| a * b).sum();
                    assert!(dot.abs() < 1e-10);
                }
            }
        }
    }

    #[test]
    fn block_product_equals_the_naive_one() {
        let (d, n) = (5, 7);
        let p = DenseProjection::iid(d, n, &mut rng_from_seed(4));
        let x: Vec<f64> = (0..3 * d).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut out = vec![0.0; 3 * n];
        p.project_block(&x, 0.5, &mut out);
        for r in 0..3 {
            for i in 0..n {
                let naive: f64 = (0..d).map(|j| x[r * d + j] * p.rows()[i * d + j]).sum::<f64>() * 0.5;
                assert!((naive - out[r * n + i]).abs() < 1e-12);
            }
        }
        assert!(DenseProjection::from_rows(vec![1.0; 7], 3).is_err());
        assert!(DenseProjection::from_rows(vec![f64::NAN; 3], 3).is_err());
    }
}
