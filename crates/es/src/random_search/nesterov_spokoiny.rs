//! The random gradient-free method of Nesterov & Spokoiny (2017), in the mini-batch, central
//! difference form of MiNES eq. (4.18)-(4.19):
//!
//! ```text
//! g(mu_k) = 1/b sum_{i=1}^b (f(mu_k + alpha u_i) - f(mu_k - alpha u_i)) / (2 alpha) u_i,  u_i ~ N(0, I_d)   (4.18)
//! mu_{k+1} = mu_k - eta_k g(mu_k)                                                                     (4.19)
//! ```
//!
//! `g` is an unbiased estimate of the gradient of the Gaussian smoothing
//! `f_alpha(mu) = E f(mu + alpha u)`; MiNES with `Sigma = I` is this method (MiNES sec. 4.2).

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, GfRng, NonFinitePolicy, ParamGuard, Population, begin_tell, rng_from_seed};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::sizes::{positive, thesis_population};
use crate::step_control::{Backtracker, StepControl, Verdict};

/// Step-size schedule `eta_k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StepSchedule {
    /// `eta_k = eta`.
    #[default]
    Constant,
    /// `eta_k = eta / k`, `k = 1, 2, ...` (the decreasing schedule of the convergence theorems).
    InverseK,
}

/// Parameters of [`NesterovSpokoiny`]; `None` fields take the documented defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NesterovSpokoinyParams {
    /// Directions per iteration `b` (2b evaluations). Default: half the thesis' sample size,
    /// `floor(3 + floor(3 ln d)/2)`.
    pub directions: Option<usize>,
    /// Smoothing `alpha > 0`. Default `1e-6`: Nesterov–Spokoiny's bound
    /// `alpha <= 5/(3(n+4)) sqrt(eps/(2L))` for a target accuracy `eps = 1e-8`, `L = 1`, `n` up to
    /// ~20. The evaluated points lie about `alpha sqrt(d)` from the mean, so the best value seen
    /// cannot go much below `L alpha^2 d`; nonsmooth problems may want a larger `alpha`.
    pub smoothing: Option<f64>,
    /// Step size `eta > 0`. Default `b / (4 (d + 4))`: Nesterov–Spokoiny's `1/(4(n+4)L)` for a
    /// gradient Lipschitz constant `L = 1`, times the `b` directions averaged per step. Problems
    /// with a larger `L` (ill-conditioned ones) need a smaller `eta`.
    pub step_size: Option<f64>,
    /// Step schedule. Default constant.
    pub schedule: StepSchedule,
    /// Step-size control. Default `backtrack`: a step after which the pair average
    /// `(f(mu + alpha u) + f(mu - alpha u)) / 2` rose is taken back and retried with half the step
    /// (backtracking, growing back by 2^(1/4) per kept step); `none` is the paper's method.
    pub step_control: StepControl,
    /// What `tell` does with NaN/inf values. Default: error. Under `treat-as-inf`, a pair with a
    /// non-finite value is dropped from the average (a finite difference with an infinite value
    /// has no meaning); if every pair is dropped, the mean does not move.
    pub on_nonfinite: NonFinitePolicy,
}

/// [`NesterovSpokoinyParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NesterovSpokoinyChecked {
    b: usize,
    alpha: f64,
    eta: f64,
    schedule: StepSchedule,
    policy: NonFinitePolicy,
    /// Older states: `none`, the only rule they knew.
    #[serde(default = "no_control")]
    control: StepControl,
}

fn no_control() -> StepControl {
    StepControl::None
}

impl ParamGuard for NesterovSpokoinyParams {
    type Checked = NesterovSpokoinyChecked;

    fn check(&self, d: usize) -> Result<NesterovSpokoinyChecked, CoreError> {
        let b = self.directions.unwrap_or(thesis_population(d) / 2);
        if b == 0 {
            return Err(CoreError::invalid("directions", b, ">= 1"));
        }
        let alpha = positive("smoothing", self.smoothing.unwrap_or(1e-6))?;
        let eta = positive("step_size", self.step_size.unwrap_or(b as f64 / (4.0 * (d as f64 + 4.0))))?;
        Ok(NesterovSpokoinyChecked { b, alpha, eta, schedule: self.schedule, policy: self.on_nonfinite, control: self.step_control })
    }
}

/// Nesterov–Spokoiny random search (MiNES eq. 4.18-4.19). Population: `2b` points, row `2i` is
/// `mu + alpha u_i`, row `2i+1` is `mu - alpha u_i`. [`AskTell::scale`] is the infinity norm of the
/// last step `mu_{k+1} - mu_k` (the search distribution's own width `alpha` is fixed).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NesterovSpokoiny {
    p: NesterovSpokoinyChecked,
    mu: Vec<f64>,
    /// Directions of the pending generation, row-major `b x d`.
    u: Vec<f64>,
    rng: GfRng,
    k: u64,
    pending: bool,
    last_step: f64,
    grad: Vec<f64>,
    /// Backtracking state (older states: none).
    #[serde(default = "Backtracker::new")]
    backtrack: Backtracker,
    #[serde(skip)]
    vals: Vec<f64>,
    #[serde(skip)]
    means: Vec<f64>,
    #[serde(skip)]
    events: Vec<Event>,
}

/// Equality of the algorithm state (scratch buffers and undelivered events excluded).
impl PartialEq for NesterovSpokoiny {
    fn eq(&self, o: &Self) -> bool {
        self.p == o.p
            && self.mu == o.mu
            && self.u == o.u
            && self.rng == o.rng
            && self.k == o.k
            && self.pending == o.pending
            && self.last_step.to_bits() == o.last_step.to_bits()
            && self.grad == o.grad
            && self.backtrack == o.backtrack
    }
}

impl NesterovSpokoiny {
    /// Starts at `x0` with `params` and `seed`.
    pub fn new(x0: Vec<f64>, params: &NesterovSpokoinyParams, seed: u64) -> Result<Self, CoreError> {
        if x0.is_empty() {
            return Err(CoreError::Empty("x0"));
        }
        if let Some(i) = x0.iter().position(|v| !v.is_finite()) {
            return Err(CoreError::invalid("x0", format!("x0[{i}] = {}", x0[i]), "finite"));
        }
        let d = x0.len();
        let p = params.check(d)?;
        crate::sizes::check_footprint("Nesterov-Spokoiny", d, p.b.saturating_mul(2), crate::sizes::Footprint::Diagonal)?;
        let p_alpha_width = p.alpha * (d as f64).sqrt();
        Ok(NesterovSpokoiny {
            u: vec![0.0; p.b * d],
            grad: vec![0.0; d],
            p,
            mu: x0,
            rng: rng_from_seed(seed),
            k: 0,
            pending: false,
            // Before the first step, the width of the sampled pairs stands in for the step length.
            last_step: p_alpha_width,
            backtrack: Backtracker::new(),
            vals: Vec::new(),
            means: Vec::new(),
            events: Vec::new(),
        })
    }

    /// Iterations done.
    pub fn iterations(&self) -> u64 {
        self.k
    }

    /// The last gradient estimate `g(mu_k)` (4.18).
    pub fn gradient_estimate(&self) -> &[f64] {
        &self.grad
    }

    /// The step size used at iteration `k` (1-based).
    fn eta(&self, k: u64) -> f64 {
        match self.p.schedule {
            StepSchedule::Constant => self.p.eta,
            StepSchedule::InverseK => self.p.eta / k as f64,
        }
    }

    /// The multiplier of the step size left by backtracking (1 until a step is rejected).
    pub fn step_factor(&self) -> f64 {
        self.backtrack.factor
    }
}

impl AskTell for NesterovSpokoiny {
    fn name(&self) -> &'static str {
        "nesterov-spokoiny"
    }

    fn dim(&self) -> usize {
        self.mu.len()
    }

    fn population_size(&self) -> usize {
        2 * self.p.b
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let d = self.dim();
        if !self.pending {
            for v in self.u.iter_mut() {
                *v = StandardNormal.sample(&mut self.rng);
            }
            self.pending = true;
        }
        // Asking twice without telling returns the same population (no directions are lost).
        out.resize(2 * self.p.b, d);
        crate::points::write_pairs(out, &self.mu, self.p.alpha, &self.u);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let d = self.dim();
        begin_tell(&mut self.pending, population, values, (d, 2 * self.p.b), self.p.policy, &mut self.vals)?;
        self.grad.fill(0.0);
        let mut used = 0usize;
        for (i, u) in self.u.chunks_exact(d).enumerate() {
            let (fp, fm) = (self.vals[2 * i], self.vals[2 * i + 1]);
            if !(fp.is_finite() && fm.is_finite()) {
                continue;
            }
            used += 1;
            let c = (fp - fm) / (2.0 * self.p.alpha);
            for (g, uj) in self.grad.iter_mut().zip(u) {
                *g += c * uj;
            }
        }
        self.k = self.k.saturating_add(1);
        let mut level = None;
        if self.p.control == StepControl::Backtrack {
            // The level at the current mean: the average of the pair means (a non-finite value
            // makes it infinite, so the step that led here is taken back).
            self.means.clear();
            self.means.extend(self.vals.chunks_exact(2).map(|p| 0.5 * (p[0] + p[1])));
            let (mean, std) = gradfree_core::stats::mean_sd(&self.means);
            let l = (if mean.is_nan() { f64::INFINITY } else { mean }, std / (self.means.len() as f64).sqrt());
            let eta = self.eta(self.k);
            if let Verdict::Rejected(step) = self.backtrack.judge(l, &mut self.mu, eta, self.k, &mut self.events) {
                self.last_step = step;
                return Ok(());
            }
            level = Some(l);
        }
        if used == 0 {
            self.events.push(Event {
                kind: EventKind::NoFinitePair,
                message: format!("iteration {}: every pair had a non-finite value; mean unchanged", self.k),
            });
            self.last_step = 0.0;
            return Ok(());
        }
        if used < self.p.b {
            self.events.push(Event {
                kind: EventKind::DroppedPairs,
                message: format!("iteration {}: {} of {} pairs dropped for non-finite values", self.k, self.p.b - used, self.p.b),
            });
        }
        self.grad.iter_mut().for_each(|g| *g /= used as f64);
        if let Some(l) = level
            && l.0.is_finite()
        {
            self.backtrack.record(&self.mu, &self.grad, l);
        }
        let eta = self.eta(self.k) * self.backtrack.factor;
        self.last_step = crate::points::descend(&mut self.mu, self.grad.iter().map(|g| eta * g));
        Ok(())
    }

    crate::mean_and_last_step!();

    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}

/// Restored-state invariants: sizes from `d` and the number of directions, positive smoothing and
/// step, finite vectors.
impl StateCheck for NesterovSpokoiny {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        chk::count("dimension", d, 1, usize::MAX)?;
        chk::count("directions", self.p.b, 1, usize::MAX)?;
        chk::positive("smoothing", self.p.alpha)?;
        chk::positive("step_size", self.p.eta)?;
        chk::finite("mu", &self.mu)?;
        chk::finite_len("u", &self.u, chk::checked_len("u", d, self.p.b)?)?;
        chk::finite_len("grad", &self.grad, d)?;
        chk::non_negative("last_step", self.last_step)?;
        self.backtrack.check(d)
    }
}
