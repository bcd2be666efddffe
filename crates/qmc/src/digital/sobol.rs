//! Sobol sequences with the Joe–Kuo direction numbers (`new-joe-kuo-6.21201`, up to 21201
//! dimensions; see `crates/qmc/data/README.md` for the data and its licence), in 32-bit digits,
//! generated in Gray-code order as scipy and Joe–Kuo do (point 0 is the origin, unscrambled).
//!
//! Randomizations ([`Scramble`]):
//! - **linear matrix scrambling + digital shift** (Matoušek 1998; scipy's default): each
//!   coordinate's digit vector is multiplied by a random lower-triangular binary matrix with unit
//!   diagonal (output digit `p` depends on input digits `1..p`, most significant first), then XORed
//!   with a random shift. Applied to the direction numbers once, so generation costs the same as
//!   unscrambled. Keeps the (t, m, s)-net structure; every point is uniform on `[0, 1)^d`;
//! - **Owen's nested uniform scrambling**: digit `p` of a coordinate is flipped by a random bit
//!   that depends on the coordinate, `p` and the `p - 1` digits above it, i.e. an independent random
//!   permutation at every node of the base-2 digit tree, for all 32 digits. The random bits come from
//!   SplitMix64 finalization of (seed, coordinate, depth, prefix), so point `i` is computed on demand
//!   without storing the tree.

use std::sync::OnceLock;

use gradfree_core::{derive_seed, rng_from_seed};
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{QmcError, Sequence};

/// Largest dimension the shipped direction numbers support.
pub const SOBOL_MAX_DIM: usize = 21201;

const DATA: &str = include_str!("../../data/new-joe-kuo-6.21201");
const BITS: u32 = 32;

/// Randomization of a [`Sobol`] sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Scramble {
    /// The deterministic sequence.
    None,
    /// Linear matrix scrambling and a digital shift.
    LmsShift {
        /// Seed of the matrices and shifts.
        seed: u64,
    },
    /// Owen's nested uniform scrambling.
    Owen {
        /// Seed of the permutation tree.
        seed: u64,
    },
}

/// Per dimension: degree `s`, inner coefficients `a`, initial `m_1..m_s` (dimension 1 has s = 0).
fn rows() -> &'static [(u32, u32, Vec<u32>)] {
    static ROWS: OnceLock<Vec<(u32, u32, Vec<u32>)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut v = vec![(0, 0, Vec::new())];
        for line in DATA.lines().skip(1) {
            let nums: Vec<u32> = line.split_ascii_whitespace().map(|t| t.parse().expect("shipped data is numeric")).collect();
            v.push((nums[1], nums[2], nums[3..].to_vec()));
        }
        debug_assert_eq!(v.len(), SOBOL_MAX_DIM);
        v
    })
}

/// The 32 direction numbers `V_k = m_k 2^(32-k)` (k = 1..32) of dimension `j` (0-based), from the
/// recursion `m_k = 2 a_1 m_{k-1} ^ 4 a_2 m_{k-2} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}`.
fn directions(j: usize) -> [u32; BITS as usize] {
    let (s, a, init) = &rows()[j];
    let s = *s as usize;
    let mut m = [0u64; BITS as usize];
    for k in 0..BITS as usize {
        m[k] = if s == 0 {
            1
        } else if k < s {
            u64::from(init[k])
        } else {
            let mut v = m[k - s] ^ (m[k - s] << s);
            for i in 1..s {
                if (a >> (s - 1 - i)) & 1 == 1 {
                    v ^= m[k - i] << i;
                }
            }
            v
        };
    }
    let mut out = [0u32; BITS as usize];
    for k in 0..BITS as usize {
        out[k] = (m[k] << (BITS as usize - 1 - k)) as u32;
    }
    out
}

/// `x / 2^32` exactly, by placing the 32 bits in the mantissa of a double in [1, 2) (vectorizes,
/// unlike an unsigned-to-float conversion).
#[inline(always)]
fn unit(x: u32) -> f64 {
    f64::from_bits(0x3FF0_0000_0000_0000 | (u64::from(x) << 20)) - 1.0
}

/// `d x 32` to `32 x d`.
fn transpose(v: &[u32], d: usize) -> Vec<u32> {
    let mut t = vec![0u32; v.len()];
    for j in 0..d {
        for k in 0..BITS as usize {
            t[k * d + j] = v[j * BITS as usize + k];
        }
    }
    t
}

/// `y = M x` over GF(2) for the lower-triangular (MSB-first) matrix with rows `rows`.
fn matvec(rows: &[u32; BITS as usize], x: u32) -> u32 {
    let mut y = 0u32;
    for (p, r) in rows.iter().enumerate() {
        y |= ((r & x).count_ones() & 1) << (BITS as usize - 1 - p);
    }
    y
}

/// Owen scrambling of the 32 digits of `x` with the tree of `seed`.
fn owen(x: u32, seed: u64) -> u32 {
    let mut y = x;
    for p in 0..BITS {
        let prefix = if p == 0 { 0 } else { u64::from(x >> (BITS - p)) };
        let key = (u64::from(p) << 32) | prefix;
        y ^= ((derive_seed(seed, key) >> 63) as u32) << (BITS - 1 - p);
    }
    y
}

/// A Sobol sequence in `d <= 21201` dimensions, at most `2^32` points.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sobol {
    d: usize,
    scramble: Scramble,
    /// Direction numbers (scrambled for LMS), `d x 32`.
    v: Vec<u32>,
    /// The same, digit-major (`32 x d`): the Gray-code update reads one contiguous row.
    #[serde(skip)]
    vt: Vec<u32>,
    /// Digital shift (LMS) or zeros.
    shift: Vec<u32>,
    /// Owen tree seeds per coordinate (Owen) or empty.
    owen: Vec<u64>,
    /// Integer state of point `index` (unshifted, unscrambled by Owen).
    x: Vec<u32>,
    index: u64,
}

/// Equality of the sequence and its position (the digit-major copy is derived data).
impl PartialEq for Sobol {
    fn eq(&self, o: &Self) -> bool {
        (self.d, self.scramble, &self.v, &self.shift, &self.owen, &self.x, self.index)
            == (o.d, o.scramble, &o.v, &o.shift, &o.owen, &o.x, o.index)
    }
}

impl Sobol {
    /// The first `d` coordinates of the Sobol sequence, randomized by `scramble`.
    pub fn new(d: usize, scramble: Scramble) -> Result<Self, QmcError> {
        if d == 0 || d > SOBOL_MAX_DIM {
            return Err(QmcError::invalid("d", d, format!("in 1..={SOBOL_MAX_DIM} (the Joe-Kuo direction numbers)")));
        }
        let mut v = Vec::with_capacity(d * BITS as usize);
        for j in 0..d {
            v.extend_from_slice(&directions(j));
        }
        let mut shift = vec![0u32; d];
        let mut owen_seeds = Vec::new();
        match scramble {
            Scramble::None => {}
            Scramble::LmsShift { seed } => {
                let mut rng = rng_from_seed(seed);
                for j in 0..d {
                    let mut rows = [0u32; BITS as usize];
                    for (p, r) in rows.iter_mut().enumerate() {
                        let diag = 1u32 << (BITS as usize - 1 - p);
                        // Random bits strictly above the diagonal bit (more significant digits).
                        let above = if p == 0 { 0 } else { !((diag << 1).wrapping_sub(1)) };
                        *r = diag | (rng.random::<u32>() & above);
                    }
                    for vk in &mut v[j * BITS as usize..(j + 1) * BITS as usize] {
                        *vk = matvec(&rows, *vk);
                    }
                    shift[j] = rng.random::<u32>();
                }
            }
            Scramble::Owen { seed } => owen_seeds = (0..d as u64).map(|j| derive_seed(seed, j)).collect(),
        }
        let vt = transpose(&v, d);
        Ok(Sobol { d, scramble, v, vt, shift, owen: owen_seeds, x: vec![0; d], index: 0 })
    }

    /// The randomization in use.
    pub fn scramble(&self) -> Scramble {
        self.scramble
    }

    fn check_index(i: u64, count: u64) -> Result<(), QmcError> {
        match i.checked_add(count) {
            Some(end) if end <= 1u64 << BITS => Ok(()),
            _ => Err(QmcError::invalid("index", format!("{i} + {count} points"), "at most 2^32 points")),
        }
    }

    /// Recomputes the stream state `x` for the current `index` (the last point's state at the end).
    fn resync(&mut self) {
        let mut x = std::mem::take(&mut self.x);
        self.state_at(self.index.min((1 << BITS) - 1), &mut x);
        self.x = x;
    }

    /// Integer state of point `i`: XOR of the direction numbers selected by the Gray code of `i`.
    fn state_at(&self, i: u64, x: &mut [u32]) {
        let g = (i ^ (i >> 1)) as u32;
        for (j, xj) in x.iter_mut().enumerate() {
            let v = &self.v[j * BITS as usize..(j + 1) * BITS as usize];
            let mut acc = 0u32;
            let mut bits = g;
            while bits != 0 {
                let k = bits.trailing_zeros();
                acc ^= v[k as usize];
                bits &= bits - 1;
            }
            *xj = acc;
        }
    }

    #[inline]
    fn emit(&self, x: &[u32], out: &mut [f64]) {
        if self.owen.is_empty() {
            for ((o, &xj), &s) in out.iter_mut().zip(x).zip(&self.shift) {
                *o = unit(xj ^ s);
            }
        } else {
            for ((o, &xj), &seed) in out.iter_mut().zip(x).zip(&self.owen) {
                *o = unit(owen(xj, seed));
            }
        }
    }

    /// Points `start..start + rows` from a known state `x` of point `start`.
    fn run(&mut self, start: u64, x: &mut [u32], out: &mut [f64]) {
        if self.vt.len() != self.v.len() {
            // Deserialized: rebuild the digit-major copy.
            self.vt = transpose(&self.v, self.d);
        }
        self.run_ref(start, x, out);
    }

    fn run_ref(&self, start: u64, x: &mut [u32], out: &mut [f64]) {
        let d = self.d;
        for (r, row) in out.chunks_exact_mut(d).enumerate() {
            self.emit(x, row);
            let k = (start + r as u64 + 1).trailing_zeros() as usize;
            if k < BITS as usize {
                for (xj, vj) in x.iter_mut().zip(&self.vt[k * d..(k + 1) * d]) {
                    *xj ^= vj;
                }
            }
        }
    }
}

impl Sequence for Sobol {
    fn dim(&self) -> usize {
        self.d
    }

    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError> {
        Self::check_index(i, 1)?;
        let mut x = vec![0u32; self.d];
        self.state_at(i, &mut x);
        self.emit(&x, &mut out[..self.d]);
        Ok(())
    }

    fn position(&self) -> u64 {
        self.index
    }

    fn seek(&mut self, index: u64) -> Result<(), QmcError> {
        Self::check_index(index, 0)?;
        self.index = index;
        self.resync();
        Ok(())
    }

    fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError> {
        let d = self.d;
        crate::sequence::check_out(out, count, d)?;
        Self::check_index(self.index, count as u64)?;
        let start = self.index;
        // Large requests: independent chunks in parallel, each from its own starting state.
        const CHUNK: usize = 1 << 14;
        if self.vt.len() != self.v.len() {
            self.vt = transpose(&self.v, d);
        }
        if count * d >= 1 << 18 {
            let this = &*self;
            out.par_chunks_mut(CHUNK * d).enumerate().for_each_init(
                || vec![0u32; d],
                |x, (c, block)| {
                    let s = start + (c * CHUNK) as u64;
                    this.state_at(s, x);
                    this.run_ref(s, x, block);
                },
            );
        } else {
            let mut x = std::mem::take(&mut self.x);
            self.run(start, &mut x, out);
            self.x = x;
        }
        self.index = start + count as u64;
        if count * d >= 1 << 18 {
            // The parallel blocks did not advance the stream's own state.
            self.resync();
        }
        Ok(())
    }
}
