//! Seeding: the project's one named, portable generator.
//!
//! Every random algorithm in gradfree takes a `u64` seed and turns it into a [`GfRng`] with
//! [`rng_from_seed`]. `GfRng` is **xoshiro256++** (Blackman & Vigna), as implemented by
//! `rand_xoshiro` (pinned version); `seed_from_u64` expands the seed with SplitMix64. The stream is
//! the same on every platform and every build, and the generator is `Clone` and serializable, so
//! optimizer states that hold it can be checkpointed and resumed bit-identically. Gaussian
//! variates come from `rand_distr::StandardNormal` (ziggurat), whose version is pinned for the same
//! reason. `rand`'s `StdRng`/`SmallRng` are not used anywhere: their algorithms may change.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The portable generator used throughout gradfree (xoshiro256++).
pub type GfRng = Xoshiro256PlusPlus;

/// Turns a seed into the project's generator. Same seed, same stream, on every platform.
pub fn rng_from_seed(seed: u64) -> GfRng {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// Derives an independent seed for a named sub-stream (e.g. the problem instance vs. the
/// optimizer), by SplitMix64 finalization of `seed` mixed with `stream`. Pure and portable.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rand_distr::{Distribution, StandardNormal};

    /// Value stability: these numbers must never change, or every pinned result in the project
    /// changes with them.
    #[test]
    fn stream_is_pinned() {
        let mut r = rng_from_seed(1);
        let a: u64 = r.random();
        let b: u64 = r.random();
        assert_eq!((a, b), PINNED_U64);
        let mut r = rng_from_seed(42);
        let z: f64 = StandardNormal.sample(&mut r);
        assert!((z - PINNED_NORMAL).abs() < 1e-15, "{z}");
    }

    const PINNED_U64: (u64, u64) = (14971601782005023387, 13781649495232077965);
    const PINNED_NORMAL: f64 = 0.8343975468437959;

    #[test]
    fn derived_seeds_differ() {
        assert_ne!(derive_seed(1, 0), derive_seed(1, 1));
        assert_ne!(derive_seed(1, 0), derive_seed(2, 0));
        assert_eq!(derive_seed(7, 3), derive_seed(7, 3));
    }
}
