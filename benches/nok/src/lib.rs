//! Benchmarks of the neural optimization kernel layer: `cargo bench -p gradfree-nok-bench`.
