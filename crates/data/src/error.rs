//! Errors of the data crate.

use gradfree_core::CoreError;

/// What can go wrong when a data set or a data file is read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// No data set of that name.
    #[error("unknown data set `{name}`; known: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated list of known names.
        known: String,
    },
    /// A data set installed by a system package is not on this machine.
    #[error(
        "{dataset} not found: no {path}. Install the Debian package `{package}` (apt-get install {package}), or set {env} to a folder that holds its files; the data set `digits` (scikit-learn's 8x8 digits, shipped with gradfree) needs neither"
    )]
    Missing {
        /// The data set's name.
        dataset: &'static str,
        /// The file looked for.
        path: String,
        /// The Debian package that installs it.
        package: &'static str,
        /// The environment variable that points elsewhere.
        env: &'static str,
    },
    /// A data file exists but cannot be used: not a regular file, unreadable, or not in its
    /// format (the message says which, with the line or field where it applies).
    #[error("cannot read {path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Reading the file would need more memory than the machine has, or another failure of the
    /// shared machinery.
    #[error(transparent)]
    Core(#[from] CoreError),
}

impl DataError {
    /// A [`DataError::File`] about `path`.
    pub fn file(path: &std::path::Path, message: impl Into<String>) -> Self {
        DataError::File { path: path.display().to_string(), message: message.into() }
    }
}
