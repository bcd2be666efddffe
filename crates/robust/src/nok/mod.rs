//! The neural optimization kernel block of thesis ch. 7 (Lyu, "Neural Optimization Kernel:
//! Towards Robust Deep Learning"): [`prox`], the proximal activations of Table 7.1.

pub mod prox;

pub use prox::{ACTIVATION_NAMES, Activation};
