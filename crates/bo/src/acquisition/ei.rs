//! Expected improvement (Močkus 1975; Jones, Schonlau & Welch 1998), the default acquisition of
//! scikit-optimize, egobox and BoTorch tutorials, as a baseline next to the thesis' rules.
//! For minimization, with `z = (y* − μ(x)) / σ(x)`:
//!
//! ```text
//! EI(x) = σ(x) h(z),   h(z) = φ(z) + z Φ(z),
//! ```
//!
//! maximized here in logarithms (`log EI`, Ament et al. 2023, "Unexpected improvements to
//! expected improvement"), so the search still has a slope where `EI` underflows. The incumbent
//! `y*` is the smallest posterior mean at the observed points (the "plug-in" incumbent of
//! Picheny et al. 2013; the smallest observation when the noise is zero). A batch is built by the
//! Kriging believer of Ginsbourger, Le Riche & Carraro (2010): each pick is conditioned on at its
//! posterior mean, and `y*` updated, before the next.

use super::{Context, minimize_point};
use crate::BoError;
use gradfree_core::derive_seed;

/// `ln h(z)`, `h(z) = φ(z) + z Φ(z)`, accurate for every finite `z` (and `−∞` only below
/// `z ≈ −1e154`). For `z ≥ −1` directly; below, `h(z) = φ(z) (1 − x R(x))` with `x = −z` and
/// Mills' ratio `R(x) = Φ(−x) / φ(x) = 1 / (x + c)`, where the continued fraction
/// `c = 1 / (x + 2 / (x + 3 / (x + …)))` gives `1 − x R(x) = c / (x + c)` without cancellation.
pub fn log_h(z: f64) -> f64 {
    const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
    let ln_phi = -0.5 * z * z - LN_SQRT_2PI;
    if z >= -1.0 {
        let phi = ln_phi.exp();
        let cdf = 0.5 * statrs::function::erf::erfc(-z / std::f64::consts::SQRT_2);
        return (phi + z * cdf).ln();
    }
    let x = -z;
    // Terms needed for 1e-16 relative accuracy fall from ~150 at x = 1 to a handful for x > 10.
    let terms = if x < 2.0 {
        160
    } else if x < 5.0 {
        60
    } else {
        24
    };
    let mut t = x;
    for k in (2..=terms).rev() {
        t = x + k as f64 / t;
    }
    let c = 1.0 / t;
    ln_phi + (c / (x + c)).ln()
}

/// `count` points: the first maximizes `log EI`, each further one after conditioning on the
/// previous picks at their posterior means (Kriging believer).
pub fn select(ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    let mut out = Vec::with_capacity(count * ctx.space.dim());
    let mut gp = ctx.gp.clone();
    let mut best = gp.smallest_fitted_mean_std();
    for k in 0..count {
        let y_star = best;
        let u = minimize_point(ctx, &gp, derive_seed(ctx.seed, k as u64), |m, sd, _, _| {
            if sd <= 1e-12 {
                // No uncertainty: the improvement is certain, max(y* − μ, 0), and nothing else.
                return if m < y_star { -(y_star - m).ln() } else { f64::MAX };
            }
            -(sd.ln() + log_h((y_star - m) / sd))
        })?;
        if k + 1 < count {
            let (m, _) = gp.predict_std(&u, &mut vec![0.0; gp.len()]);
            best = best.min(m);
            gp = gp.hallucinate(&u)?;
        }
        out.extend_from_slice(&u);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::log_h;

    /// `h(z) = φ(z) + z Φ(z)` by numerical integration of `h(z) = ∫_{-∞}^z Φ(t) dt`, against
    /// `log_h` in both branches and across the switch at `z = −1`.
    #[test]
    fn log_h_matches_the_integral_of_the_normal_cdf() {
        let cdf = |t: f64| 0.5 * statrs::function::erf::erfc(-t / std::f64::consts::SQRT_2);
        for &z in &[-30.0, -12.0, -6.0, -3.0, -1.5, -1.0 - 1e-9, -1.0, -0.5, 0.0, 0.7, 3.0] {
            // Simpson on [z − 40, z]; Φ is negligible below.
            let (a, n) = (z - 40.0, 400_000);
            let step = (z - a) / n as f64;
            let mut s = cdf(a) + cdf(z);
            for i in 1..n {
                s += if i % 2 == 1 { 4.0 } else { 2.0 } * cdf(a + i as f64 * step);
            }
            let h = s * step / 3.0;
            let rel = (log_h(z) - h.ln()).abs();
            assert!(rel < 1e-7, "z = {z}: log_h {} vs ln(integral) {}", log_h(z), h.ln());
        }
        // Far tail: h(z) ~ φ(z) / z², so log_h(z) + z²/2 + ln(√(2π)) + 2 ln|z| -> 0.
        let z = -1e4_f64;
        let tail = log_h(z) + 0.5 * z * z + 0.918_938_533_204_672_8 + 2.0 * z.abs().ln();
        assert!(tail.abs() < 1e-7, "{tail}");
    }
}
