//! The integration tests of gradfree-qmc, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod integration;
mod sobol;
mod sphere;
mod subgroup;
mod tables_5_1_5_2;
