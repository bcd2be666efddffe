//! Thesis Theorems 21 and 23 (sec. 7.2-7.3) measured: the objective (7.8)
//! `Q(y) = 1/2 ||x - W y / N||^2 + (1/N) sum_i phi(y_i)` after each layer (7.9) of the neural
//! optimization kernel, for every activation of Table 7.1 and ReLU, on real images, with `B` from
//! the SSF DFT rows (FFT products) and from blocks of orthogonal matrices, `N = 2d`, `R` Haar.
//!
//! Theorem 23 says that for any `phi`, `Q(y_{t+1}) <= Q(y_t) - ||(I - W^T W / N)(y_{t+1} - y_t)||^2 / (2N)`
//! on every input; the table counts the (row, layer) pairs where either inequality fails (beyond
//! rounding, `1e-9` relative). Then the unsupervised fit (7.16): the mean objective after the
//! `T1 = 5` layers of each of `T2 = 4` phases, each followed by a Procrustes R-step (7.17).
//!
//! Data: Fashion-MNIST test images (`--quick`: the digits), pixels centred by the mean image and
//! scaled to unit mean squared norm per pixel, 300 rows (`--quick`: 200). `lambda` is set relative
//! to `s`, the root mean square of the entries of `W^T x`, so that every activation thresholds a
//! comparable share of the codes: `lambda = s/2` for the l1-type penalties, hard thresholds at `s`
//! for l0 (`lambda = s^2/2`) and at `s/2` for MCP0 (`lambda = s^2/4`), `gamma = s` for capped l1.

use gradfree_core::derive_seed;
use gradfree_features::projection::SsfRotation;
use gradfree_robust::nok::{Activation, LayerScratch, NokBlock, NokLayer, NokSpec, Structure};
use rayon::prelude::*;

use crate::{Ctx, ExperimentError, Figure, Report, Result, Series, Table};

/// Layers per run.
const LAYERS: usize = 30;

fn activations(s: f64) -> Vec<(&'static str, Activation)> {
    vec![
        ("l0", Activation::L0 { lambda: s * s / 2.0 }),
        ("l1", Activation::L1 { lambda: s / 2.0 }),
        ("mcp", Activation::Mcp { lambda: s / 2.0, gamma: 3.0 }),
        ("capped-l1", Activation::CappedL1 { lambda: s / 2.0, gamma: s }),
        ("scad", Activation::Scad { lambda: s / 2.0, gamma: 3.7 }),
        ("mcp0", Activation::Mcp0 { lambda: s * s / 4.0 }),
        ("relu", Activation::Relu),
    ]
}

/// Per-layer objectives of one row and the number of layers breaking monotonicity and Thm 23.
struct RowTrace {
    q: Vec<f64>,
    increases: usize,
    margin_fails: usize,
}

fn trace_row(layer: &NokLayer, x: &[f64], s: &mut LayerScratch) -> RowTrace {
    let n = layer.width();
    let (mut y, mut next, mut c, mut py) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut wy = vec![0.0; layer.dim()];
    layer.inject(x, &mut c, s);
    let mut q = vec![layer.objective(x, &y, s)];
    let (mut increases, mut margin_fails) = (0, 0);
    for _ in 0..LAYERS {
        layer.step_injected(&c, &y, &mut next, s);
        let q1 = layer.objective(x, &next, s);
        let q0 = *q.last().expect("q starts with Q(0)");
        // ||(I - P) v||^2 with v = y_{t+1} - y_t and P = W^T W / N.
        let v: Vec<f64> = next.iter().zip(&y).map(|(a, b)| a - b).collect();
        layer.w(&v, &mut wy, s);
        layer.wt(&wy, &mut py, s);
        let margin: f64 = v.iter().zip(&py).map(|(a, b)| (a - b / n as f64).powi(2)).sum::<f64>() / (2.0 * n as f64);
        let tol = 1e-9 * q0.abs().max(1.0);
        increases += usize::from(q1 > q0 + tol);
        margin_fails += usize::from(q1 > q0 - margin + tol);
        q.push(q1);
        std::mem::swap(&mut y, &mut next);
    }
    RowTrace { q, increases, margin_fails }
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let data = gradfree_data::load_labeled(if ctx.quick { "digits" } else { "fashion-mnist" })?;
    let rows = if ctx.quick { 200 } else { 300 };
    let (n_all, d) = (data.n, data.d);
    // The last rows (the test split for Fashion-MNIST), centred and scaled.
    let idx: Vec<usize> = (n_all - rows..n_all).collect();
    let mut x = data.rows_f64(&idx);
    let mut mean = vec![0.0; d];
    for r in x.chunks_exact(d) {
        mean.iter_mut().zip(r).for_each(|(m, v)| *m += v / rows as f64);
    }
    x.chunks_exact_mut(d).for_each(|r| r.iter_mut().zip(&mean).for_each(|(v, m)| *v -= m));
    let scale = (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
    if scale <= 0.0 {
        return Err(ExperimentError::Invalid("the images are constant".into()));
    }
    x.iter_mut().for_each(|v| *v /= scale);

    let n = 2 * d;
    let mut t = Table::new(
        format!("Theorems 21/23: objective (7.8) per layer, {} ({rows} images, d = {d}, N = {n}), mean over images", data.name),
        "nok_descent",
        &["B", "activation", "lambda", "Q(0)", "Q(1)", "Q(5)", "Q(30)", "layers with Q up", "Thm 23 margin broken"],
    );
    let mut panels = Vec::new();
    let mut total_up = 0;
    let mut s_ssf = 1.0;
    for (si, structure) in [Structure::Ssf, Structure::Orthogonal].into_iter().enumerate() {
        let mut rng = gradfree_core::rng_from_seed(derive_seed(ctx.seed, 0x70c + si as u64));
        let b = structure.build(d, n, SsfRotation::Phase, &mut rng).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        let mut layer = NokLayer::new(b, Activation::Relu).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        layer
            .set_rotation(gradfree_core::linalg::random_orthogonal(d, derive_seed(ctx.seed, 0x707)))
            .map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        // s: RMS of the entries of W^T x over the rows.
        let mut s = LayerScratch::default();
        let mut c = vec![0.0; n];
        let s_rms = (x
            .chunks_exact(d)
            .map(|r| {
                layer.inject(r, &mut c, &mut s);
                c.iter().map(|v| v * v).sum::<f64>()
            })
            .sum::<f64>()
            / (rows * n) as f64)
            .sqrt();
        if structure == Structure::Ssf {
            s_ssf = s_rms;
        }
        let mut series = Vec::new();
        for (name, act) in activations(s_rms) {
            layer.set_activation(act).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
            let traces: Vec<RowTrace> = x.par_chunks(d).map_init(LayerScratch::default, |s, r| trace_row(&layer, r, s)).collect();
            let mean_q: Vec<f64> = (0..=LAYERS).map(|l| traces.iter().map(|tr| tr.q[l]).sum::<f64>() / rows as f64).collect();
            let up: usize = traces.iter().map(|tr| tr.increases).sum();
            let broken: usize = traces.iter().map(|tr| tr.margin_fails).sum();
            total_up += up + broken;
            let lambda = match (act.lambda(), act.gamma()) {
                (None, _) => "-".to_string(),
                (Some(l), None) => format!("{l:.3}"),
                (Some(l), Some(g)) => format!("{l:.3} (gamma {g:.3})"),
            };
            t.push(vec![
                structure.name().into(),
                name.into(),
                lambda,
                format!("{:.4}", mean_q[0]),
                format!("{:.4}", mean_q[1]),
                format!("{:.4}", mean_q[5]),
                format!("{:.4}", mean_q[LAYERS]),
                format!("{up} of {}", rows * LAYERS),
                format!("{broken} of {}", rows * LAYERS),
            ]);
            series.push(Series {
                label: name.into(),
                points: mean_q.iter().enumerate().map(|(l, q)| (l as f64, q / mean_q[0])).collect(),
                errors: Vec::new(),
            });
        }
        panels.push((format!("B: {}", if structure == Structure::Ssf { "SSF (FFT)" } else { "orthogonal blocks" }), series));
    }

    // The unsupervised fit (7.16): phases of T1 layers, each followed by a Procrustes step.
    let mut fit_t = Table::new(
        "Unsupervised fit (7.16-7.17), T1 = 5 layers x T2 = 4 phases, SSF B: mean objective after each phase's layers and its R-step",
        "nok_descent_fit",
        &["activation", "Q(0)", "phase 1: layers", "R-step", "phase 2: layers", "R-step", "phase 4: R-step", "never increased"],
    );
    let mut fit_series = Vec::new();
    for (name, act) in activations(s_ssf).into_iter().filter(|(n, _)| ["l1", "l0", "scad", "relu"].contains(n)) {
        let (lambda, gamma) = (act.lambda().unwrap_or(1.0), act.gamma());
        let spec = NokSpec {
            n_components: n,
            activation: name.into(),
            lambda,
            gamma,
            layers: 5,
            alternations: 4,
            structure: Structure::Ssf,
            seed: derive_seed(ctx.seed, 0x7f1),
            ..NokSpec::default()
        };
        let mut block = NokBlock::new(spec, d).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        block.fit(&x).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        let tr = block.fit_trace();
        let mono = tr.windows(2).all(|w| w[1] <= w[0] + 1e-9 * w[0].abs().max(1.0));
        total_up += usize::from(!mono);
        // tr: Q(0), then per phase 5 layers and the R-step (6 entries).
        let at = |phase: usize, k: usize| format!("{:.4}", tr[1 + 6 * phase + k]);
        fit_t.push(vec![
            name.into(),
            format!("{:.4}", tr[0]),
            at(0, 4),
            at(0, 5),
            at(1, 4),
            at(1, 5),
            at(3, 5),
            if mono { "yes" } else { "NO" }.into(),
        ]);
        fit_series.push(Series {
            label: name.into(),
            points: tr.iter().enumerate().map(|(k, q)| (k as f64, q / tr[0])).collect(),
            errors: Vec::new(),
        });
    }
    panels.push(("fit: layers and R-steps (SSF)".into(), fit_series));
    let figure = Figure::panels("nok_descent.png", panels, "layer (fit: layer or R-step)", "objective / Q(0)", true, 3);
    Ok(Report {
        tables: vec![t, fit_t],
        figures: vec![figure],
        notes: vec![
            format!(
                "{total_up} (row, layer) pairs, or fits, where the objective rose or Theorem 23's margin failed (beyond 1e-9 relative); the theorems say 0."
            ),
            format!(
                "lambda is relative to the RMS s of the entries of W^T x (s = {s_ssf:.3} with the SSF B), so the activations threshold comparable shares of the codes."
            ),
        ],
    })
}
