//! Errors of the ES crate.

use gradfree_core::CoreError;

/// What can go wrong when building or running an ES.
#[derive(Debug, thiserror::Error)]
pub enum EsError {
    /// Shared validation and runtime errors.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// No algorithm of that name.
    #[error("unknown algorithm `{name}`; known algorithms: {known}")]
    UnknownAlgorithm {
        /// The name asked for.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// Algorithm parameters given as key=value could not be read.
    #[error("parameters of `{algorithm}`: {message}")]
    Params {
        /// Algorithm name.
        algorithm: &'static str,
        /// What is wrong.
        message: String,
    },
}
