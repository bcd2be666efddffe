//! `gradfree bo`: batch Bayesian optimization of a benchmark problem on its box, with progress,
//! JSON-lines logs, checkpoints and resume (the ES driver, with [`gradfree_bo::BatchBo`] as the
//! optimizer).

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_bo::{BatchBo, BoParams, InnerOptions, KernelKind, Method, NoiseModel, Space};
use gradfree_core::{
    AskTell, CheckpointPolicy, Driver, DriverOptions, JsonLinesLog, NonFinitePolicy, Observer, StopRules, load_checkpoint,
};
use gradfree_problems::Problem;
use serde::{Deserialize, Serialize};

use crate::cli::{BoArgs, NonFiniteArg};
use crate::progress::Progress;

/// What a checkpoint stores besides the optimizer: the run's definition.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct BoSpec {
    problem: String,
    dim: usize,
    problem_seed: u64,
    seed: u64,
    rounds: u64,
    batch: usize,
    n_initial: usize,
}

#[derive(Serialize)]
struct Output<'a> {
    method: &'a str,
    problem: &'a str,
    dim: usize,
    seed: u64,
    batch: usize,
    n_initial: usize,
    best_f: f64,
    best_x: &'a [f64],
    f_star: Option<f64>,
    simple_regret: Option<f64>,
    evaluations: u64,
    rounds: u64,
    seconds: f64,
    resumed: bool,
}

fn new_run(a: &BoArgs) -> Result<(BoSpec, BatchBo, Box<dyn Problem>)> {
    let Some(name) = a.problem.as_deref() else { bail!("give --problem NAME (or --resume FILE)") };
    // The library checks these too; here the message names the flag.
    if !(1..=1000).contains(&a.batch) {
        bail!("invalid --batch {}: expected an integer in 1..=1000", a.batch);
    }
    if !(1..=1024).contains(&a.acq_starts) {
        bail!("invalid --acq-starts {}: expected an integer in 1..=1024", a.acq_starts);
    }
    if !(1..=100_000).contains(&a.acq_evals) {
        bail!("invalid --acq-evals {}: expected an integer in 1..=100000", a.acq_evals);
    }
    if let Some(v) = a.noise
        && !(v.is_finite() && v >= 0.0)
    {
        bail!("invalid --noise {v}: expected a finite variance >= 0 (standardized units)");
    }
    let method = Method::parse(&a.method)?;
    let Some(kernel) = KernelKind::parse(&a.kernel) else { bail!("invalid --kernel {}: expected matern52 or se", a.kernel) };
    let n0 = a.n_initial.unwrap_or_else(|| gradfree_bo::default_n_initial(a.dim)) as u128;
    let total = n0 + a.rounds as u128 * a.batch as u128;
    if total > gradfree_bo::gp::fit::MAX_OBSERVATIONS as u128 {
        bail!(
            "invalid --rounds {} with --batch {}: {total} evaluations; at most {} (an exact GP costs O(n^3) per round)",
            a.rounds,
            a.batch,
            gradfree_bo::gp::fit::MAX_OBSERVATIONS
        );
    }
    let problem = gradfree_problems::build(name, a.dim, a.problem_seed)?;
    let Some(dom) = problem.domain() else {
        bail!("problem {name} has no box; Bayesian optimization needs one (thesis Table 4.4 problems have one)")
    };
    let space = Space::continuous(dom.lower().to_vec(), dom.upper().to_vec())?;
    let budget = match method {
        Method::Bull => Some(total as usize),
        _ => None,
    };
    let params = BoParams {
        method,
        batch_size: a.batch,
        n_initial: a.n_initial,
        kernel,
        weight: a.weight,
        beta: a.beta,
        noise: a.noise.map_or(NoiseModel::default(), NoiseModel::Fixed),
        inner: InnerOptions { starts: a.acq_starts, evals_per_dim: a.acq_evals, ..InnerOptions::default() },
        on_nonfinite: match a.on_nonfinite {
            NonFiniteArg::Error => NonFinitePolicy::Error,
            NonFiniteArg::TreatAsInf => NonFinitePolicy::TreatAsInf,
        },
        budget,
        ..BoParams::default()
    };
    let n_initial = params.check(a.dim)?;
    let bo = BatchBo::new(space, params, a.seed)?;
    let spec = BoSpec {
        problem: name.to_string(),
        dim: a.dim,
        problem_seed: a.problem_seed,
        seed: a.seed,
        rounds: a.rounds,
        batch: a.batch,
        n_initial,
    };
    Ok((spec, bo, problem))
}

/// Runs `gradfree bo`.
pub fn run(a: &BoArgs) -> Result<()> {
    let started = Instant::now();
    let (spec, bo, state, problem) = match &a.resume {
        Some(path) => {
            let ck = load_checkpoint::<BatchBo>(path)?;
            let mut spec: BoSpec = serde_json::from_value(ck.meta)
                .with_context(|| format!("{}: checkpoint metadata is not a gradfree bo run", path.display()))?;
            spec.rounds = spec.rounds.max(a.rounds);
            let problem = gradfree_problems::build(&spec.problem, spec.dim, spec.problem_seed)?;
            (spec, ck.optimizer, Some(ck.driver), problem)
        }
        None => {
            let (spec, bo, problem) = new_run(a)?;
            (spec, bo, None, problem)
        }
    };
    let resumed = state.is_some();
    // Bull's design is the whole budget but the last point, so it ends after its design plus one.
    let total = if bo.params().method == Method::Bull {
        bo.params().budget.unwrap_or(spec.n_initial + 1) as u64
    } else {
        spec.n_initial as u64 + spec.rounds * spec.batch as u64
    };
    let opts = DriverOptions::new(StopRules::max_evaluations(total));
    let checkpoint_path = a.checkpoint.clone().or_else(|| a.resume.clone());
    let mut driver = match state {
        Some(s) => Driver::resume(bo, opts, s)?,
        None => Driver::new(bo, opts)?,
    };
    if let Some(path) = &checkpoint_path {
        let policy = CheckpointPolicy { path: path.clone(), every: Some(1), seconds: None, meta: serde_json::to_value(&spec)? };
        driver = driver.with_checkpoints(policy)?;
    }
    let mut log = match &a.log {
        Some(p) if resumed => Some(JsonLinesLog::resume(p, driver.generations())?),
        Some(p) => Some(JsonLinesLog::create(p)?),
        None => None,
    };
    let mut progress = (!a.quiet && !a.json).then(|| Progress::new(Some(total), driver.evaluations()));
    let mut observers: Vec<&mut dyn Observer> = Vec::new();
    if let Some(l) = log.as_mut() {
        observers.push(l);
    }
    if let Some(p) = progress.as_mut() {
        observers.push(p);
    }
    let method = driver.optimizer().name();
    let result = driver.run(&problem, &mut observers).with_context(|| format!("{method} on {}", spec.problem))?;
    let f_star = problem.minimum();
    let regret = f_star.map(|f| result.best_f - f);
    let rounds = result.generations.saturating_sub(1);
    if a.json {
        let out = Output {
            method,
            problem: &spec.problem,
            dim: spec.dim,
            seed: spec.seed,
            batch: spec.batch,
            n_initial: spec.n_initial,
            best_f: result.best_f,
            best_x: &result.best_x,
            f_star,
            simple_regret: regret,
            evaluations: result.evaluations,
            rounds,
            seconds: result.seconds,
            resumed,
        };
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = result.best_x.iter().take(6).map(|v| format!("{v:.6}")).collect();
        outln!("{method} on {} (d = {}, batch {}, seed {}):", spec.problem, spec.dim, spec.batch, spec.seed);
        outln!("  best f        {:.10e}{}", result.best_f, f_star.map(|f| format!("   (f* = {f})")).unwrap_or_default());
        if let Some(r) = regret {
            outln!("  simple regret {r:.6e}");
        }
        outln!("  best x        [{}{}]", shown.join(", "), if result.best_x.len() > 6 { ", ..." } else { "" });
        outln!("  evaluations   {} ({} initial lattice points + {} rounds)", result.evaluations, spec.n_initial, rounds);
        outln!("  time          {:.3} s (this session {:.3} s)", result.seconds, started.elapsed().as_secs_f64());
        if let Some(p) = &checkpoint_path {
            outln!("  checkpoint    {}", p.display());
        }
    }
    Ok(())
}
