//! The ranges of data a GLM's maximum likelihood can be computed on in double precision: the
//! features' ([`check_scale`]) and the responses' ([`ResponseRange`]). Beyond them a sum of the
//! fit (the Hessian, the residual sum of squares, the Poisson means `exp(x^T theta)`) overflows
//! or underflows, and the fit would be silently wrong; the errors name the value and the cause.

use crate::InferenceError;
use crate::model::Family;

/// An error when the rows (`p` values each) reach beyond `1e100`, where their squares in the
/// Hessian overflow double precision, or a column's values are all below `1e-100` without being
/// 0, where they underflow.
pub(crate) fn check_scale(x: &[f64], p: usize) -> Result<(), InferenceError> {
    let mut top = vec![0.0f64; p];
    for row in x.chunks_exact(p) {
        top.iter_mut().zip(row).for_each(|(t, v)| *t = t.max(v.abs()));
    }
    let scale = top.iter().fold(0.0f64, |a, v| a.max(*v));
    if scale > 1e100 {
        return Err(InferenceError::BadData(format!(
            "the data reach {scale:e}, beyond what double precision can square in the Hessian: standardize the features"
        )));
    }
    if let Some(j) = top.iter().position(|t| *t > 0.0 && *t < 1e-100) {
        return Err(InferenceError::BadData(format!(
            "column {j} reaches at most {:e}, so its squares in the Hessian underflow double precision: standardize the features",
            top[j]
        )));
    }
    Ok(())
}

/// [`check_scale`] and [`ResponseRange::check`] on data held in memory: what a GLM's fit, by
/// maximum likelihood or by chains, can be computed on in double precision.
pub(crate) fn check_ranges(family: Family, data: &crate::Data) -> Result<(), InferenceError> {
    let p = data.dim();
    check_scale(data.rows(), p)?;
    let mut range = ResponseRange::default();
    range.add(family, data.rows(), data.responses(), p);
    range.check(family)
}

/// The linear model's responses are refused beyond this (and nonzero below its inverse): their
/// squares, summed in the residual sum of squares, would overflow (underflow) double precision.
const LINEAR_RESPONSE: f64 = 1e140;

/// The Poisson sums `sum_i y_i max(1, |x_i|_inf^2) max(1, ln y_max)` are refused beyond this: at
/// the estimate the means `mu_i = exp(x_i^T theta)` are near the counts, so the Hessian `sum mu_i
/// x_i x_i^T` and the loss `sum (mu_i - y_i x_i^T theta)` are of that size, and past about 1e308
/// they overflow (a margin of 1e8 for the iterates on the way there).
const POISSON_LOAD: f64 = 1e300;

/// The largest responses seen (in rows pushed one chunk at a time, as when streaming) and what
/// they load the fit's sums with; [`ResponseRange::check`] refuses what double precision cannot
/// fit.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResponseRange {
    rows: u64,
    /// The largest `|y_i|` and its row.
    top: (f64, u64),
    /// Poisson: `sum_i y_i max(1, |x_i|_inf^2)`.
    load: f64,
}

impl ResponseRange {
    /// Adds rows `x` (row-major, `p` per row) with responses `y`.
    pub fn add(&mut self, family: Family, x: &[f64], y: &[f64], p: usize) {
        for (row, &v) in x.chunks_exact(p).zip(y) {
            if v.abs() > self.top.0 {
                self.top = (v.abs(), self.rows);
            }
            if family == Family::Poisson && v > 0.0 {
                let size = row.iter().fold(1.0f64, |a, x| a.max(x * x));
                self.load += v * size;
            }
            self.rows += 1;
        }
    }

    /// An error when the responses are beyond what the family's fit can compute (see the
    /// module documentation).
    pub fn check(&self, family: Family) -> Result<(), InferenceError> {
        let (top, row) = self.top;
        match family {
            Family::Linear if top > LINEAR_RESPONSE => Err(InferenceError::BadData(format!(
                "response {row} is {top:e}, beyond what double precision can square in the residual sum of squares (|y| up to {LINEAR_RESPONSE:e}): divide the response by a power of 10 (the coefficients and standard errors scale with it)"
            ))),
            Family::Linear if top > 0.0 && top < 1.0 / LINEAR_RESPONSE => Err(InferenceError::BadData(format!(
                "the response reaches at most {top:e} (row {row}), so the squares of its residuals underflow double precision (|y| from {:e}): multiply the response by a power of 10 (the coefficients and standard errors scale with it)",
                1.0 / LINEAR_RESPONSE
            ))),
            Family::Poisson if self.load * top.ln().max(1.0) > POISSON_LOAD => Err(InferenceError::BadData(format!(
                "count {top:e} (row {row}) is beyond what the log link can represent in double precision: the fitted means exp(x^T theta) near the counts make the likelihood's sums (sum mu_i x_i x_i^T, here about {:.1e}) overflow; counts up to about 1e300 / (rows x the features' largest square) fit",
                self.load * top.ln().max(1.0)
            ))),
            _ => Ok(()),
        }
    }
}
