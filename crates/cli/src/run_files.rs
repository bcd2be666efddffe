//! The files of a run that checkpoints, for [`gradfree_core::RunFiles`]: a resumed run keeps
//! writing the checkpoint it came from (its own), or reads it and writes a new one given by
//! `--checkpoint`, which like any new run's checkpoint must not exist unless `--overwrite`.

use std::path::Path;

use gradfree_core::files::same_file;
use gradfree_core::{Role, RunFiles};

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
