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
        let n = losses.len();
        if mask.len() != n {
            return Err(RobustError::bad(format!("mask has {} entries for {n} losses", mask.len())));
        }
        check_losses(losses)?;
        check_threshold(c, n)?;
        self.order.clear();
        self.order.extend(0..n);
        self.order.sort_unstable_by(|&a, &b| losses[a].total_cmp(&losses[b]).then(a.cmp(&b)));
        let mut sum = 0.0;
        let mut count = 0;
        for (i, &k) in self.order.iter().enumerate() {
            // 1-based position i + 1: the test L_i <= C + 1 - i of the box.
            let next = sum + losses[k];
            if next <= c - i as f64 {
                sum = next;
                count = i + 1;
            } else {
                break;
            }
        }
        let value = sum.max(c - count as f64);
        let train_count = match rule {
            TrainOn::OneMore if count < n && sum < c - count as f64 => count + 1,
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
    fn bad_input_is_an_error() {
        assert!(select(&[1.0, f64::NAN], 1.0).unwrap_err().to_string().contains("losses[1]"));
        assert!(select(&[1.0, -1.0], 1.0).unwrap_err().to_string().contains("losses[1]"));
        assert!(select(&[1.0, 1.0], 4.5).unwrap_err().to_string().contains("[0, 2n] = [0, 4]"));
        assert!(select(&[1.0], -0.1).is_err());
        let (m, s) = select(&[], 0.0).unwrap();
        assert!(m.is_empty() && s.count == 0);
    }
}
