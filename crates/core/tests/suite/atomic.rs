//! Atomic files written in pieces: the target changes only when every piece was written.

use gradfree_core::{CoreError, atomic_write, atomic_write_with};

fn temps(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().contains(".tmp-")).count()
}

#[test]
fn a_failed_piece_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("points.csv");
    atomic_write(&path, b"old\n").unwrap();
    // Success: the pieces arrive in order, after the whole write.
    atomic_write_with(&path, |w| -> Result<(), CoreError> {
        for k in 0..3 {
            writeln!(w, "piece {k}").unwrap();
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "piece 0\npiece 1\npiece 2\n");
    // Failure after writing: the target keeps the last complete content, the temporary file goes.
    let err = atomic_write_with(&path, |w| {
        w.write_all(&[b'x'; 5 << 20]).unwrap();
        Err(CoreError::invalid("n", 0, "a failing piece"))
    })
    .unwrap_err();
    assert!(err.to_string().contains("a failing piece"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "piece 0\npiece 1\npiece 2\n");
    assert_eq!(temps(dir.path()), 0);
    // A target that is not a regular file is refused before anything is written.
    assert!(atomic_write_with(dir.path(), |_| Ok::<(), CoreError>(())).is_err());
}

/// A log whose first run was killed before its first record was put in place leaves a temporary
/// file; reopening the log to resume or append removes those of dead processes (not a live one's).
#[test]
fn reopening_a_log_removes_the_temporaries_of_killed_runs() {
    use gradfree_core::JsonLinesLog;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    // No process has this id (Linux ids stay below 2^22).
    let dead = dir.path().join(".run.jsonl.tmp-4294967294");
    let live = dir.path().join(format!(".run.jsonl.tmp-{}", std::process::id()));
    let other = dir.path().join(".other.jsonl.tmp-4294967294");
    for p in [&dead, &live, &other] {
        std::fs::write(p, b"{\"type\":\"start\"").unwrap();
    }
    drop(JsonLinesLog::resume(&path, 0).unwrap());
    if std::path::Path::new("/proc/self").exists() {
        assert!(!dead.exists(), "a dead run's temporary is removed");
    }
    assert!(live.exists() && other.exists(), "this process's, and another file's, are kept");
    std::fs::write(&dead, b"x").unwrap();
    drop(JsonLinesLog::append(&path).unwrap());
    if std::path::Path::new("/proc/self").exists() {
        assert!(!dead.exists());
    }
    assert_eq!(temps(dir.path()), 2);
}
