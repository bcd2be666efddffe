//! `gradfree infer` as a user runs it: the summary, `--json`, resume, streaming, bad input.

mod common;

use std::process::{Command, Output};

fn gradfree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).output().expect("binary runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut().unwrap().remove("seconds");
    v.as_object_mut().unwrap().remove("resumed");
    v
}

/// Test input (not a data set): 400 rows of a logistic model with a header, `y` in the middle.
fn logistic_csv(dir: &std::path::Path) -> String {
    let mut text = String::from("a,y,b\n");
    let mut state = 12345u64;
    let mut unif = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..400 {
        let (a, b) = (2.0 * unif() - 1.0, 2.0 * unif() - 1.0);
        let p = 1.0 / (1.0 + (-(1.5 * a - 1.0 * b + 0.3f64)).exp());
        let y = u8::from(unif() < p);
        text.push_str(&format!("{a},{y},{b}\n"));
    }
    let path = dir.join("d.csv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The default: maximum likelihood, in memory and streamed (one pass), its summary in
/// statsmodels' layout.
#[test]
fn infer_fits_maximum_likelihood_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path());
    let base = ["infer", "--data", &data, "--target", "y", "--intercept"];
    let out = gradfree(&base);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    for want in ["Logit Regression Results", "Pseudo R-squ.:", "LL-Null:", "Dep. Variable:", "No. Observations:", "400", "P>|z|", "const"] {
        assert!(text.contains(want), "{want}: {text}");
    }
    // Streamed: statsmodels' GLM layout; --use-t true: Student's t, as statsmodels' use_t.
    let streamed_text = String::from_utf8(gradfree(&[&base[..], &["--stream"]].concat()).stdout).unwrap();
    assert!(streamed_text.contains("Generalized Linear Model Regression Results"), "{streamed_text}");
    let t_text = String::from_utf8(gradfree(&[&base[..], &["--use-t", "true", "--cov-type", "HC3"]].concat()).stdout).unwrap();
    assert!(t_text.contains("P>|t|") && t_text.contains("HC3"), "{t_text}");
    let memory = json(&gradfree(&[&base[..], &["--json"]].concat()));
    let streamed = json(&gradfree(&[&base[..], &["--json", "--stream"]].concat()));
    assert_eq!((memory["method"].as_str(), memory["glm"]["nobs"].as_u64()), (Some("mle"), Some(400)));
    assert_eq!(streamed["glm"]["one_pass"], serde_json::json!(true));
    // 400 rows are one block: the one-pass fit is the in-memory one.
    for j in 0..3 {
        let (a, b) = (memory["params"][j].as_f64().unwrap(), streamed["params"][j].as_f64().unwrap());
        assert!((a - b).abs() < 1e-6 * (1.0 + a.abs()), "{a} vs {b}");
        let (lo, hi) = (memory["conf_int"][j][0].as_f64().unwrap(), memory["conf_int"][j][1].as_f64().unwrap());
        let se = memory["bse"][j].as_f64().unwrap();
        assert!(((hi - lo) / (2.0 * 1.959964 * se) - 1.0).abs() < 1e-5);
    }
    assert!(memory.get("process_sd").is_none() && memory.get("bands").is_none());
    let hc0 = json(&gradfree(&[&base[..], &["--json", "--cov-type", "HC0"]].concat()));
    assert_eq!(hc0["spec"]["cov_type"], serde_json::json!("HC0"));
    assert_ne!(hc0["bse"], memory["bse"]);
}

#[test]
fn infer_prints_a_summary_resumes_bit_for_bit_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path());
    let base = [
        "infer",
        "--model",
        "logistic",
        "--data",
        &data,
        "--target",
        "y",
        "--intercept",
        "--method",
        "masgrad",
        "--chains",
        "20",
        "--batch",
        "10",
    ];
    let out = gradfree(&[&base[..], &["--steps", "40"]].concat());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("MasGrad chains") && text.contains("const") && text.contains("process sd") && text.contains("band 0.025"),
        "{text}"
    );
    // A run checkpointed at 20 steps and resumed to 40 equals the run in one go.
    let whole = json(&gradfree(&[&base[..], &["--steps", "40", "--json"]].concat()));
    let ck = dir.path().join("ck.json");
    let ck = ck.to_str().unwrap();
    json(&gradfree(&[&base[..], &["--steps", "20", "--json", "--checkpoint", ck, "--checkpoint-every", "7"]].concat()));
    let resumed = json(&gradfree(&["infer", "--resume", ck, "--steps", "40", "--json"]));
    assert_eq!(resumed, whole);
    assert_eq!(whole["names"], serde_json::json!(["const", "a", "b"]));
    assert!(whole.get("bse").is_none() && whole["process_sd"].as_array().unwrap().len() == 3);
    // Streamed: 400 rows are 2 steps of 20 chains x 10 rows (V from the step's own batch here;
    // streamed MasGrad's default, an independent batch, takes twice the rows); chains written to a
    // file.
    let chains = dir.path().join("chains.csv");
    let s = json(&gradfree(&[&base[..], &["--stream", "--moments", "batch", "--json", "--chains-out", chains.to_str().unwrap()]].concat()));
    assert_eq!((s["streamed_rows"].as_u64(), s["spec"]["steps"].as_u64()), (Some(400), Some(2)));
    assert_eq!(std::fs::read_to_string(&chains).unwrap().lines().count(), 20 * 3);
}

#[test]
fn infer_names_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let data = logistic_csv(dir.path());
    let bad = |extra: &[&str], needle: &str| {
        let out = gradfree(&[&["infer", "--data", &data][..], extra].concat());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(needle) && !err.contains("panicked"), "{extra:?}: {err}");
    };
    bad(&["--target", "y", "--method", "masgrad", "--moments", "batch", "--batch", "1"], "invalid --batch 1: must be >= 2 for masgrad");
    bad(&["--target", "y", "--method", "sgd", "--step", "-1"], "invalid --step -1");
    bad(&["--target", "nope"], "invalid --target nope");
    bad(&[], "invalid --target none");
    bad(&["--target", "a"], "response 0 is");
    bad(&["--target", "y", "--model", "poisson", "--stream", "--method", "sgd", "--chains", "100"], "ended after 400 rows");
    bad(&["--target", "y", "--method", "sgd", "--sampling", "without-replacement", "--batch", "500"], "invalid --batch 500");
    bad(&["--target", "y", "--model", "mixture"], "invalid --target y");
    bad(&["--target", "y", "--method", "mle", "--model", "relu"], "a GLM model");
    let nan = dir.path().join("nan.csv");
    std::fs::write(&nan, "x,y\n1,0\nnan,1\n").unwrap();
    let out = gradfree(&["infer", "--data", nan.to_str().unwrap(), "--target", "y"]);
    assert!(String::from_utf8(out.stderr).unwrap().contains("row 1 column 0 is NaN"));
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "x,y\n").unwrap();
    let out = gradfree(&["infer", "--data", empty.to_str().unwrap(), "--target", "y"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no rows"), "{err}");
}

/// `gradfree infer` with `args`, killed (and the test failed) if it has not answered in 60 s.
fn gradfree_timed(args: &[&str]) -> Output {
    use std::process::Stdio;
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_gradfree")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            panic!("{args:?} did not answer within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A file of `n` rows `x,y` with `x = i / n` and `y = f(x)`.
fn line_csv(dir: &std::path::Path, name: &str, n: usize, f: impl Fn(f64) -> f64) -> String {
    let rows: String = (0..n).map(|i| i as f64 / n as f64).map(|x| format!("{x},{:e}\n", f(x))).collect();
    let path = dir.join(name);
    std::fs::write(&path, format!("x,y\n{rows}")).unwrap();
    path.display().to_string()
}

/// The reproductions of a hostile pass over degenerate and extreme data: an exact linear fit
/// (a panic in statrs), a mixture on constant data (a hang), Poisson counts of 1e15 (0 Newton
/// steps, a zero slope, "converged") and near 1e300 (blamed on separated classes). Each now exits
/// with the honest answer: a warning naming the cause with undefined numbers as `null` (never
/// `NaN` in the JSON), or a one-line error naming it.
#[test]
fn degenerate_data_give_warnings_or_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let clean_error = |out: &Output, needle: &str| {
        common::assert_clean_error(out, needle);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("separat"));
    };
    let parsed = |out: &Output| -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains("NaN") && !text.contains("Infinity"), "{text}");
        serde_json::from_str(&text).unwrap()
    };
    // An exact linear fit: estimates, standard errors 0, t and p null, llf null, a warning.
    for (name, c) in [("zero.csv", 0.0), ("three.csv", 3.0)] {
        let data = line_csv(dir.path(), name, 20, |_| c);
        let base = ["infer", "--model", "linear", "--data", &data, "--target", "y", "--intercept"];
        for extra in [&[][..], &["--stream"][..], &["--cov-type", "HC0"][..]] {
            let out = gradfree_timed(&[&base[..], extra, &["--json"]].concat());
            let v = parsed(&out);
            assert!(String::from_utf8_lossy(&out.stderr).contains("warning: The residuals are all zero"), "{extra:?}");
            assert_eq!(v["bse"], serde_json::json!([0.0, 0.0]), "{extra:?}");
            assert_eq!((&v["tvalues"], &v["pvalues"]), (&serde_json::json!([null, null]), &serde_json::json!([null, null])));
            assert!(v["glm"]["llf"].is_null() && v["glm"]["exact_fit"] == serde_json::json!(true));
            assert!((v["params"][0].as_f64().unwrap() - c).abs() < 1e-12 && v["conf_int"][0][0] == v["conf_int"][0][1]);
        }
        let out = gradfree_timed(&base);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("nan") && text.contains("Warnings:") && text.contains("exact fit"), "{text}");
    }
    // A mixture on constant data: refused at once for several components; one component answers
    // with random scaling's standard error 0 and its t and p null, warned about.
    let flat = dir.path().join("flat.csv");
    std::fs::write(&flat, format!("z\n{}", "2.5\n".repeat(30))).unwrap();
    let flat = flat.display().to_string();
    clean_error(&gradfree_timed(&["infer", "--model", "mixture", "--data", &flat, "--json"]), "take one value (2.5)");
    let out = gradfree_timed(&["infer", "--model", "mixture", "--components", "1", "--data", &flat, "--json"]);
    let v = parsed(&out);
    assert!(v["tvalues"][0].is_null() && v["pvalues"][0].is_null() && v["bse"] == serde_json::json!([0.0]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard error is 0"));
    // Poisson counts of 1e15: the closed form's slope 1 and intercept ln 2e15 (statsmodels'
    // 35.23192358 and 1.0), converged after Newton steps, its log-likelihood kept to its digits.
    let big = line_csv(dir.path(), "big.csv", 30, |x| (2e15 * x.exp()).trunc());
    let v = parsed(&gradfree_timed(&["infer", "--model", "poisson", "--data", &big, "--target", "y", "--intercept", "--json"]));
    let (a, b) = (v["params"][0].as_f64().unwrap(), v["params"][1].as_f64().unwrap());
    assert!((a - 35.23192358).abs() < 1e-8 && (b - 1.0).abs() < 1e-7, "{a} {b}");
    assert!(v["glm"]["converged"] == serde_json::json!(true) && v["glm"]["iterations"].as_u64() >= Some(1));
    assert!((v["glm"]["llf"].as_f64().unwrap() + 563.2970096282).abs() < 1e-6 && v["warnings"] == serde_json::json!([]));
    // Counts near 1e300: the log link's overflow, with the largest count; never separation.
    let huge = line_csv(dir.path(), "huge.csv", 30, |x| 1e300 * x.exp() / 3.0);
    for extra in [&[][..], &["--stream"][..]] {
        let out = gradfree_timed(&[&["infer", "--model", "poisson", "--data", &huge, "--target", "y", "--intercept"][..], extra].concat());
        clean_error(&out, "log link");
        assert!(String::from_utf8_lossy(&out.stderr).contains("8.76"), "{extra:?}");
    }
}
