//! Stop rules for the driver, validated once into a checked type.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::CoreError;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The best value reached the target: `best_f <= target`.
    Target,
    /// The next generation would exceed the evaluation budget.
    MaxEvaluations,
    /// The generation budget is spent.
    MaxGenerations,
    /// The best values of the last `tol_f_window` generations, and all values of the last
    /// generation, span less than `tol_f`.
    TolF,
    /// The optimizer's step length [`crate::AskTell::scale`] fell below `tol_x`.
    TolX,
    /// The best and the median value of a generation were equal for more than `tol_flat`
    /// generations in a row (pycma's `tolflatfitness`): the search sees a plateau.
    TolFlat,
    /// No progress of the generations' best and median values over the last `tol_stagnation`
    /// generations (pycma's `tolstagnation`; see [`StopRules::tol_stagnation`]).
    TolStagnation,
    /// The condition number of the search distribution's covariance
    /// ([`crate::AskTell::condition`]) exceeded `tol_condition` (pycma's `tolconditioncov`).
    TolCondition,
    /// The wall-time budget is spent.
    WallTime,
    /// The run diverges: the optimizer proposed a non-finite point (its search distribution
    /// over- or underflowed), or (rule `tol_diverge`) a generation's best value exceeded the best
    /// so far by more than `tol_diverge * max(1, |best|)`, or under bounds the mean went more than
    /// the box's width outside the box. Usually a step size too large for the problem's scaling.
    /// The best point so far is kept.
    Diverged,
    /// The optimizer's update failed numerically ([`crate::AskTell::failure`] says how). The best
    /// point so far is kept.
    NumericalFailure,
    /// A restart wrapper's restarts settled ([`crate::AskTell::settled`]): the best value was
    /// re-found, at the same point, by as many converged restarts in a row as its rule asks
    /// (gradfree-es's `IpopParams::settle_runs`), so more restarts are not expected to help.
    RestartsSettled,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Target => "target",
            StopReason::MaxEvaluations => "max-evaluations",
            StopReason::MaxGenerations => "max-generations",
            StopReason::TolF => "tol-f",
            StopReason::TolX => "tol-x",
            StopReason::TolFlat => "tol-flat",
            StopReason::TolStagnation => "tol-stagnation",
            StopReason::TolCondition => "tol-condition",
            StopReason::WallTime => "wall-time",
            StopReason::Diverged => "diverged",
            StopReason::NumericalFailure => "numerical-failure",
            StopReason::RestartsSettled => "restarts-settled",
        })
    }
}

impl StopReason {
    /// Whether the run converged in the sense of `scipy.optimize`'s `success`: it reached the
    /// target, or its values (`tol-f`) or steps (`tol-x`) stopped changing, or its restarts
    /// settled (converged runs kept re-finding the best point). Budgets, plateaus, stagnation,
    /// ill-conditioning, divergence and numerical failures are not successes.
    pub fn is_success(self) -> bool {
        matches!(self, StopReason::Target | StopReason::TolF | StopReason::TolX | StopReason::RestartsSettled)
    }

    /// [`StopReason::is_success`] for a run under `rules`: with a target, only reaching it is a
    /// success (a run that converged elsewhere found a local minimum, not what was asked for).
    pub fn is_success_under(self, rules: &StopRules) -> bool {
        if rules.target.is_some() { self == StopReason::Target } else { self.is_success() }
    }

    /// One sentence saying what happened, for people (SciPy's `message`).
    pub fn describe(self) -> &'static str {
        match self {
            StopReason::Target => "the best value reached the target",
            StopReason::MaxEvaluations => "the evaluation budget is spent (the next generation would exceed it)",
            StopReason::MaxGenerations => "the generation budget is spent",
            StopReason::TolF => "converged: the recent best values and the last generation's values span less than tol-f",
            StopReason::TolX => "converged: the search step fell below tol-x",
            StopReason::TolFlat => "the values are flat (best = median) across generations: a plateau; try a larger sigma0",
            StopReason::TolStagnation => "no progress of the best and median values over the stagnation window",
            StopReason::TolCondition => "the covariance became too ill-conditioned (condition number above tol-condition)",
            StopReason::WallTime => "the wall-time budget is spent",
            StopReason::Diverged => {
                "diverged: the search distribution overflowed, the values blew up or the mean left the bounds far behind; try a smaller step size or sigma0"
            }
            StopReason::NumericalFailure => "the optimizer's update failed numerically",
            StopReason::RestartsSettled => {
                "converged: the last restarts each converged back to the best point found, so more restarts are not expected to help"
            }
        }
    }
}

/// The stop rules of a run; any combination, the first that fires ends the run. At least one
/// budget (evaluations, generations or wall time) or a target is required so a run ends.
///
/// Missing fields take their defaults when read (e.g. from JSON); unknown fields are an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StopRules {
    /// Evaluation budget; the driver never exceeds it (it stops before a generation that would).
    pub max_evaluations: Option<u64>,
    /// Generation budget.
    pub max_generations: Option<u64>,
    /// Stop once `best_f <= target`.
    pub target: Option<f64>,
    /// Tolerance on f (see [`StopReason::TolF`]).
    pub tol_f: Option<f64>,
    /// Number of generations the `tol_f` history spans (default 10).
    pub tol_f_window: usize,
    /// Tolerance on x (see [`StopReason::TolX`]).
    pub tol_x: Option<f64>,
    /// Wall-time budget, in seconds, counted across resumes.
    pub max_seconds: Option<f64>,
    /// Generations in a row with a flat generation (best value = median value) tolerated before
    /// [`StopReason::TolFlat`] (pycma's `tolflatfitness`, default there 1).
    pub tol_flat: Option<u64>,
    /// Stagnation window `S` in generations (pycma's `tolstagnation`, there
    /// `100 + 100 d^1.5 / lambda`): with `l = ceil(S / 10)`, the run stops once the medians of
    /// the last `l` generation-best values and of the last `l` generation-median values are no
    /// lower than the medians of the `l` values before them, after at least
    /// `d (5 + 100 / lambda)` generations and with more than 100 generations of history.
    pub tol_stagnation: Option<u64>,
    /// Largest condition number of the covariance of the search distribution
    /// ([`crate::AskTell::condition`]; methods that do not report one ignore the rule).
    pub tol_condition: Option<f64>,
    /// Divergence factor: stop with [`StopReason::Diverged`] once a generation's best value exceeds
    /// the best so far by more than `tol_diverge * max(1, |best|)`, or (under bounds) once the
    /// optimizer's mean is more than the box's width outside the box.
    pub tol_diverge: Option<f64>,
}

impl Default for StopRules {
    fn default() -> Self {
        StopRules {
            max_evaluations: None,
            max_generations: None,
            target: None,
            tol_f: None,
            tol_f_window: 10,
            tol_x: None,
            max_seconds: None,
            tol_flat: None,
            tol_stagnation: None,
            tol_condition: None,
            tol_diverge: None,
        }
    }
}

/// The convergence rules every front end turns on by default, after pycma's defaults.
///
/// | rule | default |
/// |---|---|
/// | `tol_f` | `1e-11` over `10 + ceil(30 d / lambda)` generations (pycma `tolfun`) |
/// | `tol_x` | `1e-11` (pycma `tolx`) |
/// | `tol_flat` | 1 generation (pycma `tolflatfitness`) |
/// | `tol_stagnation` | `100 + ceil(100 d^1.5 / lambda)` generations (pycma `tolstagnation`) |
/// | `tol_condition` | `1e14` (pycma `tolconditioncov`) |
/// | `tol_diverge` | `1e12` |
pub mod convergence {
    /// Default `tol_f`.
    pub const TOL_F: f64 = 1e-11;
    /// Default `tol_x`.
    pub const TOL_X: f64 = 1e-11;
    /// Default `tol_flat`.
    pub const TOL_FLAT: u64 = 1;
    /// Default `tol_condition`.
    pub const TOL_CONDITION: f64 = 1e14;
    /// Default `tol_diverge`.
    pub const TOL_DIVERGE: f64 = 1e12;

    /// Default `tol_f_window` for dimension `d` and population `lambda`: `10 + ceil(30 d / lambda)`.
    pub fn window(d: usize, lambda: usize) -> usize {
        10 + (30 * d).div_ceil(lambda.max(1))
    }

    /// Default `tol_stagnation` for dimension `d` and population `lambda`:
    /// `100 + ceil(100 d^1.5 / lambda)`.
    pub fn stagnation(d: usize, lambda: usize) -> u64 {
        100 + (100.0 * (d as f64).powf(1.5) / lambda.max(1) as f64).ceil() as u64
    }
}

impl StopRules {
    /// These rules with every convergence rule that is unset taking its default
    /// ([`convergence`]) for dimension `d` and population size `lambda`; the window of `tol_f`
    /// takes its default when it is still the plain default 10 and `tol_f` was unset. Discrete
    /// searches (`continuous = false`) get none: their values stay on one level for hundreds of
    /// generations before the next improvement (binary reconstruction at d = 1000 stopped on
    /// `tol_f` at 5.1e6 evaluations, short of its optimum at 6.4e6), so only budgets and the
    /// target end them unless rules are given.
    pub fn with_convergence_defaults(mut self, d: usize, lambda: usize, continuous: bool) -> StopRules {
        if !continuous {
            return self;
        }
        if self.tol_f.is_none() {
            self.tol_f = Some(convergence::TOL_F);
            if self.tol_f_window == 10 {
                self.tol_f_window = convergence::window(d, lambda);
            }
        }
        self.tol_x.get_or_insert(convergence::TOL_X);
        self.tol_stagnation.get_or_insert(convergence::stagnation(d, lambda));
        self.tol_flat.get_or_insert(convergence::TOL_FLAT);
        self.tol_condition.get_or_insert(convergence::TOL_CONDITION);
        self.tol_diverge.get_or_insert(convergence::TOL_DIVERGE);
        self
    }

    /// The names [`StopRules::without`] accepts.
    pub const CONVERGENCE_RULES: [&'static str; 6] = ["tol-f", "tol-x", "tol-flat", "tol-stagnation", "tol-condition", "tol-diverge"];

    /// These rules with the convergence rule `rule` (one of [`StopRules::CONVERGENCE_RULES`],
    /// `_` and `-` alike), or the `target`, switched off.
    pub fn without(mut self, rule: &str) -> Result<StopRules, CoreError> {
        match rule.replace('_', "-").as_str() {
            "target" => self.target = None,
            "tol-f" | "tol-fun" => self.tol_f = None,
            "tol-x" => self.tol_x = None,
            "tol-flat" => self.tol_flat = None,
            "tol-stagnation" => self.tol_stagnation = None,
            "tol-condition" => self.tol_condition = None,
            "tol-diverge" => self.tol_diverge = None,
            _ => return Err(CoreError::invalid("stop rule", rule, format!("target or one of {}", Self::CONVERGENCE_RULES.join(", ")))),
        }
        Ok(self)
    }
}

impl StopRules {
    /// Only an evaluation budget.
    pub fn max_evaluations(n: u64) -> Self {
        StopRules { max_evaluations: Some(n), ..Default::default() }
    }

    /// Only a generation budget.
    pub fn max_generations(n: u64) -> Self {
        StopRules { max_generations: Some(n), ..Default::default() }
    }

    /// Checks every field and that the run can end.
    pub fn validate(&self) -> Result<(), CoreError> {
        if self.max_evaluations.is_none() && self.max_generations.is_none() && self.max_seconds.is_none() && self.target.is_none() {
            return Err(CoreError::invalid("stop rules", "no budget", "an evaluation, generation or wall-time budget, or a target"));
        }
        if self.max_evaluations == Some(0) {
            return Err(CoreError::invalid("max_evaluations", 0, ">= 1"));
        }
        if self.max_generations == Some(0) {
            return Err(CoreError::invalid("max_generations", 0, ">= 1"));
        }
        if let Some(t) = self.target
            && t.is_nan()
        {
            return Err(CoreError::invalid("target", t, "a number"));
        }
        for (name, v) in
            [("tol_f", self.tol_f), ("tol_x", self.tol_x), ("max_seconds", self.max_seconds), ("tol_diverge", self.tol_diverge)]
        {
            if let Some(v) = v
                && !(v.is_finite() && v > 0.0)
            {
                return Err(CoreError::invalid(name, v, "finite and > 0"));
            }
        }
        if let Some(c) = self.tol_condition
            && !(c.is_finite() && c >= 1.0)
        {
            return Err(CoreError::invalid("tol_condition", c, "finite and >= 1"));
        }
        if self.tol_stagnation == Some(0) {
            return Err(CoreError::invalid("tol_stagnation", 0, ">= 1"));
        }
        if self.tol_f_window == 0 {
            return Err(CoreError::invalid("tol_f_window", 0, ">= 1"));
        }
        Ok(())
    }

    /// The wall-time budget as a duration.
    pub fn max_duration(&self) -> Option<Duration> {
        self.max_seconds.map(Duration::from_secs_f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(StopRules::default().validate().is_err());
        assert!(StopRules::max_evaluations(0).validate().is_err());
        assert!(StopRules::max_evaluations(10).validate().is_ok());
        let r = StopRules { tol_f: Some(-1.0), ..StopRules::max_evaluations(10) };
        assert!(r.validate().is_err());
        let r = StopRules { target: Some(f64::NAN), ..StopRules::max_evaluations(10) };
        assert!(r.validate().is_err());
    }
}
