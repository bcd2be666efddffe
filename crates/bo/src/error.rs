//! Errors of the Bayesian-optimization crate.

use gradfree_core::CoreError;

/// What can go wrong when fitting a Gaussian process or proposing a batch.
#[derive(Debug, thiserror::Error)]
pub enum BoError {
    /// A parameter outside its accepted range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name as the user spells it.
        name: &'static str,
        /// The rejected value.
        value: String,
        /// The accepted range, in words.
        expected: String,
    },
    /// Observations the model cannot use (wrong shape, a point outside the box).
    #[error("{0}")]
    BadInput(String),
    /// No hyper-parameters gave a positive-definite kernel matrix, even with the largest jitter
    /// of the ladder (e.g. many exact duplicates with zero noise).
    #[error("Gaussian process cannot be fitted: {0}")]
    FitFailed(String),
    /// An error of the shared machinery.
    #[error(transparent)]
    Core(#[from] CoreError),
}

impl BoError {
    /// Shorthand for [`BoError::InvalidParameter`].
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        BoError::InvalidParameter { name, value: value.to_string(), expected: expected.into() }
    }
}

/// The ask/tell contract speaks [`CoreError`]: parameter errors keep their shape, a failed fit
/// is a numerical failure.
impl From<BoError> for CoreError {
    fn from(e: BoError) -> Self {
        match e {
            BoError::InvalidParameter { name, value, expected } => CoreError::InvalidParameter { name, value, expected },
            BoError::Core(c) => c,
            BoError::FitFailed(m) => CoreError::Numerical(format!("Gaussian process cannot be fitted: {m}")),
            BoError::BadInput(m) => CoreError::BadInput(m),
        }
    }
}
