//! Parameters validated once, before anything runs (linfa's `ParamGuard`).
//!
//! Every algorithm has a `*Params` struct as the user writes it (`Option` fields for defaults that
//! depend on the dimension, deserializable from the CLI's `--param` and Python's keyword
//! arguments) and a checked type holding the resolved values. [`ParamGuard::check`] is the only
//! way from one to the other, so an algorithm's constructor never sees an unchecked value and
//! every error names the parameter and the accepted range.

use crate::CoreError;

/// Parameters that can be checked for a problem of dimension `d` into a validated type.
pub trait ParamGuard {
    /// The validated parameters, with every default resolved.
    type Checked;

    /// Resolves the defaults for dimension `d` and checks every value; the error names the first
    /// parameter out of range and the accepted range ([`CoreError::InvalidParameter`]).
    fn check(&self, d: usize) -> Result<Self::Checked, CoreError>;
}
