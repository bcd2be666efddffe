//! The training methods compared in thesis sec. 8.3: the curriculum losses (Algorithm 14) and the
//! baselines, each cited where it is defined.

use serde::{Deserialize, Serialize};

use super::loss::SampleLoss;
use crate::curriculum::check_noise_rate;
use crate::error::{Result, RobustError};
use crate::selection::TrainOn;

/// How a mini-batch becomes a gradient step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Method {
    /// Cross-entropy on every sample (standard training).
    Ce,
    /// Generalized cross-entropy (Zhang & Sabuncu, NeurIPS 2018), `q = 0.7` in the thesis.
    Gce {
        /// The exponent `q` in `(0, 1]`.
        q: f64,
    },
    /// The multi-class hinge on every sample, `beta S + (1 - beta) H` (app. 10.37; `beta = 1` is
    /// the soft hinge NPCL trains with, `beta = 0` the hard one).
    Hinge {
        /// The weight of the soft hinge.
        beta: f64,
    },
    /// Algorithm 14 with the threshold of eq. (8.21): select with Algorithm 13 on the hard-hinge
    /// losses, step on the mean soft hinge of the selection; `eps = 0` is the curriculum loss `Q`
    /// of eq. (8.9) (`cl`), `eps > 0` is NPCL. For the first `burn_in` epochs the step uses every
    /// sample of the batch (sec. 8.3.1: "we start NPCL at 5th epoch on MNIST").
    Npcl {
        /// The noise rate `eps` in `[0, 1)`.
        eps: f64,
        /// Epochs before the selection starts.
        burn_in: usize,
        /// Which partial sum the step minimizes (remark after Proposition 2).
        train_on: TrainOn,
    },
    /// Co-teaching (Han et al., NeurIPS 2018, Alg. 1): two networks each keep the `1 - R(e)`
    /// fraction of the batch with the smallest cross-entropy, and each is updated on the samples
    /// its peer kept; `R(e) = eps min(e / t_k, 1)` with `t_k = 10` epochs.
    CoTeaching {
        /// The forget rate `eps` (the noise rate) in `[0, 1)`.
        eps: f64,
        /// Epochs `t_k` over which the forget rate rises to `eps`.
        t_k: usize,
    },
}

/// The names of [`Method::from_name`], as the CLI and Python spell them.
pub const METHOD_NAMES: &[&str] = &["npcl", "cl", "ce", "gce", "coteaching", "hinge", "hinge-hard"];

impl Method {
    /// A method by name with the thesis' settings: `npcl` (with `noise_rate`), `cl`, `ce`, `gce`
    /// (`q = 0.7`), `coteaching` (forget rate `noise_rate`, `t_k = 10`), `hinge` (soft), `hinge-hard`
    /// (the hard multi-class hinge of Crammer & Singer 2001, app. 10.37's comparison). `burn_in`
    /// applies to `npcl` and `cl`.
    pub fn from_name(name: &str, noise_rate: f64, burn_in: usize) -> Result<Self> {
        let m = match name {
            "npcl" => Method::Npcl { eps: noise_rate, burn_in, train_on: TrainOn::Selected },
            "cl" => Method::Npcl { eps: 0.0, burn_in, train_on: TrainOn::Selected },
            "ce" => Method::Ce,
            "gce" => Method::Gce { q: 0.7 },
            "coteaching" => Method::CoTeaching { eps: noise_rate, t_k: 10 },
            "hinge" => Method::Hinge { beta: 1.0 },
            "hinge-hard" => Method::Hinge { beta: 0.0 },
            _ => return Err(RobustError::invalid("loss", name, format!("one of {}", METHOD_NAMES.join(", ")))),
        };
        m.check()?;
        Ok(m)
    }

    /// Checks the method's parameters.
    pub fn check(&self) -> Result<()> {
        match *self {
            Method::Ce => Ok(()),
            Method::Gce { q } if !(q > 0.0 && q <= 1.0) => Err(RobustError::invalid("q", q, "a number in (0, 1]")),
            Method::Gce { .. } => Ok(()),
            Method::Hinge { beta } if !(0.0..=1.0).contains(&beta) => Err(RobustError::invalid("beta", beta, "a number in [0, 1]")),
            Method::Hinge { .. } => Ok(()),
            Method::Npcl { eps, .. } => check_noise_rate("noise_rate", eps),
            Method::CoTeaching { eps, t_k } => {
                check_noise_rate("noise_rate", eps)?;
                if t_k == 0 { Err(RobustError::invalid("t_k", 0, "an integer >= 1")) } else { Ok(()) }
            }
        }
    }

    /// The loss each network's gradient step is taken on.
    pub fn step_loss(&self) -> SampleLoss {
        match *self {
            Method::Ce | Method::CoTeaching { .. } => SampleLoss::CrossEntropy,
            Method::Gce { q } => SampleLoss::Gce { q },
            Method::Hinge { beta } => SampleLoss::Hinge { beta },
            Method::Npcl { .. } => SampleLoss::Hinge { beta: 1.0 },
        }
    }

    /// Networks trained side by side (2 for Co-teaching).
    pub fn networks(&self) -> usize {
        if matches!(self, Method::CoTeaching { .. }) { 2 } else { 1 }
    }
}
