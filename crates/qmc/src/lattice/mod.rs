//! Rank-1 lattices (thesis sec. 5.2-5.3).

mod hua;
mod korobov;
mod rank1;
pub mod search;
mod subgroup;

pub use hua::{hua, hua_prime};
pub use korobov::{KorobovResult, korobov_search, korobov_search_cancellable, korobov_vector};
pub use rank1::{LatticeSequence, Rank1Lattice};
pub use subgroup::{admissible_sizes, subgroup, subgroup_vector};
