//! INGO and INGOstep: the implicit natural gradient methods of thesis ch. 3 (Alg. 1 and Alg. 3)
//! with a full covariance, at O(N d^2) per generation.
//!
//! With `P_t = Sigma_t^{-1} = L_t L_t^T` (lower Cholesky factor kept in the state) samples are
//! `x_i = mu_t + L_t^{-T} z_i`, so `Sigma_t^{-1}(x_i - mu_t) = L_t z_i =: y_i` and the updates
//!
//! ```text
//! (3.28)  Sigma_{t+1}^{-1} = Sigma_t^{-1} + beta sum_i s_i Sigma_t^{-1}(x_i - mu)(x_i - mu)^T Sigma_t^{-1}
//! (3.29)  mu_{t+1} = mu_t - beta sum_i s_i Sigma_{t+1} Sigma_t^{-1}(x_i - mu_t)            (INGO, Alg. 1)
//! (3.37)  mu_{t+1} = mu_t - beta sum_i s_i (x_i - mu_t)                                  (INGOstep, Alg. 3)
//! ```
//!
//! become a rank-N update `L_{t+1} L_{t+1}^T = L_t L_t^T + beta Y diag(s) Y^T` of the factor
//! (O(N d^2), no d x d factorization, no eigendecomposition). With the log-rank transform the
//! update is `(1 - beta) P_t + beta Y diag(w) Y^T` (see [`ScoreTransform`]). INGO's look-ahead step
//! `Sigma_{t+1} Y s` needs no pass over the factor when `N <= d`: by the push-through identity it is
//! `(X - mu) (I + beta diag(s) Z^T Z)^{-1} s`, an `N x N` solve (two triangular solves otherwise).
//!
//! Negative scores can push `P_{t+1}` out of the positive-definite cone. Rule: the covariance
//! step is halved (`beta_Sigma <- beta_Sigma / 2`) until the update is positive definite, at most
//! `max_backtracks` times, after which the covariance is left unchanged; each case is reported as
//! an event. The mean step always uses the full `beta`.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::cusp_guard::CuspGuard;
pub use super::ingo_step_size::StepSize;
use super::ingo_step_size::{Csa, TpaState, scale_by_exp};
use super::{RankScratch, Sampling, ScoreTransform, pd_rank_update, report_pd};
use crate::points::{Work, rank_order};
use crate::progress::Progress;
use crate::sizes::{popsize, thesis_population, unit_open};
use gradfree_core::linalg::{mul_l, scaled_identity, solve_l, solve_lt};

/// Which mean update: INGO's look-ahead `Sigma_{t+1}` (3.29) or INGOstep's `Sigma_t` (3.37).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IngoVariant {
    /// Alg. 1.
    Ingo,
    /// Alg. 3.
    IngoStep,
}

/// Parameters of [`Ingo`]; `None` takes the thesis default (sec. 3.7.1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IngoParams {
    /// Samples per generation `N`. Default `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Step size `beta`, in (0, 1). Default `1/d` (the thesis), capped at 1/2 so that `d = 1` works.
    pub beta: Option<f64>,
    /// Score transform. Default: normalized (3.25), as in Alg. 1 and 3.
    pub score: ScoreTransform,
    /// How the `z_i` are drawn. Default i.i.d. as in Alg. 1.
    pub sampling: Sampling,
    /// Halvings of the covariance step before giving up on a generation's covariance update. Default 20.
    pub max_backtracks: Option<u32>,
    /// Overall step-size rule on top of the INGO update. Default none: the thesis algorithm.
    /// `tpa` (two-point adaptation) is the fastest measured: 3-9x fewer evaluations on Ellipsoid,
    /// Discus and Levy at d = 20, Rosenbrock solved; alone it collapses on the l1/2-Ellipsoid's
    /// cusps, which `cusp_guard` detects. With `beta = 1.5/d`, `sampling = sphere-qmc`,
    /// `cusp_guard` and BIPOP restarts it is the best INGO variant measured: level with CMA-ES +
    /// IPOP on BBOB at d = 10 and solving the thesis' functions at d = 100 (user guide, docs/results/optimizers.md, "Options that
    /// measurably help INGO").
    pub step_size: StepSize,
    /// Learning rate of the mean (the factor of `Sigma_{t+1} sum_i s_i y_i` in (3.29), of
    /// `sum_i s_i (x_i - mu)` in (3.37)), in (0, 2]. Default `beta` as in the thesis, or 1 with
    /// any [`StepSize`] rule (they assume the mean moves by about one step length per generation).
    pub mean_rate: Option<f64>,
    /// With `step_size` `tpa` or `msr`: test the rule's premise on the run, that a generation's
    /// value spread falls at least like `scale^0.6` as the scale falls, and where it does not
    /// (cusps, like the l1/2-Ellipsoid's `|x_i|^(1/2)`, thesis Table 3.1) undo the rule's net
    /// shrinking and go on with the thesis update alone (mean rate `beta` unless `mean_rate` is
    /// given). With it `tpa` solves the l1/2-Ellipsoid at d = 20 and 100. Default off.
    pub cusp_guard: bool,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

/// [`IngoParams`] validated for one dimension ([`ParamGuard`]), every default resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IngoChecked {
    n: usize,
    beta: f64,
    score: ScoreTransform,
    sampling: Sampling,
    max_backtracks: u32,
    policy: NonFinitePolicy,
    /// Defaults keep checkpoints written before these options readable.
    #[serde(default)]
    csa: Option<Csa>,
    /// `None`: `beta`.
    #[serde(default)]
    mean_rate: Option<f64>,
    /// The median success rule's damping `d_s` ([`StepSize::Msr`]; `None` otherwise).
    #[serde(default)]
    msr_damping: Option<f64>,
    /// Two-point adaptation's damping `d_s` ([`StepSize::Tpa`]; `None` otherwise).
    #[serde(default)]
    tpa_damping: Option<f64>,
    /// With the cusp guard: the mean's rate once it trips (`None`: no guard).
    #[serde(default)]
    guard_mean_rate: Option<f64>,
}

impl ParamGuard for IngoParams {
    type Checked = IngoChecked;

    fn check(&self, d: usize) -> Result<IngoChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        self.sampling.check(n)?;
        if self.step_size == StepSize::Tpa && self.sampling == Sampling::Antithetic {
            return Err(CoreError::invalid(
                "sampling",
                "antithetic",
                "iid, orthogonal or sphere-qmc with step_size = tpa (its test points would break the mirrored pairs)",
            ));
        }
        let beta = unit_open("beta", self.beta.unwrap_or((1.0 / d as f64).min(0.5)))?;
        if let Some(r) = self.mean_rate
            && !(r > 0.0 && r <= 2.0)
        {
            return Err(CoreError::invalid("mean_rate", r, "in (0, 2]"));
        }
        if self.cusp_guard && !matches!(self.step_size, StepSize::Tpa | StepSize::Msr) {
            return Err(CoreError::invalid(
                "cusp_guard",
                true,
                "false unless step_size is tpa or msr (the rules whose collapse on cusps it detects)",
            ));
        }
        Ok(IngoChecked {
            n,
            beta,
            score: self.score,
            sampling: self.sampling,
            max_backtracks: self.max_backtracks.unwrap_or(20),
            policy: self.on_nonfinite,
            mean_rate: Some(self.mean_rate.unwrap_or(if self.step_size == StepSize::None { beta } else { 1.0 })),
            msr_damping: (self.step_size == StepSize::Msr).then(|| (2.0 - 2.0 / d as f64).max(1.0)),
            tpa_damping: (self.step_size == StepSize::Tpa).then(|| 0.7 + 2.0 * (d as f64).ln()),
            guard_mean_rate: self.cusp_guard.then(|| self.mean_rate.unwrap_or(beta)),
            csa: (self.step_size == StepSize::Csa).then(|| {
                let (df, mu_eff) = (d as f64, n as f64 / 4.0);
                let c = (mu_eff + 2.0) / (df + mu_eff + 5.0);
                Csa {
                    c,
                    damping: 1.0 + 2.0 * (((mu_eff - 1.0) / (df + 1.0)).sqrt() - 1.0).max(0.0) + c,
                    chi_d: df.sqrt() * (1.0 - 1.0 / (4.0 * df) + 1.0 / (21.0 * df * df)),
                }
            }),
        })
    }
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    /// The values sorted (for the cusp guard).
    sorted: Vec<f64>,
    s: Vec<f64>,
    order: Vec<usize>,
    y: Vec<f64>,
    g: Vec<f64>,
    /// `X - mu = L^{-T} Z` of the pending generation (empty after deserialization: recomputed).
    xt: Vec<f64>,
    /// `k I + step diag(s) G` and the coefficients `u` of the look-ahead mean step.
    small: Vec<f64>,
    u: Vec<f64>,
    /// Per-coordinate sums of squared steps (for [`AskTell::scale`]).
    col_sq: Vec<f64>,
    rank: RankScratch,
}

/// INGO / INGOstep with full covariance (thesis Alg. 1 and 3).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ingo {
    variant: IngoVariant,
    p: IngoChecked,
    mu: Vec<f64>,
    /// Lower Cholesky factor of the precision `Sigma^{-1}`, column-major `d x d`.
    l: Vec<f64>,
    /// Directions of the pending generation, `d x N` column-major.
    z: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    /// RMS sampled step per coordinate of the last population.
    last_scale: f64,
    /// CSA evolution path (empty without [`StepSize::Csa`]).
    #[serde(default)]
    path: Vec<f64>,
    /// The median success rule's state ([`StepSize::Msr`]): the smoothed success `s` and the
    /// previous generation's values at ranks `floor(0.3 N)` and `ceil(0.3 N)` (none before the
    /// first generation).
    #[serde(default)]
    msr: Option<(f64, Option<(f64, f64)>)>,
    /// Two-point adaptation's state ([`StepSize::Tpa`]).
    #[serde(default)]
    tpa: Option<TpaState>,
    /// The cusp guard's state (`IngoParams::cusp_guard`; `None` without it or once it tripped).
    #[serde(default)]
    guard: Option<CuspGuard>,
    /// The step-size rule's total `ln` change of the overall scale.
    #[serde(default)]
    rule_log_scale: f64,
    /// The numerical failure that ended the run, if any ([`AskTell::failure`]).
    #[serde(default)]
    failure: Option<String>,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

/// Equality of the algorithm state (scratch and undelivered events excluded).
impl PartialEq for Ingo {
    fn eq(&self, o: &Self) -> bool {
        (self.variant, &self.p, &self.mu, &self.l, &self.z, &self.progress, &self.path, &self.msr, &self.tpa, &self.guard)
            == (o.variant, &o.p, &o.mu, &o.l, &o.z, &o.progress, &o.path, &o.msr, &o.tpa, &o.guard)
            && self.last_scale.to_bits() == o.last_scale.to_bits()
            && self.rule_log_scale.to_bits() == o.rule_log_scale.to_bits()
    }
}

impl Ingo {
    /// Starts at `mu_1 = x0` with `Sigma_1 = sigma0^2 I`.
    pub fn new(variant: IngoVariant, x0: Vec<f64>, sigma0: f64, params: &IngoParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let p = params.check(d)?;
        crate::sizes::check_footprint("INGO", d, p.n, crate::sizes::Footprint::Full)?;
        Ok(Ingo {
            variant,
            z: vec![0.0; d * p.n],
            p,
            l: scaled_identity(d, 1.0 / sigma0),
            mu: x0,
            progress: Progress::new(seed),
            last_scale: sigma0,
            path: if params.step_size == StepSize::Csa { vec![0.0; d] } else { Vec::new() },
            msr: (params.step_size == StepSize::Msr).then_some((0.0, None)),
            tpa: (params.step_size == StepSize::Tpa).then(TpaState::default),
            guard: params.cusp_guard.then(CuspGuard::default),
            rule_log_scale: 0.0,
            failure: None,
            scratch: Work::default(),
        })
    }

    /// The lower Cholesky factor `L` of the precision `Sigma^{-1} = L L^T`, column-major.
    pub fn precision_factor(&self) -> &[f64] {
        &self.l
    }

    /// The dense covariance `Sigma = L^{-T} L^{-1}`, column-major (O(d^3); for tests and reports).
    pub fn covariance(&self) -> Vec<f64> {
        let d = self.dim();
        let mut a = scaled_identity(d, 1.0);
        solve_l(&self.l, d, &mut a, d);
        solve_lt(&self.l, d, &mut a, d);
        a
    }

    /// The standard-normal directions of the pending generation (`d x N` column-major).
    pub fn directions(&self) -> &[f64] {
        &self.z
    }

    /// Like [`AskTell::ask_into`], but with caller-supplied directions `z` (`d x N` column-major,
    /// i.e. `N` rows of length `d`) instead of drawn ones: for structured or quasi-random samples
    /// (each `z_i` should be marginally `N(0, I)` for the estimator to stay unbiased).
    pub fn ask_with_directions(&mut self, z: &[f64], out: &mut Population) -> Result<(), CoreError> {
        if z.len() != self.z.len() {
            return Err(CoreError::DimensionMismatch { what: "directions length (d*N)", expected: self.z.len(), got: z.len() });
        }
        if let Some(i) = z.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::invalid("directions", format!("entry {i} = {}", z[i]), "finite"));
        }
        self.z.copy_from_slice(z);
        self.progress.pending = true;
        self.ask_into(out)
    }

    /// [`StepSize::Tpa`]: replaces the first two fresh directions by `+-r v / |v|`, `v = L^T
    /// (mu_t - mu_{t-1})`, when the mean has moved (`x - mu = L^{-T} z`, so `z = L^T (x - mu)`).
    fn place_test_points(&mut self) {
        let d = self.dim();
        let Some(tpa) = &mut self.tpa else { return };
        tpa.placed = false;
        if tpa.previous_mean.len() != d || self.z.len() < 2 * d {
            return;
        }
        let v = &mut self.scratch.0.g;
        v.clear();
        // (L^T dm)_j = sum_{i >= j} L_ij dm_i: column j of the column-major factor.
        v.extend((0..d).map(|j| (j..d).map(|i| self.l[j * d + i] * (self.mu[i] - tpa.previous_mean[i])).sum::<f64>()));
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(norm > 0.0 && norm.is_finite()) {
            // The mean did not move: the sampled directions stay and the rule skips this generation.
            return;
        }
        let radius = (0..d).map(|_| StandardNormal.sample(&mut self.progress.rng)).map(|g: f64| g * g).sum::<f64>().sqrt();
        let (head, tail) = self.z.split_at_mut(d);
        for ((a, b), vj) in head.iter_mut().zip(&mut tail[..d]).zip(v.iter()) {
            *a = vj * radius / norm;
            *b = -*a;
        }
        tpa.placed = true;
    }

    /// Feeds the generation to the cusp guard ([`super::cusp_guard`]); when it trips, undoes the
    /// rule's net shrinking of the scale and drops the rule.
    fn check_cusps(&mut self) {
        let (Some(guard), Some(rate)) = (&mut self.guard, self.p.guard_mean_rate) else { return };
        let sc = &mut self.scratch.0;
        let Some(a) = guard.observe(self.last_scale, &sc.vals, &mut sc.sorted) else { return };
        // Sigma <- exp(2 u) Sigma with u the rule's net shrinking in ln (L <- L exp(-u)), at most
        // back to the scale where the guard began.
        let undo = (-self.rule_log_scale).max(0.0).min(guard.headroom());
        let f = (-undo).exp();
        self.l.iter_mut().for_each(|v| *v *= f);
        self.guard = None;
        self.tpa = None;
        self.msr = None;
        self.p.tpa_damping = None;
        self.p.msr_damping = None;
        self.p.mean_rate = Some(rate);
        self.p.guard_mean_rate = None;
        let what = format!("value spread ~ scale^{a:.2} (cusps): step-size rule off, scale x {:.3e} (its shrinking undone)", undo.exp());
        self.progress.event(EventKind::StepRuleOff, what);
    }
}

/// `g += sum_i w_i col_i(a)` for `a` with columns of length `g.len()`.
fn add_columns(g: &mut [f64], a: &[f64], w: &[f64]) {
    for (col, &wi) in a.chunks_exact(g.len()).zip(w) {
        for (gj, v) in g.iter_mut().zip(col) {
            *gj += wi * v;
        }
    }
}

impl AskTell for Ingo {
    fn name(&self) -> &'static str {
        match self.variant {
            IngoVariant::Ingo => "ingo",
            IngoVariant::IngoStep => "ingostep",
        }
    }

    fn dim(&self) -> usize {
        self.mu.len()
    }

    fn population_size(&self) -> usize {
        self.p.n
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        if !self.progress.pending {
            self.p.sampling.fill(&mut self.progress.rng, d, n, &mut self.z);
            self.progress.pending = true;
            self.place_test_points();
        }
        out.resize(n, d);
        let x = out.as_mut_slice();
        x.copy_from_slice(&self.z);
        solve_lt(&self.l, d, x, n);
        self.scratch.0.xt.clear();
        self.scratch.0.xt.extend_from_slice(x);
        // Largest per-coordinate RMS step of the samples: an estimate of max_i sqrt(Sigma_ii)
        // without forming Sigma (whose diagonal would cost O(d^3) from the precision factor).
        let col = &mut self.scratch.0.col_sq;
        col.clear();
        col.resize(d, 0.0);
        for row in x.chunks_exact(d) {
            for (c, v) in col.iter_mut().zip(row) {
                *c += v * v;
            }
        }
        self.last_scale = (col.iter().copied().fold(0.0, f64::max) / n as f64).sqrt();
        for row in x.chunks_exact_mut(d) {
            for (v, m) in row.iter_mut().zip(&self.mu) {
                *v += m;
            }
        }
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, n), self.p.policy, &mut sc.vals)?;
        sc.s.resize(n, 0.0);
        if let Err(why) = self.p.score.compute(&sc.vals, &mut sc.s, &mut sc.order) {
            self.progress.event(EventKind::NoUpdate, format!("{why:?} values, distribution unchanged"));
            return Ok(());
        }
        let beta = self.p.beta;
        if sc.xt.len() != d * n {
            sc.xt.clear();
            sc.xt.extend_from_slice(&self.z);
            solve_lt(&self.l, d, &mut sc.xt, n);
        }
        // y_i = L_t z_i = Sigma_t^{-1} (x_i - mu_t).
        sc.y.resize(d * n, 0.0);
        mul_l(&self.l, d, &self.z, n, &mut sc.y);
        // The look-ahead mean step through the factor when the population exceeds the dimension:
        // g = sum_i s_i y_i, solved with Sigma_{t+1} below.
        let dense_lookahead = self.variant == IngoVariant::Ingo && n > d;
        if dense_lookahead {
            sc.g.clear();
            sc.g.resize(d, 0.0);
            add_columns(&mut sc.g, &sc.y, &sc.s);
        }

        // Precision update, backtracking on the covariance step to stay positive definite.
        let keep = |step: f64| if self.p.score == ScoreTransform::LogRank { 1.0 - step } else { 1.0 };
        let outcome = pd_rank_update(&mut self.l, d, &sc.y, &self.z, &sc.s, beta, keep, self.p.max_backtracks, &mut sc.rank);
        report_pd(&outcome, &mut self.progress);
        let sc = &mut self.scratch.0;
        if dense_lookahead {
            // Sigma_{t+1} g = L^{-T} L^{-1} g.
            solve_l(&self.l, d, &mut sc.g, 1);
            solve_lt(&self.l, d, &mut sc.g, 1);
        } else {
            // INGOstep (3.37): Sigma_t sum_i s_i y_i = sum_i s_i (x_i - mu_t). INGO (3.29), N <= d:
            // Sigma_{t+1} = L^{-T} (k I + step Z S Z^T)^{-1} L^{-1}, so by the push-through identity
            // Sigma_{t+1} Y s = L^{-T} Z (k I + step S G)^{-1} s = (X - mu) u with G = Z^T Z and
            // S = diag(s): an N x N solve instead of two d x d triangular solves.
            sc.u.clear();
            sc.u.extend_from_slice(&sc.s);
            let step = if self.variant == IngoVariant::Ingo { outcome.step(beta) } else { None };
            if let Some(step) = step {
                let k = keep(step);
                sc.small.clear();
                sc.small.extend(sc.rank.gram().iter().enumerate().map(|(idx, gij)| step * sc.s[idx % n] * gij));
                for i in 0..n {
                    sc.small[i * n + i] += k;
                }
                if !gradfree_core::linalg::solve_dense(&mut sc.small, n, &mut sc.u) {
                    self.progress.event(EventKind::NoUpdate, "singular mean step, mean unchanged");
                    return Ok(());
                }
            }
            sc.g.clear();
            sc.g.resize(d, 0.0);
            add_columns(&mut sc.g, &sc.xt, &sc.u);
        }
        if let Some(tpa) = &mut self.tpa {
            if let (true, Some(damping)) = (tpa.placed, self.p.tpa_damping) {
                let vals = &sc.vals;
                let better = |f: f64| vals.iter().filter(|&&v| v < f).count() as f64;
                let z = (better(vals[1]) - better(vals[0])) / (n as f64 - 1.0);
                tpa.s = 0.7 * tpa.s + 0.3 * z.signum() * z.abs().sqrt();
                self.rule_log_scale += scale_by_exp(&mut self.l, tpa.s / damping);
            }
            tpa.placed = false;
            tpa.previous_mean.clear();
            tpa.previous_mean.extend_from_slice(&self.mu);
        }
        let rate = self.p.mean_rate.unwrap_or(beta);
        for (m, g) in self.mu.iter_mut().zip(&sc.g) {
            *m -= rate * g;
        }
        if let Some(csa) = &self.p.csa {
            let norm_s = sc.s.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm_s > 0.0 {
                sc.g.fill(0.0);
                add_columns(&mut sc.g, &self.z, &sc.s);
                let a = (csa.c * (2.0 - csa.c)).sqrt() / norm_s;
                for (p, g) in self.path.iter_mut().zip(&sc.g) {
                    *p = (1.0 - csa.c) * *p - a * g;
                }
                let norm_p = self.path.iter().map(|v| v * v).sum::<f64>().sqrt();
                // Sigma <- f^2 Sigma, i.e. L <- L / f; at most a factor e per generation.
                let f = ((csa.c / csa.damping) * (norm_p / csa.chi_d - 1.0)).min(1.0).exp();
                self.l.iter_mut().for_each(|v| *v /= f);
            }
        }
        if let (Some((s, prev)), Some(damping)) = (&mut self.msr, self.p.msr_damping) {
            let sc = &mut self.scratch.0;
            let vals = &sc.vals;
            let n = vals.len() as f64;
            let j = 0.3 * n;
            let frac = j - j.floor();
            if let Some((lo, hi)) = *prev {
                let k = frac * vals.iter().filter(|&&v| v <= hi).count() as f64
                    + (1.0 - frac) * vals.iter().filter(|&&v| v < lo).count() as f64;
                *s = 0.7 * *s + 0.3 * (2.0 * k / n - 1.0);
                self.rule_log_scale += scale_by_exp(&mut self.l, *s / damping);
            }
            rank_order(vals, &mut sc.order);
            let at = |i: usize| vals[sc.order[i.min(sc.order.len() - 1)]];
            *prev = Some((at(j.floor() as usize), at(j.ceil() as usize)));
        }
        self.check_cusps();
        // A factor the update wrote is finite (rank_update checks what it writes); a rescaled one,
        // or one a failed update left behind, is scanned.
        let rescaled = self.tpa.is_some() || self.p.csa.is_some() || self.p.msr_damping.is_some();
        if (rescaled || outcome.step(beta).is_none()) && !gradfree_core::linalg::all_finite(&self.l) {
            let i = self.l.iter().position(|v| !v.is_finite()).unwrap_or(0);
            // A scale shrunk past ~1e-150 (a step-size rule run without convergence rules)
            // overflows the precision factor; the next points would be NaN.
            let (g, v) = (self.progress.generation, self.l[i]);
            self.failure = Some(format!("ingo: the precision factor overflowed ({v}) at generation {g}: the scale collapsed"));
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.mu
    }

    /// Largest per-coordinate RMS of the last sampled steps, an estimate of `max_i sqrt(Sigma_ii)`.
    fn scale(&self) -> f64 {
        self.last_scale
    }

    /// Every coordinate gets [`AskTell::scale`], the largest per-coordinate RMS of the last
    /// samples: the exact diagonal of `Sigma` would cost a d x d inverse of the precision factor
    /// per generation, and the bound is only ever too cautious.
    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        out.clear();
        out.resize(self.dim(), self.last_scale);
        true
    }

    /// `Sigma <- factor^2 Sigma`, i.e. `L <- L / factor`.
    fn shrink_spread(&mut self, factor: f64) {
        self.l.iter_mut().for_each(|v| *v /= factor);
        self.last_scale *= factor;
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }
}

/// Restored-state invariants: sizes from `d` and `N`, a finite mean, a valid Cholesky factor of
/// `Sigma^{-1}` (positive diagonal, lower triangular), parameters in their ranges.
impl StateCheck for Ingo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("INGO", d, self.p.n, crate::sizes::Footprint::Full)?;
        self.p.check_state()?;
        chk::finite("mu", &self.mu)?;
        chk::lower_factor("l", &self.l, d)?;
        chk::finite_len("z", &self.z, chk::checked_len("z", d, self.p.n)?)?;
        chk::non_negative("last_scale", self.last_scale)?;
        chk::finite_len("path", &self.path, if self.p.csa.is_some() { d } else { 0 })?;
        if let Some(t) = &self.tpa {
            chk::finite("tpa.s", std::slice::from_ref(&t.s))?;
            if !t.previous_mean.is_empty() {
                chk::finite_len("tpa.previous_mean", &t.previous_mean, d)?;
            }
        }
        if self.tpa.is_some() != self.p.tpa_damping.is_some() {
            return Err("tpa state and step_size disagree".into());
        }
        chk::finite("rule_log_scale", std::slice::from_ref(&self.rule_log_scale))?;
        if self.guard.is_some() != self.p.guard_mean_rate.is_some() {
            return Err("cusp guard state and cusp_guard disagree".into());
        }
        Ok(())
    }
}

impl IngoChecked {
    fn check_state(&self) -> Result<(), String> {
        self.sampling.check(self.n).map_err(|e| e.to_string())?;
        chk::in_range("beta", self.beta, f64::MIN_POSITIVE, 1.0 - f64::EPSILON)?;
        for (name, r) in [("mean_rate", self.mean_rate), ("guard_mean_rate", self.guard_mean_rate)] {
            if let Some(r) = r {
                chk::in_range(name, r, f64::MIN_POSITIVE, 2.0)?;
            }
        }
        if let Some(c) = &self.csa {
            chk::in_range("csa.c", c.c, f64::MIN_POSITIVE, 1.0)?;
            chk::positive("csa.damping", c.damping)?;
            chk::positive("csa.chi_d", c.chi_d)?;
        }
        Ok(())
    }
}
