//! The integration tests of gradfree-robust, one module per subject, built as one test binary
//! (one link and one instantiation of the library's generic code instead of one per file).

mod curriculum;
mod front;
mod generative;
mod kernels;
mod nok_block;
mod nok_layer;
mod prox;
mod train;
