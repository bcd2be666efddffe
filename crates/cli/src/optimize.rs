//! `gradfree optimize`: one run of an algorithm on a benchmark problem, with logs, checkpoints
//! and resume.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_core::{
    AskTell, BoundaryRepair, BoundsHandling, CheckpointPolicy, Driver, DriverOptions, JsonLinesLog, Observer, StopRules, derive_seed,
    load_checkpoint, rng_from_seed,
};
use gradfree_es::{Algorithm, Ipop, IpopParams, RestartMean, StartSpec};
use gradfree_problems::Problem;
use serde::{Deserialize, Serialize};

use crate::cli::{BoundsMode, NonFiniteArg, OptimizeArgs, RestartCount, RestartFrom};
use crate::progress::Progress;

/// Everything needed to rebuild a run; stored as the checkpoint's metadata.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSpec {
    pub algorithm: String,
    pub problem: String,
    pub dim: usize,
    pub seed: u64,
    pub problem_seed: u64,
    pub rotate: bool,
    pub shift: Option<f64>,
    pub bounds: BoundsMode,
    pub x0: Vec<f64>,
    pub sigma0: f64,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub stop: StopRules,
    pub parallel: bool,
    /// Generations between checkpoints (older checkpoints: the default 50).
    #[serde(default = "default_checkpoint_every")]
    pub checkpoint_every: u64,
}

fn default_checkpoint_every() -> u64 {
    50
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
    seconds: f64,
    resumed: bool,
    /// IPOP restarts done (0 without `--restarts`).
    restarts: u32,
}

pub fn build_problem(spec: &RunSpec) -> Result<Box<dyn Problem>> {
    Ok(gradfree_problems::registry::build_with(&spec.problem, spec.dim, spec.problem_seed, spec.rotate, spec.shift)?)
}

pub fn driver_options(spec: &RunSpec, problem: &dyn Problem) -> Result<DriverOptions> {
    let mut opts = DriverOptions::new(spec.stop.clone());
    opts.parallel = spec.parallel;
    // A discrete algorithm's points lie in the discrete problem's domain already.
    let discrete = gradfree_es::registry::spec(&spec.algorithm).is_ok_and(|a| a.discrete());
    let handling = match spec.bounds {
        BoundsMode::None => None,
        BoundsMode::Auto if discrete => None,
        BoundsMode::Auto | BoundsMode::Clip => Some(BoundsHandling::Repair(BoundaryRepair::Clip)),
        BoundsMode::Reflect => Some(BoundsHandling::Repair(BoundaryRepair::Reflect)),
        BoundsMode::Penalty => Some(BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: 1e3 }),
    };
    match (problem.domain(), handling) {
        (Some(b), Some(h)) => opts.bounds = Some((b, h)),
        (None, Some(_)) if spec.bounds != BoundsMode::Auto => {
            bail!(
                "--bounds {}: problem `{}` has no domain; use --bounds none or auto",
                format!("{:?}", spec.bounds).to_lowercase(),
                spec.problem
            )
        }
        _ => {}
    }
    Ok(opts)
}

fn parse_params(items: &[String]) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut m = serde_json::Map::new();
    for item in items {
        let (k, v) = item.split_once('=').with_context(|| format!("--param {item}: expected KEY=VALUE"))?;
        let v = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
        m.insert(k.trim().to_string(), v);
    }
    Ok(m)
}

fn stop_rules(args: &OptimizeArgs, dim: usize, f_star: Option<f64>, base: Option<StopRules>) -> StopRules {
    let mut s =
        base.unwrap_or(StopRules { max_evaluations: Some(10_000 * dim as u64), target: f_star.map(|f| f + 1e-10), ..StopRules::default() });
    if let Some(n) = args.max_evals {
        s.max_evaluations = Some(n);
    }
    if let Some(g) = args.max_gens {
        s.max_generations = Some(g);
    }
    if let Some(t) = args.target {
        s.target = Some(t);
    }
    if args.no_target {
        s.target = None;
    }
    if let Some(t) = args.tol_f {
        s.tol_f = Some(t);
    }
    if let Some(t) = args.tol_x {
        s.tol_x = Some(t);
    }
    if let Some(t) = args.max_seconds {
        s.max_seconds = Some(t);
    }
    s
}

/// Discrete algorithms need a discrete problem: `ingo-bernoulli` a binary one; `ingo-categorical`
/// and `ga` take the problem's number of categories unless `--param categories=K` says otherwise.
pub fn discrete_setup(
    algorithm: &str,
    p: &dyn gradfree_problems::Problem,
    params: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<()> {
    let Ok(spec) = gradfree_es::registry::spec(algorithm) else {
        return Ok(());
    };
    if spec.domain == gradfree_es::registry::Domain::Continuous {
        return Ok(());
    }
    let discrete: Vec<&str> = gradfree_problems::list()
        .iter()
        .filter(|s| gradfree_problems::build(s.name, 4, 0).is_ok_and(|q| q.categories().is_some()))
        .map(|s| s.name)
        .collect();
    let Some(k) = p.categories() else {
        bail!(
            "--algo {algorithm} searches {{0..K-1}}^d, but problem `{}` is continuous; discrete problems: {}",
            p.name(),
            discrete.join(", ")
        );
    };
    if spec.domain == gradfree_es::registry::Domain::Binary {
        if k != 2 {
            bail!("--algo {algorithm} needs a binary problem; `{}` has {k} categories (use ingo-categorical)", p.name());
        }
    } else {
        params.entry("categories").or_insert(k.into());
    }
    Ok(())
}

fn new_run(args: &OptimizeArgs) -> Result<(RunSpec, Algorithm)> {
    let (Some(algorithm), Some(problem), Some(dim)) = (&args.algo, &args.problem, args.dim) else {
        bail!("--algo, --problem and --dim are required (unless --resume)");
    };
    if dim == 0 {
        bail!("--dim 0: the dimension must be >= 1");
    }
    let seed = args.seed.unwrap_or(0);
    let mut spec = RunSpec {
        algorithm: algorithm.clone(),
        problem: problem.clone(),
        dim,
        seed,
        problem_seed: args.problem_seed.unwrap_or(0),
        rotate: args.rotate,
        shift: args.shift,
        bounds: args.bounds.unwrap_or(BoundsMode::Auto),
        x0: Vec::new(),
        sigma0: 0.0,
        params: parse_params(&args.params)?,
        stop: StopRules::default(),
        parallel: !args.sequential,
        checkpoint_every: args.checkpoint_every.unwrap_or(50),
    };
    let p = build_problem(&spec)?;
    discrete_setup(algorithm, p.as_ref(), &mut spec.params)?;
    if args.on_nonfinite == Some(NonFiniteArg::TreatAsInf) {
        spec.params.insert("on_nonfinite".into(), "treat-as-inf".into());
    }
    spec.x0 = match &args.x0 {
        Some(x) if x.len() != dim => bail!("--x0 has {} values, expected --dim {dim}", x.len()),
        Some(x) => x.clone(),
        None => p.init_region().sample_uniform(&mut rng_from_seed(derive_seed(seed, 1))),
    };
    spec.sigma0 = args.sigma0.unwrap_or_else(|| p.domain().map_or(0.5, |b| 0.3 * b.max_width()));
    spec.stop = stop_rules(args, dim, p.minimum(), None);
    let start = StartSpec { x0: spec.x0.clone(), sigma0: spec.sigma0, seed: spec.seed, params: spec.params.clone() };
    let alg = match args.restarts {
        None | Some(RestartCount::Count(0)) => gradfree_es::build(algorithm, &start)?,
        Some(k) => {
            let params = IpopParams {
                max_restarts: match k {
                    RestartCount::Count(k) => Some(k),
                    RestartCount::Max => None,
                },
                restart_mean: match args.restart_from.unwrap_or(RestartFrom::X0) {
                    RestartFrom::X0 => RestartMean::Initial,
                    RestartFrom::Uniform => RestartMean::Uniform(p.init_region()),
                },
                ..IpopParams::default()
            };
            Algorithm::Ipop(Box::new(Ipop::new(algorithm, start, params)?))
        }
    };
    Ok((spec, alg))
}

/// The checkpoint's run specification must describe its optimizer: same algorithm, dimension and
/// a start that could have produced it.
fn check_resume_spec(path: &std::path::Path, spec: &RunSpec, alg: &Algorithm) -> Result<()> {
    let name = match alg {
        Algorithm::Ipop(ipop) => ipop.current().name(),
        a => a.name(),
    };
    if name != spec.algorithm {
        bail!("{}: the metadata names algorithm `{}` but the saved state is of `{name}`", path.display(), spec.algorithm);
    }
    if alg.dim() != spec.dim || spec.x0.len() != spec.dim {
        bail!("{}: optimizer dimension {} and x0 length {} disagree with the run's {}", path.display(), alg.dim(), spec.x0.len(), spec.dim);
    }
    if !(spec.sigma0.is_finite() && spec.sigma0 > 0.0) || spec.x0.iter().any(|v| !v.is_finite()) {
        bail!("{}: the metadata's x0 or sigma0 is not finite", path.display());
    }
    spec.stop.validate().with_context(|| format!("{}: saved stop rules", path.display()))?;
    Ok(())
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
        differs("--algo", a.clone(), spec.algorithm.clone())?;
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
        differs("--bounds", format!("{b:?}").to_lowercase(), format!("{:?}", spec.bounds).to_lowercase())?;
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
    if args.restarts.is_some() || args.restart_from.is_some() {
        bail!("--restarts/--restart-from: the restart settings are part of the checkpoint: {fixed}");
    }
    Ok(())
}

/// The log and the checkpoint must be different files, and a checkpoint target must be a regular
/// file (or not exist yet): nothing is replaced that is not ours to replace.
fn check_outputs(log: Option<&std::path::Path>, checkpoint: Option<&std::path::Path>) -> Result<()> {
    if let Some(c) = checkpoint {
        gradfree_core::check_writable_target(c)?;
    }
    if let (Some(l), Some(c)) = (log, checkpoint)
        && same_file(l, c)
    {
        bail!("--log {} is also the checkpoint file; give them different paths", l.display());
    }
    Ok(())
}

/// Whether two paths name the same file (after resolving links, or lexically if one does not exist).
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    let abs = |p: &std::path::Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            let base = std::env::current_dir().unwrap_or_default();
            match (p.parent().and_then(|d| std::fs::canonicalize(if d.as_os_str().is_empty() { &base } else { d }).ok()), p.file_name()) {
                (Some(dir), Some(name)) => dir.join(name),
                _ => base.join(p),
            }
        })
    };
    abs(a) == abs(b)
}

pub fn run(args: &OptimizeArgs) -> Result<()> {
    let started = Instant::now();
    let (spec, alg, state) = match &args.resume {
        Some(path) => {
            let ck = load_checkpoint::<Algorithm>(path)?;
            let mut spec: RunSpec = serde_json::from_value(ck.meta)
                .with_context(|| format!("{}: checkpoint metadata is not a gradfree run", path.display()))?;
            check_resume_spec(path, &spec, &ck.optimizer)?;
            check_resume_flags(args, &spec)?;
            spec.stop = stop_rules(args, spec.dim, None, Some(spec.stop));
            spec.parallel = !args.sequential;
            if let Some(every) = args.checkpoint_every {
                spec.checkpoint_every = every;
            }
            (spec, ck.optimizer, Some(ck.driver))
        }
        None => {
            let (spec, alg) = new_run(args)?;
            (spec, alg, None)
        }
    };
    let resumed = state.is_some();
    let problem = build_problem(&spec)?;
    let opts = driver_options(&spec, problem.as_ref())?;
    // A resumed run keeps checkpointing to the file it came from unless --checkpoint says otherwise.
    let checkpoint_path = args.checkpoint.clone().or_else(|| args.resume.clone());
    check_outputs(args.log.as_deref(), checkpoint_path.as_deref())?;
    let mut driver = match state {
        Some(s) => Driver::resume(alg, opts, s)?,
        None => Driver::new(alg, opts)?,
    };
    if let Some(path) = &checkpoint_path {
        let policy = CheckpointPolicy { path: path.clone(), every: spec.checkpoint_every.max(1), meta: serde_json::to_value(&spec)? };
        driver = driver.with_checkpoints(policy)?;
    }

    let mut log = match &args.log {
        Some(p) if resumed => Some(JsonLinesLog::resume(p, driver.generations())?),
        Some(p) => Some(JsonLinesLog::create(p)?),
        None => None,
    };
    let mut progress = (!args.quiet && !args.json).then(|| Progress::new(spec.stop.max_evaluations, driver.evaluations()));
    let mut observers: Vec<&mut dyn Observer> = Vec::new();
    if let Some(l) = log.as_mut() {
        observers.push(l);
    }
    if let Some(p) = progress.as_mut() {
        observers.push(p);
    }
    let result = driver.run(&problem, &mut observers).with_context(|| format!("{} on {}", spec.algorithm, spec.problem))?;
    let stop_reason = result.stop_reason.map(|r| r.to_string()).unwrap_or_default();
    let restarts = match driver.optimizer() {
        Algorithm::Ipop(ipop) => ipop.restarts_done(),
        _ => 0,
    };
    if args.json {
        let out = Output {
            algorithm: &spec.algorithm,
            problem: &spec.problem,
            dim: spec.dim,
            seed: spec.seed,
            problem_seed: spec.problem_seed,
            best_f: result.best_f,
            best_x: &result.best_x,
            f_star: problem.minimum(),
            evaluations: result.evaluations,
            generations: result.generations,
            stop_reason,
            seconds: result.seconds,
            resumed,
            restarts,
        };
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = result.best_x.iter().take(6).map(|v| format!("{v:.6}")).collect();
        let more = if result.best_x.len() > 6 { format!(", ... ({} values)", result.best_x.len()) } else { String::new() };
        outln!("{} on {} (d = {}, seed {}):", spec.algorithm, spec.problem, spec.dim, spec.seed);
        outln!("  best f      {:.10e}{}", result.best_f, problem.minimum().map(|f| format!("   (f* = {f})")).unwrap_or_default());
        outln!("  best x      [{}{}]", shown.join(", "), more);
        outln!("  evaluations {}   generations {}", result.evaluations, result.generations);
        if restarts > 0 {
            outln!("  restarts    {restarts} (IPOP, population x2 each)");
        }
        outln!("  stopped     {}   after {:.3} s (this session {:.3} s)", stop_reason, result.seconds, started.elapsed().as_secs_f64());
        if let Some(p) = &checkpoint_path {
            outln!("  checkpoint  {}", p.display());
        }
    }
    Ok(())
}
