//! `gradfree list`.

use anyhow::Result;

use clap::Args;

#[derive(Args, Debug)]
pub struct ParamsArgs {
    /// Algorithm name (`gradfree list` shows them).
    pub algo: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What the short source names stand for (the user guide's docs/references.md has the full list).
pub const SOURCES: &str = "Sources: \"thesis\" = Y. Lyu, Efficient and Robust Black-box Integral-approximation and \
Optimization, PhD thesis, University of Technology Sydney, 2021; \"MiNES\" = H. Ye and T. Zhang, Mirror Natural \
Evolution Strategies. Full references: the user guide's docs/references.md.";

pub fn run(args: &ListArgs) -> Result<()> {
    let registries = gradfree_experiments::registries();
    if args.json {
        let all: serde_json::Map<String, serde_json::Value> = registries.iter().map(|r| (r.key.to_string(), r.to_json())).collect();
        outln!("{}", serde_json::Value::Object(all));
        return Ok(());
    }
    for (k, r) in registries.iter().enumerate() {
        let usage = if r.usage.is_empty() { String::new() } else { format!(" ({})", r.usage) };
        outln!("{}{}{usage}:", if k == 0 { "" } else { "\n" }, r.title);
        for e in &r.entries {
            outln!("  {:<24} {} [{}]", e.name(), e.summary(), e.source());
        }
    }
    outln!("\nPresets (--algo NAME, Python method=NAME):");
    outln!("  {:<24} {}", "(no --algo)", gradfree_es::RECOMMENDED.describe());
    for (name, r) in gradfree_es::recommended::PRESETS {
        outln!("  {name:<24} {}", r.describe());
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
