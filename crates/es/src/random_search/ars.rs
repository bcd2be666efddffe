//! Augmented random search (Mania, Guy & Recht 2018, "Simple random search provides a
//! competitive approach to reinforcement learning", Alg. 1, versions V1-t / V2-t), the baseline
//! of policy search that RL practitioners know. Written for minimization (`f = −reward`):
//!
//! ```text
//! δ_1..δ_N ~ N(0, I),  evaluate f(θ ± ν δ_k)
//! keep the b directions with the smallest min(f(θ + νδ_k), f(θ − νδ_k))
//! θ ← θ − α / (b σ_f) Σ_{k kept} (f(θ + νδ_k) − f(θ − νδ_k)) δ_k
//! ```
//!
//! with `σ_f` the standard deviation of the `2b` kept values. V2's state normalization belongs
//! to the policy (the observation filter), not to this search, and lives with the rollouts.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, GfRng, NonFinitePolicy, ParamGuard, Population, begin_tell, rng_from_seed};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::points::{Work, write_pairs};
use crate::sizes::{popsize, positive, thesis_population};

/// Parameters of [`Ars`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ArsParams {
    /// Evaluations per iteration, `2N` for `N` directions (even). Default
    /// `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Directions kept, `b <= N`. Default `N` (all; ARS's `b < N` helps on some tasks).
    pub top_directions: Option<usize>,
    /// Step size `α`. Default 0.02 (Mania et al.'s value for several MuJoCo tasks).
    pub learning_rate: Option<f64>,
    /// NaN/inf handling (a pair with an infinite value ranks last and, if kept, adds nothing).
    pub on_nonfinite: NonFinitePolicy,
}

/// [`ArsParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArsChecked {
    n: usize,
    top: usize,
    lr: f64,
}

impl ParamGuard for ArsParams {
    type Checked = ArsChecked;

    fn check(&self, d: usize) -> Result<ArsChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        if !n.is_multiple_of(2) {
            return Err(CoreError::invalid("popsize", n, "even (antithetic pairs)"));
        }
        let top = self.top_directions.unwrap_or(n / 2);
        if top == 0 || top > n / 2 {
            return Err(CoreError::invalid("top_directions", top, format!("in 1..={} (popsize / 2)", n / 2)));
        }
        let lr = positive("learning_rate", self.learning_rate.unwrap_or(0.02))?;
        Ok(ArsChecked { n, top, lr })
    }
}

/// ARS (Mania et al. 2018, Alg. 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ars {
    n: usize,
    top: usize,
    lr: f64,
    policy: NonFinitePolicy,
    nu: f64,
    mu: Vec<f64>,
    /// Directions of the pending iteration, `d x N/2`.
    delta: Vec<f64>,
    rng: GfRng,
    pending: bool,
    last_step: f64,
    #[serde(skip)]
    work: Work<(Vec<f64>, Vec<usize>, Vec<f64>)>,
}

impl Ars {
    /// Starts at `mu = x0` with the exploration noise `ν = sigma0`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &ArsParams, seed: u64) -> Result<Self, CoreError> {
        crate::gaussian::check_start(&x0, sigma0)?;
        let d = x0.len();
        let ArsChecked { n, top, lr } = params.check(d)?;
        crate::sizes::check_footprint("ARS", d, n, crate::sizes::Footprint::Diagonal)?;
        Ok(Ars {
            n,
            top,
            lr,
            policy: params.on_nonfinite,
            nu: sigma0,
            delta: vec![0.0; d * (n / 2)],
            mu: x0,
            rng: rng_from_seed(seed),
            pending: false,
            last_step: sigma0,
            work: Work((Vec::with_capacity(n), Vec::with_capacity(n / 2), Vec::with_capacity(d))),
        })
    }
}

impl AskTell for Ars {
    crate::identity!("ars", dim = mu, popsize = n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        if !self.pending {
            for v in self.delta.iter_mut() {
                *v = StandardNormal.sample(&mut self.rng);
            }
            self.pending = true;
        }
        out.resize(self.n, self.dim());
        write_pairs(out, &self.mu, self.nu, &self.delta);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let (vals, order, step) = &mut self.work.0;
        begin_tell(&mut self.pending, population, values, (d, n), self.policy, vals)?;
        // Directions ranked by the better value of their pair (infinite pairs last; ties by index).
        order.clear();
        order.extend(0..n / 2);
        order.sort_by(|&a, &b| {
            let fa = vals[2 * a].min(vals[2 * a + 1]);
            let fb = vals[2 * b].min(vals[2 * b + 1]);
            fa.total_cmp(&fb).then(a.cmp(&b))
        });
        let kept = &order[..self.top];
        let sd = gradfree_core::stats::finite_population_sd(kept.iter().flat_map(|&k| [vals[2 * k], vals[2 * k + 1]]));
        self.last_step = if sd > 0.0 && sd.is_finite() {
            let c = self.lr / (self.top as f64 * sd);
            step.clear();
            step.resize(d, 0.0);
            for &k in kept {
                let diff = vals[2 * k] - vals[2 * k + 1];
                if diff.is_finite() {
                    step.iter_mut().zip(&self.delta[k * d..(k + 1) * d]).for_each(|(s, e)| *s += c * diff * e);
                }
            }
            crate::points::descend(&mut self.mu, step.iter().copied())
        } else {
            0.0
        };
        Ok(())
    }

    crate::mean_and_last_step!();
}

/// Restored-state invariants: sizes, an even population, `1 <= b <= N/2`, positive rates,
/// finite vectors.
impl StateCheck for Ars {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("ARS", d, self.n, crate::sizes::Footprint::Diagonal)?;
        chk::require("popsize", self.n.is_multiple_of(2), "must be even")?;
        chk::count("top_directions", self.top, 1, self.n / 2)?;
        chk::positive("learning_rate", self.lr)?;
        chk::positive("sigma", self.nu)?;
        chk::finite("mu", &self.mu)?;
        chk::finite_len("delta", &self.delta, chk::checked_len("delta", d, self.n / 2)?)?;
        chk::non_negative("last_step", self.last_step)
    }
}
