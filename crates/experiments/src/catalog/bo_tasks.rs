//! Thesis sec. 4.7.4, Fig. 4.4(b): the 4-d robot-pushing task of Wang & Jegelka (2017), our own
//! rigid-body model of their Box2D scene (it reproduces Box2D's final positions to 3e-5), with
//! 30 random goals in `[−5, 5]²` (one per run, the same for every method), 20 rank-1 lattice
//! points as the initial design, batch sizes 5 and 10, BKOP vs GP-BUCB vs GP-UCB-PE; the regret
//! is the distance from the pushed object to the goal, as in the original. The thesis does not
//! state its budget; we use 100 evaluations. `--quick`: 2 goals, L = 5, 40 evaluations.

use gradfree_bo::{Method, Space};
use gradfree_core::derive_seed;
use gradfree_problems::robot_push::RobotPush;
use rayon::prelude::*;

use super::bo_runs::{BoRun, Cell, final_cell, mean_std, one_run, series};
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
        tables: vec![t],
        figures: vec![Figure::panels(
            "fig_4_4_bo_robot.png",
            vec![("robot pushing (4-d)".into(), all)],
            "evaluations",
            "distance to goal",
            true,
            1,
        )],
        notes: vec![format!(
            "BKOP has the smallest mean final distance at {} of {} batch sizes (the thesis: BKOP below GP-BUCB and GP-UCB-PE at both).",
            bkop_best.count(),
            batches.len()
        )],
    })
}
