//! Errors of the inference crate.

use gradfree_core::CoreError;

/// What can go wrong when data, a model or a method is set up, or a chain runs.
#[derive(Debug, thiserror::Error)]
pub enum InferenceError {
    /// Data that cannot be used as given (empty, NaN or infinite, labels outside the model's
    /// range); the message names the row or the rule.
    #[error("{0}")]
    BadData(String),
    /// The gradients of a step have no spread at all (every per-sample gradient equal), so no
    /// moment-adjusted direction exists; the message names the chain and the step.
    #[error("{0}")]
    SingularCovariance(String),
    /// A statistic the fit's method does not offer (a chain method's spread asked for as a
    /// standard error); the message says what to use instead.
    #[error("{0}")]
    NotOffered(String),
    /// An error of the shared machinery, among them a parameter outside its range
    /// ([`CoreError::InvalidParameter`]).
    #[error(transparent)]
    Core(#[from] CoreError),
    /// An error reading data ([`gradfree_data::DataError`]).
    #[error(transparent)]
    Data(#[from] gradfree_data::DataError),
}

/// Bad data named by the rows `first..first + rows` of the stream they are in.
pub(crate) fn in_rows(first: u64, rows: u64) -> impl Fn(InferenceError) -> InferenceError {
    move |e| match e {
        InferenceError::BadData(m) => InferenceError::BadData(format!("in rows {first}..{} of the stream: {m}", first + rows)),
        e => e,
    }
}

impl InferenceError {
    /// A parameter outside its accepted range ([`CoreError::InvalidParameter`]).
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        InferenceError::Core(CoreError::invalid(name, value, expected))
    }
}
