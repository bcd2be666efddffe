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

/// For `i = 1..n-1`, the integer `sum_k m_k^p` with `m_k = min(i z_k mod n, n - i z_k mod n)`
/// (`p = 1` or `2`): `n^p` times the toroidal norm of `x_i` (to the power `p` for `l2`). Exact.
pub fn difference_norms(lattice: &Rank1Lattice, norm: Norm) -> Vec<u128> {
    let n = lattice.n();
    let z = lattice.z();
    let mut r: Vec<u64> = z.to_vec();
    let mut out = Vec::with_capacity(n as usize - 1);
    for _ in 1..n {
        let mut acc: u128 = 0;
        for (rk, &zk) in r.iter_mut().zip(z) {
            let m = (*rk).min(n - *rk) as u128;
            acc += if norm == Norm::L1 { m } else { m * m };
            *rk += zk;
            if *rk >= n {
                *rk -= n;
            }
        }
        out.push(acc);
    }
    out
}

/// Minimum pairwise toroidal distance of a rank-1 lattice, O(n d), exact up to the final division.
pub fn min_distance(lattice: &Rank1Lattice, norm: Norm) -> f64 {
    let n = lattice.n();
    let z = lattice.z();
    let mut r: Vec<u64> = z.to_vec();
    let mut best = u128::MAX;
    for _ in 1..n {
        let mut acc: u128 = 0;
        for (rk, &zk) in r.iter_mut().zip(z) {
            let m = (*rk).min(n - *rk) as u128;
            acc += if norm == Norm::L1 { m } else { m * m };
            *rk += zk;
            if *rk >= n {
                *rk -= n;
            }
        }
        best = best.min(acc);
    }
    match norm {
        Norm::L1 => best as f64 / n as f64,
        Norm::L2 => (best as f64).sqrt() / n as f64,
    }
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
