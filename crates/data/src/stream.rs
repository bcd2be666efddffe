//! Streamed data: rows that arrive in chunks and are never all in memory ([`RowSource`]), for the
//! online methods of `gradfree-inference`. Implemented here by chunks held in memory
//! ([`ChunkList`], for tests and small inputs) and by a CSV file read a block of lines at a time
//! ([`CsvStream`]); the Python package implements it over a generator of `(X, y)` batches.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::DataError;

/// A chunk of rows: features `x` (row-major, [`RowSource::dim`] columns) and responses `y` (one
/// per row, or empty for unsupervised data).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chunk {
    /// Row-major features.
    pub x: Vec<f64>,
    /// Responses.
    pub y: Vec<f64>,
}

/// A source of rows in chunks of any size, read once, front to back.
pub trait RowSource: Send {
    /// Features per row.
    fn dim(&self) -> usize;
    /// Column names of the features, if the source has them.
    fn names(&self) -> Option<Vec<String>> {
        None
    }
    /// The next chunk (`None` at the end). Chunks may be empty.
    fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError>;
}

/// Chunks held in memory, handed out in order.
#[derive(Clone, Debug)]
pub struct ChunkList {
    d: usize,
    chunks: std::collections::VecDeque<Chunk>,
}

impl ChunkList {
    /// Chunks of `d` features per row.
    pub fn new(d: usize, chunks: Vec<Chunk>) -> Self {
        ChunkList { d, chunks: chunks.into() }
    }
}

impl RowSource for ChunkList {
    fn dim(&self) -> usize {
        self.d
    }
    fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        Ok(self.chunks.pop_front())
    }
}

/// A CSV file read `rows_per_chunk` lines at a time: numbers separated by commas, an optional
/// header line of names, the response in column `target` (a header name, a column number, `-1`
/// for the last) or none. Memory is one chunk, whatever the file's length.
pub struct CsvStream {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    target: Option<usize>,
    cols: usize,
    names: Vec<String>,
    line_no: usize,
    pending: Option<Vec<f64>>,
    rows_per_chunk: usize,
    line: String,
}

impl CsvStream {
    /// Opens `path` (a regular file) and reads its first line: the header, or the first row.
    pub fn open(path: &Path, target: Option<&str>, rows_per_chunk: usize) -> Result<CsvStream, DataError> {
        let meta = std::fs::metadata(path).map_err(|e| DataError::file(path, e.to_string()))?;
        if !meta.is_file() {
            return Err(DataError::file(path, "is not a regular file"));
        }
        let file = std::fs::File::open(path).map_err(|e| DataError::file(path, e.to_string()))?;
        let mut s = CsvStream {
            path: path.to_owned(),
            reader: Box::new(std::io::BufReader::with_capacity(1 << 20, file)),
            target: None,
            cols: 0,
            names: Vec::new(),
            line_no: 0,
            pending: None,
            rows_per_chunk: rows_per_chunk.max(1),
            line: String::new(),
        };
        let first = loop {
            match s.read_line()? {
                None => return Err(DataError::file(path, "no rows of numbers")),
                Some(l) if l.trim().is_empty() => continue,
                Some(l) => break l,
            }
        };
        let first = if s.line_no == 1 { crate::matrix::strip_bom(&first) } else { &first };
        let fields: Vec<&str> = first.split(',').map(|f| f.trim().trim_matches('"')).collect();
        s.cols = fields.len();
        match fields.iter().map(|f| f.parse::<f64>()).collect::<Result<Vec<f64>, _>>() {
            Ok(row) => {
                s.names = (0..s.cols).map(|j| format!("x{j}")).collect();
                s.pending = Some(row);
            }
            Err(_) => {
                s.names = fields.iter().map(|f| f.to_string()).collect();
                crate::matrix::check_unique(&s.names).map_err(|e| DataError::file(path, e))?;
            }
        }
        if let Some(t) = target {
            let table = crate::Table { names: s.names.clone(), matrix: crate::Matrix { values: Vec::new(), rows: 0, cols: s.cols } };
            let j = table.column(t).ok_or_else(|| {
                DataError::file(path, format!("no column `{t}`; columns: {} (or a number, -1 for the last)", s.names.join(", ")))
            })?;
            if s.cols < 2 {
                return Err(DataError::file(path, "the response is the only column; need at least one feature"));
            }
            s.target = Some(j);
        }
        Ok(s)
    }

    fn read_line(&mut self) -> Result<Option<String>, DataError> {
        self.line.clear();
        let n = self.reader.read_line(&mut self.line).map_err(|e| DataError::file(&self.path, e.to_string()))?;
        self.line_no += 1;
        Ok((n > 0).then(|| self.line.clone()))
    }

    fn push_row(&self, row: &[f64], chunk: &mut Chunk) {
        match self.target {
            Some(t) => {
                chunk.x.extend(row.iter().enumerate().filter(|(k, _)| *k != t).map(|(_, v)| *v));
                chunk.y.push(row[t]);
            }
            None => chunk.x.extend_from_slice(row),
        }
    }
}

impl RowSource for CsvStream {
    fn dim(&self) -> usize {
        self.cols - usize::from(self.target.is_some())
    }

    fn names(&self) -> Option<Vec<String>> {
        Some(self.names.iter().enumerate().filter(|(k, _)| Some(*k) != self.target).map(|(_, n)| n.clone()).collect())
    }

    fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        let mut chunk = Chunk::default();
        let mut rows = 0;
        if let Some(row) = self.pending.take() {
            self.push_row(&row, &mut chunk);
            rows += 1;
        }
        let mut row = Vec::with_capacity(self.cols);
        while rows < self.rows_per_chunk {
            let Some(line) = self.read_line()? else { break };
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            row.clear();
            for field in line.split(',') {
                let v = field
                    .trim()
                    .parse::<f64>()
                    .map_err(|e| DataError::file(&self.path, format!("line {}: {e} (every field must be a number)", self.line_no)))?;
                row.push(v);
            }
            if row.len() != self.cols {
                return Err(DataError::file(
                    &self.path,
                    format!("line {}: {} fields, but the first row has {}", self.line_no, row.len(), self.cols),
                ));
            }
            self.push_row(&row, &mut chunk);
            rows += 1;
        }
        Ok((rows > 0).then_some(chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_file_streams_in_chunks_with_its_response_split_off() {
        let dir = std::env::temp_dir().join(format!("gf-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.csv");
        std::fs::write(&path, "a,y,b\n1,0,2\n3,1,4\n\n5,0,6\n").unwrap();
        let mut s = CsvStream::open(&path, Some("y"), 2).unwrap();
        assert_eq!(s.dim(), 2);
        assert_eq!(s.names().unwrap(), ["a", "b"]);
        assert_eq!(s.next_chunk().unwrap().unwrap(), Chunk { x: vec![1.0, 2.0, 3.0, 4.0], y: vec![0.0, 1.0] });
        assert_eq!(s.next_chunk().unwrap().unwrap(), Chunk { x: vec![5.0, 6.0], y: vec![0.0] });
        assert!(s.next_chunk().unwrap().is_none());
        // Without a header the first line is data; a bad field names its line.
        std::fs::write(&path, "1,2\n3,x\n").unwrap();
        let mut s = CsvStream::open(&path, Some("-1"), 10).unwrap();
        let e = s.next_chunk().unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        assert!(CsvStream::open(&path, Some("nope"), 10).err().unwrap().to_string().contains("no column `nope`"));
        assert!(CsvStream::open(&dir, None, 10).err().unwrap().to_string().contains("not a regular file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
