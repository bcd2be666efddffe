//! Observers: how a run reports progress without the algorithm doing any I/O.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{CoreError, Event, RunResult, StopRules};

/// Static facts about a run, given to observers once at the start.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    /// Algorithm name.
    pub algorithm: String,
    /// Dimension.
    pub dim: usize,
    /// Points per generation.
    pub population_size: usize,
    /// The stop rules in force.
    pub stop: StopRules,
    /// Generations already done when the run (re)started: 0 for a fresh run.
    pub start_generation: u64,
}

/// One generation's summary. Values that are not finite are reported as `None` (`null` in JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    /// Generation number, starting at 1.
    pub generation: u64,
    /// Evaluations so far, this generation included.
    pub evaluations: u64,
    /// Best value seen so far.
    pub best_f: Option<f64>,
    /// Best value of this generation.
    pub gen_best_f: Option<f64>,
    /// Median value of this generation (non-finite values count as `+inf`).
    pub gen_median_f: Option<f64>,
    /// The optimizer's step length ([`crate::AskTell::scale`]).
    pub scale: f64,
    /// Wall time so far, in seconds, counted across resumes.
    pub seconds: f64,
    /// What the optimizer reported during this generation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
}

/// A generation record with fields of the caller's own after the standard ones (e.g. the rewards
/// of a policy search): `gradfree plot` reads the standard ones, other readers the rest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationWithExtras {
    /// The standard fields.
    #[serde(flatten)]
    pub record: GenerationRecord,
    /// The caller's own fields (names other than the standard ones).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Receives a run's progress. Every method has a no-op default except `on_generation`.
pub trait Observer {
    /// Called once before the first generation of this session (also after a resume).
    fn on_start(&mut self, _info: &RunInfo) -> Result<(), CoreError> {
        Ok(())
    }
    /// Called after every generation.
    fn on_generation(&mut self, record: &GenerationRecord) -> Result<(), CoreError>;
    /// Called once when the run stops.
    fn on_finish(&mut self, _result: &RunResult) -> Result<(), CoreError> {
        Ok(())
    }
}

/// Keeps every generation record in memory (for plots and tests).
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The records, in order.
    pub records: Vec<GenerationRecord>,
}

impl Observer for History {
    fn on_generation(&mut self, record: &GenerationRecord) -> Result<(), CoreError> {
        self.records.push(record.clone());
        Ok(())
    }
}

/// Writes one JSON object per line: `{"type":"start",...}`, then `{"type":"generation",...}` for
/// every generation (the fields of [`GenerationRecord`]), then `{"type":"finish",...}` with the
/// [`RunResult`]. Each line is written whole and flushed, so a killed run leaves a readable log; a
/// write that fails (e.g. a full disk) is undone by truncating the file back to its last complete
/// line. `gradfree plot` reads it.
///
/// A new log replaces an old one only once the run has written its first complete record (its
/// first generation, or its finish): until then it is written to a temporary file beside it
/// ([`crate::files`]), so a run that fails at its start leaves the previous run's log as it was.
/// The target must be a regular file or not exist: a symbolic link, FIFO or device is refused.
pub struct JsonLinesLog {
    path: PathBuf,
    out: File,
    /// Length of the complete lines written so far (where a failed write is rolled back to).
    len: u64,
    line: Vec<u8>,
    /// The temporary file written until the first complete record, if the log is not yet in place.
    pending: Option<PathBuf>,
    /// The run the log belongs to ([`new_run_id`]), written into every `start` record as
    /// `run_id`, so that a resumed run can tell its own log from one another run took over.
    run: Option<String>,
}

#[derive(Serialize)]
struct Tagged<'a, T> {
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<&'a str>,
    #[serde(flatten)]
    body: &'a T,
}

/// A new run's identity, for its log and checkpoint: 64 random bits (from the operating system's
/// randomness that seeds the standard library's hash maps, mixed with the process id and the
/// clock) as 16 hexadecimal digits.
pub fn new_run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    format!("{:016x}", h.finish())
}

/// The run a log belongs to: the `run_id` of its first `start` record; `None` for a log without
/// one (written before logs named their run), an empty file, or a file that does not exist.
pub fn log_owner(path: &Path) -> Option<String> {
    use std::io::{BufRead, BufReader, Read};
    let f = File::open(path).ok()?;
    let mut reader = BufReader::new(f).take(64 << 20);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else { continue };
        if v.get("type").and_then(|t| t.as_str()) == Some("start") {
            return v.get("run_id").and_then(|r| r.as_str()).map(str::to_string);
        }
    }
}

/// Removes the temporary files of `path` left by runs that were killed before their log's first
/// complete record put it in place (their process no longer runs), so a resumed run leaves none.
fn remove_stale_log_temps(path: &Path) {
    if let Some((dir, _)) = crate::checkpoint::temp_path(path) {
        crate::checkpoint::remove_stale_temps(&dir, path);
    }
}

/// Refuses a log target that is not a regular file (or nothing).
fn check_log_target(path: &Path) -> Result<(), CoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => Err(CoreError::Io {
            path: path.to_owned(),
            cause: std::io::Error::other(format!("is {}; a log must be a regular file", crate::files::kind_of(m.file_type()))),
        }),
        _ => Ok(()),
    }
}

impl JsonLinesLog {
    /// Starts a new log at `path`: written to a temporary file that replaces `path` at the first
    /// complete record (see the type's documentation).
    pub fn create(path: impl AsRef<Path>) -> Result<Self, CoreError> {
        let path = path.as_ref();
        check_log_target(path)?;
        let io = |source| CoreError::Io { path: path.to_owned(), cause: source };
        let (_, tmp) = crate::checkpoint::temp_path(path).ok_or_else(|| io(std::io::Error::other("not a file path")))?;
        let out = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp).map_err(io)?;
        crate::files::register_temp(&tmp);
        Ok(JsonLinesLog { path: path.to_owned(), out, len: 0, line: Vec::new(), pending: Some(tmp), run: None })
    }

    /// Appends to the log file, creating it if needed.
    pub fn append(path: impl AsRef<Path>) -> Result<Self, CoreError> {
        check_log_target(path.as_ref())?;
        remove_stale_log_temps(path.as_ref());
        Self::open(path.as_ref(), true)
    }

    /// Reopens the log of a run resumed after `generation` generations: a last line cut short by a
    /// kill or a full disk, and the records of generations after `generation` (written after the
    /// checkpoint, and replayed by the resumed run), are removed first, so the log reads as the
    /// uninterrupted run's.
    pub fn resume(path: impl AsRef<Path>, generation: u64) -> Result<Self, CoreError> {
        let path = path.as_ref();
        check_log_target(path)?;
        remove_stale_log_temps(path);
        let io = |source| CoreError::Io { path: path.to_owned(), cause: source };
        if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            let text = crate::read_regular_file(path)?;
            let keep = resumable_prefix(&text, generation);
            if keep < text.len() {
                let f = OpenOptions::new().write(true).open(path).map_err(io)?;
                f.set_len(keep as u64).map_err(io)?;
                f.sync_all().map_err(io)?;
            }
        }
        Self::open(path, true)
    }

    fn open(path: &Path, append: bool) -> Result<Self, CoreError> {
        let io = |source| CoreError::Io { path: path.to_owned(), cause: source };
        let out = OpenOptions::new().write(true).create(true).append(append).truncate(!append).open(path).map_err(io)?;
        let len = out.metadata().map(|m| if m.is_file() { m.len() } else { 0 }).unwrap_or(0);
        Ok(JsonLinesLog { path: path.to_owned(), out, len, line: Vec::new(), pending: None, run: None })
    }

    /// Names the run the log belongs to: its `start` records carry `run_id` ([`log_owner`]).
    pub fn owned_by(mut self, run: Option<&str>) -> Self {
        self.run = run.map(str::to_string);
        self
    }

    /// [`JsonLinesLog::resume`] for the run `run`, which first checks that the log at `path` is
    /// that run's: a log that another run has since taken over (with `--overwrite`), or a file
    /// that is not this run's log, is refused naming both runs, and left as it is.
    pub fn resume_run(path: impl AsRef<Path>, generation: u64, run: Option<&str>) -> Result<Self, CoreError> {
        let path = path.as_ref();
        if let Some(run) = run
            && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
        {
            let owner = log_owner(path);
            if owner.as_deref() != Some(run) {
                let other = match owner {
                    Some(o) => format!("belongs to another run (run {o})"),
                    None => "is not this run's log (it names no run: another run's, or edited)".to_string(),
                };
                return Err(CoreError::Format {
                    path: path.to_owned(),
                    message: format!(
                        "{other}, not to the run being resumed (run {run}): it was left as it is; give another log with --log FILE"
                    ),
                });
            }
        }
        Ok(Self::resume(path, generation)?.owned_by(Some(run).flatten()))
    }

    /// Puts a log written to its temporary file in place (synced, then renamed over the target).
    fn settle(&mut self) -> Result<(), CoreError> {
        if let Some(tmp) = self.pending.take() {
            let io = |cause| CoreError::Io { path: self.path.clone(), cause };
            self.out.sync_all().map_err(io)?;
            std::fs::rename(&tmp, &self.path).map_err(io)?;
            crate::files::forget_temp(&tmp);
        }
        Ok(())
    }

    /// Writes one line `{"type": kind, ...body}` whole and flushed (rolled back on failure), for
    /// records beyond the three the [`Observer`] methods write: a front end that runs its own loop
    /// (Python's policy search) writes its start, generation and finish records here, so its log
    /// reads like every other run's ([`GenerationWithExtras`] carries a generation's own fields).
    pub fn write<T: Serialize>(&mut self, kind: &str, body: &T) -> Result<(), CoreError> {
        self.line.clear();
        let run_id = if kind == "start" { self.run.as_deref() } else { None };
        serde_json::to_writer(&mut self.line, &Tagged { r#type: kind, run_id, body }).map_err(|e| CoreError::Observer(e.to_string()))?;
        self.line.push(b'\n');
        match self.out.write_all(&self.line).and_then(|()| self.out.flush()) {
            Ok(()) => {
                self.len += self.line.len() as u64;
                if kind != "start" { self.settle() } else { Ok(()) }
            }
            Err(cause) => {
                // Leave no partial line behind (a regular file only; best effort).
                if self.out.metadata().is_ok_and(|m| m.is_file()) {
                    let _ = self.out.set_len(self.len);
                }
                Err(CoreError::Io { path: self.path.clone(), cause })
            }
        }
    }
}

impl Drop for JsonLinesLog {
    /// A log that never got its first complete record leaves no temporary file behind (and the
    /// old log in place).
    fn drop(&mut self) {
        if let Some(tmp) = self.pending.take() {
            let _ = std::fs::remove_file(&tmp);
            crate::files::forget_temp(&tmp);
        }
    }
}

/// Length of the part of a log to keep when resuming after `generation` generations: complete
/// lines up to the first generation record past `generation`.
fn resumable_prefix(text: &[u8], generation: u64) -> usize {
    let mut keep = 0;
    let mut pos = 0;
    while let Some(nl) = text[pos..].iter().position(|&b| b == b'\n') {
        let line = &text[pos..pos + nl];
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
            && v.get("type").and_then(|t| t.as_str()) == Some("generation")
            && v.get("generation").and_then(|g| g.as_u64()).is_some_and(|g| g > generation)
        {
            break;
        }
        pos += nl + 1;
        keep = pos;
    }
    keep
}

impl Observer for JsonLinesLog {
    fn on_start(&mut self, info: &RunInfo) -> Result<(), CoreError> {
        self.write("start", info)
    }
    fn on_generation(&mut self, record: &GenerationRecord) -> Result<(), CoreError> {
        self.write("generation", record)
    }
    fn on_finish(&mut self, result: &RunResult) -> Result<(), CoreError> {
        self.write("finish", result)
    }
}

/// What is wrong with a log line that is not JSON, in words a reader can act on: a `NaN` or
/// `Infinity` (which JSON has no spelling for, and gradfree writes as `null`) is named as such;
/// otherwise the parser's message without its line number (the caller names the file's line).
pub fn describe_json_error(line: &str, e: &serde_json::Error) -> String {
    for token in ["NaN", "-Infinity", "Infinity", "inf", "nan"] {
        if line.split(|c: char| !(c.is_alphanumeric() || c == '-')).any(|w| w == token) {
            return format!(
                "`{token}` is not a JSON number (gradfree writes a value that is not finite as null): the line was not written by gradfree as it is"
            );
        }
    }
    let what = match e.classify() {
        serde_json::error::Category::Eof => "the line ends in the middle of a record",
        _ => "the line is not a JSON record",
    };
    format!("{what} (at character {}: {e:#})", e.column()).replace(&format!(" at line {} column {}", e.line(), e.column()), "")
}

/// What is wrong with a generation record that does not have the standard fields: a missing
/// field is named with the logs that have it.
fn describe_record_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text).to_string();
    if text.starts_with("missing field") {
        format!(
            "a generation record {} (the logs of `gradfree optimize`, `gradfree bo` and Python runs have it; a `gradfree train` log records epochs)",
            text.replacen("missing field", "without", 1)
        )
    } else {
        text
    }
}

/// Reads the generation records of a JSON-lines log written by [`JsonLinesLog`]. Lines of other
/// types are skipped; a last line without its newline that does not parse (a run killed while
/// writing it) is ignored; any other malformed line is an error naming its line number.
pub fn read_generation_log(path: impl AsRef<Path>) -> Result<Vec<GenerationRecord>, CoreError> {
    let path = path.as_ref();
    let bytes = crate::checkpoint::read_regular_file(path)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| CoreError::Format { path: path.to_owned(), message: format!("not a gradfree log: not UTF-8 text ({e})") })?;
    let mut out = Vec::new();
    let torn = !text.is_empty() && !text.ends_with('\n');
    let count = text.lines().count();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |m: String| CoreError::Format { path: path.to_owned(), message: format!("not a gradfree log: line {}: {m}", i + 1) };
        let v: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            // A torn final line (a run killed mid-write) is dropped, but only after at
            // least one whole line: a file that is one torn line is not a log.
            Err(_) if torn && i + 1 == count && i > 0 => break,
            Err(e) => return Err(bad(describe_json_error(line, &e))),
        };
        if v.get("type").and_then(|t| t.as_str()) == Some("generation") {
            out.push(serde_json::from_value(v).map_err(|e| bad(describe_record_error(&e)))?);
        }
    }
    Ok(out)
}
