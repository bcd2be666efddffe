//! The neural optimization kernel block of thesis ch. 7 (Lyu, "Neural Optimization Kernel:
//! Towards Robust Deep Learning"): [`prox`], the proximal activations of Table 7.1; [`layer`],
//! the structured layer (7.7-7.9) and its objective (7.8).

pub mod layer;
pub mod prox;

pub use layer::{LayerScratch, NokLayer, block_orthogonal};
pub use prox::{ACTIVATION_NAMES, Activation};
