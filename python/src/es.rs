//! ES bindings: [`EsRun`], one optimization run whose values come from the Python caller (the
//! Rust [`Run`] owns bookkeeping, stop rules and boundary repair, so the Python loop stops where
//! the Rust driver stops), the benchmark problems, and the Rust-driven reference run.

use gradfree_core::{
    AskTell, Bounds, BoundsHandling, CoreError, DriverOptions, DriverState, GenerationRecord, Observer, Population, Run, StateCheck,
    StopReason, StopRules,
};
use gradfree_es::{Algorithm, EsError, EsSpec, Ipop};
use numpy::ndarray::Array2;
use numpy::{AllowTypeChange, IntoPyArray, PyArray1, PyArray2, PyArrayLike1, PyArrayLike2, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyType;
use serde::{Deserialize, Serialize};

use crate::errors::{Kind, ToPyErr, new_err};
use crate::{StopOnCancel, err, interruptible};

/// Collects the optimizer's events of every generation (the [`Run`] hands them to observers).
struct Events<'a>(&'a mut Vec<(String, String)>);

impl Observer for Events<'_> {
    fn on_generation(&mut self, record: &GenerationRecord) -> Result<(), CoreError> {
        self.0.extend(record.events.iter().map(|e| (e.kind.to_string(), e.message.clone())));
        Ok(())
    }
}

/// What a pickled run stores: the optimizer, the run state, its rules and a pending population.
#[derive(Serialize, Deserialize)]
struct Saved {
    optimizer: Algorithm,
    driver: DriverState,
    #[serde(flatten)]
    rules: RunRules,
}

/// The rules of a run and its pending population: what a checkpoint keeps in its metadata besides
/// the optimizer and the driver state.
#[derive(Serialize, Deserialize)]
struct RunRules {
    stop: StopRules,
    bounds: Option<(Bounds, BoundsHandling)>,
    pending: Option<Vec<f64>>,
}

/// A checkpoint's metadata for a run saved from Python: its rules and the caller's own metadata.
#[derive(Serialize, Deserialize)]
struct CheckpointMeta {
    run: RunRules,
    caller: serde_json::Value,
}

/// The algorithm parameters of a JSON object.
fn params_of(params_json: &str) -> PyResult<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(params_json).map_err(err)? {
        serde_json::Value::Object(m) => Ok(m),
        _ => Err(err("params: expected a JSON object")),
    }
}

/// One run of an evolution strategy of the Rust crate, driven by ask/tell from Python: `ask`
/// gives the points to evaluate (repaired into `bounds` if given), `tell` takes their values; the
/// stop rules, counters and best point are those of the Rust driver ([`gradfree_core::Run`]).
#[pyclass(module = "gradfree._gradfree", name = "Run")]
struct EsRun {
    run: Run<Algorithm>,
    events: Vec<(String, String)>,
}

fn stop_key(r: StopReason) -> &'static str {
    match r {
        StopReason::Target => "target",
        StopReason::MaxEvaluations => "max_evals",
        StopReason::MaxGenerations => "max_gens",
        StopReason::TolF => "tol_fun",
        StopReason::TolX => "tol_x",
        StopReason::TolFlat => "tol_flat",
        StopReason::TolStagnation => "tol_stagnation",
        StopReason::TolCondition => "tol_condition",
        StopReason::WallTime => "max_seconds",
        StopReason::Diverged => "diverged",
        StopReason::NumericalFailure => "numerical_failure",
        StopReason::RestartsSettled => "restarts_settled",
    }
}

impl EsRun {
    /// The rules and the pending population of this run.
    fn rules(&self) -> RunRules {
        RunRules {
            stop: self.run.options().stop.clone(),
            bounds: self.run.options().bounds.clone(),
            pending: self.run.pending_raw().map(|p| p.as_slice().to_vec()),
        }
    }

    /// A run continued from its parts, checked (the optimizer's own invariants are the caller's).
    fn restore(optimizer: Algorithm, driver: DriverState, rules: RunRules) -> Result<Self, String> {
        driver.validate()?;
        let stopped = driver.stopped;
        let mut options = DriverOptions::new(rules.stop);
        options.parallel = false;
        options.bounds = rules.bounds;
        let (n, d) = (optimizer.population_size(), optimizer.dim());
        let mut run = Run::resume(optimizer, options, driver).map_err(|e| e.to_string())?;
        run.restore_stopped(stopped);
        if let Some(p) = rules.pending {
            let pop = Population::from_row_major(n, d, p).map_err(|e| e.to_string())?;
            run.set_pending(pop).map_err(|e| e.to_string())?;
        }
        Ok(EsRun { run, events: Vec::new() })
    }

    /// Applies `set` to the restart wrapper, if the run has restarts; returns whether it has.
    fn set_restart_rule(&mut self, set: impl FnOnce(&mut Ipop<Algorithm>) -> Result<(), EsError>) -> PyResult<bool> {
        match self.run.optimizer_mut() {
            Algorithm::Ipop(ipop) => {
                set(ipop).map_err(ToPyErr::to_py)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[pymethods]
impl EsRun {
    /// `Run.from_spec(spec_json, x0)`: the run of a [`gradfree_es::EsSpec`] given as JSON (its
    /// algorithm, `sigma0`, seed, algorithm parameters, restarts, stop rules as given, bounds with
    /// their handling by name; fields left out take the spec's defaults, unknown ones are errors),
    /// started at `x0` (passed as an array, not through the document). Built by the spec.
    #[staticmethod]
    fn from_spec(spec_json: &str, x0: PyReadonlyArray1<'_, f64>) -> PyResult<Self> {
        let mut spec: EsSpec = serde_json::from_str(spec_json).map_err(|e| err(format!("spec: {e}")))?;
        spec.x0 = x0.as_slice().map_err(err)?.to_vec();
        let (alg, options) = spec.build(None).map_err(ToPyErr::to_py)?;
        Ok(EsRun { run: Run::new(alg, options).map_err(ToPyErr::to_py)?, events: Vec::new() })
    }

    /// The next population to evaluate, shape `(popsize, d)`. Raises once a stop rule has fired.
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let run = &mut self.run;
        let points = py.detach(|| run.ask().map(|p| p.map(|p| (p.len(), p.dim(), p.as_slice().to_vec())))).map_err(ToPyErr::to_py)?;
        let Some((n, d, data)) = points else {
            let why = self.run.stopped().map_or("stopped".to_string(), |r| r.to_string());
            return Err(err(format!("ask: the run has stopped ({why}); check stop() before asking")));
        };
        Ok(Array2::from_shape_vec((n, d), data).map_err(err)?.into_pyarray(py))
    }

    /// Reports `values[i] = f(X[i])` for the points `X` the last `ask` returned (same order).
    /// Returns the stop rule that fired, if any. A rejected call changes nothing.
    fn tell(
        &mut self,
        py: Python<'_>,
        x: PyArrayLike2<'_, f64, AllowTypeChange>,
        values: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Option<String>> {
        let Some(asked) = self.run.pending() else {
            return Err(err("tell: no population is pending; call ask() first"));
        };
        let (n, d) = (asked.len(), asked.dim());
        let shape = x.shape();
        if (shape[0], shape[1]) != (n, d) {
            return Err(err(format!("X: expected shape ({n}, {d}) (popsize, dim), got ({}, {})", shape[0], shape[1])));
        }
        let rows: Vec<f64> = x.as_array().iter().copied().collect();
        if let Some(i) = rows.iter().position(|v| !v.is_finite()) {
            return Err(err(format!("X[{}, {}] = {}: X must be the population returned by ask()", i / d, i % d, rows[i])));
        }
        let points = Population::from_row_major(n, d, rows).map_err(err)?;
        let vals = values.as_slice().map_err(err)?.to_vec();
        let (run, events) = (&mut self.run, &mut self.events);
        let r = py.detach(|| run.tell_points(&points, &vals, &mut [&mut Events(events)])).map_err(ToPyErr::to_py)?;
        Ok(r.map(|r| stop_key(r).to_string()))
    }

    /// What the stop reason means and whether it is a success (SciPy's `message`, `success`;
    /// with a target, only reaching it);
    /// `None` while the run goes on.
    fn stop_message(&self) -> Option<(&'static str, bool)> {
        self.run.stopped().map(|r| (r.describe(), r.is_success_under(&self.run.options().stop)))
    }

    /// The stop rules in force, as JSON (the fields of `gradfree_core::StopRules`).
    fn stop_rules_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.run.options().stop).map_err(err)
    }

    /// The stop rule that has fired (judging the budgets and the target now), as pycma's key
    /// (`max_evals`, `max_gens`, `target`, `tol_fun`, `tol_x`, `tol_flat`, `tol_stagnation`,
    /// `tol_condition`, `max_seconds`, `diverged`, `numerical_failure`, `restarts_settled`).
    fn stop(&mut self) -> Option<&'static str> {
        self.run.should_stop().map(stop_key)
    }

    /// Current mean of the search distribution.
    #[getter]
    fn mean<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.run.optimizer().mean())
    }

    /// The optimizer's step length ([`AskTell::scale`]).
    #[getter]
    fn scale(&self) -> f64 {
        self.run.optimizer().scale()
    }

    /// Standard deviation of every coordinate of the search distribution, `sqrt(Var x_i)`
    /// (CMA-ES: `sigma sqrt(C_ii)`, pycma's `stds`; [`AskTell::spread_into`]), or `None` for
    /// methods that do not keep a Gaussian spread in that form.
    #[getter]
    fn stds<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let mut out = Vec::new();
        self.run.optimizer().spread_into(&mut out).then(|| PyArray1::from_vec(py, out))
    }

    /// Condition number of the search distribution's covariance (largest over smallest
    /// eigenvalue; [`AskTell::condition`]), `None` where the method does not keep it.
    #[getter]
    fn condition(&self) -> Option<f64> {
        self.run.optimizer().condition()
    }

    #[getter]
    fn popsize(&self) -> usize {
        self.run.optimizer().population_size()
    }

    #[getter]
    fn dim(&self) -> usize {
        self.run.optimizer().dim()
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.run.optimizer().name()
    }

    /// Sets the restarts' settle rule (`settle_runs` of the constructor; `None`: off). Returns
    /// whether the run has restarts (without them there is nothing to settle and nothing is set).
    #[pyo3(signature = (settle_runs))]
    fn set_settle_runs(&mut self, settle_runs: Option<u32>) -> PyResult<bool> {
        self.set_restart_rule(|ipop| ipop.set_settle_runs(settle_runs))
    }

    /// Sets the restarts' worse-optimum rule (`gradfree_es::IpopParams::worse_runs`: a ratio in
    /// (0, 1); `None`: off). Returns whether the run has restarts (without them nothing is set).
    #[pyo3(signature = (worse_runs))]
    fn set_worse_runs(&mut self, worse_runs: Option<f64>) -> PyResult<bool> {
        self.set_restart_rule(|ipop| ipop.set_worse_runs(worse_runs))
    }

    /// Restarts made so far (0 without `restarts`).
    #[getter]
    fn restarts(&self) -> u32 {
        match self.run.optimizer() {
            Algorithm::Ipop(ipop) => ipop.restarts_done(),
            _ => 0,
        }
    }

    #[getter]
    fn evaluations(&self) -> u64 {
        self.run.evaluations()
    }

    #[getter]
    fn generations(&self) -> u64 {
        self.run.generations()
    }

    /// Best value evaluated (`inf` before the first finite one).
    #[getter]
    fn best_f(&self) -> f64 {
        self.run.result().best_f
    }

    /// Best point evaluated (feasible if bounded), `None` before the first finite value.
    #[getter]
    fn best_x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let s = self.run.state();
        (!s.best_x.is_empty()).then(|| PyArray1::from_vec(py, s.best_x))
    }

    /// Events since the last call (kind, message), e.g. covariance backtracking or restarts.
    fn take_events(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.events)
    }

    /// The full run state as JSON (pickling).
    fn state_json(&self) -> PyResult<String> {
        let saved = Saved { optimizer: self.run.optimizer().clone(), driver: self.run.state(), rules: self.rules() };
        serde_json::to_string(&saved).map_err(err)
    }

    /// Rebuilds a run from [`EsRun::state_json`], validating every part.
    #[classmethod]
    fn from_state_json(_cls: &Bound<'_, PyType>, state: &str) -> PyResult<Self> {
        let bad = |m: String| new_err(Kind::Checkpoint, format!("not a valid run state: {m}"));
        let value: serde_json::Value = serde_json::from_str(state).map_err(|e| bad(e.to_string()))?;
        if let Some(at) = gradfree_core::checkpoint::zero_generator(&value, String::new()) {
            return Err(bad(format!("the generator state at {at} is all zeros (it would draw 0 forever)")));
        }
        let saved: Saved = gradfree_core::checkpoint::from_json(value).map_err(bad)?;
        saved.optimizer.check_state().map_err(bad)?;
        Self::restore(saved.optimizer, saved.driver, saved.rules).map_err(bad)
    }

    /// Writes the run to `path` as a gradfree checkpoint (the format of `gradfree optimize
    /// --checkpoint`: atomic, checksummed; [`gradfree_core::save_checkpoint`]): the optimizer and
    /// the run state, with the run's rules and `meta_json` (the caller's own state, any JSON) as
    /// its metadata. Floats round-trip exactly, so a loaded run continues bit for bit.
    fn save_checkpoint(&self, path: std::path::PathBuf, meta_json: &str) -> PyResult<()> {
        let caller: serde_json::Value = serde_json::from_str(meta_json).map_err(|e| err(format!("meta: not JSON ({e})")))?;
        let meta = serde_json::to_value(CheckpointMeta { run: self.rules(), caller }).map_err(err)?;
        gradfree_core::save_checkpoint(&path, &meta, self.run.optimizer(), &self.run.state()).map_err(ToPyErr::to_py)
    }

    /// A run saved by [`EsRun::save_checkpoint`] and the caller's metadata (JSON): the file's
    /// format, checksum and every invariant are checked first (`CheckpointError` names what is
    /// wrong; nothing in a corrupt file can crash).
    #[classmethod]
    fn load_checkpoint(_cls: &Bound<'_, PyType>, path: std::path::PathBuf) -> PyResult<(Self, String)> {
        let ck = gradfree_core::load_checkpoint::<Algorithm>(&path).map_err(ToPyErr::to_py)?;
        let bad = |m: String| new_err(Kind::Checkpoint, format!("{}: not a checkpoint of a Python run: {m}", path.display()));
        let meta: CheckpointMeta = gradfree_core::checkpoint::from_json(ck.meta).map_err(bad)?;
        let run = Self::restore(ck.optimizer, ck.driver, meta.run).map_err(bad)?;
        Ok((run, meta.caller.to_string()))
    }

    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        let py = slf.py();
        let state = slf.borrow().state_json()?;
        let f = py.get_type::<EsRun>().getattr("from_state_json")?;
        Ok((f.unbind(), (state,)))
    }
}

/// Runs `algorithm` on the built-in `problem` entirely in Rust (the `gradfree optimize` driver,
/// sequential evaluation) under the stop rules `stop_json` (default: `max_evals` evaluations);
/// returns `(best_x, best_f, evaluations, generations, mean, stop_reason)`. The reference the
/// Python ask/tell loop is tested against.
#[pyfunction]
#[pyo3(signature = (algorithm, problem, x0, sigma0, seed, max_evals, params_json="{}", stop_json=None))]
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
    stop_json: Option<&str>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, f64, u64, u64, Bound<'py, PyArray1<f64>>, Option<&'static str>)> {
    let spec = EsSpec {
        algorithm: algorithm.to_string(),
        x0: x0.as_slice().map_err(err)?.to_vec(),
        sigma0,
        seed,
        params: params_of(params_json)?,
        parallel: false,
        ..EsSpec::default()
    };
    let alg = spec.optimizer().map_err(ToPyErr::to_py)?;
    let stop = match stop_json {
        Some(s) => serde_json::from_str(s).map_err(|e| err(format!("stop rules: {e}")))?,
        None => StopRules::max_evaluations(max_evals),
    };
    let opts = spec.driver_options(stop);
    let p = &problem.p;
    let (res, mean) = interruptible(py, |cancel| -> Result<_, CoreError> {
        let mut driver = gradfree_core::Driver::new(alg, opts)?;
        let res = driver.run(&p.as_ref(), &mut [&mut StopOnCancel(cancel)])?;
        Ok((res, driver.into_optimizer().mean().to_vec()))
    })?
    .map_err(ToPyErr::to_py)?;
    let reason = res.stop_reason.map(stop_key);
    Ok((PyArray1::from_vec(py, res.best_x), res.best_f, res.evaluations, res.generations, PyArray1::from_vec(py, mean), reason))
}

/// `bound_transform(x, lower, upper)`: the rows of `x` mapped into the box by pycma's
/// `BoundTransform`, coordinate by coordinate ([`gradfree_core::transform_coordinate`]; a side may
/// be infinite: one-sided bounds and none). The pycma layer's repair of the points it hands out.
#[pyfunction]
fn bound_transform<'py>(
    py: Python<'py>,
    x: PyArrayLike2<'py, f64, AllowTypeChange>,
    lower: PyReadonlyArray1<'_, f64>,
    upper: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (lower, upper) = (lower.as_array(), upper.as_array());
    let d = x.shape()[1];
    if lower.len() != d || upper.len() != d {
        return Err(err(format!(
            "bounds: lower and upper have {} and {} entries; expected {d}, one per coordinate",
            lower.len(),
            upper.len()
        )));
    }
    if let Some(i) = (0..d).find(|&i| lower[i].partial_cmp(&upper[i]) != Some(std::cmp::Ordering::Less)) {
        return Err(err(format!("bounds: [{}, {}] in coordinate {i}; expected lower < upper", lower[i], upper[i])));
    }
    let mut out = x.as_array().to_owned();
    for mut row in out.rows_mut() {
        for (i, v) in row.iter_mut().enumerate() {
            *v = gradfree_core::transform_coordinate(*v, lower[i], upper[i]);
        }
    }
    Ok(out.into_pyarray(py))
}

/// `cma_weights(popsize)`: the positive recombination weights of CMA-ES's mean update
/// ([`gradfree_es::gaussian::positive_weights`], Hansen 2016 eq. 49), for pycma's header line.
#[pyfunction]
fn cma_weights(py: Python<'_>, popsize: usize) -> PyResult<Bound<'_, PyArray1<f64>>> {
    if popsize < 2 {
        return Err(err(format!("popsize = {popsize}; expected at least 2")));
    }
    Ok(PyArray1::from_vec(py, gradfree_es::gaussian::positive_weights(popsize)))
}

/// Registers this module's classes and functions.
/// `stop_keywords()`: the stop rules' keywords as JSON (name, kind, default, command-line and
/// Python names, doc; [`gradfree_core::StopSpec::keywords`]).
#[pyfunction]
fn stop_keywords() -> PyResult<String> {
    serde_json::to_string(&gradfree_core::StopSpec::keywords()).map_err(err)
}

/// `restart_keywords()`: the restart settings' keywords as JSON (name, kind, default,
/// command-line and Python names, doc; [`gradfree_es::RestartSpec::keywords`]).
#[pyfunction]
fn restart_keywords() -> PyResult<String> {
    serde_json::to_string(&gradfree_es::RestartSpec::keywords()).map_err(err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EsRun>()?;
    m.add_function(wrap_pyfunction!(stop_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(restart_keywords, m)?)?;
    m.add_class::<Problem>()?;
    m.add_function(wrap_pyfunction!(run_builtin, m)?)?;
    m.add_function(wrap_pyfunction!(bound_transform, m)?)?;
    m.add_function(wrap_pyfunction!(cma_weights, m)?)?;
    Ok(())
}

/// A benchmark function of gradfree (`gradfree list` names them; Lyu's thesis Tables 3.1 and 4.4,
/// Ye & Zhang's MiNES Table 1, ...), callable on one point or evaluated on the rows of a matrix.
///
/// Parameters
/// ----------
/// name : str
///     The problem, e.g. ``"ellipsoid"``, ``"rosenbrock"``, ``"onemax"``.
/// dim : int
///     Dimension.
/// seed : int, default 0
///     Fixes random instances (rotations, data splits).
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
        Ok(Problem { p: gradfree_problems::build(name, dim, seed).map_err(ToPyErr::to_py)? })
    }

    /// The problem's registry name.
    #[getter]
    fn name(&self) -> String {
        self.p.name().to_string()
    }

    /// Dimension.
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
