//! The Gram-error protocol shared by the kernel-approximation experiments (thesis sec. 5.5.3 and
//! 6.6.2): per run, a random sample of rows, the exact Gram matrix of each kernel on it, and the
//! relative Frobenius and max errors of each method's features; mean and standard deviation over
//! runs.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_data::Labeled;
use gradfree_features::{FeatureMap, GramErrors, Kernel, exact_gram, feature_gram, gather, sample_rows};

pub use gradfree_core::stats::mean_sd as mean_std;

use crate::{Result, Series};

/// The rows of one run: `rows` distinct rows of `data` drawn from `(seed, run)`, as `f64`.
pub fn run_rows(data: &Labeled, rows: usize, seed: u64, run: usize) -> Vec<f64> {
    let idx = sample_rows(data.n, rows, &mut rng_from_seed(derive_seed(seed, 0x5a3 ^ (run as u64) << 8)));
    gather(&data.x, data.d, &idx)
}

/// The median pairwise Euclidean distance among the first `k` rows of `x` (the "median
/// heuristic" bandwidth).
pub fn median_distance(x: &[f64], d: usize, k: usize) -> f64 {
    let rows: Vec<&[f64]> = x.chunks_exact(d).take(k).collect();
    let mut dist = Vec::with_capacity(rows.len() * rows.len() / 2);
    for i in 0..rows.len() {
        for j in 0..i {
            dist.push(rows[i].iter().zip(rows[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt());
        }
    }
    if dist.is_empty() {
        return 1.0;
    }
    let mid = dist.len() / 2;
    *dist.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// Errors of `map` on the rows `x` (`d` columns) against the exact Gram matrix `exact`.
pub fn errors_of(map: &FeatureMap, x: &[f64], exact: &[f64]) -> Result<GramErrors> {
    let z = map.transform(x)?;
    Ok(GramErrors::between(exact, &feature_gram(&z, map.dim_out())?)?)
}

/// The exact Gram matrix of `kernel` on `x`.
pub fn exact(kernel: &Kernel, x: &[f64], d: usize) -> Result<Vec<f64>> {
    Ok(exact_gram(kernel, x, d)?)
}

/// Accumulated errors of one (kernel, size, method) cell over runs.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// Relative Frobenius errors, one per run.
    pub fro: Vec<f64>,
    /// Relative max errors, one per run.
    pub max: Vec<f64>,
}

impl Cell {
    /// Adds a run.
    pub fn push(&mut self, e: GramErrors) {
        self.fro.push(e.rel_frobenius);
        self.max.push(e.rel_max);
    }

    /// `mean ± std` of the Frobenius and max errors, formatted.
    pub fn formatted(&self) -> (String, String) {
        let (a, b) = (mean_std(&self.fro), mean_std(&self.max));
        (format!("{:.4} ± {:.4}", a.0, a.1), format!("{:.4} ± {:.4}", b.0, b.1))
    }
}

/// The two panels' series of one kernel, `(title suffix, series)` for the Frobenius and the max
/// error: one series per method (`labels`), x the sizes `xs`, y the mean over runs;
/// `cells[size][method]`.
pub fn panels(labels: &[&str], xs: &[f64], cells: &[Vec<Cell>]) -> Vec<(&'static str, Vec<Series>)> {
    [("relative Frobenius error", true), ("relative max error", false)]
        .into_iter()
        .map(|(metric, fro)| {
            let series = labels
                .iter()
                .enumerate()
                .map(|(mi, l)| Series {
                    label: l.to_string(),
                    points: xs.iter().zip(cells).map(|(&x, row)| (x, mean_std(if fro { &row[mi].fro } else { &row[mi].max }).0)).collect(),
                    errors: Vec::new(),
                })
                .collect();
            (metric, series)
        })
        .collect()
}
