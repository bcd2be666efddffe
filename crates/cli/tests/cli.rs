//! The `gradfree` binary as a user runs it.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{assert_clean_error, generation_records};

fn gradfree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).output().expect("binary runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "--json prints exactly one line: {text}");
    serde_json::from_str(&text).unwrap()
}

/// The `--json` output of `args` run with `RAYON_NUM_THREADS=threads`, without its `seconds`.
fn json_with_threads(args: &[&str], threads: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).env("RAYON_NUM_THREADS", threads).output().expect("binary runs");
    let mut v = json(&out);
    v.as_object_mut().unwrap().remove("seconds");
    v
}

#[test]
fn sphere_reaches_1e_8_and_is_reproducible() {
    let args = ["optimize", "--algo", "nesterov-spokoiny", "--problem", "sphere", "--dim", "10", "--seed", "1", "--json"];
    let mut a = json(&gradfree(&args));
    let mut b = json(&gradfree(&args));
    assert!(a["best_f"].as_f64().unwrap() < 1e-8, "{a}");
    for key in ["algorithm", "problem", "dim", "seed", "best_f", "best_x", "evaluations", "generations", "stop_reason", "seconds"] {
        assert!(a.get(key).is_some(), "missing {key}");
    }
    assert_eq!(a["stop_reason"], "target");
    a.as_object_mut().unwrap().remove("seconds");
    b.as_object_mut().unwrap().remove("seconds");
    assert_eq!(a, b);
    // Text mode prints the same best value.
    let text = gradfree(&args[..args.len() - 1]);
    assert!(text.status.success());
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(s.contains("best f") && s.contains("stopped     target"), "{s}");
}

#[test]
fn bad_input_gives_one_line_errors() {
    let base = ["optimize", "--problem", "sphere", "--dim", "3"];
    let with = |extra: &[&str]| -> Vec<String> { base.iter().chain(extra).map(|s| s.to_string()).collect() };
    let run = |v: Vec<String>| gradfree(&v.iter().map(String::as_str).collect::<Vec<_>>());
    assert_clean_error(&run(with(&["--algo", "nope"])), "unknown algorithm `nope`");
    assert_clean_error(&gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "sphere", "--dim", "0"]), "--dim 0");
    assert_clean_error(&gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "failing-sphere", "--dim", "4"]), "not finite");
    assert_clean_error(&gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "nope", "--dim", "4"]), "unknown problem");
    assert_clean_error(&run(with(&["--algo", "nesterov-spokoiny", "--param", "smoothing=-1"])), "smoothing");
    assert_clean_error(&run(with(&["--algo", "nesterov-spokoiny", "--max-evals", "3"])), "invalid --max-evals 3");
    assert_clean_error(&run(with(&["--algo", "nesterov-spokoiny", "--restarts", "max"])), "popsize");
    // Negative numbers reach the validation (not clap's "unexpected argument"), which names the flag.
    assert_clean_error(&run(with(&["--algo", "cmaes", "--sigma0", "-1"])), "invalid --sigma0 -1");
    assert_clean_error(&run(with(&["--algo", "cmaes", "--tol-f", "-1"])), "invalid --tol-f -1");
    assert_clean_error(
        &run(with(&["--algo", "cmaes", "--checkpoint", "/tmp/gradfree-x.ckpt", "--checkpoint-seconds", "-1"])),
        "checkpoint-seconds",
    );
    assert_clean_error(
        &gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "failing-sphere", "--dim", "4"]),
        "--on-nonfinite treat-as-inf",
    );
    let e = run(with(&["--algo", "cmaes", "--restarts", "many"]));
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("expected ipop, bipop, ipop:K, bipop:K, a count K >= 0 or max"));
    assert_clean_error(&run(with(&["--algo", "cmaes", "--param", "sampling=sobol"])), "`sampling`: unknown variant `sobol`");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("corrupt.ckpt");
    std::fs::write(&bad, b"{\"format\": \"gradfree-checkpoint\", \"version\": 1, \"optimizer\": [").unwrap();
    assert_clean_error(&gradfree(&["optimize", "--resume", bad.to_str().unwrap()]), "not a valid checkpoint");
    assert_clean_error(&gradfree(&["optimize", "--resume", "/no/such/file.ckpt"]), "/no/such/file.ckpt");
    assert_clean_error(&gradfree(&["plot", bad.to_str().unwrap(), "-o", "x.png"]), "not a gradfree log");
    // The treat-as-inf policy runs through the failing region.
    let ok = gradfree(&[
        "optimize",
        "--algo",
        "nesterov-spokoiny",
        "--problem",
        "failing-sphere",
        "--dim",
        "4",
        "--on-nonfinite",
        "treat-as-inf",
        "--max-evals",
        "2000",
        "--json",
    ]);
    assert!(json(&ok)["best_f"].as_f64().unwrap().is_finite());
}

#[test]
fn checkpoint_and_resume_reproduce_the_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let common: Vec<&str> =
        "optimize --algo nesterov-spokoiny --problem ellipsoid --dim 8 --seed 5 --param step_size=1e-7 --no-target --json"
            .split(' ')
            .collect();
    let args = |extra: Vec<String>| -> Vec<String> { common.iter().map(|s| s.to_string()).chain(extra).collect() };
    let run = |v: Vec<String>| gradfree(&v.iter().map(String::as_str).collect::<Vec<_>>());
    let full = json(&run(args(vec!["--max-gens".into(), "60".into(), "--log".into(), p("full.jsonl")])));
    let _ = json(&run(args(vec!["--max-gens".into(), "25".into(), "--checkpoint".into(), p("run.ckpt"), "--log".into(), p("part.jsonl")])));
    let resumed = json(&gradfree(&["optimize", "--resume", &p("run.ckpt"), "--max-gens", "60", "--log", &p("part.jsonl"), "--json"]));
    assert_eq!(resumed["resumed"], true);
    for key in ["best_f", "best_x", "evaluations", "generations"] {
        assert_eq!(full[key], resumed[key], "{key}");
    }
    let gens = |f: &str| generation_records(Path::new(&p(f)));
    assert_eq!(gens("full.jsonl"), gens("part.jsonl"));
    assert_eq!(gens("full.jsonl").len(), 60);
    // Without --log, a resumed run keeps writing the log its checkpoint names (given relative to
    // another folder), and the plot of that log covers the whole run.
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree"))
        .current_dir(dir.path())
        .args(&common)
        .args(["--max-gens", "25", "--checkpoint", "again.ckpt", "--log", "again.jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = gradfree(&["optimize", "--resume", &p("again.ckpt"), "--max-gens", "60", "--json"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("again.jsonl (the run's log"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["best_f"], full["best_f"]);
    assert_eq!(gens("full.jsonl"), gens("again.jsonl"));
    let v = json(&gradfree(&["plot", &p("again.jsonl"), "-o", &p("again.png"), "--json"]));
    assert_eq!(v["series"][0]["points"], 60);
    // A log that is gone is not re-created with half the run.
    std::fs::remove_file(p("again.jsonl")).unwrap();
    let _ =
        json(&run(args(vec!["--max-gens".into(), "25".into(), "--checkpoint".into(), p("third.ckpt"), "--log".into(), p("third.jsonl")])));
    std::fs::remove_file(p("third.jsonl")).unwrap();
    let out = gradfree(&["optimize", "--resume", &p("third.ckpt"), "--max-gens", "60", "--json"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is gone"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["best_f"], full["best_f"]);
    assert!(!Path::new(&p("third.jsonl")).exists());
    // A disagreeing flag is refused.
    assert_clean_error(&gradfree(&["optimize", "--resume", &p("run.ckpt"), "--problem", "sphere"]), "disagrees with the checkpoint");
}

fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is not a PNG", path.display());
    assert!(bytes.len() > 5_000, "{} is suspiciously small", path.display());
}

#[test]
fn plot_draws_a_png_and_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.jsonl");
    let out =
        gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "sphere", "--dim", "5", "--log", log.to_str().unwrap(), "-q"]);
    assert!(out.status.success());
    let png = dir.path().join("conv.png");
    let out = gradfree(&["plot", log.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_png(&png);
    let v = json(&gradfree(&["plot", log.to_str().unwrap(), "-o", png.to_str().unwrap(), "--json"]));
    // Series are named by the algorithm of the log's start record, and by file when two share it.
    assert_eq!(v["series"][0]["label"], "nesterov-spokoiny");
    let log2 = dir.path().join("again.jsonl");
    let out =
        gradfree(&["optimize", "--algo", "nesterov-spokoiny", "--problem", "sphere", "--dim", "5", "--log", log2.to_str().unwrap(), "-q"]);
    assert!(out.status.success());
    let v = json(&gradfree(&["plot", log.to_str().unwrap(), log2.to_str().unwrap(), "-o", png.to_str().unwrap(), "--json"]));
    assert_eq!(
        (v["series"][0]["label"].as_str(), v["series"][1]["label"].as_str()),
        (Some("nesterov-spokoiny (run)"), Some("nesterov-spokoiny (again)"))
    );
    let svg = dir.path().join("conv.svg");
    assert!(gradfree(&["plot", log.to_str().unwrap(), "-o", svg.to_str().unwrap()]).status.success());
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    assert_clean_error(&gradfree(&["plot", log.to_str().unwrap(), "-o", "x.jpg"]), ".png or .svg");
}

#[test]
fn list_and_reproduce_quick() {
    let v = json(&gradfree(&["list", "--json"]));
    for name in ["ingo", "ingostep", "fast-ingo", "mines", "cmaes", "xnes", "igo", "openai-es", "nesterov-spokoiny"] {
        assert!(v["algorithms"].as_array().unwrap().iter().any(|a| a["name"] == name), "{name} missing");
    }
    assert!(v["problems"].as_array().unwrap().len() >= 19);
    let names: Vec<String> = v["experiments"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    // `reproduce all` goes on past an experiment whose dependency is missing and reports it: ingo-rl
    // runs its rollouts through the Python package (GRADFREE_PYTHON), here an interpreter that
    // does not exist. Where the package and Gymnasium are installed, ingo-rl is run alone too.
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree"))
        .args(["reproduce", "all", "--quick", "--json", "-o", dir.path().to_str().unwrap()])
        .env("GRADFREE_PYTHON", "/nonexistent/python3")
        .output()
        .unwrap();
    let v = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: experiment ingo-rl") && !err.contains("panicked"), "{err}");
    let summary = v["summary"].as_array().unwrap();
    assert_eq!(summary.len(), names.len());
    for s in summary {
        let (name, result) = (s["experiment"].as_str().unwrap(), s["result"].as_str().unwrap());
        if name == "ingo-rl" {
            assert_eq!(result, "skipped", "{s}");
            assert!(s["install"].as_str().unwrap().starts_with("pip install ./python \"gymnasium\""), "{s}");
        } else {
            assert_eq!(result, "passed", "{s}");
        }
    }
    let mut exps: Vec<serde_json::Value> = v["experiments"].as_array().unwrap().to_vec();
    assert_eq!(exps.len(), names.len() - 1);
    let py = std::env::var("GRADFREE_PYTHON").unwrap_or_else(|_| "python3".into());
    let py_ok = std::process::Command::new(&py).args(["-c", "import gradfree.rl, gymnasium"]).output().is_ok_and(|o| o.status.success());
    if py_ok {
        let v = json(&gradfree(&["reproduce", "ingo-rl", "--quick", "--json", "-o", dir.path().to_str().unwrap()]));
        exps.extend(v["experiments"].as_array().unwrap().iter().cloned());
        assert!(v.get("summary").is_none(), "one experiment: no summary");
    }
    for e in &exps {
        let files = e["report"]["files"].as_array().unwrap();
        assert!(files.iter().any(|f| f.as_str().unwrap().ends_with(".png")), "{e}");
        for f in files {
            let f = Path::new(f.as_str().unwrap());
            assert!(f.exists(), "{}", f.display());
            if f.extension().unwrap() == "png" {
                assert_png(f);
            }
        }
    }
    // The text summary: a line per experiment, the install line of the skipped one, and a failed
    // experiment (its output folder is a file) that does not stop the others but fails the command.
    let blocked = dir.path().join("lattice-distances");
    std::fs::remove_dir_all(&blocked).unwrap();
    std::fs::write(&blocked, "not a folder").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree"))
        .args(["reproduce", "all", "--quick", "-o", dir.path().to_str().unwrap()])
        .env("GRADFREE_PYTHON", "/nonexistent/python3")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.trim_end().ends_with(&format!("error: 1 of {} experiments failed (see the summary)", names.len())), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    let table = &text[text.find("== summary:").expect("a summary")..];
    assert!(table.starts_with(&format!("== summary: {} passed, 1 failed, 1 skipped (not installed)", names.len() - 2)), "{table}");
    assert!(table.lines().any(|l| l.starts_with("ingo-rl") && l.contains("skipped") && l.contains("pip install ./python")), "{table}");
    assert!(table.lines().any(|l| l.starts_with("lattice-distances") && l.contains("failed")), "{table}");
    assert_eq!(table.lines().count(), names.len() + 2, "{table}");
    assert_clean_error(&gradfree(&["reproduce", "nope"]), "unknown experiment");
    assert_clean_error(&gradfree(&["reproduce", "test-functions", "--runs", "0"]), "--runs 0");
}

/// `--restarts max` turns a CMA-ES run stuck in a local minimum of Rastrigin into a solved one, and
/// reports how many restarts it took.
#[test]
fn ipop_restarts_from_the_command_line() {
    let base = ["optimize", "--algo", "cmaes", "--problem", "rastrigin", "--dim", "10", "--seed", "1", "--max-evals", "300000", "--json"];
    let plain = json(&gradfree(&base));
    assert!(plain["best_f"].as_f64().unwrap() > 1.0, "{plain}");
    assert_eq!(plain["restarts"], 0);
    let mut args = base.to_vec();
    args.extend(["--restarts", "max", "--restart-from", "uniform"]);
    let ipop = json(&gradfree(&args));
    assert_eq!(ipop["stop_reason"], "target", "{ipop}");
    assert!(ipop["restarts"].as_u64().unwrap() >= 1, "{ipop}");
}

/// `--incpopsize F` (pycma's name) multiplies the population by `F` at each IPOP restart: the
/// generations' sizes, read from the log, are `6`, `6 F`, `6 F^2` on a 2-dimensional CMA-ES run
/// (default `F = 2`), and the summary says the factor.
#[test]
fn incpopsize_sets_the_population_growth() {
    let dir = tempfile::tempdir().unwrap();
    for (factor, sizes) in [(None, [6, 12, 24]), (Some("3"), [6, 18, 54])] {
        let log = dir.path().join(format!("{factor:?}.jsonl"));
        let mut args = vec!["optimize", "--algo", "cmaes", "--problem", "rastrigin", "--dim", "2", "--seed", "1", "--no-target"];
        args.extend(["--max-evals", "20000", "--restarts", "ipop:2", "--log", log.to_str().unwrap()]);
        if let Some(f) = factor {
            args.extend(["--incpopsize", f]);
        }
        let out = gradfree(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("population x{} each", factor.unwrap_or("2"))));
        let evals: Vec<u64> = generation_records(&log).iter().map(|r| r["evaluations"].as_u64().unwrap()).collect();
        let mut seen: Vec<u64> = evals.windows(2).map(|w| w[1] - w[0]).chain([evals[0]]).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, sizes, "{factor:?}");
    }
    assert_clean_error(
        &gradfree(&["optimize", "--problem", "sphere", "--dim", "2", "--restarts", "ipop", "--incpopsize", "0.5"]),
        "invalid --incpopsize 0.5",
    );
}

/// `gradfree lattice`: the documented JSON fields, the Table 5.1/5.2 values, point files that
/// read back, and one-line errors for unsuitable sizes.
#[test]
fn lattice_command() {
    let r = json(&gradfree(&["lattice", "--dim", "50", "--n", "101", "--json"]));
    for key in ["method", "dim", "n", "z", "min_dist_l2", "min_dist_l1", "seconds"] {
        assert!(r.get(key).is_some(), "missing {key}: {r}");
    }
    assert_eq!(r["method"], "subgroup");
    assert_eq!(r["z"].as_array().unwrap().len(), 50);
    assert!((r["min_dist_l1"].as_f64().unwrap() - 12.624).abs() < 5e-4, "{r}");
    assert!((r["min_dist_l2"].as_f64().unwrap() - 2.0513).abs() < 5e-5, "{r}");
    let k = json(&gradfree(&["lattice", "--dim", "50", "--n", "1601", "--method", "korobov", "--metric", "l2", "--json"]));
    assert!((k["min_dist_l2"].as_f64().unwrap() - 1.8356).abs() < 5e-5, "Table 5.2 Korobov: {k}");
    assert!(k["a"].as_u64().is_some());

    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    let npy = dir.path().join("p.npy");
    for p in [&csv, &npy] {
        let out = gradfree(&["lattice", "--dim", "3", "--n", "7", "-o", p.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<f64>> = text.lines().map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0], vec![0.0; 3]);
    // Row i is i z mod n / n.
    let z: Vec<f64> = r_vec(&json(&gradfree(&["lattice", "--dim", "3", "--n", "7", "--json"]))["z"]);
    for (i, row) in rows.iter().enumerate() {
        for (k, v) in row.iter().enumerate() {
            assert!((v - ((i as f64 * z[k]) % 7.0) / 7.0).abs() < 1e-15);
        }
    }
    let bytes = std::fs::read(&npy).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let start = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!(bytes.len(), start + 7 * 3 * 8);
    let data: Vec<f64> = bytes[start..].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(data, rows.concat(), "the .npy holds the same points as the .csv");

    assert_clean_error(&gradfree(&["lattice", "--dim", "10", "--n", "1000"]), "admissible n for d = 10 near 1000: 881, 941, 1021");
    assert_clean_error(&gradfree(&["lattice", "--dim", "10", "--n", "1019"]), "does not divide");
    assert_clean_error(&gradfree(&["lattice", "--dim", "3", "--n", "7", "-o", "x.txt"]), "use a .csv or .npy");
}

fn r_vec(v: &serde_json::Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

/// `gradfree sample`: Sobol and lattices, balanced means, the same points twice for a seed, and
/// named errors.
#[test]
fn sample_command() {
    let a = json(&gradfree(&["sample", "--method", "sobol", "--dim", "5", "--n", "1024", "--seed", "3", "--json"]));
    let b = json(&gradfree(&["sample", "--method", "sobol", "--dim", "5", "--n", "1024", "--seed", "3", "--json"]));
    assert_eq!(a["mean"], b["mean"]);
    assert!((a["mean"].as_f64().unwrap() - 0.5).abs() < 1e-3, "{a}");
    assert_eq!(a["randomization"], "lms-shift");
    let l = json(&gradfree(&["sample", "--method", "subgroup", "--dim", "10", "--n", "1021", "--json"]));
    // An unshifted lattice's coordinates are {0, 1/n, ..., (n-1)/n} in each dimension: mean (n-1)/(2n).
    assert!((l["mean"].as_f64().unwrap() - 1020.0 / 2042.0).abs() < 1e-12, "{l}");
    for m in ["halton", "mc", "lhs"] {
        let r = json(&gradfree(&["sample", "--method", m, "--dim", "4", "--n", "256", "--json"]));
        assert!((r["mean"].as_f64().unwrap() - 0.5).abs() < 0.03, "{m}: {r}");
    }
    assert_clean_error(&gradfree(&["sample", "--method", "korobov", "--dim", "3", "--n", "64"]), "needs --a");
    assert_clean_error(&gradfree(&["sample", "--method", "sobol", "--dim", "30000", "--n", "4"]), "21201");
    // scipy's bits: 2^bits points, on the 2^-bits grid; 64 bits reach past 2^32 points.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("b.csv");
    let ok = gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "8", "--bits", "3", "-o", csv.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let vals: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.split(',').map(|v| v.trim().parse::<f64>()).collect::<Vec<_>>())
        .filter_map(Result::ok)
        .collect();
    assert_eq!(vals.len(), 16, "{text}");
    assert!(vals.iter().all(|v| (v * 8.0).fract() == 0.0), "{text}");
    assert_clean_error(&gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "9", "--bits", "3"]), "more than 2^3 points");
    assert_clean_error(&gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "4", "--bits", "65"]), "65");
    let far = gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "2", "--bits", "64", "--skip", "4294967296", "--json"]);
    assert!(far.status.success(), "{}", String::from_utf8_lossy(&far.stderr));
    assert_clean_error(&gradfree(&["sample", "--method", "subgroup", "--dim", "8", "--n", "64"]), "admissible n for d = 8");
}

/// `reproduce` keeps finished runs and reuses them: a rerun reads the cached runs (a doctored
/// cached value shows up in the table), a cached run whose key does not match the request is
/// recomputed and overwritten, and `--recompute` recomputes every run.
#[test]
fn reproduce_resumes_from_cached_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let table = |extra: &[&str]| {
        let mut args = vec!["reproduce", "mines-synthetic", "--quick", "--runs", "1", "--json", "-o", out];
        args.extend(extra);
        json(&gradfree(&args))["experiments"][0]["report"]["tables"][0]["rows"].clone()
    };
    let first = table(&[]);
    let cached = dir.path().join("mines-synthetic/runs/ssphere-mines-mines-r0.json");
    let original = std::fs::read_to_string(&cached).unwrap();
    assert_eq!(table(&[]), first);

    let mut v: serde_json::Value = serde_json::from_str(&original).unwrap();
    v["run"]["best_f"] = serde_json::json!(123456.0);
    std::fs::write(&cached, v.to_string()).unwrap();
    let doctored = table(&[]);
    assert_eq!(doctored[0][5], "1.235e5", "the cached run was not read: {doctored}");
    assert_eq!(table(&["--recompute"]), first);
    assert_eq!(std::fs::read_to_string(&cached).unwrap(), original, "--recompute rewrites the run it computed");

    v["key"]["budget"] = serde_json::json!(1);
    std::fs::write(&cached, v.to_string()).unwrap();
    assert_eq!(table(&[]), first);
    assert_eq!(std::fs::read_to_string(&cached).unwrap(), original);
}

/// Discrete algorithms from the command line: Bernoulli INGO solves a binary reconstruction
/// problem, the categorical INGO takes K from the problem, and mismatched problems are clear errors.
#[test]
fn discrete_optimization_from_the_command_line() {
    let v = json(&gradfree(&[
        "optimize",
        "--algo",
        "ingo-bernoulli",
        "--problem",
        "binary-reconstruction",
        "--dim",
        "100",
        "--seed",
        "1",
        "--json",
    ]));
    assert_eq!(v["stop_reason"], "target", "{v}");
    assert_eq!(v["best_f"].as_f64(), Some(0.0));
    assert!(v["best_x"].as_array().unwrap().iter().all(|x| x == 0.0 || x == 1.0));
    let v = json(&gradfree(&[
        "optimize",
        "--algo",
        "ingo-categorical",
        "--problem",
        "categorical-reconstruction",
        "--dim",
        "20",
        "--seed",
        "2",
        "--json",
    ]));
    assert_eq!(v["stop_reason"], "target", "{v}");
    assert!(v["best_x"].as_array().unwrap().iter().any(|x| x.as_f64().unwrap() >= 2.0), "K = 4 categories used: {v}");
    assert_clean_error(&gradfree(&["optimize", "--algo", "ga", "--problem", "sphere", "--dim", "5"]), "is continuous");
    assert_clean_error(
        &gradfree(&["optimize", "--algo", "ingo-bernoulli", "--problem", "categorical-reconstruction", "--dim", "5"]),
        "needs a binary problem",
    );
}

/// Extreme sizes and values are one-line errors, found before anything large is allocated or a
/// computation that would take hours starts.
#[test]
fn extreme_sizes_are_clear_errors() {
    let max = u64::MAX.to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", &max], "needs"),
        (vec!["optimize", "--algo", "ingo", "--problem", "sphere", "--dim", "200000"], "INGO with dimension 200000"),
        (vec!["optimize", "--algo", "cmaes", "--problem", "sphere", "--dim", "3", "--shift", "1e17"], "shift"),
        (vec!["lattice", "--dim", "9223372036854775808", "--n", "11"], "2^33"),
        (vec!["lattice", "--dim", "1", "--n", "18446744073709551557"], "2^33"),
        (vec!["integrate", "--dim", "2", "--n", "100", "--replicates", &max], "2^40"),
        (vec!["integrate", "--dim", "1", "--n", "4294967297", "--method", "sobol", "--replicates", "2"], "2^32"),
        (vec!["integrate", "--method", "mc", "--dim", "1", "--n", &max], "2^40"),
        (vec!["sample", "--method", "sobol", "--dim", "1", "--n", "4294967297"], "2^32"),
        (vec!["sample", "--method", "halton", "--dim", "2", "--n", "3", "--skip", &max], "2^64"),
    ];
    for (args, needle) in cases {
        let t = std::time::Instant::now();
        assert_clean_error(&gradfree(&args), needle);
        assert!(t.elapsed().as_secs() < 20, "{args:?} took {:?}", t.elapsed());
    }
    // Under a memory limit, a rotation of dimension 20000 (3.2 GB per matrix) is refused.
    let out = Command::new(env!("CARGO_BIN_EXE_gradfree"))
        .args(["optimize", "--algo", "fast-ingo", "--problem", "sphere", "--dim", "20000", "--rotate"])
        .env("GRADFREE_MEMORY_LIMIT", "1000000000")
        .output()
        .unwrap();
    assert_clean_error(&out, "rotation of dimension 20000");
}

/// `gradfree plot` draws logs whose best value reaches subnormals and then 0.
#[test]
fn plot_of_a_run_to_zero_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("real.jsonl");
    let png = dir.path().join("real.png");
    let args = ["optimize", "-q", "--algo", "cmaes", "--problem", "sphere", "--dim", "2", "--no-target", "--max-evals", "100000"];
    let out = gradfree(&[&args[..], &["--log", log.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = gradfree(&["plot", log.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
}

/// The integration estimate and its standard error are the same bits with 1 and 2 threads (the
/// point values are summed in point order).
#[test]
fn integrate_does_not_depend_on_thread_count() {
    let run = |threads: &str| {
        let v = json_with_threads(&["integrate", "--dim", "8", "--n", "200003", "--method", "mc", "--replicates", "4", "--json"], threads);
        (v["estimate"].as_f64().unwrap().to_bits(), v["std_error"].as_f64().unwrap().to_bits())
    };
    assert_eq!(run("1"), run("2"));
    assert_eq!(run("1"), run("3"));
}

/// A run killed with SIGKILL at random moments, again and again, and resumed each time from its
/// checkpoint, ends with the same bits as the uninterrupted run: best point, counters, and the
/// generation records of its log (torn lines and replayed records removed on resume).
#[test]
fn kill_and_resume_is_bit_identical() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_gradfree");
    let run = ["optimize", "-q", "--algo", "cmaes", "--problem", "rosenbrock", "--dim", "30", "--no-target", "--max-evals", "300000"];
    let run = [&run[..], &["--no-convergence"]].concat();
    let paths = |tag: &str| (dir.path().join(format!("{tag}.ckpt")), dir.path().join(format!("{tag}.jsonl")));
    let generations = generation_records;
    let strip = |mut v: serde_json::Value| {
        for k in ["seconds", "resumed"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    let (ck, log) = paths("full");
    let full = Command::new(bin)
        .args(&run)
        .args(["--checkpoint-every", "20", "--json", "--checkpoint"])
        .arg(&ck)
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    let reference = strip(json(&full));
    let reference_log = generations(&log);

    let (ck, log) = paths("killed");
    let mut kills = 0;
    let mut result = None;
    for attempt in 0..60u64 {
        let mut cmd = Command::new(bin);
        if ck.exists() {
            cmd.args(["optimize", "-q", "--max-evals", "300000", "--no-target", "--json", "--resume"]).arg(&ck);
        } else {
            cmd.args(&run).args(["--checkpoint-every", "20", "--json", "--checkpoint"]).arg(&ck);
        }
        let out_path = dir.path().join("out.json");
        let mut child = cmd.arg("--log").arg(&log).stdout(std::fs::File::create(&out_path).unwrap()).spawn().unwrap();
        // Deterministic pseudo-random kill times between 40 and 400 ms.
        let wait = 40 + (attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 360;
        std::thread::sleep(std::time::Duration::from_millis(wait));
        if child.try_wait().unwrap().is_some() {
            let text = std::fs::read_to_string(&out_path).unwrap();
            result = Some(serde_json::from_str::<serde_json::Value>(text.trim()).unwrap());
            break;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        // The checkpoint left behind is always complete (atomic write): it loads.
        if ck.exists() {
            gradfree_core::load_checkpoint::<gradfree_es::Algorithm>(&ck).unwrap_or_else(|e| panic!("after kill {kills}: {e}"));
        }
    }
    let result = match result {
        Some(r) => r,
        None => {
            let out = Command::new(bin)
                .args(["optimize", "-q", "--max-evals", "300000", "--no-target", "--json", "--resume"])
                .arg(&ck)
                .arg("--log")
                .arg(&log)
                .output()
                .unwrap();
            json(&out)
        }
    };
    assert!(kills >= 3, "the run should have been killed several times, got {kills}");
    assert_eq!(strip(result), reference, "after {kills} kills");
    assert_eq!(generations(&log), reference_log, "after {kills} kills");
    let stale: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(stale.is_empty(), "temporary files left: {stale:?}");
}

/// An optimization run (parallel evaluation) gives the same bits with 1, 2 and 3 threads.
#[test]
fn optimize_does_not_depend_on_thread_count() {
    let run = |threads: &str| {
        json_with_threads(
            &["optimize", "--algo", "cmaes", "--problem", "rastrigin", "--dim", "12", "--seed", "4", "--max-evals", "20000", "--json"],
            threads,
        )
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("3"));
}

#[test]
fn sample_writes_csv_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.csv");
    let args = ["sample", "--method", "sobol", "--dim", "3", "--n", "16", "--seed", "5"];
    let to_file = gradfree(&[&args[..], &["-o", file.to_str().unwrap()]].concat());
    assert!(to_file.status.success());
    let stdout = gradfree(&[&args[..], &["-o", "-"]].concat());
    assert!(stdout.status.success() && stdout.stderr.is_empty());
    assert_eq!(String::from_utf8_lossy(&stdout.stdout), std::fs::read_to_string(&file).unwrap());
    // A Sobol size that is not a power of 2 is drawn, with scipy's warning.
    let odd = gradfree(&["sample", "--method", "sobol", "--dim", "2", "--n", "10", "-o", "-"]);
    assert!(odd.status.success() && String::from_utf8_lossy(&odd.stderr).contains("power of 2"));
    assert_eq!(String::from_utf8_lossy(&odd.stdout).lines().count(), 10);
}

#[test]
fn runs_stop_on_convergence_by_default_and_say_why() {
    let base = ["optimize", "--algo", "cmaes", "--problem", "ellipsoid", "--dim", "12", "--no-target", "--json", "--sequential"];
    let v = json(&gradfree(&base));
    assert_eq!(v["stop_reason"], "tol-f", "{v}");
    assert_eq!(v["success"], true);
    assert!(v["message"].as_str().unwrap().starts_with("converged"));
    assert!(v["evaluations"].as_u64().unwrap() < 20_000 && v["best_f"].as_f64().unwrap() < 1e-12, "{v}");
    // All convergence rules off: the whole default budget (10^4 d) is spent.
    let v = json(&gradfree(&[&base[..], &["--no-convergence"]].concat()));
    assert_eq!((v["stop_reason"].as_str(), v["success"].as_bool()), (Some("max-evaluations"), Some(false)), "{v}");
    assert!(v["evaluations"].as_u64().unwrap() > 119_000);
    // One rule off, another set: tol-x decides.
    let v = json(&gradfree(&[&base[..], &["--tol-f", "off", "--tol-x", "1e-3"]].concat()));
    assert_eq!(v["stop_reason"], "tol-x", "{v}");
    // With the default target of a benchmark problem, success means reaching it.
    let v = json(&gradfree(&["optimize", "--algo", "openai-es", "--problem", "sphere", "--dim", "12", "--json", "--sequential"]));
    assert_eq!((v["stop_reason"].as_str(), v["success"].as_bool()), (Some("tol-stagnation"), Some(false)), "{v}");
    // The papers' constant step of Nesterov-Spokoiny diverges on the ellipsoid: said, not hidden.
    let diverging: Vec<&str> =
        "optimize --algo nesterov-spokoiny --problem ellipsoid --dim 12 --param step_control=none --json".split(' ').collect();
    let v = json(&gradfree(&diverging));
    assert_eq!(v["stop_reason"], "diverged", "{v}");
    assert!(v["message"].as_str().unwrap().contains("step size"));
    assert!(v["evaluations"].as_u64().unwrap() < 1000);
    let out = gradfree(&[&base[..], &["--tol-flat", "x"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a number or `off`"));
    assert_clean_error(&gradfree(&[&base[..], &["--tol-condition", "0.5"]].concat()), "tol-condition");
}

/// The guide's discrete example prints what the guide says (command and numbers read from it).
#[test]
fn guide_binary_reconstruction_example_reaches_regret_0_after_the_stated_evaluations() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/optimize.md")).unwrap();
    let start = readme.find("`gradfree optimize --algo ingo-bernoulli").expect("the example is in the guide") + 1;
    let command: Vec<&str> = readme[start..].split('`').next().unwrap().split_whitespace().skip(1).collect();
    let claim = &readme[start..start + 200];
    let after = claim.split("(regret 0").nth(1).expect("the guide states the regret").split_whitespace().nth(1).unwrap();
    let stated: f64 = after.trim_end_matches("·10⁶").parse::<f64>().expect("N.NN·10⁶") * 1e6;
    let v = json(&gradfree(&[&command[..], &["--json", "-q"]].concat()));
    assert_eq!(v["best_f"].as_f64(), Some(0.0), "{v}");
    let evals = v["evaluations"].as_f64().unwrap();
    assert!((evals - stated).abs() <= 0.005e6, "the guide says {stated}, the command gives {evals}");
}

/// `gradfree features`: a CSV in, an .npy out whose Gram matrix the report measures; SSF beats
/// i.i.d. features on the first-order arc-cosine kernel (thesis sec. 6.6); bad input is one line.
#[test]
fn features_command() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("x.csv");
    // Test inputs (not a data set): a smooth deterministic 300 x 24 matrix with a header.
    let mut text = (0..24).map(|j| format!("f{j}")).collect::<Vec<_>>().join(",") + "\n";
    for i in 0..300 {
        let row: Vec<String> = (0..24).map(|j| format!("{}", ((i * 31 + j * 17) as f64 * 0.37).sin() + 0.2)).collect();
        text.push_str(&(row.join(",") + "\n"));
    }
    std::fs::write(&data, text).unwrap();
    let out = dir.path().join("z.npy");
    let report = |method: &str| {
        let args = [
            "features",
            "--data",
            data.to_str().unwrap(),
            "--kernel",
            "arccos1",
            "--method",
            method,
            "--dim-out",
            "192",
            "--report",
            "--json",
        ];
        json(&gradfree(&args))
    };
    let (ssf, iid) = (report("ssf"), report("iid"));
    assert_eq!(ssf["rows"], 300);
    assert_eq!(ssf["n_components"], 192);
    let (e_ssf, e_iid) = (ssf["rel_frobenius"].as_f64().unwrap(), iid["rel_frobenius"].as_f64().unwrap());
    assert!(e_ssf < 0.7 * e_iid, "SSF {e_ssf} vs iid {e_iid}");
    let o = gradfree(&["features", "--data", data.to_str().unwrap(), "--method", "sobol", "--dim-out", "64", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert!(String::from_utf8_lossy(&bytes[..128]).contains("'shape': (300, 64)"));
    for (args, needle) in [
        (vec!["--method", "ssf", "--dim-out", "0"], "invalid --dim-out 0"),
        (vec!["--method", "fourier", "--dim-out", "32"], "invalid --method fourier"),
        (vec!["--kernel", "arccos12", "--dim-out", "32"], "0..=10"),
        (vec!["--sigma", "-1", "--dim-out", "32"], "invalid --sigma -1"),
        (vec!["--dim-out", "32"], "nothing to do"),
        // Options are checked before "nothing to do" and before the data are read.
        (vec!["--kernel", "foo", "--dim-out", "32"], "invalid --kernel foo"),
    ] {
        let mut full = vec!["features", "--data", data.to_str().unwrap()];
        full.extend(args.iter());
        if !matches!(needle, "nothing to do" | "invalid --kernel foo") {
            full.push("--report");
        }
        assert_clean_error(&gradfree(&full), needle);
    }
    std::fs::write(dir.path().join("bad.csv"), "1,2\n3,nan\n").unwrap();
    let bad = dir.path().join("bad.csv");
    assert_clean_error(&gradfree(&["features", "--data", bad.to_str().unwrap(), "--dim-out", "8", "--report"]), "row 1 column 1");
}

/// `gradfree bo`: a small batch run lowers Ackley's regret below its design's, a checkpointed run
/// resumed to the same budget equals the uninterrupted one, the log plots as a regret curve, and
/// bad options are one-line errors.
#[test]
fn bo_command() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let base = ["bo", "--problem", "ackley", "--dim", "2", "--batch", "2", "--n-initial", "6", "--acq-starts", "2", "--json"];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        json(&gradfree(&args))
    };
    let full_log = p("full.jsonl");
    let full = run(&["--rounds", "6", "--log", &full_log]);
    assert_eq!((full["evaluations"].as_u64(), full["rounds"].as_u64(), full["method"].as_str()), (Some(18), Some(6), Some("bkop")));
    assert!(full["simple_regret"].as_f64().unwrap() >= 0.0);
    let ck = p("run.ckpt");
    run(&["--rounds", "3", "--checkpoint", &ck, "--log", &p("part.jsonl")]);
    let resumed = json(&gradfree(&["bo", "--resume", &ck, "--rounds", "6", "--json"]));
    assert_eq!(resumed["resumed"], true);
    assert_eq!((&resumed["best_x"], &resumed["best_f"]), (&full["best_x"], &full["best_f"]));
    // The resumed run went on writing the run's log: it reads as the uninterrupted run's.
    assert_eq!(generation_records(Path::new(&p("part.jsonl"))), generation_records(Path::new(&full_log)));
    let png = p("regret.png");
    let o = gradfree(&["plot", &full_log, "-o", &png, "--f-star", "0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    for (args, needle) in [
        (vec!["--problem", "ackley", "--batch", "0"], "invalid --batch 0"),
        (vec!["--problem", "ackley", "--acq-starts", "0"], "invalid --acq-starts 0"),
        (vec!["--problem", "ackley", "--method", "qei"], "bkop, ucb, gp-bucb, gp-ucb-pe, bull"),
        (vec!["--problem", "ackley", "--kernel", "linear"], "invalid --kernel linear"),
        (vec!["--problem", "ackley", "--weight", "-1"], "weight"),
        (vec!["--problem", "ackley", "--noise", "-1"], "invalid --noise -1"),
        (vec!["--problem", "nope"], "unknown problem"),
        (vec!["--resume", "/nonexistent.ckpt"], "nonexistent"),
    ] {
        let mut full = vec!["bo", "--rounds", "1", "--quiet"];
        full.extend(args.iter());
        assert_clean_error(&gradfree(&full), needle);
    }
    // A resumed run's definition comes from its checkpoint: giving it again is clap's usage error,
    // not silently ignored.
    for flag in ["--batch", "--seed", "--dim", "--noise"] {
        let o = gradfree(&["bo", "--resume", &ck, "--rounds", "7", flag, "3"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(err.starts_with("error: the argument '--resume <RESUME>' cannot be used with") && err.contains(flag), "{err}");
    }
}

/// `gradfree sample` generates and writes in pieces of 2^20 values: a file spanning several
/// pieces (.npy and .csv, Sobol and a lattice) holds exactly the library's points, in order.
#[test]
fn sample_streams_pieces_that_join_into_the_points() {
    use gradfree_qmc::{Scramble, Sequence, Sobol};
    let dir = tempfile::tempdir().unwrap();
    let (n, d) = (300_001usize, 7usize);
    let want = {
        let mut s = Sobol::new(d, Scramble::LmsShift { seed: 9 }).unwrap();
        s.fast_forward(5).unwrap();
        s.take(n).unwrap()
    };
    for ext in ["npy", "csv"] {
        let path = dir.path().join(format!("p.{ext}"));
        let args =
            ["sample", "--method", "sobol", "--dim", "7", "--n", "300001", "--seed", "9", "--skip", "5", "-o", path.to_str().unwrap()];
        let out = gradfree(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("note: writing"), "below 100 MB: not announced");
        let m = gradfree_data::matrix::read_matrix(&path).unwrap();
        assert_eq!((m.rows, m.cols), (n, d), "{ext}");
        assert!(m.values == want, "{ext}: the file differs from the sequence");
    }
    // A file above 100 MB is announced, with its size and path, before it is written.
    let big = dir.path().join("big.npy");
    let out = gradfree(&["sample", "--method", "sobol", "--dim", "13", "--n", "1048576", "-o", big.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("note: writing 104.0 MiB to {}\n", big.display()));
    assert_eq!(std::fs::metadata(&big).unwrap().len(), 13 * 1_048_576 * 8 + 128);
    std::fs::remove_file(&big).unwrap();
    let lattice = dir.path().join("l.npy");
    let out =
        gradfree(&["sample", "--method", "korobov", "--a", "1296917", "--dim", "5", "--n", "262144", "-o", lattice.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = gradfree_data::matrix::read_matrix(&lattice).unwrap();
    // Point k of the Korobov lattice is frac(k z / n), z = (1, a, a^2, ...) mod n.
    for k in [0usize, 1, 209_714, 262_143] {
        let mut z = 1u128;
        for j in 0..5 {
            let want = ((k as u128 * z) % 262_144) as f64 / 262_144.0;
            assert_eq!(m.values[k * 5 + j], want, "point {k}, coordinate {j}");
            z = z * 1_296_917 % 262_144;
        }
    }
}

/// The recommended method's settle rule (restarts that keep re-finding the best point end the
/// run) applies without a target only: with `--no-target` a sphere run settles, with a target it
/// cannot reach the restarts go on to the budget, and `--settle-runs` asks for the rule anyway.
#[test]
fn the_default_settles_without_a_target_only() {
    let base = ["optimize", "--problem", "sphere", "--dim", "5", "--seed", "1", "--max-evals", "30000", "--json", "--sequential"];
    let free = json(&gradfree(&[&base[..], &["--no-target"]].concat()));
    assert_eq!((free["stop_reason"].as_str(), free["success"].as_bool()), (Some("restarts-settled"), Some(true)), "{free}");
    assert!(free["evaluations"].as_u64().unwrap() < 25_000, "{free}");
    let aimed = json(&gradfree(&[&base[..], &["--target", "-1"]].concat()));
    assert_eq!((aimed["stop_reason"].as_str(), aimed["success"].as_bool()), (Some("max-evaluations"), Some(false)), "{aimed}");
    let asked = json(&gradfree(&[&base[..], &["--target", "-1", "--settle-runs", "2"]].concat()));
    assert_eq!(asked["stop_reason"], "restarts-settled", "{asked}");
}

/// The recommended method's worse-optimum rule: on the 2-d Rastrigin function (no target, no
/// settle rule) runs that converge to a local minimum worse than an earlier run's end early, so
/// more restarts fit into the budget (23 against 14 with `--worse-runs off`); a ratio outside
/// (0, 1) is refused naming the flag, and a named algorithm without restarts refuses the flag.
#[test]
fn the_default_ends_runs_converging_to_a_worse_optimum() {
    let base = ["optimize", "--problem", "rastrigin", "--dim", "2", "--seed", "1", "--max-evals", "20000", "--json", "--sequential"];
    let base = [&base[..], &["--no-target", "--settle-runs", "off"]].concat();
    let on = json(&gradfree(&base));
    let off = json(&gradfree(&[&base[..], &["--worse-runs", "off"]].concat()));
    let (k_on, k_off) = (on["restarts"].as_u64().unwrap(), off["restarts"].as_u64().unwrap());
    assert!(k_on >= k_off + 5, "{k_on} restarts with the rule, {k_off} without");
    assert_eq!((on["best_f"].as_f64(), off["best_f"].as_f64()), (Some(0.0), Some(0.0)));
    for (args, error) in [
        (&["--worse-runs", "2"][..], "invalid --worse-runs 2: must be in (0, 1)"),
        (&["--algo", "cmaes", "--worse-runs", "0.01"][..], "only with --restarts"),
    ] {
        let out = gradfree(&[&["optimize", "--problem", "rastrigin", "--dim", "2"][..], args].concat());
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && text.contains(error), "{args:?}: {text}");
    }
}

/// A command line clap rejects is two lines on stderr, status 2: the error (with clap's tip) and
/// the command's usage with where every option is listed.
#[test]
fn argument_errors_are_one_line_and_a_usage_hint() {
    for (args, error, usage) in [
        (&["optimize", "--max-evals", "abc"][..], "invalid value 'abc' for '--max-evals", "usage: gradfree optimize [OPTIONS]"),
        (&["optimze"][..], "a similar subcommand exists: 'optimize'", "usage: gradfree <COMMAND>"),
        (&["reproduce", "--sed", "1"][..], "a similar argument exists: '--seed'", "usage: gradfree reproduce [OPTIONS]"),
        (&["sample", "--n"][..], "a value is required for '--n <N>'", "usage: gradfree sample [OPTIONS]"),
    ] {
        let out = gradfree(args);
        let text = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert_eq!(lines.len(), 2, "{args:?}: {text}");
        assert!(lines[0].starts_with("error: ") && lines[0].contains(error), "{args:?}: {text}");
        assert!(lines[1].starts_with(usage) && lines[1].contains("--help` lists every option"), "{args:?}: {text}");
    }
    // Policy search is named in the program's help.
    let help = gradfree(&["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("python -m gradfree.rl"));
}
