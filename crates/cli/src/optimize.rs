//! `gradfree optimize`: one run of an algorithm on a benchmark problem, with logs, checkpoints
//! and resume.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_core::{
    AskTell, BoundaryRepair, BoundsHandling, Driver, DriverOptions, JsonLinesLog, Observer, StopRules, derive_seed, load_checkpoint,
    rng_from_seed, save_checkpoint,
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
    let discrete = gradfree_es::list().iter().any(|a| a.name == spec.algorithm && a.discrete);
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
    let Some(spec) = gradfree_es::list().iter().find(|s| s.name == algorithm) else {
        return Ok(());
    };
    if !spec.discrete {
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
    if algorithm == "ingo-bernoulli" {
        if k != 2 {
            bail!("--algo ingo-bernoulli needs a binary problem; `{}` has {k} categories (use ingo-categorical)", p.name());
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
    let mut spec = RunSpec {
        algorithm: algorithm.clone(),
        problem: problem.clone(),
        dim,
        seed: args.seed,
        problem_seed: args.problem_seed,
        rotate: args.rotate,
        shift: args.shift,
        bounds: args.bounds,
        x0: Vec::new(),
        sigma0: 0.0,
        params: parse_params(&args.params)?,
        stop: StopRules::default(),
        parallel: !args.sequential,
    };
    let p = build_problem(&spec)?;
    discrete_setup(algorithm, p.as_ref(), &mut spec.params)?;
    if args.on_nonfinite == NonFiniteArg::TreatAsInf {
        spec.params.insert("on_nonfinite".into(), "treat-as-inf".into());
    }
    spec.x0 = match &args.x0 {
        Some(x) if x.len() != dim => bail!("--x0 has {} values, expected --dim {dim}", x.len()),
        Some(x) => x.clone(),
        None => p.init_region().sample_uniform(&mut rng_from_seed(derive_seed(args.seed, 1))),
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
                restart_mean: match args.restart_from {
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

pub fn run(args: &OptimizeArgs) -> Result<()> {
    let started = Instant::now();
    let (spec, alg, state) = match &args.resume {
        Some(path) => {
            let ck = load_checkpoint::<Algorithm>(path)?;
            let mut spec: RunSpec = serde_json::from_value(ck.meta)
                .with_context(|| format!("{}: checkpoint metadata is not a gradfree run", path.display()))?;
            for (flag, given, saved) in [("--algo", &args.algo, &spec.algorithm), ("--problem", &args.problem, &spec.problem)] {
                if let Some(g) = given
                    && g != saved
                {
                    bail!("{flag} {g} disagrees with the checkpoint ({saved})");
                }
            }
            if let Some(d) = args.dim
                && d != spec.dim
            {
                bail!("--dim {d} disagrees with the checkpoint ({})", spec.dim);
            }
            spec.stop = stop_rules(args, spec.dim, None, Some(spec.stop));
            if ck.optimizer.dim() != spec.dim {
                bail!("{}: optimizer dimension {} disagrees with the run's {}", path.display(), ck.optimizer.dim(), spec.dim);
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
    let mut driver = match state {
        Some(s) => Driver::resume(alg, opts, s)?,
        None => Driver::new(alg, opts)?,
    };

    let mut log = match &args.log {
        Some(p) if resumed => Some(JsonLinesLog::append(p)?),
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
    // A resumed run keeps checkpointing to the file it came from unless --checkpoint says otherwise.
    let checkpoint_path = args.checkpoint.clone().or_else(|| args.resume.clone());
    let meta = serde_json::to_value(&spec)?;
    let save = |d: &Driver<Algorithm>| -> Result<()> {
        if let Some(p) = &checkpoint_path {
            save_checkpoint(p, &meta, d.optimizer(), &d.state())?;
        }
        Ok(())
    };

    let info = driver.info();
    for o in observers.iter_mut() {
        o.on_start(&info)?;
    }
    let every = args.checkpoint_every.max(1);
    loop {
        let stop = driver.step(&problem, &mut observers).with_context(|| format!("{} on {}", spec.algorithm, spec.problem))?;
        if stop.is_some() {
            break;
        }
        if driver.generations() % every == 0 {
            save(&driver)?;
        }
    }
    save(&driver)?;
    let result = driver.result();
    for o in observers.iter_mut() {
        o.on_finish(&result)?;
    }
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
        println!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = result.best_x.iter().take(6).map(|v| format!("{v:.6}")).collect();
        let more = if result.best_x.len() > 6 { format!(", ... ({} values)", result.best_x.len()) } else { String::new() };
        println!("{} on {} (d = {}, seed {}):", spec.algorithm, spec.problem, spec.dim, spec.seed);
        println!("  best f      {:.10e}{}", result.best_f, problem.minimum().map(|f| format!("   (f* = {f})")).unwrap_or_default());
        println!("  best x      [{}{}]", shown.join(", "), more);
        println!("  evaluations {}   generations {}", result.evaluations, result.generations);
        if restarts > 0 {
            println!("  restarts    {restarts} (IPOP, population x2 each)");
        }
        println!("  stopped     {}   after {:.3} s (this session {:.3} s)", stop_reason, result.seconds, started.elapsed().as_secs_f64());
        if let Some(p) = &checkpoint_path {
            println!("  checkpoint  {}", p.display());
        }
    }
    Ok(())
}
