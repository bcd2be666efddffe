//! Thesis sec. 5.7-5.8 at small scale: an autoencoder on Fashion-MNIST whose encoder is the
//! inverse-CDF map `F(eps, x) = G1(x) + G2(eps)`, trained with `eps` from the subgroup rank-1
//! lattice with `n = 12k + 1` points (index drawn uniformly, point computed on demand) or i.i.d.
//! uniform, with an MMD prior term ([`gradfree_robust::train::generative`]). Per epoch: the test
//! reconstruction loss (binary cross-entropy per image, nats) and the quality of samples decoded
//! from `N(0, I)` draws, measured as the MMD^2 between 500 samples and 500 test images (Gaussian
//! kernel, bandwidth the median distance between test images; smaller is better). 3 seeds,
//! 20 epochs, `k = 16` (so `n = 193`); `--quick`: the digits, `k = 8` (`n = 97`), 10 epochs, one
//! seed. The samples of the last epoch are drawn as image grids.
//!
//! The thesis' own experiment trains CycleGAN generators on Vangogh2photo and maps; those data
//! sets cannot be obtained here, so this experiment replaces it.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_robust::train::generative::{AeSpec, Autoencoder, EpsSampler};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::train_runs::per_epoch;
use crate::report::Heatmap;
use crate::runs::cached_run;
use crate::{Ctx, Figure, Report, Result, Series, Table};

#[derive(Clone, Debug, Serialize, Deserialize)]
struct AeRun {
    /// Per epoch: training reconstruction, training MMD, test reconstruction, sample MMD.
    epochs: Vec<[f64; 4]>,
    /// The last epoch's samples (`rows x d`, pixel means).
    samples: Vec<f32>,
}

/// The run's sizes: epochs, code dimension, samples for the quality measure, and the pixel
/// kernel's squared bandwidth.
#[derive(Clone, Copy)]
struct Plan {
    epochs: usize,
    latent: usize,
    n_samples: usize,
    h2: f64,
}

struct Data {
    x: Vec<f32>,
    xt: Vec<f32>,
    d: usize,
}

fn load(quick: bool) -> Result<Data> {
    let ds = gradfree_data::load_labeled(if quick { "digits" } else { "fashion-mnist" })?;
    let max = ds.x.iter().fold(0.0f32, |m, v| m.max(*v)).max(1e-12);
    let (train, mut test) = crate::train_run::split(&ds);
    test.truncate(2000);
    let take = |rows: &[usize]| -> Vec<f32> { rows.iter().flat_map(|&i| ds.row(i).iter().map(|v| v / max)).collect() };
    Ok(Data { x: take(&train), xt: take(&test), d: ds.d })
}

/// MMD^2 (V-statistic) between the rows of `a` and `b` with `exp(-||x - y||^2 / (2 h2))`.
fn pixel_mmd(a: &[f32], b: &[f32], d: usize, h2: f64) -> f64 {
    let k = |x: &[f32], y: &[f32]| (-x.iter().zip(y).map(|(p, q)| f64::from(p - q).powi(2)).sum::<f64>() / (2.0 * h2)).exp();
    let mean = |x: &[f32], y: &[f32]| {
        let s: f64 = x.par_chunks(d).map(|r| y.chunks(d).map(|c| k(r, c)).sum::<f64>()).sum();
        s / ((x.len() / d) * (y.len() / d)) as f64
    };
    mean(a, a) + mean(b, b) - 2.0 * mean(a, b)
}

fn one_run(ctx: &Ctx, data: &Data, sampler: EpsSampler, seed: u64, plan: &Plan) -> Result<AeRun> {
    let Plan { epochs, latent, n_samples, h2 } = *plan;
    let dir = ctx.out.join("runs");
    crate::report::create_dir(&dir)?;
    let spec = AeSpec { latent, sampler, seed, ..AeSpec::default() };
    let file = dir.join(format!("{}-{sampler:?}-k{latent}-s{seed}.json", if ctx.quick { "quick" } else { "full" }).to_lowercase());
    let key = serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "spec": spec, "epochs": epochs, "rows": data.x.len() / data.d });
    cached_run(ctx, &file, &key, || {
        let mut ae = Autoencoder::new(spec, data.d)?;
        // The same prior draws and test rows at every epoch and for both samplers.
        let mut rng = rng_from_seed(derive_seed(seed, 0x5a3));
        let z: Vec<f32> =
            (0..n_samples * latent).map(|_| StandardNormal.sample(&mut rng)).collect::<Vec<f64>>().iter().map(|&v| v as f32).collect();
        let reference = &data.xt[..n_samples.min(data.xt.len() / data.d) * data.d];
        let mut out = Vec::with_capacity(epochs);
        let mut samples = Vec::new();
        for _ in 0..epochs {
            let e = ae.epoch(&data.x)?;
            let test = ae.reconstruction(&data.xt, derive_seed(seed, 0x7e57))?;
            samples = ae.decode(&z)?;
            out.push([e.reconstruction, e.mmd, test, pixel_mmd(&samples, reference, data.d, h2)]);
        }
        Ok(AeRun { epochs: out, samples })
    })
}

/// An `rows x rows` grid of `side x side` images as one heat map (row 0 at the bottom, so the
/// images are flipped to read upright).
fn grid(title: &str, images: &[f32], side: usize, rows: usize) -> Heatmap {
    let n = rows * side;
    let mut values = vec![0.0; n * n];
    for (idx, img) in images.chunks(side * side).take(rows * rows).enumerate() {
        let (gi, gj) = (idx / rows, idx % rows);
        for i in 0..side {
            for j in 0..side {
                let row = n - 1 - (gi * side + i);
                values[row * n + gj * side + j] = f64::from(img[i * side + j]);
            }
        }
    }
    Heatmap { title: title.into(), lo: 0.0, hi: 1.0, values, n }
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let (epochs, latent, n_samples) = if ctx.quick { (10, 8, 200) } else { (20, 16, 500) };
    let seeds = ctx.runs.unwrap_or(if ctx.quick { 1 } else { 3 }) as u64;
    let data = load(ctx.quick)?;
    let d = data.d;
    // Bandwidth: the median squared distance between test images (first 200 pairs' worth).
    let m = (data.xt.len() / d).min(200);
    let mut d2: Vec<f64> = Vec::new();
    for i in 0..m {
        for j in i + 1..m {
            d2.push(data.xt[i * d..(i + 1) * d].iter().zip(&data.xt[j * d..(j + 1) * d]).map(|(p, q)| f64::from(p - q).powi(2)).sum());
        }
    }
    d2.sort_by(f64::total_cmp);
    let h2 = d2[d2.len() / 2].max(1e-12);
    let plan = Plan { epochs, latent, n_samples, h2 };
    let samplers = [(EpsSampler::Lattice, "subgroup lattice"), (EpsSampler::Iid, "i.i.d. uniform")];
    let jobs: Vec<(usize, u64)> = (0..2).flat_map(|s| (1..=seeds).map(move |r| (s, ctx.seed + r))).collect();
    ctx.plan_runs(jobs.len() as u64);
    let runs: Vec<AeRun> = jobs.par_iter().map(|&(s, r)| one_run(ctx, &data, samplers[s].0, r, &plan)).collect::<Result<_>>()?;
    let n = 12 * latent + 1;
    let mut t = Table::new(
        format!(
            "Sec. 5.7: inverse-CDF encoder F(eps, x) = G1(x) + G2(eps), k = {latent}, lattice n = {n}; last epoch, mean ± std over {seeds} seeds"
        ),
        "qmc_generative",
        &[
            "eps from",
            "train reconstruction",
            "test reconstruction (nats/image)",
            "train MMD (codes vs prior)",
            "sample MMD^2 x 100 (pixels)",
        ],
    );
    let mut rec_series = Vec::new();
    let mut mmd_series = Vec::new();
    let mut heat = Vec::new();
    for (s, (_, label)) in samplers.iter().enumerate() {
        let mine: Vec<&AeRun> = jobs.iter().zip(&runs).filter(|((j, _), _)| *j == s).map(|(_, r)| r).collect();
        let col = |c: usize| -> Vec<Vec<f64>> { mine.iter().map(|r| r.epochs.iter().map(|e| e[c]).collect()).collect() };
        let last = |c: usize| -> Vec<f64> { col(c).iter().map(|v| *v.last().unwrap_or(&f64::NAN)).collect() };
        let ms = |v: &[f64], scale: f64| {
            let (m, sd) = gradfree_core::stats::mean_sd(v);
            format!("{:.3} ± {:.3}", m * scale, sd * scale)
        };
        t.push(vec![label.to_string(), ms(&last(0), 1.0), ms(&last(2), 1.0), ms(&last(1), 1.0), ms(&last(3), 100.0)]);
        let band = |c: usize, scale: f64| {
            let pe = per_epoch(&col(c));
            Series {
                label: label.to_string(),
                points: pe.iter().map(|(e, m, _)| (*e, m * scale)).collect(),
                errors: pe.iter().map(|(e, m, sd)| (*e, (m - sd) * scale, (m + sd) * scale)).collect(),
            }
        };
        rec_series.push(band(2, 1.0));
        mmd_series.push(band(3, 100.0));
        let side = (d as f64).sqrt().round() as usize;
        heat.push(grid(&format!("samples, eps from {label} (seed {})", ctx.seed + 1), &mine[0].samples, side, 8));
    }
    let chart = Figure::panels(
        "qmc_generative.png",
        vec![("test reconstruction (nats/image)".into(), rec_series), ("sample MMD^2 x 100 vs test images".into(), mmd_series)],
        "epoch",
        "",
        false,
        2,
    );
    let samples = Figure::Heatmaps {
        file: "qmc_generative_samples.png".into(),
        title: "decoded N(0, I) draws, last epoch".into(),
        panels: heat,
        cols: 2,
    };
    Ok(Report {
        tables: vec![t],
        figures: vec![chart, samples],
        notes: vec![
            format!("The lattice has n = 12k + 1 = {n} points: each eps is one of them (index uniform), computed on demand."),
            "The thesis' CycleGAN experiment (Vangogh2photo, maps) needs data sets that cannot be obtained here; this autoencoder on Fashion-MNIST replaces it.".into(),
        ],
    })
}
