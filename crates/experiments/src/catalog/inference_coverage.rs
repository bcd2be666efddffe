//! The coverage study statisticians ask for: the protocol of Chen, Lee, Tong & Zhang (Ann. Statist.
//! 2020, sec. 5) as reused by Lee, Liao, Seo & Shin (AAAI 2022) — rows `x ~ N(0, Sigma)` with
//! `Sigma` the identity, Toeplitz `0.5^|i-j|` or equicorrelation `0.2`, `d` in {5, 20}, `theta*`
//! evenly spaced in `[0, 1]`, linear and logistic models ([`gradfree_inference::simulate`]) — and
//! the coverage and mean width of 95% intervals for `theta*_j` over `R` replications of `N` rows:
//!
//! - **Wald**: the maximum-likelihood fit and `(X^T W X)^{-1}` (statsmodels' `GLM.fit()`; the
//!   script `benches/inference_coverage_statsmodels.py` runs statsmodels itself on the same data);
//! - **one-pass MLE**: the same estimator in one pass over the rows in order, in chunks of 1000
//!   (cumulatively updated estimating equations, Schifano et al. 2016, [`gradfree_inference::cuee`]),
//!   with its Wald intervals: what a stream can give;
//! - **random scaling**: one pass of averaged SGD over the rows in order, `eta_t = eta_0 t^-0.505`
//!   (Lee et al.'s decay) with `eta_0 = 2 / (L d)`, `L` the loss's curvature bound (1 linear, 1/4
//!   logistic), so `eta_0 L E||x||^2 = 2`, the edge of SGD's stable range. Measured: Lee et al.'s
//!   `eta_0 = 0.5` makes the linear model's first steps explode at `d = 20` (coverage 0.99 with
//!   intervals 5-50 times Wald's), and `eta_0 = 2/d` leaves the logistic model unconverged after
//!   one pass (coverage 0.1 at `d = 20`); its interval with the critical value 6.747;
//! - **MasGrad, batch V**: the paper's sec. 6.1 settings, the command's defaults before maximum
//!   likelihood became the default (`n = 25`, `eta = 0.2`, so `beta = 2n/eta = 250`; `V` from the
//!   step's batch; 200 steps from the origin), its band read as if it were an interval;
//! - **MasGrad, beta = N**: `n = N/10`, `eta = 0.2` (so `beta = N`), `V` from an independent batch,
//!   100 steps from the origin.
//!
//! `N = 20000` rows (2000 with `--quick`); MasGrad runs 30 chains (20) and reads normal intervals
//! (mean +- 1.96 sd) off them: with 30 chains the 2.5% and 97.5% quantiles are nearly the extremes.
//!
//! Replication `r` of configuration `c` (in the table's order, from 0) uses seed
//! `seed + 1000 c + r` for its data, so the statsmodels script regenerates the same rows. Coverage
//! is averaged over coordinates; its Monte Carlo standard error is the standard deviation of the
//! per-replication averages over `sqrt(R)`.

use gradfree_core::derive_seed;
use gradfree_data::{Chunk, ChunkList};
use gradfree_inference::cuee::fit_glm_stream;
use gradfree_inference::mle::{CovType, fit_glm};
use gradfree_inference::simulate::{Design, simulate};
use gradfree_inference::{Data, Family, Fit, Glm, InferenceSpec, IntervalKind, Method, Moments, run, run_stream};
use rayon::prelude::*;

use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

/// The methods compared, in the table's order.
pub const METHODS: [&str; 5] =
    ["Wald (MLE, the default)", "one-pass MLE (streamed default)", "random scaling", "MasGrad, batch V (beta = 250)", "MasGrad, beta = N"];

/// The configurations in order: (model, design, d).
pub fn configurations() -> Vec<(Family, Design, usize)> {
    let mut out = Vec::new();
    for family in [Family::Linear, Family::Logistic] {
        for (design, _) in Design::ALL {
            for d in [5, 20] {
                out.push((family, design, d));
            }
        }
    }
    out
}

/// Random scaling in one pass, batch 1, `eta_0 = 2 / (L d)`: `eta_0 L E||x||^2 = 2` with `L` the
/// loss's curvature bound (1 linear, 1/4 logistic), the edge of SGD's stable range.
pub(crate) fn one_pass_random_scaling(family: Family, d: usize, seed: u64) -> InferenceSpec {
    let curvature = if family == Family::Linear { 1.0 } else { 0.25 };
    InferenceSpec {
        method: Method::RandomScaling,
        batch_size: Some(1),
        step: Some(2.0 / (curvature * d as f64)),
        chains: 1,
        seed,
        ..InferenceSpec::default()
    }
}

/// Coverage (fraction of coordinates) and mean width of one method on one replication.
pub(crate) fn score(lo: &[f64], hi: &[f64], truth: &[f64]) -> (f64, f64) {
    let d = truth.len() as f64;
    let covered = truth.iter().enumerate().filter(|(j, t)| lo[*j] <= **t && **t <= hi[*j]).count() as f64;
    let width = lo.iter().zip(hi).map(|(l, h)| h - l).sum::<f64>() / d;
    (covered / d, width)
}

/// The four methods' (coverage, width) on one data set.
fn replication(data: &Data, truth: &[f64], family: Family, rows: usize, chains: usize, seed: u64) -> Result<[(f64, f64); 5]> {
    let d = truth.len();
    let model = Glm::new(family, d);
    let wald = fit_glm(&model, data)?.wald(0.95);
    // The same estimator in one pass over the rows in order, chunks of 1000 as a stream delivers.
    let chunks = data.rows().chunks(1000 * d).zip(data.responses().chunks(1000)).map(|(x, y)| Chunk { x: x.to_vec(), y: y.to_vec() });
    let streamed = fit_glm_stream(&model, &mut ChunkList::new(d, chunks.collect()), CovType::Nonrobust, None)?.wald(0.95);
    let rs_spec = one_pass_random_scaling(family, d, seed);
    let mut one_pass = ChunkList::new(d, vec![Chunk { x: data.rows().to_vec(), y: data.responses().to_vec() }]);
    let rs = run_stream(&model, &mut one_pass, &rs_spec, None, None)?;
    let defaults = InferenceSpec {
        method: Method::Masgrad,
        moments: Some(Moments::Batch),
        chains,
        seed,
        interval: IntervalKind::Normal,
        ..InferenceSpec::default()
    };
    let masgrad = run(&model, data, &defaults, None)?;
    let matched = InferenceSpec {
        batch_size: Some(rows / 10),
        chains,
        steps: 100,
        method: Method::Masgrad,
        moments: Some(Moments::Independent),
        interval: IntervalKind::Normal,
        seed,
        ..InferenceSpec::default()
    };
    let tempered = run(&model, data, &matched, None)?;
    // Random scaling's confidence interval; MasGrad's band read as one.
    let scored = |fit: &Fit| -> Result<(f64, f64)> {
        let (l, h) = if fit.spec.method.is_process() { fit.bands(0.95)? } else { fit.conf_int(0.95)? };
        Ok(score(&l, &h, truth))
    };
    Ok([score(&wald.0, &wald.1, truth), score(&streamed.0, &streamed.1, truth), scored(&rs)?, scored(&masgrad)?, scored(&tempered)?])
}

/// Runs the experiment of the module documentation.
pub fn run_coverage(ctx: &Ctx) -> Result<Report> {
    let reps = ctx.runs(8, 200);
    let (rows, chains) = if ctx.quick { (2000, 20) } else { (20_000, 30) };
    let configs = configurations();
    ctx.plan_runs((configs.len() * reps) as u64);
    let mut table = Table::new(
        format!("Coverage of 95% intervals over {reps} replications of N = {rows} rows (Chen et al. 2020 protocol); +- Monte Carlo s.e."),
        "inference_coverage",
        &["model", "design", "d", "method", "coverage", "mean width"],
    );
    let mut lines: Vec<Vec<(f64, f64)>> = vec![Vec::new(); METHODS.len()];
    for (c, &(family, design, d)) in configs.iter().enumerate() {
        let results: Vec<[(f64, f64); 5]> = (0..reps)
            .into_par_iter()
            .map(|r| -> Result<[(f64, f64); 5]> {
                let seed = ctx.seed + 1000 * c as u64 + r as u64;
                let (data, truth) = simulate(design, d, family, rows, seed)?;
                let out = replication(&data, &truth, family, rows, chains, derive_seed(seed, 7))?;
                ctx.finished_one();
                Ok(out)
            })
            .collect::<Result<_>>()?;
        let model = if family == Family::Linear { "linear" } else { "logistic" };
        for (m, name) in METHODS.iter().enumerate() {
            let cov: Vec<f64> = results.iter().map(|r| r[m].0).collect();
            let (mean, sd) = gradfree_core::stats::mean_sd(&cov);
            let width = results.iter().map(|r| r[m].1).sum::<f64>() / reps as f64;
            table.push(vec![
                model.into(),
                design.name().into(),
                d.to_string(),
                name.to_string(),
                format!("{mean:.3} +- {:.3}", sd / (reps as f64).sqrt()),
                format!("{width:.4}"),
            ]);
            lines[m].push((c as f64 + 1.0, mean));
        }
    }
    let mut series: Vec<Series> =
        METHODS.iter().zip(lines).map(|(n, points)| Series { label: n.to_string(), points, errors: Vec::new() }).collect();
    series.push(Series { label: "nominal 0.95".into(), points: vec![(1.0, 0.95), (configs.len() as f64, 0.95)], errors: Vec::new() });
    let chart = Chart {
        title: "coverage of 95% intervals: configurations 1-6 linear, 7-12 logistic (identity, Toeplitz, equicorrelation; d = 5, 20)"
            .into(),
        x_label: "configuration".into(),
        y_label: "coverage".into(),
        log_y: false,
        series,
    };
    let notes = vec![
        "Figure: configurations 1-6 are linear, 7-12 logistic, each identity, Toeplitz, equicorrelation with d = 5 then 20 (the table's order).".into(),
        format!("Replication r of configuration c uses data seed {} + 1000 c + r; benches/inference_coverage_statsmodels.py fits statsmodels' GLM on the same rows.", ctx.seed),
        "MasGrad's chains spread like the process at inverse temperature beta = 2n/eta, not like an estimator: near the optimum its diffusion d theta = -A theta dt + sqrt(2/beta) dB, A = V^-1 H, has the stationary covariance C with A C + C A^T = (2/beta) I (C = A^-1 / beta when A is symmetric), while the estimator's is H^-1 V^2 H^-1 / N.".into(),
        "Linear model with identity design (V = H^1/2 up to the noise level): both are I/N when beta = N, so 'beta = N' covers there; with correlated rows, or logistic weights (V^2 = H, so (1/beta) H^-1/2 vs H^-1/N), they differ and coverage misses. Random scaling and Wald are built to cover.".into(),
    ];
    Ok(Report {
        tables: vec![table],
        figures: vec![Figure::Charts { file: "inference_coverage.png".into(), charts: vec![chart], cols: 1 }],
        notes,
    })
}
