//! `gradfree infer`: confidence intervals for a model on a data file, in memory or streamed: by
//! default maximum likelihood with Wald intervals for the GLMs (one pass when streamed,
//! Schifano et al. 2016), or stochastic-gradient chains (Liang & Su 2019; random scaling, Lee et
//! al. 2022) with a progress bar, checkpoints between steps and resume. The run is [`InferRunSpec`]'s; defaults and ranges
//! are the library's ([`InferenceSpec`], [`ModelSpec`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use gradfree_core::{DriverState, Fingerprint, RecordFile, RecordsRef, Role, save_checkpoint};
use gradfree_data::matrix::{encode_csv, encode_npy};
use gradfree_experiments::infer_run::InferRunSpec;
use gradfree_experiments::progress::bar;
use gradfree_inference::keywords::keywords;
use gradfree_inference::model::Designed;
use gradfree_inference::segments::run_in_segments;
use gradfree_inference::summary::summary;
use gradfree_inference::{CovType, Fit, InferenceError, InferenceSpec, Method, ModelSpec, Runner, RunnerState, run_stream};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// `gradfree infer`. Defaults are the library's ([`InferenceSpec`], [`ModelSpec`]), read from
/// it, not written here.
#[derive(Args, Debug)]
#[command(
    mut_arg("checkpoint", |a| a.help("Checkpoint file, written atomically every --checkpoint-seconds (or --checkpoint-every \
         steps), at the end and when the run is stopped (Ctrl-C, SIGTERM); the chains' recorded steps go to an append-only \
         file beside it (`FILE.records-ID`), so a checkpoint costs what the chains' state costs")),
    mut_arg("resume", |a| a.help("Resume from a checkpoint: the run (model, data, method and its settings) comes from it")),
    mut_arg("checkpoint_every", |a| a.help("Steps between checkpoints [default: by time, --checkpoint-seconds]")),
    mut_arg("checkpoint_seconds", |a| a.help("Seconds between checkpoints [default: 10 unless --checkpoint-every is given; a \
         resumed run keeps the cadence it was started with]"))
)]
pub struct InferArgs {
    /// Model: linear, logistic, poisson (sec. 4.2), mixture (1-D Gaussian mixture, unknown means)
    /// or relu (two-layer ReLU network, sec. 7).
    #[arg(long, default_value_t = ModelSpec::default().model, conflicts_with = "resume")]
    pub model: String,
    /// Data: a .csv file (one row per line, optional header of names) or a .npy file.
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    pub data: Option<PathBuf>,
    /// The response column: a header name, a column number, or -1 for the last (not for mixture).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "resume")]
    pub target: Option<String>,
    /// GLMs: add a constant column `const` (as statsmodels' add_constant).
    #[arg(long, conflicts_with = "resume")]
    pub intercept: bool,
    /// Method: mle (maximum likelihood with Wald intervals; one pass when streamed), or a chain
    /// process: random-scaling (averaged SGD, Lee et al. 2022), masgrad (eq. 10, symmetric inverse
    /// root), masgrad-rank-one (Prop. 6.2), sgd, diff-masgrad (eq. 11), diff-sgd (eq. 6), madprox
    /// (eq. 19-20, l1-regularized GLMs) [default: mle for linear, logistic and poisson;
    /// random-scaling for mixture and relu].
    #[arg(long, conflicts_with = "resume")]
    pub method: Option<String>,
    /// mle: the covariance, nonrobust (the inverse Fisher information, statsmodels' default),
    /// HC0 (White's sandwich, valid when the model is misspecified), or HC1, HC2, HC3 (its
    /// small-sample corrections for the linear model; HC0 for logistic and Poisson, as
    /// statsmodels).
    #[arg(long, conflicts_with = "resume")]
    pub cov_type: Option<String>,
    /// mle: Student's t (on N - rank degrees of freedom) for the statistics and intervals
    /// [default: t for the linear model's nonrobust covariance, the normal otherwise, as
    /// statsmodels].
    #[arg(long, conflicts_with = "resume")]
    pub use_t: Option<bool>,
    /// Mini-batch size n [default: 25; random scaling in memory: rows / 400 between 10 and 25].
    #[arg(long, conflicts_with = "resume")]
    pub batch: Option<usize>,
    /// Step size eta (inverse temperature beta = 2n/eta) [default: 0.2]; random scaling: eta_0 in
    /// eta_0 t^-decay [default: 1 / the mean loss's largest curvature where each pass starts].
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub step: Option<f64>,
    /// random-scaling: passes over the data, each from the average of the one before; the
    /// interval is the last one's.
    #[arg(long, default_value_t = InferenceSpec::default().passes, conflicts_with = "resume")]
    pub passes: usize,
    /// Independent chains K.
    #[arg(long, default_value_t = InferenceSpec::default().chains, conflicts_with = "resume")]
    pub chains: usize,
    /// Steps per chain T [default: 200; streamed: until the file ends]. With --resume: go on to
    /// this many steps.
    #[arg(long)]
    pub steps: Option<usize>,
    /// Seed (chain k draws from a seed derived from it and k).
    #[arg(long, default_value_t = InferenceSpec::default().seed, conflicts_with = "resume")]
    pub seed: u64,
    /// Coverage of the intervals.
    #[arg(long, default_value_t = InferenceSpec::default().level, allow_negative_numbers = true)]
    pub level: f64,
    /// Intervals from the chains: quantile (empirical) or normal (mean +- z sd).
    #[arg(long, default_value = "quantile", conflicts_with = "resume")]
    pub interval: String,
    /// Mini-batches: with-replacement (the bootstrap of sec. 7) or without-replacement.
    #[arg(long, default_value = "with-replacement", conflicts_with = "resume")]
    pub sampling: String,
    /// MasGrad's V: population (all rows, App. C), independent (from a second batch: no bias from
    /// correlating with the gradient) or batch (plug-in from the step's batch, sec. 6.1: its
    /// chains settle away from the optimum) [default: population in memory, independent
    /// streamed].
    #[arg(long, conflicts_with = "resume")]
    pub moments: Option<String>,
    /// MadProx: the l1 weight lambda.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub lambda: Option<f64>,
    /// MadProx: the metric, diagonal (soft-thresholding) or full.
    #[arg(long, conflicts_with = "resume")]
    pub prox_metric: Option<String>,
    /// Random scaling: the step's decay a in eta t^-a, in (1/2, 1).
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub decay: Option<f64>,
    /// Start of every chain, comma-separated (default the origin).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, conflicts_with = "resume")]
    pub theta0: Option<Vec<f64>>,
    /// Mixture: components.
    #[arg(long, conflicts_with = "resume")]
    pub components: Option<usize>,
    /// Mixture: the components' known standard deviation.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub sigma: Option<f64>,
    /// ReLU network: hidden units.
    #[arg(long, conflicts_with = "resume")]
    pub hidden: Option<usize>,
    /// Stream the .csv file a block at a time (memory flat in its rows): every step reads
    /// chains x batch fresh rows, each used once.
    #[arg(long, conflicts_with_all = ["resume", "checkpoint"])]
    pub stream: bool,
    /// Write the chains (one row per chain and recorded step: chain, step, then the parameters)
    /// to a .csv or .npy file.
    #[arg(long)]
    pub chains_out: Option<PathBuf>,
    /// Checkpoint and resume.
    #[command(flatten)]
    pub files: crate::shared_flags::CheckpointArgs,
    /// How often to checkpoint.
    #[command(flatten)]
    pub cadence: crate::shared_flags::CadenceArgs,
    /// Output.
    #[command(flatten)]
    pub output: crate::shared_flags::RunOutput,
}

/// A library enum from its name, with the accepted names (the spec's,
/// [`gradfree_inference::keywords`]) in the error.
fn named<T: DeserializeOwned>(field: &'static str, value: &str) -> Result<T, InferenceError> {
    serde_json::from_value(serde_json::Value::String(value.into())).map_err(|_| {
        let accepted = keywords().into_iter().find(|k| k.name == field).map(|k| k.values.join(", ")).unwrap_or_default();
        InferenceError::invalid(field, value, accepted)
    })
}

/// The method the flags name, or the model's default ([`Method::default_for`]).
pub fn method_name(a: &InferArgs) -> &str {
    a.method.as_deref().unwrap_or_else(|| Method::default_for(&a.model).name())
}

/// The run the flags give; everything left out is the library's default.
pub fn run_spec(a: &InferArgs) -> Result<InferRunSpec> {
    let d = InferenceSpec::default();
    let spec = InferenceSpec {
        method: Method::parse(method_name(a))?,
        cov_type: match &a.cov_type {
            Some(c) => named("cov_type", c)?,
            None => d.cov_type,
        },
        use_t: a.use_t,
        batch_size: a.batch,
        step: a.step,
        passes: a.passes,
        chains: a.chains,
        steps: a.steps.unwrap_or(d.steps),
        seed: a.seed,
        sampling: named("sampling", &a.sampling)?,
        moments: match &a.moments {
            Some(m) => Some(named("moments", m)?),
            None => d.moments,
        },
        level: a.level,
        interval: named("interval", &a.interval)?,
        lambda: a.lambda.unwrap_or(d.lambda),
        prox_metric: match &a.prox_metric {
            Some(m) => named("prox_metric", m)?,
            None => d.prox_metric,
        },
        decay: a.decay.unwrap_or(d.decay),
        theta0: a.theta0.clone(),
        first_chain: d.first_chain,
    };
    if spec.cov_type == CovType::Cluster {
        return Err(InferenceError::invalid(
            "cov_type",
            "cluster",
            "nonrobust, HC0, HC1, HC2 or HC3 on the command line, which does not read the rows' groups (Python: fit(..., cov_type=\"cluster\", cov_kwds={\"groups\": labels}))",
        )
        .into());
    }
    let m = ModelSpec::default();
    let model = ModelSpec {
        model: a.model.clone(),
        intercept: a.intercept,
        components: a.components.unwrap_or(m.components),
        sigma: a.sigma.unwrap_or(m.sigma),
        hidden: a.hidden.unwrap_or(m.hidden),
    };
    let Some(data) = a.data.clone() else { bail!("give --data FILE (or --resume FILE)") };
    Ok(InferRunSpec { model, data, target: a.target.clone(), spec })
}

/// `--json`: what every method gives, and what only some do (`None` is left out): standard
/// errors, statistics, p-values and confidence intervals (maximum likelihood, random scaling);
/// the process's spread and band (the other chain methods); the likelihood (maximum likelihood).
#[derive(Serialize)]
struct Output<'a> {
    model: &'a str,
    method: &'a str,
    names: &'a [String],
    params: &'a [f64],
    level: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bse: Option<&'a [f64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tvalues: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pvalues: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    conf_int: Option<Vec<[f64; 2]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    process_sd: Option<&'a [f64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bands: Option<Vec<[f64; 2]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    glm: Option<&'a gradfree_inference::mle::GlmInfo>,
    cov_params: &'a [f64],
    spec: &'a InferenceSpec,
    ridged_steps: u64,
    streamed_rows: Option<u64>,
    warnings: Vec<&'a str>,
    seconds: f64,
    resumed: bool,
}

/// How often a run checkpoints: every `every` steps and/or every `seconds`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cadence {
    /// Steps between checkpoints.
    pub every: Option<usize>,
    /// Seconds between checkpoints.
    pub seconds: Option<f64>,
}

/// The default: every 10 seconds (a checkpoint every few steps would cost more than the steps).
const DEFAULT_CADENCE: Cadence = Cadence { every: None, seconds: Some(10.0) };

impl Cadence {
    fn of(a: &InferArgs) -> Result<Option<Cadence>, InferenceError> {
        let c = &a.cadence;
        if c.checkpoint_every == Some(0) {
            return Err(InferenceError::invalid("checkpoint_every", 0, ">= 1"));
        }
        if let Some(s) = c.checkpoint_seconds
            && !(s.is_finite() && s > 0.0)
        {
            return Err(InferenceError::invalid("checkpoint_seconds", s, "finite and > 0"));
        }
        let every = c.checkpoint_every.map(|e| usize::try_from(e).unwrap_or(usize::MAX));
        Ok(c.given().then_some(Cadence { every, seconds: c.checkpoint_seconds }))
    }
}

/// What an infer checkpoint stores besides the chains' state: the run, its cadence, the
/// fingerprint of its data and where its recorded steps are.
#[derive(Serialize, Deserialize)]
struct Meta {
    run: InferRunSpec,
    cadence: Cadence,
    data: Fingerprint,
    records: RecordsRef,
}

/// The checkpoint's driver record: steps as generations, chain-steps as evaluations.
fn driver_state(runner: &Runner, seconds: f64) -> DriverState {
    let steps = runner.steps_done() as u64;
    let mut d = DriverState::fresh();
    d.evaluations = steps * runner.spec.chains as u64;
    d.generations = steps;
    d.seconds = seconds;
    d
}

/// The files of a run, checked together before anything is written ([`gradfree_core::RunFiles`]).
fn check_files(a: &InferArgs, data: &std::path::Path) -> Result<()> {
    a.files.files(None).add(Role::Input, "--data", Some(data)).add(Role::Output, "--chains-out", a.chains_out.as_deref()).check()?;
    Ok(())
}

/// The response's name for the summary: the `--target` column's name as given (a number names
/// no column: `y`).
fn response_name(target: &str, _names: &[String]) -> String {
    if target.parse::<i64>().is_ok() { "y".to_string() } else { target.to_string() }
}

/// A run in memory with its checkpoints: started anew or resumed. Maximum likelihood runs no
/// chains and has no checkpoints.
fn run_in_memory(a: &InferArgs, started: Instant) -> Result<(InferRunSpec, Fit, Vec<String>, bool)> {
    let show = a.output.bar();
    if a.files.resume.is_none() {
        let run = run_spec(a)?;
        if run.spec.method == Method::Mle {
            check_files(a, &run.data)?;
            let loaded = run.load()?;
            let fit = gradfree_inference::run(loaded.model.as_ref(), &loaded.data, &run.spec, None)?;
            return Ok((run, fit, loaded.names, false));
        }
    }
    let cadence = Cadence::of(a)?;
    let (mut run, saved) = match &a.files.resume {
        Some(path) => {
            let ck = crate::run_files::load::<RunnerState>(path, "infer")?;
            let meta: Meta = gradfree_core::checkpoint::from_json(ck.meta).map_err(anyhow::Error::msg).with_context(|| {
                format!("{}: not a checkpoint of gradfree infer (or one written by an older version: start the run again)", path.display())
            })?;
            if meta.run.spec != ck.optimizer.spec {
                bail!("{}: the checkpoint's run and its chains' state disagree (the file was edited)", path.display());
            }
            (meta.run.clone(), Some((ck.optimizer, meta, ck.driver.seconds)))
        }
        None => (run_spec(a)?, None),
    };
    check_files(a, &run.data)?;
    let loaded = run.load()?;
    let (model, data) = (loaded.model.as_ref(), &loaded.data);
    let checkpoint = a.files.checkpoint_path();
    let (mut runner, mut records, cadence, earlier) = match saved {
        Some((state, meta, seconds)) => {
            let path = a.files.resume.as_deref().expect("resumed");
            meta.data.check_same(&loaded.fingerprint, &run.data)?;
            let (records, bytes) = RecordFile::resume(path, &meta.records)?;
            let mut runner = Runner::from_state(state, &bytes)?;
            runner.check_against(model, data).context("resuming the saved run")?;
            if let Some(steps) = a.steps {
                if steps < runner.steps_done() {
                    return Err(InferenceError::invalid(
                        "steps",
                        steps,
                        format!(">= the {} steps the saved run has done", runner.steps_done()),
                    )
                    .into());
                }
                run.spec.steps = steps;
                runner.spec.steps = steps;
                run.spec.check(data.len(), model.dim(), model.size_param())?;
            }
            // Writing to another checkpoint: its records start anew, with every step so far.
            let same = checkpoint.as_deref().is_some_and(|c| gradfree_core::files::same_file(c, path));
            (runner, if same { Some(records) } else { None }, cadence.unwrap_or(meta.cadence), seconds)
        }
        None => {
            let runner = Runner::new(model, data, &run.spec)?;
            // The run as the runner holds it (a model's own start written in), so that the
            // checkpoint's run and its chains' state agree.
            run.spec = runner.spec.clone();
            (runner, None, cadence.unwrap_or(DEFAULT_CADENCE), 0.0)
        }
    };
    let resumed = a.files.resume.is_some();
    let (chains, steps) = (run.spec.chains as u64, run.spec.steps);
    let pb = bar(Some(chains * steps as u64), "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} chain-steps  {eta}", show);
    pb.set_position(chains * runner.steps_done() as u64);
    let progress = |s: u64| pb.inc(s);
    if checkpoint.is_some() {
        crate::signals::cooperate();
    }
    // Where the records file stands: the steps it holds, and when the last checkpoint was saved.
    let mut saved_at = (if records.is_some() { runner.steps_done() } else { 0 }, Instant::now());
    let mut bytes = Vec::new();
    let mut save = |runner: &Runner, records: &mut Option<RecordFile>, saved_at: &mut (usize, Instant)| -> Result<()> {
        let Some(path) = &checkpoint else { return Ok(()) };
        let r = match records {
            Some(r) => r,
            None => records.insert(RecordFile::create(path)?),
        };
        bytes.clear();
        runner.records(saved_at.0, runner.steps_done(), &mut bytes);
        r.append(&bytes)?;
        let meta = Meta { run: run.clone(), cadence, data: loaded.fingerprint.clone(), records: r.reference() };
        let seconds = earlier + started.elapsed().as_secs_f64();
        save_checkpoint(path, &serde_json::to_value(&meta)?, &runner.state(), &driver_state(runner, seconds))?;
        r.committed();
        RecordFile::remove_others(path, &r.reference().file);
        *saved_at = (runner.steps_done(), Instant::now());
        Ok(())
    };
    // Segments end at every checkpoint the step cadence asks for ([`run_in_segments`]).
    let last_save_step = std::cell::Cell::new(runner.steps_done());
    let fit = run_in_segments(
        &mut runner,
        model,
        data,
        Some(&progress),
        |r| cadence.every.map_or(usize::MAX, |every| every - (r.steps_done() - last_save_step.get()) % every),
        |r| -> Result<()> {
            if crate::signals::requested() && checkpoint.is_some() {
                pb.finish_and_clear();
                save(r, &mut records, &mut saved_at)?;
                return Err(crate::signals::Stopped(checkpoint.as_ref().map(|p| p.display().to_string()).unwrap_or_default()).into());
            }
            let due = cadence.every.is_some_and(|e| r.steps_done() - last_save_step.get() >= e)
                || cadence.seconds.is_some_and(|s| saved_at.1.elapsed().as_secs_f64() >= s)
                || r.steps_done() == steps;
            if due {
                save(r, &mut records, &mut saved_at)?;
                last_save_step.set(r.steps_done());
            }
            Ok(())
        },
    )?;
    pb.finish_and_clear();
    Ok((run, fit, loaded.names, resumed))
}

/// Runs `gradfree infer`.
pub fn run(a: &InferArgs) -> Result<()> {
    let started = Instant::now();
    let show = a.output.bar();
    // The files the run writes are its own until it ends (two runs started together cannot
    // share one); all of them are checked again with the data once it is known.
    let _files = a
        .files
        .files(None)
        .add(Role::Input, "--data", a.data.as_deref())
        .add(Role::Output, "--chains-out", a.chains_out.as_deref())
        .claim()?;
    let (run, fit, names, resumed) = if a.stream {
        let run = run_spec(a)?;
        check_files(a, &run.data)?;
        let (model, mut stream, names) = run.open_stream()?;
        let mut source = Designed { source: &mut stream, spec: &run.model };
        let pb = bar(None, "{spinner} [{elapsed_precise}] {pos} rows streamed  {per_sec}", show);
        let progress = |rows: u64| pb.inc(rows);
        let fit = run_stream(model.as_ref(), &mut source, &run.spec, a.steps, Some(&progress)).context("streaming the data")?;
        pb.finish_and_clear();
        (run, fit, names, false)
    } else {
        run_in_memory(a, started)?
    };
    if let Some(path) = &a.chains_out {
        write_chains(path, &fit)?;
    }
    report(a, &run, &fit, &names, resumed, started.elapsed().as_secs_f64())
}

/// Writes the chains: one row per chain and record, `chain, step, params...`.
fn write_chains(path: &std::path::Path, fit: &Fit) -> Result<()> {
    let tr = &fit.trajectories;
    let cols = tr.p + 2;
    let mut values = Vec::with_capacity(tr.chains * (tr.steps + 1) * cols);
    for k in 0..tr.chains {
        for t in 0..=tr.steps {
            values.push(k as f64);
            values.push(tr.time(t) as f64);
            values.extend_from_slice(tr.at(k, t));
        }
    }
    let bytes = match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => encode_csv(cols, &values),
        Some("npy") => encode_npy(values.len() / cols, cols, &values),
        _ => bail!("--chains-out {}: use a .csv or .npy file name", path.display()),
    };
    crate::points_io::announce_write(path, bytes.len() as u128, true);
    gradfree_core::atomic_write(path, &bytes)?;
    Ok(())
}

fn report(a: &InferArgs, run: &InferRunSpec, fit: &Fit, names: &[String], resumed: bool, seconds: f64) -> Result<()> {
    let pairs = |(lo, hi): (Vec<f64>, Vec<f64>)| lo.iter().zip(&hi).map(|(l, h)| [*l, *h]).collect::<Vec<_>>();
    let process = fit.spec.method.is_process();
    let conf_int = if process { None } else { Some(pairs(fit.conf_int(a.level)?)) };
    let bands = if process { Some(pairs(fit.bands(a.level)?)) } else { None };
    for w in &fit.warnings {
        eprintln!("warning: {w}");
    }
    if a.output.json {
        let out = Output {
            model: &fit.model,
            method: fit.spec.method.name(),
            names,
            params: &fit.params,
            level: a.level,
            bse: fit.bse().ok(),
            tvalues: fit.tvalues().ok(),
            pvalues: fit.pvalues().ok(),
            conf_int,
            process_sd: fit.process_sd().ok(),
            bands,
            glm: fit.glm.as_ref(),
            cov_params: &fit.cov_params,
            spec: &fit.spec,
            ridged_steps: fit.ridged_steps,
            streamed_rows: fit.streamed_rows,
            warnings: fit.warnings.iter().map(|w| w.message.as_str()).collect(),
            seconds,
            resumed,
        };
        outln!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let response = run.target.as_deref().map_or("y".to_string(), |t| response_name(t, names));
    outln!("{}", summary(fit, names, &response, a.level).as_text().trim_end());
    outln!("Data: {}{}", run.data.display(), run.target.as_ref().map(|t| format!(", response `{t}`")).unwrap_or_default());
    outln!("Time: {seconds:.3} s{}", if resumed { " (this session, resumed)" } else { "" });
    Ok(())
}
