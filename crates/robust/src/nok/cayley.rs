//! The Cayley map (thesis eq. 7.15; Helfrich et al. 2018): a skew-symmetric `M` gives the
//! orthogonal `R = (I + M)(I - M)^{-1}`, so a layer's rotation can be learned end-to-end with
//! the task loss through the `d(d-1)/2` free entries of `M` (its strict upper triangle). `I - M`
//! is always invertible (the eigenvalues of `M` are imaginary). The plain map cannot reach
//! orthogonal matrices with eigenvalue `-1` (the thesis gives no scaling diagonal; errata a.5).

use faer::linalg::solvers::Solve;
use faer::{Mat, MatRef};

use crate::error::{Result, RobustError};

/// Number of free parameters of a `d x d` skew-symmetric matrix, `d(d-1)/2`.
pub fn n_params(d: usize) -> usize {
    d * d.saturating_sub(1) / 2
}

/// The skew-symmetric `M` (`d x d`) whose strict upper triangle is `theta`, row by row.
fn skew(theta: &[f64], d: usize) -> Mat<f64> {
    let mut m = Mat::zeros(d, d);
    let mut k = 0;
    for i in 0..d {
        for j in i + 1..d {
            m[(i, j)] = theta[k];
            m[(j, i)] = -theta[k];
            k += 1;
        }
    }
    m
}

fn check(theta: &[f64], d: usize) -> Result<()> {
    if theta.len() != n_params(d) {
        return Err(RobustError::bad(format!("{} parameters for d = {d} (expected d(d-1)/2 = {})", theta.len(), n_params(d))));
    }
    if let Some(i) = theta.iter().position(|v| !v.is_finite()) {
        return Err(RobustError::bad(format!("theta[{i}] = {} is not finite", theta[i])));
    }
    Ok(())
}

fn row_major(m: MatRef<'_, f64>) -> Vec<f64> {
    let (r, c) = (m.nrows(), m.ncols());
    (0..r * c).map(|k| m[(k / c, k % c)]).collect()
}

/// `R = (I - M)^{-1} (I + M)` (equal to `(I + M)(I - M)^{-1}`: the factors commute), row-major.
pub fn cayley(theta: &[f64], d: usize) -> Result<Vec<f64>> {
    check(theta, d)?;
    let m = skew(theta, d);
    let id = Mat::<f64>::identity(d, d);
    let r = (&id - &m).partial_piv_lu().solve(&id + &m);
    Ok(row_major(r.as_ref()))
}

/// The gradient of a loss with respect to `theta`, from its gradient `g = dL/dR` (row-major):
/// with `A = I - M`, `dR = (I + R) dM A^{-1}`, so `dL/dM = (I + R)^T G A^{-T}` and
/// `dL/dtheta_ij = (dL/dM)_ij - (dL/dM)_ji`.
pub fn cayley_grad(theta: &[f64], d: usize, g: &[f64]) -> Result<Vec<f64>> {
    check(theta, d)?;
    if g.len() != d * d {
        return Err(RobustError::bad(format!("dL/dR has {} values for d = {d}", g.len())));
    }
    let m = skew(theta, d);
    let id = Mat::<f64>::identity(d, d);
    let lu = (&id - &m).partial_piv_lu();
    let r = lu.solve(&id + &m);
    let gm = Mat::from_fn(d, d, |i, j| g[i * d + j]);
    // X = (I + R)^T G; dL/dM = X A^{-T}, i.e. (dL/dM)^T = A^{-1} X^T.
    let x = (&id + &r).transpose() * &gm;
    let gmt = lu.solve(x.transpose());
    let mut out = Vec::with_capacity(n_params(d));
    for i in 0..d {
        for j in i + 1..d {
            out.push(gmt[(j, i)] - gmt[(i, j)]);
        }
    }
    Ok(out)
}
