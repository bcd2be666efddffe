//! What a checkpoint keeps beside it and in it so that writing one costs what the state costs, and
//! resuming checks what it resumes on:
//!
//! - [`RecordFile`]: an append-only file of fixed-size records (an inference run's recorded
//!   steps) next to a checkpoint. Each checkpoint appends only the records made since the last one
//!   and stores the file's length and CRC-32; a resumed run reads that many bytes back, checks
//!   them, and cuts off what was appended after the checkpoint (a run killed between the two
//!   writes), so the pair is always consistent.
//! - [`Fingerprint`]: the size and CRC-32 of the data a run read, stored in its checkpoint, so
//!   resuming against changed data is an error instead of a run that continues on other rows.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::CoreError;

/// The size and content hash of a run's data (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// A description of the size, e.g. `"569 rows x 31 columns"`.
    pub size: String,
    /// `"crc32:<hex>"` of the values as read (little-endian bytes).
    pub hash: String,
}

/// Builds a [`Fingerprint`] from the data's values.
pub struct FingerprintBuilder {
    hasher: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl FingerprintBuilder {
    /// An empty hash.
    pub fn new() -> Self {
        FingerprintBuilder { hasher: crc32fast::Hasher::new(), buf: Vec::with_capacity(1 << 16) }
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buf);
        self.buf.clear();
    }

    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= 1 << 16 {
            self.flush();
        }
    }

    /// Adds `f64` values.
    pub fn f64s(&mut self, values: &[f64]) -> &mut Self {
        values.iter().for_each(|v| self.push(&v.to_le_bytes()));
        self
    }

    /// Adds `f32` values.
    pub fn f32s(&mut self, values: &[f32]) -> &mut Self {
        values.iter().for_each(|v| self.push(&v.to_le_bytes()));
        self
    }

    /// Adds `u32` values.
    pub fn u32s(&mut self, values: &[u32]) -> &mut Self {
        values.iter().for_each(|v| self.push(&v.to_le_bytes()));
        self
    }

    /// Adds text (column names), with its length so that boundaries count.
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.push(&(s.len() as u64).to_le_bytes());
        self.push(s.as_bytes());
        self
    }

    /// The fingerprint, with `size` describing the data's shape.
    pub fn finish(mut self, size: impl Into<String>) -> Fingerprint {
        self.flush();
        Fingerprint { size: size.into(), hash: format!("crc32:{:08x}", self.hasher.finalize()) }
    }
}

impl Default for FingerprintBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl Fingerprint {
    /// `Ok` if `now` (the data read for a resumed run) is the data the checkpoint was written on;
    /// otherwise an error naming both.
    pub fn check_same(&self, now: &Fingerprint, what: &Path) -> Result<(), CoreError> {
        if self != now {
            return Err(CoreError::BadInput(format!(
                "{} has changed since the checkpoint was written ({}, {} then; {}, {} now): resume on the data the run started on, or start a new run",
                what.display(),
                self.size,
                self.hash,
                now.size,
                now.hash
            )));
        }
        Ok(())
    }
}

/// Where a checkpoint's records are and how many bytes of them it covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordsRef {
    /// The records file's name, in the checkpoint's folder.
    pub file: String,
    /// Bytes of records the checkpoint covers.
    pub len: u64,
    /// `"crc32:<hex>"` of those bytes.
    pub crc: String,
}

/// An append-only file of records beside a checkpoint (see the module documentation).
#[derive(Debug)]
pub struct RecordFile {
    path: PathBuf,
    file: File,
    len: u64,
    hasher: crc32fast::Hasher,
}

impl RecordFile {
    /// The records file of a new run checkpointing to `checkpoint`: `<checkpoint>.records-<id>`,
    /// with an id of this run, so a new run never writes into the records of the checkpoint it may
    /// replace (that checkpoint stays whole until the new one is written).
    pub fn create(checkpoint: &Path) -> Result<Self, CoreError> {
        let name = checkpoint.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "checkpoint".into());
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let id = crc32fast::hash(format!("{}-{nanos}", std::process::id()).as_bytes());
        let path = checkpoint.with_file_name(format!("{name}.records-{id:08x}"));
        let io = |cause| CoreError::Io { path: path.clone(), cause };
        let file = OpenOptions::new().read(true).write(true).create_new(true).open(&path).map_err(io)?;
        // Until a checkpoint refers to it, the file is temporary (removed if the run is stopped).
        crate::files::register_temp(&path);
        Ok(RecordFile { path, file, len: 0, hasher: crc32fast::Hasher::new() })
    }

    /// Reopens the records of a checkpoint at `checkpoint` that covers `r`: reads and checks its
    /// `r.len` bytes (returned), cuts off anything after them, and appends from there on.
    pub fn resume(checkpoint: &Path, r: &RecordsRef) -> Result<(Self, Vec<u8>), CoreError> {
        if r.file.contains('/') || r.file.is_empty() {
            return Err(CoreError::Format {
                path: checkpoint.to_owned(),
                message: format!("records file {:?} is not a file name", r.file),
            });
        }
        let path = checkpoint.with_file_name(&r.file);
        let io = |cause| CoreError::Io { path: path.clone(), cause };
        let meta = std::fs::symlink_metadata(&path).map_err(io)?;
        if !meta.is_file() {
            return Err(CoreError::Format { path: path.clone(), message: "the checkpoint's records must be a regular file".into() });
        }
        if meta.len() < r.len {
            return Err(CoreError::Format {
                path: path.clone(),
                message: format!("holds {} bytes of records; the checkpoint needs {}", meta.len(), r.len),
            });
        }
        crate::memory::check_bytes(&format!("the records of {}", checkpoint.display()), r.len as u128)?;
        let mut file = OpenOptions::new().read(true).write(true).open(&path).map_err(io)?;
        let mut bytes = vec![0u8; r.len as usize];
        file.read_exact(&mut bytes).map_err(io)?;
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&bytes);
        let crc = format!("crc32:{:08x}", hasher.clone().finalize());
        if crc != r.crc {
            return Err(CoreError::Format {
                path,
                message: format!("records checksum {crc}, the checkpoint says {}: the file was changed", r.crc),
            });
        }
        if meta.len() > r.len {
            file.set_len(r.len).map_err(io)?;
        }
        file.seek(SeekFrom::Start(r.len)).map_err(io)?;
        Ok((RecordFile { path, file, len: r.len, hasher }, bytes))
    }

    /// Appends `bytes` and syncs them to disk (so the checkpoint written next can count on them); a
    /// failed write is cut off again.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), CoreError> {
        let io = |cause| CoreError::Io { path: self.path.clone(), cause };
        if let Err(e) = self.file.write_all(bytes).and_then(|()| self.file.sync_data()) {
            let _ = self.file.set_len(self.len);
            let _ = self.file.seek(SeekFrom::Start(self.len));
            return Err(io(e));
        }
        self.len += bytes.len() as u64;
        self.hasher.update(bytes);
        Ok(())
    }

    /// What a checkpoint written now covers.
    pub fn reference(&self) -> RecordsRef {
        RecordsRef {
            file: self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            len: self.len,
            crc: format!("crc32:{:08x}", self.hasher.clone().finalize()),
        }
    }

    /// Says that a checkpoint now refers to the file: it is no longer temporary.
    pub fn committed(&self) {
        crate::files::forget_temp(&self.path);
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the records files beside `checkpoint` other than `keep` (a replaced checkpoint's,
    /// or an orphan of a run killed before its first checkpoint). Errors are ignored.
    pub fn remove_others(checkpoint: &Path, keep: &str) {
        let Some(name) = checkpoint.file_name().map(|n| format!("{}.records-", n.to_string_lossy())) else { return };
        let dir = match checkpoint.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(&name) && n != keep && e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_resume_at_the_checkpoint_and_detect_changes() {
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("run.ckpt");
        let mut r = RecordFile::create(&ck).unwrap();
        r.append(&[1, 2, 3]).unwrap();
        let at = r.reference();
        r.append(&[4, 5]).unwrap(); // written after the checkpoint: cut off on resume
        drop(r);
        let (mut again, bytes) = RecordFile::resume(&ck, &at).unwrap();
        assert_eq!(bytes, [1, 2, 3]);
        again.append(&[9]).unwrap();
        assert_eq!(std::fs::read(again.path()).unwrap(), [1, 2, 3, 9]);
        let mut wrong = again.reference();
        wrong.crc = "crc32:00000000".into();
        assert!(RecordFile::resume(&ck, &wrong).unwrap_err().to_string().contains("checksum"));
        let long = RecordsRef { len: 99, ..again.reference() };
        assert!(RecordFile::resume(&ck, &long).is_err());
        let escape = RecordsRef { file: "../x".into(), ..again.reference() };
        assert!(RecordFile::resume(&ck, &escape).is_err());
        // Other records files beside the checkpoint are removed, this one kept.
        let other = RecordFile::create(&ck).unwrap();
        let keep = again.reference().file;
        RecordFile::remove_others(&ck, &keep);
        assert!(!other.path().exists() && again.path().exists());
    }

    #[test]
    fn fingerprints_see_every_value() {
        let a = {
            let mut b = FingerprintBuilder::new();
            b.f64s(&[1.0, 2.0]).text("x");
            b.finish("1 x 2")
        };
        let b = {
            let mut b = FingerprintBuilder::new();
            b.f64s(&[1.0, 2.0000000001]).text("x");
            b.finish("1 x 2")
        };
        assert_ne!(a, b);
        let e = a.check_same(&b, Path::new("d.csv")).unwrap_err().to_string();
        assert!(e.contains("d.csv has changed"), "{e}");
        a.check_same(&a.clone(), Path::new("d.csv")).unwrap();
    }
}
