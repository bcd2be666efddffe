//! Small shared pieces of the population methods: writing sample points, antithetic pairs, and
//! the rank order of values.

use gradfree_core::Population;

/// `out` row `i` = `mu + scale * steps_i` (`steps` is `d x n` column-major); `out` is resized.
pub(crate) fn write_points(out: &mut Population, mu: &[f64], scale: f64, steps: &[f64]) {
    let d = mu.len();
    out.resize(steps.len() / d, d);
    for (row, y) in out.rows_mut().zip(steps.chunks_exact(d)) {
        for ((x, &m), &yi) in row.iter_mut().zip(mu).zip(y) {
            *x = m + scale * yi;
        }
    }
}

/// Antithetic pairs: rows `2i` and `2i + 1` of `out` are `mu + scale * y_i` and `mu - scale * y_i`
/// (`y` is `d x b` column-major); `out` must already have at least `2b` rows of length `d`.
pub(crate) fn write_pairs(out: &mut Population, mu: &[f64], scale: f64, y: &[f64]) {
    let d = mu.len();
    for (yi, pair) in y.chunks_exact(d).zip(out.as_mut_slice().chunks_exact_mut(2 * d)) {
        let (plus, minus) = pair.split_at_mut(d);
        for (((p, m), &c), &v) in plus.iter_mut().zip(minus.iter_mut()).zip(mu).zip(yi) {
            *p = c + scale * v;
            *m = c - scale * v;
        }
    }
}

/// A mean step of the gradient methods, `mu_i -= step_i`; returns `max_i |step_i|`, the step's
/// infinity norm (what their `scale` reports).
pub(crate) fn descend(mu: &mut [f64], step: impl IntoIterator<Item = f64>) -> f64 {
    let mut max_step: f64 = 0.0;
    for (m, s) in mu.iter_mut().zip(step) {
        *m -= s;
        max_step = max_step.max(s.abs());
    }
    max_step
}

/// Indices of `values` from smallest to largest, ties broken by index (a deterministic rule, as
/// eq. 3.24 asks); `order` is overwritten.
pub(crate) fn rank_order(values: &[f64], order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..values.len());
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
}

/// Per-generation buffers held by an optimizer: not part of its state, so skipped by serde and
/// always equal under `PartialEq` (a resumed optimizer starts with empty buffers).
#[derive(Clone, Debug, Default)]
pub(crate) struct Work<T>(pub T);

impl<T> PartialEq for Work<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
