//! The integration tests of gradfree-bo, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod bo;
mod gp;
