//! `gradfree train`: a classifier trained on labels corrupted by seeded noise, with the curriculum
//! losses of thesis ch. 8 or a baseline, a progress bar, a JSON-lines log of every epoch,
//! checkpoints between epochs and resume. The run is [`TrainRunSpec`]'s; defaults and ranges are
//! the library's.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use gradfree_core::{DriverState, Fingerprint, FingerprintBuilder, JsonLinesLog, save_checkpoint};
use gradfree_experiments::progress::bar;
use gradfree_experiments::train_run::TrainRunSpec;
use gradfree_robust::train::{EpochRecord, FrontSpec, NokPlug, Trainer, TrainerState};
use serde::Serialize;

use crate::shared_flags::{RunFilesArgs, RunOutput};

/// `gradfree train`. Defaults are [`TrainRunSpec`]'s.
#[derive(Args, Debug)]
#[command(
    mut_arg("log", |a| a.help("Write every epoch's metrics to this JSON-lines file")),
    mut_arg("checkpoint", |a| a.help("Save a checkpoint to this file after every epoch")),
    mut_arg("resume", |a| a.help("Resume the run saved in this checkpoint (and keep saving to it)"))
)]
pub struct TrainArgs {
    /// Data: fashion-mnist (Debian package dataset-fashion-mnist) or digits (shipped).
    #[arg(long, default_value_t = TrainRunSpec::default().data, conflicts_with = "resume")]
    pub data: String,
    /// Network: mlp (784-256-256-10) or cnn (two 3x3 conv + pool layers, dense 128).
    #[arg(long, default_value_t = TrainRunSpec::default().model, conflicts_with = "resume")]
    pub model: String,
    /// The MLP's hidden-layer widths, comma-separated [default: 256,256].
    #[arg(long, value_delimiter = ',', num_args = 1.., conflicts_with = "resume")]
    pub hidden: Option<Vec<usize>>,
    /// Loss: npcl (eq. 8.21, Algorithm 14), cl (eq. 8.9), ce, gce (q = 0.7), coteaching, hinge
    /// (soft multi-class hinge, app. 10.37) or hinge-hard.
    #[arg(long, default_value_t = TrainRunSpec::default().loss, conflicts_with = "resume")]
    pub loss: String,
    /// Label noise injected into the training labels: none, symmetric:RATE or pair:RATE.
    #[arg(long, default_value_t = TrainRunSpec::default().noise, conflicts_with = "resume")]
    pub noise: String,
    /// eps of npcl and coteaching [default: the injected rate].
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub noise_rate: Option<f64>,
    /// Epochs.
    #[arg(long, default_value_t = TrainRunSpec::default().epochs, conflicts_with = "resume")]
    pub epochs: usize,
    /// Mini-batch size.
    #[arg(long, default_value_t = TrainRunSpec::default().batch_size, conflicts_with = "resume")]
    pub batch_size: usize,
    /// npcl/cl: epochs on every sample before the selection starts.
    #[arg(long, default_value_t = TrainRunSpec::default().burn_in, conflicts_with = "resume")]
    pub burn_in: usize,
    /// Optimizer: adam (lr 1e-3) or sgd (lr 1e-2, momentum 0.9).
    #[arg(long, default_value_t = TrainRunSpec::default().optimizer, conflicts_with = "resume")]
    pub optimizer: String,
    /// Learning rate [default: the optimizer's].
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub lr: Option<f64>,
    /// Learning-rate plan: co-teaching (linear decay over the last 60% of the epochs) or constant.
    #[arg(long, default_value_t = TrainRunSpec::default().schedule, conflicts_with = "resume")]
    pub schedule: String,
    /// Seed of the noise, the initialization and the data order.
    #[arg(long, default_value_t = TrainRunSpec::default().seed, conflicts_with = "resume")]
    pub seed: u64,
    /// In front of the first learnable layer: none, mean or median (3x3 filters on the input), or
    /// nok (the neural optimization kernel block, thesis ch. 7; square images).
    #[arg(long, default_value = "none", conflicts_with = "resume")]
    pub block: String,
    /// A setting of the NOK block, KEY=VALUE (repeatable): at (input, conv1, both), patch,
    /// activation (l1, l0, relu), lambda (relative to sqrt(d)), width (N = width * d), layers,
    /// learn_rotation (true/false), structure (auto, ssf, subgroup, orthogonal).
    #[arg(long = "block-param", value_name = "KEY=VALUE", conflicts_with = "resume")]
    pub block_param: Vec<String>,
    /// Checkpoint and resume.
    #[command(flatten)]
    pub files: RunFilesArgs,
    /// Output.
    #[command(flatten)]
    pub output: RunOutput,
}

#[derive(Serialize)]
struct Start<'a> {
    run: &'a TrainRunSpec,
    transition: &'a [Vec<f64>],
    actual_noise_rate: f64,
}

#[derive(Serialize)]
struct EpochLine<'a> {
    generation: usize,
    #[serde(flatten)]
    record: &'a EpochRecord,
}

#[derive(Serialize)]
struct Output<'a> {
    run: &'a TrainRunSpec,
    transition: &'a [Vec<f64>],
    actual_noise_rate: f64,
    last_epoch_accuracy: Option<f64>,
    best_epoch_accuracy: Option<f64>,
    best_epoch: Option<usize>,
    history: &'a [EpochRecord],
    seconds: f64,
    resumed: bool,
}

/// What a train checkpoint stores besides the trainer's state: the run and the fingerprint of
/// the rows it trains on (features, noisy and clean labels), checked when it resumes.
#[derive(Serialize, serde::Deserialize)]
struct Meta {
    run: TrainRunSpec,
    data: Fingerprint,
}

/// The fingerprint of a run's training rows.
fn fingerprint(loaded: &gradfree_experiments::train_run::LoadedTrain) -> Fingerprint {
    let mut h = FingerprintBuilder::new();
    h.f32s(&loaded.x).u32s(&loaded.noisy.labels).u32s(&loaded.clean);
    h.finish(format!("{} rows x {} features", loaded.clean.len(), loaded.d))
}

fn driver_state(state: &TrainerState, seconds: f64) -> DriverState {
    let mut d = DriverState::fresh();
    d.generations = state.epoch as u64;
    d.evaluations = (state.epoch * state.n) as u64;
    d.seconds = seconds;
    d
}

/// The front of `--block` with the settings of `--block-param` (values read as JSON where they
/// parse, as strings otherwise; unknown keys are an error naming the accepted ones).
fn block(name: &str, params: &[String]) -> Result<Option<FrontSpec>> {
    let spec = match name {
        "none" => None,
        "mean" => Some(FrontSpec::Mean),
        "median" => Some(FrontSpec::Median),
        "nok" => {
            let mut map = serde_json::Map::new();
            for p in params {
                let (k, v) = p.split_once('=').with_context(|| format!("invalid --block-param {p:?}: expected KEY=VALUE"))?;
                let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
                if let Some(first) = map.insert(k.trim().to_string(), value.clone()) {
                    anyhow::bail!("--block-param {}: given twice ({first} and {value}); give each setting once", k.trim());
                }
            }
            let plug: NokPlug =
                serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| anyhow::anyhow!("invalid --block-param: {e}"))?;
            Some(FrontSpec::Nok(plug))
        }
        other => anyhow::bail!("invalid value {other:?} for --block: expected none, mean, median or nok"),
    };
    if !params.is_empty() && name != "nok" {
        anyhow::bail!("--block-param sets the NOK block's settings: use it with --block nok");
    }
    Ok(spec)
}

/// Runs `gradfree train`.
pub fn run(a: &TrainArgs) -> Result<()> {
    let started = Instant::now();
    // The run's files are its own until it ends (two runs started together cannot share one).
    let _files = a.files.run_files().claim()?;
    let (run, state, earlier, saved_data, log_path, run_id, _log_claim) = match &a.files.resume {
        Some(path) => {
            let mut ck = crate::run_files::load::<TrainerState>(path, "train")?;
            let saved = crate::run_files::take_log(&mut ck.meta);
            let meta: Meta = gradfree_core::checkpoint::from_json(ck.meta).map_err(anyhow::Error::msg).with_context(|| {
                format!("{}: not a checkpoint of gradfree train (or one written by an older version: start the run again)", path.display())
            })?;
            let (log, log_claim) = crate::run_files::resumed_log(&saved, path, &a.files)?;
            (meta.run, Some(ck.optimizer), ck.driver.seconds, Some(meta.data), log, saved.run_id, log_claim)
        }
        None => {
            let run = TrainRunSpec {
                data: a.data.clone(),
                model: a.model.clone(),
                hidden: a.hidden.clone(),
                loss: a.loss.clone(),
                noise: a.noise.clone(),
                noise_rate: a.noise_rate,
                epochs: a.epochs,
                batch_size: a.batch_size,
                burn_in: a.burn_in,
                optimizer: a.optimizer.clone(),
                lr: a.lr,
                schedule: a.schedule.clone(),
                seed: a.seed,
                block: block(&a.block, &a.block_param)?,
            };
            (run, None, 0.0, None, a.files.log.clone(), gradfree_core::observer::new_run_id(), Default::default())
        }
    };
    let spec = run.train_spec()?;
    let loaded = match run.load() {
        // A data set whose Debian package is missing: the message says how to install it and
        // that the shipped `digits` needs nothing; here, also how to ask for it.
        Err(e) if e.install_line().is_some() => anyhow::bail!("{e}: `--data digits`"),
        r => r?,
    };
    let data = loaded.train_set();
    let print = fingerprint(&loaded);
    if let Some(saved) = &saved_data {
        saved.check_same(&print, std::path::Path::new(&format!("the data set {}", run.data)))?;
    }
    let resumed = state.is_some();
    let mut trainer = match state {
        Some(s) => {
            if s.spec != spec || s.n != loaded.clean.len() {
                anyhow::bail!("the checkpoint's training state does not match its run");
            }
            Trainer::from_state(s)?
        }
        None => Trainer::new(spec, &data)?,
    };
    let meta = crate::run_files::name_log(serde_json::to_value(&Meta { run: run.clone(), data: print })?, log_path.as_deref(), &run_id);
    let mut log = match &log_path {
        Some(p) if resumed => Some(JsonLinesLog::resume_run(p, trainer.state().epoch as u64, Some(&run_id))?),
        Some(p) => {
            let mut l = JsonLinesLog::create(p)?.owned_by(Some(&run_id));
            l.write("start", &Start { run: &run, transition: &loaded.noisy.transition, actual_noise_rate: loaded.noisy.actual_rate })?;
            Some(l)
        }
        None => None,
    };
    let checkpoint = a.files.checkpoint_path();
    if checkpoint.is_some() {
        crate::signals::cooperate();
    }
    let pb = bar(Some(run.epochs as u64), "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} epochs  {msg}  {eta}", a.output.bar());
    pb.set_position(trainer.state().epoch as u64);
    while !trainer.finished() {
        let rec = trainer.run_epoch(&data, Some((&loaded.x_test, &loaded.y_test)))?;
        if let Some(l) = &mut log {
            l.write("generation", &EpochLine { generation: rec.epoch, record: &rec })?;
        }
        if let Some(path) = &checkpoint {
            let seconds = earlier + started.elapsed().as_secs_f64();
            save_checkpoint(path, &meta, trainer.state(), &driver_state(trainer.state(), seconds))?;
            if crate::signals::requested() && !trainer.finished() {
                pb.finish_and_clear();
                return Err(crate::signals::Stopped(path.display().to_string()).into());
            }
        }
        pb.set_message(format!(
            "test acc {:.4}, label precision {:.3}",
            rec.test_accuracy.unwrap_or(f64::NAN),
            rec.label_precision.unwrap_or(f64::NAN)
        ));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let history = &trainer.state().history;
    let last = history.last().and_then(|r| r.test_accuracy);
    let best = history.iter().filter_map(|r| r.test_accuracy.map(|a| (r.epoch, a))).fold(None, |b: Option<(usize, f64)>, (e, a)| match b {
        Some((_, ba)) if ba >= a => b,
        _ => Some((e, a)),
    });
    let seconds = started.elapsed().as_secs_f64();
    if let Some(l) = &mut log {
        l.write(
            "finish",
            &serde_json::json!({ "last_epoch_accuracy": last, "best_epoch_accuracy": best.map(|b| b.1), "best_epoch": best.map(|b| b.0) }),
        )?;
    }
    if a.output.json {
        let out = Output {
            run: &run,
            transition: &loaded.noisy.transition,
            actual_noise_rate: loaded.noisy.actual_rate,
            last_epoch_accuracy: last,
            best_epoch_accuracy: best.map(|b| b.1),
            best_epoch: best.map(|b| b.0),
            history,
            seconds,
            resumed,
        };
        outln!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    outln!("epoch  train loss  train acc (noisy)  label precision  selected  test acc  seconds");
    for r in history {
        outln!(
            "{:>5}  {:>10.4}  {:>17.4}  {:>15}  {:>8.3}  {:>8}  {:>7.2}",
            r.epoch,
            r.train_loss,
            r.train_accuracy,
            r.label_precision.map_or("-".into(), |p| format!("{p:.4}")),
            r.selected_fraction,
            r.test_accuracy.map_or("-".into(), |p| format!("{p:.4}")),
            r.seconds
        );
    }
    outln!(
        "Noise: {} (realized rate {:.4}); loss {}{}",
        run.noise,
        loaded.noisy.actual_rate,
        run.loss,
        if matches!(run.loss.as_str(), "npcl" | "coteaching") {
            format!(" with eps = {}", run.noise_rate.unwrap_or(run.label_noise()?.rate))
        } else {
            String::new()
        }
    );
    if let (Some(l), Some((be, ba))) = (last, best) {
        outln!("Test accuracy: last epoch {l:.4}; best epoch {ba:.4} (epoch {be}; picking it needs clean held-out labels)");
    }
    outln!("Time: {seconds:.1} s{}", if resumed { " (this session, resumed)" } else { "" });
    Ok(())
}
