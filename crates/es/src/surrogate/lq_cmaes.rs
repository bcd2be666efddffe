//! lq-CMA-ES (Hansen 2019, "A global surrogate assisted CMA-ES", GECCO 2019, Algorithm 1): CMA-ES
//! whose populations are ranked by a linear-quadratic model of `f` ([`LqModel`]), evaluating on `f`
//! only as many points as it takes for the model's ranking to agree with the true one. The rules are
//! pycma's `cma.fitness_models.SurrogatePopulation` and `fmin_lq_surr2`:
//!
//! 1. CMA-ES samples a population of `lambda` points (with the model's optimum injected as its first
//!    point, [`CmaEs::inject`]).
//! 2. The points are sorted by the model, and the first `n_b = floor(1 + max(0.02 lambda, 4 - n))`
//!    (`n` archived points) are evaluated on `f` and added to the archive.
//! 3. The model is refitted; if Kendall's tau between the true and the model values of the newest
//!    `max(15, min(1.2 n_eval, 0.75 lambda))` archived points is at least 0.85, the generation is
//!    done; else `n_b` grows by `ceil(n_b / 2)`, the unevaluated points are re-sorted by the refitted
//!    model and the next best are evaluated, until tau passes or every point is evaluated.
//! 4. CMA-ES is told the true values when every point was evaluated, else the model's values
//!    shifted so that the smallest is the smallest true value of the generation.
//!
//! As a state machine each `ask` proposes the points of step 2 or 3 that are evaluated next (so
//! [`AskTell::population_size`] varies from 1 to `lambda`), and each `tell` takes their values;
//! [`AskTell::generation_complete`] says when step 4 has updated the distribution. The model lives
//! in the optimizer's own coordinates (under a bound transformation: before the transformation).
//! Restarts ([`crate::Ipop`]) start a fresh model, as `fmin_lq_surr2` does.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, NonFinitePolicy, Population, check_tell};
use serde::{Deserialize, Serialize};

use super::lq_model::LqModel;
use crate::gaussian::{CmaEs, CmaEsParams, Damping, Sampling};

/// Parameters of [`LqCmaes`]; `None` takes the default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LqCmaesParams {
    /// CMA-ES's population size `lambda` (points sampled per generation; fewer are evaluated).
    /// Default `4 + floor(3 ln d)`.
    pub popsize: Option<usize>,
    /// NaN/inf handling in `tell` (infinite values rank last and are not modelled).
    pub on_nonfinite: NonFinitePolicy,
    /// How CMA-ES draws its directions (as for `cmaes`). Default i.i.d.
    pub sampling: Sampling,
    /// Kendall's tau between the model's and the true ranking at which a generation stops
    /// evaluating, in (-1, 1]. Default 0.85 (Hansen 2019).
    pub tau_threshold: Option<f64>,
    /// Whether the model's optimum is injected into every population. Default true (pycma's
    /// `fmin_lq_surr2(..., inject=True)`).
    pub inject: Option<bool>,
    /// With `inject`: inject only after a generation whose ranking the model matched (Kendall's
    /// tau at least `tau_threshold`), so that a model that cannot rank a rugged function does not
    /// pull every population to its optimum. Default false (pycma injects after every
    /// generation).
    pub inject_if_ranked: Option<bool>,
    /// CSA's damping of CMA-ES (as for `cmaes`, [`Damping`]): `tutorial` (the default) or `pycma`.
    pub damping: Damping,
}

/// Kendall's tau at which a generation stops evaluating, by default (Hansen 2019).
const DEFAULT_TAU: f64 = 0.85;

/// [`LqCmaesParams`] validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LqCmaesChecked {
    tau: f64,
    inject: bool,
    inject_if_ranked: bool,
}

impl LqCmaesParams {
    fn checked(&self) -> Result<LqCmaesChecked, CoreError> {
        let tau = self.tau_threshold.unwrap_or(DEFAULT_TAU);
        if !(tau > -1.0 && tau <= 1.0) {
            return Err(CoreError::invalid("tau_threshold", tau, "in (-1, 1]"));
        }
        Ok(LqCmaesChecked { tau, inject: self.inject.unwrap_or(true), inject_if_ranked: self.inject_if_ranked.unwrap_or(false) })
    }

    /// CMA-ES's parameters: its values come from this `tell` (which applies `on_nonfinite`) or the
    /// model, so it ranks a non-finite one last.
    fn cma(&self) -> CmaEsParams {
        CmaEsParams { popsize: self.popsize, on_nonfinite: NonFinitePolicy::TreatAsInf, sampling: self.sampling, damping: self.damping }
    }
}

/// lq-CMA-ES (see the module documentation).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LqCmaes {
    params: LqCmaesParams,
    cma: CmaEs,
    model: LqModel,
    /// The current generation's population (empty between generations).
    pop: Population,
    /// True values of the current generation (`None`: not evaluated; a non-finite value is kept
    /// as `f64::MAX`, which JSON can hold, and ranks last).
    values: Vec<Option<f64>>,
    /// Points of the generation to have been evaluated after the current batch (`n_b`).
    target: usize,
    /// Indices (into `pop`) of the points asked and not yet told.
    batch: Vec<usize>,
    pending: bool,
    /// Whether the last `tell` completed a generation.
    complete: bool,
    /// Generations completed.
    generations: u64,
    /// Kendall's tau and the evaluated share of the last completed generation.
    last_tau: f64,
    last_evaluated: f64,
    #[serde(skip)]
    scratch: Vec<f64>,
}

/// Equality of the algorithm state (scratch excluded).
impl PartialEq for LqCmaes {
    fn eq(&self, o: &Self) -> bool {
        (&self.params, &self.cma, &self.model, &self.pop, &self.values, self.target, &self.batch, self.pending, self.complete)
            == (&o.params, &o.cma, &o.model, &o.pop, &o.values, o.target, &o.batch, o.pending, o.complete)
            && (self.generations, self.last_tau.to_bits(), self.last_evaluated.to_bits())
                == (o.generations, o.last_tau.to_bits(), o.last_evaluated.to_bits())
    }
}

impl LqCmaes {
    /// Starts CMA-ES at `m = x0`, `sigma = sigma0`, with an empty model.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &LqCmaesParams, seed: u64) -> Result<Self, CoreError> {
        params.checked()?;
        let d = x0.len();
        let cma = CmaEs::new(x0, sigma0, &params.cma(), seed)?;
        let lambda = cma.population_size();
        Ok(LqCmaes {
            params: params.clone(),
            model: LqModel::new(d, lambda),
            cma,
            pop: Population::empty(d),
            values: Vec::new(),
            target: 0,
            batch: Vec::new(),
            pending: false,
            complete: true,
            generations: 0,
            last_tau: 0.0,
            last_evaluated: 1.0,
            scratch: Vec::new(),
        })
    }

    /// The model.
    pub fn model(&self) -> &LqModel {
        &self.model
    }

    /// The CMA-ES the model assists.
    pub fn cma(&self) -> &CmaEs {
        &self.cma
    }

    /// CMA-ES's population size `lambda`.
    pub fn lambda(&self) -> usize {
        self.cma.population_size()
    }

    /// Generations completed.
    pub fn generations(&self) -> u64 {
        self.generations
    }

    /// Kendall's tau of the last completed generation, and the share of its points evaluated on `f`.
    pub fn last_generation(&self) -> (f64, f64) {
        (self.last_tau, self.last_evaluated)
    }

    /// Points of the current generation evaluated so far.
    fn evaluated(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }

    /// The first batch size of a generation (module documentation, step 2).
    fn first_target(&self) -> usize {
        let lambda = self.lambda();
        let n = (1.0 + (0.02 * lambda as f64).max(4.0 - self.model.len() as f64)).floor() as usize;
        n.clamp(1, lambda)
    }

    /// Chooses the next batch: the unevaluated points with the best model values, up to `target`.
    fn choose_batch(&mut self) {
        let n = self.pop.len();
        let mut order: Vec<usize> = (0..n).filter(|&i| self.values[i].is_none()).collect();
        if self.model.len() > 1 && self.model.fit() {
            let model = &self.model;
            let scratch = &mut self.scratch;
            let pred: Vec<f64> = (0..n).map(|i| model.predict(self.pop.row(i), scratch)).collect();
            order.sort_by(|&a, &b| pred[a].total_cmp(&pred[b]).then(a.cmp(&b)));
        }
        let want = self.target.saturating_sub(self.evaluated());
        order.truncate(want.max(1));
        self.batch = order;
    }

    /// Step 4: tells CMA-ES and injects the model's optimum.
    fn finish_generation(&mut self, tau: f64) -> Result<(), CoreError> {
        let n = self.pop.len();
        let evaluated = self.evaluated();
        let mut told = vec![0.0; n];
        if evaluated == n {
            for (t, v) in told.iter_mut().zip(&self.values) {
                *t = v.map_or(f64::INFINITY, |v| if v < f64::MAX { v } else { f64::INFINITY });
            }
        } else {
            let fmin = self.values.iter().flatten().copied().filter(|&v| v < f64::MAX).fold(f64::INFINITY, f64::min);
            let model = &self.model;
            let scratch = &mut self.scratch;
            let pred: Vec<f64> = (0..n).map(|i| model.predict(self.pop.row(i), scratch)).collect();
            let pmin = pred.iter().copied().filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
            for (i, t) in told.iter_mut().enumerate() {
                *t = if self.values[i].is_some_and(|v| v >= f64::MAX) || !pred[i].is_finite() {
                    f64::INFINITY
                } else if fmin.is_finite() && pmin.is_finite() {
                    pred[i] - pmin + fmin
                } else {
                    pred[i]
                };
            }
        }
        self.cma.tell(&self.pop, &told)?;
        let d = self.dim();
        self.pop.resize(0, d);
        self.values.clear();
        self.complete = true;
        self.generations += 1;
        self.last_tau = tau;
        self.last_evaluated = evaluated as f64 / n as f64;
        if self.params.checked().is_ok_and(|c| c.inject && (!c.inject_if_ranked || tau >= c.tau))
            && self.model.fit()
            && let Some(x) = self.model.xopt()
        {
            self.cma.inject(&x);
        }
        Ok(())
    }
}

impl AskTell for LqCmaes {
    fn name(&self) -> &'static str {
        "lq-cmaes"
    }

    fn dim(&self) -> usize {
        self.cma.dim()
    }

    /// The points the next `ask` proposes for evaluation on `f` (1 to `lambda`).
    fn population_size(&self) -> usize {
        if self.pending {
            self.batch.len()
        } else if self.pop.is_empty() {
            self.first_target()
        } else {
            self.target.saturating_sub(self.evaluated()).max(1)
        }
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let d = self.dim();
        if !self.pending {
            if self.pop.is_empty() {
                self.cma.ask_into(&mut self.pop)?;
                self.values.clear();
                self.values.resize(self.pop.len(), None);
                self.target = self.first_target();
                self.complete = false;
            }
            self.choose_batch();
            self.pending = true;
        }
        out.resize(self.batch.len(), d);
        for (r, &i) in self.batch.iter().enumerate() {
            out.row_mut(r).copy_from_slice(self.pop.row(i));
        }
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        if !self.pending {
            return Err(CoreError::OutOfOrder("tell called without a preceding ask"));
        }
        let mut vals = Vec::with_capacity(values.len());
        check_tell(population, values, self.dim(), self.batch.len(), self.params.on_nonfinite, &mut vals)?;
        self.pending = false;
        let batch = std::mem::take(&mut self.batch);
        for (&i, &v) in batch.iter().zip(&vals) {
            if v.is_finite() {
                self.values[i] = Some(v);
                self.model.add(self.pop.row(i), v);
            } else {
                self.values[i] = Some(f64::MAX);
            }
        }
        let evaluated = self.evaluated();
        let lambda = self.pop.len();
        self.model.sort(self.target.max(evaluated));
        self.model.fit();
        let n_tau = (15.0f64).max((1.2 * evaluated as f64).min(0.75 * lambda as f64)) as usize;
        let tau = self.model.kendall(n_tau);
        let threshold = self.params.checked().map_or(DEFAULT_TAU, |c| c.tau);
        if tau >= threshold || evaluated >= lambda {
            self.finish_generation(tau)?;
        } else {
            self.target = (self.target + self.target.div_ceil(2)).min(lambda);
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        self.cma.mean()
    }

    /// CMA-ES's `sigma * max_i sqrt(C_ii)`.
    fn scale(&self) -> f64 {
        self.cma.scale()
    }

    fn condition(&self) -> Option<f64> {
        self.cma.condition()
    }

    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        self.cma.spread_into(out)
    }

    fn shrink_spread(&mut self, factor: f64) {
        self.cma.shrink_spread(factor)
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.cma.take_events()
    }

    fn failure(&self) -> Option<&str> {
        self.cma.failure()
    }

    /// CMA-ES's rules on its distribution ([`AskTell::converged`]), judged between generations.
    fn converged(&self, tol_x: f64) -> Option<&'static str> {
        if self.complete { self.cma.converged(tol_x) } else { None }
    }

    /// Whether the last `tell` completed a generation (module documentation, step 4).
    fn generation_complete(&self) -> bool {
        self.complete
    }

    /// `lambda` once a generation is complete: the points CMA-ES sampled, evaluated or ranked by
    /// the model.
    fn generation_samples(&self) -> Option<usize> {
        self.complete.then(|| self.lambda())
    }
}

/// Restored-state invariants: CMA-ES's own, a model of the same dimension, parameters in range and
/// a generation's bookkeeping of consistent sizes.
impl StateCheck for LqCmaes {
    fn check_state(&self) -> Result<(), String> {
        self.cma.check_state()?;
        self.params.checked().map_err(|e| e.to_string())?;
        let d = self.cma.dim();
        chk::count("model dimension", self.model.dim(), d, d)?;
        self.model.check()?;
        chk::count("pop dimension", self.pop.dim(), d, d)?;
        chk::count("pop data", self.pop.as_slice().len(), self.pop.len() * d, self.pop.len() * d)?;
        chk::finite("pop", self.pop.as_slice())?;
        chk::count("values", self.values.len(), self.pop.len(), self.pop.len())?;
        chk::require("batch", self.batch.iter().all(|&i| i < self.pop.len()), "indices within the population")?;
        chk::require("pending", !self.pending || !self.batch.is_empty(), "a pending batch must not be empty")?;
        chk::require("target", self.pop.is_empty() || self.target <= self.pop.len(), "at most the population size")
    }
}
