//! Atomic files and checkpoints.
//!
//! A checkpoint is one JSON document `{"format": "gradfree-checkpoint", "version": 1, "meta":
//! ..., "optimizer": ..., "driver": ...}`. Floats are written with the shortest representation
//! that round-trips and read back with `serde_json`'s exact (`float_roundtrip`) parser, so a
//! resumed run continues bit-identically. Files are written to a temporary file in the same folder,
//! synced, and renamed over the target: a crash leaves either the old or the new checkpoint.

use std::io::Write;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{CoreError, DriverState};

const FORMAT: &str = "gradfree-checkpoint";
const VERSION: u32 = 1;

/// Writes `bytes` to `path` atomically (temp file in the same folder + fsync + rename).
pub fn atomic_write(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), CoreError> {
    let path = path.as_ref();
    let io = |source| CoreError::Io { path: path.to_owned(), cause: source };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| io(std::io::Error::other("not a file path")))?;
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// A loaded checkpoint: the caller's metadata (e.g. the CLI's run specification), the optimizer
/// state and the driver state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint<O> {
    /// Always `"gradfree-checkpoint"`.
    pub format: String,
    /// Format version (1).
    pub version: u32,
    /// Free-form metadata of the caller.
    pub meta: serde_json::Value,
    /// The optimizer's full state, generator included.
    pub optimizer: O,
    /// The driver's counters, best point and stop-rule history.
    pub driver: DriverState,
}

#[derive(Serialize)]
struct CheckpointRef<'a, O> {
    format: &'a str,
    version: u32,
    meta: &'a serde_json::Value,
    optimizer: &'a O,
    driver: &'a DriverState,
}

/// Saves a checkpoint atomically.
pub fn save_checkpoint<O: Serialize>(
    path: impl AsRef<Path>,
    meta: &serde_json::Value,
    optimizer: &O,
    driver: &DriverState,
) -> Result<(), CoreError> {
    let path = path.as_ref();
    let doc = CheckpointRef { format: FORMAT, version: VERSION, meta, optimizer, driver };
    let bytes = serde_json::to_vec(&doc)
        .map_err(|e| CoreError::Format { path: path.to_owned(), message: format!("cannot serialize checkpoint: {e}") })?;
    atomic_write(path, &bytes)
}

/// Loads a checkpoint, checking its format tag and version; any problem is a
/// [`CoreError::Checkpoint`] or [`CoreError::Io`] naming the file.
pub fn load_checkpoint<O: DeserializeOwned>(path: impl AsRef<Path>) -> Result<Checkpoint<O>, CoreError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| CoreError::Io { path: path.to_owned(), cause: source })?;
    let bad = |message: String| CoreError::Format { path: path.to_owned(), message: format!("not a valid checkpoint: {message}") };
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| bad(format!("not JSON ({e})")))?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT) => {}
        _ => return Err(bad(format!("missing format tag \"{FORMAT}\""))),
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(VERSION) => {}
        other => return Err(bad(format!("unsupported version {other:?}, expected {VERSION}"))),
    }
    let ck: Checkpoint<O> = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    ck.driver.validate().map_err(bad)?;
    Ok(ck)
}
