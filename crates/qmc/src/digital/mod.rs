//! Digital sequences (base 2): Sobol.

mod sobol;

pub use sobol::{SOBOL_MAX_BITS, SOBOL_MAX_DIM, Scramble, Sobol};
