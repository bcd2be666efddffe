//! `gradfree list`.

use anyhow::Result;

use crate::cli::ListArgs;

pub fn run(args: &ListArgs) -> Result<()> {
    let problems = gradfree_problems::list();
    let algorithms = gradfree_es::list();
    let experiments = gradfree_experiments::experiments();
    if args.json {
        let exps: Vec<_> =
            experiments.iter().map(|e| serde_json::json!({"name": e.name, "source": e.source, "summary": e.summary})).collect();
        outln!("{}", serde_json::json!({"algorithms": algorithms, "problems": problems, "experiments": exps}));
        return Ok(());
    }
    outln!("Algorithms:");
    for a in algorithms {
        outln!("  {:<24} {} [{}]", a.name, a.summary, a.source);
    }
    outln!("\nProblems:");
    for p in problems {
        outln!("  {:<24} {} [{}]", p.name, p.summary, p.source);
    }
    outln!("\nExperiments (gradfree reproduce NAME):");
    for e in experiments {
        outln!("  {:<24} {} [{}]", e.name, e.summary, e.source);
    }
    Ok(())
}
