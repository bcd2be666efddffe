//! l2-regularized logistic regression on a data matrix (MiNES sec. 6.2).

use gradfree_core::{Bounds, Objective, rng_from_seed};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use crate::{Problem, ProblemError};

/// `f(x) = 1/n sum_i log(1 + exp(-y_i <a_i, x>)) + beta/2 ||x||^2` (MiNES sec. 6.2), with the
/// data rows `a_i in R^d` and labels `y_i in {-1, +1}`. Evaluated with a numerically stable
/// softplus, so no input overflows. The minimizer has no closed form.
#[derive(Clone, Debug)]
pub struct LogisticRegression {
    n: usize,
    d: usize,
    a: Vec<f64>,
    y: Vec<f64>,
    beta: f64,
}

/// The regularization MiNES uses for every data set.
pub const MINES_BETA: f64 = 1e-4;

/// `log(1 + exp(t))` without overflow, and without glibc's slow path for `exp` of arguments
/// whose result is subnormal (which made large margins ~10x slower to evaluate): for `|t| > 36`
/// `log1p(e^-|t|) = e^-|t|` to double precision, and below `e^-700` the term is dropped.
pub fn softplus(t: f64) -> f64 {
    let a = t.abs();
    let tail = if a > 700.0 {
        0.0
    } else if a > 36.0 {
        (-a).exp()
    } else {
        (-a).exp().ln_1p()
    };
    t.max(0.0) + tail
}

impl LogisticRegression {
    /// From a row-major `n x d` matrix `a`, labels `y` (each -1 or +1) and `beta >= 0`.
    pub fn new(a: Vec<f64>, y: Vec<f64>, d: usize, beta: f64) -> Result<Self, ProblemError> {
        let n = y.len();
        if n == 0 || d == 0 {
            return Err(ProblemError::Invalid {
                name: "data",
                message: format!("{n} samples of dimension {d}: need at least one of each"),
            });
        }
        if a.len() != n * d {
            return Err(ProblemError::Invalid {
                name: "data",
                message: format!("matrix has {} entries, expected n*d = {}", a.len(), n * d),
            });
        }
        if let Some(i) = a.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError::Invalid { name: "data", message: format!("entry ({}, {}) is not finite", i / d, i % d) });
        }
        if let Some(i) = y.iter().position(|&v| v != 1.0 && v != -1.0) {
            return Err(ProblemError::Invalid { name: "labels", message: format!("label {i} is {}: must be -1 or +1", y[i]) });
        }
        if !(beta.is_finite() && beta >= 0.0) {
            return Err(ProblemError::Invalid { name: "beta", message: format!("{beta}: must be finite and >= 0") });
        }
        Ok(LogisticRegression { n, d, a, y, beta })
    }

    /// The Lipschitz constant of the gradient, `L = lambda_max(A^T A / n) / 4 + beta` (the
    /// logistic loss has curvature at most 1/4), with `lambda_max` from 200 steps of power
    /// iteration started at `1/sqrt(d)`. MiNES sec. 6.2 sets the steps of DF (`b/(4(d+4)L)`) and
    /// MiNES (`Sigma_1^{-1} = L I`) from it.
    pub fn gradient_lipschitz(&self) -> f64 {
        let (n, d) = (self.n, self.d);
        let mut v = vec![1.0 / (d as f64).sqrt(); d];
        let mut av = vec![0.0; n];
        let mut w = vec![0.0; d];
        let mut lam = 0.0;
        for _ in 0..200 {
            for (o, r) in av.iter_mut().zip(self.a.chunks_exact(d)) {
                *o = r.iter().zip(&v).map(|(a, b)| a * b).sum();
            }
            w.fill(0.0);
            for (r, a) in self.a.chunks_exact(d).zip(&av) {
                for (wj, rj) in w.iter_mut().zip(r) {
                    *wj += a * rj / n as f64;
                }
            }
            lam = w.iter().map(|t| t * t).sum::<f64>().sqrt();
            for (vj, wj) in v.iter_mut().zip(&w) {
                *vj = wj / lam;
            }
        }
        lam / 4.0 + self.beta
    }

    /// A synthetic data set, for when no real one is at hand: `n` rows `a_i ~ N(0, I_d)`, a
    /// ground-truth `w ~ N(0, (9/d) I_d)` and labels `y_i = +1` with probability
    /// `sigmoid(<a_i, w>)`, all from `seed`.
    pub fn synthetic(n: usize, d: usize, beta: f64, seed: u64) -> Result<Self, ProblemError> {
        let mut rng = rng_from_seed(seed);
        let scale = 3.0 / (d.max(1) as f64).sqrt();
        let w: Vec<f64> = (0..d)
            .map(|_| {
                let z: f64 = StandardNormal.sample(&mut rng);
                scale * z
            })
            .collect();
        let a: Vec<f64> = (0..n * d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let y = (0..n)
            .map(|i| {
                let m: f64 = a[i * d..(i + 1) * d].iter().zip(&w).map(|(u, v)| u * v).sum();
                if rng.random::<f64>() < 1.0 / (1.0 + (-m).exp()) { 1.0 } else { -1.0 }
            })
            .collect();
        Self::new(a, y, d, beta)
    }

    /// Number of samples.
    pub fn samples(&self) -> usize {
        self.n
    }

    /// The gradient `-1/n sum_i y_i sigmoid(-y_i <a_i,x>) a_i + beta x` (for reference solutions).
    pub fn gradient(&self, x: &[f64]) -> Vec<f64> {
        let mut g: Vec<f64> = x.iter().map(|v| self.beta * v).collect();
        for (row, &yi) in self.a.chunks_exact(self.d).zip(&self.y) {
            let m: f64 = row.iter().zip(x).map(|(u, v)| u * v).sum();
            let s = 1.0 / (1.0 + (yi * m).exp());
            for (gj, aj) in g.iter_mut().zip(row) {
                *gj -= yi * s * aj / self.n as f64;
            }
        }
        g
    }

    /// Fraction of rows of `(a, y)` whose label has the sign of `<a_i, x>` (ties count as wrong).
    pub fn accuracy(&self, x: &[f64]) -> f64 {
        let ok = self
            .a
            .chunks_exact(self.d)
            .zip(&self.y)
            .filter(|(row, yi)| row.iter().zip(x).map(|(u, v)| u * v).sum::<f64>() * **yi > 0.0)
            .count();
        ok as f64 / self.n as f64
    }
}

impl Objective for LogisticRegression {
    fn eval(&self, x: &[f64]) -> f64 {
        let loss: f64 = self
            .a
            .chunks_exact(self.d)
            .zip(&self.y)
            .map(|(row, &yi)| softplus(-yi * row.iter().zip(x).map(|(u, v)| u * v).sum::<f64>()))
            .sum();
        loss / self.n as f64 + 0.5 * self.beta * x.iter().map(|v| v * v).sum::<f64>()
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

impl Problem for LogisticRegression {
    fn name(&self) -> &str {
        "logistic"
    }
    fn dimension(&self) -> usize {
        self.d
    }
    fn formula(&self) -> &str {
        "1/n sum_i log(1 + exp(-y_i <a_i, x>)) + beta/2 ||x||^2"
    }
    fn source(&self) -> &str {
        "MiNES sec. 6.2"
    }
    fn domain(&self) -> Option<Bounds> {
        None
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        None
    }
    fn minimum(&self) -> Option<f64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_at_zero_is_ln2_and_softplus_is_stable() {
        let p = LogisticRegression::synthetic(40, 5, MINES_BETA, 1).unwrap();
        assert!((p.eval(&[0.0; 5]) - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(softplus(-1000.0), 0.0);
        assert_eq!(softplus(1000.0), 1000.0);
        assert!((softplus(0.3) - (1.0 + 0.3f64.exp()).ln()).abs() < 1e-15);
        for t in [-50.0f64, -36.5, -20.0, -1.0, 2.0, 37.0, 80.0] {
            let exact: f64 = if t < 0.0 { t.exp().ln_1p() } else { t + (-t).exp().ln_1p() };
            assert!((softplus(t) - exact).abs() <= 1e-15 * exact.abs().max(1e-300), "{t}");
        }
        assert!(p.eval(&[1e6; 5]).is_finite());
    }

    #[test]
    fn hand_computed_two_samples() {
        // a = [[1, 0], [0, 2]], y = [+1, -1], beta = 0.5, x = (1, 1):
        // (log(1+e^-1) + log(1+e^2))/2 + 0.25 * 2
        let p = LogisticRegression::new(vec![1.0, 0.0, 0.0, 2.0], vec![1.0, -1.0], 2, 0.5).unwrap();
        let want = ((1.0 + (-1f64).exp()).ln() + (1.0 + 2f64.exp()).ln()) / 2.0 + 0.5;
        assert!((p.eval(&[1.0, 1.0]) - want).abs() < 1e-14);
    }

    #[test]
    fn gradient_matches_finite_differences_and_newton_finds_minimum() {
        let p = LogisticRegression::synthetic(200, 4, 1e-2, 3).unwrap();
        let x = [0.3, -0.2, 0.5, 1.0];
        let g = p.gradient(&x);
        for j in 0..4 {
            let mut xp = x;
            let mut xm = x;
            xp[j] += 1e-6;
            xm[j] -= 1e-6;
            let fd = (p.eval(&xp) - p.eval(&xm)) / 2e-6;
            assert!((fd - g[j]).abs() < 1e-7, "{fd} vs {}", g[j]);
        }
        // Gradient descent converges; the minimum is below f(0) = ln 2 and the gradient vanishes.
        let mut w = vec![0.0; 4];
        for _ in 0..5000 {
            let g = p.gradient(&w);
            for (wi, gi) in w.iter_mut().zip(&g) {
                *wi -= 1.0 * gi;
            }
        }
        let gn: f64 = p.gradient(&w).iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(gn < 1e-8, "{gn}");
        assert!(p.eval(&w) < std::f64::consts::LN_2 - 0.05);
        assert!(p.accuracy(&w) > 0.6);
    }

    #[test]
    fn gradient_lipschitz_is_the_closed_form_eigenvalue() {
        // a = [[1, 1], [1, -1], [2, 0]] / n = 3: A^T A / n = [[2, 0], [0, 2/3]], lambda_max = 2.
        let p = LogisticRegression::new(vec![1.0, 1.0, 1.0, -1.0, 2.0, 0.0], vec![1.0, -1.0, 1.0], 2, 0.1).unwrap();
        assert!((p.gradient_lipschitz() - (2.0 / 4.0 + 0.1)).abs() < 1e-12);
        // And it bounds the curvature: |g(x) - g(y)| <= L |x - y| on random pairs.
        let q = LogisticRegression::synthetic(100, 6, 1e-3, 2).unwrap();
        let l = q.gradient_lipschitz();
        let mut rng = rng_from_seed(9);
        for _ in 0..50 {
            let x: Vec<f64> = (0..6).map(|_| StandardNormal.sample(&mut rng)).collect();
            let y: Vec<f64> = (0..6).map(|_| StandardNormal.sample(&mut rng)).collect();
            let (gx, gy) = (q.gradient(&x), q.gradient(&y));
            let dg = gx.iter().zip(&gy).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            let dx = x.iter().zip(&y).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            assert!(dg <= l * dx * (1.0 + 1e-9), "{dg} > {l} * {dx}");
        }
    }

    #[test]
    fn bad_data_is_rejected() {
        assert!(LogisticRegression::new(vec![], vec![], 2, 0.1).is_err());
        assert!(LogisticRegression::new(vec![1.0, 2.0], vec![0.0], 2, 0.1).is_err());
        assert!(LogisticRegression::new(vec![1.0, f64::NAN], vec![1.0], 2, 0.1).is_err());
        assert!(LogisticRegression::new(vec![1.0, 2.0, 3.0], vec![1.0], 2, 0.1).is_err());
        assert!(LogisticRegression::new(vec![1.0, 2.0], vec![1.0], 2, -1.0).is_err());
    }
}
