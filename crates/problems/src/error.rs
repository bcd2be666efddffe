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
    /// The problem would not fit in memory.
    #[error(transparent)]
    Memory(#[from] gradfree_core::CoreError),
    /// A parameter or data set is unusable.
    #[error("invalid `{name}`: {message}")]
    Invalid {
        /// Parameter name.
        name: &'static str,
        /// What is wrong, with the accepted range.
        message: String,
    },
    /// A data set installed by a system package is not on this machine.
    #[error(
        "{dataset} not found: no {path}. Install the Debian package `{package}` (apt-get install {package}), or set {env} to a folder that holds its files"
    )]
    DataMissing {
        /// The data set's name.
        dataset: &'static str,
        /// The file looked for.
        path: String,
        /// The Debian package that installs it.
        package: &'static str,
        /// The environment variable that points elsewhere.
        env: &'static str,
    },
    /// A data file exists but cannot be read.
    #[error("cannot read {path}: {message}")]
    DataFile {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}
