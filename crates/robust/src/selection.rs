//! Algorithm 13 of the thesis (sec. 8.2.2, "Partial Optimization"): the minimizer over
//! `v in {0,1}^n` of `max(sum_i v_i l_i, C - sum_i v_i)` (eq. 8.13), by one sort.
//!
//! The box's loop keeps testing `L_i <= C + 1 - i` after the first failure, but `L_i` never
//! decreases while `C + 1 - i` strictly does, so the selection is always a prefix of the sorted
//! order; it stops there and maps the sorted positions back to the samples (the box leaves this
//! implicit). Theorem 31 proves the result optimal for `0 <= C <= 2n`; Proposition 2 gives the
//! optimal value `max(L_{T*}, C - T*)` (eq. 8.17), returned with the selection.

use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};

/// What a training step minimizes after the selection (the remark after Proposition 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrainOn {
    /// `L_{T*}`: the selected samples only ("in practice ... does not make much influence").
    #[default]
    Selected,
    /// `L_{T*+1}` when `L_{T*} < C - T*`, else `L_{T*}`: one more sample, so the step minimizes
    /// an upper bound of the optimal value `max(L_{T*}, C - T*)` (eq. 8.16). The authors' code
    /// adds it also at equality (`<=`), where `L_{T*}` already equals the optimal value; we
    /// follow the thesis' strict inequality.
    OneMore,
}

/// The outcome of Algorithm 13 on one set of losses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// `T*`: the number of samples selected (`sum_i v*_i`).
    pub count: usize,
    /// `L_{T*}`: the sum of the selected losses.
    pub selected_loss: f64,
    /// The optimal value `max(L_{T*}, C - T*)` of eq. (8.13) (Proposition 2, eq. 8.17).
    pub value: f64,
    /// Samples a training step uses under the rule it was asked for ([`TrainOn`]): `count`, or
    /// `count + 1`.
    pub train_count: usize,
}

/// Algorithm 13 with its sort buffer kept between calls, so a training loop selects every
/// mini-batch without allocating.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    order: Vec<usize>,
}

/// Checks a threshold for `n` samples: finite and in `[0, 2n]` (Theorem 31's range).
pub fn check_threshold(c: f64, n: usize) -> Result<()> {
    if !(c.is_finite() && (0.0..=2.0 * n as f64).contains(&c)) {
        return Err(RobustError::invalid("C", c, format!("a finite threshold in [0, 2n] = [0, {}] (Theorem 31)", 2 * n)));
    }
    Ok(())
}

fn check_losses(losses: &[f64]) -> Result<()> {
    if let Some((i, l)) = losses.iter().enumerate().find(|(_, l)| !(l.is_finite() && **l >= 0.0)) {
        return Err(RobustError::bad(format!("losses[{i}] = {l}: per-sample losses must be finite and >= 0")));
    }
    Ok(())
}

impl Selector {
    /// A selector with no buffer yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs Algorithm 13 on `losses` with threshold `c`. Writes `v*` into `mask` (same length as
    /// `losses`; with [`TrainOn::OneMore`] the extra sample is marked too, so `mask` holds
    /// `train_count` trues) and returns the selection. Ties are broken by sample index, so the
    /// result is deterministic.
    pub fn select(&mut self, losses: &[f64], c: f64, rule: TrainOn, mask: &mut [bool]) -> Result<Selection> {
        self.select_weighted(losses, None, c, rule, mask)
    }

    /// [`Selector::select`] with sample weights `w_i >= 0` (`None`: all 1), for the partial
    /// problem of the weighted sample, `min_v max(sum_i v_i w_i l_i, C - sum_i v_i w_i)` with
    /// `0 <= C <= 2 sum_i w_i`: an integer weight stands for that many copies of the sample, kept
    /// or dropped together. In the sorted order, sample `i` is kept while
    /// `L_i = sum_{j <= i} w_j l_j <= C - W_{i-1}` (`W_{i-1}` the weight kept before it): with unit
    /// weights this is the box's `L_i <= C + 1 - i` exactly; each kept sample leaves the objective
    /// no larger than `C - W_{i-1}`, the count term before it (the step of Theorem 31's proof),
    /// and multiplying every weight and `C` by the same factor gives the same selection. (The
    /// thesis has unit weights only; for other weights this greedy prefix is our extension and
    /// not claimed optimal over all `v`.) `count` is the number of samples kept; `value` is
    /// `max(L, C - W)` of the kept set.
    pub fn select_weighted(
        &mut self,
        losses: &[f64],
        weights: Option<&[f64]>,
        c: f64,
        rule: TrainOn,
        mask: &mut [bool],
    ) -> Result<Selection> {
        let n = losses.len();
        if mask.len() != n {
            return Err(RobustError::bad(format!("mask has {} entries for {n} losses", mask.len())));
        }
        check_losses(losses)?;
        match weights {
            None => check_threshold(c, n)?,
            Some(w) => {
                if w.len() != n {
                    return Err(RobustError::bad(format!("{} weights for {n} losses", w.len())));
                }
                if let Some((i, v)) = w.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
                    return Err(RobustError::invalid("sample_weight", format!("{v} at {i}"), "finite weights >= 0"));
                }
                let total: f64 = w.iter().sum();
                // The thresholds are sums of the same weights, so allow their rounding.
                if !(c.is_finite() && c >= 0.0 && c <= 2.0 * total * (1.0 + 8.0 * f64::EPSILON)) {
                    return Err(RobustError::invalid("C", c, format!("a finite threshold in [0, 2 sum(w)] = [0, {}]", 2.0 * total)));
                }
            }
        }
        let weight = |k: usize| weights.map_or(1.0, |w| w[k]);
        self.order.clear();
        self.order.extend(0..n);
        self.order.sort_unstable_by(|&a, &b| losses[a].total_cmp(&losses[b]).then(a.cmp(&b)));
        let (mut sum, mut kept, mut count) = (0.0, 0.0, 0);
        for (i, &k) in self.order.iter().enumerate() {
            // The test L_i <= C - W_{i-1}; with unit weights W_{i-1} = i - 1 (1-based i), the
            // box's L_i <= C + 1 - i.
            let next = sum + weight(k) * losses[k];
            if next <= c - kept {
                sum = next;
                kept += weight(k);
                count = i + 1;
            } else {
                break;
            }
        }
        let value = sum.max(c - kept);
        let train_count = match rule {
            TrainOn::OneMore if count < n && sum < c - kept => count + 1,
            _ => count,
        };
        mask.fill(false);
        for &k in &self.order[..train_count] {
            mask[k] = true;
        }
        Ok(Selection { count, selected_loss: sum, value, train_count })
    }
}

/// Algorithm 13 on `losses` with threshold `c`: the mask `v*` and the selection
/// ([`Selector::select`] with [`TrainOn::Selected`]).
pub fn select(losses: &[f64], c: f64) -> Result<(Vec<bool>, Selection)> {
    let mut mask = vec![false; losses.len()];
    let s = Selector::new().select(losses, c, TrainOn::Selected, &mut mask)?;
    Ok((mask, s))
}

/// The objective of eq. (8.13) at a given `v`: `max(sum_i v_i l_i, C - sum_i v_i)`.
pub fn partial_objective(losses: &[f64], v: &[bool], c: f64) -> f64 {
    let (sum, count) = losses.iter().zip(v).filter(|(_, s)| **s).fold((0.0, 0usize), |(s, k), (l, _)| (s + l, k + 1));
    sum.max(c - count as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example() {
        // Sorted losses 0, 0.5, 1, 3 with C = 4: L = 0 <= 4, 0.5 <= 3, 1.5 <= 2, 4.5 > 1.
        let losses = [3.0, 0.5, 0.0, 1.0];
        let (mask, s) = select(&losses, 4.0).unwrap();
        assert_eq!(mask, [false, true, true, true]);
        assert_eq!((s.count, s.selected_loss, s.value), (3, 1.5, 1.5));
        assert_eq!(partial_objective(&losses, &mask, 4.0), 1.5);
    }

    #[test]
    fn one_more_adds_the_next_sample_when_the_count_term_dominates() {
        // Zero losses, C = 2.5, n = 4: L_3 = 0 <= C - 2 = 0.5 but L_4 = 0 > C - 3 = -0.5, so T* = 3
        // and L_{T*} = 0 >= C - T* = -0.5: no extra sample.
        let mut sel = Selector::new();
        let mut mask = [false; 4];
        let s = sel.select(&[0.0; 4], 2.5, TrainOn::OneMore, &mut mask).unwrap();
        assert_eq!((s.count, s.train_count), (3, 3));
        // Losses 0.1 each, C = 3: L_3 = 0.3 <= 1, L_4 = 0.4 > 0: T* = 3, L_{T*} = 0.3 >= 0: no extra.
        let s = sel.select(&[0.1; 4], 3.0, TrainOn::OneMore, &mut mask).unwrap();
        assert_eq!((s.count, s.train_count), (3, 3));
        // Losses 2, 2 with C = 2: L_1 = 2 <= 2, L_2 = 4 > 1: T* = 1, L = 2 >= C - 1 = 1: no extra.
        // Losses 0.6, 5 with C = 2: L_1 = 0.6 <= 2, L_2 = 5.6 > 1: T* = 1, L = 0.6 < 1: one more.
        let s = sel.select(&[5.0, 0.6], 2.0, TrainOn::OneMore, &mut mask[..2]).unwrap();
        assert_eq!((s.count, s.train_count, s.value), (1, 2, 1.0));
        assert_eq!(&mask[..2], &[true, true]);
    }

    #[test]
    fn weights_scale_and_reduce_to_copies() {
        let losses = [3.0, 0.5, 0.0, 1.0, 0.25];
        let mut sel = Selector::new();
        let (mut a, mut b) = ([false; 5], [false; 5]);
        for c in [0.0, 1.0, 2.5, 4.0, 7.0, 10.0] {
            // Unit weights are Algorithm 13; doubling every weight and C selects the same rows.
            let s0 = sel.select(&losses, c, TrainOn::Selected, &mut a).unwrap();
            let s1 = sel.select_weighted(&losses, Some(&[1.0; 5]), c, TrainOn::Selected, &mut b).unwrap();
            assert_eq!((a, s0), (b, s1));
            let s2 = sel.select_weighted(&losses, Some(&[2.0; 5]), 2.0 * c, TrainOn::OneMore, &mut b).unwrap();
            let s3 = sel.select(&losses, c, TrainOn::OneMore, &mut a).unwrap();
            assert_eq!((a, s2.count, s2.train_count), (b, s3.count, s3.train_count));
            assert_eq!((s2.selected_loss, s2.value), (2.0 * s3.selected_loss, 2.0 * s3.value));
        }
        // A zero weight adds nothing; sorted losses 0, 0.5, 1 (weights 2, 1, 1), C = 4:
        // L = 0 <= 4, 0.5 <= 2, 1.5 <= 1 fails.
        let s = sel.select_weighted(&[1.0, 0.0, 0.5, 9.0], Some(&[1.0, 2.0, 1.0, 0.0]), 4.0, TrainOn::Selected, &mut a[..4]).unwrap();
        assert_eq!((&a[..4], s.count, s.selected_loss, s.value), (&[false, true, true, false][..], 2, 0.5, 1.0));
        assert!(
            sel.select_weighted(&[1.0], Some(&[-1.0]), 0.0, TrainOn::Selected, &mut a[..1])
                .unwrap_err()
                .to_string()
                .contains("sample_weight")
        );
        assert!(sel.select_weighted(&[1.0], Some(&[1.0]), 2.5, TrainOn::Selected, &mut a[..1]).is_err());
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(select(&[1.0, f64::NAN], 1.0).unwrap_err().to_string().contains("losses[1]"));
        assert!(select(&[1.0, -1.0], 1.0).unwrap_err().to_string().contains("losses[1]"));
        assert!(select(&[1.0, 1.0], 4.5).unwrap_err().to_string().contains("[0, 2n] = [0, 4]"));
        assert!(select(&[1.0], -0.1).is_err());
        let (m, s) = select(&[], 0.0).unwrap();
        assert!(m.is_empty() && s.count == 0);
    }
}
