//! Plain Monte Carlo points as a [`Sequence`]: point `i` is drawn from its own generator
//! `rng_from_seed(derive_seed(seed, i))`, so any point can be produced on demand and a stream
//! split into pieces gives the same points.

use gradfree_core::{derive_seed, rng_from_seed};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::{QmcError, Sequence};

/// i.i.d. uniform points on `[0, 1)^d`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iid {
    d: usize,
    seed: u64,
    index: u64,
}

impl Iid {
    /// `d >= 1` coordinates from `seed`.
    pub fn new(d: usize, seed: u64) -> Result<Self, QmcError> {
        if d == 0 {
            return Err(QmcError::invalid("d", 0, ">= 1"));
        }
        Ok(Iid { d, seed, index: 0 })
    }
}

impl Sequence for Iid {
    fn dim(&self) -> usize {
        self.d
    }

    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError> {
        let mut rng = rng_from_seed(derive_seed(self.seed, i));
        out[..self.d].iter_mut().for_each(|v| *v = rng.random::<f64>());
        Ok(())
    }

    crate::sequence::indexed_stream!();
}

/// A Latin hypercube sample of `n` points (McKay, Beckman & Conover 1979): in every coordinate the
/// points fall one in each of the `n` strata `[k/n, (k+1)/n)`, with independent random stratum
/// orders and uniform positions inside the strata. Row-major `n x d`.
pub fn latin_hypercube(n: usize, d: usize, seed: u64) -> Result<Vec<f64>, QmcError> {
    if n == 0 || d == 0 {
        return Err(QmcError::invalid("n, d", format!("{n}, {d}"), ">= 1"));
    }
    let mut rng = rng_from_seed(seed);
    let mut out = vec![0.0; n * d];
    let mut perm: Vec<usize> = (0..n).collect();
    for j in 0..d {
        for i in (1..n).rev() {
            let k = rng.random_range(0..=i);
            perm.swap(i, k);
        }
        for (i, &p) in perm.iter().enumerate() {
            out[i * d + j] = (p as f64 + rng.random::<f64>()) / n as f64;
        }
    }
    Ok(out)
}
