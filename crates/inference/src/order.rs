//! Whether the rows of a one-pass fit came in an order that moves the estimate: a score-based
//! fluctuation test (Nyblom, "Testing for the constancy of parameters over time", JASA 1989;
//! Zeileis & Hornik, "Generalized M-fluctuation tests for parameter instability", Statistica
//! Neerlandica 2007, sec. 3-4) on the linearized scores the one-pass fit already computes.
//!
//! Under rows in random order, the cumulative score process at the final estimate `theta`,
//! decorrelated by the scores' covariance `J = sum_i g_i g_i^T` (Zeileis & Hornik's eq. 8-9),
//!
//! ```text
//! W(t) = J^{-1/2} sum_{i <= t N} g_i(theta),
//! ```
//!
//! converges to a `p`-dimensional Brownian bridge (their Theorem 1). A one-pass fit has each
//! piece's score `g_j` and Hessian `H_j` at its own expansion point `theta_j` only, but the
//! linearized score at the final estimate, `g_j + H_j (theta - theta_j)`, is linear in `theta`:
//! keeping `a_j = g_j - H_j theta_j` and `H_j` per segment of consecutive pieces gives the process
//! at the segment ends once `theta` is known. Segments are merged pairwise when
//! [`OrderSegments::max`] are full, so memory is bounded (`max (p^2 + p)` numbers).
//!
//! The statistic is the double maximum `M = max_j max_k |W_j(t_k)|` (Zeileis & Hornik's eq. 13,
//! the `dmax` functional): each component's supremum has Kolmogorov's law `P(sup |B| > x) = 2
//! sum_{k>=1} (-1)^{k-1} exp(-2 k^2 x^2)`, the `p` components are independent (Sidak's
//! combination), and the maximum over `K` segment ends of a bridge is the supremum less Siegmund's
//! discreteness correction `0.5826 / sqrt(K)` (Siegmund, "Corrected diffusion approximations in
//! certain random walk problems", Adv. Appl. Prob. 1979), which this test adds back.

use serde::{Deserialize, Serialize};

/// The level below which a p-value counts as an order effect: 0.001 (a false alarm costs a
/// warning, or Newton passes over a stream that can be read again).
pub const ORDER_ALPHA: f64 = 0.001;

/// The outcome of the fluctuation test of a one-pass fit (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderCheck {
    /// The double maximum `M` of the decorrelated score process at the segment ends.
    pub statistic: f64,
    /// Its p-value under rows in random order.
    pub pvalue: f64,
    /// Segment ends the process was read at.
    pub segments: usize,
    /// Whether the p-value is below [`ORDER_ALPHA`].
    pub order_effect: bool,
    /// Newton passes run over the rows after the one pass (0: none; the estimate is then the
    /// one-pass one).
    #[serde(default)]
    pub passes: usize,
}

/// One segment: rows, `sum_j (g_j - H_j theta_j)` and `sum_j H_j`.
#[derive(Clone, Debug)]
struct Segment {
    rows: u64,
    pieces: usize,
    a: Vec<f64>,
    h: Vec<f64>,
}

impl Segment {
    fn add(&mut self, other: &Segment) {
        self.rows += other.rows;
        self.pieces += other.pieces;
        self.a.iter_mut().zip(&other.a).for_each(|(u, v)| *u += v);
        self.h.iter_mut().zip(&other.h).for_each(|(u, v)| *u += v);
    }
}

/// The linearized scores of consecutive pieces of rows, in segments (see the module
/// documentation).
#[derive(Clone, Debug)]
pub struct OrderSegments {
    p: usize,
    /// Pieces per segment (doubled at every merge).
    width: usize,
    max: usize,
    segments: Vec<Segment>,
}

impl OrderSegments {
    /// Segments of a `p`-parameter fit: at most 64, fewer when `64 p^2` numbers would pass `2^22`
    /// (32 MiB), but at least 8.
    pub fn new(p: usize) -> OrderSegments {
        let max = ((1usize << 22) / (p * p).max(1)).clamp(8, 64);
        OrderSegments { p, width: 1, max, segments: Vec::new() }
    }

    /// The most segments kept.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Adds a piece of `rows` rows whose score and Hessian at its expansion point `theta` are
    /// `grad` and `hess` (`p x p`, row-major).
    pub fn push(&mut self, rows: u64, theta: &[f64], grad: &[f64], hess: &[f64]) {
        let p = self.p;
        let a: Vec<f64> = (0..p).map(|i| grad[i] - (0..p).map(|j| hess[i * p + j] * theta[j]).sum::<f64>()).collect();
        let piece = Segment { rows, pieces: 1, a, h: hess.to_vec() };
        match self.segments.last_mut() {
            Some(last) if last.pieces < self.width => last.add(&piece),
            _ => {
                if self.segments.len() == self.max {
                    let old = std::mem::take(&mut self.segments);
                    for pair in old.chunks(2) {
                        let mut s = pair[0].clone();
                        if let Some(b) = pair.get(1) {
                            s.add(b);
                        }
                        self.segments.push(s);
                    }
                    self.width *= 2;
                    if let Some(last) = self.segments.last_mut().filter(|l| l.pieces < self.width) {
                        last.add(&piece);
                        return;
                    }
                }
                self.segments.push(piece);
            }
        }
    }

    /// The test at the final estimate `theta`, the process decorrelated in turn by the scores'
    /// outer products `outer` (`sum_i g_i g_i^T`, Zeileis & Hornik's `J`) and by the summed
    /// Hessian `hess` (the Fisher information, the scores' covariance under the model), the
    /// smaller p-value doubled (Bonferroni): rows far from the final estimate have large scores
    /// and inflate the first, saturated rows have little curvature and shrink the second, so an
    /// order that moves the expansion points is seen by one or the other. `None` with fewer than
    /// 2 segments or both covariances singular.
    pub fn check(&self, theta: &[f64], outer: &[f64], hess: &[f64]) -> Option<OrderCheck> {
        let k = self.segments.len();
        if k < 2 {
            return None;
        }
        let stats: Vec<f64> = [outer, hess].iter().filter_map(|m| self.dmax(theta, m)).collect();
        let m = stats.iter().copied().fold(f64::NAN, f64::max);
        if !m.is_finite() {
            return None;
        }
        let pvalue = (stats.len() as f64 * dmax_pvalue(m, self.p, k)).min(1.0);
        Some(OrderCheck { statistic: m, pvalue, segments: k, order_effect: pvalue < ORDER_ALPHA, passes: 0 })
    }

    /// The double maximum of the process at the segment ends, decorrelated by `cov`.
    fn dmax(&self, theta: &[f64], cov: &[f64]) -> Option<f64> {
        let p = self.p;
        let l = cholesky(cov, p)?;
        let (mut a, mut h) = (vec![0.0; p], vec![0.0; p * p]);
        let mut m = 0.0f64;
        for s in &self.segments[..self.segments.len() - 1] {
            a.iter_mut().zip(&s.a).for_each(|(u, v)| *u += v);
            h.iter_mut().zip(&s.h).for_each(|(u, v)| *u += v);
            let score: Vec<f64> = (0..p).map(|i| a[i] + (0..p).map(|j| h[i * p + j] * theta[j]).sum::<f64>()).collect();
            m = forward(&l, p, &score).iter().fold(m, |acc, v| acc.max(v.abs()));
        }
        m.is_finite().then_some(m)
    }
}

/// Kolmogorov's survival function `P(sup_t |B(t)| > x)` of a Brownian bridge.
pub fn kolmogorov_sf(x: f64) -> f64 {
    if x <= 0.2 {
        return 1.0;
    }
    let mut s = 0.0;
    for k in 1..=100 {
        let kf = k as f64;
        let term = (-2.0 * kf * kf * x * x).exp();
        s += if k % 2 == 1 { term } else { -term };
        if term < 1e-300 {
            break;
        }
    }
    (2.0 * s).clamp(0.0, 1.0)
}

/// The p-value of the double maximum `m` of `p` independent bridges read at `segments` points:
/// Sidak's `1 - (1 - q)^p` of Kolmogorov's `q` at `m + 0.5826 / sqrt(segments)`.
pub fn dmax_pvalue(m: f64, p: usize, segments: usize) -> f64 {
    let q = kolmogorov_sf(m + 0.5826 / (segments as f64).sqrt());
    (-(p as f64 * (-q).ln_1p()).exp_m1()).clamp(0.0, 1.0)
}

/// The lower Cholesky factor of `m` (`p x p`, row-major); `None` if not numerically positive
/// definite.
fn cholesky(m: &[f64], p: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; p * p];
    let top = (0..p).map(|i| m[i * p + i]).fold(0.0f64, f64::max);
    for i in 0..p {
        for j in 0..=i {
            let s = m[i * p + j] - (0..j).map(|k| l[i * p + k] * l[j * p + k]).sum::<f64>();
            if i == j {
                if s.is_nan() || s <= 1e-13 * top {
                    return None;
                }
                l[i * p + i] = s.sqrt();
            } else {
                l[i * p + j] = s / l[j * p + j];
            }
        }
    }
    Some(l)
}

/// `L^{-1} b` for lower-triangular `l`.
fn forward(l: &[f64], p: usize, b: &[f64]) -> Vec<f64> {
    let mut x = vec![0.0; p];
    for i in 0..p {
        x[i] = (b[i] - (0..i).map(|k| l[i * p + k] * x[k]).sum::<f64>()) / l[i * p + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kolmogorov_law_matches_its_table() {
        // Kolmogorov's 5% and 1% points: 1.3581, 1.6276.
        assert!((kolmogorov_sf(1.3581) - 0.05).abs() < 1e-4);
        assert!((kolmogorov_sf(1.6276) - 0.01).abs() < 1e-4);
        assert_eq!(kolmogorov_sf(0.0), 1.0);
        assert!(dmax_pvalue(1.0, 3, 64) > dmax_pvalue(1.0, 1, 64));
    }

    /// Merging keeps every row and the sums, and the number of segments bounded.
    #[test]
    fn segments_merge_pairwise_and_keep_the_sums() {
        let mut s = OrderSegments::new(1);
        for i in 0..1000 {
            s.push(10, &[0.0], &[i as f64], &[1.0]);
        }
        assert!(s.segments.len() <= s.max() && s.segments.len() >= s.max() / 2);
        assert_eq!(s.segments.iter().map(|g| g.rows).sum::<u64>(), 10_000);
        assert_eq!(s.segments.iter().map(|g| g.a[0]).sum::<f64>(), (0..1000).sum::<i32>() as f64);
    }
}

#[cfg(test)]
pub(crate) mod stream_tests {
    use crate::cuee::fit_glm_stream_checked;
    use crate::mle::CovType;
    use crate::simulate::{Design, simulate};
    use crate::{Data, Family, Glm};

    /// `data`'s rows in the order `order`, in chunks of `size` (the tests' streams).
    pub(crate) fn chunks(data: &Data, order: &[usize], size: usize) -> gradfree_data::ChunkList {
        let p = data.dim();
        let list = order
            .chunks(size)
            .map(|idx| gradfree_data::Chunk {
                x: idx.iter().flat_map(|&i| data.row(i).iter().copied()).collect(),
                y: idx.iter().map(|&i| data.response(i)).collect(),
            })
            .collect();
        gradfree_data::ChunkList::new(p, list)
    }

    /// In random order the test fires at its nominal rate: over 300 seeds, p < 0.01 at most 9
    /// times (binomial 300 x 0.01: P(X >= 10) < 0.001) and p < 0.1 between 15 and 48 times
    /// (P < 0.001 outside); never below 0.001 more than 3 times.
    #[test]
    fn in_random_order_the_test_holds_its_size() {
        let (mut below_01, mut below_1, mut below_001) = (0, 0, 0);
        for seed in 0..300 {
            let (data, _) = simulate(Design::Toeplitz, 4, Family::Logistic, 6000, 1000 + seed).unwrap();
            let order: Vec<usize> = (0..data.len()).collect();
            let (_, checks) =
                fit_glm_stream_checked(&Glm::new(Family::Logistic, 4), &mut chunks(&data, &order, 700), CovType::Nonrobust, None).unwrap();
            let pv = checks.order.unwrap().pvalue;
            below_01 += usize::from(pv < 0.01);
            below_1 += usize::from(pv < 0.1);
            below_001 += usize::from(pv < 0.001);
        }
        eprintln!("p < 0.001: {below_001}, p < 0.01: {below_01}, p < 0.1: {below_1} of 300");
        assert!(below_01 <= 9 && (15..=48).contains(&below_1) && below_001 <= 3, "{below_001} {below_01} {below_1}");
    }

    /// Rows sorted by the response, or by a covariate of a misspecified model, make it fire.
    #[test]
    fn sorted_rows_make_it_fire() {
        let model = Glm::new(Family::Logistic, 8);
        // Rare events (about 7% positives) with an intercept, as a file of outcomes would be.
        let (sim, _) = simulate(Design::Toeplitz, 7, Family::Logistic, 20_000, 5).unwrap();
        let x: Vec<f64> = (0..sim.len()).flat_map(|i| std::iter::once(1.0).chain(sim.row(i).iter().copied())).collect();
        let y: Vec<f64> = (0..sim.len())
            .map(|i| {
                let t = -3.0 + 0.4 * sim.row(i)[0] - 0.3 * sim.row(i)[3];
                f64::from(u8::from(((i * 7919 % 10007) as f64 / 10007.0) < 1.0 / (1.0 + (-t).exp())))
            })
            .collect();
        let data = Data::new(x, 8, y).unwrap();
        let mut order: Vec<usize> = (0..data.len()).collect();
        order.sort_by(|&a, &b| data.response(a).total_cmp(&data.response(b)));
        let (fit, check) = fit_glm_stream_checked(&model, &mut chunks(&data, &order, 1000), CovType::Nonrobust, None).unwrap();
        let check = check.order.unwrap();
        eprintln!("sorted by y: {check:?}");
        assert!(check.order_effect && check.pvalue < 1e-6 && !fit.converged && fit.llf.is_nan(), "{check:?}");
        // By x_0 (the model is right, so only the one-pass expansions move).
        order.sort_by(|&a, &b| data.row(a)[1].total_cmp(&data.row(b)[1]));
        let (_, by_x) = fit_glm_stream_checked(&model, &mut chunks(&data, &order, 1000), CovType::Nonrobust, None).unwrap();
        eprintln!("sorted by x0: {:?}", by_x.order);
        // A misspecified model (a quadratic effect left out) on rows sorted by the covariate.
        let x: Vec<f64> = data.rows().to_vec();
        let y: Vec<f64> = (0..data.len())
            .map(|i| {
                let t = data.row(i)[1] * data.row(i)[1] - 1.0;
                f64::from(u8::from(((i * 7919 % 10007) as f64 / 10007.0) < 1.0 / (1.0 + (-t).exp())))
            })
            .collect();
        let mis = Data::new(x, 8, y).unwrap();
        let (_, c) = fit_glm_stream_checked(&model, &mut chunks(&mis, &order, 1000), CovType::Nonrobust, None).unwrap();
        eprintln!("misspecified, sorted by x0: {:?}", c.order);
        assert!(c.order.unwrap().order_effect);
        let shuffled: Vec<usize> = (0..mis.len()).map(|i| i * 7919 % mis.len()).collect();
        let (_, c) = fit_glm_stream_checked(&model, &mut chunks(&mis, &shuffled, 1000), CovType::Nonrobust, None).unwrap();
        assert!(!c.order.unwrap().order_effect);
    }
}
