//! Writing point and feature matrices from the command line (the formats:
//! [`gradfree_data::matrix`]), atomically.

use std::path::Path;

use anyhow::{Result, bail};
use gradfree_data::matrix::{encode_csv, encode_npy};

pub use gradfree_data::matrix::read_matrix;

/// Writes `n x d` row-major `points` to `path`, format chosen by the extension.
pub fn write_points(path: &Path, n: usize, d: usize, points: &[f64]) -> Result<()> {
    assert_eq!(points.len(), n * d);
    let bytes = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => encode_csv(d, points),
        Some("npy") => encode_npy(n, d, points),
        _ => bail!("{}: unknown point file type; use a .csv or .npy file name", path.display()),
    };
    gradfree_core::atomic_write(path, &bytes)?;
    Ok(())
}
