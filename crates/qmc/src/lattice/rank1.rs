//! A rank-1 lattice `X = {x_0, ..., x_{n-1}}`, `x_i = frac(i z / n + Delta)` (eq. 5.3, with the
//! random shift `Delta` of eq. 5.4; `Delta = 0` gives the unshifted lattice containing 0).

use gradfree_core::GfRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::QmcError;
use crate::numtheory::gcd;

/// A rank-1 lattice rule with `n` points in `[0, 1)^d`, generating vector `z` (entries in
/// `1..n-1`), and a shift. Point `i` is computed on demand in O(d): nothing is stored but `z`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rank1Lattice {
    n: u64,
    z: Vec<u64>,
    shift: Vec<f64>,
}

impl Rank1Lattice {
    /// The lattice of `n >= 2` points with generating vector `z` (entries reduced mod `n`). The `n`
    /// points must be distinct, i.e. `gcd(z_1, ..., z_d, n) = 1`; an entry `0 mod n` (a constant
    /// coordinate) is allowed but useless.
    pub fn new(n: u64, z: Vec<u64>) -> Result<Self, QmcError> {
        if n < 2 {
            return Err(QmcError::invalid("n", n, ">= 2"));
        }
        if z.is_empty() {
            return Err(QmcError::invalid("z", "[]", "at least one entry"));
        }
        let z: Vec<u64> = z.into_iter().map(|v| v % n).collect();
        let g = z.iter().fold(n, |g, &v| gcd(g, v));
        if g != 1 {
            return Err(QmcError::invalid(
                "z",
                format!("gcd(z, n) = {g}"),
                format!("gcd(z_1, ..., z_d, n) = 1, else the {n} points repeat"),
            ));
        }
        let d = z.len();
        Ok(Rank1Lattice { n, z, shift: vec![0.0; d] })
    }

    /// Number of points.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.z.len()
    }

    /// The generating vector.
    pub fn z(&self) -> &[u64] {
        &self.z
    }

    /// The shift `Delta` (zero unless set).
    pub fn shift(&self) -> &[f64] {
        &self.shift
    }

    /// Sets the shift (each entry in `[0, 1)`).
    pub fn with_shift(mut self, shift: Vec<f64>) -> Result<Self, QmcError> {
        if shift.len() != self.dim() {
            return Err(QmcError::invalid("shift", format!("length {}", shift.len()), format!("length d = {}", self.dim())));
        }
        if let Some(k) = shift.iter().position(|v| !(0.0..1.0).contains(v)) {
            return Err(QmcError::invalid("shift", format!("shift[{k}] = {}", shift[k]), "in [0, 1)"));
        }
        self.shift = shift;
        Ok(self)
    }

    /// A uniformly random shift `Delta ~ U[0, 1)^d` (eq. 5.4): every point is then marginally
    /// uniform, so the equal-weight estimate is unbiased.
    pub fn random_shift(self, rng: &mut GfRng) -> Self {
        let shift = (0..self.dim()).map(|_| rng.random::<f64>()).collect();
        Rank1Lattice { shift, ..self }
    }

    /// Writes point `i` (taken mod `n`) into `out` (length `d`).
    pub fn point_into(&self, i: u64, out: &mut [f64]) {
        let n = self.n;
        let i = i % n;
        let inv = 1.0 / n as f64;
        for ((o, &zk), &s) in out.iter_mut().zip(&self.z).zip(&self.shift) {
            let r = ((i as u128 * zk as u128) % n as u128) as f64;
            let v = r * inv + s;
            *o = if v >= 1.0 { v - 1.0 } else { v };
        }
    }

    /// Points `start..start + count` row-major into `out` (`count * d` values), computed
    /// incrementally (one addition mod n per coordinate and point).
    pub fn fill(&self, start: u64, count: usize, out: &mut [f64]) {
        let (n, d) = (self.n, self.dim());
        assert_eq!(out.len(), count * d, "out must hold count * d values");
        let inv = 1.0 / n as f64;
        // r_k = (i z_k) mod n, advanced by z_k each point.
        let mut r: Vec<u64> = self.z.iter().map(|&zk| ((start % n) as u128 * zk as u128 % n as u128) as u64).collect();
        for row in out.chunks_exact_mut(d) {
            for (((o, rk), &zk), &s) in row.iter_mut().zip(r.iter_mut()).zip(&self.z).zip(&self.shift) {
                let v = *rk as f64 * inv + s;
                *o = if v >= 1.0 { v - 1.0 } else { v };
                *rk += zk;
                if *rk >= n {
                    *rk -= n;
                }
            }
        }
    }

    /// Like [`Rank1Lattice::fill`], split over threads (rayon) in blocks of 2^14 points.
    pub fn fill_par(&self, start: u64, count: usize, out: &mut [f64]) {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 14;
        let d = self.dim();
        assert_eq!(out.len(), count * d, "out must hold count * d values");
        out.par_chunks_mut(CHUNK * d).enumerate().for_each(|(c, block)| {
            self.fill(start + (c * CHUNK) as u64, block.len() / d, block);
        });
    }

    /// All `n` points, row-major `n x d`.
    pub fn points(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.n as usize * self.dim()];
        self.fill(0, self.n as usize, &mut out);
        out
    }
}

/// A [`Rank1Lattice`] read as a stream of its `n` points (for [`crate::Sequence`] users);
/// positions past `n` are an error (a lattice rule has exactly `n` points).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatticeSequence {
    lattice: Rank1Lattice,
    index: u64,
}

impl LatticeSequence {
    /// Streams `lattice` from point 0.
    pub fn new(lattice: Rank1Lattice) -> Self {
        LatticeSequence { lattice, index: 0 }
    }

    /// The lattice.
    pub fn lattice(&self) -> &Rank1Lattice {
        &self.lattice
    }

    fn check(&self, i: u64, count: u64) -> Result<(), QmcError> {
        let n = self.lattice.n();
        match i.checked_add(count) {
            Some(end) if end <= n => Ok(()),
            _ => Err(QmcError::invalid("index", format!("{i} + {count} points"), format!("at most the lattice's n = {n} points"))),
        }
    }
}

impl crate::Sequence for LatticeSequence {
    fn dim(&self) -> usize {
        self.lattice.dim()
    }

    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError> {
        self.check(i, 1)?;
        self.lattice.point_into(i, out);
        Ok(())
    }

    fn position(&self) -> u64 {
        self.index
    }

    fn seek(&mut self, index: u64) -> Result<(), QmcError> {
        self.check(index, 0)?;
        self.index = index;
        Ok(())
    }

    fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError> {
        let d = self.dim();
        crate::sequence::check_out(out, count, d)?;
        self.check(self.index, count as u64)?;
        if count * d >= 1 << 18 {
            self.lattice.fill_par(self.index, count, out);
        } else {
            self.lattice.fill(self.index, count, out);
        }
        self.index += count as u64;
        Ok(())
    }
}
