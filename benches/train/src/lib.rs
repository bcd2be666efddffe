//! Benchmarks only: `cargo bench -p gradfree-train-bench` (see `benches/kernels.rs`).
