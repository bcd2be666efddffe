//! Fast-INGO: INGO with a diagonal covariance (thesis Alg. 2, eq. 3.30-3.31), O(N d) per
//! generation.
//!
//! With `x_i = mu_t + sigma_t (.) z_i` and scores `s_i`:
//!
//! ```text
//! sigma_{t+1}^{-2} = sigma_t^{-2} (.) (1 + beta sum_i s_i z_i^2)                     (normalized scores)
//! sigma_{t+1}^{-2} = (1 - beta) sigma_t^{-2} + beta sigma_t^{-2} (.) sum_i w_i z_i^2   (log-rank, 3.30)
//! mu_{t+1} = mu_t - beta sigma_{t+1}^2 (.) sigma_t^{-1} (.) sum_i s_i z_i               (3.31)
//! ```
//!
//! Alg. 2 as printed mixes rank weights in the variance step with raw `f_i/(N std)` in the mean
//! step (erratum 39 of NOTES (f)); we follow the thesis code and use one transform for both, the
//! normalized one by default. A coordinate whose factor `1 + beta a_j` would not be positive gets
//! its step halved until it is (reported as an event). Samples are antithetic pairs by default, as in
//! Alg. 2.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use serde::{Deserialize, Serialize};

use super::{Sampling, ScoreTransform};
use crate::points::Work;
use crate::progress::Progress;
use crate::sizes::{popsize, thesis_population, unit_open};

/// Parameters of [`FastIngo`]; `None` takes the thesis default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FastIngoParams {
    /// Samples per generation `N`. Default `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Step size `beta` in (0, 1). Default `1/sqrt(d)` (thesis sec. 3.7.1).
    pub beta: Option<f64>,
    /// Score transform. Default normalized.
    pub score: ScoreTransform,
    /// Sampling. Default antithetic (Alg. 2).
    pub sampling: Sampling,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

impl Default for FastIngoParams {
    fn default() -> Self {
        FastIngoParams {
            popsize: None,
            beta: None,
            score: ScoreTransform::Normalized,
            sampling: Sampling::Antithetic,
            on_nonfinite: NonFinitePolicy::Error,
        }
    }
}

/// [`FastIngoParams`] validated for one dimension ([`ParamGuard`]), every default resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FastIngoChecked {
    n: usize,
    beta: f64,
    score: ScoreTransform,
    sampling: Sampling,
    policy: NonFinitePolicy,
}

impl ParamGuard for FastIngoParams {
    type Checked = FastIngoChecked;

    fn check(&self, d: usize) -> Result<FastIngoChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        self.sampling.check(n)?;
        let beta = unit_open("beta", self.beta.unwrap_or(1.0 / (d as f64).sqrt()))?;
        Ok(FastIngoChecked { n, beta, score: self.score, sampling: self.sampling, policy: self.on_nonfinite })
    }
}

/// Buffers reused across generations: values, scores, rank order, `a_j`, `g_j`.
#[derive(Clone, Debug, Default)]
struct Scratch(Vec<f64>, Vec<f64>, Vec<usize>, Vec<f64>, Vec<f64>);

/// Fast-INGO (thesis Alg. 2): diagonal-covariance INGO.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FastIngo {
    p: FastIngoChecked,
    mu: Vec<f64>,
    sigma: Vec<f64>,
    z: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

impl FastIngo {
    /// Starts at `mu_1 = x0` with `sigma_1 = sigma0 * 1`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &FastIngoParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let p = params.check(d)?;
        crate::sizes::check_footprint("Fast-INGO", d, p.n, crate::sizes::Footprint::Diagonal)?;
        let n = p.n;
        Ok(FastIngo { z: vec![0.0; d * n], sigma: vec![sigma0; d], mu: x0, p, progress: Progress::new(seed), scratch: Work::default() })
    }

    /// Per-coordinate standard deviations `sigma_t`.
    pub fn sigma(&self) -> &[f64] {
        &self.sigma
    }
}

impl AskTell for FastIngo {
    crate::identity!("fast-ingo", dim = mu, popsize = p.n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        let (sampling, z) = (self.p.sampling, &mut self.z);
        self.progress.draw_once(|rng| sampling.fill(rng, d, n, z));
        out.resize(n, d);
        for (row, z) in out.rows_mut().zip(self.z.chunks_exact(d)) {
            for (((x, &m), &s), &zi) in row.iter_mut().zip(&self.mu).zip(&self.sigma).zip(z) {
                *x = m + s * zi;
            }
        }
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        let Scratch(vals, s, order, a, g) = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, n), self.p.policy, vals)?;
        s.resize(n, 0.0);
        if let Err(why) = self.p.score.compute(vals, s, order) {
            self.progress.event(EventKind::NoUpdate, format!("{why:?} values, distribution unchanged"));
            return Ok(());
        }
        // a_j = sum_i s_i z_ij^2, g_j = sum_i s_i z_ij.
        a.clear();
        a.resize(d, 0.0);
        g.clear();
        g.resize(d, 0.0);
        for (z, &si) in self.z.chunks_exact(d).zip(s.iter()) {
            for ((aj, gj), &zj) in a.iter_mut().zip(g.iter_mut()).zip(z) {
                *aj += si * zj * zj;
                *gj += si * zj;
            }
        }
        let beta = self.p.beta;
        let log_rank = self.p.score == ScoreTransform::LogRank;
        let mut halved = 0usize;
        for j in 0..d {
            // Factor on sigma^{-2}: 1 + beta a_j (normalized) or 1 - beta + beta a_j (log-rank, > 0).
            let mut step = beta;
            let mut factor = if log_rank { 1.0 - step + step * a[j] } else { 1.0 + step * a[j] };
            while factor.is_nan() || (factor <= 0.0 && step > 1e-12 * beta) {
                step *= 0.5;
                factor = 1.0 + step * a[j];
                halved += 1;
            }
            if factor.is_nan() || factor <= 0.0 || factor.is_infinite() {
                factor = 1.0;
            }
            let sigma_new = self.sigma[j] / factor.sqrt();
            // mu_{t+1} = mu_t - beta sigma_{t+1}^2 / sigma_t * g.
            self.mu[j] -= beta * sigma_new * sigma_new / self.sigma[j] * g[j];
            self.sigma[j] = sigma_new;
        }
        if halved > 0 {
            self.progress.event(EventKind::Backtrack, format!("variance steps halved {halved} time(s) to stay positive"));
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.mu
    }

    /// `max_j sigma_j`.
    fn scale(&self) -> f64 {
        self.sigma.iter().copied().fold(0.0, f64::max)
    }

    /// The diagonal's `sigma_i`.
    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        out.clone_from(&self.sigma);
        true
    }

    /// `sigma_i <- factor sigma_i`.
    fn shrink_spread(&mut self, factor: f64) {
        self.sigma.iter_mut().for_each(|s| *s *= factor);
    }

    /// `(max_i sigma_i / min_i sigma_i)^2`, the condition number of the diagonal covariance.
    fn condition(&self) -> Option<f64> {
        let (lo, hi) = self.sigma.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        Some((hi / lo).powi(2))
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes, finite mean, positive per-coordinate scales, parameters.
impl StateCheck for FastIngo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("Fast-INGO", d, self.p.n, crate::sizes::Footprint::Diagonal)?;
        self.p.sampling.check(self.p.n).map_err(|e| e.to_string())?;
        chk::in_range("beta", self.p.beta, f64::MIN_POSITIVE, 1.0 - f64::EPSILON)?;
        chk::finite("mu", &self.mu)?;
        chk::len("sigma", &self.sigma, d)?;
        chk::all_positive("sigma", &self.sigma)?;
        chk::finite_len("z", &self.z, chk::checked_len("z", d, self.p.n)?)
    }
}
