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
    /// The wall-time budget is spent.
    WallTime,
    /// The optimizer proposed a non-finite point: its search distribution over- or underflowed
    /// (usually a step size too large for the problem). The best point so far is kept.
    Diverged,
    /// The optimizer's update failed numerically ([`crate::AskTell::failure`] says how). The best
    /// point so far is kept.
    NumericalFailure,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Target => "target",
            StopReason::MaxEvaluations => "max-evaluations",
            StopReason::MaxGenerations => "max-generations",
            StopReason::TolF => "tol-f",
            StopReason::TolX => "tol-x",
            StopReason::WallTime => "wall-time",
            StopReason::Diverged => "diverged",
            StopReason::NumericalFailure => "numerical-failure",
        })
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
        }
    }
}

impl StopRules {
    /// Only an evaluation budget.
    pub fn max_evaluations(n: u64) -> Self {
        StopRules { max_evaluations: Some(n), ..Default::default() }
    }

    /// Checks every field and that the run can end.
    pub fn validate(&self) -> Result<(), CoreError> {
        if self.max_evaluations.is_none() && self.max_generations.is_none() && self.max_seconds.is_none() && self.target.is_none() {
            return Err(CoreError::invalid("stop rules", "no budget", "at least one of max-evals, max-gens, max-seconds or target"));
        }
        if self.max_evaluations == Some(0) {
            return Err(CoreError::invalid("max-evals", 0, ">= 1"));
        }
        if self.max_generations == Some(0) {
            return Err(CoreError::invalid("max-gens", 0, ">= 1"));
        }
        if let Some(t) = self.target
            && t.is_nan()
        {
            return Err(CoreError::invalid("target", t, "a number"));
        }
        for (name, v) in [("tol-f", self.tol_f), ("tol-x", self.tol_x), ("max-seconds", self.max_seconds)] {
            if let Some(v) = v
                && !(v.is_finite() && v > 0.0)
            {
                return Err(CoreError::invalid(name, v, "finite and > 0"));
            }
        }
        if self.tol_f_window == 0 {
            return Err(CoreError::invalid("tol-f-window", 0, ">= 1"));
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
