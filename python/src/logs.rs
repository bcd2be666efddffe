//! What a run driven from Python writes and shows, with the library's pieces: the JSON-lines log
//! of `gradfree optimize --log` ([`RunLog`], so `gradfree plot` draws a Python run like any other
//! and a resumed run's log reads as the uninterrupted run's), atomic file writes
//! ([`atomic_write`]) and the command line's progress bars ([`Progress`]).

use std::path::PathBuf;

use std::sync::Mutex;

use gradfree_core::files::Claim;
use gradfree_core::{GenerationWithExtras, JsonLinesLog, Role, RunFiles};
use pyo3::prelude::*;

use crate::err;
use crate::errors::ToPyErr;

/// `RunLog(path, resume_generation=None, run_id=None)`: a JSON-lines log
/// ([`gradfree_core::JsonLinesLog`]), created, or for a run resumed after `resume_generation`
/// generations reopened with the records of later generations (written after the checkpoint, and
/// replayed) removed. `run_id` names the run: its `start` records carry it, and a resumed log must
/// carry it already (one that another run took over is refused, naming both runs).
#[pyclass(module = "gradfree._gradfree")]
struct RunLog {
    log: JsonLinesLog,
}

/// A JSON object given by the caller.
fn object(what: &str, json: &str) -> PyResult<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(json) {
        Ok(serde_json::Value::Object(m)) if !m.contains_key("type") => Ok(m),
        Ok(serde_json::Value::Object(_)) => Err(err(format!("{what}: the key `type` is the log's own"))),
        Ok(_) => Err(err(format!("{what}: expected a JSON object"))),
        Err(e) => Err(err(format!("{what}: not JSON ({e})"))),
    }
}

#[pymethods]
impl RunLog {
    #[new]
    #[pyo3(signature = (path, resume_generation = None, run_id = None))]
    fn new(path: PathBuf, resume_generation: Option<u64>, run_id: Option<&str>) -> PyResult<Self> {
        let log = match resume_generation {
            Some(g) => JsonLinesLog::resume_run(&path, g, run_id),
            None => JsonLinesLog::create(&path).map(|l| l.owned_by(run_id)),
        };
        Ok(RunLog { log: log.map_err(ToPyErr::to_py)? })
    }

    /// Writes the `start` record: a JSON object (e.g. `algorithm`, `dim`, `population_size` and
    /// the run's settings).
    fn start(&mut self, info_json: &str) -> PyResult<()> {
        let info = object("start record", info_json)?;
        self.log.write("start", &info).map_err(ToPyErr::to_py)
    }

    /// Writes one `generation` record: the fields of `gradfree_core::GenerationRecord`
    /// (`generation`, `evaluations`, `best_f`, `gen_best_f`, `gen_median_f`, `scale`, `seconds`)
    /// and any of the caller's own. A record without the standard fields is refused.
    fn generation(&mut self, record_json: &str) -> PyResult<()> {
        object("generation record", record_json)?;
        let record: GenerationWithExtras = serde_json::from_str(record_json).map_err(|e| err(format!("generation record: {e}")))?;
        self.log.write("generation", &record).map_err(ToPyErr::to_py)
    }

    /// Writes the `finish` record: a JSON object (e.g. the run's result).
    fn finish(&mut self, result_json: &str) -> PyResult<()> {
        let result = object("finish record", result_json)?;
        self.log.write("finish", &result).map_err(ToPyErr::to_py)
    }
}

/// `FileClaim(files, overwrite=False)`: the files a run started from Python writes, taken for it
/// as `gradfree optimize` takes its own ([`gradfree_core::RunFiles::claim`]): `files` is a list of
/// `(role, parameter, path)` with role `"input"`, `"output"`, `"log"`, `"checkpoint"` (a new run's:
/// refused if it exists, unless `overwrite`) or `"resumed"` (the checkpoint a resumed run keeps
/// writing). Every file is checked against the command line's file policy, and each file written
/// gets a lock (`flock`) that a second run on the same file finds taken, naming the process that
/// holds it. The claim lasts until [`FileClaim::release`], the end of a `with` block, or the
/// process's end.
#[pyclass(module = "gradfree._gradfree")]
struct FileClaim {
    claim: Option<Claim>,
}

/// The parameter names of claims, kept for the process's life (a run has a handful).
static PARAMS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// `param` as a name that lives as long as the process, each distinct name stored once.
fn interned(param: &str) -> &'static str {
    let mut v = PARAMS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = v.iter().find(|s| **s == param) {
        return s;
    }
    let s: &'static str = Box::leak(param.to_string().into_boxed_str());
    v.push(s);
    s
}

#[pymethods]
impl FileClaim {
    #[new]
    #[pyo3(signature = (files, overwrite = false))]
    fn new(py: Python<'_>, files: Vec<(String, String, PathBuf)>, overwrite: bool) -> PyResult<Self> {
        let mut run = RunFiles::new().overwrite(overwrite);
        for (role, param, path) in &files {
            let role = match role.as_str() {
                "input" => Role::Input,
                "output" => Role::Output,
                "log" => Role::Log,
                "checkpoint" => Role::Checkpoint,
                "resumed" => Role::Resumed,
                other => {
                    return Err(err(format!("role is {other:?}; expected 'input', 'output', 'log', 'checkpoint' or 'resumed'")));
                }
            };
            run = run.add(role, interned(param), Some(path));
        }
        let claim = py.detach(|| run.claim()).map_err(ToPyErr::to_py)?;
        Ok(FileClaim { claim: Some(claim) })
    }

    /// Gives the files up (their lock files are removed); calling it again does nothing.
    fn release(&mut self) {
        self.claim = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.release();
        false
    }
}

/// A new run's identity for its log and checkpoint ([`gradfree_core::observer::new_run_id`]).
#[pyfunction]
fn new_run_id() -> String {
    gradfree_core::observer::new_run_id()
}

/// Writes `data` to `path` atomically ([`gradfree_core::atomic_write`]: a temporary file in the
/// same folder, synced and renamed; a target that is not a regular file is never replaced).
#[pyfunction]
fn atomic_write(py: Python<'_>, path: PathBuf, data: Vec<u8>) -> PyResult<()> {
    py.detach(|| gradfree_core::atomic_write(&path, &data)).map_err(ToPyErr::to_py)
}

/// `Progress(total, template)`: a progress bar on standard error, drawn only on a terminal
/// ([`gradfree_experiments::progress::bar`]; `template` is indicatif's, e.g. `"{bar:24} {pos}/{len}
/// {msg}"`).
#[pyclass(module = "gradfree._gradfree")]
struct Progress {
    bar: gradfree_experiments::progress::ProgressBar,
}

#[pymethods]
impl Progress {
    #[new]
    #[pyo3(signature = (total = None, template = "{spinner} [{elapsed_precise}] {bar:24} {pos}/{len}  {msg}"))]
    fn new(total: Option<u64>, template: &str) -> Self {
        Progress { bar: gradfree_experiments::progress::bar(total, template, true) }
    }

    /// Moves the bar to `position` with `message`.
    #[pyo3(signature = (position, message = ""))]
    fn update(&self, position: u64, message: &str) {
        self.bar.set_position(position);
        self.bar.set_message(message.to_string());
    }

    /// Removes the bar.
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Registers this module's classes and functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RunLog>()?;
    m.add_class::<Progress>()?;
    m.add_class::<FileClaim>()?;
    m.add_function(wrap_pyfunction!(atomic_write, m)?)?;
    m.add_function(wrap_pyfunction!(new_run_id, m)?)?;
    Ok(())
}
