//! `gradfree._gradfree`: the Rust core behind the `gradfree` Python package. Thin by design
//! (developers' guide, style 8): validation and numerics live in the Rust crates; this layer maps
//! arrays in and out, turns errors into Python exceptions (`ValueError`), and releases the GIL
//! around heavy work.

use gradfree_core::{AskTell, Bounds, Population};
use gradfree_es::{Algorithm, Ipop, IpopParams, RestartMean, StartSpec};
use gradfree_qmc::quality::Norm;
use gradfree_qmc::{Halton, Rank1Lattice, Scramble, Sequence, Sobol};
use numpy::ndarray::Array2;
use numpy::{
    AllowTypeChange, IntoPyArray, PyArray1, PyArray2, PyArrayLike1, PyArrayLike2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::sync::atomic::AtomicBool;

/// One of the classes of `gradfree.errors` (falls back to `ValueError` if the package is absent).
fn typed(kind: &str, message: String) -> PyErr {
    Python::attach(|py| {
        match py.import("gradfree.errors").and_then(|m| m.getattr(kind)).and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from)) {
            Ok(cls) => PyErr::from_type(cls, message),
            Err(_) => PyValueError::new_err(message),
        }
    })
}

/// Runs `f` on a worker thread while this thread, without the GIL, waits and checks for signals
/// every 20 ms: Ctrl-C sets the cancel flag `f` polls and raises `KeyboardInterrupt` once the
/// worker has stopped.
fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    std::thread::scope(|s| {
        let worker = s.spawn(|| f(&cancel));
        loop {
            if worker.is_finished() {
                return worker.join().map_err(|_| err("internal error: the worker thread panicked"));
            }
            py.detach(|| std::thread::sleep(std::time::Duration::from_millis(20)));
            if let Err(e) = py.check_signals() {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                let _ = worker.join();
                return Err(e);
            }
        }
    })
}

/// Ends a run at the next generation once its flag is set (Ctrl-C through [`interruptible`]).
struct StopOnCancel<'a>(&'a AtomicBool);

impl gradfree_core::Observer for StopOnCancel<'_> {
    fn on_generation(&mut self, _record: &gradfree_core::GenerationRecord) -> Result<(), gradfree_core::CoreError> {
        if self.0.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(gradfree_core::CoreError::Observer("interrupted".into()));
        }
        Ok(())
    }
}

/// An invalid parameter, shape or value: `gradfree.errors.InvalidParameterError`.
fn err(e: impl std::fmt::Display) -> PyErr {
    typed("InvalidParameterError", e.to_string())
}

/// A core error, typed by kind: non-finite values, sizes too large, the rest invalid input.
fn core_err(e: gradfree_core::CoreError) -> PyErr {
    use gradfree_core::CoreError as E;
    match e {
        E::NonFinite { .. } => typed("NonFiniteError", e.to_string()),
        E::TooLarge { .. } => typed("TooLargeError", e.to_string()),
        E::Format { .. } => typed("CheckpointError", e.to_string()),
        e => err(e),
    }
}

/// An ES error, typed as [`core_err`].
fn es_err(e: gradfree_es::EsError) -> PyErr {
    match e {
        gradfree_es::EsError::Core(c) => core_err(c),
        e => err(e),
    }
}

/// A QMC error: sizes too large are `TooLargeError`, the rest invalid input.
fn qmc_err(e: gradfree_qmc::QmcError) -> PyErr {
    match e {
        gradfree_qmc::QmcError::TooLarge(m) => typed("TooLargeError", m),
        e => err(e),
    }
}

/// A problem error: sizes too large are `TooLargeError`, the rest invalid input.
fn problem_err(e: gradfree_problems::ProblemError) -> PyErr {
    match e {
        gradfree_problems::ProblemError::Memory(c) => core_err(c),
        e => err(e),
    }
}

/// An evolution strategy of the Rust crate, driven by ask/tell from Python.
#[pyclass(module = "gradfree._gradfree")]
struct Optimizer {
    alg: Algorithm,
    pop: Population,
}

#[pymethods]
impl Optimizer {
    /// `Optimizer(algorithm, x0, sigma0, seed, params_json, restarts=False, max_restarts=None,
    /// restart_bounds=None)`; `algorithm` is a registry name (`ingo`, `cmaes`, ...), `params_json`
    /// a JSON object of the algorithm's parameters. `restarts`: IPOP restarts (`gradfree_es::Ipop`,
    /// population doubled each time) up to `max_restarts` (None: until the caller stops), each from
    /// `x0` or from a uniform draw in `restart_bounds = (lower, upper)`.
    #[new]
    #[pyo3(signature = (algorithm, x0, sigma0, seed, params_json, restarts=false, max_restarts=None, restart_bounds=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        algorithm: &str,
        x0: PyReadonlyArray1<'_, f64>,
        sigma0: f64,
        seed: u64,
        params_json: &str,
        restarts: bool,
        max_restarts: Option<u32>,
        restart_bounds: Option<(Vec<f64>, Vec<f64>)>,
    ) -> PyResult<Self> {
        let params: serde_json::Value = serde_json::from_str(params_json).map_err(err)?;
        let Some(params) = params.as_object().cloned() else {
            return Err(err("params: expected a JSON object"));
        };
        let x0 = x0.as_slice().map_err(err)?.to_vec();
        let d = x0.len();
        let start = StartSpec { x0, sigma0, seed, params };
        let alg = if restarts {
            let restart_mean = match restart_bounds {
                Some((lo, hi)) => RestartMean::Uniform(Bounds::new(lo, hi).map_err(err)?),
                None => RestartMean::Initial,
            };
            Algorithm::Ipop(Box::new(
                Ipop::new(algorithm, start, IpopParams { max_restarts, restart_mean, ..IpopParams::default() }).map_err(es_err)?,
            ))
        } else {
            gradfree_es::build(algorithm, &start).map_err(es_err)?
        };
        Ok(Optimizer { alg, pop: Population::empty(d) })
    }

    /// Restarts made so far (0 without `restarts`).
    #[getter]
    fn restarts(&self) -> u32 {
        match &self.alg {
            Algorithm::Ipop(ipop) => ipop.restarts_done(),
            _ => 0,
        }
    }

    /// The next population, an array of shape `(popsize, d)`.
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (alg, pop) = (&mut self.alg, &mut self.pop);
        py.detach(|| alg.ask_into(pop)).map_err(core_err)?;
        let (n, d) = (pop.len(), pop.dim());
        let a = Array2::from_shape_vec((n, d), pop.as_slice().to_vec()).map_err(err)?;
        Ok(a.into_pyarray(py))
    }

    /// Reports the values of the population last asked for (rows of `x` in the same order).
    fn tell(&mut self, py: Python<'_>, x: PyReadonlyArray2<'_, f64>, values: PyReadonlyArray1<'_, f64>) -> PyResult<()> {
        let shape = x.shape();
        let (n, d) = (shape[0], shape[1]);
        let want = (self.alg.population_size(), self.alg.dim());
        if (n, d) != want {
            return Err(err(format!("X: expected shape {want:?} (popsize, dim), got ({n}, {d})")));
        }
        let rows = x.as_array().iter().copied().collect::<Vec<f64>>();
        if let Some(i) = rows.iter().position(|v| !v.is_finite()) {
            return Err(err(format!("X[{}, {}] = {}: X must be the population returned by ask()", i / d, i % d, rows[i])));
        }
        // The methods update from the points they sampled: X must be exactly those points
        // (after unpickling, the asked population is not stored and is not compared).
        if self.pop.len() == n && self.pop.dim() == d && self.pop.as_slice() != rows.as_slice() {
            let i = rows.iter().zip(self.pop.as_slice()).position(|(a, b)| a != b).unwrap_or(0);
            return Err(err(format!(
                "X row {} differs from the population returned by ask() (X[{}, {}] = {}, asked {}): tell the asked points, in order, and pass clipped or repaired points to the objective only",
                i / d,
                i / d,
                i % d,
                rows[i],
                self.pop.as_slice()[i]
            )));
        }
        let pop = Population::from_row_major(n, d, rows).map_err(err)?;
        let vals = values.as_slice().map_err(err)?.to_vec();
        let alg = &mut self.alg;
        py.detach(|| alg.tell(&pop, &vals)).map_err(core_err)
    }

    /// Current mean of the search distribution.
    #[getter]
    fn mean<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.alg.mean())
    }

    /// Current overall scale (method-specific, comparable to sigma).
    #[getter]
    fn scale(&self) -> f64 {
        self.alg.scale()
    }

    #[getter]
    fn popsize(&self) -> usize {
        self.alg.population_size()
    }

    #[getter]
    fn dim(&self) -> usize {
        self.alg.dim()
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.alg.name()
    }

    /// Events since the last call (kind, message), e.g. covariance backtracking or restarts.
    fn take_events(&mut self) -> Vec<(String, String)> {
        self.alg.take_events().into_iter().map(|e| (e.kind, e.message)).collect()
    }

    /// The full optimizer state as JSON (pickling, checkpoints).
    fn state_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.alg).map_err(err)
    }

    /// Rebuilds an optimizer from [`Optimizer::state_json`].
    #[classmethod]
    fn from_state_json(_cls: &Bound<'_, PyType>, state: &str) -> PyResult<Self> {
        use gradfree_core::StateCheck;
        let bad = |m: String| typed("CheckpointError", format!("not a valid optimizer state: {m}"));
        let alg: Algorithm = serde_json::from_str(state).map_err(|e| bad(e.to_string()))?;
        alg.check_state().map_err(bad)?;
        let d = alg.dim();
        Ok(Optimizer { alg, pop: Population::empty(d) })
    }

    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        let py = slf.py();
        let state = slf.borrow().state_json()?;
        let f = py.get_type::<Optimizer>().getattr("from_state_json")?;
        Ok((f.unbind(), (state,)))
    }
}

/// A benchmark function of `gradfree_problems` (thesis Tables 3.1 and 4.4, MiNES Table 1, ...),
/// callable on one point or evaluated on the rows of a matrix.
#[pyclass(module = "gradfree._gradfree", frozen)]
struct Problem {
    p: Box<dyn gradfree_problems::Problem>,
}

#[pymethods]
impl Problem {
    /// `Problem(name, dim, seed=0)`; the seed fixes random instances (rotations, data splits).
    #[new]
    #[pyo3(signature = (name, dim, seed=0))]
    fn new(name: &str, dim: usize, seed: u64) -> PyResult<Self> {
        Ok(Problem { p: gradfree_problems::build(name, dim, seed).map_err(problem_err)? })
    }

    #[getter]
    fn name(&self) -> String {
        self.p.name().to_string()
    }

    #[getter]
    fn dim(&self) -> usize {
        self.p.dimension()
    }

    /// The global minimum, if known.
    #[getter]
    fn minimum(&self) -> Option<f64> {
        self.p.minimum()
    }

    /// For discrete problems, the number of categories `K` of every variable (2: binary).
    #[getter]
    fn categories(&self) -> Option<usize> {
        self.p.categories()
    }

    /// `f(x)` for one point of length `dim` (any numeric array, e.g. the integers of a discrete ES).
    fn __call__(&self, x: PyArrayLike1<'_, f64, AllowTypeChange>) -> PyResult<f64> {
        let x = x.as_slice().map_err(err)?;
        if x.len() != self.p.dimension() {
            return Err(err(format!("x: expected shape ({},), got ({},)", self.p.dimension(), x.len())));
        }
        Ok(self.p.eval(x))
    }

    /// `f` on each row of `X` (shape `(n, dim)`, any numeric dtype).
    fn evaluate<'py>(&self, py: Python<'py>, x: PyArrayLike2<'_, f64, AllowTypeChange>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let d = self.p.dimension();
        if x.shape()[1] != d {
            return Err(err(format!("X: expected shape (n, {d}), got {:?}", x.shape())));
        }
        let rows: Vec<f64> = x.as_array().iter().copied().collect();
        let p = &self.p;
        let out: Vec<f64> = py.detach(|| rows.chunks_exact(d).map(|r| p.eval(r)).collect());
        Ok(PyArray1::from_vec(py, out))
    }
}

/// Runs `algorithm` on the built-in `problem` entirely in Rust (the `gradfree optimize` driver,
/// sequential evaluation) for `max_evals` evaluations; returns `(best_x, best_f, evaluations,
/// generations, mean)`. The reference the Python ask/tell loop is tested against.
#[pyfunction]
#[pyo3(signature = (algorithm, problem, x0, sigma0, seed, max_evals, params_json="{}"))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn run_builtin<'py>(
    py: Python<'py>,
    algorithm: &str,
    problem: &Problem,
    x0: PyReadonlyArray1<'_, f64>,
    sigma0: f64,
    seed: u64,
    max_evals: u64,
    params_json: &str,
) -> PyResult<(Bound<'py, PyArray1<f64>>, f64, u64, u64, Bound<'py, PyArray1<f64>>)> {
    let opt = Optimizer::new(algorithm, x0, sigma0, seed, params_json, false, None, None)?;
    let mut opts = gradfree_core::DriverOptions::new(gradfree_core::StopRules::max_evaluations(max_evals));
    opts.parallel = false;
    let p = &problem.p;
    let (res, mean) = interruptible(py, |cancel| -> Result<_, gradfree_core::CoreError> {
        let mut driver = gradfree_core::Driver::new(opt.alg, opts)?;
        let res = driver.run(&p.as_ref(), &mut [&mut StopOnCancel(cancel)])?;
        Ok((res, driver.into_optimizer().mean().to_vec()))
    })?
    .map_err(core_err)?;
    Ok((PyArray1::from_vec(py, res.best_x), res.best_f, res.evaluations, res.generations, PyArray1::from_vec(py, mean)))
}

/// A QMC engine with scipy.stats.qmc's interface (`random`, `reset`, `fast_forward`).
#[pyclass(module = "gradfree._gradfree")]
struct Engine {
    seq: Box<dyn Sequence + Send + Sync>,
    /// Number of points the sequence has (2^32 for Sobol), checked before allocating.
    limit: u64,
}

#[pymethods]
impl Engine {
    /// `Engine(kind, d, seed, scramble)`: kind `sobol` (scramble `none|lms-shift|owen`), `halton`
    /// (scramble `none|permutation`).
    #[new]
    fn new(kind: &str, d: usize, seed: u64, scramble: &str) -> PyResult<Self> {
        let seq: Box<dyn Sequence + Send + Sync> = match (kind, scramble) {
            ("sobol", "none") => Box::new(Sobol::new(d, Scramble::None).map_err(qmc_err)?),
            ("sobol", "lms-shift") => Box::new(Sobol::new(d, Scramble::LmsShift { seed }).map_err(qmc_err)?),
            ("sobol", "owen") => Box::new(Sobol::new(d, Scramble::Owen { seed }).map_err(qmc_err)?),
            ("halton", "none") => Box::new(Halton::new(d, None).map_err(qmc_err)?),
            ("halton", "permutation") => Box::new(Halton::new(d, Some(seed)).map_err(qmc_err)?),
            _ => return Err(err(format!("engine {kind} with scramble {scramble}: unknown combination"))),
        };
        let limit = if kind == "sobol" { 1 << 32 } else { u64::MAX };
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
        let seq = &mut self.seq;
        let v = py.detach(|| seq.sample(n)).map_err(qmc_err)?;
        Ok(Array2::from_shape_vec((n, d), v).map_err(err)?.into_pyarray(py))
    }

    fn reset(&mut self) {
        self.seq.reset();
    }

    fn fast_forward(&mut self, n: u64) -> PyResult<()> {
        self.seq.fast_forward(n).map_err(qmc_err)
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
    gradfree_qmc::lattice::subgroup_vector(d, n).map_err(qmc_err)
}

/// Exhaustive Korobov search: `(a, z, min_distance)`.
#[pyfunction]
#[pyo3(signature = (d, n, metric = "l2"))]
fn korobov(py: Python<'_>, d: usize, n: u64, metric: &str) -> PyResult<(u64, Vec<u64>, f64)> {
    let norm = parse_norm(metric)?;
    let r = interruptible(py, |cancel| gradfree_qmc::korobov_search_cancellable(d, n, norm, &|_, _| {}, cancel))?.map_err(qmc_err)?;
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
    let l = Rank1Lattice::new(n, z).map_err(qmc_err)?;
    interruptible(py, |cancel| gradfree_qmc::quality::min_distance_cancellable(&l, norm, cancel))?.map_err(qmc_err)
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
    let mut l = Rank1Lattice::new(n, z).map_err(qmc_err)?;
    if let Some(s) = shift {
        l = l.with_shift(s).map_err(qmc_err)?;
    }
    let d = l.dim();
    let len = count.checked_mul(d).ok_or_else(|| err(format!("count = {count} x d = {d} overflows")))?;
    gradfree_qmc::QmcError::check_memory(&format!("{count} lattice points in dimension {d}"), len as u128).map_err(qmc_err)?;
    let mut out = vec![0.0; len];
    py.detach(|| l.fill_par(start, count, &mut out));
    Ok(Array2::from_shape_vec((count, d), out).map_err(err)?.into_pyarray(py))
}

/// A lattice from the thesis searches that maximize the l2 packing distance (sec. 4.6):
/// `method = "alg10"` (Algorithm 10 over `primes` primes) or `"alg11"` (Algorithm 10's `top`
/// best vectors refined by `sweeps` sweeps of successive coordinate search). Returns `(z,
/// min_distance)`.
#[pyfunction]
#[pyo3(signature = (d, n, method = "alg10", primes = 50, sweeps = 3, top = 64))]
fn lattice_search(py: Python<'_>, d: usize, n: u64, method: &str, primes: usize, sweeps: usize, top: usize) -> PyResult<(Vec<u64>, f64)> {
    use gradfree_qmc::lattice::search::{alg10, alg11};
    let r = match method {
        "alg10" => py.detach(|| alg10(d, n, primes)),
        "alg11" => py.detach(|| alg11(d, n, primes, sweeps, top)),
        _ => return Err(err(format!("method {method:?}: expected 'alg10' or 'alg11'"))),
    }
    .map_err(err)?;
    Ok((r.z, r.min_distance))
}

/// Squared L2-type discrepancy of the rows of `points` (shape `(n, d)`, in `[0, 1]`), as
/// scipy.stats.qmc.discrepancy: `method = "CD"` (centered) or `"WD"` (wrap-around).
#[pyfunction]
#[pyo3(signature = (points, method = "CD"))]
fn discrepancy(py: Python<'_>, points: PyReadonlyArray2<'_, f64>, method: &str) -> PyResult<f64> {
    let d = points.shape()[1];
    let rows: Vec<f64> = points.as_array().iter().copied().collect();
    let r = match method {
        "CD" => interruptible(py, |cancel| gradfree_qmc::quality::centered_l2_cancellable(&rows, d, cancel))?,
        "WD" => interruptible(py, |cancel| gradfree_qmc::quality::wrap_around_l2_cancellable(&rows, d, cancel))?,
        _ => return Err(err(format!("method {method:?}: expected 'CD' or 'WD'"))),
    };
    r.map_err(qmc_err)
}

/// Registered algorithms: `(name, source, summary)`.
#[pyfunction]
fn algorithms() -> Vec<(&'static str, &'static str, &'static str)> {
    gradfree_es::list().iter().map(|s| (s.name, s.source, s.summary)).collect()
}

#[pymodule]
fn _gradfree(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Optimizer>()?;
    m.add_class::<Engine>()?;
    m.add_class::<Problem>()?;
    m.add_function(wrap_pyfunction!(run_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(subgroup_vector, m)?)?;
    m.add_function(wrap_pyfunction!(korobov, m)?)?;
    m.add_function(wrap_pyfunction!(min_distance, m)?)?;
    m.add_function(wrap_pyfunction!(lattice_points, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(lattice_search, m)?)?;
    m.add_function(wrap_pyfunction!(discrepancy, m)?)?;
    Ok(())
}
