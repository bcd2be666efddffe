//! CMA-ES as in Hansen's tutorial (arXiv:1604.00772, 2016), Table 1 defaults: weighted recombination
//! with negative ("active") weights, rank-one and rank-mu covariance updates, cumulative step-size
//! adaptation (CSA), lazy eigendecomposition. IPOP restarts (Auger & Hansen 2005) are the generic
//! [`crate::Ipop`] wrapper, as for every other method.
//!
//! ```text
//! y_i = B D z_i,  x_i = m + sigma y_i
//! m      <- m + sigma sum_{i<=mu} w_i y_{i:lambda}
//! p_sig  <- (1 - c_s) p_sig + sqrt(c_s (2 - c_s) mu_eff) B sum_{i<=mu} w_i z_{i:lambda}      (= C^{-1/2} <y>_w)
//! p_c    <- (1 - c_c) p_c + h_sig sqrt(c_c (2 - c_c) mu_eff) <y>_w
//! C      <- (1 + c_1 delta(h_sig) - c_1 - c_mu sum_j w_j) C + c_1 p_c p_c^T + c_mu sum_i w_i° y_{i:lambda} y_{i:lambda}^T
//! sigma  <- sigma exp((c_s / d_s) (||p_sig|| / E||N(0,I)|| - 1))
//! ```
//!
//! with `w_i° = w_i` for `w_i >= 0` and `w_i d / ||z_{i:lambda}||^2` otherwise. `B, D` are
//! recomputed when more than `0.5 / (d (c_1 + c_mu))` generations have passed (pycma's
//! `lazy_gap_evals`), so the O(d^3) eigendecomposition is amortized.
//!
//! Not in the tutorial: with correlated directions (`sampling = sphere-qmc` or `antithetic`) the
//! `p_sig` increment is multiplied by a selection correction computed from the generation's
//! directions, so that random selection leaves `sigma` unbiased as it does for i.i.d. directions
//! (see `CmaEs::selection_correction`; i.i.d. sampling is unchanged).

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use serde::{Deserialize, Serialize};

use super::Sampling;
use crate::points::{Work, rank_order, write_points};
use crate::progress::Progress;
use crate::sizes::popsize;
use gradfree_core::linalg::{EigenWork, add_weighted_outer_lower, gemm, scaled_identity, sym_eigen};

/// Parameters of [`CmaEs`]; `None` takes the tutorial default. (IPOP restarts: [`crate::Ipop`],
/// `--restarts K` in the CLI, `restarts=K` in Python.)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CmaEsParams {
    /// Population size `lambda`. Default `4 + floor(3 ln d)`.
    pub popsize: Option<usize>,
    /// NaN/inf handling in `tell` (infinite values rank last).
    pub on_nonfinite: NonFinitePolicy,
    /// How the `z_i` are drawn. Default i.i.d. (the tutorial's CMA-ES); `orthogonal` and
    /// `sphere-qmc` keep every `z_i ~ N(0, I)` marginally ([`Sampling`]); `antithetic` is
    /// mirrored sampling (Brockhoff et al. 2010, "Mirrored sampling and sequential selection for
    /// evolution strategies"). For the correlated ones (`sphere-qmc`, `antithetic`) CSA's path is
    /// corrected so that random selection leaves the step size unbiased (see `CmaEs`).
    pub sampling: Sampling,
    /// CSA's damping `d_sigma` ([`Damping`]): `tutorial` (the default) or `pycma` (larger for
    /// large populations at d >= 6; the recommended method's and pycma's).
    pub damping: Damping,
}

/// The damping `d_sigma` of the step-size update `sigma <- sigma exp((c_s / d_s) (...))`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Damping {
    /// Hansen's tutorial (2016), Table 1: `d_s = 1 + 2 max(0, sqrt((mu_eff - 1) / (d + 1)) - 1) + c_s`.
    #[default]
    Tutorial,
    /// pycma 4's rule (`cma.sigma_adaptation`, `compute_damps`), stronger for large populations:
    /// `d_s = 1 + 2 max(0, a_d sqrt((mu_eff - 1) / (d + 1)) - 1) + c_s` with
    /// `a_d = max(1, 3 (1 - 2^(-d/9)))`. Equal to the tutorial's for `d <= 5` and for the default
    /// population at every `d`; for the large populations of IPOP and BIPOP restarts at `d >= 6`
    /// it slows the step size's decrease (at `d = 40`, `lambda = 60`: 2.8 against 1.3), which on
    /// bbob's sharp ridge f13 is the difference between a run that converges prematurely and one
    /// that follows the ridge.
    Pycma,
}

impl Damping {
    /// `d_s` for dimension `d`, `mu_eff` and `c_s` ([`Damping`]).
    fn value(self, d: f64, mu_eff: f64, cs: f64) -> f64 {
        let a = match self {
            Damping::Tutorial => 1.0,
            Damping::Pycma => (3.0 * (1.0 - 0.5f64.powf(d / 9.0))).max(1.0),
        };
        1.0 + 2.0 * (a * ((mu_eff - 1.0) / (d + 1.0)).sqrt() - 1.0).max(0.0) + cs
    }
}

/// [`CmaEsParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CmaEsChecked {
    lambda: usize,
}

impl ParamGuard for CmaEsParams {
    type Checked = CmaEsChecked;

    fn check(&self, d: usize) -> Result<CmaEsChecked, CoreError> {
        let lambda = popsize(self.popsize, 4 + (3.0 * (d as f64).ln()).floor() as usize, 2)?;
        self.sampling.check(lambda)?;
        Ok(CmaEsChecked { lambda })
    }
}

/// Reads the parameters of a saved state. States written before IPOP moved to [`crate::Ipop`]
/// carry `restarts` and `popsize_factor`: accepted when no restart was asked for.
fn saved_params<'de, D: serde::Deserializer<'de>>(d: D) -> Result<CmaEsParams, D::Error> {
    let mut v = serde_json::Value::deserialize(d)?;
    if let Some(m) = v.as_object_mut() {
        if m.remove("restarts").and_then(|r| r.as_u64()).is_some_and(|r| r > 0) {
            return Err(serde::de::Error::custom(
                "this state uses CMA-ES's former built-in IPOP restarts; start a new run with the generic restarts (--restarts K)",
            ));
        }
        m.remove("popsize_factor");
    }
    serde_json::from_value(v).map_err(serde::de::Error::custom)
}

/// The strategy constants for one population size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Constants {
    lambda: usize,
    mu: usize,
    weights: Vec<f64>,
    mu_eff: f64,
    cs: f64,
    ds: f64,
    cc: f64,
    c1: f64,
    cmu: f64,
    chi_n: f64,
    eigen_every: f64,
}

/// The raw recombination weights `w'_i = ln((lambda + 1) / 2) - ln i`, `i = 1..lambda`, of
/// Hansen's tutorial (2016, eq. 49): positive for the better half, negative (active CMA) for the
/// rest.
pub fn raw_weights(lambda: usize) -> Vec<f64> {
    (1..=lambda).map(|i| ((lambda as f64 + 1.0) / 2.0).ln() - (i as f64).ln()).collect()
}

/// The positive recombination weights of the mean update for `lambda` points: the first
/// `lambda / 2` of [`raw_weights`], normalized to sum to 1 (Hansen 2016, eq. 49-53).
pub fn positive_weights(lambda: usize) -> Vec<f64> {
    let raw = raw_weights(lambda);
    let pos = &raw[..lambda / 2];
    let sum: f64 = pos.iter().sum();
    pos.iter().map(|w| w / sum).collect()
}

impl Constants {
    fn new(d: usize, lambda: usize, damping: Damping) -> Self {
        let n = d as f64;
        let mu = lambda / 2;
        let raw = raw_weights(lambda);
        let pos: f64 = raw.iter().filter(|w| **w > 0.0).sum();
        let neg: f64 = raw.iter().filter(|w| **w < 0.0).map(|w| -w).sum();
        let mu_eff = pos * pos / raw[..mu].iter().map(|w| w * w).sum::<f64>();
        let neg_sq: f64 = raw[mu..].iter().map(|w| w * w).sum();
        let mu_eff_neg = if neg_sq > 0.0 { neg * neg / neg_sq } else { 0.0 };
        let cs = (mu_eff + 2.0) / (n + mu_eff + 5.0);
        let ds = damping.value(n, mu_eff, cs);
        let cc = (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n);
        let alpha_cov = 2.0;
        let c1 = alpha_cov / ((n + 1.3).powi(2) + mu_eff);
        let cmu = (1.0 - c1).min(alpha_cov * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0).powi(2) + alpha_cov * mu_eff / 2.0));
        let alpha_mu_neg = 1.0 + c1 / cmu;
        let alpha_mueff_neg = 1.0 + 2.0 * mu_eff_neg / (mu_eff + 2.0);
        let alpha_posdef_neg = (1.0 - c1 - cmu) / (n * cmu);
        let neg_scale = alpha_mu_neg.min(alpha_mueff_neg).min(alpha_posdef_neg);
        let weights = raw.iter().map(|&w| if w >= 0.0 { w / pos } else { w * neg_scale / neg }).collect();
        let chi_n = n.sqrt() * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
        Constants { lambda, mu, weights, mu_eff, cs, ds, cc, c1, cmu, chi_n, eigen_every: 0.5 / (n * (c1 + cmu)) }
    }
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    order: Vec<usize>,
    ysel: Vec<f64>,
    wsel: Vec<f64>,
    tmp: Vec<f64>,
    zw: Vec<f64>,
    dz: Vec<f64>,
    yw: Vec<f64>,
    bzw: Vec<f64>,
    evals: Vec<f64>,
    eig: EigenWork,
}

/// CMA-ES (Hansen 2016 tutorial defaults, active weights, CSA; optional IPOP restarts).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CmaEs {
    #[serde(deserialize_with = "saved_params")]
    params: CmaEsParams,
    k: Constants,
    m: Vec<f64>,
    sigma: f64,
    c: Vec<f64>,
    b: Vec<f64>,
    dvals: Vec<f64>,
    ps: Vec<f64>,
    pc: Vec<f64>,
    z: Vec<f64>,
    y: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    eigen_generation: u64,
    /// The numerical failure that ended the run, if any ([`AskTell::failure`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    /// A point to propose in the next population ([`CmaEs::inject`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    injection: Option<Vec<f64>>,
    /// Whether the pending population's first sample was injected (older states: no).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    injected: bool,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

/// Equality of the algorithm state (scratch and undelivered events excluded).
impl PartialEq for CmaEs {
    fn eq(&self, o: &Self) -> bool {
        self.k == o.k
            && (&self.m, self.sigma.to_bits(), &self.c, &self.b, &self.dvals, &self.ps, &self.pc, &self.z, &self.progress)
                == (&o.m, o.sigma.to_bits(), &o.c, &o.b, &o.dvals, &o.ps, &o.pc, &o.z, &o.progress)
            && (&self.injection, self.injected) == (&o.injection, o.injected)
    }
}

impl CmaEs {
    /// Starts at `m = x0`, `sigma = sigma0`, `C = I`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &CmaEsParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let CmaEsChecked { lambda } = params.check(d)?;
        crate::sizes::check_footprint("CMA-ES", d, lambda, crate::sizes::Footprint::Full)?;
        Ok(CmaEs {
            params: params.clone(),
            k: Constants::new(d, lambda, params.damping),
            m: x0,
            sigma: sigma0,
            c: scaled_identity(d, 1.0),
            b: scaled_identity(d, 1.0),
            dvals: vec![1.0; d],
            ps: vec![0.0; d],
            pc: vec![0.0; d],
            z: vec![0.0; d * lambda],
            y: vec![0.0; d * lambda],
            progress: Progress::new(seed),
            eigen_generation: 0,
            failure: None,
            injection: None,
            injected: false,
            scratch: Work::default(),
        })
    }

    /// Step size `sigma`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Proposes `x` as the first sample of the next population (pycma's `inject`, used by
    /// lq-CMA-ES for the model's optimum, Hansen 2019 sec. 2.3): as a direction `y = (x - m) /
    /// sigma`, rescaled to the Mahalanobis length `|N(0, I)|` of a random normal vector when
    /// `|C^{-1/2} y| > sqrt(d)` (pycma's `CMA_injections_threshold_keep_len = 1`), so the sample
    /// looks as if drawn from the distribution; its negative recombination weight, if selection
    /// gives it one, is set to zero (pycma's `CMA_active_injected = 0`). Ignored if `x` has the
    /// wrong length or is not finite; a second call before the next `ask` replaces the first.
    pub fn inject(&mut self, x: &[f64]) {
        if x.len() == self.dim() && x.iter().all(|v| v.is_finite()) {
            self.injection = Some(x.to_vec());
        }
    }

    /// The point proposed by [`CmaEs::inject`] for the next population, if any.
    pub fn injection(&self) -> Option<&[f64]> {
        self.injection.as_deref()
    }

    /// Replaces the first sample of the fresh population by the injected point (see
    /// [`CmaEs::inject`]).
    fn apply_injection(&mut self) {
        self.injected = false;
        let Some(x) = self.injection.take() else {
            return;
        };
        let d = self.dim();
        if self.k.lambda < 2 {
            return;
        }
        let y: Vec<f64> = x.iter().zip(&self.m).map(|(a, b)| (a - b) / self.sigma).collect();
        // z = D^{-1} B^T y.
        let mut z: Vec<f64> =
            (0..d).map(|j| self.b[j * d..(j + 1) * d].iter().zip(&y).map(|(b, v)| b * v).sum::<f64>() / self.dvals[j]).collect();
        let norm = z.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !norm.is_finite() || norm == 0.0 {
            return;
        }
        let mut y = y;
        if norm > (d as f64).sqrt() {
            let r = (0..d)
                .map(|_| rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, &mut self.progress.rng).powi(2))
                .sum::<f64>()
                .sqrt();
            let f = r / norm;
            y.iter_mut().for_each(|v| *v *= f);
            z.iter_mut().for_each(|v| *v *= f);
        }
        self.y[..d].copy_from_slice(&y);
        self.z[..d].copy_from_slice(&z);
        self.injected = true;
    }

    /// Covariance matrix `C`, column-major (the state keeps only its lower triangle current).
    pub fn covariance(&self) -> Vec<f64> {
        let d = self.dim();
        let mut c = self.c.clone();
        for j in 0..d {
            for i in j + 1..d {
                c[i * d + j] = c[j * d + i];
            }
        }
        c
    }

    fn update_eigen(&mut self) {
        let d = self.dim();
        let sc = &mut self.scratch.0;
        sc.evals.resize(d, 0.0);
        if sym_eigen(&self.c, d, &mut sc.evals, Some(&mut self.b), &mut sc.eig) && sc.evals[0] > 0.0 {
            for (dv, v) in self.dvals.iter_mut().zip(&sc.evals) {
                *dv = v.sqrt();
            }
        } else {
            // Numerical breakdown: restart the covariance from the identity, keep the mean.
            self.c = scaled_identity(d, 1.0);
            self.b = scaled_identity(d, 1.0);
            self.dvals = vec![1.0; d];
            self.progress.event(EventKind::CovarianceReset, "C lost positive definiteness; reset to I");
        }
        self.eigen_generation = self.progress.generation;
    }

    /// The coordinates' standard deviations `sigma sqrt(C_ii)`.
    fn coordinate_sds(&self) -> impl Iterator<Item = f64> + '_ {
        let d = self.dim();
        (0..d).map(move |i| self.sigma * self.c[i * d + i].sqrt())
    }

    /// Factor on the `p_sigma` increment that makes CSA unbiased under random selection for the
    /// generation's actual directions (1 for i.i.d. sampling, which is unbiased by construction).
    ///
    /// Under random ranking the weighted sum `<z>_w = sum_{r<=mu} w_r z_{pi(r)}` of a uniformly
    /// random permutation `pi` has `E|<z>_w|^2 = (W2 / N) S + (W1^2 - W2) / (N (N - 1)) X`, with
    /// `W1 = sum w_r`, `W2 = sum w_r^2`, `S = sum_i |z_i|^2` and `X = sum_{i != j} z_i^T z_j`. For
    /// independent directions `X` averages 0 and `mu_eff <z>_w` has CSA's reference length
    /// `E|N(0, I)|`; QMC directions on the sphere (and mirrored pairs) are negatively correlated,
    /// `X < 0`, so without this factor a plateau reads as a short path and the step size
    /// shrinks (Brockhoff et al. 2010 describe the same bias for mirrored sampling). The factor
    /// `sqrt((W2 / N) S / E|<z>_w|^2)` restores the reference, capped at 3.
    fn selection_correction(&mut self) -> f64 {
        if self.params.sampling == Sampling::Iid {
            return 1.0;
        }
        let (d, n, k) = (self.dim(), self.k.lambda, &self.k);
        if n < 2 {
            return 1.0;
        }
        let (w1, w2) = k.weights[..k.mu].iter().fold((0.0, 0.0), |(a, b), &w| (a + w, b + w * w));
        let mut s = 0.0;
        // The sum of the directions, in the weighted-z buffer that `tell` fills afterwards.
        let sum = &mut self.scratch.0.zw;
        sum.clear();
        sum.resize(d, 0.0);
        for zi in self.z.chunks_exact(d) {
            for (t, &v) in sum.iter_mut().zip(zi) {
                *t += v;
                s += v * v;
            }
        }
        let x = sum.iter().map(|v| v * v).sum::<f64>() - s;
        let nf = n as f64;
        let diag = w2 / nf * s;
        let expected = diag + (w1 * w1 - w2) / (nf * (nf - 1.0)) * x;
        if diag.is_nan() || diag <= 0.0 || !expected.is_finite() {
            return 1.0;
        }
        (diag / expected.max(diag / 9.0)).sqrt()
    }
}

impl AskTell for CmaEs {
    crate::identity!("cmaes", dim = m, popsize = k.lambda);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.k.lambda);
        if !self.progress.pending {
            if (self.progress.generation - self.eigen_generation) as f64 > self.k.eigen_every {
                self.update_eigen();
            }
            self.params.sampling.fill(&mut self.progress.rng, d, n, &mut self.z);
            let dz = &mut self.scratch.0.dz;
            dz.clear();
            dz.extend(self.z.chunks_exact(d).flat_map(|col| col.iter().zip(&self.dvals).map(|(zi, di)| zi * di)));
            gemm(&self.b, d, d, dz, n, &mut self.y);
            self.apply_injection();
            self.progress.pending = true;
        }
        write_points(out, &self.m, self.sigma, &self.y);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, lambda) = (self.dim(), self.k.lambda);
        let correction = self.selection_correction();
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, lambda), self.params.on_nonfinite, &mut sc.vals)?;
        let k = &self.k;
        rank_order(&sc.vals, &mut sc.order);

        // Mean and the weighted z for p_sigma.
        sc.yw.clear();
        sc.yw.resize(d, 0.0);
        sc.zw.clear();
        sc.zw.resize(d, 0.0);
        for (r, &i) in sc.order.iter().take(k.mu).enumerate() {
            let w = k.weights[r];
            let (yi, zi) = (&self.y[i * d..(i + 1) * d], &self.z[i * d..(i + 1) * d]);
            for ((a, b), (&yv, &zv)) in sc.yw.iter_mut().zip(sc.zw.iter_mut()).zip(yi.iter().zip(zi)) {
                *a += w * yv;
                *b += w * zv;
            }
        }
        for (m, y) in self.m.iter_mut().zip(&sc.yw) {
            *m += self.sigma * y;
        }
        // p_sigma <- (1 - cs) p_sigma + sqrt(cs (2 - cs) mu_eff) B zw.
        sc.bzw.resize(d, 0.0);
        gemm(&self.b, d, d, &sc.zw, 1, &mut sc.bzw);
        let a_s = (k.cs * (2.0 - k.cs) * k.mu_eff).sqrt() * correction;
        for (p, v) in self.ps.iter_mut().zip(&sc.bzw) {
            *p = (1.0 - k.cs) * *p + a_s * v;
        }
        let ps_norm = self.ps.iter().map(|v| v * v).sum::<f64>().sqrt();
        let denom = (1.0 - (1.0 - k.cs).powi(2 * self.progress.generation as i32)).sqrt().max(1e-300);
        let hs = ps_norm / denom < (1.4 + 2.0 / (d as f64 + 1.0)) * k.chi_n;
        let a_c = if hs { (k.cc * (2.0 - k.cc) * k.mu_eff).sqrt() } else { 0.0 };
        for (p, y) in self.pc.iter_mut().zip(&sc.yw) {
            *p = (1.0 - k.cc) * *p + a_c * y;
        }
        // Covariance: decay, rank one, rank mu (with active negative weights).
        let delta_h = if hs { 0.0 } else { k.cc * (2.0 - k.cc) };
        let wsum: f64 = k.weights.iter().sum();
        let decay = 1.0 + k.c1 * delta_h - k.c1 - k.cmu * wsum;
        // Only the lower triangle of C is kept current (it is all the eigensolver reads).
        for (j, col) in self.c.chunks_exact_mut(d).enumerate() {
            col[j..].iter_mut().for_each(|v| *v *= decay);
        }
        sc.ysel.clear();
        sc.wsel.clear();
        for (r, &i) in sc.order.iter().enumerate() {
            let mut w = k.weights[r];
            if w < 0.0 && self.injected && i == 0 {
                w = 0.0;
            } else if w < 0.0 {
                let z2: f64 = self.z[i * d..(i + 1) * d].iter().map(|v| v * v).sum();
                w *= d as f64 / z2.max(1e-300);
            }
            sc.ysel.extend_from_slice(&self.y[i * d..(i + 1) * d]);
            sc.wsel.push(k.cmu * w);
        }
        sc.ysel.extend_from_slice(&self.pc);
        sc.wsel.push(k.c1);
        add_weighted_outer_lower(&mut self.c, d, &sc.ysel, &sc.wsel, &mut sc.tmp);
        // Step size.
        self.sigma *= ((k.cs / k.ds) * (ps_norm / k.chi_n - 1.0)).min(1.0).exp();
        if !self.sigma.is_finite() || self.sigma <= 0.0 {
            self.failure = Some(format!("cmaes: step size became {} at generation {}", self.sigma, self.progress.generation));
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.m
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// `(max D / min D)^2`, the condition number of `C` at its last eigendecomposition.
    fn condition(&self) -> Option<f64> {
        let (lo, hi) = self.dvals.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        Some((hi / lo).powi(2))
    }

    /// pycma's termination rules on the distribution (Hansen, *The CMA Evolution Strategy: A
    /// Tutorial*, appendix B.3), in this order:
    /// - `tol-x`: `sigma max(|p_c,i|, sqrt(C_ii)) < tol_x` for every `i` (pycma's `tolx`);
    /// - `no effect axis`: adding `0.1 sigma D_i b_i` (principal axis `i = g mod d` at generation
    ///   `g`) leaves every coordinate of the mean unchanged in floating point (`noeffectaxis`);
    /// - `no effect coordinate`: adding `0.2 sigma sqrt(C_ii)` leaves some `m_i` unchanged
    ///   (`noeffectcoord`);
    /// - `condition`: `cond(C) > 1e14` (`tolconditioncov`).
    fn converged(&self, tol_x: f64) -> Option<&'static str> {
        let d = self.dim();
        let s = self.sigma;
        if (0..d).all(|i| s * self.pc[i].abs().max(self.c[i * d + i].sqrt()) < tol_x) {
            return Some("tol-x");
        }
        let axis = (self.progress.generation % d as u64) as usize;
        let step = 0.1 * s * self.dvals[axis];
        if self.m.iter().zip(&self.b[axis * d..(axis + 1) * d]).all(|(&m, &b)| m + step * b == m) {
            return Some("no effect axis");
        }
        if self.m.iter().zip(self.coordinate_sds()).any(|(&m, sd)| m + 0.2 * sd == m) {
            return Some("no effect coordinate");
        }
        if self.condition().is_some_and(|c| c > 1e14) {
            return Some("condition");
        }
        None
    }

    crate::coordinate_spread!();

    /// `sigma <- factor sigma`.
    fn shrink_spread(&mut self, factor: f64) {
        self.sigma *= factor;
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes from `d` and `lambda`, constants equal to those the tutorial
/// formulas give for `(d, lambda)` and the damping rule, finite vectors (a pending injected point
/// included), `sigma > 0`, positive eigenvalue roots, generation counters in order.
impl StateCheck for CmaEs {
    fn check_state(&self) -> Result<(), String> {
        let d = self.m.len();
        let lambda = self.k.lambda;
        crate::sizes::state_sizes("CMA-ES", d, lambda, crate::sizes::Footprint::Full)?;
        chk::require(
            "constants",
            self.k == Constants::new(d, lambda, self.params.damping),
            "differ from the CMA-ES defaults for this dimension and popsize",
        )?;
        chk::finite("m", &self.m)?;
        chk::positive("sigma", self.sigma)?;
        chk::square("c", &self.c, d)?;
        chk::square("b", &self.b, d)?;
        chk::len("dvals", &self.dvals, d)?;
        chk::all_positive("dvals", &self.dvals)?;
        chk::finite_len("ps", &self.ps, d)?;
        chk::finite_len("pc", &self.pc, d)?;
        let dn = chk::checked_len("z", d, lambda)?;
        chk::finite_len("z", &self.z, dn)?;
        chk::finite_len("y", &self.y, dn)?;
        if let Some(x) = &self.injection {
            chk::finite_len("injection", x, d)?;
        }
        chk::require("eigen_generation", self.eigen_generation <= self.progress.generation, "must not exceed generation")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pycma's damping, against pycma 4.5.0's `adapt_sigma.damps - adapt_sigma.cs` (its `c_s`
    /// differs from the tutorial's, so the comparison leaves it out) at its `mu_eff`.
    #[test]
    fn the_pycma_damping_is_pycmas() {
        for (d, lambda, pycma) in [
            (40, 60, 2.840090143955224 - 0.31180038627406875),
            (20, 48, 3.0495014724243767 - 0.4234653289379399),
            (10, 40, 2.619595444634376 - 0.5),
            (10, 10, 1.3196142529106334 - 0.3196142529106334),
            (5, 80, 3.2227306105976066 - 0.5),
            (100, 400, 5.537599184747925 - 0.5),
        ] {
            let k = Constants::new(d, lambda, Damping::Pycma);
            assert!((k.ds - k.cs - pycma).abs() < 1e-9, "d {d} lambda {lambda}: {} against {pycma}", k.ds - k.cs);
        }
    }

    /// The two rules agree up to d = 5 and for the default population at every dimension; they
    /// differ for large populations from d = 6 on.
    #[test]
    fn the_damping_rules_differ_only_for_large_populations() {
        for d in (2..=60).chain([100, 300, 1000]) {
            let default_lambda = 4 + (3.0 * (d as f64).ln()).floor() as usize;
            for lambda in [default_lambda, 2 * default_lambda, 8 * default_lambda, 64 * default_lambda] {
                let (t, p) = (Constants::new(d, lambda, Damping::Tutorial), Constants::new(d, lambda, Damping::Pycma));
                if d <= 5 || lambda == default_lambda {
                    assert_eq!(t.ds, p.ds, "d {d} lambda {lambda}");
                } else {
                    assert!(p.ds >= t.ds, "d {d} lambda {lambda}");
                }
            }
        }
        let (t, p) = (Constants::new(40, 60, Damping::Tutorial), Constants::new(40, 60, Damping::Pycma));
        assert!(p.ds > 2.0 * t.ds, "{} against {}", p.ds, t.ds);
    }
}
