//! IPOP and BIPOP restarts for any registered optimizer, as a wrapper around any [`Restartable`]
//! optimizer (the registry's [`crate::Algorithm`] is one: it builds algorithms by name).
//!
//! After every generation the wrapper tests the running optimizer; when one of the rules below
//! fires (and restarts remain) it starts the same algorithm afresh with a derived seed
//! `derive_seed(seed, k)` and as mean either the initial `x0` or a uniform draw from a box (useful
//! on multimodal problems such as Levy). The population and initial scale of the new run follow
//! the [`RestartScheme`]:
//! - **IPOP** (Auger & Hansen 2005, "A restart CMA evolution strategy with increasing population
//!   size"): restart `k` uses `round(N_0 factor^k)` samples and `sigma0`.
//! - **BIPOP** (Hansen 2009, "Benchmarking a BI-population CMA-ES on the BBOB-2009 function
//!   testbed"): two interleaved regimes. The *large* one is IPOP (its `j`-th run uses
//!   `N_0 factor^j` samples and `sigma0`); the *small* one draws `N = floor(N_0 (N_large /
//!   N_0)^{U^2})` and `sigma = sigma0 10^{-2 U'}` (`U, U'` uniform in [0, 1], `N_large` the last
//!   large population) and stops after `0.5 B_large / N` generations. The regime with the smaller
//!   share of evaluations goes next: small while `B_small < B_large` ([`bipop_regime`]), the first
//!   run counting as small, as in pycma's `fmin(..., bipop=True)`. `B` counts the points sampled
//!   (`lambda` per generation): for a surrogate-assisted method, which evaluates only what its model
//!   cannot rank, the evaluated ones and those the model ranked
//!   ([`gradfree_core::AskTell::generation_samples`]), so that a small run gets the generations the
//!   schedule gives it whatever the model saved. `max_restarts` counts the large
//!   restarts only (pycma's convention). The run's evaluation budget is the driver's and holds
//!   across all regimes (the wrapper has no budget of its own to reset).
//!
//! Rules (pycma's `tolx`, `tolflatfitness` and `tolstagnation` in spirit, written for any ES):
//! - **tol-x**: the optimizer's scale ([`AskTell::scale`]) is below `tol_x * sigma0` (1e-40);
//! - **the method's own convergence rules** ([`AskTell::converged`], judged every generation with
//!   the step `TOL_X_METHOD * sigma0` = `1e-11 sigma0`): CMA-ES's and lq-CMA-ES's are pycma's
//!   `tolx`, `noeffectaxis`, `noeffectcoord` and `tolconditioncov`, which end a run whose
//!   distribution no longer moves the mean in floating point (as on BBOB's Schaffers functions
//!   f17-f18, where the values improve slowly enough that the flat rule would wait to the budget);
//! - **flat**: the best values of the last `10 + ceil(30 d / N)` generations and the values of
//!   the last generation each lie within
//!   `min(1e-12 (1 + |f|), 1e-3 |f|)` ([`flat_tolerance`]: pycma's `tolfun`, relative, and near
//!   zero also relative to `f` itself, so a run still improving by 0.1% per window at f = 1e-10
//!   is not flat);
//! - **stagnation** (pycma's rule): the medians over 20 generations of the generation-best and of
//!   the generation-median values are both no better now than `100 + ceil(100 d^1.5 / N)`
//!   generations ago. Median-based on purpose: INGO keeps improving its population for hundreds
//!   of generations while the best value found stays put (a best-so-far rule restarted INGO four
//!   times on a 10-d Rastrigin it solves without restarts). Off by default for the INGO family
//!   and IGO, where even the median rule fired in runs that would have succeeded
//!   ([`IpopParams::stagnation`]);
//! - **worse optimum** ([`IpopParams::worse_runs`], off unless set; on for the recommended
//!   method): the run is converging to a value worse than an earlier run's optimum (below);
//! - **diverged**: the optimizer's mean is no longer finite;
//! - **small budget** (BIPOP's small regime only): the run's generation allowance is spent.
//!
//! All rules are judged every generation, as pycma's. The flat window keeps the generations' best
//! values; the stagnation history is kept as 20-generation block summaries, so the state stays
//! small at d = 1000 (where the lag is 10^5 generations).
//!
//! **Settling** ([`IpopParams::settle_runs`], off unless set; on for the recommended method):
//! restarts look for a better optimum, but once `k` converged runs in a row after the one that
//! found the best point have each converged back to it, more restarts are not expected to help
//! and the wrapper stops restarting ([`AskTell::settled`]; the driver then ends the run with
//! [`gradfree_core::StopReason::RestartsSettled`], a success). Each run that ends is judged by its
//! best value `f` and point `x` against the best so far `(f*, x*)`, with `tol = 1e-11 + 1e-10
//! |f*|` (pycma's `tolfun` 1e-11 plus a relative part) ([`settle_tolerance`]):
//! - `f < f* - tol` (any run): a new best; the count restarts at 0;
//! - a converged run (it ended on **tol-x** or **flat**, or it is the run that completes the
//!   count and its values are flat to `tol` at the best point: it ends there) with `|f - f*| <= tol` and `|x - x*| <=
//!   1e-2 sigma0 sqrt(d)` ([`settle_distance`]): it re-found the best; the count grows by 1;
//! - a converged run with `f > f* + tol`: it found another, worse, local optimum, so the landscape
//!   is multimodal at this scale; the count restarts at 0;
//! - anything else (a run that ended on stagnation, divergence or BIPOP's small-run budget, or a
//!   converged run at the best value elsewhere, e.g. on a plateau): the count stays.
//!
//! The rule is judged only when a run ends and another would start (not once `max_restarts` is
//! used up).
//!
//! **The worse-optimum rule** ([`IpopParams::worse_runs`] = `r`). A restart that converges into
//! a local minimum worse than one an earlier run found spends the rest of its evaluations refining
//! a point that cannot be the answer (pycma's runs do too: they end at `tolfun`, 1e-11). With
//! `f*` the best value of the earlier runs that ended **flat** (their values converged; a run
//! ended by a method's numerical limits such as tol-x may have stalled away from any minimum, as
//! CMA-ES does 1e-4 to 1 above the optimum of bbob's sharp ridge f13, and is not a reference), the
//! run ends once the flat window is full and, with `b1 >= b2 >= b3` its best values up to the end
//! of each third of the window and the gap `g = b3 - f*` above [`settle_tolerance`]:
//! - the last generation's values span at most `r g`: the population is local at the scale of the
//!   gap;
//! - Aitken's extrapolation of `b1, b2, b3` ([`aitken_remaining`]) leaves at most `10 r g` to
//!   gain: the run is slowing down as one converging to a minimum does, not progressing steadily
//!   (as along a ridge, or a large population drifting over a multimodal landscape).
//!
//! Each restart is reported as an event of kind `restart`.

use gradfree_core::StateCheck;
use std::collections::VecDeque;

use gradfree_core::{AskTell, Bounds, CoreError, Event, EventKind, GfRng, Population, derive_seed, rng_from_seed};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::EsError;
use crate::start::StartSpec;

mod check;
mod params;
mod rules;
pub use params::IpopParams;
use params::check_worse_runs;
pub use rules::{WORSE_OPTIMUM, aitken_remaining, flat_tolerance, settle_distance, settle_tolerance};

/// Where a restart puts the mean.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartMean {
    /// The initial `x0` (IPOP as published).
    #[default]
    Initial,
    /// A uniform draw from this box.
    Uniform(Bounds),
}

/// How restarts choose their population and initial scale (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RestartScheme {
    /// Increasing population (Auger & Hansen 2005).
    #[default]
    Ipop,
    /// Interleaved large (IPOP) and small populations (Hansen 2009).
    Bipop,
}

impl RestartScheme {
    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            RestartScheme::Ipop => "ipop",
            RestartScheme::Bipop => "bipop",
        }
    }
}

/// BIPOP's regime of the next run (Hansen 2009): the small regime while its evaluations are below
/// the large regime's (at least 1), else the large one; `small` includes the first run.
pub fn bipop_regime(small_evals: u64, large_evals: u64) -> Regime {
    if small_evals < large_evals.max(1) { Regime::Small } else { Regime::Large }
}

/// A BIPOP regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// Small populations, small random initial scales, a capped budget.
    Small,
    /// IPOP's increasing populations.
    Large,
}

/// BIPOP's bookkeeping: evaluations per regime and the current run's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct BipopState {
    small_evals: u64,
    large_evals: u64,
    large_runs: u32,
    /// Regime of the current run (the first run is small).
    regime: Option<Regime>,
    /// Points sampled in the current run ([`gradfree_core::AskTell::generation_samples`]).
    run_evals: u64,
    run_generations: u64,
    /// Generation allowance of the current small run.
    run_limit: Option<u64>,
}

/// The bookkeeping of the settle rule ([`IpopParams::settle_runs`]) and of the worse-optimum rule
/// ([`IpopParams::worse_runs`]); older states: empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct SettleState {
    /// Best finite value of the current run and its point (as proposed).
    run_best_f: Option<f64>,
    run_best_x: Vec<f64>,
    /// Best value of the runs that ended, and its point.
    best_f: Option<f64>,
    best_x: Vec<f64>,
    /// Converged runs in a row that re-found the best point since it was found.
    refound: u32,
    /// The rule fired: no more restarts.
    settled: bool,
    /// Best value of the runs that ended flat (or re-found the best point flat): the worse-optimum
    /// rule's reference ([`IpopParams::worse_runs`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flat_best: Option<f64>,
}

/// What IPOP needs of the optimizers it restarts: to build one by name from a start, and two facts
/// the registry keeps about each algorithm.
pub trait Restartable: AskTell + StateCheck + Sized {
    /// Builds algorithm `name` from `start`.
    fn build(name: &str, start: &StartSpec) -> Result<Self, EsError>;
    /// The parameter that sets algorithm `name`'s population size, if it has one (an error for an
    /// unknown name).
    fn popsize_param(name: &str) -> Result<Option<&'static str>, EsError>;
    /// Whether the stagnation rule restarts `name` by default ([`IpopParams::stagnation`]).
    fn stagnation_default(name: &str) -> bool;
    /// Whether the flat-fitness rule restarts `name` by default ([`IpopParams::flat_fitness`]).
    fn flat_fitness_default(_name: &str) -> bool {
        false
    }
    /// Whether this optimizer is itself a restart wrapper (which may not be wrapped again).
    fn is_restart_wrapper(&self) -> bool;
    /// Points per generation of the search distribution: [`AskTell::population_size`] except for
    /// surrogate-assisted methods, which evaluate part of each generation's population a batch at a
    /// time ([`crate::surrogate::LqCmaes`]: its `lambda`).
    fn generation_size(&self) -> usize {
        self.population_size()
    }
}

/// An optimizer with IPOP or BIPOP restarts (see the module documentation).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ipop<A> {
    inner_name: String,
    start: StartSpec,
    p: IpopParams,
    inner: A,
    base_popsize: usize,
    restarts_done: u32,
    rng: GfRng,
    /// (best, median) of each generation of the current block.
    block: Vec<(f64, f64)>,
    /// Summaries of the completed blocks of this restart, oldest first.
    blocks: VecDeque<Block>,
    /// Best value of each of the last generations of this restart, oldest first, at most the flat
    /// window's length ([`Ipop::windows`]; older states: empty, filled again in one window).
    #[serde(default)]
    recent: VecDeque<f64>,
    events: Vec<Event>,
    /// A restart that could not be built ([`AskTell::failure`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    /// BIPOP's bookkeeping (IPOP: unused; older states: empty).
    #[serde(default)]
    bipop: BipopState,
    /// The settle rule's bookkeeping (older states: empty).
    #[serde(default)]
    settle: SettleState,
    /// Values told so far of a generation told in batches ([`AskTell::generation_complete`];
    /// older states: empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    partial: Vec<f64>,
    /// Whole generations in a row with best = 75%-quantile ([`IpopParams::flat_fitness`]; older
    /// states: 0).
    #[serde(default)]
    flat_fitness_run: u32,
    #[serde(skip)]
    sorted: Vec<f64>,
}

/// Equality of the algorithm state (scratch and undelivered events excluded).
impl<A: PartialEq> PartialEq for Ipop<A> {
    fn eq(&self, o: &Self) -> bool {
        (
            &self.inner_name,
            &self.start,
            &self.p,
            &self.inner,
            self.base_popsize,
            self.restarts_done,
            &self.rng,
            &self.block,
            &self.blocks,
            &self.bipop,
            &self.settle,
            &self.partial,
        ) == (
            &o.inner_name,
            &o.start,
            &o.p,
            &o.inner,
            o.base_popsize,
            o.restarts_done,
            &o.rng,
            &o.block,
            &o.blocks,
            &o.bipop,
            &o.settle,
            &o.partial,
        ) && self.flat_fitness_run == o.flat_fitness_run
            && self.recent == o.recent
    }
}

/// Summary of [`BLOCK`] generations for the stagnation rule (older states also carry the
/// block's best-value range, ignored).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Block {
    median_best: f64,
    median_median: f64,
}

/// Generations per history block.
const BLOCK: usize = 20;

/// The step, relative to `sigma0`, below which a method's own `tol-x` rule ends a run
/// ([`AskTell::converged`]): pycma's `tolx = 1e-11`, relative so that it does not depend on the
/// units of `x`.
pub const TOL_X_METHOD: f64 = 1e-11;

impl<A: Restartable> Ipop<A> {
    /// Wraps algorithm `name` started from `start`. Fails if the algorithm has no `popsize`
    /// parameter or the parameters are out of range.
    pub fn new(name: &str, start: StartSpec, params: IpopParams) -> Result<Self, EsError> {
        if !(params.popsize_factor >= 1.0 && params.popsize_factor.is_finite()) {
            return Err(CoreError::invalid("popsize_factor", params.popsize_factor, "finite and >= 1").into());
        }
        if !(params.tol_x > 0.0 && params.tol_x < 1.0) {
            return Err(CoreError::invalid("tol_x", params.tol_x, "in (0, 1)").into());
        }
        if params.settle_runs == Some(0) {
            return Err(CoreError::invalid("settle_runs", 0, ">= 1 (None: off)").into());
        }
        check_worse_runs(params.worse_runs)?;
        if let RestartMean::Uniform(b) = &params.restart_mean
            && b.dim() != start.x0.len()
        {
            return Err(CoreError::DimensionMismatch { what: "restart box", expected: start.x0.len(), got: b.dim() }.into());
        }
        let popsize_param = A::popsize_param(name)?;
        let inner = A::build(name, &start)?;
        let mut params = params;
        params.stagnation = Some(params.stagnation.unwrap_or_else(|| A::stagnation_default(name)));
        params.flat_fitness = Some(params.flat_fitness.unwrap_or_else(|| A::flat_fitness_default(name)));
        let base_popsize = inner.generation_size();
        // The algorithm must accept a population size, or restarts could not grow it.
        let Some(key) = popsize_param else {
            return Err(CoreError::invalid(
                "restarts",
                format!("`{name}` (it has no population size)"),
                "an algorithm with a `popsize` parameter",
            )
            .into());
        };
        let mut probe = start.clone();
        probe.params.insert(key.into(), (base_popsize * 2).into());
        if let Err(e) = A::build(name, &probe) {
            return Err(CoreError::invalid("restarts", format!("`{name}` ({e})"), "an algorithm with a `popsize` parameter").into());
        }
        Ok(Ipop {
            inner_name: name.to_string(),
            rng: rng_from_seed(derive_seed(start.seed, 0x1b0b)),
            start,
            p: params,
            inner,
            base_popsize,
            restarts_done: 0,
            block: Vec::with_capacity(BLOCK),
            blocks: VecDeque::new(),
            recent: VecDeque::new(),
            events: Vec::new(),
            failure: None,
            bipop: BipopState { regime: Some(Regime::Small), ..BipopState::default() },
            settle: SettleState::default(),
            partial: Vec::new(),
            flat_fitness_run: 0,
            sorted: Vec::new(),
        })
    }

    /// Restarts done so far (BIPOP: of both regimes).
    pub fn restarts_done(&self) -> u32 {
        self.restarts_done
    }

    /// BIPOP's evaluations so far in the (small, large) regime, the current run included (the
    /// first run counts as small), in sampled points (module documentation); `None` under IPOP.
    pub fn regime_evaluations(&self) -> Option<(u64, u64)> {
        let b = &self.bipop;
        (self.p.scheme == RestartScheme::Bipop).then(|| match b.regime {
            Some(Regime::Large) => (b.small_evals, b.large_evals + b.run_evals),
            _ => (b.small_evals + b.run_evals, b.large_evals),
        })
    }

    /// IPOP or BIPOP.
    pub fn scheme(&self) -> RestartScheme {
        self.p.scheme
    }

    /// The population's growth per (large) restart ([`IpopParams::popsize_factor`]).
    pub fn popsize_factor(&self) -> f64 {
        self.p.popsize_factor
    }

    /// The optimizer of the current restart.
    pub fn current(&self) -> &A {
        &self.inner
    }

    /// The settle rule's count ([`IpopParams::settle_runs`]): converged runs in a row that re-found
    /// the best point since it was found.
    pub fn refound_runs(&self) -> u32 {
        self.settle.refound
    }

    /// Sets the settle rule ([`IpopParams::settle_runs`]; `None`: off), e.g. for a run built by a
    /// front end before its caller chose. Fails for `Some(0)`.
    pub fn set_settle_runs(&mut self, k: Option<u32>) -> Result<(), EsError> {
        if k == Some(0) {
            return Err(CoreError::invalid("settle_runs", 0, ">= 1 (None: off)").into());
        }
        self.p.settle_runs = k;
        Ok(())
    }

    /// Sets the worse-optimum rule ([`IpopParams::worse_runs`]; `None`: off), e.g. for a run built
    /// by a front end before its caller chose. Fails for a ratio outside (0, 1).
    pub fn set_worse_runs(&mut self, r: Option<f64>) -> Result<(), EsError> {
        check_worse_runs(r)?;
        self.p.worse_runs = r;
        Ok(())
    }

    /// Population of the `j`-th increase, capped at [`IpopParams::max_popsize`].
    fn grown(&self, j: u32) -> usize {
        let cap = self.p.max_popsize.unwrap_or(self.base_popsize.max(100 * self.dim())).max(self.base_popsize);
        let grown = self.base_popsize as f64 * self.p.popsize_factor.powi(j as i32);
        if grown >= cap as f64 { cap } else { grown.round() as usize }
    }

    /// Whether the restart limit allows another restart. BIPOP's small runs do not count (as in
    /// pycma): once the large restarts are used up, small runs continue while the budget rule
    /// picks them.
    fn may_restart(&self) -> bool {
        let Some(m) = self.p.max_restarts else {
            return true;
        };
        match self.p.scheme {
            RestartScheme::Ipop => self.restarts_done < m,
            RestartScheme::Bipop => {
                let (small, large) = self.regime_evaluations().unwrap_or_default();
                bipop_regime(small, large) == Regime::Small || self.bipop.large_runs < m
            }
        }
    }

    fn restart(&mut self, why: &str) -> Result<(), CoreError> {
        let k = self.restarts_done + 1;
        let mut spec = self.start.clone();
        spec.seed = derive_seed(self.start.seed, u64::from(k));
        let (popsize, label) = match self.p.scheme {
            RestartScheme::Ipop => (self.grown(k), "IPOP".to_string()),
            RestartScheme::Bipop => {
                let b = &mut self.bipop;
                match b.regime {
                    Some(Regime::Small) | None => b.small_evals += b.run_evals,
                    Some(Regime::Large) => b.large_evals += b.run_evals,
                }
                let regime = bipop_regime(b.small_evals, b.large_evals);
                let popsize = match regime {
                    Regime::Large => {
                        self.bipop.large_runs += 1;
                        self.bipop.run_limit = None;
                        self.grown(self.bipop.large_runs)
                    }
                    Regime::Small => {
                        let (u, u2): (f64, f64) = (self.rng.random(), self.rng.random());
                        let large = self.grown(self.bipop.large_runs) as f64 / self.base_popsize as f64;
                        let n = ((self.base_popsize as f64) * large.powf(u * u)).floor().max(self.base_popsize as f64) as usize;
                        spec.sigma0 = self.start.sigma0 * 10f64.powf(-2.0 * u2);
                        // pycma: maxiter = min(maxiter0, 0.5 budget_large / popsize), at least one
                        // generation.
                        self.bipop.run_limit = Some(((0.5 * self.bipop.large_evals as f64 / n as f64).floor() as u64).max(1));
                        n
                    }
                };
                let b = &mut self.bipop;
                b.regime = Some(regime);
                b.run_evals = 0;
                b.run_generations = 0;
                let r = if regime == Regime::Small { "small" } else { "large" };
                (popsize, format!("BIPOP ({r} regime, sigma0 {:.3e})", spec.sigma0))
            }
        };
        let key = A::popsize_param(&self.inner_name).ok().flatten().unwrap_or("popsize");
        spec.params.insert(key.into(), popsize.into());
        if let RestartMean::Uniform(b) = &self.p.restart_mean {
            spec.x0 = b.sample_uniform(&mut self.rng);
        }
        self.inner = A::build(&self.inner_name, &spec).map_err(|e| CoreError::Numerical(format!("{label} restart {k}: {e}")))?;
        self.restarts_done = k;
        self.block.clear();
        self.blocks.clear();
        self.recent.clear();
        self.flat_fitness_run = 0;
        self.events.push(Event { kind: EventKind::Restart, message: format!("{why}; {label} restart {k} with popsize {popsize}") });
        Ok(())
    }
}

impl<A: Restartable> AskTell for Ipop<A> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn dim(&self) -> usize {
        self.start.x0.len()
    }

    fn population_size(&self) -> usize {
        self.inner.population_size()
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        self.inner.ask_into(out)
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        self.inner.tell(population, values)?;
        self.track_run_best(population, values);
        // A surrogate-assisted method tells a generation in batches: the rules judge the whole
        // generation's evaluated values once it is complete.
        if !self.inner.generation_complete() {
            self.partial.extend_from_slice(values);
            return Ok(());
        }
        let joined;
        let values = if self.partial.is_empty() {
            values
        } else {
            self.partial.extend_from_slice(values);
            joined = std::mem::take(&mut self.partial);
            &joined[..]
        };
        // BIPOP's budgets count sampled points (`AskTell::generation_samples`).
        let samples = self.inner.generation_samples().unwrap_or(values.len());
        self.bipop.run_evals = self.bipop.run_evals.saturating_add(samples as u64);
        self.bipop.run_generations = self.bipop.run_generations.saturating_add(1);
        self.count_flat_fitness(values);
        self.record(values);
        let spread = values.iter().filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        let converged = self.inner.converged(TOL_X_METHOD * self.start.sigma0);
        if !self.settle.settled
            && let Some(why) = if self.refound_now(spread) { Some("re-found the best point") } else { self.reason(spread, converged) }
            && self.may_restart()
        {
            let mut inner_events = self.inner.take_events();
            self.events.append(&mut inner_events);
            if self.close_run(why) {
                let (f, k) = (self.settle.best_f.unwrap_or(f64::NAN), self.settle.refound);
                self.events.push(Event {
                    kind: EventKind::Restart,
                    message: format!("{why}; restarts settled: {k} converged runs in a row re-found the best value {f:.6e}, no restart"),
                });
            } else if let Err(e) = self.restart(why) {
                // The restart's optimizer could not be built: an outcome of this update, not a
                // rejected input (the generation was taken).
                self.failure = Some(e.to_string());
            }
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        self.inner.mean()
    }

    fn scale(&self) -> f64 {
        self.inner.scale()
    }

    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        self.inner.spread_into(out)
    }

    fn shrink_spread(&mut self, factor: f64) {
        self.inner.shrink_spread(factor)
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref().or_else(|| self.inner.failure())
    }

    fn settled(&self) -> bool {
        self.settle.settled
    }

    fn generation_complete(&self) -> bool {
        self.inner.generation_complete()
    }

    fn generation_samples(&self) -> Option<usize> {
        self.inner.generation_samples()
    }

    fn take_events(&mut self) -> Vec<Event> {
        let mut e = std::mem::take(&mut self.events);
        e.append(&mut self.inner.take_events());
        e
    }
}
