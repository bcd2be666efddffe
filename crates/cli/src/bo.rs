//! `gradfree bo`: batch Bayesian optimization of a benchmark problem on its box, with progress,
//! JSON-lines logs, checkpoints and resume (the ES driver, with [`gradfree_bo::BatchBo`] as the
//! optimizer). The run is [`BoRunSpec`]'s; its parameters and their ranges are the library's.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_bo::{BatchBo, BoParams, InnerOptions, KernelKind, Method, NoiseModel};
use gradfree_core::{AskTell, CheckpointPolicy, Driver, DriverOptions, NonFinitePolicy, Observer, Outputs, StopRules, run_with_outputs};
use gradfree_experiments::bo_run::{self, BoRunSpec};
use serde::Serialize;

use crate::cli::{BoArgs, NonFiniteArg};
use gradfree_experiments::progress::RunProgress;

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

/// The parameters the flags give; everything else is the library's default.
pub fn params(a: &BoArgs) -> Result<BoParams> {
    let d = BoParams::default();
    Ok(BoParams {
        method: Method::parse(&a.method)?,
        batch_size: a.batch,
        n_initial: a.n_initial,
        kernel: KernelKind::parse_param(&a.kernel)?,
        weight: a.weight,
        beta: a.beta,
        noise: a.noise.map_or(d.noise, NoiseModel::Fixed),
        inner: InnerOptions { starts: a.acq_starts, evals_per_dim: a.acq_evals, max_evals: a.acq_max_evals, ..d.inner },
        on_nonfinite: match a.on_nonfinite {
            None => d.on_nonfinite,
            Some(NonFiniteArg::Error) => NonFinitePolicy::Error,
            Some(NonFiniteArg::TreatAsInf) => NonFinitePolicy::TreatAsInf,
        },
        ..d
    })
}

/// Runs `gradfree bo`.
pub fn run(a: &BoArgs) -> Result<()> {
    let started = Instant::now();
    // The run's files are its own until it ends (two runs started together cannot share one).
    let _files = crate::run_files::checkpointed(a.resume.as_deref(), a.checkpoint.as_deref(), a.log.as_deref(), a.overwrite).claim()?;
    let (spec, bo, state, problem, log, run_id, _log_claim) = match &a.resume {
        Some(path) => {
            let mut ck = crate::run_files::load::<BatchBo>(path, "bo")?;
            let saved = crate::run_files::take_log(&mut ck.meta);
            let mut spec: BoRunSpec = gradfree_core::checkpoint::from_json(ck.meta)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("{}: checkpoint metadata is not a gradfree bo run", path.display()))?;
            if let Some(rounds) = a.rounds {
                spec.resume_rounds(&ck.optimizer, ck.driver.generations.saturating_sub(1), rounds)?;
            }
            let problem = spec.build_problem()?;
            let (log, log_claim) = crate::run_files::resumed_log(&saved, a.log.as_deref(), path, a.checkpoint.as_deref(), a.overwrite)?;
            (spec, ck.optimizer, Some(ck.driver), problem, log, saved.run_id, log_claim)
        }
        None => {
            let Some(name) = a.problem.as_deref() else { bail!("give --problem NAME (or --resume FILE)") };
            let (spec, bo, problem) =
                BoRunSpec::new(name, a.dim, a.problem_seed, a.seed, a.rounds.unwrap_or(bo_run::DEFAULT_ROUNDS), params(a)?)?;
            (spec, bo, None, problem, a.log.clone(), gradfree_core::observer::new_run_id(), Default::default())
        }
    };
    let resumed = state.is_some();
    let total = spec.total_evaluations(&bo);
    let opts = DriverOptions::new(StopRules::max_evaluations(total));
    let driver = match state {
        Some(s) => Driver::resume(bo, opts, s)?,
        None => Driver::new(bo, opts)?,
    };
    let checkpoint_path = a.checkpoint.clone().or_else(|| a.resume.clone());
    let checkpoint = match &checkpoint_path {
        Some(path) => Some(CheckpointPolicy {
            path: path.clone(),
            every: Some(1),
            seconds: None,
            meta: crate::run_files::name_log(serde_json::to_value(&spec)?, log.as_deref(), &run_id),
        }),
        None => None,
    };
    let outputs = Outputs { log, checkpoint, run_id: Some(run_id) };
    let mut progress = a.output.bar().then(|| RunProgress::new(Some(total), driver.evaluations()));
    let mut observers: Vec<&mut dyn Observer> = progress.iter_mut().map(|p| p as &mut dyn Observer).collect();
    let method = driver.optimizer().name();
    let (result, _) =
        run_with_outputs(driver, &problem, outputs, resumed, &mut observers).with_context(|| format!("{method} on {}", spec.problem))?;
    let f_star = problem.minimum();
    let regret = f_star.map(|f| result.best_f - f);
    let rounds = result.generations.saturating_sub(1);
    // On a discrete problem, the point of its domain the best point reads as (bits, categories).
    let best_x = problem.decode(&result.best_x);
    if a.output.json {
        let out = Output {
            method,
            problem: &spec.problem,
            dim: spec.dim,
            seed: spec.seed,
            batch: spec.batch,
            n_initial: spec.n_initial,
            best_f: result.best_f,
            best_x: &best_x,
            f_star,
            simple_regret: regret,
            evaluations: result.evaluations,
            rounds,
            seconds: result.seconds,
            resumed,
        };
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        let shown: Vec<String> = best_x.iter().take(6).map(|v| format!("{v:.6}")).collect();
        outln!("{method} on {} (d = {}, batch {}, seed {}):", spec.problem, spec.dim, spec.batch, spec.seed);
        outln!("  best f        {:.10e}{}", result.best_f, f_star.map(|f| format!("   (f* = {f})")).unwrap_or_default());
        if let Some(r) = regret {
            outln!("  simple regret {r:.6e}");
        }
        outln!("  best x        [{}{}]", shown.join(", "), if best_x.len() > 6 { ", ..." } else { "" });
        outln!("  evaluations   {} ({} initial lattice points + {} rounds)", result.evaluations, spec.n_initial, rounds);
        outln!("  time          {:.3} s (this session {:.3} s)", result.seconds, started.elapsed().as_secs_f64());
        if let Some(p) = &checkpoint_path {
            outln!("  checkpoint    {}", p.display());
        }
    }
    Ok(())
}
