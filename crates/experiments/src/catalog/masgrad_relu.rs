//! Liang & Su (JRSS-B 2019) Fig. 4 and its claim "diff_MasGrad reaches lower population loss in 45
//! of 50": the two-layer ReLU network `f_w(x) = relu(1 + W2 relu(1 + W1 x))` (sec. 7, App. C) on a
//! population of `N = 300` points, mini-batches of `n = 30` with replacement, `eta = 0.1` (`beta =
//! 600`), 100 steps, 50 experiments, each from its own `N(0, 1)` start shared by 100 chains of
//! diff_MasGrad and of SGD; an experiment is won by the process whose chains end at the lower mean
//! population loss.
//!
//! Choices where the paper is silent (App. C leaves them out): `d = 2` inputs and `k = 2` hidden units (`p = 6`,
//! the smallest network with a "coordinate 6"), rows `x ~ N(0, I_2)`, true weights `N(0, 1)` (one
//! seeded draw), noise `N(0, 0.01^2)` ("very small"). The coordinate panels show experiment 1 with
//! all four processes (MasGrad with the population `V`). `V` of a ReLU network is singular where a
//! unit is inactive on every row; such steps are ridged ([`gradfree_inference::direction::RIDGE`])
//! and counted.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_inference::model::mean_loss;
use gradfree_inference::{Data, InferenceSpec, Method, Model, ReluNet, run};
use rand_distr::{Distribution, StandardNormal};

use super::masgrad::{PROCESSES, Setting, figure, four_processes};
use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

fn normal(rng: &mut gradfree_core::GfRng) -> f64 {
    StandardNormal.sample(rng)
}

/// Runs the experiment of the module documentation.
pub fn run_relu(ctx: &Ctx) -> Result<Report> {
    let (experiments, chains, steps) = if ctx.quick { (6, 20, 40) } else { (50, 100, 100) };
    let (d, k, big_n) = (2, 2, 300);
    let model = ReluNet::new(d, k)?;
    let p = model.dim();
    let mut rng = rng_from_seed(derive_seed(ctx.seed, 40));
    let w_true: Vec<f64> = (0..p).map(|_| normal(&mut rng)).collect();
    let x: Vec<f64> = (0..big_n * d).map(|_| normal(&mut rng)).collect();
    let y: Vec<f64> = x.chunks_exact(d).map(|r| model.predict(&w_true, r) + 0.01 * normal(&mut rng)).collect();
    let data = Data::new(x, d, y)?;
    ctx.plan_runs(2 * experiments as u64 + 4);
    let mut wins = 0;
    let mut ridged = 0;
    let mut mean_curves = [vec![0.0; steps + 1], vec![0.0; steps + 1]];
    let mut table = Table::new(
        format!("Fig. 4 ReLU network: final mean population loss over {chains} chains, per experiment"),
        "masgrad_relu",
        &["experiment", "diff_MasGrad", "SGD", "lower"],
    );
    for e in 0..experiments {
        let theta0: Vec<f64> = (0..p).map(|_| normal(&mut rng)).collect();
        let mut finals = [0.0; 2];
        for (m, method) in [Method::DiffMasgrad, Method::Sgd].into_iter().enumerate() {
            let spec = InferenceSpec {
                method,
                batch_size: Some(30),
                step: Some(0.1),
                chains,
                steps,
                seed: derive_seed(ctx.seed, 1000 + 2 * e as u64 + m as u64),
                theta0: Some(theta0.clone()),
                ..InferenceSpec::default()
            };
            let fit = run(&model, &data, &spec, None)?;
            ridged += fit.ridged_steps;
            let t = &fit.trajectories;
            for (s, curve) in mean_curves[m].iter_mut().enumerate() {
                let loss = (0..chains).map(|c| mean_loss(&model, t.at(c, s), &data)).sum::<f64>() / chains as f64;
                *curve += loss / experiments as f64;
                if s == steps {
                    finals[m] = loss;
                }
            }
            ctx.finished_one();
        }
        let lower = if finals[0] < finals[1] { "diff_MasGrad" } else { "SGD" };
        wins += usize::from(finals[0] < finals[1]);
        table.push(vec![(e + 1).to_string(), format!("{:.6}", finals[0]), format!("{:.6}", finals[1]), lower.into()]);
    }
    let mut summary = Table::new(
        "Fig. 4 ReLU network: who reaches the lower population loss",
        "masgrad_relu_summary",
        &["experiments", "diff_MasGrad lower", "SGD lower", "paper"],
    );
    summary.push(vec![experiments.to_string(), wins.to_string(), (experiments - wins).to_string(), "45 of 50 for diff_MasGrad".into()]);
    // Experiment 1's start for the coordinate panels, all four processes.
    let mut first = rng_from_seed(derive_seed(ctx.seed, 41));
    let theta0: Vec<f64> = (0..p).map(|_| normal(&mut first)).collect();
    let s = Setting {
        model: &model,
        data: &data,
        truth: &w_true,
        theta0,
        n: 30,
        eta_masgrad: 0.1,
        eta_sgd: 0.1,
        steps,
        chains,
        seed: derive_seed(ctx.seed, 42),
    };
    let fits = four_processes(ctx, &s)?;
    let (coords, mut charts) = figure("Fig. 4 ReLU", "masgrad_relu_coordinates", &fits, &w_true, &[1, 5]);
    let labels = [PROCESSES[1].1, PROCESSES[2].1];
    charts.push(Chart {
        title: format!("population loss, mean over {experiments} experiments"),
        x_label: "t".into(),
        y_label: "L(theta_t)".into(),
        log_y: true,
        series: labels
            .iter()
            .zip(&mean_curves)
            .map(|(l, c)| Series {
                label: l.to_string(),
                points: c.iter().enumerate().map(|(t, v)| (t as f64, *v)).collect(),
                errors: Vec::new(),
            })
            .collect(),
    });
    let notes = vec![
        format!("d = 2, k = 2 (p = 6), N = 300 rows N(0, I_2), true weights {w_true:.3?}, noise sd 0.01, n = 30, eta = 0.1 (beta = 600), {steps} steps, {chains} chains."),
        format!("diff_MasGrad met {ridged} singular population covariances (a unit inactive on every row), ridged or with zero gradient; MasGrad uses the population V."),
        "The coordinate panels measure distance to the true weights; the population optimum of a ReLU network is not unique, so their bands need not cover them.".into(),
    ];
    Ok(Report {
        tables: vec![summary, table, coords],
        figures: vec![Figure::Charts { file: "masgrad_relu.png".into(), charts, cols: 2 }],
        notes,
    })
}
