//! Closed-form test functions (thesis Tables 3.1 and 4.4, MiNES Table 1, smoke tests).
//!
//! Indices in the formulas are 1-based as in the sources; `r_i = (i-1)/(d-1)` (taken as 0 when
//! `d = 1`, where the sources' formulas are 0/0).

use std::f64::consts::PI;

use gradfree_core::{Bounds, Objective};

use crate::{Problem, ProblemError};

/// A closed-form test function: formula, domain and known minimizer.
#[derive(Clone, Debug)]
pub struct Analytic {
    name: &'static str,
    d: usize,
    f: fn(&[f64]) -> f64,
    minimizer: fn(usize) -> Vec<f64>,
    minimum: f64,
    domain: Option<(f64, f64)>,
    formula: &'static str,
    source: &'static str,
}

/// `r_i = (i-1)/(d-1)` with 0-based `i`, 0 when `d = 1`.
#[inline]
fn ratio(i: usize, d: usize) -> f64 {
    if d <= 1 { 0.0 } else { i as f64 / (d - 1) as f64 }
}

fn zeros(d: usize) -> Vec<f64> {
    vec![0.0; d]
}

fn ones(d: usize) -> Vec<f64> {
    vec![1.0; d]
}

/// Ellipsoid: `f(x) = sum_i 10^(6 r_i) x_i^2` (thesis Table 3.1). Minimum 0 at 0.
pub fn ellipsoid(x: &[f64]) -> f64 {
    let d = x.len();
    x.iter().enumerate().map(|(i, v)| 10f64.powf(6.0 * ratio(i, d)) * v * v).sum()
}

/// Discus: `f(x) = 10^6 x_1^2 + sum_{i>=2} x_i^2` (thesis Table 3.1 prints `x_1`; erratum 40 of
/// NOTES (f): with `x_1` the function is unbounded below). Minimum 0 at 0.
pub fn discus(x: &[f64]) -> f64 {
    1e6 * x[0] * x[0] + x[1..].iter().map(|v| v * v).sum::<f64>()
}

/// l1-Ellipsoid: `f(x) = sum_i 10^(6 r_i) |x_i|` (thesis Table 3.1). Minimum 0 at 0.
pub fn l1_ellipsoid(x: &[f64]) -> f64 {
    let d = x.len();
    x.iter().enumerate().map(|(i, v)| 10f64.powf(6.0 * ratio(i, d)) * v.abs()).sum()
}

/// l1/2-Ellipsoid: `f(x) = sum_i 10^(6 r_i) |x_i|^(1/2)` (thesis Table 3.1). Minimum 0 at 0.
pub fn lhalf_ellipsoid(x: &[f64]) -> f64 {
    let d = x.len();
    x.iter().enumerate().map(|(i, v)| 10f64.powf(6.0 * ratio(i, d)) * v.abs().sqrt()).sum()
}

/// Levy (thesis Tables 3.1 and 4.4): with `w_i = 1 + (x_i - 1)/4`,
/// `f(x) = sin^2(pi w_1) + sum_{i<d} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1)) + (w_d - 1)^2 (1 + sin^2(2 pi w_d))`.
/// Minimum 0 at `x = 1`.
pub fn levy(x: &[f64]) -> f64 {
    let w = |v: f64| 1.0 + (v - 1.0) / 4.0;
    let d = x.len();
    let w1 = w(x[0]);
    let wd = w(x[d - 1]);
    let mut s = (PI * w1).sin().powi(2);
    for &v in &x[..d - 1] {
        let wi = w(v);
        s += (wi - 1.0).powi(2) * (1.0 + 10.0 * (PI * wi + 1.0).sin().powi(2));
    }
    s + (wd - 1.0).powi(2) * (1.0 + (2.0 * PI * wd).sin().powi(2))
}

/// Rastrigin10 (thesis Table 3.1): with `y_i = 10^(r_i) x_i`,
/// `f(x) = 10 d + sum_i (y_i^2 - 10 cos(2 pi y_i))`. Minimum 0 at 0.
pub fn rastrigin10(x: &[f64]) -> f64 {
    let d = x.len();
    10.0 * d as f64
        + x.iter()
            .enumerate()
            .map(|(i, v)| {
                let y = 10f64.powf(ratio(i, d)) * v;
                y * y - 10.0 * (2.0 * PI * y).cos()
            })
            .sum::<f64>()
}

/// Rosenbrock (thesis Table 4.4): `f(x) = sum_{i<d} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2`.
/// Minimum 0 at `x = 1`; needs `d >= 2`.
pub fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2).map(|p| 100.0 * (p[1] - p[0] * p[0]).powi(2) + (1.0 - p[0]).powi(2)).sum()
}

/// Nesterov's nonsmooth Chebyshev–Rosenbrock (thesis Table 4.4, whose extraction lost the bars):
/// `f(x) = |x_1 - 1|/4 + sum_{i<d} |x_{i+1} - 2|x_i| + 1|`. Minimum 0 at `x = 1`.
pub fn nesterov(x: &[f64]) -> f64 {
    0.25 * (x[0] - 1.0).abs() + x.windows(2).map(|p| (p[1] - 2.0 * p[0].abs() + 1.0).abs()).sum::<f64>()
}

/// Different-Powers (thesis Table 4.4; MiNES `diffpow`, whose `n` is `d`, erratum 29):
/// `f(x) = sum_i |x_i|^(2 + 10 r_i)`. Minimum 0 at 0.
pub fn different_powers(x: &[f64]) -> f64 {
    let d = x.len();
    x.iter().enumerate().map(|(i, v)| v.abs().powf(2.0 + 10.0 * ratio(i, d))).sum()
}

/// Dixon-Price (thesis Table 4.4): `f(x) = (x_1 - 1)^2 + sum_{i>=2} i (2 x_i^2 - x_{i-1})^2`.
/// Minimum 0 at `x_i = 2^(-(2^i - 2)/2^i)`.
pub fn dixon_price(x: &[f64]) -> f64 {
    (x[0] - 1.0).powi(2) + x.windows(2).enumerate().map(|(k, p)| (k + 2) as f64 * (2.0 * p[1] * p[1] - p[0]).powi(2)).sum::<f64>()
}

fn dixon_price_minimizer(d: usize) -> Vec<f64> {
    // (2^i - 2)/2^i = 1 - 2^(1-i), written so that large i does not overflow.
    (1..=d).map(|i| 2f64.powf(-(1.0 - 2f64.powi(1 - i as i32)))).collect()
}

/// Ackley (thesis Table 4.4):
/// `f(x) = -20 exp(-0.2 sqrt(mean x_i^2)) - exp(mean cos(2 pi x_i)) + 20 + e`. Minimum 0 at 0.
pub fn ackley(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s2 = x.iter().map(|v| v * v).sum::<f64>() / n;
    let sc = x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>() / n;
    (-20.0 * (-0.2 * s2.sqrt()).exp() - sc.exp() + 20.0 + std::f64::consts::E).max(0.0)
}

/// Sphere: `f(x) = sum_i x_i^2`. Minimum 0 at 0.
pub fn sphere(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

/// ssphere (MiNES Table 1): `f(x) = sqrt(sum_i x_i^2)`. Minimum 0 at 0.
pub fn ssphere(x: &[f64]) -> f64 {
    sphere(x).sqrt()
}

/// Rastrigin: `f(x) = 10 d + sum_i (x_i^2 - 10 cos(2 pi x_i))`. Minimum 0 at 0.
pub fn rastrigin(x: &[f64]) -> f64 {
    10.0 * x.len() as f64 + x.iter().map(|v| v * v - 10.0 * (2.0 * PI * v).cos()).sum::<f64>()
}

/// Griewank: `f(x) = 1 + sum_i x_i^2/4000 - prod_i cos(x_i / sqrt(i))`. Minimum 0 at 0.
pub fn griewank(x: &[f64]) -> f64 {
    let s = x.iter().map(|v| v * v).sum::<f64>() / 4000.0;
    let p: f64 = x.iter().enumerate().map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos()).product();
    1.0 + s - p
}

/// A sphere whose evaluation fails (returns NaN) wherever `x_1 < 0`, like a simulator that crashes
/// on part of its domain; it exercises the non-finite-value policy. Minimum 0 at 0.
pub fn failing_sphere(x: &[f64]) -> f64 {
    if x[0] < 0.0 { f64::NAN } else { sphere(x) }
}

impl Analytic {
    #[allow(clippy::too_many_arguments)]
    fn make(
        name: &'static str,
        d: usize,
        min_d: usize,
        f: fn(&[f64]) -> f64,
        minimizer: fn(usize) -> Vec<f64>,
        domain: Option<(f64, f64)>,
        formula: &'static str,
        source: &'static str,
    ) -> Result<Self, ProblemError> {
        if d < min_d {
            return Err(ProblemError::Dimension { problem: name.into(), dim: d, expected: format!(">= {min_d}") });
        }
        Ok(Analytic { name, d, f, minimizer, minimum: 0.0, domain, formula, source })
    }

    /// Looks up a closed-form function by registry name; `None` if the name is not one of them.
    pub fn by_name(name: &str, d: usize) -> Option<Result<Self, ProblemError>> {
        const T31: &str = "thesis Table 3.1";
        const T44: &str = "thesis Table 4.4";
        const M1: &str = "MiNES Table 1";
        const SMOKE: &str = "smoke test";
        let r = match name {
            "sphere" => Self::make("sphere", d, 1, sphere, zeros, None, "sum_i x_i^2", SMOKE),
            "ellipsoid" => Self::make("ellipsoid", d, 1, ellipsoid, zeros, None, "sum_i 10^(6(i-1)/(d-1)) x_i^2", T31),
            "discus" => Self::make(
                "discus",
                d,
                1,
                discus,
                zeros,
                None,
                "10^6 x_1^2 + sum_{i>=2} x_i^2 (x_1^2: the thesis prints x_1, unbounded below)",
                T31,
            ),
            "l1-ellipsoid" => Self::make("l1-ellipsoid", d, 1, l1_ellipsoid, zeros, None, "sum_i 10^(6(i-1)/(d-1)) |x_i|", T31),
            "lhalf-ellipsoid" => {
                Self::make("lhalf-ellipsoid", d, 1, lhalf_ellipsoid, zeros, None, "sum_i 10^(6(i-1)/(d-1)) |x_i|^(1/2)", T31)
            }
            "levy" => Self::make(
                "levy",
                d,
                1,
                levy,
                ones,
                Some((-10.0, 10.0)),
                "sin^2(pi w_1) + sum_{i<d} (w_i-1)^2 (1+10 sin^2(pi w_i+1)) + (w_d-1)^2 (1+sin^2(2 pi w_d)), w_i = 1+(x_i-1)/4",
                "thesis Tables 3.1 and 4.4",
            ),
            "rastrigin10" => Self::make(
                "rastrigin10",
                d,
                1,
                rastrigin10,
                zeros,
                None,
                "10d + sum_i (y_i^2 - 10 cos(2 pi y_i)), y_i = 10^((i-1)/(d-1)) x_i",
                T31,
            ),
            "rosenbrock" => {
                Self::make("rosenbrock", d, 2, rosenbrock, ones, Some((-2.0, 2.0)), "sum_{i<d} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2", T44)
            }
            "nesterov" => {
                Self::make("nesterov", d, 1, nesterov, ones, Some((-2.0, 2.0)), "|x_1 - 1|/4 + sum_{i<d} |x_{i+1} - 2|x_i| + 1|", T44)
            }
            "different-powers" | "diffpow" => Self::make(
                if name == "diffpow" { "diffpow" } else { "different-powers" },
                d,
                1,
                different_powers,
                zeros,
                if name == "diffpow" { None } else { Some((-2.0, 2.0)) },
                "sum_i |x_i|^(2 + 10(i-1)/(d-1))",
                if name == "diffpow" { M1 } else { T44 },
            ),
            "dixon-price" => Self::make(
                "dixon-price",
                d,
                1,
                dixon_price,
                dixon_price_minimizer,
                Some((-2.0, 2.0)),
                "(x_1 - 1)^2 + sum_{i>=2} i (2 x_i^2 - x_{i-1})^2",
                T44,
            ),
            "ackley" => Self::make(
                "ackley",
                d,
                1,
                ackley,
                zeros,
                Some((-2.0, 2.0)),
                "-20 exp(-0.2 sqrt(mean_i x_i^2)) - exp(mean_i cos(2 pi x_i)) + 20 + e",
                T44,
            ),
            "ssphere" => Self::make("ssphere", d, 1, ssphere, zeros, None, "sqrt(sum_i x_i^2)", M1),
            "rastrigin" => {
                Self::make("rastrigin", d, 1, rastrigin, zeros, Some((-5.12, 5.12)), "10d + sum_i (x_i^2 - 10 cos(2 pi x_i))", SMOKE)
            }
            "griewank" => Self::make(
                "griewank",
                d,
                1,
                griewank,
                zeros,
                Some((-600.0, 600.0)),
                "1 + sum_i x_i^2/4000 - prod_i cos(x_i/sqrt(i))",
                SMOKE,
            ),
            "failing-sphere" => Self::make("failing-sphere", d, 1, failing_sphere, zeros, None, "sum_i x_i^2, NaN where x_1 < 0", SMOKE),
            _ => return None,
        };
        Some(r)
    }
}

impl Objective for Analytic {
    fn eval(&self, x: &[f64]) -> f64 {
        (self.f)(x)
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

impl Problem for Analytic {
    fn name(&self) -> &str {
        self.name
    }
    fn dimension(&self) -> usize {
        self.d
    }
    fn formula(&self) -> &str {
        self.formula
    }
    fn source(&self) -> &str {
        self.source
    }
    fn domain(&self) -> Option<Bounds> {
        self.domain.map(|(lo, hi)| Bounds::uniform(self.d, lo, hi).expect("lo < hi"))
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some((self.minimizer)(self.d))
    }
    fn minimum(&self) -> Option<f64> {
        Some(self.minimum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn hand_computed_values() {
        // d = 3: weights 10^0, 10^3, 10^6.
        assert_relative_eq!(ellipsoid(&[1.0, 1.0, 1.0]), 1.0 + 1e3 + 1e6);
        assert_relative_eq!(ellipsoid(&[2.0, 0.0, 0.5]), 4.0 + 0.25e6);
        assert_relative_eq!(discus(&[1.0, 2.0, -3.0]), 1e6 + 4.0 + 9.0);
        assert_relative_eq!(discus(&[-1.0, 0.0]), 1e6); // x_1^2, not x_1 (erratum 40)
        assert_relative_eq!(l1_ellipsoid(&[-1.0, 2.0, -0.5]), 1.0 + 2e3 + 0.5e6);
        assert_relative_eq!(lhalf_ellipsoid(&[4.0, 0.0, -0.25]), 2.0 + 0.5e6);
        assert_relative_eq!(sphere(&[3.0, 4.0]), 25.0);
        assert_relative_eq!(ssphere(&[3.0, 4.0]), 5.0);
        // Rosenbrock at 0: sum_{i<d} 1.
        assert_relative_eq!(rosenbrock(&[0.0, 0.0, 0.0]), 2.0);
        assert_relative_eq!(rosenbrock(&[-1.0, 1.0]), 4.0);
        // Nesterov at 0: 1/4 + (d-1) * 1.
        assert_relative_eq!(nesterov(&[0.0, 0.0, 0.0]), 2.25);
        assert_relative_eq!(nesterov(&[-1.0, 1.0]), 0.5); // |1 - 2 + 1| = 0
        // Different powers, d = 2: |x_1|^2 + |x_2|^12.
        assert_relative_eq!(different_powers(&[2.0, 2.0]), 4.0 + 4096.0);
        assert_relative_eq!(dixon_price(&[0.0, 0.0]), 1.0);
        assert_relative_eq!(dixon_price(&[1.0, 1.0, 1.0]), 2.0 + 3.0);
        // Rastrigin(1, 0) = 10*2 + (1 - 10) + (0 - 10) = 1 in d = 2.
        assert_relative_eq!(rastrigin(&[1.0, 0.0]), 1.0, epsilon = 1e-12);
        // Rastrigin10, d = 2: y = (x_1, 10 x_2).
        assert_relative_eq!(rastrigin10(&[0.0, 0.1]), 20.0 + 1.0 - 10.0 * (2.0 * PI).cos() - 10.0, epsilon = 1e-12);
        // Ackley at x = 1 (all coordinates): -20 exp(-0.2) - e + 20 + e.
        assert_relative_eq!(ackley(&[1.0, 1.0]), 20.0 - 20.0 * (-0.2f64).exp(), epsilon = 1e-12);
        // Levy at x = -3 in d = 1: w = 0, sin^2(0) + (0-1)^2 (1 + sin^2(0)) = 1.
        assert_relative_eq!(levy(&[-3.0]), 1.0, epsilon = 1e-12);
        // Levy d = 2 at x = (-3, 1): w = (0, 1): 0 + 1*(1+10 sin^2(1)) + 0.
        assert_relative_eq!(levy(&[-3.0, 1.0]), 1.0 + 10.0 * 1f64.sin().powi(2), epsilon = 1e-12);
        // Griewank d = 2 at (pi/2 * ... ): direct check.
        let g = 1.0 + (1.0 + 4.0) / 4000.0 - 1f64.cos() * (2.0 / 2f64.sqrt()).cos();
        assert_relative_eq!(griewank(&[1.0, 2.0]), g, epsilon = 1e-14);
        assert!(failing_sphere(&[-0.1, 0.0]).is_nan());
        assert_eq!(failing_sphere(&[0.1, 0.0]), 0.010000000000000002);
    }

    #[test]
    fn dixon_price_minimizer_is_a_root() {
        for d in [1, 2, 5, 30, 2000] {
            let x = dixon_price_minimizer(d);
            assert!(x.iter().all(|v| v.is_finite()));
            assert!(dixon_price(&x) < 1e-20 * d as f64, "d = {d}: {}", dixon_price(&x));
        }
        assert_relative_eq!(dixon_price_minimizer(2)[1], 0.5f64.sqrt());
    }

    #[test]
    fn too_small_dimension_is_an_error() {
        assert!(matches!(Analytic::by_name("rosenbrock", 1), Some(Err(ProblemError::Dimension { .. }))));
        assert!(Analytic::by_name("no-such", 3).is_none());
    }
}
