//! Thesis sec. 3.7.2, Fig. 3.2: policy search on MuJoCo tasks (Swimmer, HalfCheetah,
//! HumanoidStandup, InvertedDoublePendulum): Fast-INGO (β = 0.3) against antithetic ES
//! (Salimans et al. 2017), ASEBO (Choromanski et al. 2019) and ARS (Mania et al. 2018), the
//! thesis' one-hidden-layer tanh policy (h = 16), σ₁ = 0.1, μ₁ = 0,
//! N = 20 + 4⌊⌊3 ln d⌋/2⌋, 5 runs; average reward of the mean policy vs iterations.
//!
//! The environments are Python (Gymnasium with MuJoCo), so each run is `python -m gradfree.rl`
//! in a child process (the interpreter from `GRADFREE_PYTHON`, else `python3`), writing a
//! JSON-lines log and a checkpoint into `<out>/runs/`: an interrupted experiment resumes from the
//! checkpoints, a finished run is read back (and a run asked for more generations than its log
//! has is resumed from its checkpoint, so a larger budget extends the runs already made).
//!
//! Budgets (the thesis gives none), sized for about 1.5 hours on 2 cores: 15 generations on
//! Swimmer, 20 on HalfCheetah and 100 on InvertedDoublePendulum (whose early episodes end within
//! about ten steps), all with full 1,000-step episodes, and 8 generations of 250-step episodes on
//! HumanoidStandup (72 rollouts of its 5,873-parameter policy at about 1 ms per step). `--quick`:
//! CartPole-v1 (no MuJoCo), 2 runs, 6 generations of 200-step episodes, rollouts in the child
//! process itself.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::report::Series;
use crate::{Ctx, ExperimentError, Figure, Report, Result, Table};

/// The methods of Fig. 3.2 (plus ARS), by their `gradfree.rl` names and labels.
const METHODS: [(&str, &str); 4] = [("fast-ingo", "Fast-INGO"), ("openai-es", "ES (antithetic)"), ("asebo", "ASEBO"), ("ars", "ARS")];

/// One environment of the experiment and its budget.
struct EnvSpec {
    id: &'static str,
    generations: usize,
    max_steps: Option<usize>,
}

/// What a run's log says, per generation: reward of the mean policy, evaluation and ES seconds,
/// environment steps.
#[derive(Default)]
struct RunLog {
    reward: Vec<f64>,
    eval_seconds: f64,
    es_seconds: f64,
    steps: f64,
}

/// The interpreter: `GRADFREE_PYTHON` (a relative path made absolute, since the runs start in
/// the run folder), else `python3` from `PATH`.
fn python() -> String {
    match std::env::var("GRADFREE_PYTHON") {
        Ok(p) if p.contains(std::path::MAIN_SEPARATOR) => std::path::absolute(&p).map_or(p, |a| a.display().to_string()),
        Ok(p) => p,
        Err(_) => "python3".into(),
    }
}

/// Checks that the interpreter has the package and Gymnasium (and MuJoCo when asked).
fn check_python(py: &str, mujoco: bool) -> Result<()> {
    let probe = if mujoco { "import gradfree.rl, gymnasium, mujoco" } else { "import gradfree.rl, gymnasium" };
    let ok = Command::new(py).args(["-c", probe]).output().map(|o| o.status.success()).unwrap_or(false);
    if ok {
        return Ok(());
    }
    Err(ExperimentError::MissingDependency {
        what: format!("ingo-rl runs its rollouts in Python and `{py} -c \"{probe}\"` failed"),
        install: format!(
            "pip install ./python \"gymnasium{}\" (or point GRADFREE_PYTHON at an interpreter that has them)",
            if mujoco { "[mujoco]" } else { "" }
        ),
    })
}

fn read_log(path: &Path) -> Option<RunLog> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut log = RunLog::default();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        if v["type"] != "generation" {
            continue;
        }
        let g = usize::try_from(v["generation"].as_u64()?).ok()?;
        // A resumed run appends; keep the record of each generation once, in order. Generations
        // count from 1: a 0 means the file is not one of our logs.
        log.reward.truncate(g.checked_sub(1)?);
        log.reward.push(v["reward_of_mean"].as_f64()?);
        log.eval_seconds += v["eval_seconds"].as_f64().unwrap_or(0.0);
        log.es_seconds += v["es_seconds"].as_f64().unwrap_or(0.0);
        log.steps = v["total_steps"].as_f64().unwrap_or(0.0);
    }
    Some(log)
}

/// Runs (or resumes, or reads back) one run.
fn one_run(ctx: &Ctx, py: &str, env: &EnvSpec, method: &str, r: usize, workers: usize) -> Result<RunLog> {
    let dir = ctx.out.join("runs");
    std::fs::create_dir_all(&dir).map_err(|e| ExperimentError::Io { path: dir.clone(), cause: e })?;
    // Absolute, because the child runs in the run folder (where MuJoCo writes its MUJOCO_LOG.TXT).
    let dir = std::path::absolute(&dir).map_err(|e| ExperimentError::Io { path: dir.clone(), cause: e })?;
    // The file names hold what defines a run besides its budget (a longer budget extends it).
    let steps = env.max_steps.map_or_else(|| "full".to_string(), |m| m.to_string());
    let stem = format!("{}-{method}-seed{}-steps{steps}-r{r}", env.id, ctx.seed);
    let log_path = dir.join(format!("{stem}.jsonl"));
    let ck: PathBuf = dir.join(format!("{stem}.ckpt"));
    if ctx.reuse_runs
        && let Some(log) = read_log(&log_path)
        && log.reward.len() >= env.generations
    {
        ctx.finished_one_cached();
        return Ok(log);
    }
    let seed = gradfree_core::derive_seed(ctx.seed, r as u64).to_string();
    let mut cmd = Command::new(py);
    cmd.current_dir(&dir);
    cmd.args(["-m", "gradfree.rl", "--generations", &env.generations.to_string(), "--workers", &workers.to_string(), "--quiet"]);
    cmd.args(["--log", &log_path.display().to_string(), "--save-policy", &dir.join(format!("{stem}.policy.npz")).display().to_string()]);
    if ctx.reuse_runs && ck.exists() {
        cmd.args(["--resume", &ck.display().to_string()]);
    } else {
        // A fresh run replaces what an earlier run of this experiment left (its own files).
        cmd.args(["--env", env.id, "--method", method, "--seed", &seed, "--checkpoint", &ck.display().to_string(), "--overwrite"]);
        if let Some(m) = env.max_steps {
            cmd.args(["--max-steps", &m.to_string()]);
        }
    }
    let out = cmd.output().map_err(|e| ExperimentError::Invalid(format!("could not start {py}: {e}")))?;
    if !out.status.success() {
        return Err(ExperimentError::Invalid(format!(
            "{} {method} run {r} failed: {}",
            env.id,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let log = read_log(&log_path)
        .filter(|l| l.reward.len() >= env.generations)
        .ok_or_else(|| ExperimentError::Invalid(format!("{}: incomplete log", log_path.display())))?;
    ctx.finished_one();
    Ok(log)
}

/// Mean and standard deviation over runs, per generation.
fn mean_std(runs: &[RunLog], generations: usize) -> Vec<(f64, f64, f64)> {
    (0..generations)
        .map(|g| {
            let v: Vec<f64> = runs.iter().map(|r| r.reward[g]).collect();
            let (m, sd) = gradfree_core::stats::mean_sd(&v);
            ((g + 1) as f64, m, sd)
        })
        .collect()
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let envs: Vec<EnvSpec> = if ctx.quick {
        vec![EnvSpec { id: "CartPole-v1", generations: 6, max_steps: Some(200) }]
    } else {
        vec![
            EnvSpec { id: "Swimmer-v5", generations: 15, max_steps: None },
            EnvSpec { id: "HalfCheetah-v5", generations: 20, max_steps: None },
            EnvSpec { id: "HumanoidStandup-v5", generations: 8, max_steps: Some(250) },
            EnvSpec { id: "InvertedDoublePendulum-v5", generations: 100, max_steps: None },
        ]
    };
    let n_runs = ctx.runs(2, 5);
    let py = python();
    check_python(&py, !ctx.quick)?;
    // Quick runs are too short for a process pool to pay for its start-up.
    let workers = if ctx.quick { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
    ctx.plan_runs((envs.len() * METHODS.len() * n_runs) as u64);
    let mut t = Table::new(
        format!("Fig. 3.2: reward of the mean policy after the last generation, mean ± std over {n_runs} runs"),
        "fig_3_2_ingo_rl",
        &["environment", "generations", "method", "reward", "env steps / run", "seconds / run", "ES time / rollout time"],
    );
    let mut panels = Vec::new();
    let mut notes = Vec::new();
    for env in &envs {
        let mut series = Vec::new();
        let mut finals = Vec::new();
        for (name, label) in METHODS {
            let runs = (0..n_runs).map(|r| one_run(ctx, &py, env, name, r, workers)).collect::<Result<Vec<_>>>()?;
            let stats = mean_std(&runs, env.generations);
            let &(_, m, s) = stats.last().expect("at least one generation");
            let steps = runs.iter().map(|r| r.steps).sum::<f64>() / n_runs as f64;
            let es: f64 = runs.iter().map(|r| r.es_seconds).sum();
            let ev: f64 = runs.iter().map(|r| r.eval_seconds).sum();
            t.push(vec![
                env.id.into(),
                env.generations.to_string(),
                label.into(),
                format!("{m:.1} ± {s:.1}"),
                format!("{steps:.0}"),
                format!("{:.0}", (es + ev) / n_runs as f64),
                format!("{:.4}", es / ev.max(1e-12)),
            ]);
            finals.push((label, m));
            series.push(Series::mean_std(label, &stats, 8, false));
        }
        let fast = finals[0].1;
        let beaten: Vec<&str> = finals[1..].iter().filter(|(_, m)| fast > *m).map(|(l, _)| *l).collect();
        notes.push(format!(
            "{}: Fast-INGO's final mean reward is above {} of the other {} methods{}",
            env.id,
            beaten.len(),
            finals.len() - 1,
            if beaten.is_empty() { String::new() } else { format!(" ({})", beaten.join(", ")) }
        ));
        panels.push((env.id.to_string(), series));
    }
    notes.push("the thesis: Fast-INGO raises the average reward faster than ES on all four tasks.".into());
    Ok(Report {
        tables: vec![t],
        figures: vec![Figure::panels("fig_3_2_ingo_rl.png", panels, "generation", "reward of the mean policy", false, 2)],
        notes,
    })
}
