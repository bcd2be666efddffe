//! Helpers shared by the command line's integration tests.

use std::process::Output;

/// Exits with code 2 and one line `error: ...` on stderr, never a panic.
pub fn assert_clean_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
}

/// The `generation` records of a JSON-lines log, without their timings (`seconds`).
#[allow(dead_code)] // not every test binary reads logs
pub fn generation_records(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "generation")
        .map(|mut v| {
            v.as_object_mut().unwrap().remove("seconds");
            v
        })
        .collect()
}
