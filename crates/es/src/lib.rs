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

pub mod discrete;
pub mod error;
pub mod gaussian;
pub mod param_docs;
mod points;
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
