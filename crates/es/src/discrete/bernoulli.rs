//! Discrete INGO for binary variables (thesis sec. 3.5, eq. 3.38-3.41; app. 10.8).
//!
//! The search distribution is a product of Bernoulli laws with `p_i = P(x_i = 1) = sigmoid(eta_i)`.
//! The natural gradient in the natural parameter `eta` is the plain gradient in the mean parameter
//! `p` (thesis Thm. 1), whose score-function form is `grad_p E[f] = E[f(x) h]` with
//! `h_i = 1[x_i = 1]/p_i - 1[x_i = 0]/(1 - p_i)`. With `N` samples and the normalized scores
//! `c_n = (f_n - b)/(N sigmahat)` (3.41; `b` = mean of the values with the baseline, 0 without):
//!
//! ```text
//! eta_{t+1} = eta_t - beta sum_n c_n h^n
//! ```
//!
//! Numerics for `p` near 0 or 1: `1/p = 1 + e^{-eta}` and `1/(1-p) = 1 + e^{eta}` are computed from
//! `eta` (never by dividing by a rounded `p`), and `eta` is kept in `[-eta_max, eta_max]`
//! (default 27.6, i.e. `p` in `[1e-12, 1 - 1e-12]`), so `h` stays finite; when the number of
//! clamped coordinates changes, an event reports it.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::{check_sizes, discrete_scores};
use crate::points::Work;
use crate::progress::Progress;
use crate::sizes::{positive, unit_open};

/// Baseline subtraction by default: measured better (user guide, docs/optimize.md, `gradfree reproduce ingo-discrete`).
pub(crate) const DEFAULT_BASELINE: bool = true;

/// Parameters of [`BernoulliIngo`]; `None` takes the thesis default (sec. 3.7.3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BernoulliIngoParams {
    /// Samples per generation `N`. Default `20 + 4 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Step size `beta` > 0. Default `1/d`.
    pub beta: Option<f64>,
    /// Subtract the mean value before normalizing (default true; the thesis' (3.41) does not).
    pub baseline: Option<bool>,
    /// Initial `p_i` for every coordinate, in (0, 1). Default 0.5.
    pub p0: Option<f64>,
    /// Bound on `|eta_i|`, > 0. Default `ln((1 - 1e-12)/1e-12)`.
    pub eta_max: Option<f64>,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

/// [`BernoulliIngoParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BernoulliIngoChecked {
    n: usize,
    beta: f64,
    baseline: bool,
    eta_max: f64,
    policy: NonFinitePolicy,
    /// Initial logit `logit(p0)` clamped to `eta_max` (only used at the start; older states lack it).
    #[serde(default)]
    eta0: f64,
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(eta: f64) -> f64 {
    1.0 / (1.0 + (-eta).exp())
}

impl ParamGuard for BernoulliIngoParams {
    type Checked = BernoulliIngoChecked;

    fn check(&self, d: usize) -> Result<BernoulliIngoChecked, CoreError> {
        let n = check_sizes(d, 2, self.popsize)?;
        let beta = positive("beta", self.beta.unwrap_or(1.0 / d as f64))?;
        let p0 = unit_open("p0", self.p0.unwrap_or(0.5))?;
        let eta_max = self.eta_max.unwrap_or(logit(1.0 - 1e-12));
        if !(eta_max > 0.0 && eta_max <= 700.0) {
            return Err(CoreError::invalid("eta_max", eta_max, "in (0, 700]"));
        }
        let eta0 = logit(p0).clamp(-eta_max, eta_max);
        let baseline = self.baseline.unwrap_or(DEFAULT_BASELINE);
        Ok(BernoulliIngoChecked { n, beta, baseline, eta_max, policy: self.on_nonfinite, eta0 })
    }
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    c: Vec<f64>,
    a: Vec<f64>,
}

/// Discrete INGO over `{0, 1}^d` (thesis eq. 3.41).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BernoulliIngo {
    p: BernoulliIngoChecked,
    /// Natural parameters `eta_i = logit(p_i)`.
    eta: Vec<f64>,
    /// `p_i = sigmoid(eta_i)`.
    prob: Vec<f64>,
    /// Samples of the pending generation (`N` rows of `d` bits as 0.0/1.0).
    x: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    /// Coordinates at `|eta| = eta_max` after the last update.
    clamped: usize,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

impl BernoulliIngo {
    /// Starts with `p_i = p0` (default 1/2) in dimension `d >= 1`.
    pub fn new(d: usize, params: &BernoulliIngoParams, seed: u64) -> Result<Self, CoreError> {
        let p = params.check(d)?;
        let eta0 = p.eta0;
        Ok(BernoulliIngo {
            x: vec![0.0; d * p.n],
            p,
            eta: vec![eta0; d],
            prob: vec![sigmoid(eta0); d],
            progress: Progress::new(seed),
            clamped: 0,
            scratch: Work::default(),
        })
    }

    /// `P(x_i = 1)` for every coordinate.
    pub fn probabilities(&self) -> &[f64] {
        &self.prob
    }

    /// The natural parameters `eta`.
    pub fn natural_parameters(&self) -> &[f64] {
        &self.eta
    }

    /// The most likely point: `x_i = 1[p_i > 1/2]`.
    pub fn mode(&self) -> Vec<f64> {
        self.prob.iter().map(|&p| if p > 0.5 { 1.0 } else { 0.0 }).collect()
    }

    /// The score vector `h` of eq. (3.39) for the bits `x` at natural parameters `eta`:
    /// `h_i = (1 + e^{-eta_i})` if `x_i = 1`, `-(1 + e^{eta_i})` if `x_i = 0`.
    pub fn score(eta: &[f64], x: &[f64], out: &mut [f64]) {
        for ((o, &e), &xi) in out.iter_mut().zip(eta).zip(x) {
            *o = if xi > 0.5 { 1.0 + (-e).exp() } else { -(1.0 + e.exp()) };
        }
    }
}

impl AskTell for BernoulliIngo {
    crate::identity!("ingo-bernoulli", dim = eta, popsize = p.n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        let (x, prob) = (&mut self.x, &self.prob);
        self.progress.draw_once(|rng| {
            for row in x.chunks_exact_mut(d) {
                for (xi, &pi) in row.iter_mut().zip(prob) {
                    *xi = if rng.random::<f64>() < pi { 1.0 } else { 0.0 };
                }
            }
        });
        out.resize(n, d);
        out.as_mut_slice().copy_from_slice(&self.x);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let d = self.dim();
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, self.p.n), self.p.policy, &mut sc.vals)?;
        if let Err(why) = discrete_scores(&sc.vals, self.p.baseline, &mut sc.c) {
            self.progress.event(EventKind::NoUpdate, format_args!("{why:?} values, distribution unchanged"));
            return Ok(());
        }
        // sum_n c_n h_i^n = (1 + e^{-eta_i}) A_i - (1 + e^{eta_i}) (C - A_i), A_i = sum_{n: x_i = 1} c_n.
        let total: f64 = sc.c.iter().sum();
        sc.a.clear();
        sc.a.resize(d, 0.0);
        for (row, &c) in self.x.chunks_exact(d).zip(&sc.c) {
            for (a, &xi) in sc.a.iter_mut().zip(row) {
                *a += c * xi;
            }
        }
        let (beta, eta_max) = (self.p.beta, self.p.eta_max);
        let mut clamped = 0;
        for (i, &a) in sc.a.iter().enumerate() {
            let e = self.eta[i];
            let g = (1.0 + (-e).exp()) * a - (1.0 + e.exp()) * (total - a);
            let next = (e - beta * g).clamp(-eta_max, eta_max);
            clamped += (next.abs() >= eta_max) as usize;
            self.eta[i] = next;
            self.prob[i] = sigmoid(next);
        }
        if clamped != self.clamped {
            let what = format!("{clamped} of {d} coordinates at |eta| = {eta_max:.3} (p within 1e-12 of 0 or 1)");
            self.progress.event(EventKind::Clamp, what);
            self.clamped = clamped;
        }
        Ok(())
    }

    /// `p`, the mean of the search distribution.
    fn mean(&self) -> &[f64] {
        &self.prob
    }

    /// Largest standard deviation of a coordinate, `max_i sqrt(p_i (1 - p_i))`.
    fn scale(&self) -> f64 {
        self.prob.iter().map(|p| (p * (1.0 - p)).sqrt()).fold(0.0, f64::max)
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes, logits in `[-eta_max, eta_max]` with `p = sigmoid(eta)`,
/// proposals in `{0, 1}`, parameters in range.
impl StateCheck for BernoulliIngo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.eta.len();
        crate::sizes::state_sizes("Bernoulli INGO", d, self.p.n, crate::sizes::Footprint::Diagonal)?;
        chk::positive("beta", self.p.beta)?;
        chk::in_range("eta_max", self.p.eta_max, f64::MIN_POSITIVE, 700.0)?;
        for (i, &e) in self.eta.iter().enumerate() {
            chk::in_range(&format!("eta[{i}]"), e, -self.p.eta_max, self.p.eta_max)?;
        }
        chk::len("prob", &self.prob, d)?;
        if let Some(i) = (0..d).find(|&i| self.prob[i] != sigmoid(self.eta[i])) {
            return Err(format!("prob[{i}] = {} is not sigmoid(eta[{i}])", self.prob[i]));
        }
        chk::len("x", &self.x, chk::checked_len("x", d, self.p.n)?)?;
        if let Some(i) = self.x.iter().position(|v| *v != 0.0 && *v != 1.0) {
            return Err(format!("x[{i}] = {}: must be 0 or 1", self.x[i]));
        }
        chk::count("clamped", self.clamped, 0, d)
    }
}
