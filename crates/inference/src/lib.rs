//! # gradfree-inference
//!
//! Statistical inference from stochastic gradients (Liang & Su, "Statistical Inference for the
//! Population Landscape via Moment-Adjusted Stochastic Gradients", JRSS-B 2019):
//!
//! - [`model`]: per-sample losses and gradients (GLMs of sec. 4.2, the Gaussian mixture and the
//!   two-layer ReLU network of sec. 7);
//! - [`direction`]: the moment-adjusted direction `V^{-1} b` of sec. 6 (symmetric inverse root,
//!   and the rank-one recursion of Prop. 6.2);
//! - [`population`]: `b(theta)` and `V(theta)` on a finite population (App. C);
//! - [`process`]: one step of SGD, MasGrad (eq. 10), their diffusions (eq. 6, 8, 11), MadProx
//!   (eq. 19-20) and averaged SGD with random scaling (Lee et al. 2022);
//! - [`chains`]: `K` seeded chains in parallel;
//! - [`fit`]: what a run estimates ([`Fit`]): intervals, standard errors or the process's spread;
//! - [`intervals`]: pointwise intervals across chains, coverage, KS distances between processes;
//! - [`random_scaling`]: the non-normal critical values of random scaling, at any level;
//! - [`mle`]: GLM maximum likelihood and Wald intervals (the truths of the figures, the Wald
//!   baseline), nonrobust or sandwich;
//! - [`cuee`]: the same in one pass over streamed rows (Schifano et al. 2016);
//! - [`order`]: whether the rows' order moved that one-pass estimate (a score fluctuation test);
//! - [`reread`]: Newton's method in passes over streamed rows that can be read again;
//! - [`separation`]: the warning for separated classes in logistic regression (as statsmodels');
//! - [`simulate`]: the coverage-study protocol of Chen et al. (2020);
//! - [`stream`]: runs on data that arrive in chunks ([`run_stream`]), memory flat in the rows;
//! - [`spec`]: one run with its defaults ([`InferenceSpec`]);
//! - [`keywords`]: its keywords as the front ends take them, read from the specs' fields;
//! - [`warning`]: what a fit must be read with, by kind;
//! - [`segments`]: the chain run's loop that the front ends interrupt and checkpoint.
//!
//! Algorithms do no I/O; every chain is seeded, so results do not depend on the thread count.

pub mod chains;
pub mod cuee;
pub mod data;
pub mod direction;
pub mod error;
pub mod fit;
pub mod intervals;
pub mod keywords;
pub mod mle;
pub mod model;
pub mod order;
pub mod passes;
pub mod population;
pub mod process;
pub mod random_scaling;
pub mod reread;
pub mod segments;
pub mod separation;
pub mod simulate;
pub mod spec;
pub mod stream;
pub mod summary;
pub mod warning;

pub use chains::{Fit, Runner, RunnerState, run};
pub use data::Data;
pub use error::InferenceError;
pub use model::{Family, GaussianMixture, Glm, Model, ModelSpec, ReluNet};
pub use spec::{CovType, InferenceSpec, IntervalKind, Method, Moments, ProxMetric, Sampling};
pub use stream::{run_stream, run_stream_mle};
pub use warning::{Warning, WarningKind};
