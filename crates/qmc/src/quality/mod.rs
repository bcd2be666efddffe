//! Quality measures of point sets (thesis sec. 5.2-5.3).

mod toroidal;

pub use toroidal::{Norm, difference_norms, min_distance, min_distance_brute_force, packing_radius, toroidal_norm};
