//! [`Data`]: the samples a model's loss is averaged over, in memory: features `x` (`n x d`, a
//! [`Population`] of rows) and, for supervised models, responses `y`. Checked once
//! ([`Data::new`]): at least one row, every value finite.

use gradfree_core::Population;

use crate::InferenceError;

/// Samples in memory: `n` rows of `d` features and, for supervised models, `n` responses.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    x: Population,
    y: Vec<f64>,
    /// A GLM's offset per row, added to the linear predictor (statsmodels' `offset`, and
    /// `log(exposure)`).
    offset: Option<Vec<f64>>,
    /// The rows' groups, for cluster-robust covariances.
    groups: Option<Vec<u64>>,
}

impl Data {
    /// Rows `x` (row-major, `d` columns) and responses `y` (empty, or one per row). Errors: no
    /// rows, `d = 0`, a length that is not rows of `d`, a count of responses other than the
    /// rows', a NaN or infinite value (naming its row and column).
    pub fn new(x: Vec<f64>, d: usize, y: Vec<f64>) -> Result<Data, InferenceError> {
        if d == 0 {
            return Err(InferenceError::BadData("the data have 0 features; need at least 1".into()));
        }
        if x.is_empty() {
            return Err(InferenceError::BadData("the data have no rows".into()));
        }
        if !x.len().is_multiple_of(d) {
            return Err(InferenceError::BadData(format!("{} values do not form rows of {d} features", x.len())));
        }
        let n = x.len() / d;
        if !y.is_empty() && y.len() != n {
            return Err(InferenceError::BadData(format!("{} responses for {n} rows", y.len())));
        }
        if let Some(k) = x.iter().position(|v| !v.is_finite()) {
            return Err(InferenceError::BadData(format!("row {} column {} is {}: the data must be finite", k / d, k % d, x[k])));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(InferenceError::BadData(format!("response {i} is {}: the data must be finite", y[i])));
        }
        Ok(Data { x: Population::from_row_major(n, d, x)?, y, offset: None, groups: None })
    }

    /// The data with an offset per row (`t_i = x_i^T theta + offset_i`, statsmodels' GLM
    /// `offset`). Errors: a length other than the rows', a value that is not finite.
    pub fn with_offset(mut self, offset: Vec<f64>) -> Result<Data, InferenceError> {
        if offset.len() != self.len() {
            return Err(InferenceError::invalid(
                "offset",
                format!("of length {}", offset.len()),
                format!("one value per row ({})", self.len()),
            ));
        }
        if let Some(i) = offset.iter().position(|v| !v.is_finite()) {
            return Err(InferenceError::invalid("offset", format!("{} at row {i}", offset[i]), "finite values (exposure: positive)"));
        }
        self.offset = Some(offset);
        Ok(self)
    }

    /// The data with a group per row (for `cov_type` cluster). Errors: a length other than the
    /// rows'.
    pub fn with_groups(mut self, groups: Vec<u64>) -> Result<Data, InferenceError> {
        if groups.len() != self.len() {
            return Err(InferenceError::invalid(
                "groups",
                format!("of length {}", groups.len()),
                format!("one group per row ({})", self.len()),
            ));
        }
        self.groups = Some(groups);
        Ok(self)
    }

    /// The offset per row, if any.
    pub fn offset(&self) -> Option<&[f64]> {
        self.offset.as_deref()
    }

    /// The group per row, if any.
    pub fn groups(&self) -> Option<&[u64]> {
        self.groups.as_deref()
    }

    /// The feature rows.
    pub fn features(&self) -> &Population {
        &self.x
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Features per row.
    pub fn dim(&self) -> usize {
        self.x.dim()
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        self.x.row(i)
    }

    /// Response `i` (0 for unsupervised data).
    pub fn response(&self, i: usize) -> f64 {
        self.y.get(i).copied().unwrap_or(0.0)
    }

    /// Whether the data have responses.
    pub fn has_responses(&self) -> bool {
        !self.y.is_empty()
    }

    /// All responses.
    pub fn responses(&self) -> &[f64] {
        &self.y
    }

    /// All rows, row-major.
    pub fn rows(&self) -> &[f64] {
        self.x.as_slice()
    }

    /// The columns whose every row holds the same nonzero value (an intercept, a constant
    /// feature), in order.
    pub fn constant_columns(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.dim()).filter(move |&a| {
            let v = self.row(0)[a];
            v != 0.0 && (1..self.len()).all(|i| self.row(i)[a] == v)
        })
    }
}
