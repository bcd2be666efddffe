//! Integrands with known integrals over `[0, 1]^d`, for the QMC experiments.

use serde::{Deserialize, Serialize};

/// Thesis eq. (5.22)-(5.23): `f(x) = exp(c sum_j x_j j^{-b})`, with
/// `I(f) = prod_j (exp(c j^{-b}) - 1) / (c j^{-b})`. The thesis uses `b = 2`, `c = 1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpWeighted {
    /// `c j^{-b}` for `j = 1..d`.
    weights: Vec<f64>,
}

impl ExpWeighted {
    /// Dimension `d >= 1`, decay `b`, scale `c != 0` (finite).
    pub fn new(d: usize, b: f64, c: f64) -> Result<Self, String> {
        if d == 0 {
            return Err("d must be >= 1".into());
        }
        if !(b.is_finite() && c.is_finite() && c != 0.0) {
            return Err(format!("b = {b}, c = {c}: need finite b and finite non-zero c"));
        }
        gradfree_core::memory::check_elements(&format!("the weights of dimension {d}"), d as u128).map_err(|e| e.to_string())?;
        let weights: Vec<f64> = (1..=d).map(|j| c * (j as f64).powf(-b)).collect();
        // exp of the weighted sum must stay a double on the whole cube (e^709 is about the largest).
        let bound = weights.iter().map(|w| w.abs()).sum::<f64>();
        if bound.is_nan() || bound > 709.0 {
            return Err(format!(
                "b = {b}, c = {c}: exp(c sum_j j^-b x_j) overflows a double on the cube (sum_j |c j^-b| = {bound:.3e} > 709); use a larger b or a smaller |c|"
            ));
        }
        Ok(ExpWeighted { weights })
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.weights.len()
    }

    /// `f(x)`.
    pub fn eval(&self, x: &[f64]) -> f64 {
        x.iter().zip(&self.weights).map(|(xi, w)| xi * w).sum::<f64>().exp()
    }

    /// The exact integral (5.23), as a product of `expm1(w)/w` (accurate for small weights).
    pub fn exact(&self) -> f64 {
        self.weights.iter().map(|w| w.exp_m1() / w).product()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_integral_against_a_one_dimensional_quadrature() {
        // d = 1: int_0^1 e^{c x} dx = (e^c - 1)/c; check against composite Simpson.
        let f = ExpWeighted::new(1, 2.0, 1.3).unwrap();
        let m = 2000;
        let h = 1.0 / m as f64;
        let simpson: f64 = (0..=m)
            .map(|k| {
                let w = if k == 0 || k == m {
                    1.0
                } else if k % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                w * f.eval(&[k as f64 * h])
            })
            .sum::<f64>()
            * h
            / 3.0;
        assert!((simpson - f.exact()).abs() < 1e-12);
        // Product structure: d = 3 is the product of the three 1-D integrals.
        let g = ExpWeighted::new(3, 2.0, 1.0).unwrap();
        let want: f64 = [1.0f64, 0.25, 1.0 / 9.0].iter().map(|w| (w.exp() - 1.0) / w).product();
        assert!((g.exact() - want).abs() < 1e-14);
        assert!(ExpWeighted::new(0, 2.0, 1.0).is_err());
        // Weights whose exponential overflows are refused, naming b and c; 709 in total is fine.
        let e = ExpWeighted::new(3, -50.0, 1.0).unwrap_err();
        assert!(e.contains("b = -50") && e.contains("> 709"), "{e}");
        assert!(ExpWeighted::new(1, 0.0, 709.0).unwrap().exact().is_finite());
        assert!(ExpWeighted::new(1, 0.0, 710.0).is_err());
    }
}

/// The continuous Boltzmann machine of thesis sec. 5.5.4 on `[0, 1]^d`: energy
/// `E(h) = -(h^T W h + b^T h) / d`, normalization `Z = int exp(-E(h)) dh`, and for an observation
/// `v` the marginal likelihood `L(v) = int exp(-f(v, h)) exp(-E(h)) / Z dh` with
/// `f(v, h) = -(v^T W_v v + 2 v^T W_h h + b_v^T v) / d`. `W, W_v, W_h, b, b_v ~ N(0, 1)` and
/// `v ~ U[0, 1]^d` are drawn from a seed and then fixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Boltzmann {
    d: usize,
    /// `W`, row-major `d x d`.
    w: Vec<f64>,
    b: Vec<f64>,
    /// `2 W_h^T v / d`: the part of `-f` linear in `h`.
    wh_v: Vec<f64>,
    /// `(v^T W_v v + b_v^T v) / d`: the part of `-f` constant in `h`.
    fv_const: f64,
}

impl Boltzmann {
    /// The instance of dimension `d >= 1` drawn from `seed`.
    pub fn new(d: usize, seed: u64) -> Result<Self, String> {
        use rand::RngExt;
        use rand_distr::{Distribution, StandardNormal};
        if d == 0 {
            return Err("d must be >= 1".into());
        }
        gradfree_core::memory::check_elements(
            &format!("an integrand of dimension {d}"),
            gradfree_core::memory::product(&[4, d as u128, d as u128]),
        )
        .map_err(|e| e.to_string())?;
        let mut rng = gradfree_core::rng_from_seed(seed);
        let mut normal = |k: usize| -> Vec<f64> { (0..k).map(|_| StandardNormal.sample(&mut rng)).collect() };
        let w = normal(d * d);
        let wv = normal(d * d);
        let wh = normal(d * d);
        let b = normal(d);
        let bv = normal(d);
        let mut rng = gradfree_core::rng_from_seed(gradfree_core::derive_seed(seed, 1));
        let v: Vec<f64> = (0..d).map(|_| rng.random::<f64>()).collect();
        let df = d as f64;
        let quad = |m: &[f64], x: &[f64]| -> f64 { (0..d).map(|i| x[i] * (0..d).map(|j| m[i * d + j] * x[j]).sum::<f64>()).sum() };
        let fv_const = (quad(&wv, &v) + v.iter().zip(&bv).map(|(a, c)| a * c).sum::<f64>()) / df;
        // v^T W_h h = sum_j h_j (W_h^T v)_j.
        let wh_v = (0..d).map(|j| 2.0 * (0..d).map(|i| v[i] * wh[i * d + j]).sum::<f64>() / df).collect();
        Ok(Boltzmann { d, w, b, wh_v, fv_const })
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// `-E(h) = (h^T W h + b^T h) / d`.
    pub fn neg_energy(&self, h: &[f64]) -> f64 {
        let d = self.d;
        let mut q = 0.0;
        for (i, hi) in h.iter().enumerate() {
            let row = &self.w[i * d..(i + 1) * d];
            q += hi * row.iter().zip(h).map(|(a, x)| a * x).sum::<f64>();
        }
        (q + self.b.iter().zip(h).map(|(a, x)| a * x).sum::<f64>()) / d as f64
    }

    /// Integrand of `Z`: `exp(-E(h))`.
    pub fn z_integrand(&self, h: &[f64]) -> f64 {
        self.neg_energy(h).exp()
    }

    /// Integrand of `L(v) Z`: `exp(-f(v, h) - E(h))`.
    pub fn joint_integrand(&self, h: &[f64]) -> f64 {
        (self.fv_const + self.wh_v.iter().zip(h).map(|(a, x)| a * x).sum::<f64>() + self.neg_energy(h)).exp()
    }
}

#[cfg(test)]
mod boltzmann_tests {
    use super::*;

    /// In d = 1 both integrals are 1-D and Simpson's rule gives them to 1e-12.
    #[test]
    fn one_dimensional_instance_against_quadrature() {
        let m = Boltzmann::new(1, 3).unwrap();
        let simpson = |f: &dyn Fn(f64) -> f64| {
            let k = 4000;
            let h = 1.0 / k as f64;
            (0..=k)
                .map(|i| {
                    (if i == 0 || i == k {
                        1.0
                    } else if i % 2 == 1 {
                        4.0
                    } else {
                        2.0
                    }) * f(i as f64 * h)
                })
                .sum::<f64>()
                * h
                / 3.0
        };
        let z = simpson(&|x| m.z_integrand(&[x]));
        let joint = simpson(&|x| m.joint_integrand(&[x]));
        // Closed form pieces: -E(h) = (w h^2 + b h) / 1.
        let (w, b) = (m.w[0], m.b[0]);
        let z2 = simpson(&|x| (w * x * x + b * x).exp());
        assert!((z - z2).abs() < 1e-12);
        assert!(joint > 0.0 && z > 0.0 && (joint / z).is_finite());
        assert_eq!(m, Boltzmann::new(1, 3).unwrap());
        assert_ne!(m, Boltzmann::new(1, 4).unwrap());
    }
}
