//! The exact kernels the feature maps approximate (thesis sec. 6.2.1).
//!
//! - Gaussian: `K(x, z) = exp(-||x - z||^2 / (2 sigma^2))`, or `exp(-gamma ||x - z||^2)` with
//!   `gamma = 1 / (2 sigma^2)` (scikit-learn's parameter).
//! - Arc-cosine of order `b` (Cho & Saul 2009; eq. 6.2): `K_b(x, z) = (1/pi) ||x||^b ||z||^b
//!   J_b(theta)`, `theta` the angle between `x` and `z`, with `J_0 = pi - theta` (eq. 6.3), `J_1 =
//!   sin theta + (pi - theta) cos theta` (eq. 6.4) and in general the angular integral of
//!   [`arccos_j`].
//!
//! [`arccos_constant`] is `C_b = E[r^{2b}]`, `r ~ chi(d)` (Lemma 2, eq. 6.17): `C_0 = 1`, `C_1 =
//! d`, `C_2 = d (d + 2)`.

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use crate::FeatureError;

/// Largest supported arc-cosine order (`J_b` grows like `b!`; orders above a few are numerically
/// meaningless in double precision and unused in practice).
pub const MAX_ARCCOS_ORDER: u32 = 10;

/// A kernel with a random-feature representation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Kernel {
    /// `exp(-||x - z||^2 / (2 sigma^2))`.
    Gaussian {
        /// Bandwidth `sigma > 0`.
        sigma: f64,
    },
    /// The arc-cosine kernel of order `b` (eq. 6.2).
    ArcCos {
        /// Order `b` in `0..=10`.
        order: u32,
    },
}

/// A number as a message shows it: plainly in `[1e-4, 1e15)`, in scientific notation beyond (so
/// `1e-320` is not 320 zeros).
fn readable(v: f64) -> String {
    if v == 0.0 || (1e-4..1e15).contains(&v.abs()) { v.to_string() } else { format!("{v:e}") }
}

/// The least Gaussian bandwidth: `2 sigma^2` is the least positive normal double.
pub const SIGMA_MIN: f64 = 1.0547686614863e-154;

/// The greatest Gaussian bandwidth: `2 sigma^2` is the greatest finite double.
pub const SIGMA_MAX: f64 = 9.480751908109176e153;

impl Kernel {
    /// The Gaussian kernel with scikit-learn's `gamma` (`exp(-gamma ||x - z||^2)`).
    pub fn gaussian_gamma(gamma: f64) -> Result<Kernel, FeatureError> {
        if !(gamma.is_finite() && gamma > 0.0) {
            return Err(FeatureError::invalid("gamma", gamma, "a finite number > 0"));
        }
        let kernel = Kernel::Gaussian { sigma: (0.5 / gamma).sqrt() };
        kernel.check().map_err(|_| {
            FeatureError::invalid(
                "gamma",
                readable(gamma),
                format!(
                    "a number in [{:.3e}, {:.3e}] (gamma = 1 / (2 sigma^2) with sigma a positive normal double)",
                    0.5 / (SIGMA_MAX * SIGMA_MAX),
                    0.5 / (SIGMA_MIN * SIGMA_MIN)
                ),
            )
        })?;
        Ok(kernel)
    }

    /// Checks the parameters.
    pub fn check(&self) -> Result<(), FeatureError> {
        match *self {
            // `2 sigma^2` must be a normal double (so `||x - z||^2 / (2 sigma^2)` and `1 / sigma`
            // are finite for finite data): sigma in [1.06e-154, 9.48e153].
            Kernel::Gaussian { sigma } if !(sigma.is_finite() && sigma > 0.0 && (2.0 * sigma * sigma).is_normal()) => {
                Err(FeatureError::invalid(
                    "sigma",
                    readable(sigma),
                    format!(
                        "a number in [{:.3e}, {:.3e}] (2 sigma^2 must be a positive normal double; rescale the data for bandwidths beyond)",
                        SIGMA_MIN, SIGMA_MAX
                    ),
                ))
            }
            Kernel::ArcCos { order } if order > MAX_ARCCOS_ORDER => {
                Err(FeatureError::invalid("order", order, format!("an arc-cosine order in 0..={MAX_ARCCOS_ORDER}")))
            }
            _ => Ok(()),
        }
    }

    /// Parses `gaussian` (with `sigma`), `arccos0`, `arccos1`, `arccos2`, ... (`arccos<b>`).
    pub fn parse(name: &str, sigma: f64) -> Result<Kernel, FeatureError> {
        let k = match name {
            "gaussian" | "rbf" => Kernel::Gaussian { sigma },
            other => match other.strip_prefix("arccos").and_then(|b| b.parse::<u32>().ok()) {
                Some(order) => Kernel::ArcCos { order },
                None => return Err(FeatureError::invalid("kernel", name, "gaussian (or rbf), arccos0, arccos1, arccos2, ... arccos10")),
            },
        };
        k.check()?;
        Ok(k)
    }

    /// Short name: `gaussian` or `arccos<b>`.
    pub fn name(&self) -> String {
        match self {
            Kernel::Gaussian { .. } => "gaussian".into(),
            Kernel::ArcCos { order } => format!("arccos{order}"),
        }
    }

    /// `K(x, z)` from `x^T z` and the squared norms (what a Gram matrix computes by GEMM).
    pub fn from_inner(&self, xz: f64, xx: f64, zz: f64) -> f64 {
        match *self {
            Kernel::Gaussian { sigma } => (-(xx + zz - 2.0 * xz).max(0.0) / (2.0 * sigma * sigma)).exp(),
            Kernel::ArcCos { order } => {
                let (nx, nz) = (xx.sqrt(), zz.sqrt());
                if nx == 0.0 || nz == 0.0 {
                    // The limit as a point goes to 0: theta is undefined, but K_b -> 0 for b >= 1;
                    // for b = 0 the features of 0 are all zero, so the approximated value is 0 too.
                    return 0.0;
                }
                let cos = (xz / (nx * nz)).clamp(-1.0, 1.0);
                (nx * nz).powi(order as i32) * arccos_j(order, cos.acos()) / PI
            }
        }
    }

    /// `K(x, z)`.
    pub fn eval(&self, x: &[f64], z: &[f64]) -> f64 {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(u, v)| u * v).sum::<f64>();
        self.from_inner(dot(x, z), dot(x, x), dot(z, z))
    }
}

/// scikit-learn's `gamma="scale"`: `1 / (d var(X))` over all entries of `x` (row-major, `d`
/// columns), or 1 when the entries are constant. The variance is computed on the entries scaled by
/// their largest magnitude, so data near the limits of a double gives its true `gamma` or an error
/// (never a silent fallback): `gamma` must be a positive double.
pub fn gamma_scale<T: crate::Real>(x: &[T], d: usize) -> Result<f64, crate::FeatureError> {
    gamma_scale_visit(&|f: &mut dyn FnMut(f64)| x.iter().for_each(|v| f(v.to_f64())), x.len(), d)
}

/// A walk over values: calls its argument once per value, in order.
pub type Visit<'a> = dyn Fn(&mut dyn FnMut(f64)) + 'a;

/// [`gamma_scale`] of entries that `visit` passes to its argument, all `n_values` of them in
/// row-major order, once per call (it is called three times): how a sparse matrix gets exactly
/// the `gamma` of its dense form without being densified (each entry, zeros included, is added
/// in the same order as [`gamma_scale`] adds the dense entries, so the two agree bit for bit).
pub fn gamma_scale_visit(visit: &Visit<'_>, n_values: usize, d: usize) -> Result<f64, crate::FeatureError> {
    let mut largest = 0.0f64;
    visit(&mut |v| largest = largest.max(v.abs()));
    if !largest.is_finite() {
        return Err(crate::FeatureError::invalid("gamma", "scale", "finite data (an entry is NaN or infinite)"));
    }
    if largest == 0.0 {
        return Ok(1.0);
    }
    let n = n_values as f64;
    let mut sum = -0.0f64;
    visit(&mut |v| sum += v / largest);
    let mean = sum / n;
    let mut sq = -0.0f64;
    visit(&mut |v| sq += (v / largest - mean).powi(2));
    let var = sq / n;
    if var == 0.0 {
        return Ok(1.0);
    }
    let gamma = 1.0 / (d as f64 * var) / largest / largest;
    if !(gamma.is_finite() && gamma > 0.0) {
        return Err(crate::FeatureError::invalid(
            "gamma",
            "scale",
            format!(
                "a positive double; 1 / (d var(X)) = 1 / ({d} x {:e}) is not one: rescale the data or give sigma",
                var * largest * largest
            ),
        ));
    }
    Ok(gamma)
}

/// `J_b(theta)` of eq. 6.2 for `theta` in `[0, pi]`.
///
/// Restricting the integral representation (eq. 6.5) to the plane of `x` and `z` (`x = (1, 0)`, `z
/// = (cos theta, sin theta)`, `w = r (cos u, sin u)` with density `e^{-r^2/2} r dr du / (2 pi)`),
/// both projections are positive for `u` in `(theta - pi/2, pi/2)`, and `int_0^inf r^{2b+1}
/// e^{-r^2/2} dr = 2^b b!`, so
///
/// ```text
/// J_b(theta) = 2^b b! A_b(theta),   A_b(theta) = int_{theta - pi/2}^{pi/2} cos^b(u) cos^b(u - theta) du.
/// ```
///
/// `A_b` is integrated exactly: `cos(u - theta) = cos u cos theta + sin u sin theta` expands it
/// into monomials `cos^{2b-k} u sin^k u`, whose antiderivatives follow from the reduction formulas.
/// For `b = 0, 1` this is eq. 6.3 and 6.4.
pub fn arccos_j(b: u32, theta: f64) -> f64 {
    let lo = theta - PI / 2.0;
    let hi = PI / 2.0;
    let (c, s) = (theta.cos(), theta.sin());
    // cos^b(u - theta) = sum_k C(b, k) cos^{b-k}(u) c^{b-k} sin^k(u) s^k.
    let mut total = 0.0;
    let mut binom = 1.0;
    for k in 0..=b {
        let coef = binom * c.powi((b - k) as i32) * s.powi(k as i32);
        if coef != 0.0 {
            total += coef * (monomial(2 * b - k, k, hi) - monomial(2 * b - k, k, lo));
        }
        binom = binom * (b - k) as f64 / (k + 1) as f64;
    }
    let mut fact = 1.0;
    for i in 1..=b {
        fact *= (2 * i) as f64; // 2^b b!
    }
    fact * total
}

/// An antiderivative `F(u)` of `cos^p(u) sin^q(u)`, by the reduction formulas
/// `int cos^p sin^q = -cos^{p+1} sin^{q-1} / (p+q) + (q-1)/(p+q) int cos^p sin^{q-2}` (q >= 2) and
/// `int cos^p sin^q = cos^{p-1} sin^{q+1} / (p+q) + (p-1)/(p+q) int cos^{p-2} sin^q` (p >= 2).
fn monomial(p: u32, q: u32, u: f64) -> f64 {
    let (c, s) = (u.cos(), u.sin());
    if q >= 2 {
        let n = (p + q) as f64;
        return -c.powi(p as i32 + 1) * s.powi(q as i32 - 1) / n + (q - 1) as f64 / n * monomial(p, q - 2, u);
    }
    if p >= 2 {
        let n = (p + q) as f64;
        return c.powi(p as i32 - 1) * s.powi(q as i32 + 1) / n + (p - 1) as f64 / n * monomial(p - 2, q, u);
    }
    match (p, q) {
        (0, 0) => u,
        (1, 0) => s,
        (0, 1) => -c,
        (1, 1) => s * s / 2.0,
        _ => unreachable!("p, q < 2"),
    }
}

/// `C_b = E[r^{2b}]` for `r ~ chi(d)`: `prod_{i=0}^{b-1} (d + 2i)` (Lemma 2, eq. 6.17).
pub fn arccos_constant(b: u32, d: usize) -> f64 {
    (0..b).map(|i| (d + 2 * i as usize) as f64).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scikit-learn's rule, also for data near the limits of a double; no silent fallback.
    #[test]
    fn gamma_scale_is_scikit_learns_and_never_falls_back() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        // var of the six entries is 35/12; d = 2.
        assert!((gamma_scale(&x, 2).unwrap() - 1.0 / (2.0 * 35.0 / 12.0)).abs() < 1e-15);
        assert_eq!(gamma_scale(&[3.0, 3.0], 1).unwrap(), 1.0, "constant data: 1, as scikit-learn");
        let big: Vec<f64> = x.iter().map(|v| v * 1e150).collect();
        let g = gamma_scale(&big, 2).unwrap();
        assert!((g * 1e300 - 1.0 / (2.0 * 35.0 / 12.0)).abs() < 1e-12, "{g}");
        let huge: Vec<f64> = x.iter().map(|v| v * 1e300).collect();
        let e = gamma_scale(&huge, 2).unwrap_err().to_string();
        assert!(e.contains("gamma") && e.contains("rescale the data"), "{e}");
        assert!(gamma_scale(&[1.0, f64::NAN], 1).is_err());
    }

    #[test]
    fn j_matches_the_closed_forms_of_orders_0_1_2() {
        for i in 0..=40 {
            let t = PI * i as f64 / 40.0;
            let (s, c) = t.sin_cos();
            let j0 = PI - t;
            let j1 = s + (PI - t) * c;
            // Cho & Saul (2009), eq. (7): J_2 = 3 sin t cos t + (pi - t)(1 + 2 cos^2 t).
            let j2 = 3.0 * s * c + (PI - t) * (1.0 + 2.0 * c * c);
            assert!((arccos_j(0, t) - j0).abs() < 1e-12, "J0({t})");
            assert!((arccos_j(1, t) - j1).abs() < 1e-12, "J1({t}): {} vs {j1}", arccos_j(1, t));
            assert!((arccos_j(2, t) - j2).abs() < 1e-11, "J2({t}): {} vs {j2}", arccos_j(2, t));
        }
        // J_b(0) = pi (2b - 1)!!: K_b(x, x) = ||x||^{2b} (2b - 1)!!.
        assert!((arccos_j(3, 0.0) - PI * 15.0).abs() < 1e-9);
        assert!((arccos_j(4, 0.0) - PI * 105.0).abs() < 1e-8);
    }

    #[test]
    fn kernels_on_known_pairs() {
        let g = Kernel::Gaussian { sigma: 2.0 };
        assert!((g.eval(&[1.0, 0.0], &[0.0, 1.0]) - (-2.0f64 / 8.0).exp()).abs() < 1e-15);
        let g2 = Kernel::gaussian_gamma(0.125).unwrap();
        assert!((g2.eval(&[1.0, 0.0], &[0.0, 1.0]) - (-0.25f64).exp()).abs() < 1e-15);
        // Orthogonal unit vectors: theta = pi/2.
        let (x, z) = ([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
        assert!((Kernel::ArcCos { order: 0 }.eval(&x, &z) - 0.5).abs() < 1e-15);
        assert!((Kernel::ArcCos { order: 1 }.eval(&x, &z) - 2.0 / PI).abs() < 1e-15);
        // J_2(pi/2) = pi/2: K_2 = (1/pi) 1^2 2^2 pi/2 = 2.
        assert!((Kernel::ArcCos { order: 2 }.eval(&x, &z) - 2.0).abs() < 1e-12);
        // Same direction: K_1(x, x) = ||x||^2.
        assert!((Kernel::ArcCos { order: 1 }.eval(&z, &z) - 4.0).abs() < 1e-12);
        assert_eq!(arccos_constant(0, 7), 1.0);
        assert_eq!(arccos_constant(1, 7), 7.0);
        assert_eq!(arccos_constant(2, 7), 63.0);
    }

    #[test]
    fn parsing_and_checks() {
        assert_eq!(Kernel::parse("arccos1", 1.0).unwrap(), Kernel::ArcCos { order: 1 });
        assert_eq!(Kernel::parse("rbf", 3.0).unwrap(), Kernel::Gaussian { sigma: 3.0 });
        assert!(Kernel::parse("arccos11", 1.0).unwrap_err().to_string().contains("0..=10"));
        assert!(Kernel::parse("laplace", 1.0).unwrap_err().to_string().contains("arccos0"));
        assert!(Kernel::parse("gaussian", -1.0).unwrap_err().to_string().contains("sigma"));
        assert!(Kernel::gaussian_gamma(f64::NAN).is_err());
    }
}
