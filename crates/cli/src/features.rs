//! `gradfree features`: random features of a kernel for a data matrix, and their Gram error.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use gradfree_features::{
    FeatureError, FeatureMap, FeatureSpec, GramErrors, Kernel, Method, SsfFrequencies, SsfOptions, SsfRotation, exact_gram, feature_gram,
    gamma_scale, gather, sample_rows,
};

use std::path::PathBuf;

use crate::flags;
use crate::points_io::{read_matrix, write_points};
use clap::Args;
use clap::builder::PossibleValuesParser;

#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// Kernel: gaussian, arccos0, arccos1, arccos2 (arccosB for any order B up to 10).
    #[arg(long, default_value = "gaussian")]
    pub kernel: String,
    /// Projection method (`gradfree list` describes them): iid, orf, circulant, halton, sobol, lattice, ssf.
    #[arg(long, default_value = "ssf")]
    pub method: String,
    /// Output dimension (features come in cos/sin or chi(p)/chi(-p) pairs, 2M per projection for
    /// SSF Gaussian: other counts cut the last group).
    #[arg(long)]
    pub dim_out: usize,
    /// Input rows: a .csv (one row per line, optional header) or .npy (float64/float32, 2-d) file.
    #[arg(long, conflicts_with = "dataset", required_unless_present = "dataset")]
    pub data: Option<PathBuf>,
    /// Or an installed real data set: fashion-mnist (dataset-fashion-mnist) or dna (r-cran-mlbench).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Gaussian bandwidth sigma (K = exp(-|x - z|^2 / (2 sigma^2))); default from --gamma.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "gamma")]
    pub sigma: Option<f64>,
    /// Gaussian gamma (K = exp(-gamma |x - z|^2)), or `scale` = 1 / (d var(X)) as scikit-learn.
    #[arg(long, default_value = "scale")]
    pub gamma: String,
    /// SSF, Gaussian kernel: radial quadrature points M (eq. 6.10).
    #[arg(long, default_value_t = 1)]
    pub radial_points: usize,
    /// SSF: how the DFT rows are chosen: Algorithm 12 (coordinate ascent on the log-energy, thesis
    /// eq. 6.34), the closed-form subgroup (needs a prime n with d/2 | n - 1), or uniformly random
    /// distinct rows.
    #[arg(long, default_value = SsfFrequencies::NAMES[0], value_parser = PossibleValuesParser::new(SsfFrequencies::NAMES))]
    pub frequencies: String,
    /// SSF: random sign flips (O(d), the thesis), a Haar rotation (O(d^2), exactly unbiased), or
    /// random phases after a coordinate permutation (thesis app. 10.26).
    #[arg(long, default_value = SsfRotation::NAMES[0], value_parser = PossibleValuesParser::new(SsfRotation::NAMES))]
    pub rotation: String,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the features to a .npy or .csv file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Report the relative Frobenius and max Gram errors against the exact kernel.
    #[arg(long)]
    pub report: bool,
    /// Rows sampled for --report (all rows if fewer).
    #[arg(long, default_value_t = 2000)]
    pub report_rows: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `gradfree features`.
pub fn run(a: &FeaturesArgs) -> Result<()> {
    map(a).map_err(|e| match e.downcast_ref::<FeatureError>().and_then(|f| flags::features_flag(f).map(|flag| (f, flag))) {
        // An arc-cosine order is given as part of the kernel's name.
        Some((FeatureError::InvalidParameter { name: "order", value, expected }, flag)) => {
            anyhow::anyhow!("invalid {flag} arccos{value}: expected {expected}")
        }
        Some((FeatureError::InvalidParameter { value, expected, .. }, flag)) => {
            anyhow::anyhow!("invalid {flag} {value}: expected {expected}")
        }
        _ => e,
    })
}

/// The run, with the library's parameter names in its errors.
fn map(a: &FeaturesArgs) -> Result<()> {
    // Options first, so a typo fails before seconds of data loading.
    let method = Method::parse(&a.method)?;
    if !matches!(a.kernel.as_str(), "gaussian" | "rbf") {
        Kernel::parse(&a.kernel, 1.0)?;
    }
    if a.dim_out == 0 {
        bail!("invalid --dim-out 0: expected an integer >= 1 (best even)");
    }
    if a.report && a.report_rows < 2 {
        bail!("invalid --report-rows {}: must be >= 2 (the Gram error compares pairs of rows)", a.report_rows);
    }
    if a.output.is_none() && !a.report {
        bail!("nothing to do: give -o FILE to write the features, or --report for the Gram error");
    }
    let (name, x, d) = match (&a.data, &a.dataset) {
        (Some(path), _) => {
            let m = read_matrix(path)?;
            if m.rows == 0 || m.values.len() != m.rows * m.cols {
                bail!("{}: no complete rows", path.display());
            }
            (path.display().to_string(), m.values, m.cols)
        }
        (None, Some(set)) => {
            let l = gradfree_data::load_labeled(set)?;
            (l.name.to_string(), l.x.iter().map(|v| *v as f64).collect(), l.d)
        }
        (None, None) => bail!("give the input rows with --data FILE or --dataset NAME"),
    };
    gradfree_features::check_rows(&x, d).with_context(|| name.clone())?;
    let rows = x.len() / d;
    // The output file is the command's until it is written.
    let _output = match &a.output {
        Some(path) => {
            let inputs: Vec<(&'static str, &std::path::Path)> = a.data.as_deref().map(|p| ("--data", p)).into_iter().collect();
            Some(crate::points_io::check_target("-o", path, rows, a.dim_out, &inputs)?)
        }
        None => None,
    };
    let kernel = match a.kernel.as_str() {
        "gaussian" | "rbf" => match a.sigma {
            Some(sigma) => Kernel::parse("gaussian", sigma)?,
            None => {
                let gamma = if a.gamma == "scale" {
                    gamma_scale(&x, d)?
                } else {
                    a.gamma.parse::<f64>().map_err(|_| anyhow::anyhow!("invalid --gamma {}: expected a number > 0 or `scale`", a.gamma))?
                };
                Kernel::gaussian_gamma(gamma)?
            }
        },
        other => Kernel::parse(other, 1.0)?,
    };
    let ssf = SsfOptions { frequencies: SsfFrequencies::parse(&a.frequencies)?, rotation: SsfRotation::parse(&a.rotation)? };
    let spec = FeatureSpec { radial_points: a.radial_points, ssf, ..FeatureSpec::new(kernel, method, a.dim_out, a.seed) };
    let t0 = Instant::now();
    // Algorithm 12 can take minutes at large d: a spinner on a terminal while it runs.
    let spinner = gradfree_experiments::progress::bar(
        None,
        "{spinner} [{elapsed_precise}] building the projection (Algorithm 12 at d = {msg})",
        !a.json,
    );
    spinner.set_message(d.to_string());
    let tick = || {
        spinner.tick();
        false
    };
    let map = FeatureMap::new_cancellable(spec, d, Some(&tick))?;
    spinner.finish_and_clear();
    let build = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let z = map.transform(&x)?;
    let transform = t1.elapsed().as_secs_f64();
    if let Some(path) = &a.output {
        write_points(path, rows, map.dim_out(), &z)?;
    }
    let errors = if a.report {
        let idx = sample_rows(rows, a.report_rows, &mut gradfree_core::rng_from_seed(gradfree_core::derive_seed(a.seed, 0x6e7)));
        let xs = gather(&x, d, &idx);
        let zs = gather(&z, map.dim_out(), &idx);
        Some((idx.len(), GramErrors::between(&exact_gram(&kernel, &xs, d)?, &feature_gram(&zs, map.dim_out())?)?))
    } else {
        None
    };
    let sigma = match kernel {
        Kernel::Gaussian { sigma } => Some(sigma),
        Kernel::ArcCos { .. } => None,
    };
    if a.json {
        let mut o = serde_json::json!({
            "data": name, "rows": rows, "d": d, "kernel": kernel.name(), "sigma": sigma, "method": method.name(),
            "n_components": map.dim_out(), "seed": a.seed, "build_seconds": build, "transform_seconds": transform,
        });
        if let Some((n, e)) = errors {
            o["report_rows"] = n.into();
            o["rel_frobenius"] = e.rel_frobenius.into();
            o["rel_max"] = e.rel_max.into();
        }
        if let Some(p) = &a.output {
            o["output"] = p.display().to_string().into();
        }
        outln!("{o}");
        return Ok(());
    }
    let bandwidth = sigma.map(|s| format!(" (sigma = {s:.4})")).unwrap_or_default();
    outln!("{name}: {rows} x {d} -> {} {} features of the {} kernel{bandwidth}", map.dim_out(), method.name(), kernel.name());
    outln!("built in {build:.3} s, mapped in {transform:.3} s");
    if let Some((n, e)) = errors {
        outln!("Gram error on {n} rows: relative Frobenius {:.4e}, relative max {:.4e}", e.rel_frobenius, e.rel_max);
    }
    if let Some(p) = &a.output {
        outln!("wrote {}", p.display());
    }
    Ok(())
}
