//! Setting NPCL's `eps` on one's own data: two documented estimates of the label-noise rate.
//!
//! - [`rate_from_trusted`]: a small subset whose labels were checked by hand (a *trusted* subset)
//!   and the labels the data set gives the same samples. The rate is the fraction that disagree,
//!   with a Wilson score interval, and the transition matrix is the row-normalized confusion.
//!   Unbiased for the data set's rate when the subset is drawn at random; 200 checked labels give
//!   an interval of about +-0.07 at `eps = 0.5`.
//! - [`anchor_transition`]: no trusted labels, only the class probabilities `P(noisy label | x)`
//!   of a model trained on the noisy labels (held-out predictions). For each class `i` the
//!   *anchor point* is the sample most confidently of class `i` (the `quantile`-th largest
//!   `P(i | x)`, 0.97 in Patrini et al. 2017, to ignore outliers); its predicted distribution is
//!   row `i` of `T` (Patrini et al., CVPR 2017, sec. 3.2; Liu & Tao, TPAMI 2016). The rate follows
//!   as `eps = sum_i pi_i (1 - T_ii)` ([`rate_from_transition`]) with the class priors `pi`.
//!
//! Both are measured against the true rate on the noisy benchmarks by `gradfree reproduce
//! curriculum-misspecified`.

use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};
use crate::noise::check_labels;

/// An estimate of the label-noise rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseEstimate {
    /// The estimated rate `eps`.
    pub rate: f64,
    /// A 95% interval for the rate, where the method gives one.
    pub interval: Option<(f64, f64)>,
    /// The estimated transition matrix (`T[i][j]`: class `i` labelled `j`).
    pub transition: Vec<Vec<f64>>,
    /// Samples the estimate used.
    pub samples: usize,
}

/// The Wilson score interval for a proportion of `k` in `n` at `z` standard errors.
pub fn wilson_interval(k: usize, n: usize, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p) = (n as f64, k as f64 / n as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The noise rate from a trusted subset: `clean[i]` is the checked class of sample `i`, `noisy[i]`
/// the label the data set gives it, classes `0..k`.
pub fn rate_from_trusted(clean: &[u32], noisy: &[u32], k: usize) -> Result<NoiseEstimate> {
    if clean.len() != noisy.len() {
        return Err(RobustError::bad(format!("{} trusted labels but {} noisy labels", clean.len(), noisy.len())));
    }
    if clean.is_empty() {
        return Err(RobustError::bad("the trusted subset is empty"));
    }
    if k < 2 {
        return Err(RobustError::invalid("classes", k, "at least 2 classes"));
    }
    check_labels("clean", clean, k)?;
    check_labels("noisy", noisy, k)?;
    let mut counts = vec![vec![0usize; k]; k];
    for (&c, &y) in clean.iter().zip(noisy) {
        counts[c as usize][y as usize] += 1;
    }
    let wrong = clean.iter().zip(noisy).filter(|(c, y)| c != y).count();
    let transition = counts
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let total: usize = row.iter().sum();
            if total == 0 {
                (0..k).map(|j| if i == j { 1.0 } else { 0.0 }).collect()
            } else {
                row.iter().map(|&c| c as f64 / total as f64).collect()
            }
        })
        .collect();
    Ok(NoiseEstimate {
        rate: wrong as f64 / clean.len() as f64,
        interval: Some(wilson_interval(wrong, clean.len(), 1.959_963_984_540_054)),
        transition,
        samples: clean.len(),
    })
}

/// The transition matrix by anchor points from `probs`, the row-major `n x k` predicted
/// probabilities of the noisy labels; `quantile` in `(0, 1]` picks each class's anchor among the
/// samples ranked by `P(i | x)` (1 = the most confident one).
pub fn anchor_transition(probs: &[f64], k: usize, quantile: f64) -> Result<Vec<Vec<f64>>> {
    if k < 2 {
        return Err(RobustError::invalid("classes", k, "at least 2 classes"));
    }
    if !(quantile > 0.0 && quantile <= 1.0) {
        return Err(RobustError::invalid("quantile", quantile, "a quantile in (0, 1]"));
    }
    if probs.is_empty() || !probs.len().is_multiple_of(k) {
        return Err(RobustError::bad(format!("probabilities: {} values is not a non-empty n x {k} matrix", probs.len())));
    }
    if let Some(i) = probs.iter().position(|p| !(p.is_finite() && (0.0..=1.0).contains(p))) {
        return Err(RobustError::bad(format!("probabilities[{}][{}] = {} is not a probability", i / k, i % k, probs[i])));
    }
    let n = probs.len() / k;
    let rank = ((quantile * n as f64).ceil() as usize).clamp(1, n) - 1;
    let mut order: Vec<usize> = (0..n).collect();
    Ok((0..k)
        .map(|i| {
            order.sort_unstable_by(|&a, &b| probs[a * k + i].total_cmp(&probs[b * k + i]).then(a.cmp(&b)));
            let anchor = order[rank];
            let row = &probs[anchor * k..(anchor + 1) * k];
            let s: f64 = row.iter().sum();
            row.iter().map(|p| if s > 0.0 { p / s } else { 1.0 / k as f64 }).collect()
        })
        .collect())
}

/// `eps = sum_i pi_i (1 - T_ii)`: the rate a transition matrix implies under class priors `pi`.
pub fn rate_from_transition(transition: &[Vec<f64>], priors: &[f64]) -> Result<f64> {
    if transition.len() != priors.len() || transition.iter().any(|r| r.len() != priors.len()) {
        return Err(RobustError::bad(format!(
            "a {} x {} transition matrix needs {} priors",
            transition.len(),
            transition.len(),
            transition.len()
        )));
    }
    let s: f64 = priors.iter().sum();
    if !(s > 0.0 && priors.iter().all(|p| p.is_finite() && *p >= 0.0)) {
        return Err(RobustError::bad("class priors must be finite, >= 0 and not all zero"));
    }
    Ok(transition.iter().zip(priors).enumerate().map(|(i, (row, p))| p / s * (1.0 - row[i])).sum())
}

/// [`anchor_transition`] and [`rate_from_transition`] with the priors of the noisy labels, as one
/// estimate.
pub fn rate_from_anchors(probs: &[f64], noisy: &[u32], k: usize, quantile: f64) -> Result<NoiseEstimate> {
    check_labels("noisy", noisy, k)?;
    if noisy.len() * k != probs.len() {
        return Err(RobustError::bad(format!("{} labels for {} rows of probabilities", noisy.len(), probs.len() / k.max(1))));
    }
    let transition = anchor_transition(probs, k, quantile)?;
    let mut priors = vec![0.0; k];
    for &y in noisy {
        priors[y as usize] += 1.0;
    }
    let rate = rate_from_transition(&transition, &priors)?;
    Ok(NoiseEstimate { rate, interval: None, transition, samples: noisy.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_known_value() {
        // 50 of 200: 0.25, Wilson 95% interval (0.19508, 0.31434) (statsmodels proportion_confint, method "wilson").
        let (lo, hi) = wilson_interval(50, 200, 1.959_963_984_540_054);
        assert!((lo - 0.195_082).abs() < 1e-5 && (hi - 0.314_341).abs() < 1e-5, "{lo} {hi}");
    }

    #[test]
    fn anchors_recover_the_matrix_from_exact_posteriors() {
        // Posterior of the noisy label = T^T applied to a clean posterior; anchors are samples that
        // are certainly of one class, so their predicted rows are the rows of T.
        let t = [[0.8, 0.2, 0.0], [0.0, 0.7, 0.3], [0.1, 0.0, 0.9]];
        let mut probs = Vec::new();
        for s in 0..30 {
            let a = 0.01 * (s / 3) as f64; // 0 for the first sample of each class: a pure one
            let clean: [f64; 3] = match s % 3 {
                0 => [1.0 - a, a, 0.0],
                1 => [0.0, 1.0 - a, a],
                _ => [a, 0.0, 1.0 - a],
            };
            for j in 0..3 {
                probs.push(clean.iter().zip(&t).map(|(c, row)| c * row[j]).sum::<f64>());
            }
        }
        let est = anchor_transition(&probs, 3, 1.0).unwrap();
        for i in 0..3 {
            for j in 0..3 {
                assert!((est[i][j] - t[i][j]).abs() < 1e-12, "{est:?}");
            }
        }
        let rate = rate_from_transition(&est, &[1.0, 1.0, 1.0]).unwrap();
        assert!((rate - (0.2 + 0.3 + 0.1) / 3.0).abs() < 1e-12);
    }
}
