//! The projection of spherical structured feature (SSF) maps (thesis sec. 6.4-6.5): `V^T D x` with
//! `V` the DFT-row point set on `S^{d-1}` (eq. 6.23, [`gradfree_qmc::sphere::FourierSphere`]) and
//! `D` a random `+-1` diagonal (step (a)); `V^T x~` by one FFT of length `n` (Theorem 20, steps
//! (b)-(c)): O(n log n) time per input and O(d) storage (the indexes `Lambda` and the signs).
//!
//! Sizes: `d = 2m` (an odd `d` is padded with one zero coordinate), `N = 2n` points. For `N`
//! projections this uses `n = max(ceil(N / 2), m + 1)` (the construction needs `m < n`) and keeps the
//! first `N` columns of `V` (all of them when `N` is even and at least `d + 2`).
//!
//! The frequencies `Lambda`: Algorithm 12 (the thesis), the closed-form subgroup of eq. 5.26 when
//! `n` is a prime with `m | n - 1`, or uniformly random (for timing at sizes where Algorithm 12's
//! O(m n^2) per sweep is too slow; the projection's cost does not depend on `Lambda`).
//!
//! Randomization: the thesis' sign flips `D` ([`SsfRotation::Signs`]), or a Haar-random rotation
//! `R` ([`SsfRotation::Haar`], the "full random orthogonal rotation" the thesis recommends when
//! accuracy matters, app. 10.26): then every column of `V^T R` is uniform on the sphere and the
//! arc-cosine features are exactly unbiased, at O(d^2) per input.

use gradfree_core::GfRng;
use gradfree_qmc::sphere::FourierSphere;
use gradfree_qmc::sphere::energy::{AscentOptions, coordinate_ascent};
use rand::RngExt;
use rand::seq::SliceRandom;
use rustfft::num_complex::Complex64;
use serde::{Deserialize, Serialize};

use super::op::{Directions, LinearOp, Workspace, row_by_row};
use crate::FeatureError;

/// How the DFT rows `Lambda` are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum SsfFrequencies {
    /// Algorithm 12 (coordinate ascent on eq. 6.34) from a random start.
    Optimized {
        /// Most sweeps.
        max_sweeps: usize,
        /// Random block of candidates per step (`None`: all).
        candidates: Option<usize>,
    },
    /// The subgroup of eq. 5.26 (`n` must be a prime with `m | n - 1`).
    Subgroup,
    /// `m` distinct indexes drawn uniformly from `1..n`.
    Random,
}

impl Default for SsfFrequencies {
    fn default() -> Self {
        SsfFrequencies::Optimized { max_sweeps: 30, candidates: None }
    }
}

impl SsfFrequencies {
    /// The names the front ends take: `optimized` (with its default sweeps), `subgroup`, `random`.
    pub const NAMES: [&'static str; 3] = ["optimized", "subgroup", "random"];

    /// The choice named `name` (one of [`SsfFrequencies::NAMES`]).
    pub fn parse(name: &str) -> Result<Self, FeatureError> {
        match name {
            "optimized" => Ok(SsfFrequencies::default()),
            "subgroup" => Ok(SsfFrequencies::Subgroup),
            "random" => Ok(SsfFrequencies::Random),
            other => Err(FeatureError::invalid("frequencies", other, Self::NAMES.join(", "))),
        }
    }
}

/// The random rotation applied to inputs before `V^T`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SsfRotation {
    /// A `+-1` diagonal (thesis step (a)); O(d).
    #[default]
    Signs,
    /// A Haar-random orthogonal matrix; O(d^2).
    Haar,
    /// The diagonal rotation of thesis app. 10.26: a uniform phase `e^{i theta_s}` on each
    /// frequency `k_s` (a 2 x 2 rotation of the coordinate pair `(s, m + s)`) after a uniform
    /// permutation of the `d` coordinates. Keeps `V^T V` (pairwise inner products) and the tight
    /// frame `V V^T = (N/d) I`, at O(d) storage and O(d) time on top of the FFT.
    Phase,
}

impl SsfRotation {
    /// The names the front ends take, as serde writes them.
    pub const NAMES: [&'static str; 3] = ["signs", "haar", "phase"];

    /// The rotation named `name` (one of [`SsfRotation::NAMES`]).
    pub fn parse(name: &str) -> Result<Self, FeatureError> {
        match name {
            "signs" => Ok(SsfRotation::Signs),
            "haar" => Ok(SsfRotation::Haar),
            "phase" => Ok(SsfRotation::Phase),
            other => Err(FeatureError::invalid("rotation", other, Self::NAMES.join(", "))),
        }
    }
}

/// `V^T D x` (or `V^T R x`), `N` values per input.
#[derive(Clone, Debug)]
pub struct SsfProjection {
    d: usize,
    n_out: usize,
    sphere: FourierSphere,
    signs: Vec<f64>,
    /// Row-major `d_pad x d` rotation (Haar), or empty.
    rotation: Vec<f64>,
    /// [`SsfRotation::Phase`]: coordinate `l` of the permuted input is `x[perm[l]]` (`perm` over
    /// the `d_pad` coordinates; indexes `>= d` are the zero padding) ...
    perm: Vec<usize>,
    /// ... and `(cos theta_s, sin theta_s)` rotates the pair `(s, m + s)`. Empty otherwise.
    phase: Vec<(f64, f64)>,
}

/// Buffers of one worker thread for [`SsfProjection::project_row`] and
/// [`SsfProjection::adjoint_row`].
#[derive(Debug, Default)]
pub struct SsfScratch {
    buf: Vec<Complex64>,
    fft: Vec<Complex64>,
    full: Vec<f64>,
    rotated: Vec<f64>,
}

impl SsfProjection {
    /// `n_out` projections of `d`-dimensional inputs; randomness (start of Algorithm 12, random
    /// frequencies, signs or rotation) from `rng`.
    pub fn new(d: usize, n_out: usize, frequencies: SsfFrequencies, rotation: SsfRotation, rng: &mut GfRng) -> Result<Self, FeatureError> {
        Self::new_cancellable(d, n_out, frequencies, rotation, rng, None)
    }

    /// [`SsfProjection::new`], polling `cancel` during Algorithm 12 (it returns
    /// [`gradfree_qmc::QmcError::Interrupted`] when `cancel` says so).
    pub fn new_cancellable(
        d: usize,
        n_out: usize,
        frequencies: SsfFrequencies,
        rotation: SsfRotation,
        rng: &mut GfRng,
        cancel: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Self, FeatureError> {
        if d == 0 {
            return Err(FeatureError::invalid("d", 0, ">= 1"));
        }
        if n_out == 0 {
            return Err(FeatureError::invalid("n_components", 0, ">= 1"));
        }
        let d_pad = d + d % 2;
        let m = d_pad / 2;
        let n = (n_out.div_ceil(2)).max(m + 1) as u64;
        let sphere = match frequencies {
            SsfFrequencies::Optimized { max_sweeps, candidates } => {
                let seed = rng.random::<u64>();
                let (lambda, _) = coordinate_ascent(m, n, &AscentOptions { max_sweeps, candidates }, seed, cancel)?;
                FourierSphere::new(d_pad, n, lambda)?
            }
            SsfFrequencies::Subgroup => FourierSphere::subgroup(d_pad, n)?,
            SsfFrequencies::Random => {
                let mut pool: Vec<u64> = (1..n).collect();
                let (chosen, _) = pool.partial_shuffle(rng, m);
                FourierSphere::new(d_pad, n, chosen.to_vec())?
            }
        };
        Ok(Self::with_sphere(d, n_out, sphere, rotation, rng))
    }

    /// With a given point set (`sphere.dim()` is `d` rounded up to even; `n_out <= 2n`).
    pub fn with_sphere(d: usize, n_out: usize, sphere: FourierSphere, rotation: SsfRotation, rng: &mut GfRng) -> Self {
        let d_pad = sphere.dim();
        assert!(d_pad == d + d % 2 && n_out <= sphere.len(), "sphere does not fit d and n_out");
        let (mut perm, mut phase) = (Vec::new(), Vec::new());
        let (signs, rot) = match rotation {
            SsfRotation::Signs => ((0..d).map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 }).collect(), Vec::new()),
            SsfRotation::Phase => {
                perm = (0..d_pad).collect();
                perm.shuffle(rng);
                phase = (0..d_pad / 2)
                    .map(|_| {
                        let t = std::f64::consts::TAU * rng.random::<f64>();
                        (t.cos(), t.sin())
                    })
                    .collect();
                (Vec::new(), Vec::new())
            }
            SsfRotation::Haar => {
                // A Haar rotation of R^{d_pad}, restricted to the first d input coordinates.
                let q = gradfree_core::linalg::random_orthogonal(d_pad, rng.random::<u64>());
                let mut r = vec![0.0; d_pad * d];
                for i in 0..d_pad {
                    r[i * d..(i + 1) * d].copy_from_slice(&q[i * d_pad..i * d_pad + d]);
                }
                (Vec::new(), r)
            }
        };
        SsfProjection { d, n_out, sphere, signs, rotation: rot, perm, phase }
    }

    /// Input dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Number of projections `N`.
    pub fn len(&self) -> usize {
        self.n_out
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        self.n_out == 0
    }

    /// The point set `V`.
    pub fn sphere(&self) -> &FourierSphere {
        &self.sphere
    }

    /// `out = scale * V^T D x` (first `N` columns) for one input row.
    pub fn project_row(&self, x: impl Fn(usize) -> f64, scale: f64, out: &mut [f64], s: &mut SsfScratch) {
        let (d, n2) = (self.d, self.sphere.len());
        s.buf.resize(n2 / 2, Complex64::new(0.0, 0.0));
        s.fft.resize(self.sphere.scratch_len(), Complex64::new(0.0, 0.0));
        let full = n2 == self.n_out;
        if !full {
            s.full.resize(n2, 0.0);
        }
        let target: &mut [f64] = if full { out } else { &mut s.full };
        if !self.phase.is_empty() {
            let m = self.phase.len();
            s.rotated.resize(2 * m, 0.0);
            let at = |l: usize| if self.perm[l] < d { x(self.perm[l]) } else { 0.0 };
            for (k, &(c, sn)) in self.phase.iter().enumerate() {
                let (a, b) = (at(k), at(m + k));
                s.rotated[k] = c * a - sn * b;
                s.rotated[m + k] = sn * a + c * b;
            }
            let rotated = &s.rotated;
            self.sphere.project_with(|l| rotated[l], scale, target, &mut s.buf, &mut s.fft);
        } else if self.rotation.is_empty() {
            let signs = &self.signs;
            self.sphere.project_with(|l| if l < d { signs[l] * x(l) } else { 0.0 }, scale, target, &mut s.buf, &mut s.fft);
        } else {
            let d_pad = self.sphere.dim();
            s.rotated.resize(d_pad, 0.0);
            for (i, r) in s.rotated.iter_mut().enumerate() {
                *r = self.rotation[i * d..(i + 1) * d].iter().enumerate().map(|(j, q)| q * x(j)).sum();
            }
            let rotated = &s.rotated;
            self.sphere.project_with(|l| rotated[l], scale, target, &mut s.buf, &mut s.fft);
        }
        if !full {
            out.copy_from_slice(&s.full[..self.n_out]);
        }
    }
}

impl SsfProjection {
    /// `out = scale * D V y` (or `R^T V y`) for one row `y` of length `N` (`out` has length `d`):
    /// the adjoint of [`SsfProjection::project_row`], by the same FFT of length `n`
    /// ([`FourierSphere::adjoint_with`]); columns of `V` beyond `N` count as zero and the padding
    /// coordinate of an odd `d` is dropped.
    pub fn adjoint_row(&self, y: &[f64], scale: f64, out: &mut [f64], s: &mut SsfScratch) {
        let (d, d_pad) = (self.d, self.sphere.dim());
        s.buf.resize(self.sphere.len() / 2, Complex64::new(0.0, 0.0));
        s.fft.resize(self.sphere.scratch_len(), Complex64::new(0.0, 0.0));
        s.rotated.resize(d_pad, 0.0);
        let n_out = self.n_out;
        self.sphere.adjoint_with(|i| if i < n_out { y[i] } else { 0.0 }, scale, &mut s.rotated, &mut s.buf, &mut s.fft);
        if !self.phase.is_empty() {
            // out = P G^T (V y): undo the pair rotations, then scatter through the permutation.
            let m = self.phase.len();
            for (k, &(c, sn)) in self.phase.iter().enumerate() {
                let (a, b) = (s.rotated[k], s.rotated[m + k]);
                let (u, v) = (c * a + sn * b, -sn * a + c * b);
                for (l, val) in [(k, u), (m + k, v)] {
                    if self.perm[l] < d {
                        out[self.perm[l]] = val;
                    }
                }
            }
        } else if self.rotation.is_empty() {
            for ((o, v), sign) in out.iter_mut().zip(&s.rotated).zip(&self.signs) {
                *o = sign * v;
            }
        } else {
            // out = R^T (V y), R row-major d_pad x d.
            for (j, o) in out.iter_mut().enumerate() {
                *o = (0..d_pad).map(|i| self.rotation[i * d + j] * s.rotated[i]).sum();
            }
        }
    }
}

/// Row by row through one FFT of length `n` (Theorem 20), O(n log n) per row either way (plus
/// O(d^2) with the Haar rotation).
impl LinearOp for SsfProjection {
    fn dim_in(&self) -> usize {
        self.d
    }
    fn dim_out(&self) -> usize {
        self.n_out
    }
    fn apply(&self, x: &[f64], scale: f64, out: &mut [f64], ws: &mut Workspace) {
        let s = ws.get::<SsfScratch>();
        row_by_row(x, self.d, out, self.n_out, |row, o| self.project_row(|j| row[j], scale, o, s));
    }
    fn apply_adjoint(&self, y: &[f64], scale: f64, out: &mut [f64], ws: &mut Workspace) {
        let s = ws.get::<SsfScratch>();
        row_by_row(y, self.n_out, out, self.d, |row, o| self.adjoint_row(row, scale, o, s));
    }
    fn directions(&self) -> Directions {
        Directions::Unit
    }
    fn sphere_dim(&self) -> usize {
        self.sphere.dim()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gradfree_core::rng_from_seed;

    /// The FFT projection equals the dense `V^T D x`, for even and odd `d` and truncated `N`.
    #[test]
    fn fft_projection_equals_dense() {
        for &(d, n_out) in &[(6usize, 20usize), (7, 16), (8, 9), (10, 4)] {
            let mut rng = rng_from_seed(d as u64);
            let p = SsfProjection::new(d, n_out, SsfFrequencies::Random, SsfRotation::Signs, &mut rng).unwrap();
            let v = p.sphere().points();
            let dp = p.sphere().dim();
            let x: Vec<f64> = (0..d).map(|j| (j as f64 + 0.3).sin()).collect();
            let mut out = vec![0.0; n_out];
            p.project_row(|j| x[j], 1.5, &mut out, &mut SsfScratch::default());
            for (i, o) in out.iter().enumerate() {
                let dense: f64 = (0..d).map(|j| v[i * dp + j] * p.signs[j] * x[j]).sum::<f64>() * 1.5;
                assert!((dense - o).abs() < 1e-10, "d = {d}, column {i}");
            }
        }
    }

    /// App. 10.26's rotation: the FFT path equals the dense `H^T x` with `H` the permuted,
    /// phase-rotated `V`; `H^T H = V^T V` and `H H^T = (N/d) I`; the adjoint is the transpose.
    #[test]
    fn phase_rotation_matches_dense_and_keeps_the_frame() {
        for &(d, n_out) in &[(8usize, 10usize), (7, 16), (10, 22)] {
            let mut rng = rng_from_seed(d as u64 + 50);
            let p = SsfProjection::new(d, n_out, SsfFrequencies::Random, SsfRotation::Phase, &mut rng).unwrap();
            let (dp, m) = (p.sphere().dim(), p.sphere().dim() / 2);
            let v = p.sphere().points();
            // Dense H^T rows: column i of H at input coordinate perm[l] is (G^T v_i)_l.
            let mut h = vec![0.0; n_out * d];
            for i in 0..n_out {
                for (k, &(c, sn)) in p.phase.iter().enumerate() {
                    let (a, b) = (v[i * dp + k], v[i * dp + m + k]);
                    for (l, val) in [(k, c * a + sn * b), (m + k, -sn * a + c * b)] {
                        if p.perm[l] < d {
                            h[i * d + p.perm[l]] = val;
                        }
                    }
                }
            }
            let x: Vec<f64> = (0..d).map(|j| (j as f64 * 0.7 + 0.3).cos()).collect();
            let mut out = vec![0.0; n_out];
            let mut s = SsfScratch::default();
            p.project_row(|j| x[j], 2.0, &mut out, &mut s);
            for i in 0..n_out {
                let dense: f64 = 2.0 * (0..d).map(|j| h[i * d + j] * x[j]).sum::<f64>();
                assert!((dense - out[i]).abs() < 1e-10, "d = {d}, column {i}");
            }
            // Pairwise inner products of the columns are V's (for even d, no padding lost).
            if d % 2 == 0 {
                for i in 0..n_out {
                    for j in 0..n_out {
                        let hh: f64 = (0..d).map(|l| h[i * d + l] * h[j * d + l]).sum();
                        let vv: f64 = (0..d).map(|l| v[i * dp + l] * v[j * dp + l]).sum();
                        assert!((hh - vv).abs() < 1e-10);
                    }
                }
            }
            if n_out == 2 * (m + 1) || n_out == p.sphere().len() {
                for a in 0..d {
                    for b in 0..d {
                        let g: f64 = (0..n_out).map(|i| h[i * d + a] * h[i * d + b]).sum();
                        let want = if a == b { n_out as f64 / dp as f64 } else { 0.0 };
                        assert!((g - want).abs() < 1e-9, "H H^T[{a},{b}] = {g}");
                    }
                }
            }
            let y: Vec<f64> = (0..n_out).map(|i| (i as f64 * 1.3).sin()).collect();
            let mut back = vec![0.0; d];
            p.adjoint_row(&y, 2.0, &mut back, &mut s);
            for j in 0..d {
                let dense: f64 = 2.0 * (0..n_out).map(|i| h[i * d + j] * y[i]).sum::<f64>();
                assert!((dense - back[j]).abs() < 1e-10, "adjoint, d = {d}, coordinate {j}");
            }
        }
    }

    #[test]
    fn haar_rotation_preserves_norms() {
        let d = 9;
        let p = SsfProjection::new(d, 2 * (d + 1) + 2, SsfFrequencies::Random, SsfRotation::Haar, &mut rng_from_seed(1)).unwrap();
        // Full V (N = 2n, m | ...) has V V^T = (N/d) I, so ||V^T R x||^2 = (N / d_pad) ||x||^2.
        let x: Vec<f64> = (0..d).map(|j| j as f64 - 3.0).collect();
        let mut out = vec![0.0; p.len()];
        p.project_row(|j| x[j], 1.0, &mut out, &mut SsfScratch::default());
        let lhs: f64 = out.iter().map(|v| v * v).sum();
        let rhs = p.len() as f64 / p.sphere().dim() as f64 * x.iter().map(|v| v * v).sum::<f64>();
        assert!((lhs - rhs).abs() < 1e-9 * rhs, "{lhs} vs {rhs}");
    }
}
