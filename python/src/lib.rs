//! `gradfree._gradfree`: the Rust core behind the `gradfree` Python package. Thin by design
//! (developers' guide, style 8): validation and numerics live in the Rust crates; this layer maps
//! arrays in and out, turns errors into the typed exceptions of `gradfree.errors` (`errors`), and releases
//! the GIL around heavy work. One module per subsystem: `es`, `qmc`, `features`, `bo`, `inference`, `robust`, `experiments`, and
//! `logs` for the core's run files.

/// The allocator: mimalloc keeps freed pages for reuse where glibc's returned the training
/// stack's per-step tensors to the system (see the workspace manifest).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
/// worker has stopped. A panic of the worker (or of the rayon tasks it waits on) never hangs the
/// caller: it is caught and raised as `gradfree.errors.GradfreeError` naming the panic.
pub(crate) fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    // The worker says when it is done, so a short call returns at once (polling every 20 ms
    // added up to 20 ms to every call); signals are checked every 20 ms meanwhile.
    let done = (std::sync::Mutex::new(false), std::sync::Condvar::new());
    /// Sets `done` when the worker ends, by returning or by unwinding.
    struct Done<'a>(&'a (std::sync::Mutex<bool>, std::sync::Condvar));
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            *self.0.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
            self.0.1.notify_all();
        }
    }
    std::thread::scope(|s| {
        let (cancel, done_ref) = (&cancel, &done);
        let worker = s.spawn(move || {
            let _done = Done(done_ref);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(cancel)))
        });
        loop {
            let finished = py.detach(|| {
                let guard = done.0.lock().unwrap_or_else(|p| p.into_inner());
                let (guard, _) =
                    done.1.wait_timeout_while(guard, std::time::Duration::from_millis(20), |d| !*d).unwrap_or_else(|p| p.into_inner());
                *guard
            });
            if finished {
                return match worker.join() {
                    Ok(Ok(out)) => Ok(out),
                    Ok(Err(payload)) | Err(payload) => Err(panicked(payload)),
                };
            }
            if let Err(e) = py.check_signals() {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                // Without the GIL: a worker that calls back into Python (a user's generator or
                // gradient) needs it to reach its next cancellation check.
                let _ = py.detach(|| worker.join());
                return Err(e);
            }
        }
    })
}

/// The exception of a caught panic: `GradfreeError("internal error: ...")` with the panic's
/// message, so a bug surfaces as an exception in the caller instead of a dead or hung interpreter.
pub(crate) fn panicked(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    errors::new_err(errors::Kind::Other, format!("internal error (a bug of gradfree; please report it): {what}"))
}

/// `_test_worker_panic()`: panics inside [`interruptible`]'s worker, in a rayon task of it; the
/// test suite checks that this raises instead of hanging.
#[pyfunction]
fn _test_worker_panic(py: Python<'_>) -> PyResult<()> {
    interruptible(py, |_| {
        use rayon::prelude::*;
        (0..4).into_par_iter().for_each(|i| {
            if i == 3 {
                panic!("injected panic for the test suite");
            }
        });
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

/// A library options type (`InferenceSpec`, `ModelSpec`, `TrainRunSpec`, `NokSpec`) from the
/// JSON object the Python layer built from its keywords. A value the type cannot hold (an integer
/// past 2^64, a string for a number) is an `InvalidParameterError` naming its keyword, never a
/// position in a JSON text the user did not write.
pub(crate) fn options<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> PyResult<T> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| err(format!("invalid {what}: {e}")))?;
    serde_json::from_value(value.clone()).map_err(|e| {
        // Find the keyword whose value the type refuses, alone.
        let culprit = value.as_object().and_then(|m| {
            m.iter().find_map(|(k, v)| {
                let one = serde_json::Value::Object(std::iter::once((k.clone(), v.clone())).collect());
                serde_json::from_value::<T>(one).err().map(|e| (k.clone(), v.clone(), e))
            })
        });
        match culprit {
            Some((k, v, e)) => {
                let why = e.to_string();
                let why = why.split(" at line ").next().unwrap_or(&why).to_string();
                err(format!("invalid parameter `{}` = {v}: {why}", keyword_of(&k)))
            }
            None => err(format!("invalid {what}: {}", e.to_string().split(" at line ").next().unwrap_or_default())),
        }
    })
}

/// The Python keyword of a JSON field of an options type (`lambda` is `lam` in Python).
fn keyword_of(field: &str) -> &str {
    match field {
        "lambda" => "lam",
        other => other,
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

/// Bytes of memory this process may plan to use ([`gradfree_core::memory::available_bytes`]: the
/// least of `MemAvailable` plus free swap, the room under `ulimit -v` and under the cgroup's
/// `memory.max`, lowered by `GRADFREE_MEMORY_LIMIT`): the figure every size check compares with,
/// for the Python layer's checks made before an array is copied.
#[pyfunction]
fn available_bytes() -> u64 {
    gradfree_core::memory::available_bytes()
}

#[pymodule]
fn _gradfree(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(available_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(_test_worker_panic, m)?)?;
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
