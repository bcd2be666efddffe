//! Data matrices in files: `.csv` (one row per line; reading skips one non-numeric header line;
//! written with shortest round-trip decimals) or `.npy` (NumPy format 1.0-3.0; read from float32 or
//! float64 in either order, written as little-endian float64 in C order with shape (n, d)). Readers
//! take only regular files ([`crate::read_file`]).

use std::fmt::Write as _;
use std::path::Path;

use crate::DataError;

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

/// Reads a 2-d matrix from a `.csv` or `.npy` file (by its extension), which must be a regular
/// file ([`crate::read_file`]).
pub fn read_matrix(path: &Path) -> Result<Matrix, DataError> {
    let parse: fn(&[u8]) -> Result<Matrix, String> = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => read_csv,
        Some("npy") => read_npy,
        _ => return Err(DataError::file(path, "unknown data file type; use a .csv or .npy file name")),
    };
    let bytes = crate::read_file(path)?;
    parse(&bytes).map_err(|m| DataError::file(path, m))
}

/// A matrix with a name for every column: the CSV header's, or `x0, x1, ...` without one.
#[derive(Debug)]
pub struct Table {
    /// Column names.
    pub names: Vec<String>,
    /// The values.
    pub matrix: Matrix,
}

impl Table {
    /// The index of the column called `name`, or given by its number (`-1` for the last).
    pub fn column(&self, name: &str) -> Option<usize> {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return Some(i);
        }
        let c = self.matrix.cols as i64;
        match name.parse::<i64>() {
            Ok(i) if (0..c).contains(&i) => Some(i as usize),
            Ok(i) if (-c..0).contains(&i) => Some((c + i) as usize),
            _ => None,
        }
    }

    /// The table without column `j`, and that column.
    pub fn split_column(&self, j: usize) -> (Table, Vec<f64>) {
        let (rows, cols) = (self.matrix.rows, self.matrix.cols);
        let mut rest = Vec::with_capacity(rows * (cols - 1));
        let mut column = Vec::with_capacity(rows);
        for row in self.matrix.values.chunks_exact(cols) {
            rest.extend(row.iter().enumerate().filter(|(k, _)| *k != j).map(|(_, v)| *v));
            column.push(row[j]);
        }
        let names = self.names.iter().enumerate().filter(|(k, _)| *k != j).map(|(_, n)| n.clone()).collect();
        (Table { names, matrix: Matrix { values: rest, rows, cols: cols - 1 } }, column)
    }
}

/// Reads a table from a `.csv` (column names from its header, if it has one) or `.npy` file.
pub fn read_table(path: &Path) -> Result<Table, DataError> {
    let m = read_matrix(path)?;
    let header = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => {
            let bytes = crate::read_file(path)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            strip_bom(&text).lines().find(|l| !l.trim().is_empty()).and_then(|first| {
                let fields: Vec<String> = first.split(',').map(|f| f.trim().trim_matches('"').to_string()).collect();
                fields.iter().any(|f| f.parse::<f64>().is_err()).then_some(fields)
            })
        }
        _ => None,
    };
    let names = match header {
        Some(h) if h.len() == m.cols => {
            check_unique(&h).map_err(|e| DataError::file(path, e))?;
            h
        }
        Some(h) => return Err(DataError::file(path, format!("the header has {} names for {} columns", h.len(), m.cols))),
        None => (0..m.cols).map(|j| format!("x{j}")).collect(),
    };
    Ok(Table { names, matrix: m })
}

/// `text` without the UTF-8 byte-order mark some programs write first (Excel's "CSV UTF-8"): it
/// belongs to no name and no number.
pub(crate) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Header names must be unique, or a column named by `--target` or in a summary is ambiguous.
pub(crate) fn check_unique(names: &[String]) -> Result<(), String> {
    let mut first = std::collections::HashMap::with_capacity(names.len());
    for (j, name) in names.iter().enumerate() {
        if let Some(k) = first.insert(name.as_str(), j) {
            let count = names.iter().filter(|n| *n == name).count();
            return Err(format!("the header names `{name}` {count} times (columns {} and {}); column names must be unique", k + 1, j + 1));
        }
    }
    Ok(())
}

/// Parses CSV text: one row of comma-separated numbers per line; a first line that is not all
/// numbers is a header and skipped. A leading byte-order mark is ignored.
pub fn read_csv(bytes: &[u8]) -> Result<Matrix, String> {
    let text = strip_bom(std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text")?);
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
            Err(e) => return Err(format!("line {}: {e} (every field must be a number)", k + 1)),
        };
        if rows == 0 {
            cols = row.len();
        } else if row.len() != cols {
            return Err(format!("line {}: {} fields, but earlier rows have {cols}", k + 1, row.len()));
        }
        values.extend(row);
        rows += 1;
    }
    if rows == 0 {
        return Err("no rows of numbers".into());
    }
    Ok(Matrix { values, rows, cols })
}

/// Parses a NumPy `.npy` file (format 1.0-3.0) holding a 1-d or 2-d float64 or float32 array,
/// little-endian, in C or Fortran order.
pub fn read_npy(b: &[u8]) -> Result<Matrix, String> {
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err("not a NumPy .npy file".into());
    }
    let (hlen, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 if b.len() >= 12 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => return Err(format!(".npy format version {v} is not supported")),
    };
    let header = b.get(start..start + hlen).and_then(|h| std::str::from_utf8(h).ok()).ok_or("truncated .npy header")?;
    let field = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[i..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = field("descr").and_then(|r| r.strip_prefix('\'')).and_then(|r| r.split('\'').next()).ok_or("no descr in .npy header")?;
    let fortran = field("fortran_order").is_some_and(|r| r.starts_with("True"));
    let shape_text = field("shape").and_then(|r| r.strip_prefix('(')).and_then(|r| r.split(')').next()).ok_or("no shape in .npy header")?;
    let shape: Vec<usize> = shape_text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse())
        .collect::<Result<_, _>>()
        .map_err(|_| "bad shape")?;
    let (rows, cols) = match shape[..] {
        [r, c] => (r, c),
        [r] => (r, 1),
        _ => return Err(format!("shape ({shape_text}) is not 2-d; save a matrix (rows = samples, columns = features)")),
    };
    let data = &b[start + hlen..];
    let count = rows.checked_mul(cols).ok_or("shape too large")?;
    let values: Vec<f64> = match descr {
        "<f8" => {
            let need = count.checked_mul(8).ok_or("shape too large")?;
            if data.len() < need {
                return Err(format!("truncated: {} data bytes for shape ({rows}, {cols}) of float64", data.len()));
            }
            data[..need].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
        }
        "<f4" => {
            let need = count.checked_mul(4).ok_or("shape too large")?;
            if data.len() < need {
                return Err(format!("truncated: {} data bytes for shape ({rows}, {cols}) of float32", data.len()));
            }
            data[..need].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64).collect()
        }
        other => return Err(format!("dtype {other} is not supported; save float64 or float32 (e.g. X.astype('float64'))")),
    };
    let values = if fortran { (0..count).map(|k| values[(k % cols) * rows + k / cols]).collect() } else { values };
    Ok(Matrix { values, rows, cols })
}

/// The CSV text of row-major `points` with `d` columns: one line per row, shortest round-trip
/// decimals.
pub fn encode_csv(d: usize, points: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * 20);
    write_csv_rows(&mut out, d, points).expect("writing to a Vec cannot fail");
    out
}

/// Appends the CSV lines of row-major `points` with `d` columns to `w` ([`encode_csv`] in pieces).
pub fn write_csv_rows(w: &mut dyn std::io::Write, d: usize, points: &[f64]) -> std::io::Result<()> {
    let mut line = String::with_capacity(d * 20);
    for row in points.chunks_exact(d) {
        line.clear();
        for (k, v) in row.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            let _ = write!(line, "{v}");
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// NumPy `.npy` version 1.0: magic, version, little-endian u16 header length, an ASCII dict
/// padded with spaces and ending in a newline so the data starts at a multiple of 64 bytes.
pub fn encode_npy(n: usize, d: usize, points: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + points.len() * 8);
    write_npy_header(&mut out, n, d).expect("writing to a Vec cannot fail");
    write_npy_rows(&mut out, points).expect("writing to a Vec cannot fail");
    out
}

/// The `.npy` header of an `n x d` float64 C-order array ([`encode_npy`] in pieces: the header,
/// then [`write_npy_rows`] for the `n d` values).
pub fn write_npy_header(w: &mut dyn std::io::Write, n: usize, d: usize) -> std::io::Result<()> {
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({n}, {d}), }}");
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())
}

/// Appends `values` as little-endian float64 (the data of a `.npy` file).
pub fn write_npy_rows(w: &mut dyn std::io::Write, values: &[f64]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(values.len().min(1 << 16) * 8);
    for chunk in values.chunks(1 << 16) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
        w.write_all(&bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_layout() {
        let b = encode_npy(2, 3, &[0.0, 0.5, 1.0, 0.25, 0.125, 0.75]);
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
        let m = read_npy(&encode_npy(2, 3, &v)).unwrap();
        assert_eq!((m.rows, m.cols, m.values.as_slice()), (2, 3, &v[..]));
        let m = read_csv(b"a,b\n1,2\n3,4.5\n").unwrap();
        assert_eq!((m.rows, m.cols, m.values), (2, 2, vec![1.0, 2.0, 3.0, 4.5]));
        assert!(read_csv(b"1,2\n3\n").unwrap_err().contains("line 2"));
        assert!(read_csv(b"1,2\n3,x\n").unwrap_err().contains("number"));
        let mut f = encode_npy(2, 3, &v);
        f.truncate(f.len() - 8);
        assert!(read_npy(&f).unwrap_err().contains("truncated"));
        assert!(read_npy(b"hello world").is_err());
    }

    /// A byte-order mark is no part of the first name or number; duplicate names are refused.
    #[test]
    fn byte_order_marks_and_duplicate_names() {
        let m = read_csv("\u{feff}0.5,1\n2,3\n".as_bytes()).unwrap();
        assert_eq!((m.rows, m.values[0]), (2, 0.5), "the first row is data, not a header");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, "\u{feff}y,a\n1,2\n0,3\n").unwrap();
        assert_eq!(read_table(&path).unwrap().names, ["y", "a"]);
        std::fs::write(&path, "a,b,a\n1,2,3\n").unwrap();
        let e = read_table(&path).unwrap_err().to_string();
        assert!(e.contains("names `a` 2 times (columns 1 and 3)"), "{e}");
        let e = crate::stream::CsvStream::open(&path, Some("b"), 10).err().unwrap().to_string();
        assert!(e.contains("names `a` 2 times"), "{e}");
        std::fs::write(&path, "\u{feff}y,a\n1,2\n").unwrap();
        assert!(crate::stream::CsvStream::open(&path, Some("y"), 10).is_ok());
    }

    #[test]
    fn csv_rows() {
        assert_eq!(String::from_utf8(encode_csv(2, &[0.0, 0.5, 0.25, 1.0 / 3.0])).unwrap(), "0,0.5\n0.25,0.3333333333333333\n");
    }
}
