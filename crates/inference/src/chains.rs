//! Running `K` independent chains of a process ([`run`]) in parallel (rayon; chain `k` draws from
//! `derive_seed(seed, k)`, so the result does not depend on the number of threads), and what a
//! run estimates ([`Fit`]); [`run`] also fits maximum likelihood ([`Method::Mle`]), which runs no
//! chains.
//!
//! What a run estimates, by method:
//!
//! - maximum likelihood: the estimate, its Wald covariance ([`crate::mle`]) and Wald intervals,
//!   `params +- q sd` with `q` Student's t quantile on `N - p` degrees of freedom for the linear
//!   model (as statsmodels' `OLS`) and the normal one otherwise (as `Logit` and `GLM`);
//! - random scaling: each chain is one averaged-SGD run in passes over the rows
//!   ([`crate::passes`]) with its own confidence interval `abar_T +- c sqrt(V_T,jj / T)`, `c` the
//!   critical value of its mixed-normal limit ([`crate::random_scaling`]); the fit pools every
//!   chain ([`crate::passes::pool`]) and keeps each chain's interval;
//! - SGD, MasGrad, the diffusions and MadProx: the chains are independent draws of the process at
//!   every step. The fit reports the mean of the final iterates as `params` and their spread
//!   ([`Fit::process_sd`], [`Fit::bands`]): the spread of the process at inverse temperature `beta =
//!   2n / eta` (Thm. 3.1), which is the sampling spread of an estimator only at a matching
//!   temperature, so it is not offered as a standard error or a confidence interval
//!   ([`Fit::bse`] and [`Fit::conf_int`] refuse; the coverage study measures how far off it is).
//!
//! A chain run in progress is a [`Runner`]: every chain's state and path so far, serializable, so
//! a long run checkpoints between steps and resumes bit for bit.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use crate::fit::Fit;
use crate::intervals::Trajectories;
use crate::process::{ChainState, ChainWork, Context, ProxMetricMatrices, prox_metric, step};

use crate::spec::{InferenceSpec, Method};
use crate::{Data, InferenceError, model::Model};

/// A run in progress: every chain's state and path so far (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Runner {
    /// The run.
    pub spec: InferenceSpec,
    /// The model's name.
    pub model: String,
    /// Its parameters.
    pub p: usize,
    /// The data's rows.
    pub rows: usize,
    /// Every chain's state.
    pub states: Vec<ChainState>,
    /// Every chain's estimates so far, `(steps done + 1) x p` each.
    pub paths: Vec<Vec<f64>>,
    #[serde(skip)]
    prox: Option<ProxMetricMatrices>,
}

impl Runner {
    /// A new run of `spec` for `model` on `data`, checked: every chain at its start.
    pub fn new(model: &dyn Model, data: &Data, spec: &InferenceSpec) -> Result<Runner, InferenceError> {
        let p = model.dim();
        // The model's own start where the run names none (exchangeable parameters), written into
        // the run so that a checkpoint resumes from it.
        let mut spec = spec.clone();
        if spec.theta0.is_none() && !data.is_empty() {
            spec.theta0 = model.default_start(data);
        }
        let spec = &spec;
        model.check(data)?;
        model.check_identified(data)?;
        // A GLM's per-row gradients are x_i times a residual: features or responses beyond what
        // double precision can square give chains that say nothing (a column of 1e-300 barely
        // moves its coefficient), as for maximum likelihood; refused the same way.
        if let Ok(glm) = crate::mle::as_glm(model)
            && data.has_responses()
            && data.dim() == p
        {
            crate::mle::check_ranges(glm.family, data)?;
        }
        spec.check(data.len(), p, model.size_param())?;
        if spec.method == Method::Madprox && !matches!(model.name(), "linear" | "logistic" | "poisson") {
            return Err(InferenceError::invalid(
                "method",
                "madprox",
                format!("a GLM model (linear, logistic, poisson), not {}", model.name()),
            ));
        }
        if !spec.method.is_chain() {
            return Err(InferenceError::invalid(
                "method",
                spec.method.name(),
                "a chain method (maximum likelihood runs no chains to run, checkpoint or resume)",
            ));
        }
        let theta0 = spec.start(p);
        // Random scaling runs whole passes: its steps follow from the rows.
        let mut spec = spec.clone();
        if spec.method == Method::RandomScaling {
            spec.batch_size = Some(spec.batch_for(data.len()));
            spec.steps = spec.passes.saturating_mul(spec.steps_per_pass(data.len()));
            spec.check(data.len(), p, model.size_param())?;
        }
        let spec = &spec;
        let prox = prox_metric(model, data, spec, &theta0)?;
        let states: Vec<ChainState> =
            (0..spec.chains).map(|k| ChainState::new(spec.first_chain + k as u64, spec.seed, &theta0, spec.method)).collect();
        let paths = states.iter().map(|s| s.estimate().to_vec()).collect();
        Ok(Runner { spec: spec.clone(), model: model.name().to_string(), p, rows: data.len(), states, paths, prox })
    }

    /// Steps done by every chain.
    pub fn steps_done(&self) -> usize {
        self.states.first().map_or(0, |s| s.steps as usize)
    }

    /// Whether a restored run belongs to `model` and `data` (same model, parameters and rows)
    /// and is consistent ([`gradfree_core::StateCheck::check_state`]: a valid spec, every chain at
    /// the same step with a path of that length, finite values).
    pub fn check_against(&self, model: &dyn Model, data: &Data) -> Result<(), InferenceError> {
        let bad = |m: String| InferenceError::BadData(format!("the saved run does not fit: {m}"));
        if self.model != model.name() || self.p != model.dim() || self.rows != data.len() {
            return Err(bad(format!(
                "it is a {} model with {} parameters on {} rows, not {} with {} on {}",
                self.model,
                self.p,
                self.rows,
                model.name(),
                model.dim(),
                data.len()
            )));
        }
        gradfree_core::StateCheck::check_state(self).map_err(bad)
    }

    /// Advances every chain by `steps` (at most to `spec.steps`) in parallel, calling
    /// `progress(chain steps done)` as chains finish their part.
    pub fn advance(
        &mut self,
        model: &dyn Model,
        data: &Data,
        steps: usize,
        progress: Option<&(dyn Fn(u64) + Sync)>,
    ) -> Result<(), InferenceError> {
        let steps = steps.min(self.spec.steps - self.steps_done());
        if self.prox.is_none() {
            self.prox = prox_metric(model, data, &self.spec, &self.spec.start(self.p))?;
        }
        let start_curvature = if self.spec.method == Method::RandomScaling && self.steps_done() == 0 && steps > 0 {
            Some(crate::passes::curvature(model, data, &self.spec.start(self.p))?)
        } else {
            None
        };
        let ctx = Context { model, data, spec: &self.spec, prox: self.prox.clone(), partition: false, start_curvature };
        self.states.par_iter_mut().zip(self.paths.par_iter_mut()).try_for_each(|(state, path)| -> Result<(), InferenceError> {
            let mut work = ChainWork::default();
            path.reserve(steps * state.theta.len());
            for _ in 0..steps {
                step(&ctx, state, &mut work)?;
                path.extend_from_slice(state.estimate());
            }
            if let Some(f) = progress {
                f(steps as u64);
            }
            Ok(())
        })
    }

    /// What the finished chains estimate.
    pub fn finish(&self) -> Result<Fit, InferenceError> {
        let t = self.steps_done();
        if t != self.spec.steps {
            return Err(InferenceError::invalid("steps", t, format!("{} (the run is not finished)", self.spec.steps)));
        }
        let values: Vec<f64> = self.paths.iter().flat_map(|path| path.iter().copied()).collect();
        let trajectories = Trajectories::every_step(self.spec.chains, t, self.p, values);
        Ok(assemble(&self.spec, &self.model, &self.states, trajectories))
    }
}

/// A [`Runner`] without its recorded paths: what a checkpoint stores, so that writing one costs
/// what the chains' states cost and not their history. The history goes, a step at a time, to an
/// append-only file beside the checkpoint ([`Runner::records`], [`gradfree_core::RecordFile`]) and
/// comes back with [`Runner::from_state`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunnerState {
    /// The run.
    pub spec: InferenceSpec,
    /// The model's name.
    pub model: String,
    /// Its parameters.
    pub p: usize,
    /// The data's rows.
    pub rows: usize,
    /// Every chain's state.
    pub states: Vec<ChainState>,
}

impl Runner {
    /// The state without the paths ([`RunnerState`]).
    pub fn state(&self) -> RunnerState {
        RunnerState { spec: self.spec.clone(), model: self.model.clone(), p: self.p, rows: self.rows, states: self.states.clone() }
    }

    /// Bytes of one step's record: every chain's estimate, `K p` values of `f64`.
    pub fn record_bytes(&self) -> usize {
        self.spec.chains * self.p * 8
    }

    /// Appends to `out` the records of steps `from + 1..=to` (each step every chain's estimate in
    /// chain order, little-endian `f64`): what a checkpoint after step `to` adds to the records of
    /// one after step `from`.
    pub fn records(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        let p = self.p;
        out.reserve((to.saturating_sub(from)) * self.record_bytes());
        for t in from + 1..=to.min(self.steps_done()) {
            for path in &self.paths {
                for v in &path[t * p..(t + 1) * p] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }

    /// The run of a checkpoint: its `state` and the `records` of its steps ([`Runner::records`]
    /// from step 0 to the steps done), checked ([`gradfree_core::StateCheck`]).
    pub fn from_state(state: RunnerState, records: &[u8]) -> Result<Runner, InferenceError> {
        let bad = |m: String| InferenceError::BadData(format!("the saved run is inconsistent: {m}"));
        gradfree_core::StateCheck::check_state(&state).map_err(bad)?;
        let RunnerState { spec, model, p, rows, states } = state;
        let t = states.first().map_or(0, |s| s.steps as usize);
        let want = (t as u128) * (spec.chains as u128) * (p as u128) * 8;
        if records.len() as u128 != want {
            return Err(bad(format!("{} bytes of records for {t} steps of {} chains x {p} parameters", records.len(), spec.chains)));
        }
        let start = spec.start(p);
        let mut paths: Vec<Vec<f64>> = (0..spec.chains)
            .map(|_| {
                let mut v = Vec::with_capacity((t + 1) * p);
                v.extend_from_slice(&start);
                v
            })
            .collect();
        for (i, chunk) in records.chunks_exact(8).enumerate() {
            let v = f64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if !v.is_finite() {
                return Err(bad(format!("record value {i} is {v}")));
            }
            paths[(i / p) % spec.chains].push(v);
        }
        for (s, path) in states.iter().zip(&paths) {
            if path[t * p..] != *s.estimate() {
                return Err(bad(format!("chain {}'s last record is not its state", s.chain)));
            }
        }
        Ok(Runner { spec, model, p, rows, states, paths, prox: None })
    }
}

/// Restored-state invariants (a checkpoint's): a valid spec that fits in memory, every chain at
/// the same step with finite values of the right length.
impl gradfree_core::StateCheck for RunnerState {
    fn check_state(&self) -> Result<(), String> {
        if !self.spec.method.is_chain() {
            return Err(format!("its method is {}, which runs no chains (a chain run's state was edited)", self.spec.method.name()));
        }
        self.spec.check(self.rows, self.p, ("data", format!("with {} columns", self.p))).map_err(|e| e.to_string())?;
        let t = self.states.first().map_or(0, |s| s.steps);
        if t as usize > self.spec.steps || self.states.len() != self.spec.chains {
            return Err(format!(
                "{} chain states at step {t} for {} chains of {} steps",
                self.states.len(),
                self.spec.chains,
                self.spec.steps
            ));
        }
        let rs = self.spec.method == Method::RandomScaling;
        for (k, s) in self.states.iter().enumerate() {
            let shapes = s.theta.len() == self.p
                && s.average.len() == if rs { self.p } else { 0 }
                && s.rs_outer.len() == if rs { self.p * self.p } else { 0 }
                && s.rs_first.len() == if rs { self.p } else { 0 }
                && (s.gain.is_empty() || s.gain.len() == self.p * self.p)
                && (s.previous.is_empty() || s.previous.len() == self.p);
            let finite = s
                .theta
                .iter()
                .chain(&s.average)
                .chain(&s.rs_outer)
                .chain(&s.rs_first)
                .chain(&s.gain)
                .chain(&s.previous)
                .all(|v| v.is_finite());
            if s.steps != t || s.chain != self.spec.first_chain + k as u64 || !shapes || !finite || !s.rs_weight.is_finite() {
                return Err(format!("chain {k} is inconsistent"));
            }
        }
        Ok(())
    }
}

/// The [`Fit`] of finished chains `states` with their recorded `trajectories`.
pub(crate) fn assemble(spec: &InferenceSpec, model: &str, states: &[ChainState], trajectories: Trajectories) -> Fit {
    // The last record of every chain is its final estimate, in memory and streamed alike.
    let mut fit = Fit::of_chains(spec.clone(), model.to_string(), trajectories, states.iter().map(|s| s.ridged).sum());
    if spec.method == Method::RandomScaling {
        fit.rs = Some(crate::passes::RsChains::of(states, spec.decay));
        crate::passes::pool(&mut fit);
    }
    fit.settle_warnings();
    fit
}

/// Restored-state invariants (a checkpoint's): a valid spec, every chain at the same step with a
/// path of that length, finite values.
impl gradfree_core::StateCheck for Runner {
    fn check_state(&self) -> Result<(), String> {
        self.spec.check(self.rows, self.p, ("data", format!("with {} columns", self.p))).map_err(|e| e.to_string())?;
        let t = self.steps_done();
        if t > self.spec.steps || self.states.len() != self.spec.chains || self.paths.len() != self.spec.chains {
            return Err(format!(
                "{} chain states at step {t} for {} chains of {} steps",
                self.states.len(),
                self.spec.chains,
                self.spec.steps
            ));
        }
        for (s, path) in self.states.iter().zip(&self.paths) {
            let lengths_ok = s.theta.len() == self.p && path.len() == (t + 1) * self.p;
            if s.steps as usize != t || !lengths_ok || path.iter().chain(&s.theta).any(|v| !v.is_finite()) {
                return Err(format!("chain {} is inconsistent", s.chain));
            }
        }
        Ok(())
    }
}

/// Runs `spec` for `model` on `data` (checked first): maximum likelihood ([`crate::mle`]), or the
/// chains to the end, calling `progress(chain steps done)` as chains finish.
pub fn run(model: &dyn Model, data: &Data, spec: &InferenceSpec, progress: Option<&(dyn Fn(u64) + Sync)>) -> Result<Fit, InferenceError> {
    if spec.method == Method::Mle {
        return crate::mle::run_mle(model, data, spec);
    }
    let mut runner = Runner::new(model, data, spec)?;
    runner.advance(model, data, runner.spec.steps, progress)?;
    runner.finish()
}
