//! Algorithms by name, and [`Algorithm`], the serializable sum of all of them.

use gradfree_core::{AskTell, CoreError, Event, Population, StateCheck};
use serde::{Deserialize, Serialize};

use crate::EsError;
use crate::discrete::{BernoulliIngo, BernoulliIngoParams, CategoricalIngo, CategoricalIngoParams, Ga, GaParams};
use crate::gaussian::{
    Asebo, AseboParams, CmaEs, CmaEsParams, FastIngo, FastIngoParams, Igo, IgoParams, Ingo, IngoParams, IngoVariant, Mines, MinesParams,
    OpenAiEs, OpenAiEsParams, Xnes, XnesParams,
};
use crate::param_docs::{ParamDoc, param_docs};
use crate::random_search::{Ars, ArsParams, NesterovSpokoiny, NesterovSpokoinyParams};
use crate::restarts::{Ipop, Restartable};
pub use crate::start::StartSpec;
use crate::surrogate::{LqCmaes, LqCmaesParams};

/// The variables an algorithm searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Domain {
    /// `R^d`.
    Continuous,
    /// `{0, 1}^d`: needs a binary problem.
    Binary,
    /// `{0..K-1}^d` with `K` from the `categories` parameter (or the problem's).
    Categorical,
}

/// A registry entry: everything the CLI, the Python package, the restarts and the stubs know
/// about an algorithm, written once. Serialized (for `gradfree list --json` and Python) with a
/// derived `discrete` flag and without the builder.
#[derive(Clone, Debug)]
pub struct AlgorithmSpec {
    /// CLI name (`--algo`), also the checkpoint tag.
    pub name: &'static str,
    /// Name of its Python class (`gradfree.es.<class_name>`).
    pub class_name: &'static str,
    /// Where it is defined.
    pub source: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// The variables it searches.
    pub domain: Domain,
    /// The parameter that sets the number of samples per generation, if any (IPOP restarts need it).
    pub popsize_param: Option<&'static str>,
    /// Whether IPOP's stagnation rule is on by default ([`crate::IpopParams::stagnation`]).
    pub ipop_stagnation: bool,
    /// Whether the restarts' flat-fitness rule is on by default ([`crate::IpopParams::flat_fitness`]).
    pub ipop_flat_fitness: bool,
    /// Builds it from a start specification (parameters validated by its `*Params::check`).
    pub build: fn(&StartSpec) -> Result<Algorithm, EsError>,
    /// Its parameters, from its `*Params` struct ([`crate::param_docs`]).
    pub params: fn() -> Vec<ParamDoc>,
}

const POPSIZE: Option<&str> = Some("popsize");
const C: Domain = Domain::Continuous;

/// The registry: for each optimizer type, its variant of [`Algorithm`] (the checkpoint tag is the
/// kebab-case variant name) and its entries (one per name it is built under). Everything else —
/// the enum, dispatch, the list of names — is generated from this one table.
macro_rules! algorithms {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) => [ $($spec:expr),* $(,)? ] ),* $(,)?) => {
        /// Every optimizer of this crate, as one serializable type (the checkpoint stores the variant).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "algorithm", rename_all = "kebab-case")]
        // One value per run: the size difference between variants costs nothing worth boxing for.
        #[allow(clippy::large_enum_variant)]
        pub enum Algorithm {
            $( $(#[$doc])* $variant($ty), )*
        }

        const SPECS: &[AlgorithmSpec] = &[ $( $($spec,)* )* ];

        impl Algorithm {
            fn inner(&self) -> &dyn Method {
                match self {
                    $( Algorithm::$variant(a) => a, )*
                }
            }
            fn inner_mut(&mut self) -> &mut dyn Method {
                match self {
                    $( Algorithm::$variant(a) => a, )*
                }
            }
        }
    };
}

/// What every variant is: an ask/tell optimizer that checks its restored state.
trait Method: AskTell + StateCheck {}
impl<T: AskTell + StateCheck> Method for T {}

algorithms! {
    /// [`Ingo`] (both variants; the variant is part of its state).
    Ingo(Ingo) => [
        AlgorithmSpec {
            name: "ingo",
            class_name: "INGO",
            source: "thesis Alg. 1, eq. (3.28)-(3.29)",
            summary: "implicit natural gradient, full covariance via its inverse (Cholesky of Sigma^-1)",
            domain: C,
            ipop_stagnation: false,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<IngoParams>,
            build: |s| Ok(Algorithm::Ingo(Ingo::new(IngoVariant::Ingo, s.x0.clone(), s.sigma0, &params("ingo", s)?, s.seed)?)),
        },
        AlgorithmSpec {
            name: "ingostep",
            class_name: "INGOstep",
            source: "thesis Alg. 3, eq. (3.36)-(3.37)",
            summary: "INGO with the mean step scaled by Sigma_t instead of Sigma_{t+1}",
            domain: C,
            ipop_stagnation: false,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<IngoParams>,
            build: |s| Ok(Algorithm::Ingo(Ingo::new(IngoVariant::IngoStep, s.x0.clone(), s.sigma0, &params("ingostep", s)?, s.seed)?)),
        },
    ],
    /// [`FastIngo`].
    FastIngo(FastIngo) => [
        AlgorithmSpec {
            name: "fast-ingo",
            class_name: "FastINGO",
            source: "thesis Alg. 2, eq. (3.30)-(3.31)",
            summary: "INGO with a diagonal covariance and antithetic samples, O(N d) per generation",
            domain: C,
            ipop_stagnation: false,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<FastIngoParams>,
            build: |s| Ok(Algorithm::FastIngo(FastIngo::new(s.x0.clone(), s.sigma0, &params::<FastIngoParams>("fast-ingo", s)?, s.seed)?)),
        },
    ],
    /// [`Igo`].
    Igo(Igo) => [
        AlgorithmSpec {
            name: "igo",
            class_name: "IGO",
            source: "Ollivier et al. 2017; thesis sec. 3.7.1 baseline",
            summary: "explicit natural gradient on (mu, Sigma), full covariance, same scores as INGO",
            domain: C,
            ipop_stagnation: false,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<IgoParams>,
            build: |s| Ok(Algorithm::Igo(Igo::new(s.x0.clone(), s.sigma0, &params::<IgoParams>("igo", s)?, s.seed)?)),
        },
    ],
    /// [`CmaEs`].
    Cmaes(CmaEs) => [
        AlgorithmSpec {
            name: "cmaes",
            class_name: "CMAES",
            source: "Hansen 2016 tutorial (arXiv:1604.00772)",
            summary: "CMA-ES with active weights and CSA (IPOP restarts: the generic wrapper, as for every method)",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<CmaEsParams>,
            build: |s| Ok(Algorithm::Cmaes(CmaEs::new(s.x0.clone(), s.sigma0, &params::<CmaEsParams>("cmaes", s)?, s.seed)?)),
        },
    ],
    /// [`LqCmaes`].
    LqCmaes(LqCmaes) => [
        AlgorithmSpec {
            name: "lq-cmaes",
            class_name: "LQCMAES",
            source: "Hansen 2019, A global surrogate assisted CMA-ES (GECCO), Alg. 1",
            summary: "CMA-ES ranked by a linear-quadratic model of f; evaluates only what the model cannot rank (expensive f)",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: true,
            popsize_param: POPSIZE,
            params: param_docs::<LqCmaesParams>,
            build: |s| Ok(Algorithm::LqCmaes(LqCmaes::new(s.x0.clone(), s.sigma0, &params::<LqCmaesParams>("lq-cmaes", s)?, s.seed)?)),
        },
    ],
    /// [`Mines`].
    Mines(Mines) => [
        AlgorithmSpec {
            name: "mines",
            class_name: "MiNES",
            source: "Ye & Zhang, MiNES Alg. 1, eq. (4.6), (4.13)-(4.17)",
            summary: "mirror-descent NES: antithetic mean step, Hessian-tracking Sigma^-1 with eigenvalue projection",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: None,
            params: param_docs::<MinesParams>,
            build: |s| Ok(Algorithm::Mines(Mines::new(s.x0.clone(), &params::<MinesParams>("mines", s)?, s.seed)?)),
        },
    ],
    /// [`Xnes`].
    Xnes(Xnes) => [
        AlgorithmSpec {
            name: "xnes",
            class_name: "XNES",
            source: "Wierstra et al. 2014, Alg. 5 (xNES)",
            summary: "exponential natural evolution strategy, full covariance",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<XnesParams>,
            build: |s| Ok(Algorithm::Xnes(Xnes::new(s.x0.clone(), s.sigma0, &params::<XnesParams>("xnes", s)?, s.seed)?)),
        },
    ],
    /// [`OpenAiEs`].
    OpenaiEs(OpenAiEs) => [
        AlgorithmSpec {
            name: "openai-es",
            class_name: "OpenAIES",
            source: "Salimans et al. 2017",
            summary: "fixed-sigma antithetic ES with centred ranks and Adam (or SGD) on the mean",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<OpenAiEsParams>,
            build: |s| Ok(Algorithm::OpenaiEs(OpenAiEs::new(s.x0.clone(), s.sigma0, &params::<OpenAiEsParams>("openai-es", s)?, s.seed)?)),
        },
    ],
    /// [`Asebo`].
    Asebo(Asebo) => [
        AlgorithmSpec {
            name: "asebo",
            class_name: "ASEBO",
            source: "Choromanski et al. 2019, Alg. 1 (ASEBO)",
            summary: "antithetic ES sampling an adaptive active subspace of past gradients, Adam on the mean",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<AseboParams>,
            build: |s| Ok(Algorithm::Asebo(Asebo::new(s.x0.clone(), s.sigma0, &params::<AseboParams>("asebo", s)?, s.seed)?)),
        },
    ],
    /// [`Ars`].
    Ars(Ars) => [
        AlgorithmSpec {
            name: "ars",
            class_name: "ARS",
            source: "Mania, Guy & Recht 2018, Alg. 1 (ARS V1-t)",
            summary: "augmented random search: antithetic directions, the best b kept, step scaled by their values' std",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<ArsParams>,
            build: |s| Ok(Algorithm::Ars(Ars::new(s.x0.clone(), s.sigma0, &params::<ArsParams>("ars", s)?, s.seed)?)),
        },
    ],
    /// [`NesterovSpokoiny`].
    NesterovSpokoiny(NesterovSpokoiny) => [
        AlgorithmSpec {
            name: "nesterov-spokoiny",
            class_name: "NesterovSpokoiny",
            source: "MiNES eq. (4.18)-(4.19); Nesterov & Spokoiny 2017",
            summary: "random gradient-free descent with antithetic Gaussian finite differences",
            domain: C,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: None,
            params: param_docs::<NesterovSpokoinyParams>,
            build: |s| {
                let p: NesterovSpokoinyParams = params("nesterov-spokoiny", s)?;
                Ok(Algorithm::NesterovSpokoiny(NesterovSpokoiny::new(s.x0.clone(), &p, s.seed)?))
            },
        },
    ],
    /// [`BernoulliIngo`].
    IngoBernoulli(BernoulliIngo) => [
        AlgorithmSpec {
            name: "ingo-bernoulli",
            class_name: "BernoulliINGO",
            source: "thesis sec. 3.5, eq. (3.38)-(3.41)",
            summary: "discrete INGO over {0,1}^d: natural-gradient steps on the Bernoulli logits",
            domain: Domain::Binary,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<BernoulliIngoParams>,
            build: |s| {
                Ok(Algorithm::IngoBernoulli(BernoulliIngo::new(s.x0.len(), &params::<BernoulliIngoParams>("ingo-bernoulli", s)?, s.seed)?))
            },
        },
    ],
    /// [`CategoricalIngo`].
    IngoCategorical(CategoricalIngo) => [
        AlgorithmSpec {
            name: "ingo-categorical",
            class_name: "CategoricalINGO",
            source: "thesis sec. 3.5, eq. (3.42)-(3.44)",
            summary: "discrete INGO over {0..K-1}^d: steps on the softmax logits, rows re-centred",
            domain: Domain::Categorical,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<CategoricalIngoParams>,
            build: |s| {
                let p: CategoricalIngoParams = params("ingo-categorical", s)?;
                Ok(Algorithm::IngoCategorical(CategoricalIngo::new(s.x0.len(), &p, s.seed)?))
            },
        },
    ],
    /// [`Ga`].
    Ga(Ga) => [
        AlgorithmSpec {
            name: "ga",
            class_name: "GA",
            source: "thesis sec. 3.7.3 baseline",
            summary: "generational GA: binary tournaments, uniform crossover, 1/d mutation, one elite",
            domain: Domain::Categorical,
            ipop_stagnation: true,
            ipop_flat_fitness: false,
            popsize_param: POPSIZE,
            params: param_docs::<GaParams>,
            build: |s| Ok(Algorithm::Ga(Ga::new(s.x0.len(), &params::<GaParams>("ga", s)?, s.seed)?)),
        },
    ],
    /// Any of the above with IPOP restarts ([`Ipop`]).
    Ipop(Box<Ipop<Algorithm>>) => [],
}

impl AlgorithmSpec {
    /// Searches `{0..K-1}^d` (needs a discrete problem) rather than `R^d`.
    pub fn discrete(&self) -> bool {
        self.domain != Domain::Continuous
    }
}

impl gradfree_core::registry::Entry for AlgorithmSpec {
    fn info(&self) -> gradfree_core::registry::Info {
        gradfree_core::registry::Info { name: self.name, summary: self.summary, source: self.source }
    }
    /// Everything the Python classes are made from: also `class_name`, `discrete`, `domain`,
    /// `popsize_param`, `ipop_stagnation` and the parameters.
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a registry entry serializes")
    }
}

impl Serialize for AlgorithmSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View<'a> {
            name: &'a str,
            class_name: &'a str,
            source: &'a str,
            summary: &'a str,
            discrete: bool,
            domain: Domain,
            popsize_param: Option<&'a str>,
            ipop_stagnation: bool,
            ipop_flat_fitness: bool,
            params: Vec<ParamDoc>,
        }
        View {
            name: self.name,
            class_name: self.class_name,
            source: self.source,
            summary: self.summary,
            discrete: self.discrete(),
            domain: self.domain,
            popsize_param: self.popsize_param,
            ipop_stagnation: self.ipop_stagnation,
            ipop_flat_fitness: self.ipop_flat_fitness,
            params: (self.params)(),
        }
        .serialize(serializer)
    }
}

/// Every registered algorithm.
pub fn list() -> &'static [AlgorithmSpec] {
    SPECS
}

/// The entry of algorithm `name`, or an error listing the known names.
pub fn spec(name: &str) -> Result<&'static AlgorithmSpec, EsError> {
    SPECS
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| EsError::UnknownAlgorithm { name: name.to_string(), known: gradfree_core::registry::names(SPECS) })
}

fn params<P: serde::de::DeserializeOwned>(algorithm: &'static str, spec: &StartSpec) -> Result<P, EsError> {
    serde_json::from_value(serde_json::Value::Object(spec.params.clone())).map_err(|e| {
        let hint = if spec.params.contains_key("restarts") {
            " (restarts are not an algorithm parameter: use --restarts ipop|bipop, or restarts=... in Python)"
        } else {
            ""
        };
        // serde names a bad value but not its key: find the key whose value alone fails.
        let key = spec.params.iter().find(|(k, v)| {
            let one = serde_json::Map::from_iter([((*k).clone(), (*v).clone())]);
            serde_json::from_value::<P>(serde_json::Value::Object(one)).is_err()
        });
        let message = match key {
            Some((k, _)) if !e.to_string().contains(&format!("`{k}`")) => format!("`{k}`: {e}{hint}"),
            _ => format!("{e}{hint}"),
        };
        EsError::Params { algorithm, message }
    })
}

/// Builds algorithm `name` from `spec`.
pub fn build(name: &str, spec: &StartSpec) -> Result<Algorithm, EsError> {
    let entry = self::spec(name)?;
    if !(spec.sigma0.is_finite() && spec.sigma0 > 0.0) {
        return Err(CoreError::invalid("sigma0", spec.sigma0, "finite and > 0").into());
    }
    (entry.build)(spec)
}

impl AskTell for Algorithm {
    fn name(&self) -> &'static str {
        self.inner().name()
    }
    fn dim(&self) -> usize {
        self.inner().dim()
    }
    fn population_size(&self) -> usize {
        self.inner().population_size()
    }
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        self.inner_mut().ask_into(out)
    }
    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        self.inner_mut().tell(population, values)
    }
    fn mean(&self) -> &[f64] {
        self.inner().mean()
    }
    fn scale(&self) -> f64 {
        self.inner().scale()
    }
    fn take_events(&mut self) -> Vec<Event> {
        self.inner_mut().take_events()
    }
    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        self.inner().spread_into(out)
    }
    fn shrink_spread(&mut self, factor: f64) {
        self.inner_mut().shrink_spread(factor)
    }
    fn failure(&self) -> Option<&str> {
        self.inner().failure()
    }
    fn settled(&self) -> bool {
        self.inner().settled()
    }
    fn condition(&self) -> Option<f64> {
        self.inner().condition()
    }
    fn converged(&self, tol_x: f64) -> Option<&'static str> {
        self.inner().converged(tol_x)
    }
    fn accepts_any_points(&self) -> bool {
        self.inner().accepts_any_points()
    }
    fn generation_complete(&self) -> bool {
        self.inner().generation_complete()
    }
    fn generation_samples(&self) -> Option<usize> {
        self.inner().generation_samples()
    }
    fn ask_batch_into(&mut self, count: usize, out: &mut Population) -> Result<(), CoreError> {
        self.inner_mut().ask_batch_into(count, out)
    }
}

/// Every variant checks its own invariants ([`StateCheck`]).
impl StateCheck for Algorithm {
    fn check_state(&self) -> Result<(), String> {
        self.inner().check_state()
    }
}

/// The registry's facts about an algorithm, for IPOP restarts.
impl Restartable for Algorithm {
    fn build(name: &str, start: &StartSpec) -> Result<Self, EsError> {
        build(name, start)
    }
    fn popsize_param(name: &str) -> Result<Option<&'static str>, EsError> {
        Ok(spec(name)?.popsize_param)
    }
    fn stagnation_default(name: &str) -> bool {
        spec(name).is_ok_and(|e| e.ipop_stagnation)
    }
    fn flat_fitness_default(name: &str) -> bool {
        spec(name).is_ok_and(|e| e.ipop_flat_fitness)
    }
    fn is_restart_wrapper(&self) -> bool {
        matches!(self, Algorithm::Ipop(_))
    }
    fn generation_size(&self) -> usize {
        match self {
            Algorithm::LqCmaes(a) => a.lambda(),
            a => a.population_size(),
        }
    }
}
