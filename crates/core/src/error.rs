//! Typed errors of the core crate.

use std::path::PathBuf;

/// Everything that can go wrong in the shared machinery. Messages name the parameter (by its
/// library name: the field of the options type, e.g. `max_evaluations` of [`crate::StopRules`])
/// and the accepted range. Front ends print them as they are or put their own spelling of the
/// parameter in ([`CoreError::InvalidParameter`]'s `name` is a field, not text), and add their own
/// hints (the flag or keyword that sets a policy).
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// A vector or matrix had the wrong size.
    #[error("{what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// What was measured, e.g. "population dimension".
        what: &'static str,
        /// The size that was required.
        expected: usize,
        /// The size that was given.
        got: usize,
    },
    /// An objective value was NaN or infinite under [`crate::NonFinitePolicy::Error`].
    #[error(
        "objective value {value} at population index {index} is not finite (policy `error`; the policy `treat-as-inf` ranks such points last)"
    )]
    NonFinite {
        /// Row of the population.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A parameter is outside its accepted range.
    #[error("invalid parameter `{name}` = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name as the user spells it.
        name: &'static str,
        /// The rejected value, formatted.
        value: String,
        /// The accepted range, in words.
        expected: String,
    },
    /// Points told that the optimizer did not ask for (evolution strategies update from their own
    /// samples; evaluate repaired copies if you must, but tell the asked points).
    #[error(
        "told point row {row} differs from the asked population (X[{row}, {column}] = {told}, asked {asked}): tell the points ask() returned, in order"
    )]
    NotAsked {
        /// Row of the first difference.
        row: usize,
        /// Its column.
        column: usize,
        /// The value told.
        told: f64,
        /// The value asked.
        asked: f64,
    },
    /// A method was called in the wrong state, e.g. `tell` without a preceding `ask`.
    #[error("out of order: {0}")]
    OutOfOrder(&'static str),
    /// An input that must not be empty was empty.
    #[error("empty input: {0}")]
    Empty(&'static str),
    /// The covariance (or another matrix) left the positive-definite cone and could not be repaired.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// Reading or writing a file failed (a file-size limit is named: [`crate::files::describe_io`]).
    #[error("{}: {}", path.display(), crate::files::describe_io(cause))]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause (shown in the message, so not chained as a `source`).
        cause: std::io::Error,
    },
    /// A checkpoint or log file exists but is not what it should be.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A size would need more memory than the machine has ([`crate::memory`]).
    #[error("{}{what} needs {}, more than the {} of memory available", param.as_ref().map(|p| format!("`{}` = {}: ", p.0, p.1)).unwrap_or_default(), crate::memory::human_bytes(*bytes), crate::memory::human_bytes(*limit as u128))]
    TooLarge {
        /// What would be allocated, with its size, e.g. "INGO with dimension 200000".
        what: String,
        /// Bytes it would need.
        bytes: u128,
        /// Bytes available.
        limit: u64,
        /// The parameter whose value asks for it and that value, where one does (front ends show
        /// it as their flag or keyword): `("batch_size", "10000000000")`.
        param: Option<Box<(&'static str, String)>>,
    },
    /// Input that cannot be used as given (e.g. a point outside the search box told to a
    /// model-based method); the message says what and why.
    #[error("{0}")]
    BadInput(String),
    /// An observer failed (e.g. a log file could not be written).
    #[error("observer: {0}")]
    Observer(String),
}

impl CoreError {
    /// Shorthand for [`CoreError::InvalidParameter`].
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        CoreError::InvalidParameter { name, value: value.to_string(), expected: expected.into() }
    }
}
