//! Thesis sec. 3.7.1 / Fig. 3.1: the six Table 3.1 functions at d = 100; INGO, INGOstep,
//! Fast-INGO, IGO (full), CMA-ES and antithetic ES; mean log10 f over 20 runs.
//!
//! Protocol (thesis sec. 3.7.1 and NOTES (e.1)): `mu_1 ~ U[0,1]^d`, `sigma_1 = 0.5`, `N = 2 floor(3 +
//! floor(3 ln d)/2)` for the INGO family and IGO, `beta = 1/d` (INGO, INGOstep, IGO) and `1/sqrt(d)`
//! (Fast-INGO), normalized scores; runs stop at f <= 1e-10. CMA-ES uses the tutorial defaults
//! with sigma0 = 0.5; ES (Salimans et al.) keeps sigma = 0.1 fixed with Adam, learning rate 0.01.
//! Budget 3.6e6 evaluations (2000 d iterations of N = 18, the thesis code's INGOstep limit).
//! `--quick`: d = 10, 2 runs, 3e4 evaluations.

use gradfree_problems::build;
use serde_json::json;

use crate::runs::{Method, linear_grid, mean_log10_curve, run_many, target_cells, value_at};
use crate::{Ctx, Figure, Report, Result, Series, Table, fmt};

const FUNCTIONS: [&str; 6] = ["ellipsoid", "discus", "l1-ellipsoid", "lhalf-ellipsoid", "levy", "rastrigin10"];

/// The six methods of Fig. 3.1 with their settings.
pub fn methods() -> Vec<Method> {
    vec![
        Method::new("ingo", "INGO", 0.5, json!({})),
        Method::new("ingostep", "INGOstep", 0.5, json!({})),
        Method::new("fast-ingo", "Fast-INGO", 0.5, json!({})),
        Method::new("igo", "IGO (full)", 0.5, json!({})),
        Method::new("cmaes", "CMA-ES", 0.5, json!({})),
        Method::new("openai-es", "ES (antithetic)", 0.1, json!({})),
    ]
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    // Full: 2000 d iterations of N = 18 samples, the thesis code's limit for INGOstep.
    let (d, budget) = if ctx.quick { (10, 30_000u64) } else { (100, 3_600_000u64) };
    let runs = ctx.runs(2, 20);
    let checkpoints: Vec<u64> = [budget / 100, budget / 10, budget].to_vec();
    let mut headers = vec!["function".to_string(), "method".to_string()];
    headers.extend(checkpoints.iter().map(|c| format!("mean log10 f @ {c}")));
    headers.extend(["runs at 1e-10".to_string(), "median evals to 1e-10".to_string()]);
    let mut table = Table {
        title: format!("Thesis Fig. 3.1: mean log10 f over {runs} runs, d = {d}"),
        slug: "ingo_synthetic".into(),
        headers,
        rows: Vec::new(),
    };
    let grid = linear_grid(budget, 200);
    // mu_1 ~ U[0,1]^d for every function (thesis sec. 3.7.1), also Levy whose Table 4.4 domain is [-10, 10]^d.
    let init = gradfree_core::Bounds::uniform(d, 0.0, 1.0)?;
    let mut panels = Vec::new();
    ctx.plan_runs((FUNCTIONS.len() * methods().len() * runs) as u64);
    for name in FUNCTIONS {
        let p = build(name, d, ctx.seed)?;
        let mut series = Vec::new();
        for m in methods() {
            let rs = run_many(p.as_ref(), &m, &init, runs, budget, Some(1e-10), ctx.seed, Some(&ctx.run_cache(name)))?;
            let mut row = vec![name.to_string(), m.label.clone()];
            for &c in &checkpoints {
                let vals: Vec<f64> = rs.iter().map(|r| value_at(&r.curve, c as f64).unwrap_or(f64::NAN).max(1e-300).log10()).collect();
                row.push(fmt(vals.iter().sum::<f64>() / runs as f64));
            }
            row.extend(target_cells(&rs));
            table.push(row);
            let points = mean_log10_curve(&rs, &grid, 1e-12).into_iter().map(|(e, l)| (e, 10f64.powf(l))).collect();
            series.push(Series { label: m.label.clone(), points, errors: Vec::new() });
        }
        panels.push((format!("{name} (d = {d})"), series));
    }
    let figure = Figure::panels("ingo_synthetic.png", panels, "evaluations", "f (geometric mean)", true, 3);
    Ok(Report {
        tables: vec![table],
        figures: vec![figure],
        notes: vec![
            "Runs stop at f <= 1e-10, so a finished run's curve stays at its final value (as in the thesis' plots).".into(),
            "ES = Salimans et al. with antithetic pairs, centred ranks, Adam lr 0.01, sigma 0.1 fixed (the thesis says 'default hyper-parameters').".into(),
        ],
    })
}
