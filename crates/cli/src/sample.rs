//! `gradfree sample`: generate a QMC point set (Sobol, subgroup or Korobov rank-1 lattice),
//! optionally randomized, and write it to .csv / .npy, generated and written in pieces of about
//! 8 MB per thread (so `n x d` need not fit in memory; a Latin hypercube is the exception).

use std::time::Instant;

use anyhow::{Result, bail};
use gradfree_core::rng_from_seed;
use gradfree_data::matrix::write_csv_rows;
use gradfree_qmc::digital::SOBOL_MAX_BITS;
use gradfree_qmc::{Halton, Iid, Rank1Lattice, Scramble, Sequence, Sobol, korobov_vector, latin_hypercube, subgroup};
use serde::Serialize;

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Point set.
    #[arg(long, value_enum)]
    pub method: SampleMethod,
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Number of points.
    #[arg(long)]
    pub n: u64,
    /// Sobol randomization.
    #[arg(long, value_enum, default_value_t = ScrambleArg::LmsShift)]
    pub scramble: ScrambleArg,
    /// Lattices: add a uniform random shift (eq. 5.4).
    #[arg(long)]
    pub random_shift: bool,
    /// Korobov multiplier a (z = (1, a, a^2, ...) mod n).
    #[arg(long)]
    pub a: Option<u64>,
    /// Seed of the randomization.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sobol: skip this many points first.
    #[arg(long, default_value_t = 0)]
    pub skip: u64,
    /// Sobol: digits of the generator, 1 to 64 as scipy's `bits` (at most 2^bits points, each a
    /// multiple of 2^-bits; above 53 rounded down to a double)
    #[arg(long, default_value_t = 32)]
    pub bits: u32,
    /// Write the points to a .csv or .npy file (`-o -`: CSV on stdout, nothing else printed).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Point sets of `gradfree sample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SampleMethod {
    /// Sobol (Joe-Kuo direction numbers).
    Sobol,
    /// Subgroup rank-1 lattice (n prime, 2d | n - 1).
    Subgroup,
    /// Rank-1 lattice in Korobov form with multiplier --a.
    Korobov,
    /// Halton (random digit permutations unless --scramble none).
    Halton,
    /// i.i.d. uniform (Monte Carlo).
    Mc,
    /// Latin hypercube.
    Lhs,
}

/// Sobol randomizations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScrambleArg {
    /// Deterministic.
    None,
    /// Linear matrix scrambling + digital shift.
    LmsShift,
    /// Owen nested uniform scrambling.
    Owen,
}

#[derive(Serialize)]
struct Output {
    method: &'static str,
    dim: usize,
    n: u64,
    randomization: String,
    seed: u64,
    /// Generation time (excluding writing the file).
    seconds: f64,
    /// Mean of every coordinate of every point (1/2 for a balanced set).
    mean: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

/// Greatest common divisor (`gcd(0, n) = n`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Values per generated piece and thread, 8 MB of f64: a piece stays in cache between generating
/// and writing, each thread fills one parallel block of it (2^14 points at d = 64), and `n x d`
/// never has to fit in memory.
const PIECE_VALUES: usize = 1 << 20;

/// Fills `out` with the points from row `start` on.
type Fill = Box<dyn FnMut(u64, &mut [f64]) -> Result<()>>;

pub fn run(args: &SampleArgs) -> Result<()> {
    if args.dim == 0 || args.n == 0 {
        bail!("--dim and --n must be >= 1 (got --dim {} --n {})", args.dim, args.n);
    }
    if !(1..=SOBOL_MAX_BITS).contains(&args.bits) {
        bail!("--bits {}: expected an integer in 1..={SOBOL_MAX_BITS} (scipy's Sobol bits)", args.bits);
    }
    let (d, n) = (args.dim, args.n);
    // Sizes are checked before anything is generated.
    if args.method == SampleMethod::Sobol && args.skip as u128 + n as u128 > 1u128 << args.bits {
        let bits = args.bits;
        bail!("--skip {} + --n {n} is more than 2^{bits} points, the length of a Sobol sequence with --bits {bits}", args.skip);
    }
    if args.skip.checked_add(n).is_none() {
        bail!("--skip {} + --n {n} exceeds 2^64 - 1 (point indices are 64-bit)", args.skip);
    }
    let Some(len) = usize::try_from(n).ok().and_then(|n| n.checked_mul(d)) else {
        bail!("--n {n} x --dim {d} overflows the address space; generate in pieces");
    };
    // The cost grows with n d: refused past about an hour of generation (measured on 2 cores:
    // 1.5e8 values a second for Sobol, Monte Carlo and lattices, 28 times fewer for Halton's
    // radical inverses), with the estimate.
    let (limit_log2, per_second) = if args.method == SampleMethod::Halton { (34, 5.4e6) } else { (39, 1.5e8) };
    if len as u128 > 1u128 << limit_log2 {
        bail!(
            "--n {n} x --dim {d} = {:.2e} values: generating them would take about {:.0} hours (the limit is 2^{limit_log2} = {:.1e} values for this method, about an hour); ask for fewer points or dimensions",
            len as f64,
            len as f64 / per_second / 3600.0,
            (1u64 << limit_log2) as f64
        );
    }
    // `-o -` is CSV on stdout; a file name's type is checked before anything is generated.
    let to_stdout = args.output.as_ref().is_some_and(|p| p.as_os_str() == "-");
    // The output file is the command's until it is written.
    let _output = match args.output.as_ref().filter(|_| !to_stdout) {
        Some(p) => Some(crate::points_io::check_target("-o", p, n as usize, d, &[])?),
        None => None,
    };

    // The generator, as "fill rows start.. into out". Sequences stream (skip first); lattices
    // compute any row directly; a Latin hypercube exists only whole.
    // Setting up (direction numbers, a lattice's generating vector, a whole Latin hypercube)
    // counts as generation time.
    let setup_started = Instant::now();
    let (method, randomization, mut fill): (&str, String, Fill) = match args.method {
        SampleMethod::Sobol => {
            let (scramble, name) = match args.scramble {
                ScrambleArg::None => (Scramble::None, "none"),
                ScrambleArg::LmsShift => (Scramble::LmsShift { seed: args.seed }, "lms-shift"),
                ScrambleArg::Owen => (Scramble::Owen { seed: args.seed }, "owen"),
            };
            let mut s = Sobol::with_bits(d, scramble, args.bits)?;
            s.fast_forward(args.skip)?;
            ("sobol", name.into(), Box::new(move |_, out: &mut [f64]| Ok(s.fill(out.len() / d, out)?)))
        }
        SampleMethod::Halton => {
            let seed = (args.scramble != ScrambleArg::None).then_some(args.seed);
            let mut h = Halton::new(d, seed)?;
            h.fast_forward(args.skip)?;
            let name = if seed.is_some() { "digit-permutations" } else { "none" };
            ("halton", name.into(), Box::new(move |_, out: &mut [f64]| Ok(h.fill(out.len() / d, out)?)))
        }
        SampleMethod::Mc => {
            let mut m = Iid::new(d, args.seed)?;
            ("mc", "iid".into(), Box::new(move |_, out: &mut [f64]| Ok(m.fill(out.len() / d, out)?)))
        }
        SampleMethod::Lhs => {
            gradfree_core::memory::check_elements(&format!("--n {n} x --dim {d} points (a Latin hypercube is built whole)"), len as u128)?;
            let all = latin_hypercube(n as usize, d, args.seed)?;
            let fill = move |start: u64, out: &mut [f64]| {
                let at = start as usize * d;
                out.copy_from_slice(&all[at..at + out.len()]);
                Ok(())
            };
            ("lhs", "latin-hypercube".into(), Box::new(fill))
        }
        SampleMethod::Subgroup | SampleMethod::Korobov => {
            // A lattice's points are i z / n for i < n: n >= 2 and the generating vector's d
            // entries are checked before the vector is built (d = 2^32 took 51 s to refuse n = 1).
            if n < 2 {
                bail!("invalid --n {n}: expected >= 2 (a lattice of one point is the origin)");
            }
            gradfree_core::memory::check_param_bytes("--dim", d, "the generating vector", (d as u128) * 8)?;
            let lattice = match args.method {
                SampleMethod::Subgroup => subgroup(d, n)?,
                _ => {
                    let Some(a) = args.a else { bail!("--method korobov needs --a, the multiplier of z = (1, a, a^2, ...) mod n") };
                    if gcd(a % n, n) != 1 {
                        bail!(
                            "invalid --a {a}: must be coprime to --n {n} (a multiplier sharing a factor with n puts the points on fewer than n values per coordinate; a = 0 on one axis)"
                        );
                    }
                    Rank1Lattice::new(n, korobov_vector(d, n, a))?
                }
            };
            let lattice = if args.random_shift { lattice.random_shift(&mut rng_from_seed(args.seed)) } else { lattice };
            let fill = move |start: u64, out: &mut [f64]| {
                lattice.fill_par(start, out.len() / d, out);
                Ok(())
            };
            (
                if args.method == SampleMethod::Subgroup { "subgroup" } else { "korobov" },
                if args.random_shift { "random-shift".into() } else { "none".into() },
                Box::new(fill),
            )
        }
    };

    if args.method == SampleMethod::Sobol && args.skip == 0 && !n.is_power_of_two() {
        eprintln!("warning: the balance properties of Sobol points require n to be a power of 2 (n = {n})");
    }
    // Generates piece by piece into one buffer, handing each piece to `sink`; the time counts
    // generation only.
    let rows_per_piece = crate::points_io::piece_rows(d, PIECE_VALUES * rayon::current_num_threads())?.min(len / d);
    let mut buffer = vec![0.0; rows_per_piece * d];
    let (mut seconds, mut sum) = (setup_started.elapsed().as_secs_f64(), 0.0);
    let mut generate = |sink: &mut dyn FnMut(&[f64]) -> Result<()>| -> Result<()> {
        let mut start = 0u64;
        while start < n {
            let rows = (n - start).min(rows_per_piece as u64) as usize;
            let piece = &mut buffer[..rows * d];
            let started = Instant::now();
            fill(start, piece)?;
            seconds += started.elapsed().as_secs_f64();
            sum += piece.iter().sum::<f64>();
            sink(piece)?;
            start += rows as u64;
        }
        Ok(())
    };
    match &args.output {
        Some(_) if to_stdout => {
            // `-o -`: the points as CSV on stdout, nothing else.
            let mut stdout = std::io::stdout().lock();
            generate(&mut |piece| Ok(write_csv_rows(&mut stdout, d, piece).map_err(crate::StdoutError)?))?;
            return Ok(());
        }
        Some(path) => crate::points_io::write_points_with(path, n as usize, d, |sink| generate(sink))?,
        None => generate(&mut |_| Ok(()))?,
    }
    let mean = sum / len as f64;
    let out = Output {
        method,
        dim: d,
        n,
        randomization,
        seed: args.seed,
        seconds,
        mean,
        output: args.output.as_ref().map(|p| p.display().to_string()),
    };
    if args.json {
        outln!("{}", serde_json::to_string(&out)?);
    } else {
        outln!("{method} points, d = {d}, n = {n}, randomization {}", out.randomization);
        outln!("  generated in {seconds:.4} s ({:.2} GB/s of f64)", (len * 8) as f64 / seconds / 1e9);
        outln!("  mean coordinate {mean:.6}");
        if let Some(p) = &out.output {
            outln!("  written to {p}");
        }
    }
    Ok(())
}
