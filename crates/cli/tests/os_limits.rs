//! The command line under the operating system's limits and as a subprocess: every kind of
//! standard output a caller can give, a file-size limit (`ulimit -f`), an address-space limit
//! (`prlimit --as`), and runs started together on the same files. Each run draws its cases from a
//! seed it prints (`GRADFREE_TEST_SEED=N` replays one), besides the fixed cases.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::assert_clean_error;
use rand::{RngExt, SeedableRng};

const BIN: &str = env!("CARGO_BIN_EXE_gradfree");

/// The seed of this run's drawn cases: `GRADFREE_TEST_SEED`, else the clock; printed, so a failure
/// names the seed that replays it.
fn seed(test: &str) -> u64 {
    let seed = std::env::var("GRADFREE_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
    eprintln!("{test}: GRADFREE_TEST_SEED={seed}");
    seed
}

/// Runs `gradfree args` through `sh -c`, with `redirect` applied by the shell (e.g. `>&-`) and
/// `prefix` before the command (e.g. `prlimit --fsize=100`), in `dir`.
fn shell(dir: &Path, prefix: &str, args: &[&str], redirect: &str) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!("set -o pipefail; exec {prefix} '{BIN}' {} {redirect}", quoted.join(" "));
    Command::new("bash").arg("-c").arg(script).current_dir(dir).stderr(Stdio::piped()).output().expect("sh runs")
}

/// Commands whose results go to standard output, small enough to run many times.
const STDOUT_COMMANDS: &[&[&str]] = &[
    &["list"],
    &["--help"],
    &["--version"],
    &["sample", "--help"],
    &["sample", "--method", "sobol", "--dim", "3", "--n", "8"],
    &["sample", "--method", "halton", "--dim", "2", "--n", "5", "-o", "-"],
    &["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "3", "--max-evals", "300", "--seed", "2"],
    &["integrate", "--dim", "4", "--n", "97", "--method", "subgroup", "--replicates", "3"],
    &["lattice", "--method", "subgroup", "--dim", "3", "--n", "31"],
    &["params", "cmaes"],
];

#[test]
fn standard_output_is_an_error_only_when_writing_to_it_fails() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for args in STDOUT_COMMANDS {
        // Discarded output, however `/dev/null` was opened: `subprocess.DEVNULL` (read-write),
        // `1<>/dev/null`, `> /dev/null`; and a regular file. All succeed.
        let rw = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null").unwrap();
        let out = Command::new(BIN).args(*args).current_dir(dir).stdout(Stdio::from(rw)).stderr(Stdio::piped()).output().unwrap();
        assert!(out.status.success(), "{args:?} with stdout = /dev/null read-write: {}", String::from_utf8_lossy(&out.stderr));
        for redirect in ["1<>/dev/null", ">/dev/null", ">out.txt"] {
            let out = shell(dir, "", args, redirect);
            assert!(out.status.success(), "{args:?} {redirect}: {}", String::from_utf8_lossy(&out.stderr));
        }
        assert!(std::fs::metadata(dir.join("out.txt")).unwrap().len() > 0, "{args:?}: the output reached the file");
        // A really closed standard output (`>&-`), or one open for reading only: every write
        // would fail, so the results would be lost.
        for redirect in [">&-", "1</dev/null"] {
            assert_clean_error(&shell(dir, "", args, redirect), "standard output is closed");
        }
        // A write that fails: a full device.
        let out = shell(dir, "", args, ">/dev/full");
        assert_clean_error(&out, "writing to standard output");
        // A reader that stops early is not an error of ours.
        let out = shell(dir, "", args, "| head -c 1 >/dev/null");
        assert!(out.status.success(), "{args:?} | head: {}", String::from_utf8_lossy(&out.stderr));
    }
    // Python's way of discarding, the way workflow engines call commands.
    let python = ["python3", "-c", "import subprocess,sys; sys.exit(subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode)"];
    if Command::new("python3").arg("-c").arg("pass").status().is_ok_and(|s| s.success()) {
        let status = Command::new(python[0]).args(&python[1..]).args([BIN, "list"]).status().unwrap();
        assert!(status.success(), "subprocess.run(..., stdout=subprocess.DEVNULL)");
    }
}

#[test]
fn a_command_whose_results_are_files_reports_a_closed_standard_output_after_writing_them() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["sample", "--method", "sobol", "--dim", "2", "--n", "8", "-o", "p.csv"];
    // To /dev/null, whichever way opened: success, and the file is written.
    let out = shell(dir.path(), "", &args, "1<>/dev/null");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("p.csv")).unwrap().lines().count(), 8);
    std::fs::remove_file(dir.path().join("p.csv")).unwrap();
    // Closed: the file is written whole; the summary's write fails and says so.
    let out = shell(dir.path(), "", &args, ">&-");
    assert_clean_error(&out, "standard output");
    assert_eq!(std::fs::read_to_string(dir.path().join("p.csv")).unwrap().lines().count(), 8);
}

/// The folder's files and their contents, for "nothing else changed" checks.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// Test input (not a data set): `rows` rows of a linear model with 2 features, `y` last.
fn linear_csv(dir: &Path, rows: usize) {
    let mut text = String::from("a,b,y\n");
    for i in 0..rows {
        let (a, b) = ((i % 7) as f64 / 7.0, (i % 11) as f64 / 11.0);
        text.push_str(&format!("{a},{b},{}\n", 1.0 + 2.0 * a - b + ((i * 37 % 13) as f64 - 6.0) / 60.0));
    }
    std::fs::write(dir.join("d.csv"), text).unwrap();
}

/// Every writer under a file-size limit drawn from the seed: one error line naming the file and
/// the limit, exit 2, no temporary file, and the file it would have replaced left as it was.
#[test]
fn a_file_size_limit_is_an_error_naming_the_file_and_the_limit() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed("file_size_limit"));
    let writers: &[(&str, &[&str])] = &[
        ("p.csv", &["sample", "--method", "sobol", "--dim", "20", "--n", "4096", "-o", "p.csv"]),
        ("p.npy", &["sample", "--method", "halton", "--dim", "20", "--n", "4096", "-o", "p.npy"]),
        ("l.csv", &["lattice", "--method", "subgroup", "--dim", "40", "--n", "4001", "-o", "l.csv"]),
        ("f.npy", &["features", "--data", "d.csv", "--dim-out", "512", "-o", "f.npy"]),
        (
            "run.jsonl",
            &["optimize", "--algo", "cmaes", "--problem", "ellipsoid", "--dim", "30", "--max-evals", "60000", "--log", "run.jsonl"],
        ),
        (
            "c.ckpt",
            &["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "400", "--max-evals", "3000", "--checkpoint", "c.ckpt"],
        ),
        (
            "chains.csv",
            &[
                "infer",
                "--data",
                "d.csv",
                "--target",
                "y",
                "--model",
                "linear",
                "--method",
                "masgrad",
                "--steps",
                "400",
                "--chains-out",
                "chains.csv",
            ],
        ),
    ];
    for (file, args) in writers {
        let dir = tempfile::tempdir().unwrap();
        linear_csv(dir.path(), 300);
        // An old file in the place of an output (not of a checkpoint: a new run refuses one).
        let old = !file.ends_with(".ckpt") && !file.ends_with(".jsonl");
        if old {
            std::fs::write(dir.path().join(file), b"the previous file\n").unwrap();
        }
        let before = snapshot(dir.path());
        let limit = rng.random_range(1..4096u64);
        let out = shell(dir.path(), &format!("prlimit --fsize={limit}"), args, ">/dev/null");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_clean_error(&out, file);
        assert!(err.contains(&format!("file-size limit of {limit} bytes")), "{file} at {limit} B: {err}");
        let after = snapshot(dir.path());
        assert!(after.iter().all(|(n, _)| !n.contains(".tmp-") && !n.ends_with(".lock")), "{file}: left {after:?}");
        if old {
            assert_eq!(before, after, "{file}: the old file and the inputs are as they were");
        }
    }
}

/// Commands whose memory grows with their arguments, under an address-space limit drawn from the
/// seed (64 MiB to 1 GiB) and sizes drawn around what fits: each succeeds or refuses with one
/// error line, never dies of a signal or "memory allocation failed".
#[test]
fn an_address_space_limit_never_aborts_a_command() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed("address_space_limit"));
    let dir = tempfile::tempdir().unwrap();
    linear_csv(dir.path(), 400);
    for _ in 0..24 {
        let limit: u64 = 1 << rng.random_range(26..=30u32);
        let n = 1u64 << rng.random_range(10..=14u32);
        let d = rng.random_range(2..=400u64);
        let (n_s, d_s) = (n.to_string(), d.to_string());
        let m = rng.random_range(1..=1u64 << 22).to_string();
        let m_features = rng.random_range(1..=1u64 << 14).to_string();
        let args: Vec<&str> = match rng.random_range(0..6) {
            0 => vec!["sample", "--method", "sobol", "--dim", &d_s, "--n", &n_s, "-o", "p.npy"],
            1 => vec!["sample", "--method", "lhs", "--dim", &d_s, "--n", &n_s],
            2 => vec!["lattice", "--method", "korobov", "--dim", &d_s, "--n", "10007", "-o", "l.csv"],
            3 => vec!["features", "--data", "d.csv", "--dim-out", &m_features, "-o", "f.npy"],
            4 => vec!["integrate", "--dim", &d_s, "--n", "10007", "--method", "sobol", "--replicates", "3"],
            _ => vec!["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", &m, "--max-evals", "100"],
        };
        let out = shell(dir.path(), &format!("timeout 120 prlimit --as={limit}"), &args, ">/dev/null");
        let err = String::from_utf8_lossy(&out.stderr);
        let case = format!("{args:?} under --as={limit}: {err}");
        assert!(!err.contains("memory allocation of") && !err.contains("panicked"), "{case}");
        match out.status.code() {
            Some(0) => {}
            Some(2) => {
                assert_eq!(err.trim().lines().filter(|l| !l.starts_with("note:") && !l.starts_with("warning:")).count(), 1, "{case}");
                assert!(err.contains("memory") || err.contains("GiB") || err.contains("MiB"), "{case}");
            }
            other => panic!("exit {other:?} (a signal?): {case}"),
        }
        let left: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(left.iter().all(|n| !n.contains(".tmp-") && !n.ends_with(".lock")), "{case}: left {left:?}");
    }
}

/// Runs started together on the same checkpoint, log or output: exactly one owns the file, the
/// others refuse naming it, and the file holds the one run whole.
#[test]
fn runs_started_together_cannot_share_a_file() {
    let cases: &[(&str, &[&str])] = &[
        (
            "c.ckpt",
            &["optimize", "--algo", "cmaes", "--problem", "ellipsoid", "--dim", "40", "--max-evals", "40000", "--checkpoint", "c.ckpt"],
        ),
        (
            "run.jsonl",
            &["optimize", "--algo", "cmaes", "--problem", "ellipsoid", "--dim", "40", "--max-evals", "40000", "--log", "run.jsonl"],
        ),
        ("p.npy", &["sample", "--method", "sobol", "--dim", "64", "--n", "131072", "-o", "p.npy"]),
    ];
    for (file, args) in cases {
        let dir = tempfile::tempdir().unwrap();
        let children: Vec<_> = (0..3)
            .map(|i| {
                let seed = (i + 1).to_string();
                let mut a: Vec<&str> = args.to_vec();
                if a[0] == "optimize" {
                    a.extend(["--seed", &seed]);
                }
                Command::new(BIN).args(&a).current_dir(dir.path()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
            })
            .collect();
        let outs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let ok = outs.iter().filter(|o| o.status.success()).count();
        assert!(
            ok >= 1,
            "{file}: no run succeeded: {:?}",
            outs.iter().map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).collect::<Vec<_>>()
        );
        for o in outs.iter().filter(|o| !o.status.success()) {
            let err = String::from_utf8_lossy(&o.stderr);
            // Refused because another run owns the file, or (for a checkpoint, once the first
            // run has finished) because it exists already.
            assert!(err.contains("in use by another run") || err.contains("exists already"), "{file}: {err}");
            assert_clean_error(o, file);
        }
        if ok > 1 {
            // Several may succeed one after another only where a later run may replace the file
            // (an output or a log, never a checkpoint of another run).
            assert!(!file.ends_with(".ckpt"), "{file}: {ok} runs wrote one checkpoint");
        }
        let left = snapshot(dir.path());
        assert!(left.iter().all(|(n, _)| !n.contains(".tmp-") && !n.ends_with(".lock")), "{file}: left {left:?}");
    }
}

/// A resumed run goes on writing its own log only: a log that another run has since taken over
/// (`--overwrite`) is refused naming both runs, and left as it is.
#[test]
fn a_resumed_run_refuses_a_log_another_run_took_over() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "5", "--seed", "1"];
        a.extend_from_slice(extra);
        Command::new(BIN).args(&a).current_dir(dir.path()).stdout(Stdio::null()).stderr(Stdio::piped()).output().unwrap()
    };
    // Run A, stopped early with a checkpoint and its log.
    let a = run(&["--max-evals", "200", "--checkpoint", "a.ckpt", "--log", "run.jsonl"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    // Run B takes the log over.
    let b = run(&["--max-evals", "100", "--log", "run.jsonl", "--overwrite"]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let taken = std::fs::read(dir.path().join("run.jsonl")).unwrap();
    // Resuming A without --log would write B's log: refused, naming both runs; the log is B's.
    let resumed = Command::new(BIN)
        .args(["optimize", "--resume", "a.ckpt", "--max-evals", "400"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_clean_error(&resumed, "belongs to another run (run ");
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("this checkpoint's run (run "));
    assert_eq!(std::fs::read(dir.path().join("run.jsonl")).unwrap(), taken, "B's log is untouched");
    // With a log of its own it goes on.
    let resumed = Command::new(BIN)
        .args(["optimize", "--resume", "a.ckpt", "--max-evals", "400", "--log", "a2.jsonl"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    // And its own log, never taken over, resumes as before.
    let c = run(&["--max-evals", "200", "--checkpoint", "c.ckpt", "--log", "c.jsonl"]);
    assert!(c.status.success());
    let resumed = Command::new(BIN)
        .args(["optimize", "--resume", "c.ckpt", "--max-evals", "400"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let text = std::fs::read_to_string(dir.path().join("c.jsonl")).unwrap();
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "start")
        .map(|v| v["run_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "a start record per session");
    assert_eq!(ids[0], ids[1], "one run");
}
