//! `gradfree._gradfree`: the Rust core behind the `gradfree` Python package. Thin by design
//! (developers' guide, style 8): validation and numerics live in the Rust crates; this layer maps
//! arrays in and out, turns errors into the typed exceptions of `gradfree.errors`, and releases
//! the GIL around heavy work. One module per subsystem: [`es`], [`qmc`], [`features`], [`experiments`].

mod bo;
mod es;
mod experiments;
mod features;
mod qmc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::sync::atomic::AtomicBool;

/// One of the classes of `gradfree.errors` (falls back to `ValueError` if the package is absent).
pub(crate) fn typed(kind: &str, message: String) -> PyErr {
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
pub(crate) fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    // The worker says when it is done, so a short call returns at once (polling every 20 ms
    // added up to 20 ms to every call); signals are checked every 20 ms meanwhile.
    let done = (std::sync::Mutex::new(false), std::sync::Condvar::new());
    std::thread::scope(|s| {
        let (cancel, done_ref) = (&cancel, &done);
        let worker = s.spawn(move || {
            let out = f(cancel);
            *done_ref.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
            done_ref.1.notify_all();
            out
        });
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|p| p.into_inner());
                let (guard, _) =
                    done.1.wait_timeout_while(guard, std::time::Duration::from_millis(20), |d| !*d).unwrap_or_else(|p| p.into_inner());
                *guard
            });
            if finished {
                return worker.join().map_err(|_| err("internal error: the worker thread panicked"));
            }
            if let Err(e) = py.check_signals() {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                let _ = worker.join();
                return Err(e);
            }
        }
    })
}

/// Ends a run at the next generation once its flag is set (Ctrl-C through [`interruptible`]).
pub(crate) struct StopOnCancel<'a>(&'a AtomicBool);

impl gradfree_core::Observer for StopOnCancel<'_> {
    fn on_generation(&mut self, _record: &gradfree_core::GenerationRecord) -> Result<(), gradfree_core::CoreError> {
        if self.0.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(gradfree_core::CoreError::Observer("interrupted".into()));
        }
        Ok(())
    }
}

/// An invalid parameter, shape or value: `gradfree.errors.InvalidParameterError`.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    typed("InvalidParameterError", e.to_string())
}

/// A core error, typed by kind: non-finite values, sizes too large, the rest invalid input.
pub(crate) fn core_err(e: gradfree_core::CoreError) -> PyErr {
    use gradfree_core::CoreError as E;
    match e {
        E::NonFinite { .. } => typed("NonFiniteError", e.to_string()),
        E::TooLarge { .. } => typed("TooLargeError", e.to_string()),
        E::Format { .. } => typed("CheckpointError", e.to_string()),
        e => err(e),
    }
}

/// An ES error, typed as [`core_err`].
pub(crate) fn es_err(e: gradfree_es::EsError) -> PyErr {
    match e {
        gradfree_es::EsError::Core(c) => core_err(c),
        e => err(e),
    }
}

/// A QMC error: sizes too large are `TooLargeError`, the rest invalid input.
pub(crate) fn qmc_err(e: gradfree_qmc::QmcError) -> PyErr {
    match e {
        gradfree_qmc::QmcError::TooLarge(m) => typed("TooLargeError", m),
        e => err(e),
    }
}

/// A problem error: sizes too large are `TooLargeError`, the rest invalid input.
pub(crate) fn problem_err(e: gradfree_problems::ProblemError) -> PyErr {
    match e {
        gradfree_problems::ProblemError::Memory(c) => core_err(c),
        e => err(e),
    }
}

#[pymodule]
fn _gradfree(m: &Bound<'_, PyModule>) -> PyResult<()> {
    bo::register(m)?;
    es::register(m)?;
    experiments::register(m)?;
    features::register(m)?;
    qmc::register(m)?;
    Ok(())
}
