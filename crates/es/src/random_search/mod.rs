//! Random-search methods that estimate a gradient from function-value differences.

mod ars;
mod nesterov_spokoiny;

pub use ars::{Ars, ArsChecked, ArsParams};
pub use nesterov_spokoiny::{NesterovSpokoiny, NesterovSpokoinyChecked, NesterovSpokoinyParams, StepSchedule};
