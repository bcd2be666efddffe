//! `gradfree list`.

use anyhow::Result;

use crate::cli::{ListArgs, ParamsArgs};

/// What the short source names stand for (the README's References has the full list).
pub const SOURCES: &str = "Sources: \"thesis\" = Y. Lyu, Efficient and Robust Black-box Integral-approximation and \
Optimization, PhD thesis, University of Technology Sydney, 2021; \"MiNES\" = H. Ye and T. Zhang, Mirror Natural \
Evolution Strategies. Full references: the README's References section.";

pub fn run(args: &ListArgs) -> Result<()> {
    let problems = gradfree_problems::list();
    let algorithms = gradfree_es::list();
    let experiments = gradfree_experiments::experiments();
    if args.json {
        let exps: Vec<_> =
            experiments.iter().map(|e| serde_json::json!({"name": e.name, "source": e.source, "summary": e.summary})).collect();
        let methods: Vec<_> = gradfree_features::METHODS
            .iter()
            .map(|m| serde_json::json!({"name": m.name, "summary": m.summary, "source": m.reference}))
            .collect();
        let bo: Vec<_> =
            gradfree_bo::METHODS.iter().map(|m| serde_json::json!({"name": m.name, "summary": m.summary, "source": m.source})).collect();
        outln!(
            "{}",
            serde_json::json!({"algorithms": algorithms, "problems": problems, "experiments": exps, "feature_methods": methods, "bo_methods": bo})
        );
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
    outln!("\nFeature-map methods (gradfree features --method NAME):");
    for m in gradfree_features::METHODS {
        outln!("  {:<24} {} [{}]", m.name, m.summary, m.reference);
    }
    outln!("\nBatch Bayesian optimization (gradfree bo --method NAME):");
    for m in gradfree_bo::METHODS {
        outln!("  {:<24} {} [{}]", m.name, m.summary, m.source);
    }
    outln!("\nExperiments (gradfree reproduce NAME):");
    for e in experiments {
        outln!("  {:<24} {} [{}]", e.name, e.summary, e.source);
    }
    outln!("\n{SOURCES}");
    Ok(())
}

/// `gradfree params ALGO`.
pub fn params(args: &ParamsArgs) -> Result<()> {
    let spec = gradfree_es::registry::spec(&args.algo)?;
    let params = (spec.params)();
    if args.json {
        outln!("{}", serde_json::to_string(&params)?);
        return Ok(());
    }
    outln!("{} — {} [{}]", spec.name, spec.summary, spec.source);
    outln!("Parameters (--param KEY=VALUE; Python keywords):");
    for p in &params {
        outln!("  {} ({})", p.name, p.kind);
        for line in wrap(&p.doc, 92) {
            outln!("      {line}");
        }
    }
    Ok(())
}

/// `text` in lines of at most `width` characters (longer words stay whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line");
        if !last.is_empty() && last.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}
