//! The integration tests of gradfree-data, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod files;
mod real_data;
