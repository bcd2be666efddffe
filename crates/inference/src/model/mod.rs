//! Models: a loss `l(theta, z)` per sample with its gradient (and, where a method needs it, its
//! Hessian), over [`Data`]. The population landscape is `L(theta) = E l(theta, z)`; the methods of
//! this crate only ever evaluate per-sample gradients.
//!
//! - [`Glm`]: linear, logistic and Poisson regression, the GLMs of Liang & Su sec. 4.2,
//!   `l(w, (x, y)) = -y x^T w + c(x^T w)` (the linear model as `(x^T w - y)^2 / 2`);
//! - [`GaussianMixture`]: the one-dimensional mixture of sec. 7 with known equal weights and
//!   known variance, unknown means;
//! - [`ReluNet`]: the two-layer ReLU network of sec. 7, `f_w(x) = relu(1 + W2 relu(1 + W1 x))`,
//!   square loss, analytic gradients.

pub mod build;
pub mod glm;
pub mod mixture;
pub mod relu;

pub use build::{Designed, MODEL_NAMES, ModelSpec};
pub use glm::{Family, Glm};
pub use mixture::GaussianMixture;
pub use relu::ReluNet;

use crate::{Data, InferenceError};

/// A per-sample loss over [`Data`].
pub trait Model: Send + Sync {
    /// Its name (`linear`, `logistic`, ...).
    fn name(&self) -> &'static str;
    /// Number of parameters `p`.
    fn dim(&self) -> usize;
    /// The setting that makes `p` what it is, for size errors ([`crate::InferenceSpec::check`]):
    /// the data's columns for a GLM (`("data", "with 12 columns")`), `hidden` for the network,
    /// `components` for the mixture.
    fn size_param(&self) -> (&'static str, String) {
        ("data", format!("with {} columns", self.dim()))
    }
    /// Whether `data` fit the model (features per row, responses and their range); an error says
    /// what does not.
    fn check(&self, data: &Data) -> Result<(), InferenceError>;
    /// Checks that need every row, not one block of a stream: a model the data cannot identify
    /// (a mixture of several components on data that take one value). Run on data in memory
    /// before chains start; streamed blocks are checked by [`Model::check`] alone.
    fn check_identified(&self, _data: &Data) -> Result<(), InferenceError> {
        Ok(())
    }
    /// The loss `l(theta, z_i)` of sample `i`.
    fn loss(&self, theta: &[f64], data: &Data, i: usize) -> f64;
    /// The gradient `grad_theta l(theta, z_i)` of sample `i` into `out` (length `p`).
    fn grad(&self, theta: &[f64], data: &Data, i: usize, out: &mut [f64]);
    /// The gradients of the samples `idx` at `theta` into `out` (`idx.len() x p`, row-major): one
    /// [`Model::grad`] per sample unless a model computes its gradients by batch (a Python
    /// callable, called once per mini-batch).
    fn batch_grad(&self, theta: &[f64], data: &Data, idx: &[usize], out: &mut [f64]) {
        let p = self.dim();
        for (g, &i) in out.chunks_exact_mut(p).zip(idx) {
            self.grad(theta, data, i, g);
        }
    }
    /// Where chains start when the run names no start (`theta0`): `None` for the origin. Models
    /// whose parameters are exchangeable (the mixture's means, the network's hidden units) are
    /// stationary at a symmetric start, so every chain would stay collapsed there; they start
    /// from `data` instead.
    fn default_start(&self, _data: &Data) -> Option<Vec<f64>> {
        None
    }
    /// The Hessian of `l(theta, z_i)` into `out` (`p x p`, column-major), if the model has one in
    /// closed form (`false` otherwise, `out` untouched).
    fn hessian(&self, _theta: &[f64], _data: &Data, _i: usize, _out: &mut [f64]) -> bool {
        false
    }
}

/// The empirical loss `(1/N) sum_i l(theta, z_i)` over all of `data`.
pub fn mean_loss(model: &dyn Model, theta: &[f64], data: &Data) -> f64 {
    (0..data.len()).map(|i| model.loss(theta, data, i)).sum::<f64>() / data.len() as f64
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Central differences of the loss against the analytic gradient, at `theta`, for every
    /// sample of `data`.
    pub fn gradient_matches_differences(model: &dyn Model, theta: &[f64], data: &Data, tol: f64) {
        let p = model.dim();
        let mut g = vec![0.0; p];
        for i in 0..data.len() {
            model.grad(theta, data, i, &mut g);
            for j in 0..p {
                let h = 1e-6 * (1.0 + theta[j].abs());
                let (mut a, mut b) = (theta.to_vec(), theta.to_vec());
                a[j] += h;
                b[j] -= h;
                let fd = (model.loss(&a, data, i) - model.loss(&b, data, i)) / (2.0 * h);
                assert!((fd - g[j]).abs() <= tol * (1.0 + fd.abs()), "{} sample {i} coordinate {j}: {fd} vs {}", model.name(), g[j]);
            }
        }
    }
}
