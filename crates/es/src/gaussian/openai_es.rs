//! The "vanilla ES with antithetic gradient estimators" baseline of thesis sec. 3.7 (Salimans et
//! al. 2017): a fixed isotropic `N(mu, sigma^2 I)`, antithetic pairs, centred-rank fitness shaping,
//! and Adam (or SGD with momentum) on the mean:
//!
//! ```text
//! eps_i ~ N(0, I), eps_{i+N/2} = -eps_i,  F_i = rank_i/(N-1) - 1/2  (rank 0 = best)
//! g = 1/(N sigma) sum_i F_i eps_i + l2 mu,  mu <- mu - Adam(g)
//! ```

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, GfRng, NonFinitePolicy, ParamGuard, Population, begin_tell, rng_from_seed};
use serde::{Deserialize, Serialize};

use super::Sampling;
use crate::points::{Work, rank_order, write_points};
use crate::sizes::{non_negative, popsize, positive, thesis_population};

/// The update applied to the gradient estimate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EsOptimizer {
    /// Adam (beta1 0.9, beta2 0.999, eps 1e-8), as in the reference implementation.
    #[default]
    Adam,
    /// SGD with momentum 0.9.
    Sgd,
}

/// Parameters of [`OpenAiEs`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiEsParams {
    /// Samples per generation (even). Default `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Learning rate. Default 0.01 (the reference code's `stepsize`).
    pub learning_rate: Option<f64>,
    /// L2 coefficient added to the gradient. Default 0.005 (reference code); 0 disables.
    pub l2: Option<f64>,
    /// Adam or SGD with momentum.
    pub optimizer: EsOptimizer,
    /// NaN/inf handling (infinite values rank last).
    pub on_nonfinite: NonFinitePolicy,
}

/// [`OpenAiEsParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpenAiEsChecked {
    n: usize,
    lr: f64,
    l2: f64,
}

impl ParamGuard for OpenAiEsParams {
    type Checked = OpenAiEsChecked;

    fn check(&self, d: usize) -> Result<OpenAiEsChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        Sampling::Antithetic.check(n)?;
        let lr = positive("learning_rate", self.learning_rate.unwrap_or(0.01))?;
        let l2 = non_negative("l2", self.l2.unwrap_or(0.005))?;
        Ok(OpenAiEsChecked { n, lr, l2 })
    }
}

/// `tell` buffers: values, rank order, shaped utilities, gradient.
type TellBuffers = (Vec<f64>, Vec<usize>, Vec<f64>, Vec<f64>);

/// OpenAI-ES (Salimans et al. 2017).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenAiEs {
    n: usize,
    lr: f64,
    l2: f64,
    opt: EsOptimizer,
    policy: NonFinitePolicy,
    sigma: f64,
    mu: Vec<f64>,
    eps: Vec<f64>,
    m1: Vec<f64>,
    m2: Vec<f64>,
    t: u64,
    rng: GfRng,
    pending: bool,
    last_step: f64,
    #[serde(skip)]
    work: Work<TellBuffers>,
}

impl OpenAiEs {
    /// Starts at `mu = x0` with the fixed noise scale `sigma0`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &OpenAiEsParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let OpenAiEsChecked { n, lr, l2 } = params.check(d)?;
        crate::sizes::check_footprint("OpenAI-ES", d, n, crate::sizes::Footprint::Diagonal)?;
        Ok(OpenAiEs {
            n,
            lr,
            l2,
            opt: params.optimizer,
            policy: params.on_nonfinite,
            sigma: sigma0,
            eps: vec![0.0; d * n],
            m1: vec![0.0; d],
            m2: vec![0.0; d],
            mu: x0,
            t: 0,
            rng: rng_from_seed(seed),
            pending: false,
            last_step: sigma0,
            work: Work::default(),
        })
    }
}

impl AskTell for OpenAiEs {
    crate::identity!("openai-es", dim = mu, popsize = n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        if !self.pending {
            Sampling::Antithetic.fill(&mut self.rng, d, n, &mut self.eps);
            self.pending = true;
        }
        write_points(out, &self.mu, self.sigma, &self.eps);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let (vals, order, shaped, g) = &mut self.work.0;
        begin_tell(&mut self.pending, population, values, (d, n), self.policy, vals)?;
        rank_order(vals, order);
        shaped.resize(n, 0.0);
        for (r, &i) in order.iter().enumerate() {
            shaped[i] = r as f64 / (n - 1) as f64 - 0.5;
        }
        g.clear();
        g.extend(self.mu.iter().map(|m| self.l2 * m));
        for (e, &f) in self.eps.chunks_exact(d).zip(shaped.iter()) {
            for (gj, ej) in g.iter_mut().zip(e) {
                *gj += f * ej / (n as f64 * self.sigma);
            }
        }
        self.t = self.t.saturating_add(1);
        self.last_step = match self.opt {
            EsOptimizer::Adam => super::adam_descent(&mut self.mu, &mut self.m1, &mut self.m2, g, 1.0, self.lr, self.t),
            EsOptimizer::Sgd => {
                for (m1, &gj) in self.m1.iter_mut().zip(g.iter()) {
                    *m1 = 0.9 * *m1 + (1.0 - 0.9) * gj;
                }
                let lr = self.lr;
                crate::points::descend(&mut self.mu, self.m1.iter().map(|m| lr * m))
            }
        };
        Ok(())
    }

    crate::mean_and_last_step!();
}

/// Restored-state invariants: sizes from `d` and an even `N`, positive rates and `sigma`, finite
/// vectors, a non-negative second moment.
impl StateCheck for OpenAiEs {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("OpenAI-ES", d, self.n, crate::sizes::Footprint::Diagonal)?;
        Sampling::Antithetic.check(self.n).map_err(|e| e.to_string())?;
        chk::positive("learning_rate", self.lr)?;
        chk::non_negative("l2", self.l2)?;
        chk::positive("sigma", self.sigma)?;
        chk::finite("mu", &self.mu)?;
        chk::finite_len("eps", &self.eps, chk::checked_len("eps", d, self.n)?)?;
        chk::finite_len("m1", &self.m1, d)?;
        chk::len("m2", &self.m2, d)?;
        if let Some(i) = self.m2.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(format!("m2[{i}] = {}: must be finite and >= 0", self.m2[i]));
        }
        chk::non_negative("last_step", self.last_step)
    }
}
