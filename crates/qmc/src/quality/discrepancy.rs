//! L2-type discrepancies of a point set in `[0, 1]^d` (Hickernell 1998), in the squared form that
//! scipy.stats.qmc.discrepancy returns. O(n^2 d), parallel over points.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::QmcError;

/// `sum_{i,j} prod_k kernel(x_ik, x_jk)` over all ordered pairs: the row sums in parallel over
/// `i`, added in row order (the result does not depend on the number of threads). Stops with
/// [`QmcError::Interrupted`] soon after `cancel` is set.
fn pair_sum(rows: &[&[f64]], kernel: impl Fn(f64, f64) -> f64 + Sync, cancel: &AtomicBool) -> Result<f64, QmcError> {
    let sums: Vec<f64> = rows
        .par_iter()
        .map(|a| {
            if cancel.load(Ordering::Relaxed) {
                return 0.0;
            }
            rows.iter().map(|b| a.iter().zip(*b).map(|(&x, &y)| kernel(x, y)).product::<f64>()).sum::<f64>()
        })
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return Err(QmcError::Interrupted);
    }
    Ok(sums.iter().sum())
}

fn check(points: &[f64], d: usize) -> Result<usize, QmcError> {
    if d == 0 || points.is_empty() || !points.len().is_multiple_of(d) {
        return Err(QmcError::invalid("points", format!("{} values", points.len()), format!("a non-empty multiple of d = {d}")));
    }
    if let Some(k) = points.iter().position(|v| !(0.0..=1.0).contains(v)) {
        return Err(QmcError::invalid("points", format!("value {} at {k}", points[k]), "in [0, 1]"));
    }
    Ok(points.len() / d)
}

/// Squared centered L2 discrepancy:
/// `(13/12)^d - 2/n sum_i prod_k (1 + |z_ik|/2 - z_ik^2/2) + 1/n^2 sum_ij prod_k (1 + |z_ik|/2 +
/// |z_jk|/2 - |x_ik - x_jk|/2)`, `z = x - 1/2`.
pub fn centered_l2(points: &[f64], d: usize) -> Result<f64, QmcError> {
    centered_l2_cancellable(points, d, &AtomicBool::new(false))
}

/// [`centered_l2`] that stops with [`QmcError::Interrupted`] soon after `cancel` is set.
pub fn centered_l2_cancellable(points: &[f64], d: usize, cancel: &AtomicBool) -> Result<f64, QmcError> {
    let n = check(points, d)?;
    let rows: Vec<&[f64]> = points.chunks_exact(d).collect();
    let single: f64 = rows.iter().map(|r| r.iter().map(|x| (x - 0.5).abs()).map(|z| 1.0 + 0.5 * z - 0.5 * z * z).product::<f64>()).sum();
    let pairs = pair_sum(&rows, |x, y| 1.0 + 0.5 * (x - 0.5).abs() + 0.5 * (y - 0.5).abs() - 0.5 * (x - y).abs(), cancel)?;
    let nf = n as f64;
    Ok((13.0f64 / 12.0).powi(d as i32) - 2.0 / nf * single + pairs / (nf * nf))
}

/// Squared wrap-around L2 discrepancy:
/// `-(4/3)^d + 1/n^2 sum_ij prod_k (3/2 - |x_ik - x_jk| (1 - |x_ik - x_jk|))`.
pub fn wrap_around_l2(points: &[f64], d: usize) -> Result<f64, QmcError> {
    wrap_around_l2_cancellable(points, d, &AtomicBool::new(false))
}

/// [`wrap_around_l2`] that stops with [`QmcError::Interrupted`] soon after `cancel` is set.
pub fn wrap_around_l2_cancellable(points: &[f64], d: usize, cancel: &AtomicBool) -> Result<f64, QmcError> {
    let n = check(points, d)?;
    let rows: Vec<&[f64]> = points.chunks_exact(d).collect();
    let pairs = pair_sum(
        &rows,
        |x, y| {
            let t = (x - y).abs();
            1.5 - t * (1.0 - t)
        },
        cancel,
    )?;
    let nf = n as f64;
    Ok(-(4.0f64 / 3.0).powi(d as i32) + pairs / (nf * nf))
}
