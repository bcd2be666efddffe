//! The linear-quadratic global surrogate of lq-CMA-ES (Hansen 2019, "A global surrogate assisted
//! CMA-ES", GECCO 2019, sec. 2), with the rules of pycma's `cma.fitness_models.LQModel`:
//!
//! - **Features** `z(x) = [1, x, x^2, x_i x_j (i < j)]`: linear (`d + 1` coefficients) until the
//!   archive holds enough points for the diagonal quadratic (`2d + 1`), then the full quadratic
//!   (`d (d + 3) / 2 + 1`); a model of `p` coefficients is used once `0.75 n >= 1.1 p` for `n`
//!   archived points, and a model type once reached is kept.
//! - **Archive**: newest points first; once the full model is reached the oldest are dropped
//!   beyond `max(2 p_full, lambda)` points (never below `1.1 p_full / 0.75`).
//! - **Fit**: weighted least squares on the `max(p + 2, 0.75 (n + 1))` best points (at most `n`),
//!   with weights decreasing linearly from 20 (best) to 1, solved with the pseudo-inverse (so an
//!   under-determined fit gives the coefficients of least norm).
//! - **Optimum** ([`LqModel::xopt`]): `-H^+ b / 2` of the quadratic part `x^T H x + b^T x`; for
//!   the linear model, the newest best point minus twice the gradient.
//! - **Rank agreement** ([`LqModel::kendall`]): Kendall's tau-b between the values of the newest
//!   points and the model's.

use gradfree_core::linalg::lstsq_min_norm;
use serde::{Deserialize, Serialize};

/// Largest regression weight (the best point); the worst gets 1.
const MAX_WEIGHT: f64 = 20.0;
/// Share of the archive, best first, that the fit uses.
const TRUNCATION: f64 = 0.75;
/// A model type is used once `TRUNCATION n >= MIN_RELATIVE p`.
const MIN_RELATIVE: f64 = 1.1;
/// The archive keeps at most `MAX_RELATIVE p_full` points (or `lambda`, if larger).
const MAX_RELATIVE: f64 = 2.0;

/// The model's form, by number of coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// `f = c + b^T x`: `d + 1` coefficients.
    Linear,
    /// `f = c + b^T x + sum_i h_i x_i^2`: `2d + 1`.
    Diagonal,
    /// The full quadratic: `d (d + 3) / 2 + 1`.
    Full,
}

impl ModelKind {
    /// Number of coefficients in dimension `d`.
    pub fn coefficients(self, d: usize) -> usize {
        match self {
            ModelKind::Linear => d + 1,
            ModelKind::Diagonal => 2 * d + 1,
            ModelKind::Full => d * (d + 3) / 2 + 1,
        }
    }
}

/// The archive and the fitted linear-quadratic model (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LqModel {
    d: usize,
    /// Archived points, row-major, newest (or, after [`LqModel::sort`], best of the newest) first.
    x: Vec<f64>,
    /// Their values.
    f: Vec<f64>,
    kind: ModelKind,
    /// Archive size kept at least (pycma's `max_absolute_size`: the population size).
    min_capacity: usize,
    /// Coefficients of the current fit, in feature order; empty while there are no points.
    coef: Vec<f64>,
    /// Whether points were added since the last fit.
    stale: bool,
}

impl LqModel {
    /// An empty model in dimension `d` whose archive keeps at least `min_capacity` points.
    pub fn new(d: usize, min_capacity: usize) -> Self {
        LqModel { d, x: Vec::new(), f: Vec::new(), kind: ModelKind::Linear, min_capacity, coef: Vec::new(), stale: false }
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Number of archived points.
    pub fn len(&self) -> usize {
        self.f.len()
    }

    /// Whether the archive is empty.
    pub fn is_empty(&self) -> bool {
        self.f.is_empty()
    }

    /// The current model form.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The archived point `i` (0 is the newest, or the best of the newest after a sort).
    pub fn point(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// The archived value `i`.
    pub fn value(&self, i: usize) -> f64 {
        self.f[i]
    }

    /// Adds `(x, f)` as the newest point (a point already archived, or a non-finite value, is not
    /// added: `false`), upgrades the model form when the archive allows it and drops the oldest
    /// points beyond the archive's capacity.
    pub fn add(&mut self, x: &[f64], f: f64) -> bool {
        if x.len() != self.d || !f.is_finite() || !x.iter().all(|v| v.is_finite()) || self.x.chunks_exact(self.d).any(|p| p == x) {
            return false;
        }
        self.x.splice(0..0, x.iter().copied());
        self.f.insert(0, f);
        let n = self.len() as f64;
        for kind in [ModelKind::Full, ModelKind::Diagonal] {
            if kind > self.kind && n * TRUNCATION >= kind.coefficients(self.d) as f64 * MIN_RELATIVE {
                self.kind = kind;
                break;
            }
        }
        let full = ModelKind::Full.coefficients(self.d) as f64;
        let keep = (full * MAX_RELATIVE).max(self.min_capacity as f64).max(full * MIN_RELATIVE / TRUNCATION);
        if n > keep {
            let keep = keep.ceil() as usize;
            self.f.truncate(keep);
            self.x.truncate(keep * self.d);
        }
        self.stale = true;
        true
    }

    /// Sorts the newest `number` points by value, best first (pycma's `sort(number)`): the
    /// archive's head is then the best of the latest evaluations, which [`LqModel::kendall`] and
    /// the linear model's optimum read.
    pub fn sort(&mut self, number: usize) {
        let n = number.min(self.len());
        if n <= 1 {
            return;
        }
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| self.f[a].total_cmp(&self.f[b]));
        let (fs, xs): (Vec<f64>, Vec<f64>) =
            (idx.iter().map(|&i| self.f[i]).collect(), idx.iter().flat_map(|&i| self.point(i).iter().copied()).collect());
        self.f[..n].copy_from_slice(&fs);
        self.x[..n * self.d].copy_from_slice(&xs);
    }

    /// Writes the features of `x` for the current model form into `z`.
    fn features(&self, x: &[f64], z: &mut Vec<f64>) {
        z.clear();
        z.push(1.0);
        z.extend_from_slice(x);
        if self.kind >= ModelKind::Diagonal {
            z.extend(x.iter().map(|v| v * v));
        }
        if self.kind == ModelKind::Full {
            for i in 0..self.d {
                for j in i + 1..self.d {
                    z.push(x[i] * x[j]);
                }
            }
        }
    }

    /// Refits the coefficients if points were added since the last fit (module documentation,
    /// "Fit"). Returns `false` if the least-squares solve failed (the previous coefficients, or
    /// none, are kept).
    pub fn fit(&mut self) -> bool {
        if !self.stale {
            return true;
        }
        self.stale = false;
        let n = self.len();
        if n == 0 {
            self.coef.clear();
            return true;
        }
        let p = self.kind.coefficients(self.d);
        let m = (((p + 2) as f64).max(TRUNCATION * (n + 1) as f64) as usize).min(n);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| self.f[a].total_cmp(&self.f[b]));
        // Column-major m x p design, rows weighted.
        let mut a = vec![0.0; m * p];
        let mut rhs = vec![0.0; m];
        let mut z = Vec::with_capacity(p);
        for (r, &i) in order.iter().take(m).enumerate() {
            let w = if m == 1 { MAX_WEIGHT } else { MAX_WEIGHT - (MAX_WEIGHT - 1.0) * r as f64 / (m - 1) as f64 };
            self.features(self.point(i), &mut z);
            for (c, v) in z.iter().enumerate() {
                a[c * m + r] = w * v;
            }
            rhs[r] = w * self.f[i];
        }
        let mut coef = Vec::new();
        if !lstsq_min_norm(&a, m, p, &rhs, &mut coef) {
            return false;
        }
        self.coef = coef;
        true
    }

    /// The model's value at `x` (0 before any point; call [`LqModel::fit`] first).
    pub fn predict(&self, x: &[f64], z: &mut Vec<f64>) -> f64 {
        if self.coef.is_empty() {
            return 0.0;
        }
        self.features(x, z);
        if z.len() != self.coef.len() {
            // Fitted for another form: not current (see `fit`).
            return f64::NAN;
        }
        z.iter().zip(&self.coef).map(|(a, b)| a * b).sum()
    }

    /// The model's minimizer (module documentation, "Optimum"); `None` before any point or if it
    /// is not finite. Call [`LqModel::fit`] first.
    pub fn xopt(&self) -> Option<Vec<f64>> {
        let d = self.d;
        if self.coef.len() != self.kind.coefficients(d) || self.is_empty() {
            return None;
        }
        let b = &self.coef[1..=d];
        let x: Vec<f64> = if self.kind == ModelKind::Linear {
            self.point(0).iter().zip(b).map(|(x, g)| x - 2.0 * g).collect()
        } else {
            let mut h = vec![0.0; d * d];
            for i in 0..d {
                h[i * d + i] = self.coef[d + 1 + i];
            }
            if self.kind == ModelKind::Full {
                let mut k = 2 * d + 1;
                for i in 0..d {
                    for j in i + 1..d {
                        h[j * d + i] = self.coef[k] / 2.0;
                        h[i * d + j] = self.coef[k] / 2.0;
                        k += 1;
                    }
                }
            }
            let rhs: Vec<f64> = b.iter().map(|v| -v / 2.0).collect();
            let mut x = Vec::new();
            if !lstsq_min_norm(&h, d, d, &rhs, &mut x) {
                return None;
            }
            x
        };
        x.iter().all(|v| v.is_finite()).then_some(x)
    }

    /// Restored-state invariants: archive sizes consistent with the dimension, finite points and
    /// values, coefficients of the model form's count (or none).
    pub fn check(&self) -> Result<(), String> {
        let d = self.d;
        if d == 0 || self.x.len() != self.f.len() * d {
            return Err(format!("model archive: {} coordinates for {} points in dimension {d}", self.x.len(), self.f.len()));
        }
        if !self.x.iter().chain(&self.f).all(|v| v.is_finite()) {
            return Err("model archive: non-finite entries".into());
        }
        if !self.coef.is_empty() && self.coef.len() != self.kind.coefficients(d) && !self.stale {
            return Err(format!("model coefficients: {} for a {:?} model in dimension {d}", self.coef.len(), self.kind));
        }
        if self.coef.len() > ModelKind::Full.coefficients(d) {
            return Err("model coefficients: too many".into());
        }
        Ok(())
    }

    /// Kendall's tau-b between the values of the `number` newest points and the model's values
    /// there (0 for fewer than 3 points, or when either ranking is constant).
    pub fn kendall(&self, number: usize) -> f64 {
        let n = number.min(self.len());
        if n < 3 || self.coef.is_empty() {
            return 0.0;
        }
        let mut z = Vec::new();
        let model: Vec<f64> = (0..n).map(|i| self.predict(self.point(i), &mut z)).collect();
        kendall_tau_b(&self.f[..n], &model)
    }
}

/// Kendall's rank correlation tau-b of `a` and `b` (equal lengths), with ties counted as in
/// `scipy.stats.kendalltau`; 0 when either is constant or a value is NaN.
pub fn kendall_tau_b(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    // Concordant minus discordant pairs; pairs tied in `a` (in `b`), ties in both included.
    let (mut s, mut ties_a, mut ties_b, mut pairs) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for i in 0..n {
        for j in 0..i {
            let (da, db) = (a[i] - a[j], b[i] - b[j]);
            if da.is_nan() || db.is_nan() {
                return 0.0;
            }
            pairs += 1.0;
            ties_a += f64::from(u8::from(da == 0.0));
            ties_b += f64::from(u8::from(db == 0.0));
            if da != 0.0 && db != 0.0 {
                s += (da * db).signum();
            }
        }
    }
    let denom = ((pairs - ties_a) * (pairs - ties_b)).sqrt();
    if denom > 0.0 { s / denom } else { 0.0 }
}
