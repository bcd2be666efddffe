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
