//! # gradfree-bo
//!
//! Gaussian processes and batch Bayesian optimization (thesis ch. 4):
//!
//! - [`kernel`]: ARD squared-exponential and Matérn 5/2 kernels.
//! - [`gp`]: GP regression in the unit cube with standardized outputs, type-II maximum likelihood
//!   with analytic gradients, a jitter ladder, rank-one updates and batch covariances (eq. 4.17).
//!
//! Algorithms do no I/O; they report through [`gradfree_core::Event`]s.

pub mod error;
pub mod gp;
pub mod kernel;

pub use error::BoError;
pub use gp::{FitOptions, FitReport, Gp, NoiseModel, Standardization, fit};
pub use kernel::{Hyper, KernelKind};
