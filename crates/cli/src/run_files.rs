//! The files of a run that checkpoints, for [`gradfree_core::RunFiles`]: a resumed run keeps
//! writing the checkpoint it came from (its own), or reads it and writes a new one given by
//! `--checkpoint`, which like any new run's checkpoint must not exist unless `--overwrite`.

use std::path::Path;

use anyhow::{Result, bail};
use gradfree_core::files::Claim;
use gradfree_core::files::same_file;
use gradfree_core::{Checkpoint, Role, RunFiles, StateCheck, parse_checkpoint, read_regular_file};
use serde::de::DeserializeOwned;

use crate::shared_flags::{CheckpointArgs, RunFilesArgs};

impl CheckpointArgs {
    /// The checkpoint, resume and `log` files of a run (commands add their inputs and outputs).
    pub fn files(&self, log: Option<&Path>) -> RunFiles {
        checkpointed(self.resume.as_deref(), self.checkpoint.as_deref(), log, self.overwrite)
    }
}

impl RunFilesArgs {
    /// The log, checkpoint and resume files of a run.
    pub fn run_files(&self) -> RunFiles {
        self.saved.files(self.log.as_deref())
    }
}

/// The checkpoint, resume and log files of a run (commands add their inputs and outputs).
fn checkpointed(resume: Option<&Path>, checkpoint: Option<&Path>, log: Option<&Path>, overwrite: bool) -> RunFiles {
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

/// The key under which a checkpoint's metadata names its run ([`gradfree_core::observer::new_run_id`]),
/// the identity its log's `start` records carry.
const RUN_KEY: &str = "run_id";

/// Checkpoint metadata `meta` (a JSON object) with the run's identity and log named in it.
pub fn name_log(mut meta: serde_json::Value, log: Option<&Path>, run_id: &str) -> serde_json::Value {
    if let Some(map) = meta.as_object_mut() {
        map.insert(RUN_KEY.into(), serde_json::Value::String(run_id.to_string()));
        if let Some(log) = log {
            let log = std::path::absolute(log).unwrap_or_else(|_| log.to_path_buf());
            map.insert(LOG_KEY.into(), serde_json::Value::String(log.display().to_string()));
        }
    }
    meta
}

/// The log and run a checkpoint names.
pub struct SavedRun {
    /// The run's log, if it had one.
    pub log: Option<std::path::PathBuf>,
    /// The run's identity: the checkpoint's, or a new one for a checkpoint written before runs
    /// had one (whose log then names no run either).
    pub run_id: String,
    /// Whether the checkpoint named its run (so its log must carry the same identity).
    pub named: bool,
}

/// Takes the run's log and identity named in a checkpoint's metadata out of it (which then reads
/// as the command's metadata); [`resumed_log`] decides whether the log is written.
pub fn take_log(meta: &mut serde_json::Value) -> SavedRun {
    let map = meta.as_object_mut();
    let (log, run) = match map {
        Some(m) => (m.remove(LOG_KEY), m.remove(RUN_KEY)),
        None => (None, None),
    };
    let run = run.and_then(|v| v.as_str().map(str::to_string));
    SavedRun {
        log: log.and_then(|v| v.as_str().map(std::path::PathBuf::from)),
        named: run.is_some(),
        run_id: run.unwrap_or_else(gradfree_core::observer::new_run_id),
    }
}

/// The identity the log of a resumed run must carry: the checkpoint's when it named one.
pub fn log_run(saved: &SavedRun) -> Option<String> {
    saved.named.then(|| saved.run_id.clone())
}

/// The log a resumed run writes: `--log` when given, else `saved`, the one its checkpoint names
/// ([`take_log`]), claimed and checked as any log is (it must still be the run's own:
/// [`gradfree_core::JsonLinesLog::resume_run`]) and announced on stderr. A named log that is gone
/// is not re-created (it would hold the rest of the run only): the run goes on without one and
/// says so. The claim is held until the run's last write.
pub fn resumed_log(saved: &SavedRun, resume: &Path, files: &RunFilesArgs) -> Result<(Option<std::path::PathBuf>, Claim)> {
    if let Some(given) = &files.log {
        return Ok((Some(given.clone()), Claim::default()));
    }
    let Some(log) = &saved.log else { return Ok((None, Claim::default())) };
    if !log.exists() {
        eprintln!("note: the run's log {} is gone; this part of the run is not logged (--log FILE logs it)", log.display());
        return Ok((None, Claim::default()));
    }
    let claim = files.saved.files(Some(log)).claim()?;
    if let Some(run) = log_run(saved) {
        let owner = gradfree_core::observer::log_owner(log);
        if owner.as_deref() != Some(run.as_str()) {
            let other =
                owner.map_or("names no run (another run's, or edited)".to_string(), |o| format!("belongs to another run (run {o})"));
            bail!(
                "--resume {}: the run's log {} {other}, not to this checkpoint's run (run {run}); it was left as it is: give --log FILE to log the rest of the run elsewhere",
                resume.display(),
                log.display()
            );
        }
    }
    eprintln!("note: logging to {} (the run's log; --log FILE to log elsewhere)", log.display());
    Ok((Some(log.clone()), claim))
}
