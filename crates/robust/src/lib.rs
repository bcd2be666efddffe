//! # gradfree-robust
//!
//! Robust learning under label noise, after chapter 8 of Lyu's thesis (and Lyu & Tsang,
//! "Curriculum Loss: Robust Learning and Generalization against Label Corruption", ICLR 2020):
//!
//! - [`selection`]: Algorithm 13, the O(n log n) minimizer of the partial problem (8.13), with the
//!   optimal value of Proposition 2 and the training rule of the remark after it;
//! - [`curriculum`]: the curriculum loss `Q` (8.9), the scaled `E` (8.11), their mini-batch
//!   versions (8.10, 8.12) and NPCL's thresholds (8.18, 8.20-8.21);
//! - [`hinge`]: the multi-class margin and the hard, soft and mixed multi-class hinges of app.
//!   10.37, cross-entropy and the generalized cross-entropy of the GCE baseline, as `f64`
//!   references;
//! - [`noise`]: seeded symmetric and pair label flipping with their transition matrices;
//! - [`estimate`]: the noise rate from a trusted subset or from anchor points;
//! - [`nok`]: the neural optimization kernel block of chapter 7 (robustness to input noise).
//!
//! Algorithms do no I/O.

pub mod curriculum;
pub mod error;
pub mod estimate;
pub mod hinge;
pub mod noise;
pub mod nok;
pub mod selection;

pub use curriculum::{Threshold, curriculum_value, curriculum_value_batched, zero_one};
pub use error::RobustError;
pub use estimate::{NoiseEstimate, anchor_transition, rate_from_anchors, rate_from_transition, rate_from_trusted};
pub use noise::{LabelNoise, NoiseKind, NoisyLabels, flip_labels};
pub use selection::{Selection, Selector, TrainOn, partial_objective, select};

#[cfg(feature = "train")]
pub mod train;
