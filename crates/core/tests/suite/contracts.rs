//! Core contracts the model-based subsystems rely on, exercised with a small optimizer written
//! here: points the optimizer did not ask for, batches of any size, evaluation contexts.

use gradfree_core::{
    AskTell, CoreError, Driver, DriverOptions, EvalContext, GfRng, History, Objective, Population, Run, StopRules, rng_from_seed,
};
use rand::RngExt;

/// Random search that learns from any evaluated point: it recentres on the best point it was told.
struct Centre {
    best: Vec<f64>,
    best_f: f64,
    rng: GfRng,
    told: usize,
}

impl AskTell for Centre {
    fn name(&self) -> &'static str {
        "centre"
    }
    fn dim(&self) -> usize {
        self.best.len()
    }
    fn population_size(&self) -> usize {
        4
    }
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        self.ask_batch_into(4, out)
    }
    fn ask_batch_into(&mut self, count: usize, out: &mut Population) -> Result<(), CoreError> {
        out.resize(count, self.best.len());
        for row in out.rows_mut() {
            for (v, b) in row.iter_mut().zip(&self.best) {
                *v = b + self.rng.random::<f64>() - 0.5;
            }
        }
        Ok(())
    }
    fn tell(&mut self, points: &Population, values: &[f64]) -> Result<(), CoreError> {
        if points.len() != values.len() {
            return Err(CoreError::DimensionMismatch { what: "values", expected: points.len(), got: values.len() });
        }
        for (x, &f) in points.rows().zip(values) {
            if f < self.best_f {
                self.best_f = f;
                self.best.copy_from_slice(x);
            }
        }
        self.told += values.len();
        Ok(())
    }
    fn mean(&self) -> &[f64] {
        &self.best
    }
    fn scale(&self) -> f64 {
        0.5
    }
    fn accepts_any_points(&self) -> bool {
        true
    }
}

fn centre() -> Centre {
    Centre { best: vec![3.0, 3.0], best_f: f64::INFINITY, rng: rng_from_seed(1), told: 0 }
}

#[test]
fn a_model_based_method_takes_any_points_in_batches_of_any_size() {
    let mut run = Run::new(centre(), DriverOptions::new(StopRules::max_evaluations(1000))).unwrap();
    // An initial design of 3 points nobody asked for, then a batch of 1, then one of 7.
    let design = Population::from_rows(&[[0.0, 0.0], [1.0, 1.0], [0.1, -0.2]]).unwrap();
    run.tell_points(&design, &[0.0, 2.0, 0.05], &mut []).unwrap();
    assert_eq!((run.evaluations(), run.result().best_f), (3, 0.0));
    assert_eq!(run.optimizer().mean(), &[0.0, 0.0]);
    let one = run.ask_batch(1).unwrap().unwrap().clone();
    assert_eq!(one.len(), 1);
    run.tell_points(&one, &[5.0], &mut []).unwrap();
    let seven = run.ask_batch(7).unwrap().unwrap().clone();
    run.tell_points(&seven, &[9.0; 7], &mut []).unwrap();
    assert_eq!((run.evaluations(), run.generations(), run.optimizer().told), (11, 3, 11));
    // A late result for a point asked long ago is taken too; the wrong dimension is refused.
    run.tell_points(&Population::from_rows(&[one.row(0)]).unwrap(), &[-1.0], &mut []).unwrap();
    assert_eq!((run.result().best_f, run.optimizer().mean()), (-1.0, one.row(0)));
    let bad = Population::from_rows(&[[0.0, 0.0, 0.0]]).unwrap();
    assert!(run.tell_points(&bad, &[1.0], &mut []).is_err());
    assert_eq!(run.evaluations(), 12);
}

/// A stochastic objective (a noisy sphere whose noise is drawn from the evaluation context) gives
/// the same values with parallel and sequential evaluation, and different noise per point.
#[test]
fn evaluation_contexts_make_stochastic_objectives_reproducible() {
    struct Noisy;
    impl Objective for Noisy {
        fn eval(&self, x: &[f64]) -> f64 {
            x.iter().map(|v| v * v).sum()
        }
        fn eval_in(&self, x: &[f64], ctx: &EvalContext) -> f64 {
            let noise: f64 = rng_from_seed(ctx.seed()).random();
            self.eval(x) + noise
        }
    }
    let run = |parallel: bool| {
        let mut opts = DriverOptions::new(StopRules { max_generations: Some(20), ..Default::default() });
        opts.parallel = parallel;
        opts.eval_seed = 77;
        let mut h = History::default();
        let mut d = Driver::new(centre(), opts).unwrap();
        d.run(&Noisy, &mut [&mut h]).unwrap();
        h.records.iter().map(|r| (r.gen_best_f, r.gen_median_f)).collect::<Vec<_>>()
    };
    let (a, b) = (run(true), run(false));
    assert_eq!(a, b);
    assert!(a.iter().all(|(best, _)| best.is_some_and(|f| f.fract() != 0.0)), "noise is added");
    let c = EvalContext { generation: 3, index: 0, run_seed: 77 };
    assert_ne!(c.seed(), EvalContext { index: 1, ..c }.seed());
    assert_ne!(c.seed(), EvalContext { generation: 4, ..c }.seed());
    assert_ne!(c.seed(), EvalContext { run_seed: 78, ..c }.seed());
}
