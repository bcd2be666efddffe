//! The progress-bar observer (stderr, drawn only on a terminal).

use gradfree_core::{CoreError, GenerationRecord, Observer, RunInfo, RunResult};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shows evaluations against the budget and the best value so far.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(max_evals: Option<u64>, start: u64) -> Self {
        let bar = match max_evals {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} evals  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_position(start);
        Progress { bar }
    }
}

impl Observer for Progress {
    fn on_start(&mut self, info: &RunInfo) -> Result<(), CoreError> {
        self.bar.set_message(format!("{} d={}", info.algorithm, info.dim));
        Ok(())
    }
    fn on_generation(&mut self, r: &GenerationRecord) -> Result<(), CoreError> {
        self.bar.set_position(r.evaluations);
        if let Some(b) = r.best_f {
            self.bar.set_message(format!("gen {}  best f {b:.6e}", r.generation));
        }
        Ok(())
    }
    fn on_finish(&mut self, _: &RunResult) -> Result<(), CoreError> {
        self.bar.finish_and_clear();
        Ok(())
    }
}
