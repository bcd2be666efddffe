//! Surrogate-assisted evolution strategies, for expensive objectives: a model of `f` ranks most of
//! each population, and only the points it cannot rank are evaluated.

mod lq_cmaes;
pub mod lq_model;

pub use lq_cmaes::{LqCmaes, LqCmaesChecked, LqCmaesParams};
pub use lq_model::{LqModel, ModelKind};
