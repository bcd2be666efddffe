//! Errors of the feature-map crate.

/// What can go wrong when building or applying a feature map.
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    /// A parameter outside its accepted range.
    #[error("invalid {name} = {value}: expected {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The value given.
        value: String,
        /// The accepted range.
        expected: String,
    },
    /// Input data that cannot be mapped (wrong shape, NaN or infinite entries).
    #[error("{0}")]
    BadInput(String),
    /// A point-set error from the QMC crate.
    #[error(transparent)]
    Qmc(#[from] gradfree_qmc::QmcError),
    /// An error of the shared machinery, kept as it is: e.g. a size that would not fit in memory
    /// ([`gradfree_core::CoreError::TooLarge`]).
    #[error(transparent)]
    Core(#[from] gradfree_core::CoreError),
}

impl FeatureError {
    /// Shorthand for [`FeatureError::InvalidParameter`].
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        FeatureError::InvalidParameter { name, value: value.to_string(), expected: expected.into() }
    }

    /// `Ok` if `elements` values of `f64` fit in memory ([`gradfree_core::memory`]).
    pub fn check_memory(what: &str, elements: u128) -> Result<(), FeatureError> {
        Ok(gradfree_core::memory::check_elements(what, elements)?)
    }
}
