//! Exhaustive search in Korobov form (Korobov 1959; thesis Tables 4.1-4.3 and 5.1-5.2):
//! `z(a) = (1, a, a^2, ..., a^{d-1}) mod n` for every `a` in `1..n-1` whose vector has no zero
//! entry (for composite `n` this includes multipliers that are not units, as the thesis' search
//! does: Table 4.3's d = 10, n = 3000 optimum 0.5 is at a = 34), keeping the `a` whose lattice has
//! the largest minimum toroidal distance (ties: the smallest `a`).
//!
//! Cost and shortcuts (all exact):
//! - `a`, `n - a`, and for units also `a^{-1}` and `n - a^{-1}`, give the same distances (sign
//!   flips of coordinates; `a^{d-1} z(a^{-1})` is `z(a)` reversed, and scaling `z` by a unit
//!   permutes the points), so only the smallest of each orbit is evaluated: about `n/4` candidates
//!   for prime `n`;
//! - a candidate is abandoned at the first difference `x_i` shorter than the best distance found
//!   so far by any thread (it can no longer win or tie);
//! - candidates run in parallel (rayon). Worst case O(n^2 d / 4), typically far less.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::numtheory::{gcd, mul_mod};
use crate::quality::Norm;
use crate::quality::toroidal::{integer_distance, scan_difference_norms};
use crate::{QmcError, Rank1Lattice};

/// Result of [`korobov_search`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KorobovResult {
    /// The best multiplier `a`.
    pub a: u64,
    /// Its lattice.
    pub lattice: Rank1Lattice,
    /// Its minimum toroidal distance in the searched norm.
    pub min_distance: f64,
    /// Candidates evaluated (after the symmetry reduction).
    pub candidates: u64,
}

/// Inverse of `a` mod `n` (`gcd(a, n) = 1`), by the extended Euclidean algorithm.
fn inverse(a: u64, n: u64) -> u64 {
    let (mut t, mut new_t, mut r, mut new_r) = (0i128, 1i128, n as i128, a as i128);
    while new_r != 0 {
        let q = r / new_r;
        (t, new_t) = (new_t, t - q * new_t);
        (r, new_r) = (new_r, r - q * new_r);
    }
    t.rem_euclid(n as i128) as u64
}

/// The Korobov generating vector `(1, a, ..., a^{d-1}) mod n`.
pub fn korobov_vector(d: usize, n: u64, a: u64) -> Vec<u64> {
    let mut z = Vec::with_capacity(d);
    let mut x = 1 % n;
    for _ in 0..d {
        z.push(x);
        x = mul_mod(x, a, n);
    }
    z
}

/// Min over `i` of the integer norm of `x_i` (`n^p ||x_i||^p`), or `None` as soon as one
/// difference is below `cutoff` (the candidate cannot reach it). Needs [`check_u64_norms`].
pub(crate) fn integer_min_norm(z: &[u64], n: u64, norm: Norm, cutoff: &AtomicU64, r: &mut Vec<u64>) -> Option<u64> {
    let mut best = Some(u64::MAX);
    scan_difference_norms(z, n, norm, r, |acc: u64| {
        if acc < cutoff.load(Ordering::Relaxed) {
            best = None;
            return false;
        }
        best = best.map(|b| b.min(acc));
        true
    });
    best
}

/// The searches accumulate integer norms in `u64`: they need `d (n/2)^2 < 2^63`.
pub(crate) fn check_u64_norms(d: usize, n: u64) -> Result<(), QmcError> {
    // Saturating: a dimension near 2^64 would overflow even u128.
    if (d as u128).saturating_mul((n as u128 / 2 + 1).pow(2)) >= 1u128 << 63 {
        return Err(QmcError::invalid("n", n, format!("d (n/2)^2 < 2^63 for d = {d}")));
    }
    Ok(())
}

/// Exhaustive Korobov search for `n >= 3` points in dimension `d`, maximizing the minimum `norm`
/// toroidal distance. `progress(done, total)` is called from worker threads as candidates finish
/// (about 200 times in all).
pub fn korobov_search(d: usize, n: u64, norm: Norm, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<KorobovResult, QmcError> {
    korobov_search_cancellable(d, n, norm, progress, &AtomicBool::new(false))
}

/// [`korobov_search`] that stops with [`QmcError::Interrupted`] soon after `cancel` is set (it is
/// read between candidates).
pub fn korobov_search_cancellable(
    d: usize,
    n: u64,
    norm: Norm,
    progress: &(dyn Fn(u64, u64) + Sync),
    cancel: &AtomicBool,
) -> Result<KorobovResult, QmcError> {
    if d == 0 {
        return Err(QmcError::invalid("d", 0, ">= 1"));
    }
    if n < 3 {
        return Err(QmcError::invalid("n", n, ">= 3"));
    }
    check_u64_norms(d, n)?;
    QmcError::check_memory(&format!("the {n} Korobov candidates"), n as u128 / 2)?;
    let candidates: Vec<u64> = (1..n)
        .filter(|&a| {
            if a > n - a {
                return false;
            }
            if gcd(a, n) != 1 {
                return true;
            }
            let inv = inverse(a, n);
            a <= inv && a <= n - inv
        })
        .collect();
    let total = candidates.len() as u64;
    let best = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let every = (total / 200).max(1);
    let found = candidates
        .par_iter()
        .map_init(Vec::new, |r, &a| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let z = korobov_vector(d, n, a);
            // A zero entry is a constant coordinate: skipped (never better than using it).
            let v = if z.contains(&0) { None } else { integer_min_norm(&z, n, norm, &best, r) };
            if let Some(v) = v {
                best.fetch_max(v, Ordering::Relaxed);
            }
            let k = done.fetch_add(1, Ordering::Relaxed) + 1;
            if k.is_multiple_of(every) || k == total {
                progress(k, total);
            }
            v.map(|v| (v, a))
        })
        .flatten()
        // Largest value, then smallest a.
        .reduce_with(|x, y| if x.0 > y.0 || (x.0 == y.0 && x.1 < y.1) { x } else { y });
    if cancel.load(Ordering::Relaxed) {
        return Err(QmcError::Interrupted);
    }
    let Some((v, a)) = found else {
        return Err(QmcError::invalid(
            "n",
            n,
            format!("a size with some multiplier a whose z = (1, a, ..., a^{}) mod n has no zero entry", d - 1),
        ));
    };
    let lattice = Rank1Lattice::new(n, korobov_vector(d, n, a))?;
    let min_distance = integer_distance(v as f64, n, norm);
    Ok(KorobovResult { a, lattice, min_distance, candidates: total })
}

#[cfg(test)]
mod tests {
    /// Sizes whose norms cannot be summed in `u64` are refused, up to the largest dimension and
    /// point count (where the product itself would overflow `u128`).
    #[test]
    fn oversized_norm_sums_are_refused() {
        assert!(super::check_u64_norms(3, 1 << 20).is_ok());
        assert!(super::check_u64_norms(2, u64::MAX).is_err());
        assert!(super::check_u64_norms(usize::MAX, u64::MAX).is_err());
        assert!(super::check_u64_norms(1 << 63, 3).is_err());
    }
}
