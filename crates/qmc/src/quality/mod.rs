//! Quality measures of point sets (thesis sec. 5.2-5.3).

mod discrepancy;
pub(crate) mod toroidal;

pub use discrepancy::{centered_l2, centered_l2_cancellable, wrap_around_l2, wrap_around_l2_cancellable};
pub use toroidal::{
    Norm, difference_norms, distinct_distances, min_distance, min_distance_brute_force, min_distance_cancellable, packing_radius,
    toroidal_norm,
};
