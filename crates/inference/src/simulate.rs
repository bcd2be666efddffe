//! The simulation protocol of Chen, Lee, Tong & Zhang ("Statistical inference for model
//! parameters in stochastic gradient descent", Ann. Statist. 2020, sec. 5), reused by later papers
//! on SGD inference (Lee et al. 2022): rows `x ~ N(0, Sigma)` with `Sigma` the identity, the
//! Toeplitz matrix `0.5^|i-j|` or the equicorrelation matrix (`1` on the diagonal, `0.2` off it),
//! the truth `theta*` evenly spaced in `[0, 1]`, and responses of a linear model
//! (`y = x^T theta* + e`, `e ~ N(0, 1)`) or a logistic one (`y ~ Bernoulli(sigmoid(x^T theta*))`).
//! Simulated data for measuring coverage, never a stand-in for a real data set.

use gradfree_core::linalg::{EigenWork, cholesky_in_place};
use gradfree_core::rng_from_seed;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::{Data, Family, InferenceError};

/// The covariance of the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Design {
    /// `Sigma = I`.
    Identity,
    /// `Sigma_ij = 0.5^|i-j|`.
    Toeplitz,
    /// `Sigma_ij = 0.2` for `i != j`, 1 on the diagonal.
    Equicorrelation,
}

impl Design {
    /// Every design with its name.
    pub const ALL: [(Design, &'static str); 3] =
        [(Design::Identity, "identity"), (Design::Toeplitz, "toeplitz"), (Design::Equicorrelation, "equicorrelation")];

    /// Its name.
    pub fn name(self) -> &'static str {
        Design::ALL.iter().find(|(d, _)| *d == self).map_or("?", |(_, n)| n)
    }

    /// The design called `name`.
    pub fn parse(name: &str) -> Result<Design, InferenceError> {
        Design::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(d, _)| *d)
            .ok_or_else(|| InferenceError::invalid("design", name, "identity, toeplitz, equicorrelation"))
    }

    /// `Sigma_ij`.
    pub fn entry(self, i: usize, j: usize) -> f64 {
        match (self, i == j) {
            (_, true) => 1.0,
            (Design::Identity, false) => 0.0,
            (Design::Toeplitz, false) => 0.5f64.powi(i.abs_diff(j) as i32),
            (Design::Equicorrelation, false) => 0.2,
        }
    }
}

/// The truth `theta*`: `d` values evenly spaced in `[0, 1]` (`0.5` for `d = 1`).
pub fn truth(d: usize) -> Vec<f64> {
    if d == 1 { vec![0.5] } else { (0..d).map(|j| j as f64 / (d - 1) as f64).collect() }
}

/// `n` rows of the protocol in dimension `d` (linear or logistic `family`), from `seed`, and the
/// truth.
pub fn simulate(design: Design, d: usize, family: Family, n: usize, seed: u64) -> Result<(Data, Vec<f64>), InferenceError> {
    if d == 0 || d > 1000 {
        return Err(InferenceError::invalid("d", d, "in 1..=1000"));
    }
    if n == 0 {
        return Err(InferenceError::invalid("n", n, ">= 1"));
    }
    if family == Family::Poisson {
        return Err(InferenceError::invalid("model", "poisson", "linear or logistic (the protocol's models)"));
    }
    gradfree_core::memory::check_elements(&format!("{n} simulated rows of {d} features"), (n as u128) * (d as u128 + 1))?;
    let mut l: Vec<f64> = (0..d * d).map(|k| design.entry(k % d, k / d)).collect();
    if !cholesky_in_place(&mut l, d, &mut EigenWork::default()) {
        return Err(InferenceError::BadData("the design covariance is not positive definite".into()));
    }
    let theta = truth(d);
    let mut rng = rng_from_seed(seed);
    let (mut x, mut y) = (Vec::with_capacity(n * d), Vec::with_capacity(n));
    let mut z = vec![0.0; d];
    for _ in 0..n {
        z.iter_mut().for_each(|v| *v = StandardNormal.sample(&mut rng));
        let start = x.len();
        // x = L z with L lower triangular (column-major).
        x.extend((0..d).map(|i| (0..=i).map(|k| l[k * d + i] * z[k]).sum::<f64>()));
        let t: f64 = x[start..].iter().zip(&theta).map(|(a, b)| a * b).sum();
        y.push(match family {
            Family::Linear => t + <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng),
            _ => f64::from(rng.random::<f64>() < 1.0 / (1.0 + (-t).exp())),
        });
    }
    Ok((Data::new(x, d, y)?, theta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_the_designs_covariance() {
        let (data, theta) = simulate(Design::Toeplitz, 3, Family::Linear, 40_000, 5).unwrap();
        assert_eq!(theta, [0.0, 0.5, 1.0]);
        for i in 0..3 {
            for j in 0..3 {
                let c: f64 = (0..data.len()).map(|r| data.row(r)[i] * data.row(r)[j]).sum::<f64>() / data.len() as f64;
                assert!((c - Design::Toeplitz.entry(i, j)).abs() < 0.03, "{i} {j} {c}");
            }
        }
        let (logit, _) = simulate(Design::Equicorrelation, 5, Family::Logistic, 100, 1).unwrap();
        assert!(logit.responses().iter().all(|&v| v == 0.0 || v == 1.0));
        assert!(simulate(Design::Identity, 0, Family::Linear, 10, 1).is_err());
    }
}
