//! Reading and writing matrices: `.csv` (one row per line, shortest round-trip decimals; reading
//! skips one non-numeric header line) or `.npy` (NumPy format 1.0/2.0; written as little-endian
//! float64, C order, shape (n, d); read from float32 or float64, either order). Files are written
//! atomically.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

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

/// A matrix read from a file: row-major values, rows, columns.
#[derive(Debug)]
pub struct Matrix {
    /// Row-major values.
    pub values: Vec<f64>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
}

/// Reads a 2-d matrix from a `.csv` or `.npy` file.
pub fn read_matrix(path: &Path) -> Result<Matrix> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let m = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => read_csv(&bytes),
        Some("npy") => read_npy(&bytes),
        _ => bail!("unknown data file type; use a .csv or .npy file name"),
    };
    m.with_context(|| format!("{}", path.display()))
}

fn read_csv(bytes: &[u8]) -> Result<Matrix> {
    let text = std::str::from_utf8(bytes).context("not UTF-8 text")?;
    let (mut values, mut cols, mut rows) = (Vec::new(), 0, 0);
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let parsed: Result<Vec<f64>, _> = line.split(',').map(|t| t.trim().parse::<f64>()).collect();
        let row = match parsed {
            Ok(r) => r,
            Err(_) if k == 0 => continue, // a header line
            Err(e) => bail!("line {}: {e} (every field must be a number)", k + 1),
        };
        if rows == 0 {
            cols = row.len();
        } else if row.len() != cols {
            bail!("line {}: {} fields, but earlier rows have {cols}", k + 1, row.len());
        }
        values.extend(row);
        rows += 1;
    }
    if rows == 0 {
        bail!("no rows of numbers");
    }
    Ok(Matrix { values, rows, cols })
}

fn read_npy(b: &[u8]) -> Result<Matrix> {
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        bail!("not a NumPy .npy file");
    }
    let (hlen, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 if b.len() >= 12 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => bail!(".npy format version {v} is not supported"),
    };
    let header = b.get(start..start + hlen).and_then(|h| std::str::from_utf8(h).ok()).context("truncated .npy header")?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[i..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = field("descr").and_then(|r| r.strip_prefix('\'')).and_then(|r| r.split('\'').next()).context("no descr in .npy header")?;
    let fortran = field("fortran_order").is_some_and(|r| r.starts_with("True"));
    let shape_text =
        field("shape").and_then(|r| r.strip_prefix('(')).and_then(|r| r.split(')').next()).context("no shape in .npy header")?;
    let shape: Vec<usize> =
        shape_text.split(',').map(str::trim).filter(|t| !t.is_empty()).map(|t| t.parse()).collect::<Result<_, _>>().context("bad shape")?;
    let (rows, cols) = match shape[..] {
        [r, c] => (r, c),
        [r] => (r, 1),
        _ => bail!("shape ({shape_text}) is not 2-d; save a matrix (rows = samples, columns = features)"),
    };
    let data = &b[start + hlen..];
    let count = rows.checked_mul(cols).context("shape too large")?;
    let values: Vec<f64> = match descr {
        "<f8" => {
            let need = count.checked_mul(8).context("shape too large")?;
            if data.len() < need {
                bail!("truncated: {} data bytes for shape ({rows}, {cols}) of float64", data.len());
            }
            data[..need].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
        }
        "<f4" => {
            let need = count.checked_mul(4).context("shape too large")?;
            if data.len() < need {
                bail!("truncated: {} data bytes for shape ({rows}, {cols}) of float32", data.len());
            }
            data[..need].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64).collect()
        }
        other => bail!("dtype {other} is not supported; save float64 or float32 (e.g. X.astype('float64'))"),
    };
    let values = if fortran { (0..count).map(|k| values[(k % cols) * rows + k / cols]).collect() } else { values };
    Ok(Matrix { values, rows, cols })
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
    fn matrices_round_trip_and_bad_files_are_explained() {
        let v = [0.0, 0.5, 1.0, 0.25, 0.125, 0.75];
        let m = read_npy(&npy(2, 3, &v)).unwrap();
        assert_eq!((m.rows, m.cols, m.values.as_slice()), (2, 3, &v[..]));
        let m = read_csv(b"a,b\n1,2\n3,4.5\n").unwrap();
        assert_eq!((m.rows, m.cols, m.values), (2, 2, vec![1.0, 2.0, 3.0, 4.5]));
        assert!(read_csv(b"1,2\n3\n").unwrap_err().to_string().contains("line 2"));
        assert!(read_csv(b"1,2\n3,x\n").unwrap_err().to_string().contains("number"));
        let mut f = npy(2, 3, &v);
        f.truncate(f.len() - 8);
        assert!(read_npy(&f).unwrap_err().to_string().contains("truncated"));
        assert!(read_npy(b"hello world").is_err());
    }

    #[test]
    fn csv_rows() {
        assert_eq!(String::from_utf8(csv(2, &[0.0, 0.5, 0.25, 1.0 / 3.0])).unwrap(), "0,0.5\n0.25,0.3333333333333333\n");
    }
}
