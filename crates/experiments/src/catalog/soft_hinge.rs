//! `soft-hinge`: thesis app. 10.38 (Fig. 10.1) at this machine's scale. The soft multi-class hinge
//! of app. 10.37 (LogSumExp in place of the max when a sample is misclassified) against the hard
//! multi-class hinge (Crammer & Singer 2001) with the same network and settings, trained with Adam
//! (PyTorch's defaults: lr 1e-3, betas 0.9/0.999) and with SGD (lr 1e-2, momentum 0.9), constant
//! learning rates, on clean labels; training and test accuracy per epoch, one standard deviation
//! shaded. Fashion-MNIST and the MLP stand in for the thesis' CIFAR-100 and its CNN; 50 epochs, 5
//! seeds (`--quick`: the digits, 8 epochs, one seed).

use std::sync::Arc;

use super::train_runs::{TrainResult, last, pct, per_epoch, train_all};
use crate::train_run::{TrainRunSpec, load_base};
use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

/// The losses compared, as `(loss name, label)`.
pub const LOSSES: [(&str, &str); 2] = [("hinge", "soft hinge"), ("hinge-hard", "hard hinge")];

/// The optimizers, as `(name, label)`.
pub const OPTIMIZERS: [(&str, &str); 2] = [("adam", "Adam, lr 1e-3"), ("sgd", "SGD, lr 1e-2, momentum 0.9")];

/// The first epoch at which a curve reaches `level` (as a table cell).
fn first_reach(c: &[f64], level: f64) -> Option<usize> {
    c.iter().position(|&v| v >= level).map(|e| e + 1)
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let runs = ctx.runs(1, 5);
    let (data, epochs) = if ctx.quick { ("digits", 8) } else { ("fashion-mnist", 50) };
    let base = Arc::new(load_base(data)?);
    let mut specs = Vec::new();
    for (opt, _) in OPTIMIZERS {
        for (loss, _) in LOSSES {
            for r in 0..runs as u64 {
                specs.push(TrainRunSpec {
                    data: data.into(),
                    loss: loss.into(),
                    noise: "none".into(),
                    optimizer: opt.into(),
                    schedule: "constant".into(),
                    epochs,
                    seed: ctx.seed + r + 1,
                    ..TrainRunSpec::default()
                });
            }
        }
    }
    let results = train_all(ctx, &specs, &base)?;
    let level = 0.9;
    let mut table = Table::new(
        format!("Soft vs hard multi-class hinge on {data}, clean labels, {epochs} epochs, mean ± sd over {runs} seeds"),
        "soft_hinge",
        &["optimizer", "loss", "train accuracy (last)", "test accuracy (last)", "first epoch with train accuracy >= 90% (median)"],
    );
    let mut charts = Vec::new();
    for (opt, opt_label) in OPTIMIZERS {
        let (mut train_s, mut test_s) = (Vec::new(), Vec::new());
        for (loss, label) in LOSSES {
            let rs: Vec<&TrainResult> = results.iter().filter(|r| r.spec.optimizer == opt && r.spec.loss == loss).collect();
            let train: Vec<Vec<f64>> = rs.iter().map(|r| r.train()).collect();
            let test: Vec<Vec<f64>> = rs.iter().map(|r| r.test()).collect();
            let mut reach: Vec<usize> = train.iter().map(|c| first_reach(c, level).unwrap_or(usize::MAX)).collect();
            reach.sort_unstable();
            let median = reach[reach.len() / 2];
            table.push(vec![
                opt_label.into(),
                label.into(),
                pct(&last(&train)),
                pct(&last(&test)),
                if median == usize::MAX { format!("not within {epochs}") } else { median.to_string() },
            ]);
            train_s.push(Series::band(label, &per_epoch(&train)));
            test_s.push(Series::band(label, &per_epoch(&test)));
        }
        let chart = |what: &str, series| Chart {
            title: format!("{opt_label}: {what} accuracy"),
            x_label: "epoch".into(),
            y_label: format!("{what} accuracy"),
            log_y: false,
            series,
        };
        charts.push(chart("training", train_s));
        charts.push(chart("test", test_s));
    }
    Ok(Report {
        tables: vec![table],
        figures: vec![Figure::Charts { file: "soft_hinge.png".into(), charts, cols: 2 }],
        notes: vec![
            "Training accuracy is measured on each epoch's mini-batches as they are trained on (as in the thesis' training curves).".into(),
        ],
    })
}
