//! Toroidal distances. The `lp` toroidal distance of `x, y` in `[0, 1)^d` is
//! `|| min(|x - y|, 1 - |x - y|) ||_p` (elementwise min; eq. 5.8). For a rank-1 lattice the
//! difference of two points is again a lattice point, `x_i - x_j = x_{i-j mod n}`, so the minimum
//! pairwise distance is `min_{i = 1..n-1} ||x_i||_T` (eq. 5.9-5.11): O(n d) instead of O(n^2 d),
//! and a shift does not change it. Lattice distances are accumulated in exact integers.

use serde::{Deserialize, Serialize};

use crate::Rank1Lattice;

/// Which norm the toroidal distance uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Norm {
    /// `||.||_{T_1}`.
    L1,
    /// `||.||_{T_2}`.
    L2,
}

/// Toroidal norm of a vector of differences in `[0, 1)^d` (or any reals: taken mod 1).
pub fn toroidal_norm(diff: &[f64], norm: Norm) -> f64 {
    let wrap = |v: &f64| {
        let a = v.rem_euclid(1.0);
        a.min(1.0 - a)
    };
    match norm {
        Norm::L1 => diff.iter().map(wrap).sum(),
        Norm::L2 => diff.iter().map(wrap).map(|v| v * v).sum::<f64>().sqrt(),
    }
}

/// Calls `visit` with, for `i = 1..n-1` in order, the integer `sum_k m_k^p` with
/// `m_k = min(i z_k mod n, n - i z_k mod n)` (`p = 1` or `2`): `n^p` times the toroidal norm of
/// `x_i` (to the power `p` for `l2`). Exact; one addition mod n per coordinate. Stops as soon as
/// `visit` returns `false`. The accumulator `A` is `u128` in general and `u64` in the searches
/// (which check that `d (n/2)^2 < 2^63`); `r` is scratch.
pub(crate) fn scan_difference_norms<A>(z: &[u64], n: u64, norm: Norm, r: &mut Vec<u64>, mut visit: impl FnMut(A) -> bool)
where
    A: Copy + From<u64> + std::ops::Add<Output = A> + std::ops::Mul<Output = A>,
{
    r.clear();
    r.extend_from_slice(z);
    for _ in 1..n {
        let mut acc = A::from(0);
        for (rk, &zk) in r.iter_mut().zip(z) {
            let m = A::from((*rk).min(n - *rk));
            acc = acc + if norm == Norm::L1 { m } else { m * m };
            *rk += zk;
            if *rk >= n {
                *rk -= n;
            }
        }
        if !visit(acc) {
            return;
        }
    }
}

/// The toroidal distance whose integer norm (as [`scan_difference_norms`] computes it) is `v`.
pub(crate) fn integer_distance(v: f64, n: u64, norm: Norm) -> f64 {
    match norm {
        Norm::L1 => v / n as f64,
        Norm::L2 => v.sqrt() / n as f64,
    }
}

/// The integer norms `n^p ||x_i||^p` of all differences `x_1..x_{n-1}`, `p` = 1 (l1) or 2 (l2).
pub fn difference_norms(lattice: &Rank1Lattice, norm: Norm) -> Vec<u128> {
    let mut out = Vec::with_capacity(lattice.n() as usize - 1);
    scan_difference_norms(lattice.z(), lattice.n(), norm, &mut Vec::new(), |v: u128| {
        out.push(v);
        true
    });
    out
}

/// The number of distinct pairwise toroidal distances of a rank-1 lattice (Theorem 13: at most
/// `(n - 1)/(2d)` for a subgroup lattice), exact, O(n d + n log n).
pub fn distinct_distances(lattice: &Rank1Lattice, norm: Norm) -> usize {
    let mut v = difference_norms(lattice, norm);
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// Minimum pairwise toroidal distance of a rank-1 lattice, O(n d), exact up to the final division.
pub fn min_distance(lattice: &Rank1Lattice, norm: Norm) -> f64 {
    let mut best = u128::MAX;
    scan_difference_norms(lattice.z(), lattice.n(), norm, &mut Vec::new(), |v: u128| {
        best = best.min(v);
        true
    });
    integer_distance(best as f64, lattice.n(), norm)
}

/// [`min_distance`] that stops with [`QmcError::Interrupted`](crate::QmcError::Interrupted) soon
/// after `cancel` is set (read every 65,536 points).
pub fn min_distance_cancellable(
    lattice: &Rank1Lattice,
    norm: Norm,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<f64, crate::QmcError> {
    let (mut best, mut i) = (u128::MAX, 0u64);
    let mut stopped = false;
    scan_difference_norms(lattice.z(), lattice.n(), norm, &mut Vec::new(), |v: u128| {
        best = best.min(v);
        i += 1;
        if i.is_multiple_of(1 << 16) && cancel.load(std::sync::atomic::Ordering::Relaxed) {
            stopped = true;
            return false;
        }
        true
    });
    if stopped {
        return Err(crate::QmcError::Interrupted);
    }
    Ok(integer_distance(best as f64, lattice.n(), norm))
}

/// Packing radius `rho = min_{i != j} ||x_i - x_j||_{T_2} / 2` (eq. 5.9).
pub fn packing_radius(lattice: &Rank1Lattice) -> f64 {
    0.5 * min_distance(lattice, Norm::L2)
}

/// Minimum pairwise toroidal distance of any point set (`points` row-major, rows of length `d`),
/// by comparing all pairs: O(n^2 d). The reference for lattices, and the measure for other sets.
pub fn min_distance_brute_force(points: &[f64], d: usize, norm: Norm) -> f64 {
    let rows: Vec<&[f64]> = points.chunks_exact(d).collect();
    let mut best = f64::INFINITY;
    let mut diff = vec![0.0; d];
    for i in 0..rows.len() {
        for j in 0..i {
            for ((o, a), b) in diff.iter_mut().zip(rows[i]).zip(rows[j]) {
                *o = a - b;
            }
            best = best.min(toroidal_norm(&diff, norm));
        }
    }
    best
}
