//! Placeholder library so the bench package builds; the benchmark lives in `benches/linalg.rs`.
