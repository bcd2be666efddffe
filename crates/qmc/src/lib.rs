//! # gradfree-qmc
//!
//! Quasi-Monte Carlo point sets on `[0, 1)^d` (thesis ch. 5):
//!
//! - [`lattice::Rank1Lattice`]: rank-1 lattices `x_i = frac(i z / n + shift)`, point `i` computed
//!   on demand (no storage), with the random shift of (5.4);
//! - [`lattice::subgroup`]: the closed-form subgroup generating vector of Theorem 13 / eq. (5.14),
//!   and [`lattice::admissible_sizes`], the primes `n` with `2d | n - 1` it needs;
//! - [`quality`]: minimum `l1` / `l2` toroidal distances of a lattice in O(n d) (eq. 5.8-5.11),
//!   the packing radius, and the multiset of pairwise distances (Theorem 13).
//!
//! - [`digital::Sobol`]: Sobol points with the Joe–Kuo direction numbers (up to 21201 dimensions),
//!   unscrambled, with linear matrix scrambling + digital shift, or Owen-scrambled;
//! - [`Sequence`]: scipy-style streaming (`fill`, `fast_forward`, `reset`) and random access.
//!
//! [`numtheory`] holds the exact integer tools (primality, primitive roots) they rest on.

pub mod digital;
pub mod error;
pub mod halton;
pub mod iid;
pub mod integrate;
pub mod lattice;
pub mod numtheory;
pub mod quality;
pub mod reference;
pub mod sequence;
pub mod sphere;
pub mod transform;

pub use digital::{Scramble, Sobol};
pub use error::QmcError;
pub use halton::Halton;
pub use iid::{Iid, latin_hypercube};
pub use lattice::{
    KorobovResult, LatticeSequence, Rank1Lattice, admissible_sizes, hua, korobov_search, korobov_search_cancellable, korobov_vector,
    subgroup,
};
pub use sequence::Sequence;
