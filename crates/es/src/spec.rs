//! [`EsSpec`]: one run of an evolution strategy as every front end describes it — algorithm, start,
//! restarts, stop rules, bounds — with its defaults written once ([`EsSpec::default`] and
//! [`gradfree_core::StopSpec`]) and one [`EsSpec::build`]. `gradfree optimize` fills it from its
//! flags, the Python ES classes from their keywords (through JSON), each passing on only what the
//! user gave.

use gradfree_core::{AskTell, Bounds, BoundsHandling, DriverOptions, RunShape, StopRules, StopSpec};
use serde::{Deserialize, Serialize};

use crate::registry::{Algorithm, spec as registry_entry};
use crate::restarts::{Ipop, IpopParams, RestartMean, RestartScheme};
use crate::start::StartSpec;
use crate::{EsError, build};

/// The default initial scale `sigma0` (thesis sec. 3.7.1: `sigma_1 = 0.5`).
pub const DEFAULT_SIGMA0: f64 = 0.5;

/// Restarts of a run ([`Ipop`]: IPOP or BIPOP). Its keywords ([`RestartSpec::keywords`]) declare
/// the front ends' names: the command line's `--restarts ipop|bipop[:K]` and Python's `restarts`
/// give the scheme and the count together, a restart's mean is `--restart-from` and Python's
/// `restart_bounds`, the growth is pycma's `incpopsize`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RestartSpec {
    /// Most restarts (BIPOP: of the large regime); `None`: until a stop rule ends the run.
    #[schemars(extend("x-cli" = "restarts", "x-python" = "restarts"))]
    pub max: Option<u32>,
    /// Where each restart puts its mean (default: `x0`).
    #[schemars(with = "serde_json::Value", extend("x-cli" = "restart-from", "x-python" = "restart_bounds"))]
    pub mean: RestartMean,
    /// IPOP or BIPOP (default IPOP).
    #[schemars(extend("x-cli" = "restarts", "x-python" = "restarts"))]
    pub scheme: RestartScheme,
    /// Stop restarting once this many converged runs in a row re-found the best point
    /// ([`IpopParams::settle_runs`]; default `None`: off).
    pub settle_runs: Option<u32>,
    /// Population growth per restart ([`IpopParams::popsize_factor`], pycma's `incpopsize`;
    /// default `None`: its default, 2).
    #[schemars(extend("x-cli" = "incpopsize", "x-python" = "incpopsize"))]
    pub popsize_factor: Option<f64>,
    /// End a run converging to a value worse than an earlier run's optimum, with this ratio
    /// ([`IpopParams::worse_runs`]; default `None`: off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worse_runs: Option<f64>,
}

impl RestartSpec {
    /// The keywords of a run's restarts, read from this struct's fields
    /// ([`gradfree_core::schema::keywords`]).
    pub fn keywords() -> Vec<gradfree_core::schema::Keyword> {
        gradfree_core::schema::keywords::<RestartSpec>()
    }
}

/// One ES run. Fields left out of a JSON document take the defaults below; unknown fields are an
/// error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EsSpec {
    /// Registry name of the algorithm (default `ingo`).
    pub algorithm: String,
    /// Start point; its length is the dimension (required: no default).
    pub x0: Vec<f64>,
    /// Initial scale (default [`DEFAULT_SIGMA0`]).
    pub sigma0: f64,
    /// Seed of the algorithm (default 0).
    pub seed: u64,
    /// The algorithm's own parameters (the fields of its `*Params` struct; default none).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// IPOP or BIPOP restarts (default none).
    pub restarts: Option<RestartSpec>,
    /// Stop rules as given (defaults: [`StopSpec::resolve`]).
    pub stop: StopSpec,
    /// A box the objective is evaluated in, and how points are brought into it (default none).
    pub bounds: Option<(Bounds, BoundsHandling)>,
    /// Evaluate each population on all cores (default true; values are identical either way).
    pub parallel: bool,
    /// Seed of the evaluation contexts given to stochastic objectives (default 0).
    pub eval_seed: u64,
}

impl Default for EsSpec {
    fn default() -> Self {
        EsSpec {
            algorithm: "ingo".into(),
            x0: Vec::new(),
            sigma0: DEFAULT_SIGMA0,
            seed: 0,
            params: serde_json::Map::new(),
            restarts: None,
            stop: StopSpec::default(),
            bounds: None,
            parallel: true,
            eval_seed: 0,
        }
    }
}

impl EsSpec {
    /// The start of the algorithm.
    pub fn start(&self) -> StartSpec {
        StartSpec { x0: self.x0.clone(), sigma0: self.sigma0, seed: self.seed, params: self.params.clone() }
    }

    /// The optimizer: the algorithm, wrapped in IPOP restarts if asked (a maximum of 0 restarts is
    /// the plain algorithm).
    pub fn optimizer(&self) -> Result<Algorithm, EsError> {
        match &self.restarts {
            None | Some(RestartSpec { max: Some(0), .. }) => build(&self.algorithm, &self.start()),
            Some(r) => {
                let params = IpopParams {
                    max_restarts: r.max,
                    restart_mean: r.mean.clone(),
                    scheme: r.scheme,
                    settle_runs: r.settle_runs,
                    worse_runs: r.worse_runs,
                    ..IpopParams::default()
                };
                let params = IpopParams { popsize_factor: r.popsize_factor.unwrap_or(params.popsize_factor), ..params };
                Ok(Algorithm::Ipop(Box::new(Ipop::new(&self.algorithm, self.start(), params)?)))
            }
        }
    }

    /// The stop rules of a new run of `optimizer` (from [`EsSpec::optimizer`]) on a problem whose
    /// minimum is `minimum`, if known ([`StopSpec::resolve`]).
    pub fn stop_rules(&self, optimizer: &Algorithm, minimum: Option<f64>) -> Result<StopRules, EsError> {
        let continuous = registry_entry(&self.algorithm).is_ok_and(|a| !a.discrete());
        let shape = RunShape {
            dim: optimizer.dim(),
            population: optimizer.population_size(),
            continuous,
            restarts: self.restarts.as_ref().is_some_and(|r| r.max != Some(0)),
            minimum,
        };
        Ok(self.stop.resolve(shape)?)
    }

    /// The driver options of a run under `stop`: parallelism, evaluation seed and bounds.
    pub fn driver_options(&self, stop: StopRules) -> DriverOptions {
        let mut options = DriverOptions::new(stop);
        options.parallel = self.parallel;
        options.eval_seed = self.eval_seed;
        options.bounds = self.bounds.clone();
        options
    }

    /// Everything a run needs: the optimizer and the driver options (stop rules resolved for a
    /// problem of minimum `minimum`). The stop rules are checked against the optimizer's
    /// population when the run is made ([`gradfree_core::Run::new`]).
    pub fn build(&self, minimum: Option<f64>) -> Result<(Algorithm, DriverOptions), EsError> {
        if let Some((b, h)) = &self.bounds {
            h.validate()?;
            if b.dim() != self.x0.len() {
                return Err(gradfree_core::CoreError::DimensionMismatch {
                    what: "bounds dimension",
                    expected: self.x0.len(),
                    got: b.dim(),
                }
                .into());
            }
        }
        let optimizer = self.optimizer()?;
        let stop = self.stop_rules(&optimizer, minimum)?;
        Ok((optimizer, self.driver_options(stop)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document with only the start point is a complete run: INGO, sigma0 0.5, seed 0, the
    /// default budget and convergence rules.
    #[test]
    fn a_start_point_is_a_complete_run() {
        let spec: EsSpec = serde_json::from_str(r#"{"x0": [0.5, 0.5, 0.5]}"#).unwrap();
        assert_eq!(spec, EsSpec { x0: vec![0.5; 3], ..EsSpec::default() });
        let (opt, options) = spec.build(None).unwrap();
        assert_eq!((opt.name(), opt.dim()), ("ingo", 3));
        assert_eq!(options.stop.max_evaluations, Some(30_000));
        assert_eq!(options.stop.tol_x, Some(gradfree_core::convergence::TOL_X));
        assert!(serde_json::from_str::<EsSpec>(r#"{"x0": [1], "sigma": 2}"#).is_err(), "unknown fields are errors");
        let restarted = EsSpec { restarts: Some(RestartSpec::default()), algorithm: "cmaes".into(), ..spec };
        let (opt, options) = restarted.build(None).unwrap();
        assert!(matches!(opt, Algorithm::Ipop(_)) && options.stop.tol_x.is_none());
    }
}
