//! Atomic files and checkpoints.
//!
//! A checkpoint is one JSON document `{"checksum": "crc32:...", "driver": ..., "format":
//! "gradfree-checkpoint", "meta": ..., "optimizer": ..., "version": 2}`. Floats are written with
//! the shortest representation that round-trips and read back with `serde_json`'s exact
//! (`float_roundtrip`) parser, so a resumed run continues bit-identically. The checksum is the
//! CRC-32 of the document without its `checksum` key, serialized with sorted keys, so any change
//! of a value is detected; the restored state is then checked for its invariants
//! ([`StateCheck`]). Version-1 files (no checksum) still load, with the invariant checks.
//!
//! Files are written to a temporary file in the same folder, synced, and renamed over the target:
//! a crash leaves either the old or the new file. A target that exists but is not a regular file
//! (a symlink, device, FIFO or folder) is never replaced, and temporary files left by killed
//! processes are removed by the next successful write.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{CoreError, DriverState, StateCheck};

const FORMAT: &str = "gradfree-checkpoint";
const VERSION: u32 = 2;

/// Refuses to replace anything but a regular file (or nothing): writing a checkpoint over
/// `/dev/full`, a FIFO or a symlink must not turn it into a regular file.
pub fn check_writable_target(path: &Path) -> Result<(), CoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => {
            let kind = crate::files::kind_of(m.file_type());
            Err(CoreError::Io { path: path.to_owned(), cause: std::io::Error::other(format!("is {kind}; refusing to replace it")) })
        }
        Err(_) => Ok(()),
    }
}

fn temp_prefix(path: &Path) -> Option<String> {
    path.file_name().map(|n| format!(".{}.tmp-", n.to_string_lossy()))
}

/// The folder of `path` and this process's temporary file for it there (`.<name>.tmp-<pid>`),
/// the one name every atomic write and every log not yet in place uses; `None` for a path with
/// no file name.
pub(crate) fn temp_path(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!("{}{}", temp_prefix(path)?, std::process::id()));
    Some((dir, tmp))
}

/// Removes `.<name>.tmp-<pid>` files next to `path` whose process no longer runs (Linux: no
/// `/proc/<pid>`); elsewhere nothing is removed. Errors are ignored: this is housekeeping.
pub(crate) fn remove_stale_temps(dir: &Path, path: &Path) {
    let (Some(prefix), true) = (temp_prefix(path), Path::new("/proc/self").exists()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(&prefix)).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `bytes` to `path` atomically (temp file in the same folder + fsync + rename). Refuses a
/// target that is not a regular file ([`check_writable_target`]); on any error the temporary file
/// is removed and the old file, if any, is left as it was.
pub fn atomic_write(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), CoreError> {
    let path = path.as_ref();
    atomic_write_with(path, |w| w.write_all(bytes).map_err(|cause| CoreError::Io { path: path.to_owned(), cause }))
}

/// [`atomic_write`] for content produced piece by piece: `write` streams into a buffered
/// temporary file, which replaces `path` only if `write` succeeds (so a file larger than memory
/// can be written atomically). An error of `write` removes the temporary file and is returned.
pub fn atomic_write_with<E: From<CoreError>>(path: impl AsRef<Path>, write: impl FnOnce(&mut dyn Write) -> Result<(), E>) -> Result<(), E> {
    let path = path.as_ref();
    let io = |cause| CoreError::Io { path: path.to_owned(), cause };
    check_writable_target(path)?;
    let (dir, tmp) = temp_path(path).ok_or_else(|| io(std::io::Error::other("not a file path")))?;
    let file = std::fs::File::create(&tmp).map_err(io)?;
    crate::files::register_temp(&tmp);
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, file);
    let result = write(&mut buffered).and_then(|()| {
        let finish = || -> std::io::Result<()> {
            let file = buffered.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        finish().map_err(|cause| E::from(io(cause)))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    } else {
        remove_stale_temps(&dir, path);
    }
    crate::files::forget_temp(&tmp);
    result
}

fn checksum(doc: &serde_json::Value) -> String {
    // `Value` objects are sorted maps, so this serialization is canonical.
    let bytes = serde_json::to_vec(doc).unwrap_or_default();
    format!("crc32:{:08x}", crc32fast::hash(&bytes))
}

/// `value` as a `T`, or an error that names the field it fails on (`` `stop.tol_f`: invalid type:
/// string "NaN", expected f64 ``), so an edited or damaged state says where it is wrong.
pub fn from_json<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." { inner } else { format!("`{path}`: {inner}") }
    })
}

/// A loaded checkpoint: the caller's metadata (e.g. the CLI's run specification), the optimizer
/// state and the driver state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint<O> {
    /// Always `"gradfree-checkpoint"`.
    pub format: String,
    /// Format version (2; 1 is read too).
    pub version: u32,
    /// `"crc32:<hex>"` of the rest of the document (absent in version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
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

/// Saves a checkpoint atomically, with its checksum.
pub fn save_checkpoint<O: Serialize>(
    path: impl AsRef<Path>,
    meta: &serde_json::Value,
    optimizer: &O,
    driver: &DriverState,
) -> Result<(), CoreError> {
    let path = path.as_ref();
    let fail = |e: serde_json::Error| CoreError::Format { path: path.to_owned(), message: format!("cannot serialize checkpoint: {e}") };
    let doc = CheckpointRef { format: FORMAT, version: VERSION, meta, optimizer, driver };
    let mut value = serde_json::to_value(&doc).map_err(fail)?;
    let sum = checksum(&value);
    if let Some(map) = value.as_object_mut() {
        map.insert("checksum".into(), sum.into());
    }
    let bytes = serde_json::to_vec(&value).map_err(fail)?;
    atomic_write(path, &bytes)
}

/// Reads an input file (checkpoint, log) whole, after checking that it is a regular file (not a
/// device such as `/dev/zero`, a FIFO or a folder, which could be endless or block) whose size fits
/// in memory.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>, CoreError> {
    let io = |cause| CoreError::Io { path: path.to_owned(), cause };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(CoreError::Format {
            path: path.to_owned(),
            message: format!("is {}; expected a file", crate::files::kind_of(meta.file_type())),
        });
    }
    crate::memory::check_bytes(&format!("reading {}", path.display()), meta.len() as u128)?;
    std::fs::read(path).map_err(io)
}

/// The path of a serialized generator ([`crate::GfRng`], xoshiro256++: `{"s": [u64; 4]}`) whose
/// state is all zeros, if the document holds one: the one state the generator never reaches, and
/// from which it draws 0 forever (a sampler waiting for a non-zero draw would never return).
pub fn zero_generator(v: &serde_json::Value, at: String) -> Option<String> {
    match v {
        serde_json::Value::Object(m) => {
            if m.len() == 1
                && let Some(serde_json::Value::Array(s)) = m.get("s")
                && s.len() == 4
                && s.iter().all(|x| x.as_u64() == Some(0))
            {
                return Some(if at.is_empty() { "the top".into() } else { at });
            }
            m.iter().find_map(|(k, x)| zero_generator(x, format!("{at}/{k}")))
        }
        serde_json::Value::Array(a) => a.iter().enumerate().find_map(|(i, x)| zero_generator(x, format!("{at}/{i}"))),
        _ => None,
    }
}

/// Loads a checkpoint: format tag, version, checksum (version 2), then the optimizer's and the
/// driver's invariants. Any problem is one [`CoreError::Format`] or [`CoreError::Io`] naming the
/// file; nothing in a corrupt file can make this panic.
pub fn load_checkpoint<O: DeserializeOwned + StateCheck>(path: impl AsRef<Path>) -> Result<Checkpoint<O>, CoreError> {
    let path = path.as_ref();
    let bytes = read_regular_file(path)?;
    parse_checkpoint(path, &bytes)
}

/// [`load_checkpoint`] on bytes already read; `path` only names the source in errors.
pub fn parse_checkpoint<O: DeserializeOwned + StateCheck>(path: &Path, bytes: &[u8]) -> Result<Checkpoint<O>, CoreError> {
    let bad = |message: String| CoreError::Format { path: path.to_owned(), message: format!("not a valid checkpoint: {message}") };
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        // A file that does not even start as a JSON object is another kind of file: say what it
        // starts with, not where a JSON parser gave up.
        if bytes.iter().all(u8::is_ascii_whitespace) {
            bad("the file is empty".into())
        } else if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            let head: String =
                String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).lines().next().unwrap_or("").chars().take(30).collect();
            bad(format!("not a checkpoint of gradfree (a checkpoint is a JSON object; this file starts with {head:?})"))
        } else {
            bad(format!("not JSON ({e})"))
        }
    })?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT) => {}
        _ => return Err(bad(format!("missing format tag \"{FORMAT}\""))),
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    let stored = value.as_object_mut().and_then(|m| m.remove("checksum"));
    match (version, stored) {
        (Some(1), None) => {}
        (Some(1), Some(_)) => return Err(bad("a version-1 file has no checksum; this one does (corrupt version field?)".into())),
        (Some(2), Some(serde_json::Value::String(sum))) => {
            let want = checksum(&value);
            if sum != want {
                return Err(bad(format!("checksum mismatch (stored {sum}, content {want}): the file was changed or damaged")));
            }
        }
        (Some(2), _) => return Err(bad("missing or malformed checksum".into())),
        (other, _) => return Err(bad(format!("unsupported version {other:?}, expected 1 or {VERSION}"))),
    }
    if let Some(at) = zero_generator(&value, String::new()) {
        return Err(bad(format!("the generator state at {at} is all zeros, which xoshiro never reaches (it would draw 0 forever)")));
    }
    let ck: Checkpoint<O> = from_json(value).map_err(bad)?;
    ck.driver.validate().map_err(&bad)?;
    ck.optimizer.check_state().map_err(|m| bad(format!("optimizer state: {m}")))?;
    Ok(ck)
}

#[cfg(test)]
mod from_json_tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Stop {
        #[allow(dead_code)]
        tol_f: f64,
    }

    #[derive(Debug, Deserialize)]
    struct Spec {
        #[allow(dead_code)]
        stop: Stop,
        #[allow(dead_code)]
        counts: Vec<u64>,
    }

    /// An edited state's error names the field, down to the element.
    #[test]
    fn errors_name_the_field() {
        let e = from_json::<Spec>(serde_json::json!({"stop": {"tol_f": "NaN"}, "counts": [1]})).unwrap_err();
        assert!(e.starts_with("`stop.tol_f`: invalid type: string \"NaN\", expected f64"), "{e}");
        let e = from_json::<Spec>(serde_json::json!({"stop": {"tol_f": 1.0}, "counts": [1, -5]})).unwrap_err();
        assert!(e.starts_with("`counts[1]`: invalid value: integer `-5`"), "{e}");
        let e = from_json::<Spec>(serde_json::json!(7)).unwrap_err();
        assert!(e.starts_with("invalid type: integer `7`"), "{e}");
    }
}
