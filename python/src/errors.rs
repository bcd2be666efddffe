//! The exception classes of `gradfree.errors` and the one map from Rust errors to them.
//!
//! The classes are made here, once, when the extension is imported (each derives from
//! `GradfreeError` and from the built-in exception a caller would catch without knowing gradfree);
//! `gradfree/errors.py` re-exports them. A Rust error becomes a Python exception through
//! [`ToPyErr`]: a `match` on the error's variants picks a [`Kind`], and a `match` on the kind picks
//! the class, so no class is ever looked up by its name. Messages keep the library's wording, with
//! the Python spelling of a parameter ([`keyword`]) and Python's hints put in.

use gradfree_core::CoreError;
use pyo3::exceptions::{PyArithmeticError, PyAttributeError, PyException, PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The kinds of gradfree's Python exceptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `GradfreeError` itself: a failure that is none of the kinds below (an experiment that could
    /// not write its files).
    Other,
    /// `InvalidParameterError(GradfreeError, ValueError)`.
    InvalidParameter,
    /// `NonFiniteError(GradfreeError, ValueError)`.
    NonFinite,
    /// `CheckpointError(GradfreeError, ValueError)`.
    Checkpoint,
    /// `ModelFitError(GradfreeError, ArithmeticError)`.
    ModelFit,
    /// `TooLargeError(GradfreeError, MemoryError)`.
    TooLarge,
    /// `DataError(GradfreeError, ValueError)`.
    Data,
    /// `NotOfferedError(GradfreeError, AttributeError)`.
    NotOffered,
}

/// The classes, made once by [`register`].
struct Classes {
    base: Py<PyType>,
    invalid: Py<PyType>,
    non_finite: Py<PyType>,
    checkpoint: Py<PyType>,
    model_fit: Py<PyType>,
    too_large: Py<PyType>,
    data: Py<PyType>,
    not_offered: Py<PyType>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

/// `type(name, bases, {"__doc__": doc, "__module__": "gradfree.errors"})`.
fn make_class(py: Python<'_>, name: &str, bases: Bound<'_, PyTuple>, doc: &str) -> PyResult<Py<PyType>> {
    let ns = PyDict::new(py);
    ns.set_item("__doc__", doc)?;
    ns.set_item("__module__", "gradfree.errors")?;
    let cls = py.get_type::<PyType>().call1((name, bases, ns))?;
    Ok(cls.cast_into::<PyType>()?.unbind())
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let base = make_class(py, "GradfreeError", PyTuple::new(py, [py.get_type::<PyException>()])?, "Base class of gradfree's errors.")?;
        let with = |builtin: Bound<'_, PyType>, name: &str, doc: &str| {
            make_class(py, name, PyTuple::new(py, [base.bind(py).clone(), builtin])?, doc)
        };
        Ok(Classes {
            invalid: with(
                py.get_type::<PyValueError>(),
                "InvalidParameterError",
                "A parameter, shape or call order outside what is accepted; the message names it and the accepted range.",
            )?,
            non_finite: with(
                py.get_type::<PyValueError>(),
                "NonFiniteError",
                "An objective or integrand value was NaN or infinite under the ``error`` policy.",
            )?,
            checkpoint: with(
                py.get_type::<PyValueError>(),
                "CheckpointError",
                "A saved state (pickle, checkpoint) is corrupt, foreign or inconsistent.",
            )?,
            model_fit: with(
                py.get_type::<PyArithmeticError>(),
                "ModelFitError",
                "A model could not be fitted: a Gaussian process whose kernel matrix stayed singular at every jitter of \
                 the ladder (e.g. many duplicated points with zero noise), or a moment-adjusted step whose per-sample \
                 gradients had no spread at all.",
            )?,
            too_large: with(
                py.get_type::<PyMemoryError>(),
                "TooLargeError",
                "A size whose memory or running time this machine cannot afford; nothing was allocated.",
            )?,
            data: with(
                py.get_type::<PyValueError>(),
                "DataError",
                "Data that cannot be used: no rows, NaN or infinite values, responses outside the model's range, a \
                 stream that ended before one step; the message names the row or the rule.",
            )?,
            not_offered: with(
                py.get_type::<PyAttributeError>(),
                "NotOfferedError",
                "A statistic the fit's method does not offer: a chain method's spread asked for as a standard error or \
                 confidence interval (the message says what to use instead).",
            )?,
            base,
        })
    })
}

/// Adds the classes to the extension module (`gradfree._gradfree.GradfreeError`, ...).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let c = classes(m.py())?;
    for cls in [&c.base, &c.invalid, &c.non_finite, &c.checkpoint, &c.model_fit, &c.too_large, &c.data, &c.not_offered] {
        let cls = cls.bind(m.py());
        m.add(cls.getattr("__name__")?.extract::<String>()?, cls)?;
    }
    Ok(())
}

/// An exception of kind `kind` with `message`.
pub(crate) fn new_err(kind: Kind, message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| match classes(py) {
        Ok(c) => {
            let cls = match kind {
                Kind::Other => &c.base,
                Kind::InvalidParameter => &c.invalid,
                Kind::NonFinite => &c.non_finite,
                Kind::Checkpoint => &c.checkpoint,
                Kind::ModelFit => &c.model_fit,
                Kind::TooLarge => &c.too_large,
                Kind::Data => &c.data,
                Kind::NotOffered => &c.not_offered,
            };
            PyErr::from_type(cls.bind(py).clone(), message)
        }
        Err(e) => e,
    })
}

/// The Python keyword of a library parameter where the two differ (the library names a field of
/// its options type, e.g. `gradfree_core::StopRules::max_evaluations`; the ES classes take
/// pycma-like keywords, the BO classes scikit-optimize's).
pub(crate) fn keyword(name: &'static str) -> &'static str {
    match name {
        "max_evaluations" => "max_evals",
        "max_generations" => "max_gens",
        "tol_f" => "tol_fun",
        "tol_f_window" => "tol_fun_window",
        "n_initial" => "n_initial_points",
        "budget" => "n_calls",
        other => other,
    }
}

/// A Rust error as a Python exception: its [`Kind`] by a match on its variants, its message with
/// Python's spelling of parameters and Python's hints.
pub(crate) trait ToPyErr: Sized {
    /// The class it becomes.
    fn kind(&self) -> Kind;
    /// Its message, as a Python user reads it.
    fn message(&self) -> String;
    /// The exception.
    fn to_py(self) -> PyErr {
        new_err(self.kind(), self.message())
    }
}

impl ToPyErr for CoreError {
    fn kind(&self) -> Kind {
        match self {
            CoreError::NonFinite { .. } => Kind::NonFinite,
            CoreError::TooLarge { .. } => Kind::TooLarge,
            CoreError::Format { .. } => Kind::Checkpoint,
            _ => Kind::InvalidParameter,
        }
    }
    fn message(&self) -> String {
        match self {
            CoreError::InvalidParameter { name, value, expected } => {
                CoreError::InvalidParameter { name: keyword(name), value: value.clone(), expected: expected.clone() }.to_string()
            }
            CoreError::TooLarge { what, bytes, limit, param: Some(p) } => {
                CoreError::TooLarge { what: what.clone(), bytes: *bytes, limit: *limit, param: Some(Box::new((keyword(p.0), p.1.clone()))) }
                    .to_string()
            }
            e @ CoreError::NonFinite { .. } => format!("{e}: pass on_nonfinite=\"treat-as-inf\""),
            e => e.to_string(),
        }
    }
}

/// The kind and message of an error that wraps a core error in a `Core` variant, else `other`.
macro_rules! wraps_core {
    ($ty:ty, $core:path, |$e:ident| $other:expr) => {
        impl ToPyErr for $ty {
            fn kind(&self) -> Kind {
                match self {
                    $core(c) => c.kind(),
                    _ => Kind::InvalidParameter,
                }
            }
            fn message(&self) -> String {
                match self {
                    $core(c) => c.message(),
                    $e => $other,
                }
            }
        }
    };
}

wraps_core!(gradfree_es::EsError, gradfree_es::EsError::Core, |e| e.to_string());
wraps_core!(gradfree_qmc::QmcError, gradfree_qmc::QmcError::Core, |e| e.to_string());
wraps_core!(gradfree_problems::ProblemError, gradfree_problems::ProblemError::Core, |e| e.to_string());
wraps_core!(gradfree_data::DataError, gradfree_data::DataError::Core, |e| e.to_string());

impl ToPyErr for gradfree_features::FeatureError {
    fn kind(&self) -> Kind {
        match self {
            gradfree_features::FeatureError::Core(c) => c.kind(),
            gradfree_features::FeatureError::Qmc(q) => q.kind(),
            _ => Kind::InvalidParameter,
        }
    }
    fn message(&self) -> String {
        match self {
            gradfree_features::FeatureError::Core(c) => c.message(),
            gradfree_features::FeatureError::Qmc(q) => q.message(),
            e => e.to_string(),
        }
    }
}

impl ToPyErr for gradfree_bo::BoError {
    fn kind(&self) -> Kind {
        match self {
            gradfree_bo::BoError::Core(c) => c.kind(),
            gradfree_bo::BoError::FitFailed(_) => Kind::ModelFit,
            gradfree_bo::BoError::BadInput(_) => Kind::InvalidParameter,
        }
    }
    fn message(&self) -> String {
        match self {
            gradfree_bo::BoError::Core(c) => c.message(),
            e => e.to_string(),
        }
    }
}

impl ToPyErr for gradfree_inference::InferenceError {
    fn kind(&self) -> Kind {
        use gradfree_inference::InferenceError as I;
        match self {
            I::Core(c) => c.kind(),
            I::Data(d) => d.kind(),
            I::BadData(_) => Kind::Data,
            I::SingularCovariance(_) => Kind::ModelFit,
            I::NotOffered(_) => Kind::NotOffered,
        }
    }
    fn message(&self) -> String {
        use gradfree_inference::InferenceError as I;
        match self {
            I::Core(c) => c.message(),
            I::Data(d) => d.message(),
            e => e.to_string(),
        }
    }
}

impl ToPyErr for gradfree_robust::RobustError {
    fn kind(&self) -> Kind {
        use gradfree_robust::RobustError as R;
        match self {
            R::Core(c) => c.kind(),
            R::Data(d) => d.kind(),
            R::BadData(_) => Kind::Data,
        }
    }
    fn message(&self) -> String {
        use gradfree_robust::RobustError as R;
        match self {
            R::Core(c) => c.message(),
            R::Data(d) => d.message(),
            e => e.to_string(),
        }
    }
}

impl ToPyErr for gradfree_experiments::ExperimentError {
    fn kind(&self) -> Kind {
        use gradfree_experiments::ExperimentError as E;
        match self {
            E::Core(c) => c.kind(),
            E::Es(e) => e.kind(),
            E::Qmc(e) => e.kind(),
            E::Features(e) => e.kind(),
            E::Bo(e) => e.kind(),
            E::Problem(e) => e.kind(),
            E::Data(e) => e.kind(),
            E::Inference(e) => e.kind(),
            E::Robust(e) => e.kind(),
            E::Invalid(_) | E::Unknown { .. } => Kind::InvalidParameter,
            E::Io { .. } | E::Json(_) | E::MissingDependency { .. } => Kind::Other,
        }
    }
    fn message(&self) -> String {
        use gradfree_experiments::ExperimentError as E;
        match self {
            E::Core(c) => c.message(),
            E::Es(e) => e.message(),
            E::Qmc(e) => e.message(),
            E::Features(e) => e.message(),
            E::Bo(e) => e.message(),
            E::Problem(e) => e.message(),
            E::Data(e) => e.message(),
            E::Inference(e) => e.message(),
            E::Robust(e) => e.message(),
            e => e.to_string(),
        }
    }
}
