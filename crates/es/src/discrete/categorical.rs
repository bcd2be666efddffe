//! Discrete INGO for categorical variables (thesis sec. 3.5, eq. 3.42-3.44; app. 10.8).
//!
//! Each coordinate `x_i in {0..K-1}` (the thesis counts from 1) has probabilities `P_ij =
//! softmax_j(eta_i)`. The score-function gradient in the mean parameter `P` is `E[f(x) H]` with
//! `H_ij = 1[x_i = j]/P_ij`, and with normalized scores `c_n = (f_n - b)/(N sigmahat)` (as (3.41);
//! the thesis offers the normalization as an option for (3.44), on by default here):
//!
//! ```text
//! eta_{t+1} = eta_t - beta sum_n c_n H^n
//! ```
//!
//! Numerics: adding a constant to a row of `eta` does not change `P` (sec. 3.5), so after each
//! update every row is shifted to have maximum 0, and entries are kept `>= -logit_range` (default
//! 30), so `P_ij >= e^{-30}/K` and `H` stays finite; probabilities are computed by a stable
//! softmax and each row sums to 1. The `K` free logits per row are not a minimal
//! parameterization (erratum 43), so the update is the thesis' rule rather than an exact natural
//! gradient.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::bernoulli::DEFAULT_BASELINE;
use super::{check_sizes, discrete_scores};
use crate::points::Work;
use crate::progress::Progress;
use crate::sizes::positive;

/// Parameters of [`CategoricalIngo`]; `None` takes the default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CategoricalIngoParams {
    /// Categories `K >= 2` of every variable. Default 2 (the CLI takes it from the problem).
    pub categories: usize,
    /// Samples per generation `N`. Default `20 + 4 floor(3 + floor(3 ln d)/2)` (sec. 3.7.3).
    pub popsize: Option<usize>,
    /// Step size `beta` > 0. Default `1/d`.
    pub beta: Option<f64>,
    /// Subtract the mean value before normalizing (default true, as for [`super::BernoulliIngo`]).
    pub baseline: Option<bool>,
    /// Divide by `N sigmahat` (default true); false is (3.44) as printed, `c_n = f_n / N`.
    pub normalize: bool,
    /// Lowest logit relative to the row maximum, > 0. Default 30.
    pub logit_range: Option<f64>,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

impl Default for CategoricalIngoParams {
    fn default() -> Self {
        CategoricalIngoParams {
            categories: 2,
            popsize: None,
            beta: None,
            baseline: None,
            normalize: true,
            logit_range: None,
            on_nonfinite: NonFinitePolicy::Error,
        }
    }
}

/// [`CategoricalIngoParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CategoricalIngoChecked {
    k: usize,
    n: usize,
    beta: f64,
    baseline: bool,
    normalize: bool,
    range: f64,
    policy: NonFinitePolicy,
}

impl ParamGuard for CategoricalIngoParams {
    type Checked = CategoricalIngoChecked;

    fn check(&self, d: usize) -> Result<CategoricalIngoChecked, CoreError> {
        let k = self.categories;
        let n = check_sizes(d, k, self.popsize)?;
        let beta = positive("beta", self.beta.unwrap_or(1.0 / d as f64))?;
        let range = self.logit_range.unwrap_or(30.0);
        if !(range > 0.0 && range <= 700.0) {
            return Err(CoreError::invalid("logit_range", range, "in (0, 700]"));
        }
        Ok(CategoricalIngoChecked {
            k,
            n,
            beta,
            baseline: self.baseline.unwrap_or(DEFAULT_BASELINE),
            normalize: self.normalize,
            range,
            policy: self.on_nonfinite,
        })
    }
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    c: Vec<f64>,
    s: Vec<f64>,
}

/// Discrete INGO over `{0..K-1}^d` (thesis eq. 3.44).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CategoricalIngo {
    p: CategoricalIngoChecked,
    /// Logits, `d x K` row-major, each row with maximum 0.
    eta: Vec<f64>,
    /// Probabilities, `d x K` row-major, rows summing to 1.
    prob: Vec<f64>,
    /// Expected category index of every coordinate.
    expected: Vec<f64>,
    /// Samples of the pending generation (`N` rows of `d` indices).
    x: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

impl CategoricalIngo {
    /// Starts with uniform probabilities `1/K` in dimension `d >= 1`.
    pub fn new(d: usize, params: &CategoricalIngoParams, seed: u64) -> Result<Self, CoreError> {
        let p = params.check(d)?;
        let (k, n) = (p.k, p.n);
        let mut opt = CategoricalIngo {
            eta: vec![0.0; d * k],
            prob: vec![0.0; d * k],
            expected: vec![0.0; d],
            x: vec![0.0; d * n],
            p,
            progress: Progress::new(seed),
            scratch: Work::default(),
        };
        opt.refresh();
        Ok(opt)
    }

    /// Number of categories `K`.
    pub fn categories(&self) -> usize {
        self.p.k
    }

    /// Probabilities `P`, `d x K` row-major.
    pub fn probabilities(&self) -> &[f64] {
        &self.prob
    }

    /// Logits `eta`, `d x K` row-major (each row's maximum is 0).
    pub fn logits(&self) -> &[f64] {
        &self.eta
    }

    /// The most likely point: `x_i = argmax_j P_ij`.
    pub fn mode(&self) -> Vec<f64> {
        self.prob.chunks_exact(self.p.k).map(|row| (0..row.len()).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap_or(0) as f64).collect()
    }

    /// Shifts each row of `eta` to maximum 0, clamps it to `[-range, 0]`, and recomputes `P` and
    /// the expected indices.
    fn refresh(&mut self) {
        let k = self.p.k;
        for ((row, prow), e) in self.eta.chunks_exact_mut(k).zip(self.prob.chunks_exact_mut(k)).zip(self.expected.iter_mut()) {
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let max = if max.is_finite() { max } else { 0.0 };
            for v in row.iter_mut() {
                *v = if v.is_nan() { -self.p.range } else { (*v - max).clamp(-self.p.range, 0.0) };
            }
            let z: f64 = row.iter().map(|v| v.exp()).sum();
            for (p, v) in prow.iter_mut().zip(row.iter()) {
                *p = v.exp() / z;
            }
            *e = prow.iter().enumerate().map(|(j, p)| j as f64 * p).sum();
        }
    }
}

impl AskTell for CategoricalIngo {
    crate::identity!("ingo-categorical", dim = expected, popsize = p.n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n, k) = (self.dim(), self.p.n, self.p.k);
        let (x, prob) = (&mut self.x, &self.prob);
        self.progress.draw_once(|rng| {
            for row in x.chunks_exact_mut(d) {
                for (xi, prow) in row.iter_mut().zip(prob.chunks_exact(k)) {
                    // Inverse CDF; the last category takes any rounding remainder.
                    let mut u = rng.random::<f64>();
                    let mut j = 0;
                    while j + 1 < k && u >= prow[j] {
                        u -= prow[j];
                        j += 1;
                    }
                    *xi = j as f64;
                }
            }
        });
        out.resize(n, d);
        out.as_mut_slice().copy_from_slice(&self.x);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n, k) = (self.dim(), self.p.n, self.p.k);
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, n), self.p.policy, &mut sc.vals)?;
        let scored = if self.p.normalize {
            discrete_scores(&sc.vals, self.p.baseline, &mut sc.c)
        } else {
            let b = if self.p.baseline { sc.vals.iter().sum::<f64>() / n as f64 } else { 0.0 };
            sc.c.clear();
            sc.c.extend(sc.vals.iter().map(|v| (v - b) / n as f64));
            if sc.c.iter().all(|c| c.is_finite()) { Ok(()) } else { Err(crate::gaussian::NoScores::AllInfinite) }
        };
        if let Err(why) = scored {
            self.progress.event(EventKind::NoUpdate, format!("{why:?} values, distribution unchanged"));
            return Ok(());
        }
        // S_ij = sum_{n: x_i^n = j} c_n; eta_ij -= beta S_ij / P_ij.
        sc.s.clear();
        sc.s.resize(d * k, 0.0);
        for (row, &c) in self.x.chunks_exact(d).zip(&sc.c) {
            for (i, &xi) in row.iter().enumerate() {
                sc.s[i * k + xi as usize] += c;
            }
        }
        let beta = self.p.beta;
        for ((e, &s), &p) in self.eta.iter_mut().zip(&sc.s).zip(&self.prob) {
            if s != 0.0 {
                *e -= beta * s / p;
            }
        }
        self.refresh();
        Ok(())
    }

    /// The expected category index of every coordinate.
    fn mean(&self) -> &[f64] {
        &self.expected
    }

    /// Largest standard deviation of a coordinate's category index.
    fn scale(&self) -> f64 {
        let k = self.p.k;
        self.prob
            .chunks_exact(k)
            .zip(&self.expected)
            .map(|(row, &m)| row.iter().enumerate().map(|(j, p)| p * (j as f64 - m).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max)
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes from `d`, `K` and `N`, logits in `[-range, 0]`, each row of
/// probabilities in `[0, 1]` summing to one, expected categories in `[0, K - 1]`, proposals that
/// are category indices.
impl StateCheck for CategoricalIngo {
    fn check_state(&self) -> Result<(), String> {
        let (k, d) = (self.p.k, self.expected.len());
        crate::sizes::state_sizes("categorical INGO", d, self.p.n, crate::sizes::Footprint::Diagonal)?;
        chk::count("categories", k, 2, 1 << 16)?;
        chk::positive("beta", self.p.beta)?;
        chk::in_range("logit_range", self.p.range, f64::MIN_POSITIVE, 700.0)?;
        let dk = chk::checked_len("eta", d, k)?;
        chk::len("eta", &self.eta, dk)?;
        if let Some(i) = self.eta.iter().position(|e| !(*e >= -self.p.range && *e <= 0.0)) {
            return Err(format!("eta[{i}] = {}: must be in [-{}, 0]", self.eta[i], self.p.range));
        }
        chk::len("prob", &self.prob, dk)?;
        for (r, row) in self.prob.chunks_exact(k).enumerate() {
            let sum: f64 = row.iter().sum();
            if row.iter().any(|p| !(0.0..=1.0).contains(p)) || (sum - 1.0).abs() > 1e-9 {
                return Err(format!("prob row {r} is not a probability vector (sum {sum})"));
            }
        }
        if let Some(i) = self.expected.iter().position(|e| !(*e >= 0.0 && *e <= (k - 1) as f64)) {
            return Err(format!("expected[{i}] = {}: must be in [0, {}]", self.expected[i], k - 1));
        }
        chk::len("x", &self.x, chk::checked_len("x", d, self.p.n)?)?;
        super::check_categories("x", &self.x, k)
    }
}
