//! Point sets on the sphere `S^{d-1}` (thesis sec. 5.6 and 6.4).
//!
//! [`FourierSphere`]: `d = 2m`, `N = 2n` points built from `m` rows `Lambda = {k_1, ..., k_m}` of
//! the `n x n` DFT matrix `F` (`F_{kj} = e^{2 pi i k j / n}`): the columns of (eq. 6.23-6.24, and
//! 5.24-5.25)
//!
//! ```text
//! V = 1/sqrt(m) [ Re F_Lambda   -Im F_Lambda ]
//!               [ Im F_Lambda    Re F_Lambda ]      (d x N, unit columns)
//! ```
//!
//! Two choices of `Lambda`: the closed-form subgroup `{g^0, g^{(n-1)/m}, ..., g^{(m-1)(n-1)/m}} mod
//! n` (eq. 5.26, `n` prime with `m | n - 1`, `g` the smallest primitive root;
//! [`FourierSphere::subgroup`]), and the indexes that maximize the log-energy objective `J` of
//! eq. 6.34 by the coordinate ascent of Algorithm 12 ([`energy`], [`FourierSphere::optimized`]; the
//! thesis calls the result the SSF point set, and Table 5.3 "Lyu \[117\]").
//!
//! Every inner product depends only on `t = a - b mod n` through `S(t) = sum_{k in Lambda}
//! e^{2 pi i k t / n}`: within a block it is `Re S(t) / m`, across blocks `Im S(t) / m`; so the
//! mutual coherence costs O(n m) ([`FourierSphere::mutual_coherence`]) and `V^T x` is one FFT of
//! length `n` (Theorem 20, [`FourierSphere::project`]).

pub mod energy;

use std::f64::consts::PI;
use std::sync::Arc;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

use crate::QmcError;
use crate::numtheory::{is_prime, mul_mod, pow_mod, primitive_root};

/// The DFT-row point set `V` on the sphere (eq. 6.23), for any frequency set `Lambda`.
#[derive(Clone)]
pub struct FourierSphere {
    m: usize,
    n: u64,
    lambda: Vec<u64>,
    /// The inverse FFT of length `n`, planned on first use (the points alone do not need it).
    fft: std::sync::OnceLock<Arc<dyn Fft<f64>>>,
}

impl std::fmt::Debug for FourierSphere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FourierSphere").field("d", &(2 * self.m)).field("points", &(2 * self.n)).field("lambda", &self.lambda).finish()
    }
}

impl FourierSphere {
    /// The subgroup point set (eq. 5.24-5.26): `N = 2n` points on `S^{d-1}`; `d` even, `n` prime
    /// with `d/2 | n - 1`.
    pub fn subgroup(d: usize, n: u64) -> Result<Self, QmcError> {
        if d < 2 || !d.is_multiple_of(2) {
            return Err(QmcError::invalid("d", d, "even and >= 2 (d = 2m)"));
        }
        let m = d / 2;
        let why = if !is_prime(n) {
            Some("n is not prime".to_string())
        } else if !(n - 1).is_multiple_of(m as u64) {
            Some(format!("m = d/2 = {m} does not divide n - 1 = {}", n - 1))
        } else {
            None
        };
        if let Some(why) = why {
            let near: Vec<String> = sphere_sizes(m, n.saturating_sub(20 * m as u64).max(2), 5).iter().map(u64::to_string).collect();
            return Err(QmcError::UnsuitableSize { n, d, why, suggestions: near.join(", ") });
        }
        let g = primitive_root(n).expect("prime");
        let h = pow_mod(g, (n - 1) / m as u64, n);
        let mut lambda = Vec::with_capacity(m);
        let mut x = 1u64;
        for _ in 0..m {
            lambda.push(x);
            x = mul_mod(x, h, n);
        }
        Self::new(d, n, lambda)
    }

    /// The point set of eq. 6.23 for the frequencies `lambda` (`m = d/2` distinct values in
    /// `1..n`, so `m < n`); `d` even.
    pub fn new(d: usize, n: u64, lambda: Vec<u64>) -> Result<Self, QmcError> {
        if d < 2 || !d.is_multiple_of(2) {
            return Err(QmcError::invalid("d", d, "even and >= 2 (d = 2m)"));
        }
        let m = d / 2;
        if n <= m as u64 || n > 1 << 40 {
            return Err(QmcError::invalid("n", n, format!("in {}..=2^40 (n > m = d/2 = {m})", m + 1)));
        }
        if lambda.len() != m {
            return Err(QmcError::invalid("lambda", format!("{} frequencies", lambda.len()), format!("m = d/2 = {m} frequencies")));
        }
        let mut seen = std::collections::HashSet::with_capacity(m);
        for &k in &lambda {
            if k == 0 || k >= n || !seen.insert(k) {
                return Err(QmcError::invalid("lambda", k, format!("distinct frequencies in 1..{n}")));
            }
        }
        Ok(FourierSphere { m, n, lambda, fft: std::sync::OnceLock::new() })
    }

    /// The point set whose frequencies maximize `J(Lambda)` (eq. 6.34) by Algorithm 12 from a
    /// random start drawn from `seed`; also returns the trace of `J` (see [`energy`]).
    pub fn optimized(d: usize, n: u64, options: &energy::AscentOptions, seed: u64) -> Result<(Self, energy::AscentTrace), QmcError> {
        if d < 2 || !d.is_multiple_of(2) {
            return Err(QmcError::invalid("d", d, "even and >= 2 (d = 2m)"));
        }
        let (lambda, trace) = energy::coordinate_ascent(d / 2, n, options, seed, None)?;
        Ok((Self::new(d, n, lambda)?, trace))
    }

    /// The inverse FFT of length `n` (planned once, on the first projection).
    fn fft(&self) -> &Arc<dyn Fft<f64>> {
        self.fft.get_or_init(|| FftPlanner::new().plan_fft_inverse(self.n as usize))
    }

    /// Dimension `d = 2m`.
    pub fn dim(&self) -> usize {
        2 * self.m
    }

    /// Number of points `N = 2n`.
    pub fn len(&self) -> usize {
        2 * self.n as usize
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Half the dimension, `m = d/2`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The DFT size `n` (`N = 2n` points).
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The frequency set `Lambda`.
    pub fn frequencies(&self) -> &[u64] {
        &self.lambda
    }

    /// Point `i` in `0..N` (column `i + 1` of `V`; columns are numbered `1..n` as in eq. 5.25).
    pub fn point_into(&self, i: usize, out: &mut [f64]) {
        let (m, n) = (self.m, self.n as usize);
        let j = (i % n + 1) as u64;
        let s = 1.0 / (m as f64).sqrt();
        for (l, &k) in self.lambda.iter().enumerate() {
            let angle = 2.0 * PI * (mul_mod(k, j, self.n) as f64) / n as f64;
            let (sin, cos) = angle.sin_cos();
            if i < n {
                out[l] = s * cos;
                out[m + l] = s * sin;
            } else {
                out[l] = -s * sin;
                out[m + l] = s * cos;
            }
        }
    }

    /// All `N` points, row-major `N x d`.
    pub fn points(&self) -> Vec<f64> {
        let d = self.dim();
        let mut out = vec![0.0; self.len() * d];
        for (i, row) in out.chunks_exact_mut(d).enumerate() {
            self.point_into(i, row);
        }
        out
    }

    /// `V^T x` for `x` of length `d`, in O(n log n) with one inverse FFT of length `n` (Theorem 20,
    /// eq. 6.36, conjugated): with `z_{k_l} = x_l - i x_{m+l}`, `y = sum_k z_k e^{2 pi i k j / n}`,
    /// point `j` of the first block gives `Re y_j / sqrt(m)` and of the second `-Im y_j / sqrt(m)`.
    /// Allocates its buffers; [`FourierSphere::project_with`] reuses the caller's.
    pub fn project(&self, x: &[f64], out: &mut [f64]) -> Result<(), QmcError> {
        let (m, n) = (self.m, self.n as usize);
        if x.len() != 2 * m {
            return Err(QmcError::invalid("x", format!("length {}", x.len()), format!("length d = {}", 2 * m)));
        }
        if out.len() != 2 * n {
            return Err(QmcError::invalid("out", format!("length {}", out.len()), format!("length N = {}", 2 * n)));
        }
        let mut buf = vec![Complex64::new(0.0, 0.0); n];
        let mut scratch = vec![Complex64::new(0.0, 0.0); self.scratch_len()];
        self.project_with(|l| x[l], 1.0, out, &mut buf, &mut scratch);
        Ok(())
    }

    /// Length of the FFT scratch buffer [`FourierSphere::project_with`] needs.
    pub fn scratch_len(&self) -> usize {
        self.fft().get_inplace_scratch_len()
    }

    /// `scale * V^T x` into `out` (length `N = 2n`) with caller-provided buffers, allocation free:
    /// `x(l)` gives coordinate `l` of the input (so callers can fold a sign flip or a type
    /// conversion into it), `buf` has length `n`, `scratch` length [`FourierSphere::scratch_len`].
    /// Panics if the lengths are wrong (callers check them once, up front).
    pub fn project_with(&self, x: impl Fn(usize) -> f64, scale: f64, out: &mut [f64], buf: &mut [Complex64], scratch: &mut [Complex64]) {
        let (m, n) = (self.m, self.n as usize);
        assert!(out.len() == 2 * n && buf.len() == n, "project_with: out must have length 2n and buf length n");
        buf.iter_mut().for_each(|b| *b = Complex64::new(0.0, 0.0));
        for (l, &k) in self.lambda.iter().enumerate() {
            buf[k as usize] = Complex64::new(x(l), -x(m + l));
        }
        self.fft().process_with_scratch(buf, scratch);
        let s = scale / (m as f64).sqrt();
        // Column j (1..n) is buf[j mod n]: buf[1..n], then buf[0].
        let (first, second) = out.split_at_mut(n);
        let ys = buf[1..].iter().chain(std::iter::once(&buf[0]));
        for ((f, g), y) in first.iter_mut().zip(second.iter_mut()).zip(ys) {
            *f = s * y.re;
            *g = -s * y.im;
        }
    }

    /// `scale * V y` into `out` (length `d`), the adjoint of [`FourierSphere::project_with`], in
    /// O(n log n) with the same inverse FFT: with `c_j = y_j + i y_{n+j}` for the columns
    /// `j = 1..n` of the two blocks, `w_k = sum_j c_j e^{2 pi i k j / n}` at `k in Lambda` gives
    /// `(V y)_l = Re w_{k_l} / sqrt(m)` and `(V y)_{m+l} = Im w_{k_l} / sqrt(m)`. `y(i)` gives
    /// entry `i` of `y` in `0..N`; `buf` has length `n`, `scratch` length
    /// [`FourierSphere::scratch_len`]. Panics if the lengths are wrong.
    pub fn adjoint_with(&self, y: impl Fn(usize) -> f64, scale: f64, out: &mut [f64], buf: &mut [Complex64], scratch: &mut [Complex64]) {
        let (m, n) = (self.m, self.n as usize);
        assert!(out.len() == 2 * m && buf.len() == n, "adjoint_with: out must have length d and buf length n");
        // Column j (1..n) sits at buf[j mod n]: buf[1..n] are columns 1..n-1, buf[0] column n.
        for j in 1..=n {
            buf[j % n] = Complex64::new(y(j - 1), y(n + j - 1));
        }
        self.fft().process_with_scratch(buf, scratch);
        let s = scale / (m as f64).sqrt();
        for (l, &k) in self.lambda.iter().enumerate() {
            let w = buf[k as usize];
            out[l] = s * w.re;
            out[m + l] = s * w.im;
        }
    }

    /// Mutual coherence `max_{i != j} |v_i^T v_j|` (columns have unit norm), in O(n m).
    pub fn mutual_coherence(&self) -> f64 {
        let n = self.n;
        let mut best: f64 = 0.0;
        for t in 0..n {
            let (mut re, mut im) = (0.0, 0.0);
            for &k in &self.lambda {
                let angle = 2.0 * PI * (mul_mod(k, t, n) as f64) / n as f64;
                let (s, c) = angle.sin_cos();
                re += c;
                im += s;
            }
            if t != 0 {
                best = best.max(re.abs());
            }
            best = best.max(im.abs());
        }
        best / self.m as f64
    }
}

/// The first `count` primes `n >= min_n` with `m | n - 1`.
pub fn sphere_sizes(m: usize, min_n: u64, count: usize) -> Vec<u64> {
    if m == 0 {
        return Vec::new();
    }
    let step = m as u64;
    let mut n = 1 + min_n.saturating_sub(1).div_ceil(step) * step;
    let mut out = Vec::new();
    while out.len() < count {
        if n > 2 && is_prime(n) {
            out.push(n);
        }
        n += step;
    }
    out
}

/// Mutual coherence `max_{i != j} |<p_i, p_j>| / (|p_i| |p_j|)` of any point set (`N x d`
/// row-major): all pairs, O(N^2 d), as blocked matrix products (faer) over the normalized points,
/// in parallel over block rows.
pub fn mutual_coherence(points: &[f64], d: usize) -> f64 {
    use faer::{Accum, MatMut, MatRef, Par};
    use rayon::prelude::*;
    let n = points.len() / d;
    // Normalized copy; row-major N x d is column-major d x N: column i is point i.
    let mut a = points.to_vec();
    for row in a.chunks_exact_mut(d) {
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        row.iter_mut().for_each(|v| *v /= norm);
    }
    const B: usize = 512;
    let blocks = n.div_ceil(B);
    let a = &a;
    (0..blocks)
        .into_par_iter()
        .map(|bi| {
            let (i0, i1) = (bi * B, ((bi + 1) * B).min(n));
            let ai = MatRef::from_column_major_slice(&a[i0 * d..i1 * d], d, i1 - i0);
            let mut g = vec![0.0; B * B];
            let mut best: f64 = 0.0;
            for bj in 0..=bi {
                let (j0, j1) = (bj * B, ((bj + 1) * B).min(n));
                let aj = MatRef::from_column_major_slice(&a[j0 * d..j1 * d], d, j1 - j0);
                let (r, c) = (i1 - i0, j1 - j0);
                let gm = MatMut::from_column_major_slice_mut(&mut g[..r * c], r, c);
                faer::linalg::matmul::matmul(gm, Accum::Replace, ai.transpose(), aj, 1.0, Par::Seq);
                for cc in 0..c {
                    for rr in 0..r {
                        if i0 + rr != j0 + cc {
                            best = best.max(g[cc * r + rr].abs());
                        }
                    }
                }
            }
            best
        })
        .reduce(|| 0.0, f64::max)
}

/// `N` i.i.d. uniform points on `S^{d-1}` (normalized standard Gaussians), row-major.
pub fn gaussian_sphere(d: usize, count: usize, rng: &mut gradfree_core::GfRng) -> Vec<f64> {
    use rand_distr::{Distribution, StandardNormal};
    let mut out = vec![0.0; d * count];
    for row in out.chunks_exact_mut(d) {
        loop {
            row.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
            let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 0.0 {
                row.iter_mut().for_each(|v| *v /= norm);
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `adjoint_with` is `V y` by the explicit points, and the adjoint of `project_with`.
    #[test]
    fn adjoint_is_the_transpose() {
        let s = FourierSphere::new(6, 11, vec![1, 4, 7]).unwrap();
        let (d, big_n, n) = (s.dim(), s.len(), 11);
        let v = s.points();
        let y: Vec<f64> = (0..big_n).map(|i| (i as f64 * 0.37).sin()).collect();
        let x: Vec<f64> = (0..d).map(|l| (l as f64 + 0.5).cos()).collect();
        let (mut buf, mut scratch) = (vec![Complex64::new(0.0, 0.0); n], vec![Complex64::new(0.0, 0.0); s.scratch_len()]);
        let mut vy = vec![0.0; d];
        s.adjoint_with(|i| y[i], 2.0, &mut vy, &mut buf, &mut scratch);
        for l in 0..d {
            let dense: f64 = (0..big_n).map(|i| v[i * d + l] * y[i]).sum::<f64>() * 2.0;
            assert!((dense - vy[l]).abs() < 1e-12, "row {l}: {dense} vs {}", vy[l]);
        }
        let mut vtx = vec![0.0; big_n];
        s.project_with(|l| x[l], 1.0, &mut vtx, &mut buf, &mut scratch);
        let lhs: f64 = vtx.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>() * 2.0;
        let rhs: f64 = x.iter().zip(&vy).map(|(a, b)| a * b).sum();
        assert!((lhs - rhs).abs() < 1e-12, "{lhs} vs {rhs}");
    }
}
