//! Type-II maximum likelihood for the GP hyper-parameters (Rasmussen & Williams 2006, eq. 5.8-5.9):
//!
//! ```text
//! −log p(y | X, θ) = ½ rᵀ K⁻¹ r + Σ_i log L_ii + (n/2) log 2π,   r = y − β̂ 1
//! ∂/∂θ_j           = −½ tr((α αᵀ − K⁻¹) ∂K/∂θ_j),             α = K⁻¹ r
//! ```
//!
//! with the constant mean `β̂ = 1ᵀK⁻¹y / 1ᵀK⁻¹1` profiled out (ordinary kriging, Jones et al.
//! 1998, eq. 3; the likelihood is flat in `β` at `β̂`, so the gradient is the fixed-mean one),
//!
//! over `θ = (log ℓ_1..ℓ_d, log s², log σ²)` inside a box, by L-BFGS (argmin) from several
//! starts: the previous optimum, a default and seeded random points of the box. The box is
//! enforced by the smooth map `θ = lo + (hi − lo)·sigmoid(z)`, so the search over `z` is
//! unconstrained.

use argmin::core::{CostFunction, Executor, Gradient};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use gradfree_core::linalg::EigenWork;
use gradfree_core::{derive_seed, rng_from_seed};
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Gp, JITTER_LADDER, Standardization, factor_with_ladder, gls_mean};
use crate::BoError;
use crate::kernel::{Hyper, KernelKind};

/// Most observations [`fit`] takes.
pub const MAX_OBSERVATIONS: usize = 5000;

/// How the noise variance is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseModel {
    /// Fixed standardized noise variance (e.g. 1e-6 for a deterministic objective).
    Fixed(f64),
    /// Learned by maximum likelihood within `[min, 1]` (standardized units).
    Learned {
        /// Smallest noise variance allowed.
        min: f64,
    },
}

impl Default for NoiseModel {
    fn default() -> Self {
        NoiseModel::Learned { min: 1e-6 }
    }
}

/// Options of [`fit`]: kernel, noise model, the box of the hyper-parameters (unit-cube inputs,
/// standardized outputs) and the number of random starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Kernel family.
    pub kernel: KernelKind,
    /// Noise model.
    pub noise: NoiseModel,
    /// Length-scale range (default `[0.01, 20]`; the inputs span `[0, 1]`).
    pub length_bounds: (f64, f64),
    /// Signal-variance range (default `[0.01, 100]`; the outputs have variance 1).
    pub signal_bounds: (f64, f64),
    /// Random starts besides the default and the previous optimum (default 3).
    pub restarts: usize,
    /// L-BFGS iterations per start (default 100).
    pub max_iters: u64,
    /// Most observations the likelihood is maximized over (default 256). With more, the
    /// hyper-parameters are fitted to a seeded uniform subset of this many and the process is then
    /// conditioned on all of them (the "subset of data" estimator, Chalupka, Williams & Murray
    /// 2013, JMLR 14): each likelihood evaluation costs O(m³) instead of O(n³), 8× less at n = 512.
    pub max_fit_points: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            kernel: KernelKind::Matern52,
            noise: NoiseModel::default(),
            length_bounds: (0.01, 20.0),
            signal_bounds: (0.01, 100.0),
            restarts: 3,
            max_iters: 100,
            max_fit_points: 256,
        }
    }
}

impl FitOptions {
    /// Checks the ranges once (linfa's ParamGuard pattern).
    pub fn validate(&self) -> Result<(), BoError> {
        let ok = |(lo, hi): (f64, f64)| lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo;
        if !ok(self.length_bounds) {
            return Err(BoError::invalid("length_bounds", format!("{:?}", self.length_bounds), "0 < lo < hi < inf"));
        }
        if !ok(self.signal_bounds) {
            return Err(BoError::invalid("signal_bounds", format!("{:?}", self.signal_bounds), "0 < lo < hi < inf"));
        }
        if self.max_fit_points < 2 {
            return Err(BoError::invalid("max_fit_points", self.max_fit_points, "at least 2"));
        }
        match self.noise {
            NoiseModel::Fixed(v) if !(v.is_finite() && v >= 0.0) => Err(BoError::invalid("noise", v, "a finite variance >= 0")),
            NoiseModel::Learned { min } if !(min.is_finite() && min > 0.0 && min < 1.0) => {
                Err(BoError::invalid("noise min", min, "in (0, 1)"))
            }
            _ => Ok(()),
        }
    }

    fn boxes(&self, d: usize) -> Vec<(f64, f64)> {
        let lg = |(a, b): (f64, f64)| (f64::ln(a), f64::ln(b));
        let mut b = vec![lg(self.length_bounds); d];
        b.push(lg(self.signal_bounds));
        if let NoiseModel::Learned { min } = self.noise {
            b.push((min.ln(), 0.0));
        }
        b
    }

    fn hyper(&self, theta: &[f64], d: usize) -> Hyper {
        Hyper {
            length: theta[..d].iter().map(|v| v.exp()).collect(),
            signal: theta[d].exp(),
            noise: match self.noise {
                NoiseModel::Fixed(v) => v,
                NoiseModel::Learned { .. } => theta[d + 1].exp(),
            },
        }
    }
}

/// What a fit found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// The maximized log marginal likelihood (of the subset when there are more than
    /// [`FitOptions::max_fit_points`] observations).
    pub log_likelihood: f64,
    /// Starts that ended with a finite likelihood, of those tried.
    pub starts_ok: usize,
    /// Starts tried.
    pub starts: usize,
    /// Jitter used by the final factorization (0 when none was needed).
    pub jitter: f64,
}

/// `−log p(y | X, θ)` and its gradient with respect to `(log ℓ, log s², log σ²)` (the last only
/// when `grad` has `d + 2` entries), for standardized `y`. `None` if no jitter of the ladder
/// factors the kernel matrix.
pub fn neg_log_marginal_likelihood(
    kind: KernelKind,
    x: &[f64],
    d: usize,
    y: &[f64],
    hyper: &Hyper,
    grad: Option<&mut [f64]>,
) -> Option<f64> {
    let n = y.len();
    let inv_len = hyper.inv_len();
    let mut chol = Vec::new();
    let mut work = EigenWork::default();
    factor_with_ladder(kind, x, d, hyper, &inv_len, &mut chol, &mut work)?;
    // The constant mean is profiled out (its ML estimate for these hyper-parameters); at the
    // estimate the likelihood is flat in it, so the gradient below holds with β̂ fixed.
    let (_, alpha, quad) = gls_mean(&chol, y);
    let logdet: f64 = (0..n).map(|i| chol[i * n + i].ln()).sum();
    let value = 0.5 * quad + logdet + 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln();
    if let Some(g) = grad {
        // K^{-1} = L^{-T} L^{-1}: L^{-1} by a triangular solve on the identity, then one product
        // (faer's blocked kernels; the scalar column-by-column solves took 3x longer at n = 60).
        let mut linv = gradfree_core::linalg::scaled_identity(n, 1.0);
        gradfree_core::linalg::solve_l(&chol, n, &mut linv, n);
        let mut kinv = vec![0.0; n * n];
        gradfree_core::linalg::gram(&linv, n, n, &mut kinv);
        g.iter_mut().for_each(|v| *v = 0.0);
        for b in 0..n {
            let xb = &x[b * d..(b + 1) * d];
            for a in b..n {
                // W = α αᵀ − K⁻¹, symmetric: off-diagonal pairs count twice.
                let w = (alpha[a] * alpha[b] - kinv[b * n + a]) * if a == b { 1.0 } else { 2.0 };
                let xa = &x[a * d..(a + 1) * d];
                let r2 = Hyper::r2(&inv_len, xa, xb);
                let (phi, gf) = kind.phi_and_grad_factor(r2);
                g[d] -= 0.5 * w * hyper.signal * phi;
                if a != b {
                    let c = 0.5 * w * hyper.signal * gf;
                    for i in 0..d {
                        let t = (xa[i] - xb[i]) * inv_len[i];
                        g[i] -= c * t * t;
                    }
                } else if g.len() > d + 1 {
                    g[d + 1] -= 0.5 * w * hyper.noise;
                }
            }
        }
    }
    value.is_finite().then_some(value)
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// A point `z` with its value and gradient.
type Evaluated = (Vec<f64>, f64, Vec<f64>);

/// The argmin problem: `−log p` over the unconstrained `z`.
struct Problem<'a> {
    opts: &'a FitOptions,
    x: &'a [f64],
    d: usize,
    y: &'a [f64],
    boxes: Vec<(f64, f64)>,
    cache: std::sync::Mutex<Option<Evaluated>>,
}

impl Problem<'_> {
    fn theta(&self, z: &[f64]) -> Vec<f64> {
        z.iter().zip(&self.boxes).map(|(z, (lo, hi))| lo + (hi - lo) * sigmoid(*z)).collect()
    }

    fn z_of(&self, theta: &[f64]) -> Vec<f64> {
        theta
            .iter()
            .zip(&self.boxes)
            .map(|(t, (lo, hi))| {
                let p = ((t - lo) / (hi - lo)).clamp(1e-6, 1.0 - 1e-6);
                (p / (1.0 - p)).ln()
            })
            .collect()
    }

    fn eval(&self, z: &[f64], grad: Option<&mut [f64]>) -> f64 {
        let theta = self.theta(z);
        let hyper = self.opts.hyper(&theta, self.d);
        match grad {
            None => neg_log_marginal_likelihood(self.opts.kernel, self.x, self.d, self.y, &hyper, None).unwrap_or(1e300),
            Some(g) => {
                let mut gt = vec![0.0; self.boxes.len().max(self.d + 2)];
                let v = neg_log_marginal_likelihood(self.opts.kernel, self.x, self.d, self.y, &hyper, Some(&mut gt[..self.boxes.len()]));
                for (k, gk) in g.iter_mut().enumerate() {
                    let (lo, hi) = self.boxes[k];
                    let s = sigmoid(z[k]);
                    *gk = gt[k] * (hi - lo) * s * (1.0 - s);
                }
                if v.is_none() {
                    g.iter_mut().for_each(|v| *v = 0.0);
                }
                v.unwrap_or(1e300)
            }
        }
    }
}

impl Problem<'_> {
    /// Value and gradient at `z`, computed once: the line search asks for both at each point.
    fn both(&self, z: &[f64]) -> (f64, Vec<f64>) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((zc, v, g)) = cache.as_ref()
            && zc.as_slice() == z
        {
            return (*v, g.clone());
        }
        let mut g = vec![0.0; z.len()];
        let v = self.eval(z, Some(&mut g));
        *cache = Some((z.to_vec(), v, g.clone()));
        (v, g)
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, z: &Self::Param) -> Result<f64, argmin::core::Error> {
        Ok(self.both(z).0)
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, z: &Self::Param) -> Result<Vec<f64>, argmin::core::Error> {
        Ok(self.both(z).1)
    }
}

/// Fits the hyper-parameters to `x` (row-major `n x d`, unit cube) and raw outputs `y`, then
/// conditions the GP on them. Starts: `warm` (the previous optimum) if given, the default
/// `ℓ = 0.5, s² = 1, σ² = 1e-4` and `opts.restarts` points drawn from the box with `seed`;
/// each start runs L-BFGS and the largest likelihood wins (ties to the earlier start, so the
/// result does not depend on the thread count).
pub fn fit(x: &[f64], d: usize, y: &[f64], opts: &FitOptions, warm: Option<&Hyper>, seed: u64) -> Result<(Gp, FitReport), BoError> {
    opts.validate()?;
    let n = y.len();
    if n == 0 {
        return Err(BoError::BadInput("no observations to fit a Gaussian process to".into()));
    }
    if n > MAX_OBSERVATIONS {
        return Err(BoError::invalid("observations", n, format!("at most {MAX_OBSERVATIONS}: an exact GP costs O(n³) per fit")));
    }
    if d == 0 || x.len() != n * d {
        return Err(BoError::BadInput(format!("{} coordinates for {n} observations of dimension {d}", x.len())));
    }
    if let Some(k) = y.iter().position(|v| !v.is_finite()) {
        return Err(BoError::BadInput(format!("observation {k} is {}: the GP needs finite values", y[k])));
    }
    let st = Standardization::of(y);
    let ys: Vec<f64> = y.iter().map(|v| (v - st.shift) / st.scale).collect();
    // The likelihood's data: all points, or a seeded uniform subset of `max_fit_points`.
    let subset: Option<(Vec<f64>, Vec<f64>)> = (n > opts.max_fit_points).then(|| {
        let mut keep = rand::seq::index::sample(&mut rng_from_seed(derive_seed(seed, 0x7375_6273)), n, opts.max_fit_points).into_vec();
        keep.sort_unstable();
        (keep.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect(), keep.iter().map(|&i| ys[i]).collect())
    });
    let (x_fit, y_fit): (&[f64], &[f64]) = match &subset {
        Some((sx, sy)) => (sx, sy),
        None => (x, &ys),
    };
    let problem = Problem { opts, x: x_fit, d, y: y_fit, boxes: opts.boxes(d), cache: Default::default() };
    let clamp = |t: Vec<f64>| -> Vec<f64> { t.iter().zip(&problem.boxes).map(|(v, (lo, hi))| v.clamp(*lo, *hi)).collect() };
    let theta_of = |h: &Hyper| -> Vec<f64> {
        let mut t: Vec<f64> = h.length.iter().map(|l| l.ln()).collect();
        t.push(h.signal.ln());
        if matches!(opts.noise, NoiseModel::Learned { .. }) {
            t.push(h.noise.max(1e-300).ln());
        }
        t
    };
    let mut starts: Vec<Vec<f64>> = Vec::new();
    if let Some(h) = warm.filter(|h| h.length.len() == d) {
        starts.push(clamp(theta_of(h)));
    }
    starts.push(clamp(theta_of(&Hyper { length: vec![0.5; d], signal: 1.0, noise: 1e-4 })));
    let mut rng = rng_from_seed(derive_seed(seed, 0x6770_6669));
    for _ in 0..opts.restarts {
        starts.push(problem.boxes.iter().map(|(lo, hi)| lo + (hi - lo) * rng.random::<f64>()).collect());
    }
    let results: Vec<Option<(f64, Vec<f64>)>> = starts
        .par_iter()
        .map(|t0| {
            let z0 = problem.z_of(t0);
            let f0 = problem.eval(&z0, None);
            let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7).with_tolerance_grad(1e-6).ok()?.with_tolerance_cost(1e-10).ok()?;
            let p = Problem { opts, x: x_fit, d, y: y_fit, boxes: problem.boxes.clone(), cache: Default::default() };
            let best = match Executor::new(p, solver).configure(|s| s.param(z0.clone()).max_iters(opts.max_iters)).run() {
                Ok(res) => {
                    let st = res.state();
                    match (st.best_param.clone(), st.best_cost) {
                        (Some(z), c) if c.is_finite() && c < f0 => (c, z),
                        _ => (f0, z0),
                    }
                }
                Err(_) => (f0, z0),
            };
            (best.0 < 1e299).then_some(best)
        })
        .collect();
    let starts_ok = results.iter().flatten().count();
    let mut best: Option<(f64, Vec<f64>)> = None;
    for (c, z) in results.into_iter().flatten() {
        if best.as_ref().is_none_or(|(b, _)| c < *b) {
            best = Some((c, z));
        }
    }
    let Some((cost, z)) = best else {
        return Err(BoError::FitFailed(format!(
            "no hyper-parameters of {} starts factor the kernel matrix of {n} points, even with jitter {:e}",
            starts.len(),
            JITTER_LADDER[JITTER_LADDER.len() - 1]
        )));
    };
    let hyper = opts.hyper(&problem.theta(&z), d);
    let gp = Gp::new(opts.kernel, x, d, y, hyper, st)?;
    let report = FitReport { log_likelihood: -cost, starts_ok, starts: starts.len(), jitter: gp.jitter() };
    Ok((gp, report))
}
