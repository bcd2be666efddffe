//! The moment-adjusted direction `V^{-1} b` (Liang & Su sec. 6): the plug-in estimates of a batch of
//! per-sample gradients `g_i`,
//!
//! ```text
//! b = (1/n) sum g_i,    Sigma = (1/(n-1)) sum (g_i - b)(g_i - b)^T,    V V^T = Sigma,
//! ```
//!
//! and two inverse roots:
//!
//! - [`Root::Symmetric`]: `V = Sigma^{1/2}`, the symmetric root of the theory (`V(theta) =
//!   Cov[grad l]^{1/2}`, eq. 5), by an eigendecomposition, O(n p^2 + p^3). Eigenvalues below
//!   `RIDGE x` the largest are raised to it (a ridge; the direction then reports how many), since a
//!   batch of `n <= p` gradients, or collinear ones, has a singular `Sigma`.
//! - [`Root::RankOne`]: the recursion of Prop. 6.2 (eq. 22), `H_0 = I`, `u = H_i v_{i+1}`,
//!   `H_{i+1} = H_i - u (u^T H_i) / alpha_i` with `alpha_i = (1 + sqrt(1 + |u|^2)) sqrt(1 + |u|^2)`,
//!   on `v_i = g_i - b`, and the direction `sqrt(n-1) H_n b`, O(n p^2): `H_n^T H_n = (I + sum v_i
//!   v_i^T)^{-1}`, an inverse root of `Sigma + I/(n-1)` (a built-in ridge). `H_n` is **not
//!   symmetric** (checked in the tests): `sqrt(n-1) H_n = Q Sigma_ridge^{-1/2}` for some rotation
//!   `Q` that depends on the order of the `v_i`, so this direction is the symmetric one of the
//!   *ridged* covariance, rotated: shorter than the symmetric root's by `sqrt(lambda / (lambda +
//!   1/(n-1)))` along each eigenvalue `lambda` of `Sigma` (most for small batches and small
//!   gradients), and turned. The noise it standardizes is rotation-invariant, the drift is not;
//!   the theory and our figures use [`Root::Symmetric`].

use gradfree_core::linalg::{EigenWork, sym_eigen};
use serde::{Deserialize, Serialize};

/// Eigenvalues of `Sigma` below this fraction of the largest are raised to it (a ridge).
pub const RIDGE: f64 = 1e-10;

/// Which inverse root of the batch covariance standardizes the gradient.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Root {
    /// The symmetric inverse root `Sigma^{-1/2}` (eigendecomposition), the theory's.
    #[default]
    Symmetric,
    /// The rank-one recursion of Prop. 6.2, `sqrt(n - 1) H_n`.
    RankOne,
}

/// Buffers of the direction computations, reused across steps.
#[derive(Default)]
pub struct DirectionWork {
    sigma: Vec<f64>,
    center: Vec<f64>,
    values: Vec<f64>,
    vectors: Vec<f64>,
    eigen: EigenWork,
    h: Vec<f64>,
    u: Vec<f64>,
    uh: Vec<f64>,
    tmp: Vec<f64>,
}

impl std::fmt::Debug for DirectionWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DirectionWork")
    }
}

/// What the direction computation reports besides the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The inverse root was exact.
    Exact,
    /// This many eigenvalues were raised to the ridge floor.
    Ridged(usize),
    /// The gradients have no spread (`Sigma = 0`): no direction exists.
    NoSpread,
}

/// The mean `b` of the `n x p` row-major gradients `g` into `b`.
pub fn mean_gradient(g: &[f64], p: usize, b: &mut [f64]) {
    let n = g.len() / p;
    b.iter_mut().for_each(|v| *v = 0.0);
    for row in g.chunks_exact(p) {
        b.iter_mut().zip(row).for_each(|(a, x)| *a += x);
    }
    b.iter_mut().for_each(|v| *v /= n as f64);
}

/// The covariance `(1/denominator) sum (g_i - b)(g_i - b)^T` (`p x p`, column-major, both triangles).
pub fn covariance(g: &[f64], p: usize, b: &[f64], denominator: f64, out: &mut Vec<f64>) {
    out.clear();
    out.resize(p * p, 0.0);
    for row in g.chunks_exact(p) {
        for j in 0..p {
            let dj = row[j] - b[j];
            for i in j..p {
                out[j * p + i] += (row[i] - b[i]) * dj;
            }
        }
    }
    for j in 0..p {
        for i in j..p {
            let v = out[j * p + i] / denominator;
            out[j * p + i] = v;
            out[i * p + j] = v;
        }
    }
}

/// `out = scale * Sigma^{power} v` for symmetric positive semi-definite `sigma` (`p x p`
/// column-major) and `power` in `{-1/2, 1/2}`, eigenvalues below `RIDGE x max` raised to it.
pub fn sym_power_apply(sigma: &[f64], p: usize, power: f64, v: &[f64], scale: f64, out: &mut [f64], work: &mut DirectionWork) -> Outcome {
    work.values.resize(p, 0.0);
    work.vectors.resize(p * p, 0.0);
    if !sym_eigen(sigma, p, &mut work.values, Some(&mut work.vectors), &mut work.eigen) {
        return Outcome::NoSpread;
    }
    let top = work.values.iter().copied().fold(0.0f64, f64::max);
    if top <= 0.0 || !top.is_finite() {
        return Outcome::NoSpread;
    }
    let floor = RIDGE * top;
    let mut ridged = 0;
    // out = U diag(lambda^power) U^T v.
    work.tmp.clear();
    for (k, col) in work.vectors.chunks_exact(p).enumerate() {
        let mut lambda = work.values[k];
        if lambda < floor {
            lambda = floor;
            ridged += 1;
        }
        work.tmp.push(lambda.powf(power) * col.iter().zip(v).map(|(a, b)| a * b).sum::<f64>());
    }
    out.iter_mut().for_each(|o| *o = 0.0);
    for (col, c) in work.vectors.chunks_exact(p).zip(&work.tmp) {
        out.iter_mut().zip(col).for_each(|(o, u)| *o += scale * c * u);
    }
    if ridged == 0 { Outcome::Exact } else { Outcome::Ridged(ridged) }
}

/// `H_n` of Prop. 6.2 for the rows `v` (`n x p` row-major, each minus `center` if given), into
/// `work` (`p x p` row-major); returns it.
pub fn rank_one_root<'a>(v: &[f64], p: usize, center: Option<&[f64]>, work: &'a mut DirectionWork) -> &'a [f64] {
    let DirectionWork { h, u, uh, tmp, .. } = work;
    h.clear();
    h.resize(p * p, 0.0);
    (0..p).for_each(|i| h[i * p + i] = 1.0);
    u.resize(p, 0.0);
    uh.resize(p, 0.0);
    tmp.resize(p, 0.0);
    for row in v.chunks_exact(p) {
        match center {
            Some(c) => tmp.iter_mut().zip(row.iter().zip(c)).for_each(|(t, (a, b))| *t = a - b),
            None => tmp.copy_from_slice(row),
        }
        // u = H v.
        for (i, ui) in u.iter_mut().enumerate() {
            *ui = h[i * p..(i + 1) * p].iter().zip(tmp.iter()).map(|(a, b)| a * b).sum();
        }
        let s: f64 = u.iter().map(|x| x * x).sum();
        let r = (1.0 + s).sqrt();
        let alpha = (1.0 + r) * r;
        // uh = u^T H.
        uh.iter_mut().for_each(|x| *x = 0.0);
        for (i, &ui) in u.iter().enumerate() {
            uh.iter_mut().zip(&h[i * p..(i + 1) * p]).for_each(|(a, b)| *a += ui * b);
        }
        for (i, &ui) in u.iter().enumerate() {
            let c = ui / alpha;
            h[i * p..(i + 1) * p].iter_mut().zip(uh.iter()).for_each(|(a, b)| *a -= c * b);
        }
    }
    h
}

/// The plug-in moment-adjusted direction of the gradients `g` (`n x p` row-major, `n >= 2`) into
/// `dir`, their mean into `b` (sec. 6.1: `b` and `V` from the same batch).
pub fn masgrad_direction(g: &[f64], p: usize, root: Root, b: &mut [f64], dir: &mut [f64], work: &mut DirectionWork) -> Outcome {
    adjusted_direction(g, g, p, root, b, dir, work)
}

/// The moment-adjusted direction `Vhat^{-1} bhat` with `bhat` the mean of the gradients `gb` and
/// `Vhat` the covariance root of the gradients `gv` (`n x p` each, `n >= 2`): the same batch for
/// sec. 6.1's plug-in ([`masgrad_direction`]), or an independent one.
pub fn adjusted_direction(
    gb: &[f64],
    gv: &[f64],
    p: usize,
    root: Root,
    b: &mut [f64],
    dir: &mut [f64],
    work: &mut DirectionWork,
) -> Outcome {
    let n = gv.len() / p;
    mean_gradient(gb, p, b);
    let same = std::ptr::eq(gb, gv);
    let mut center = std::mem::take(&mut work.center);
    center.resize(p, 0.0);
    if same {
        center.copy_from_slice(b);
    } else {
        mean_gradient(gv, p, &mut center);
    }
    let out = match root {
        Root::Symmetric => {
            let mut sigma = std::mem::take(&mut work.sigma);
            covariance(gv, p, &center, (n - 1) as f64, &mut sigma);
            let out = sym_power_apply(&sigma, p, -0.5, b, 1.0, dir, work);
            work.sigma = sigma;
            out
        }
        Root::RankOne => {
            if gv.chunks_exact(p).all(|row| row.iter().zip(center.iter()).all(|(a, c)| a == c)) {
                Outcome::NoSpread
            } else {
                let s = ((n - 1) as f64).sqrt();
                let h = rank_one_root(gv, p, Some(&center), work);
                for (i, d) in dir.iter_mut().enumerate() {
                    *d = s * h[i * p..(i + 1) * p].iter().zip(b.iter()).map(|(a, c)| a * c).sum::<f64>();
                }
                Outcome::Exact
            }
        }
    };
    work.center = center;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gradfree_core::rng_from_seed;
    use rand_distr::{Distribution, StandardNormal};

    fn gaussian(n: usize, p: usize, seed: u64) -> Vec<f64> {
        let mut rng = rng_from_seed(seed);
        (0..n * p)
            .map(|k| {
                let z: f64 = StandardNormal.sample(&mut rng);
                z * (1.0 + (k % p) as f64)
            })
            .collect()
    }

    fn matmul_tn(a: &[f64], b: &[f64], p: usize) -> Vec<f64> {
        // (A^T B) for row-major p x p.
        let mut out = vec![0.0; p * p];
        for i in 0..p {
            for j in 0..p {
                out[i * p + j] = (0..p).map(|k| a[k * p + i] * b[k * p + j]).sum();
            }
        }
        out
    }

    /// Prop. 6.2: `H_n^T H_n (I + sum v v^T) = I`, and `H_n` is not symmetric.
    #[test]
    fn rank_one_recursion_is_an_inverse_root() {
        let (n, p) = (40, 5);
        let v = gaussian(n, p, 3);
        let mut work = DirectionWork::default();
        let h = rank_one_root(&v, p, None, &mut work).to_vec();
        let hth = matmul_tn(&h, &h, p);
        let mut m = vec![0.0; p * p];
        (0..p).for_each(|i| m[i * p + i] = 1.0);
        for row in v.chunks_exact(p) {
            for i in 0..p {
                for j in 0..p {
                    m[i * p + j] += row[i] * row[j];
                }
            }
        }
        for i in 0..p {
            for j in 0..p {
                let e: f64 = (0..p).map(|k| hth[i * p + k] * m[k * p + j]).sum();
                assert!((e - if i == j { 1.0 } else { 0.0 }).abs() < 1e-10, "({i}, {j}) = {e}");
            }
        }
        let asym = (0..p).flat_map(|i| (0..p).map(move |j| (i, j))).map(|(i, j)| (h[i * p + j] - h[j * p + i]).abs()).fold(0.0, f64::max);
        assert!(asym > 1e-3, "H_n is symmetric? {asym}");
    }

    /// The two roots give directions of the same length up to the rank-one root's ridge
    /// `I / (n - 1)`, which a large batch makes small, and different orientations.
    #[test]
    fn the_two_directions_differ_by_a_rotation() {
        let (n, p) = (4000, 3);
        let mut g = gaussian(n, p, 9);
        g.chunks_exact_mut(p).for_each(|r| r[0] += 0.3);
        let mut work = DirectionWork::default();
        let (mut b, mut d_sym, mut d_r1) = (vec![0.0; p], vec![0.0; p], vec![0.0; p]);
        assert_eq!(masgrad_direction(&g, p, Root::Symmetric, &mut b, &mut d_sym, &mut work), Outcome::Exact);
        masgrad_direction(&g, p, Root::RankOne, &mut b, &mut d_r1, &mut work);
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm(&d_sym) - norm(&d_r1)).abs() < 1e-3 * norm(&d_sym), "{d_sym:?} vs {d_r1:?}");
    }

    /// Prop. 6.1, in the root-free form: `n (xbar - mu)^T Sigma^{-1} (xbar - mu) = |M_n|^2 (n - 1) /
    /// (n - |M_n|^2)` with `|M_n|^2 = S_n^T (sum (x_i - mu)(x_i - mu)^T)^{-1} S_n`.
    #[test]
    fn self_normalized_identity_holds() {
        let (n, p) = (30, 4);
        let x = gaussian(n, p, 5);
        let mu = [0.1, -0.2, 0.0, 0.3];
        let mut work = DirectionWork::default();
        let mut xbar = vec![0.0; p];
        mean_gradient(&x, p, &mut xbar);
        let mut sigma = Vec::new();
        covariance(&x, p, &xbar, (n - 1) as f64, &mut sigma);
        let diff: Vec<f64> = xbar.iter().zip(&mu).map(|(a, b)| a - b).collect();
        let mut w = vec![0.0; p];
        sym_power_apply(&sigma, p, -0.5, &diff, 1.0, &mut w, &mut work);
        let lhs = n as f64 * w.iter().map(|v| v * v).sum::<f64>();
        // |M_n|^2 through the centred second moment about mu.
        let mut vn = Vec::new();
        covariance(&x, p, &mu, 1.0, &mut vn);
        let s: Vec<f64> = diff.iter().map(|v| v * n as f64).collect();
        let mut m = vec![0.0; p];
        sym_power_apply(&vn, p, -0.5, &s, 1.0, &mut m, &mut work);
        let m2: f64 = m.iter().map(|v| v * v).sum();
        let rhs = m2 * (n as f64 - 1.0) / (n as f64 - m2);
        assert!((lhs - rhs).abs() < 1e-9 * rhs.max(1.0), "{lhs} vs {rhs}");
    }

    #[test]
    fn singular_batches_are_ridged_or_refused() {
        let p = 3;
        // Two gradients in dimension 3: rank 1 covariance.
        let g = [1.0, 2.0, 3.0, 2.0, 1.0, 0.0];
        let mut work = DirectionWork::default();
        let (mut b, mut d) = (vec![0.0; p], vec![0.0; p]);
        assert_eq!(masgrad_direction(&g, p, Root::Symmetric, &mut b, &mut d, &mut work), Outcome::Ridged(2));
        assert!(d.iter().all(|v| v.is_finite()));
        let same = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0];
        assert_eq!(masgrad_direction(&same, p, Root::Symmetric, &mut b, &mut d, &mut work), Outcome::NoSpread);
        assert_eq!(masgrad_direction(&same, p, Root::RankOne, &mut b, &mut d, &mut work), Outcome::NoSpread);
    }
}
