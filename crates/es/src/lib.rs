//! # gradfree-es
//!
//! Evolution strategies and random-search methods as [`gradfree_core::AskTell`] state machines.
//! One folder per family, one file per algorithm:
//!
//! - [`gaussian`]: INGO, INGOstep, Fast-INGO (thesis ch. 3), MiNES (Ye & Zhang), and the
//!   baselines CMA-ES, xNES, IGO, OpenAI-ES, with i.i.d., antithetic or orthogonal samples;
//! - [`random_search::NesterovSpokoiny`]: the random gradient-free method of Nesterov & Spokoiny
//!   (2017), as MiNES eq. (4.18)-(4.19) states it;
//! - [`discrete`]: INGO for binary and categorical variables (thesis sec. 3.5) and a GA baseline;
//! - [`restarts::Ipop`]: IPOP restarts around any of them.
//!
//! [`registry`] builds any of them by CLI name with defaults from just a start point; [`Algorithm`]
//! is the serializable sum of all of them, used for checkpoints. [`EsSpec`] is one run as every
//! front end describes it (algorithm, start, restarts, stop rules, bounds), with its defaults and
//! its one `build`.

/// The accessors every optimizer of this crate writes alike, inside its `impl AskTell`: `name`,
/// `dim` (the length of one of its vectors) and `population_size` (a field).
macro_rules! identity {
    ($name:literal, dim = $dim:ident, popsize = $($pop:ident).+) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn dim(&self) -> usize {
            self.$dim.len()
        }
        fn population_size(&self) -> usize {
            self.$($pop).+
        }
    };
}
pub(crate) use identity;

/// `mean` and `scale` of the methods whose noise scale is fixed (OpenAI-ES, ARS, ASEBO, MiNES,
/// Nesterov–Spokoiny), inside their `impl AskTell`: the mean is the field `mu`, and the scale the
/// stop rules watch is the field `last_step`, the infinity norm of the last mean step.
macro_rules! mean_and_last_step {
    () => {
        fn mean(&self) -> &[f64] {
            &self.mu
        }
        /// Infinity norm of the last mean step (the noise scale is fixed).
        fn scale(&self) -> f64 {
            self.last_step
        }
    };
}
pub(crate) use mean_and_last_step;

/// `scale` and `spread_into` of the full-covariance strategies (CMA-ES, xNES, IGO), inside their
/// `impl AskTell`, from their `coordinate_sds()`, the coordinates' standard deviations (each
/// documents its formula there).
macro_rules! coordinate_spread {
    () => {
        /// The largest coordinate standard deviation.
        fn scale(&self) -> f64 {
            self.coordinate_sds().fold(0.0, f64::max)
        }
        /// Every coordinate's standard deviation.
        fn spread_into(&self, out: &mut Vec<f64>) -> bool {
            out.clear();
            out.extend(self.coordinate_sds());
            true
        }
    };
}
pub(crate) use coordinate_spread;

pub mod discrete;
pub mod error;
pub mod gaussian;
pub mod param_docs;
mod points;
mod progress;
pub mod random_search;
pub mod recommended;
pub mod registry;
pub mod restarts;
pub mod sizes;
pub mod spec;
pub mod start;
pub mod step_control;
pub mod surrogate;

pub use error::EsError;
pub use recommended::{RECOMMENDED, Recommended};
pub use registry::{Algorithm, AlgorithmSpec, StartSpec, build, list};
pub use restarts::{Ipop, IpopParams, Regime, RestartMean, RestartScheme, Restartable, TOL_X_METHOD, bipop_regime};
pub use spec::{EsSpec, RestartSpec};

/// The user guide's Rust examples (`docs/rust.md`), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rust.md")]
pub struct GuideDoctests;
