//! Rank-1 lattices (thesis sec. 5.2-5.3).

mod rank1;
mod subgroup;

pub use rank1::Rank1Lattice;
pub use subgroup::{admissible_sizes, subgroup, subgroup_vector};
