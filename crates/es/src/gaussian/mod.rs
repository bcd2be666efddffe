//! Evolution strategies with a Gaussian search distribution.

pub mod asebo;
mod cmaes;
pub mod cusp_guard;
mod fast_ingo;
mod igo;
mod ingo;
mod ingo_step_size;
mod mines;
mod openai_es;
mod sampling;
mod scores;
mod xnes;

pub use asebo::{Asebo, AseboChecked, AseboParams};
pub use cmaes::{CmaEs, CmaEsChecked, CmaEsParams, Damping, positive_weights, raw_weights};
pub use fast_ingo::{FastIngo, FastIngoChecked, FastIngoParams};
pub use igo::{Igo, IgoChecked, IgoParams};
pub use ingo::{Ingo, IngoChecked, IngoParams, IngoVariant, StepSize};
pub use mines::{Mines, MinesChecked, MinesParams};
pub use openai_es::{EsOptimizer, OpenAiEs, OpenAiEsChecked, OpenAiEsParams};
pub use sampling::Sampling;
pub use scores::{NoScores, ScoreTransform};
pub use xnes::{Xnes, XnesChecked, XnesParams};

use gradfree_core::CoreError;

/// Validates a start point and initial scale.
pub(crate) fn check_start(x0: &[f64], sigma0: f64) -> Result<(), CoreError> {
    if x0.is_empty() {
        return Err(CoreError::Empty("x0"));
    }
    if let Some(i) = x0.iter().position(|v| !v.is_finite()) {
        return Err(CoreError::invalid("x0", format!("x0[{i}] = {}", x0[i]), "finite"));
    }
    if !(sigma0.is_finite() && sigma0 > 0.0) {
        return Err(CoreError::invalid("sigma0", sigma0, "finite and > 0"));
    }
    Ok(())
}

/// Scratch buffers of [`pd_rank_update`].
#[derive(Clone, Debug, Default)]
pub(crate) struct RankScratch {
    backup: Vec<f64>,
    w: Vec<f64>,
    alpha: Vec<f64>,
    coef: Vec<f64>,
    gram: Vec<f64>,
    gv: Vec<f64>,
    gu: Vec<f64>,
    root: Vec<f64>,
    k: Vec<f64>,
    eig: gradfree_core::linalg::EigenWork,
}

/// Outcome of [`pd_rank_update`].
pub(crate) enum PdUpdate {
    /// Applied with the full step.
    Full,
    /// Applied after halving the step this many times.
    Backtracked(u32),
    /// No positive-definite step was found; the factor is unchanged.
    Kept,
}

impl PdUpdate {
    /// The covariance step applied, from the first step `beta` (`None` if the factor was kept).
    pub(crate) fn step(&self, beta: f64) -> Option<f64> {
        match self {
            PdUpdate::Full => Some(beta),
            PdUpdate::Backtracked(k) => Some(beta * 0.5f64.powi(*k as i32)),
            PdUpdate::Kept => None,
        }
    }
}

impl RankScratch {
    /// `G = Z^T Z` (`r x r`, column-major) of the last [`pd_rank_update`] if `r <= d` (else empty).
    pub(crate) fn gram(&self) -> &[f64] {
        &self.gram
    }
}

/// Smallest eigenvalue of `Z diag(c) Z^T` restricted to the span of `Z` (`d x r`): the smallest
/// eigenvalue of `G^{1/2} diag(c) G^{1/2}`, `G = Z^T Z` (O(r^2 d + r^3)). When `r > d` the `d x d`
/// matrix `Z diag(c) Z^T` itself is used (O(r d^2 + d^3)); its extra eigenvalues on the complement
/// of the span are 0, which the caller's `min(mu_min, 0)` ignores. Fills `G` only when `r <= d`.
fn min_eig_weighted_gram(z: &[f64], d: usize, c: &[f64], s: &mut RankScratch) -> Option<f64> {
    let r = c.len();
    if r > d {
        s.gram.clear();
        s.gram.resize(d * d, 0.0);
        s.gv.clear();
        s.gv.resize(d, 0.0);
        gradfree_core::linalg::add_weighted_outer_lower(&mut s.gram, d, z, c, &mut s.w);
        let ok = gradfree_core::linalg::sym_eigen(&s.gram, d, &mut s.gv, None, &mut s.eig);
        s.gram.clear();
        return ok.then(|| s.gv[0]);
    }
    for buf in [&mut s.gram, &mut s.gu, &mut s.root, &mut s.k] {
        buf.clear();
        buf.resize(r * r, 0.0);
    }
    s.gv.clear();
    s.gv.resize(r, 0.0);
    gradfree_core::linalg::gram(z, d, r, &mut s.gram);
    if !gradfree_core::linalg::sym_eigen(&s.gram, r, &mut s.gv, Some(&mut s.gu), &mut s.eig) {
        return None;
    }
    // K = G^{1/2} C G^{1/2} with G^{1/2} = U diag(sqrt g) U^T.
    let (gu, gv) = (&s.gu, &s.gv);
    for i in 0..r {
        for j in 0..r {
            s.root[j * r + i] = (0..r).map(|k| gu[k * r + i] * gv[k].max(0.0).sqrt() * gu[k * r + j]).sum();
        }
    }
    for i in 0..r {
        for j in 0..r {
            s.k[j * r + i] = (0..r).map(|m| s.root[m * r + i] * c[m] * s.root[j * r + m]).sum();
        }
    }
    gradfree_core::linalg::sym_eigen(&s.k, r, &mut s.gv, None, &mut s.eig).then(|| s.gv[0])
}

/// Updates the lower Cholesky factor `l` of `M = L L^T` to `keep(step) M + step * sum_i c_i v_i
/// v_i^T`, where `v_i = L z_i` (`v`, `z` are `d x r` column-major). Since the result is
/// `L (keep I + step Z diag(c) Z^T) L^T`, it is positive definite iff `keep > 0` and `keep + step *
/// mu_min > 0`, with `mu_min` the smallest eigenvalue of `Z diag(c) Z^T` on the span of `Z`,
/// computed in O(r^2 d). The step is halved from `beta` until that holds with a margin (at most
/// `max_backtracks` times, else `l` is unchanged), then the rank-`r` update is applied in O(r d^2).
/// No copy of `l` is made unless the margin is thin.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pd_rank_update(
    l: &mut [f64],
    d: usize,
    v: &[f64],
    z: &[f64],
    c: &[f64],
    beta: f64,
    keep: impl Fn(f64) -> f64,
    max_backtracks: u32,
    s: &mut RankScratch,
) -> PdUpdate {
    let mu_min = match min_eig_weighted_gram(z, d, c, s) {
        Some(m) => m,
        None => return PdUpdate::Kept,
    };
    let mut step = beta;
    let mut attempt = 0;
    loop {
        let k = keep(step);
        let lowest = k + step * mu_min.min(0.0);
        if k > 0.0 && lowest > 1e-6 * k {
            // Apply; keep a copy only when the margin is thin enough for rounding to matter.
            let thin = lowest < 0.05 * k;
            if thin {
                s.backup.clear();
                s.backup.extend_from_slice(l);
            }
            if k != 1.0 {
                let root = k.sqrt();
                l.iter_mut().for_each(|x| *x *= root);
            }
            s.w.clear();
            s.w.extend_from_slice(v);
            s.alpha.clear();
            s.alpha.extend(c.iter().map(|ci| step * ci));
            if gradfree_core::linalg::rank_update(l, d, &mut s.w, &mut s.alpha, &mut s.coef) {
                return if attempt == 0 { PdUpdate::Full } else { PdUpdate::Backtracked(attempt) };
            }
            if thin {
                l.copy_from_slice(&s.backup);
            } else {
                // Rounding cannot break a margin of 5%; treat as a breakdown of the factor.
                return PdUpdate::Kept;
            }
        }
        if attempt == max_backtracks {
            return PdUpdate::Kept;
        }
        attempt += 1;
        step *= 0.5;
    }
}

/// Reports a [`PdUpdate`] that was not a full step as an event of the current generation.
pub(crate) fn report_pd(outcome: &PdUpdate, progress: &mut crate::progress::Progress) {
    use gradfree_core::EventKind;
    match outcome {
        PdUpdate::Full => {}
        PdUpdate::Backtracked(k) => {
            progress.event(EventKind::Backtrack, format!("covariance step halved {k} time(s) to stay positive definite"))
        }
        PdUpdate::Kept => progress.event(EventKind::CovarianceKept, "no positive-definite covariance step found; covariance unchanged"),
    }
}

/// One Adam step (Kingma & Ba 2015; β₁ = 0.9, β₂ = 0.999, ε = 1e-8, bias-corrected through the
/// step size) descending the gradient `scale · g`: updates the moments `m1`, `m2` and the mean
/// `mu` (the `t`-th step, `t >= 1`); returns the largest coordinate step. Shared by the antithetic
/// ES and ASEBO.
pub(crate) fn adam_descent(mu: &mut [f64], m1: &mut [f64], m2: &mut [f64], g: &[f64], scale: f64, lr: f64, t: u64) -> f64 {
    let (b1, b2) = (0.9f64, 0.999f64);
    let t = t.min(i32::MAX as u64) as i32;
    let rate = lr * (1.0 - b2.powi(t)).sqrt() / (1.0 - b1.powi(t));
    let mut max_step: f64 = 0.0;
    for (((mu, m1), m2), &gj) in mu.iter_mut().zip(m1.iter_mut()).zip(m2.iter_mut()).zip(g) {
        let gj = gj * scale;
        *m1 = b1 * *m1 + (1.0 - b1) * gj;
        *m2 = b2 * *m2 + (1.0 - b2) * gj * gj;
        let step = rate * *m1 / (m2.sqrt() + 1e-8);
        *mu -= step;
        max_step = max_step.max(step.abs());
    }
    max_step
}
