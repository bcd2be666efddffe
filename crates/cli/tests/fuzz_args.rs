//! Random command lines: every subcommand with random subsets of its options, each given a value
//! from a pool of hostile ones (zero, negative, huge, 2^32 + 1, 2^63, 2^64 - 1, NaN, infinities,
//! subnormals, junk text, device files, missing directories, the command's own input as an
//! output). Whatever the input, the binary must exit with 0 (success) or 2 (a usage or input
//! error), never panic (101), abort (a signal), run for minutes, or change a file it does not own
//! (one named only as an input, or not named at all). `GRADFREE_FUZZ_CLI_CASES` sets the number of command lines (default 1500)
//! and `GRADFREE_FUZZ_SEED` the generator's seed.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const SIZE: &[&str] =
    &["0", "1", "2", "3", "7", "101", "1009", "4294967297", "9223372036854775808", "18446744073709551615", "-1", "abc", ""];
const REAL: &[&str] = &["0", "-1", "0.5", "1e-320", "1e17", "1e308", "-1e308", "nan", "inf", "-inf", "abc", "3"];
const BUDGET: &[&str] = &["0", "1", "3", "500", "3000", "abc", "-1"];
const SEED: &[&str] = &["0", "1", "18446744073709551615", "18446744073709551616", "-1", "x"];
const VECTOR: &[&str] = &["0.1,0.2", "nan", "1,2,3", "", "1e308,-1e308", "-5:5", "0:0", "5:-5", "1e-320:1", "0.5"];
const PARAM: &[&str] =
    &["beta=0.5", "popsize=7.9", "popsize=1000000000000", "foo=1", "smoothing=-1", "beta=nan", "restarts=3", "tournament=99"];

#[derive(Clone, Copy)]
enum Kind {
    Size,
    Real,
    Budget,
    Seed,
    Vector,
    Param,
    Path,
    Choice(&'static [&'static str]),
    Flag,
}

fn spec(command: &str) -> Vec<(&'static str, Kind)> {
    use Kind::*;
    const ALGOS: &[&str] = &[
        "ingo",
        "ingostep",
        "fast-ingo",
        "igo",
        "cmaes",
        "mines",
        "xnes",
        "openai-es",
        "nesterov-spokoiny",
        "ingo-bernoulli",
        "ingo-categorical",
        "ga",
        "nope",
    ];
    const PROBLEMS: &[&str] = &["sphere", "rosenbrock", "quadratic", "logistic", "maxcut", "onemax", "failing-sphere", "levy", "nope"];
    match command {
        "optimize" => vec![
            ("--algo", Choice(ALGOS)),
            ("--problem", Choice(PROBLEMS)),
            ("--dim", Size),
            ("--seed", Seed),
            ("--problem-seed", Seed),
            ("--rotate", Flag),
            ("--shift", Real),
            ("--x0", Vector),
            ("--sigma0", Real),
            ("--param", Param),
            ("--restarts", Choice(&["0", "2", "max", "many", "-1", "18446744073709551615"])),
            ("--restart-from", Choice(&["x0", "uniform", "nope"])),
            ("--max-gens", Budget),
            ("--target", Real),
            ("--no-target", Flag),
            ("--tol-f", Real),
            ("--tol-x", Real),
            ("--tol-flat", Choice(&["0", "1", "off", "-1", "x"])),
            ("--tol-stagnation", Choice(&["0", "1", "300", "off", "18446744073709551615"])),
            ("--tol-condition", Choice(&["1", "0.5", "1e14", "off", "nan", "inf"])),
            ("--tol-diverge", Choice(&["1e12", "0", "-1", "off", "nan"])),
            ("--tol-f-window", Choice(&["0", "1", "50", "18446744073709551615"])),
            ("--no-convergence", Flag),
            ("--max-seconds", Choice(&["0", "1", "-1", "nan", "1e308"])),
            ("--bounds", Vector),
            ("--on-nonfinite", Choice(&["error", "treat-as-inf", "nope"])),
            ("--sequential", Flag),
            ("--log", Path),
            ("--checkpoint", Path),
            ("--checkpoint-every", Budget),
            ("--resume", Path),
            ("--json", Flag),
            ("-q", Flag),
        ],
        "sample" => vec![
            ("--method", Choice(&["sobol", "halton", "mc", "lhs", "subgroup", "korobov", "nope"])),
            ("--dim", Size),
            ("--n", Size),
            ("--scramble", Choice(&["none", "lms-shift", "owen", "nope"])),
            ("--random-shift", Flag),
            ("--a", Size),
            ("--seed", Seed),
            ("--skip", Size),
            ("-o", Path),
            ("--json", Flag),
        ],
        "lattice" => vec![
            ("--dim", Size),
            ("--n", Size),
            ("--method", Choice(&["subgroup", "korobov", "hua", "alg10", "alg11", "nope"])),
            ("--metric", Choice(&["l1", "l2", "nope"])),
            ("--primes", Size),
            ("--sweeps", Size),
            ("--top", Size),
            ("-o", Path),
            ("--json", Flag),
            ("-q", Flag),
        ],
        "integrate" => vec![
            (
                "--method",
                Choice(&["mc", "subgroup", "korobov", "hua", "sobol", "sobol-owen", "halton", "sobol-shifted", "halton-shifted", "nope"]),
            ),
            ("--dim", Size),
            ("--n", Size),
            ("--replicates", Size),
            ("--b", Real),
            ("--c", Real),
            ("--seed", Seed),
            ("--json", Flag),
        ],
        "bo" => vec![
            ("--problem", Choice(&["ackley", "levy", "rosenbrock", "sphere", "logistic", "nope"])),
            ("--dim", Choice(&["0", "1", "2", "3", "101", "18446744073709551615", "x"])),
            ("--method", Choice(&["bkop", "ucb", "gp-bucb", "gp-ucb-pe", "bull", "nope"])),
            ("--batch", Choice(&["0", "1", "3", "1001", "18446744073709551615", "-1"])),
            ("--rounds", Choice(&["0", "1", "2", "100000", "18446744073709551615", "abc"])),
            ("--n-initial", Choice(&["0", "1", "2", "7", "1001", "-1"])),
            ("--kernel", Choice(&["matern52", "se", "linear"])),
            ("--weight", Real),
            ("--beta", Real),
            ("--acq-starts", Choice(&["0", "1", "2", "1025"])),
            ("--acq-evals", Choice(&["0", "1", "5", "100001"])),
            ("--seed", Seed),
            ("--on-nonfinite", Choice(&["error", "treat-as-inf", "nope"])),
            ("--log", Path),
            ("--checkpoint", Path),
            ("--resume", Path),
            ("--json", Flag),
        ],
        "infer" => vec![
            ("--model", Choice(&["linear", "logistic", "poisson", "mixture", "relu", "nope"])),
            ("--data", Choice(&["d.csv", "nan.csv", "empty.csv", "wide.csv", "missing.csv", "/dev/zero"])),
            ("--target", Choice(&["y", "-1", "0", "a", "99", "nope"])),
            ("--intercept", Flag),
            (
                "--method",
                Choice(&["mle", "masgrad", "masgrad-rank-one", "sgd", "diff-masgrad", "diff-sgd", "random-scaling", "madprox", "nope"]),
            ),
            ("--cov-type", Choice(&["nonrobust", "HC0", "nope"])),
            ("--batch", Size),
            ("--step", Real),
            ("--chains", Size),
            ("--steps", Size),
            ("--seed", Seed),
            ("--level", Real),
            ("--moments", Choice(&["batch", "independent", "population", "nope"])),
            ("--sampling", Choice(&["with-replacement", "without-replacement", "nope"])),
            ("--theta0", Vector),
            ("--hidden", Size),
            ("--components", Size),
            ("--stream", Flag),
            ("--chains-out", Path),
            ("--checkpoint", Path),
            ("--checkpoint-every", Budget),
            ("--overwrite", Flag),
            ("--resume", Path),
            ("--json", Flag),
        ],
        "train" => vec![
            ("--data", Choice(&["digits", "digits", "nope"])),
            ("--model", Choice(&["mlp", "cnn", "nope"])),
            ("--hidden", Choice(&["8", "0", "1000000000", "18446744073709551615", "8,8", "x"])),
            ("--loss", Choice(&["npcl", "cl", "ce", "gce", "coteaching", "hinge", "nope"])),
            ("--noise", Choice(&["none", "symmetric:0.2", "pair:0.45", "symmetric:1.5", "nope"])),
            ("--epochs", Choice(&["0", "1", "2", "1000000000", "18446744073709551615", "-1"])),
            ("--batch-size", Size),
            ("--lr", Real),
            ("--seed", Seed),
            ("--block", Choice(&["none", "mean", "median", "nok"])),
            ("--log", Path),
            ("--checkpoint", Path),
            ("--overwrite", Flag),
            ("--resume", Path),
            ("--json", Flag),
        ],
        "plot" => {
            vec![("-o", Path), ("--f-star", Real), ("--title", Choice(&["t", "", "\u{1F600}"])), ("--linear", Flag), ("--json", Flag)]
        }
        _ => vec![("--json", Flag)],
    }
}

/// Paths: outputs in the temporary folder, the valid and corrupt files made there, a folder, a
/// device, a missing folder.
fn path(rng: &mut Xoshiro256PlusPlus, dir: &Path) -> String {
    let names = ["out.png", "out.svg", "out.csv", "out.npy", "log.jsonl", "run.ckpt", "corrupt.ckpt", "good.jsonl", "x.txt", "d.csv"];
    match rng.random_range(0..12) {
        0 => "/dev/full".into(),
        1 => "/nonexistent/dir/file".into(),
        2 => dir.display().to_string(),
        i => dir.join(names[(i - 3) as usize % names.len()]).display().to_string(),
    }
}

fn value(kind: Kind, rng: &mut Xoshiro256PlusPlus, dir: &Path) -> Option<String> {
    let pick = |rng: &mut Xoshiro256PlusPlus, pool: &[&str]| pool[rng.random_range(0..pool.len())].to_string();
    Some(match kind {
        Kind::Size => pick(rng, SIZE),
        Kind::Real => pick(rng, REAL),
        Kind::Budget => pick(rng, BUDGET),
        Kind::Seed => pick(rng, SEED),
        Kind::Vector => pick(rng, VECTOR),
        Kind::Param => pick(rng, PARAM),
        Kind::Path => path(rng, dir),
        Kind::Choice(pool) => pick(rng, pool),
        Kind::Flag => return None,
    })
}

fn command_line(rng: &mut Xoshiro256PlusPlus, dir: &Path) -> Vec<String> {
    let commands =
        ["optimize", "optimize", "sample", "sample", "lattice", "integrate", "plot", "list", "bo", "infer", "infer", "infer", "train"];
    let command = commands[rng.random_range(0..commands.len())];
    let mut args = vec![command.to_string()];
    if command == "plot" {
        args.push(path(rng, dir));
    }
    if command == "bo" {
        // Small runs by default (the options below may override them).
        args.extend(["--quiet", "--dim", "2", "--rounds", "1", "--n-initial", "4"].map(String::from));
    }
    if command == "infer" {
        // Small runs on the valid data by default (the options below may override them).
        args.extend(["--quiet", "--data", "d.csv", "--target", "y", "--chains", "8", "--steps", "20"].map(String::from));
    }
    if command == "sample" && rng.random_bool(0.5) {
        args.extend(["--method", "sobol", "--dim", "3", "--n", "16"].map(String::from));
    }
    if command == "optimize" && rng.random_bool(0.5) {
        args.extend(["--algo", "cmaes", "--problem", "sphere", "--dim", "3"].map(String::from));
    }
    if command == "train" {
        args.extend(["--quiet", "--data", "digits", "--epochs", "1", "--hidden", "16"].map(String::from));
    }
    if command == "optimize" {
        // A bounded budget, so that valid runs end quickly (the budget flag itself is fuzzed
        // through --max-gens and junk values below).
        args.extend(["--max-evals".into(), BUDGET[rng.random_range(0..BUDGET.len())].to_string()]);
    }
    let options = spec(command);
    for _ in 0..rng.random_range(0..=6) {
        let (flag, kind) = options[rng.random_range(0..options.len())];
        args.push(flag.to_string());
        if let Some(v) = value(kind, rng, dir) {
            args.push(v);
        }
    }
    args
}

/// The contents of every regular file in `dir` (the fuzz's files are small).
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default()))
        .collect()
}

/// Files of `before` that changed or vanished although the command line names them only as
/// inputs, or not at all: a command may write only what follows its output flags (and a
/// checkpoint's records file beside it).
fn damaged_files(dir: &Path, args: &[String], before: &std::collections::BTreeMap<String, Vec<u8>>) -> Vec<String> {
    const OUTPUTS: &[&str] = &["-o", "--output", "--log", "--checkpoint", "--chains-out", "--resume"];
    let owned: Vec<String> = args
        .windows(2)
        .filter(|w| OUTPUTS.contains(&w[0].as_str()))
        .filter_map(|w| Path::new(&w[1]).file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let after = snapshot(dir);
    before
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "stdout" | "stderr") && !name.contains(".records-"))
        .filter(|(name, _)| !owned.iter().any(|o| o == *name))
        .filter(|(name, bytes)| after.get(*name) != Some(bytes))
        .map(|(name, _)| name.clone())
        .collect()
}

#[test]
fn random_command_lines_never_panic_abort_or_hang() {
    let cases: usize = std::env::var("GRADFREE_FUZZ_CLI_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_gradfree");
    // Inputs for --resume and plot: a valid log, a valid checkpoint, a corrupt file.
    let ok = Command::new(bin)
        .args(["optimize", "-q", "--algo", "cmaes", "--problem", "sphere", "--dim", "3", "--max-gens", "20"])
        .arg("--log")
        .arg(dir.path().join("good.jsonl"))
        .arg("--checkpoint")
        .arg(dir.path().join("run.ckpt"))
        .output()
        .unwrap();
    assert!(ok.status.success());
    std::fs::write(dir.path().join("corrupt.ckpt"), b"{\"format\":\"gradfree-checkpoint\",\"version\":2,").unwrap();
    // Data for infer: valid rows, a NaN, no rows, and a file that is never written to.
    let rows: String =
        (0..200).map(|i| format!("{},{},{}\n", (i % 13) as f64 / 6.0 - 1.0, (i % 7) as f64 / 3.0 - 1.0, (i * 7 % 5 < 2) as u8)).collect();
    let data = format!("a,b,y\n{rows}");
    std::fs::write(dir.path().join("d.csv"), &data).unwrap();
    std::fs::write(dir.path().join("nan.csv"), "a,y\n1,0\nnan,1\n").unwrap();
    std::fs::write(dir.path().join("empty.csv"), "a,y\n").unwrap();
    std::fs::write(dir.path().join("wide.csv"), format!("{}1\n{}0\n", "0.5,".repeat(5000), "0.25,".repeat(5000))).unwrap();
    std::fs::write(dir.path().join("sentinel.txt"), "never named on a command line\n").unwrap();
    let seed: u64 = std::env::var("GRADFREE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x05ee_dc11);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut failures = Vec::new();
    let mut before = snapshot(dir.path());
    let mut counts: std::collections::BTreeMap<String, [usize; 3]> = Default::default();
    for case in 0..cases {
        let args = command_line(&mut rng, dir.path());
        let out = std::fs::File::create(dir.path().join("stdout")).unwrap();
        let err = std::fs::File::create(dir.path().join("stderr")).unwrap();
        let mut child = Command::new(bin).args(&args).current_dir(dir.path()).stdin(Stdio::null()).stdout(out).stderr(err).spawn().unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let stderr = std::fs::read_to_string(dir.path().join("stderr")).unwrap_or_default();
        let damaged = damaged_files(dir.path(), &args, &before);
        let verdict = match status {
            None => Some("timed out after 60 s".to_string()),
            Some(s) if s.code().is_none() => Some(format!("killed by a signal ({s})")),
            Some(s) if !matches!(s.code(), Some(0 | 2)) || stderr.contains("panicked") => Some(format!("exit {s}")),
            _ if !damaged.is_empty() => Some(format!("changed files it does not own: {damaged:?}")),
            _ => None,
        };
        // An output written over the data (which the command owned, as its output) is put back
        // for the cases after it.
        if std::fs::read(dir.path().join("d.csv")).ok().as_deref() != Some(data.as_bytes()) {
            std::fs::write(dir.path().join("d.csv"), &data).unwrap();
        }
        before = snapshot(dir.path());
        let tally = counts.entry(args[0].clone()).or_insert([0usize; 3]);
        tally[match status.and_then(|s| s.code()) {
            Some(0) => 0,
            Some(2) => 1,
            _ => 2,
        }] += 1;
        if let Some(v) = verdict {
            failures.push(format!(
                "case {case}: gradfree {}: {v}\n{}",
                args.join(" "),
                stderr.lines().take(3).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    // Per command: runs that succeeded, clean errors, anything else (`--nocapture` shows it).
    for (command, [ok, errors, other]) in &counts {
        eprintln!("{command:<10} {ok:>5} succeeded {errors:>5} clean errors {other:>3} other");
    }
    assert!(failures.is_empty(), "{} of {cases} command lines failed:\n{}", failures.len(), failures.join("\n\n"));
}
