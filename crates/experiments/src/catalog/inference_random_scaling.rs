//! Coverage of random scaling's intervals, the default for the models without maximum likelihood
//! (the mixture and the ReLU network), with the truth known: averaged SGD in passes over the rows
//! with every chain pooled (Lee, Liao, Seo & Shin, AAAI 2022; [`gradfree_inference::passes`]), run
//! with the library's defaults exactly as `fit(X, y, model=...)` and `gradfree infer` run it.
//!
//! Designs. Tuning (the warning thresholds were chosen on these two): the one-dimensional mixture
//! of Liang & Su sec. 7 with means `(1, 2, 3)`, equal weights and `sigma = 1/3.3` and `1/2`, `N =
//! 5000`. Held out: the mixture at `sigma = 2/3`; a mixture of four means `(0, 1.5, 3, 4.5)` at
//! `sigma = 0.5`; the two-layer ReLU network of sec. 7 (`d = 2`, `k = 2`, and `d = 3`, `k = 3`;
//! rows `N(0, I)`, true weights one seeded `N(0, 1)` draw, noise `N(0, 0.1^2)`, `N = 5000`),
//! started at the truth plus `N(0, 0.3^2)` noise (a network's weights are identified only near
//! one of its symmetric optima, so the interval is for the optimum the run settles at); and the
//! linear model with equicorrelated columns (`rho = 0.9`, `d = 4`, `theta* = 0.5`, `N = 20000`).
//!
//! Each replication draws its data from seed `seed + 1000 c + r` (design `c`, replication `r`)
//! and fits with the defaults; coverage is averaged over coordinates, "warned" is the share of
//! fits whose result carries a warning that the average has not settled, and "coverage if not
//! warned" is over the others. "se / sd" is the mean standard error over the standard deviation
//! of the estimates across replications (1 when `bse` is a standard error); "stopped" is the share
//! of fits that ended in an error (a diverged chain) instead of a result. 500 replications (12
//! with `--quick`, on a fifth of the rows).

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_inference::warning::WarningKind;
use gradfree_inference::{Data, GaussianMixture, Glm, InferenceSpec, Method, Model, ReluNet, run};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

fn normal(rng: &mut gradfree_core::GfRng) -> f64 {
    StandardNormal.sample(rng)
}

/// A design: its name, whether the thresholds were tuned on it, and its data and truth by seed.
struct Design {
    name: &'static str,
    tuning: bool,
    rows: usize,
    kind: Kind,
}

enum Kind {
    Mixture { means: Vec<f64>, sigma: f64 },
    Relu { d: usize, k: usize },
    Linear { d: usize, rho: f64 },
}

fn designs() -> Vec<Design> {
    let mixture =
        |name, tuning, means: &[f64], sigma| Design { name, tuning, rows: 5000, kind: Kind::Mixture { means: means.to_vec(), sigma } };
    vec![
        mixture("mixture, 3 means, sigma 1/3.3", true, &[1.0, 2.0, 3.0], 1.0 / 3.3),
        mixture("mixture, 3 means, sigma 1/2", true, &[1.0, 2.0, 3.0], 0.5),
        mixture("mixture, 3 means, sigma 2/3", false, &[1.0, 2.0, 3.0], 2.0 / 3.0),
        mixture("mixture, 4 means, sigma 1/2", false, &[0.0, 1.5, 3.0, 4.5], 0.5),
        Design { name: "ReLU network, d = 2, k = 2", tuning: false, rows: 5000, kind: Kind::Relu { d: 2, k: 2 } },
        Design { name: "ReLU network, d = 3, k = 3", tuning: false, rows: 5000, kind: Kind::Relu { d: 3, k: 3 } },
        Design { name: "linear, equicorrelated 0.9, d = 4", tuning: false, rows: 20_000, kind: Kind::Linear { d: 4, rho: 0.9 } },
    ]
}

/// One replication: (coverage over coordinates, warned, the estimate, the standard errors).
type Outcome = (f64, bool, Vec<f64>, Vec<f64>);

fn replication(design: &Design, rows: usize, seed: u64) -> Result<Outcome> {
    let mut rng = rng_from_seed(seed);
    let spec = InferenceSpec { method: Method::RandomScaling, seed: derive_seed(seed, 1), ..InferenceSpec::default() };
    let (fit, truth) = match &design.kind {
        Kind::Mixture { means, sigma } => {
            let z: Vec<f64> = (0..rows).map(|_| means[rng.random_range(0..means.len())] + sigma * normal(&mut rng)).collect();
            let model = GaussianMixture::new(means.len(), *sigma)?;
            (run(&model, &Data::new(z, 1, Vec::new())?, &spec, None)?, means.clone())
        }
        Kind::Relu { d, k } => {
            let model = ReluNet::new(*d, *k)?;
            let mut truth_rng = rng_from_seed(40 + *d as u64);
            let truth: Vec<f64> = (0..model.dim()).map(|_| normal(&mut truth_rng)).collect();
            let x: Vec<f64> = (0..rows * d).map(|_| normal(&mut rng)).collect();
            let y: Vec<f64> = x.chunks_exact(*d).map(|r| model.predict(&truth, r) + 0.1 * normal(&mut rng)).collect();
            let theta0 = truth.iter().map(|t| t + 0.3 * normal(&mut rng)).collect();
            let spec = InferenceSpec { theta0: Some(theta0), ..spec };
            (run(&model, &Data::new(x, *d, y)?, &spec, None)?, truth)
        }
        Kind::Linear { d, rho } => {
            let (a, b) = (rho.sqrt(), (1.0 - rho).sqrt());
            let mut x = Vec::with_capacity(rows * d);
            let mut y = Vec::with_capacity(rows);
            for _ in 0..rows {
                let common = normal(&mut rng);
                let row: Vec<f64> = (0..*d).map(|_| a * common + b * normal(&mut rng)).collect();
                y.push(0.5 * row.iter().sum::<f64>() + normal(&mut rng));
                x.extend(row);
            }
            let model = Glm::new(gradfree_inference::Family::Linear, *d);
            (run(&model, &Data::new(x, *d, y)?, &spec, None)?, vec![0.5; *d])
        }
    };
    let (lo, hi) = fit.conf_int(0.95)?;
    let covered = truth.iter().enumerate().filter(|(j, t)| lo[*j] <= **t && **t <= hi[*j]).count() as f64 / truth.len() as f64;
    let warned = fit.warnings.iter().any(|w| w.kind == WarningKind::Convergence);
    Ok((covered, warned, fit.params.clone(), fit.bse()?.to_vec()))
}

/// Runs the experiment of the module documentation.
pub fn run_random_scaling(ctx: &Ctx) -> Result<Report> {
    let reps = ctx.runs(12, 500);
    let designs = designs();
    ctx.plan_runs((designs.len() * reps) as u64);
    let mut table = Table::new(
        format!("Random scaling's 95% intervals with the defaults (3 passes, 100 chains pooled), {reps} replications; +- Monte Carlo s.e."),
        "inference_random_scaling",
        &["design", "split", "N", "coverage", "warned", "coverage if not warned", "se / sd", "stopped"],
    );
    let mut first_errors = Vec::new();
    let series = |label: &str| Series { label: label.into(), points: Vec::new(), errors: Vec::new() };
    let (mut all_fits, mut unwarned) = (series("every fit (+- 2 s.e.)"), series("fits without a warning"));
    for (c, design) in designs.iter().enumerate() {
        let rows = if ctx.quick { design.rows / 5 } else { design.rows };
        let all: Vec<Result<Outcome>> = (0..reps)
            .into_par_iter()
            .map(|r| {
                let out = replication(design, rows, ctx.seed + 1000 * c as u64 + r as u64);
                ctx.finished_one();
                out
            })
            .collect();
        let stopped = all.iter().filter(|r| r.is_err()).count();
        if let Some(Err(e)) = all.iter().find(|r| r.is_err()) {
            first_errors.push(format!("{}: {stopped} of {reps} fits stopped with an error, the first: {e}", design.name));
        }
        let results: Vec<Outcome> = all.into_iter().filter_map(|r| r.ok()).collect();
        if results.is_empty() {
            table.push(vec![
                design.name.into(),
                if design.tuning { "tuning" } else { "held out" }.into(),
                rows.to_string(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
                format!("{:.3}", 1.0),
            ]);
            continue;
        }
        let reps_ok = results.len();
        let cover: Vec<f64> = results.iter().map(|r| r.0).collect();
        let (mean, sd) = gradfree_core::stats::mean_sd(&cover);
        let x = c as f64 + 1.0;
        let mc = sd / (results.len() as f64).sqrt();
        all_fits.points.push((x, mean));
        all_fits.errors.push((x, mean - 2.0 * mc, mean + 2.0 * mc));
        let kept: Vec<f64> = results.iter().filter(|r| !r.1).map(|r| r.0).collect();
        let warned = 1.0 - kept.len() as f64 / reps_ok as f64;
        let kept_text = if kept.is_empty() {
            "-".to_string()
        } else {
            let (m, s) = gradfree_core::stats::mean_sd(&kept);
            unwarned.points.push((x, m));
            format!("{m:.3} +- {:.3}", s / (kept.len() as f64).sqrt())
        };
        let p = results[0].2.len();
        let ratio = (0..p)
            .map(|j| {
                let est: Vec<f64> = results.iter().map(|r| r.2[j]).collect();
                let se = results.iter().map(|r| r.3[j]).sum::<f64>() / reps_ok as f64;
                se / gradfree_core::stats::mean_sd(&est).1
            })
            .sum::<f64>()
            / p as f64;
        table.push(vec![
            design.name.into(),
            if design.tuning { "tuning" } else { "held out" }.into(),
            rows.to_string(),
            format!("{mean:.3} +- {:.3}", sd / (reps_ok as f64).sqrt()),
            format!("{warned:.3}"),
            kept_text,
            format!("{ratio:.3}"),
            format!("{:.3}", stopped as f64 / reps as f64),
        ]);
    }
    let mut notes = vec![
        "Defaults: batch N/400 between 10 and 25, 3 passes (each from the average of the one before), the first with the step 1/lambda_max and the later ones with the gain H^-1 (the Hessian at their start), decay 0.505, 100 chains pooled with their own law.".into(),
        "A fit is warned when the last pass's average carries more than 0.2 standard errors of its start's distance to the estimate, when the last pass starts where the mean loss is not convex, or when its slowest direction relaxes fewer than 30 times.".into(),
        "ReLU networks start at the truth plus N(0, 0.3^2) noise: their intervals are for the optimum the run settles at.".into(),
    ];
    notes.extend(first_errors);
    notes.push("Figure: the designs in the table's order; the band 0.93-0.97 is the target.".into());
    let n = designs.len() as f64;
    let band = |y: f64| Series { label: format!("{y}"), points: vec![(1.0, y), (n, y)], errors: Vec::new() };
    let chart = Chart {
        title: format!("random scaling's 95% intervals: coverage, {reps} replications"),
        x_label: "design (the table's order)".into(),
        y_label: "coverage".into(),
        log_y: false,
        series: vec![all_fits, unwarned, band(0.93), band(0.97)],
    };
    let figures = vec![Figure::Charts { file: "inference_random_scaling.png".into(), charts: vec![chart], cols: 1 }];
    Ok(Report { tables: vec![table], figures, notes })
}
