//! Point sets on the sphere `S^{d-1}` (thesis sec. 5.6).
//!
//! [`SubgroupSphere`]: `d = 2m`, `N = 2n` points, `n` prime with `m | n - 1`. With `F` the `n x n`
//! DFT matrix (`F_{kj} = e^{2 pi i k j / n}`) and the rows `Lambda = {g^0, g^{(n-1)/m}, ...,
//! g^{(m-1)(n-1)/m}} mod n` (eq. 5.26, a subgroup of the multiplicative group; `g` the smallest
//! primitive root), the points are the columns of (eq. 5.24-5.25)
//!
//! ```text
//! V = 1/sqrt(m) [ Re F_Lambda   -Im F_Lambda ]
//!               [ Im F_Lambda    Re F_Lambda ]      (d x N, unit columns)
//! ```
//!
//! Every inner product depends only on `t = a - b mod n` through `S(t) = sum_{k in Lambda}
//! e^{2 pi i k t / n}`: within a block it is `Re S(t) / m`, across blocks `Im S(t) / m`; so the
//! mutual coherence costs O(n m) ([`SubgroupSphere::mutual_coherence`]) and `V^T x` is one FFT of
//! length `n` ([`SubgroupSphere::project`]).

use std::f64::consts::PI;
use std::sync::Arc;

use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

use crate::QmcError;
use crate::numtheory::{is_prime, mul_mod, pow_mod, primitive_root};

/// The subgroup-based point set on the sphere.
#[derive(Clone)]
pub struct SubgroupSphere {
    m: usize,
    n: u64,
    lambda: Vec<u64>,
    fft: Arc<dyn Fft<f64>>,
}

impl std::fmt::Debug for SubgroupSphere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubgroupSphere").field("d", &(2 * self.m)).field("points", &(2 * self.n)).field("lambda", &self.lambda).finish()
    }
}

impl SubgroupSphere {
    /// `N = 2n` points on `S^{d-1}`; `d` even, `n` prime with `d/2 | n - 1`.
    pub fn new(d: usize, n: u64) -> Result<Self, QmcError> {
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
        let fft = FftPlanner::new().plan_fft_inverse(n as usize);
        Ok(SubgroupSphere { m, n, lambda, fft })
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

    /// The frequency set `Lambda` (eq. 5.26).
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

    /// `V^T x` for `x` of length `d`, in O(n log n) with one inverse FFT of length `n`:
    /// with `z_{k_l} = x_l - i x_{m+l}`, `y = sum_k z_k e^{2 pi i k j / n}`, point `j` of the first
    /// block gives `Re y_j / sqrt(m)` and of the second `-Im y_j / sqrt(m)`.
    pub fn project(&self, x: &[f64], out: &mut [f64]) -> Result<(), QmcError> {
        let (m, n) = (self.m, self.n as usize);
        if x.len() != 2 * m {
            return Err(QmcError::invalid("x", format!("length {}", x.len()), format!("length d = {}", 2 * m)));
        }
        if out.len() != 2 * n {
            return Err(QmcError::invalid("out", format!("length {}", out.len()), format!("length N = {}", 2 * n)));
        }
        let mut buf = vec![Complex64::new(0.0, 0.0); n];
        for (l, &k) in self.lambda.iter().enumerate() {
            buf[k as usize] = Complex64::new(x[l], -x[m + l]);
        }
        self.fft.process(&mut buf);
        let s = 1.0 / (m as f64).sqrt();
        // Column j (1..n) is buf[j mod n].
        for j in 0..n {
            let y = buf[(j + 1) % n];
            out[j] = s * y.re;
            out[n + j] = -s * y.im;
        }
        Ok(())
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
