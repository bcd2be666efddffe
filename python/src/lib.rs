//! `gradfree._gradfree`: the Rust core behind the `gradfree` Python package. Thin by design
//! (developers' guide, style 8): validation and numerics live in the Rust crates; this layer maps
//! arrays in and out, turns errors into the typed exceptions of `gradfree.errors` ([`errors`]), and releases
//! the GIL around heavy work. One module per subsystem: [`es`], [`qmc`], [`features`], [`bo`], [`inference`], [`robust`], [`experiments`], and
//! [`logs`] for the core's run files.

mod bo;
mod errors;
mod es;
mod experiments;
mod features;
mod inference;
mod logs;
mod nok;
mod qmc;
mod robust;

use pyo3::prelude::*;
use std::sync::atomic::AtomicBool;

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
    errors::new_err(errors::Kind::InvalidParameter, e.to_string())
}

/// The library's defaults as JSON, for the Python layer to document and test itself against:
/// `es` ([`gradfree_es::EsSpec`], its `stop` the [`gradfree_core::StopSpec`]), `bo`
/// ([`gradfree_bo::BoParams`]), `lattice_search`
/// ([`gradfree_qmc::lattice::search::SearchSpec`]) and `inference` ([`gradfree_inference::InferenceSpec`] as `run`,
/// [`gradfree_inference::ModelSpec`] as `model`), `robust`
/// ([`gradfree_experiments::train_run::TrainRunSpec`]) and `nok` ([`gradfree_robust::nok::NokSpec`]).
/// Python signatures leave these `None`.
#[pyfunction]
fn defaults_json() -> PyResult<String> {
    let all = serde_json::json!({
        "es": gradfree_es::EsSpec::default(),
        "bo": gradfree_bo::BoParams::default(),
        "lattice_search": gradfree_qmc::lattice::search::SearchSpec::default(),
        "inference": {"run": gradfree_inference::InferenceSpec::default(), "model": gradfree_inference::ModelSpec::default()},
        "robust": gradfree_experiments::train_run::TrainRunSpec::default(),
        "nok": gradfree_robust::nok::NokSpec::default(),
    });
    serde_json::to_string(&all).map_err(err)
}

#[pymodule]
fn _gradfree(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    bo::register(m)?;
    es::register(m)?;
    experiments::register(m)?;
    features::register(m)?;
    inference::register(m)?;
    logs::register(m)?;
    qmc::register(m)?;
    robust::register(m)?;
    nok::register(m)?;
    Ok(())
}
