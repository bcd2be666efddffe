//! The driver: the loop around an [`AskTell`] optimizer: a [`Run`] (budgets, stop rules, bounds
//! handling, bookkeeping, observers) plus the evaluation of each generation (parallel or not) and
//! checkpoints every n generations.

use std::path::PathBuf;

use serde::Serialize;

use crate::objective::eval_generation;
use crate::run::{DriverState, Run, RunResult};
use crate::{AskTell, Bounds, BoundsHandling, CoreError, Objective, Observer, RunInfo, StopReason, StopRules, save_checkpoint};

/// How the driver runs: stop rules, parallelism and optional box constraints.
#[derive(Clone, Debug)]
pub struct DriverOptions {
    /// The stop rules.
    pub stop: StopRules,
    /// Evaluate each population on rayon's pool (default `true`). Values are identical either way.
    pub parallel: bool,
    /// Box constraints and how they are enforced (see [`BoundsHandling`]).
    pub bounds: Option<(Bounds, BoundsHandling)>,
    /// Seed of the evaluation contexts ([`crate::EvalContext::run_seed`]) given to stochastic
    /// objectives (default 0).
    pub eval_seed: u64,
}

impl DriverOptions {
    /// Options with the given stop rules, parallel evaluation and no bounds.
    pub fn new(stop: StopRules) -> Self {
        DriverOptions { stop, parallel: true, bounds: None, eval_seed: 0 }
    }
}

/// Where and how often a [`Driver`] saves checkpoints (argmin's checkpoint-every-n, and a
/// wall-clock interval): after every `every`-th generation, after the first generation that ends
/// `seconds` or more after the last save, and once when the run stops; atomically, with `meta`
/// (the caller's run description) stored next to the optimizer and the run state
/// ([`save_checkpoint`]). A wall-clock interval keeps short runs from spending their time writing
/// files (a 0.8 s run with a checkpoint every 50 generations took 3.7 s) while bounding what a
/// crash of a long run loses.
#[derive(Clone, Debug)]
pub struct CheckpointPolicy {
    /// The checkpoint file (replaced atomically).
    pub path: PathBuf,
    /// Generations between checkpoints (>= 1), if any.
    pub every: Option<u64>,
    /// Wall-clock seconds between checkpoints (finite, > 0), if any.
    pub seconds: Option<f64>,
    /// The caller's metadata (e.g. the CLI's run specification).
    pub meta: serde_json::Value,
}

/// When the next checkpoint is due.
struct Schedule {
    every: Option<u64>,
    seconds: Option<f64>,
    last: std::time::Instant,
}

impl Schedule {
    fn due(&self, generation: u64) -> bool {
        self.every.is_some_and(|e| generation.is_multiple_of(e)) || self.seconds.is_some_and(|s| self.last.elapsed().as_secs_f64() >= s)
    }
}

type SaveFn<A> = Box<dyn FnMut(&A, &DriverState) -> Result<(), CoreError> + Send>;

/// Runs an [`AskTell`] optimizer on an objective, one generation per [`Driver::step`]: a [`Run`]
/// plus the evaluation (parallel or not, with an [`EvalContext`](crate::EvalContext) per point)
/// and optional checkpoints.
pub struct Driver<A: AskTell> {
    run: Run<A>,
    values: Vec<f64>,
    checkpoint: Option<(Schedule, SaveFn<A>)>,
}

impl<A: AskTell> Driver<A> {
    /// A fresh run. Validates the options against the optimizer.
    pub fn new(optimizer: A, options: DriverOptions) -> Result<Self, CoreError> {
        Ok(Driver { run: Run::new(optimizer, options)?, values: Vec::new(), checkpoint: None })
    }

    /// Continues a run from a checkpointed [`DriverState`] (see [`Run::resume`]).
    pub fn resume(optimizer: A, options: DriverOptions, state: DriverState) -> Result<Self, CoreError> {
        Ok(Driver { run: Run::resume(optimizer, options, state)?, values: Vec::new(), checkpoint: None })
    }

    /// Saves checkpoints as `policy` says during [`Driver::run`] (and [`Driver::save_checkpoint`]).
    pub fn with_checkpoints(mut self, policy: CheckpointPolicy) -> Result<Self, CoreError>
    where
        A: Serialize,
    {
        if policy.every == Some(0) {
            return Err(CoreError::invalid("checkpoint_every", 0, ">= 1"));
        }
        if let Some(s) = policy.seconds
            && !(s.is_finite() && s > 0.0)
        {
            return Err(CoreError::invalid("checkpoint_seconds", s, "finite and > 0"));
        }
        crate::check_writable_target(&policy.path)?;
        let CheckpointPolicy { path, every, seconds, meta } = policy;
        let save: SaveFn<A> = Box::new(move |opt: &A, state: &DriverState| save_checkpoint(&path, &meta, opt, state));
        self.checkpoint = Some((Schedule { every, seconds, last: std::time::Instant::now() }, save));
        Ok(self)
    }

    /// Writes a checkpoint now, if a policy is set.
    pub fn save_checkpoint(&mut self) -> Result<(), CoreError> {
        if let Some((schedule, save)) = self.checkpoint.as_mut() {
            save(self.run.optimizer(), &self.run.state())?;
            schedule.last = std::time::Instant::now();
        }
        Ok(())
    }

    /// The run (state machine and bookkeeping).
    pub fn run_state(&self) -> &Run<A> {
        &self.run
    }

    /// The optimizer.
    pub fn optimizer(&self) -> &A {
        self.run.optimizer()
    }

    /// The driver state (what a checkpoint stores besides the optimizer).
    pub fn state(&self) -> DriverState {
        self.run.state()
    }

    /// Generations done.
    pub fn generations(&self) -> u64 {
        self.run.generations()
    }

    /// Evaluations done.
    pub fn evaluations(&self) -> u64 {
        self.run.evaluations()
    }

    /// The options.
    pub fn options(&self) -> &DriverOptions {
        self.run.options()
    }

    /// Static facts for observers.
    pub fn info(&self) -> RunInfo {
        self.run.info()
    }

    /// The result so far.
    pub fn result(&self) -> RunResult {
        self.run.result()
    }

    /// Whether a stop rule has fired.
    pub fn stopped(&self) -> Option<StopReason> {
        self.run.stopped()
    }

    /// Runs one generation (ask, evaluate, tell, bookkeeping) and reports it to the observers.
    /// Returns the stop reason once a rule fires; further calls then do nothing. An error (e.g. a
    /// NaN value under the error policy) leaves the optimizer and counters unchanged.
    pub fn step<F: Objective + Sync + ?Sized>(
        &mut self,
        objective: &F,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Option<StopReason>, CoreError> {
        if self.run.should_stop().is_some() {
            return Ok(self.run.stopped());
        }
        let d = self.run.optimizer().dim();
        if let Some(od) = objective.dim()
            && od != d
        {
            return Err(CoreError::DimensionMismatch { what: "objective dimension", expected: d, got: od });
        }
        let generation = self.run.generations().saturating_add(1);
        let (parallel, seed) = (self.run.options().parallel, self.run.options().eval_seed);
        let Some(points) = self.run.ask()? else {
            return Ok(self.run.stopped());
        };
        self.values.resize(points.len(), 0.0);
        eval_generation(objective, points, generation, seed, parallel, &mut self.values)?;
        self.run.tell(&self.values, observers)
    }

    /// Runs generations until a stop rule fires; calls `on_start` and `on_finish` of the
    /// observers, and saves checkpoints as the [`CheckpointPolicy`] says (if one is set) and at
    /// the end.
    pub fn run<F: Objective + Sync + ?Sized>(
        &mut self,
        objective: &F,
        observers: &mut [&mut dyn Observer],
    ) -> Result<RunResult, CoreError> {
        let info = self.info();
        for o in observers.iter_mut() {
            o.on_start(&info)?;
        }
        while self.step(objective, observers)?.is_none() {
            if self.checkpoint.as_ref().is_some_and(|(s, _)| s.due(self.run.generations())) {
                self.save_checkpoint()?;
            }
        }
        self.save_checkpoint()?;
        let result = self.result();
        for o in observers.iter_mut() {
            o.on_finish(&result)?;
        }
        Ok(result)
    }

    /// Gives the optimizer back.
    pub fn into_optimizer(self) -> A {
        self.run.into_optimizer()
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
