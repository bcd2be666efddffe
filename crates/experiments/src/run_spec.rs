//! One optimization run of a benchmark problem as a serializable specification: what `gradfree
//! optimize` runs and stores as a checkpoint's metadata. The ES part of it is a
//! [`gradfree_es::EsSpec`] (built by [`RunSpec::es_spec`]), so a run is assembled by the ES crate
//! for the command line as for Python; this file adds what a benchmark problem decides.
//!
//! Defaults (where the caller gives nothing): the stop rules of [`gradfree_core::StopSpec`]
//! (budget `10^4 d` evaluations, a target `f* + 1e-10` when the problem's minimum is known, the
//! convergence rules); start point uniform in the problem's initial region (from
//! `derive_seed(seed, 1)`); `sigma0 = 0.3` of the widest side of the problem's domain, or
//! [`gradfree_es::spec::DEFAULT_SIGMA0`] without a domain; the problem's box enforced by pycma's
//! smooth transformation (`BoundsMode::Auto`, except for discrete algorithms, whose points are in
//! the domain already).

use gradfree_core::stop_spec::{TARGET_ABOVE_MINIMUM, default_budget};
use gradfree_core::{BoundaryRepair, BoundsHandling, DriverOptions, StopRules, StopSpec, derive_seed, rng_from_seed};
use gradfree_es::registry::{Domain, spec as algorithm_spec};
use gradfree_es::spec::{DEFAULT_SIGMA0, EsSpec, RestartSpec};
use gradfree_es::{Algorithm, RestartMean, RestartScheme};
use gradfree_problems::Problem;
use serde::{Deserialize, Serialize};

use crate::{ExperimentError, Result, invalid};

/// How the problem's box domain is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum BoundsMode {
    /// pycma's smooth periodic transformation onto the domain when the problem states one
    /// (`transform`), otherwise unconstrained.
    Auto,
    /// Unconstrained, even if the problem states a domain.
    None,
    /// Evaluate at pycma's `BoundTransform` image in the domain: identity inside, away from a 5%
    /// margin at each bound, smooth and periodic outside (no plateaus for the optimizer).
    Transform,
    /// Evaluate at the projection onto the domain.
    Clip,
    /// Evaluate at the mirror image inside the domain.
    Reflect,
    /// Evaluate at the projection, plus 1e3 x squared distance to the domain.
    Penalty,
}

impl BoundsMode {
    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            BoundsMode::Auto => "auto",
            BoundsMode::None => "none",
            BoundsMode::Transform => "transform",
            BoundsMode::Clip => "clip",
            BoundsMode::Reflect => "reflect",
            BoundsMode::Penalty => "penalty",
        }
    }
}

/// Everything needed to rebuild a run; stored as the checkpoint's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Registry name of the algorithm.
    pub algorithm: String,
    /// Registry name of the problem.
    pub problem: String,
    /// Dimension.
    pub dim: usize,
    /// Seed of the algorithm (and of the default start point).
    pub seed: u64,
    /// Seed of the problem instance (rotations, data).
    pub problem_seed: u64,
    /// Rotate the problem by a random orthogonal matrix.
    pub rotate: bool,
    /// Shift the problem's optimum by a random vector of this radius.
    pub shift: Option<f64>,
    /// How the problem's domain is enforced.
    pub bounds: BoundsMode,
    /// Start point.
    pub x0: Vec<f64>,
    /// Initial scale.
    pub sigma0: f64,
    /// Algorithm parameters (the fields of its `*Params` struct).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Stop rules.
    pub stop: StopRules,
    /// Evaluate each population in parallel.
    pub parallel: bool,
    /// Generations between checkpoints, if set (checkpoints written before this field: 50).
    #[serde(default = "default_checkpoint_every")]
    pub checkpoint_every: Option<u64>,
    /// Wall-clock seconds between checkpoints, if set (default 30).
    #[serde(default)]
    pub checkpoint_seconds: Option<f64>,
}

fn default_checkpoint_every() -> Option<u64> {
    Some(50)
}

/// Restarts of a new run (see [`gradfree_es::Ipop`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RestartPlan {
    /// Most restarts (BIPOP: of the large regime); `None`: until the budget is spent.
    pub max: Option<u32>,
    /// Restart from a uniform point in the problem's initial region instead of `x0`.
    pub from_uniform: bool,
    /// IPOP or BIPOP.
    pub scheme: RestartScheme,
    /// Stop restarting once this many converged runs in a row re-found the best point
    /// ([`gradfree_es::IpopParams::settle_runs`]; `None`: off).
    pub settle_runs: Option<u32>,
    /// End a run converging to a value worse than an earlier run's optimum, with this ratio
    /// ([`gradfree_es::IpopParams::worse_runs`]; `None`: off).
    pub worse_runs: Option<f64>,
    /// Population growth per (large) restart ([`gradfree_es::IpopParams::popsize_factor`];
    /// `None`: its default, 2).
    pub popsize_factor: Option<f64>,
}

/// The budget and target of a run of dimension `dim` before any convergence rule: `10^4 d`
/// evaluations, and a target `f* + 1e-10` when the minimum `f*` is known (the defaults of
/// [`gradfree_core::StopSpec`]).
pub fn default_stop(dim: usize, f_star: Option<f64>) -> StopRules {
    StopRules { max_evaluations: Some(default_budget(dim)), target: f_star.map(|f| f + TARGET_ABOVE_MINIMUM), ..StopRules::default() }
}

/// The default start point: uniform in the problem's initial region, from `derive_seed(seed, 1)`.
pub fn default_x0(problem: &dyn Problem, seed: u64) -> Vec<f64> {
    problem.init_region().sample_uniform(&mut rng_from_seed(derive_seed(seed, 1)))
}

/// The default initial scale: 0.3 of the widest side of the domain, [`DEFAULT_SIGMA0`] without one.
pub fn default_sigma0(problem: &dyn Problem) -> f64 {
    problem.domain().map_or(DEFAULT_SIGMA0, |b| 0.3 * b.max_width())
}

impl RunSpec {
    /// A new run of `algorithm` on `problem` in dimension `dim`: problem seed 0, not rotated or
    /// shifted, bounds `auto`, no parameters, parallel evaluation, checkpoints every 30 seconds
    /// of wall time, the default budget (no target yet), and start point and scale left for
    /// [`RunSpec::complete`] (set `x0` first to keep it; set `sigma0` after).
    pub fn new(algorithm: &str, problem: &str, dim: usize, seed: u64) -> Result<RunSpec> {
        if dim == 0 {
            invalid!("--dim 0: the dimension must be >= 1");
        }
        Ok(RunSpec {
            algorithm: algorithm.to_string(),
            problem: problem.to_string(),
            dim,
            seed,
            problem_seed: 0,
            rotate: false,
            shift: None,
            bounds: BoundsMode::Auto,
            x0: Vec::new(),
            sigma0: 0.0,
            params: serde_json::Map::new(),
            stop: default_stop(dim, None),
            parallel: true,
            checkpoint_every: None,
            checkpoint_seconds: Some(30.0),
        })
    }

    /// Fills what depends on the problem: the discrete set-up ([`RunSpec::discrete_setup`]), the
    /// default start point if `x0` is empty and the default scale if `sigma0` is 0.
    pub fn complete(&mut self, problem: &dyn Problem) -> Result<()> {
        self.discrete_setup(problem)?;
        if self.x0.is_empty() {
            self.x0 = default_x0(problem, self.seed);
        }
        if self.sigma0 == 0.0 {
            self.sigma0 = default_sigma0(problem);
        }
        Ok(())
    }

    /// The problem instance.
    pub fn build_problem(&self) -> Result<Box<dyn Problem>> {
        Ok(gradfree_problems::registry::build_with(&self.problem, self.dim, self.problem_seed, self.rotate, self.shift)?)
    }

    /// Discrete algorithms need a discrete problem: a binary one for binary algorithms; the
    /// categorical ones take the problem's number of categories unless `categories` is given.
    pub fn discrete_setup(&mut self, problem: &dyn Problem) -> Result<()> {
        let Ok(entry) = algorithm_spec(&self.algorithm) else {
            return Ok(());
        };
        if entry.domain == Domain::Continuous {
            return Ok(());
        }
        let algorithm = &self.algorithm;
        let Some(k) = problem.categories() else {
            let discrete: Vec<&str> = gradfree_problems::list()
                .iter()
                .filter(|s| gradfree_problems::build(s.name, 4, 0).is_ok_and(|q| q.categories().is_some()))
                .map(|s| s.name)
                .collect();
            invalid!(
                "--algo {algorithm} searches {{0..K-1}}^d, but problem `{}` is continuous; discrete problems: {}",
                problem.name(),
                discrete.join(", ")
            );
        };
        if entry.domain == Domain::Binary {
            if k != 2 {
                invalid!("--algo {algorithm} needs a binary problem; `{}` has {k} categories (use ingo-categorical)", problem.name());
            }
        } else {
            self.params.entry("categories").or_insert(k.into());
        }
        Ok(())
    }

    /// The problem's box and how it is enforced, as `bounds` says (none for a discrete algorithm
    /// under `auto`: its points lie in the discrete problem's domain already).
    fn bounds_handling(&self, problem: &dyn Problem) -> Result<Option<(gradfree_core::Bounds, BoundsHandling)>> {
        let discrete = algorithm_spec(&self.algorithm).is_ok_and(|a| a.discrete());
        let handling = match self.bounds {
            BoundsMode::None => None,
            BoundsMode::Auto if discrete => None,
            BoundsMode::Auto | BoundsMode::Transform => Some(BoundsHandling::Repair(BoundaryRepair::Transform)),
            BoundsMode::Clip => Some(BoundsHandling::Repair(BoundaryRepair::Clip)),
            BoundsMode::Reflect => Some(BoundsHandling::Repair(BoundaryRepair::Reflect)),
            BoundsMode::Penalty => {
                Some(BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: BoundsHandling::DEFAULT_PENALTY_WEIGHT })
            }
        };
        match (problem.domain(), handling) {
            (Some(b), Some(h)) => Ok(Some((b, h))),
            (None, Some(_)) if self.bounds != BoundsMode::Auto => {
                invalid!("--bounds {}: problem `{}` has no domain; use --bounds none or auto", self.bounds.name(), self.problem)
            }
            _ => Ok(None),
        }
    }

    /// The ES run this specification describes on `problem`, with IPOP or BIPOP restarts if `restarts`
    /// says so and the stop rules `stop` as given: the one [`EsSpec`] the optimizer, the stop
    /// rules and the driver options are built from.
    pub fn es_spec(&self, problem: &dyn Problem, restarts: Option<RestartPlan>, stop: StopSpec) -> Result<EsSpec> {
        let restarts = restarts.map(|plan| RestartSpec {
            max: plan.max,
            mean: if plan.from_uniform { RestartMean::Uniform(problem.init_region()) } else { RestartMean::Initial },
            scheme: plan.scheme,
            settle_runs: plan.settle_runs,
            popsize_factor: plan.popsize_factor,
            worse_runs: plan.worse_runs,
        });
        Ok(EsSpec {
            algorithm: self.algorithm.clone(),
            x0: self.x0.clone(),
            sigma0: self.sigma0,
            seed: self.seed,
            params: self.params.clone(),
            restarts,
            stop,
            bounds: self.bounds_handling(problem)?,
            parallel: self.parallel,
            eval_seed: derive_seed(self.seed, 2),
        })
    }

    /// The driver options of the run: its stop rules, parallelism, and the problem's box enforced
    /// as `bounds` says.
    pub fn driver_options(&self, problem: &dyn Problem) -> Result<DriverOptions> {
        Ok(self.es_spec(problem, None, StopSpec::default())?.driver_options(self.stop.clone()))
    }

    /// The optimizer of a new run, with restarts if `restarts` says so.
    pub fn build_optimizer(&self, problem: &dyn Problem, restarts: Option<RestartPlan>) -> Result<Algorithm> {
        if self.x0.len() != self.dim {
            invalid!("--x0 has {} values, expected --dim {}", self.x0.len(), self.dim);
        }
        Ok(self.es_spec(problem, restarts, StopSpec::default())?.optimizer()?)
    }

    /// A checkpoint's specification must describe its optimizer: same algorithm, dimension and a
    /// start that could have produced it, valid stop rules.
    pub fn check_against(&self, alg: &Algorithm) -> Result<()> {
        use gradfree_core::AskTell;
        let name = match alg {
            Algorithm::Ipop(ipop) => ipop.current().name(),
            a => a.name(),
        };
        if name != self.algorithm {
            invalid!("the metadata names algorithm `{}` but the saved state is of `{name}`", self.algorithm);
        }
        if alg.dim() != self.dim || self.x0.len() != self.dim {
            invalid!("optimizer dimension {} and x0 length {} disagree with the run's {}", alg.dim(), self.x0.len(), self.dim);
        }
        if !(self.sigma0.is_finite() && self.sigma0 > 0.0) || self.x0.iter().any(|v| !v.is_finite()) {
            invalid!("the metadata's x0 or sigma0 is not finite");
        }
        self.stop.validate().map_err(|e| ExperimentError::Invalid(format!("saved stop rules: {e}")))?;
        Ok(())
    }
}
