//! Hua–Wang's cyclotomic-field lattice (Hua & Wang 1981, "Applications of number theory to
//! numerical analysis", ch. 4; thesis ref. [78]).
//!
//! What we implement: with `p` the smallest prime `>= 2d + 3`, the real cyclotomic field
//! `Q(cos 2 pi / p)` gives the "good point" `gamma_j = frac(2 cos(2 pi j / p))`, j = 1..d, and the
//! rank-1 lattice with `n` points uses `z_j = round(n gamma_j) mod n`. The thesis does not say
//! which `p` or rounding its "Hua" rows used; this choice reproduces Table 5.1/5.2's d = 500,
//! n = 3001 entry (l1 108.33, l2 5.9216) but not the others (see `gradfree reproduce
//! lattice-distances`). `frac(2 cos(2 pi / p))` is close to 1, so for many `n` the first entries
//! round to `n`, i.e. `0 mod n`: a constant coordinate. We keep such entries: the thesis' Hua rows
//! evidently did too (its d = 500 values, constant in `n`, are matched only that way).

use crate::numtheory::{gcd, is_prime};
use crate::{QmcError, Rank1Lattice};

/// The prime `p` of the construction for dimension `d`.
pub fn hua_prime(d: usize) -> u64 {
    (2 * d as u64 + 3..).find(|&p| is_prime(p)).expect("primes are unbounded")
}

/// Hua–Wang's lattice with `n >= 2` points in dimension `d >= 1`.
pub fn hua(d: usize, n: u64) -> Result<Rank1Lattice, QmcError> {
    if d == 0 {
        return Err(QmcError::invalid("d", 0, ">= 1"));
    }
    if n < 2 {
        return Err(QmcError::invalid("n", n, ">= 2"));
    }
    let p = hua_prime(d);
    let z: Vec<u64> = (1..=d as u64)
        .map(|j| {
            let g = (2.0 * (2.0 * std::f64::consts::PI * j as f64 / p as f64).cos()).rem_euclid(1.0);
            ((n as f64 * g).round() as u64) % n
        })
        .collect();
    // A composite n can share a factor with every z_j; the lattice would then repeat its points.
    let g = z.iter().fold(n, |g, &v| gcd(g, v));
    if g != 1 {
        let next = (n + 1..).find(|&q| is_prime(q)).expect("primes are unbounded");
        return Err(QmcError::invalid(
            "n",
            n,
            format!(
                "an n coprime to its Hua-Wang generating vector (here gcd(z_1, ..., z_d, n) = {g}, so the points would repeat); a prime n always is, e.g. {next}"
            ),
        ));
    }
    Rank1Lattice::new(n, z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_composite_n_sharing_a_factor_with_z_names_n() {
        let err = hua(1, 4).unwrap_err().to_string();
        assert!(err.contains('4') && err.contains("gcd") && err.contains("e.g. 5"), "{err}");
        assert!(hua(1, 5).is_ok());
    }
}
