//! Writing point sets: `.csv` (one point per line, shortest round-trip decimals) or `.npy` (NumPy
//! format 1.0, little-endian float64, C order, shape (n, d)). Files are written atomically.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Result, bail};

/// Writes `n x d` row-major `points` to `path`, format chosen by the extension.
pub fn write_points(path: &Path, n: usize, d: usize, points: &[f64]) -> Result<()> {
    assert_eq!(points.len(), n * d);
    let bytes = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => csv(d, points),
        Some("npy") => npy(n, d, points),
        _ => bail!("{}: unknown point file type; use a .csv or .npy file name", path.display()),
    };
    gradfree_core::atomic_write(path, &bytes)?;
    Ok(())
}

fn csv(d: usize, points: &[f64]) -> Vec<u8> {
    let mut s = String::with_capacity(points.len() * 20);
    for row in points.chunks_exact(d) {
        for (k, v) in row.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let _ = write!(s, "{v}");
        }
        s.push('\n');
    }
    s.into_bytes()
}

/// NumPy `.npy` version 1.0: magic, version, little-endian u16 header length, an ASCII dict
/// padded with spaces and ending in a newline so the data starts at a multiple of 64 bytes.
fn npy(n: usize, d: usize, points: &[f64]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({n}, {d}), }}");
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + points.len() * 8);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in points {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_layout() {
        let b = npy(2, 3, &[0.0, 0.5, 1.0, 0.25, 0.125, 0.75]);
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        let header = std::str::from_utf8(&b[10..10 + hlen]).unwrap();
        assert!(header.contains("'shape': (2, 3)") && header.ends_with('\n'));
        assert_eq!(b.len(), 10 + hlen + 48);
        assert_eq!(f64::from_le_bytes(b[10 + hlen + 8..10 + hlen + 16].try_into().unwrap()), 0.5);
    }

    #[test]
    fn csv_rows() {
        assert_eq!(String::from_utf8(csv(2, &[0.0, 0.5, 0.25, 1.0 / 3.0])).unwrap(), "0,0.5\n0.25,0.3333333333333333\n");
    }
}
