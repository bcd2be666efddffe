//! Running `K` independent chains of a process ([`run`]) in parallel (rayon; chain `k` draws from
//! `derive_seed(seed, k)`, so the result does not depend on the number of threads), and what they
//! estimate ([`Fit`]).
//!
//! What the chains estimate. For SGD, MasGrad and the diffusions the chains are independent draws
//! of the process at every step; [`Fit`] reports the mean of the final iterates as `params`, their
//! covariance across chains as `cov_params` (and its diagonal's root as `bse`), and the interval
//! containing the central `level` of them as `conf_int` (quantiles or normal, [`IntervalKind`]).
//! That interval is the spread of the process at inverse temperature `beta = 2n / eta`
//! (Thm. 3.1), which is the sampling spread of an estimator only for a matching temperature; the
//! coverage study measures how it behaves. For random scaling each chain is one averaged-SGD run
//! with its own interval `abar_T +- c sqrt(V_T,jj / T)`, `c` the critical value of its mixed-normal
//! limit ([`crate::random_scaling`]); [`Fit`] reports chain 0's and keeps every chain's.
//!
//! A run in progress is a [`Runner`]: every chain's state and path so far, serializable, so a
//! long run checkpoints between steps and resumes bit for bit.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::intervals::{Trajectories, interval};
use crate::process::{ChainState, ChainWork, Context, ProxMetricMatrices, prox_metric, step};

use crate::spec::{InferenceSpec, IntervalKind, Method};
use crate::{Data, InferenceError, model::Model};

/// What an inference run estimates (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The run.
    pub spec: InferenceSpec,
    /// The model's name.
    pub model: String,
    /// The estimate of every parameter.
    pub params: Vec<f64>,
    /// Their standard errors.
    pub bse: Vec<f64>,
    /// Covariance of the estimates (`p x p`, row-major).
    pub cov_params: Vec<f64>,
    /// Random scaling: every chain's scale `sqrt(V_T,jj / T)` (`K x p`); its interval is its
    /// average `+- c scale`.
    pub rs_scale: Option<Vec<f64>>,
    /// The chains: the estimate of every chain at every step.
    pub trajectories: Trajectories,
    /// Steps whose batch covariance was singular and ridged ([`crate::direction::RIDGE`]), over
    /// all chains.
    pub ridged_steps: u64,
    /// Streamed runs: the rows read (each used once).
    #[serde(default)]
    pub streamed_rows: Option<u64>,
    /// What the estimate should be read with (separated classes, [`crate::separation`]); the
    /// summary prints them under the table and the front ends raise them as warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Fit {
    /// The intervals at coverage `level` (`lower`, `upper`), as `spec.interval` says: quantiles
    /// or normal intervals of the chains' final estimates; for random scaling chain 0's.
    pub fn conf_int(&self, level: f64) -> Result<(Vec<f64>, Vec<f64>), InferenceError> {
        let (lo, hi) = self.chain_intervals(level)?;
        let p = self.params.len();
        match &self.rs_scale {
            Some(_) => Ok((lo[..p].to_vec(), hi[..p].to_vec())),
            None => Ok((lo, hi)),
        }
    }

    /// Random scaling: every chain's interval at `level` (`K x p` lower and upper ends); for the
    /// other methods the chains' interval (`p` values), as [`Fit::conf_int`].
    pub fn chain_intervals(&self, level: f64) -> Result<(Vec<f64>, Vec<f64>), InferenceError> {
        if !(level > 0.0 && level < 1.0) {
            return Err(InferenceError::invalid("level", level, "in (0, 1)"));
        }
        let (traj, p) = (&self.trajectories, self.params.len());
        match &self.rs_scale {
            Some(scale) => {
                let c = crate::random_scaling::critical_value(level)?;
                let (mut lo, mut hi) = (Vec::with_capacity(scale.len()), Vec::with_capacity(scale.len()));
                for k in 0..traj.chains {
                    for (j, a) in traj.at(k, traj.steps).iter().enumerate() {
                        lo.push(a - c * scale[k * p + j]);
                        hi.push(a + c * scale[k * p + j]);
                    }
                }
                Ok((lo, hi))
            }
            None => {
                let (mut lo, mut hi, mut sample) = (vec![0.0; p], vec![0.0; p], Vec::new());
                for j in 0..p {
                    traj.across_chains(traj.steps, j, &mut sample);
                    let (_, l, h) = interval(&sample, level, self.spec.interval);
                    lo[j] = l;
                    hi[j] = h;
                }
                Ok((lo, hi))
            }
        }
    }

    /// The fit of one run of all the chains of `parts`: runs of the same spec on the same data that
    /// differ only in `chains` and `first_chain`, given in order of `first_chain` and together
    /// covering chains `0..K` (workers of an executor each running a slice). Equal, bit for bit,
    /// to the fit of one run of `K` chains.
    pub fn combine(parts: &[Fit]) -> Result<Fit, InferenceError> {
        let bad = |m: String| InferenceError::invalid("parts", format!("{} fits", parts.len()), m);
        let first = parts.first().ok_or_else(|| bad("at least one fit".into()))?;
        let same = |f: &Fit| InferenceSpec { chains: 0, first_chain: 0, ..f.spec.clone() };
        let mut next = 0;
        for f in parts {
            if same(f) != same(first)
                || f.model != first.model
                || f.trajectories.steps != first.trajectories.steps
                || f.streamed_rows.is_some()
            {
                return Err(bad("runs of one spec, model and number of steps, in memory".into()));
            }
            if f.spec.first_chain != next {
                return Err(bad(format!(
                    "consecutive chains from 0; a part starts at chain {} where {next} was expected",
                    f.spec.first_chain
                )));
            }
            next += f.spec.chains as u64;
        }
        let p = first.params.len();
        let mut spec = first.spec.clone();
        spec.chains = next as usize;
        let values: Vec<f64> = parts.iter().flat_map(|f| f.trajectories.values.iter().copied()).collect();
        let trajectories = Trajectories::every_step(spec.chains, first.trajectories.steps, p, values);
        let mut fit = Fit::of_chains(spec, first.model.clone(), trajectories, parts.iter().map(|f| f.ridged_steps).sum());
        if first.spec.method == Method::RandomScaling {
            fit.params = first.params.clone();
            fit.bse = first.bse.clone();
            fit.cov_params = first.cov_params.clone();
            fit.rs_scale = Some(parts.iter().flat_map(|f| f.rs_scale.iter().flatten().copied()).collect());
        }
        Ok(fit)
    }

    /// The fit read off the chains' final records: their mean, covariance and its diagonal's
    /// root (random scaling's own estimates are set by the caller).
    fn of_chains(spec: InferenceSpec, model: String, trajectories: Trajectories, ridged_steps: u64) -> Fit {
        let p = trajectories.p;
        let finals: Vec<&[f64]> = (0..trajectories.chains).map(|k| trajectories.at(k, trajectories.steps)).collect();
        let (params, cov_params) = mean_cov(&finals, p);
        // Chains that agree exactly have seen no sampling noise in that coordinate (the same
        // mini-batch every step, a unit that never activates): their interval has width 0.
        let mut warnings = Vec::new();
        if finals.len() == 1 && spec.method != Method::RandomScaling {
            warnings.push(
                "one chain: the standard errors and intervals are the spread across chains, so they are 0 here and mean nothing (use chains >= 2, or random-scaling)"
                    .to_string(),
            );
        }
        if finals.len() >= 2 {
            let stuck: Vec<String> = (0..p).filter(|&j| finals.iter().all(|f| f[j] == finals[0][j])).map(|j| j.to_string()).collect();
            if !stuck.is_empty() {
                warnings.push(format!(
                    "the {} chains end at exactly the same value in coordinate(s) {}: no sampling noise reached them (every mini-batch the same, or a parameter the data never move), so their interval has width 0 and means nothing",
                    finals.len(),
                    stuck.join(", ")
                ));
            }
        }
        Fit {
            bse: (0..p).map(|j| cov_params[j * p + j].sqrt()).collect(),
            params,
            cov_params,
            rs_scale: None,
            ridged_steps,
            streamed_rows: None,
            warnings,
            model,
            spec,
            trajectories,
        }
    }

    /// Whether the intervals read off the chains are quantiles.
    pub fn quantile_intervals(&self) -> bool {
        self.spec.interval == IntervalKind::Quantile && self.spec.method != Method::RandomScaling
    }
}

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
        model.check(data)?;
        spec.check(data.len(), p, model.size_param())?;
        if spec.method == Method::Madprox && !matches!(model.name(), "linear" | "logistic" | "poisson") {
            return Err(InferenceError::invalid(
                "method",
                "madprox",
                format!("a GLM model (linear, logistic, poisson), not {}", model.name()),
            ));
        }
        let theta0 = spec.start(p);
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
        let ctx = Context { model, data, spec: &self.spec, prox: self.prox.clone(), partition: false };
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
                && s.rs_first.len() == if rs { self.p } else { 0 };
            let finite = s.theta.iter().chain(&s.average).chain(&s.rs_outer).chain(&s.rs_first).all(|v| v.is_finite());
            if s.steps != t || s.chain != self.spec.first_chain + k as u64 || !shapes || !finite || !s.rs_weight.is_finite() {
                return Err(format!("chain {k} is inconsistent"));
            }
        }
        Ok(())
    }
}

/// The [`Fit`] of finished chains `states` with their recorded `trajectories`.
pub(crate) fn assemble(spec: &InferenceSpec, model: &str, states: &[ChainState], trajectories: Trajectories) -> Fit {
    let p = trajectories.p;
    // The last record of every chain is its final estimate, in memory and streamed alike.
    let mut fit = Fit::of_chains(spec.clone(), model.to_string(), trajectories, states.iter().map(|s| s.ridged).sum());
    if spec.method == Method::RandomScaling {
        let tf = states[0].steps as f64;
        let mut scale = Vec::with_capacity(spec.chains * p);
        for s in states {
            let v = s.random_scaling_variance().expect("at least one step");
            scale.extend((0..p).map(|j| (v[j * p + j].max(0.0) / tf).sqrt()));
        }
        let v0 = states[0].random_scaling_variance().expect("at least one step");
        fit.params = states[0].average.clone();
        fit.bse = scale[..p].to_vec();
        fit.cov_params = v0.iter().map(|v| v / tf).collect();
        fit.rs_scale = Some(scale);
    }
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

/// Runs the chains of `spec` for `model` on `data` (checked first) to the end, calling
/// `progress(chain steps done)` as chains finish.
pub fn run(model: &dyn Model, data: &Data, spec: &InferenceSpec, progress: Option<&(dyn Fn(u64) + Sync)>) -> Result<Fit, InferenceError> {
    let mut runner = Runner::new(model, data, spec)?;
    runner.advance(model, data, spec.steps, progress)?;
    runner.finish()
}

/// The mean and the sample covariance (`p x p` row-major) of `rows`.
fn mean_cov(rows: &[&[f64]], p: usize) -> (Vec<f64>, Vec<f64>) {
    let k = rows.len() as f64;
    let mut mean = vec![0.0; p];
    for r in rows {
        mean.iter_mut().zip(r.iter()).for_each(|(m, v)| *m += v / k);
    }
    let mut cov = vec![0.0; p * p];
    if rows.len() > 1 {
        for r in rows {
            for i in 0..p {
                for j in 0..p {
                    cov[i * p + j] += (r[i] - mean[i]) * (r[j] - mean[j]) / (k - 1.0);
                }
            }
        }
    }
    (mean, cov)
}
