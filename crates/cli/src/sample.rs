//! `gradfree sample`: generate a QMC point set (Sobol, subgroup or Korobov rank-1 lattice),
//! optionally randomized, and write it to .csv / .npy.

use std::time::Instant;

use anyhow::{Result, bail};
use gradfree_core::rng_from_seed;
use gradfree_qmc::{Halton, Iid, Rank1Lattice, Scramble, Sequence, Sobol, korobov_vector, latin_hypercube, subgroup};
use serde::Serialize;

use crate::cli::{SampleArgs, SampleMethod, ScrambleArg};

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

pub fn run(args: &SampleArgs) -> Result<()> {
    if args.dim == 0 || args.n == 0 {
        bail!("--dim and --n must be >= 1 (got --dim {} --n {})", args.dim, args.n);
    }
    let (d, n) = (args.dim, args.n);
    // Sizes are checked before the points are allocated.
    if !(1..=64).contains(&args.bits) {
        bail!("--bits {}: expected an integer in 1..=64 (scipy's Sobol bits)", args.bits);
    }
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
    gradfree_core::memory::check_elements(&format!("--n {n} x --dim {d} points"), len as u128)?;
    let mut points = vec![0.0; len];

    let started = Instant::now();
    let (method, randomization) = match args.method {
        SampleMethod::Sobol => {
            let scramble = match args.scramble {
                ScrambleArg::None => Scramble::None,
                ScrambleArg::LmsShift => Scramble::LmsShift { seed: args.seed },
                ScrambleArg::Owen => Scramble::Owen { seed: args.seed },
            };
            let mut s = Sobol::with_bits(d, scramble, args.bits)?;
            s.fast_forward(args.skip)?;
            s.fill(n as usize, &mut points)?;
            let name = match args.scramble {
                ScrambleArg::None => "none",
                ScrambleArg::LmsShift => "lms-shift",
                ScrambleArg::Owen => "owen",
            };
            ("sobol", name.to_string())
        }
        SampleMethod::Halton => {
            let seed = (args.scramble != ScrambleArg::None).then_some(args.seed);
            let mut h = Halton::new(d, seed)?;
            h.fast_forward(args.skip)?;
            h.fill(n as usize, &mut points)?;
            ("halton", if seed.is_some() { "digit-permutations".into() } else { "none".into() })
        }
        SampleMethod::Mc => {
            let mut m = Iid::new(d, args.seed)?;
            m.fill(n as usize, &mut points)?;
            ("mc", "iid".into())
        }
        SampleMethod::Lhs => {
            points.copy_from_slice(&latin_hypercube(n as usize, d, args.seed)?);
            ("lhs", "latin-hypercube".into())
        }
        SampleMethod::Subgroup | SampleMethod::Korobov => {
            let lattice = match args.method {
                SampleMethod::Subgroup => subgroup(d, n)?,
                _ => {
                    let Some(a) = args.a else { bail!("--method korobov needs --a, the multiplier of z = (1, a, a^2, ...) mod n") };
                    Rank1Lattice::new(n, korobov_vector(d, n, a))?
                }
            };
            let lattice = if args.random_shift { lattice.random_shift(&mut rng_from_seed(args.seed)) } else { lattice };
            lattice.fill_par(0, n as usize, &mut points);
            (
                if args.method == SampleMethod::Subgroup { "subgroup" } else { "korobov" },
                if args.random_shift { "random-shift".into() } else { "none".into() },
            )
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let mean = points.iter().sum::<f64>() / points.len() as f64;
    if args.method == SampleMethod::Sobol && args.skip == 0 && !n.is_power_of_two() {
        eprintln!("warning: the balance properties of Sobol points require n to be a power of 2 (n = {n})");
    }
    if args.output.as_deref() == Some(std::path::Path::new("-")) {
        // `-o -`: the points as CSV on stdout, nothing else.
        for row in points.chunks_exact(d) {
            outln!("{}", row.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(","));
        }
        return Ok(());
    }
    if let Some(p) = &args.output {
        crate::points_io::write_points(p, n as usize, d, &points)?;
    }
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
