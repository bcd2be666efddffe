//! Halton points: coordinate `j` is the radical inverse of the index in the `j`-th prime base
//! (scipy.stats.qmc.Halton's convention: point 0 is the origin). Randomization by random digit
//! permutations (Matoušek 1998 / Owen 2017's "random permutations of digits", as scipy does): for
//! every coordinate and digit position an independent uniformly random permutation of
//! `{0, ..., b-1}` is applied to that digit, over as many digits as a double resolves
//! (`ceil(53 / log2 b)`), so that the permuted trailing zeros make each point uniform.

use gradfree_core::rng_from_seed;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::{QmcError, Sequence};

/// Largest supported dimension (the 100000th prime is 1299709).
pub const HALTON_MAX_DIM: usize = 100_000;

fn first_primes(count: usize) -> Vec<u64> {
    // The k-th prime is below k (ln k + ln ln k) for k >= 6.
    let k = count.max(6) as f64;
    let limit = (k * (k.ln() + k.ln().ln())).ceil() as usize + 10;
    let mut sieve = vec![true; limit + 1];
    let mut out = Vec::with_capacity(count);
    for i in 2..=limit {
        if sieve[i] {
            out.push(i as u64);
            if out.len() == count {
                break;
            }
            for j in (i * i..=limit).step_by(i) {
                sieve[j] = false;
            }
        }
    }
    out
}

/// Digits a double resolves in base `b`.
fn digits(b: u64) -> usize {
    (53.0 / (b as f64).log2()).ceil() as usize
}

/// A (randomized) Halton sequence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Halton {
    bases: Vec<u64>,
    /// Per coordinate, per digit position, a permutation of the base's digits (empty: none).
    perms: Vec<Vec<Vec<u32>>>,
    seed: Option<u64>,
    index: u64,
}

impl Halton {
    /// The first `d` coordinates; `seed` = `Some(s)` randomizes by digit permutations.
    pub fn new(d: usize, seed: Option<u64>) -> Result<Self, QmcError> {
        if d == 0 || d > HALTON_MAX_DIM {
            return Err(QmcError::invalid("d", d, format!("in 1..={HALTON_MAX_DIM}")));
        }
        let bases = first_primes(d);
        let perms = match seed {
            None => Vec::new(),
            Some(s) => {
                let mut rng = rng_from_seed(s);
                bases
                    .iter()
                    .map(|&b| {
                        (0..digits(b))
                            .map(|_| {
                                let mut p: Vec<u32> = (0..b as u32).collect();
                                // Fisher-Yates.
                                for i in (1..p.len()).rev() {
                                    let j = rng.random_range(0..=i);
                                    p.swap(i, j);
                                }
                                p
                            })
                            .collect()
                    })
                    .collect()
            }
        };
        Ok(Halton { bases, perms, seed, index: 0 })
    }

    /// Radical inverse of `i` in base `b` with (permuted) digits, as one division of exact integers
    /// `sum_k a_k b^(K-1-k) / b^K` (correctly rounded while `b^K <= 2^53`).
    fn coordinate(&self, j: usize, i: u64) -> f64 {
        let b = u128::from(self.bases[j]);
        let (mut num, mut den) = (0u128, 1u128);
        let mut k = u128::from(i);
        if self.perms.is_empty() {
            while k > 0 {
                num = num * b + k % b;
                den *= b;
                k /= b;
            }
        } else {
            for p in &self.perms[j] {
                num = num * b + u128::from(p[(k % b) as usize]);
                den *= b;
                k /= b;
            }
        }
        let v = num as f64 / den as f64;
        // Rounding can reach 1 only when num/den is within 2^-53 of it.
        v.min(1.0 - f64::EPSILON / 2.0)
    }
}

impl Sequence for Halton {
    fn dim(&self) -> usize {
        self.bases.len()
    }

    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError> {
        for (j, o) in out[..self.dim()].iter_mut().enumerate() {
            *o = self.coordinate(j, i);
        }
        Ok(())
    }

    crate::sequence::indexed_stream!();
}
