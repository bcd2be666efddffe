//! Errors of the experiments crate: the library errors it calls, converted, plus its own.

use std::path::PathBuf;

/// What can go wrong when building or running an experiment or a run.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// From the shared machinery (driver, checkpoints, memory budget).
    #[error(transparent)]
    Core(#[from] gradfree_core::CoreError),
    /// From building an optimizer.
    #[error(transparent)]
    Es(#[from] gradfree_es::EsError),
    /// From building a point set or integrating.
    #[error(transparent)]
    Qmc(#[from] gradfree_qmc::QmcError),
    /// From building or applying a feature map.
    #[error(transparent)]
    Features(#[from] gradfree_features::FeatureError),
    /// From Bayesian optimization (a GP that cannot be fitted, bad parameters).
    #[error(transparent)]
    Bo(#[from] gradfree_bo::BoError),
    /// From building a problem.
    #[error(transparent)]
    Problem(#[from] gradfree_problems::ProblemError),
    /// From statistical inference (bad data, a singular covariance, bad parameters).
    #[error(transparent)]
    Inference(#[from] gradfree_inference::InferenceError),
    /// From robust learning (bad labels or data, bad parameters, a diverged run).
    #[error(transparent)]
    Robust(#[from] gradfree_robust::RobustError),
    /// From loading a data set.
    #[error(transparent)]
    Data(#[from] gradfree_data::DataError),
    /// A run specification that does not make sense (the message names the option).
    #[error("{0}")]
    Invalid(String),
    /// A file or folder could not be created or written.
    #[error("{path}: {cause}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A JSON document could not be written or read.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Something the experiment needs is not on this machine (a Python package it runs): `what`
    /// failed, and `install` is the line that installs it.
    #[error("{what}; install it: {install}")]
    MissingDependency {
        /// What was tried and failed.
        what: String,
        /// The command that installs what is missing.
        install: String,
    },
    /// No experiment of that name.
    #[error("unknown experiment `{name}`; known: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
}

impl ExperimentError {
    /// The line that installs what is missing, when the error is a missing dependency (a Python
    /// package, or a data set a Debian package installs); `None` for every other error.
    pub fn install_line(&self) -> Option<String> {
        let data = match self {
            Self::MissingDependency { install, .. } => return Some(install.clone()),
            Self::Data(d) | Self::Robust(gradfree_robust::RobustError::Data(d)) => d,
            _ => return None,
        };
        match data {
            gradfree_data::DataError::Missing { package, .. } => Some(format!("apt-get install {package}")),
            _ => None,
        }
    }
}

/// Shorthand for this crate's results.
pub type Result<T, E = ExperimentError> = std::result::Result<T, E>;

/// Returns early with [`ExperimentError::Invalid`] and a formatted message.
#[macro_export]
macro_rules! invalid {
    ($($t:tt)*) => {
        return Err($crate::ExperimentError::Invalid(format!($($t)*)))
    };
}
