//! Algorithm 12 of the thesis (sec. 6.4.2): choosing the DFT rows `Lambda` of the SSF point set
//! by coordinate ascent on the log-energy objective
//!
//! ```text
//! J(Lambda) = sum_{p=1}^{n-1} ln(1 - (Im S(p) / m)^2) + ln(1 - (Re S(p) / m)^2),
//! S(p) = sum_{s=1}^m e^{2 pi i k_s p / n}                                    (eq. 6.34)
//! ```
//!
//! Maximizing `J` minimizes the Riesz 0-energy (eq. 6.25) of `U = [V, -V]` (Theorem 19: `E(U) =
//! C - 2n J(Lambda)`). One sweep replaces each `k_q` in turn by the maximizer of `J(k_q)` with the
//! other indexes fixed (eq. 6.35), keeping `h = S - e^{2 pi i k_q p / n}` up to date; sweeps repeat
//! until one changes nothing. Each sweep costs O(m n^2) (all `n - 1` candidates times `n - 1`
//! terms; the terms at `p` and `n - p` are equal because `S(n - p)` is the conjugate of `S(p)`,
//! so half of them are computed).
//!
//! Choices where the thesis is silent, made so the ascent is monotone and deterministic:
//! - the candidates for `k_q` are the indexes not already in `Lambda` (the thesis requires distinct
//!   indexes, sec. 6.4.1); `k_q` changes only if a candidate is strictly better, ties go to the
//!   smaller index, so `J` never decreases and the loop ends;
//! - a factor `1 - (.)^2` that is zero (two points equal or antipodal, possible when `n` is not
//!   prime) is clamped to `1e-60`, so `J` stays finite and such sets lose;
//! - [`AscentOptions::candidates`] optionally restricts each step to a random block of candidates,
//!   as the authors' public demo does, for sizes where O(m n^2) per sweep is too slow.
//!
//! Candidates are scored in parallel; each score is a sequential sum, so the result does not depend
//! on the number of threads.

use std::f64::consts::PI;

use gradfree_core::rng_from_seed;
use rand::seq::SliceRandom;
use rayon::prelude::*;

use crate::QmcError;

/// Clamp of a factor `1 - (.)^2` before its logarithm (see the module documentation).
const FLOOR: f64 = 1e-60;

/// Options of [`coordinate_ascent`].
#[derive(Clone, Debug, PartialEq)]
pub struct AscentOptions {
    /// Most sweeps over `q = 1..m` (the thesis observes fewer than ten; Fig. 6.1).
    pub max_sweeps: usize,
    /// `None`: every index not in `Lambda` is a candidate (Algorithm 12). `Some(c)`: a random block
    /// of `c` of them per step.
    pub candidates: Option<usize>,
}

impl Default for AscentOptions {
    fn default() -> Self {
        AscentOptions { max_sweeps: 30, candidates: None }
    }
}

/// What the ascent did.
#[derive(Clone, Debug, PartialEq)]
pub struct AscentTrace {
    /// `J(Lambda)` at the random start and after each sweep (non-decreasing).
    pub objective: Vec<f64>,
    /// Indexes replaced in each sweep.
    pub changes: Vec<usize>,
    /// True if the last sweep changed nothing (a local optimum: no single index can be improved).
    pub converged: bool,
}

/// `J(Lambda)` of eq. 6.34 computed directly, O(m n).
pub fn objective(lambda: &[u64], n: u64) -> f64 {
    let m = lambda.len() as f64;
    (1..n)
        .map(|p| {
            let (mut re, mut im) = (0.0, 0.0);
            for &k in lambda {
                let a = 2.0 * PI * ((k as u128 * p as u128 % n as u128) as f64) / n as f64;
                re += a.cos();
                im += a.sin();
            }
            let (re, im) = (re / m, im / m);
            ((1.0 - im * im).max(FLOOR) * (1.0 - re * re).max(FLOOR)).ln()
        })
        .sum()
}

/// The terms `p = 1..=floor(n/2)` with weight 2 for `p < n - p` (the pair `p`, `n - p`) and 1 for
/// `p = n/2`.
struct Half {
    n: usize,
    top: usize,
    cos: Vec<f64>,
    sin: Vec<f64>,
}

impl Half {
    fn new(n: usize) -> Self {
        let (cos, sin) = (0..n).map(|t| (2.0 * PI * t as f64 / n as f64).sin_cos()).map(|(s, c)| (c, s)).unzip();
        Half { n, top: n / 2, cos, sin }
    }

    fn weight(&self, p: usize) -> f64 {
        if 2 * p == self.n { 1.0 } else { 2.0 }
    }

    /// Adds `sign * e^{2 pi i k p / n}` to `h` for `p = 1..=top` (`h[p - 1]`).
    fn add(&self, h_re: &mut [f64], h_im: &mut [f64], k: usize, sign: f64) {
        let mut idx = 0;
        for (re, im) in h_re.iter_mut().zip(h_im.iter_mut()) {
            idx += k;
            if idx >= self.n {
                idx -= self.n;
            }
            *re += sign * self.cos[idx];
            *im += sign * self.sin[idx];
        }
    }

    /// `J(k)` of eq. 6.35 for the partial sums `h` (all indexes but the one being replaced).
    fn score(&self, h_re: &[f64], h_im: &[f64], k: usize, inv_m: f64) -> f64 {
        let mut idx = 0;
        let mut total = 0.0;
        for (p, (re, im)) in h_re.iter().zip(h_im).enumerate() {
            idx += k;
            if idx >= self.n {
                idx -= self.n;
            }
            let a = (re + self.cos[idx]) * inv_m;
            let b = (im + self.sin[idx]) * inv_m;
            total += self.weight(p + 1) * ((1.0 - a * a).max(FLOOR) * (1.0 - b * b).max(FLOOR)).ln();
        }
        total
    }
}

/// Algorithm 12: `m` distinct indexes in `1..n` that locally maximize `J` (eq. 6.34), from a
/// uniformly random start drawn from `seed`. `cancel` is polled before each step (return `true` to
/// stop with [`QmcError::Interrupted`]).
pub fn coordinate_ascent(
    m: usize,
    n: u64,
    options: &AscentOptions,
    seed: u64,
    cancel: Option<&(dyn Fn() -> bool + Sync)>,
) -> Result<(Vec<u64>, AscentTrace), QmcError> {
    if m == 0 {
        return Err(QmcError::invalid("m", m, ">= 1 (m = d/2)"));
    }
    if n <= m as u64 || n > 1 << 32 {
        return Err(QmcError::invalid("n", n, format!("in {}..=2^32 (m = {m} distinct indexes in 1..n)", m + 1)));
    }
    if options.max_sweeps == 0 {
        return Err(QmcError::invalid("max_sweeps", 0, ">= 1"));
    }
    if options.candidates == Some(0) {
        return Err(QmcError::invalid("candidates", 0, ">= 1, or all"));
    }
    // A sweep tries `candidates` (all `n`) indexes at each of `m` places; refuse what would run
    // for hours (measured: about 3e9 of these operations a second, e.g. d = 32000 in 2.8 s).
    let ops = options.max_sweeps as f64 * m as f64 * options.candidates.map_or(n as f64, |c| c as f64);
    if ops > crate::lattice::search::MAX_SEARCH_OPERATIONS {
        return Err(QmcError::invalid(
            "m",
            format!("{m} (d = {}; about {ops:.1e} operations)", 2 * m),
            "a coordinate ascent below 4.4e12 operations (over an hour); use frequencies subgroup or random for such d",
        ));
    }
    let nu = n as usize;
    let half = Half::new(nu);
    let mut rng = rng_from_seed(seed);
    let mut pool: Vec<usize> = (1..nu).collect();
    pool.shuffle(&mut rng);
    let mut lambda: Vec<usize> = pool[..m].to_vec();
    let mut member = vec![false; nu];
    lambda.iter().for_each(|&k| member[k] = true);
    let (mut s_re, mut s_im) = (vec![0.0; half.top], vec![0.0; half.top]);
    for &k in &lambda {
        half.add(&mut s_re, &mut s_im, k, 1.0);
    }
    let inv_m = 1.0 / m as f64;
    let value = |s_re: &[f64], s_im: &[f64]| -> f64 {
        s_re.iter()
            .zip(s_im)
            .enumerate()
            .map(|(p, (re, im))| {
                let (a, b) = (re * inv_m, im * inv_m);
                half.weight(p + 1) * ((1.0 - a * a).max(FLOOR) * (1.0 - b * b).max(FLOOR)).ln()
            })
            .sum()
    };
    let mut trace = AscentTrace { objective: vec![value(&s_re, &s_im)], changes: Vec::new(), converged: false };
    let (mut free, mut candidates): (Vec<usize>, Vec<usize>) = (Vec::with_capacity(nu), Vec::with_capacity(nu));
    for _ in 0..options.max_sweeps {
        let mut changed = 0;
        for slot in lambda.iter_mut() {
            if cancel.is_some_and(|c| c()) {
                return Err(QmcError::Interrupted);
            }
            let old = *slot;
            half.add(&mut s_re, &mut s_im, old, -1.0);
            free.clear();
            free.extend((1..nu).filter(|&k| !member[k] || k == old));
            candidates.clear();
            match options.candidates {
                Some(c) if c < free.len() => {
                    candidates.extend_from_slice(free.partial_shuffle(&mut rng, c).0);
                    if !candidates.contains(&old) {
                        candidates.push(old);
                    }
                }
                _ => candidates.extend_from_slice(&free),
            }
            let (h_re, h_im) = (&s_re, &s_im);
            let current = half.score(h_re, h_im, old, inv_m);
            let best = candidates
                .par_iter()
                .map(|&k| (half.score(h_re, h_im, k, inv_m), k))
                .reduce(|| (f64::NEG_INFINITY, usize::MAX), |a, b| if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a });
            let new = if best.0 > current { best.1 } else { old };
            if new != old {
                member[old] = false;
                member[new] = true;
                *slot = new;
                changed += 1;
            }
            half.add(&mut s_re, &mut s_im, new, 1.0);
        }
        trace.objective.push(value(&s_re, &s_im));
        trace.changes.push(changed);
        if changed == 0 {
            trace.converged = true;
            break;
        }
    }
    Ok((lambda.into_iter().map(|k| k as u64).collect(), trace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_decreases_and_matches_the_direct_objective() {
        for &(m, n, seed) in &[(4usize, 13u64, 1u64), (5, 40, 2), (8, 41, 3), (10, 64, 4)] {
            let (lambda, trace) = coordinate_ascent(m, n, &AscentOptions::default(), seed, None).unwrap();
            assert!(trace.converged, "m = {m}, n = {n}: {trace:?}");
            for w in trace.objective.windows(2) {
                assert!(w[1] >= w[0] - 1e-9 * w[0].abs().max(1.0), "J decreased: {:?}", trace.objective);
            }
            let direct = objective(&lambda, n);
            let last = *trace.objective.last().unwrap();
            assert!((direct - last).abs() < 1e-8 * direct.abs().max(1.0), "{direct} vs {last}");
            let mut sorted = lambda.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), m);
            assert!(lambda.iter().all(|&k| (1..n).contains(&k)));
        }
    }

    /// A local optimum by brute force: no single index can be replaced by any unused one for a
    /// larger `J`.
    #[test]
    fn result_is_a_coordinate_wise_optimum() {
        let (m, n) = (6usize, 31u64);
        let (lambda, _) = coordinate_ascent(m, n, &AscentOptions::default(), 9, None).unwrap();
        let base = objective(&lambda, n);
        for q in 0..m {
            for k in 1..n {
                if lambda.contains(&k) {
                    continue;
                }
                let mut other = lambda.clone();
                other[q] = k;
                assert!(objective(&other, n) <= base + 1e-9, "replacing index {q} by {k} improves J");
            }
        }
    }

    #[test]
    fn bad_options_are_errors() {
        let o = AscentOptions::default();
        assert!(coordinate_ascent(0, 10, &o, 0, None).is_err());
        assert!(coordinate_ascent(5, 5, &o, 0, None).unwrap_err().to_string().contains("n = 5"));
        assert!(coordinate_ascent(2, 10, &AscentOptions { max_sweeps: 0, candidates: None }, 0, None).is_err());
        assert!(coordinate_ascent(2, 10, &AscentOptions { max_sweeps: 3, candidates: Some(0) }, 0, None).is_err());
        assert!(matches!(coordinate_ascent(2, 10, &o, 0, Some(&|| true)).unwrap_err(), QmcError::Interrupted));
    }
}
