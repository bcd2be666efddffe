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

/// Most digit-permutation entries a scrambled sequence builds (2^30: 4 GiB, a few seconds).
const PERMUTATION_ENTRIES_MAX: u128 = 1 << 30;

/// Largest dimension of a scrambled Halton sequence: its permutations' entries
/// `sum_j b_j ceil(53 / log2 b_j)` stay within 2^30 up to d = 7458.
pub const HALTON_SCRAMBLED_MAX_DIM: usize = 7458;

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
                // The permutations cost what they hold: sum_j b_j ceil(53 / log2 b_j) entries,
                // which grows like d^2 log d (3.5e8 at d = 4000, 8.3e9 at d = 20000); refused
                // past PERMUTATION_ENTRIES_MAX, and checked against the memory available.
                let entries: u128 = bases.iter().map(|&b| u128::from(b) * digits(b) as u128).sum();
                let bytes = entries * 4 + bases.iter().map(|&b| digits(b) as u128 * 24).sum::<u128>();
                if entries > PERMUTATION_ENTRIES_MAX {
                    return Err(QmcError::invalid(
                        "d",
                        d,
                        format!(
                            "at most {HALTON_SCRAMBLED_MAX_DIM} for a scrambled Halton sequence: its random digit permutations would hold {entries:.2e} entries ({}; the limit is 2^30), so use fewer dimensions, Sobol points, or no scrambling",
                            gradfree_core::memory::human_bytes(bytes)
                        ),
                    ));
                }
                gradfree_core::memory::check_param_bytes(
                    "d",
                    d,
                    &format!("the digit permutations of a scrambled {d}-d Halton sequence"),
                    bytes,
                )?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrambled_dimensions_are_refused_by_their_cost_before_anything_is_built() {
        // The limit is where the permutations' entries pass 2^30.
        let entries = |d: usize| -> u128 { first_primes(d).iter().map(|&b| u128::from(b) * digits(b) as u128).sum() };
        assert!(entries(HALTON_SCRAMBLED_MAX_DIM) <= PERMUTATION_ENTRIES_MAX);
        assert!(entries(HALTON_SCRAMBLED_MAX_DIM + 1) > PERMUTATION_ENTRIES_MAX);
        // Refused at once (a d of 20000 would need 8.3e9 entries), naming d and the limit.
        let started = std::time::Instant::now();
        for d in [HALTON_SCRAMBLED_MAX_DIM + 1, 20_000, HALTON_MAX_DIM] {
            let e = Halton::new(d, Some(1)).unwrap_err().to_string();
            assert!(e.contains(&format!("at most {HALTON_SCRAMBLED_MAX_DIM}")) && e.contains("GiB"), "{e}");
        }
        assert!(started.elapsed().as_secs_f64() < 1.0, "refusing took {:?}", started.elapsed());
        // Without scrambling there are no permutations: any d up to the table's.
        assert_eq!(Halton::new(HALTON_MAX_DIM, None).unwrap().dim(), HALTON_MAX_DIM);
    }
}
