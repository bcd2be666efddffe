//! Discrete test problems for the discrete INGO of thesis sec. 3.5: a categorical analogue of the
//! binary reconstruction problem (sec. 3.7.3), OneMax and LeadingOnes (sanity checks), and MaxCut
//! on a random graph.
//!
//! Variables are stored as `f64`: a binary variable reads as 1 when `x_i > 0.5`; a categorical one
//! with `K` categories as the nearest index in `0..K`. So the functions are defined on real
//! inputs too (continuous methods can be run on them as relaxations).

use gradfree_core::{Bounds, Objective, rng_from_seed};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use crate::{Problem, ProblemError};

fn bit(x: f64) -> bool {
    x > 0.5
}

/// The category index `x` reads as: the nearest integer in `0..k`.
pub fn category(x: f64, k: usize) -> usize {
    if x.is_nan() {
        return 0;
    }
    (x.round().max(0.0) as usize).min(k - 1)
}

fn check_dim(name: &str, d: usize, min: usize) -> Result<(), ProblemError> {
    if d < min {
        return Err(ProblemError::Dimension { problem: name.into(), dim: d, expected: format!(">= {min}") });
    }
    Ok(())
}

/// OneMax as a minimization: `f(x) = d - sum_i 1[x_i = 1]`, minimum 0 at all ones.
#[derive(Clone, Debug)]
pub struct OneMax {
    d: usize,
}

impl OneMax {
    /// OneMax in dimension `d >= 1`.
    pub fn new(d: usize) -> Result<Self, ProblemError> {
        check_dim("onemax", d, 1)?;
        Ok(OneMax { d })
    }
}

/// LeadingOnes as a minimization: `f(x) = d - max{k : x_1 = ... = x_k = 1}`, minimum 0 at all
/// ones. Only the first zero bit matters, so the landscape is flat almost everywhere.
#[derive(Clone, Debug)]
pub struct LeadingOnes {
    d: usize,
}

impl LeadingOnes {
    /// LeadingOnes in dimension `d >= 1`.
    pub fn new(d: usize) -> Result<Self, ProblemError> {
        check_dim("leadingones", d, 1)?;
        Ok(LeadingOnes { d })
    }
}

/// The categorical analogue of the binary reconstruction problem: `K` levels `a_k = -1 +
/// 2k/(K-1)` in `[-1, 1]`, `w ~ N(0, I_d)` from the seed, and `f(x) = sum_i (a_{x_i} - w_i)^2 -
/// sum_i min_k (a_k - w_i)^2`, so the minimum is 0 (the regret). `K = 2` is the binary problem.
#[derive(Clone, Debug)]
pub struct CategoricalReconstruction {
    w: Vec<f64>,
    k: usize,
    best: Vec<usize>,
    offset: f64,
}

impl CategoricalReconstruction {
    /// `K >= 2` categories, `d >= 1`, `w` drawn from `seed`.
    pub fn new(d: usize, k: usize, seed: u64) -> Result<Self, ProblemError> {
        check_dim("categorical-reconstruction", d, 1)?;
        if k < 2 {
            return Err(ProblemError::Invalid { name: "K (categories)", message: format!("{k}; accepted: >= 2") });
        }
        let mut rng = rng_from_seed(seed);
        let w: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let level = |j: usize| -1.0 + 2.0 * j as f64 / (k - 1) as f64;
        let best: Vec<usize> =
            w.iter().map(|&wi| (0..k).min_by(|&a, &b| (level(a) - wi).abs().total_cmp(&(level(b) - wi).abs())).unwrap_or(0)).collect();
        let offset = w.iter().zip(&best).map(|(&wi, &j)| (level(j) - wi).powi(2)).sum();
        Ok(CategoricalReconstruction { w, k, best, offset })
    }

    /// Number of categories `K`.
    pub fn categories(&self) -> usize {
        self.k
    }

    fn level(&self, j: usize) -> f64 {
        -1.0 + 2.0 * j as f64 / (self.k - 1) as f64
    }
}

/// MaxCut on an Erdős–Rényi graph `G(d, p)` with `p = min(1, 10/(d-1))` (expected degree 10)
/// drawn from the seed, unit weights, as a minimization: `f(x) = -#{(i, j) in E : x_i != x_j}`.
/// The optimum is unknown; `-|E|` is a lower bound.
#[derive(Clone, Debug)]
pub struct MaxCut {
    d: usize,
    edges: Vec<(u32, u32)>,
}

impl MaxCut {
    /// A random graph on `2 <= d <= 2^32` vertices from `seed`, in time `O(d + |E|)` by skipping
    /// geometrically distributed runs of non-edges (Batagelj & Brandes, "Efficient generation of
    /// large random networks", Phys. Rev. E 71, 2005, algorithm G(n, p)).
    pub fn new(d: usize, seed: u64) -> Result<Self, ProblemError> {
        check_dim("maxcut", d, 2)?;
        if d as u64 > 1 << 32 {
            return Err(ProblemError::Dimension { problem: "maxcut".into(), dim: d, expected: "in 2..=4294967296".into() });
        }
        gradfree_core::memory::check_elements(&format!("maxcut with dimension {d}"), 8 * d as u128)?;
        let p = (10.0 / (d - 1) as f64).min(1.0);
        let mut rng = rng_from_seed(seed);
        let mut edges = Vec::new();
        if p >= 1.0 {
            for v in 1..d {
                edges.extend((0..v).map(|w| (w as u32, v as u32)));
            }
            return Ok(MaxCut { d, edges });
        }
        let log_q = (-p).ln_1p();
        let (mut v, mut w) = (1usize, -1i64);
        while v < d {
            let r: f64 = rng.random();
            w += 1 + ((-r).ln_1p() / log_q).floor().min(1e18) as i64;
            while w >= v as i64 && v < d {
                w -= v as i64;
                v += 1;
            }
            if v < d {
                edges.push((w as u32, v as u32));
            }
        }
        Ok(MaxCut { d, edges })
    }

    /// The edges `(i, j)`, `i < j`.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }
}

impl Objective for OneMax {
    fn eval(&self, x: &[f64]) -> f64 {
        (self.d - x.iter().filter(|&&v| bit(v)).count()) as f64
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

impl Objective for LeadingOnes {
    fn eval(&self, x: &[f64]) -> f64 {
        (self.d - x.iter().take_while(|&&v| bit(v)).count()) as f64
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

impl Objective for CategoricalReconstruction {
    fn eval(&self, x: &[f64]) -> f64 {
        x.iter().zip(&self.w).map(|(&xi, &wi)| (self.level(category(xi, self.k)) - wi).powi(2)).sum::<f64>() - self.offset
    }
    fn dim(&self) -> Option<usize> {
        Some(self.w.len())
    }
}

impl Objective for MaxCut {
    fn eval(&self, x: &[f64]) -> f64 {
        -(self.edges.iter().filter(|&&(i, j)| bit(x[i as usize]) != bit(x[j as usize])).count() as f64)
    }
    fn dim(&self) -> Option<usize> {
        Some(self.d)
    }
}

fn binary_box(d: usize) -> Option<Bounds> {
    Some(Bounds::uniform(d, 0.0, 1.0).expect("d >= 1"))
}

/// The `Problem` of a classic pseudo-Boolean sanity check on `{0,1}^d` whose minimum 0 is at
/// all ones (OneMax, LeadingOnes).
macro_rules! all_ones_problem {
    ($ty:ty, $name:literal, $formula:literal) => {
        impl Problem for $ty {
            fn name(&self) -> &str {
                $name
            }
            fn dimension(&self) -> usize {
                self.d
            }
            fn formula(&self) -> &str {
                $formula
            }
            fn source(&self) -> &str {
                "classic sanity check"
            }
            fn domain(&self) -> Option<Bounds> {
                binary_box(self.d)
            }
            fn minimizer(&self) -> Option<Vec<f64>> {
                Some(vec![1.0; self.d])
            }
            fn minimum(&self) -> Option<f64> {
                Some(0.0)
            }
            fn categories(&self) -> Option<usize> {
                Some(2)
            }
        }
    };
}

all_ones_problem!(OneMax, "onemax", "d - sum_i x_i, x in {0,1}^d");
all_ones_problem!(LeadingOnes, "leadingones", "d - max{k : x_1 = ... = x_k = 1}, x in {0,1}^d");

impl Problem for CategoricalReconstruction {
    fn name(&self) -> &str {
        "categorical-reconstruction"
    }
    fn dimension(&self) -> usize {
        self.w.len()
    }
    fn formula(&self) -> &str {
        "sum_i (a_{x_i} - w_i)^2 - sum_i min_k (a_k - w_i)^2, a_k = -1 + 2k/(K-1), x in {0..K-1}^d, w ~ N(0, I)"
    }
    fn source(&self) -> &str {
        "categorical analogue of thesis sec. 3.7.3"
    }
    fn domain(&self) -> Option<Bounds> {
        Some(Bounds::uniform(self.w.len(), 0.0, (self.k - 1) as f64).expect("d >= 1"))
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        Some(self.best.iter().map(|&j| j as f64).collect())
    }
    fn minimum(&self) -> Option<f64> {
        Some(0.0)
    }
    fn categories(&self) -> Option<usize> {
        Some(self.k)
    }
}

impl Problem for MaxCut {
    fn name(&self) -> &str {
        "maxcut"
    }
    fn dimension(&self) -> usize {
        self.d
    }
    fn formula(&self) -> &str {
        "-#{(i,j) in E : x_i != x_j}, G(d, 10/(d-1)) from the seed, x in {0,1}^d"
    }
    fn source(&self) -> &str {
        "MaxCut on a random graph"
    }
    fn domain(&self) -> Option<Bounds> {
        binary_box(self.d)
    }
    fn minimizer(&self) -> Option<Vec<f64>> {
        None
    }
    fn minimum(&self) -> Option<f64> {
        None
    }
    fn categories(&self) -> Option<usize> {
        Some(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_by_hand() {
        let om = OneMax::new(4).unwrap();
        assert_eq!(om.eval(&[1.0, 0.0, 1.0, 0.0]), 2.0);
        let lo = LeadingOnes::new(4).unwrap();
        assert_eq!(lo.eval(&[1.0, 1.0, 0.0, 1.0]), 2.0);
        assert_eq!(lo.eval(&[1.0; 4]), 0.0);
        assert_eq!(category(2.6, 3), 2);
        assert_eq!(category(-4.0, 3), 0);
        assert_eq!(category(1.4, 3), 1);
    }

    #[test]
    fn categorical_reconstruction_regret() {
        let p = CategoricalReconstruction::new(30, 4, 3).unwrap();
        let x = p.minimizer().unwrap();
        assert!(p.eval(&x).abs() < 1e-12);
        // Changing any coordinate to another category cannot lower f.
        for i in 0..30 {
            for j in 0..4 {
                let mut y = x.clone();
                y[i] = j as f64;
                assert!(p.eval(&y) >= -1e-12);
            }
        }
        // K = 2 is the binary problem with the same w.
        let c2 = CategoricalReconstruction::new(20, 2, 5).unwrap();
        let b = crate::BinaryReconstruction::new(20, 5).unwrap();
        let y: Vec<f64> = (0..20).map(|i| (i % 3 == 0) as u8 as f64).collect();
        assert!((c2.eval(&y) - b.eval(&y)).abs() < 1e-12);
        assert!(CategoricalReconstruction::new(3, 1, 0).is_err());
    }

    #[test]
    fn maxcut_counts_cut_edges() {
        let g = MaxCut::new(60, 2).unwrap();
        let m = g.edges().len() as f64;
        // Expected degree 10: |E| about 300.
        assert!((200.0..400.0).contains(&m), "{m}");
        assert_eq!(g.eval(&[0.0; 60]), 0.0);
        let alternating: Vec<f64> = (0..60).map(|i| (i % 2) as f64).collect();
        let cut = g.edges().iter().filter(|(i, j)| (i % 2) != (j % 2)).count() as f64;
        assert_eq!(g.eval(&alternating), -cut);
        assert!(g.eval(&alternating) >= -m);
    }

    /// The skipping sampler draws G(d, p): over many seeds, each pair is an edge with probability
    /// p (checked on a small graph pair by pair), edges are distinct with i < j, and a graph of a
    /// million vertices (5e11 pairs: hours pair by pair) has its 5e6 expected edges.
    #[test]
    fn maxcut_graph_is_erdos_renyi() {
        let (d, seeds) = (12usize, 4000u64);
        let p = 10.0 / 11.0;
        let mut counts = vec![0u32; d * d];
        for seed in 0..seeds {
            let g = MaxCut::new(d, seed).unwrap();
            let mut seen = std::collections::HashSet::new();
            for &(i, j) in g.edges() {
                assert!(i < j && (j as usize) < d && seen.insert((i, j)));
                counts[i as usize * d + j as usize] += 1;
            }
        }
        let sd = (p * (1.0 - p) / seeds as f64).sqrt();
        for i in 0..d {
            for j in i + 1..d {
                let f = counts[i * d + j] as f64 / seeds as f64;
                assert!((f - p).abs() < 5.0 * sd, "pair ({i}, {j}): {f} vs {p}");
            }
        }
        let big = MaxCut::new(1_000_000, 1).unwrap();
        let m = big.edges().len() as f64;
        assert!((m - 5e6).abs() < 5.0 * 5e6f64.sqrt(), "{m}");
    }
}
