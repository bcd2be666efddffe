//! Step-size control for the finite-difference methods (MiNES, Nesterov–Spokoiny).
//!
//! Their step sizes come from the theory for a known gradient Lipschitz constant `L` (the
//! defaults assume `L = 1`). On a problem with a larger `L` the constant step makes the mean
//! diverge geometrically. Under [`StepControl::Backtrack`] (the default) each step is judged by
//! the next generation, which evaluates the objective around the new mean anyway: if the level
//! there is higher than at the step's start by more than the spread of the estimates allows,
//! the step is taken back and repeated from the same start with the same direction and half the
//! step size (Armijo's backtracking with the sufficient-decrease constant 0, one trial per
//! generation). After each kept step the multiplier grows by `2^(1/4)`, up to the original step
//! size, so one rejection early on does not slow the rest of the run. [`StepControl::None`] is the plain
//! method of the papers.

use gradfree_core::{Event, EventKind};
use serde::{Deserialize, Serialize};

/// How the mean step size is controlled (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StepControl {
    /// Take back a step that raised the objective and halve the step size.
    #[default]
    Backtrack,
    /// The papers' rule: every step is kept.
    None,
}

const GROWTH: f64 = 1.189_207_115_002_721; // 2^(1/4)

/// The state of [`StepControl::Backtrack`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Backtracker {
    /// Multiplier of the step size in `(0, 1]`: halved by each rejected step, multiplied by
    /// `2^(1/4)` (up to 1) by each kept one.
    pub factor: f64,
    /// Where the last kept step started.
    start: Vec<f64>,
    /// Its direction: the mean moved to `start - eta * factor * direction`.
    direction: Vec<f64>,
    /// Level of the objective at `start` and the standard error of that estimate.
    level: Option<(f64, f64)>,
}

/// What [`Backtracker::judge`] decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The last step is kept: take the next step from the current mean.
    Keep,
    /// The last step was taken back: the mean was set to a shorter step from its start, of this
    /// infinity norm.
    Rejected(f64),
}

impl Backtracker {
    /// No step taken yet.
    pub fn new() -> Self {
        Backtracker { factor: 1.0, start: Vec::new(), direction: Vec::new(), level: None }
    }

    /// Judges the last step from the level `(value, standard error)` measured at the current mean
    /// `mu` this generation. A step is rejected when the level is not finite or exceeds the level
    /// at its start by more than `3 sqrt(se^2 + se_start^2)`; then `mu` is set to
    /// `start - eta * factor * direction` with the halved factor and an event is pushed.
    pub fn judge(&mut self, level: (f64, f64), mu: &mut [f64], eta: f64, k: u64, events: &mut Vec<Event>) -> Verdict {
        let Some((before, se_before)) = self.level else {
            return Verdict::Keep;
        };
        let allowed = 3.0 * (level.1 * level.1 + se_before * se_before).sqrt();
        if level.0.is_finite() && level.0 - before <= allowed {
            self.factor = (self.factor * GROWTH).min(1.0);
            return Verdict::Keep;
        }
        self.factor *= 0.5;
        let mut longest: f64 = 0.0;
        for ((m, s), g) in mu.iter_mut().zip(&self.start).zip(&self.direction) {
            let step = eta * self.factor * g;
            *m = s - step;
            longest = longest.max(step.abs());
        }
        events.push(Event {
            kind: EventKind::StepRejected,
            message: format!(
                "iteration {k}: the step raised the level from {before:.6e} to {:.6e}; taken back, step size x{:.3e}",
                level.0, self.factor
            ),
        });
        Verdict::Rejected(longest)
    }

    /// Records the start of a step about to be taken from `mu` along `-direction`, where the
    /// level is `level`.
    pub fn record(&mut self, mu: &[f64], direction: &[f64], level: (f64, f64)) {
        self.start.clear();
        self.start.extend_from_slice(mu);
        self.direction.clear();
        self.direction.extend_from_slice(direction);
        self.level = Some(level);
    }

    /// Restored-state invariants.
    pub fn check(&self, d: usize) -> Result<(), String> {
        use gradfree_core::state as chk;
        chk::in_range("backtrack.factor", self.factor, f64::MIN_POSITIVE, 1.0)?;
        if self.level.is_some() {
            chk::finite_len("backtrack.start", &self.start, d)?;
            chk::finite_len("backtrack.direction", &self.direction, d)?;
        }
        Ok(())
    }
}
