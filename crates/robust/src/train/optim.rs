//! Optimizers on the flat parameter vector ([`super::net::Net::params`]), as PyTorch defines them,
//! and the learning-rate schedule of the Co-teaching protocol (Han et al., NeurIPS 2018, sec. 4:
//! Adam at `lr`, then from the decay epoch the rate falls linearly to zero and Adam's `beta1` drops
//! from 0.9 to 0.1), which the thesis' experiments use (sec. 8.3.1: "the Adam optimizer with the
//! same parameter as \[67\]"). Keeping the state as plain vectors makes checkpoints exact.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};

/// An optimizer and its hyper-parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum OptimizerSpec {
    /// Adam (Kingma & Ba 2015) with PyTorch's bias correction.
    Adam {
        /// Learning rate (the thesis and Co-teaching: 1e-3).
        lr: f64,
        /// `beta1` before the decay epoch (0.9).
        beta1: f64,
        /// `beta2` (0.999).
        beta2: f64,
        /// `epsilon` (1e-8).
        eps: f64,
    },
    /// SGD with heavy-ball momentum, PyTorch's form `b = mu b + g; w -= lr b` (app. 10.38: lr 1e-2,
    /// momentum 0.9).
    Sgd {
        /// Learning rate.
        lr: f64,
        /// Momentum `mu`.
        momentum: f64,
    },
}

impl OptimizerSpec {
    /// Adam with PyTorch's defaults (lr 1e-3, betas 0.9 / 0.999, eps 1e-8).
    pub const ADAM: OptimizerSpec = OptimizerSpec::Adam { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
    /// SGD at lr 1e-2 with momentum 0.9 (app. 10.38).
    pub const SGD: OptimizerSpec = OptimizerSpec::Sgd { lr: 1e-2, momentum: 0.9 };

    /// Checks every value.
    pub fn check(&self) -> Result<()> {
        let pos = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 { Ok(()) } else { Err(RobustError::invalid(name, v, "a finite number > 0")) }
        };
        let unit = |name: &'static str, v: f64| {
            if (0.0..1.0).contains(&v) { Ok(()) } else { Err(RobustError::invalid(name, v, "a number in [0, 1)")) }
        };
        match *self {
            OptimizerSpec::Adam { lr, beta1, beta2, eps } => {
                pos("lr", lr)?;
                unit("beta1", beta1)?;
                unit("beta2", beta2)?;
                pos("eps", eps)
            }
            OptimizerSpec::Sgd { lr, momentum } => {
                pos("lr", lr)?;
                unit("momentum", momentum)
            }
        }
    }

    /// The base learning rate.
    pub fn lr(&self) -> f64 {
        match *self {
            OptimizerSpec::Adam { lr, .. } | OptimizerSpec::Sgd { lr, .. } => lr,
        }
    }
}

/// The learning-rate (and Adam `beta1`) plan over the epochs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Schedule {
    /// The same rate every epoch.
    Constant,
    /// Co-teaching's plan: from epoch `decay_start` (0-based) of `N`, the rate is
    /// `lr (N - e) / (N - decay_start)` and Adam's `beta1` is 0.1.
    CoTeaching {
        /// The first epoch of the decay (Co-teaching: 80 of 200).
        decay_start: usize,
    },
}

impl Schedule {
    /// Co-teaching's plan scaled to `epochs`: the decay starts at 40% of the run (80 of 200).
    pub fn co_teaching(epochs: usize) -> Self {
        Schedule::CoTeaching { decay_start: (epochs as f64 * 0.4).round() as usize }
    }

    /// `(learning rate, Adam beta1)` at 0-based epoch `e` of `epochs`.
    pub fn at(&self, spec: &OptimizerSpec, e: usize, epochs: usize) -> (f64, f64) {
        let beta1 = match *spec {
            OptimizerSpec::Adam { beta1, .. } => beta1,
            OptimizerSpec::Sgd { .. } => 0.0,
        };
        match *self {
            Schedule::CoTeaching { decay_start } if e >= decay_start && epochs > decay_start => {
                (spec.lr() * (epochs - e) as f64 / (epochs - decay_start) as f64, 0.1)
            }
            _ => (spec.lr(), beta1),
        }
    }
}

/// Parameters per task of a parallel step.
const CHUNK: usize = 1 << 14;

/// The optimizer's state: Adam's moments (or SGD's momentum buffer in `m`) and the step count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptimizerState {
    /// First moment (Adam) or momentum buffer (SGD).
    pub m: Vec<f32>,
    /// Second moment (Adam; empty for SGD).
    pub v: Vec<f32>,
    /// Steps taken.
    pub t: u64,
}

impl OptimizerState {
    /// A fresh state for `p` parameters.
    pub fn new(spec: &OptimizerSpec, p: usize) -> Self {
        let v = if matches!(spec, OptimizerSpec::Adam { .. }) { vec![0.0; p] } else { Vec::new() };
        OptimizerState { m: vec![0.0; p], v, t: 0 }
    }

    /// One step on `params` with gradient `grad` at rate `lr` (and Adam `beta1`).
    pub fn step(&mut self, spec: &OptimizerSpec, params: &mut [f32], grad: &[f32], lr: f64, beta1: f64) {
        self.t += 1;
        match *spec {
            OptimizerSpec::Adam { beta2, eps, .. } => {
                let (b1, b2) = (beta1 as f32, beta2 as f32);
                let bc1 = 1.0 - beta1.powi(self.t as i32);
                let bc2 = 1.0 - beta2.powi(self.t as i32);
                let step = (lr / bc1) as f32;
                let bc2_sqrt = bc2.sqrt() as f32;
                let eps = eps as f32;
                // Element by element, so splitting across threads changes no bit.
                params
                    .par_chunks_mut(CHUNK)
                    .zip(grad.par_chunks(CHUNK))
                    .zip(self.m.par_chunks_mut(CHUNK))
                    .zip(self.v.par_chunks_mut(CHUNK))
                    .for_each(|(((p, g), m), v)| {
                        for (((p, g), m), v) in p.iter_mut().zip(g).zip(m).zip(v) {
                            *m = b1 * *m + (1.0 - b1) * g;
                            *v = b2 * *v + (1.0 - b2) * g * g;
                            *p -= step * *m / (v.sqrt() / bc2_sqrt + eps);
                        }
                    });
            }
            OptimizerSpec::Sgd { momentum, .. } => {
                let (mu, lr) = (momentum as f32, lr as f32);
                let first = self.t == 1;
                params.par_chunks_mut(CHUNK).zip(grad.par_chunks(CHUNK)).zip(self.m.par_chunks_mut(CHUNK)).for_each(|((p, g), b)| {
                    for ((p, g), b) in p.iter_mut().zip(g).zip(b) {
                        *b = if first { *g } else { mu * *b + g };
                        *p -= lr * *b;
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn co_teaching_plan() {
        let s = Schedule::co_teaching(200);
        assert_eq!(s, Schedule::CoTeaching { decay_start: 80 });
        let spec = OptimizerSpec::ADAM;
        assert_eq!(s.at(&spec, 79, 200), (1e-3, 0.9));
        assert_eq!(s.at(&spec, 80, 200), (1e-3, 0.1));
        assert!((s.at(&spec, 199, 200).0 - 1e-3 / 120.0).abs() < 1e-15);
    }

    #[test]
    fn adam_first_step_moves_by_lr() {
        // After one step m-hat = g and v-hat = g^2, so each parameter moves by lr sign(g).
        let spec = OptimizerSpec::ADAM;
        let mut st = OptimizerState::new(&spec, 3);
        let mut p = [1.0f32, 2.0, 3.0];
        st.step(&spec, &mut p, &[0.5, -2.0, 1e-3], 1e-3, 0.9);
        for (a, b) in p.iter().zip([0.999f32, 2.001, 2.999]) {
            assert!((a - b).abs() < 1e-6, "{p:?}");
        }
    }
}
