//! The command line under hostile input: sizes that cannot be allocated, files that must not be
//! damaged, checkpoints that do not fit their data, signals. Every case ends in one clear error
//! line (exit 2) or a clean stop, and leaves every file as it was. (Standard output, file-size
//! and memory limits, and runs started together: `os_limits.rs`.)

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::assert_clean_error;

fn gradfree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).output().expect("binary runs")
}

/// Test input (not a data set): 300 rows of a logistic model, `y` last.
fn logistic_csv(dir: &Path, name: &str) -> String {
    let mut text = String::from("a,b,y\n");
    let mut state = 99u64;
    let mut unif = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..300 {
        let (a, b) = (2.0 * unif() - 1.0, 2.0 * unif() - 1.0);
        let y = u8::from(unif() < 1.0 / (1.0 + (-(a - b)).exp()));
        text.push_str(&format!("{a},{b},{y}\n"));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn sizes_are_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    let infer = |extra: &[&str]| gradfree(&[&["infer", "--data", &data, "--target", "y", "--method", "masgrad"][..], extra].concat());
    assert_clean_error(&infer(&["--batch", "18446744073709551615"]), "invalid --batch 18446744073709551615: ");
    assert_clean_error(&infer(&["--batch", "10000000000"]), "of memory available");
    assert_clean_error(&infer(&["--model", "relu", "--hidden", "18446744073709551615"]), "invalid --hidden 18446744073709551615");
    assert_clean_error(&infer(&["--model", "relu", "--hidden", "1000000000"]), "invalid --hidden 1000000000");
    assert_clean_error(&infer(&["--chains", "1048576", "--steps", "1073741824"]), "of memory available");
    // Two rows of a million columns: MasGrad's p x p matrices, named by the data.
    let wide = dir.path().join("wide.csv");
    let row = |y: u8| format!("{}{y}\n", "0.5,".repeat(1_000_000));
    std::fs::write(&wide, format!("{}{}", row(0), row(1))).unwrap();
    let out = gradfree(&["infer", "--data", wide.to_str().unwrap(), "--target", "-1", "--model", "linear", "--method", "sgd"]);
    assert_clean_error(&out, "of memory available");
    // Training: widths and epochs; a batch larger than the data is the whole data.
    assert_clean_error(&gradfree(&["train", "--data", "digits", "--hidden", "1000000000"]), "invalid --hidden 1000000000");
    assert_clean_error(&gradfree(&["train", "--data", "digits", "--epochs", "1000000000"]), "invalid --epochs 1000000000");
    let out = gradfree(&["train", "--data", "digits", "--epochs", "1", "--batch-size", "18446744073709551615", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn no_command_writes_over_its_input_or_a_foreign_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "in.csv");
    let before = std::fs::read(&data).unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let infer = |extra: &[&str]| {
        gradfree(&[&["infer", "--data", &data, "--target", "y", "--method", "sgd", "--steps", "5", "--chains", "4"][..], extra].concat())
    };
    assert_clean_error(&infer(&["--chains-out", &data]), "--data and --chains-out are the same file");
    assert_clean_error(&infer(&["--checkpoint", &data]), "the same file");
    let dotted = format!("{}/./in.csv", dir.path().display());
    assert_clean_error(&infer(&["--chains-out", &dotted]), "the same file");
    assert_clean_error(&infer(&["--checkpoint", &p("x.csv"), "--chains-out", &p("x.csv")]), "the same file");
    assert_eq!(std::fs::read(&data).unwrap(), before, "the input is untouched");
    // A new run does not replace another run's checkpoint without --overwrite.
    let ck = p("run.ckpt");
    assert!(infer(&["--checkpoint", &ck]).status.success());
    let saved = std::fs::read(&ck).unwrap();
    assert_clean_error(&infer(&["--checkpoint", &ck, "--seed", "3"]), "--overwrite");
    assert_eq!(std::fs::read(&ck).unwrap(), saved);
    assert!(infer(&["--checkpoint", &ck, "--seed", "3", "--overwrite"]).status.success());
    assert_ne!(std::fs::read(&ck).unwrap(), saved);
    // Logs and checkpoints: never a device, a FIFO, a symbolic link, or one file for both.
    let train = |extra: &[&str]| gradfree(&[&["train", "--data", "digits", "--epochs", "1"][..], extra].concat());
    assert_clean_error(&train(&["--log", &p("same"), "--checkpoint", &p("same")]), "the same file");
    assert_clean_error(&train(&["--log", "/dev/zero"]), "not a regular file");
    let fifo = p("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert_clean_error(&train(&["--log", &fifo]), "not a regular file");
    let target = p("target.jsonl");
    std::fs::write(&target, "keep\n").unwrap();
    let link = p("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_clean_error(&train(&["--log", &link]), "symbolic link");
    let out =
        gradfree(&["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "2", "--max-evals", "50", "--log", &link, "--quiet"]);
    assert_clean_error(&out, "symbolic link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
    // Point files: not over their input, not into a missing folder.
    let out = gradfree(&["features", "--data", &data, "--dim-out", "4", "-o", &data]);
    assert_clean_error(&out, "the same file");
    assert_clean_error(&gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "4", "-o", &p("no/such/x.npy")]), "does not exist");
    assert_eq!(std::fs::read(&data).unwrap(), before, "the input is untouched");
}

#[test]
fn a_failed_run_leaves_the_previous_log_and_a_changed_checkpoint_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    let log = dir.path().join("run.jsonl");
    let previous = "{\"type\":\"start\",\"note\":\"the previous run's log\"}\n";
    std::fs::write(&log, previous).unwrap();
    // A run that diverges at its first epoch keeps the old log and leaves no temporary.
    let out = gradfree(&["train", "--data", "digits", "--epochs", "2", "--lr", "1e30", "--quiet", "--log", log.to_str().unwrap()]);
    assert_clean_error(&out, "epoch 1");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), previous);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    // A checkpoint knows its data: appending a row is an error on resume.
    let ck = dir.path().join("c.ckpt");
    let ck = ck.to_str().unwrap();
    let run =
        gradfree(&["infer", "--data", &data, "--target", "y", "--method", "sgd", "--steps", "6", "--chains", "4", "--checkpoint", ck]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut text = std::fs::read_to_string(&data).unwrap();
    text.push_str("0.1,0.2,1\n");
    std::fs::write(&data, &text).unwrap();
    assert_clean_error(&gradfree(&["infer", "--resume", ck, "--steps", "8"]), "has changed since the checkpoint was written");
    // An edited checkpoint (checksum and all) whose spec disagrees with its state is refused.
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(ck).unwrap()).unwrap();
    doc["meta"]["run"]["spec"]["batch_size"] = serde_json::json!(1u64 << 62);
    doc["optimizer"]["spec"]["batch_size"] = serde_json::json!(1u64 << 62);
    let obj = doc.as_object_mut().unwrap();
    obj.remove("checksum");
    let sum = format!("crc32:{:08x}", crc32fast::hash(&serde_json::to_vec(&doc).unwrap()));
    doc.as_object_mut().unwrap().insert("checksum".into(), sum.into());
    std::fs::write(ck, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = gradfree(&["infer", "--resume", ck]);
    assert_clean_error(&out, "memory available");
}

/// Sends `signal` to a run once it has written its checkpoint (or after `wait` for commands
/// without one), then checks: exit 130, no temporary file, and (with a checkpoint) a run that
/// resumes.
fn stop_with(signal: &str, args: &[&str], dir: &Path, checkpoint: Option<&Path>) {
    let child = Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let started = std::time::Instant::now();
    loop {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let ready = match checkpoint {
            Some(c) => c.exists(),
            None => std::fs::read_dir(dir).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().contains(".tmp-")),
        };
        if ready || started.elapsed().as_secs() > 60 {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{signal} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{signal} {args:?}: {names:?}");
}

#[test]
fn signals_leave_no_temporary_and_a_resumable_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    // sample: a 2 GiB file being written (where the disk has room for it).
    let df = Command::new("df").args(["--output=avail", "-B1"]).arg(dir.path()).output().unwrap();
    let free: u64 = String::from_utf8_lossy(&df.stdout).lines().nth(1).and_then(|l| l.trim().parse().ok()).unwrap_or(0);
    if free > 8 << 30 {
        let out = dir.path().join("big.npy");
        stop_with("TERM", &["sample", "--method", "sobol", "--dim", "64", "--n", "4194304", "-o", out.to_str().unwrap()], dir.path(), None);
        assert!(!out.exists());
    }
    // infer --checkpoint: stopped, then resumed to the same result as a run in one go.
    for signal in ["INT", "TERM"] {
        let ck = dir.path().join(format!("infer-{signal}.ckpt"));
        let base = ["infer", "--data", &data, "--target", "y", "--method", "masgrad", "--chains", "4", "--json", "--quiet"];
        stop_with(
            signal,
            &[&base[..], &["--steps", "3000000", "--checkpoint-every", "1000", "--checkpoint", ck.to_str().unwrap()]].concat(),
            dir.path(),
            Some(&ck),
        );
        let done: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&ck).unwrap()).unwrap();
        let at = done["driver"]["generations"].as_u64().unwrap();
        assert!(at > 0 && at < 3_000_000, "{at}");
        let resumed = gradfree(&["infer", "--resume", ck.to_str().unwrap(), "--steps", &(at + 10).to_string(), "--json"]);
        let whole = gradfree(&[&base[..], &["--steps", &(at + 10).to_string()]].concat());
        let (r, w): (serde_json::Value, serde_json::Value) =
            (serde_json::from_slice(&resumed.stdout).unwrap(), serde_json::from_slice(&whole.stdout).unwrap());
        assert_eq!(r["params"], w["params"], "{signal}");
        assert_eq!(r["process_sd"], w["process_sd"], "{signal}");
    }
    // train --checkpoint: stopped after an epoch, the checkpoint resumes.
    let ck = dir.path().join("train.ckpt");
    stop_with(
        "INT",
        &["train", "--data", "digits", "--epochs", "60", "--quiet", "--checkpoint", ck.to_str().unwrap()],
        dir.path(),
        Some(&ck),
    );
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&ck).unwrap()).unwrap();
    let at = saved["driver"]["generations"].as_u64().unwrap();
    assert!((1..60).contains(&at), "{at}");
    let resumed = gradfree(&["train", "--resume", ck.to_str().unwrap(), "--json", "--quiet"]);
    let whole = gradfree(&["train", "--data", "digits", "--epochs", "60", "--json", "--quiet"]);
    let (r, w): (serde_json::Value, serde_json::Value) =
        (serde_json::from_slice(&resumed.stdout).unwrap(), serde_json::from_slice(&whole.stdout).unwrap());
    assert_eq!(r["last_epoch_accuracy"], w["last_epoch_accuracy"]);
}

#[test]
fn separated_classes_are_warned_about_as_statsmodels_does() {
    let dir = tempfile::tempdir().unwrap();
    let sep = dir.path().join("sep.csv");
    let rows: String = (0..200).map(|i| (i as f64 - 99.5) / 50.0).map(|x| format!("{x},{}\n", u8::from(x > 0.0))).collect();
    std::fs::write(&sep, format!("x,y\n{rows}")).unwrap();
    let out = gradfree(&["infer", "--data", sep.to_str().unwrap(), "--target", "y", "--intercept", "--method", "sgd", "--json"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: Perfect separation or prediction detected"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("complete separation")), "{v}");
    // Maximum likelihood (the default) says so too.
    let out = gradfree(&["infer", "--data", sep.to_str().unwrap(), "--target", "y", "--intercept"]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stderr).contains("warning: Perfect separation"));
    // Overlapping classes: no warning.
    let data = logistic_csv(dir.path(), "d.csv");
    let out = gradfree(&["infer", "--data", &data, "--target", "y", "--json"]);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// A checkpoint costs what the chains' state costs: its size does not grow with the steps (the
/// history goes to the records file, appended to), and on a 20,000-step run the default cadence
/// adds little to the run (the bound leaves room for a loaded machine: 10% plus half a second).
#[test]
fn checkpoints_cost_what_the_state_costs() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    let base = ["infer", "--data", &data, "--target", "y", "--method", "masgrad", "--chains", "10", "--quiet", "--json"];
    let size_after = |steps: &str, name: &str| {
        let ck = dir.path().join(name);
        let out = gradfree(&[&base[..], &["--steps", steps, "--checkpoint", ck.to_str().unwrap()]].concat());
        assert!(out.status.success());
        std::fs::metadata(&ck).unwrap().len()
    };
    let (short, long) = (size_after("100", "short.ckpt"), size_after("20000", "long.ckpt"));
    assert!(long.abs_diff(short) < 64, "checkpoint of 100 steps {short} bytes, of 20,000 steps {long} bytes");
    let records: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("long.ckpt.records-"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(records, 20_000 * 10 * 2 * 8, "every step's record, once");
    let time = |extra: &[&str]| {
        let t = std::time::Instant::now();
        assert!(gradfree(&[&base[..], &["--steps", "20000"], extra].concat()).status.success());
        t.elapsed().as_secs_f64()
    };
    let plain = (0..3).map(|_| time(&[])).fold(f64::INFINITY, f64::min);
    let ck = dir.path().join("timed.ckpt");
    let ck = ck.to_str().unwrap();
    let with = (0..3).map(|_| time(&["--checkpoint", ck, "--overwrite"])).fold(f64::INFINITY, f64::min);
    assert!(with <= 1.1 * plain + 0.5, "20,000 steps: {plain:.3} s, with checkpoints {with:.3} s");
}

/// Cases a hostile pass found: each was a panic, a hang, a silent result or a replaced file.
#[test]
fn regressions_of_the_hostile_pass() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    assert_clean_error(&gradfree(&["bo", "--problem", "sphere", "--dim", "18446744073709551615", "--quiet"]), "--dim");
    assert_clean_error(
        &gradfree(&["reproduce", "mines-synthetic", "--runs", "18446744073709551615", "--out", &p("out")]),
        "invalid --runs",
    );
    assert_clean_error(&gradfree(&["lattice", "--dim", "65536", "--n", "786433"]), "2^33");
    // A log never replaces a file that is not a log, unless told to.
    let data = logistic_csv(dir.path(), "d.csv");
    let before = std::fs::read(&data).unwrap();
    let opt = ["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "2", "--max-evals", "40", "--quiet", "--log", &data];
    assert_clean_error(&gradfree(&opt), "not a gradfree log");
    assert_eq!(std::fs::read(&data).unwrap(), before);
    // Inference from one row has no sampling noise.
    let one = p("one.csv");
    std::fs::write(&one, "a,y\n0.5,1\n").unwrap();
    assert_clean_error(&gradfree(&["infer", "--data", &one, "--target", "y", "--method", "sgd"]), "at least 2 rows");
    // A checkpoint whose generator state is all zeros (checksum recomputed) is refused.
    let ck = p("o.ckpt");
    let made = gradfree(&[
        "optimize",
        "--algo",
        "cmaes",
        "--problem",
        "sphere",
        "--dim",
        "3",
        "--max-evals",
        "60",
        "--quiet",
        "--checkpoint",
        &ck,
    ]);
    assert!(made.status.success());
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&ck).unwrap()).unwrap();
    fn zero(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) if m.len() == 1 && m.get("s").is_some_and(|s| s.as_array().is_some_and(|a| a.len() == 4)) => {
                m.insert("s".into(), serde_json::json!([0, 0, 0, 0]));
            }
            serde_json::Value::Object(m) => m.values_mut().for_each(zero),
            serde_json::Value::Array(a) => a.iter_mut().for_each(zero),
            _ => {}
        }
    }
    zero(&mut doc);
    doc.as_object_mut().unwrap().remove("checksum");
    let sum = format!("crc32:{:08x}", crc32fast::hash(&serde_json::to_vec(&doc).unwrap()));
    doc.as_object_mut().unwrap().insert("checksum".into(), sum.into());
    std::fs::write(&ck, serde_json::to_vec(&doc).unwrap()).unwrap();
    assert_clean_error(&gradfree(&["optimize", "--resume", &ck, "--max-evals", "600", "--quiet"]), "all zeros");
}

/// Flags that would be ignored are refused, as Python refuses their keywords.
#[test]
fn flags_that_do_not_apply_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    let infer = |extra: &[&str]| gradfree(&[&["infer", "--data", &data, "--target", "y"][..], extra].concat());
    assert_clean_error(&infer(&["--lambda", "0.5"]), "invalid --lambda 0.5: only with --method madprox");
    assert_clean_error(&infer(&["--method", "sgd", "--decay", "0.7"]), "only with --method random-scaling");
    assert_clean_error(&infer(&["--method", "sgd", "--moments", "population"]), "invalid --moments population");
    assert_clean_error(&infer(&["--hidden", "5"]), "only with --model relu");
    assert_clean_error(&infer(&["--components", "4"]), "only with --model mixture");
    assert_clean_error(&infer(&["--checkpoint-every", "5"]), "only with --checkpoint FILE");
    // Maximum likelihood (the default) runs no chains: their flags are refused.
    assert_clean_error(&infer(&["--chains", "4"]), "invalid --chains 4: only with a chain method");
    assert_clean_error(&infer(&["--method", "sgd", "--cov-type", "HC0"]), "invalid --cov-type HC0: only with --method mle");
    assert_clean_error(&infer(&["--cov-type", "HC4"]), "invalid --cov-type HC4: must be nonrobust, HC0, HC1, HC2, HC3, cluster");
    assert_clean_error(
        &infer(&["--cov-type", "cluster"]),
        "invalid --cov-type cluster: must be nonrobust, HC0, HC1, HC2 or HC3 on the command line",
    );
    // One chain: bands are the spread across chains, so the run says they mean nothing.
    let out = gradfree(&["infer", "--data", &data, "--target", "y", "--method", "masgrad", "--chains", "1", "--steps", "5", "--json"]);
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stderr).contains("warning: one chain"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The other commands refuse flags their run would ignore too; a negative number is a value.
#[test]
fn other_commands_refuse_flags_they_would_ignore() {
    assert_clean_error(
        &gradfree(&["sample", "--method", "mc", "--dim", "2", "--n", "8", "--scramble", "owen"]),
        "invalid --scramble owen: only with --method sobol or halton",
    );
    assert_clean_error(&gradfree(&["lattice", "--method", "korobov", "--dim", "3", "--n", "101", "--primes", "7"]), "invalid --primes 7");
    assert_clean_error(&gradfree(&["bo", "--problem", "ackley", "--method", "ei", "--weight", "5", "--quiet"]), "invalid --weight 5");
    assert_clean_error(&gradfree(&["train", "--data", "digits", "--loss", "ce", "--burn-in", "3"]), "invalid --burn-in 3");
    let opt = ["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "3", "--quiet"];
    assert_clean_error(&gradfree(&[&opt[..], &["--restart-from", "uniform"]].concat()), "invalid --restart-from uniform");
    assert_clean_error(&gradfree(&[&opt[..], &["--no-convergence", "--tol-f-window", "5"]].concat()), "invalid --tol-f-window 5");
    let out = gradfree(&["optimize", "--problem", "sphere", "--dim", "-1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("'-1' for '--dim"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_clean_error(&gradfree(&["integrate", "--dim", "3", "--n", "101", "--method", "mc", "--b", "-50"]), "b = -50");
    // The features crate's parameters are named by their flags.
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path(), "d.csv");
    assert_clean_error(
        &gradfree(&["features", "--data", &data, "--dim-out", "8", "--report", "--gamma", "-1"]),
        "invalid --gamma -1: expected",
    );
}

/// A checkpoint resumed by another command names the command that wrote it; `bo --resume` takes
/// `--rounds` as the new total, never below the rounds done.
#[test]
fn a_checkpoint_is_resumed_by_its_own_command() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let (opt, bo) = (p("o.ckpt"), p("b.ckpt"));
    let made = gradfree(&[
        "optimize",
        "--algo",
        "cmaes",
        "--problem",
        "sphere",
        "--dim",
        "2",
        "--max-evals",
        "40",
        "--quiet",
        "--checkpoint",
        &opt,
    ]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let made = gradfree(&["bo", "--problem", "ackley", "--dim", "2", "--rounds", "2", "--batch", "2", "--quiet", "--checkpoint", &bo]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert_clean_error(&gradfree(&["bo", "--resume", &opt, "--quiet"]), "written by `gradfree optimize`, not by `gradfree bo`");
    assert_clean_error(&gradfree(&["optimize", "--resume", &bo, "--quiet"]), "written by `gradfree bo`, not by `gradfree optimize`");
    assert_clean_error(&gradfree(&["train", "--resume", &bo, "--quiet"]), "written by `gradfree bo`");
    assert_clean_error(&gradfree(&["infer", "--resume", &opt, "--quiet"]), "written by `gradfree optimize`");
    assert_clean_error(
        &gradfree(&["bo", "--resume", &bo, "--rounds", "1", "--quiet"]),
        "invalid --rounds 1: the checkpoint has already run 2 rounds",
    );
    let more = gradfree(&["bo", "--resume", &bo, "--rounds", "3", "--quiet", "--json"]);
    assert!(more.status.success(), "{}", String::from_utf8_lossy(&more.stderr));
    let out: serde_json::Value = serde_json::from_slice(&more.stdout).unwrap();
    assert_eq!(out["rounds"], 3);
}

/// A chart that cannot be written names its path and the cause in one line (not a backend's debug
/// dump); a search too long for its parameters names all of them.
#[test]
fn unwritable_charts_and_long_searches_name_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("o.jsonl").display().to_string();
    let made =
        gradfree(&["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "2", "--max-evals", "60", "--quiet", "--log", &log]);
    assert!(made.status.success());
    for out in ["x.png", "x.svg"] {
        let missing = dir.path().join("no").join(out).display().to_string();
        assert_clean_error(&gradfree(&["plot", &log, "-o", &missing]), &format!("--output {missing}: its folder"));
    }
    let png = dir.path().join("x.png");
    let ok = gradfree(&["plot", &log, "-o", png.to_str().unwrap()]);
    assert!(ok.status.success() && std::fs::read(&png).unwrap().starts_with(b"\x89PNG"), "a PNG is written");
    let e = gradfree(&["lattice", "--method", "alg10", "--dim", "10", "--n", "1000", "--primes", "18446744073709551615"]);
    assert_clean_error(&e, "--n 1000 --dim 10 --primes 18446744073709551615: this search needs");
}

/// Degenerate parameters and mixed inputs say what is wrong instead of writing NaN, reading
/// bits off a relaxation, keeping one of two values, or quoting a parser's position.
#[test]
fn degenerate_parameters_and_mixed_inputs_name_their_cause() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let data = logistic_csv(dir.path(), "d.csv");
    // A bandwidth whose 2 sigma^2 is not a normal double would make every feature NaN.
    for sigma in ["1e-320", "1e-160", "1e155"] {
        let out = gradfree(&["features", "--data", &data, "--sigma", sigma, "--dim-out", "8", "-o", &p("f.npy")]);
        assert_clean_error(&out, &format!("invalid --sigma {sigma}"));
        assert!(!dir.path().join("f.npy").exists());
    }
    let ok = gradfree(&["features", "--data", &data, "--sigma", "1e-150", "--dim-out", "8", "-o", &p("f.npy")]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    // Data whose projections overflow once divided by sigma: refused, naming the row.
    std::fs::write(dir.path().join("big.csv"), "a,b\n1,2\n1e300,-1e300\n").unwrap();
    assert_clean_error(
        &gradfree(&["features", "--data", &p("big.csv"), "--sigma", "1e-10", "--dim-out", "8", "-o", &p("g.npy")]),
        "row 1: its features are not finite",
    );
    // A continuous method on a binary problem answers with bits, whose value is the best found.
    for algo in [&["optimize", "--algo", "cmaes"][..], &["bo", "--method", "bkop", "--rounds", "3"]] {
        let out = gradfree(&[algo, &["--problem", "onemax", "--dim", "6", "--seed", "3", "--json"]].concat());
        assert!(out.status.success(), "{algo:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let x: Vec<f64> = v["best_x"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert!(x.iter().all(|&b| b == 0.0 || b == 1.0), "{algo:?}: best x {x:?}");
        let ones = x.iter().sum::<f64>();
        assert_eq!(v["best_f"].as_f64().unwrap(), 6.0 - ones, "{algo:?}: f(best x) is the best f");
    }
    // Rotating or shifting a discrete problem's variables is not that problem any more.
    assert_clean_error(&gradfree(&["optimize", "--algo", "cmaes", "--problem", "onemax", "--dim", "6", "--rotate"]), "invalid --rotate");
    // A parameter given twice is refused, naming both values.
    let twice =
        gradfree(&["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "3", "--param", "popsize=8", "--param", "popsize=12"]);
    assert_clean_error(&twice, "--param popsize: given twice (8 and 12)");
    // One chart draws logs of one kind.
    let opt = p("o.jsonl");
    assert!(
        gradfree(&["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "2", "--max-evals", "60", "--log", &opt])
            .status
            .success()
    );
    let train = p("t.jsonl");
    let t = gradfree(&["train", "--data", "digits", "--epochs", "1", "--quiet", "--log", &train]);
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    for logs in [[&opt, &train], [&train, &opt]] {
        assert_clean_error(&gradfree(&["plot", logs[0], logs[1], "-o", &p("x.png")]), "training and optimization logs cannot share a plot");
    }
    // A NaN in a log line is named as such, not by a parser's position.
    let text = std::fs::read_to_string(&opt).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let edited = lines[1].replacen("\"best_f\":", "\"best_f\":NaN,\"was\":", 1);
    std::fs::write(dir.path().join("nan.jsonl"), format!("{}\n{edited}\n", lines[0])).unwrap();
    let out = gradfree(&["plot", &p("nan.jsonl"), "-o", &p("y.png")]);
    assert_clean_error(&out, "line 2: `NaN` is not a JSON number");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("column"), "{}", String::from_utf8_lossy(&out.stderr));
    // A scrambled Halton sequence too large to build is refused at once, with its size.
    let started = std::time::Instant::now();
    assert_clean_error(&gradfree(&["sample", "--method", "halton", "--dim", "20000", "--n", "2"]), "at most 7458");
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}
