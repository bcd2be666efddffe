//! INGO's overall step-size rules ([`StepSize`], not in the thesis): their options, states and
//! the scale update they share. The rules themselves run in [`super::Ingo`]'s `tell`.

use serde::{Deserialize, Serialize};

/// An overall step-size rule added to INGO/INGOstep (not in the thesis; an option measured in
/// the user guide, docs/results/optimizers.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StepSize {
    /// Only the INGO update changes the covariance (thesis Alg. 1 and 3).
    #[default]
    None,
    /// Cumulative step-size adaptation (CSA, Hansen's tutorial eq. 43-44) of the overall scale:
    /// the whitened mean shift `w = -Z s / |s|`, which is `N(0, I)` when the scores are
    /// independent of the samples, is accumulated in `p <- (1 - c) p + sqrt(c (2 - c)) w` and
    /// `Sigma` is multiplied by `exp(2 (c / d_s) (|p| / E|N(0, I)| - 1))` after each update, with
    /// CMA-ES's `c` and `d_s` for `mu_eff = N / 4`.
    Csa,
    /// The median success rule (Ait Elhara, Auger & Hansen 2013, "A median success rule for
    /// non-elitist evolution strategies"; pycma's `CMAAdaptSigmaMedianImprovement`): with `K` the
    /// number of this generation's values better than the `0.3 N`-th best value of the previous
    /// generation (interpolated), `s <- 0.7 s + 0.3 (2 K / N - 1)` and `Sigma` is multiplied by
    /// `exp(2 s / d_s)`, `d_s = max(1, 2 - 2/d)`. It reads only ranks of values, not the path of
    /// the mean, so correlated mean steps (INGO's slow mean) do not fool it.
    Msr,
    /// Two-point step-size adaptation (Hansen 2008, "CMA-ES with two-point step-size
    /// adaptation", in the form of pycma's `CMAAdaptSigmaTPA`): from the second generation on, the
    /// first two directions are `+-r v / |v|` with `v = L^T (mu_t - mu_{t-1})` the last mean shift
    /// in the sampling's own coordinates and `r` a fresh chi(d) radius, so the two test points lie
    /// on the line of the last move, one further along it and one back. With `z = (#{f < f_2} -
    /// #{f < f_1}) / (N - 1)` (positive when the point further along ranks better), `s <- 0.7 s +
    /// 0.3 sign(z) |z|^(1/2)` and `Sigma` is multiplied by `exp(2 s / d_s)`, `d_s = 0.7 + 2 ln d`.
    /// Both test points enter the INGO update like the others. It reads whether a longer or a
    /// shorter move would have been better, not a success rate. Not with antithetic sampling
    /// (the test points would break its pairs).
    Tpa,
}

/// The state of [`StepSize::Tpa`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct TpaState {
    /// The smoothed rank difference `s`.
    pub(super) s: f64,
    /// The mean before the last update (empty before the first generation).
    pub(super) previous_mean: Vec<f64>,
    /// Whether the pending generation's first two directions are the test points.
    pub(super) placed: bool,
}

/// CSA constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Csa {
    pub(super) c: f64,
    pub(super) damping: f64,
    pub(super) chi_d: f64,
}

/// `Sigma <- f^2 Sigma` with `f = exp(e)`, `e` clamped to [-1, 1] (at most a factor e per
/// generation), through the precision factor: `L <- L / f` (the success rules' scale update).
/// Returns `ln f`.
pub(super) fn scale_by_exp(l: &mut [f64], e: f64) -> f64 {
    let e = e.clamp(-1.0, 1.0);
    let f = e.exp();
    l.iter_mut().for_each(|v| *v /= f);
    e
}
