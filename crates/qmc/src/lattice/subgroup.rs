//! The subgroup-based generating vector (thesis Theorem 13, eq. 5.14).
//!
//! For a prime `n` with `2d | n - 1` and a primitive root `g` of `n`,
//! `z = [g^0, g^{(n-1)/(2d)}, g^{2(n-1)/(2d)}, ..., g^{(d-1)(n-1)/(2d)}] mod n`. Then `{z, -z}` is
//! the subgroup of order `2d` of the multiplicative group mod `n`, and the lattice has exactly
//! `(n-1)/(2d)` distinct pairwise toroidal distances, each taken equally often. The vector is in
//! Korobov form `(1, h, h^2, ...)` with `h = g^{(n-1)/(2d)}`; its toroidal distances do not depend
//! on which primitive root is used (another one permutes and negates the entries of `z`). We use
//! the smallest primitive root.

use crate::numtheory::{is_prime, mul_mod, pow_mod, primitive_root};
use crate::{QmcError, Rank1Lattice};

/// The first `count` primes `n >= min_n` with `2d | n - 1`: the sizes a subgroup lattice in
/// dimension `d` can have.
pub fn admissible_sizes(d: usize, min_n: u64, count: usize) -> Vec<u64> {
    let Some(step) = step_of(d) else { return Vec::new() };
    // Smallest n = 1 + k * step >= max(min_n, 3); sizes stop at u64::MAX.
    let lo = min_n.max(3);
    let Some(mut n) = lo.saturating_sub(1).div_ceil(step).checked_mul(step).and_then(|m| m.checked_add(1)) else { return Vec::new() };
    let mut out = Vec::new();
    while out.len() < count {
        if is_prime(n) {
            out.push(n);
        }
        match n.checked_add(step) {
            Some(m) => n = m,
            None => break,
        }
    }
    out
}

/// `2d` as a `u64`, if `d >= 1` and `2d` fits (a subgroup lattice needs `2d < n <= u64::MAX`).
fn step_of(d: usize) -> Option<u64> {
    if d == 0 { None } else { (d as u64).checked_mul(2) }
}

fn unsuitable(n: u64, d: usize, why: String) -> QmcError {
    let below: Vec<u64> = {
        let step = step_of(d).unwrap_or(u64::MAX);
        let mut v = Vec::new();
        let mut m = 1 + (n.saturating_sub(1) / step) * step;
        while v.len() < 2 && m > step {
            if m < n && is_prime(m) {
                v.push(m);
            }
            m -= step;
        }
        v.reverse();
        v
    };
    let above = admissible_sizes(d, n.saturating_add(1), 3);
    let suggestions = below.iter().chain(&above).map(u64::to_string).collect::<Vec<_>>().join(", ");
    QmcError::UnsuitableSize { n, d, why, suggestions }
}

/// The generating vector of eq. (5.14) for `n` points in dimension `d`.
pub fn subgroup_vector(d: usize, n: u64) -> Result<Vec<u64>, QmcError> {
    if d == 0 {
        return Err(QmcError::invalid("d", 0, ">= 1"));
    }
    if !is_prime(n) {
        return Err(unsuitable(n, d, "n is not prime".into()));
    }
    let step = match step_of(d) {
        Some(step) if step < n => step,
        _ => return Err(QmcError::invalid("d", d, format!("< (n - 1) / 2 = {} (2d must divide n - 1)", n.saturating_sub(1) / 2))),
    };
    if !(n - 1).is_multiple_of(step) {
        return Err(unsuitable(n, d, format!("2d = {step} does not divide n - 1 = {}", n - 1)));
    }
    let g = primitive_root(n).expect("n is prime");
    let h = pow_mod(g, (n - 1) / step, n);
    let mut z = Vec::with_capacity(d);
    let mut x = 1u64;
    for _ in 0..d {
        z.push(x);
        x = mul_mod(x, h, n);
    }
    Ok(z)
}

/// The subgroup rank-1 lattice (Theorem 13) with `n` points in dimension `d`, unshifted.
pub fn subgroup(d: usize, n: u64) -> Result<Rank1Lattice, QmcError> {
    Rank1Lattice::new(n, subgroup_vector(d, n)?)
}
