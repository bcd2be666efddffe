//! Default sample sizes shared by the methods.

/// The thesis' number of samples per iteration (sec. 3.7.1):
/// `N = 2 * floor(3 + floor(3 ln d) / 2)`, always even so samples can be antithetic pairs.
pub fn thesis_population(d: usize) -> usize {
    let l = (3.0 * (d.max(1) as f64).ln()).floor() as usize;
    2 * (3 + l / 2)
}

/// The population size: `given` (the user's `popsize`) or `default`, at least `min`.
pub fn popsize(given: Option<usize>, default: usize, min: usize) -> Result<usize, gradfree_core::CoreError> {
    let n = given.unwrap_or(default);
    if n < min {
        return Err(gradfree_core::CoreError::invalid("popsize", n, format!(">= {min}")));
    }
    Ok(n)
}

/// `v` if finite and `> 0`, else an error naming parameter `name`.
pub fn positive(name: &'static str, v: f64) -> Result<f64, gradfree_core::CoreError> {
    if !(v.is_finite() && v > 0.0) {
        return Err(gradfree_core::CoreError::invalid(name, v, "finite and > 0"));
    }
    Ok(v)
}

/// `v` if finite and `>= 0`, else an error naming parameter `name`.
pub fn non_negative(name: &'static str, v: f64) -> Result<f64, gradfree_core::CoreError> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(gradfree_core::CoreError::invalid(name, v, "finite and >= 0"));
    }
    Ok(v)
}

/// `v` if in the open interval `(0, 1)`, else an error naming parameter `name`.
pub fn unit_open(name: &'static str, v: f64) -> Result<f64, gradfree_core::CoreError> {
    if !(v > 0.0 && v < 1.0) {
        return Err(gradfree_core::CoreError::invalid(name, v, "in (0, 1)"));
    }
    Ok(v)
}

/// How an optimizer's memory grows with the dimension `d` and population size `n`.
#[derive(Clone, Copy, Debug)]
pub enum Footprint {
    /// A full `d x d` covariance (or precision) with its factors and work matrices: about
    /// `8 d^2 + 4 n d + 32 d` values.
    Full,
    /// Vectors only (diagonal covariance, discrete distributions): about `4 n d + 32 d` values.
    Diagonal,
}

/// Checks, before anything is allocated, that an optimizer named `name` with dimension `d` and
/// population `n` fits in memory ([`gradfree_core::memory`]); the error names both sizes.
pub fn check_footprint(name: &str, d: usize, n: usize, kind: Footprint) -> Result<(), gradfree_core::CoreError> {
    use gradfree_core::memory::product;
    let (d, n) = (d as u128, n as u128);
    let vectors = product(&[4, n, d]).saturating_add(32 * d);
    let elements = match kind {
        Footprint::Full => product(&[8, d, d]).saturating_add(vectors),
        Footprint::Diagonal => vectors,
    };
    gradfree_core::memory::check_elements(&format!("{name} with dimension {d} and popsize {n}"), elements)
}

/// The size checks of a restored state (`check_state`, whose errors are strings): dimension
/// `d >= 1`, population `n >= 2`, and [`check_footprint`].
pub fn state_sizes(name: &str, d: usize, n: usize, kind: Footprint) -> Result<(), String> {
    gradfree_core::state::count("dimension", d, 1, usize::MAX)?;
    gradfree_core::state::count("popsize", n, 2, usize::MAX)?;
    check_footprint(name, d, n, kind).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        // d = 100: floor(3 ln 100) = 13 -> 2 * (3 + 6) = 18.
        assert_eq!(thesis_population(100), 18);
        assert_eq!(thesis_population(10), 12);
        assert_eq!(thesis_population(1), 6);
        assert_eq!(thesis_population(1000), 26);
    }

    #[test]
    fn footprint_rejects_impossible_sizes() {
        assert!(check_footprint("ingo", 100, 18, Footprint::Full).is_ok());
        let e = check_footprint("ingo", 200_000, 50, Footprint::Full).unwrap_err().to_string();
        assert!(e.contains("ingo with dimension 200000 and popsize 50 needs"), "{e}");
        assert!(check_footprint("ga", usize::MAX, usize::MAX, Footprint::Diagonal).is_err());
    }
}
