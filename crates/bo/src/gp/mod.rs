//! Gaussian-process regression in the unit cube with standardized outputs and a constant prior
//! mean estimated by generalized least squares (ordinary kriging): the posterior mean and
//! variance of eq. 4.11-4.12 (eq. 4.4-4.5 when the noise is 0), the joint posterior covariance of
//! a batch (eq. 4.17, eq. 4.8 without noise), rank-one extension of the Cholesky factor as
//! observations arrive, and a jitter ladder for kernel matrices that are numerically singular.
//! Hyper-parameters come from [`fit`](mod@fit) (marginal likelihood, analytic gradient, several starts).

pub mod fit;

use gradfree_core::linalg::{EigenWork, cholesky_in_place};
use serde::{Deserialize, Serialize};

use crate::BoError;
use crate::kernel::{Hyper, KernelKind};

pub use fit::{FitOptions, FitReport, NoiseModel, fit, neg_log_marginal_likelihood};

/// Jitter ladder, as multiples of the signal variance `s²`: the first step that makes
/// `K + (σ² + jitter) I` positive definite is used (0 = no jitter).
pub const JITTER_LADDER: [f64; 9] = [0.0, 1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4];

/// How raw outputs map to the model's standardized ones: `y_std = (y - shift) / scale`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standardization {
    /// Subtracted (the mean of the values at fit time).
    pub shift: f64,
    /// Divided by (their standard deviation, or 1 when they are all equal).
    pub scale: f64,
}

impl Standardization {
    /// Mean and standard deviation of `y` (scale 1 when the values are constant up to rounding,
    /// so a constant objective gives a flat model rather than a division by zero).
    ///
    /// Where the sum or the squares overflow (values near the largest doubles), computed on
    /// `y / max |y|` and scaled back, so such values standardize like any others.
    pub fn of(y: &[f64]) -> Self {
        let n = y.len().max(1) as f64;
        let moments = |m: f64| {
            let mean = y.iter().map(|v| v / m).sum::<f64>() / n;
            let var = y.iter().map(|v| (v / m - mean) * (v / m - mean)).sum::<f64>() / n;
            (mean * m, var.sqrt() * m)
        };
        let (mut shift, mut sd) = moments(1.0);
        let top = y.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if !(shift.is_finite() && sd.is_finite()) && top.is_finite() && top > 0.0 {
            (shift, sd) = moments(top);
        }
        // Values equal up to rounding (spread below 1e-12 of their size) count as constant.
        let scale = if sd.is_finite() && sd > 0.0 && sd > 1e-12 * shift.abs() { sd } else { 1.0 };
        Standardization { shift: if shift.is_finite() { shift } else { 0.0 }, scale }
    }
}

/// A Gaussian process with fixed hyper-parameters conditioned on `n` observations.
#[derive(Clone, Debug)]
pub struct Gp {
    kind: KernelKind,
    d: usize,
    hyper: Hyper,
    inv_len: Vec<f64>,
    standardization: Standardization,
    /// Observed points, row-major `n x d`, unit-cube coordinates.
    x: Vec<f64>,
    /// The same points coordinate by coordinate (`d x n`, row-major), for [`Gp::k_vec`].
    xt: Vec<f64>,
    /// Standardized outputs.
    y: Vec<f64>,
    /// Lower Cholesky factor of `K + (σ² + jitter) I`, column-major `n x n`.
    chol: Vec<f64>,
    /// `(K + (σ² + jitter) I)^{-1} (y − β̂ 1)`.
    alpha: Vec<f64>,
    /// Generalized-least-squares constant mean `β̂` (standardized units).
    beta: f64,
    jitter: f64,
}

/// `K(X, X) + diag` into `out` (column-major `n x n`, full).
pub(crate) fn kernel_matrix(kind: KernelKind, x: &[f64], d: usize, inv_len: &[f64], signal: f64, diag: f64, out: &mut Vec<f64>) {
    let n = x.len() / d;
    out.clear();
    out.resize(n * n, 0.0);
    for j in 0..n {
        let xj = &x[j * d..(j + 1) * d];
        let col = &mut out[j * n + j + 1..(j + 1) * n];
        for (o, xi) in col.iter_mut().zip(x[(j + 1) * d..].chunks_exact(d)) {
            *o = Hyper::r2(inv_len, xi, xj);
        }
        kind.phi_many(col);
        col.iter_mut().for_each(|v| *v *= signal);
        out[j * n + j] = signal + diag;
        for i in j + 1..n {
            out[i * n + j] = out[j * n + i];
        }
    }
}

/// The `n x d` row-major points `x` as `d x n` row-major.
fn transpose(x: &[f64], d: usize) -> Vec<f64> {
    let n = x.len() / d;
    let mut t = vec![0.0; x.len()];
    for (j, p) in x.chunks_exact(d).enumerate() {
        for (i, v) in p.iter().enumerate() {
            t[i * n + j] = *v;
        }
    }
    t
}

/// Factors `K + (noise + jitter) I` with the first jitter of [`JITTER_LADDER`] that works;
/// returns the jitter, or `None` if none does. A factor with a squared pivot below
/// `1e-13 (s² + σ²)` counts as a failure (numerically singular).
pub(crate) fn factor_with_ladder(
    kind: KernelKind,
    x: &[f64],
    d: usize,
    hyper: &Hyper,
    inv_len: &[f64],
    out: &mut Vec<f64>,
    work: &mut EigenWork,
) -> Option<f64> {
    let n = x.len() / d;
    for step in JITTER_LADDER {
        let jitter = step * hyper.signal;
        kernel_matrix(kind, x, d, inv_len, hyper.signal, hyper.noise + jitter, out);
        // A pivot that is not clearly positive means the matrix is numerically singular: a
        // factor with such a pivot would give a wildly large K^{-1} y.
        let floor = 1e-13 * (hyper.signal + hyper.noise);
        if cholesky_in_place(out, n, work) && (0..n).all(|i| out[i * n + i] * out[i * n + i] > floor) {
            return Some(jitter);
        }
    }
    None
}

/// The constant prior mean of ordinary kriging, estimated by generalized least squares (the
/// maximum-likelihood estimate for given hyper-parameters; Rasmussen & Williams 2006, §2.7;
/// Jones, Schonlau & Welch 1998, eq. 3): from the factor `L` of `K`,
/// `β̂ = 1ᵀK⁻¹y / 1ᵀK⁻¹1`, `α = K⁻¹(y − β̂ 1)` and `q = (y − β̂ 1)ᵀ K⁻¹ (y − β̂ 1)`.
/// Unlike the sample mean it does not drift towards the minimum as a run clusters its points
/// there, so the mean far from the data stays at the function's overall level.
pub(crate) fn gls_mean(chol: &[f64], y: &[f64]) -> (f64, Vec<f64>, f64) {
    let n = y.len();
    let mut ly = y.to_vec();
    forward_solve(chol, n, &mut ly);
    let mut l1 = vec![1.0; n];
    forward_solve(chol, n, &mut l1);
    let den: f64 = l1.iter().map(|v| v * v).sum();
    let num: f64 = l1.iter().zip(&ly).map(|(a, b)| a * b).sum();
    let beta = if den > 0.0 && (num / den).is_finite() { num / den } else { 0.0 };
    for (r, w) in ly.iter_mut().zip(&l1) {
        *r -= beta * w;
    }
    let quad = ly.iter().map(|v| v * v).sum();
    backward_solve(chol, n, &mut ly);
    (beta, ly, quad)
}

/// `v <- L^{-1} v` for lower-triangular column-major `L` (`n x n`), column-oriented.
#[inline]
pub(crate) fn forward_solve(l: &[f64], n: usize, v: &mut [f64]) {
    for j in 0..n {
        let col = &l[j * n..(j + 1) * n];
        let vj = v[j] / col[j];
        v[j] = vj;
        for i in j + 1..n {
            v[i] -= col[i] * vj;
        }
    }
}

/// `v <- L^{-T} v`.
#[inline]
pub(crate) fn backward_solve(l: &[f64], n: usize, v: &mut [f64]) {
    for j in (0..n).rev() {
        let col = &l[j * n..(j + 1) * n];
        let s: f64 = (j + 1..n).map(|i| col[i] * v[i]).sum();
        v[j] = (v[j] - s) / col[j];
    }
}

impl Gp {
    /// Conditions a GP with the given hyper-parameters on `x` (row-major `n x d`, unit cube) and
    /// raw outputs `y`, standardized with `standardization`. An error if no jitter of the
    /// ladder makes the kernel matrix positive definite.
    pub fn new(kind: KernelKind, x: &[f64], d: usize, y: &[f64], hyper: Hyper, standardization: Standardization) -> Result<Self, BoError> {
        if d == 0 || hyper.length.len() != d {
            return Err(BoError::BadInput(format!("GP dimension {d} with {} length scales", hyper.length.len())));
        }
        if x.len() != y.len() * d {
            return Err(BoError::BadInput(format!("{} values for {} coordinates of dimension {d}", y.len(), x.len())));
        }
        let inv_len = hyper.inv_len();
        let ys: Vec<f64> = y.iter().map(|v| (v - standardization.shift) / standardization.scale).collect();
        let mut chol = Vec::new();
        let jitter = factor_with_ladder(kind, x, d, &hyper, &inv_len, &mut chol, &mut EigenWork::default()).ok_or_else(|| {
            BoError::FitFailed(format!(
                "the kernel matrix of {} points is not positive definite even with jitter {:e} (duplicated points with zero noise?)",
                y.len(),
                JITTER_LADDER[JITTER_LADDER.len() - 1] * hyper.signal
            ))
        })?;
        let mut gp = Gp {
            kind,
            d,
            hyper,
            inv_len,
            standardization,
            x: x.to_vec(),
            xt: transpose(x, d),
            y: ys,
            chol,
            alpha: Vec::new(),
            beta: 0.0,
            jitter,
        };
        gp.solve_alpha();
        Ok(gp)
    }

    /// Number of observations.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Whether the GP has no observations (the prior).
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// Input dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// The kernel family.
    pub fn kind(&self) -> KernelKind {
        self.kind
    }

    /// The hyper-parameters.
    pub fn hyper(&self) -> &Hyper {
        &self.hyper
    }

    /// The output standardization.
    pub fn standardization(&self) -> Standardization {
        self.standardization
    }

    /// The jitter added to the diagonal to factor the kernel matrix (0 when none was needed).
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The observed points (row-major, unit cube).
    pub fn points(&self) -> &[f64] {
        &self.x
    }

    /// The prior covariance `k(a, b) = s² φ(r)` (no noise).
    #[inline]
    pub fn k(&self, a: &[f64], b: &[f64]) -> f64 {
        self.hyper.signal * self.kind.phi(Hyper::r2(&self.inv_len, a, b))
    }

    /// `k_n(u) = [k(u, x_1), ..., k(u, x_n)]` into `out` (`n` values), equal to [`Gp::k`] at
    /// each point to the bit: the squared distances accumulate coordinate by coordinate in the
    /// same order over all points at once (vectorized over the points), then
    /// [`KernelKind::phi_many`].
    #[inline]
    pub fn k_vec(&self, u: &[f64], out: &mut [f64]) {
        let n = self.len();
        let out = &mut out[..n];
        out.fill(0.0);
        for ((ui, w), col) in u.iter().zip(&self.inv_len).zip(self.xt.chunks_exact(n.max(1))) {
            for (o, xi) in out.iter_mut().zip(col) {
                let t = (ui - xi) * w;
                *o += t * t;
            }
        }
        self.kind.phi_many(out);
        out.iter_mut().for_each(|v| *v *= self.hyper.signal);
    }

    /// Standardized posterior mean and variance at `u` (eq. 4.11-4.12); `buf` needs `n` values.
    #[inline]
    pub fn predict_std(&self, u: &[f64], buf: &mut [f64]) -> (f64, f64) {
        let n = self.len();
        let kv = &mut buf[..n];
        self.k_vec(u, kv);
        let mean: f64 = self.beta + kv.iter().zip(&self.alpha).map(|(a, b)| a * b).sum::<f64>();
        forward_solve(&self.chol, n, kv);
        let var = self.hyper.signal - kv.iter().map(|v| v * v).sum::<f64>();
        (mean, var.max(0.0))
    }

    /// The smallest standardized posterior mean at the observed points, `min_i y_i − (σ² + jitter) α_i`
    /// (the mean at a training point is `K_f α = (K − (σ² + jitter) I) α`); the smallest
    /// observation when there is no noise. The incumbent of expected improvement.
    pub fn smallest_fitted_mean_std(&self) -> f64 {
        let diag = self.hyper.noise + self.jitter;
        self.y.iter().zip(&self.alpha).map(|(y, a)| y - diag * a).fold(f64::INFINITY, f64::min)
    }

    /// Posterior mean and standard deviation at `u`, in the raw output units.
    pub fn predict(&self, u: &[f64]) -> (f64, f64) {
        let mut buf = vec![0.0; self.len()];
        let (m, v) = self.predict_std(u, &mut buf);
        (m * self.standardization.scale + self.standardization.shift, v.sqrt() * self.standardization.scale)
    }

    /// Standardized posterior means of the `l` points of `u` (row-major `l x d`) and their joint
    /// posterior covariance `cov = K(X, X) − V^T V`, `V = L^{-1} K(X̄, X)` (eq. 4.17), into
    /// `mean` (`l`) and `cov` (column-major `l x l`); `v` is scratch (`n x l`).
    pub fn predict_batch_std(&self, u: &[f64], mean: &mut [f64], cov: &mut [f64], v: &mut [f64]) {
        let (n, d) = (self.len(), self.d);
        let l = u.len() / d;
        for (c, ui) in u.chunks_exact(d).enumerate() {
            let col = &mut v[c * n..(c + 1) * n];
            self.k_vec(ui, col);
            mean[c] = self.beta + col.iter().zip(&self.alpha).map(|(a, b)| a * b).sum::<f64>();
        }
        // V = L^{-1} K(X̄, X) for all l columns at once (faer's blocked triangular solve; the
        // column-by-column scalar solves cost 3-5x more at n = 500, l = 16).
        gradfree_core::linalg::solve_l(&self.chol, n, &mut v[..n * l], l);
        // cov = K(X, X) − VᵀV: the Gram product (faer), then the prior covariances.
        gradfree_core::linalg::gram(&v[..n * l], n, l, &mut cov[..l * l]);
        for a in 0..l {
            for b in a..l {
                let c = self.k(&u[a * d..(a + 1) * d], &u[b * d..(b + 1) * d]) - cov[b * l + a];
                cov[b * l + a] = c;
                cov[a * l + b] = c;
            }
        }
    }

    /// Adds one observation with the hyper-parameters and standardization kept: the Cholesky
    /// factor grows by one row (`l = L^{-1} k_n(u)`, new diagonal `sqrt(k(u,u) + σ² + jitter − l^T l)`),
    /// O(n²). When the new diagonal is not positive (a duplicate with no noise), the whole
    /// matrix is refactored with the jitter ladder. Equal to [`Gp::new`] on all the points.
    pub fn add_observation(&mut self, u: &[f64], y: f64) -> Result<(), BoError> {
        if u.len() != self.d {
            return Err(BoError::BadInput(format!("a point of dimension {} for a GP of dimension {}", u.len(), self.d)));
        }
        let n = self.len();
        let mut l = vec![0.0; n];
        self.k_vec(u, &mut l);
        forward_solve(&self.chol, n, &mut l);
        let diag2 = self.hyper.signal + self.hyper.noise + self.jitter - l.iter().map(|v| v * v).sum::<f64>();
        let ys = (y - self.standardization.shift) / self.standardization.scale;
        self.x.extend_from_slice(u);
        self.xt = transpose(&self.x, self.d);
        self.y.push(ys);
        if diag2 > 1e-13 * (self.hyper.signal + self.hyper.noise) && diag2.is_finite() {
            let m = n + 1;
            let mut chol = vec![0.0; m * m];
            for j in 0..n {
                chol[j * m..j * m + n].copy_from_slice(&self.chol[j * n..(j + 1) * n]);
                chol[j * m + n] = l[j];
            }
            chol[n * m + n] = diag2.sqrt();
            self.chol = chol;
        } else {
            let jitter =
                factor_with_ladder(self.kind, &self.x, self.d, &self.hyper, &self.inv_len, &mut self.chol, &mut EigenWork::default());
            match jitter {
                Some(j) => self.jitter = j,
                None => {
                    self.x.truncate(n * self.d);
                    self.xt = transpose(&self.x, self.d);
                    self.y.pop();
                    let mut back = Vec::new();
                    factor_with_ladder(self.kind, &self.x, self.d, &self.hyper, &self.inv_len, &mut back, &mut EigenWork::default());
                    self.chol = back;
                    return Err(BoError::FitFailed("adding the point makes the kernel matrix singular at every jitter".into()));
                }
            }
        }
        self.solve_alpha();
        Ok(())
    }

    /// `β̂` and `α` of [`gls_mean`] from the factor.
    fn solve_alpha(&mut self) {
        let (beta, alpha, _) = gls_mean(&self.chol, &self.y);
        self.beta = beta;
        self.alpha = alpha;
    }

    /// The GP with the hallucinated observations `y = μ(u)` added at `u` (GP-BUCB, Desautels et
    /// al. 2014): the mean is unchanged, the variance shrinks as if `u` had been observed.
    pub fn hallucinate(&self, u: &[f64]) -> Result<Gp, BoError> {
        let mut g = self.clone();
        let mut buf = vec![0.0; self.len()];
        for p in u.chunks_exact(self.d) {
            buf.resize(g.len(), 0.0);
            let (m, _) = g.predict_std(p, &mut buf);
            let raw = m * g.standardization.scale + g.standardization.shift;
            g.add_observation(p, raw)?;
        }
        Ok(g)
    }
}

#[cfg(test)]
mod standardization_tests {
    use super::*;

    #[test]
    fn values_near_the_largest_doubles_standardize() {
        let y = [1e308, 5e307, 1.7e308, 2e307];
        let st = Standardization::of(&y);
        let mean = y.iter().map(|v| v / 4.0).sum::<f64>();
        assert!((st.shift / mean - 1.0).abs() < 1e-12, "{st:?}");
        assert!(st.scale.is_finite() && st.scale > 1e307, "{st:?}");
        assert!(y.iter().all(|v| ((v - st.shift) / st.scale).abs() < 2.0));
        assert_eq!(Standardization::of(&[1.0, 3.0]), Standardization { shift: 2.0, scale: 1.0 });
    }
}
