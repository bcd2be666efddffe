//! `gradfree train` as a user runs it: a noisy-label run on the shipped digits, its log plotted,
//! a killed run resumed bit-identically, and bad input as one-line errors naming the flag.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{assert_clean_error, generation_records};

fn gradfree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).env("RAYON_NUM_THREADS", "1").output().expect("binary runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The run's result without its timings.
fn strip(mut v: serde_json::Value) -> serde_json::Value {
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("resumed");
    for r in o["history"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("seconds");
    }
    v
}

const RUN: [&str; 12] =
    ["train", "--data", "digits", "--noise", "symmetric:0.4", "--epochs", "12", "--burn-in", "2", "--seed", "3", "--json"];

#[test]
fn a_noisy_digits_run_reports_last_and_best_epoch_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let v = json(&gradfree(&[&RUN[..], &["--log", log.to_str().unwrap()]].concat()));
    let history = v["history"].as_array().unwrap();
    assert_eq!(history.len(), 12);
    let (last, best) = (v["last_epoch_accuracy"].as_f64().unwrap(), v["best_epoch_accuracy"].as_f64().unwrap());
    assert!(last > 0.75 && best >= last, "{last} {best}");
    // NPCL trains on cleaner labels than it is given (40% are wrong).
    let precision = history.last().unwrap()["label_precision"].as_f64().unwrap();
    assert!(precision > 0.8, "{precision}");
    let rate = v["actual_noise_rate"].as_f64().unwrap();
    assert!((rate - 0.4).abs() < 0.04, "{rate}");
    // The transition matrix is in the log's start record and rows sum to 1.
    let start: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().lines().next().unwrap()).unwrap();
    for row in start["transition"].as_array().unwrap() {
        let s: f64 = row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).sum();
        assert!((s - 1.0).abs() < 1e-12);
    }
    let png = dir.path().join("run.png");
    let out = gradfree(&["plot", log.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // Same seed, same run.
    assert_eq!(strip(json(&gradfree(&RUN))), strip(v));
}

/// Epoch records in a run's log so far (a line being written is not counted).
fn epochs_logged(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().filter(|l| l.ends_with('}') && l.contains("\"type\":\"generation\"")).count())
}

#[test]
fn a_killed_run_resumes_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_gradfree");
    let run = ["train", "--data", "digits", "--model", "cnn", "--loss", "coteaching", "--noise", "pair:0.35", "--epochs", "8", "--json"];
    let full_log = dir.path().join("full.jsonl");
    let reference = strip(json(&gradfree(&[&run[..], &["--log", full_log.to_str().unwrap()]].concat())));
    let ck = dir.path().join("run.ckpt");
    let log = dir.path().join("run.jsonl");
    let (mut kills, mut result) = (0, None);
    for attempt in 0..40u64 {
        let mut cmd = Command::new(bin);
        cmd.env("RAYON_NUM_THREADS", "1");
        if ck.exists() {
            cmd.args(["train", "--json", "--resume"]).arg(&ck);
        } else {
            cmd.args(run).arg("--checkpoint").arg(&ck).arg("--log").arg(&log);
        }
        let out_path = dir.path().join("out.json");
        let before = epochs_logged(&log);
        let mut child = cmd.stdout(std::fs::File::create(&out_path).unwrap()).spawn().unwrap();
        // Kill once the run has logged a new epoch (progress whatever the machine's speed), a
        // little later each attempt, so that kills fall both between and inside epochs; the last
        // epoch is left to finish.
        let started = std::time::Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let n = epochs_logged(&log);
            if (n > before && n < 8) || started.elapsed() > std::time::Duration::from_secs(120) {
                std::thread::sleep(std::time::Duration::from_millis(15 * (attempt % 4)));
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if child.try_wait().unwrap().is_some() {
            result = Some(serde_json::from_str::<serde_json::Value>(std::fs::read_to_string(&out_path).unwrap().trim()).unwrap());
            break;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
    }
    let result = result.unwrap_or_else(|| json(&gradfree(&["train", "--json", "--resume", ck.to_str().unwrap()])));
    assert!(kills >= 2, "the run should have been killed at least twice, got {kills}");
    assert_eq!(strip(result), reference, "after {kills} kills");
    // The resumed runs went on writing the run's log (no --log given): it reads as the
    // uninterrupted run's, epoch for epoch.
    assert_eq!(generation_records(&log).len(), 8);
    assert_eq!(generation_records(&log), generation_records(&full_log));
}

#[test]
fn a_cnn_with_the_nok_block_runs_from_the_command_line() {
    let out = gradfree(&[
        "train",
        "--data",
        "digits",
        "--model",
        "cnn",
        "--loss",
        "ce",
        "--noise",
        "none",
        "--epochs",
        "8",
        "--schedule",
        "constant",
        "--block",
        "nok",
        "--block-param",
        "at=both",
        "--block-param",
        "layers=1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["run"]["block"]["kind"], "nok");
    assert_eq!(v["run"]["block"]["at"], "both");
    assert_eq!(v["run"]["block"]["layers"], 1);
    assert!(v["last_epoch_accuracy"].as_f64().unwrap() > 0.6, "{v}"); // chance: 0.1
}

#[test]
fn bad_input_names_the_flag() {
    let base = ["train", "--epochs", "1"];
    let cases: &[(&[&str], &str)] = &[
        (&["--noise", "symmetric:1.2"], "--noise"),
        (&["--noise", "pair:0.5"], "--noise"),
        (&["--noise", "gaussian:0.2"], "--noise"),
        (&["--noise-rate", "1.0"], "--noise-rate"),
        (&["--noise-rate", "-0.1"], "--noise-rate"),
        (&["--batch-size", "0"], "--batch-size"),
        (&["--loss", "focal"], "--loss"),
        (&["--model", "resnet"], "--model"),
        (&["--optimizer", "lbfgs"], "--optimizer"),
        (&["--lr", "-1"], "--lr"),
        (&["--data", "cifar10"], "--data"),
        (&["--hidden", "0"], "--hidden"),
        (&["--block", "gauss"], "--block"),
        (&["--block-param", "lambda=0.5"], "--block-param"),
        (&["--model", "cnn", "--block", "nok", "--block-param", "lambda=0"], "--block-param"),
        (&["--model", "cnn", "--block", "nok", "--block-param", "depth=2"], "--block-param"),
        (&["--model", "cnn", "--block", "nok", "--block-param", "patch=3"], "--block-param"),
        (&["--block", "nok", "--block-param", "at=conv1"], "--block-param"),
        (&["--model", "cnn", "--block", "nok", "--block-param", "lambda"], "--block-param"),
    ];
    for (extra, flag) in cases {
        let data: &[&str] = if extra.contains(&"--data") { &[] } else { &["--data", "digits"] };
        assert_clean_error(&gradfree(&[&base[..], data, extra].concat()), flag);
    }
    // A data set whose Debian package is not installed: the package, and the shipped data set.
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree"))
        .args(["train", "--epochs", "1", "--data", "fashion-mnist"])
        .env("GRADFREE_FASHION_MNIST_DIR", "/nonexistent")
        .output()
        .unwrap();
    assert_clean_error(&out, "apt-get install dataset-fashion-mnist");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--data digits"));
    let missing = Path::new("/nonexistent/run.ckpt");
    let out = gradfree(&["train", "--resume", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
