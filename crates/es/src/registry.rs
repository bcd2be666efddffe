//! Algorithms by name, and [`Algorithm`], the serializable sum of all of them.

use gradfree_core::{AskTell, CoreError, Event, Population, StateCheck};
use serde::{Deserialize, Serialize};

use crate::EsError;
use crate::discrete::{BernoulliIngo, BernoulliIngoParams, CategoricalIngo, CategoricalIngoParams, Ga, GaParams};
use crate::gaussian::{
    CmaEs, CmaEsParams, FastIngo, FastIngoParams, Igo, IgoParams, Ingo, IngoParams, IngoVariant, Mines, MinesParams, OpenAiEs,
    OpenAiEsParams, Xnes, XnesParams,
};
use crate::random_search::{NesterovSpokoiny, NesterovSpokoinyParams};
use crate::restarts::Ipop;

/// A registry entry.
#[derive(Clone, Debug, Serialize)]
pub struct AlgorithmSpec {
    /// CLI name.
    pub name: &'static str,
    /// Where it is defined.
    pub source: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Searches `{0..K-1}^d` (needs a discrete problem) rather than `R^d`.
    pub discrete: bool,
}

const SPECS: &[AlgorithmSpec] = &[
    AlgorithmSpec {
        name: "ingo",
        source: "thesis Alg. 1, eq. (3.28)-(3.29)",
        summary: "implicit natural gradient, full covariance via its inverse (Cholesky of Sigma^-1)",
        discrete: false,
    },
    AlgorithmSpec {
        name: "ingostep",
        source: "thesis Alg. 3, eq. (3.36)-(3.37)",
        summary: "INGO with the mean step scaled by Sigma_t instead of Sigma_{t+1}",
        discrete: false,
    },
    AlgorithmSpec {
        name: "fast-ingo",
        source: "thesis Alg. 2, eq. (3.30)-(3.31)",
        summary: "INGO with a diagonal covariance and antithetic samples, O(N d) per generation",
        discrete: false,
    },
    AlgorithmSpec {
        name: "igo",
        source: "Ollivier et al. 2017; thesis sec. 3.7.1 baseline",
        summary: "explicit natural gradient on (mu, Sigma), full covariance, same scores as INGO",
        discrete: false,
    },
    AlgorithmSpec {
        name: "cmaes",
        source: "Hansen 2016 tutorial (arXiv:1604.00772)",
        summary: "CMA-ES with active weights and CSA; IPOP restarts with --param restarts=K",
        discrete: false,
    },
    AlgorithmSpec {
        name: "mines",
        source: "Ye & Zhang, MiNES Alg. 1, eq. (4.6), (4.13)-(4.17)",
        summary: "mirror-descent NES: antithetic mean step, Hessian-tracking Sigma^-1 with eigenvalue projection",
        discrete: false,
    },
    AlgorithmSpec {
        name: "xnes",
        source: "Wierstra et al. 2014, Alg. 5 (xNES)",
        summary: "exponential natural evolution strategy, full covariance",
        discrete: false,
    },
    AlgorithmSpec {
        name: "openai-es",
        source: "Salimans et al. 2017",
        summary: "fixed-sigma antithetic ES with centred ranks and Adam (or SGD) on the mean",
        discrete: false,
    },
    AlgorithmSpec {
        name: "nesterov-spokoiny",
        source: "MiNES eq. (4.18)-(4.19); Nesterov & Spokoiny 2017",
        summary: "random gradient-free descent with antithetic Gaussian finite differences",
        discrete: false,
    },
    AlgorithmSpec {
        name: "ingo-bernoulli",
        source: "thesis sec. 3.5, eq. (3.38)-(3.41)",
        summary: "discrete INGO over {0,1}^d: natural-gradient steps on the Bernoulli logits",
        discrete: true,
    },
    AlgorithmSpec {
        name: "ingo-categorical",
        source: "thesis sec. 3.5, eq. (3.42)-(3.44)",
        summary: "discrete INGO over {0..K-1}^d: steps on the softmax logits, rows re-centred",
        discrete: true,
    },
    AlgorithmSpec {
        name: "ga",
        source: "thesis sec. 3.7.3 baseline",
        summary: "generational GA: binary tournaments, uniform crossover, 1/d mutation, one elite",
        discrete: true,
    },
];

/// Every registered algorithm.
pub fn list() -> &'static [AlgorithmSpec] {
    SPECS
}

/// How to start an algorithm: initial mean, initial scale, seed and algorithm-specific parameters
/// (as a JSON object whose keys are the fields of the algorithm's `*Params` struct).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartSpec {
    /// Initial mean.
    pub x0: Vec<f64>,
    /// Initial scale of the search distribution (methods with a fixed smoothing ignore it).
    pub sigma0: f64,
    /// Seed of the algorithm's generator.
    pub seed: u64,
    /// Algorithm parameters; unknown keys are an error.
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl StartSpec {
    /// Start at `x0` with scale `sigma0`, `seed` and default parameters.
    pub fn new(x0: Vec<f64>, sigma0: f64, seed: u64) -> Self {
        StartSpec { x0, sigma0, seed, params: serde_json::Map::new() }
    }
}

fn params<P: serde::de::DeserializeOwned>(algorithm: &'static str, spec: &StartSpec) -> Result<P, EsError> {
    serde_json::from_value(serde_json::Value::Object(spec.params.clone()))
        .map_err(|e| EsError::Params { algorithm, message: e.to_string() })
}

/// Every optimizer of this crate, as one serializable type (the checkpoint stores the variant).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "algorithm", rename_all = "kebab-case")]
// One value per run: the size difference between variants costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
pub enum Algorithm {
    /// [`Ingo`] (both variants; the variant is part of its state).
    Ingo(Ingo),
    /// [`FastIngo`].
    FastIngo(FastIngo),
    /// [`Igo`].
    Igo(Igo),
    /// [`CmaEs`].
    Cmaes(CmaEs),
    /// [`Mines`].
    Mines(Mines),
    /// [`Xnes`].
    Xnes(Xnes),
    /// [`OpenAiEs`].
    OpenaiEs(OpenAiEs),
    /// [`NesterovSpokoiny`].
    NesterovSpokoiny(NesterovSpokoiny),
    /// [`BernoulliIngo`].
    IngoBernoulli(BernoulliIngo),
    /// [`CategoricalIngo`].
    IngoCategorical(CategoricalIngo),
    /// [`Ga`].
    Ga(Ga),
    /// Any of the above with IPOP restarts ([`Ipop`]).
    Ipop(Box<Ipop>),
}

/// Builds algorithm `name` from `spec`.
pub fn build(name: &str, spec: &StartSpec) -> Result<Algorithm, EsError> {
    if !(spec.sigma0.is_finite() && spec.sigma0 > 0.0) {
        return Err(CoreError::invalid("sigma0", spec.sigma0, "finite and > 0").into());
    }
    match name {
        "ingo" | "ingostep" => {
            let variant = if name == "ingo" { IngoVariant::Ingo } else { IngoVariant::IngoStep };
            let p: IngoParams = params(if name == "ingo" { "ingo" } else { "ingostep" }, spec)?;
            Ok(Algorithm::Ingo(Ingo::new(variant, spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "fast-ingo" => {
            let p: FastIngoParams = params("fast-ingo", spec)?;
            Ok(Algorithm::FastIngo(FastIngo::new(spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "igo" => {
            let p: IgoParams = params("igo", spec)?;
            Ok(Algorithm::Igo(Igo::new(spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "cmaes" => {
            let p: CmaEsParams = params("cmaes", spec)?;
            Ok(Algorithm::Cmaes(CmaEs::new(spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "mines" => {
            let p: MinesParams = params("mines", spec)?;
            Ok(Algorithm::Mines(Mines::new(spec.x0.clone(), &p, spec.seed)?))
        }
        "xnes" => {
            let p: XnesParams = params("xnes", spec)?;
            Ok(Algorithm::Xnes(Xnes::new(spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "openai-es" => {
            let p: OpenAiEsParams = params("openai-es", spec)?;
            Ok(Algorithm::OpenaiEs(OpenAiEs::new(spec.x0.clone(), spec.sigma0, &p, spec.seed)?))
        }
        "nesterov-spokoiny" => {
            let p: NesterovSpokoinyParams = params("nesterov-spokoiny", spec)?;
            Ok(Algorithm::NesterovSpokoiny(NesterovSpokoiny::new(spec.x0.clone(), &p, spec.seed)?))
        }
        "ingo-bernoulli" => {
            let p: BernoulliIngoParams = params("ingo-bernoulli", spec)?;
            Ok(Algorithm::IngoBernoulli(BernoulliIngo::new(spec.x0.len(), &p, spec.seed)?))
        }
        "ingo-categorical" => {
            let p: CategoricalIngoParams = params("ingo-categorical", spec)?;
            Ok(Algorithm::IngoCategorical(CategoricalIngo::new(spec.x0.len(), &p, spec.seed)?))
        }
        "ga" => {
            let p: GaParams = params("ga", spec)?;
            Ok(Algorithm::Ga(Ga::new(spec.x0.len(), &p, spec.seed)?))
        }
        _ => Err(EsError::UnknownAlgorithm { name: name.to_string(), known: SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ") }),
    }
}

macro_rules! dispatch {
    ($self:ident, $a:ident => $e:expr) => {
        match $self {
            Algorithm::Ingo($a) => $e,
            Algorithm::FastIngo($a) => $e,
            Algorithm::Igo($a) => $e,
            Algorithm::Cmaes($a) => $e,
            Algorithm::Mines($a) => $e,
            Algorithm::Xnes($a) => $e,
            Algorithm::OpenaiEs($a) => $e,
            Algorithm::NesterovSpokoiny($a) => $e,
            Algorithm::IngoBernoulli($a) => $e,
            Algorithm::IngoCategorical($a) => $e,
            Algorithm::Ga($a) => $e,
            Algorithm::Ipop($a) => $e,
        }
    };
}

impl AskTell for Algorithm {
    fn name(&self) -> &'static str {
        dispatch!(self, a => a.name())
    }
    fn dim(&self) -> usize {
        dispatch!(self, a => a.dim())
    }
    fn population_size(&self) -> usize {
        dispatch!(self, a => a.population_size())
    }
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        dispatch!(self, a => a.ask_into(out))
    }
    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        dispatch!(self, a => a.tell(population, values))
    }
    fn mean(&self) -> &[f64] {
        dispatch!(self, a => a.mean())
    }
    fn scale(&self) -> f64 {
        dispatch!(self, a => a.scale())
    }
    fn take_events(&mut self) -> Vec<Event> {
        dispatch!(self, a => a.take_events())
    }
}

/// Every variant checks its own invariants ([`StateCheck`]).
impl StateCheck for Algorithm {
    fn check_state(&self) -> Result<(), String> {
        dispatch!(self, a => a.check_state())
    }
}
