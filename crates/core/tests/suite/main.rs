//! The integration tests of gradfree-core, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod atomic;
mod contracts;
mod stop_rules;
