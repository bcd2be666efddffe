//! Descriptive statistics every subsystem reports with: the mean, standard deviations, the median
//! and quantiles of a sample, and a percentile bootstrap interval for any statistic of it. One
//! copy, so that a table's "mean ± sd", a step-size rule's spread and an experiment's confidence
//! interval are computed the same way everywhere.
//!
//! Conventions: the sample standard deviation divides by `n - 1` (MATLAB's `std`, NumPy's
//! `ddof = 1`); quantiles interpolate linearly between order statistics (Hyndman & Fan's type 7,
//! the default of R's `quantile` and NumPy's `percentile`); NaN inputs are not filtered unless the
//! function says so.

use rand::RngExt;

use crate::{CoreError, derive_seed, rng_from_seed};

/// The arithmetic mean `sum(v) / n` (NaN for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The mean and the sample standard deviation `sqrt(sum (v - mean)^2 / (n - 1))`, in two passes
/// (so a large common offset costs no precision); the deviation is 0 for fewer than two values.
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let m = mean(values);
    let var = if values.len() > 1 { values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (m, var.sqrt())
}

/// The sample standard deviation of [`mean_sd`].
pub fn sample_sd(values: &[f64]) -> f64 {
    mean_sd(values).1
}

/// The population standard deviation `sqrt(sum (v - mean)^2 / n)` of the finite values among
/// `values` (NaN and infinities are skipped; 0 when none is finite), in two passes.
pub fn finite_population_sd<I: Iterator<Item = f64> + Clone>(values: I) -> f64 {
    let finite = values.filter(|v| v.is_finite());
    let count = finite.clone().count().max(1) as f64;
    let m = finite.clone().sum::<f64>() / count;
    (finite.map(|v| (v - m) * (v - m)).sum::<f64>() / count).sqrt()
}

/// The median of `values` (the mean of the two middle values for an even count), sorting them in
/// place by IEEE total order; NaN for an empty slice.
pub fn median_in_place(values: &mut [f64]) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

/// The median of `values` (see [`median_in_place`]), on a sorted copy.
pub fn median(values: &[f64]) -> f64 {
    median_in_place(&mut values.to_vec())
}

/// The `q`-quantile of `values`, `q` in `[0, 1]`: with the values sorted as `x_0 <= ... <=
/// x_{n-1}` and `h = (n - 1) q`, `x_{floor h} + (h - floor h)(x_{floor h + 1} - x_{floor h})`
/// (Hyndman & Fan's type 7). An error for an empty sample, a NaN in it, or `q` outside `[0, 1]`.
pub fn quantile(values: &[f64], q: f64) -> Result<f64, CoreError> {
    Ok(quantiles(values, &[q])?[0])
}

/// Several quantiles of one sample ([`quantile`]), sorting it once.
pub fn quantiles(values: &[f64], qs: &[f64]) -> Result<Vec<f64>, CoreError> {
    if values.is_empty() {
        return Err(CoreError::Empty("the sample of a quantile"));
    }
    if values.iter().any(|v| v.is_nan()) {
        return Err(CoreError::invalid("values", "NaN", "a sample without NaN"));
    }
    if let Some(&q) = qs.iter().find(|q| !(0.0..=1.0).contains(*q)) {
        return Err(CoreError::invalid("q", q, "in [0, 1]"));
    }
    let mut s = values.to_vec();
    s.sort_unstable_by(f64::total_cmp);
    Ok(qs.iter().map(|&q| sorted_quantile(&s, q)).collect())
}

/// Type-7 quantile of sorted, non-empty `s`.
fn sorted_quantile(s: &[f64], q: f64) -> f64 {
    let h = (s.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(s.len() - 1);
    s[lo] + (h - lo as f64) * (s[hi] - s[lo])
}

/// A two-sided interval `[lower, upper]` for a statistic, with the estimate on the whole sample.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// The statistic on the sample itself.
    pub estimate: f64,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
    /// Nominal coverage, e.g. 0.9.
    pub level: f64,
}

/// The percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13) of `statistic` at
/// coverage `level`: `resamples` samples of `values` drawn with replacement from the seeded
/// portable generator ([`crate::rng_from_seed`] of `derive_seed(seed, 0xb007)`), and the
/// `(1 - level) / 2` and `(1 + level) / 2` type-7 quantiles of the statistic over them.
/// Same seed, same interval. Errors: an empty sample, `level` outside `(0, 1)`, fewer than 10
/// resamples, or a statistic that is NaN on some resample.
pub fn bootstrap_interval(
    values: &[f64],
    statistic: impl Fn(&[f64]) -> f64,
    level: f64,
    resamples: usize,
    seed: u64,
) -> Result<Interval, CoreError> {
    if values.is_empty() {
        return Err(CoreError::Empty("the sample of a bootstrap interval"));
    }
    if !(level > 0.0 && level < 1.0) {
        return Err(CoreError::invalid("level", level, "in (0, 1)"));
    }
    if resamples < 10 {
        return Err(CoreError::invalid("resamples", resamples, ">= 10"));
    }
    let mut rng = rng_from_seed(derive_seed(seed, 0xb007));
    let n = values.len();
    let mut sample = vec![0.0; n];
    let mut stats = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for s in sample.iter_mut() {
            *s = values[rng.random_range(0..n)];
        }
        stats.push(statistic(&sample));
    }
    if stats.iter().any(|v| v.is_nan()) {
        return Err(CoreError::Numerical("the statistic is NaN on a bootstrap resample".into()));
    }
    let tail = (1.0 - level) / 2.0;
    let q = quantiles(&stats, &[tail, 1.0 - tail])?;
    Ok(Interval { estimate: statistic(values), lower: q[0], upper: q[1], level })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_deviations_match_closed_forms() {
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&v), 5.0);
        // Sum of squares 32: population variance 4, sample variance 32 / 7.
        assert_eq!(finite_population_sd(v.iter().copied()), 2.0);
        assert!((sample_sd(&v) - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
        assert_eq!(mean_sd(&[4.0]), (4.0, 0.0));
        assert_eq!(finite_population_sd([1.0, f64::NAN, 3.0, f64::INFINITY].into_iter()), 1.0);
        assert_eq!(finite_population_sd([f64::NAN].into_iter()), 0.0);
        // Two passes: a large offset keeps the deviation exact.
        let (m, s) = mean_sd(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]);
        assert_eq!((m, s), (1e9 + 2.0, 1.0));
    }

    #[test]
    fn median_and_quantiles_are_type_7() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
        // NumPy: np.percentile([1, 2, 3, 4, 10], [0, 10, 25, 50, 90, 100]) = 1, 1.4, 2, 3, 7.6, 10.
        let v = [10.0, 1.0, 3.0, 2.0, 4.0];
        let q = quantiles(&v, &[0.0, 0.1, 0.25, 0.5, 0.9, 1.0]).unwrap();
        for (a, b) in q.iter().zip([1.0, 1.4, 2.0, 3.0, 7.6, 10.0]) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
        assert_eq!(quantile(&[5.0], 0.3).unwrap(), 5.0);
        assert!(quantile(&[], 0.5).is_err());
        assert!(quantile(&[1.0, f64::NAN], 0.5).is_err());
        assert!(quantile(&[1.0], 1.5).unwrap_err().to_string().contains("in [0, 1]"));
    }

    /// The bootstrap interval of the mean of a normal sample covers the true mean at about its
    /// level (checked over many samples), is reproducible, and its width shrinks like 1/sqrt(n).
    #[test]
    fn bootstrap_interval_of_the_mean_has_its_coverage() {
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = rng_from_seed(7);
        let (trials, n) = (300, 40);
        let mut covered = 0;
        for t in 0..trials {
            let x: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
            let ci = bootstrap_interval(&x, mean, 0.9, 400, t).unwrap();
            assert!(ci.lower <= ci.estimate && ci.estimate <= ci.upper);
            covered += usize::from(ci.lower <= 0.0 && 0.0 <= ci.upper);
        }
        // Binomial(300, ~0.88): 4 standard deviations either side.
        assert!((235..=290).contains(&covered), "covered {covered} of {trials}");
        let x: Vec<f64> = (0..400).map(|_| StandardNormal.sample(&mut rng)).collect();
        let a = bootstrap_interval(&x, mean, 0.9, 1000, 3).unwrap();
        assert_eq!(a, bootstrap_interval(&x, mean, 0.9, 1000, 3).unwrap());
        // Width ~ 2 * 1.645 / sqrt(400) = 0.1645.
        assert!((a.upper - a.lower - 0.1645).abs() < 0.03, "{a:?}");
        assert!(bootstrap_interval(&x, mean, 1.0, 100, 0).is_err());
        assert!(bootstrap_interval(&x, mean, 0.9, 5, 0).is_err());
        assert!(bootstrap_interval(&[], mean, 0.9, 100, 0).is_err());
    }
}
