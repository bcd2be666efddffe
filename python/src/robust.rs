//! Robust-learning bindings: Algorithm 13's selection and the NPCL threshold on numpy vectors,
//! seeded label noise, noise-rate estimates, and a training run of `gradfree_robust::train`
//! ([`RobustModel`]: the trained state, its per-epoch history and its predictions) for
//! `gradfree.robust.RobustClassifier`.

use gradfree_core::StateCheck;
use gradfree_experiments::train_run::TrainRunSpec;
use gradfree_robust::train::{TrainSet, Trainer, TrainerState, collapse_rows};
use gradfree_robust::{LabelNoise, RobustError, Threshold, TrainOn, flip_labels};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{Kind, ToPyErr, new_err};
use crate::{err, interruptible};

fn labels_u32(y: &PyReadonlyArray1<'_, i64>, name: &str) -> PyResult<Vec<u32>> {
    y.as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| u32::try_from(v).map_err(|_| err(format!("{name}[{i}] = {v}: labels must be integers in [0, n_classes)"))))
        .collect()
}

fn matrix(rows: &[Vec<f64>]) -> PyResult<Array2<f64>> {
    let k = rows.len();
    Array2::from_shape_vec((k, k), rows.iter().flatten().copied().collect()).map_err(err)
}

/// Noisy labels, transition matrix, realized rate.
type Flipped<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f64>>, f64);

/// `robust_flip_labels(y, n_classes, noise, seed) -> (noisy, transition, actual_rate)`: seeded
/// symmetric or pair label noise (`noise` = `symmetric:RATE`, `pair:RATE`, `none`).
#[pyfunction]
fn robust_flip_labels<'py>(
    py: Python<'py>,
    y: PyReadonlyArray1<'py, i64>,
    n_classes: usize,
    noise: &str,
    seed: u64,
) -> PyResult<Flipped<'py>> {
    let labels = labels_u32(&y, "y")?;
    let noise: LabelNoise = noise.parse().map_err(ToPyErr::to_py)?;
    let out = flip_labels(&labels, n_classes, noise, seed).map_err(ToPyErr::to_py)?;
    let noisy: Vec<i64> = out.labels.iter().map(|&v| v as i64).collect();
    Ok((noisy.into_pyarray(py), matrix(&out.transition)?.into_pyarray(py), out.actual_rate))
}

/// `robust_select(losses, c, one_more) -> (mask, count, value)`: Algorithm 13 on per-sample
/// losses with threshold `C` of (8.13); the optimal value of Proposition 2.
#[pyfunction]
fn robust_select<'py>(
    py: Python<'py>,
    losses: PyReadonlyArray1<'py, f64>,
    c: f64,
    one_more: bool,
) -> PyResult<(Bound<'py, PyArray1<bool>>, usize, f64)> {
    let l = losses.as_array();
    let l = l.as_slice().map(<[f64]>::to_vec).unwrap_or_else(|| l.iter().copied().collect());
    let mut mask = vec![false; l.len()];
    let rule = if one_more { TrainOn::OneMore } else { TrainOn::Selected };
    let sel = gradfree_robust::Selector::new().select(&l, c, rule, &mut mask).map_err(ToPyErr::to_py)?;
    Ok((mask.into_pyarray(py), sel.count, sel.value))
}

/// `robust_npcl_threshold(m, misclassified, noise_rate, adaptive) -> C`: eq. (8.21) (adaptive) or
/// (8.20) for a batch of `m` samples.
#[pyfunction]
fn robust_npcl_threshold(m: usize, misclassified: usize, noise_rate: f64, adaptive: bool) -> PyResult<f64> {
    if misclassified > m {
        return Err(err(format!("invalid n_misclassified = {misclassified}: must be in [0, batch size = {m}]")));
    }
    let t = if adaptive { Threshold::NoisePrunedAdaptive { eps: noise_rate } } else { Threshold::NoisePruned { eps: noise_rate } };
    t.check().map_err(ToPyErr::to_py)?;
    Ok(t.value(m, misclassified))
}

/// `robust_estimate_trusted(y_true, y_noisy, n_classes) -> (rate, lo, hi, transition)`.
#[pyfunction]
fn robust_estimate_trusted<'py>(
    py: Python<'py>,
    y_true: PyReadonlyArray1<'py, i64>,
    y_noisy: PyReadonlyArray1<'py, i64>,
    n_classes: usize,
) -> PyResult<(f64, f64, f64, Bound<'py, PyArray2<f64>>)> {
    let (t, n) = (labels_u32(&y_true, "y_true")?, labels_u32(&y_noisy, "y_noisy")?);
    let e = gradfree_robust::rate_from_trusted(&t, &n, n_classes).map_err(ToPyErr::to_py)?;
    let (lo, hi) = e.interval.unwrap_or((0.0, 1.0));
    Ok((e.rate, lo, hi, matrix(&e.transition)?.into_pyarray(py)))
}

/// `robust_estimate_anchors(proba, y_noisy, quantile) -> (rate, transition)`.
#[pyfunction]
fn robust_estimate_anchors<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'py, f64>,
    y_noisy: PyReadonlyArray1<'py, i64>,
    quantile: f64,
) -> PyResult<(f64, Bound<'py, PyArray2<f64>>)> {
    let k = proba.shape()[1];
    let p: Vec<f64> = proba.as_array().iter().copied().collect();
    let y = labels_u32(&y_noisy, "y_noisy")?;
    let e = gradfree_robust::rate_from_anchors(&p, &y, k, quantile).map_err(ToPyErr::to_py)?;
    Ok((e.rate, matrix(&e.transition)?.into_pyarray(py)))
}

/// A trained network: the run's whole state (parameters, optimizer moments, history, last
/// selection), serializable for pickling.
#[pyclass(module = "gradfree._gradfree", frozen)]
pub struct RobustModel {
    state: TrainerState,
}

#[pymethods]
impl RobustModel {
    /// The logits `(n, n_classes)` of network 1 on the rows `x` (float32).
    fn logits<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f32>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (n, d) = (x.shape()[0], x.shape()[1]);
        if d != self.state.d {
            return Err(err(format!("X has {d} features, but the model was fitted on {}", self.state.d)));
        }
        let rows: Vec<f32> = x.as_array().iter().copied().collect();
        let state = &self.state;
        let out = py.detach(|| Trainer::from_state(state.clone()).and_then(|t| t.logits(&rows))).map_err(ToPyErr::to_py)?;
        Array2::from_shape_vec((n, self.state.k), out).map_err(err).map(|a| a.into_pyarray(py))
    }

    /// The per-epoch records as JSON (a list of objects).
    fn history_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.state.history).map_err(err)
    }

    /// The run's settings as JSON.
    fn spec_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.state.spec).map_err(err)
    }

    /// Which rows the last epoch's steps used.
    fn selected<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.state.selected)
    }

    /// The number of trained parameters (per network).
    #[getter]
    fn n_params(&self) -> usize {
        self.state.params.first().map_or(0, Vec::len)
    }

    /// The state as bytes (JSON), for pickling.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &serde_json::to_vec(&self.state).map_err(err)?))
    }

    /// A model from [`RobustModel::to_bytes`]; a corrupt or inconsistent state is a
    /// `CheckpointError`.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let bad = |m: String| new_err(Kind::Checkpoint, format!("not a saved RobustClassifier state: {m}"));
        let state: TrainerState = serde_json::from_slice(data).map_err(|e| bad(e.to_string()))?;
        state.check_state().map_err(bad)?;
        Ok(RobustModel { state })
    }

    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (Py<PyBytes>,))> {
        let py = slf.py();
        let bytes = slf.get().to_bytes(py)?.unbind();
        let f = py.get_type::<RobustModel>().getattr("from_bytes")?;
        Ok((f.unbind(), (bytes,)))
    }
}

/// `robust_fit(x, y, n_classes, spec_json, progress, sample_weight) -> (RobustModel, selected)`:
/// trains a network on float32 rows `x` and labels `y` in `[0, n_classes)` with the options of
/// `spec_json` (fields of [`TrainRunSpec`]; the ones missing take its defaults; `data` and
/// `noise` are not used), each row weighted by `sample_weight` (finite, >= 0; `None`: all 1).
/// The rows are first collapsed to their weighted distinct rows in a canonical order
/// (`gradfree_robust::train::collapse_rows`: integer weights are exactly repeated rows, zero
/// weights exactly dropped ones); `selected` says, for every input row, whether the last epoch's
/// steps used it. Runs without the GIL; Ctrl-C stops it between batches of epochs.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, spec_json, progress = false, sample_weight = None))]
fn robust_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f32>,
    y: PyReadonlyArray1<'py, i64>,
    n_classes: usize,
    spec_json: &str,
    progress: bool,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<(RobustModel, Bound<'py, PyArray1<bool>>)> {
    let run: TrainRunSpec = crate::options(spec_json, "training options")?;
    let spec = run.train_spec().map_err(|e| match e {
        gradfree_experiments::ExperimentError::Robust(r) => classifier_err(r),
        e => e.to_py(),
    })?;
    let (n, d) = (x.shape()[0], x.shape()[1]);
    if y.len() != n {
        return Err(new_err(Kind::Data, format!("X has {n} rows but y has {} labels: they must agree", y.len())));
    }
    let rows: Vec<f32> = x.as_array().iter().copied().collect();
    let labels = labels_u32(&y, "y")?;
    let weights: Option<Vec<f64>> = sample_weight.map(|w| w.as_array().iter().copied().collect());
    let pb = gradfree_experiments::progress::bar(
        Some(spec.epochs as u64),
        "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} epochs  {msg}",
        progress,
    );
    let out = interruptible(py, |cancel| -> Result<(TrainerState, Vec<Option<usize>>), RobustError> {
        // Checked on the rows as given, so errors name the caller's rows.
        let given = TrainSet { x: &rows, d, labels: &labels, clean: None, k: n_classes, weights: weights.as_deref() };
        given.check()?;
        let distinct = collapse_rows(&given);
        let data = distinct.set(d, n_classes);
        let mut trainer = Trainer::new(spec, &data)?;
        while !trainer.finished() {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(RobustError::bad("interrupted"));
            }
            let rec = trainer.run_epoch(&data, None)?;
            pb.set_message(format!(
                "loss {:.4}  train accuracy {:.3}  selected {:.3}",
                rec.train_loss, rec.train_accuracy, rec.selected_fraction
            ));
            pb.inc(1);
        }
        Ok((trainer.state().clone(), distinct.row_of))
    })?;
    pb.finish_and_clear();
    let (state, row_of) = out.map_err(classifier_err)?;
    let selected: Vec<bool> = row_of.iter().map(|u| u.is_some_and(|u| state.selected[u])).collect();
    Ok((RobustModel { state }, PyArray1::from_vec(py, selected)))
}

/// The keywords of a training run ([`gradfree_experiments::train_run::keywords`]), read once.
fn train_keywords_once() -> &'static [gradfree_core::schema::Keyword] {
    static KEYWORDS: std::sync::OnceLock<Vec<gradfree_core::schema::Keyword>> = std::sync::OnceLock::new();
    KEYWORDS.get_or_init(gradfree_experiments::train_run::keywords)
}

/// `train_keywords()`: the keywords of a training run as a JSON list (each with its name, kind,
/// accepted values, default, command-line and Python names, the names the library's checks give
/// it, and doc), read from the fields of [`TrainRunSpec`].
#[pyfunction]
fn train_keywords() -> PyResult<String> {
    serde_json::to_string(train_keywords_once()).map_err(crate::err)
}

/// A training error as `RobustClassifier` spells its keywords: a parameter the library names
/// (or names a part of) under the keyword's Python name (scikit-learn's `hidden_layer_sizes`
/// and `learning_rate` for the library's `hidden` and `lr`).
fn classifier_err(e: RobustError) -> PyErr {
    use gradfree_core::CoreError;
    let rename = |name: &'static str| -> &'static str {
        train_keywords_once().iter().find(|k| !k.python.is_empty() && k.answers_to(name)).map_or(name, |k| k.python.as_str())
    };
    match e {
        RobustError::Core(CoreError::InvalidParameter { name, value, expected }) => {
            RobustError::Core(CoreError::InvalidParameter { name: rename(name), value, expected }).to_py()
        }
        RobustError::Core(CoreError::TooLarge { what, bytes, limit, param }) => {
            let param = param.map(|p| Box::new((rename(p.0), p.1)));
            RobustError::Core(CoreError::TooLarge { what, bytes, limit, param }).to_py()
        }
        other => other.to_py(),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RobustModel>()?;
    m.add_function(wrap_pyfunction!(robust_flip_labels, m)?)?;
    m.add_function(wrap_pyfunction!(robust_select, m)?)?;
    m.add_function(wrap_pyfunction!(robust_npcl_threshold, m)?)?;
    m.add_function(wrap_pyfunction!(robust_estimate_trusted, m)?)?;
    m.add_function(wrap_pyfunction!(robust_estimate_anchors, m)?)?;
    m.add_function(wrap_pyfunction!(robust_fit, m)?)?;
    m.add_function(wrap_pyfunction!(train_keywords, m)?)?;
    Ok(())
}
