//! The neural optimization kernel block of thesis ch. 7 (Lyu, "Neural Optimization Kernel:
//! Towards Robust Deep Learning"): [`prox`], the proximal activations of Table 7.1; [`layer`],
//! the structured layer (7.7-7.9) and its objective (7.8); [`structure`], the choices of `B`;
//! [`block`], the unrolled block with its unsupervised R-steps (7.16-7.17) and the NOK kernel;
//! [`cayley`], the Cayley map (7.15) for learning `R` with the task loss.

pub mod block;
pub mod cayley;
pub mod layer;
pub mod prox;
pub mod structure;

pub use block::{NokBlock, NokSpec, NokState};
pub use layer::{LayerScratch, NokLayer, block_orthogonal};
pub use prox::{ACTIVATION_NAMES, Activation};
pub use structure::{STRUCTURE_NAMES, Structure};
