//! Rotation and shift wrappers (their random rotations: [`gradfree_core::linalg::random_orthogonal`]).

pub use gradfree_core::linalg::random_orthogonal;
use gradfree_core::{Bounds, Objective, rng_from_seed};

use crate::{Problem, ProblemError};

/// `y = M x` for a row-major `d x d` matrix.
pub(crate) fn matvec(m: &[f64], x: &[f64], y: &mut [f64]) {
    let d = x.len();
    for (yi, row) in y.iter_mut().zip(m.chunks_exact(d)) {
        *yi = row.iter().zip(x).map(|(a, b)| a * b).sum();
    }
}

/// `g(x) = f(c + R (x - c))`: the problem rotated by a random orthogonal `R` about its minimizer
/// `c` (the origin when the minimizer is unknown), so minimizer, minimum and domain are kept while
/// the coordinate axes are no longer special. Costs one `d x d` product per evaluation.
pub struct Rotated<P> {
    inner: P,
    rot: Vec<f64>,
    center: Vec<f64>,
    name: String,
}

impl<P: Problem> Rotated<P> {
    /// Wraps `inner` with the rotation drawn from `seed`.
    pub fn new(inner: P, seed: u64) -> Self {
        let d = inner.dimension();
        let center = inner.minimizer().unwrap_or_else(|| vec![0.0; d]);
        let name = format!("rotated-{}", inner.name());
        Rotated { rot: random_orthogonal(d, seed), inner, center, name }
    }

    /// The rotation, row-major.
    pub fn rotation(&self) -> &[f64] {
        &self.rot
    }
}

impl<P: Problem> Objective for Rotated<P> {
    fn eval(&self, x: &[f64]) -> f64 {
        let d = x.len();
        let dx: Vec<f64> = x.iter().zip(&self.center).map(|(a, c)| a - c).collect();
        let mut y = vec![0.0; d];
        matvec(&self.rot, &dx, &mut y);
        for (yi, c) in y.iter_mut().zip(&self.center) {
            *yi += c;
        }
        self.inner.eval(&y)
    }
    fn dim(&self) -> Option<usize> {
        Some(self.inner.dimension())
    }
}

/// The [`Problem`] methods a wrapper passes through to the problem it wraps (`self.inner`): a
/// rotation or a shift changes the coordinates, not the function's description or minimum.
macro_rules! pass_through {
    () => {
        fn name(&self) -> &str {
            &self.name
        }
        fn dimension(&self) -> usize {
            self.inner.dimension()
        }
        fn formula(&self) -> &str {
            self.inner.formula()
        }
        fn source(&self) -> &str {
            self.inner.source()
        }
        fn minimum(&self) -> Option<f64> {
            self.inner.minimum()
        }
    };
}

impl<P: Problem> Problem for Rotated<P> {
    pass_through!();
    fn domain(&self) -> Option<Bounds> {
        self.inner.domain()
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        self.inner.minimizer()
    }
}

/// `g(x) = f(x - s)`: the problem shifted by `s`; minimizer and domain move by `s`.
pub struct Shifted<P> {
    inner: P,
    shift: Vec<f64>,
    name: String,
    domain: Option<Bounds>,
    init: Bounds,
}

impl<P: Problem> Shifted<P> {
    /// Shift by a vector drawn uniformly from `[-radius, radius]^d` with `seed` (`radius > 0`).
    pub fn random(inner: P, radius: f64, seed: u64) -> Result<Self, ProblemError> {
        let b = Bounds::uniform(inner.dimension(), -radius, radius)
            .map_err(|_| ProblemError::Invalid { name: "shift radius", message: format!("{radius}: must be finite and > 0") })?;
        let shift = b.sample_uniform(&mut rng_from_seed(seed));
        Self::new(inner, shift)
    }

    /// Shift by the given vector. Errors if its length is not the dimension, or if it is so large
    /// that a shifted box collapses in floating point (`l + s == u + s`: from about `1e16` times
    /// the box width).
    pub fn new(inner: P, shift: Vec<f64>) -> Result<Self, ProblemError> {
        if shift.len() != inner.dimension() {
            return Err(ProblemError::Invalid {
                name: "shift",
                message: format!("{} values, expected the dimension {}", shift.len(), inner.dimension()),
            });
        }
        if let Some(i) = shift.iter().position(|s| !s.is_finite()) {
            return Err(ProblemError::Invalid { name: "shift", message: format!("shift[{i}] = {} is not finite", shift[i]) });
        }
        let domain = inner.domain().map(|b| shift_box(&b, &shift)).transpose()?;
        let init = shift_box(&inner.init_region(), &shift)?;
        let name = format!("shifted-{}", inner.name());
        Ok(Shifted { inner, shift, name, domain, init })
    }

    /// The shift vector.
    pub fn shift(&self) -> &[f64] {
        &self.shift
    }
}

/// The box `b` moved by `shift`, or an error if it collapses or overflows in floating point.
fn shift_box(b: &Bounds, shift: &[f64]) -> Result<Bounds, ProblemError> {
    let lo = b.lower().iter().zip(shift).map(|(l, s)| l + s).collect();
    let hi = b.upper().iter().zip(shift).map(|(u, s)| u + s).collect();
    Bounds::new(lo, hi).map_err(|e| ProblemError::Invalid {
        name: "shift",
        message: format!("too large for the problem's box ({e}); use a shift radius below about 1e15 times the box width"),
    })
}

impl<P: Problem> Objective for Shifted<P> {
    fn eval(&self, x: &[f64]) -> f64 {
        let y: Vec<f64> = x.iter().zip(&self.shift).map(|(a, s)| a - s).collect();
        self.inner.eval(&y)
    }
    fn dim(&self) -> Option<usize> {
        Some(self.inner.dimension())
    }
}

impl<P: Problem> Problem for Shifted<P> {
    pass_through!();
    fn domain(&self) -> Option<Bounds> {
        self.domain.clone()
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        self.inner.minimizer().map(|m| m.iter().zip(&self.shift).map(|(a, s)| a + s).collect())
    }
    fn init_region(&self) -> Bounds {
        self.init.clone()
    }
}

/// Boxed problems wrap too.
impl Problem for Box<dyn Problem> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn dimension(&self) -> usize {
        (**self).dimension()
    }
    fn formula(&self) -> &str {
        (**self).formula()
    }
    fn source(&self) -> &str {
        (**self).source()
    }
    fn domain(&self) -> Option<Bounds> {
        (**self).domain()
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        (**self).minimizer()
    }
    fn minimum(&self) -> Option<f64> {
        (**self).minimum()
    }
    fn init_region(&self) -> Bounds {
        (**self).init_region()
    }
    fn categories(&self) -> Option<usize> {
        (**self).categories()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Analytic;

    #[test]
    fn rotation_keeps_optimum_and_norm_structure() {
        let p = Rotated::new(Analytic::by_name("ellipsoid", 8).unwrap().unwrap(), 3);
        assert_eq!(p.eval(&[0.0; 8]), 0.0);
        // Sphere is rotation invariant.
        let s = Rotated::new(Analytic::by_name("sphere", 8).unwrap().unwrap(), 3);
        let x = [0.3, -1.0, 2.0, 0.0, 0.5, 0.1, -0.7, 1.1];
        assert!((s.eval(&x) - x.iter().map(|v| v * v).sum::<f64>()).abs() < 1e-12);
        // Rosenbrock rotated about x* = 1 keeps f(1) = 0.
        let r = Rotated::new(Analytic::by_name("rosenbrock", 5).unwrap().unwrap(), 9);
        assert!(r.eval(&[1.0; 5]).abs() < 1e-20);
        assert!(r.eval(&[1.1; 5]) > 0.0);
    }

    #[test]
    fn shift_moves_minimizer() {
        let p = Shifted::new(Analytic::by_name("levy", 3).unwrap().unwrap(), vec![1.0, -2.0, 0.5]).unwrap();
        let m = p.minimizer().unwrap();
        assert_eq!(m, vec![2.0, -1.0, 1.5]);
        assert!(p.eval(&m).abs() < 1e-24);
        assert_eq!(p.domain().unwrap().lower(), &[-9.0, -12.0, -9.5]);
    }

    /// A shift so large that `l + s == u + s` is an error, not a panic.
    #[test]
    fn huge_shift_is_an_error() {
        let e = Shifted::random(Analytic::by_name("sphere", 3).unwrap().unwrap(), 1e17, 1).err().unwrap().to_string();
        assert!(e.contains("shift") && e.contains("too large"), "{e}");
        assert!(Shifted::new(Analytic::by_name("sphere", 2).unwrap().unwrap(), vec![1.0]).is_err());
    }
}
