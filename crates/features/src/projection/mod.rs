//! Projections `x -> (w_1^T x, ..., w_N^T x)`: the linear part of every feature map, as
//! [`LinearOp`]s that apply `W` and its adjoint `W^T` to blocks of rows. The directions are either
//! Gaussian in distribution (i.i.d., orthogonal, circulant, QMC through `Phi^{-1}`: the
//! frequencies of Bochner's theorem, eq. 6.1) or unit vectors on the sphere (SSF, eq. 6.23), whose
//! radial part the feature map supplies ([`Directions`]). The adjoint is what a layer built on a
//! projection needs to pass gradients back (`dL/dx = W^T dL/d(Wx)`).
//!
//! [`METHODS`] is the registry: the one place a method's name, summary and reference are written.

pub mod circulant;
pub mod dense;
pub mod op;
pub mod ssf;

use gradfree_core::derive_seed;
use rand::RngExt;
use serde::{Deserialize, Serialize};

pub use circulant::{CirculantProjection, CirculantScratch};
pub use dense::DenseProjection;
pub use op::{Directions, LinearOp, Workspace, dense_rows};
pub use ssf::{SsfFrequencies, SsfProjection, SsfRotation, SsfScratch};

use crate::FeatureError;

/// A way to make the `N` projection directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// i.i.d. Gaussian.
    Iid,
    /// Orthogonal random features.
    Orf,
    /// Signed circulant.
    Circulant,
    /// Randomized Halton through `Phi^{-1}`.
    Halton,
    /// Scrambled Sobol through `Phi^{-1}`.
    Sobol,
    /// Randomly shifted subgroup rank-1 lattice through `Phi^{-1}`.
    Lattice,
    /// Spherical structured features.
    Ssf,
}

/// A registry entry: a projection method with its name (in the CLI and Python), summary and
/// source.
pub type MethodInfo = gradfree_core::registry::Choice<Method>;

/// Every projection method.
pub const METHODS: &[MethodInfo] = &[
    MethodInfo {
        value: Method::Iid,
        name: "iid",
        summary: "i.i.d. Gaussian directions (random Fourier features; cos/sin pairs)",
        source: "Rahimi & Recht, Random features for large-scale kernel machines, NIPS 2007",
    },
    MethodInfo {
        value: Method::Orf,
        name: "orf",
        summary: "orthogonal random features: Haar-orthogonal blocks with chi(d) row norms",
        source: "Yu et al., Orthogonal random features, NIPS 2016",
    },
    MethodInfo {
        value: Method::Circulant,
        name: "circulant",
        summary: "signed circulant blocks applied by FFT, O(N log d) per row",
        source: "Feng, Hu & Liao, Random feature mapping with signed circulant matrix projection, IJCAI 2015",
    },
    MethodInfo {
        value: Method::Halton,
        name: "halton",
        summary: "QMC: Halton points with random digit permutations through the Gaussian quantile",
        source: "Avron et al., Quasi-Monte Carlo feature maps for shift-invariant kernels, JMLR 2016; Lyu, thesis eq. 5.21",
    },
    MethodInfo {
        value: Method::Sobol,
        name: "sobol",
        summary: "QMC: Sobol points with linear matrix scrambling and digital shift through the Gaussian quantile",
        source: "Avron et al., JMLR 2016; Lyu, thesis eq. 5.21",
    },
    MethodInfo {
        value: Method::Lattice,
        name: "lattice",
        summary: "QMC: randomly shifted subgroup rank-1 lattice through the Gaussian quantile",
        source: "Lyu, Yuan & Tsang, Subgroup-based rank-1 lattice QMC, NeurIPS 2020 (thesis eq. 5.14, 5.21)",
    },
    MethodInfo {
        value: Method::Ssf,
        name: "ssf",
        summary: "spherical structured features: DFT-row points on the sphere, projection by one FFT",
        source: "Lyu, Spherical structured feature maps for kernel approximation, ICML 2017 (thesis ch. 6)",
    },
];

impl Method {
    /// Parses a registry name.
    pub fn parse(name: &str) -> Result<Method, FeatureError> {
        MethodInfo::parse(METHODS, name).ok_or_else(|| FeatureError::invalid("method", name, gradfree_core::registry::names(METHODS)))
    }

    /// The registry entry.
    pub fn info(&self) -> &'static MethodInfo {
        MethodInfo::of(METHODS, *self)
    }

    /// Registry name.
    pub fn name(&self) -> &'static str {
        self.info().name
    }
}

/// Input element types: `f32` and `f64`.
pub trait Real: Copy + Send + Sync + 'static {
    /// Widening conversion.
    fn to_f64(self) -> f64;
    /// Narrowing conversion.
    fn from_f64(v: f64) -> Self;
    /// The slice itself when the type is `f64` (no copy needed), else `None`.
    fn as_f64_slice(x: &[Self]) -> Option<&[f64]>;
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
    fn as_f64_slice(x: &[Self]) -> Option<&[f64]> {
        Some(x)
    }
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn as_f64_slice(_: &[Self]) -> Option<&[f64]> {
        None
    }
}

/// Options of the SSF method ([`build`] ignores them for the others).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SsfOptions {
    /// How `Lambda` is chosen.
    pub frequencies: SsfFrequencies,
    /// Signs or Haar rotation.
    pub rotation: SsfRotation,
}

/// `n` projections of `d`-dimensional inputs by `method`, all randomness from `seed`.
pub fn build(method: Method, d: usize, n: usize, ssf: SsfOptions, seed: u64) -> Result<Box<dyn LinearOp>, FeatureError> {
    build_cancellable(method, d, n, ssf, seed, None)
}

/// [`build`], polling `cancel` during the one long step (Algorithm 12 for SSF).
pub fn build_cancellable(
    method: Method,
    d: usize,
    n: usize,
    ssf: SsfOptions,
    seed: u64,
    cancel: Option<&(dyn Fn() -> bool + Sync)>,
) -> Result<Box<dyn LinearOp>, FeatureError> {
    if d == 0 {
        return Err(FeatureError::invalid("d", 0, ">= 1 input feature"));
    }
    if n == 0 {
        return Err(FeatureError::invalid("n_components", 0, ">= 1"));
    }
    FeatureError::check_memory(&format!("{n} projections of dimension {d}"), n as u128 * d as u128)?;
    let mut rng = gradfree_core::rng_from_seed(derive_seed(seed, 0xfea7));
    Ok(match method {
        Method::Iid => Box::new(DenseProjection::iid(d, n, &mut rng)),
        Method::Orf => Box::new(DenseProjection::orthogonal(d, n, &mut rng)),
        Method::Circulant => Box::new(CirculantProjection::new(d, n, &mut rng)),
        Method::Halton => Box::new(DenseProjection::halton(d, n, rng.random())?),
        Method::Sobol => Box::new(DenseProjection::sobol(d, n, rng.random())?),
        Method::Lattice => Box::new(DenseProjection::lattice(d, n, rng.random())?),
        Method::Ssf => Box::new(SsfProjection::new_cancellable(d, n, ssf.frequencies, ssf.rotation, &mut rng, cancel)?),
    })
}
