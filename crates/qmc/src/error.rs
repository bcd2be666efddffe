//! Errors of the QMC crate.

/// What can go wrong when building a point set.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum QmcError {
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
    /// The lattice size does not suit the construction.
    #[error("n = {n} does not suit a subgroup lattice in d = {d}: {why}; admissible n for d = {d} near {n}: {suggestions}")]
    UnsuitableSize {
        /// Number of points asked for.
        n: u64,
        /// Dimension.
        d: usize,
        /// Why not.
        why: String,
        /// Nearby admissible sizes, comma-separated.
        suggestions: String,
    },
    /// The caller cancelled the computation (e.g. Ctrl-C from Python).
    #[error("interrupted")]
    Interrupted,
    /// A size that would not fit in memory (the message names it and the memory available).
    #[error("{0}")]
    TooLarge(String),
    /// Any other error of the shared machinery (`gradfree_core`), with its message.
    #[error("{0}")]
    Core(String),
}

/// Core errors (memory budget, invalid parameters of shared types) as QMC errors.
impl From<gradfree_core::CoreError> for QmcError {
    fn from(e: gradfree_core::CoreError) -> Self {
        use gradfree_core::CoreError as C;
        match e {
            C::TooLarge { .. } => QmcError::TooLarge(e.to_string()),
            C::InvalidParameter { name, value, expected } => QmcError::InvalidParameter { name, value, expected },
            other => QmcError::Core(other.to_string()),
        }
    }
}

impl QmcError {
    /// `Ok` if `elements` values of `f64` fit in memory ([`gradfree_core::memory`]).
    pub fn check_memory(what: &str, elements: u128) -> Result<(), QmcError> {
        Ok(gradfree_core::memory::check_elements(what, elements)?)
    }

    /// Shorthand for [`QmcError::InvalidParameter`].
    pub fn invalid(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        QmcError::InvalidParameter { name, value: value.to_string(), expected: expected.into() }
    }
}
