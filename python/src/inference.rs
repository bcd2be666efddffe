//! Statistical-inference bindings: chains of `gradfree_inference` on numpy arrays, on a Python
//! iterator of batches (streamed), or for a model whose per-sample gradients come from a Python
//! callable; the result ([`InferenceFit`]) hands its arrays to `gradfree.inference.InferenceResults`.

use std::sync::{Arc, Mutex};

/// Where a Python exception raised inside a run waits to be re-raised.
type Failure = Arc<Mutex<Option<PyErr>>>;

fn keep(slot: &Failure, e: PyErr) {
    slot.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
}

use gradfree_data::{Chunk, DataError, RowSource};
use gradfree_inference::model::Designed;
use gradfree_inference::{
    Data, Fit, InferenceError, InferenceSpec, Method, Model, ModelSpec, Runner, WarningKind, run_stream, run_stream_mle,
};
use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::{Kind, ToPyErr, new_err};
use crate::{err, interruptible};

/// A model whose per-sample gradients come from `grad(theta, X, y) -> (n, p)`, called once per
/// mini-batch. A Python exception is kept and the batch's gradients are NaN, which stops the run;
/// the exception is then raised.
struct PyModel {
    grad: Py<PyAny>,
    p: usize,
    failure: Failure,
}

impl PyModel {
    fn call(&self, theta: &[f64], data: &Data, idx: &[usize], out: &mut [f64]) -> PyResult<()> {
        Python::attach(|py| {
            let d = data.dim();
            let mut x = Vec::with_capacity(idx.len() * d);
            idx.iter().for_each(|&i| x.extend_from_slice(data.row(i)));
            let x = Array2::from_shape_vec((idx.len(), d), x).map_err(err)?.into_pyarray(py);
            let y = if data.has_responses() {
                PyArray1::from_vec(py, idx.iter().map(|&i| data.response(i)).collect()).into_any()
            } else {
                py.None().into_bound(py)
            };
            let theta = PyArray1::from_slice(py, theta);
            let g = self.grad.bind(py).call1((theta, x, y))?;
            let np = py.import("numpy")?;
            let shown = g.repr().map(|r| r.to_string()).unwrap_or_default();
            let g = np.call_method1("asarray", (g, "float64")).map_err(|e| {
                err(format!(
                    "grad must return a 2-d array of numbers of shape (n, p); it returned {} ({e})",
                    shown.chars().take(80).collect::<String>()
                ))
            })?;
            let g: PyReadonlyArray2<'_, f64> = g.extract().map_err(|_| err("grad must return a 2-d array of shape (n, p)"))?;
            if g.shape() != [idx.len(), self.p] {
                return Err(err(format!(
                    "grad returned shape {:?}; expected ({}, {}): one gradient per row of X",
                    g.shape(),
                    idx.len(),
                    self.p
                )));
            }
            out.copy_from_slice(g.as_array().as_standard_layout().as_slice().unwrap_or_default());
            Ok(())
        })
    }
}

impl Model for PyModel {
    fn name(&self) -> &'static str {
        "python"
    }
    fn dim(&self) -> usize {
        self.p
    }
    fn size_param(&self) -> (&'static str, String) {
        ("n_params", self.p.to_string())
    }
    fn check(&self, _data: &Data) -> Result<(), InferenceError> {
        Ok(())
    }
    fn loss(&self, _theta: &[f64], _data: &Data, _i: usize) -> f64 {
        f64::NAN
    }
    fn grad(&self, theta: &[f64], data: &Data, i: usize, out: &mut [f64]) {
        self.batch_grad(theta, data, &[i], out);
    }
    fn batch_grad(&self, theta: &[f64], data: &Data, idx: &[usize], out: &mut [f64]) {
        if let Err(e) = self.call(theta, data, idx, out) {
            out.iter_mut().for_each(|v| *v = f64::NAN);
            keep(&self.failure, e);
        }
    }
}

/// The model: a named one from its JSON `ModelSpec`, or a Python gradient with `p` parameters.
fn model_of(
    model_json: &str,
    grad: Option<Py<PyAny>>,
    p: Option<usize>,
    d: usize,
    failure: &Failure,
) -> PyResult<(Box<dyn Model>, ModelSpec)> {
    let spec: ModelSpec = crate::options(model_json, "model options")?;
    match grad {
        Some(grad) => {
            let p = p.filter(|p| *p > 0).ok_or_else(|| err("invalid n_params: a model given by its gradient needs n_params >= 1"))?;
            // Each parameter has a name and at least a few values per chain: refuse before they exist.
            gradfree_core::memory::check_param_bytes("n_params", p, &format!("a model of {p} parameters"), p as u128 * 64)
                .map_err(ToPyErr::to_py)?;
            Ok((Box::new(PyModel { grad, p, failure: failure.clone() }), spec))
        }
        None => Ok((spec.build(d).map_err(ToPyErr::to_py)?, spec)),
    }
}

/// The Python exception raised inside the run (by a user's gradient or batches), if any, else `e`.
fn raised(failure: &Failure, e: InferenceError) -> PyErr {
    failure.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| e.to_py())
}

fn spec_of(spec_json: &str) -> PyResult<InferenceSpec> {
    crate::options(spec_json, "inference options")
}

/// What a run estimated, with its parameter names.
#[pyclass(module = "gradfree._gradfree", frozen)]
pub struct InferenceFit {
    fit: Fit,
    names: Vec<String>,
}

#[pymethods]
impl InferenceFit {
    /// The estimates, shape `(p,)`.
    fn params<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.fit.params)
    }
    /// Their standard errors (random scaling: the scale of its interval), shape `(p,)`; refused
    /// for the process methods ([`Fit::bse`]).
    fn bse<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_slice(py, self.fit.bse().map_err(ToPyErr::to_py)?))
    }
    /// The process methods' chain spread, shape `(p,)` ([`Fit::process_sd`]).
    fn process_sd<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_slice(py, self.fit.process_sd().map_err(ToPyErr::to_py)?))
    }
    /// `params / bse`, shape `(p,)`.
    fn tvalues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(py, self.fit.tvalues().map_err(ToPyErr::to_py)?))
    }
    /// Two-sided p-values, shape `(p,)`.
    fn pvalues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(py, self.fit.pvalues().map_err(ToPyErr::to_py)?))
    }
    /// The process's band at the last step at coverage `level`, `(p, 2)` ([`Fit::bands`]).
    fn final_band<'py>(&self, py: Python<'py>, level: f64) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (lo, hi) = self.fit.bands(level).map_err(ToPyErr::to_py)?;
        let v: Vec<f64> = lo.iter().zip(&hi).flat_map(|(l, h)| [*l, *h]).collect();
        Ok(Array2::from_shape_vec((lo.len(), 2), v).map_err(err)?.into_pyarray(py))
    }
    /// Maximum likelihood's scale, log-likelihood, rows and convergence, as JSON (`None` for the
    /// chain methods). A log-likelihood that is not finite (`+inf` at an exact fit) is written
    /// as Python's `json` reads it back (`Infinity`, `-Infinity`, `NaN`), not as `null`.
    /// Maximum likelihood's measures of fit by statsmodels' names (`df_model`, `rsquared`,
    /// `llnull`...; those the model does not have are left out), `None` for the chain methods.
    fn measures<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        let Some(m) = self.fit.measures() else { return Ok(None) };
        let d = pyo3::types::PyDict::new(py);
        for (k, v) in m.entries() {
            if let Some(v) = v {
                d.set_item(k, v)?;
            }
        }
        Ok(Some(d))
    }

    /// Student's t's degrees of freedom where the statistics use it (`None`: the normal).
    #[getter]
    fn df_inference(&self) -> Option<f64> {
        let g = self.fit.glm.as_ref()?;
        self.fit.uses_t().then(|| self.fit.df_inference(g))
    }

    #[getter]
    fn glm_json(&self) -> PyResult<Option<String>> {
        let Some(g) = self.fit.glm.as_ref() else { return Ok(None) };
        let mut text = serde_json::to_string(g).map_err(err)?;
        for (key, v) in [("llf", g.llf), ("scale", g.scale)] {
            if !v.is_finite() {
                let token = if v.is_nan() {
                    "NaN"
                } else if v > 0.0 {
                    "Infinity"
                } else {
                    "-Infinity"
                };
                text = text.replacen(&format!("\"{key}\":null"), &format!("\"{key}\":{token}"), 1);
            }
        }
        Ok(Some(text))
    }
    /// Covariance of the estimates, `(p, p)`.
    fn cov_params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let p = self.fit.params.len();
        Ok(Array2::from_shape_vec((p, p), self.fit.cov_params.clone()).map_err(err)?.into_pyarray(py))
    }
    /// The intervals at coverage `level`, `(p, 2)`.
    fn conf_int<'py>(&self, py: Python<'py>, level: f64) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (lo, hi) = self.fit.conf_int(level).map_err(ToPyErr::to_py)?;
        let v: Vec<f64> = lo.iter().zip(&hi).flat_map(|(l, h)| [*l, *h]).collect();
        Ok(Array2::from_shape_vec((lo.len(), 2), v).map_err(err)?.into_pyarray(py))
    }
    /// Random scaling: every chain's interval at `level`, `(K, p, 2)`.
    fn chain_intervals<'py>(&self, py: Python<'py>, level: f64) -> PyResult<Bound<'py, PyArray3<f64>>> {
        let (lo, hi) = self.fit.chain_intervals(level).map_err(ToPyErr::to_py)?;
        let p = self.fit.params.len();
        let v: Vec<f64> = lo.iter().zip(&hi).flat_map(|(l, h)| [*l, *h]).collect();
        Ok(Array3::from_shape_vec((lo.len() / p, p, 2), v).map_err(err)?.into_pyarray(py))
    }
    /// The chains, `(K, records, p)`.
    fn chains<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f64>>> {
        let t = &self.fit.trajectories;
        Ok(Array3::from_shape_vec((t.chains, t.steps + 1, t.p), t.values.clone()).map_err(err)?.into_pyarray(py))
    }
    /// The step of every record, `(records,)`.
    fn steps<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        let t = &self.fit.trajectories;
        PyArray1::from_vec(py, (0..=t.steps).map(|i| t.time(i) as u64).collect())
    }
    /// The summary at coverage `level` with the response named `response` and the parameters
    /// `names`, as JSON: `{"summary": ..., "text": ..., "cells": ..., "header": ..., "table": ...}`
    /// (the [`gradfree_inference::summary::Summary`], its text, its table's entries as printed, and
    /// the lines of its header and of its table as the text prints them).
    #[pyo3(signature = (level, response, names, layout = None))]
    fn summary(&self, level: f64, response: &str, names: Vec<String>, layout: Option<&str>) -> PyResult<String> {
        let layout = layout.map(gradfree_inference::summary::Layout::parse).transpose().map_err(ToPyErr::to_py)?;
        let s = gradfree_inference::summary::summary_as(&self.fit, &names, response, level, layout);
        let doc = serde_json::json!({
            "text": s.as_text(), "cells": s.cells(), "header": s.header_lines(), "table": s.table_lines(), "summary": s,
        });
        serde_json::to_string(&doc).map_err(err)
    }
    /// The parameter names.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }
    /// The run's settings, as JSON.
    #[getter]
    fn spec_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.fit.spec).map_err(err)
    }
    /// The model's name.
    #[getter]
    fn model(&self) -> String {
        self.fit.model.clone()
    }
    /// Steps whose batch covariance was singular and ridged.
    #[getter]
    fn ridged_steps(&self) -> u64 {
        self.fit.ridged_steps
    }
    /// Streamed runs: the rows read.
    #[getter]
    fn streamed_rows(&self) -> Option<u64> {
        self.fit.streamed_rows
    }
    /// Warnings to read the estimate with, as `(kind, text)` ([`gradfree_inference::Warning`]:
    /// `perfect-separation`, `convergence` or `other`).
    #[getter]
    fn warnings(&self) -> Vec<(String, String)> {
        let kind = |k: WarningKind| serde_json::to_value(k).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        self.fit.warnings.iter().map(|w| (kind(w.kind), w.message.clone())).collect()
    }
    /// The whole fit as JSON (what an executor's worker sends back).
    #[getter]
    fn fit_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.fit).map_err(err)
    }
}

/// `inference_default_method(model, custom)`: the method a fit of `model` (or of a model given by
/// its gradient, `custom`) uses when none is named ([`gradfree_inference::Method::default_for`]).
#[pyfunction]
fn inference_default_method(model: &str, custom: bool) -> &'static str {
    gradfree_inference::Method::default_for(if custom { "python" } else { model }).name()
}

/// `inference_keywords()`: the keywords of a run as JSON, `{"model": [...], "run": [...]}` (each
/// with its name, kind, accepted values, default, floor, when it applies, command-line and Python
/// names and doc), read from the specs' fields ([`gradfree_inference::keywords`]).
#[pyfunction]
fn inference_keywords() -> PyResult<String> {
    use gradfree_inference::keywords::{model_keywords, run_keywords};
    serde_json::to_string(&serde_json::json!({"model": model_keywords(), "run": run_keywords()})).map_err(err)
}

/// `inference_refused(model, method, given)`: the first of the Python keywords `given` that does not
/// apply to a run of `model` by `method` (it would be ignored), as `(keyword, what it needs)`; or
/// `None` ([`gradfree_inference::keywords::refused`]).
#[pyfunction]
fn inference_refused(model: &str, method: &str, given: Vec<String>) -> PyResult<Option<(String, String)>> {
    let method = gradfree_inference::Method::parse(method).map_err(ToPyErr::to_py)?;
    let keywords = gradfree_inference::keywords::keywords();
    let found = gradfree_inference::keywords::refused(&keywords, model, method, |k| given.contains(&k.python));
    Ok(found.map(|(k, rule)| (k.python.clone(), rule.needs(gradfree_core::schema::Style::Python))))
}

/// `inference_from_json(fit_json, names)`: a fit back from [`InferenceFit::fit_json`] (an
/// unpickled result); a damaged document is a `CheckpointError` naming the field.
#[pyfunction]
fn inference_from_json(fit_json: &str, names: Vec<String>) -> PyResult<InferenceFit> {
    let bad = |m: String| crate::errors::new_err(crate::errors::Kind::Checkpoint, format!("not a saved inference result: {m}"));
    let value: serde_json::Value = serde_json::from_str(fit_json).map_err(|e| bad(e.to_string()))?;
    let fit: Fit = gradfree_core::checkpoint::from_json(value).map_err(bad)?;
    let p = fit.params.len();
    let consistent = fit.sd.len() == p
        && fit.cov_params.len() == p * p
        && names.len() == p
        && fit.trajectories.p == p
        && fit.trajectories.values.len() == fit.trajectories.chains * (fit.trajectories.steps + 1) * p
        && fit.glm.is_some() == (fit.spec.method == gradfree_inference::Method::Mle)
        && fit.rs_scale.as_ref().is_none_or(|s| s.len() == fit.trajectories.chains * p)
        && (fit.spec.method != gradfree_inference::Method::RandomScaling || fit.rs_scale.is_some());
    if !consistent {
        return Err(bad(format!("its {p} parameters disagree with its other fields or its {} names", names.len())));
    }
    Ok(InferenceFit { fit, names })
}

/// `inference_combine(parts, names)`: the fit of one run from the JSON fits of its chains run in
/// slices (`first_chain`), in order ([`Fit::combine`]).
#[pyfunction]
fn inference_combine(parts: Vec<String>, names: Vec<String>) -> PyResult<InferenceFit> {
    let fits: Vec<Fit> = parts
        .iter()
        .map(|p| serde_json::from_str(p))
        .collect::<Result<_, _>>()
        .map_err(|e| err(format!("invalid fit from a worker: {e}")))?;
    Ok(InferenceFit { fit: Fit::combine(&fits).map_err(ToPyErr::to_py)?, names })
}

/// `inference_fit(x, y, model_json, spec_json, names, grad, n_params, progress)`: the chains of
/// the run on rows `x` (float64, C order) with responses `y`.
#[pyfunction]
#[pyo3(signature = (x, y, model_json, spec_json, names, grad = None, n_params = None, progress = false, offset = None, groups = None))]
#[allow(clippy::too_many_arguments)]
fn inference_fit(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: Option<PyReadonlyArray1<'_, f64>>,
    model_json: &str,
    spec_json: &str,
    names: Vec<String>,
    grad: Option<Py<PyAny>>,
    n_params: Option<usize>,
    progress: bool,
    offset: Option<PyReadonlyArray1<'_, f64>>,
    groups: Option<PyReadonlyArray1<'_, u64>>,
) -> PyResult<InferenceFit> {
    let spec = spec_of(spec_json)?;
    let d = x.shape()[1];
    let grad_model = grad.is_some();
    let failure = Failure::default();
    let (model, mspec) = model_of(model_json, grad, n_params, d, &failure)?;
    let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
    let ys = match &y {
        Some(y) => y.as_slice().map_err(|_| err("y must be contiguous"))?.to_vec(),
        None => Vec::new(),
    };
    let x = if grad_model { xs.to_vec() } else { mspec.design(xs.to_vec(), d) };
    let dd = if grad_model { d } else { d + usize::from(mspec.intercept && d > 0) };
    let mut data = Data::new(x, dd, ys).map_err(ToPyErr::to_py)?;
    if let Some(o) = &offset {
        data = data.with_offset(o.as_slice().map_err(|_| err("offset must be contiguous"))?.to_vec()).map_err(ToPyErr::to_py)?;
    }
    if let Some(g) = &groups {
        data = data.with_groups(g.as_slice().map_err(|_| err("groups must be contiguous"))?.to_vec()).map_err(ToPyErr::to_py)?;
    }
    let names = if grad_model { (0..model.dim()).map(|j| format!("x{j}")).collect() } else { mspec.parameter_names(&names) };
    let pb = gradfree_experiments::progress::bar(
        spec.method.is_chain().then(|| (spec.chains as u64).saturating_mul(spec.steps as u64)),
        "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} chain-steps  {eta}",
        progress,
    );
    let model_ref = model.as_ref();
    let out = interruptible(py, |cancel| -> Result<Fit, InferenceError> {
        if !spec.method.is_chain() {
            return gradfree_inference::run(model_ref, &data, &spec, None);
        }
        let mut runner = Runner::new(model_ref, &data, &spec)?;
        let tick = |s: u64| pb.inc(s);
        // Ctrl-C is read between segments: it waits a fraction of a second.
        gradfree_inference::segments::run_in_segments(
            &mut runner,
            model_ref,
            &data,
            Some(&tick),
            |_| usize::MAX,
            |_| {
                if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                    return Err(InferenceError::BadData("interrupted".into()));
                }
                Ok(())
            },
        )
    })?;
    pb.finish_and_clear();
    let fit = out.map_err(|e| raised(&failure, e))?;
    Ok(InferenceFit { fit, names })
}

/// Batches from a Python iterator of `(X, y)` pairs (or `X` alone), converted to float64 by the
/// Python layer.
struct PyBatches<'a> {
    iter: Py<PyAny>,
    d: usize,
    first: Option<Chunk>,
    failure: Failure,
    /// Set by Ctrl-C ([`interruptible`]): the stream ends the run with an error at its next chunk.
    cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

/// The next batch and its columns, `None` at the end.
fn next_batch(py: Python<'_>, iter: &Py<PyAny>) -> PyResult<Option<(Chunk, usize)>> {
    let item = match iter.bind(py).call_method0("__next__") {
        Ok(item) => item,
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => return Ok(None),
        Err(e) => return Err(e),
    };
    let (x, y): (PyReadonlyArray2<'_, f64>, Option<PyReadonlyArray1<'_, f64>>) = item.extract()?;
    let d = x.shape()[1];
    let xs = x.as_array().as_standard_layout().iter().copied().collect();
    let ys = y.map(|y| y.as_array().iter().copied().collect()).unwrap_or_default();
    Ok(Some((Chunk { x: xs, y: ys }, d)))
}

impl RowSource for PyBatches<'_> {
    fn dim(&self) -> usize {
        self.d
    }
    fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        if let Some(c) = self.first.take() {
            return Ok(Some(c));
        }
        let bad = |message: String| DataError::File { path: "the batches".into(), message };
        if self.cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(bad("interrupted".into()));
        }
        match Python::attach(|py| next_batch(py, &self.iter)) {
            Err(e) => {
                let message = e.to_string();
                keep(&self.failure, e);
                Err(bad(message))
            }
            Ok(Some((_, d))) if d != self.d => Err(bad(format!("a batch has {d} columns; the first had {}", self.d))),
            Ok(Some((chunk, _))) => Ok(Some(chunk)),
            Ok(None) => Ok(None),
        }
    }
}

/// The batches of a source read again ([`run_stream_mle`]): a fresh iterator of `(X, y)` float64
/// batches with the model's constant column added.
struct Again<'a> {
    batches: PyBatches<'a>,
    spec: &'a ModelSpec,
}

impl RowSource for Again<'_> {
    fn dim(&self) -> usize {
        self.batches.d + usize::from(self.spec.intercept)
    }
    fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        Designed { source: &mut self.batches, spec: self.spec }.next_chunk()
    }
}

/// `inference_fit_stream(batches, model_json, spec_json, names, max_steps, grad, n_params,
/// progress, reread, refit)`: the run on the rows of an iterator of `(X, y)` float64 batches;
/// maximum likelihood reads them again through `reread()` (a fresh iterator of the same
/// batches) for Newton passes when `refit` asks or the one-pass estimate is unreliable
/// ([`run_stream_mle`]).
#[pyfunction]
#[pyo3(signature = (batches, model_json, spec_json, names, max_steps = None, grad = None, n_params = None, progress = false, reread = None, refit = None))]
#[allow(clippy::too_many_arguments)]
fn inference_fit_stream(
    py: Python<'_>,
    batches: Py<PyAny>,
    model_json: &str,
    spec_json: &str,
    names: Option<Vec<String>>,
    max_steps: Option<usize>,
    grad: Option<Py<PyAny>>,
    n_params: Option<usize>,
    progress: bool,
    reread: Option<Py<PyAny>>,
    refit: Option<bool>,
) -> PyResult<InferenceFit> {
    let spec = spec_of(spec_json)?;
    let Some((first, d)) = next_batch(py, &batches)? else {
        return Err(new_err(Kind::Data, "the batches are empty: no rows"));
    };
    let grad_model = grad.is_some();
    let failure = Failure::default();
    let (model, mspec) = model_of(model_json, grad, n_params, d, &failure)?;
    match (&names, grad_model) {
        (Some(_), true) => {
            return Err(new_err(
                Kind::InvalidParameter,
                "invalid parameter `names`: only without grad= (a model given by its gradient names its parameters x0, x1, ...)",
            ));
        }
        (Some(n), false) if n.len() != d => {
            return Err(new_err(
                Kind::InvalidParameter,
                format!("invalid parameter `names`: {} names for the {d} feature columns of the batches", n.len()),
            ));
        }
        _ => {}
    }
    let names = match (&names, grad_model) {
        (_, true) => (0..model.dim()).map(|j| format!("x{j}")).collect(),
        (Some(n), false) => mspec.parameter_names(n),
        (None, false) => mspec.parameter_names(&(0..d).map(|j| format!("x{j}")).collect::<Vec<_>>()),
    };
    let plain = ModelSpec { intercept: false, ..mspec.clone() };
    let pb = gradfree_experiments::progress::bar(None, "{spinner} [{elapsed_precise}] {pos} rows streamed  {per_sec}", progress);
    let model_ref = model.as_ref();
    let stream_failure = failure.clone();
    let bar = &pb;
    let out = interruptible(py, move |cancel| {
        let mut source = PyBatches { iter: batches, d, first: Some(first), failure: stream_failure.clone(), cancel: Some(cancel) };
        let tick = |rows: u64| bar.inc(rows);
        let design = if grad_model { &plain } else { &mspec };
        let mut designed = Designed { source: &mut source, spec: design };
        if spec.method != Method::Mle {
            return run_stream(model_ref, &mut designed, &spec, max_steps, Some(&tick));
        }
        let mut again = || -> Result<Box<dyn RowSource + '_>, InferenceError> {
            let open = reread.as_ref().expect("called only with reread");
            let iter = Python::attach(|py| open.call0(py)).map_err(|e| {
                let message = e.to_string();
                keep(&stream_failure, e);
                InferenceError::BadData(format!("reading the batches again: {message}"))
            })?;
            let batches = PyBatches { iter, d, first: None, failure: stream_failure.clone(), cancel: Some(cancel) };
            Ok(Box::new(Again { batches, spec: design }))
        };
        let again: Option<&mut gradfree_inference::reread::Reread<'_>> = if reread.is_some() { Some(&mut again) } else { None };
        run_stream_mle(model_ref, &mut designed, &spec, Some(&tick), again, refit)
    })?;
    pb.finish_and_clear();
    let fit = out.map_err(|e| raised(&failure, e))?;
    Ok(InferenceFit { fit, names })
}

/// Simulated rows, responses and truth.
type Simulated<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

/// `simulate(design, d, model, n, seed)`: `n` rows of the coverage protocol of Chen et al.
/// (2020) ([`gradfree_inference::simulate`]): `(X, y, theta*)`.
#[pyfunction]
fn inference_simulate<'py>(py: Python<'py>, design: &str, d: usize, model: &str, n: usize, seed: u64) -> PyResult<Simulated<'py>> {
    use gradfree_inference::simulate::{Design, simulate};
    let design = Design::parse(design).map_err(ToPyErr::to_py)?;
    let family = match model {
        "linear" => gradfree_inference::Family::Linear,
        "logistic" => gradfree_inference::Family::Logistic,
        other => return Err(err(format!("invalid parameter `model` = {other}: must be linear or logistic"))),
    };
    let (data, theta) = py.detach(|| simulate(design, d, family, n, seed)).map_err(ToPyErr::to_py)?;
    let x = Array2::from_shape_vec((data.len(), data.dim()), data.rows().to_vec()).map_err(err)?.into_pyarray(py);
    Ok((x, PyArray1::from_slice(py, data.responses()), PyArray1::from_vec(py, theta)))
}

/// Random scaling's critical value at coverage `level` (6.747 at 0.95; Lee et al. 2022).
#[pyfunction]
fn random_scaling_critical_value(level: f64) -> PyResult<f64> {
    gradfree_inference::random_scaling::critical_value(level).map_err(ToPyErr::to_py)
}

/// The survival function of a test's law, or its quantile
/// ([`gradfree_inference::intervals::law`]).
#[pyfunction]
#[pyo3(signature = (law, x, df1 = 1.0, df2 = 1.0, quantile = false))]
fn inference_law(law: &str, x: f64, df1: f64, df2: f64, quantile: bool) -> PyResult<f64> {
    gradfree_inference::intervals::law(law, x, df1, df2, quantile).map_err(ToPyErr::to_py)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(inference_law, m)?)?;
    m.add_class::<InferenceFit>()?;
    m.add_function(wrap_pyfunction!(inference_fit, m)?)?;
    m.add_function(wrap_pyfunction!(inference_fit_stream, m)?)?;
    m.add_function(wrap_pyfunction!(random_scaling_critical_value, m)?)?;
    m.add_function(wrap_pyfunction!(inference_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(inference_combine, m)?)?;
    m.add_function(wrap_pyfunction!(inference_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(inference_default_method, m)?)?;
    m.add_function(wrap_pyfunction!(inference_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(inference_refused, m)?)?;
    Ok(())
}
