//! Stationary ARD kernels of the Gaussian process: squared exponential and Matérn 5/2
//! (Rasmussen & Williams 2006, eq. 4.9 and 4.17 with one length scale per coordinate),
//! `k(u, v) = s² φ(r)`, `r² = Σ_i ((u_i − v_i) / ℓ_i)²`, and their derivatives with respect to
//! the log length scales, which the marginal-likelihood gradient needs.

use serde::{Deserialize, Serialize};
use wide::f64x4;

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

    /// `φ(r)` from `r²` (the same arithmetic as one lane of [`KernelKind::phi_many`]).
    #[inline]
    pub fn phi(self, r2: f64) -> f64 {
        self.phi4(f64x4::splat(r2)).to_array()[0]
    }

    /// `φ(r)` for four values of `r²` at once.
    #[inline]
    fn phi4(self, r2: f64x4) -> f64x4 {
        match self {
            KernelKind::SquaredExponential => (f64x4::splat(-0.5) * r2).exp(),
            KernelKind::Matern52 => {
                let r = r2.sqrt();
                (f64x4::ONE + f64x4::splat(SQRT5) * r + f64x4::splat(5.0 / 3.0) * r2) * (f64x4::splat(-SQRT5) * r).exp()
            }
        }
    }

    /// `φ(r)` in place of every `r²` of `r2`, four at a time. The exponential is `wide`'s
    /// vectorized one (reduction by ln 2 and a degree-13 polynomial, within a few ulp), and every
    /// value goes through the same lane arithmetic as [`KernelKind::phi`], so a kernel value does
    /// not depend on where in a vector it was computed, nor on the system's libm.
    #[inline]
    pub fn phi_many(self, r2: &mut [f64]) {
        let mut chunks = r2.chunks_exact_mut(4);
        for c in &mut chunks {
            let v = self.phi4(f64x4::from([c[0], c[1], c[2], c[3]])).to_array();
            c.copy_from_slice(&v);
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let mut pad = [0.0; 4];
            pad[..rest.len()].copy_from_slice(rest);
            let v = self.phi4(f64x4::from(pad)).to_array();
            rest.copy_from_slice(&v[..rest.len()]);
        }
    }

    /// `φ(r)` and `g(r)` with `∂φ/∂ log ℓ_i = g(r) (Δ_i/ℓ_i)²`: `g = φ` for the squared
    /// exponential and `g = (5/3)(1 + √5 r) exp(−√5 r)` for Matérn 5/2 (finite at `r = 0`).
    /// `φ` is [`KernelKind::phi`]'s to the bit.
    #[inline]
    pub fn phi_and_grad_factor(self, r2: f64) -> (f64, f64) {
        match self {
            KernelKind::SquaredExponential => {
                let p = self.phi(r2);
                (p, p)
            }
            KernelKind::Matern52 => {
                let v = f64x4::splat(r2);
                let r = v.sqrt();
                let e = (f64x4::splat(-SQRT5) * r).exp();
                let p = (f64x4::ONE + f64x4::splat(SQRT5) * r + f64x4::splat(5.0 / 3.0) * v) * e;
                let g = f64x4::splat(5.0 / 3.0) * (f64x4::ONE + f64x4::splat(SQRT5) * r) * e;
                (p.to_array()[0], g.to_array()[0])
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

    /// Whether these are hyper-parameters of a GP in `d` dimensions: `d` finite positive length
    /// scales, a finite positive signal variance and a finite non-negative noise variance (what a
    /// checkpoint and a warm start must hold before a fit uses their logarithms).
    pub fn is_valid(&self, d: usize) -> bool {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        self.length.len() == d
            && self.length.iter().all(|&l| positive(l))
            && positive(self.signal)
            && self.noise.is_finite()
            && self.noise >= 0.0
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

    /// The vectorized kernel agrees with the closed form through the system's `exp` to a few
    /// ulp, over the whole range of distances (including where `φ` underflows), and
    /// [`KernelKind::phi_many`] gives [`KernelKind::phi`]'s values to the bit at every position.
    #[test]
    fn vectorized_phi_matches_the_closed_form() {
        let r2s: Vec<f64> = (0..2000).map(|i| (i as f64 * 0.37).powi(2) / 50.0).chain([0.0, 1e-300, 1e6, 1e300]).collect();
        for kind in [KernelKind::SquaredExponential, KernelKind::Matern52] {
            let mut many = r2s.clone();
            kind.phi_many(&mut many);
            for (&r2, &m) in r2s.iter().zip(&many) {
                let exact = match kind {
                    KernelKind::SquaredExponential => (-0.5 * r2).exp(),
                    KernelKind::Matern52 => (1.0 + SQRT5 * r2.sqrt() + 5.0 / 3.0 * r2) * (-SQRT5 * r2.sqrt()).exp(),
                };
                assert!((m - exact).abs() <= 8.0 * f64::EPSILON * exact, "{kind:?} r2 = {r2}: {m} vs {exact}");
                assert_eq!(m.to_bits(), kind.phi(r2).to_bits());
                assert_eq!(kind.phi_and_grad_factor(r2).0.to_bits(), m.to_bits());
            }
            // Every remainder length of the four-wide loop.
            for len in 1..8 {
                let mut part = r2s[5..5 + len].to_vec();
                kind.phi_many(&mut part);
                assert_eq!(part, many[5..5 + len]);
            }
        }
    }
}
