//! `gradfree optimize`: one run of an algorithm on a benchmark problem, with logs, checkpoints
//! and resume.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_core::{CheckpointPolicy, Driver, Observer, Outputs, StopSpec, run_with_outputs};
use gradfree_es::Algorithm;
use gradfree_experiments::run_spec::{RestartPlan, RunSpec};
use serde::Serialize;

use clap::{Args, ValueEnum};
use gradfree_es::RestartScheme;

use crate::shared_flags::{CadenceArgs, NonFiniteArg, RunFilesArgs, RunOutput};
use gradfree_experiments::progress::RunProgress;

pub use gradfree_experiments::run_spec::BoundsMode;

/// `gradfree optimize`. Defaults are the library's ([`RunSpec`], [`gradfree_core::StopSpec`]).
#[derive(Args, Debug)]
#[command(
    mut_arg("log", |a| a.help("Write a JSON-lines log of every generation (appended to on --resume)")),
    mut_arg("checkpoint", |a| a.help("Write a checkpoint to this file (atomically) every --checkpoint-seconds (or \
         --checkpoint-every generations) and at the end")),
    mut_arg("resume", |a| a.help("Resume the run saved in this checkpoint (budget flags given here replace the saved ones)")),
    mut_arg("checkpoint_every", |a| a.help("Generations between checkpoints (replaces the default 30-second interval unless \
         --checkpoint-seconds is given too; a resumed run keeps the saved setting)")),
    mut_arg("checkpoint_seconds", |a| a.help("Wall-clock seconds between checkpoints [default: 30; a resumed run keeps the \
         saved setting]"))
)]
pub struct OptimizeArgs {
    /// Algorithm (see `gradfree list`). Default: the recommended method, CMA-ES with BIPOP
    /// restarts (from uniform points of the problem's initial region) and quasi-Monte Carlo
    /// directions (`--param sampling=sphere-qmc`) and pycma's step-size damping for large
    /// populations (`--param damping=pycma`), whose restarts stop once they settle
    /// (`--settle-runs`, 2): on COCO's bbob suite (f1-f24, 15 instances,
    /// budget 10^4 d) it had a larger runtime-ECDF area than pycma's BIPOP-CMA-ES at d = 2, 5, 10
    /// and 20, and at d = 10 needed no more evaluations than pycma on 20 of 24 functions (user
    /// guide, docs/results/optimizers.md). The thesis algorithms keep their thesis defaults under their own
    /// names; INGO's fastest form measured is `--algo ingo --param step_size=tpa --param
    /// beta=<1.5/d> --param sampling=sphere-qmc --param cusp_guard=true --restarts bipop`, level
    /// with CMA-ES + IPOP on bbob at d = 10 and solving the thesis' functions at d = 100 (user guide,
    /// docs/results/optimizers.md, "Options that measurably help INGO"). `--algo surrogate`, for expensive functions: lq-CMA-ES
    /// (Hansen 2019), a linear-quadratic model ranks most of each population and only what it
    /// cannot rank is evaluated, with the default's BIPOP restarts and settle rule.
    #[arg(long)]
    pub algo: Option<String>,
    /// Problem (see `gradfree list`). Required unless --resume.
    #[arg(long)]
    pub problem: Option<String>,
    /// Dimension. Required unless --resume.
    #[arg(long)]
    pub dim: Option<usize>,
    /// Seed of the algorithm and of the initial point [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seed of the problem instance (random data of quadratic, logistic, binary-reconstruction,
    /// rotation and shift); fixed by default so runs with different --seed see the same problem.
    #[arg(long)]
    pub problem_seed: Option<u64>,
    /// Rotate the problem by a random orthogonal matrix about its minimizer.
    #[arg(long)]
    pub rotate: bool,
    /// Shift the problem by a random vector in [-R, R]^d.
    #[arg(long, allow_hyphen_values = true, value_name = "R")]
    pub shift: Option<f64>,
    /// Initial mean as comma-separated numbers (default: uniform in the problem's initial region).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub x0: Option<Vec<f64>>,
    /// Initial scale (default: 0.5, or 0.3 x the domain width for bounded problems).
    #[arg(long, allow_hyphen_values = true)]
    pub sigma0: Option<f64>,
    /// Algorithm parameter KEY=VALUE (repeatable), e.g. `--param step_size=0.01`; `gradfree
    /// params ALGO` lists the keys with their defaults and ranges.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Restarts (default: none). `ipop` (Auger & Hansen 2005: the population doubles at each
    /// restart) or `bipop` (Hansen 2009: large IPOP runs interleaved with small-population runs of
    /// small random sigma0, each regime getting half of the evaluations), until the budget is
    /// spent; `ipop:K` / `bipop:K` for at most K (large) restarts; a bare `K` or `max` is IPOP.
    #[arg(long, value_name = "ipop|bipop[:K]|K|max")]
    pub restarts: Option<RestartCount>,
    /// Mean of each restart: the initial x0 (IPOP) or a uniform draw from the problem's initial region [default: x0].
    #[arg(long, value_enum)]
    pub restart_from: Option<RestartFrom>,
    /// Stop restarting once K converged runs in a row after the one that found the best point
    /// have each converged back to it (value within 1e-11 + 1e-10 |f|, point within 1e-2 sigma0
    /// sqrt(d)): the run ends as `restarts-settled`, a success. `off` (or 0) restarts until the
    /// budget or the target ends the run [default: 2 for the recommended method (no --algo) run
    /// without a target (`--no-target`, or a problem of unknown minimum without `--target`), off
    /// otherwise: with a target the restarts go on until it is reached or the budget is spent].
    #[arg(long, value_name = "K|off")]
    pub settle_runs: Option<Tol<u32>>,
    /// End a restart's run once it is converging to a value worse than the best of the earlier
    /// runs that ended flat: its last generation's values span at most R times the gap, and
    /// Aitken's extrapolation of its best values leaves at most 10 R times the gap to gain. R in
    /// (0, 1); `off` lets every run converge [default: 0.01 for the recommended method (no --algo),
    /// off otherwise].
    #[arg(long, value_name = "R|off")]
    pub worse_runs: Option<Tol<f64>>,
    /// Population growth per (large) restart, at least 1 (pycma's `incpopsize`) [default: 2].
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub incpopsize: Option<f64>,
    /// Evaluation budget (default 10000 x dim).
    #[arg(long)]
    pub max_evals: Option<u64>,
    /// Generation budget.
    #[arg(long)]
    pub max_gens: Option<u64>,
    /// Stop when best f <= this (default: f* + 1e-10 when the minimum is known).
    #[arg(long, allow_hyphen_values = true)]
    pub target: Option<f64>,
    /// Do not stop at a default target.
    #[arg(long, conflicts_with = "target")]
    pub no_target: bool,
    /// Converged when the best values of the last --tol-f-window generations and all values of
    /// the last generation span less than this [default: 1e-11; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "F|off", help_heading = "Convergence")]
    pub tol_f: Option<Tol<f64>>,
    /// Generations the --tol-f history spans [default: 10 + ceil(30 d / popsize)].
    #[arg(long, help_heading = "Convergence")]
    pub tol_f_window: Option<usize>,
    /// Converged when the step length (largest coordinate standard deviation) falls below this
    /// [default: 1e-11; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "X|off", help_heading = "Convergence")]
    pub tol_x: Option<Tol<f64>>,
    /// Stop after more than N generations in a row whose best value equals their median (a
    /// plateau) [default: 1; `off` to disable].
    #[arg(long, value_name = "N|off", help_heading = "Convergence")]
    pub tol_flat: Option<Tol<u64>>,
    /// Stop when the best and median values make no progress over this many generations
    /// [default: 100 + ceil(100 d^1.5 / popsize); `off` to disable].
    #[arg(long, value_name = "N|off", help_heading = "Convergence")]
    pub tol_stagnation: Option<Tol<u64>>,
    /// Stop when the covariance's condition number exceeds this (CMA-ES, Fast-INGO)
    /// [default: 1e14; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "C|off", help_heading = "Convergence")]
    pub tol_condition: Option<Tol<f64>>,
    /// Stop as diverged when a generation's best value exceeds the best so far by more than
    /// this times max(1, |best|) [default: 1e12; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "R|off", help_heading = "Convergence")]
    pub tol_diverge: Option<Tol<f64>>,
    /// Run until a budget or the target only: none of the convergence rules above apply unless
    /// given explicitly (the default when --restarts is given, whose restarts judge convergence).
    #[arg(long, help_heading = "Convergence")]
    pub no_convergence: bool,
    /// Wall-time budget in seconds.
    #[arg(long, allow_hyphen_values = true)]
    pub max_seconds: Option<f64>,
    /// Box handling [default: auto].
    #[arg(long, value_enum)]
    pub bounds: Option<BoundsMode>,
    /// What to do with NaN/inf objective values [default: error].
    #[arg(long, value_enum)]
    pub on_nonfinite: Option<NonFiniteArg>,
    /// Evaluate each population sequentially instead of on all cores.
    #[arg(long)]
    pub sequential: bool,
    /// Checkpoint and resume.
    #[command(flatten)]
    pub files: RunFilesArgs,
    /// How often to checkpoint.
    #[command(flatten)]
    pub cadence: CadenceArgs,
    /// Output.
    #[command(flatten)]
    pub output: RunOutput,
}

/// A convergence tolerance: a value, or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol<T> {
    /// Use this value.
    Value(T),
    /// Switch the rule off.
    Off,
}

impl<T: std::str::FromStr> std::str::FromStr for Tol<T> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "off" {
            return Ok(Tol::Off);
        }
        s.parse::<T>().map(Tol::Value).map_err(|_| format!("`{s}`: expected a number or `off`"))
    }
}

/// `--restarts ipop|bipop[:K]|K|max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartCount {
    /// IPOP or BIPOP.
    pub scheme: RestartScheme,
    /// At most this many (large) restarts; `None`: until the budget is spent.
    pub max: Option<u32>,
}

impl std::str::FromStr for RestartCount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}`: expected ipop, bipop, ipop:K, bipop:K, a count K >= 0 or max");
        let (scheme, rest) = match s.split_once(':') {
            Some(("ipop", k)) => (RestartScheme::Ipop, Some(k)),
            Some(("bipop", k)) => (RestartScheme::Bipop, Some(k)),
            Some(_) => return Err(bad()),
            None => match s {
                "ipop" | "max" => (RestartScheme::Ipop, None),
                "bipop" => (RestartScheme::Bipop, None),
                _ => (RestartScheme::Ipop, Some(s)),
            },
        };
        let max = match rest {
            None => None,
            Some(k) => Some(k.parse::<u32>().map_err(|_| bad())?),
        };
        Ok(RestartCount { scheme, max })
    }
}

/// `--restart-from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RestartFrom {
    /// The initial point.
    X0,
    /// Uniform in the problem's initial region.
    Uniform,
}

/// The `--json` output.
#[derive(Serialize)]
struct Output<'a> {
    algorithm: &'a str,
    problem: &'a str,
    dim: usize,
    seed: u64,
    problem_seed: u64,
    best_f: f64,
    best_x: &'a [f64],
    f_star: Option<f64>,
    evaluations: u64,
    generations: u64,
    stop_reason: String,
    /// As `scipy.optimize`'s `success`: the target was reached (without a target: tol-f or
    /// tol-x fired).
    success: bool,
    /// What the stop reason means.
    message: &'a str,
    seconds: f64,
    resumed: bool,
    /// IPOP restarts done (0 without `--restarts`).
    restarts: u32,
}

fn parse_params(items: &[String]) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut m = serde_json::Map::new();
    for item in items {
        let (k, v) = item.split_once('=').with_context(|| format!("--param {item}: expected KEY=VALUE"))?;
        let v = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
        if let Some(first) = m.insert(k.trim().to_string(), v.clone()) {
            bail!("--param {}: given twice ({} and {v}); give each parameter once", k.trim(), first);
        }
    }
    Ok(m)
}

/// The stop rules as the flags give them (unset flags take the library's defaults in a new run, and
/// keep the saved rules in a resumed one); `off` switches a rule off.
pub fn stop_spec(args: &OptimizeArgs) -> StopSpec {
    let mut s = StopSpec {
        max_evaluations: args.max_evals,
        max_generations: args.max_gens,
        target: args.target,
        max_seconds: args.max_seconds,
        tol_f_window: args.tol_f_window,
        convergence: !args.no_convergence,
        ..StopSpec::default()
    };
    if args.no_target {
        s.off.push("target".into());
    }
    apply("tol-f", args.tol_f, &mut s.tol_f, &mut s.off);
    apply("tol-x", args.tol_x, &mut s.tol_x, &mut s.off);
    apply("tol-condition", args.tol_condition, &mut s.tol_condition, &mut s.off);
    apply("tol-diverge", args.tol_diverge, &mut s.tol_diverge, &mut s.off);
    apply("tol-flat", args.tol_flat, &mut s.tol_flat, &mut s.off);
    apply("tol-stagnation", args.tol_stagnation, &mut s.tol_stagnation, &mut s.off);
    s
}

/// A convergence flag: a value sets the rule, `off` switches it off.
fn apply<T>(name: &'static str, tol: Option<Tol<T>>, field: &mut Option<T>, off: &mut Vec<String>) {
    match tol {
        Some(Tol::Value(v)) => *field = Some(v),
        Some(Tol::Off) => off.push(name.into()),
        None => {}
    }
}

fn new_run(args: &OptimizeArgs) -> Result<(RunSpec, Algorithm)> {
    let (Some(problem), Some(dim)) = (&args.problem, args.dim) else {
        bail!("--problem and --dim are required (unless --resume)");
    };
    // Without --algo: the recommended method, its parameters under the user's, BIPOP restarts
    // from uniform points of the problem's initial region unless --restarts/--restart-from say
    // otherwise.
    // A preset (`--algo surrogate`) is used as the recommended method is: its algorithm, parameters,
    // restarts and settle rule.
    let recommended = match args.algo.as_deref() {
        None => Some(gradfree_es::RECOMMENDED),
        Some(name) => gradfree_es::recommended::preset(name),
    };
    let algorithm = recommended.map_or_else(|| args.algo.as_deref().unwrap_or_default(), |r| r.algorithm);
    let mut spec = RunSpec::new(algorithm, problem, dim, args.seed.unwrap_or(0))?;
    if let Some(s) = args.problem_seed {
        spec.problem_seed = s;
    }
    spec.rotate = args.rotate;
    spec.shift = args.shift;
    if let Some(b) = args.bounds {
        spec.bounds = b;
    }
    spec.params = parse_params(&args.params)?;
    if let Some(r) = recommended {
        for (k, v) in r.params_json() {
            spec.params.entry(k).or_insert(v);
        }
    }
    spec.parallel = !args.sequential;
    if args.cadence.given() {
        spec.checkpoint_every = args.cadence.checkpoint_every;
        spec.checkpoint_seconds = args.cadence.checkpoint_seconds;
    }
    if args.on_nonfinite == Some(NonFiniteArg::TreatAsInf) {
        spec.params.insert("on_nonfinite".into(), "treat-as-inf".into());
    }
    if let Some(x) = &args.x0 {
        if x.len() != dim {
            bail!("--x0 has {} values, expected --dim {dim}", x.len());
        }
        spec.x0 = x.clone();
    }
    let p = spec.build_problem()?;
    spec.complete(p.as_ref())?;
    if let Some(s) = args.sigma0 {
        spec.sigma0 = s;
    }
    let restarts = args.restarts.or(recommended.map(|r| RestartCount { scheme: r.restarts, max: None })).map(|k| RestartPlan {
        max: k.max,
        from_uniform: match args.restart_from {
            Some(from) => from == RestartFrom::Uniform,
            None => recommended.is_some(),
        },
        scheme: k.scheme,
        settle_runs: match args.settle_runs {
            Some(Tol::Value(k)) if k > 0 => Some(k),
            Some(_) => None,
            None => recommended.and_then(|r| r.settle_runs),
        },
        worse_runs: match args.worse_runs {
            Some(Tol::Value(r)) => Some(r),
            Some(Tol::Off) => None,
            None => recommended.and_then(|r| r.worse_runs),
        },
        popsize_factor: args.incpopsize,
    });
    let es = spec.es_spec(p.as_ref(), restarts, stop_spec(args))?;
    let mut alg = es.optimizer()?;
    spec.stop = es.stop_rules(&alg, p.minimum())?;
    // The preset's settle rule applies without a target only (Recommended::default_settle_runs).
    if let (None, Some(r), Algorithm::Ipop(ipop)) = (args.settle_runs, recommended, &mut alg) {
        ipop.set_settle_runs(r.default_settle_runs(spec.stop.target.is_some()))?;
    }
    Ok((spec, alg))
}

/// A resumed run continues the saved one: flags that define the run must agree with the
/// checkpoint (budgets, logs and output flags may change).
fn check_resume_flags(args: &OptimizeArgs, spec: &RunSpec) -> Result<()> {
    let fixed = "a resumed run continues the saved run; start a new run to change it";
    let differs = |flag: &str, given: String, saved: String| -> Result<()> {
        if given != saved {
            bail!("{flag} {given} disagrees with the checkpoint ({saved}): {fixed}");
        }
        Ok(())
    };
    if let Some(a) = &args.algo {
        let a = gradfree_es::recommended::preset(a).map_or(a.as_str(), |r| r.algorithm);
        differs("--algo", a.to_string(), spec.algorithm.clone())?;
    }
    if let Some(p) = &args.problem {
        differs("--problem", p.clone(), spec.problem.clone())?;
    }
    if let Some(d) = args.dim {
        differs("--dim", d.to_string(), spec.dim.to_string())?;
    }
    if let Some(s) = args.seed {
        differs("--seed", s.to_string(), spec.seed.to_string())?;
    }
    if let Some(s) = args.problem_seed {
        differs("--problem-seed", s.to_string(), spec.problem_seed.to_string())?;
    }
    if args.rotate && !spec.rotate {
        bail!("--rotate disagrees with the checkpoint (not rotated): {fixed}");
    }
    if let Some(r) = args.shift {
        differs("--shift", r.to_string(), spec.shift.map_or("none".into(), |v| v.to_string()))?;
    }
    if let Some(b) = args.bounds {
        differs("--bounds", b.name().to_string(), spec.bounds.name().to_string())?;
    }
    if let Some(x0) = &args.x0
        && x0 != &spec.x0
    {
        bail!("--x0 disagrees with the checkpoint's start point: {fixed}");
    }
    if let Some(s) = args.sigma0 {
        differs("--sigma0", s.to_string(), spec.sigma0.to_string())?;
    }
    for (k, v) in parse_params(&args.params)? {
        let saved = spec.params.get(&k).map_or("(default)".to_string(), |v| v.to_string());
        differs("--param", format!("{k}={v}"), format!("{k}={saved}"))?;
    }
    if let Some(p) = args.on_nonfinite {
        let saved = spec.params.get("on_nonfinite").and_then(|v| v.as_str()) == Some("treat-as-inf");
        differs("--on-nonfinite", format!("{p:?}"), format!("{:?}", if saved { NonFiniteArg::TreatAsInf } else { NonFiniteArg::Error }))?;
    }
    if args.restarts.is_some() || args.restart_from.is_some() || args.settle_runs.is_some() || args.worse_runs.is_some() {
        bail!("--restarts/--restart-from/--settle-runs/--worse-runs: the restart settings are part of the checkpoint: {fixed}");
    }
    Ok(())
}

pub fn run(args: &OptimizeArgs) -> Result<()> {
    let started = Instant::now();
    // The run's files are its own until it ends (two runs started together cannot share one).
    let _files = args.files.run_files().claim()?;
    let (spec, alg, state, log, run_id, _log_claim) = match &args.files.resume {
        Some(path) => {
            let mut ck = crate::run_files::load::<Algorithm>(path, "optimize")?;
            let saved = crate::run_files::take_log(&mut ck.meta);
            let mut spec: RunSpec = gradfree_core::checkpoint::from_json(ck.meta)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("{}: checkpoint metadata is not a gradfree run", path.display()))?;
            spec.check_against(&ck.optimizer).with_context(|| format!("{}", path.display()))?;
            check_resume_flags(args, &spec)?;
            spec.stop = stop_spec(args).update(spec.stop)?;
            spec.parallel = !args.sequential;
            if args.cadence.given() {
                spec.checkpoint_every = args.cadence.checkpoint_every;
                spec.checkpoint_seconds = args.cadence.checkpoint_seconds;
            }
            let (log, log_claim) = crate::run_files::resumed_log(&saved, path, &args.files)?;
            (spec, ck.optimizer, Some(ck.driver), log, saved.run_id, log_claim)
        }
        None => {
            let (spec, alg) = new_run(args)?;
            (spec, alg, None, args.files.log.clone(), gradfree_core::observer::new_run_id(), Default::default())
        }
    };
    let resumed = state.is_some();
    let problem = spec.build_problem()?;
    let opts = spec.driver_options(problem.as_ref())?;
    let driver = match state {
        Some(s) => Driver::resume(alg, opts, s)?,
        None => Driver::new(alg, opts)?,
    };
    // A resumed run keeps checkpointing to the file it came from unless --checkpoint says otherwise.
    let checkpoint_path = args.files.checkpoint_path();
    let checkpoint = match &checkpoint_path {
        Some(path) => Some(CheckpointPolicy {
            path: path.clone(),
            every: spec.checkpoint_every,
            seconds: spec.checkpoint_seconds,
            meta: crate::run_files::name_log(serde_json::to_value(&spec)?, log.as_deref(), &run_id),
        }),
        None => None,
    };
    let outputs = Outputs { log, checkpoint, run_id: Some(run_id) };
    let mut progress = args.output.bar().then(|| RunProgress::new(spec.stop.max_evaluations, driver.evaluations()));
    let mut observers: Vec<&mut dyn Observer> = progress.iter_mut().map(|p| p as &mut dyn Observer).collect();
    let (result, driver) = run_with_outputs(driver, &problem, outputs, resumed, &mut observers)
        .with_context(|| format!("{} on {}", spec.algorithm, spec.problem))?;
    if result.evaluations == 0 && result.stop_reason == Some(gradfree_core::StopReason::Diverged) {
        // Nothing was evaluated: the start itself overflows, which is a bad argument, not a run.
        let given = [args.sigma0.map(|v| format!("--sigma0 {v:e}")), args.x0.as_ref().map(|_| "--x0".to_string())];
        let named: Vec<String> = given.into_iter().flatten().collect();
        anyhow::bail!(
            "invalid {}: the first generation's points are not finite ({} overflowed the search distribution before any evaluation); use a smaller --sigma0 or a start farther from the largest doubles",
            if named.is_empty() { "start".to_string() } else { named.join(" with ") },
            spec.algorithm
        );
    }
    let stop_reason = result.stop_reason.map(|r| r.to_string()).unwrap_or_default();
    let success = result.stop_reason.is_some_and(|r| r.is_success_under(&spec.stop));
    let message = result.stop_reason.map_or("", |r| r.describe());
    let (restarts, scheme, factor) = match driver.optimizer() {
        Algorithm::Ipop(ipop) => (ipop.restarts_done(), ipop.scheme(), ipop.popsize_factor()),
        _ => (0, Default::default(), 2.0),
    };
    // A continuous method on a discrete problem searched a relaxation: its answer is the point of
    // the problem's domain its best point reads as (bits, categories), which has its value.
    let best_x = problem.decode(&result.best_x);
    if args.output.json {
        let out = Output {
            algorithm: &spec.algorithm,
            problem: &spec.problem,
            dim: spec.dim,
            seed: spec.seed,
            problem_seed: spec.problem_seed,
            best_f: result.best_f,
            best_x: &best_x,
            f_star: problem.minimum(),
            evaluations: result.evaluations,
            generations: result.generations,
            stop_reason,
            success,
            message,
            seconds: result.seconds,
            resumed,
            restarts,
        };
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = best_x.iter().take(6).map(|v| format!("{v:.6}")).collect();
        let more = if best_x.len() > 6 { format!(", ... ({} values)", result.best_x.len()) } else { String::new() };
        outln!("{} on {} (d = {}, seed {}):", spec.algorithm, spec.problem, spec.dim, spec.seed);
        outln!("  best f      {:.10e}{}", result.best_f, problem.minimum().map(|f| format!("   (f* = {f})")).unwrap_or_default());
        outln!("  best x      [{}{}]", shown.join(", "), more);
        outln!("  evaluations {}   generations {}", result.evaluations, result.generations);
        if restarts > 0 {
            let how = match scheme {
                gradfree_es::RestartScheme::Ipop => format!("IPOP, population x{factor} each"),
                gradfree_es::RestartScheme::Bipop => "BIPOP, large and small regimes".to_string(),
            };
            outln!("  restarts    {restarts} ({how})");
        }
        outln!("  stopped     {}   after {:.3} s (this session {:.3} s)", stop_reason, result.seconds, started.elapsed().as_secs_f64());
        outln!("              {message}");
        if let Some(p) = &checkpoint_path {
            outln!("  checkpoint  {}", p.display());
        }
    }
    Ok(())
}
