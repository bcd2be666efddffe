//! Stationary ARD kernels of the Gaussian process: squared exponential and Matérn 5/2
//! (Rasmussen & Williams 2006, eq. 4.9 and 4.17 with one length scale per coordinate),
//! `k(u, v) = s² φ(r)`, `r² = Σ_i ((u_i − v_i) / ℓ_i)²`, and their derivatives with respect to
//! the log length scales, which the marginal-likelihood gradient needs.

use serde::{Deserialize, Serialize};

/// The kernel family (the thesis, §4.7.2, uses the ARD Matérn 5/2 kernel for every method).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KernelKind {
    /// Squared exponential, `φ(r) = exp(−r²/2)`.
    SquaredExponential,
    /// Matérn ν = 5/2, `φ(r) = (1 + √5 r + 5r²/3) exp(−√5 r)`.
    #[default]
    Matern52,
}

const SQRT5: f64 = 2.236_067_977_499_79;

impl KernelKind {
    /// Parses `"se"`/`"rbf"`/`"squared-exponential"` and `"matern52"`/`"matern"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "se" | "rbf" | "squared-exponential" | "gaussian" => Some(KernelKind::SquaredExponential),
            "matern52" | "matern-52" | "matern-5/2" | "matern" => Some(KernelKind::Matern52),
            _ => None,
        }
    }

    /// [`KernelKind::parse`] for a user-given parameter `kernel`: an unknown name is an error
    /// listing the known ones.
    pub fn parse_param(s: &str) -> Result<Self, crate::BoError> {
        Self::parse(s).ok_or_else(|| crate::BoError::invalid("kernel", s, "matern52 or se (also rbf)"))
    }

    /// The name as written in logs and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::SquaredExponential => "squared-exponential",
            KernelKind::Matern52 => "matern52",
        }
    }

    /// `φ(r)` from `r²`.
    #[inline]
    pub fn phi(self, r2: f64) -> f64 {
        match self {
            KernelKind::SquaredExponential => (-0.5 * r2).exp(),
            KernelKind::Matern52 => {
                let r = r2.sqrt();
                (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * (-SQRT5 * r).exp()
            }
        }
    }

    /// `φ(r)` and `g(r)` with `∂φ/∂ log ℓ_i = g(r) (Δ_i/ℓ_i)²`: `g = φ` for the squared
    /// exponential and `g = (5/3)(1 + √5 r) exp(−√5 r)` for Matérn 5/2 (finite at `r = 0`).
    #[inline]
    pub fn phi_and_grad_factor(self, r2: f64) -> (f64, f64) {
        match self {
            KernelKind::SquaredExponential => {
                let p = (-0.5 * r2).exp();
                (p, p)
            }
            KernelKind::Matern52 => {
                let r = r2.sqrt();
                let e = (-SQRT5 * r).exp();
                ((1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e, 5.0 / 3.0 * (1.0 + SQRT5 * r) * e)
            }
        }
    }
}

/// Hyper-parameters in the GP's unit-cube, standardized-output coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hyper {
    /// ARD length scales `ℓ_i > 0`, one per coordinate.
    pub length: Vec<f64>,
    /// Signal variance `s² > 0` (the prior variance of f).
    pub signal: f64,
    /// Noise variance `σ² ≥ 0` added to the diagonal (the thesis' regularizer of eq. 4.11).
    pub noise: f64,
}

impl Hyper {
    /// `r²` between two points, with `inv_len[i] = 1/ℓ_i`.
    #[inline]
    pub fn r2(inv_len: &[f64], a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for ((x, y), w) in a.iter().zip(b).zip(inv_len) {
            let t = (x - y) * w;
            s += t * t;
        }
        s
    }

    /// `1/ℓ_i`.
    pub fn inv_len(&self) -> Vec<f64> {
        self.length.iter().map(|l| 1.0 / l).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length-scale derivative factor matches a finite difference of `φ` in `log ℓ`.
    #[test]
    fn grad_factor_matches_finite_differences() {
        for kind in [KernelKind::SquaredExponential, KernelKind::Matern52] {
            for &(delta, ell) in &[(0.3, 0.7), (1.2, 0.4), (0.05, 2.0)] {
                let r2 = |l: f64| (delta / l) * (delta / l);
                let h: f64 = 1e-6;
                let fd = (kind.phi(r2(ell * h.exp())) - kind.phi(r2(ell * (-h).exp()))) / (2.0 * h);
                let (_, g) = kind.phi_and_grad_factor(r2(ell));
                let an = g * r2(ell);
                assert!((fd - an).abs() < 1e-7, "{kind:?}: {fd} vs {an}");
            }
            assert_eq!(kind.phi(0.0), 1.0);
        }
        assert_eq!(KernelKind::parse("RBF"), Some(KernelKind::SquaredExponential));
        assert_eq!(KernelKind::parse("matern52"), Some(KernelKind::Matern52));
        assert_eq!(KernelKind::parse("linear"), None);
    }
}
