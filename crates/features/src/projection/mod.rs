//! Projections `x -> (w_1^T x, ..., w_N^T x)`: the linear part of every feature map. The
//! directions are either Gaussian in distribution (i.i.d., orthogonal, circulant, QMC through
//! `Phi^{-1}`: the frequencies of Bochner's theorem, eq. 6.1) or unit vectors on the sphere (SSF,
//! eq. 6.23), whose radial part the feature map supplies ([`Directions`]).
//!
//! [`METHODS`] is the registry: the one place a method's name, summary and reference are written.

pub mod circulant;
pub mod dense;
pub mod ssf;

use gradfree_core::derive_seed;
use rand::RngExt;
use serde::{Deserialize, Serialize};

pub use circulant::{CirculantProjection, CirculantScratch};
pub use dense::DenseProjection;
pub use ssf::{SsfFrequencies, SsfProjection, SsfRotation, SsfScratch};

use crate::FeatureError;

/// A way to make the `N` projection directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A registry entry.
#[derive(Clone, Copy, Debug)]
pub struct MethodInfo {
    /// The method.
    pub method: Method,
    /// Name on the command line and in Python.
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Where it is defined.
    pub reference: &'static str,
}

/// Every projection method.
pub const METHODS: &[MethodInfo] = &[
    MethodInfo {
        method: Method::Iid,
        name: "iid",
        summary: "i.i.d. Gaussian directions (random Fourier features; cos/sin pairs)",
        reference: "Rahimi & Recht, Random features for large-scale kernel machines, NIPS 2007",
    },
    MethodInfo {
        method: Method::Orf,
        name: "orf",
        summary: "orthogonal random features: Haar-orthogonal blocks with chi(d) row norms",
        reference: "Yu et al., Orthogonal random features, NIPS 2016",
    },
    MethodInfo {
        method: Method::Circulant,
        name: "circulant",
        summary: "signed circulant blocks applied by FFT, O(N log d) per row",
        reference: "Feng, Hu & Liao, Random feature mapping with signed circulant matrix projection, IJCAI 2015",
    },
    MethodInfo {
        method: Method::Halton,
        name: "halton",
        summary: "QMC: Halton points with random digit permutations through the Gaussian quantile",
        reference: "Avron et al., Quasi-Monte Carlo feature maps for shift-invariant kernels, JMLR 2016; Lyu, thesis eq. 5.21",
    },
    MethodInfo {
        method: Method::Sobol,
        name: "sobol",
        summary: "QMC: Sobol points with linear matrix scrambling and digital shift through the Gaussian quantile",
        reference: "Avron et al., JMLR 2016; Lyu, thesis eq. 5.21",
    },
    MethodInfo {
        method: Method::Lattice,
        name: "lattice",
        summary: "QMC: randomly shifted subgroup rank-1 lattice through the Gaussian quantile",
        reference: "Lyu, Yuan & Tsang, Subgroup-based rank-1 lattice QMC, NeurIPS 2020 (thesis eq. 5.14, 5.21)",
    },
    MethodInfo {
        method: Method::Ssf,
        name: "ssf",
        summary: "spherical structured features: DFT-row points on the sphere, projection by one FFT",
        reference: "Lyu, Spherical structured feature maps for kernel approximation, ICML 2017 (thesis ch. 6)",
    },
];

impl Method {
    /// Parses a registry name.
    pub fn parse(name: &str) -> Result<Method, FeatureError> {
        METHODS
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.method)
            .ok_or_else(|| FeatureError::invalid("method", name, METHODS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")))
    }

    /// The registry entry.
    pub fn info(&self) -> &'static MethodInfo {
        METHODS.iter().find(|m| m.method == *self).expect("every method is registered")
    }

    /// Registry name.
    pub fn name(&self) -> &'static str {
        self.info().name
    }
}

/// What the directions are, for the feature map's radial scaling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directions {
    /// Marginally `N(0, I_d)`.
    Gaussian,
    /// Unit vectors (uniform on the sphere asymptotically or in distribution).
    Unit,
}

/// A built projection.
#[derive(Clone, Debug)]
pub enum Projection {
    /// An explicit matrix.
    Dense(DenseProjection),
    /// Signed circulant blocks.
    Circulant(CirculantProjection),
    /// SSF.
    Ssf(SsfProjection),
}

/// Per-thread buffers of [`Projection::project_block`].
#[derive(Debug, Default)]
pub struct Scratch {
    x64: Vec<f64>,
    circulant: CirculantScratch,
    ssf: SsfScratch,
}

/// Input element types: `f32` and `f64`.
pub trait Real: Copy + Send + Sync + 'static {
    /// Widening conversion.
    fn to_f64(self) -> f64;
    /// Narrowing conversion.
    fn from_f64(v: f64) -> Self;
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// Options of the SSF method ([`Projection::build`] ignores them for the others).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsfOptions {
    /// How `Lambda` is chosen.
    pub frequencies: SsfFrequencies,
    /// Signs or Haar rotation.
    pub rotation: SsfRotation,
}

impl Projection {
    /// `n` projections of `d`-dimensional inputs by `method`, all randomness from `seed`.
    pub fn build(method: Method, d: usize, n: usize, ssf: SsfOptions, seed: u64) -> Result<Self, FeatureError> {
        Self::build_cancellable(method, d, n, ssf, seed, None)
    }

    /// [`Projection::build`], polling `cancel` during the one long step (Algorithm 12 for SSF).
    pub fn build_cancellable(
        method: Method,
        d: usize,
        n: usize,
        ssf: SsfOptions,
        seed: u64,
        cancel: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<Self, FeatureError> {
        if d == 0 {
            return Err(FeatureError::invalid("d", 0, ">= 1 input feature"));
        }
        if n == 0 {
            return Err(FeatureError::invalid("n_components", 0, ">= 1"));
        }
        FeatureError::check_memory(&format!("{n} projections of dimension {d}"), n as u128 * d as u128)?;
        let mut rng = gradfree_core::rng_from_seed(derive_seed(seed, 0xfea7));
        Ok(match method {
            Method::Iid => Projection::Dense(DenseProjection::iid(d, n, &mut rng)),
            Method::Orf => Projection::Dense(DenseProjection::orthogonal(d, n, &mut rng)),
            Method::Circulant => Projection::Circulant(CirculantProjection::new(d, n, &mut rng)),
            Method::Halton => Projection::Dense(DenseProjection::halton(d, n, rng.random())?),
            Method::Sobol => Projection::Dense(DenseProjection::sobol(d, n, rng.random())?),
            Method::Lattice => Projection::Dense(DenseProjection::lattice(d, n, rng.random())?),
            Method::Ssf => Projection::Ssf(SsfProjection::new_cancellable(d, n, ssf.frequencies, ssf.rotation, &mut rng, cancel)?),
        })
    }

    /// Input dimension.
    pub fn dim(&self) -> usize {
        match self {
            Projection::Dense(p) => p.dim(),
            Projection::Circulant(p) => p.dim(),
            Projection::Ssf(p) => p.dim(),
        }
    }

    /// Number of projections `N`.
    pub fn len(&self) -> usize {
        match self {
            Projection::Dense(p) => p.len(),
            Projection::Circulant(p) => p.len(),
            Projection::Ssf(p) => p.len(),
        }
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gaussian or unit directions.
    pub fn directions(&self) -> Directions {
        match self {
            Projection::Ssf(_) => Directions::Unit,
            _ => Directions::Gaussian,
        }
    }

    /// `out = scale * W x` for each of the `b` rows of `x` (`b x d` row-major; `out` is `b x N`).
    pub fn project_block<T: Real>(&self, x: &[T], scale: f64, out: &mut [f64], s: &mut Scratch) {
        let (d, n) = (self.dim(), self.len());
        match self {
            Projection::Dense(p) => {
                s.x64.clear();
                s.x64.extend(x.iter().map(|v| v.to_f64()));
                p.project_block(&s.x64, scale, out);
            }
            Projection::Circulant(p) => {
                for (row, o) in x.chunks_exact(d).zip(out.chunks_exact_mut(n)) {
                    p.project_row(|j| row[j].to_f64(), scale, o, &mut s.circulant);
                }
            }
            Projection::Ssf(p) => {
                for (row, o) in x.chunks_exact(d).zip(out.chunks_exact_mut(n)) {
                    p.project_row(|j| row[j].to_f64(), scale, o, &mut s.ssf);
                }
            }
        }
    }
}
