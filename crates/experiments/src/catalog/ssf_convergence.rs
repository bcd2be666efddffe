//! Thesis sec. 6.6.1, Fig. 6.1: convergence of Algorithm 12 (coordinate ascent on `J(Lambda)`,
//! eq. 6.34-6.35) for `(m, n) = (160, 1600)`: the log-energy `-J(Lambda)` after each sweep, from
//! five random starts. The thesis reports fewer than ten sweeps to a local optimum. `--quick`:
//! `(m, n) = (40, 400)`, three starts.

use std::time::Instant;

use gradfree_core::derive_seed;
use gradfree_qmc::sphere::energy::{AscentOptions, coordinate_ascent};

use crate::{Ctx, Figure, Report, Result, Series, Table};

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let (m, n) = if ctx.quick { (40usize, 400u64) } else { (160, 1600) };
    let starts = ctx.runs(3, 5);
    ctx.plan_runs(starts as u64);
    let mut t = Table::new(
        format!("Fig. 6.1: Algorithm 12, (m, n) = ({m}, {n}): -J(Lambda) after each sweep"),
        "fig_6_1_ssf_convergence",
        &["start", "sweeps to converge", "-J at start", "-J at the end", "seconds", "-J per sweep"],
    );
    let mut series = Vec::new();
    let mut most = 0;
    for s in 0..starts {
        let t0 = Instant::now();
        let (_, trace) = coordinate_ascent(m, n, &AscentOptions::default(), derive_seed(ctx.seed, s as u64), None)?;
        let secs = t0.elapsed().as_secs_f64();
        ctx.finished_one();
        // Sweeps until nothing changed (the last sweep only confirms the optimum).
        let sweeps = if trace.converged { trace.changes.len() - 1 } else { trace.changes.len() };
        most = most.max(sweeps);
        let neg: Vec<f64> = trace.objective.iter().map(|j| -j).collect();
        t.push(vec![
            s.to_string(),
            if trace.converged { sweeps.to_string() } else { format!("> {sweeps}") },
            format!("{:.4}", neg[0]),
            format!("{:.4}", neg[neg.len() - 1]),
            format!("{secs:.2}"),
            neg.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join(" "),
        ]);
        series.push(Series {
            label: format!("start {s}"),
            points: neg.iter().enumerate().map(|(k, v)| (k as f64, *v)).collect(),
            errors: Vec::new(),
        });
    }
    let figure =
        Figure::panels("fig_6_1_ssf_convergence.png", vec![(format!("(m, n) = ({m}, {n})"), series)], "sweep", "-J(Lambda)", false, 1);
    Ok(Report {
        tables: vec![t],
        figures: vec![figure],
        notes: vec![format!(
            "At most {most} sweeps changed an index before a sweep changed none (the thesis: fewer than ten). Sweep 0 is the random start."
        )],
    })
}
