//! The files of a run that checkpoints, for [`gradfree_core::RunFiles`]: a resumed run keeps
//! writing the checkpoint it came from (its own), or reads it and writes a new one given by
//! `--checkpoint`, which like any new run's checkpoint must not exist unless `--overwrite`.

use std::path::Path;

use anyhow::{Result, bail};
use gradfree_core::files::same_file;
use gradfree_core::{Checkpoint, Role, RunFiles, StateCheck, parse_checkpoint, read_regular_file};
use serde::de::DeserializeOwned;

/// The checkpoint, resume and log files of a run (commands add their inputs and outputs).
pub fn checkpointed(resume: Option<&Path>, checkpoint: Option<&Path>, log: Option<&Path>, overwrite: bool) -> RunFiles {
    let (resumed_into, new_checkpoint) = match (resume, checkpoint) {
        (Some(r), Some(c)) if !same_file(r, c) => (None, Some(c)),
        (Some(r), _) => (Some(r), None),
        (None, c) => (None, c),
    };
    RunFiles::new()
        .add(Role::Resumed, "--resume", resumed_into)
        .add(Role::Input, "--resume", resume.filter(|_| resumed_into.is_none()))
        .add(Role::Checkpoint, "--checkpoint", new_checkpoint)
        .add(Role::Log, "--log", log)
        .overwrite(overwrite)
}

/// The command whose checkpoint has this metadata, told by the fields each writes: `infer` its
/// cadence and record file, `train` its run and data only, `bo` its rounds and design size,
/// `optimize` its algorithm and stop rules.
fn writer_of(meta: &serde_json::Value) -> Option<&'static str> {
    let has = |k: &str| meta.get(k).is_some();
    if has("cadence") && has("records") {
        Some("infer")
    } else if has("rounds") && has("n_initial") {
        Some("bo")
    } else if has("algorithm") && has("stop") {
        Some("optimize")
    } else if has("run") && has("data") {
        Some("train")
    } else {
        None
    }
}

/// The checkpoint at `path` for a `gradfree <command> --resume`: one written by another command
/// is refused naming that command (not with the first field its state lacks).
pub fn load<O: DeserializeOwned + StateCheck>(path: &Path, command: &str) -> Result<Checkpoint<O>> {
    let bytes = read_regular_file(path)?;
    let meta = serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|mut v| v.get_mut("meta").map(serde_json::Value::take));
    if let Some(writer) = meta.as_ref().and_then(writer_of).filter(|w| *w != command) {
        bail!(
            "--resume {}: a checkpoint written by `gradfree {writer}`, not by `gradfree {command}`; resume it with `gradfree {writer} --resume {}`",
            path.display(),
            path.display()
        );
    }
    Ok(parse_checkpoint(path, &bytes)?)
}

/// The key under which a checkpoint's metadata names the run's log (an absolute path), so that
/// `--resume` without `--log` keeps writing the same log and `plot` draws the whole run.
const LOG_KEY: &str = "log";

/// Checkpoint metadata `meta` (a JSON object) with the run's log named in it, if it has one.
pub fn name_log(mut meta: serde_json::Value, log: Option<&Path>) -> serde_json::Value {
    if let (Some(log), Some(map)) = (log, meta.as_object_mut()) {
        let log = std::path::absolute(log).unwrap_or_else(|_| log.to_path_buf());
        map.insert(LOG_KEY.into(), serde_json::Value::String(log.display().to_string()));
    }
    meta
}

/// Takes the run's log named in a checkpoint's metadata out of it (which then reads as the
/// command's metadata); [`resumed_log`] decides whether it is written.
pub fn take_log(meta: &mut serde_json::Value) -> Option<std::path::PathBuf> {
    meta.as_object_mut().and_then(|m| m.remove(LOG_KEY)).and_then(|v| v.as_str().map(std::path::PathBuf::from))
}

/// The log a resumed run writes: `--log` when given, else `saved`, the one its checkpoint names
/// ([`take_log`]), checked as any log is and announced on stderr. A named log that is gone is not
/// re-created (it would hold the rest of the run only): the run goes on without one and says so.
pub fn resumed_log(
    saved: Option<std::path::PathBuf>,
    given: Option<&Path>,
    resume: &Path,
    checkpoint: Option<&Path>,
    overwrite: bool,
) -> Result<Option<std::path::PathBuf>> {
    if let Some(given) = given {
        return Ok(Some(given.to_path_buf()));
    }
    let Some(saved) = saved else { return Ok(None) };
    if !saved.exists() {
        eprintln!("note: the run's log {} is gone; this part of the run is not logged (--log FILE logs it)", saved.display());
        return Ok(None);
    }
    checkpointed(Some(resume), checkpoint, Some(&saved), overwrite).check()?;
    eprintln!("note: logging to {} (the run's log; --log FILE to log elsewhere)", saved.display());
    Ok(Some(saved))
}
