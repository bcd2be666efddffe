//! The binary reconstruction problem of thesis sec. 3.7.3.

use gradfree_core::{Bounds, Objective, rng_from_seed};
use rand_distr::{Distribution, StandardNormal};

use crate::{Problem, ProblemError};

/// `f(x) = ||sign(x - 0.5) - w||^2 - ||sign(w) - w||^2` for `x in {0, 1}^d`, with
/// `w ~ N(0, I_d)` drawn from the seed (thesis sec. 3.7.3). The subtracted constant makes the
/// minimum 0, attained at `x_i = 1[w_i > 0]`, so `f` is the regret. `sign(0) = 0`, so the function
/// is defined for real `x` too (any `x_i > 0.5` reads as bit 1).
#[derive(Clone, Debug)]
pub struct BinaryReconstruction {
    w: Vec<f64>,
    offset: f64,
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

impl BinaryReconstruction {
    /// Draws `w` of dimension `d >= 1` from `seed`.
    pub fn new(d: usize, seed: u64) -> Result<Self, ProblemError> {
        if d == 0 {
            return Err(ProblemError::Dimension { problem: "binary-reconstruction".into(), dim: d, expected: ">= 1".into() });
        }
        let mut rng = rng_from_seed(seed);
        let w: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
        Ok(Self::from_target(w))
    }

    /// Uses the given target `w`.
    pub fn from_target(w: Vec<f64>) -> Self {
        let offset = w.iter().map(|&v| (sign(v) - v).powi(2)).sum();
        BinaryReconstruction { w, offset }
    }

    /// The target vector `w`.
    pub fn target(&self) -> &[f64] {
        &self.w
    }
}

impl Objective for BinaryReconstruction {
    fn eval(&self, x: &[f64]) -> f64 {
        x.iter().zip(&self.w).map(|(&xi, &wi)| (sign(xi - 0.5) - wi).powi(2)).sum::<f64>() - self.offset
    }
    fn dim(&self) -> Option<usize> {
        Some(self.w.len())
    }
}

impl Problem for BinaryReconstruction {
    fn name(&self) -> &str {
        "binary-reconstruction"
    }
    fn dimension(&self) -> usize {
        self.w.len()
    }
    fn formula(&self) -> &str {
        "||sign(x - 0.5) - w||^2 - ||sign(w) - w||^2, x in {0,1}^d, w ~ N(0, I)"
    }
    fn source(&self) -> &str {
        "thesis sec. 3.7.3"
    }
    fn domain(&self) -> Option<Bounds> {
        Some(Bounds::uniform(self.w.len(), 0.0, 1.0).expect("d >= 1"))
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(self.w.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect())
    }
    fn minimum(&self) -> Option<f64> {
        Some(0.0)
    }
    fn categories(&self) -> Option<usize> {
        Some(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regret_by_hand() {
        let p = BinaryReconstruction::from_target(vec![0.5, -2.0]);
        // offset = (1-0.5)^2 + (-1+2)^2 = 1.25
        assert_eq!(p.eval(&[1.0, 0.0]), 0.0);
        // flip bit 1: (-1-0.5)^2 + 1 - 1.25 = 2
        assert_eq!(p.eval(&[0.0, 0.0]), 2.0);
        // flip both: 2.25 + (1+2)^2 - 1.25 = 10
        assert_eq!(p.eval(&[0.0, 1.0]), 10.0);
    }

    #[test]
    fn every_flip_costs_4_abs_w() {
        // (−s − w)^2 − (s − w)^2 = 4 s w = 4|w| for s = sign(w).
        let p = BinaryReconstruction::new(50, 11).unwrap();
        let x = p.minimizer().unwrap();
        assert!(p.eval(&x).abs() < 1e-12);
        for i in [0, 7, 49] {
            let mut y = x.clone();
            y[i] = 1.0 - y[i];
            assert!((p.eval(&y) - 4.0 * p.target()[i].abs()).abs() < 1e-10);
        }
    }
}
