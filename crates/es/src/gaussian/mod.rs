//! Evolution strategies with a Gaussian search distribution.

mod ingo;
mod sampling;
mod scores;

pub use ingo::{Ingo, IngoParams, IngoVariant};
pub use sampling::Sampling;
pub use scores::{NoScores, ScoreTransform};

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
