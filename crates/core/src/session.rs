//! A run with its outputs: one [`Driver`] to its end, writing a JSON-lines log and checkpoints and
//! reporting to the caller's observers (a progress bar). Every front end that runs an optimizer to
//! completion — `gradfree optimize`, `gradfree bo`, and whatever comes next — wires its outputs
//! here, so logs, checkpoints and resumes behave the same for all of them.

use std::path::PathBuf;

use serde::Serialize;

use crate::{AskTell, CheckpointPolicy, CoreError, Driver, JsonLinesLog, Objective, Observer, RunResult};

/// Where a run writes.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    /// A JSON-lines log of every generation ([`JsonLinesLog`]): created for a new run, reopened at
    /// the checkpoint's generation for a resumed one (records written after that checkpoint are
    /// dropped, so the log reads as the uninterrupted run's).
    pub log: Option<PathBuf>,
    /// Checkpoints ([`CheckpointPolicy`]).
    pub checkpoint: Option<CheckpointPolicy>,
    /// The run's identity ([`crate::observer::new_run_id`]), written into its log's `start`
    /// records; a resumed run's log must carry it ([`JsonLinesLog::resume_run`]).
    pub run_id: Option<String>,
}

impl Outputs {
    /// Checks before anything runs: the log and the checkpoint are different files, and the
    /// checkpoint target is a regular file or does not exist yet (nothing is replaced that is not
    /// ours to replace). Errors name the parameters `log` and `checkpoint`.
    pub fn check(&self) -> Result<(), CoreError> {
        if let Some(c) = &self.checkpoint {
            crate::check_writable_target(&c.path)?;
            if let Some(l) = &self.log
                && same_file(l, &c.path)
            {
                return Err(CoreError::invalid("log", l.display(), "a file other than the checkpoint"));
            }
        }
        Ok(())
    }
}

/// Runs `driver` on `objective` until a stop rule fires, with the log and checkpoints of `outputs`
/// (checked first, [`Outputs::check`]) and the caller's `observers` after the log. `resumed`: the
/// driver continues a checkpoint (its log is reopened at the driver's generation). Returns the
/// result and the driver (for the optimizer's final state).
pub fn run_with_outputs<A, F>(
    driver: Driver<A>,
    objective: &F,
    outputs: Outputs,
    resumed: bool,
    observers: &mut [&mut dyn Observer],
) -> Result<(RunResult, Driver<A>), CoreError>
where
    A: AskTell + Serialize,
    F: Objective + Sync + ?Sized,
{
    outputs.check()?;
    let mut driver = match outputs.checkpoint {
        Some(policy) => driver.with_checkpoints(policy)?,
        None => driver,
    };
    let mut log = match &outputs.log {
        Some(p) if resumed => Some(JsonLinesLog::resume_run(p, driver.generations(), outputs.run_id.as_deref())?),
        Some(p) => Some(JsonLinesLog::create(p)?.owned_by(outputs.run_id.as_deref())),
        None => None,
    };
    let mut all: Vec<&mut dyn Observer> = Vec::with_capacity(observers.len() + 1);
    if let Some(l) = log.as_mut() {
        all.push(l);
    }
    for o in observers.iter_mut() {
        all.push(&mut **o);
    }
    let result = driver.run(objective, &mut all)?;
    Ok((result, driver))
}

pub use crate::files::same_file;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_refuse_one_file_for_both_and_foreign_targets() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("run.ckpt");
        let policy = |path: PathBuf| CheckpointPolicy { path, every: Some(1), seconds: None, meta: serde_json::json!({}) };
        let same = Outputs { log: Some(f.clone()), checkpoint: Some(policy(f.clone())), run_id: None };
        assert!(same.check().unwrap_err().to_string().contains("a file other than the checkpoint"));
        let dotted = Outputs { log: Some(dir.path().join(".").join("run.ckpt")), checkpoint: Some(policy(f.clone())), run_id: None };
        assert!(dotted.check().is_err(), "the same file by another path");
        assert!(Outputs { log: Some(dir.path().join("run.jsonl")), checkpoint: Some(policy(f)), run_id: None }.check().is_ok());
        assert!(Outputs { log: None, checkpoint: Some(policy(dir.path().to_path_buf())), run_id: None }.check().is_err(), "a folder");
    }
}
