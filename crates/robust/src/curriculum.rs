//! The curriculum losses of thesis sec. 8.2 on per-sample base losses `l(u_i) >= 1(u_i < 0)`:
//! `Q(u)` (eq. 8.9), the scaled `E(u)` (eq. 8.11), their mini-batch versions (eq. 8.10, 8.12) and
//! the noise-pruned thresholds of NPCL (eq. 8.18, 8.20-8.21). Each is the optimal value of the
//! partial problem (8.13) for its threshold `C`, computed by Algorithm 13 ([`crate::selection`]).

use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};
use crate::selection::{Selector, TrainOn};

/// The threshold `C` of the partial problem (8.13) for a set of `m` samples of which
/// `misclassified` have a negative margin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Threshold {
    /// The curriculum loss `Q` (eq. 8.9): `C = m + #misclassified`.
    Curriculum,
    /// The scaled curriculum loss `E` (eq. 8.11): `C = m`.
    Scaled,
    /// NPCL with the fixed threshold of eq. (8.18)/(8.20): `C = (1 - eps) m`; `E` at `eps = 0`.
    NoisePruned {
        /// The noise rate `eps` in `[0, 1)`.
        eps: f64,
    },
    /// NPCL with the adaptive threshold of eq. (8.18)/(8.21):
    /// `C = (1 - eps)^2 m + (1 - eps) #misclassified`; `Q` at `eps = 0`.
    NoisePrunedAdaptive {
        /// The noise rate `eps` in `[0, 1)`.
        eps: f64,
    },
}

/// Checks a noise rate: finite and in `[0, 1)`.
pub fn check_noise_rate(name: &'static str, eps: f64) -> Result<()> {
    if !(eps.is_finite() && (0.0..1.0).contains(&eps)) {
        return Err(RobustError::invalid(name, eps, "a noise rate in [0, 1)"));
    }
    Ok(())
}

impl Threshold {
    /// Checks the noise rate, if any.
    pub fn check(&self) -> Result<()> {
        match *self {
            Threshold::NoisePruned { eps } | Threshold::NoisePrunedAdaptive { eps } => check_noise_rate("eps", eps),
            _ => Ok(()),
        }
    }

    /// `C` for `m` samples, `misclassified` of them with a negative margin.
    pub fn value(&self, m: usize, misclassified: usize) -> f64 {
        self.value_weighted(m as f64, misclassified as f64)
    }

    /// `C` for a weighted batch: `m` the total weight of its samples, `misclassified` the total
    /// weight of those with a negative margin (integer weights count copies; [`Threshold::value`]
    /// at unit weights).
    pub fn value_weighted(&self, m: f64, misclassified: f64) -> f64 {
        let j = misclassified;
        match *self {
            Threshold::Curriculum => m + j,
            Threshold::Scaled => m,
            Threshold::NoisePruned { eps } => (1.0 - eps) * m,
            Threshold::NoisePrunedAdaptive { eps } => (1.0 - eps) * (1.0 - eps) * m + (1.0 - eps) * j,
        }
    }
}

fn check_pairs(losses: &[f64], margins: &[f64]) -> Result<()> {
    if losses.len() != margins.len() {
        return Err(RobustError::bad(format!("{} losses but {} margins", losses.len(), margins.len())));
    }
    if let Some(i) = margins.iter().position(|u| u.is_nan()) {
        return Err(RobustError::bad(format!("margins[{i}] is NaN")));
    }
    Ok(())
}

/// The 0-1 objective `J(u) = sum_i 1(u_i < 0)` (eq. 8.7).
pub fn zero_one(margins: &[f64]) -> usize {
    margins.iter().filter(|u| **u < 0.0).count()
}

/// The optimal value of (8.13) on `losses` for `threshold`, with `margins` giving the
/// misclassified count. `Curriculum` gives `Q(u)` (eq. 8.9), `Scaled` gives `E(u)` (eq. 8.11),
/// the NPCL thresholds give `L(u)` (eq. 8.18).
pub fn curriculum_value(losses: &[f64], margins: &[f64], threshold: Threshold) -> Result<f64> {
    check_pairs(losses, margins)?;
    threshold.check()?;
    let c = threshold.value(losses.len(), zero_one(margins));
    let mut mask = vec![false; losses.len()];
    Ok(Selector::new().select(losses, c, TrainOn::Selected, &mut mask)?.value)
}

/// The mini-batch version: the sum over consecutive batches of `batch` samples (the last one may
/// be shorter) of each batch's optimal value, each with its own threshold. `Curriculum` gives
/// `Q-hat` (eq. 8.10), `Scaled` gives `E-hat` (eq. 8.12), the NPCL thresholds `L-hat` (eq. 8.20).
pub fn curriculum_value_batched(losses: &[f64], margins: &[f64], batch: usize, threshold: Threshold) -> Result<f64> {
    check_pairs(losses, margins)?;
    threshold.check()?;
    if batch == 0 {
        return Err(RobustError::invalid("batch_size", 0, "an integer >= 1"));
    }
    let mut sel = Selector::new();
    let mut mask = vec![false; batch];
    let mut total = 0.0;
    for (l, u) in losses.chunks(batch).zip(margins.chunks(batch)) {
        let c = threshold.value(l.len(), zero_one(u));
        total += sel.select(l, c, TrainOn::Selected, &mut mask[..l.len()])?.value;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_reduce_to_the_curriculum_losses_at_zero_noise() {
        for (m, j) in [(128, 0), (128, 17), (5, 5)] {
            assert_eq!(Threshold::NoisePrunedAdaptive { eps: 0.0 }.value(m, j), Threshold::Curriculum.value(m, j));
            assert_eq!(Threshold::NoisePruned { eps: 0.0 }.value(m, j), Threshold::Scaled.value(m, j));
        }
        // E[C] = (1 - eps) m for a model that misclassifies exactly the eps m noisy samples.
        let eps = 0.2;
        assert!((Threshold::NoisePrunedAdaptive { eps }.value(100, 20) - 80.0).abs() < 1e-12);
        assert!(Threshold::NoisePruned { eps: 1.0 }.check().is_err());
        assert!(Threshold::NoisePrunedAdaptive { eps: f64::NAN }.check().is_err());
    }
}
