//! One loop for a chain run that the front ends interrupt, checkpoint and show: the chains
//! advance in segments ([`segment_steps`]), and between segments the caller saves, reports and
//! judges stop requests; at the end the fit, with separated classes diagnosed
//! ([`crate::separation::diagnose`]). `gradfree infer` and Python's `fit` both run it.

use crate::{Data, Fit, InferenceError, Model, Runner};

/// Steps per segment of a run of `chains` chains and `steps` steps: about 50 segments a run (a
/// live progress bar), and at most 2^17 chain-steps each, so that a stop request or a checkpoint
/// due by time waits a fraction of a second whatever the run's size.
pub fn segment_steps(chains: usize, steps: usize) -> usize {
    steps.div_ceil(50).clamp(1, (1usize << 17).div_ceil(chains).max(1))
}

/// Runs `runner` to its spec's steps in segments of at most [`segment_steps`] and at most
/// `cap(runner)` steps (a checkpoint cadence's next step), calling `after(runner)` after each
/// segment (save a checkpoint, judge a stop request: an error ends the run where it stands), and
/// `progress(chain-steps)` as chains finish their parts. Returns the fit, with separation
/// diagnosed. A run already at its end returns its fit without calling `after`.
pub fn run_in_segments<E: From<InferenceError>>(
    runner: &mut Runner,
    model: &dyn Model,
    data: &Data,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    cap: impl Fn(&Runner) -> usize,
    mut after: impl FnMut(&Runner) -> Result<(), E>,
) -> Result<Fit, E> {
    let steps = runner.spec.steps;
    let segment = segment_steps(runner.spec.chains, steps);
    while runner.steps_done() < steps {
        let n = segment.min(steps - runner.steps_done()).min(cap(runner).max(1));
        runner.advance(model, data, n, progress)?;
        after(runner)?;
    }
    let mut fit = runner.finish()?;
    crate::separation::diagnose(&mut fit, model, data);
    Ok(fit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Family, Glm, InferenceSpec, Method};

    /// Segments end where the cap says, `after` sees every segment's end, and the fit is the
    /// one-go run's.
    #[test]
    fn segments_are_one_run() {
        let x: Vec<f64> = (0..200).map(|i| ((i * 37 % 23) as f64 - 11.0) / 7.0).collect();
        let y: Vec<f64> = x.chunks(2).map(|r| f64::from(u8::from(r[0] - 0.5 * r[1] > 0.1))).collect();
        let data = Data::new(x, 2, y).unwrap();
        let model = Glm::new(Family::Logistic, 2);
        let spec = InferenceSpec { method: Method::Sgd, chains: 3, steps: 400, ..InferenceSpec::default() };
        let whole = crate::run(&model, &data, &spec, None).unwrap();
        let mut runner = Runner::new(&model, &data, &spec).unwrap();
        let mut ends = Vec::new();
        let fit = run_in_segments::<InferenceError>(
            &mut runner,
            &model,
            &data,
            None,
            |r| 7 - r.steps_done() % 7,
            |r| {
                ends.push(r.steps_done());
                Ok(())
            },
        )
        .unwrap();
        // Segments of at most 8 steps (400 / 50), cut at every multiple of 7.
        assert_eq!(segment_steps(3, 400), 8);
        let want: Vec<usize> = (7..400).step_by(7).chain([400]).collect();
        assert_eq!(ends, want);
        assert_eq!(fit.params, whole.params);
        assert_eq!(segment_steps(100, 200), 4);
        assert_eq!(segment_steps(1 << 20, 10_000), 1);
        // A stop request ends the run where it stands.
        let mut runner = Runner::new(&model, &data, &spec).unwrap();
        let stopped = run_in_segments(
            &mut runner,
            &model,
            &data,
            None,
            |_| 10,
            |r| {
                if r.steps_done() >= 16 { Err(InferenceError::BadData("stopped".into())) } else { Ok(()) }
            },
        );
        assert!(stopped.is_err() && runner.steps_done() == 16);
    }
}
