//! Errors of the problems crate.

/// What can go wrong when building a problem.
#[derive(Debug, thiserror::Error)]
pub enum ProblemError {
    /// No problem of that name.
    #[error("unknown problem `{name}`; known problems: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// The dimension is outside what the problem accepts.
    #[error("invalid dimension {dim} for problem `{problem}`: must be {expected}")]
    Dimension {
        /// Problem name.
        problem: String,
        /// The dimension asked for.
        dim: usize,
        /// Accepted range, in words.
        expected: String,
    },
    /// A failure of the shared machinery, e.g. a problem that would not fit in memory
    /// ([`gradfree_core::CoreError::TooLarge`]).
    #[error(transparent)]
    Core(#[from] gradfree_core::CoreError),
    /// A parameter or data set is unusable.
    #[error("invalid `{name}`: {message}")]
    Invalid {
        /// Parameter name.
        name: &'static str,
        /// What is wrong, with the accepted range.
        message: String,
    },
}
