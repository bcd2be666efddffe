//! Random-search methods that estimate a gradient from function-value differences.

mod nesterov_spokoiny;

pub use nesterov_spokoiny::{NesterovSpokoiny, NesterovSpokoinyChecked, NesterovSpokoinyParams, StepSchedule};
