//! Sobol sequences with the Joe–Kuo direction numbers (`new-joe-kuo-6.21201`, up to 21201
//! dimensions; see `crates/qmc/data/README.md` for the data and its licence), generated in
//! Gray-code order as scipy and Joe–Kuo do (point 0 is the origin, unscrambled), with 1 to 64
//! bits as scipy's `bits`: up to 32 bits the generator runs on 32 digits (and rounds the output
//! down to `bits` digits), above on 64. The first 32 digits of a 64-bit point are the 32-bit
//! point, for both scramblings: a finer generator refines the coarser one's points.
//!
//! Randomizations ([`Scramble`]):
//! - **linear matrix scrambling + digital shift** (Matoušek 1998; scipy's default): each
//!   coordinate's digit vector is multiplied by a random lower-triangular binary matrix with unit
//!   diagonal (output digit `p` depends on input digits `1..p`, most significant first), then XORed
//!   with a random shift. Applied to the direction numbers once, so generation costs the same as
//!   unscrambled. Keeps the (t, m, s)-net structure; every point is uniform on `[0, 1)^d`;
//! - **Owen's nested uniform scrambling**: digit `p` of a coordinate is flipped by a random bit
//!   that depends on the coordinate, `p` and the `p - 1` digits above it, i.e. an independent random
//!   permutation at every node of the base-2 digit tree, for every digit. The random bits come from
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

/// Largest number of bits ([`Sobol::with_bits`]), as scipy's `Sobol(bits=...)`.
pub const SOBOL_MAX_BITS: u32 = 64;

const DATA: &str = include_str!("../../data/new-joe-kuo-6.21201");

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

/// The first `depth` (32 or 64) direction numbers `V_k = m_k 2^(64-k)` (k = 1..depth, digits
/// most significant first in a `u64`) of dimension `j` (0-based), from the recursion
/// `m_k = 2 a_1 m_{k-1} ^ 4 a_2 m_{k-2} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}` (`m_k < 2^k`).
fn directions(j: usize, depth: usize, out: &mut Vec<u64>) {
    let (s, a, init) = &rows()[j];
    let s = *s as usize;
    let mut m = [0u64; 64];
    for k in 0..depth {
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
    out.extend((0..depth).map(|k| m[k] << (63 - k)));
}

/// `x / 2^64` for `x` with at most 32 significant digits, exactly, by placing them in the
/// mantissa of a double in [1, 2) (vectorizes, unlike an unsigned-to-float conversion).
#[inline(always)]
fn unit32(x: u64) -> f64 {
    f64::from_bits(0x3FF0_0000_0000_0000 | ((x >> 32) << 20)) - 1.0
}

/// `x / 2^64` rounded down to a multiple of `2^-53`: in [0, 1) even for `x` near `2^64`, where
/// rounding to nearest (scipy's `uint64 -> double`) can give 1.0.
#[inline(always)]
fn unit64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `d x depth` to `depth x d`.
fn transpose(v: &[u64], d: usize) -> Vec<u64> {
    let depth = v.len() / d.max(1);
    let mut t = vec![0u64; v.len()];
    for j in 0..d {
        for k in 0..depth {
            t[k * d + j] = v[j * depth + k];
        }
    }
    t
}

/// `y = M x` over GF(2) for the lower-triangular (MSB-first) matrix with rows `rows`.
fn matvec(rows: &[u64], x: u64) -> u64 {
    let mut y = 0u64;
    for (p, r) in rows.iter().enumerate() {
        y |= u64::from((r & x).count_ones() & 1) << (63 - p);
    }
    y
}

/// Digits per hash in [`owen`]: one 64-bit hash holds the `2^6 - 1 = 63` flip bits of a subtree
/// six digits deep.
const OWEN_BLOCK: u32 = 6;

/// Owen scrambling of the first `depth` digits of `x` with the tree of `seed`. Digit `p` is
/// flipped by an independent random bit per node `(p, digits 1..p)` of the digit tree. The nodes
/// come in subtrees six digits deep: the subtree of block `b` (digits `6b + 1 ..= 6b + 6`) below
/// the prefix `digits 1..6b` draws one 64-bit hash of `(6b, prefix)`, and its node at depth `j`
/// with in-block digits `t` takes bit `2^j - 1 + t` of it: 6 hashes for 32 digits instead of 32,
/// the same distribution. Blocks do not depend on `depth`, so the first 32 digits of a 64-bit
/// point are the 32-bit point.
fn owen(x: u64, seed: u64, depth: u32) -> u64 {
    let mut y = x;
    let mut b = 0;
    while b * OWEN_BLOCK < depth {
        let top = b * OWEN_BLOCK;
        let prefix = if top == 0 { 0 } else { x >> (64 - top) };
        // The marker bit above the prefix makes the key one-to-one in (block, prefix).
        let h = derive_seed(seed, prefix | (1 << top));
        // The block's digits, most significant first, as an integer `t` of `OWEN_BLOCK` bits.
        let digits = (x << top) >> (64 - OWEN_BLOCK);
        // The block's flips, most significant first (a fixed-length loop the compiler unrolls).
        let mut flip = 0u64;
        for j in 0..OWEN_BLOCK {
            let node = (1u64 << j) - 1 + (digits >> (OWEN_BLOCK - j));
            flip |= ((h >> node) & 1) << (OWEN_BLOCK - 1 - j);
        }
        // Digits past `depth` (the last block of a 32-digit tree) stay unflipped.
        let keep = OWEN_BLOCK.min(depth - top);
        flip &= !((1u64 << (OWEN_BLOCK - keep)) - 1);
        // Digit `top + 1` is bit `63 - top`; the last block of 64 digits ends 2 bits short.
        y ^= if top + OWEN_BLOCK <= 64 { flip << (64 - OWEN_BLOCK - top) } else { flip >> (top + OWEN_BLOCK - 64) };
        b += 1;
    }
    y
}

/// Digits the generator runs on for `bits` output digits: 32 up to 32 bits, 64 above.
fn depth_for(bits: u32) -> usize {
    if bits <= 32 { 32 } else { 64 }
}

/// A Sobol sequence in `d <= 21201` dimensions with `bits` digits: at most `2^bits` points, each
/// a multiple of `2^-bits` (of `2^-53` above 53 bits). A serialized sequence is checked when it
/// is read back (`SobolForm`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "SobolForm")]
pub struct Sobol {
    d: usize,
    scramble: Scramble,
    /// Output digits, 1..=64.
    bits: u32,
    /// Direction numbers (scrambled for LMS), `d x depth`, digits from the most significant bit
    /// (`depth` = 32 up to 32 bits, 64 above).
    v64: Vec<u64>,
    /// The same, digit-major (`depth x d`): the Gray-code update reads one contiguous row.
    #[serde(skip)]
    vt: Vec<u64>,
    /// Digital shift (LMS) or zeros.
    shift64: Vec<u64>,
    /// Owen tree seeds per coordinate (Owen) or empty.
    owen: Vec<u64>,
    /// Integer state of point `index` (unshifted, unscrambled by Owen).
    x64: Vec<u64>,
    index: u64,
}

/// The serialized form of [`Sobol`], read back only through [`Sobol::try_from`]: the direction
/// numbers, shift and Owen seeds must be those `Sobol::with_bits(d, scramble, bits)` builds, the
/// position at most `2^bits`, and the stream state that of the position.
#[derive(Deserialize)]
pub struct SobolForm {
    d: usize,
    scramble: Scramble,
    bits: u32,
    v64: Vec<u64>,
    shift64: Vec<u64>,
    owen: Vec<u64>,
    x64: Vec<u64>,
    index: u64,
}

impl TryFrom<SobolForm> for Sobol {
    type Error = QmcError;

    fn try_from(f: SobolForm) -> Result<Self, QmcError> {
        let mut s = Sobol::with_bits(f.d, f.scramble, f.bits)?;
        if f.v64 != s.v64 || f.shift64 != s.shift64 || f.owen != s.owen {
            return Err(QmcError::invalid(
                "Sobol state",
                "direction numbers, shift or Owen seeds",
                "those of Sobol::with_bits(d, scramble, bits)",
            ));
        }
        s.check_index(f.index, 0)?;
        if f.x64.len() != f.d {
            return Err(QmcError::invalid("Sobol state", format!("{} state words", f.x64.len()), format!("d = {}", f.d)));
        }
        // At the end of the sequence the state is never read (no point can be drawn).
        if f.index < s.len() {
            let mut expected = vec![0u64; f.d];
            s.state_at(f.index, &mut expected);
            if expected != f.x64 {
                return Err(QmcError::invalid("Sobol state", format!("state words at index {}", f.index), "those of the index"));
            }
        }
        s.x64 = f.x64;
        s.index = f.index;
        Ok(s)
    }
}

/// Equality of the sequence and its position (the digit-major copy is derived data).
impl PartialEq for Sobol {
    fn eq(&self, o: &Self) -> bool {
        (self.d, self.scramble, self.bits, &self.v64, &self.shift64, &self.owen, &self.x64, self.index)
            == (o.d, o.scramble, o.bits, &o.v64, &o.shift64, &o.owen, &o.x64, o.index)
    }
}

impl Sobol {
    /// The first `d` coordinates of the 32-bit Sobol sequence, randomized by `scramble`.
    pub fn new(d: usize, scramble: Scramble) -> Result<Self, QmcError> {
        Self::with_bits(d, scramble, 32)
    }

    /// The first `d` coordinates of the `bits`-bit Sobol sequence (`bits` in 1..=64, scipy's
    /// `bits`), randomized by `scramble`. Up to 32 bits the points are the 32-bit points rounded
    /// down to `bits` digits (for both scramblings output digit `k` depends only on input digits
    /// `1..k`, so this is the `bits`-bit scrambling); above 32 the generator runs on 64 digits,
    /// whose first 32 are the 32-bit points, and the output keeps `bits` digits, rounded down to
    /// a double's 53 above 53.
    pub fn with_bits(d: usize, scramble: Scramble, bits: u32) -> Result<Self, QmcError> {
        if d == 0 || d > SOBOL_MAX_DIM {
            return Err(QmcError::invalid("d", d, format!("in 1..={SOBOL_MAX_DIM} (the Joe-Kuo direction numbers)")));
        }
        if !(1..=SOBOL_MAX_BITS).contains(&bits) {
            return Err(QmcError::invalid("bits", bits, format!("in 1..={SOBOL_MAX_BITS}")));
        }
        let depth = depth_for(bits);
        let mut v = Vec::with_capacity(d * depth);
        for j in 0..d {
            directions(j, depth, &mut v);
        }
        let mut shift = vec![0u64; d];
        let mut owen_seeds = Vec::new();
        match scramble {
            Scramble::None => {}
            Scramble::LmsShift { seed } => {
                // The first 32 rows and digits of the shift come from the same stream for every
                // depth; the digits below from a second one.
                let mut rng = rng_from_seed(seed);
                let mut low = rng_from_seed(derive_seed(seed, u64::from(u32::MAX) + 1));
                let mut rows = vec![0u64; depth];
                for j in 0..d {
                    for (p, r) in rows.iter_mut().enumerate() {
                        let diag = 1u64 << (63 - p);
                        // Random bits strictly above the diagonal bit (more significant digits).
                        let above = if p == 0 { 0 } else { !((diag << 1).wrapping_sub(1)) };
                        let bits = if p < 32 { u64::from(rng.random::<u32>()) << 32 } else { low.random::<u64>() };
                        *r = diag | (bits & above);
                    }
                    for vk in &mut v[j * depth..(j + 1) * depth] {
                        *vk = matvec(&rows, *vk);
                    }
                    shift[j] = u64::from(rng.random::<u32>()) << 32;
                    if depth > 32 {
                        shift[j] |= u64::from(low.random::<u32>());
                    }
                }
            }
            Scramble::Owen { seed } => owen_seeds = (0..d as u64).map(|j| derive_seed(seed, j)).collect(),
        }
        let vt = transpose(&v, d);
        Ok(Sobol { d, scramble, bits, v64: v, vt, shift64: shift, owen: owen_seeds, x64: vec![0; d], index: 0 })
    }

    /// The randomization in use.
    pub fn scramble(&self) -> Scramble {
        self.scramble
    }

    /// Output digits (scipy's `bits`).
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Number of points, `2^bits` (`u64::MAX` for 64 bits: the last index is not reachable).
    pub fn len(&self) -> u64 {
        if self.bits >= 64 { u64::MAX } else { 1 << self.bits }
    }

    /// Never: a sequence has at least 2 points.
    pub fn is_empty(&self) -> bool {
        false
    }

    fn depth(&self) -> usize {
        depth_for(self.bits)
    }

    fn check_index(&self, i: u64, count: u64) -> Result<(), QmcError> {
        match i.checked_add(count) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(QmcError::invalid("index", format!("{i} + {count} points"), format!("at most 2^{} points", self.bits))),
        }
    }

    /// Recomputes the stream state `x` for the current `index` (the last point's state at the end).
    fn resync(&mut self) {
        let mut x = std::mem::take(&mut self.x64);
        self.state_at(self.index.min(self.len() - 1), &mut x);
        self.x64 = x;
    }

    /// Integer state of point `i`: XOR of the direction numbers selected by the Gray code of `i`.
    fn state_at(&self, i: u64, x: &mut [u64]) {
        let depth = self.depth();
        let g = i ^ (i >> 1);
        for (j, xj) in x.iter_mut().enumerate() {
            let v = &self.v64[j * depth..(j + 1) * depth];
            let mut acc = 0u64;
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
    fn emit(&self, x: &[u64], out: &mut [f64]) {
        if self.depth() == 32 {
            self.emit_with(x, out, unit32);
        } else {
            self.emit_with(x, out, unit64);
        }
    }

    /// [`Self::emit`] with the conversion inlined (one loop per depth, so the 32-bit one vectorizes).
    #[inline(always)]
    fn emit_with(&self, x: &[u64], out: &mut [f64], unit: impl Fn(u64) -> f64) {
        // Keeps the first `bits` digits.
        let mask = !0u64 << (64 - self.bits);
        if self.owen.is_empty() {
            for ((o, &xj), &s) in out.iter_mut().zip(x).zip(&self.shift64) {
                *o = unit((xj ^ s) & mask);
            }
        } else {
            // Only the digits the output keeps are scrambled: `bits`, and at most a double's 53
            // (the tree's blocks do not depend on the depth, so the kept digits are the same).
            let depth = self.bits.min(53);
            for ((o, &xj), &seed) in out.iter_mut().zip(x).zip(&self.owen) {
                *o = unit(owen(xj, seed, depth) & mask);
            }
        }
    }

    /// Points `start..start + rows` from a known state `x` of point `start`.
    fn run(&mut self, start: u64, x: &mut [u64], out: &mut [f64]) {
        if self.vt.len() != self.v64.len() {
            // Deserialized: rebuild the digit-major copy.
            self.vt = transpose(&self.v64, self.d);
        }
        self.run_ref(start, x, out);
    }

    fn run_ref(&self, start: u64, x: &mut [u64], out: &mut [f64]) {
        let (d, depth) = (self.d, self.depth());
        for (r, row) in out.chunks_exact_mut(d).enumerate() {
            self.emit(x, row);
            let k = (start + r as u64 + 1).trailing_zeros() as usize;
            if k < depth {
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
        self.check_index(i, 1)?;
        let mut x = vec![0u64; self.d];
        self.state_at(i, &mut x);
        self.emit(&x, &mut out[..self.d]);
        Ok(())
    }

    fn position(&self) -> u64 {
        self.index
    }

    fn seek(&mut self, index: u64) -> Result<(), QmcError> {
        self.check_index(index, 0)?;
        self.index = index;
        self.resync();
        Ok(())
    }

    fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError> {
        let d = self.d;
        crate::sequence::check_out(out, count, d)?;
        self.check_index(self.index, count as u64)?;
        let start = self.index;
        // Large requests: independent chunks in parallel, each from its own starting state.
        const CHUNK: usize = 1 << 14;
        if self.vt.len() != self.v64.len() {
            self.vt = transpose(&self.v64, d);
        }
        if count * d >= 1 << 18 {
            let this = &*self;
            out.par_chunks_mut(CHUNK * d).enumerate().for_each_init(
                || vec![0u64; d],
                |x, (c, block)| {
                    let s = start + (c * CHUNK) as u64;
                    this.state_at(s, x);
                    this.run_ref(s, x, block);
                },
            );
        } else {
            let mut x = std::mem::take(&mut self.x64);
            self.run(start, &mut x, out);
            self.x64 = x;
        }
        self.index = start + count as u64;
        if count * d >= 1 << 18 {
            // The parallel blocks did not advance the stream's own state.
            self.resync();
        }
        Ok(())
    }
}
