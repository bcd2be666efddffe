//! Thesis sec. 6.6.1, Fig. 6.2: time to construct the feature maps of a batch of inputs as the
//! dimension grows, `N = 2d` projections (`4d` Gaussian-kernel features), as speed-up over the
//! fully Gaussian map (a dense `N x d` matrix product): signed circulant (FFT), Halton and Sobol
//! QMC (the points are generated, then used as a dense matrix) and SSF (one FFT per row).
//!
//! Each timing is the median of three repetitions of building the map and transforming 256
//! random inputs, on all cores (the thesis measured MATLAB's). SSF uses random DFT rows here:
//! the cost of the projection does not depend on which rows, and Algorithm 12's O(m n^2) search
//! is done once per size, not per batch. `--quick`: d up to 512, one repetition, 64 inputs.

use std::time::Instant;

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_features::{FeatureMap, FeatureSpec, Kernel, Method, SsfFrequencies};
use rand_distr::{Distribution, StandardNormal};

use crate::{Ctx, Figure, Report, Result, Series, Table};

const METHODS: [(Method, &str); 5] = [
    (Method::Iid, "Gaussian"),
    (Method::Circulant, "Circulant"),
    (Method::Halton, "Halton"),
    (Method::Sobol, "Sobol"),
    (Method::Ssf, "SSF"),
];

fn seconds(method: Method, d: usize, x: &[f64], seed: u64, reps: usize) -> Result<f64> {
    let mut times = Vec::with_capacity(reps);
    for r in 0..reps {
        let mut spec = FeatureSpec::new(Kernel::Gaussian { sigma: (d as f64).sqrt() }, method, 4 * d, derive_seed(seed, r as u64));
        spec.ssf.frequencies = SsfFrequencies::Random;
        let t0 = Instant::now();
        let map = FeatureMap::new(spec, d)?;
        let z = map.transform(x)?;
        times.push(t0.elapsed().as_secs_f64());
        std::hint::black_box(z);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let dims: Vec<usize> = if ctx.quick { (6..=9).map(|k| 1 << k).collect() } else { (7..=13).map(|k| 1 << k).collect() };
    let (rows, reps) = if ctx.quick { (64, 1) } else { (256, 3) };
    ctx.plan_runs((dims.len() * METHODS.len()) as u64);
    let mut headers = vec!["d".to_string(), "N".to_string()];
    headers.extend(METHODS.iter().map(|m| format!("{} s", m.1)));
    headers.extend(METHODS.iter().skip(1).map(|m| format!("{} speed-up", m.1)));
    let hdr: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!("Fig. 6.2: seconds to map {rows} inputs (N = 2d), and speed-up over the Gaussian map"),
        "fig_6_2_ssf_speedup",
        &hdr,
    );
    let mut series: Vec<Series> =
        METHODS.iter().skip(1).map(|m| Series { label: m.1.into(), points: Vec::new(), errors: Vec::new() }).collect();
    // Warm-up (one-time set-up such as parsing the Sobol direction numbers is not construction time).
    for (method, _) in METHODS {
        seconds(method, 16, &[0.5; 16], ctx.seed, 1)?;
    }
    for &d in &dims {
        let mut rng = rng_from_seed(derive_seed(ctx.seed, d as u64));
        let x: Vec<f64> = (0..rows * d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let mut secs = Vec::new();
        for (method, _) in METHODS {
            secs.push(seconds(method, d, &x, ctx.seed, reps)?);
            ctx.finished_one();
        }
        let mut row = vec![d.to_string(), (2 * d).to_string()];
        row.extend(secs.iter().map(|s| format!("{s:.4}")));
        for (k, s) in secs.iter().enumerate().skip(1) {
            let speedup = secs[0] / s;
            row.push(format!("{speedup:.2}"));
            series[k - 1].points.push((d as f64, speedup));
        }
        t.push(row);
    }
    // Speed-ups at the largest d (series in METHODS order after the Gaussian map).
    let last: Vec<f64> = series.iter().map(|s| s.points.last().map_or(f64::NAN, |p| p.1)).collect();
    Ok(Report {
        tables: vec![t],
        figures: vec![Figure::panels(
            "fig_6_2_ssf_speedup.png",
            vec![("speed-up over the Gaussian map".into(), series)],
            "d",
            "speed-up",
            true,
            1,
        )],
        notes: vec![format!(
            "At d = {}: SSF {:.2}x and Circulant {:.2}x faster than the Gaussian map, Halton {:.2}x, Sobol {:.2}x (the thesis: SSF and Circulant grow with d, Halton stays constant and below 1).",
            dims.last().copied().unwrap_or(0),
            last[3],
            last[0],
            last[1],
            last[2],
        )],
    })
}
