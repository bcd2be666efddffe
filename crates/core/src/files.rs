//! The one file policy of every command: which files a run reads and writes, checked together
//! before anything is written ([`RunFiles::check`]).
//!
//! - Any two of a run's files (its input, outputs, log, checkpoint, chains file) that resolve to
//!   the same file — by the same path, another spelling of it, a symbolic link or a hard link — are
//!   refused, naming both parameters: a run never writes over what it reads or writes elsewhere.
//! - A file the run writes must be a regular file or not exist yet: a symbolic link, a folder, a
//!   FIFO, a device or a socket is refused, for logs and checkpoints as for outputs (writing a log
//!   to `/dev/zero` or a FIFO would hang or vanish, and replacing a link would break it).
//! - A file the run reads must be a regular file (a FIFO or a device could block or never end);
//!   a symbolic link to one is read.
//! - A new run does not replace a checkpoint that exists already (it belongs to another run)
//!   unless the caller says so ([`RunFiles::overwrite`], the command line's `--overwrite`).
//!
//! Files are then written atomically ([`crate::atomic_write`]) or, for logs, from a temporary
//! file that replaces the old log only once the new run has written its first complete record
//! ([`crate::JsonLinesLog::create`]), so a run that fails leaves every file as it found it.
//! Temporary files are registered while they exist ([`pending_temps`]): the command line removes
//! them when it is stopped by a signal.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::CoreError;

/// What a run does with a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read (data, a log to plot, a checkpoint to resume).
    Input,
    /// Written whole at the end (points, features, chains, a plot), replaced atomically.
    Output,
    /// A JSON-lines log, written as the run goes.
    Log,
    /// A checkpoint of a new run: refused if it exists, unless overwriting is allowed.
    Checkpoint,
    /// The checkpoint a resumed run came from and keeps writing (its own file).
    Resumed,
}

/// The files of one run, each with the parameter (flag or keyword) that names it.
#[derive(Clone, Debug, Default)]
pub struct RunFiles {
    files: Vec<(Role, &'static str, PathBuf)>,
    overwrite: bool,
}

/// What a path that is not a regular file is, for messages.
pub(crate) fn kind_of(kind: std::fs::FileType) -> &'static str {
    if kind.is_symlink() {
        "a symbolic link (give the path it points to)"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file (a device, FIFO or socket)"
    }
}

impl RunFiles {
    /// No files yet.
    pub fn new() -> Self {
        RunFiles::default()
    }

    /// Adds `path` (if any) in `role`, named `param` in errors.
    pub fn add(mut self, role: Role, param: &'static str, path: Option<&Path>) -> Self {
        if let Some(p) = path {
            self.files.push((role, param, p.to_path_buf()));
        }
        self
    }

    /// Allows a new run to replace an existing checkpoint.
    pub fn overwrite(mut self, yes: bool) -> Self {
        self.overwrite = yes;
        self
    }

    /// Takes the files this run writes for itself ([`Claim`]), then checks every file against the
    /// policy ([`RunFiles::check`]) under that ownership, so that two runs started together cannot
    /// both find a checkpoint or log free and both write it: the second is refused, naming the
    /// file and the process that owns it. Hold the claim until the run's last write.
    pub fn claim(&self) -> Result<Claim, CoreError> {
        let mut claim = Claim::default();
        for (role, param, path) in &self.files {
            if *role != Role::Input && !path.as_os_str().is_empty() {
                claim.take(param, path)?;
            }
        }
        self.check()?;
        Ok(claim)
    }

    /// Checks the files against the policy (see the module documentation); nothing is written.
    pub fn check(&self) -> Result<(), CoreError> {
        for (i, (_, pa, a)) in self.files.iter().enumerate() {
            for (_, pb, b) in &self.files[i + 1..] {
                if same_file(a, b) {
                    let what = if pa == pb { format!("{pa} is given twice for") } else { format!("{pa} and {pb} are") };
                    return Err(CoreError::BadInput(format!(
                        "{what} the same file {}: a run never writes over a file it reads or writes elsewhere; give different files",
                        a.display()
                    )));
                }
            }
        }
        for (role, param, path) in &self.files {
            check_one(*role, param, path, self.overwrite)?;
        }
        Ok(())
    }
}

fn check_one(role: Role, param: &str, path: &Path, overwrite: bool) -> Result<(), CoreError> {
    let bad = |message: String| CoreError::BadInput(format!("{param} {}: {message}", path.display()));
    if path.as_os_str().is_empty() {
        return Err(bad("an empty path".into()));
    }
    match role {
        Role::Input => match std::fs::metadata(path) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(m) => Err(bad(format!("is {}; expected a file", kind_of(m.file_type())))),
            Err(e) => Err(bad(e.to_string())),
        },
        _ => {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_file() => {
                    if role == Role::Checkpoint && !overwrite {
                        return Err(bad(
                            "exists already (a checkpoint of another run?): resume it with --resume, or pass --overwrite to replace it"
                                .into(),
                        ));
                    }
                    if role == Role::Log && !overwrite && m.len() > 0 && !is_log(path) {
                        return Err(bad(
                            "exists and is not a gradfree log (its first line is not a log record): refusing to replace it; pass --overwrite to"
                                .to_string()
                                + " replace it anyway",
                        ));
                    }
                }
                Ok(m) => return Err(bad(format!("is {}; refusing to write to it", kind_of(m.file_type())))),
                Err(_) => {}
            }
            match path.parent().filter(|d| !d.as_os_str().is_empty()) {
                Some(dir) if !dir.is_dir() => Err(bad(format!("its folder {} does not exist", dir.display()))),
                _ => Ok(()),
            }
        }
    }
}

/// Whether a file's first line is a record of a gradfree JSON-lines log (an object with `type`).
fn is_log(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut line = Vec::new();
    let _ = std::io::BufReader::new(f).take(1 << 20).read_until(b'\n', &mut line);
    serde_json::from_slice::<serde_json::Value>(&line).is_ok_and(|v| v.get("type").is_some_and(|t| t.is_string()))
}

/// Whether two paths name the same file: the same device and inode where both exist (hard and
/// symbolic links included), else the same absolute path after resolving links in the folders.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return ma.dev() == mb.dev() && ma.ino() == mb.ino();
    }
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            let base = std::env::current_dir().unwrap_or_default();
            match (p.parent().and_then(|d| std::fs::canonicalize(if d.as_os_str().is_empty() { &base } else { d }).ok()), p.file_name()) {
                (Some(dir), Some(name)) => dir.join(name),
                _ => base.join(p),
            }
        })
    };
    abs(a) == abs(b)
}

/// The lock file that marks `path` as owned by a run: `.<name>.lock` in the same folder.
fn lock_path(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(dir.join(format!(".{}.lock", name.to_string_lossy())))
}

/// Lock files this process holds, with how many claims hold each (a resumed run claims its log
/// again once it has read its checkpoint).
static HELD: Mutex<Vec<(PathBuf, usize)>> = Mutex::new(Vec::new());

/// Exclusive ownership of the files a run writes, for as long as the value lives: each file has a
/// lock file beside it (`.<name>.lock`, holding the owner's process id) locked with `flock`, which
/// the operating system releases when the process ends however it ends, so a killed run never
/// leaves a file owned. Dropping the claim removes the lock files. Taken by [`RunFiles::claim`].
#[derive(Debug, Default)]
pub struct Claim {
    locks: Vec<(PathBuf, Option<std::fs::File>)>,
}

impl Claim {
    /// Takes the file at `path` (named `param` in errors) for this run.
    fn take(&mut self, param: &str, path: &Path) -> Result<(), CoreError> {
        use std::io::{Read, Seek, Write};
        use std::os::unix::fs::MetadataExt;
        let Some(lock) = lock_path(path) else { return Ok(()) };
        let lock = std::path::absolute(&lock).unwrap_or(lock);
        {
            let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = held.iter_mut().find(|(p, _)| *p == lock) {
                entry.1 += 1;
                self.locks.push((lock, None));
                return Ok(());
            }
        }
        let bad = |message: String| CoreError::BadInput(format!("{param} {}: {message}", path.display()));
        if path.parent().filter(|d| !d.as_os_str().is_empty()).is_some_and(|d| !d.is_dir()) {
            return Ok(()); // the policy's check names the missing folder
        }
        loop {
            let mut file = match std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&lock) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(30) => {
                    return Err(bad(format!("its folder cannot be written ({})", describe_io(&e))));
                }
                Err(e) => return Err(bad(format!("cannot take it for this run: {}: {}", lock.display(), describe_io(&e)))),
            };
            match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    let mut owner = String::new();
                    let _ = file.read_to_string(&mut owner);
                    let owner = owner.trim();
                    let who = if owner.is_empty() { "another run".to_string() } else { format!("another run (process {owner})") };
                    return Err(bad(format!("in use by {who}: two runs cannot write one file; wait for it to end, or give another file")));
                }
                Err(e) => return Err(bad(format!("cannot lock {}: {e}", lock.display()))),
            }
            // The previous owner may have removed the lock file between our open and our lock:
            // then it is not the file at the path any more, and we try again.
            let same = match (file.metadata(), std::fs::metadata(&lock)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            };
            if !same {
                continue;
            }
            let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|_| write!(file, "{}", std::process::id()));
            register_temp(&lock);
            HELD.lock().unwrap_or_else(|p| p.into_inner()).push((lock.clone(), 1));
            self.locks.push((lock, Some(file)));
            return Ok(());
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
        for (lock, _file) in self.locks.drain(..) {
            if let Some(i) = held.iter().position(|(p, _)| *p == lock) {
                held[i].1 -= 1;
                if held[i].1 == 0 {
                    held.swap_remove(i);
                    // Removed while still locked (the file closes after this), so no other run
                    // can lock the file we remove.
                    let _ = std::fs::remove_file(&lock);
                    forget_temp(&lock);
                }
            }
        }
    }
}

/// Temporary files that exist now (atomic writes in progress, logs before their first record).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Registers a temporary file while it exists ([`pending_temps`]).
pub(crate) fn register_temp(path: &Path) {
    PENDING.lock().unwrap_or_else(|p| p.into_inner()).push(path.to_path_buf());
}

/// Forgets a temporary file (renamed or removed).
pub(crate) fn forget_temp(path: &Path) {
    let mut v = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = v.iter().position(|p| p == path) {
        v.swap_remove(i);
    }
}

/// The temporary files of this process that exist now. A front end stopped by a signal removes
/// them ([`remove_pending_temps`]) before it exits, so no half-written file stays behind.
pub fn pending_temps() -> Vec<PathBuf> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Removes every temporary file of [`pending_temps`] (errors ignored). Safe to call from a
/// thread that may hold the registry's lock (an allocation that failed inside
/// `register_temp`): it waits at most a tenth of a second for the lock, then gives up.
pub fn remove_pending_temps() {
    for _ in 0..100 {
        match PENDING.try_lock() {
            Ok(v) => {
                for p in v.iter() {
                    let _ = std::fs::remove_file(p);
                }
                return;
            }
            Err(std::sync::TryLockError::Poisoned(v)) => {
                for p in v.into_inner().iter() {
                    let _ = std::fs::remove_file(p);
                }
                return;
            }
            Err(std::sync::TryLockError::WouldBlock) => std::thread::sleep(std::time::Duration::from_millis(1)),
        }
    }
}

/// An I/O error as the command line and Python show it: the operating system's message, with
/// the limit that caused it where one did (`EFBIG`: the file-size limit of `ulimit -f`, which the
/// front ends turn from a killing signal into this error).
pub fn describe_io(cause: &std::io::Error) -> String {
    if cause.kind() == std::io::ErrorKind::FileTooLarge
        && let Some(limit) = file_size_limit()
    {
        return format!("{cause}: the file would exceed the file-size limit of {limit} bytes (`ulimit -f`)");
    }
    cause.to_string()
}

/// The soft file-size limit (`RLIMIT_FSIZE`, `ulimit -f`) in bytes, from `/proc/self/limits`;
/// `None` if unlimited or unreadable.
pub fn file_size_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max file size"))?;
    line.split_whitespace().nth(3)?.parse::<u64>().ok()
}

/// Bytes free for an unprivileged writer on the file system of `path` (or of its folder, if it
/// does not exist yet); `None` where it cannot be read.
pub fn free_bytes(path: &Path) -> Option<u64> {
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        _ if path.is_dir() => path.to_path_buf(),
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    let s = rustix::fs::statvfs(&dir).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// `Ok` if `bytes` fit in the free space of `path`'s file system (counting the bytes of the file
/// it replaces, which are freed); otherwise an error naming `param`, both sizes and the folder.
pub fn check_free_space(param: &str, path: &Path, bytes: u128) -> Result<(), CoreError> {
    let Some(free) = free_bytes(path) else { return Ok(()) };
    let replaced = std::fs::symlink_metadata(path).map(|m| if m.is_file() { m.len() } else { 0 }).unwrap_or(0);
    let room = free as u128 + replaced as u128;
    if bytes > room {
        return Err(CoreError::BadInput(format!(
            "{param} {}: the file would take {}, but its file system has {} free",
            path.display(),
            crate::memory::human_bytes(bytes),
            crate::memory::human_bytes(room)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_refuses_shared_links_and_foreign_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("in.csv");
        std::fs::write(&data, "1,2\n").unwrap();
        let out = dir.path().join("out.csv");
        let ok = RunFiles::new().add(Role::Input, "--data", Some(&data)).add(Role::Output, "--chains-out", Some(&out));
        ok.check().unwrap();
        // The input as an output, by another spelling and by a hard link.
        let dotted = dir.path().join(".").join("in.csv");
        let e = RunFiles::new().add(Role::Input, "--data", Some(&data)).add(Role::Output, "--chains-out", Some(&dotted)).check();
        assert!(e.unwrap_err().to_string().contains("--data and --chains-out are the same file"));
        let hard = dir.path().join("hard.csv");
        std::fs::hard_link(&data, &hard).unwrap();
        assert!(RunFiles::new().add(Role::Input, "--data", Some(&data)).add(Role::Log, "--log", Some(&hard)).check().is_err());
        // A symbolic link is refused as something to write, read as an input.
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        let e = RunFiles::new().add(Role::Log, "--log", Some(&link)).check().unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(RunFiles::new().add(Role::Input, "--data", Some(&link)).check().is_err(), "a link to nothing");
        let to_data = dir.path().join("data-link.csv");
        std::os::unix::fs::symlink(&data, &to_data).unwrap();
        RunFiles::new().add(Role::Input, "--data", Some(&to_data)).check().unwrap();
        // Devices and folders.
        assert!(RunFiles::new().add(Role::Log, "--log", Some(Path::new("/dev/zero"))).check().is_err());
        assert!(RunFiles::new().add(Role::Input, "--data", Some(Path::new("/dev/zero"))).check().is_err());
        assert!(RunFiles::new().add(Role::Output, "-o", Some(dir.path())).check().is_err());
        // An existing checkpoint belongs to another run.
        let ck = dir.path().join("run.ckpt");
        std::fs::write(&ck, "{}").unwrap();
        let e = RunFiles::new().add(Role::Checkpoint, "--checkpoint", Some(&ck)).check().unwrap_err().to_string();
        assert!(e.contains("--overwrite"), "{e}");
        RunFiles::new().add(Role::Checkpoint, "--checkpoint", Some(&ck)).overwrite(true).check().unwrap();
        RunFiles::new().add(Role::Resumed, "--resume", Some(&ck)).check().unwrap();
        // A log over a file that is not a log.
        let e = RunFiles::new().add(Role::Log, "--log", Some(&data)).check().unwrap_err().to_string();
        assert!(e.contains("not a gradfree log"), "{e}");
        let log = dir.path().join("run.jsonl");
        std::fs::write(&log, "{\"type\":\"start\"}\n").unwrap();
        RunFiles::new().add(Role::Log, "--log", Some(&log)).check().unwrap();
        // A missing folder.
        assert!(RunFiles::new().add(Role::Output, "-o", Some(&dir.path().join("no/such/x.csv"))).check().is_err());
    }

    #[test]
    fn free_space_is_read_and_compared() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("big.npy");
        assert!(free_bytes(&target).is_some_and(|b| b > 0));
        check_free_space("-o", &target, 10).unwrap();
        let e = check_free_space("-o", &target, u128::MAX).unwrap_err().to_string();
        assert!(e.contains("-o") && e.contains("free"), "{e}");
    }
}
