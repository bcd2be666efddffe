//! `gradfree optimize`: one run of an algorithm on a benchmark problem, with logs, checkpoints
//! and resume.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_core::{CheckpointPolicy, Driver, Observer, Outputs, StopSpec, run_with_outputs};
use gradfree_es::Algorithm;
use gradfree_experiments::run_spec::{RestartPlan, RunSpec};
use serde::Serialize;

use crate::cli::{NonFiniteArg, OptimizeArgs, RestartCount, RestartFrom, Tol};
use gradfree_experiments::progress::RunProgress;

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
    if args.checkpoint_every.is_some() || args.checkpoint_seconds.is_some() {
        spec.checkpoint_every = args.checkpoint_every;
        spec.checkpoint_seconds = args.checkpoint_seconds;
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
    let _files =
        crate::run_files::checkpointed(args.resume.as_deref(), args.checkpoint.as_deref(), args.log.as_deref(), args.overwrite).claim()?;
    let (spec, alg, state, log, run_id, _log_claim) = match &args.resume {
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
            if args.checkpoint_every.is_some() || args.checkpoint_seconds.is_some() {
                spec.checkpoint_every = args.checkpoint_every;
                spec.checkpoint_seconds = args.checkpoint_seconds;
            }
            let (log, log_claim) =
                crate::run_files::resumed_log(&saved, args.log.as_deref(), path, args.checkpoint.as_deref(), args.overwrite)?;
            (spec, ck.optimizer, Some(ck.driver), log, saved.run_id, log_claim)
        }
        None => {
            let (spec, alg) = new_run(args)?;
            (spec, alg, None, args.log.clone(), gradfree_core::observer::new_run_id(), Default::default())
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
    let checkpoint_path = args.checkpoint.clone().or_else(|| args.resume.clone());
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
    let mut progress = (!args.quiet && !args.json).then(|| RunProgress::new(spec.stop.max_evaluations, driver.evaluations()));
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
    let (restarts, scheme) = match driver.optimizer() {
        Algorithm::Ipop(ipop) => (ipop.restarts_done(), ipop.scheme()),
        _ => (0, Default::default()),
    };
    // A continuous method on a discrete problem searched a relaxation: its answer is the point of
    // the problem's domain its best point reads as (bits, categories), which has its value.
    let best_x = problem.decode(&result.best_x);
    if args.json {
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
                gradfree_es::RestartScheme::Ipop => "IPOP, population x2 each",
                gradfree_es::RestartScheme::Bipop => "BIPOP, large and small regimes",
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
