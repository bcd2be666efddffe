//! Score transforms `h(f(x_i))` of thesis sec. 3.4.1.

use serde::{Deserialize, Serialize};

/// Which monotone transform of the values drives the update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreTransform {
    /// Eq. (3.25) as used in Alg. 1-3: `s_i = (f_i - mean f) / (N std f)`, with the sample standard
    /// deviation (divisor `N - 1`, MATLAB's `std`, as in the thesis code). Sums to 0, so the
    /// `-Sigma^{-1}` term of (3.22) cancels exactly. Infinite values (treat-as-inf policy) are
    /// replaced by the largest finite value first.
    #[default]
    Normalized,
    /// Eq. (3.24) divided by `N` as in (3.26): `w_i = log(rank_i) / sum_{j=1}^N log j`, rank 1 for
    /// the smallest value (ties broken by index). Non-negative and summing to 1, so (3.22) keeps
    /// a `(1 - beta) Sigma^{-1}` term (as (3.30) does; erratum 39 of NOTES (f)).
    LogRank,
}

/// Why no scores could be computed for a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoScores {
    /// Every value was infinite.
    AllInfinite,
    /// All values were equal: no ranking information (normalized transform).
    Flat,
}

impl ScoreTransform {
    /// Writes the scores of `values` into `out` (same length); `order` is scratch.
    pub fn compute(&self, values: &[f64], out: &mut [f64], order: &mut Vec<usize>) -> Result<(), NoScores> {
        let n = values.len();
        match self {
            ScoreTransform::Normalized => {
                let max_finite = values.iter().copied().filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
                if max_finite == f64::NEG_INFINITY {
                    return Err(NoScores::AllInfinite);
                }
                for (o, &v) in out.iter_mut().zip(values) {
                    *o = if v.is_finite() { v } else { max_finite };
                }
                let mean = out.iter().sum::<f64>() / n as f64;
                let var = out.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64;
                let std = var.sqrt();
                if !(std > 0.0 && std.is_finite()) {
                    return Err(NoScores::Flat);
                }
                for o in out.iter_mut() {
                    *o = (*o - mean) / (n as f64 * std);
                }
                Ok(())
            }
            ScoreTransform::LogRank => {
                crate::points::rank_order(values, order);
                let denom: f64 = (1..=n).map(|j| (j as f64).ln()).sum();
                if denom <= 0.0 {
                    return Err(NoScores::Flat);
                }
                for (rank0, &i) in order.iter().enumerate() {
                    out[i] = ((rank0 + 1) as f64).ln() / denom;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_scores() {
        let mut out = [0.0; 4];
        let mut ord = Vec::new();
        ScoreTransform::Normalized.compute(&[1.0, 2.0, 3.0, 4.0], &mut out, &mut ord).unwrap();
        // mean 2.5, sample std sqrt(5/3).
        let s = (5.0f64 / 3.0).sqrt();
        assert!((out[0] - (-1.5 / (4.0 * s))).abs() < 1e-15);
        assert!(out.iter().sum::<f64>().abs() < 1e-15);
        assert_eq!(ScoreTransform::Normalized.compute(&[2.0; 4], &mut out, &mut ord), Err(NoScores::Flat));
        ScoreTransform::Normalized.compute(&[1.0, f64::INFINITY, 3.0, 2.0], &mut out, &mut ord).unwrap();
        assert_eq!(out[1], out[2]);
    }

    #[test]
    fn log_rank_weights() {
        let mut out = [0.0; 4];
        let mut ord = Vec::new();
        ScoreTransform::LogRank.compute(&[3.0, 1.0, f64::INFINITY, 2.0], &mut out, &mut ord).unwrap();
        let den = 2f64.ln() + 3f64.ln() + 4f64.ln();
        assert_eq!(out[1], 0.0);
        assert!((out[3] - 2f64.ln() / den).abs() < 1e-15);
        assert!((out[0] - 3f64.ln() / den).abs() < 1e-15);
        assert!((out[2] - 4f64.ln() / den).abs() < 1e-15);
        assert!((out.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }
}
