//! Writing point and feature matrices from the command line (the formats:
//! [`gradfree_data::matrix`]), atomically.

use std::path::Path;

use anyhow::{Result, bail};
use gradfree_core::atomic_write_with;
use gradfree_data::matrix::{write_csv_rows, write_npy_header, write_npy_rows};

pub use gradfree_data::matrix::read_matrix;

/// The file types points are written in, chosen by the extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointFormat {
    Csv,
    Npy,
}

/// The format of a point file name (`.csv` or `.npy`), or an error naming the path.
pub fn point_format(path: &Path) -> Result<PointFormat> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => Ok(PointFormat::Csv),
        Some("npy") => Ok(PointFormat::Npy),
        _ => bail!("{}: unknown point file type; use a .csv or .npy file name", path.display()),
    }
}

/// Writes `n x d` points to `path` atomically, as `produce` hands them to its sink piece by piece
/// (whole rows, `n d` values in all), so they never have to be in memory at once.
pub fn write_points_with(
    path: &Path,
    n: usize,
    d: usize,
    produce: impl FnOnce(&mut dyn FnMut(&[f64]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    let format = point_format(path)?;
    atomic_write_with(path, |w| -> Result<()> {
        match format {
            PointFormat::Npy => {
                write_npy_header(w, n, d)?;
                produce(&mut |piece| Ok(write_npy_rows(w, piece)?))
            }
            PointFormat::Csv => produce(&mut |piece| Ok(write_csv_rows(w, d, piece)?)),
        }
    })
}

/// Writes `n x d` row-major `points` to `path`, format chosen by the extension.
pub fn write_points(path: &Path, n: usize, d: usize, points: &[f64]) -> Result<()> {
    assert_eq!(points.len(), n * d);
    write_points_with(path, n, d, |sink| sink(points))
}
