//! Standard-normal sample blocks shared by the Gaussian methods: i.i.d., antithetic pairs, and
//! orthogonal samples with chi(d) radii (thesis sec. 3.6 and app. 10.5).

use gradfree_core::{CoreError, GfRng};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// How the `N` standard-normal directions `z_1..z_N` of a generation are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Sampling {
    /// Independent `z_i ~ N(0, I)`.
    #[default]
    Iid,
    /// `z_{i+N/2} = -z_i` (`[Z, -Z]`, thesis sec. 3.4.1; needs even `N`): still unbiased, and exact
    /// cancellation of the even part of `f` in the mean estimate.
    Antithetic,
    /// Blocks of up to `d` mutually orthogonal directions, each marginally `N(0, I)`: the Q factor of
    /// a Gaussian `d x k` matrix (with positive `diag(R)`, so Haar distributed), column `i` scaled
    /// by an independent chi(d) radius `||g_i||`. Thesis app. 10.5 (Lemma 8) with erratum 35 of
    /// NOTES (f): the lemma's `Z^T Z = I` would give `E[z z^T] = I/d`; only `z_i^T z_j = 0` is used.
    Orthogonal,
}

impl Sampling {
    /// Checks that `n` samples can be drawn this way.
    pub fn check(&self, n: usize) -> Result<(), CoreError> {
        if *self == Sampling::Antithetic && !n.is_multiple_of(2) {
            return Err(CoreError::invalid("popsize", n, "even with antithetic sampling"));
        }
        Ok(())
    }

    /// Fills `z` (`d x n` column-major, i.e. `n` rows of length `d`) with standard-normal directions.
    pub fn fill(&self, rng: &mut GfRng, d: usize, n: usize, z: &mut [f64]) {
        debug_assert_eq!(z.len(), d * n);
        match self {
            Sampling::Iid => z.iter_mut().for_each(|v| *v = StandardNormal.sample(rng)),
            Sampling::Antithetic => {
                let (a, b) = z.split_at_mut(d * (n / 2));
                a.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
                for (dst, src) in b.iter_mut().zip(a.iter()) {
                    *dst = -src;
                }
            }
            Sampling::Orthogonal => {
                let mut start = 0;
                while start < n {
                    let k = (n - start).min(d);
                    let block = &mut z[start * d..(start + k) * d];
                    block.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
                    orthonormalize(block, d, rng);
                    for col in block.chunks_exact_mut(d) {
                        let radius = (0..d).map(|_| StandardNormal.sample(rng)).map(|v: f64| v * v).sum::<f64>().sqrt();
                        col.iter_mut().for_each(|v| *v *= radius);
                    }
                    start += k;
                }
            }
        }
    }
}

/// Orthonormalizes the columns of `block` (`d x k`, `k <= d`, column-major) in place by modified
/// Gram-Schmidt applied twice ("twice is enough", Giraud et al. 2005). On Gaussian columns this
/// is the Q factor with positive `diag(R)`, i.e. Haar distributed. A column that vanishes (an
/// event of probability zero) is redrawn.
fn orthonormalize(block: &mut [f64], d: usize, rng: &mut GfRng) {
    let k = block.len() / d;
    let mut c = 0;
    while c < k {
        let (done, rest) = block.split_at_mut(c * d);
        let col = &mut rest[..d];
        let before = col.iter().map(|v| v * v).sum::<f64>().sqrt();
        for _ in 0..2 {
            for q in done.chunks_exact(d) {
                let dot: f64 = q.iter().zip(col.iter()).map(|(a, b)| a * b).sum();
                col.iter_mut().zip(q).for_each(|(v, qi)| *v -= dot * qi);
            }
        }
        let norm = col.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm.is_nan() || norm <= 1e-8 * before {
            col.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
            continue;
        }
        col.iter_mut().for_each(|v| *v /= norm);
        c += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gradfree_core::rng_from_seed;

    #[test]
    fn orthogonal_blocks_are_orthogonal_with_gaussian_second_moment() {
        let (d, n) = (6, 9);
        let mut rng = rng_from_seed(3);
        let mut z = vec![0.0; d * n];
        Sampling::Orthogonal.fill(&mut rng, d, n, &mut z);
        let col = |i: usize| &z[i * d..(i + 1) * d];
        for i in 0..d {
            for j in 0..i {
                let dot: f64 = col(i).iter().zip(col(j)).map(|(a, b)| a * b).sum();
                assert!(dot.abs() < 1e-10, "{i} {j} {dot}");
            }
        }
        // E[z z^T] = I: average over many blocks.
        let reps = 4000;
        let mut m = vec![0.0; d * d];
        let mut z = vec![0.0; d * d];
        for _ in 0..reps {
            Sampling::Orthogonal.fill(&mut rng, d, d, &mut z);
            for c in 0..d {
                for i in 0..d {
                    for j in 0..d {
                        m[i * d + j] += z[c * d + i] * z[c * d + j] / (reps * d) as f64;
                    }
                }
            }
        }
        for i in 0..d {
            for j in 0..d {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((m[i * d + j] - want).abs() < 0.06, "{i},{j}: {}", m[i * d + j]);
            }
        }
    }

    #[test]
    fn antithetic_pairs_and_validation() {
        let mut rng = rng_from_seed(1);
        let mut z = vec![0.0; 3 * 4];
        Sampling::Antithetic.fill(&mut rng, 3, 4, &mut z);
        for k in 0..6 {
            assert_eq!(z[k], -z[k + 6]);
        }
        assert!(Sampling::Antithetic.check(5).is_err());
        assert!(Sampling::Iid.check(5).is_ok());
    }
}
