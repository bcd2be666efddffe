//! The integration tests of gradfree-inference, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod degenerate;
mod extremes;
mod inference;
