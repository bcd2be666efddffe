//! Generalized linear models (Liang & Su sec. 4.2): with the natural parameter `t = x^T w`, the
//! negative log-likelihood `l(w, (x, y)) = -y t + c(t)`, gradient `(c'(t) - y) x` and Hessian
//! `c''(t) x x^T`, for
//!
//! - linear regression: `c(t) = t^2 / 2` (the loss written `(t - y)^2 / 2`, which differs by
//!   `y^2 / 2`);
//! - logistic regression: `c(t) = log(1 + e^t)`, responses in `{0, 1}`;
//! - Poisson regression: `c(t) = e^t`, responses counts `>= 0`.
//!
//! No intercept is added: give a column of ones for one (as statsmodels' `add_constant`).

use serde::{Deserialize, Serialize};

use super::Model;
use crate::{Data, InferenceError};

/// The exponential family of a [`Glm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Gaussian: linear regression.
    Linear,
    /// Bernoulli: logistic regression.
    Logistic,
    /// Poisson regression.
    Poisson,
}

/// A GLM with `p` coefficients (one per feature).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glm {
    /// The family.
    pub family: Family,
    /// Coefficients `p` (the data's features per row).
    pub p: usize,
}

/// `log(1 + e^t)` without overflow.
fn softplus(t: f64) -> f64 {
    if t > 0.0 { t + (-t).exp().ln_1p() } else { t.exp().ln_1p() }
}

/// `1 / (1 + e^{-t})` without overflow.
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

impl Glm {
    /// A GLM of `family` with `p` coefficients.
    pub fn new(family: Family, p: usize) -> Self {
        Glm { family, p }
    }

    /// The natural parameter `t = x^T theta`.
    pub(crate) fn eta(&self, theta: &[f64], x: &[f64]) -> f64 {
        theta.iter().zip(x).map(|(a, b)| a * b).sum()
    }

    /// `(c'(t), c''(t))`.
    pub(crate) fn link(&self, t: f64) -> (f64, f64) {
        match self.family {
            Family::Linear => (t, 1.0),
            Family::Logistic => {
                let s = sigmoid(t);
                (s, s * (1.0 - s))
            }
            Family::Poisson => {
                let e = t.exp();
                (e, e)
            }
        }
    }
}

impl Glm {
    /// The loss of one row at natural parameter `t` with response `y`.
    pub(crate) fn loss_at(&self, t: f64, y: f64) -> f64 {
        match self.family {
            Family::Linear => 0.5 * (t - y) * (t - y),
            Family::Logistic => softplus(t) - y * t,
            Family::Poisson => t.exp() - y * t,
        }
    }
}

impl Model for Glm {
    fn name(&self) -> &'static str {
        match self.family {
            Family::Linear => "linear",
            Family::Logistic => "logistic",
            Family::Poisson => "poisson",
        }
    }

    fn dim(&self) -> usize {
        self.p
    }

    fn check(&self, data: &Data) -> Result<(), InferenceError> {
        if data.dim() != self.p {
            return Err(InferenceError::BadData(format!("the data have {} features; the model has {} coefficients", data.dim(), self.p)));
        }
        if !data.has_responses() {
            return Err(InferenceError::BadData(format!("{} regression needs a response per row", self.name())));
        }
        let bad = match self.family {
            Family::Linear => None,
            Family::Logistic => data.responses().iter().position(|&y| y != 0.0 && y != 1.0).map(|i| (i, "in {0, 1}")),
            Family::Poisson => data.responses().iter().position(|&y| y < 0.0).map(|i| (i, "that are counts >= 0")),
        };
        match bad {
            Some((i, expected)) => Err(InferenceError::BadData(format!(
                "response {i} is {}: {} regression needs responses {expected}",
                data.response(i),
                self.name()
            ))),
            None => Ok(()),
        }
    }

    fn loss(&self, theta: &[f64], data: &Data, i: usize) -> f64 {
        self.loss_at(self.eta(theta, data.row(i)), data.response(i))
    }

    fn grad(&self, theta: &[f64], data: &Data, i: usize, out: &mut [f64]) {
        let x = data.row(i);
        let r = self.link(self.eta(theta, x)).0 - data.response(i);
        out.iter_mut().zip(x).for_each(|(o, xi)| *o = r * xi);
    }

    fn hessian(&self, theta: &[f64], data: &Data, i: usize, out: &mut [f64]) -> bool {
        let x = data.row(i);
        let c2 = self.link(self.eta(theta, x)).1;
        let p = self.p;
        for a in 0..p {
            for b in 0..p {
                out[a * p + b] = c2 * x[a] * x[b];
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::gradient_matches_differences;

    fn data(y: Vec<f64>) -> Data {
        let x = vec![0.3, -1.2, 0.5, 1.0, 0.7, 0.1, -0.4, 0.9, 2.0];
        Data::new(x, 3, y).unwrap()
    }

    #[test]
    fn gradients_and_hessians_match_differences() {
        let theta = [0.4, -0.3, 0.8];
        for (family, y) in
            [(Family::Linear, vec![1.5, -0.2, 0.3]), (Family::Logistic, vec![1.0, 0.0, 1.0]), (Family::Poisson, vec![2.0, 0.0, 5.0])]
        {
            let m = Glm::new(family, 3);
            let d = data(y);
            m.check(&d).unwrap();
            gradient_matches_differences(&m, &theta, &d, 1e-6);
            // The Hessian is the derivative of the gradient.
            let (mut h, mut ga, mut gb) = (vec![0.0; 9], vec![0.0; 3], vec![0.0; 3]);
            for i in 0..d.len() {
                assert!(m.hessian(&theta, &d, i, &mut h));
                for j in 0..3 {
                    let (mut a, mut b) = (theta.to_vec(), theta.to_vec());
                    a[j] += 1e-6;
                    b[j] -= 1e-6;
                    m.grad(&a, &d, i, &mut ga);
                    m.grad(&b, &d, i, &mut gb);
                    for k in 0..3 {
                        let fd = (ga[k] - gb[k]) / 2e-6;
                        assert!((fd - h[j * 3 + k]).abs() < 1e-6 * (1.0 + fd.abs()), "{family:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn responses_outside_the_family_are_named() {
        let e = Glm::new(Family::Logistic, 3).check(&data(vec![1.0, 0.5, 0.0])).unwrap_err().to_string();
        assert!(e.contains("response 1 is 0.5") && e.contains("{0, 1}"), "{e}");
        let e = Glm::new(Family::Poisson, 3).check(&data(vec![1.0, -2.0, 0.0])).unwrap_err().to_string();
        assert!(e.contains("response 1 is -2") && e.contains("counts >= 0"), "{e}");
        assert!(Glm::new(Family::Linear, 2).check(&data(vec![0.0; 3])).unwrap_err().to_string().contains("3 features"));
        assert!(Glm::new(Family::Linear, 3).check(&Data::new(vec![1.0; 3], 3, vec![]).unwrap()).is_err());
        // Extreme natural parameters stay finite.
        assert!(softplus(800.0).is_finite() && sigmoid(-800.0) == 0.0 && sigmoid(800.0) == 1.0);
    }
}
