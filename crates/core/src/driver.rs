//! The driver: the loop around an [`AskTell`] optimizer, with budgets, stop rules, bounds
//! handling, parallel evaluation, observers and checkpointable state.

use std::collections::VecDeque;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::{
    AskTell, Bounds, BoundsHandling, CoreError, GenerationRecord, Objective, Observer, Population, RunInfo, StopReason, StopRules,
    eval_population, eval_population_par,
};

/// How the driver runs: stop rules, parallelism and optional box constraints.
#[derive(Clone, Debug)]
pub struct DriverOptions {
    /// The stop rules.
    pub stop: StopRules,
    /// Evaluate each population on rayon's pool (default `true`). Values are identical either way.
    pub parallel: bool,
    /// Box constraints and how they are enforced (see [`BoundsHandling`]).
    pub bounds: Option<(Bounds, BoundsHandling)>,
}

impl DriverOptions {
    /// Options with the given stop rules, parallel evaluation and no bounds.
    pub fn new(stop: StopRules) -> Self {
        DriverOptions { stop, parallel: true, bounds: None }
    }
}

/// The driver's part of a checkpoint: counters, best point and the `tol-f` history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriverState {
    /// Evaluations done.
    pub evaluations: u64,
    /// Generations done.
    pub generations: u64,
    /// Best point evaluated (feasible when bounds are enforced); empty before the first finite value.
    pub best_x: Vec<f64>,
    /// Best finite value, if any.
    pub best_f: Option<f64>,
    /// Best values of the most recent generations (for `tol-f`).
    pub recent_best: VecDeque<f64>,
    /// Wall time spent in earlier sessions of this run, in seconds.
    pub seconds: f64,
    /// Set once the run has stopped.
    pub stopped: Option<StopReason>,
}

impl DriverState {
    fn fresh() -> Self {
        DriverState {
            evaluations: 0,
            generations: 0,
            best_x: Vec::new(),
            best_f: None,
            recent_best: VecDeque::new(),
            seconds: 0.0,
            stopped: None,
        }
    }

    /// Consistency checks for a state read from a file.
    pub fn validate(&self) -> Result<(), String> {
        if self.best_f.is_some() == self.best_x.is_empty() {
            return Err("driver.best_x and driver.best_f disagree".into());
        }
        if !(self.seconds.is_finite() && self.seconds >= 0.0) {
            return Err(format!("driver.seconds = {} is not a duration", self.seconds));
        }
        crate::state::finite("driver.best_x", &self.best_x)?;
        if let Some(f) = self.best_f
            && !f.is_finite()
        {
            return Err(format!("driver.best_f = {f} is not finite"));
        }
        if let Some(i) = self.recent_best.iter().position(|v| !v.is_finite()) {
            return Err(format!("driver.recent_best[{i}] is not finite"));
        }
        // Counters stay far from u64::MAX so that adding a generation can never wrap.
        const LIMIT: u64 = 1 << 62;
        if self.evaluations > LIMIT || self.generations > LIMIT {
            return Err(format!(
                "driver counters (evaluations {}, generations {}) must be at most 2^62",
                self.evaluations, self.generations
            ));
        }
        if self.generations > self.evaluations {
            return Err(format!("driver.generations = {} exceeds driver.evaluations = {}", self.generations, self.evaluations));
        }
        Ok(())
    }
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Algorithm name.
    pub algorithm: String,
    /// Dimension.
    pub dim: usize,
    /// Best point evaluated.
    pub best_x: Vec<f64>,
    /// Its value (`+inf`, written `null` in JSON, if no finite value was seen).
    pub best_f: f64,
    /// Evaluations done.
    pub evaluations: u64,
    /// Generations done.
    pub generations: u64,
    /// Why the run stopped (`None` while it is running).
    pub stop_reason: Option<StopReason>,
    /// Wall time in seconds, across resumes.
    pub seconds: f64,
}

/// Runs an [`AskTell`] optimizer on an objective, one generation per [`Driver::step`].
pub struct Driver<A: AskTell> {
    optimizer: A,
    options: DriverOptions,
    state: DriverState,
    pop: Population,
    eval_pop: Population,
    values: Vec<f64>,
    told: Vec<f64>,
    sorted: Vec<f64>,
    clock: Instant,
}

impl<A: AskTell> Driver<A> {
    /// A fresh run. Validates the options against the optimizer.
    pub fn new(optimizer: A, options: DriverOptions) -> Result<Self, CoreError> {
        Self::resume(optimizer, options, DriverState::fresh())
    }

    /// Continues a run from a checkpointed [`DriverState`] (with the optimizer restored from the
    /// same checkpoint): the trajectory is the one the uninterrupted run would have taken.
    ///
    /// The stop rules are those of `options`, which may differ from the saved run's (e.g. a larger
    /// budget): a run that had stopped continues if the new rules allow it.
    pub fn resume(optimizer: A, options: DriverOptions, mut state: DriverState) -> Result<Self, CoreError> {
        options.stop.validate()?;
        state.stopped = None;
        let d = optimizer.dim();
        if let Some((b, h)) = &options.bounds {
            h.validate()?;
            if b.dim() != d {
                return Err(CoreError::DimensionMismatch { what: "bounds dimension", expected: d, got: b.dim() });
            }
        }
        if let Some(max) = options.stop.max_evaluations
            && max < optimizer.population_size() as u64
        {
            return Err(CoreError::invalid(
                "max-evaluations",
                max,
                format!(">= the population size {} of {}", optimizer.population_size(), optimizer.name()),
            ));
        }
        if !state.best_x.is_empty() && state.best_x.len() != d {
            return Err(CoreError::DimensionMismatch { what: "checkpoint best_x length", expected: d, got: state.best_x.len() });
        }
        Ok(Driver {
            optimizer,
            options,
            state,
            pop: Population::empty(d),
            eval_pop: Population::empty(d),
            values: Vec::new(),
            told: Vec::new(),
            sorted: Vec::new(),
            clock: Instant::now(),
        })
    }

    /// The optimizer.
    pub fn optimizer(&self) -> &A {
        &self.optimizer
    }

    /// The driver state (what a checkpoint stores besides the optimizer).
    pub fn state(&self) -> DriverState {
        let mut s = self.state.clone();
        s.seconds = self.seconds();
        s
    }

    /// Generations done.
    pub fn generations(&self) -> u64 {
        self.state.generations
    }

    /// Evaluations done.
    pub fn evaluations(&self) -> u64 {
        self.state.evaluations
    }

    /// The options.
    pub fn options(&self) -> &DriverOptions {
        &self.options
    }

    fn seconds(&self) -> f64 {
        self.state.seconds + self.clock.elapsed().as_secs_f64()
    }

    /// Static facts for observers.
    pub fn info(&self) -> RunInfo {
        RunInfo {
            algorithm: self.optimizer.name().to_string(),
            dim: self.optimizer.dim(),
            population_size: self.optimizer.population_size(),
            stop: self.options.stop.clone(),
            start_generation: self.state.generations,
        }
    }

    /// The result so far.
    pub fn result(&self) -> RunResult {
        RunResult {
            algorithm: self.optimizer.name().to_string(),
            dim: self.optimizer.dim(),
            best_x: self.state.best_x.clone(),
            best_f: self.state.best_f.unwrap_or(f64::INFINITY),
            evaluations: self.state.evaluations,
            generations: self.state.generations,
            stop_reason: self.state.stopped,
            seconds: self.seconds(),
        }
    }

    /// Whether a stop rule has fired.
    pub fn stopped(&self) -> Option<StopReason> {
        self.state.stopped
    }

    /// Runs one generation (ask, evaluate, tell, bookkeeping) and reports it to the observers.
    /// Returns the stop reason once a rule fires; further calls then do nothing. An error (e.g. a
    /// NaN value under the error policy) leaves the optimizer and counters unchanged.
    pub fn step<F: Objective + Sync + ?Sized>(
        &mut self,
        objective: &F,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Option<StopReason>, CoreError> {
        if self.state.stopped.is_some() {
            return Ok(self.state.stopped);
        }
        if let Some(reason) = self.budget_exhausted() {
            self.state.stopped = Some(reason);
            return Ok(Some(reason));
        }
        let d = self.optimizer.dim();
        if let Some(od) = objective.dim()
            && od != d
        {
            return Err(CoreError::DimensionMismatch { what: "objective dimension", expected: d, got: od });
        }
        self.optimizer.ask_into(&mut self.pop)?;
        if self.pop.as_slice().iter().any(|v| !v.is_finite()) {
            // The search distribution over- or underflowed: nothing can be evaluated. Stop and keep
            // the best point found so far instead of sending NaN to the objective.
            self.state.stopped = Some(StopReason::Diverged);
            return Ok(self.state.stopped);
        }
        let n = self.pop.len();
        self.values.resize(n, 0.0);
        let evaluated = match &self.options.bounds {
            None => &self.pop,
            Some((b, h)) => {
                self.eval_pop.resize(n, d);
                for (src, dst) in self.pop.rows().zip(self.eval_pop.rows_mut()) {
                    b.repair_into(h.repair(), src, dst);
                }
                &self.eval_pop
            }
        };
        if self.options.parallel {
            eval_population_par(objective, evaluated, &mut self.values)?;
        } else {
            eval_population(objective, evaluated, &mut self.values)?;
        }
        // The optimizer is told the penalized values; the bookkeeping (best point, logs) uses the
        // objective's own values at the feasible points, so best_f = f(best_x).
        match &self.options.bounds {
            Some((b, h @ BoundsHandling::Penalty { .. })) => {
                self.told.clear();
                self.told.extend(self.values.iter().zip(self.pop.rows()).map(|(v, x)| v + h.penalty(b, x)));
                self.optimizer.tell(&self.pop, &self.told)?;
            }
            _ => self.optimizer.tell(&self.pop, &self.values)?,
        }

        // Bookkeeping on the finite values only.
        self.state.evaluations = self.state.evaluations.saturating_add(n as u64);
        self.state.generations = self.state.generations.saturating_add(1);
        let mut gen_best: Option<(usize, f64)> = None;
        for (i, &v) in self.values.iter().enumerate() {
            if v.is_finite() && gen_best.is_none_or(|(_, b)| v < b) {
                gen_best = Some((i, v));
            }
        }
        if let Some((i, v)) = gen_best
            && self.state.best_f.is_none_or(|b| v < b)
        {
            self.state.best_f = Some(v);
            self.state.best_x.clear();
            let evaluated = if self.options.bounds.is_some() { &self.eval_pop } else { &self.pop };
            self.state.best_x.extend_from_slice(evaluated.row(i));
        }
        self.sorted.clear();
        self.sorted.extend(self.values.iter().map(|&v| if v.is_nan() { f64::INFINITY } else { v }));
        self.sorted.sort_by(f64::total_cmp);
        let median = if n == 0 { f64::NAN } else { self.sorted[n / 2] };

        let window = self.options.stop.tol_f_window;
        match gen_best {
            Some((_, v)) => {
                self.state.recent_best.push_back(v);
                while self.state.recent_best.len() > window {
                    self.state.recent_best.pop_front();
                }
            }
            None => self.state.recent_best.clear(),
        }

        let record = GenerationRecord {
            generation: self.state.generations,
            evaluations: self.state.evaluations,
            best_f: self.state.best_f,
            gen_best_f: gen_best.map(|(_, v)| v),
            gen_median_f: median.is_finite().then_some(median),
            scale: self.optimizer.scale(),
            seconds: self.seconds(),
            events: self.optimizer.take_events(),
        };
        for o in observers.iter_mut() {
            o.on_generation(&record)?;
        }
        self.state.stopped = self.check_stop();
        Ok(self.state.stopped)
    }

    /// The rules that can be judged before a generation: target and budgets.
    fn budget_exhausted(&self) -> Option<StopReason> {
        let s = &self.options.stop;
        if let (Some(t), Some(b)) = (s.target, self.state.best_f)
            && b <= t
        {
            return Some(StopReason::Target);
        }
        if let Some(max) = s.max_evaluations
            && self.state.evaluations.saturating_add(self.optimizer.population_size() as u64) > max
        {
            return Some(StopReason::MaxEvaluations);
        }
        if s.max_generations.is_some_and(|g| self.state.generations >= g) {
            return Some(StopReason::MaxGenerations);
        }
        if s.max_seconds.is_some_and(|t| self.seconds() >= t) {
            return Some(StopReason::WallTime);
        }
        None
    }

    fn check_stop(&self) -> Option<StopReason> {
        let s = &self.options.stop;
        if let Some(r @ StopReason::Target) = self.budget_exhausted() {
            return Some(r);
        }
        if let Some(tol) = s.tol_f
            && self.state.recent_best.len() >= s.tol_f_window
            && self.sorted.last().is_some_and(|v| v.is_finite())
        {
            let lo = self.state.recent_best.iter().copied().fold(self.sorted[0], f64::min);
            let hi = self.state.recent_best.iter().copied().fold(self.sorted[self.sorted.len() - 1], f64::max);
            if hi - lo < tol {
                return Some(StopReason::TolF);
            }
        }
        if s.tol_x.is_some_and(|tol| self.optimizer.scale() < tol) {
            return Some(StopReason::TolX);
        }
        self.budget_exhausted()
    }

    /// Runs generations until a stop rule fires; calls `on_start` and `on_finish` of the observers.
    pub fn run<F: Objective + Sync + ?Sized>(
        &mut self,
        objective: &F,
        observers: &mut [&mut dyn Observer],
    ) -> Result<RunResult, CoreError> {
        let info = self.info();
        for o in observers.iter_mut() {
            o.on_start(&info)?;
        }
        while self.step(objective, observers)?.is_none() {}
        let result = self.result();
        for o in observers.iter_mut() {
            o.on_finish(&result)?;
        }
        Ok(result)
    }

    /// Gives the optimizer back.
    pub fn into_optimizer(self) -> A {
        self.optimizer
    }
}

/// Minimizes `objective` with `optimizer` until a rule of `stop` fires, evaluating populations in
/// parallel; every generation is reported to `observers`.
///
/// ```
/// use gradfree_core::{minimize, FnObjective, StopRules};
/// # use gradfree_core::{AskTell, CoreError, Population};
/// # struct Fixed(Vec<f64>);
/// # impl AskTell for Fixed {
/// #     fn name(&self) -> &'static str { "fixed" }
/// #     fn dim(&self) -> usize { self.0.len() }
/// #     fn population_size(&self) -> usize { 1 }
/// #     fn ask_into(&mut self, p: &mut Population) -> Result<(), CoreError> { p.resize(1, self.0.len()); p.row_mut(0).copy_from_slice(&self.0); Ok(()) }
/// #     fn tell(&mut self, _: &Population, _: &[f64]) -> Result<(), CoreError> { Ok(()) }
/// #     fn mean(&self) -> &[f64] { &self.0 }
/// #     fn scale(&self) -> f64 { 0.0 }
/// # }
/// let sphere = FnObjective::new(|x: &[f64]| x.iter().map(|v| v * v).sum());
/// let r = minimize(&sphere, Fixed(vec![1.0, 2.0]), StopRules::max_evaluations(3), &mut []).unwrap();
/// assert_eq!((r.best_f, r.evaluations), (5.0, 3));
/// ```
pub fn minimize<A: AskTell, F: Objective + Sync + ?Sized>(
    objective: &F,
    optimizer: A,
    stop: StopRules,
    observers: &mut [&mut dyn Observer],
) -> Result<RunResult, CoreError> {
    Driver::new(optimizer, DriverOptions::new(stop))?.run(objective, observers)
}
