//! Training runs for the robust-learning experiments: a [`TrainRunSpec`] trained to the end on a
//! data set loaded once ([`BaseData`]), its per-epoch history kept in a run cache shared by the
//! experiments (`<out>/../train-runs/`: `curriculum-misspecified` reuses the cross-entropy and
//! true-eps NPCL runs of `curriculum-noise`), and the summaries the tables and figures need.

use std::path::PathBuf;
use std::sync::Arc;

use gradfree_robust::estimate::rate_from_anchors;
use gradfree_robust::train::{EpochRecord, Trainer};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::runs::cached_run;
use crate::train_run::{BaseData, TrainRunSpec};
use crate::{Ctx, Result};

/// Epochs after which a cross-entropy run estimates the noise rate from anchor points (Patrini et
/// al., CVPR 2017, with the 97% quantile): early (before the network memorizes the noisy labels)
/// and at the end.
pub const ANCHOR_EPOCH: usize = 5;

/// The quantile of Patrini et al.'s anchor rule.
pub const ANCHOR_QUANTILE: f64 = 0.97;

/// One finished run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrainResult {
    /// What ran.
    pub spec: TrainRunSpec,
    /// Every epoch's metrics.
    pub history: Vec<EpochRecord>,
    /// The realized noise rate of the training labels.
    pub actual_rate: f64,
    /// The noise's transition matrix.
    pub transition: Vec<Vec<f64>>,
    /// Cross-entropy runs: `(epoch, anchor-point estimate of the noise rate)`.
    pub anchor: Vec<(usize, f64)>,
}

impl TrainResult {
    /// Test accuracy at each epoch.
    pub fn test(&self) -> Vec<f64> {
        self.history.iter().map(|r| r.test_accuracy.unwrap_or(f64::NAN)).collect()
    }

    /// Label precision at each epoch.
    pub fn precision(&self) -> Vec<f64> {
        self.history.iter().map(|r| r.label_precision.unwrap_or(f64::NAN)).collect()
    }

    /// Training accuracy at each epoch.
    pub fn train(&self) -> Vec<f64> {
        self.history.iter().map(|r| r.train_accuracy).collect()
    }

    /// Mean seconds per epoch.
    pub fn seconds_per_epoch(&self) -> f64 {
        self.history.iter().map(|r| r.seconds).sum::<f64>() / self.history.len().max(1) as f64
    }
}

/// The shared run cache of the robust-learning experiments: `<out>/../train-runs`.
pub fn cache_dir(ctx: &Ctx) -> PathBuf {
    ctx.out.parent().unwrap_or(&ctx.out).join("train-runs")
}

fn file_name(s: &TrainRunSpec) -> String {
    let eps = s.noise_rate.map(|e| format!("-eps{e:.4}")).unwrap_or_default();
    let lr = s.lr.map(|l| format!("-lr{l}")).unwrap_or_default();
    format!(
        "{}-{}-{}-{}{eps}-e{}-b{}-bi{}-{}{lr}-{}-s{}.json",
        s.data, s.model, s.loss, s.noise, s.epochs, s.batch_size, s.burn_in, s.optimizer, s.schedule, s.seed
    )
    .replace(':', "")
}

/// Trains `spec` to the end on `base` (its noisy labels drawn from `spec.seed`), or reads the
/// finished run back from the cache.
pub fn train(ctx: &Ctx, spec: &TrainRunSpec, base: &Arc<BaseData>) -> Result<TrainResult> {
    let dir = cache_dir(ctx);
    crate::report::create_dir(&dir)?;
    let file = dir.join(file_name(spec));
    let key = serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "spec": spec });
    cached_run(ctx, &file, &key, || {
        let loaded = spec.corrupt(base.clone())?;
        let data = loaded.train_set();
        let mut trainer = Trainer::new(spec.train_spec()?, &data)?;
        let mut anchor = Vec::new();
        while !trainer.finished() {
            let rec = trainer.run_epoch(&data, Some((&base.x_test, &base.y_test)))?;
            if spec.loss == "ce" && (rec.epoch == ANCHOR_EPOCH.min(spec.epochs) || rec.epoch == spec.epochs) {
                let probs = softmax(&trainer.logits(&base.x)?, base.k);
                anchor.push((rec.epoch, rate_from_anchors(&probs, &loaded.noisy.labels, base.k, ANCHOR_QUANTILE)?.rate));
            }
        }
        let result = TrainResult {
            spec: spec.clone(),
            history: trainer.state().history.clone(),
            actual_rate: loaded.noisy.actual_rate,
            transition: loaded.noisy.transition.clone(),
            anchor,
        };
        Ok(result)
    })
}

/// Trains every distinct spec, in parallel over runs (each run's small matrix products mostly use
/// one core).
pub fn train_all(ctx: &Ctx, specs: &[TrainRunSpec], base: &Arc<BaseData>) -> Result<Vec<TrainResult>> {
    let mut unique: Vec<&TrainRunSpec> = Vec::new();
    for s in specs {
        if !unique.contains(&s) {
            unique.push(s);
        }
    }
    ctx.plan_runs(unique.len() as u64);
    unique.par_iter().map(|s| train(ctx, s, base)).collect()
}

fn softmax(logits: &[f32], k: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(logits.len());
    for row in logits.chunks(k) {
        let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
        let z: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        out.extend(row.iter().map(|&v| (v as f64 - m).exp() / z));
    }
    out
}

/// Per-epoch `(epoch, mean, standard deviation)` over runs of one metric.
pub fn per_epoch(curves: &[Vec<f64>]) -> Vec<(f64, f64, f64)> {
    let epochs = curves.iter().map(Vec::len).min().unwrap_or(0);
    (0..epochs)
        .map(|e| {
            let v: Vec<f64> = curves.iter().map(|c| c[e]).collect();
            let (m, s) = gradfree_core::stats::mean_sd(&v);
            ((e + 1) as f64, m, s)
        })
        .collect()
}

/// `mean ± sd` in percent of values in [0, 1].
pub fn pct(values: &[f64]) -> String {
    let (m, s) = gradfree_core::stats::mean_sd(values);
    format!("{:.2} ± {:.2}", 100.0 * m, 100.0 * s)
}

/// The last value of each curve.
pub fn last(curves: &[Vec<f64>]) -> Vec<f64> {
    curves.iter().map(|c| c.last().copied().unwrap_or(f64::NAN)).collect()
}

/// The best value of each curve (the best epoch, chosen with the test labels: optimistic).
pub fn best(curves: &[Vec<f64>]) -> Vec<f64> {
    curves.iter().map(|c| c.iter().copied().fold(f64::NEG_INFINITY, f64::max)).collect()
}

/// The mean of each curve's last `k` values.
pub fn mean_last(curves: &[Vec<f64>], k: usize) -> Vec<f64> {
    curves
        .iter()
        .map(|c| {
            let tail = &c[c.len().saturating_sub(k)..];
            tail.iter().sum::<f64>() / tail.len().max(1) as f64
        })
        .collect()
}

/// A noise setting's name as the thesis writes it: `Symmetry-20%`, `Pair-45%`, `clean`.
pub fn noise_label(noise: &str) -> String {
    match noise.split_once(':') {
        Some((kind, rate)) => {
            let r: f64 = rate.parse().unwrap_or(f64::NAN);
            let kind = if kind == "symmetric" { "Symmetry" } else { "Pair" };
            format!("{kind}-{:.0}%", 100.0 * r)
        }
        None => "clean".into(),
    }
}
