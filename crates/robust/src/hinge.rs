//! Per-sample classification losses on one row of logits `t` (the last layer's output) and a
//! label `y`, in `f64`: the reference definitions the training stack's tensor losses are tested
//! against, and the base losses of the curriculum losses.
//!
//! - the multi-class margin `u = t_y - max_{i != y} t_i` (thesis app. 10.37, eq. 10.555);
//! - the hard multi-class hinge `H = max(1 - u, 0)` (eq. 10.556; Crammer & Singer 2001);
//! - the soft multi-class hinge `S` (eq. 10.557): `H` when `u >= 0`, else
//!   `max(1 - t_y + LogSumExp(t), 0)`, with LogSumExp over all `K` logits;
//! - their mix `F = beta S + (1 - beta) H` (app. 10.37);
//! - cross-entropy `-log softmax(t)_y`, and the generalized cross-entropy
//!   `(1 - softmax(t)_y^q) / q` of Zhang & Sabuncu (NeurIPS 2018), the GCE baseline of sec. 8.3.
//!
//! `S >= H >= 1(u < 0)`, so each hinge is a base loss `l(u) >= 1(u < 0)` as Theorem 29 needs. `S`
//! jumps at `u = 0` (to `1 + LSE(t) - t_y > 1` from below): harmless for the bound.

/// `LogSumExp(t)`, computed stably.
pub fn log_sum_exp(t: &[f64]) -> f64 {
    let m = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + t.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

/// The largest logit other than `t[y]`.
fn max_other(t: &[f64], y: usize) -> f64 {
    t.iter().enumerate().filter(|(i, _)| *i != y).map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max)
}

/// The multi-class margin `u = t_y - max_{i != y} t_i` (eq. 10.555).
pub fn margin(t: &[f64], y: usize) -> f64 {
    t[y] - max_other(t, y)
}

/// The hard multi-class hinge `max(1 - t_y + max_{i != y} t_i, 0)` (eq. 10.556).
pub fn hard_hinge(t: &[f64], y: usize) -> f64 {
    (1.0 - margin(t, y)).max(0.0)
}

/// The soft multi-class hinge of eq. (10.557).
pub fn soft_hinge(t: &[f64], y: usize) -> f64 {
    if margin(t, y) >= 0.0 { hard_hinge(t, y) } else { (1.0 - t[y] + log_sum_exp(t)).max(0.0) }
}

/// `beta S + (1 - beta) H`, `beta` in `[0, 1]` (app. 10.37).
pub fn mixed_hinge(t: &[f64], y: usize, beta: f64) -> f64 {
    beta * soft_hinge(t, y) + (1.0 - beta) * hard_hinge(t, y)
}

/// Cross-entropy `LSE(t) - t_y`.
pub fn cross_entropy(t: &[f64], y: usize) -> f64 {
    log_sum_exp(t) - t[y]
}

/// Generalized cross-entropy `(1 - p_y^q) / q` with `p = softmax(t)`, `q` in `(0, 1]` (Zhang &
/// Sabuncu 2018, eq. 6); cross-entropy is its limit as `q -> 0`, the MAE its value at `q = 1`.
pub fn generalized_cross_entropy(t: &[f64], y: usize, q: f64) -> f64 {
    let log_p = t[y] - log_sum_exp(t);
    (1.0 - (q * log_p).exp()) / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        let t = [2.0, 0.5, -1.0];
        assert_eq!(margin(&t, 0), 1.5);
        assert_eq!(hard_hinge(&t, 0), 0.0);
        assert_eq!(margin(&t, 1), -1.5);
        assert_eq!(hard_hinge(&t, 1), 2.5);
        let lse = (2f64.exp() + 0.5f64.exp() + (-1f64).exp()).ln();
        assert!((soft_hinge(&t, 1) - (1.0 - 0.5 + lse)).abs() < 1e-12);
        assert!((cross_entropy(&t, 2) - (lse + 1.0)).abs() < 1e-12);
        // q = 1: 1 - p_y.
        assert!((generalized_cross_entropy(&t, 0, 1.0) - (1.0 - (2.0 - lse).exp())).abs() < 1e-12);
        // q -> 0: cross-entropy.
        assert!((generalized_cross_entropy(&t, 1, 1e-7) - cross_entropy(&t, 1)).abs() < 1e-5);
        assert!((mixed_hinge(&t, 1, 0.25) - (0.25 * soft_hinge(&t, 1) + 0.75 * 2.5)).abs() < 1e-12);
    }
}
