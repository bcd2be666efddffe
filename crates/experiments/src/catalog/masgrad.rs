//! Liang & Su (JRSS-B 2019) Figs. 1-3 with the settings of their App. C: `K` chains of MasGrad,
//! its diffusion diff_MasGrad (eq. 11), SGD and diff_SGD (eq. 6) from one random start on a finite
//! population, with pointwise 95% bands, the log-error panels (the paper's show the diffusions;
//! ours show all four, in the same colours as the coordinate panels), and the KS
//! distance between each process and its diffusion (Thm. 3.1).
//!
//! Choices where the paper is silent (App. C leaves them out), also printed under the tables:
//! - MasGrad uses the population `V(theta)` (App. C: "V is easy to evaluate" on the population);
//!   the bands are the empirical 2.5% and 97.5% quantiles across chains (the paper's remark on the
//!   negatively skewed log error suggests quantiles, not mean +- 1.96 sd).
//! - Linear (Fig. 1): `Sigma = diag(0.1, 3.098, 0.2, 1)` (condition number 30.98, small first and
//!   third coordinates), `w* = (1, -1, 0.5, 2)`, `N = 500`, `n = 50`; steps `1/gamma` of Thm. 4.1
//!   at the truth: MasGrad `1 / lambda_max(V^-1/2 H V^-1/2)`, SGD `1 / lambda_max(H)`.
//! - Logistic (Fig. 2): as the paper (`N = 500`, `N(0, I_4)` rows, `w* ~ U[1, 2]^4`, `n = 25`,
//!   `eta = 0.2`); the truth is the maximum-likelihood fit on the population (the paper's R glm).
//! - Mixture (Fig. 3): `theta* = (1, 2, 3)`, `sigma = 1/3.3` (SNR 3.3) and `1` (SNR 1), `N = 1000`,
//!   `n = 20`, `eta = 0.05`, `T = 400`; the truth is the population's maximum-likelihood means (EM
//!   from `theta*`); the start is sorted uniform on `[0, 4]^3` so the chains stay in the basin of
//!   the ordered optimum.
//! - Every start: one draw (seeded) shared by all chains and processes; `K = 100` chains.

use gradfree_core::linalg::{EigenWork, gemm, sym_eigen};
use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_inference::intervals::{Bands, Trajectories, bands, ks_by_step};
use gradfree_inference::mle::fit_glm;
use gradfree_inference::population::{PopulationWork, covariance_matrix, moments};
use gradfree_inference::{Data, Family, Fit, GaussianMixture, Glm, InferenceSpec, IntervalKind, Method, Model, Moments, run};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

/// The four processes, in the paper's order, with their labels.
pub const PROCESSES: [(Method, &str); 4] =
    [(Method::Masgrad, "MasGrad"), (Method::DiffMasgrad, "diff_MasGrad"), (Method::Sgd, "SGD"), (Method::DiffSgd, "diff_SGD")];

/// One figure's setting.
pub struct Setting<'a> {
    /// The model.
    pub model: &'a dyn Model,
    /// The population.
    pub data: &'a Data,
    /// The truth.
    pub truth: &'a [f64],
    /// The shared start.
    pub theta0: Vec<f64>,
    /// Mini-batch size.
    pub n: usize,
    /// MasGrad's (and diff_MasGrad's) step.
    pub eta_masgrad: f64,
    /// SGD's (and diff_SGD's) step.
    pub eta_sgd: f64,
    /// Steps.
    pub steps: usize,
    /// Chains.
    pub chains: usize,
    /// Seed.
    pub seed: u64,
}

/// The four processes' chains of `s`.
pub fn four_processes(ctx: &Ctx, s: &Setting<'_>) -> Result<Vec<Fit>> {
    let mut fits = Vec::new();
    for (k, (method, _)) in PROCESSES.iter().enumerate() {
        let masgrad = matches!(method, Method::Masgrad | Method::DiffMasgrad);
        let spec = InferenceSpec {
            method: *method,
            batch_size: Some(s.n),
            step: Some(if masgrad { s.eta_masgrad } else { s.eta_sgd }),
            chains: s.chains,
            steps: s.steps,
            seed: derive_seed(s.seed, k as u64),
            moments: Some(Moments::Population),
            interval: IntervalKind::Quantile,
            theta0: Some(s.theta0.clone()),
            ..InferenceSpec::default()
        };
        fits.push(run(s.model, s.data, &spec, None)?);
        ctx.finished_one();
    }
    Ok(fits)
}

/// `ln ||theta - truth||` of every chain at every step.
pub fn log_errors(t: &Trajectories, truth: &[f64]) -> Trajectories {
    let mut values = Vec::with_capacity(t.chains * (t.steps + 1));
    for k in 0..t.chains {
        for s in 0..=t.steps {
            values.push(t.at(k, s).iter().zip(truth).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt().max(1e-300).ln());
        }
    }
    Trajectories::every_step(t.chains, t.steps, 1, values)
}

/// A band (coordinate `j` of `b`, over `steps + 1` times) as a line (the mean) with whiskers (the
/// 95% quantiles) at about 12 steps, offset by `shift` steps so the whiskers of several processes
/// do not overlap.
fn band_series(label: &str, b: &Bands, steps: usize, j: usize, shift: usize) -> Series {
    let p = b.center.len() / (steps + 1);
    let every = (steps / 12).max(1);
    Series {
        label: label.into(),
        points: (0..=steps).map(|s| (s as f64, b.center[s * p + j])).collect(),
        errors: (0..=steps)
            .filter(|s| s % every == shift % every && *s > 0)
            .map(|s| (s as f64, b.lower[s * p + j], b.upper[s * p + j]))
            .collect(),
    }
}

/// The report of one figure: a chart per coordinate, the log-error chart, and a table of errors,
/// band widths, coverage of the truth and KS distances at three steps.
pub fn figure(name: &str, slug: &str, fits: &[Fit], truth: &[f64], coords: &[usize]) -> (Table, Vec<Chart>) {
    let p = truth.len();
    let steps = fits[0].trajectories.steps;
    // Each process's bands and log errors, once.
    let coord_bands: Vec<Bands> = fits.iter().map(|f| bands(&f.trajectories, 0.95, IntervalKind::Quantile)).collect();
    let errors: Vec<Trajectories> = fits.iter().map(|f| log_errors(&f.trajectories, truth)).collect();
    let labels = PROCESSES.map(|(_, label)| label);
    let mut charts = Vec::new();
    for &j in coords {
        let mut series: Vec<Series> =
            labels.iter().zip(&coord_bands).enumerate().map(|(k, (l, b))| band_series(l, b, steps, j, k)).collect();
        series.push(Series { label: "truth".into(), points: vec![(0.0, truth[j]), (steps as f64, truth[j])], errors: Vec::new() });
        charts.push(Chart {
            title: format!("{name}: coordinate {}", j + 1),
            x_label: "t".into(),
            y_label: format!("theta_{}", j + 1),
            log_y: false,
            series,
        });
    }
    let err_series = labels
        .iter()
        .zip(&errors)
        .enumerate()
        .map(|(k, (l, e))| band_series(l, &bands(e, 0.95, IntervalKind::Quantile), steps, 0, k))
        .collect();
    charts.push(Chart {
        title: format!("{name}: log error"),
        x_label: "t".into(),
        y_label: "ln ||xi_t - theta*||".into(),
        log_y: false,
        series: err_series,
    });
    let mut table = Table::new(
        format!("{name}: the four processes at three steps (95% bands are chain quantiles)"),
        slug,
        &["process", "t", "median ln error", "mean band width", "truth in band", "KS to its diffusion (mean over coordinates)"],
    );
    // Processes 0 and 1 (MasGrad and its diffusion), 2 and 3 (SGD and its diffusion).
    let ks = [ks_by_step(&fits[0].trajectories, &fits[1].trajectories), ks_by_step(&fits[2].trajectories, &fits[3].trajectories)];
    let mut errs = Vec::new();
    for t in [steps / 10, steps / 2, steps] {
        for (k, label) in labels.iter().enumerate() {
            let b = &coord_bands[k];
            let width = (0..p).map(|j| b.upper[t * p + j] - b.lower[t * p + j]).sum::<f64>() / p as f64;
            let covered = (0..p).filter(|&j| b.lower[t * p + j] <= truth[j] && truth[j] <= b.upper[t * p + j]).count();
            errors[k].across_chains(t, 0, &mut errs);
            let median = gradfree_core::stats::median(&errs);
            let ks_mean = ks[k / 2][t * p..(t + 1) * p].iter().sum::<f64>() / p as f64;
            table.push(vec![
                label.to_string(),
                t.to_string(),
                format!("{median:.3}"),
                format!("{width:.4}"),
                format!("{covered}/{p}"),
                format!("{ks_mean:.3}"),
            ]);
        }
    }
    (table, charts)
}

/// `f(A)` of a symmetric `p x p` matrix `a` (column-major) by its eigendecomposition.
fn sym_fn(a: &[f64], p: usize, f: impl Fn(f64) -> f64) -> Vec<f64> {
    let (mut values, mut vectors) = (vec![0.0; p], vec![0.0; p * p]);
    sym_eigen(a, p, &mut values, Some(&mut vectors), &mut EigenWork::default());
    let mut out = vec![0.0; p * p];
    for (k, &l) in values.iter().enumerate() {
        let fl = f(l);
        for i in 0..p {
            for j in 0..p {
                out[j * p + i] += fl * vectors[k * p + i] * vectors[k * p + j];
            }
        }
    }
    out
}

fn largest_eigenvalue(a: &[f64], p: usize) -> f64 {
    let mut values = vec![0.0; p];
    sym_eigen(a, p, &mut values, None, &mut EigenWork::default());
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Thm. 4.1's steps `1/gamma` at `theta` for a GLM: MasGrad `1 / lambda_max(V^-1/2 H V^-1/2)` and
/// SGD `1 / lambda_max(H)`, with `H` the mean Hessian and `V` the gradients' covariance root.
pub fn theorem_steps(model: &dyn Model, data: &Data, theta: &[f64]) -> (f64, f64) {
    let p = model.dim();
    let (mut h, mut hi) = (vec![0.0; p * p], vec![0.0; p * p]);
    for i in 0..data.len() {
        model.hessian(theta, data, i, &mut hi);
        h.iter_mut().zip(&hi).for_each(|(a, b)| *a += b / data.len() as f64);
    }
    let mut work = PopulationWork::default();
    let mut b = vec![0.0; p];
    moments(model, theta, data, &mut b, &mut work);
    let s = sym_fn(covariance_matrix(&work), p, |l| l.max(1e-300).powf(-0.25));
    let (mut sh, mut m) = (vec![0.0; p * p], vec![0.0; p * p]);
    gemm(&s, p, p, &h, p, &mut sh);
    gemm(&sh, p, p, &s, p, &mut m);
    (1.0 / largest_eigenvalue(&m, p), 1.0 / largest_eigenvalue(&h, p))
}

fn gaussian_rows(rng: &mut gradfree_core::GfRng, n: usize, scales: &[f64]) -> Vec<f64> {
    (0..n * scales.len()).map(|k| scales[k % scales.len()] * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, rng)).collect()
}

/// The EM fixed point of the mixture's means on `z` from `start` (known equal weights and sigma).
fn mixture_mle(z: &[f64], sigma: f64, start: &[f64]) -> Vec<f64> {
    let mut mu = start.to_vec();
    let mut r = vec![0.0; mu.len()];
    for _ in 0..5000 {
        let (mut num, mut den) = (vec![0.0; mu.len()], vec![0.0; mu.len()]);
        for &x in z {
            r.iter_mut().zip(&mu).for_each(|(ri, m)| *ri = -(x - m) * (x - m) / (2.0 * sigma * sigma));
            let top = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = r.iter().map(|v| (v - top).exp()).sum();
            for i in 0..mu.len() {
                let w = (r[i] - top).exp() / s;
                num[i] += w * x;
                den[i] += w;
            }
        }
        let next: Vec<f64> = num.iter().zip(&den).map(|(a, b)| a / b).collect();
        let change = next.iter().zip(&mu).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        mu = next;
        if change < 1e-13 {
            break;
        }
    }
    mu
}

fn chains(ctx: &Ctx) -> usize {
    if ctx.quick { 30 } else { 100 }
}

const BANDS_NOTE: &str =
    "MasGrad uses the population V (App. C); bands are 2.5%/97.5% chain quantiles; one seeded start shared by all chains and processes.";
const KS_NOTE: &str = "KS: two-sample Kolmogorov-Smirnov distance between a process and its diffusion across chains, averaged over coordinates (with K chains each, about 1.36 sqrt(2/K) is the 95% noise level).";

fn report(parts: Vec<(Table, Vec<Chart>, String)>, mut notes: Vec<String>) -> Report {
    notes.push(BANDS_NOTE.into());
    notes.push(KS_NOTE.into());
    let mut tables = Vec::new();
    let mut figures = Vec::new();
    for (table, charts, file) in parts {
        tables.push(table);
        figures.push(Figure::Charts { file, charts, cols: 3 });
    }
    Report { tables, figures, notes }
}

/// The four processes of a GLM figure on the population `data` from `theta0` with batch `n`, and
/// the truth (the population MLE): steps `etas` (MasGrad's, SGD's), or Thm. 4.1's at the truth;
/// `steps` 100 (40 with `--quick`); chains seeded from seed stream `stream`.
fn glm_chains(
    ctx: &Ctx,
    family: Family,
    data: &Data,
    theta0: Vec<f64>,
    n: usize,
    etas: Option<(f64, f64)>,
    stream: u64,
) -> Result<GlmChains> {
    let model = Glm::new(family, data.dim());
    let truth = fit_glm(&model, data)?.params;
    let (eta_masgrad, eta_sgd) = etas.unwrap_or_else(|| theorem_steps(&model, data, &truth));
    let steps = if ctx.quick { 40 } else { 100 };
    let s = Setting {
        model: &model,
        data,
        truth: &truth,
        theta0,
        n,
        eta_masgrad,
        eta_sgd,
        steps,
        chains: chains(ctx),
        seed: derive_seed(ctx.seed, stream),
    };
    let fits = four_processes(ctx, &s)?;
    Ok(GlmChains { fits, truth, etas: (eta_masgrad, eta_sgd) })
}

/// A GLM figure's chains, truth and steps (MasGrad's, SGD's).
struct GlmChains {
    fits: Vec<Fit>,
    truth: Vec<f64>,
    etas: (f64, f64),
}

/// `masgrad-linear` (Fig. 1; module documentation).
pub fn run_linear(ctx: &Ctx) -> Result<Report> {
    ctx.plan_runs(4);
    let mut rng = rng_from_seed(derive_seed(ctx.seed, 1));
    let scales = [0.1f64.sqrt(), 3.098f64.sqrt(), 0.2f64.sqrt(), 1.0];
    let w_star = [1.0, -1.0, 0.5, 2.0];
    let x = gaussian_rows(&mut rng, 500, &scales);
    let y: Vec<f64> = x
        .chunks_exact(4)
        .map(|r| {
            r.iter().zip(&w_star).map(|(a, b)| a * b).sum::<f64>()
                + <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng)
        })
        .collect();
    let data = Data::new(x, 4, y)?;
    let theta0 = gaussian_rows(&mut rng, 1, &[1.0; 4]);
    let GlmChains { fits, truth, etas: (eta_m, eta_s) } = glm_chains(ctx, Family::Linear, &data, theta0, 50, None, 11)?;
    let (t, c) = figure("Fig. 1 linear", "masgrad_linear", &fits, &truth, &[0, 1, 2, 3]);
    let note = format!(
        "Linear: Sigma = diag(0.1, 3.098, 0.2, 1), w* = (1, -1, 0.5, 2), N = 500, n = 50; steps 1/gamma (Thm. 4.1) at the truth: MasGrad {eta_m:.4}, SGD {eta_s:.4}."
    );
    Ok(report(vec![(t, c, "masgrad_linear.png".into())], vec![note]))
}

/// `masgrad-logistic` (Fig. 2; module documentation).
pub fn run_logistic(ctx: &Ctx) -> Result<Report> {
    ctx.plan_runs(4);
    let mut rng = rng_from_seed(derive_seed(ctx.seed, 2));
    let w_star: Vec<f64> = (0..4).map(|_| 1.0 + rng.random::<f64>()).collect();
    let x = gaussian_rows(&mut rng, 500, &[1.0; 4]);
    let y: Vec<f64> = x
        .chunks_exact(4)
        .map(|r| f64::from(rng.random::<f64>() < 1.0 / (1.0 + (-r.iter().zip(&w_star).map(|(a, b)| a * b).sum::<f64>()).exp())))
        .collect();
    let data = Data::new(x, 4, y)?;
    let theta0 = gaussian_rows(&mut rng, 1, &[1.0; 4]);
    let GlmChains { fits, truth, .. } = glm_chains(ctx, Family::Logistic, &data, theta0, 25, Some((0.2, 0.2)), 12)?;
    let (t, c) = figure("Fig. 2 logistic", "masgrad_logistic", &fits, &truth, &[0, 1, 2, 3]);
    let note = format!(
        "Logistic: N = 500 rows N(0, I_4), w* = {w_star:.3?} (U[1, 2]), n = 25, eta = 0.2 (beta = 250); truth = population MLE {truth:.3?}."
    );
    Ok(report(vec![(t, c, "masgrad_logistic.png".into())], vec![note]))
}

/// `masgrad-mixture` (Fig. 3 at both SNRs; module documentation).
pub fn run_mixture(ctx: &Ctx) -> Result<Report> {
    ctx.plan_runs(8);
    let mut parts = Vec::new();
    let mut notes = Vec::new();
    for (k, (snr, sigma, tag)) in [(3.3, 1.0 / 3.3, "3_3"), (1.0, 1.0, "1")].into_iter().enumerate() {
        let mut rng = rng_from_seed(derive_seed(ctx.seed, 3 + k as u64));
        let z: Vec<f64> = (0..1000)
            .map(|_| 1.0 + rng.random_range(0..3) as f64 + sigma * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng))
            .collect();
        let data = Data::new(z.clone(), 1, Vec::new())?;
        let model = GaussianMixture::new(3, sigma)?;
        let truth = mixture_mle(&z, sigma, &[1.0, 2.0, 3.0]);
        let mut theta0: Vec<f64> = (0..3).map(|_| 4.0 * rng.random::<f64>()).collect();
        theta0.sort_by(f64::total_cmp);
        let steps = if ctx.quick { 100 } else { 400 };
        let s = Setting {
            model: &model,
            data: &data,
            truth: &truth,
            theta0: theta0.clone(),
            n: 20,
            eta_masgrad: 0.05,
            eta_sgd: 0.05,
            steps,
            chains: chains(ctx),
            seed: derive_seed(ctx.seed, 13 + k as u64),
        };
        let fits = four_processes(ctx, &s)?;
        let (t, c) = figure(&format!("Fig. 3 mixture SNR {snr}"), &format!("masgrad_mixture_snr{tag}"), &fits, &truth, &[0, 1, 2]);
        notes.push(format!(
            "Mixture SNR {snr} (sigma {sigma:.3}): N = 1000, n = 20, eta = 0.05; start {theta0:.3?}; population MLE {truth:.3?}."
        ));
        parts.push((t, c, format!("masgrad_mixture_snr{tag}.png")));
    }
    Ok(report(parts, notes))
}
