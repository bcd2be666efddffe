//! Lattice searches of thesis sec. 4.6 (batch-BO initialization): Algorithm 10, successive
//! coordinate search (SCS), and Algorithm 11 (Algorithm 10 with SCS as inner step). All maximize
//! the minimum l2 toroidal distance `2 rho_X` (eq. 4.27-4.28) of an `N`-point rank-1 lattice
//! `x_i = mod(i b, N) / N` (eq. 4.26); `N` need not be prime.
//!
//! Algorithm 10: for each of the first `M` primes `p >= 2d + 1` and each offset `i = 0..p-1`,
//! `g_j = mod(j + i, p)` (j = 1..d-1), `g = round(N frac(|2 cos(2 pi g / p)|))`, `b = [1, g]`
//! (the box of Alg. 10 prints `2 pi g / n`; Alg. 11 and the text's Hua-Wang cyclotomic form use
//! `p`, which we follow). Candidates with an entry `0 mod N` (a constant coordinate) are skipped.
//!
//! SCS: starting from `b`, sweep the coordinates `2..d` (the first stays 1: scaling `b` by a unit
//! only permutes the points) `T` times; each coordinate is set to the value in `1..N-1` that
//! maximizes the minimum distance with the others fixed (ties keep the current value, then the
//! smallest). One coordinate costs O(N^2) with the other coordinates' contributions cached and the
//! usual early abort.
//!
//! Algorithm 11 as printed runs SCS from every Algorithm 10 candidate (about `M p` of them): at
//! d = 50, N = 3000 that is ~10^4 runs of ~10^9 operations. We run SCS (T iterations) from the
//! `top` best Algorithm 10 candidates instead (default 64, [`SearchSpec`]) and say so in the
//! result.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::korobov::{check_u64_norms, integer_min_norm};
use crate::numtheory::is_prime;
use crate::quality::Norm;
use crate::quality::toroidal::integer_distance;
use crate::{QmcError, Rank1Lattice};

/// A searched lattice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchResult {
    /// The generating (base) vector.
    pub z: Vec<u64>,
    /// Its minimum l2 toroidal distance `2 rho_X`.
    pub min_distance: f64,
    /// Candidate vectors evaluated.
    pub candidates: u64,
}

impl SearchResult {
    /// The lattice.
    pub fn lattice(&self, n: u64) -> Result<Rank1Lattice, QmcError> {
        Rank1Lattice::new(n, self.z.clone())
    }
}

fn check(d: usize, n: u64) -> Result<(), QmcError> {
    if d < 2 {
        return Err(QmcError::invalid("d", d, ">= 2"));
    }
    if n < 3 {
        return Err(QmcError::invalid("n", n, ">= 3"));
    }
    check_u64_norms(d, n)
}

fn distance(v: u64, n: u64) -> f64 {
    integer_distance(v as f64, n, Norm::L2)
}

/// The Algorithm 10 candidate for prime `p` and offset `i`.
pub fn alg10_vector(d: usize, n: u64, p: u64, i: u64) -> Vec<u64> {
    let mut b = Vec::with_capacity(d);
    b.push(1 % n);
    for j in 1..d as u64 {
        let g = (j + i) % p;
        let c = (2.0 * (2.0 * std::f64::consts::PI * g as f64 / p as f64).cos()).abs().fract();
        b.push(((n as f64 * c).round() as u64) % n);
    }
    b
}

/// The first `m` primes `>= 2d + 1`.
fn primes_from(d: usize, m: usize) -> Vec<u64> {
    (2 * d as u64 + 1..).filter(|&p| is_prime(p)).take(m).collect()
}

/// All Algorithm 10 candidates scored, best first (value, vector).
fn alg10_scored(d: usize, n: u64, m: usize, keep: usize) -> (Vec<(u64, Vec<u64>)>, u64) {
    let cands: Vec<(u64, u64)> = primes_from(d, m).into_iter().flat_map(|p| (0..p).map(move |i| (p, i))).collect();
    let total = cands.len() as u64;
    // Prune against the keep-th best so far; with keep = 1 this is the plain maximum.
    let best = AtomicU64::new(0);
    let mut scored: Vec<(u64, Vec<u64>)> = cands
        .par_iter()
        .map_init(Vec::new, |r, &(p, i)| {
            let z = alg10_vector(d, n, p, i);
            if z.contains(&0) {
                return None;
            }
            let cutoff = if keep == 1 { &best } else { &AtomicU64::new(0) };
            let v = integer_min_norm(&z, n, Norm::L2, cutoff, r)?;
            best.fetch_max(v, Ordering::Relaxed);
            Some((v, z))
        })
        .flatten()
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.truncate(keep);
    (scored, total)
}

/// The searches refuse to start beyond this many elementary operations (about an hour on two
/// cores): such a request is almost surely a typo, and it could not be interrupted.
pub const MAX_SEARCH_OPERATIONS: f64 = 4.4e12;

/// Estimated elementary operations of Algorithm 10 with `m` primes (about `m p` candidates of
/// `O(N d)` each, `p ~ 2d + m ln m`), plus, if `top > 0`, Algorithm 11's `top x iterations` SCS
/// runs of `O(d N^2)` each.
pub fn search_operations(d: usize, n: u64, m: usize, iterations: usize, top: usize) -> f64 {
    let (d, n, m) = (d as f64, n as f64, m as f64);
    m * (2.0 * d + 3.0 * m * m.ln().max(1.0)) * n * d + top as f64 * iterations as f64 * d * n * n
}

/// Estimated elementary operations of the exhaustive Korobov search (`n/2` candidates of up to
/// `O(n d)` each, about half of it saved by early aborts).
pub fn korobov_operations(d: usize, n: u64) -> f64 {
    n as f64 * n as f64 * d as f64 / 4.0
}

fn check_cost(d: usize, n: u64, ops: f64) -> Result<(), QmcError> {
    if ops > MAX_SEARCH_OPERATIONS {
        return Err(QmcError::invalid(
            "n, d",
            format!("{n}, {d} (about {ops:.1e} operations)"),
            "a search below 2^42 = 4.4e12 operations (over an hour); use a smaller n, d or number of primes",
        ));
    }
    Ok(())
}

/// The settings of the searches, with the thesis' as defaults: `primes` M = 50 (Algorithms 10 and
/// 11), `sweeps` T = 3 of successive coordinate search (Algorithm 11), and SCS from the `top` 64
/// best Algorithm 10 candidates (our bound on Algorithm 11's cost; see the module documentation).
/// Every front end reads its defaults here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSpec {
    /// Primes `M` of Algorithm 10.
    pub primes: usize,
    /// SCS sweeps `T` of Algorithm 11.
    pub sweeps: usize,
    /// Algorithm 10 candidates that Algorithm 11 refines by SCS.
    pub top: usize,
}

impl Default for SearchSpec {
    fn default() -> Self {
        SearchSpec { primes: 50, sweeps: 3, top: 64 }
    }
}

impl SearchSpec {
    /// Algorithm 10 with these settings.
    pub fn alg10(&self, d: usize, n: u64) -> Result<SearchResult, QmcError> {
        alg10(d, n, self.primes)
    }

    /// Algorithm 11 with these settings.
    pub fn alg11(&self, d: usize, n: u64) -> Result<SearchResult, QmcError> {
        alg11(d, n, self.primes, self.sweeps, self.top)
    }
}

/// Algorithm 10 with `m` primes (the thesis uses M = 50).
pub fn alg10(d: usize, n: u64, m: usize) -> Result<SearchResult, QmcError> {
    check(d, n)?;
    if m == 0 {
        return Err(QmcError::invalid("m", 0, ">= 1 primes"));
    }
    check_cost(d, n, search_operations(d, n, m, 0, 0))?;
    let (scored, total) = alg10_scored(d, n, m, 1);
    let (v, z) = scored.into_iter().next().ok_or_else(|| QmcError::invalid("n", n, "a size where some candidate has no zero entry"))?;
    Ok(SearchResult { z, min_distance: distance(v, n), candidates: total })
}

/// Successive coordinate search from `start` (`start[0]` is kept), `iterations` sweeps.
pub fn scs(n: u64, start: &[u64], iterations: usize) -> Result<SearchResult, QmcError> {
    let d = start.len();
    check(d, n)?;
    let mut z: Vec<u64> = start.iter().map(|v| v % n).collect();
    let len = (n - 1) as usize;
    // m2[c][i-1] = min(i z_c mod n, n - ...)^2; total[i-1] = sum over c.
    let sq = |i: u64, v: u64| {
        let r = ((i as u128 * v as u128) % n as u128) as u64;
        let m = r.min(n - r);
        m * m
    };
    let mut total = vec![0u64; len];
    for &zc in &z {
        for (i, t) in total.iter_mut().enumerate() {
            *t += sq(i as u64 + 1, zc);
        }
    }
    let mut evaluated = 0u64;
    for _ in 0..iterations {
        let mut changed = false;
        for zc in z.iter_mut().skip(1) {
            let old = *zc;
            let rest: Vec<u64> = total.iter().enumerate().map(|(i, t)| t - sq(i as u64 + 1, old)).collect();
            let current = rest.iter().enumerate().map(|(i, r)| r + sq(i as u64 + 1, old)).min().unwrap_or(0);
            let best = AtomicU64::new(current);
            let found = (1..n)
                .into_par_iter()
                .filter_map(|v| {
                    let mut r = 0u64;
                    let mut min = u64::MAX;
                    for rest_i in &rest {
                        r += v;
                        if r >= n {
                            r -= n;
                        }
                        let m = r.min(n - r);
                        let val = rest_i + m * m;
                        if val < best.load(Ordering::Relaxed) {
                            return None;
                        }
                        min = min.min(val);
                    }
                    best.fetch_max(min, Ordering::Relaxed);
                    Some((min, v))
                })
                .reduce_with(|a, b| if a.0 > b.0 || (a.0 == b.0 && a.1 < b.1) { a } else { b });
            evaluated += n - 1;
            if let Some((val, v)) = found
                && val > current
            {
                *zc = v;
                changed = true;
                for (i, (t, r)) in total.iter_mut().zip(&rest).enumerate() {
                    *t = r + sq(i as u64 + 1, v);
                }
            }
        }
        if !changed {
            break;
        }
    }
    let v = total.iter().copied().min().unwrap_or(0);
    Ok(SearchResult { z, min_distance: distance(v, n), candidates: evaluated })
}

/// Algorithm 11: Algorithm 10's `top` best candidates (of `m` primes), each improved by SCS with
/// `iterations` sweeps (the thesis: M = 50, T = 3); the best result.
pub fn alg11(d: usize, n: u64, m: usize, iterations: usize, top: usize) -> Result<SearchResult, QmcError> {
    check(d, n)?;
    if m == 0 || top == 0 {
        return Err(QmcError::invalid("m, top", format!("{m}, {top}"), ">= 1"));
    }
    check_cost(d, n, search_operations(d, n, m, iterations, top))?;
    let (scored, total) = alg10_scored(d, n, m, top);
    let mut best: Option<SearchResult> = None;
    let mut evaluated = total;
    for (_, z) in scored {
        let r = scs(n, &z, iterations)?;
        evaluated += r.candidates;
        if best.as_ref().is_none_or(|b| r.min_distance > b.min_distance) {
            best = Some(r);
        }
    }
    let mut r = best.ok_or_else(|| QmcError::invalid("n", n, "a size where some candidate has no zero entry"))?;
    r.candidates = evaluated;
    Ok(r)
}
