//! The quadratic of MiNES sec. 6.1 with a prescribed condition number.

use gradfree_core::{Bounds, Objective};

use crate::transform::{matvec, random_orthogonal};
use crate::{Problem, ProblemError};

/// `f(x) = 1/2 x^T A x` with `A = Q diag(lambda) Q^T` positive definite.
///
/// MiNES (sec. 6.1) uses a 200 x 200 `A` with condition number 2.306e3 but does not say how it was
/// built (erratum 27 of NOTES (f)). We choose: eigenvalues log-spaced,
/// `lambda_i = kappa^((i-1)/(d-1))` for `i = 1..d` (so `lambda_min = 1`, `lambda_max = kappa`, the
/// condition number is exactly `kappa`), and `Q` Haar-random orthogonal from the seed. Minimum 0 at 0.
#[derive(Clone, Debug)]
pub struct Quadratic {
    d: usize,
    kappa: f64,
    /// `Q^T`, row-major: row `i` is the `i`-th eigenvector.
    qt: Vec<f64>,
    lambda: Vec<f64>,
}

/// The condition number of MiNES sec. 6.1.
pub const MINES_CONDITION: f64 = 2.306e3;

impl Quadratic {
    /// Builds `A` of dimension `d` with condition number `kappa >= 1` from `seed`.
    pub fn new(d: usize, kappa: f64, seed: u64) -> Result<Self, ProblemError> {
        if d == 0 {
            return Err(ProblemError::Dimension { problem: "quadratic".into(), dim: d, expected: ">= 1".into() });
        }
        if !(kappa.is_finite() && kappa >= 1.0) {
            return Err(ProblemError::Invalid { name: "condition number", message: format!("{kappa}: must be finite and >= 1") });
        }
        let lambda = (0..d).map(|i| if d == 1 { 1.0 } else { kappa.powf(i as f64 / (d - 1) as f64) }).collect();
        let q = random_orthogonal(d, seed);
        let mut qt = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..d {
                qt[j * d + i] = q[i * d + j];
            }
        }
        Ok(Quadratic { d, kappa, qt, lambda })
    }

    /// The eigenvalues of `A`, ascending.
    pub fn eigenvalues(&self) -> &[f64] {
        &self.lambda
    }

    /// The condition number.
    pub fn condition_number(&self) -> f64 {
        self.kappa
    }

    /// The dense matrix `A`, row-major.
    pub fn matrix(&self) -> Vec<f64> {
        let d = self.d;
        let mut a = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..d {
                a[i * d + j] = (0..d).map(|k| self.qt[k * d + i] * self.lambda[k] * self.qt[k * d + j]).sum();
            }
        }
        a
    }
}

impl Objective for Quadratic {
    fn eval(&self, x: &[f64]) -> f64 {
        let mut y = vec![0.0; self.d];
        matvec(&self.qt, x, &mut y);
        0.5 * y.iter().zip(&self.lambda).map(|(v, l)| l * v * v).sum::<f64>()
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

impl Problem for Quadratic {
    fn name(&self) -> &str {
        "quadratic"
    }
    fn dimension(&self) -> usize {
        self.d
    }
    fn formula(&self) -> &str {
        "1/2 x^T A x, A = Q diag(kappa^((i-1)/(d-1))) Q^T, Q Haar-random"
    }
    fn source(&self) -> &str {
        "MiNES sec. 6.1"
    }
    fn domain(&self) -> Option<Bounds> {
        None
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(vec![0.0; self.d])
    }
    fn minimum(&self) -> Option<f64> {
        Some(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_dense_form_and_condition() {
        let q = Quadratic::new(6, 50.0, 2).unwrap();
        let a = q.matrix();
        let x = [0.5, -1.0, 2.0, 0.1, 0.0, -0.3];
        let dense: f64 = 0.5 * (0..6).map(|i| (0..6).map(|j| x[i] * a[i * 6 + j] * x[j]).sum::<f64>()).sum::<f64>();
        assert!((q.eval(&x) - dense).abs() < 1e-12 * dense.abs());
        // Symmetric, trace = sum of eigenvalues, condition number exact.
        for i in 0..6 {
            for j in 0..6 {
                assert!((a[i * 6 + j] - a[j * 6 + i]).abs() < 1e-12);
            }
        }
        let tr: f64 = (0..6).map(|i| a[i * 6 + i]).sum();
        assert!((tr - q.eigenvalues().iter().sum::<f64>()).abs() < 1e-10);
        assert!((q.eigenvalues()[5] / q.eigenvalues()[0] - 50.0).abs() < 1e-12);
        // Rayleigh quotients stay within [lambda_min, lambda_max].
        let n2: f64 = x.iter().map(|v| v * v).sum();
        let rq = 2.0 * q.eval(&x) / n2;
        assert!((1.0..=50.0).contains(&rq));
        assert!(Quadratic::new(5, 0.5, 1).is_err());
        assert!(Quadratic::new(0, 5.0, 1).is_err());
    }
}
