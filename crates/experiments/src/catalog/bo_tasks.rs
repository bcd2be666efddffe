//! Thesis sec. 4.7.3-4.7.4, Fig. 4.4. (a) Hyper-parameter tuning: the offline stand-in for the
//! thesis' CIFAR-100 network ([`crate::tuning::FeatureTuning`]: SSF features + ridge classifier on
//! Fashion-MNIST, categorical / integer / continuous variables), 5 lattice points as the initial
//! design as in §4.7.3, 10 runs, regret = validation error minus the best error any run found.
//! (b) The 4-d robot-pushing task of Wang & Jegelka (2017), our own
//! rigid-body model of their Box2D scene (it reproduces Box2D's final positions to 3e-5), with
//! 30 random goals in `[−5, 5]²` (one per run, the same for every method), 20 rank-1 lattice
//! points as the initial design, batch sizes 5 and 10, BKOP vs GP-BUCB vs GP-UCB-PE; the regret
//! is the distance from the pushed object to the goal, as in the original. The thesis does not
//! state its budgets; we use 50 evaluations for (a) and 100 for (b). `--quick`: (a) 1 run of 25
//! evaluations on 1,000 training images, (b) 2 goals, 40 evaluations; L = 5 only.

use gradfree_bo::{Method, Space};
use gradfree_core::derive_seed;
use gradfree_problems::robot_push::RobotPush;
use rayon::prelude::*;

use super::bo_runs::{BoRun, Cell, final_cell, mean_std, one_run, runs, series};
use crate::{Ctx, Figure, Report, Result, Table};

const METHODS: &[(Method, &str)] = &[(Method::Bkop, "BKOP"), (Method::GpBucb, "GP-BUCB"), (Method::GpUcbPe, "GP-UCB-PE")];

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let goals = ctx.runs(2, 30);
    let batches: &[usize] = if ctx.quick { &[5] } else { &[5, 10] };
    let budget = if ctx.quick { 40 } else { 100 };
    ctx.plan_runs((goals * batches.len() * METHODS.len()) as u64);
    let b = RobotPush::bounds();
    let space = Space::continuous(b.lower().to_vec(), b.upper().to_vec())?;
    let mut t = Table::new(
        format!("Fig. 4.4(b): robot pushing, distance to the goal after {budget} evaluations, mean ± std over {goals} goals"),
        "fig_4_4_bo_robot",
        &["method", "batch", "distance to goal", "seconds per run"],
    );
    // (a) Tuning: regret = validation error - the best error any method found.
    let n_rows = if ctx.quick { 1000 } else { 5000 };
    let tuning = crate::tuning::FeatureTuning::load(n_rows, n_rows, ctx.seed)?;
    let tune_runs = ctx.runs(1, 10);
    let tune_budget = if ctx.quick { 25 } else { 50 };
    ctx.plan_runs((tune_runs * batches.len() * METHODS.len()) as u64);
    let mut tune_t = Table::new(
        format!(
            "Fig. 4.4(a): tuning (Fashion-MNIST, SSF + ridge), validation error (%) after {tune_budget} evaluations, mean ± std over {tune_runs} runs"
        ),
        "fig_4_4_bo_tuning",
        &["method", "batch", "validation error (%)", "seconds per run"],
    );
    let tspace = crate::tuning::FeatureTuning::space();
    let mut tune_curves = Vec::new();
    for &l in batches {
        for &(method, label) in METHODS {
            let cell = Cell {
                tag: "tuning".into(),
                f: &tuning,
                space: tspace.clone(),
                f_star: 0.0,
                method,
                batch: l,
                n_initial: 5,
                budget: tune_budget,
            };
            tune_curves.push((label, l, runs(ctx, &cell, tune_runs)?));
        }
    }
    let best_err =
        tune_curves.iter().flat_map(|(_, _, rs)| rs.iter().filter_map(|r| r.curve.last().map(|p| p.1))).fold(f64::INFINITY, f64::min);
    let mut tune_series = Vec::new();
    for (label, l, rs) in &tune_curves {
        let stats = mean_std(rs);
        let secs = rs.iter().map(|r| r.seconds).sum::<f64>() / rs.len() as f64;
        tune_t.push(vec![label.to_string(), l.to_string(), final_cell(&stats), format!("{secs:.1}")]);
        let regret: Vec<(f64, f64, f64)> = stats.iter().map(|&(e, m, sd)| (e, (m - best_err).max(1e-3), sd)).collect();
        tune_series.push(series(&format!("{label} L={l}"), &regret));
    }

    let mut all = Vec::new();
    let mut finals = Vec::new();
    for &l in batches {
        for &(method, label) in METHODS {
            // Run r pushes towards goal r (seeded), so every method sees the same 30 goals.
            let runs: Vec<BoRun> = (0..goals)
                .into_par_iter()
                .map(|r| {
                    let task = RobotPush::new(derive_seed(ctx.seed, r as u64));
                    let cell = Cell {
                        tag: format!("robot-goal{r}"),
                        f: &task,
                        space: space.clone(),
                        f_star: 0.0,
                        method,
                        batch: l,
                        n_initial: 20,
                        budget,
                    };
                    let run = one_run(&cell, derive_seed(ctx.seed, 0x7262_0000 + r as u64));
                    ctx.finished_one();
                    run
                })
                .collect::<Result<_>>()?;
            let stats = mean_std(&runs);
            let secs = runs.iter().map(|r| r.seconds).sum::<f64>() / runs.len() as f64;
            t.push(vec![label.into(), l.to_string(), final_cell(&stats), format!("{secs:.2}")]);
            finals.push((label, l, stats.last().map_or(f64::INFINITY, |s| s.1)));
            all.push(series(&format!("{label} L={l}"), &stats));
        }
    }
    let bkop_best = batches.iter().filter(|&&l| {
        let of = |name: &str| finals.iter().find(|f| f.0 == name && f.1 == l).map_or(f64::INFINITY, |f| f.2);
        of("BKOP") <= of("GP-BUCB").min(of("GP-UCB-PE"))
    });
    Ok(Report {
        tables: vec![tune_t, t],
        figures: vec![
            Figure::panels(
                "fig_4_4_bo_tuning.png",
                vec![("(a) tuning: validation error - best found (%)".into(), tune_series)],
                "evaluations",
                "regret (%)",
                true,
                1,
            ),
            Figure::panels(
                "fig_4_4_bo_robot.png",
                vec![("(b) robot pushing (4-d)".into(), all)],
                "evaluations",
                "distance to goal",
                true,
                1,
            ),
        ],
        notes: vec![format!(
            "BKOP has the smallest mean final distance at {} of {} batch sizes (the thesis: BKOP below GP-BUCB and GP-UCB-PE at both).",
            bkop_best.count(),
            batches.len()
        )],
    })
}
