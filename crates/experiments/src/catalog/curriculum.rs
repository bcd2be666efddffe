//! The curriculum-loss experiments of thesis sec. 8.3 at this machine's scale.
//!
//! - `curriculum-noise` (Figs. 8.1-8.3's protocol): cross-entropy, GCE (q = 0.7), Co-teaching, CL
//!   and NPCL trained on Fashion-MNIST (the stand-in for the thesis' MNIST and CIFAR) with
//!   Symmetry-20%, Symmetry-50%, Pair-35% (the thesis) and Pair-45% (most papers) label noise; the
//!   MLP 784-256-256-10, batches of 128, Adam on Co-teaching's learning-rate plan, 50 epochs (the
//!   thesis trains a 9-layer CNN for 200), NPCL after a 5-epoch burn-in, `eps` = the injected rate
//!   for NPCL and Co-teaching; 5 seeds. Test accuracy and label precision per epoch with one
//!   standard deviation shaded; the table gives the last-epoch and the best-epoch accuracy
//!   separately (the best epoch is chosen with the test labels, so it is optimistic).
//! - `curriculum-misspecified` (Table 8.4): NPCL with `eps` set to {0.5, 0.75, 1, 1.25, 1.5} times
//!   the true rate, mean test accuracy over the last 10 epochs; and how well the rate can be
//!   estimated without knowing it: from 500 randomly chosen training rows whose labels were
//!   checked (a trusted subset, with its Wilson interval) and from anchor points of the
//!   cross-entropy network (Patrini et al. 2017) after 5 epochs and at the end; NPCL run with the
//!   trusted-subset estimate.
//!
//! With `--quick`: the digits (1,400 training images), 8 epochs, burn-in 2, one seed.

use std::sync::Arc;

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_robust::rate_from_trusted;
use rand::seq::index::sample;

use super::train_runs::{TrainResult, best, last, mean_last, noise_label, pct, per_epoch, train_all};
use crate::train_run::{BaseData, TrainRunSpec, load_base};
use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

/// The noise settings of `curriculum-noise`.
pub const NOISES: [&str; 4] = ["symmetric:0.2", "symmetric:0.5", "pair:0.35", "pair:0.45"];

/// The methods compared, as `(loss name, label)`.
pub const METHODS: [(&str, &str); 5] =
    [("ce", "cross-entropy"), ("gce", "GCE (q = 0.7)"), ("coteaching", "Co-teaching"), ("cl", "CL"), ("npcl", "NPCL")];

/// The `eps` multipliers of Table 8.4.
pub const PRIORS: [f64; 5] = [0.5, 0.75, 1.0, 1.25, 1.5];

/// Checked labels in the trusted subset of the rate estimate.
pub const TRUSTED: usize = 500;

/// The common settings: data, epochs, burn-in and seeds at full or `--quick` scale.
struct Scale {
    data: &'static str,
    epochs: usize,
    burn_in: usize,
    seeds: Vec<u64>,
}

fn scale(ctx: &Ctx) -> Scale {
    let runs = ctx.runs(1, 5);
    let seeds = (0..runs as u64).map(|r| ctx.seed + r + 1).collect();
    if ctx.quick {
        Scale { data: "digits", epochs: 8, burn_in: 2, seeds }
    } else {
        Scale { data: "fashion-mnist", epochs: 50, burn_in: 5, seeds }
    }
}

impl Scale {
    fn spec(&self, loss: &str, noise: &str, noise_rate: Option<f64>, seed: u64) -> TrainRunSpec {
        TrainRunSpec {
            data: self.data.into(),
            loss: loss.into(),
            noise: noise.into(),
            noise_rate,
            epochs: self.epochs,
            burn_in: self.burn_in,
            seed,
            ..TrainRunSpec::default()
        }
    }
}

fn base(s: &Scale) -> Result<Arc<BaseData>> {
    Ok(Arc::new(load_base(s.data)?))
}

fn curves(runs: &[&TrainResult], f: fn(&TrainResult) -> Vec<f64>) -> Vec<Vec<f64>> {
    runs.iter().map(|r| f(r)).collect()
}

/// `curriculum-noise`: see the module documentation.
pub fn run_noise(ctx: &Ctx) -> Result<Report> {
    let s = scale(ctx);
    let base = base(&s)?;
    let mut specs = Vec::new();
    for noise in NOISES {
        for (loss, _) in METHODS {
            specs.extend(s.seeds.iter().map(|&seed| s.spec(loss, noise, None, seed)));
        }
    }
    let results = train_all(ctx, &specs, &base)?;
    let mut table = Table::new(
        format!(
            "Test accuracy (%) on {} with noisy training labels, mean ± sd over {} seeds, {} epochs; the best epoch is picked with the test labels",
            s.data,
            s.seeds.len(),
            s.epochs
        ),
        "curriculum_noise",
        &["noise", "method", "last epoch", "best epoch", "mean of last 10", "label precision (last)", "s/epoch"],
    );
    let mut charts = Vec::new();
    let mut notes = Vec::new();
    for noise in NOISES {
        let (mut acc, mut prec) = (Vec::new(), Vec::new());
        let mut last_means = Vec::new();
        for (loss, label) in METHODS {
            let runs: Vec<&TrainResult> = results.iter().filter(|r| r.spec.noise == noise && r.spec.loss == loss).collect();
            let test = curves(&runs, TrainResult::test);
            let precision = curves(&runs, TrainResult::precision);
            let secs: Vec<f64> = runs.iter().map(|r| r.seconds_per_epoch()).collect();
            table.push(vec![
                noise_label(noise),
                label.into(),
                pct(&last(&test)),
                pct(&best(&test)),
                pct(&mean_last(&test, 10)),
                pct(&last(&precision)),
                format!("{:.2}", gradfree_core::stats::mean(&secs)),
            ]);
            let l = last(&test);
            let b = best(&test);
            last_means.push((label, gradfree_core::stats::mean(&l), gradfree_core::stats::mean(&b)));
            acc.push(Series::band(label, &per_epoch(&test)));
            prec.push(Series::band(label, &per_epoch(&precision)));
        }
        let top = last_means.iter().copied().fold(("", f64::NEG_INFINITY, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        let ce = last_means[0];
        notes.push(format!(
            "{}: best at the last epoch is {} ({:.2}%); cross-entropy's best epoch reaches {:.2}%, its last {:.2}%{}.",
            noise_label(noise),
            top.0,
            100.0 * top.1,
            100.0 * ce.2,
            100.0 * ce.1,
            if ce.2 - ce.1 > 0.01 { " (it loses accuracy as it fits the noisy labels)" } else { "" }
        ));
        let chart = |title: String, y: &str, series| Chart { title, x_label: "epoch".into(), y_label: y.into(), log_y: false, series };
        charts.push(chart(format!("{}: test accuracy", noise_label(noise)), "test accuracy", acc));
        charts.push(chart(format!("{}: label precision", noise_label(noise)), "label precision", prec));
    }
    notes.push(
        "Label precision = clean samples among those the step used (Co-teaching: network 1's pick); methods without selection use every sample, so theirs is 1 - the realized noise rate."
            .into(),
    );
    Ok(Report { tables: vec![table], figures: vec![Figure::Charts { file: "curriculum_noise.png".into(), charts, cols: 2 }], notes })
}

/// The trusted-subset estimate of run `seed`'s noise rate: `TRUSTED` training rows drawn at random
/// (seeded), their checked labels against the noisy ones.
fn trusted_estimate(spec: &TrainRunSpec, base: &Arc<BaseData>) -> Result<gradfree_robust::NoiseEstimate> {
    let loaded = spec.corrupt(base.clone())?;
    let n = base.clean.len();
    let rows = sample(&mut rng_from_seed(derive_seed(spec.seed, 0x7257)), n, TRUSTED.min(n));
    let clean: Vec<u32> = rows.iter().map(|i| base.clean[i]).collect();
    let noisy: Vec<u32> = rows.iter().map(|i| loaded.noisy.labels[i]).collect();
    Ok(rate_from_trusted(&clean, &noisy, base.k)?)
}

/// `curriculum-misspecified`: see the module documentation.
pub fn run_misspecified(ctx: &Ctx) -> Result<Report> {
    let s = scale(ctx);
    let base = base(&s)?;
    let noises = &NOISES[..3];
    let mut estimates = Vec::new();
    let mut specs = Vec::new();
    for noise in noises {
        let rate = noise.split_once(':').and_then(|(_, r)| r.parse::<f64>().ok()).unwrap_or(0.0);
        for &seed in &s.seeds {
            for f in PRIORS {
                specs.push(s.spec("npcl", noise, if f == 1.0 { None } else { Some(f * rate) }, seed));
            }
            specs.push(s.spec("ce", noise, None, seed));
            let est = trusted_estimate(&s.spec("npcl", noise, None, seed), &base)?;
            specs.push(s.spec("npcl", noise, Some((est.rate * 1e4).round() / 1e4), seed));
            estimates.push((noise, seed, est));
        }
    }
    let results = train_all(ctx, &specs, &base)?;
    let mut headers: Vec<String> = PRIORS.iter().map(|f| format!("{f} eps")).collect();
    headers.insert(0, "noise".into());
    headers.push("eps from 500 trusted labels".into());
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut table = Table::new(
        format!(
            "NPCL's mean test accuracy (%) over the last 10 epochs with eps misspecified (Table 8.4), {}, {} seeds",
            s.data,
            s.seeds.len()
        ),
        "curriculum_misspecified",
        &h,
    );
    let mut rates = Table::new(
        format!("Estimated noise rate vs the realized one, mean ± sd over {} seeds", s.seeds.len()),
        "noise_rate_estimates",
        &[
            "noise",
            "realized rate",
            "trusted subset (500 labels)",
            "95% Wilson interval (mean)",
            "anchors after 5 epochs",
            "anchors at the end",
        ],
    );
    let mut series: Vec<Series> = Vec::new();
    for noise in noises {
        let pick = |loss: &str, eps: Option<Option<f64>>| -> Vec<&TrainResult> {
            results.iter().filter(|r| r.spec.noise == *noise && r.spec.loss == loss && eps.is_none_or(|e| r.spec.noise_rate == e)).collect()
        };
        let rate = noise.split_once(':').and_then(|(_, r)| r.parse::<f64>().ok()).unwrap_or(0.0);
        let mut row = vec![noise_label(noise)];
        let mut points = Vec::new();
        for f in PRIORS {
            let runs = pick("npcl", Some(if f == 1.0 { None } else { Some(f * rate) }));
            let v = mean_last(&curves(&runs, TrainResult::test), 10);
            points.push((f, gradfree_core::stats::mean(&v)));
            row.push(pct(&v));
        }
        let est: Vec<&gradfree_robust::NoiseEstimate> = estimates.iter().filter(|e| e.0 == noise).map(|e| &e.2).collect();
        let estimated: Vec<&TrainResult> = s
            .seeds
            .iter()
            .zip(&est)
            .flat_map(|(&seed, e)| {
                let eps = Some((e.rate * 1e4).round() / 1e4);
                results
                    .iter()
                    .find(move |r| r.spec.noise == *noise && r.spec.loss == "npcl" && r.spec.seed == seed && r.spec.noise_rate == eps)
            })
            .collect();
        row.push(pct(&mean_last(&curves(&estimated, TrainResult::test), 10)));
        table.push(row);
        series.push(Series { label: noise_label(noise), points, errors: Vec::new() });
        let ce = pick("ce", None);
        let realized: Vec<f64> = ce.iter().map(|r| r.actual_rate).collect();
        let anchors = |first: bool| -> Vec<f64> {
            ce.iter().filter_map(|r| if first { r.anchor.first() } else { r.anchor.last() }.map(|a| a.1)).collect()
        };
        let lo = est.iter().filter_map(|e| e.interval.map(|i| i.0)).collect::<Vec<_>>();
        let hi = est.iter().filter_map(|e| e.interval.map(|i| i.1)).collect::<Vec<_>>();
        rates.push(vec![
            noise_label(noise),
            pct(&realized),
            pct(&est.iter().map(|e| e.rate).collect::<Vec<_>>()),
            format!("[{:.1}, {:.1}]", 100.0 * gradfree_core::stats::mean(&lo), 100.0 * gradfree_core::stats::mean(&hi)),
            pct(&anchors(true)),
            pct(&anchors(false)),
        ]);
    }
    let chart = Chart {
        title: "NPCL, eps = factor x true rate: last 10 epochs".into(),
        x_label: "eps / true rate".into(),
        y_label: "test accuracy".into(),
        log_y: false,
        series,
    };
    let notes = vec![
        "eps from 500 trusted labels: NPCL run with each seed's trusted-subset estimate (rounded to 4 decimals) instead of the true rate.".into(),
        "Anchor estimates (Patrini et al. 2017, 97% quantile) use the cross-entropy network's probabilities on the training rows: after 5 epochs, and at the end, when it has fitted much of the noise (memorized labels make the anchors look clean, so the estimate falls).".into(),
    ];
    Ok(Report {
        tables: vec![table, rates],
        figures: vec![Figure::Charts { file: "curriculum_misspecified.png".into(), charts: vec![chart], cols: 1 }],
        notes,
    })
}
