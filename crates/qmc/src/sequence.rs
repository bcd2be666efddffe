//! The streaming interface shared by the point generators (scipy.stats.qmc's `QMCEngine`:
//! `random(n)`, `reset()`, `fast_forward(n)`), plus random access to point `i`.

use crate::QmcError;

/// A deterministic or randomized point sequence in `[0, 1)^d`.
pub trait Sequence {
    /// Dimension.
    fn dim(&self) -> usize;
    /// Writes point `i` into `out` (length `d`) without moving the stream.
    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError>;
    /// Index of the point the next [`Sequence::fill`] starts with.
    fn position(&self) -> u64;
    /// Moves the stream to point `index`.
    fn seek(&mut self, index: u64) -> Result<(), QmcError>;
    /// The next `count` points, row-major into `out` (`count * d` values); advances the stream.
    fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError>;
    /// Skips `n` points.
    fn fast_forward(&mut self, n: u64) -> Result<(), QmcError> {
        let to = self.position().checked_add(n).ok_or_else(|| QmcError::invalid("n", n, "a position below 2^64"))?;
        self.seek(to)
    }
    /// Back to point 0.
    fn reset(&mut self) {
        self.seek(0).expect("point 0 always exists");
    }
    /// The next `count` points as a new row-major vector (scipy's `random(n)`).
    fn sample(&mut self, count: usize) -> Result<Vec<f64>, QmcError> {
        let len = count.checked_mul(self.dim()).ok_or_else(|| QmcError::invalid("count", count, "count x dim below 2^64"))?;
        QmcError::check_memory(&format!("{count} points in dimension {}", self.dim()), len as u128)?;
        let mut out = vec![0.0; len];
        self.fill(count, &mut out)?;
        Ok(out)
    }
    /// Alias of [`Sequence::sample`].
    fn take(&mut self, count: usize) -> Result<Vec<f64>, QmcError> {
        self.sample(count)
    }
    /// The next `count` points rescaled to the box `[lower, upper)` (scipy's `qmc.scale`).
    fn sample_in_box(&mut self, count: usize, lower: &[f64], upper: &[f64]) -> Result<Vec<f64>, QmcError> {
        if lower.len() != self.dim() {
            return Err(QmcError::invalid("lower", format!("length {}", lower.len()), format!("length d = {}", self.dim())));
        }
        let mut out = self.sample(count)?;
        crate::transform::to_box(&mut out, lower, upper)?;
        Ok(out)
    }
}

/// Checks that `out` holds `count` points of dimension `d`.
pub(crate) fn check_out(out: &[f64], count: usize, d: usize) -> Result<(), QmcError> {
    if out.len() != count * d {
        return Err(QmcError::invalid("out", format!("length {}", out.len()), format!("count * d = {}", count * d)));
    }
    Ok(())
}

/// `position`, `seek` and `fill` of a random-access generator (each point computed from its
/// index alone, [`fill_by_index`]) that keeps its stream position in a field `index`: written once
/// for every such generator, inside its `impl Sequence`.
macro_rules! indexed_stream {
    () => {
        fn position(&self) -> u64 {
            self.index
        }
        fn seek(&mut self, index: u64) -> Result<(), QmcError> {
            self.index = index;
            Ok(())
        }
        fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError> {
            crate::sequence::check_out(out, count, self.dim())?;
            crate::sequence::fill_by_index(self, self.index, out)?;
            self.index = self.index.saturating_add(count as u64);
            Ok(())
        }
    };
}
pub(crate) use indexed_stream;

/// Fills `out` with points `start, start + 1, ...` by random access (`point_into`), in parallel for
/// large requests: for generators whose points are independent of each other's state.
pub(crate) fn fill_by_index<S: Sequence + Sync>(seq: &S, start: u64, out: &mut [f64]) -> Result<(), QmcError> {
    use rayon::prelude::*;
    let d = seq.dim();
    let rows = (out.len() / d.max(1)) as u64;
    if start.checked_add(rows).is_none() {
        return Err(QmcError::invalid("index", format!("{start} + {rows} points"), "positions below 2^64"));
    }
    if out.len() >= 1 << 16 {
        out.par_chunks_mut(d).enumerate().try_for_each(|(r, row)| seq.point_into(start + r as u64, row))
    } else {
        out.chunks_exact_mut(d).enumerate().try_for_each(|(r, row)| seq.point_into(start + r as u64, row))
    }
}
