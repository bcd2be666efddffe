//! Coverage of the default intervals of `fit(X, y)` and `gradfree infer` (maximum likelihood with
//! Wald intervals, [`gradfree_inference::Method::Mle`]) in memory and streamed, over the coverage
//! study's twelve designs (Chen, Lee, Tong & Zhang, Ann. Statist. 2020, sec. 5: linear and
//! logistic; identity, Toeplitz `0.5^|i-j|` and equicorrelated `0.2` rows; `d` = 5 and 20; `N =
//! 20000`) and random scaling's own logistic design (Lee, Liao, Seo & Shin, AAAI 2022, sec. 5:
//! `N = 10^5`, `x ~ N(0, I)`, `theta*` evenly spaced in `[0, 1]`, `d` = 5 and 20), with random
//! scaling beside them (one pass, `eta_t = eta_0 t^-0.505`, `eta_0 = 2 / (L d)` as in
//! [`super::inference_coverage`]).
//!
//! Each replication fits the default exactly as the front ends do: [`run`] on the rows in memory
//! (Newton's method, statsmodels' `GLM(...).fit()` numbers) and [`run_stream`] on the same rows
//! in chunks of 1000 (one pass, cumulatively updated estimating equations, Schifano et al. 2016).
//! The width column is the streamed interval's mean width over the in-memory (Wald) one's.
//! Coverage is averaged over coordinates and replications; its Monte Carlo standard error is the
//! standard deviation of the per-replication averages over `sqrt(R)`. 1000 replications (20 with
//! `--quick`, on a tenth of the rows); replication `r` of design `c` uses data seed `seed + 1000
//! c + r`.

use gradfree_core::derive_seed;
use gradfree_data::{Chunk, ChunkList};
use gradfree_inference::simulate::{Design, simulate};
use gradfree_inference::{Family, Glm, InferenceSpec, run, run_stream};
use rayon::prelude::*;

use super::inference_coverage::{one_pass_random_scaling, score};
use crate::{Chart, Ctx, Figure, Report, Result, Series, Table};

/// The designs: (model, design, d, N), the coverage study's twelve then Lee et al.'s two.
pub fn designs(quick: bool) -> Vec<(Family, Design, usize, usize)> {
    let scale = if quick { 10 } else { 1 };
    let mut out = Vec::new();
    for family in [Family::Linear, Family::Logistic] {
        for (design, _) in Design::ALL {
            for d in [5, 20] {
                out.push((family, design, d, 20_000 / scale));
            }
        }
    }
    for d in [5, 20] {
        out.push((Family::Logistic, Design::Identity, d, 100_000 / scale));
    }
    out
}

/// (coverage, width) of the default in memory, streamed, and of random scaling, on one data set.
fn replication(family: Family, design: Design, d: usize, rows: usize, seed: u64) -> Result<[(f64, f64); 3]> {
    let (data, truth) = simulate(design, d, family, rows, seed)?;
    let model = Glm::new(family, d);
    let spec = InferenceSpec::default();
    let memory = run(&model, &data, &spec, None)?;
    let chunks = data.rows().chunks(1000 * d).zip(data.responses().chunks(1000)).map(|(x, y)| Chunk { x: x.to_vec(), y: y.to_vec() });
    let streamed = run_stream(&model, &mut ChunkList::new(d, chunks.collect()), &spec, None, None)?;
    let rs_spec = one_pass_random_scaling(family, d, derive_seed(seed, 7));
    let mut one_pass = ChunkList::new(d, vec![Chunk { x: data.rows().to_vec(), y: data.responses().to_vec() }]);
    let rs = run_stream(&model, &mut one_pass, &rs_spec, None, None)?;
    let mut out = [(0.0, 0.0); 3];
    for (o, fit) in out.iter_mut().zip([&memory, &streamed, &rs]) {
        let (l, h) = fit.conf_int(0.95)?;
        *o = score(&l, &h, &truth);
    }
    Ok(out)
}

/// Runs the experiment of the module documentation.
pub fn run_default(ctx: &Ctx) -> Result<Report> {
    let reps = ctx.runs(20, 1000);
    let designs = designs(ctx.quick);
    ctx.plan_runs((designs.len() * reps) as u64);
    let mut table = Table::new(
        format!("Coverage of the default 95% intervals (maximum likelihood, Wald) over {reps} replications; +- Monte Carlo s.e."),
        "inference_default",
        &["model", "design", "d", "N", "in memory", "streamed (one pass)", "streamed width / Wald", "random scaling", "RS width / Wald"],
    );
    let (mut lowest, mut highest) = (1.0f64, 0.0f64);
    let mut lines: [Vec<(f64, f64)>; 3] = Default::default();
    let mut errors: [Vec<(f64, f64, f64)>; 3] = Default::default();
    for (c, &(family, design, d, rows)) in designs.iter().enumerate() {
        let results: Vec<[(f64, f64); 3]> = (0..reps)
            .into_par_iter()
            .map(|r| -> Result<[(f64, f64); 3]> {
                let out = replication(family, design, d, rows, ctx.seed + 1000 * c as u64 + r as u64)?;
                ctx.finished_one();
                Ok(out)
            })
            .collect::<Result<_>>()?;
        // Each method's mean coverage and its Monte Carlo standard error, for the table and the chart.
        let stats: Vec<(f64, f64)> = (0..3)
            .map(|m| {
                let cov: Vec<f64> = results.iter().map(|r| r[m].0).collect();
                let (mean, sd) = gradfree_core::stats::mean_sd(&cov);
                (mean, sd / (reps as f64).sqrt())
            })
            .collect();
        let text = |m: usize| format!("{:.3} +- {:.3}", stats[m].0, stats[m].1);
        let width = |m: usize| results.iter().map(|r| r[m].1).sum::<f64>() / reps as f64;
        for (m, &(mean, se)) in stats.iter().enumerate() {
            lines[m].push((c as f64 + 1.0, mean));
            errors[m].push((c as f64 + 1.0, mean - 2.0 * se, mean + 2.0 * se));
        }
        lowest = lowest.min(stats[0].0).min(stats[1].0);
        highest = highest.max(stats[0].0).max(stats[1].0);
        table.push(vec![
            if family == Family::Linear { "linear" } else { "logistic" }.into(),
            design.name().into(),
            d.to_string(),
            rows.to_string(),
            text(0),
            text(1),
            format!("{:.4}", width(1) / width(0)),
            text(2),
            format!("{:.3}", width(2) / width(0)),
        ]);
    }
    let notes = vec![
        format!("The default's coverage ranges over {lowest:.3}-{highest:.3} across the {} designs, in memory and streamed.", designs.len()),
        "In memory the default is statsmodels' GLM(...).fit() (Newton's method, Wald intervals; Student's t on N - p degrees of freedom for the linear model); streamed, one pass in chunks of 1000 rows.".into(),
        "Figure: designs 1-6 are linear and 7-12 logistic (identity, Toeplitz, equicorrelation; d = 5 then 20), 13-14 Lee et al.'s logistic design (d = 5, 20).".into(),
        "Random scaling (one pass of averaged SGD) is beside it for comparison: its intervals are wider and, at d = 20 with logistic rows, its average has not settled after one pass.".into(),
    ];
    let labels = ["default, in memory (Wald)", "default, streamed (one pass)", "random scaling (one pass)"];
    let mut series: Vec<Series> =
        labels.iter().zip(lines).zip(errors).map(|((l, points), errors)| Series { label: l.to_string(), points, errors }).collect();
    let n = designs.len() as f64;
    series.push(Series { label: "0.935".into(), points: vec![(1.0, 0.935), (n, 0.935)], errors: Vec::new() });
    series.push(Series { label: "0.965".into(), points: vec![(1.0, 0.965), (n, 0.965)], errors: Vec::new() });
    let chart = Chart {
        title: format!("coverage of 95% intervals, {reps} replications (+- 2 s.e.)"),
        x_label: "design (the table's order)".into(),
        y_label: "coverage".into(),
        log_y: false,
        series,
    };
    let figures = vec![Figure::Charts { file: "inference_default.png".into(), charts: vec![chart], cols: 1 }];
    Ok(Report { tables: vec![table], figures, notes })
}
