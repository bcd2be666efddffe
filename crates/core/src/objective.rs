//! Objectives: functions that can only be evaluated.

use rayon::prelude::*;

use crate::{CoreError, Population};

/// A function `f: R^d -> R` to minimize (or integrate) that can only be evaluated.
///
/// Implementations return NaN or an infinity to signal a failed evaluation; what happens then is
/// decided by the optimizer's [`crate::NonFinitePolicy`], never silently.
pub trait Objective {
    /// The value at `x`.
    fn eval(&self, x: &[f64]) -> f64;

    /// The value at `x` when evaluated as point `ctx.index` of generation `ctx.generation` of a
    /// run. Stochastic objectives (minibatches, simulations) draw their randomness from
    /// [`EvalContext::seed`] so that a run gives the same values however many threads evaluate
    /// it; deterministic ones keep the default, [`Objective::eval`].
    fn eval_in(&self, x: &[f64], ctx: &EvalContext) -> f64 {
        let _ = ctx;
        self.eval(x)
    }

    /// The dimension this objective accepts, if fixed. Drivers check it against the optimizer.
    fn dim(&self) -> Option<usize> {
        None
    }
}

/// Where an evaluation happens in a run: what a stochastic objective needs to be reproducible
/// under parallel evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalContext {
    /// Generation being evaluated, starting at 1 ([`crate::GenerationRecord::generation`]).
    pub generation: u64,
    /// Row of the point in its population.
    pub index: usize,
    /// The run's evaluation seed ([`crate::DriverOptions::eval_seed`]).
    pub run_seed: u64,
}

impl EvalContext {
    /// A seed for this evaluation alone: [`crate::derive_seed`] of the run seed, the generation
    /// and the index, so it does not depend on which thread evaluates the point or when.
    pub fn seed(&self) -> u64 {
        crate::derive_seed(crate::derive_seed(self.run_seed, self.generation), self.index as u64)
    }
}

/// References and boxes of objectives are objectives (the driver takes `&dyn Problem` and
/// `Box<dyn Problem>` alike).
macro_rules! forward_objective {
    ($($pointer:ty),*) => {$(
        impl<T: Objective + ?Sized> Objective for $pointer {
            fn eval(&self, x: &[f64]) -> f64 {
                (**self).eval(x)
            }
            fn eval_in(&self, x: &[f64], ctx: &EvalContext) -> f64 {
                (**self).eval_in(x, ctx)
            }
            fn dim(&self) -> Option<usize> {
                (**self).dim()
            }
        }
    )*};
}

forward_objective!(&T, Box<T>);

/// Wraps a closure `Fn(&[f64]) -> f64` as an [`Objective`].
pub struct FnObjective<F> {
    f: F,
    dim: Option<usize>,
}

impl<F: Fn(&[f64]) -> f64> FnObjective<F> {
    /// An objective of any dimension.
    pub fn new(f: F) -> Self {
        FnObjective { f, dim: None }
    }

    /// An objective that accepts only dimension `d`.
    pub fn with_dim(f: F, d: usize) -> Self {
        FnObjective { f, dim: Some(d) }
    }
}

impl<F: Fn(&[f64]) -> f64> Objective for FnObjective<F> {
    fn eval(&self, x: &[f64]) -> f64 {
        (self.f)(x)
    }
    fn dim(&self) -> Option<usize> {
        self.dim
    }
}

fn check_shape(pop: &Population, out: &[f64]) -> Result<(), CoreError> {
    if out.len() != pop.len() {
        return Err(CoreError::DimensionMismatch { what: "values buffer length", expected: pop.len(), got: out.len() });
    }
    Ok(())
}

/// Evaluates every row of `pop` in order into `out` (`out.len() == pop.len()`).
pub fn eval_population<O: Objective + ?Sized>(obj: &O, pop: &Population, out: &mut [f64]) -> Result<(), CoreError> {
    check_shape(pop, out)?;
    for (o, x) in out.iter_mut().zip(pop.rows()) {
        *o = obj.eval(x);
    }
    Ok(())
}

/// Evaluates every row of `pop` in parallel on rayon's pool into `out`. The values are the same
/// as [`eval_population`]'s (each evaluation is independent), only the wall time differs.
pub fn eval_population_par<O: Objective + Sync + ?Sized>(obj: &O, pop: &Population, out: &mut [f64]) -> Result<(), CoreError> {
    check_shape(pop, out)?;
    if pop.dim() == 0 {
        out.fill(obj.eval(&[]));
        return Ok(());
    }
    out.par_iter_mut().zip(pop.as_slice().par_chunks_exact(pop.dim())).for_each(|(o, x)| *o = obj.eval(x));
    Ok(())
}

/// Evaluates every row of `pop` as generation `generation` of a run with evaluation seed
/// `run_seed` ([`Objective::eval_in`]), on rayon's pool if `parallel`. The values do not depend
/// on `parallel` or on the number of threads.
pub fn eval_generation<O: Objective + Sync + ?Sized>(
    obj: &O,
    pop: &Population,
    generation: u64,
    run_seed: u64,
    parallel: bool,
    out: &mut [f64],
) -> Result<(), CoreError> {
    check_shape(pop, out)?;
    let ctx = |index| EvalContext { generation, index, run_seed };
    if !parallel || pop.dim() == 0 {
        for (i, o) in out.iter_mut().enumerate() {
            *o = obj.eval_in(pop.row(i), &ctx(i));
        }
        return Ok(());
    }
    out.par_iter_mut().zip(pop.as_slice().par_chunks_exact(pop.dim())).enumerate().for_each(|(i, (o, x))| *o = obj.eval_in(x, &ctx(i)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_equals_sequential() {
        let f = FnObjective::new(|x: &[f64]| x.iter().enumerate().map(|(i, v)| (i as f64 + 1.0) * v.sin()).sum());
        let data: Vec<f64> = (0..1000 * 7).map(|i| (i as f64 * 0.37).cos()).collect();
        let pop = Population::from_row_major(1000, 7, data).unwrap();
        let mut a = vec![0.0; 1000];
        let mut b = vec![0.0; 1000];
        eval_population(&f, &pop, &mut a).unwrap();
        eval_population_par(&f, &pop, &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(a[3], f.eval(pop.row(3)));
    }

    #[test]
    fn wrong_buffer_is_an_error() {
        let f = FnObjective::new(|x: &[f64]| x[0]);
        let pop = Population::zeros(3, 2);
        let mut out = vec![0.0; 2];
        assert!(matches!(eval_population(&f, &pop, &mut out), Err(CoreError::DimensionMismatch { expected: 3, got: 2, .. })));
    }
}
