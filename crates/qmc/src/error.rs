//! Errors of the QMC crate.

/// What can go wrong when building a point set.
#[derive(Debug, thiserror::Error)]
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
    /// An error of the shared machinery, kept as it is: e.g. a size that would not fit in memory
    /// ([`gradfree_core::CoreError::TooLarge`], naming the size and the memory available).
    #[error(transparent)]
    Core(gradfree_core::CoreError),
}

/// Core errors as QMC errors: an invalid parameter of a shared type becomes this crate's
/// [`QmcError::InvalidParameter`] (same fields); every other one is kept whole in [`QmcError::Core`].
impl From<gradfree_core::CoreError> for QmcError {
    fn from(e: gradfree_core::CoreError) -> Self {
        match e {
            gradfree_core::CoreError::InvalidParameter { name, value, expected } => QmcError::InvalidParameter { name, value, expected },
            other => QmcError::Core(other),
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
