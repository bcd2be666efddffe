//! Errors of the Bayesian-optimization crate.

use gradfree_core::CoreError;

/// What can go wrong when fitting a Gaussian process or proposing a batch.
#[derive(Debug, thiserror::Error)]
pub enum BoError {
    /// Observations the model cannot use (wrong shape, a point outside the box).
    #[error("{0}")]
    BadInput(String),
    /// No hyper-parameters gave a positive-definite kernel matrix, even with the largest jitter
    /// of the ladder (e.g. many exact duplicates with zero noise).
    #[error("Gaussian process cannot be fitted: {0}")]
    FitFailed(String),
    /// An error of the shared machinery, among them a parameter outside its accepted range
    /// ([`CoreError::InvalidParameter`], named by its field of [`crate::BoParams`]).
    #[error(transparent)]
    Core(#[from] CoreError),
}

impl BoError {
    /// A parameter outside its accepted range ([`CoreError::InvalidParameter`]).
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        BoError::Core(CoreError::invalid(name, value, expected))
    }
}

/// The ask/tell contract speaks [`CoreError`]: parameter errors keep their shape, a failed fit
/// is a numerical failure.
impl From<BoError> for CoreError {
    fn from(e: BoError) -> Self {
        match e {
            BoError::Core(c) => c,
            BoError::FitFailed(m) => CoreError::Numerical(format!("Gaussian process cannot be fitted: {m}")),
            BoError::BadInput(m) => CoreError::BadInput(m),
        }
    }
}
