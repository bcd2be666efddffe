//! `gradfree integrate`: randomized QMC estimate of a test integral over `[0, 1)^d`, with its
//! standard error over independent randomizations, and the exact value where known.

use anyhow::{Result, bail};
use gradfree_experiments::progress;
use gradfree_problems::integrands::ExpWeighted;
use gradfree_qmc::integrate::integrate_many;
use serde::Serialize;

use clap::Args;

use IntegrateMethod as Method;

#[derive(Args, Debug)]
pub struct IntegrateArgs {
    /// Point set of each randomization.
    #[arg(long, value_enum, default_value_t = IntegrateMethod::Subgroup)]
    pub method: IntegrateMethod,
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Points per randomization (subgroup: a prime with 2d | n - 1).
    #[arg(long)]
    pub n: u64,
    /// Independent randomizations (random shifts / scramblings / MC draws).
    #[arg(long, default_value_t = 50)]
    pub replicates: usize,
    /// Decay b of the weights j^-b.
    #[arg(long, default_value_t = 2.0)]
    pub b: f64,
    /// Scale c.
    #[arg(long, default_value_t = 1.0)]
    pub c: f64,
    /// Seed of the randomizations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub use gradfree_experiments::integration::Method as IntegrateMethod;

#[derive(Serialize)]
struct Output {
    integrand: &'static str,
    method: &'static str,
    dim: usize,
    n: u64,
    replicates: usize,
    seed: u64,
    estimate: f64,
    std_error: f64,
    exact: f64,
    relative_error: f64,
    seconds: f64,
}

pub fn run(args: &IntegrateArgs) -> Result<()> {
    if args.dim == 0 || args.n == 0 {
        bail!("--dim and --n must be >= 1 (got --dim {} --n {})", args.dim, args.n);
    }
    if args.replicates < 2 {
        bail!("invalid --replicates {}: must be >= 2 (the standard error is the spread of independent randomizations)", args.replicates);
    }
    // O(n R d) work, refused past about an hour (measured on 2 cores, exp-weighted integrand:
    // 4e8 coordinates a second for Sobol, Monte Carlo and lattices, 1e7 for Owen's scrambling and
    // Halton's radical inverses), with the estimate.
    let work = gradfree_core::memory::product(&[args.n as u128, args.replicates as u128, args.dim as u128]);
    let slow = matches!(args.method, Method::Halton | Method::HaltonShifted | Method::SobolOwen);
    let (limit_log2, per_second) = if slow { (35, 1e7) } else { (40, 4e8) };
    if work > 1 << limit_log2 {
        bail!(
            "--n {} x --replicates {} x --dim {} = {:.2e} coordinate evaluations would take about {:.0} hours (the limit is 2^{limit_log2} = {:.1e} for this method, about an hour); lower one of them",
            args.n,
            args.replicates,
            args.dim,
            work as f64,
            work as f64 / per_second / 3600.0,
            (1u64 << limit_log2) as f64
        );
    }
    let f = ExpWeighted::new(args.dim, args.b, args.c).map_err(anyhow::Error::msg)?;
    let started = std::time::Instant::now();
    let r = args.method.rule(args.dim, args.n)?;
    // A bar on stderr for runs of more than about a second (hidden when stderr is not a terminal).
    let bar = progress::bar(None, "{spinner} [{elapsed_precise}] {bar:32} {percent}% of {len} points, eta {eta}", work >= 1 << 28);
    let progress = |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let e = integrate_many(|x, out| out[0] = f.eval(x), 1, args.dim, args.n, &r, args.replicates, args.seed, &progress)?.remove(0);
    bar.finish_and_clear();
    let exact = f.exact();
    let out = Output {
        integrand: "exp-weighted",
        method: args.method.name(),
        dim: args.dim,
        n: args.n,
        replicates: args.replicates,
        seed: args.seed,
        estimate: e.value,
        std_error: e.std_error,
        exact,
        relative_error: (e.value - exact).abs() / exact.abs(),
        seconds: started.elapsed().as_secs_f64(),
    };
    if args.json {
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        outln!(
            "int over [0,1]^{} of exp(c sum_j x_j j^-b), b = {}, c = {} (thesis eq. 5.22), {} x {} points ({}):",
            args.dim,
            args.b,
            args.c,
            args.replicates,
            args.n,
            out.method
        );
        outln!("  estimate   {:.12e} ± {:.3e} (standard error over {} randomizations)", out.estimate, out.std_error, args.replicates);
        outln!("  exact      {:.12e} (eq. 5.23)", exact);
        outln!("  rel. error {:.3e}   ({:.3} s)", out.relative_error, out.seconds);
    }
    Ok(())
}
