//! A population of candidate points, stored row-major as an `n x d` matrix.

use serde::{Deserialize, Serialize};

use crate::CoreError;

/// `n` points of dimension `d`, row `i` at `data[i*d .. (i+1)*d]`.
///
/// The buffer is reused across generations: [`Population::resize`] keeps its capacity, so a
/// driver that asks into the same `Population` allocates only in the first generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Population {
    n: usize,
    d: usize,
    data: Vec<f64>,
}

impl Population {
    /// An empty population of dimension `d`.
    pub fn empty(d: usize) -> Self {
        Population { n: 0, d, data: Vec::new() }
    }

    /// `n` zero points of dimension `d`.
    pub fn zeros(n: usize, d: usize) -> Self {
        Population { n, d, data: vec![0.0; n * d] }
    }

    /// Wraps a row-major buffer; errors if `data.len() != n * d`.
    pub fn from_row_major(n: usize, d: usize, data: Vec<f64>) -> Result<Self, CoreError> {
        if data.len() != n * d {
            return Err(CoreError::DimensionMismatch { what: "population buffer length (n*d)", expected: n * d, got: data.len() });
        }
        Ok(Population { n, d, data })
    }

    /// Builds a population from rows; errors on ragged rows or no rows.
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Self, CoreError> {
        let first = rows.first().ok_or(CoreError::Empty("population rows"))?;
        let d = first.as_ref().len();
        let mut data = Vec::with_capacity(rows.len() * d);
        for r in rows {
            let r = r.as_ref();
            if r.len() != d {
                return Err(CoreError::DimensionMismatch { what: "population row length", expected: d, got: r.len() });
            }
            data.extend_from_slice(r);
        }
        Ok(Population { n: rows.len(), d, data })
    }

    /// Sets the shape to `n x d`, keeping the allocation when it is large enough. Contents are
    /// unspecified afterwards (old values or zeros).
    pub fn resize(&mut self, n: usize, d: usize) {
        self.n = n;
        self.d = d;
        self.data.resize(n * d, 0.0);
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Dimension of each point.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Point `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Point `i`, mutable.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.d..(i + 1) * self.d]
    }

    /// Iterator over the points.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.chunks_exact(self.d.max(1))
    }

    /// Mutable iterator over the points.
    pub fn rows_mut(&mut self) -> std::slice::ChunksExactMut<'_, f64> {
        self.data.chunks_exact_mut(self.d.max(1))
    }

    /// The row-major buffer.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The row-major buffer, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.data
    }
}
