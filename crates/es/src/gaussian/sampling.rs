//! Standard-normal sample blocks shared by the Gaussian methods: i.i.d., antithetic pairs,
//! orthogonal samples with chi(d) radii (thesis sec. 3.6 and app. 10.5), and randomly rotated
//! subgroup points on the sphere with chi(d) radii (thesis sec. 5.6).

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
    /// Quasi-Monte Carlo directions: the subgroup point set on the sphere (thesis sec. 5.6, eq.
    /// 5.24-5.26: `2p` points for the smallest prime `p` with `m | p - 1` and `2p >= N`, `m =
    /// ceil(d/2)`) under a fresh Haar rotation each generation, each direction scaled by an
    /// independent chi(d) radius. When `2p > N` a uniform subset of `N` points is used; for odd `d`
    /// the points live in `d + 1` dimensions and are rotated, cut to `d` coordinates and
    /// renormalized. Every direction is uniform on the sphere, so each `z_i ~ N(0, I)` marginally
    /// (the estimators stay unbiased), while the set keeps the low coherence of the subgroup
    /// points. Distinct directions are negatively correlated (the full set sums to zero), like
    /// antithetic pairs: the weighted mean step is less noisy, and under random selection (a
    /// plateau) it is shorter than CSA's `N(0, I)` reference; CMA-ES corrects its step-size path
    /// for this from the generation's directions (`CmaEs`, selection correction), which took its
    /// BBOB step ellipsoid f7 from 2x pycma's evaluations to pycma's (user guide, docs/results/optimizers.md). Random signs per
    /// direction remove the correlation (and keep the coherence), and then the gain over i.i.d.
    /// directions is gone too. Costs a `d x d` orthonormalization per generation (O(d^3)).
    SphereQmc,
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
            Sampling::SphereQmc => sphere_qmc(rng, d, n, z),
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

/// [`Sampling::SphereQmc`]: `n` directions of dimension `d` into `z` (`n` rows of length `d`).
fn sphere_qmc(rng: &mut GfRng, d: usize, n: usize, z: &mut [f64]) {
    use gradfree_qmc::sphere::{FourierSphere, sphere_sizes};
    use rand::seq::index::sample;
    let de = d + d % 2;
    let m = de / 2;
    let p = sphere_sizes(m, (n as u64).div_ceil(2).max(2), 1)[0];
    // p is the first prime in 1 + mZ from n/2 on (prime with m | p - 1, p > m), far below the
    // 2^40 limit for any population whose directions fit in memory: the set always exists.
    let set = FourierSphere::subgroup(de, p).expect("a prime p with m | p - 1");
    let total = set.len();
    // A Haar rotation of R^de: the Q factor of a Gaussian matrix.
    let mut q = vec![0.0; de * de];
    q.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
    orthonormalize(&mut q, de, rng);
    // 2p >= n, so n distinct points exist.
    let chosen = sample(rng, total, n);
    let mut v = vec![0.0; de];
    for (idx, row) in chosen.iter().zip(z.chunks_exact_mut(d)) {
        set.point_into(idx, &mut v);
        // row = first d coordinates of Q v.
        row.fill(0.0);
        for (col, &vj) in q.chunks_exact(de).zip(&v) {
            for (r, c) in row.iter_mut().zip(col) {
                *r += vj * c;
            }
        }
        let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
        let radius = (0..d).map(|_| StandardNormal.sample(rng)).map(|x: f64| x * x).sum::<f64>().sqrt();
        let scale = if norm > 0.0 { radius / norm } else { 0.0 };
        row.iter_mut().for_each(|x| *x *= scale);
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

    /// The rotated subgroup directions: unit vectors (after their radii) with exactly the
    /// subgroup set's mutual coherence when all `2p` points are used, and `E[z z^T] = I`, `E[z] =
    /// 0`, for even and odd `d`.
    #[test]
    fn sphere_qmc_directions_keep_the_subgroup_coherence_and_are_gaussian() {
        use gradfree_qmc::sphere::{FourierSphere, mutual_coherence};
        let (d, p) = (6, 7); // m = 3 divides p - 1 = 6: 14 points
        let mut rng = rng_from_seed(11);
        let mut z = vec![0.0; d * 2 * p];
        Sampling::SphereQmc.fill(&mut rng, d, 2 * p, &mut z);
        for row in z.chunks_exact_mut(d) {
            let r = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            row.iter_mut().for_each(|v| *v /= r);
            assert!((row.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-12);
        }
        let want = FourierSphere::subgroup(d, p as u64).unwrap().mutual_coherence();
        assert!((mutual_coherence(&z, d) - want).abs() < 1e-10, "{} vs {want}", mutual_coherence(&z, d));
        // i.i.d. directions are far less spread out.
        let mut g = vec![0.0; d * 2 * p];
        Sampling::Iid.fill(&mut rng, d, 2 * p, &mut g);
        assert!(mutual_coherence(&g, d) > want);

        for (d, n) in [(5, 8), (4, 6)] {
            let reps = 6000;
            let mut m = vec![0.0; d * d];
            let mut mean = vec![0.0; d];
            let mut z = vec![0.0; d * n];
            for _ in 0..reps {
                Sampling::SphereQmc.fill(&mut rng, d, n, &mut z);
                for row in z.chunks_exact(d) {
                    for i in 0..d {
                        mean[i] += row[i] / (reps * n) as f64;
                        for j in 0..d {
                            m[i * d + j] += row[i] * row[j] / (reps * n) as f64;
                        }
                    }
                }
            }
            for i in 0..d {
                assert!(mean[i].abs() < 0.03, "d = {d}: mean {mean:?}");
                for j in 0..d {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((m[i * d + j] - want).abs() < 0.05, "d = {d}, {i},{j}: {}", m[i * d + j]);
                }
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
