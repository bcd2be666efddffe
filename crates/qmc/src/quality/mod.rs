//! Quality measures of point sets (thesis sec. 5.2-5.3).

mod discrepancy;
pub mod optimize;
pub(crate) mod toroidal;

pub use discrepancy::{Discrepancy, centered_l2, discrepancy, wrap_around_l2};
pub use toroidal::{
    Norm, difference_norms, distinct_distances, min_distance, min_distance_brute_force, min_distance_cancellable, packing_radius,
    toroidal_norm,
};
