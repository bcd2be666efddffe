//! # gradfree-features
//!
//! Random-feature maps for kernel approximation (thesis ch. 6 and sec. 5.5.3): maps `Psi` with
//! `Psi(x)^T Psi(z) ~ K(x, z)`, so a linear model on `Psi(X)` approximates a kernel machine.
//!
//! - [`kernel`]: the exact kernels (Gaussian, arc-cosine of any order, eq. 6.2-6.4) and `C_b`.
//! - [`projection`]: the directions: i.i.d. Gaussian, orthogonal, signed circulant, QMC (Halton,
//!   Sobol, subgroup lattice through the Gaussian quantile, eq. 5.21) and SSF (the DFT-row point
//!   set of eq. 6.23 applied by one FFT, Theorem 20); [`projection::METHODS`] lists them. Each is
//!   a [`LinearOp`]: `W` and its adjoint `W^T` applied to blocks of rows.
//! - [`map`]: the feature maps (eq. 6.6, 6.10, 6.21) over any projection, for `f32` and `f64` rows.
//! - [`gram`]: exact and approximate Gram matrices and the relative Frobenius / max errors.
//!
//! Algorithm 12 (the SSF point set) lives with the other sphere point sets in
//! [`gradfree_qmc::sphere`].

pub mod error;
pub mod gram;
pub mod kernel;
pub mod keywords;
pub mod map;
pub mod projection;

pub use error::FeatureError;
pub use gram::{GramErrors, exact_gram, feature_gram, gather, sample_rows};
pub use kernel::{Kernel, arccos_constant, arccos_j, gamma_scale, gamma_scale_visit};
pub use map::{FeatureMap, FeatureSpec};
pub use projection::{Directions, LinearOp, METHODS, Method, Real, SsfFrequencies, SsfOptions, SsfRotation, Workspace};

/// The number of rows of row-major `x` with `d` columns; an error for `d = 0`, a length that is not
/// a multiple of `d`, or a non-finite entry (naming its row and column).
pub fn check_rows<T: Real>(x: &[T], d: usize) -> Result<usize, FeatureError> {
    if d == 0 {
        return Err(FeatureError::BadInput("inputs have 0 features; need at least 1".into()));
    }
    if !x.len().is_multiple_of(d) {
        return Err(FeatureError::BadInput(format!("{} values do not form rows of {d} features", x.len())));
    }
    if let Some(k) = x.iter().position(|v| !v.to_f64().is_finite()) {
        return Err(FeatureError::BadInput(format!("input row {} column {} is {}: inputs must be finite", k / d, k % d, x[k].to_f64())));
    }
    Ok(x.len() / d)
}
