//! # gradfree-bo
//!
//! Gaussian processes and batch Bayesian optimization (thesis ch. 4):
//!
//! - [`kernel`]: ARD squared-exponential and Matérn 5/2 kernels.
//! - [`gp`]: GP regression in the unit cube with standardized outputs and a constant mean by
//!   generalized least squares, type-II maximum likelihood with analytic gradients, a jitter
//!   ladder, rank-one updates and batch covariances (eq. 4.17).
//! - [`space`]: boxes with continuous, integer and categorical coordinates.
//! - [`acquisition`]: UCB (Alg. 5/7), BKOP (Alg. 6/8), GP-BUCB, GP-UCB-PE and Bull's method,
//!   expected improvement, maximized by CMA-ES from several starts ([`inner`]).
//!
//! Algorithms do no I/O; they report through [`gradfree_core::Event`]s.

pub mod acquisition;
pub mod error;
pub mod gp;
pub mod inner;
pub mod kernel;
pub mod keywords;
pub mod optimizer;
pub mod space;

pub use acquisition::{METHODS, Method, MethodSpec};
pub use error::BoError;
pub use gp::{FitOptions, FitReport, Gp, NoiseModel, Standardization, fit};
pub use inner::InnerOptions;
pub use kernel::{Hyper, KernelKind};
pub use optimizer::{BatchBo, BoParams, default_n_initial, lattice_design};
pub use space::{Space, VarKind};

/// Revision of the model and the selection rules: changed whenever a change alters the points a
/// seeded run proposes, so cached experiment runs made before it are recomputed.
/// 2: constant mean by generalized least squares, profiled out of the likelihood.
pub const MODEL_REVISION: u32 = 2;
