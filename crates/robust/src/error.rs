//! Errors of the robust-learning crate.

use gradfree_core::CoreError;

/// What can go wrong when losses, labels or a training run are set up.
#[derive(Debug, thiserror::Error)]
pub enum RobustError {
    /// Data that cannot be used as given (empty, NaN or infinite values, labels outside the
    /// classes, shapes that disagree); the message names the argument and the row.
    #[error("{0}")]
    BadData(String),
    /// An error of the shared machinery, among them a parameter outside its range
    /// ([`CoreError::InvalidParameter`]).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// An error reading data ([`gradfree_data::DataError`]).
    #[error(transparent)]
    Data(#[from] gradfree_data::DataError),
}

impl RobustError {
    /// A parameter outside its accepted range ([`CoreError::InvalidParameter`]).
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        RobustError::Core(CoreError::invalid(name, value, expected))
    }

    /// Data that cannot be used ([`RobustError::BadData`]).
    pub fn bad(message: impl Into<String>) -> Self {
        RobustError::BadData(message.into())
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, RobustError>;
