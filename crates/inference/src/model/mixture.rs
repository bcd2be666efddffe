//! The one-dimensional Gaussian mixture of Liang & Su sec. 7 and App. C: scalar data `z` from
//! `sum_i q_i N(theta_i, sigma^2)` with known weights `q_i = 1/p` and known `sigma`; the loss is the
//! negative log-likelihood `l(theta; z) = -log sum_i q_i phi_sigma(z - theta_i)`, whose gradient is
//! `-r_i (z - theta_i) / sigma^2` with the responsibilities `r_i = q_i phi_sigma(z - theta_i) /
//! sum_j q_j phi_sigma(z - theta_j)` (computed in logarithms). Non-convex: every permutation of an
//! optimum is one.

use super::Model;
use crate::{Data, InferenceError};

/// A mixture of `p` equal-weight Gaussians of standard deviation `sigma` with unknown means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussianMixture {
    /// Components.
    pub p: usize,
    /// Known standard deviation of each component.
    pub sigma: f64,
}

impl GaussianMixture {
    /// `p >= 1` components of standard deviation `sigma > 0`.
    pub fn new(p: usize, sigma: f64) -> Result<Self, InferenceError> {
        if p == 0 {
            return Err(InferenceError::invalid("components", 0, ">= 1"));
        }
        if !(sigma.is_finite() && sigma > 0.0) {
            return Err(InferenceError::invalid("sigma", sigma, "finite and > 0"));
        }
        gradfree_core::memory::check_param_bytes("components", p, &format!("a mixture of {p} components"), p as u128 * 64)?;
        Ok(GaussianMixture { p, sigma })
    }

    /// `(log sum_i q_i phi(z - theta_i), the largest log term)`, with the terms into `terms`.
    fn log_terms(&self, theta: &[f64], z: f64, terms: &mut [f64]) -> f64 {
        let s2 = self.sigma * self.sigma;
        let c = -(self.p as f64).ln() - 0.5 * (2.0 * std::f64::consts::PI * s2).ln();
        for (t, m) in terms.iter_mut().zip(theta) {
            *t = c - (z - m) * (z - m) / (2.0 * s2);
        }
        let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
    }
}

impl Model for GaussianMixture {
    /// The data's quantiles at `(i + 1/2) / p` (of the first 10^5 values): distinct means in the
    /// data's range, ordered, so the chains start off the symmetric point.
    fn default_start(&self, data: &Data) -> Option<Vec<f64>> {
        let mut z: Vec<f64> = data.rows().iter().take(100_000).copied().collect();
        if z.is_empty() {
            return None;
        }
        z.sort_by(f64::total_cmp);
        Some((0..self.p).map(|i| z[(((i as f64 + 0.5) / self.p as f64) * z.len() as f64) as usize]).collect())
    }

    fn name(&self) -> &'static str {
        "mixture"
    }

    fn dim(&self) -> usize {
        self.p
    }

    fn size_param(&self) -> (&'static str, String) {
        ("components", self.p.to_string())
    }

    fn check(&self, data: &Data) -> Result<(), InferenceError> {
        if data.dim() != 1 {
            return Err(InferenceError::BadData(format!("the mixture's data are scalars; got {} features per row", data.dim())));
        }
        if data.has_responses() {
            return Err(InferenceError::invalid(
                "y",
                "a response per row",
                "none: the mixture's data are one column of scalars, with no responses",
            ));
        }
        Ok(())
    }

    /// Data that take one value identify no mixture of two or more components: every mean at
    /// that value fits them, the per-sample gradients there are all 0, and the chains have no
    /// spread to measure.
    fn check_identified(&self, data: &Data) -> Result<(), InferenceError> {
        let z = data.rows();
        if self.p >= 2 && z.iter().all(|v| *v == z[0]) {
            return Err(InferenceError::BadData(format!(
                "the data take one value ({}): a mixture of {} components is not identified on them (every mean at that value fits, and equal components are one Gaussian); use components = 1, or data with more than one value",
                z[0], self.p
            )));
        }
        Ok(())
    }

    fn loss(&self, theta: &[f64], data: &Data, i: usize) -> f64 {
        let mut terms = vec![0.0; self.p];
        -self.log_terms(theta, data.row(i)[0], &mut terms)
    }

    fn grad(&self, theta: &[f64], data: &Data, i: usize, out: &mut [f64]) {
        let z = data.row(i)[0];
        // The log terms go in `out` first, then become the gradient.
        let lse = self.log_terms(theta, z, out);
        let s2 = self.sigma * self.sigma;
        for (o, m) in out.iter_mut().zip(theta) {
            *o = -(*o - lse).exp() * (z - m) / s2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::gradient_matches_differences;

    #[test]
    fn gradient_and_a_one_component_closed_form() {
        let m = GaussianMixture::new(3, 0.7).unwrap();
        let d = Data::new(vec![0.2, 1.9, 3.4, -1.0, 2.5], 1, vec![]).unwrap();
        m.check(&d).unwrap();
        gradient_matches_differences(&m, &[1.1, 2.2, 2.9], &d, 1e-6);
        // p = 1: the loss is the Gaussian negative log-density.
        let one = GaussianMixture::new(1, 2.0).unwrap();
        let want = 0.5 * (2.0 * std::f64::consts::PI * 4.0).ln() + (1.9 - 0.5f64).powi(2) / 8.0;
        assert!((one.loss(&[0.5], &d, 1) - want).abs() < 1e-12);
        // Far from every mean the responsibilities still sum to 1 (no underflow to 0/0).
        let far = Data::new(vec![1e3], 1, vec![]).unwrap();
        let mut g = [0.0; 3];
        m.grad(&[1.0, 2.0, 3.0], &far, 0, &mut g);
        assert!(g.iter().all(|v| v.is_finite()) && g[2] < 0.0);
        assert!(GaussianMixture::new(2, 0.0).is_err() && GaussianMixture::new(0, 1.0).is_err());
        // One value identifies one component's mean, not two.
        let flat = Data::new(vec![2.5; 6], 1, vec![]).unwrap();
        let e = m.check_identified(&flat).unwrap_err().to_string();
        assert!(e.contains("one value (2.5)") && e.contains("components = 1"), "{e}");
        assert!(one.check_identified(&flat).is_ok() && m.check_identified(&d).is_ok());
    }
}
