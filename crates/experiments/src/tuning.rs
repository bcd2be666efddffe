//! An offline hyper-parameter tuning task for batch Bayesian optimization, with the thesis'
//! CIFAR-100 network's mix of variable types (§4.7.3: an integer, continuous ones, categorical
//! ones) at a cost of about a second per evaluation: a random-feature classifier on real
//! Fashion-MNIST images (Debian `dataset-fashion-mnist`), tuned for validation error.
//!
//! Variables `x = (kernel, log2 features, log10 gamma factor, log10 ridge)`:
//! - `kernel` ∈ {0: Gaussian, 1: arc-cosine 0, 2: arc-cosine 1} (categorical);
//! - `log2 features` ∈ {7, …, 10} (integer): 128 to 1,024 SSF features;
//! - `log10 gamma factor` ∈ [−1.5, 1] (continuous): the Gaussian's γ as a multiple of
//!   scikit-learn's `"scale"` value (inactive for the arc-cosine kernels, as conditional
//!   hyper-parameters are);
//! - `log10 ridge` ∈ [−6, 0] (continuous): λ of the ridge classifier `(ZᵀZ + λ n I) W = ZᵀY`
//!   (one-vs-all, one-hot targets, prediction by the largest score).
//!
//! Training rows: the first `n_train` of the 60,000 training images; validation rows: the last
//! `n_val` of them (the test set is not used). `f(x)` is the validation error in percent.

use faer::Mat;
use faer::linalg::solvers::Solve;
use gradfree_bo::{Space, VarKind};
use gradfree_core::Objective;
use gradfree_features::{FeatureMap, FeatureSpec, Kernel, Method, gamma_scale};

use crate::{ExperimentError, Result};

/// The tuning task (see the module documentation).
pub struct FeatureTuning {
    d: usize,
    xtr: Vec<f64>,
    ytr: Vec<u32>,
    xva: Vec<f64>,
    yva: Vec<u32>,
    gamma0: f64,
    seed: u64,
}

impl FeatureTuning {
    /// Loads Fashion-MNIST and splits its training images; `seed` fixes the feature maps.
    pub fn load(n_train: usize, n_val: usize, seed: u64) -> Result<Self> {
        let data = gradfree_data::load_labeled("fashion-mnist")?;
        let (d, train) = (data.d, 60_000usize.min(data.n));
        if n_train == 0 || n_val == 0 || n_train + n_val > train {
            return Err(ExperimentError::Invalid(format!("n_train + n_val = {} must be in 2..={train}", n_train + n_val)));
        }
        let rows = |a: usize, b: usize| data.x[a * d..b * d].iter().map(|v| f64::from(*v)).collect::<Vec<f64>>();
        let xtr = rows(0, n_train);
        let gamma0 = gamma_scale(&xtr, d).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        Ok(FeatureTuning {
            d,
            xtr,
            ytr: data.labels[..n_train].to_vec(),
            xva: rows(train - n_val, train),
            yva: data.labels[train - n_val..train].to_vec(),
            gamma0,
            seed,
        })
    }

    /// The search space: categorical kernel, integer log2 features, two continuous logs.
    pub fn space() -> Space {
        Space::new(
            vec![0.0, 7.0, -1.5, -6.0],
            vec![2.0, 10.0, 1.0, 0.0],
            vec![VarKind::Categorical, VarKind::Integer, VarKind::Continuous, VarKind::Continuous],
        )
        .expect("valid space")
    }

    /// Validation error (percent) of the classifier with hyper-parameters `x`.
    pub fn error(&self, x: &[f64]) -> Result<f64> {
        let kernel = match x[0].round() as i64 {
            0 => Kernel::gaussian_gamma(self.gamma0 * 10f64.powf(x[2]))?,
            1 => Kernel::ArcCos { order: 0 },
            _ => Kernel::ArcCos { order: 1 },
        };
        let n_components = 1usize << (x[1].round().clamp(7.0, 10.0) as u32);
        let lambda = 10f64.powf(x[3]);
        let map = FeatureMap::new(FeatureSpec::new(kernel, Method::Ssf, n_components, self.seed), self.d)?;
        let (ztr, zva) = (map.transform(&self.xtr)?, map.transform(&self.xva)?);
        let m = map.dim_out();
        let (n, nv) = (self.ytr.len(), self.yva.len());
        let z = Mat::from_fn(n, m, |i, j| ztr[i * m + j]);
        let y = Mat::from_fn(n, 10, |i, c| if self.ytr[i] as usize == c { 1.0 } else { 0.0 });
        let mut a = z.transpose() * &z;
        for k in 0..m {
            a[(k, k)] += lambda * n as f64;
        }
        let b = z.transpose() * &y;
        let w = a.llt(faer::Side::Lower).map_err(|e| ExperimentError::Invalid(format!("ridge system: {e:?}")))?.solve(&b);
        let zv = Mat::from_fn(nv, m, |i, j| zva[i * m + j]);
        let scores = &zv * &w;
        let wrong = (0..nv)
            .filter(|&i| {
                let best = (0..10).max_by(|&p, &q| scores[(i, p)].total_cmp(&scores[(i, q)])).unwrap_or(0);
                best != self.yva[i] as usize
            })
            .count();
        Ok(100.0 * wrong as f64 / nv as f64)
    }
}

/// The objective for BO: errors (which would be a bug) count as a failed evaluation.
impl Objective for FeatureTuning {
    fn eval(&self, x: &[f64]) -> f64 {
        if x.len() != 4 || x.iter().any(|v| !v.is_finite()) {
            return f64::INFINITY;
        }
        self.error(x).unwrap_or(f64::INFINITY)
    }

    fn dim(&self) -> Option<usize> {
        Some(4)
    }
}
