//! Batch Bayesian-optimization bindings: the ask/tell state machine `gradfree_bo::BatchBo` in a
//! Python class (GIL released while the GP is fitted and the acquisition maximized; picklable
//! through its JSON state). `gradfree.bo` wraps it with scikit-optimize's conventions.

use std::sync::Mutex;

use gradfree_bo::{BatchBo as Inner, Space, VarKind};
use gradfree_core::{AskTell, Population};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::{Kind, ToPyErr, new_err};
use crate::{err, interruptible};

/// The batch Bayesian optimizer ([`gradfree_bo::BatchBo`]), built by `BatchBO.from_spec`.
#[pyclass(module = "gradfree._gradfree")]
struct BatchBO {
    inner: Mutex<Inner>,
}

fn lock(m: &Mutex<Inner>) -> std::sync::MutexGuard<'_, Inner> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[pymethods]
impl BatchBO {
    /// `BatchBO.from_spec(lower, upper, kinds, seed, params_json)`: the optimizer over the box
    /// `[lower, upper]` with coordinate kinds `continuous` (or `real`), `integer`, `categorical`,
    /// and the parameters given as a JSON object of keywords named as `bo_keywords()` lists them
    /// (`gradfree_bo::keywords::params`; null or absent: the library's default).
    #[staticmethod]
    fn from_spec(lower: Vec<f64>, upper: Vec<f64>, kinds: Vec<String>, seed: u64, params_json: &str) -> PyResult<Self> {
        let kinds = kinds
            .iter()
            .map(|k| match k.as_str() {
                "continuous" | "real" => Ok(VarKind::Continuous),
                "integer" => Ok(VarKind::Integer),
                "categorical" => Ok(VarKind::Categorical),
                other => Err(err(format!("invalid kind = {other}: expected continuous, integer or categorical"))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let space = Space::new(lower, upper, kinds).map_err(ToPyErr::to_py)?;
        let given: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(params_json).map_err(|e| err(format!("params_json: {e}")))?;
        let params = gradfree_bo::keywords::params(&given).map_err(ToPyErr::to_py)?;
        Ok(BatchBO { inner: Mutex::new(Inner::new(space, params, seed).map_err(ToPyErr::to_py)?) })
    }

    /// Points per `ask()` after the initial design.
    #[getter]
    fn batch_size(&self) -> usize {
        lock(&self.inner).params().batch_size
    }

    /// `n` points to evaluate next, shape `(n, d)` (default: the rest of the initial design, then
    /// `batch_size`). Pending points are remembered until told. Ctrl-C interrupts.
    #[pyo3(signature = (n = None))]
    fn ask<'py>(&self, py: Python<'py>, n: Option<usize>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let inner = &self.inner;
        let (pop, d) = interruptible(py, |_| {
            let mut bo = lock(inner);
            let mut p = Population::empty(bo.dim());
            let count = n.unwrap_or_else(|| bo.population_size());
            let r = bo.ask_batch_into(count, &mut p);
            (r.map(|()| p), bo.dim())
        })?;
        let pop = pop.map_err(|e| match e {
            gradfree_core::CoreError::Numerical(m) => new_err(Kind::ModelFit, m),
            e => e.to_py(),
        })?;
        Ok(Array2::from_shape_vec((pop.len(), d), pop.as_slice().to_vec()).map_err(err)?.into_pyarray(py))
    }

    /// Takes the values `y` of the points `x` (shape `(n, d)`): asked ones, late ones, or any
    /// others inside the box.
    fn tell(&self, x: PyReadonlyArray2<'_, f64>, y: Vec<f64>) -> PyResult<()> {
        let d = x.shape()[1];
        let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
        let rows: Vec<&[f64]> = if d == 0 { Vec::new() } else { xs.chunks_exact(d).collect() };
        let pop = Population::from_rows(&rows).map_err(ToPyErr::to_py)?;
        lock(&self.inner).tell(&pop, &y).map_err(ToPyErr::to_py)
    }

    /// Dimension.
    #[getter]
    fn dim(&self) -> usize {
        lock(&self.inner).dim()
    }

    /// Finite observations told so far.
    #[getter]
    fn n_observations(&self) -> usize {
        lock(&self.inner).observations()
    }

    /// Points asked and not yet told.
    #[getter]
    fn n_pending(&self) -> usize {
        lock(&self.inner).pending()
    }

    /// Best value told (`inf` before any).
    #[getter]
    fn best_f(&self) -> f64 {
        lock(&self.inner).best_f()
    }

    /// Best point told (the box's centre before any).
    #[getter]
    fn best_x(&self) -> Vec<f64> {
        lock(&self.inner).mean().to_vec()
    }

    /// The selection rule's name.
    #[getter]
    fn method(&self) -> &'static str {
        lock(&self.inner).name()
    }

    /// Hyper-parameters of the last GP fit (unit-cube length scales, standardized variances), or
    /// `None` before the first model-based batch.
    #[getter]
    fn hyperparameters(&self) -> Option<(Vec<f64>, f64, f64)> {
        lock(&self.inner).hyper().map(|h| (h.length.clone(), h.signal, h.noise))
    }

    /// Points of the initial design not yet asked.
    #[getter]
    fn design_left(&self) -> usize {
        lock(&self.inner).design_left()
    }

    /// Replaces the initial design not yet asked by the rows of `unit` (shape `(n, d)`, unit
    /// cube; `n = 0` ends the design).
    fn set_design(&self, unit: PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        let u = unit.as_slice().map_err(|_| err("design must be C-contiguous"))?;
        lock(&self.inner).set_design(u).map_err(ToPyErr::to_py)
    }

    /// Keeps at most `k` of the design points not yet asked.
    fn keep_design(&self, k: usize) -> PyResult<()> {
        lock(&self.inner).keep_design(k).map_err(ToPyErr::to_py)
    }

    /// The Gaussian process fitted to the first `n` finite observations (all when `None`),
    /// hyper-parameters by maximum likelihood warm-started at the last fit's, or at
    /// `warm = (length_scales, signal, noise)` (as `hyperparameters` gives them). GIL released.
    #[pyo3(signature = (n = None, warm = None))]
    fn gp(&self, py: Python<'_>, n: Option<usize>, warm: Option<(Vec<f64>, f64, f64)>) -> PyResult<GaussianProcess> {
        let inner = &self.inner;
        let warm = warm.map(|(length, signal, noise)| gradfree_bo::Hyper { length, signal, noise });
        let (gp, space) = py.detach(|| {
            let bo = lock(inner);
            let gp = match &warm {
                Some(h) => bo.fit_model_from(n, Some(h)),
                None => bo.fit_model(n),
            };
            (gp, bo.space().clone())
        });
        let gp = gp.map_err(|e| match e {
            gradfree_bo::BoError::FitFailed(m) => new_err(Kind::ModelFit, m),
            e => e.to_py(),
        })?;
        Ok(GaussianProcess { gp, space })
    }

    /// The whole state as JSON (pickling and checkpoints).
    fn state_json(&self) -> PyResult<String> {
        serde_json::to_string(&*lock(&self.inner)).map_err(err)
    }

    /// Restores a state written by `state_json`, checked before use.
    #[staticmethod]
    fn from_state_json(s: &str) -> PyResult<Self> {
        let inner: Inner = serde_json::from_str(s).map_err(|e| new_err(Kind::Checkpoint, format!("not a BatchBO state: {e}")))?;
        gradfree_core::StateCheck::check_state(&inner).map_err(|e| new_err(Kind::Checkpoint, format!("invalid BatchBO state: {e}")))?;
        Ok(BatchBO { inner: Mutex::new(inner) })
    }
}

/// Posterior means and standard deviations.
type MeanStd<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

/// A Gaussian process of a [`BatchBO`] (`BatchBO.gp()`): posterior mean and standard deviation
/// (thesis eq. 4.11-4.12) at points of the optimizer's box, in the objective's units.
#[pyclass(module = "gradfree._gradfree", frozen)]
struct GaussianProcess {
    gp: gradfree_bo::Gp,
    space: Space,
}

#[pymethods]
impl GaussianProcess {
    /// `(mean, std)` at the rows of `x` (shape `(m, d)`, the optimizer's box coordinates).
    fn predict<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'_, f64>) -> PyResult<MeanStd<'py>> {
        let d = self.space.dim();
        if x.shape()[1] != d {
            return Err(err(format!("X has {} columns: expected {d}", x.shape()[1])));
        }
        let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
        let m = x.shape()[0];
        let (mut mean, mut sd) = (vec![0.0; m], vec![0.0; m]);
        let mut u = vec![0.0; d];
        for (k, row) in xs.chunks_exact(d.max(1)).enumerate().take(m) {
            self.space.to_unit(row, &mut u).map_err(ToPyErr::to_py)?;
            (mean[k], sd[k]) = self.gp.predict(&u);
        }
        Ok((mean.into_pyarray(py), sd.into_pyarray(py)))
    }

    /// Observations the process is conditioned on.
    #[getter]
    fn n_observations(&self) -> usize {
        self.gp.len()
    }

    /// `(length_scales, signal_variance, noise_variance)` (unit-cube inputs, standardized outputs).
    #[getter]
    fn hyperparameters(&self) -> (Vec<f64>, f64, f64) {
        let h = self.gp.hyper();
        (h.length.clone(), h.signal, h.noise)
    }
}

/// The default size of the initial design for `d` searched coordinates
/// ([`gradfree_bo::default_n_initial`]: `max(10, 3d + 2)`).
#[pyfunction]
fn bo_default_n_initial(d: usize) -> usize {
    gradfree_bo::default_n_initial(d)
}

/// `bo_keywords()`: the keywords of a BO run as a JSON list (each with its name, kind, accepted
/// values, default, command-line and Python names and doc), read from the fields of
/// `gradfree_bo::BoParams` ([`gradfree_bo::keywords::keywords`]).
#[pyfunction]
fn bo_keywords() -> PyResult<String> {
    serde_json::to_string(&gradfree_bo::keywords::keywords()).map_err(err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bo_default_n_initial, m)?)?;
    m.add_function(wrap_pyfunction!(bo_keywords, m)?)?;
    m.add_class::<BatchBO>()?;
    m.add_class::<GaussianProcess>()?;
    Ok(())
}
