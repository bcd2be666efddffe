//! Evolution strategies with a Gaussian search distribution.

mod cmaes;
mod fast_ingo;
mod igo;
mod ingo;
mod mines;
mod openai_es;
mod sampling;
mod scores;
mod xnes;

pub use cmaes::{CmaEs, CmaEsParams};
pub use fast_ingo::{FastIngo, FastIngoParams};
pub use igo::{Igo, IgoParams};
pub use ingo::{Ingo, IngoParams, IngoVariant};
pub use mines::{Mines, MinesParams};
pub use openai_es::{EsOptimizer, OpenAiEs, OpenAiEsParams};
pub use sampling::Sampling;
pub use scores::{NoScores, ScoreTransform};
pub use xnes::{Xnes, XnesParams};

use gradfree_core::CoreError;

/// Validates a start point and initial scale.
pub(crate) fn check_start(x0: &[f64], sigma0: f64) -> Result<(), CoreError> {
    if x0.is_empty() {
        return Err(CoreError::Empty("x0"));
    }
    if let Some(i) = x0.iter().position(|v| !v.is_finite()) {
        return Err(CoreError::invalid("x0", format!("x0[{i}] = {}", x0[i]), "finite"));
    }
    if !(sigma0.is_finite() && sigma0 > 0.0) {
        return Err(CoreError::invalid("sigma0", sigma0, "finite and > 0"));
    }
    Ok(())
}

/// Scratch buffers of [`pd_rank_update`].
#[derive(Clone, Debug, Default)]
pub(crate) struct RankScratch {
    backup: Vec<f64>,
    w: Vec<f64>,
    alpha: Vec<f64>,
}

/// Outcome of [`pd_rank_update`].
pub(crate) enum PdUpdate {
    /// Applied with the full step.
    Full,
    /// Applied after halving the step this many times.
    Backtracked(u32),
    /// No positive-definite step was found; the factor is unchanged.
    Kept,
}

/// Updates the lower Cholesky factor `l` of a positive-definite matrix `M = L L^T` to
/// `keep(step) M + step * sum_i c_i v_i v_i^T` (`v` is `d x r` column-major), halving `step` from
/// `beta` until the result is positive definite, at most `max_backtracks` times (then `l` is left
/// unchanged). `keep` gives the factor on the old matrix (1 for centred scores, `1 - step` or
/// `1 + step` for weights that sum to 1). O(r d^2) per attempt.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pd_rank_update(
    l: &mut [f64],
    d: usize,
    v: &[f64],
    c: &[f64],
    beta: f64,
    keep: impl Fn(f64) -> f64,
    max_backtracks: u32,
    s: &mut RankScratch,
) -> PdUpdate {
    s.backup.clear();
    s.backup.extend_from_slice(l);
    let mut step = beta;
    for attempt in 0..=max_backtracks {
        if attempt > 0 {
            l.copy_from_slice(&s.backup);
            step *= 0.5;
        }
        let k = keep(step);
        if k.is_nan() || k <= 0.0 {
            continue;
        }
        if k != 1.0 {
            let r = k.sqrt();
            l.iter_mut().for_each(|x| *x *= r);
        }
        s.w.clear();
        s.w.extend_from_slice(v);
        s.alpha.clear();
        s.alpha.extend(c.iter().map(|ci| step * ci));
        if crate::linalg::rank_update(l, d, &mut s.w, &mut s.alpha) {
            return if attempt == 0 { PdUpdate::Full } else { PdUpdate::Backtracked(attempt) };
        }
    }
    l.copy_from_slice(&s.backup);
    PdUpdate::Kept
}

/// The event an optimizer reports for a [`PdUpdate`], if any.
pub(crate) fn pd_event(outcome: &PdUpdate, generation: u64) -> Option<gradfree_core::Event> {
    match outcome {
        PdUpdate::Full => None,
        PdUpdate::Backtracked(k) => Some(gradfree_core::Event {
            kind: "backtrack".into(),
            message: format!("generation {generation}: covariance step halved {k} time(s) to stay positive definite"),
        }),
        PdUpdate::Kept => Some(gradfree_core::Event {
            kind: "covariance-kept".into(),
            message: format!("generation {generation}: no positive-definite covariance step found; covariance unchanged"),
        }),
    }
}
