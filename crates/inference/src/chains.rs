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

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::intervals::{Trajectories, interval};
use crate::process::{ChainState, ChainWork, Context, prox_metric, step};
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
    /// Lower ends of the intervals at `spec.level`.
    pub lower: Vec<f64>,
    /// Upper ends.
    pub upper: Vec<f64>,
    /// Covariance of the estimates (`p x p`, row-major).
    pub cov_params: Vec<f64>,
    /// Random scaling: every chain's interval (`K x p` lower and upper ends).
    pub chain_intervals: Option<(Vec<f64>, Vec<f64>)>,
    /// The chains: the estimate of every chain at every step.
    pub trajectories: Trajectories,
    /// Steps whose batch covariance was singular and ridged ([`crate::direction::RIDGE`]), over
    /// all chains.
    pub ridged_steps: u64,
}

/// Runs the chains of `spec` for `model` on `data` (checked first), calling `progress()` after
/// each finished chain.
pub fn run(model: &dyn Model, data: &Data, spec: &InferenceSpec, progress: Option<&(dyn Fn() + Sync)>) -> Result<Fit, InferenceError> {
    let p = model.dim();
    model.check(data)?;
    spec.check(data.len(), p)?;
    if spec.method == Method::Madprox && !matches!(model.name(), "linear" | "logistic" | "poisson") {
        return Err(InferenceError::invalid("method", "madprox", format!("a GLM model (linear, logistic, poisson), not {}", model.name())));
    }
    let theta0 = spec.start(p);
    let prox = prox_metric(model, data, spec, &theta0)?;
    let ctx = Context { model, data, spec, prox };
    let chains: Vec<(Vec<f64>, ChainState)> = (0..spec.chains)
        .into_par_iter()
        .map(|k| -> Result<_, InferenceError> {
            let mut state = ChainState::new(k as u64, spec.seed, &theta0, spec.method);
            let mut work = ChainWork::default();
            let mut path = Vec::with_capacity((spec.steps + 1) * p);
            path.extend_from_slice(state.estimate());
            for _ in 0..spec.steps {
                step(&ctx, &mut state, &mut work)?;
                path.extend_from_slice(state.estimate());
            }
            if let Some(f) = progress {
                f();
            }
            Ok((path, state))
        })
        .collect::<Result<_, _>>()?;
    let ridged_steps = chains.iter().map(|(_, s)| s.ridged).sum();
    let values: Vec<f64> = chains.iter().flat_map(|(path, _)| path.iter().copied()).collect();
    let trajectories = Trajectories { chains: spec.chains, steps: spec.steps, p, values };
    let finals: Vec<&[f64]> = chains.iter().map(|(_, s)| s.estimate()).collect();
    let (params, cov_params) = mean_cov(&finals, p);
    let mut fit = Fit {
        spec: spec.clone(),
        model: model.name().to_string(),
        bse: (0..p).map(|j| cov_params[j * p + j].sqrt()).collect(),
        params,
        lower: vec![0.0; p],
        upper: vec![0.0; p],
        cov_params,
        chain_intervals: None,
        trajectories,
        ridged_steps,
    };
    if spec.method == Method::RandomScaling {
        let c = crate::random_scaling::critical_value(spec.level)?;
        let t = spec.steps as f64;
        let (mut lo, mut hi) = (Vec::with_capacity(spec.chains * p), Vec::with_capacity(spec.chains * p));
        for (_, s) in &chains {
            let v = s.random_scaling_variance().expect("at least one step");
            for j in 0..p {
                let half = c * (v[j * p + j].max(0.0) / t).sqrt();
                lo.push(s.average[j] - half);
                hi.push(s.average[j] + half);
            }
        }
        let s0 = &chains[0].1;
        let v0 = s0.random_scaling_variance().expect("at least one step");
        fit.params = s0.average.clone();
        fit.bse = (0..p).map(|j| (v0[j * p + j].max(0.0) / t).sqrt()).collect();
        fit.cov_params = v0.iter().map(|v| v / t).collect();
        fit.lower = lo[..p].to_vec();
        fit.upper = hi[..p].to_vec();
        fit.chain_intervals = Some((lo, hi));
    } else {
        let mut sample = Vec::with_capacity(spec.chains);
        for j in 0..p {
            sample.clear();
            sample.extend(finals.iter().map(|f| f[j]));
            let (_, lo, hi) = interval(&sample, spec.level, spec.interval);
            fit.lower[j] = lo;
            fit.upper[j] = hi;
        }
    }
    Ok(fit)
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

impl Fit {
    /// Whether the intervals read off the chains are quantiles.
    pub fn quantile_intervals(&self) -> bool {
        self.spec.interval == IntervalKind::Quantile && self.spec.method != Method::RandomScaling
    }
}
