//! Integrands with known integrals over `[0, 1]^d`, for the QMC experiments.

use serde::{Deserialize, Serialize};

/// Thesis eq. (5.22)-(5.23): `f(x) = exp(c sum_j x_j j^{-b})`, with
/// `I(f) = prod_j (exp(c j^{-b}) - 1) / (c j^{-b})`. The thesis uses `b = 2`, `c = 1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpWeighted {
    /// `c j^{-b}` for `j = 1..d`.
    weights: Vec<f64>,
}

impl ExpWeighted {
    /// Dimension `d >= 1`, decay `b`, scale `c != 0` (finite).
    pub fn new(d: usize, b: f64, c: f64) -> Result<Self, String> {
        if d == 0 {
            return Err("d must be >= 1".into());
        }
        if !(b.is_finite() && c.is_finite() && c != 0.0) {
            return Err(format!("b = {b}, c = {c}: need finite b and finite non-zero c"));
        }
        Ok(ExpWeighted { weights: (1..=d).map(|j| c * (j as f64).powf(-b)).collect() })
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.weights.len()
    }

    /// `f(x)`.
    pub fn eval(&self, x: &[f64]) -> f64 {
        x.iter().zip(&self.weights).map(|(xi, w)| xi * w).sum::<f64>().exp()
    }

    /// The exact integral (5.23), as a product of `expm1(w)/w` (accurate for small weights).
    pub fn exact(&self) -> f64 {
        self.weights.iter().map(|w| w.exp_m1() / w).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_integral_against_a_one_dimensional_quadrature() {
        // d = 1: int_0^1 e^{c x} dx = (e^c - 1)/c; check against composite Simpson.
        let f = ExpWeighted::new(1, 2.0, 1.3).unwrap();
        let m = 2000;
        let h = 1.0 / m as f64;
        let simpson: f64 = (0..=m)
            .map(|k| {
                let w = if k == 0 || k == m {
                    1.0
                } else if k % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * f.eval(&[k as f64 * h])
            })
            .sum::<f64>()
            * h
            / 3.0;
        assert!((simpson - f.exact()).abs() < 1e-12);
        // Product structure: d = 3 is the product of the three 1-D integrals.
        let g = ExpWeighted::new(3, 2.0, 1.0).unwrap();
        let want: f64 = [1.0f64, 0.25, 1.0 / 9.0].iter().map(|w| (w.exp() - 1.0) / w).product();
        assert!((g.exact() - want).abs() < 1e-14);
        assert!(ExpWeighted::new(0, 2.0, 1.0).is_err());
    }
}
