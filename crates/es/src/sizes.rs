//! Default sample sizes shared by the methods.

/// The thesis' number of samples per iteration (sec. 3.7.1):
/// `N = 2 * floor(3 + floor(3 ln d) / 2)`, always even so samples can be antithetic pairs.
pub fn thesis_population(d: usize) -> usize {
    let l = (3.0 * (d.max(1) as f64).ln()).floor() as usize;
    2 * (3 + l / 2)
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
}
