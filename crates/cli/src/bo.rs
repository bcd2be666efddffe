//! `gradfree bo`: batch Bayesian optimization of a benchmark problem on its box, with progress,
//! JSON-lines logs, checkpoints and resume (the ES driver, with [`gradfree_bo::BatchBo`] as the
//! optimizer). The run is [`BoRunSpec`]'s; its parameters and their ranges are the library's.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_bo::{BatchBo, BoParams, InnerOptions, KernelKind, Method, NoiseModel};
use gradfree_core::{AskTell, CheckpointPolicy, Driver, DriverOptions, NonFinitePolicy, Observer, Outputs, StopRules, run_with_outputs};
use gradfree_experiments::bo_run::{self, BoRunSpec};
use serde::Serialize;

use clap::Args;

use crate::shared_flags::{NonFiniteArg, RunFilesArgs, RunOutput};
use gradfree_experiments::progress::RunProgress;

/// `gradfree bo`. Defaults are the library's ([`gradfree_bo::BoParams`],
/// [`gradfree_experiments::bo_run`]), read from it, not written here.
#[derive(Args, Debug)]
#[command(
    mut_arg("log", |a| a.help("JSON-lines log of every round (`gradfree plot` draws it)")),
    mut_arg("checkpoint", |a| a.help("Checkpoint file, written atomically after every round")),
    mut_arg("resume", |a| a.help("Resume from a checkpoint: the run's definition (problem, dimension, method, batch, seeds, \
         model) comes from it and may not be given again; only --rounds (to go further), --log, --checkpoint and output \
         options apply"))
)]
pub struct BoArgs {
    /// Problem with a box (`gradfree list`), e.g. ackley, rosenbrock, levy, robot-push.
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    pub problem: Option<String>,
    /// Dimension.
    #[arg(long, default_value_t = bo_run::DEFAULT_DIM, conflicts_with = "resume")]
    pub dim: usize,
    /// Selection rule: bkop, ucb, gp-bucb, gp-ucb-pe, bull, ei.
    #[arg(long, default_value_t = BoParams::default().method.name().to_string(), conflicts_with = "resume")]
    pub method: String,
    /// Points per round (L).
    #[arg(long, default_value_t = BoParams::default().batch_size, conflicts_with = "resume")]
    pub batch: usize,
    /// Rounds after the initial design (each evaluates --batch points); a resumed run goes on to
    /// its saved number unless given.
    #[arg(long, value_name = "N", help = format!("Rounds after the initial design (each evaluates --batch points) [default: {}; a resumed run: its saved number]", bo_run::DEFAULT_ROUNDS))]
    pub rounds: Option<u64>,
    /// Initial lattice design size (default max(10, 3d + 2); bull: the whole budget minus one).
    #[arg(long, conflicts_with = "resume")]
    pub n_initial: Option<usize>,
    /// Kernel: matern52 or se.
    #[arg(long, default_value_t = BoParams::default().kernel.name().to_string(), conflicts_with = "resume")]
    pub kernel: String,
    /// Weight of the exploration term of bkop and ucb.
    #[arg(long, default_value_t = BoParams::default().weight, allow_negative_numbers = true, conflicts_with = "resume")]
    pub weight: f64,
    /// Fixed beta_t for gp-bucb and gp-ucb-pe (default 0.2 d ln(2t)).
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub beta: Option<f64>,
    /// Fixed noise variance of the GP in standardized units (e.g. 1e-6 for a deterministic
    /// objective); default: learned by maximum likelihood.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub noise: Option<f64>,
    /// CMA-ES starts of the acquisition maximization.
    #[arg(long, default_value_t = BoParams::default().inner.starts, conflicts_with = "resume")]
    pub acq_starts: usize,
    /// Acquisition evaluations per start and variable.
    #[arg(long, default_value_t = BoParams::default().inner.evals_per_dim, conflicts_with = "resume")]
    pub acq_evals: usize,
    /// At most this many acquisition evaluations per start (binds beyond 40 variables, e.g.
    /// BKOP's joint search over batch x dimension variables).
    #[arg(long, default_value_t = BoParams::default().inner.max_evals, conflicts_with = "resume")]
    pub acq_max_evals: usize,
    /// Seed of the method (design order, fits, acquisition search).
    #[arg(long, default_value_t = 0, conflicts_with = "resume")]
    pub seed: u64,
    /// Seed of the problem instance.
    #[arg(long, default_value_t = 0, conflicts_with = "resume")]
    pub problem_seed: u64,
    /// NaN/inf values: error, or treat-as-inf (a failed evaluation the model learns to avoid)
    /// [default: error].
    #[arg(long, value_enum, conflicts_with = "resume")]
    pub on_nonfinite: Option<NonFiniteArg>,
    /// Checkpoint and resume.
    #[command(flatten)]
    pub files: RunFilesArgs,
    /// Output.
    #[command(flatten)]
    pub output: RunOutput,
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
    let _files = a.files.run_files().claim()?;
    let (spec, bo, state, problem, log, run_id, _log_claim) = match &a.files.resume {
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
            let (log, log_claim) = crate::run_files::resumed_log(&saved, path, &a.files)?;
            (spec, ck.optimizer, Some(ck.driver), problem, log, saved.run_id, log_claim)
        }
        None => {
            let Some(name) = a.problem.as_deref() else { bail!("give --problem NAME (or --resume FILE)") };
            let (spec, bo, problem) =
                BoRunSpec::new(name, a.dim, a.problem_seed, a.seed, a.rounds.unwrap_or(bo_run::DEFAULT_ROUNDS), params(a)?)?;
            (spec, bo, None, problem, a.files.log.clone(), gradfree_core::observer::new_run_id(), Default::default())
        }
    };
    let resumed = state.is_some();
    let total = spec.total_evaluations(&bo);
    let opts = DriverOptions::new(StopRules::max_evaluations(total));
    let driver = match state {
        Some(s) => Driver::resume(bo, opts, s)?,
        None => Driver::new(bo, opts)?,
    };
    let checkpoint_path = a.files.checkpoint_path();
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
