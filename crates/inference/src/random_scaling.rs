//! The critical values of random scaling (Lee, Liao, Seo & Shin, "Fast and robust online inference
//! with stochastic gradient descent via random scaling", AAAI 2022; Kiefer, Vogelsang & Bunzel
//! 2000): the studentized average `(abar_T,j - theta*_j) / sqrt(V_T,jj / T)` converges to
//!
//! ```text
//! T = W(1) / sqrt(int_0^1 (W(r) - r W(1))^2 dr),
//! ```
//!
//! not to a normal law. `W(r) - r W(1)` is a Brownian bridge independent of `W(1)`, so `T = Z /
//! sqrt(Q)` with `Z ~ N(0, 1)` independent of `Q = int B^2` (the Cramér-von Mises limit), whose
//! Laplace transform is `E e^{-sQ} = prod_k (1 + 2s / (k^2 pi^2))^{-1/2}` (Karhunen-Loève). Then
//! `P(|T| > c) = P(Z^2 - c^2 Q > 0)` is read off the characteristic function of `Z^2 - c^2 Q`
//! by Gil-Pelaez inversion, and the two-sided critical value at any level by bisection: 6.747 at
//! 95% (Lee et al.'s value), 5.323 at 90%, 10.017 at 99%. Computed, not tabled, so every level is
//! available (R's `SGDinference` offers three).
//!
//! `K` chains pooled ([`abs_cdf_pooled`], [`critical_value_pooled`]): the average of the chains'
//! averages over the root of their mean `V_T / T` tends to `Z / sqrt(Qbar_K)`, `Qbar_K` the mean of
//! `K` independent copies of `Q` (the chains' bridges are independent: their orders of the rows
//! are, in memory, and their rows are, streamed), whose Laplace transform is the `K`-th power of
//! `E e^{-sQ/K}`. `K = 1` is Lee et al.'s law; as `K` grows `Qbar_K -> E Q = 1/6` and the critical
//! value tends to `sqrt(6) z_{(1+level)/2}`. So `sqrt(6 V_T / T)` estimates the standard error of
//! the average (`E V_T = sigma^2 / 6`), and the pooled interval is narrower than one chain's.

use std::f64::consts::PI;

use rustfft::num_complex::Complex64;

use crate::InferenceError;

/// `log(sinh z / z)` for `z = x (1 + i)`, `x >= 0`, on the branch continuous from 0 (where it is
/// the sum of the principal logarithms of the Karhunen-Loève product): `z - log(2z) + log(1 -
/// e^{-2z})`, every logarithm principal (the real part of `1 - e^{-2z}` stays positive), or its
/// series `z^2/6 - z^4/180` near 0.
fn log_sinhc(x: f64) -> Complex64 {
    let z = Complex64::new(x, x);
    if x < 1e-3 {
        let z2 = z * z;
        return z2 / 6.0 - z2 * z2 / 180.0;
    }
    z - (2.0 * z).ln() + (Complex64::new(1.0, 0.0) - (-2.0 * z).exp()).ln()
}

/// `E exp(i u (Z^2 - c^2 Qbar_K))`: `(1 - 2iu)^{-1/2} (z / sinh z)^{K/2}` with `z = sqrt(2 i u
/// c^2 / K)`.
fn characteristic(u: f64, c2: f64, k: f64) -> Complex64 {
    let one = Complex64::new(1.0, 0.0);
    // (1 - 2iu)^{-1/2}, principal branch (its real part is 1).
    let chi = (one - Complex64::new(0.0, 2.0 * u)).sqrt().inv();
    // sqrt(2 i u c^2 / K) = c sqrt(u / K) (1 + i).
    chi * (-0.5 * k * log_sinhc((u * c2 / k).sqrt())).exp()
}

/// Beyond this `c`, `P(|T| > c)` is below the resolution of `1 - P(|T| <= c)` in double precision
/// (`abs_cdf(80)` rounds to 1: the tail falls like `exp(-c/2)`, the exponent of `P(Z^2 > c^2 Q)`
/// at its most likely `Q = 1/(2c)` given the small-ball rate `P(Q < q) ~ exp(-1/(8q))`).
const TAIL_END: f64 = 80.0;

/// Below this `c`, `P(|T| <= c)` is linear in `c` to double precision (and the quadrature's range,
/// `80 / c`, would square past the largest double).
const SMALL: f64 = 1e-6;

/// Panels of the quadrature at most: `c` in `(0, TAIL_END]` needs under 3000 and `4 K` more.
const MAX_PANELS: usize = 100_000;

/// Chains beyond this many are pooled with this many's law: its 95% critical value is within
/// 0.05% of the limit `sqrt(6) 1.95996`, and each further chain would cost the quadrature 4
/// panels.
pub const MAX_POOLED: usize = 4096;

/// `P(|T| <= c)` for `c >= 0` (0 below, 1 for `c` beyond 80 and infinite `c`, NaN for
/// NaN).
pub fn abs_cdf(c: f64) -> f64 {
    abs_cdf_pooled(c, 1)
}

/// `P(|Z / sqrt(Qbar_K)| <= c)` for `K = chains` pooled (see the module documentation); `K = 1` is
/// [`abs_cdf`].
pub fn abs_cdf_pooled(c: f64, chains: usize) -> f64 {
    let chains = chains.clamp(1, MAX_POOLED);
    let k = chains as f64;
    if c.is_nan() {
        return f64::NAN;
    }
    if c <= 0.0 {
        return 0.0;
    }
    if c > TAIL_END {
        return 1.0;
    }
    if c < SMALL {
        // The law of |T| has a finite density at 0: linear below SMALL (its error is O(c^2)).
        return c / SMALL * abs_cdf_pooled(SMALL, chains);
    }
    let c2 = c * c;
    // P(Y > 0) = 1/2 + (1/pi) int_0^inf Im phi(u) / u du; with u = v^2: (2/pi) int Im phi(v^2) / v dv.
    // The integrand decays like exp(-c sqrt(K) v / 2) / v^2: integrate to where that is below
    // 1e-16, on panels that grow geometrically from 0 (the integrand's scale there is 1) and are
    // never wider than a fraction of its oscillation period 4 pi / (c sqrt(K)). With K chains the
    // bridge's factor is a pure phase, exp(-i u c^2 / 6), until v reaches sqrt(K) / c, and decays
    // beyond: the range grows by that much.
    let ck = c * k.sqrt();
    let v_max = 80.0 / ck + 20.0 + 2.0 * k.sqrt() / c;
    // 8-point Gauss-Legendre nodes and weights on [-1, 1].
    const X: [f64; 4] = [0.183_434_642_495_649_8, 0.525_532_409_916_329, 0.796_666_477_413_626_7, 0.960_289_856_497_536_2];
    const W: [f64; 4] = [0.362_683_783_378_362, 0.313_706_645_877_887_3, 0.222_381_034_453_374_5, 0.101_228_536_290_376_3];
    let cap = 0.5 / ck;
    let (mut a, mut width, mut integral) = (0.0, 0.01f64, 0.0);
    for _ in 0..MAX_PANELS {
        if a >= v_max {
            break;
        }
        let h = width.min(cap).min(v_max - a);
        let mid = a + 0.5 * h;
        for (x, w) in X.iter().zip(W) {
            for v in [mid - 0.5 * h * x, mid + 0.5 * h * x] {
                integral += w * 0.5 * h * characteristic(v * v, c2, k).im / v;
            }
        }
        a += h;
        width *= 1.05;
    }
    let tail = 0.5 + 2.0 / PI * integral;
    (1.0 - tail).clamp(0.0, 1.0)
}

/// The two-sided critical value `c` with `P(|T| <= c) = level`, `level` in `[0.5, 0.9999]`.
pub fn critical_value(level: f64) -> Result<f64, InferenceError> {
    critical_value_pooled(level, 1)
}

/// The two-sided critical value of `K = chains` pooled chains ([`abs_cdf_pooled`]).
pub fn critical_value_pooled(level: f64, chains: usize) -> Result<f64, InferenceError> {
    if !(0.5..=0.9999).contains(&level) {
        return Err(InferenceError::invalid("level", level, "in [0.5, 0.9999] for random-scaling intervals"));
    }
    // Each value costs 60 quadratures (a tenth of a second); a run asks for the same few levels
    // again and again (its intervals, summary, settling check), so they are kept.
    static KNOWN: std::sync::Mutex<Vec<(u64, usize, f64)>> = std::sync::Mutex::new(Vec::new());
    let known = |k: &Vec<(u64, usize, f64)>| k.iter().find(|(l, n, _)| *l == level.to_bits() && *n == chains).map(|(_, _, c)| *c);
    if let Some(c) = KNOWN.lock().ok().and_then(|k| known(&k)) {
        return Ok(c);
    }
    let (mut lo, mut hi) = (0.5, 60.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if abs_cdf_pooled(mid, chains) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let c = 0.5 * (lo + hi);
    if let Ok(mut k) = KNOWN.lock()
        && k.len() < 256
    {
        k.push((level.to_bits(), chains, c));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lee et al.'s published 95% value; every level against a Monte Carlo of `Z / sqrt(Q)` with
    /// `Q` from its Karhunen-Loève series (an independent route to the same law); the law is a
    /// proper distribution.
    /// The closed form of the Karhunen-Loève product, `log(sinh z / z) = sum_k log(1 + z^2 /
    /// (k pi)^2)`, on the branch the inversion uses.
    #[test]
    fn closed_form_equals_the_product() {
        for x in [1e-4, 0.3, 2.0, 7.5, 30.0] {
            let z = Complex64::new(x, x);
            let product: Complex64 = (1..200_000u64).map(|k| (Complex64::new(1.0, 0.0) + z * z / ((k * k) as f64 * PI * PI)).ln()).sum();
            assert!((log_sinhc(x) - product).norm() < 1e-4 * (1.0 + product.norm()), "x = {x}: {} vs {product}", log_sinhc(x));
        }
    }

    #[test]
    fn critical_values_match_the_published_value_and_a_simulation() {
        use rand_distr::{Distribution, StandardNormal};
        let c95 = critical_value(0.95).unwrap();
        assert!((c95 - 6.747).abs() < 2e-3, "{c95}");
        // The values the module documentation gives.
        assert!((critical_value(0.9).unwrap() - 5.323).abs() < 1e-3 && (critical_value(0.99).unwrap() - 10.017).abs() < 1e-3);
        let levels = [0.8, 0.9, 0.95, 0.99];
        let cs: Vec<f64> = levels.iter().map(|&l| critical_value(l).unwrap()).collect();
        let mut rng = gradfree_core::rng_from_seed(11);
        let (draws, terms) = (200_000, 150);
        let tail: f64 = ((terms + 1)..100_000u64).map(|k| 1.0 / ((k * k) as f64 * PI * PI)).sum();
        let mut inside = [0usize; 4];
        for _ in 0..draws {
            let mut q = tail;
            for k in 1..=terms {
                let xi: f64 = StandardNormal.sample(&mut rng);
                q += xi * xi / ((k * k) as f64 * PI * PI);
            }
            let z: f64 = StandardNormal.sample(&mut rng);
            let t = (z / q.sqrt()).abs();
            for (i, c) in cs.iter().enumerate() {
                inside[i] += usize::from(t <= *c);
            }
        }
        for (i, &l) in levels.iter().enumerate() {
            let p = inside[i] as f64 / draws as f64;
            let se = (l * (1.0 - l) / draws as f64).sqrt();
            assert!((p - l).abs() < 4.0 * se, "level {l}: c = {}, simulated coverage {p}", cs[i]);
        }
        // Beyond the tail's end, at infinity and at NaN: at once, no loop.
        assert!(1.0 - abs_cdf(TAIL_END) < 1e-15 && abs_cdf(TAIL_END * 1.01) == 1.0 && abs_cdf(f64::INFINITY) == 1.0);
        assert!(abs_cdf(f64::NAN).is_nan() && abs_cdf(1e-300) < 1e-10 && abs_cdf(-1.0) == 0.0);
        let slope = abs_cdf(2e-6) / 2e-6;
        assert!((abs_cdf(1e-6) / 1e-6 / slope - 1.0).abs() < 1e-3 && slope > 0.0 && slope < 1.0, "{slope}");
        assert!(abs_cdf(0.01) < 0.01 && abs_cdf(100.0) > 0.9999, "{} {} {} {}", abs_cdf(0.01), abs_cdf(0.5), abs_cdf(60.0), abs_cdf(100.0));
        let mut last = 0.0;
        for i in 1..60 {
            let p = abs_cdf(i as f64 * 0.5);
            assert!(p >= last - 1e-9, "monotone");
            last = p;
        }
        assert!(critical_value(0.3).is_err());
    }

    /// `K` pooled chains: `K = 1` is Lee et al.'s law; other `K` against a Monte Carlo of `Z /
    /// sqrt(Qbar_K)`; many chains tend to the normal limit `sqrt(6) z`.
    #[test]
    fn pooled_chains_match_a_simulation_and_the_limit() {
        use rand_distr::{Distribution, StandardNormal};
        assert_eq!(critical_value_pooled(0.95, 1).unwrap(), critical_value(0.95).unwrap());
        let mut rng = gradfree_core::rng_from_seed(12);
        for k in [3usize, 20] {
            let c = critical_value_pooled(0.95, k).unwrap();
            let (draws, terms) = (40_000, 60);
            let tail: f64 = ((terms + 1)..100_000u64).map(|j| 1.0 / ((j * j) as f64 * PI * PI)).sum();
            let mut inside = 0usize;
            for _ in 0..draws {
                let mut q = 0.0;
                for _ in 0..k {
                    q += tail;
                    for j in 1..=terms {
                        let xi: f64 = StandardNormal.sample(&mut rng);
                        q += xi * xi / ((j * j) as f64 * PI * PI);
                    }
                }
                let z: f64 = StandardNormal.sample(&mut rng);
                inside += usize::from((z / (q / k as f64).sqrt()).abs() <= c);
            }
            let p = inside as f64 / draws as f64;
            assert!((p - 0.95).abs() < 4.0 * (0.95f64 * 0.05 / draws as f64).sqrt(), "K = {k}: c = {c}, simulated coverage {p}");
        }
        let limit = 6f64.sqrt() * 1.959_963_984_540_054;
        let big = critical_value_pooled(0.95, MAX_POOLED).unwrap();
        assert!((big / limit - 1.0).abs() < 5e-4, "{big} vs {limit}");
        assert_eq!(critical_value_pooled(0.95, 1 << 20).unwrap(), big);
        // Pooling narrows: the critical value falls with K towards the limit.
        let cs: Vec<f64> = [1, 2, 5, 100].iter().map(|&k| critical_value_pooled(0.95, k).unwrap()).collect();
        assert!(cs.windows(2).all(|w| w[0] > w[1]) && cs[3] > limit, "{cs:?}");
    }
}
