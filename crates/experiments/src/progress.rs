//! Progress bars for the front ends (the `gradfree` binary and the Python package), drawn on
//! standard error only when it is a terminal: one style and one run observer for every command
//! and for Python's own loops. Behind the crate feature `progress`.

use gradfree_core::{CoreError, GenerationRecord, Observer, RunInfo, RunResult};
pub use indicatif::ProgressBar;
use indicatif::{ProgressDrawTarget, ProgressStyle};

/// A bar on standard error with an indicatif `template` (`{bar}`, `{pos}`, `{len}`, `{msg}`,
/// `{eta}`, ...), of length `total` if known; hidden when `show` is false (and by indicatif when
/// standard error is not a terminal).
pub fn bar(total: Option<u64>, template: &str, show: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, if show { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() });
    bar.set_style(style(template));
    bar
}

/// The style of `template` (the default style if it does not parse).
pub fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// A run's progress as an [`Observer`]: evaluations against the budget, the generation and the
/// best value so far.
pub struct RunProgress {
    bar: ProgressBar,
}

impl RunProgress {
    /// A bar up to `max_evals` (if any) that starts at `start` evaluations (a resumed run).
    pub fn new(max_evals: Option<u64>, start: u64) -> Self {
        let bar = bar(max_evals, "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} evals  {msg}", true);
        bar.set_position(start);
        RunProgress { bar }
    }
}

impl Observer for RunProgress {
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
