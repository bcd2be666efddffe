//! Seeded label noise with a known transition matrix `T` (`T[i][j]` = probability that a sample
//! of class `i` is given label `j`), the two corruptions of thesis sec. 8.3.1:
//!
//! - **symmetric** flipping at rate `eps` (van Rooyen et al. 2015): the label is replaced, with
//!   probability `eps`, by one of the `K - 1` other classes drawn uniformly;
//! - **pair** flipping at rate `eps` (Han et al. 2018, Co-teaching): the label of class `i` is
//!   replaced, with probability `eps`, by class `(i + 1) mod K`.
//!
//! Each label is redrawn independently from its row of `T` with the project's generator, so the
//! realized rate is `eps` up to sampling error (reported as [`NoisyLabels::actual_rate`]). Rates
//! past the point where the true class stops being the most likely label are refused: beyond it
//! the noisy labels no longer identify the classes (symmetric: `eps < (K - 1) / K`; pair:
//! `eps < 1/2`).

use std::fmt;
use std::str::FromStr;

use gradfree_core::rng_from_seed;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};

/// A kind of label corruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseKind {
    /// Uniform over the `K - 1` other classes.
    Symmetric,
    /// To the next class, `(i + 1) mod K`.
    Pair,
}

/// A label corruption and its rate, written `symmetric:0.5`, `pair:0.45` or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelNoise {
    /// The kind of corruption.
    pub kind: NoiseKind,
    /// The flip probability `eps`.
    pub rate: f64,
}

impl LabelNoise {
    /// No corruption.
    pub const NONE: LabelNoise = LabelNoise { kind: NoiseKind::Symmetric, rate: 0.0 };

    /// Checks the rate for `k` classes (see the module documentation for the ranges).
    pub fn check(&self, k: usize) -> Result<()> {
        if k < 2 {
            return Err(RobustError::invalid("classes", k, "at least 2 classes"));
        }
        let (limit, why) = match self.kind {
            NoiseKind::Symmetric => ((k - 1) as f64 / k as f64, format!("(K - 1)/K = {}/{k}", k - 1)),
            NoiseKind::Pair => (0.5, "1/2".to_string()),
        };
        if !(self.rate.is_finite() && self.rate >= 0.0 && self.rate < limit) {
            return Err(RobustError::invalid(
                "noise rate",
                self.rate,
                format!(
                    "a rate in [0, {why}) for {} noise with {k} classes: past it the true class is no longer the most likely label",
                    self.kind_name()
                ),
            ));
        }
        Ok(())
    }

    fn kind_name(&self) -> &'static str {
        match self.kind {
            NoiseKind::Symmetric => "symmetric",
            NoiseKind::Pair => "pair",
        }
    }

    /// The `k x k` row-stochastic transition matrix.
    pub fn transition_matrix(&self, k: usize) -> Result<Vec<Vec<f64>>> {
        self.check(k)?;
        let e = self.rate;
        Ok((0..k)
            .map(|i| {
                (0..k)
                    .map(|j| match self.kind {
                        NoiseKind::Symmetric if i == j => 1.0 - e,
                        NoiseKind::Symmetric => e / (k - 1) as f64,
                        NoiseKind::Pair if i == j => 1.0 - e,
                        NoiseKind::Pair if j == (i + 1) % k => e,
                        NoiseKind::Pair => 0.0,
                    })
                    .collect()
            })
            .collect())
    }
}

impl fmt::Display for LabelNoise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rate == 0.0 { write!(f, "none") } else { write!(f, "{}:{}", self.kind_name(), self.rate) }
    }
}

impl FromStr for LabelNoise {
    type Err = RobustError;

    fn from_str(s: &str) -> Result<Self> {
        let bad = || RobustError::invalid("noise", s, "`none`, `symmetric:RATE` or `pair:RATE` with RATE in [0, 1), e.g. symmetric:0.5");
        if s == "none" {
            return Ok(LabelNoise::NONE);
        }
        let (kind, rate) = s.split_once(':').ok_or_else(bad)?;
        let kind = match kind {
            "symmetric" | "sym" => NoiseKind::Symmetric,
            "pair" | "pairflip" => NoiseKind::Pair,
            _ => return Err(bad()),
        };
        let rate: f64 = rate.trim().parse().map_err(|_| bad())?;
        if !(rate.is_finite() && (0.0..1.0).contains(&rate)) {
            return Err(bad());
        }
        Ok(LabelNoise { kind, rate })
    }
}

/// Labels after corruption, with what produced them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoisyLabels {
    /// The corrupted labels.
    pub labels: Vec<u32>,
    /// The transition matrix they were drawn from (`T[i][j]`: class `i` labelled `j`).
    pub transition: Vec<Vec<f64>>,
    /// The fraction of labels that differ from the clean ones.
    pub actual_rate: f64,
    /// Whether each label was changed.
    pub flipped: Vec<bool>,
}

/// Checks labels against `k` classes.
pub fn check_labels(name: &str, labels: &[u32], k: usize) -> Result<()> {
    if let Some((i, y)) = labels.iter().enumerate().find(|(_, y)| **y as usize >= k) {
        return Err(RobustError::bad(format!("{name}[{i}] = {y} is outside the classes 0..{k}")));
    }
    Ok(())
}

/// Corrupts `labels` (classes `0..k`) by `noise`, seeded: the same seed gives the same labels on
/// every platform.
pub fn flip_labels(labels: &[u32], k: usize, noise: LabelNoise, seed: u64) -> Result<NoisyLabels> {
    let transition = noise.transition_matrix(k)?;
    check_labels("labels", labels, k)?;
    let mut rng = rng_from_seed(seed);
    let mut flipped = Vec::with_capacity(labels.len());
    let out: Vec<u32> = labels
        .iter()
        .map(|&y| {
            let row = &transition[y as usize];
            let r: f64 = rng.random();
            let mut acc = 0.0;
            let mut new = y;
            for (j, p) in row.iter().enumerate() {
                acc += p;
                if r < acc {
                    new = j as u32;
                    break;
                }
            }
            flipped.push(new != y);
            new
        })
        .collect();
    let actual_rate = if labels.is_empty() { 0.0 } else { flipped.iter().filter(|f| **f).count() as f64 / labels.len() as f64 };
    Ok(NoisyLabels { labels: out, transition, actual_rate, flipped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let n: LabelNoise = "symmetric:0.5".parse().unwrap();
        assert_eq!(n, LabelNoise { kind: NoiseKind::Symmetric, rate: 0.5 });
        assert_eq!(n.to_string(), "symmetric:0.5");
        assert_eq!("pair:0.45".parse::<LabelNoise>().unwrap().kind, NoiseKind::Pair);
        assert_eq!("none".parse::<LabelNoise>().unwrap().to_string(), "none");
        for bad in ["", "symmetric", "pair:1", "pair:-0.1", "uniform:0.2", "pair:nan"] {
            assert!(bad.parse::<LabelNoise>().is_err(), "{bad}");
        }
        assert!(LabelNoise { kind: NoiseKind::Pair, rate: 0.5 }.check(10).is_err());
        assert!(LabelNoise { kind: NoiseKind::Symmetric, rate: 0.9 }.check(10).is_err());
        assert!(LabelNoise { kind: NoiseKind::Symmetric, rate: 0.89 }.check(10).is_ok());
    }

    #[test]
    fn matrices_are_row_stochastic() {
        for noise in ["symmetric:0.2", "symmetric:0.5", "pair:0.35", "pair:0.45"] {
            let t = noise.parse::<LabelNoise>().unwrap().transition_matrix(10).unwrap();
            for row in &t {
                assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            }
        }
    }
}
