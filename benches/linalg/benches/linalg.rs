//! faer vs nalgebra on the kernels the ES family needs at d = 100 and 1000:
//! Cholesky, symmetric eigendecomposition, triangular solve with N = 24 right-hand sides (sampling
//! from N(mu, Sigma) with a Cholesky factor of Sigma^-1), and a rank-one Cholesky update.
//! Run: `cargo bench -p gradfree-linalg-bench`.
#![allow(missing_docs)]

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

const DIMS: &[usize] = &[100, 1000];
const NRHS: usize = 24;

fn main() {
    divan::main();
}

fn gaussian(n: usize, m: usize, seed: u64) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n * m).map(|_| StandardNormal.sample(&mut rng)).collect()
}

/// A well-conditioned SPD matrix I + G G^T / d, column-major.
fn spd(d: usize) -> Vec<f64> {
    let g = gaussian(d, d, 1);
    let mut a = vec![0.0; d * d];
    for j in 0..d {
        for i in 0..d {
            let mut s = 0.0;
            for k in 0..d {
                s += g[i * d + k] * g[j * d + k];
            }
            a[j * d + i] = s / d as f64 + if i == j { 1.0 } else { 0.0 };
        }
    }
    a
}

mod faer_impl {
    use super::*;
    use faer::{Mat, Side};

    fn mat(d: usize) -> Mat<f64> {
        let a = spd(d);
        Mat::from_fn(d, d, |i, j| a[j * d + i])
    }

    #[divan::bench(args = DIMS)]
    fn cholesky(b: divan::Bencher, d: usize) {
        let a = mat(d);
        b.bench(|| a.llt(Side::Lower).unwrap());
    }

    #[divan::bench(args = DIMS, sample_count = 10)]
    fn sym_eigen(b: divan::Bencher, d: usize) {
        let a = mat(d);
        b.bench(|| a.self_adjoint_eigen(Side::Lower).unwrap());
    }

    #[divan::bench(args = DIMS)]
    fn tri_solve_24(b: divan::Bencher, d: usize) {
        let l = mat(d).llt(Side::Lower).unwrap().L().to_owned();
        let z = gaussian(d, NRHS, 2);
        let rhs = Mat::from_fn(d, NRHS, |i, j| z[j * d + i]);
        b.bench(|| {
            let mut x = rhs.clone();
            l.transpose().solve_upper_triangular_in_place(&mut x);
            x
        });
    }

    #[divan::bench(args = DIMS)]
    fn rank_one_update(b: divan::Bencher, d: usize) {
        let l = mat(d).llt(Side::Lower).unwrap().L().to_owned();
        let v = gaussian(d, 1, 3);
        b.bench(|| {
            let mut lc = l.clone();
            let mut w = Mat::from_fn(d, 1, |i, _| v[i]);
            let mut alpha = faer::diag::Diag::<f64>::full(1, 0.1);
            faer::linalg::cholesky::llt::update::rank_r_update_clobber(lc.as_mut(), w.as_mut(), alpha.as_mut()).unwrap();
            lc
        });
    }
}

mod nalgebra_impl {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn mat(d: usize) -> DMatrix<f64> {
        DMatrix::from_vec(d, d, spd(d))
    }

    #[divan::bench(args = DIMS)]
    fn cholesky(b: divan::Bencher, d: usize) {
        let a = mat(d);
        b.bench(|| a.clone().cholesky().unwrap());
    }

    #[divan::bench(args = DIMS, sample_count = 10)]
    fn sym_eigen(b: divan::Bencher, d: usize) {
        let a = mat(d);
        b.bench(|| a.clone().symmetric_eigen());
    }

    #[divan::bench(args = DIMS)]
    fn tri_solve_24(b: divan::Bencher, d: usize) {
        let l = mat(d).cholesky().unwrap().l();
        let rhs = DMatrix::from_vec(d, NRHS, gaussian(d, NRHS, 2));
        b.bench(|| {
            let mut x = rhs.clone();
            l.tr_solve_lower_triangular_mut(&mut x);
            x
        });
    }

    #[divan::bench(args = DIMS)]
    fn rank_one_update(b: divan::Bencher, d: usize) {
        let c = mat(d).cholesky().unwrap();
        let v = DVector::from_vec(gaussian(d, 1, 3));
        b.bench(|| {
            let mut cc = c.clone();
            cc.rank_one_update(&v, 0.1);
            cc
        });
    }
}
