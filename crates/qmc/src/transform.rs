//! Maps from the unit cube: to a box, to the standard Gaussian (inverse CDF), and to the sphere.

use statrs::function::erf::erfc_inv;

use crate::QmcError;

/// Smallest distance from 0 and 1 a coordinate is clamped to before the inverse CDF (a lattice or
/// unshifted Sobol point has coordinates exactly 0, whose Gaussian image would be -inf).
pub const CLAMP: f64 = 1.0 / 9_007_199_254_740_992.0;

/// `Phi^{-1}(u)`, the standard normal quantile, for `u` clamped to `[2^-53, 1 - 2^-53]`.
pub fn normal_quantile(u: f64) -> f64 {
    let u = u.clamp(CLAMP, 1.0 - CLAMP);
    -std::f64::consts::SQRT_2 * erfc_inv(2.0 * u)
}

/// Maps row-major points in place from `[0, 1)^d` to the standard Gaussian `N(0, I_d)`.
pub fn to_gaussian(points: &mut [f64]) {
    points.iter_mut().for_each(|u| *u = normal_quantile(*u));
}

/// Maps row-major points in place from `[0, 1)^d` to the unit sphere `S^{d-1}` (Gaussian image,
/// normalized; uniform on the sphere for uniform inputs).
pub fn to_sphere(points: &mut [f64], d: usize) -> Result<(), QmcError> {
    if d == 0 || !points.len().is_multiple_of(d) {
        return Err(QmcError::invalid("points", format!("length {}", points.len()), format!("a multiple of d = {d}")));
    }
    for row in points.chunks_exact_mut(d) {
        row.iter_mut().for_each(|u| *u = normal_quantile(*u));
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 {
            return Err(QmcError::invalid("points", "a point at the cube's center", "a point with a non-zero Gaussian image"));
        }
        row.iter_mut().for_each(|v| *v /= norm);
    }
    Ok(())
}

/// Maps row-major points in place from `[0, 1)^d` to the box `[lower, upper)`.
pub fn to_box(points: &mut [f64], lower: &[f64], upper: &[f64]) -> Result<(), QmcError> {
    let d = lower.len();
    if d == 0 || upper.len() != d || !points.len().is_multiple_of(d) {
        return Err(QmcError::invalid(
            "box",
            format!("lower {} / upper {} values for {} coordinates", d, upper.len(), points.len()),
            "lower and upper of length d",
        ));
    }
    if let Some(k) = (0..d).find(|&k| !(lower[k].is_finite() && upper[k].is_finite() && lower[k] < upper[k])) {
        return Err(QmcError::invalid("box", format!("[{}, {}] in coordinate {k}", lower[k], upper[k]), "finite with lower < upper"));
    }
    for row in points.chunks_exact_mut(d) {
        for ((v, l), u) in row.iter_mut().zip(lower).zip(upper) {
            *v = l + (u - l) * *v;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_known_values() {
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!((normal_quantile(0.975) - 1.959963984540054).abs() < 1e-14);
        assert!((normal_quantile(0.025) + 1.959963984540054).abs() < 1e-14);
        assert!((normal_quantile(1e-10) + 6.361340902404056).abs() < 1e-11);
        assert!(normal_quantile(0.0).is_finite() && normal_quantile(1.0).is_finite());
    }

    #[test]
    fn sphere_and_box() {
        let mut p = vec![0.1, 0.7, 0.9, 0.25, 0.5, 0.6];
        to_sphere(&mut p, 3).unwrap();
        for r in p.chunks_exact(3) {
            assert!((r.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-14);
        }
        let mut q = vec![0.0, 0.5, 0.25, 1.0 - 1e-16];
        to_box(&mut q, &[-1.0, 10.0], &[1.0, 20.0]).unwrap();
        assert_eq!(&q[..3], &[-1.0, 15.0, -0.5]);
        assert!(to_box(&mut q, &[1.0, 0.0], &[0.0, 1.0]).unwrap_err().to_string().contains("lower < upper"));
        assert!(to_sphere(&mut [0.5, 0.5], 2).is_err());
    }
}
