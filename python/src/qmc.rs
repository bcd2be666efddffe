//! QMC bindings: engines with scipy.stats.qmc's interface, lattices, searches and quality measures.

use gradfree_qmc::quality::Norm;
use gradfree_qmc::{Halton, Rank1Lattice, Scramble, Sequence, Sobol};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::{Kind, ToPyErr, new_err};
use crate::{err, interruptible};

/// A QMC engine with scipy.stats.qmc's interface (`random`, `reset`, `fast_forward`).
#[pyclass(module = "gradfree._gradfree")]
struct Engine {
    seq: Box<dyn Sequence + Send + Sync>,
    /// Number of points the sequence has (2^bits for Sobol), checked before allocating.
    limit: u64,
}

#[pymethods]
impl Engine {
    /// `Engine(kind, d, seed, scramble, bits=32)`: kind `sobol` (scramble `none|lms-shift|owen`,
    /// `bits` in 1..=64), `halton` (scramble `none|permutation`).
    #[new]
    #[pyo3(signature = (kind, d, seed, scramble, bits=32))]
    fn new(kind: &str, d: usize, seed: u64, scramble: &str, bits: u32) -> PyResult<Self> {
        let sobol = |s: Scramble| -> PyResult<(Box<dyn Sequence + Send + Sync>, u64)> {
            let seq = Sobol::with_bits(d, s, bits).map_err(ToPyErr::to_py)?;
            let limit = seq.len();
            Ok((Box::new(seq), limit))
        };
        let (seq, limit) = match (kind, scramble) {
            ("sobol", "none") => sobol(Scramble::None)?,
            ("sobol", "lms-shift") => sobol(Scramble::LmsShift { seed })?,
            ("sobol", "owen") => sobol(Scramble::Owen { seed })?,
            ("halton", "none") => (Box::new(Halton::new(d, None).map_err(ToPyErr::to_py)?) as Box<dyn Sequence + Send + Sync>, u64::MAX),
            ("halton", "permutation") => (Box::new(Halton::new(d, Some(seed)).map_err(ToPyErr::to_py)?) as _, u64::MAX),
            _ => return Err(err(format!("engine {kind} with scramble {scramble}: unknown combination"))),
        };
        Ok(Engine { seq, limit })
    }

    /// The next `n` points, shape `(n, d)`.
    fn random<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let d = self.seq.dim();
        if self.seq.position() as u128 + n as u128 > self.limit as u128 {
            return Err(err(format!(
                "n = {n}: only {} points are left of this sequence's {} (num_generated = {})",
                self.limit - self.seq.position().min(self.limit),
                self.limit,
                self.seq.position()
            )));
        }
        gradfree_qmc::QmcError::check_memory(&format!("{n} points in dimension {d}"), (n as u128) * (d as u128)).map_err(ToPyErr::to_py)?;
        // numpy allocates the array (with transparent huge pages for large ones, which makes the
        // first touch of 512 MB about 3x cheaper than a Vec's 4 KiB pages) and Rust fills it in
        // place without the GIL.
        let arr = PyArray2::<f64>::zeros(py, [n, d], false);
        {
            let mut guard = arr.readwrite();
            let out = guard.as_slice_mut().map_err(err)?;
            let seq = &mut self.seq;
            py.detach(|| seq.fill(n, out)).map_err(ToPyErr::to_py)?;
        }
        Ok(arr)
    }

    fn reset(&mut self) {
        self.seq.reset();
    }

    fn fast_forward(&mut self, n: u64) -> PyResult<()> {
        self.seq.fast_forward(n).map_err(ToPyErr::to_py)
    }

    #[getter]
    fn d(&self) -> usize {
        self.seq.dim()
    }

    #[getter]
    fn num_generated(&self) -> u64 {
        self.seq.position()
    }
}

/// The subgroup generating vector (thesis eq. 5.14) for `n` points in dimension `d`.
#[pyfunction]
fn subgroup_vector(d: usize, n: u64) -> PyResult<Vec<u64>> {
    gradfree_qmc::lattice::subgroup_vector(d, n).map_err(ToPyErr::to_py)
}

/// Exhaustive Korobov search: `(a, z, min_distance)`.
#[pyfunction]
#[pyo3(signature = (d, n, metric = "l2"))]
fn korobov(py: Python<'_>, d: usize, n: u64, metric: &str) -> PyResult<(u64, Vec<u64>, f64)> {
    let norm = parse_norm(metric)?;
    let r =
        interruptible(py, |cancel| gradfree_qmc::korobov_search_cancellable(d, n, norm, &|_, _| {}, cancel))?.map_err(ToPyErr::to_py)?;
    Ok((r.a, r.lattice.z().to_vec(), r.min_distance))
}

fn parse_norm(metric: &str) -> PyResult<Norm> {
    match metric {
        "l1" => Ok(Norm::L1),
        "l2" => Ok(Norm::L2),
        _ => Err(err(format!("metric {metric:?}: expected 'l1' or 'l2'"))),
    }
}

/// Minimum toroidal distance of the rank-1 lattice with generating vector `z` and `n` points.
#[pyfunction]
#[pyo3(signature = (z, n, metric = "l2"))]
fn min_distance(py: Python<'_>, z: Vec<u64>, n: u64, metric: &str) -> PyResult<f64> {
    let norm = parse_norm(metric)?;
    // O(n d): beyond 2^36 values it runs for minutes to years (Ctrl-C stops it below that).
    let work = n as u128 * z.len() as u128;
    if work > 1 << 36 {
        return Err(new_err(
            Kind::TooLarge,
            format!("n x d = {n} x {} = {work}: the minimum distance scans all n points (O(n d)); use n d <= 2^36", z.len()),
        ));
    }
    let l = Rank1Lattice::new(n, z).map_err(ToPyErr::to_py)?;
    interruptible(py, |cancel| gradfree_qmc::quality::min_distance_cancellable(&l, norm, cancel))?.map_err(ToPyErr::to_py)
}

/// Points `start..start + count` of the lattice (`z`, `n`), optionally shifted: shape `(count, d)`.
#[pyfunction]
#[pyo3(signature = (z, n, start, count, shift = None))]
fn lattice_points<'py>(
    py: Python<'py>,
    z: Vec<u64>,
    n: u64,
    start: u64,
    count: usize,
    shift: Option<Vec<f64>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut l = Rank1Lattice::new(n, z).map_err(ToPyErr::to_py)?;
    if let Some(s) = shift {
        l = l.with_shift(s).map_err(ToPyErr::to_py)?;
    }
    let d = l.dim();
    let len = count.checked_mul(d).ok_or_else(|| err(format!("count = {count} x d = {d} overflows")))?;
    gradfree_qmc::QmcError::check_memory(&format!("{count} lattice points in dimension {d}"), len as u128).map_err(ToPyErr::to_py)?;
    let mut out = vec![0.0; len];
    py.detach(|| l.fill_par(start, count, &mut out));
    Ok(Array2::from_shape_vec((count, d), out).map_err(err)?.into_pyarray(py))
}

/// A lattice from the thesis searches that maximize the l2 packing distance (sec. 4.6):
/// `method = "alg10"` (Algorithm 10 over `primes` primes) or `"alg11"` (Algorithm 10's `top`
/// best vectors refined by `sweeps` sweeps of successive coordinate search); settings left `None`
/// take the library's defaults ([`gradfree_qmc::lattice::search::SearchSpec`]). Returns `(z,
/// min_distance)`.
#[pyfunction]
#[pyo3(signature = (d, n, method = "alg10", primes = None, sweeps = None, top = None))]
fn lattice_search(
    py: Python<'_>,
    d: usize,
    n: u64,
    method: &str,
    primes: Option<usize>,
    sweeps: Option<usize>,
    top: Option<usize>,
) -> PyResult<(Vec<u64>, f64)> {
    let lib = gradfree_qmc::lattice::search::SearchSpec::default();
    let search = gradfree_qmc::lattice::search::SearchSpec {
        primes: primes.unwrap_or(lib.primes),
        sweeps: sweeps.unwrap_or(lib.sweeps),
        top: top.unwrap_or(lib.top),
    };
    let r = match method {
        "alg10" => py.detach(|| search.alg10(d, n)),
        "alg11" => py.detach(|| search.alg11(d, n)),
        _ => return Err(err(format!("method {method:?}: expected 'alg10' or 'alg11'"))),
    }
    .map_err(err)?;
    Ok((r.z, r.min_distance))
}

/// The L2-type discrepancy of the rows of `points` (shape `(n, d)`, in `[0, 1]`), as
/// scipy.stats.qmc.discrepancy: `method` "CD", "WD", "MD" or "L2-star", `iterative` normalizes
/// as if there were `n + 1` points, `workers` threads (`-1`: every core; the value does not depend
/// on it).
#[pyfunction]
#[pyo3(signature = (points, method = "CD", iterative = false, workers = -1))]
fn discrepancy(py: Python<'_>, points: PyReadonlyArray2<'_, f64>, method: &str, iterative: bool, workers: i64) -> PyResult<f64> {
    let kind = gradfree_qmc::quality::Discrepancy::from_name(method).map_err(ToPyErr::to_py)?;
    if workers == 0 || workers < -1 {
        return Err(err(format!("workers = {workers}: expected -1 (every core) or an integer >= 1")));
    }
    let d = points.shape()[1];
    let rows: Vec<f64> = points.as_array().iter().copied().collect();
    let pool = if workers > 0 {
        Some(rayon::ThreadPoolBuilder::new().num_threads(workers as usize).build().map_err(|e| err(format!("workers: {e}")))?)
    } else {
        None
    };
    let r = interruptible(py, |cancel| {
        let run = || gradfree_qmc::quality::discrepancy(&rows, d, kind, iterative, cancel);
        match &pool {
            Some(p) => p.install(run),
            None => run(),
        }
    })?;
    r.map_err(ToPyErr::to_py)
}

/// scipy.stats.qmc's `optimization=` post-processing of a sample (shape `(n, d)`, in `[0, 1]`):
/// `"random-cd"` (coordinate swaps lowering the centered discrepancy, at most 10 000 tries, 100
/// without improvement) or `"lloyd"` (10 Lloyd-Max iterations, tolerance 1e-5 on the smallest L1
/// distance); see `gradfree_qmc::quality::optimize`. `seed` draws the swaps (random-cd) or the
/// sample that estimates the Voronoi centroids (lloyd). Releases the GIL.
#[pyfunction]
fn optimize_points<'py>(
    py: Python<'py>,
    points: PyReadonlyArray2<'_, f64>,
    method: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    use gradfree_qmc::quality::optimize;
    let (n, d) = (points.shape()[0], points.shape()[1]);
    let mut rows: Vec<f64> = points.as_array().iter().copied().collect();
    if n == 0 || d == 0 {
        return Ok(Array2::from_shape_vec((n, d), rows).map_err(err)?.into_pyarray(py));
    }
    let method = method.to_string();
    let r = py.detach(|| match method.as_str() {
        "random-cd" => optimize::random_cd(&mut rows, d, 10_000, 100, &mut gradfree_core::rng_from_seed(seed)).map(|_| rows),
        "lloyd" => optimize::lloyd(&mut rows, d, 10, 1e-5, 64, seed).map(|_| rows),
        other => Err(gradfree_qmc::QmcError::invalid("optimization", other, "'random-cd' or 'lloyd'")),
    });
    let rows = r.map_err(ToPyErr::to_py)?;
    Ok(Array2::from_shape_vec((n, d), rows).map_err(err)?.into_pyarray(py))
}

/// The uniform random shift `Delta ~ U[0, 1)^d` (thesis eq. 5.4) that `gradfree sample lattice
/// --random-shift --seed SEED` applies to the lattice (`z`, `n`): the same seed gives the same
/// points in Python and in the CLI.
#[pyfunction]
fn random_shift(z: Vec<u64>, n: u64, seed: u64) -> PyResult<Vec<f64>> {
    let l = Rank1Lattice::new(n, z).map_err(ToPyErr::to_py)?;
    Ok(l.random_shift(&mut gradfree_core::rng_from_seed(seed)).shift().to_vec())
}

/// Registers this module's classes and functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_function(wrap_pyfunction!(subgroup_vector, m)?)?;
    m.add_function(wrap_pyfunction!(korobov, m)?)?;
    m.add_function(wrap_pyfunction!(min_distance, m)?)?;
    m.add_function(wrap_pyfunction!(lattice_points, m)?)?;
    m.add_function(wrap_pyfunction!(lattice_search, m)?)?;
    m.add_function(wrap_pyfunction!(discrepancy, m)?)?;
    m.add_function(wrap_pyfunction!(optimize_points, m)?)?;
    m.add_function(wrap_pyfunction!(random_shift, m)?)?;
    Ok(())
}
