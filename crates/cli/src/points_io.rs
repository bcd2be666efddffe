//! Writing point and feature matrices from the command line (the formats:
//! [`gradfree_data::matrix`]), atomically.

use std::path::Path;

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_core::files::Claim;
use gradfree_core::{Role, RunFiles, atomic_write_with};
use gradfree_data::matrix::{write_csv_rows, write_npy_header, write_npy_rows};
use gradfree_experiments::progress::{ProgressBar, bar};

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

/// The checks before a point file is written: the file policy ([`gradfree_core::RunFiles`]:
/// a regular file or nothing, not one of the command's inputs, not another run's) and the free
/// space of its file system against the file's size (exact for .npy; for .csv at least 2 bytes a
/// value). The file is the command's until the returned claim is dropped.
pub fn check_target(param: &'static str, path: &Path, n: usize, d: usize, inputs: &[(&'static str, &Path)]) -> Result<Claim> {
    let format = point_format(path)?;
    let mut files = RunFiles::new().add(Role::Output, param, Some(path));
    for (p, input) in inputs {
        files = files.add(Role::Input, p, Some(input));
    }
    let claim = files.claim()?;
    let values = (n as u128).saturating_mul(d as u128);
    let bytes = match format {
        PointFormat::Npy => values.saturating_mul(8).saturating_add(128),
        PointFormat::Csv => values.saturating_mul(2),
    };
    gradfree_core::files::check_free_space(param, path, bytes)?;
    match format {
        PointFormat::Npy => announce_write(path, bytes, true),
        // Shortest round-trip decimals of points in the cube: about 19 characters and a comma.
        PointFormat::Csv => announce_write(path, values.saturating_mul(CSV_BYTES_PER_VALUE), false),
    }
    Ok(claim)
}

/// Files larger than this are announced (size and path) on stderr before they are written.
pub const ANNOUNCE_BYTES: u128 = 100_000_000;

/// The typical size of one value in a CSV point file (a shortest round-trip decimal in [0, 1)
/// and its separator), for the announcement of a large CSV file.
const CSV_BYTES_PER_VALUE: u128 = 20;

/// Says on stderr that `bytes` (`exact`, else about that many) are about to be written to
/// `path`, when they are more than [`ANNOUNCE_BYTES`]: a large file is never written unannounced.
pub fn announce_write(path: &Path, bytes: u128, exact: bool) {
    if bytes > ANNOUNCE_BYTES {
        eprintln!("note: writing {}{} to {}", if exact { "" } else { "about " }, gradfree_core::memory::human_bytes(bytes), path.display());
    }
}

/// Writes `n x d` points to `path` atomically, as `produce` hands them to its sink piece by piece
/// (whole rows, `n d` values in all), so they never have to be in memory at once. Checked first
/// ([`check_target`]); a write that takes more than a second shows its progress on a terminal.
pub fn write_points_with(
    path: &Path,
    n: usize,
    d: usize,
    produce: impl FnOnce(&mut dyn FnMut(&[f64]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    let format = point_format(path)?;
    let started = Instant::now();
    let mut written = 0u64;
    let mut pb: Option<ProgressBar> = None;
    let mut tick = |rows: usize| {
        written += rows as u64;
        if pb.is_none() && started.elapsed().as_secs_f64() > 1.0 {
            let b = bar(Some(n as u64), "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} points written  {eta}", true);
            pb = Some(b);
        }
        if let Some(b) = &pb {
            b.set_position(written);
        }
    };
    // A failed write (a full disk) names the file.
    let writing = || format!("writing {}", path.display());
    atomic_write_with(path, |w| -> Result<()> {
        match format {
            PointFormat::Npy => {
                write_npy_header(w, n, d).with_context(writing)?;
                produce(&mut |piece| {
                    write_npy_rows(w, piece).with_context(writing)?;
                    tick(piece.len() / d.max(1));
                    Ok(())
                })
            }
            PointFormat::Csv => produce(&mut |piece| {
                write_csv_rows(w, d, piece).with_context(writing)?;
                tick(piece.len() / d.max(1));
                Ok(())
            }),
        }
    })
}

/// Rows of `d` values in one piece of a point set generated and written piece by piece: at most
/// `values` values (the speed's choice), fewer when the memory available (an address-space or
/// cgroup limit) holds less than four such pieces, and at least one row; an error naming `--dim`
/// when not even one row fits.
pub fn piece_rows(d: usize, values: usize) -> Result<usize> {
    let room = gradfree_core::memory::available_bytes() / 4 / 8;
    let values = values.min(usize::try_from(room).unwrap_or(usize::MAX));
    if values < d {
        bail!(
            "invalid --dim {d}: one point takes {}, more than a quarter of the {} of memory available",
            gradfree_core::memory::human_bytes(d as u128 * 8),
            gradfree_core::memory::human_bytes(gradfree_core::memory::available_bytes() as u128)
        );
    }
    Ok((values / d.max(1)).max(1))
}

/// Writes `n x d` row-major `points` to `path`, format chosen by the extension.
pub fn write_points(path: &Path, n: usize, d: usize, points: &[f64]) -> Result<()> {
    assert_eq!(points.len(), n * d);
    write_points_with(path, n, d, |sink| sink(points))
}
