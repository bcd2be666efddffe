//! `gradfree lattice`: build a rank-1 lattice, print its generating vector and minimum toroidal
//! distances, optionally write its points.

use std::time::Instant;

use anyhow::{Result, bail};
use gradfree_experiments::progress;
use gradfree_qmc::lattice::search::{MAX_SEARCH_OPERATIONS, SearchSpec, korobov_operations, search_operations};
use gradfree_qmc::quality::{Norm, min_distance};
use gradfree_qmc::{Rank1Lattice, hua, korobov_search, subgroup};
use serde::Serialize;

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Args, Debug)]
pub struct LatticeArgs {
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Number of points n (subgroup: a prime with 2d | n - 1; the error lists admissible ones).
    #[arg(long)]
    pub n: u64,
    /// Construction.
    #[arg(long, value_enum, default_value_t = LatticeMethod::Subgroup)]
    pub method: LatticeMethod,
    /// Distance the Korobov search maximizes.
    #[arg(long, value_enum, default_value_t = Metric::L2)]
    pub metric: Metric,
    /// Algorithms 10/11: number of primes M.
    #[arg(long, default_value_t = SearchSpec::default().primes)]
    pub primes: usize,
    /// Algorithm 11: SCS sweeps T.
    #[arg(long, default_value_t = SearchSpec::default().sweeps)]
    pub sweeps: usize,
    /// Algorithm 11: how many of Algorithm 10's best candidates get SCS.
    #[arg(long, default_value_t = SearchSpec::default().top)]
    pub top: usize,
    /// Write the n x d points to a .csv or .npy file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Lattice constructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LatticeMethod {
    /// Closed form of thesis Theorem 13 / eq. (5.14).
    Subgroup,
    /// Exhaustive search over z = (1, a, a^2, ...) mod n.
    Korobov,
    /// Hua-Wang cyclotomic-field vector (p = smallest prime >= 2d + 3).
    Hua,
    /// Thesis Algorithm 10 (M primes, cos-based vectors), maximizing the l2 distance.
    Alg10,
    /// Thesis Algorithm 11 (Algorithm 10 + successive coordinate search), maximizing the l2 distance.
    Alg11,
}

/// Toroidal distance norm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Metric {
    /// l1-norm-based toroidal distance.
    L1,
    /// l2-norm-based toroidal distance.
    L2,
}

#[derive(Serialize)]
struct Output<'a> {
    method: &'static str,
    dim: usize,
    n: u64,
    z: &'a [u64],
    min_dist_l2: f64,
    min_dist_l1: f64,
    packing_radius: f64,
    /// The Korobov multiplier `a` (korobov only).
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u64>,
    /// The norm the search maximized (korobov only).
    #[serde(skip_serializing_if = "Option::is_none")]
    metric: Option<&'static str>,
    /// Construction (and search) time, excluding the distance report.
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

pub fn run(args: &LatticeArgs) -> Result<()> {
    if args.dim == 0 {
        bail!("--dim 0: the dimension must be >= 1");
    }
    // The quality measures scan all n points (O(n d), about 3 ns a value: n d = 2^33 takes 25 s);
    // beyond that it is minutes to years.
    const MAX_WORK: u128 = 1 << 33;
    if (args.n as u128) * (args.dim as u128) > MAX_WORK {
        bail!(
            "--n {} x --dim {} = {} exceeds 2^33: the minimum distance this command reports costs O(n d); use n d <= 2^33 (Python's gradfree.subgroup_vector gives the generating vector alone)",
            args.n,
            args.dim,
            args.n as u128 * args.dim as u128
        );
    }
    // Searches whose running time is absurd are refused up front, with the estimate.
    let ops = match args.method {
        LatticeMethod::Korobov => korobov_operations(args.dim, args.n),
        LatticeMethod::Alg10 => search_operations(args.dim, args.n, args.primes, 0, 0),
        LatticeMethod::Alg11 => search_operations(args.dim, args.n, args.primes, args.sweeps, args.top),
        _ => 0.0,
    };
    if ops > MAX_SEARCH_OPERATIONS {
        // Name every size the estimate grows with, so the one to lower is among them.
        let sizes = match args.method {
            LatticeMethod::Alg10 => format!("--n {} --dim {} --primes {}", args.n, args.dim, args.primes),
            LatticeMethod::Alg11 => {
                format!("--n {} --dim {} --primes {} --sweeps {} --top {}", args.n, args.dim, args.primes, args.sweeps, args.top)
            }
            _ => format!("--n {} --dim {}", args.n, args.dim),
        };
        bail!(
            "{sizes}: this search needs about {ops:.1e} operations (over an hour; the limit is 2^42 = 4.4e12); lower one of them, or use the subgroup construction"
        );
    }
    // The output file is the command's until it is written.
    let _output = match &args.output {
        Some(path) => Some(crate::points_io::check_target("-o", path, args.n as usize, args.dim, &[])?),
        None => None,
    };
    let norm = match args.metric {
        Metric::L1 => Norm::L1,
        Metric::L2 => Norm::L2,
    };
    let search = SearchSpec { primes: args.primes, sweeps: args.sweeps, top: args.top };
    let started = Instant::now();
    let (lattice, a): (Rank1Lattice, Option<u64>) = match args.method {
        LatticeMethod::Subgroup => (subgroup(args.dim, args.n)?, None),
        LatticeMethod::Korobov => {
            let bar = progress::bar(None, "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} candidates  Korobov search", !args.quiet);
            let r = korobov_search(args.dim, args.n, norm, &|done, total| {
                bar.set_length(total);
                bar.set_position(done);
            })?;
            bar.finish_and_clear();
            (r.lattice, Some(r.a))
        }
        LatticeMethod::Hua => (hua(args.dim, args.n)?, None),
        LatticeMethod::Alg10 => (search.alg10(args.dim, args.n)?.lattice(args.n)?, None),
        LatticeMethod::Alg11 => (search.alg11(args.dim, args.n)?.lattice(args.n)?, None),
    };
    let seconds = started.elapsed().as_secs_f64();
    let (l2, l1) = (min_distance(&lattice, Norm::L2), min_distance(&lattice, Norm::L1));
    if let Some(path) = &args.output {
        // Written in pieces (the lattice computes any row directly), so n x d need not fit in memory.
        let (n, d) = (args.n, args.dim);
        let rows = crate::points_io::piece_rows(d, 1 << 20)?;
        crate::points_io::write_points_with(path, n as usize, d, |sink| {
            let mut piece = vec![0.0; rows.min(n as usize) * d];
            let mut start = 0u64;
            while start < n {
                let count = (n - start).min(rows as u64) as usize;
                lattice.fill(start, count, &mut piece[..count * d]);
                sink(&piece[..count * d])?;
                start += count as u64;
            }
            Ok(())
        })?;
    }
    let method = match args.method {
        LatticeMethod::Subgroup => "subgroup",
        LatticeMethod::Korobov => "korobov",
        LatticeMethod::Hua => "hua",
        LatticeMethod::Alg10 => "alg10",
        LatticeMethod::Alg11 => "alg11",
    };
    let out = Output {
        method,
        dim: args.dim,
        n: args.n,
        z: lattice.z(),
        min_dist_l2: l2,
        min_dist_l1: l1,
        packing_radius: 0.5 * l2,
        a,
        metric: a.map(|_| if norm == Norm::L1 { "l1" } else { "l2" }),
        seconds,
        output: args.output.as_ref().map(|p| p.display().to_string()),
    };
    if args.json {
        outln!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let z = lattice.z();
    let shown: Vec<String> = z.iter().take(12).map(u64::to_string).collect();
    let more = if z.len() > 12 { format!(", ... ({} entries; --json prints all)", z.len()) } else { String::new() };
    outln!("{method} rank-1 lattice, d = {}, n = {}", args.dim, args.n);
    if let Some(a) = a {
        outln!("  Korobov multiplier a = {a} (maximizing the {} distance)", out.metric.unwrap_or_default());
    }
    outln!("  z                 [{}{}]", shown.join(", "), more);
    outln!("  min distance l2   {l2:.6}   (packing radius {:.6})", 0.5 * l2);
    outln!("  min distance l1   {l1:.6}");
    outln!("  built in          {seconds:.4} s");
    if let Some(p) = &out.output {
        outln!("  points written to {p}");
    }
    Ok(())
}
