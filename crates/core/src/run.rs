//! [`Run`]: one optimization run as a state machine that takes values from the caller. It owns
//! everything around the optimizer that is not the evaluation itself: budgets and stop rules,
//! boundary repair and penalties, best-point tracking, counters, generation records for the
//! observers and the checkpointable [`DriverState`]. The [`crate::Driver`] is a `Run` plus an
//! objective; the Python ES classes are a `Run` whose values come from the user's loop, so both
//! stop at the same generation for the same rules.

use std::collections::VecDeque;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::{AskTell, BoundsHandling, CoreError, DriverOptions, GenerationRecord, Observer, Population, RunInfo, StopReason};

/// The run's part of a checkpoint: counters, best point and the `tol-f` history.
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
    /// Flat generations (best = median) in a row, for `tol-flat` (older checkpoints: 0).
    #[serde(default)]
    pub flat_generations: u64,
    /// Best value of each recent generation, oldest first, for `tol-stagnation` (older checkpoints:
    /// empty).
    #[serde(default)]
    pub history_best: VecDeque<f64>,
    /// Median value of each recent generation, alongside `history_best`.
    #[serde(default)]
    pub history_median: VecDeque<f64>,
    /// Values told so far of a generation told in batches ([`AskTell::generation_complete`]; older
    /// checkpoints: empty). Non-finite values are kept as `f64::MAX` (JSON has no infinity).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial: Vec<f64>,
}

impl DriverState {
    /// The state of a run that has not started.
    pub fn fresh() -> Self {
        DriverState {
            evaluations: 0,
            generations: 0,
            best_x: Vec::new(),
            best_f: None,
            recent_best: VecDeque::new(),
            seconds: 0.0,
            stopped: None,
            flat_generations: 0,
            history_best: VecDeque::new(),
            history_median: VecDeque::new(),
            partial: Vec::new(),
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
        if self.history_best.len() != self.history_median.len() {
            return Err("driver.history_best and driver.history_median differ in length".into());
        }
        if self.history_best.iter().chain(&self.history_median).any(|v| v.is_nan()) {
            return Err("driver.history_best or driver.history_median holds NaN".into());
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

/// One run of an [`AskTell`] optimizer whose values come from the caller:
/// [`Run::ask`] gives the points to evaluate (repaired into the bounds if any), [`Run::tell`]
/// takes their values, updates the optimizer and the bookkeeping, reports the generation to the
/// observers and judges the stop rules.
///
/// Stop rules are judged at two moments, as in pycma's loop: the budgets (evaluations,
/// generations, wall time) and the target before a generation ([`Run::should_stop`], also called
/// by `ask`), and all rules after it (`tell`).
pub struct Run<A: AskTell> {
    optimizer: A,
    options: DriverOptions,
    state: DriverState,
    /// The points the optimizer proposed.
    asked: Population,
    /// The points to evaluate: `asked` repaired into the bounds (unused without bounds).
    repaired: Population,
    /// Whether `asked` awaits its values.
    pending: bool,
    told: Vec<f64>,
    sorted: Vec<f64>,
    /// Scratch for the medians of the stagnation test (reused: no allocation per generation).
    window: Vec<f64>,
    /// Scratch for the optimizer's per-coordinate spread ([`Run::limit_spread`]).
    spread: Vec<f64>,
    clock: Instant,
}

impl<A: AskTell> Run<A> {
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
                "max_evaluations",
                max,
                format!(">= the population size {} of {}", optimizer.population_size(), optimizer.name()),
            ));
        }
        if !state.best_x.is_empty() && state.best_x.len() != d {
            return Err(CoreError::DimensionMismatch { what: "checkpoint best_x length", expected: d, got: state.best_x.len() });
        }
        Ok(Run {
            optimizer,
            options,
            state,
            asked: Population::empty(d),
            repaired: Population::empty(d),
            pending: false,
            told: Vec::new(),
            sorted: Vec::new(),
            window: Vec::new(),
            spread: Vec::new(),
            clock: Instant::now(),
        })
    }

    /// The optimizer.
    pub fn optimizer(&self) -> &A {
        &self.optimizer
    }

    /// The optimizer, to change a setting that leaves its population and dimension alone (e.g.
    /// a restart wrapper's rules) between generations.
    pub fn optimizer_mut(&mut self) -> &mut A {
        &mut self.optimizer
    }

    /// Gives the optimizer back.
    pub fn into_optimizer(self) -> A {
        self.optimizer
    }

    /// The options.
    pub fn options(&self) -> &DriverOptions {
        &self.options
    }

    /// The state a checkpoint stores besides the optimizer.
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

    /// Wall time across sessions, in seconds.
    pub fn seconds(&self) -> f64 {
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

    /// The stop reason, if a rule has fired (without judging the rules again).
    pub fn stopped(&self) -> Option<StopReason> {
        self.state.stopped
    }

    /// Sets the stop reason of a restored run whose rules are unchanged (e.g. an unpickled Python
    /// run), which [`Run::resume`] clears so that new rules may continue a stopped run.
    pub fn restore_stopped(&mut self, reason: Option<StopReason>) {
        self.state.stopped = reason;
    }

    /// Judges the rules that can be judged before a generation (target, budgets) and records the
    /// reason; `None`: the next generation may run.
    pub fn should_stop(&mut self) -> Option<StopReason> {
        if self.state.stopped.is_none() {
            self.state.stopped = self.budget_exhausted();
        }
        self.state.stopped
    }

    /// The points of the pending generation, as the objective must see them (repaired into the
    /// bounds, if any); `None` if nothing is pending.
    pub fn pending(&self) -> Option<&Population> {
        self.pending.then(|| self.to_evaluate())
    }

    /// The points the optimizer proposed for the pending generation (before repair).
    pub fn pending_raw(&self) -> Option<&Population> {
        self.pending.then_some(&self.asked)
    }

    fn to_evaluate(&self) -> &Population {
        if self.options.bounds.is_some() { &self.repaired } else { &self.asked }
    }

    /// Proposes the next generation and returns the points to evaluate, or `None` once a stop
    /// rule has fired (then nothing is proposed). A non-finite proposal (the search distribution
    /// over- or underflowed) stops the run with [`StopReason::Diverged`] instead of sending NaN
    /// to the objective. Asking again before telling discards the pending points.
    pub fn ask(&mut self) -> Result<Option<&Population>, CoreError> {
        self.propose(None)
    }

    /// Proposes a batch of `count` points ([`AskTell::ask_batch_into`]; evolution strategies
    /// accept only their population size), as [`Run::ask`] otherwise.
    pub fn ask_batch(&mut self, count: usize) -> Result<Option<&Population>, CoreError> {
        self.propose(Some(count))
    }

    fn propose(&mut self, count: Option<usize>) -> Result<Option<&Population>, CoreError> {
        if self.should_stop().is_some() {
            return Ok(None);
        }
        match count {
            None => self.optimizer.ask_into(&mut self.asked)?,
            Some(c) => self.optimizer.ask_batch_into(c, &mut self.asked)?,
        }
        if self.asked.as_slice().iter().any(|v| !v.is_finite()) {
            self.pending = false;
            self.state.stopped = Some(StopReason::Diverged);
            return Ok(None);
        }
        if let Some((b, h)) = &self.options.bounds {
            self.repaired.resize(self.asked.len(), self.asked.dim());
            for (src, dst) in self.asked.rows().zip(self.repaired.rows_mut()) {
                b.repair_into(h.repair(), src, dst);
            }
        }
        self.pending = true;
        Ok(Some(self.to_evaluate()))
    }

    /// Restores a pending generation (e.g. after unpickling between `ask` and `tell`): `asked`
    /// must be what the optimizer proposed, `popsize x dim` and finite.
    pub fn set_pending(&mut self, asked: Population) -> Result<(), CoreError> {
        let want = (self.optimizer.population_size(), self.optimizer.dim());
        if (asked.len(), asked.dim()) != want {
            return Err(CoreError::DimensionMismatch { what: "pending population size", expected: want.0, got: asked.len() });
        }
        if asked.as_slice().iter().any(|v| !v.is_finite()) {
            return Err(CoreError::invalid("pending population", "non-finite", "finite points"));
        }
        self.asked = asked;
        if let Some((b, h)) = &self.options.bounds {
            self.repaired.resize(self.asked.len(), self.asked.dim());
            for (src, dst) in self.asked.rows().zip(self.repaired.rows_mut()) {
                b.repair_into(h.repair(), src, dst);
            }
        }
        self.pending = true;
        Ok(())
    }

    /// Takes the values of `points` (as the objective saw them). For an evolution strategy
    /// ([`AskTell::accepts_any_points`] false) `points` must be exactly the pending points
    /// ([`Run::pending`]), in order: the error names the first row that differs and nothing
    /// changes. A method that accepts any points (initial designs, late results) is told them as
    /// they are, in a batch of any size. Then as [`Run::tell`].
    pub fn tell_points(
        &mut self,
        points: &Population,
        values: &[f64],
        observers: &mut [&mut dyn Observer],
    ) -> Result<Option<StopReason>, CoreError> {
        if self.optimizer.accepts_any_points() {
            if points.dim() != self.optimizer.dim() {
                return Err(CoreError::DimensionMismatch { what: "point dimension", expected: self.optimizer.dim(), got: points.dim() });
            }
            self.asked.clone_from(points);
            if let Some((b, h)) = &self.options.bounds {
                self.repaired.resize(points.len(), points.dim());
                for (src, dst) in points.rows().zip(self.repaired.rows_mut()) {
                    b.repair_into(h.repair(), src, dst);
                }
            }
            self.pending = true;
            return self.tell(values, observers);
        }
        let Some(asked) = self.pending() else {
            return Err(CoreError::OutOfOrder("tell without a pending ask"));
        };
        if (points.len(), points.dim()) != (asked.len(), asked.dim()) {
            return Err(CoreError::DimensionMismatch { what: "told points (rows)", expected: asked.len(), got: points.len() });
        }
        if let Some(k) = points.as_slice().iter().zip(asked.as_slice()).position(|(a, b)| a != b) {
            let d = asked.dim().max(1);
            return Err(CoreError::NotAsked { row: k / d, column: k % d, told: points.as_slice()[k], asked: asked.as_slice()[k] });
        }
        self.tell(values, observers)
    }

    /// Takes `values[i] = f(pending().row(i))`: tells the optimizer (penalized values under
    /// [`BoundsHandling::Penalty`]), updates counters, best point and `tol-f` history, reports the
    /// generation to `observers` and judges every stop rule. An error (wrong length, a NaN under
    /// the error policy) leaves the optimizer, the counters and the pending points unchanged. A
    /// numerical failure of the optimizer's update ([`AskTell::failure`]) is not an error: the
    /// generation is counted and the run stops with [`StopReason::NumericalFailure`].
    pub fn tell(&mut self, values: &[f64], observers: &mut [&mut dyn Observer]) -> Result<Option<StopReason>, CoreError> {
        if !self.pending {
            return Err(CoreError::OutOfOrder("tell without a pending ask"));
        }
        let n = self.asked.len();
        if values.len() != n {
            return Err(CoreError::DimensionMismatch { what: "number of objective values", expected: n, got: values.len() });
        }
        // The optimizer is told the penalized values; the bookkeeping (best point, logs) uses the
        // objective's own values at the feasible points, so best_f = f(best_x).
        match &self.options.bounds {
            Some((b, h @ BoundsHandling::Penalty { .. })) => {
                self.told.clear();
                self.told.extend(values.iter().zip(self.asked.rows()).map(|(v, x)| v + h.penalty(b, x)));
                self.optimizer.tell(&self.asked, &self.told)?;
            }
            _ => self.optimizer.tell(&self.asked, values)?,
        }
        self.pending = false;
        self.limit_spread();

        // Bookkeeping on the finite values only.
        self.state.evaluations = self.state.evaluations.saturating_add(n as u64);
        let mut gen_best: Option<(usize, f64)> = None;
        for (i, &v) in values.iter().enumerate() {
            if v.is_finite() && gen_best.is_none_or(|(_, b)| v < b) {
                gen_best = Some((i, v));
            }
        }
        if let Some((i, v)) = gen_best
            && self.state.best_f.is_none_or(|b| v < b)
        {
            self.state.best_f = Some(v);
            self.state.best_x.clear();
            let evaluated = if self.options.bounds.is_some() { &self.repaired } else { &self.asked };
            self.state.best_x.extend_from_slice(evaluated.row(i));
        }
        // A generation told in batches: the rules on values wait for the whole generation.
        if !self.optimizer.generation_complete() {
            self.state.partial.extend(values.iter().map(|&v| if v.is_finite() { v } else { f64::MAX }));
            return self.report(gen_best.map(|(_, v)| v), None, false, observers);
        }
        self.state.generations = self.state.generations.saturating_add(1);
        self.sorted.clear();
        self.sorted.extend(self.state.partial.drain(..).map(|v| if v == f64::MAX { f64::INFINITY } else { v }));
        self.sorted.extend(values.iter().map(|&v| if v.is_nan() { f64::INFINITY } else { v }));
        self.sorted.sort_by(f64::total_cmp);
        let n = self.sorted.len();
        let median = if n == 0 { f64::NAN } else { self.sorted[n / 2] };
        let gen_best = self.sorted.first().copied().filter(|v| v.is_finite()).map(|v| (0, v)).or(gen_best);

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
        // Flat generations and the stagnation history (generations with no finite value are left
        // out; infinite values order as the worst).
        if let Some((_, v)) = gen_best {
            // A generation of one evaluated point (a surrogate-assisted method's, whose model
            // ranked the rest) says nothing about flatness: the count stays.
            if n >= 2 {
                let flat = v == median;
                self.state.flat_generations = if flat { self.state.flat_generations.saturating_add(1) } else { 0 };
            }
            if let Some(s) = self.options.stop.tol_stagnation {
                let keep = stagnation_history_len(s);
                self.state.history_best.push_back(v);
                self.state.history_median.push_back(median);
                while self.state.history_best.len() > keep {
                    self.state.history_best.pop_front();
                    self.state.history_median.pop_front();
                }
            }
        }

        self.report(gen_best.map(|(_, v)| v), median.is_finite().then_some(median), true, observers)
    }

    /// Reports the generation (or, `whole` false, a batch of a generation told in batches: its
    /// number is the one in progress) to `observers` and judges the stop rules: all of them after a
    /// whole generation, only the target, the budgets and numerical failure after a batch.
    fn report(
        &mut self,
        gen_best_f: Option<f64>,
        gen_median_f: Option<f64>,
        whole: bool,
        observers: &mut [&mut dyn Observer],
    ) -> Result<Option<StopReason>, CoreError> {
        let mut events = self.optimizer.take_events();
        if let Some(why) = self.optimizer.failure() {
            events.push(crate::Event { kind: crate::EventKind::NumericalFailure, message: why.to_string() });
        }
        let record = GenerationRecord {
            generation: self.state.generations,
            evaluations: self.state.evaluations,
            best_f: self.state.best_f,
            gen_best_f,
            gen_median_f,
            scale: self.optimizer.scale(),
            seconds: self.seconds(),
            events,
        };
        for o in observers.iter_mut() {
            o.on_generation(&record)?;
        }
        self.state.stopped = if self.optimizer.failure().is_some() {
            Some(StopReason::NumericalFailure)
        } else if whole {
            self.check_stop()
        } else {
            self.budget_exhausted()
        };
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
        // The wall-time budget is judged from the first generation on (as pycma's `timeout`): a
        // run that evaluated nothing would have no answer to give.
        if s.max_seconds.is_some_and(|t| self.state.generations > 0 && self.seconds() >= t) {
            return Some(StopReason::WallTime);
        }
        None
    }

    /// Every rule, after a generation.
    fn check_stop(&mut self) -> Option<StopReason> {
        let s = &self.options.stop;
        if let Some(r @ StopReason::Target) = self.budget_exhausted() {
            return Some(r);
        }
        if self.optimizer.settled() {
            return Some(StopReason::RestartsSettled);
        }
        // Divergence first: a diverged run may look converged to the rules on steps and values.
        if let (Some(factor), Some(best), Some(&gen_best)) = (s.tol_diverge, self.state.best_f, self.state.recent_best.back())
            && gen_best - best > factor * best.abs().max(1.0)
        {
            return Some(StopReason::Diverged);
        }
        if s.tol_diverge.is_some() && self.mean_left_the_box() {
            return Some(StopReason::Diverged);
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
        if s.tol_flat.is_some_and(|n| self.state.flat_generations > n) {
            return Some(StopReason::TolFlat);
        }
        if let Some(c) = s.tol_condition
            && self.optimizer.condition().is_some_and(|k| k.is_nan() || k > c)
        {
            return Some(StopReason::TolCondition);
        }
        if let Some(window) = s.tol_stagnation
            && self.stagnated(window)
        {
            return Some(StopReason::TolStagnation);
        }
        self.budget_exhausted()
    }

    /// Under the periodic transformation, scales the optimizer's spread down to
    /// [`Bounds::spread_factor`] (pycma's `maxstd_boundrange`).
    fn limit_spread(&mut self) {
        let Some((b, h)) = &self.options.bounds else {
            return;
        };
        if h.repair() == crate::BoundaryRepair::Transform && self.optimizer.spread_into(&mut self.spread) {
            let factor = b.spread_factor(&self.spread);
            if factor < 1.0 && factor > 0.0 {
                self.optimizer.shrink_spread(factor);
            }
        }
    }

    /// Under bounds repaired by projection or reflection, whether the optimizer's mean lies more
    /// than the box's width outside it in some coordinate: every evaluated point is then repaired
    /// onto the boundary, the values stop changing and a rule on steps or values would report a
    /// convergence that is not one.
    fn mean_left_the_box(&self) -> bool {
        let Some((b, h)) = &self.options.bounds else {
            return false;
        };
        // The periodic transformation keeps the values changing wherever the mean is.
        if h.repair() == crate::BoundaryRepair::Transform {
            return false;
        }
        self.optimizer.mean().iter().zip(b.lower().iter().zip(b.upper())).any(|(&m, (&lo, &hi))| {
            let w = hi - lo;
            !(m >= lo - w && m <= hi + w)
        })
    }

    /// pycma's `tolstagnation` test ([`crate::StopRules::tol_stagnation`]).
    fn stagnated(&mut self, window: u64) -> bool {
        let (d, lambda) = (self.optimizer.dim() as f64, self.optimizer.population_size().max(1) as f64);
        let l = window.div_ceil(10) as usize;
        let n = self.state.history_best.len();
        if (self.state.generations as f64) <= d * (5.0 + 100.0 / lambda) || n <= 100 || 2 * l > n {
            return false;
        }
        let scratch = &mut self.window;
        let mut no_progress = |h: &VecDeque<f64>| {
            let recent = median_of(h.range(n - l..), scratch);
            let before = median_of(h.range(n - 2 * l..n - l), scratch);
            recent >= before
        };
        no_progress(&self.state.history_best) && no_progress(&self.state.history_median)
    }
}

/// Generations of history the stagnation test with window `s` needs: two blocks of
/// `ceil(s / 10)` generations, and more than 100.
fn stagnation_history_len(s: u64) -> usize {
    (2 * s.div_ceil(10) as usize).max(101)
}

/// The median of finite-or-infinite values (upper median for an even count), using `scratch`.
fn median_of<'a>(values: impl Iterator<Item = &'a f64>, scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    scratch.extend(values);
    let mid = scratch.len() / 2;
    *scratch.select_nth_unstable_by(mid, f64::total_cmp).1
}
