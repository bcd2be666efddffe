//! L2-type discrepancies of a point set in `[0, 1]^d` (centered and wrap-around, Hickernell 1998;
//! mixture, Zhou et al. 2013; L2-star, Warnock 1972), in the form scipy.stats.qmc.discrepancy
//! returns them. O(n^2 d), parallel over points.

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

/// The L2-type discrepancies of [`discrepancy`], by scipy.stats.qmc.discrepancy's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discrepancy {
    /// `"CD"`, squared centered L2 (Hickernell 1998):
    /// `(13/12)^d - 2/n sum_i prod_k (1 + |z_ik|/2 - z_ik^2/2) + 1/n^2 sum_ij prod_k (1 + |z_ik|/2 +
    /// |z_jk|/2 - |x_ik - x_jk|/2)`, `z = x - 1/2`.
    Centered,
    /// `"WD"`, squared wrap-around L2 (Hickernell 1998):
    /// `-(4/3)^d + 1/n^2 sum_ij prod_k (3/2 - |x_ik - x_jk| (1 - |x_ik - x_jk|))`.
    WrapAround,
    /// `"MD"`, squared mixture discrepancy (Zhou, Fang & Ning 2013, eq. 18):
    /// `(19/12)^d - 2/n sum_i prod_k (5/3 - |z_ik|/4 - z_ik^2/4) + 1/n^2 sum_ij prod_k (15/8 -
    /// |z_ik|/4 - |z_jk|/4 - 3|x_ik - x_jk|/4 + |x_ik - x_jk|^2/2)`.
    Mixture,
    /// `"L2-star"`, the L2-star discrepancy itself, not squared, as scipy returns it (Warnock 1972):
    /// `sqrt(3^-d - 2^(1-d)/n sum_i prod_k (1 - x_ik^2) + 1/n^2 sum_ij prod_k (1 - max(x_ik, x_jk)))`.
    L2Star,
}

impl Discrepancy {
    /// The names, as scipy spells them.
    pub const NAMES: [&'static str; 4] = ["CD", "WD", "MD", "L2-star"];

    /// By scipy's name (`"CD"`, `"WD"`, `"MD"`, `"L2-star"`).
    pub fn from_name(name: &str) -> Result<Self, QmcError> {
        Ok(match name {
            "CD" => Discrepancy::Centered,
            "WD" => Discrepancy::WrapAround,
            "MD" => Discrepancy::Mixture,
            "L2-star" => Discrepancy::L2Star,
            _ => return Err(QmcError::invalid("method", name, format!("one of {}", Self::NAMES.join(", ")))),
        })
    }
}

/// The discrepancy `kind` of the rows of `points` (`n x d`, row-major, in `[0, 1]`); with
/// `iterative`, normalized as if the set had `n + 1` points (scipy's `iterative=True`, for adding a
/// point). `O(n^2 d)`, parallel over rows, the same value for any thread count; stops with
/// [`QmcError::Interrupted`] soon after `cancel` is set.
pub fn discrepancy(points: &[f64], d: usize, kind: Discrepancy, iterative: bool, cancel: &AtomicBool) -> Result<f64, QmcError> {
    let rows_n = check(points, d)?;
    let rows: Vec<&[f64]> = points.chunks_exact(d).collect();
    let n = (rows_n + usize::from(iterative)) as f64;
    let single = |f: &dyn Fn(f64) -> f64| rows.iter().map(|r| r.iter().map(|&x| f(x)).product::<f64>()).sum::<f64>();
    let di = d as i32;
    Ok(match kind {
        Discrepancy::Centered => {
            let s = single(&|x| {
                let z = (x - 0.5).abs();
                1.0 + 0.5 * z - 0.5 * z * z
            });
            let p = pair_sum(&rows, |x, y| 1.0 + 0.5 * (x - 0.5).abs() + 0.5 * (y - 0.5).abs() - 0.5 * (x - y).abs(), cancel)?;
            (13.0f64 / 12.0).powi(di) - 2.0 / n * s + p / (n * n)
        }
        Discrepancy::WrapAround => {
            let p = pair_sum(
                &rows,
                |x, y| {
                    let t = (x - y).abs();
                    1.5 - t * (1.0 - t)
                },
                cancel,
            )?;
            -(4.0f64 / 3.0).powi(di) + p / (n * n)
        }
        Discrepancy::Mixture => {
            let s = single(&|x| {
                let z = (x - 0.5).abs();
                5.0 / 3.0 - 0.25 * z - 0.25 * z * z
            });
            let p = pair_sum(
                &rows,
                |x, y| {
                    let t = (x - y).abs();
                    15.0 / 8.0 - 0.25 * (x - 0.5).abs() - 0.25 * (y - 0.5).abs() - 0.75 * t + 0.5 * t * t
                },
                cancel,
            )?;
            (19.0f64 / 12.0).powi(di) - 2.0 / n * s + p / (n * n)
        }
        Discrepancy::L2Star => {
            let s = single(&|x| 1.0 - x * x);
            let p = pair_sum(&rows, |x, y| 1.0 - x.max(y), cancel)?;
            (3.0f64.powi(-di) - 2.0f64.powi(1 - di) / n * s + p / (n * n)).max(0.0).sqrt()
        }
    })
}

/// Squared centered L2 discrepancy ([`Discrepancy::Centered`]).
pub fn centered_l2(points: &[f64], d: usize) -> Result<f64, QmcError> {
    discrepancy(points, d, Discrepancy::Centered, false, &AtomicBool::new(false))
}

/// Squared wrap-around L2 discrepancy ([`Discrepancy::WrapAround`]).
pub fn wrap_around_l2(points: &[f64], d: usize) -> Result<f64, QmcError> {
    discrepancy(points, d, Discrepancy::WrapAround, false, &AtomicBool::new(false))
}
