//! Experiment bindings: list and run the experiments of `gradfree_experiments` from Python; the
//! report (tables, figures as data, notes) comes back as JSON for the Python layer to wrap.

use gradfree_experiments::{Ctx, Experiment, find};
use pyo3::prelude::*;

use crate::err;
use crate::errors::{Kind, ToPyErr, new_err};

/// Every registry of the project as JSON, as `gradfree list --json` prints it: an object whose
/// keys are `algorithms`, `problems`, `feature_methods`, `bo_methods` and `experiments`, each a list
/// of entries with at least `name`, `summary` and `source` (`gradfree_experiments::registries`).
#[pyfunction]
fn registries_json() -> PyResult<String> {
    let all: serde_json::Map<String, serde_json::Value> =
        gradfree_experiments::registries().iter().map(|r| (r.key.to_string(), r.to_json())).collect();
    serde_json::to_string(&all).map_err(err)
}

fn method_json(r: &gradfree_es::Recommended) -> serde_json::Value {
    serde_json::json!({
        "algorithm": r.algorithm,
        "restarts": r.restarts.name(),
        "params": r.params_json(),
        "settle_runs": r.settle_runs,
        "worse_runs": r.worse_runs,
        "default_settle_runs": {
            "with_target": r.default_settle_runs(true),
            "without_target": r.default_settle_runs(false),
        },
        "description": r.describe(),
    })
}

/// The recommended method ([`gradfree_es::RECOMMENDED`]) as JSON: `algorithm`, `restarts` (the
/// scheme), `params`, `settle_runs` (the restarts' settle rule), `worse_runs` (their worse-optimum
/// rule), `default_settle_runs` (the rule a
/// run gets when the caller names none, `with_target` and `without_target`:
/// [`gradfree_es::Recommended::default_settle_runs`]) and a one-line `description`.
#[pyfunction]
fn recommended_json() -> PyResult<String> {
    serde_json::to_string(&method_json(&gradfree_es::RECOMMENDED)).map_err(err)
}

/// The named presets ([`gradfree_es::recommended::PRESETS`], e.g. `surrogate`) as a JSON object of
/// name to the fields of [`recommended_json`].
#[pyfunction]
fn presets_json() -> PyResult<String> {
    let all: serde_json::Map<String, serde_json::Value> =
        gradfree_es::recommended::PRESETS.iter().map(|(n, r)| (n.to_string(), method_json(r))).collect();
    serde_json::to_string(&all).map_err(err)
}

/// Runs experiment `name` with its run cache in `out` (created) and returns its report as JSON
/// (`tables`, `figures`, `notes`). The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (name, out, quick = false, seed = 0, runs = None, reuse_runs = true))]
fn run_experiment(
    py: Python<'_>,
    name: &str,
    out: std::path::PathBuf,
    quick: bool,
    seed: u64,
    runs: Option<usize>,
    reuse_runs: bool,
) -> PyResult<String> {
    let e = find(name).map_err(err)?;
    if let Some(r) = runs.filter(|r| !(1..=gradfree_experiments::MAX_RUNS).contains(r)) {
        return Err(err(format!("invalid parameter `runs` = {r}: must be an integer in 1..={} or None", gradfree_experiments::MAX_RUNS)));
    }
    std::fs::create_dir_all(&out).map_err(|e| new_err(Kind::Other, format!("{}: {e}", out.display())))?;
    let ctx = Ctx { quick, out, seed, runs, reuse_runs, progress: None };
    let report = py.detach(|| e.run(&ctx)).map_err(|e| new_err(e.kind(), format!("experiment {name}: {}", e.message())))?;
    serde_json::to_string(&report).map_err(err)
}

/// Registers this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(registries_json, m)?)?;
    m.add_function(wrap_pyfunction!(recommended_json, m)?)?;
    m.add_function(wrap_pyfunction!(presets_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_experiment, m)?)?;
    Ok(())
}
