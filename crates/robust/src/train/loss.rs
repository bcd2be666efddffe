//! Per-sample losses as burn tensors, the training-side twins of [`crate::hinge`] (tested against
//! them): from logits `t` `[b, k]`, the one-hot labels `[b, k]` and, for the soft hinge, the
//! branch of eq. (10.557) each sample is on (`neg = 1(u < 0)`, read off the forward values).

use burn::prelude::*;

use serde::{Deserialize, Serialize};

/// A per-sample loss.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SampleLoss {
    /// Cross-entropy.
    CrossEntropy,
    /// Generalized cross-entropy with exponent `q` (Zhang & Sabuncu 2018).
    Gce {
        /// `q` in `(0, 1]` (0.7 in the thesis' comparisons).
        q: f64,
    },
    /// `beta S + (1 - beta) H`: the soft multi-class hinge at `beta = 1`, the hard one at 0
    /// (app. 10.37).
    Hinge {
        /// The weight of the soft hinge.
        beta: f64,
    },
}

/// Stable `LogSumExp` over the classes, `[b, 1]`.
fn log_sum_exp(t: &Tensor<2>) -> Tensor<2> {
    let m = t.clone().max_dim(1).detach();
    (t.clone() - m.clone()).exp().sum_dim(1).log() + m
}

impl SampleLoss {
    /// The losses `[b]`.
    pub fn forward(&self, t: Tensor<2>, onehot: Tensor<2>, neg: Tensor<1>) -> Tensor<1> {
        let b = t.dims()[0];
        let t_y = (t.clone() * onehot.clone()).sum_dim(1);
        let out = match *self {
            SampleLoss::CrossEntropy => log_sum_exp(&t) - t_y,
            SampleLoss::Gce { q } => {
                let log_p = t_y - log_sum_exp(&t);
                (log_p.mul_scalar(q).exp().neg().add_scalar(1.0)).div_scalar(q)
            }
            SampleLoss::Hinge { beta } => {
                let max_other = (t.clone() - onehot.mul_scalar(1e30)).max_dim(1);
                let hard = (max_other - t_y.clone()).add_scalar(1.0).clamp_min(0.0);
                if beta == 0.0 {
                    hard
                } else {
                    let soft_neg = (log_sum_exp(&t) - t_y).add_scalar(1.0).clamp_min(0.0);
                    let neg = neg.reshape([b, 1]);
                    let soft = hard.clone() * (neg.clone().neg().add_scalar(1.0)) + soft_neg * neg;
                    soft.mul_scalar(beta) + hard.mul_scalar(1.0 - beta)
                }
            }
        };
        out.reshape([b])
    }
}
