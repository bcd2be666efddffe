//! Discrete black-box optimization (thesis sec. 3.5, app. 10.8; NOTES (e.3), errata 41-43):
//! INGO with a product of Bernoulli distributions over `{0, 1}^d` ([`BernoulliIngo`], eq.
//! 3.38-3.41) or of categorical distributions over `{0..K-1}^d` ([`CategoricalIngo`], eq.
//! 3.42-3.44), and the genetic-algorithm baseline of sec. 3.7.3 ([`Ga`]).
//!
//! All three are [`gradfree_core::AskTell`] optimizers like the continuous ones: the population
//! holds the variables as `f64` (`0.0`/`1.0`, or the category index), so drivers, checkpoints,
//! observers and the CLI are shared. `mean()` is the vector of `P(x_i = 1)` (Bernoulli), of the
//! expected category index (categorical), or the population average (GA).
//!
//! Mixed continuous/discrete spaces are not a single optimizer here. A user can combine them by
//! running a continuous ES and a discrete INGO side by side on the same evaluations: ask both,
//! concatenate each pair of rows into one candidate, evaluate, and tell both the same values (each
//! update is a valid stochastic natural-gradient step of its own factor of the product
//! distribution, since the scores only use the values).

mod bernoulli;
mod categorical;
mod ga;

pub use bernoulli::{BernoulliIngo, BernoulliIngoChecked, BernoulliIngoParams};
pub use categorical::{CategoricalIngo, CategoricalIngoChecked, CategoricalIngoParams};
pub use ga::{Ga, GaChecked, GaParams};

use crate::gaussian::NoScores;

/// The discrete INGO's samples per generation, thesis sec. 3.7.3:
/// `N = 20 + 4 floor(3 + floor(3 ln d)/2)` (erratum 41: not the continuous INGO's `N`).
pub fn discrete_population(d: usize) -> usize {
    20 + 2 * crate::sizes::thesis_population(d)
}

/// Checks the sizes shared by the discrete optimizers: `d >= 1`, `K` in `2..=65536`, and the
/// population (default [`discrete_population`]) `>= 2`. Returns `N`.
/// Restored-state check: every value of `v` is a category index in `0..k`.
pub(crate) fn check_categories(name: &str, v: &[f64], k: usize) -> Result<(), String> {
    match v.iter().position(|x| !(x.fract() == 0.0 && *x >= 0.0 && *x < k as f64)) {
        Some(i) => Err(format!("{name}[{i}] = {}: must be a category in 0..{k}", v[i])),
        None => Ok(()),
    }
}

pub(crate) fn check_sizes(d: usize, categories: usize, popsize: Option<usize>) -> Result<usize, gradfree_core::CoreError> {
    use gradfree_core::CoreError;
    if d == 0 {
        return Err(CoreError::Empty("dimension"));
    }
    if !(2..=1 << 16).contains(&categories) {
        return Err(CoreError::invalid("categories", categories, "in 2..=65536"));
    }
    let n = crate::sizes::popsize(popsize, discrete_population(d), 2)?;
    let (d128, n128, k128) = (d as u128, n as u128, categories as u128);
    gradfree_core::memory::check_elements(
        &format!("a discrete search with dimension {d}, {categories} categories and popsize {n}"),
        gradfree_core::memory::product(&[4, n128, d128])
            .saturating_add(gradfree_core::memory::product(&[4, k128, d128]))
            .saturating_add(32 * d128),
    )?;
    Ok(n)
}

/// The scores `c_n` of eq. (3.41): `(f_n - b) / (N sigmahat)`, `sigmahat` the sample standard
/// deviation of the values, `b` their mean with `baseline` (an unbiased variance reduction since
/// `E[h] = 0`; NOTES (e.3) [AMBIG]) or 0 as printed. Infinite values (treat-as-inf policy) are
/// replaced by the largest finite one first.
pub(crate) fn discrete_scores(values: &[f64], baseline: bool, out: &mut Vec<f64>) -> Result<(), NoScores> {
    let n = values.len();
    let max_finite = values.iter().copied().filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
    if max_finite == f64::NEG_INFINITY {
        return Err(NoScores::AllInfinite);
    }
    out.clear();
    out.extend(values.iter().map(|&v| if v.is_finite() { v } else { max_finite }));
    let mean = out.iter().sum::<f64>() / n as f64;
    let std = (out.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n.max(2) - 1) as f64).sqrt();
    if !(std > 0.0 && std.is_finite()) {
        return Err(NoScores::Flat);
    }
    let b = if baseline { mean } else { 0.0 };
    for o in out.iter_mut() {
        *o = (*o - b) / (n as f64 * std);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_and_scores() {
        // d = 100: 20 + 4 * floor(3 + 13/2) = 20 + 4 * 9 = 56.
        assert_eq!(discrete_population(100), 56);
        assert_eq!(discrete_population(2000), 20 + 4 * 14);
        let mut c = Vec::new();
        discrete_scores(&[1.0, 2.0, 3.0], false, &mut c).unwrap();
        assert!(c.iter().zip([1.0 / 3.0, 2.0 / 3.0, 1.0]).all(|(a, b)| (a - b).abs() < 1e-15));
        discrete_scores(&[1.0, 2.0, 3.0], true, &mut c).unwrap();
        assert!(c.iter().zip([-1.0 / 3.0, 0.0, 1.0 / 3.0]).all(|(a, b)| (a - b).abs() < 1e-15));
        assert_eq!(discrete_scores(&[2.0, 2.0], true, &mut c), Err(NoScores::Flat));
        assert_eq!(discrete_scores(&[f64::INFINITY; 2], true, &mut c), Err(NoScores::AllInfinite));
    }
}
