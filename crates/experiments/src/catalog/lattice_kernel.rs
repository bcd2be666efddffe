//! Thesis sec. 5.5.3, Fig. 5.2: QMC feature maps (eq. 5.21) on StatLog DNA (3,186 x 180) for the
//! Gaussian (bandwidth 15, as the thesis), zero-order and first-order arc-cosine kernels:
//! randomly shifted SubGroup rank-1 lattice vs randomly shifted Hua lattice, scrambled Halton and
//! Sobol, and i.i.d. Monte Carlo; relative Frobenius and max Gram errors, mean ± std over runs of
//! 2,000 random rows: 10 by default, `--runs 50` for the thesis' count (about four hours on two
//! cores: each run forms 75 Gram matrices of up to 12,962 features).
//!
//! Choices where the thesis is silent: the numbers of points are the first five primes `n` with
//! `2d | n - 1` (the sizes a SubGroup lattice has), each method using `N = n` projections (`2n`
//! features). `--quick`: the first two sizes, 2 runs of 300 rows.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_data::load_labeled;
use gradfree_features::projection::DenseProjection;
use gradfree_features::{FeatureMap, FeatureSpec, Kernel, LinearOp, Method};
use gradfree_qmc::{admissible_sizes, hua, subgroup};

use super::kernel_error::{Cell, errors_of, exact, mean_std, panels as kernel_panels, run_rows};
use crate::{Ctx, Figure, Report, Result, Table};

const LABELS: [&str; 5] = ["SubGroup", "Hua", "Halton", "Sobol", "MC"];

/// The `n` directions of method `mi` for `d`-dimensional inputs.
fn projection(mi: usize, d: usize, n: u64, seed: u64) -> Result<Box<dyn LinearOp>> {
    let shifted = |lattice: gradfree_qmc::Rank1Lattice| -> Result<Box<dyn LinearOp>> {
        let lat = lattice.random_shift(&mut rng_from_seed(seed));
        let mut u = vec![0.0; n as usize * d];
        lat.fill_par(0, n as usize, &mut u);
        Ok(Box::new(DenseProjection::from_uniform(u, d)?))
    };
    match mi {
        0 => shifted(subgroup(d, n)?),
        1 => shifted(hua(d, n)?),
        2 => Ok(Box::new(DenseProjection::halton(d, n as usize, seed)?)),
        3 => Ok(Box::new(DenseProjection::sobol(d, n as usize, seed)?)),
        _ => Ok(gradfree_features::projection::build(Method::Iid, d, n as usize, Default::default(), seed)?),
    }
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let data = load_labeled("dna")?;
    let d = data.d;
    let sizes = admissible_sizes(d, 2, if ctx.quick { 2 } else { 5 });
    let rows = if ctx.quick { 300 } else { 2000 };
    let runs = ctx.runs(2, 10);
    let kernels = [
        (Kernel::Gaussian { sigma: 15.0 }, "Gaussian (sigma 15)"),
        (Kernel::ArcCos { order: 0 }, "arc-cosine 0"),
        (Kernel::ArcCos { order: 1 }, "arc-cosine 1"),
    ];
    ctx.plan_runs((runs * sizes.len() * kernels.len() * LABELS.len()) as u64);
    let mut cells = vec![vec![vec![Cell::default(); LABELS.len()]; sizes.len()]; kernels.len()];
    for r in 0..runs {
        let x = run_rows(&data, rows, ctx.seed, r);
        for (ki, (kernel, _)) in kernels.iter().enumerate() {
            let k_exact = exact(kernel, &x, d)?;
            for (si, &n) in sizes.iter().enumerate() {
                for (mi, cell) in cells[ki][si].iter_mut().enumerate() {
                    let seed = derive_seed(ctx.seed, ((r as u64) << 24) | ((si as u64) << 16) | ((ki as u64) << 8) | mi as u64);
                    let map = FeatureMap::with_projection(FeatureSpec::new(*kernel, Method::Iid, 0, seed), projection(mi, d, n, seed)?);
                    cell.push(errors_of(&map, &x, &k_exact)?);
                    ctx.finished_one();
                }
            }
        }
    }
    let mut headers = vec!["kernel".to_string(), "n".to_string()];
    for l in LABELS {
        headers.push(format!("{l} Frobenius"));
        headers.push(format!("{l} max"));
    }
    let hdr: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!("Fig. 5.2 protocol on DNA ({} x {d}): relative Gram errors, mean ± std over {runs} runs of {rows} rows", data.n),
        "fig_5_2_lattice_kernel",
        &hdr,
    );
    let mut panels = Vec::new();
    let mut wins = 0;
    let mut cases = 0;
    for (ki, (_, kname)) in kernels.iter().enumerate() {
        for (si, &n) in sizes.iter().enumerate() {
            let mut row = vec![kname.to_string(), n.to_string()];
            for c in &cells[ki][si] {
                let (f, m) = c.formatted();
                row.push(f);
                row.push(m);
            }
            let means: Vec<f64> = cells[ki][si].iter().map(|c| mean_std(&c.fro).0).collect();
            wins += usize::from(means[1..].iter().all(|&m| means[0] <= m));
            cases += 1;
            t.push(row);
        }
        let xs: Vec<f64> = sizes.iter().map(|&n| n as f64).collect();
        for (metric, series) in kernel_panels(&LABELS, &xs, &cells[ki]) {
            panels.push((format!("{kname}: {metric}"), series));
        }
    }
    Ok(Report {
        tables: vec![t],
        figures: vec![Figure::panels("fig_5_2_lattice_kernel.png", panels, "n (points = projections)", "error", true, 2)],
        notes: vec![format!(
            "SubGroup has the smallest mean Frobenius error of the five in {wins} of {cases} (kernel, n) cases (the thesis: consistently smaller)."
        )],
    })
}
