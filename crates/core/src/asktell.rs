//! The ask/tell interface of population methods (argmin's solver state machine, pycma's loop).

use serde::{Deserialize, Serialize};

use crate::{CoreError, Population};

/// What `tell` does with a NaN or infinite objective value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NonFinitePolicy {
    /// Reject the whole `tell` with [`CoreError::NonFinite`] naming the first offending row.
    /// The optimizer's state is left unchanged, so the caller may re-evaluate and tell again.
    #[default]
    Error,
    /// Treat NaN, `+inf` and `-inf` alike as `+inf`: the point is ranked worst. Methods that need
    /// finite differences document how they use such points (e.g. Nesterov–Spokoiny drops the pair).
    TreatAsInf,
}

/// What happened, for observers and logs (written in kebab case, e.g. `"backtrack"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A covariance step was halved to keep the covariance positive definite.
    Backtrack,
    /// No positive-definite covariance step was found; the covariance was kept.
    CovarianceKept,
    /// The covariance lost positive definiteness and was reset to the identity.
    CovarianceReset,
    /// The values gave no usable update (all equal or all infinite); the distribution is unchanged.
    NoUpdate,
    /// Antithetic pairs with a non-finite value were left out of a finite-difference step.
    DroppedPairs,
    /// Every pair had a non-finite value; the mean did not move.
    NoFinitePair,
    /// The step-size update was skipped (e.g. `f(mu)` not finite).
    NoSigmaUpdate,
    /// Eigenvalues were clipped by a projection onto an admissible set.
    Projection,
    /// Natural parameters were clamped to their bound.
    Clamp,
    /// A mean step raised the objective: the step was taken back and the step size halved.
    StepRejected,
    /// An IPOP restart began.
    Restart,
    /// A step-size rule was switched off for the rest of the run (a test of its premise failed).
    StepRuleOff,
    /// A kernel matrix was factored only after adding jitter to its diagonal (Gaussian processes).
    Jitter,
    /// An update failed numerically; the run stops ([`crate::StopReason::NumericalFailure`]).
    NumericalFailure,
    /// A proposal repeated an evaluated point and was replaced by a random one (Bayesian
    /// optimization; scikit-optimize's `avoid_duplicates`).
    DuplicateReplaced,
    /// A kind this version does not know (read from a newer log).
    #[serde(other)]
    Other,
}

impl EventKind {
    /// The kebab-case name, as written in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Backtrack => "backtrack",
            EventKind::CovarianceKept => "covariance-kept",
            EventKind::CovarianceReset => "covariance-reset",
            EventKind::NoUpdate => "no-update",
            EventKind::DroppedPairs => "dropped-pairs",
            EventKind::NoFinitePair => "no-finite-pair",
            EventKind::NoSigmaUpdate => "no-sigma-update",
            EventKind::Projection => "projection",
            EventKind::Clamp => "clamp",
            EventKind::StepRejected => "step-rejected",
            EventKind::Restart => "restart",
            EventKind::StepRuleOff => "step-rule-off",
            EventKind::Jitter => "jitter",
            EventKind::NumericalFailure => "numerical-failure",
            EventKind::DuplicateReplaced => "duplicate-replaced",
            EventKind::Other => "other",
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `kind == "backtrack"` compares the written name.
impl PartialEq<&str> for EventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Something an optimizer wants reported (e.g. a step-size backtracking); the driver forwards
/// events to observers. Algorithm crates never print.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// A human-readable sentence.
    pub message: String,
}

/// A population-based optimizer as a state machine: [`AskTell::ask_into`] proposes points and
/// [`AskTell::tell`] takes their values. Drivers, budgets and printing live outside.
///
/// Contract:
/// - `tell` returns `Err` only for input it rejects (shapes, points it did not ask for, NaN under
///   the error policy), and then leaves the state unchanged, so the call can be retried: it
///   validates with [`check_tell`] before it changes anything.
/// - A numerical failure during an update (a covariance that cannot be decomposed, a step size
///   that overflowed) is not an `Err`: the optimizer records it, [`AskTell::failure`] reports it,
///   and the run stops with [`crate::StopReason::NumericalFailure`] keeping its best point.
/// - Evolution strategies update from the samples they drew: every `tell` follows an `ask` of the
///   same generation with the same points. Methods that learn from any evaluated points (model-based
///   ones: initial designs, late results of workers, batches of any size) say so with
///   [`AskTell::accepts_any_points`] and implement [`AskTell::ask_batch_into`].
pub trait AskTell {
    /// Short algorithm name as used by the CLI, e.g. `"nesterov-spokoiny"`.
    fn name(&self) -> &'static str;

    /// Dimension of the search space.
    fn dim(&self) -> usize;

    /// Number of points the next `ask` proposes.
    fn population_size(&self) -> usize;

    /// Writes the next population into `out`, resizing it to `population_size() x dim()`.
    /// Reusing the same `out` every generation avoids allocation.
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError>;

    /// Convenience: a freshly allocated population.
    fn ask(&mut self) -> Result<Population, CoreError> {
        let mut p = Population::empty(self.dim());
        self.ask_into(&mut p)?;
        Ok(p)
    }

    /// Updates the search distribution from `values[i] = f(population.row(i))`.
    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError>;

    /// Center of the current search distribution (the recommendation when no point is better).
    fn mean(&self) -> &[f64];

    /// How far the search still reaches, in the units of `x`, used by the `tol-x` stop rule: the
    /// largest standard deviation of the search distribution along a coordinate,
    /// `max_i sqrt(Var x_i)` (computed from the distribution, or estimated from the last
    /// population where the distribution is not kept in that form). Methods whose sampling width
    /// is fixed (finite-difference steps, OpenAI-ES's noise) report the largest coordinate of the
    /// last mean step instead, which is what shrinks as they converge. Each method's doc says
    /// which.
    fn scale(&self) -> f64;

    /// Condition number of the search distribution's covariance (largest over smallest
    /// eigenvalue), for the `tol-condition` stop rule, where the method keeps it at no extra cost;
    /// `None` (the default) where it does not, and the rule is then not judged.
    fn condition(&self) -> Option<f64> {
        None
    }

    /// Writes the standard deviation of every coordinate of the search distribution,
    /// `sqrt(Var x_i)`, into `out` and returns `true`, for methods that adapt a Gaussian spread
    /// and can rescale it ([`AskTell::shrink_spread`]); `false` (the default, `out` untouched)
    /// otherwise. Under bounds the driver keeps these below a third of the box's sides (pycma's
    /// `maxstd_boundrange`).
    fn spread_into(&self, _out: &mut Vec<f64>) -> bool {
        false
    }

    /// Multiplies the search distribution's spread by `factor` in (0, 1] (its covariance by
    /// `factor^2`), leaving its mean, shape and paths alone. A no-op where
    /// [`AskTell::spread_into`] returns `false`.
    fn shrink_spread(&mut self, _factor: f64) {}

    /// Events since the last call, for observers.
    fn take_events(&mut self) -> Vec<Event> {
        Vec::new()
    }

    /// The numerical failure of the last update, if any (see the trait's contract).
    fn failure(&self) -> Option<&str> {
        None
    }

    /// Whether the optimizer judges that more search cannot improve on what it found, so the run
    /// should end with [`crate::StopReason::RestartsSettled`]: a restart wrapper whose restarts
    /// keep re-finding the same best point (gradfree-es's `Ipop`, its `settle_runs` rule).
    /// `false` (the default) for a single run, whose convergence the driver's rules judge.
    fn settled(&self) -> bool {
        false
    }

    /// Whether the search distribution has converged to the limits of floating point (or of the
    /// given step `tol_x`), judged by the method from its own state: the name of the rule that
    /// fired, or `None` (the default: the method has no such rules). CMA-ES has pycma's `tolx`,
    /// `noeffectaxis`, `noeffectcoord` and `tolconditioncov` (Hansen, *The CMA Evolution
    /// Strategy: A Tutorial*, appendix B.3). Restart wrappers end a run on it; a single run's
    /// driver keeps its own rules.
    fn converged(&self, _tol_x: f64) -> Option<&'static str> {
        None
    }

    /// Whether `tell` learns from any evaluated points, in batches of any size (model-based
    /// methods), rather than from exactly the points of the last `ask` (evolution strategies).
    fn accepts_any_points(&self) -> bool {
        false
    }

    /// Whether the last `tell` completed a generation of the search distribution. `true` (the
    /// default) for methods that update after every `tell`; a surrogate-assisted method (lq-CMA-ES,
    /// Hansen 2019) asks a population's points a few at a time, as its model needs them, and
    /// updates once the model ranks the rest: `false` between those batches. Drivers and restart
    /// wrappers judge their rules on values (flat, stagnation, `tol-f`) over whole generations.
    fn generation_complete(&self) -> bool {
        true
    }

    /// Points the search distribution sampled in the generation the last `tell` completed, if
    /// that differs from the points told: a surrogate-assisted method samples `lambda` and
    /// evaluates only those its model cannot rank (lq-CMA-ES, Hansen 2019). `None` (the default):
    /// every sampled point was evaluated and told. Restart wrappers measure BIPOP's regime budgets
    /// (Hansen 2009) in sampled points, so that a small run gets the generations a large run had,
    /// as pycma's `fmin` does with iterations.
    fn generation_samples(&self) -> Option<usize> {
        None
    }

    /// Proposes `count` points (a batch while other evaluations may be pending). The default is
    /// for methods with a fixed population: `count` must be [`AskTell::population_size`].
    fn ask_batch_into(&mut self, count: usize, out: &mut Population) -> Result<(), CoreError> {
        if count != self.population_size() {
            return Err(CoreError::DimensionMismatch {
                what: "batch size (this method asks whole populations)",
                expected: self.population_size(),
                got: count,
            });
        }
        self.ask_into(out)
    }
}

/// A boxed optimizer is an optimizer (e.g. `Box<dyn AskTell>`, or a large state kept on the heap).
impl<T: AskTell + ?Sized> AskTell for Box<T> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn population_size(&self) -> usize {
        (**self).population_size()
    }
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        (**self).ask_into(out)
    }
    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        (**self).tell(population, values)
    }
    fn mean(&self) -> &[f64] {
        (**self).mean()
    }
    fn scale(&self) -> f64 {
        (**self).scale()
    }
    fn condition(&self) -> Option<f64> {
        (**self).condition()
    }
    fn spread_into(&self, out: &mut Vec<f64>) -> bool {
        (**self).spread_into(out)
    }
    fn shrink_spread(&mut self, factor: f64) {
        (**self).shrink_spread(factor)
    }
    fn take_events(&mut self) -> Vec<Event> {
        (**self).take_events()
    }
    fn failure(&self) -> Option<&str> {
        (**self).failure()
    }
    fn settled(&self) -> bool {
        (**self).settled()
    }
    fn converged(&self, tol_x: f64) -> Option<&'static str> {
        (**self).converged(tol_x)
    }
    fn accepts_any_points(&self) -> bool {
        (**self).accepts_any_points()
    }
    fn generation_complete(&self) -> bool {
        (**self).generation_complete()
    }
    fn ask_batch_into(&mut self, count: usize, out: &mut Population) -> Result<(), CoreError> {
        (**self).ask_batch_into(count, out)
    }
}

/// Validates what is told: the population is `expected_n x dim`, there is one value per point, and
/// values are finite (or, under [`NonFinitePolicy::TreatAsInf`], mapped to `+inf`). Writes the
/// values to use into `out`, which is resized (its allocation reused).
pub fn check_tell(
    population: &Population,
    values: &[f64],
    dim: usize,
    expected_n: usize,
    policy: NonFinitePolicy,
    out: &mut Vec<f64>,
) -> Result<(), CoreError> {
    if population.dim() != dim {
        return Err(CoreError::DimensionMismatch { what: "population dimension", expected: dim, got: population.dim() });
    }
    if population.len() != expected_n {
        return Err(CoreError::DimensionMismatch { what: "population size", expected: expected_n, got: population.len() });
    }
    if values.len() != expected_n {
        return Err(CoreError::DimensionMismatch { what: "number of objective values", expected: expected_n, got: values.len() });
    }
    out.clear();
    for (index, &value) in values.iter().enumerate() {
        if value.is_finite() {
            out.push(value);
        } else {
            match policy {
                NonFinitePolicy::Error => return Err(CoreError::NonFinite { index, value }),
                NonFinitePolicy::TreatAsInf => out.push(f64::INFINITY),
            }
        }
    }
    Ok(())
}

/// The start of every evolution strategy's `tell`: the population must be pending (asked and not
/// yet told), then [`check_tell`] validates it against `expected = (dim, n)` into `out`; only then
/// is the population marked told. On error nothing changes, so the call can be retried.
pub fn begin_tell(
    pending: &mut bool,
    population: &Population,
    values: &[f64],
    expected: (usize, usize),
    policy: NonFinitePolicy,
    out: &mut Vec<f64>,
) -> Result<(), CoreError> {
    if !*pending {
        return Err(CoreError::OutOfOrder("tell called without a preceding ask"));
    }
    check_tell(population, values, expected.0, expected.1, policy, out)?;
    *pending = false;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_shapes_and_nan() {
        let pop = Population::zeros(4, 3);
        let mut out = Vec::new();
        let ok = [1.0, 2.0, 3.0, 4.0];
        assert!(check_tell(&pop, &ok, 3, 4, NonFinitePolicy::Error, &mut out).is_ok());
        assert_eq!(out, ok);
        assert!(matches!(
            check_tell(&pop, &ok, 2, 4, NonFinitePolicy::Error, &mut out),
            Err(CoreError::DimensionMismatch { what: "population dimension", expected: 2, got: 3 })
        ));
        assert!(matches!(
            check_tell(&pop, &ok, 3, 5, NonFinitePolicy::Error, &mut out),
            Err(CoreError::DimensionMismatch { what: "population size", .. })
        ));
        assert!(matches!(
            check_tell(&pop, &ok[..3], 3, 4, NonFinitePolicy::Error, &mut out),
            Err(CoreError::DimensionMismatch { what: "number of objective values", .. })
        ));
        let bad = [1.0, f64::NAN, 3.0, f64::NEG_INFINITY];
        assert!(matches!(check_tell(&pop, &bad, 3, 4, NonFinitePolicy::Error, &mut out), Err(CoreError::NonFinite { index: 1, .. })));
        check_tell(&pop, &bad, 3, 4, NonFinitePolicy::TreatAsInf, &mut out).unwrap();
        assert_eq!(out, [1.0, f64::INFINITY, 3.0, f64::INFINITY]);
    }
}
