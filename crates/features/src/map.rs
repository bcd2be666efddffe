//! Feature maps `Psi` with `Psi(x)^T Psi(z) ~ K(x, z)`: a projection (any [`LinearOp`]) followed
//! by the kernel's nonlinearity (thesis eq. 6.6).
//!
//! With `N` projections `p_i = w_i^T x` the output has `2N` (or `2NM`) values, in pairs:
//!
//! - Gaussian kernel, Gaussian directions (Rahimi & Recht's cos/sin pair, not cos + random
//!   offset): `Psi(x) = N^{-1/2} [cos(p_i / sigma), sin(p_i / sigma)]_i`.
//! - Gaussian kernel, SSF (eq. 6.10): unit directions `v_i` and `M` radii `rho_j = F^{-1}(t_j)`,
//!   `F` the chi(d) CDF, `t_j = j / (M + 1)`: `Psi(x) = (NM)^{-1/2} [cos(rho_j v_i^T x / sigma),
//!   sin(rho_j v_i^T x / sigma)]_{i, j}`. With the Haar rotation the radial rule is randomly
//!   shifted, `t_j = (j - 1 + U) / M`, which makes the estimate exactly unbiased.
//! - Arc-cosine kernel of order `b`, with `chi(s) = max(0, sign(s)) |s|^b` (Lemma 2): `Psi(x) =
//!   sqrt(c / N) [chi(p_i), chi(-p_i)]_i`, `c = 1` for Gaussian directions (Cho & Saul's features
//!   made bidirectional) and `c = C_b` for unit directions (eq. 6.21).
//!
//! Inputs are `f32` or `f64` rows; outputs have the input's type. Rows are mapped in blocks in
//! parallel (rayon), each worker with its own buffers; the result does not depend on the number
//! of threads.

use rayon::prelude::*;
use statrs::distribution::{Chi, ContinuousCDF};
use wide::f64x4;

use crate::kernel::{Kernel, arccos_constant};
use std::sync::Arc;

use crate::projection::{Directions, LinearOp, Method, Real, SsfOptions, SsfRotation, Workspace};
use crate::{FeatureError, check_rows};

/// Rows per parallel block.
const BLOCK: usize = 64;

/// Everything that defines a feature map (validated by [`FeatureMap::new`]).
///
/// Its keywords ([`crate::keywords`]) are read from these fields, with the command line's and
/// Python's names declared on them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FeatureSpec {
    /// The kernel to approximate (a Gaussian kernel's bandwidth is also given as `gamma =
    /// 1 / (2 sigma^2)`; an arc-cosine kernel's order is part of its name, `arccos1`).
    #[schemars(extend("x-aliases" = ["order"]))]
    pub kernel: Kernel,
    /// How the directions are made (in Python: the class, e.g. `SSFSampler`).
    #[schemars(extend("x-python" = ""))]
    pub method: Method,
    /// Output dimension. Features come in pairs (cos/sin, `chi(p)`/`chi(-p)`; `2M` per projection
    /// for SSF with the Gaussian kernel): a count that is not a multiple cuts the last group, which
    /// biases that projection's share of the estimate (scikit-learn's checks ask for 1 feature).
    #[schemars(extend("x-cli" = "dim-out"))]
    pub n_components: usize,
    /// Radial quadrature points `M` of SSF for the Gaussian kernel (eq. 6.10; the thesis uses 1).
    pub radial_points: usize,
    /// SSF options (their keywords are those of [`SsfOptions`]).
    pub ssf: SsfOptions,
    /// Seed of all randomness.
    #[schemars(extend("x-python" = "random_state"))]
    pub seed: u64,
}

impl FeatureSpec {
    /// `n_components` features of `kernel` by `method`, other options at their defaults.
    pub fn new(kernel: Kernel, method: Method, n_components: usize, seed: u64) -> Self {
        FeatureSpec { kernel, method, n_components, radial_points: 1, ssf: SsfOptions::default(), seed }
    }

    /// Radial points in use: `M` for SSF with the Gaussian kernel, otherwise 1.
    fn radial(&self) -> usize {
        match (self.method, self.kernel) {
            (Method::Ssf, Kernel::Gaussian { .. }) => self.radial_points,
            _ => 1,
        }
    }

    /// Number of projections `N` this spec needs.
    pub fn projections(&self) -> Result<usize, FeatureError> {
        self.kernel.check()?;
        if self.radial_points == 0 || self.radial_points > 1 << 16 {
            return Err(FeatureError::invalid("radial_points", self.radial_points, "in 1..=65536"));
        }
        if self.n_components == 0 {
            return Err(FeatureError::invalid("n_components", 0, ">= 1 (best a multiple of 2, or of 2M for SSF with M radial points)"));
        }
        Ok(self.n_components.div_ceil(2 * self.radial()))
    }
}

/// A feature map ready to transform rows.
#[derive(Clone, Debug)]
pub struct FeatureMap {
    spec: FeatureSpec,
    projection: Arc<dyn LinearOp>,
    /// Radii `rho_j` (SSF, Gaussian kernel), else `[1]`.
    radii: Vec<f64>,
    /// Multiplier of the projections (`1 / sigma` for the Gaussian kernel).
    inner_scale: f64,
    /// Multiplier of the outputs.
    outer_scale: f64,
}

impl FeatureMap {
    /// Builds the map of `spec` for inputs of dimension `d`.
    pub fn new(spec: FeatureSpec, d: usize) -> Result<Self, FeatureError> {
        Self::new_cancellable(spec, d, None)
    }

    /// [`FeatureMap::new`], polling `cancel` during Algorithm 12 (SSF), e.g. for Ctrl-C in Python.
    pub fn new_cancellable(spec: FeatureSpec, d: usize, cancel: Option<&(dyn Fn() -> bool + Sync)>) -> Result<Self, FeatureError> {
        let n = spec.projections()?;
        let projection = crate::projection::build_cancellable(spec.method, d, n, spec.ssf, spec.seed, cancel)?;
        Ok(Self::with_projection(spec, projection))
    }

    /// A map over a projection built elsewhere (e.g. a Hua lattice, or a fixed SSF point set);
    /// `spec.n_components` is kept if it fits the projection (cut groups), else set to all
    /// `2NM` features.
    pub fn with_projection(mut spec: FeatureSpec, projection: Box<dyn LinearOp>) -> Self {
        let projection: Arc<dyn LinearOp> = Arc::from(projection);
        let n = projection.dim_out();
        let d_eff = projection.sphere_dim();
        let m = spec.radial();
        if spec.n_components == 0 || spec.n_components.div_ceil(2 * m) != n {
            spec.n_components = 2 * n * m;
        }
        let unit = projection.directions() == Directions::Unit;
        let (radii, inner_scale, outer_scale) = match spec.kernel {
            Kernel::Gaussian { sigma } => {
                let radii = if unit {
                    let chi = Chi::new(d_eff as u64).expect("d >= 1");
                    let shift = if matches!(spec.ssf.rotation, SsfRotation::Haar) {
                        let mut rng = gradfree_core::rng_from_seed(gradfree_core::derive_seed(spec.seed, 0x7ad));
                        Some(rand::RngExt::random::<f64>(&mut rng))
                    } else {
                        None
                    };
                    (1..=m)
                        .map(|j| {
                            let t = match shift {
                                Some(u) => (j as f64 - 1.0 + u) / m as f64,
                                None => j as f64 / (m as f64 + 1.0),
                            };
                            chi.inverse_cdf(t.clamp(1e-12, 1.0 - 1e-12))
                        })
                        .collect()
                } else {
                    vec![1.0]
                };
                (radii, 1.0 / sigma, 1.0 / ((n * m) as f64).sqrt())
            }
            Kernel::ArcCos { order } => {
                let c = if unit { arccos_constant(order, d_eff) } else { 1.0 };
                (vec![1.0], 1.0, (c / n as f64).sqrt())
            }
        };
        FeatureMap { spec, projection, radii, inner_scale, outer_scale }
    }

    /// The (completed) spec.
    pub fn spec(&self) -> &FeatureSpec {
        &self.spec
    }

    /// The projection.
    pub fn projection(&self) -> &dyn LinearOp {
        self.projection.as_ref()
    }

    /// Input dimension.
    pub fn dim_in(&self) -> usize {
        self.projection.dim_in()
    }

    /// Output dimension.
    pub fn dim_out(&self) -> usize {
        self.spec.n_components
    }

    /// Maps `rows` rows of `x` (row-major) into `out` (`rows x dim_out`). Rejects a wrong shape or
    /// a non-finite entry (naming the row and column).
    pub fn transform_into<T: Real>(&self, x: &[T], out: &mut [T]) -> Result<(), FeatureError> {
        let rows = check_rows(x, self.dim_in())?;
        let q = self.dim_out();
        if out.len() != rows * q {
            return Err(FeatureError::BadInput(format!(
                "output buffer has {} values, expected rows x n_components = {}",
                out.len(),
                rows * q
            )));
        }
        self.map_checked(x, out);
        self.check_output(x, out)
    }

    /// Maps rows into a new vector.
    pub fn transform<T: Real>(&self, x: &[T]) -> Result<Vec<T>, FeatureError> {
        let rows = check_rows(x, self.dim_in())?;
        FeatureError::check_memory(&format!("{rows} x {} features", self.dim_out()), rows as u128 * self.dim_out() as u128)?;
        let mut out = vec![T::from_f64(0.0); rows * self.dim_out()];
        self.map_checked(x, &mut out);
        self.check_output(x, &out)?;
        Ok(out)
    }

    /// Refuses features that are not finite (finite data whose projections overflow once scaled
    /// by the kernel's `1 / sigma`), naming the row, its largest entry and the bandwidth: a
    /// feature matrix of NaN would be written or fitted on as if it were one.
    fn check_output<T: Real>(&self, x: &[T], out: &[T]) -> Result<(), FeatureError> {
        let q = self.dim_out().max(1);
        let Some(at) = out.iter().position(|v| !v.to_f64().is_finite()) else { return Ok(()) };
        let row = at / q;
        let d = self.dim_in().max(1);
        let largest = x[row * d..(row + 1) * d].iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max);
        let scale = match self.spec.kernel {
            Kernel::Gaussian { sigma } => format!(" and sigma = {sigma:e}"),
            _ => String::new(),
        };
        Err(FeatureError::BadInput(format!(
            "row {row}: its features are not finite (its largest |entry| is {largest:e}{scale}: the projections overflow); rescale the data{}",
            if scale.is_empty() { "" } else { " or use a larger sigma" }
        )))
    }

    /// The mapping itself, for inputs [`check_rows`] accepted and an `out` of the right length.
    fn map_checked<T: Real>(&self, x: &[T], out: &mut [T]) {
        let (d, q) = (self.dim_in(), self.dim_out());
        let n = self.projection.dim_out();
        let full = 2 * n * self.radii.len();
        out.par_chunks_mut(BLOCK * q).zip(x.par_chunks(BLOCK * d)).for_each_init(
            || (Workspace::default(), Vec::<f64>::new(), Vec::<f64>::new(), vec![T::from_f64(0.0); if full > q { full } else { 0 }]),
            |(ws, x64, p, whole), (o, xb)| {
                let b = xb.len() / d;
                p.resize(b * n, 0.0);
                let xb = T::as_f64_slice(xb).unwrap_or_else(|| {
                    x64.clear();
                    x64.extend(xb.iter().map(|v| v.to_f64()));
                    x64
                });
                self.projection.apply(xb, self.inner_scale, p, ws);
                for (prow, orow) in p.chunks_exact(n).zip(o.chunks_exact_mut(q)) {
                    if full == q {
                        self.nonlinearity(prow, orow);
                    } else {
                        self.nonlinearity(prow, whole);
                        orow.copy_from_slice(&whole[..q]);
                    }
                }
            },
        );
    }

    fn nonlinearity<T: Real>(&self, p: &[f64], out: &mut [T]) {
        let s = self.outer_scale;
        match self.spec.kernel {
            Kernel::Gaussian { .. } => {
                // Four projections at a time through SIMD sin/cos (wide's port of Agner Fog's
                // vector class library, within a few ulp of the scalar functions).
                let m = self.radii.len();
                for (j, &r) in self.radii.iter().enumerate() {
                    let rr = f64x4::from(r);
                    let mut chunks = p.chunks_exact(4);
                    let mut i = 0;
                    for c in &mut chunks {
                        let (sin, cos) = (f64x4::from([c[0], c[1], c[2], c[3]]) * rr).sin_cos();
                        let (sin, cos): ([f64; 4], [f64; 4]) = (sin.into(), cos.into());
                        for l in 0..4 {
                            let k = 2 * ((i + l) * m + j);
                            out[k] = T::from_f64(s * cos[l]);
                            out[k + 1] = T::from_f64(s * sin[l]);
                        }
                        i += 4;
                    }
                    for (l, &pi) in chunks.remainder().iter().enumerate() {
                        let (sin, cos) = (r * pi).sin_cos();
                        let k = 2 * ((i + l) * m + j);
                        out[k] = T::from_f64(s * cos);
                        out[k + 1] = T::from_f64(s * sin);
                    }
                }
            }
            Kernel::ArcCos { order } => {
                let chi = |v: f64| -> f64 { if v <= 0.0 { 0.0 } else { v.powi(order as i32) } };
                for (i, &pi) in p.iter().enumerate() {
                    out[2 * i] = T::from_f64(s * chi(pi));
                    out[2 * i + 1] = T::from_f64(s * chi(-pi));
                }
            }
        }
    }
}
