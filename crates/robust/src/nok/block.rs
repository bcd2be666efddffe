//! The neural optimization kernel block (thesis sec. 7.5): `T2` alternations of `T1` layers
//! (7.9) on every input and the orthogonal Procrustes R-step (7.16-7.17), a `T1 * T2`-layer
//! block whose output is either the code `y` (`N` values, the features of the NOK kernel
//! `k_{T,N}(x, x') = <y_T(x), y_T(x')> / N`) or the reconstruction `W y / N` (`d` values, a
//! same-shape denoiser).
//!
//! Fitting is the unsupervised alternating minimization of (7.16) from `Y = 0`, `R_0 = I`: the
//! Y-step runs `T1` layers on every row warm-started from the previous phase, the R-step sets
//! `R_{j+1}` by Procrustes. Each phase's `R_j` is kept, so a new input goes through the same
//! unrolled block: `T1` layers with `R_0`, then `T1` with `R_1`, ..., and is reconstructed with
//! `R_{T2}`. An unfitted block is the block with `R = I` throughout.
//!
//! Rows are independent, so they are processed in parallel; the result does not depend on the
//! thread count (the Procrustes sum runs in a fixed order).

use gradfree_core::{GfRng, rng_from_seed};
use gradfree_features::projection::SsfRotation;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::layer::{LayerScratch, NokLayer};
use super::prox::Activation;
use super::structure::Structure;
use crate::error::{Result, RobustError};

/// Rows per parallel task.
const CHUNK: usize = 16;

/// What a block is: its width, activation, depth, `B` and seed. Missing fields take the defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NokSpec {
    /// `N`, the code width; `0` means `2d` (or the nearest width the structure allows above it).
    /// Below `d` the block has rank `N` (`B` with orthonormal columns, `W^T W / N = I_N`).
    pub n_components: usize,
    /// The activation of Table 7.1 (`l0`, `l1`, `mcp`, `capped-l1`, `scad`, `mcp0`, `relu`).
    pub activation: String,
    /// Its `lambda > 0` (unused by `relu`).
    pub lambda: f64,
    /// Its `gamma` (MCP, capped l1, SCAD), or the activation's default.
    pub gamma: Option<f64>,
    /// `T1`, layers per phase (>= 1).
    pub layers: usize,
    /// `T2`, phases: Procrustes R-steps while fitting (>= 1).
    pub alternations: usize,
    /// How `B` is made.
    pub structure: Structure,
    /// The randomization of the Fourier structures (signs of SSF, or app. 10.26's phases).
    pub rotation: SsfRotation,
    /// Seed of `B`.
    pub seed: u64,
}

impl Default for NokSpec {
    fn default() -> Self {
        NokSpec {
            n_components: 0,
            activation: "l1".into(),
            lambda: 0.1,
            gamma: None,
            layers: 3,
            alternations: 2,
            structure: Structure::Auto,
            rotation: SsfRotation::Phase,
            seed: 0,
        }
    }
}

/// A block's saved form ([`NokBlock::state`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NokState {
    /// The spec.
    pub spec: NokSpec,
    /// Input dimension.
    pub d: usize,
    /// `R_0, ..., R_{T2}`.
    pub rotations: Vec<Vec<f64>>,
    /// The fit's objective trace.
    pub trace: Vec<f64>,
}

/// A block: `B`, the activation, and the rotations `R_0, ..., R_{T2}` of its phases.
#[derive(Debug)]
pub struct NokBlock {
    spec: NokSpec,
    layer: NokLayer,
    /// `R_0, ..., R_{T2}`, row-major `d x d` each.
    rotations: Vec<Vec<f64>>,
    /// Mean objective (7.16) per row while fitting: at `Y = 0`, after each layer and after each
    /// R-step (empty before `fit`).
    trace: Vec<f64>,
}

fn identity(d: usize) -> Vec<f64> {
    let mut r = vec![0.0; d * d];
    (0..d).for_each(|i| r[i * d + i] = 1.0);
    r
}

/// Largest input magnitude a block takes: products of two inputs summed over rows stay doubles.
pub const MAX_INPUT: f64 = 1e100;

impl NokBlock {
    /// Checks `spec` for inputs of dimension `d` and builds `B` (errors name the parameter).
    pub fn new(spec: NokSpec, d: usize) -> Result<Self> {
        let act = Activation::from_name(&spec.activation, spec.lambda, spec.gamma)?;
        if spec.layers == 0 || spec.layers > 1000 {
            return Err(RobustError::invalid("layers", spec.layers, "an integer in 1..=1000"));
        }
        if spec.alternations == 0 || spec.alternations > 1000 {
            return Err(RobustError::invalid("alternations", spec.alternations, "an integer in 1..=1000"));
        }
        if d == 0 {
            return Err(RobustError::bad("the input has no features (d = 0)"));
        }
        let n = if spec.n_components == 0 { default_width(spec.structure, d) } else { spec.n_components };
        // N < d is a block of rank N (orthonormal columns of B; see `layer`'s module doc).
        // Sizes before anything is allocated: `B` (at most dense, d x N, with its transpose) and
        // the rotations' d x d matrices.
        use gradfree_core::memory::product;
        let (d128, n128) = (d as u128, n as u128);
        let mut f = gradfree_core::memory::Footprint::new();
        f.f64s("n_components", n, format!("B of {d} x {n}"), product(&[3, d128, n128]));
        f.f64s(
            "alternations",
            spec.alternations,
            format!("{} rotations of {d} x {d}", spec.alternations + 1),
            product(&[spec.alternations as u128 + 2, d128, d128]),
        );
        f.check()?;
        let mut rng: GfRng = rng_from_seed(spec.seed);
        let b = spec.structure.build(d, n, spec.rotation, &mut rng)?;
        let layer = NokLayer::new(b, act)?;
        let rotations = vec![identity(d); spec.alternations + 1];
        Ok(NokBlock { spec, layer, rotations, trace: Vec::new() })
    }

    /// What a block is, to save: `B` is rebuilt from the spec's seed.
    pub fn state(&self) -> NokState {
        NokState { spec: self.spec.clone(), d: self.dim(), rotations: self.rotations.clone(), trace: self.trace.clone() }
    }

    /// The block [`NokBlock::state`] saved; an inconsistent state (shapes, a rotation that is not
    /// orthogonal) is an error.
    pub fn from_state(state: NokState) -> Result<Self> {
        let NokState { spec, d, rotations, trace } = state;
        let mut block = Self::new(spec, d)?;
        if rotations.len() != block.rotations.len() {
            return Err(RobustError::bad(format!(
                "{} rotations for {} phases (expected T2 + 1)",
                rotations.len(),
                block.spec.alternations
            )));
        }
        for r in &rotations {
            block.layer.set_rotation(r.clone())?;
        }
        block.rotations = rotations;
        block.trace = trace;
        Ok(block)
    }

    /// The spec.
    pub fn spec(&self) -> &NokSpec {
        &self.spec
    }

    /// Input dimension `d`.
    pub fn dim(&self) -> usize {
        self.layer.dim()
    }

    /// Code width `N` (the structure may round the requested width up).
    pub fn width(&self) -> usize {
        self.layer.width()
    }

    /// `R_0, ..., R_{T2}`.
    pub fn rotations(&self) -> &[Vec<f64>] {
        &self.rotations
    }

    /// The mean objective per row while fitting (see the type's doc).
    pub fn fit_trace(&self) -> &[f64] {
        &self.trace
    }

    /// The layer (with the last rotation set).
    pub fn layer(&self) -> &NokLayer {
        &self.layer
    }

    fn check_rows(&self, x: &[f64], what: &str) -> Result<usize> {
        let d = self.dim();
        if x.is_empty() || !x.len().is_multiple_of(d) {
            return Err(RobustError::bad(format!("{what} has {} values, not rows of d = {d} features", x.len())));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(RobustError::bad(format!("{what}[{}, {}] = {}: inputs must be finite", i / d, i % d, x[i])));
        }
        // The fit sums products of inputs over rows and features (the Procrustes matrix X^T Y);
        // beyond 1e100 they overflow a double.
        if let Some(i) = x.iter().position(|v| v.abs() > MAX_INPUT) {
            return Err(RobustError::bad(format!(
                "{what}[{}, {}] = {:e}: inputs must be at most {MAX_INPUT:e} in magnitude (the block's products would overflow); standardize the rows",
                i / d,
                i % d,
                x[i]
            )));
        }
        let (rows, n) = (x.len() / d, self.width());
        let codes = gradfree_core::memory::product(&[3, rows as u128, n as u128]);
        gradfree_core::memory::check_param_bytes("n_components", n, &format!("the codes of {rows} rows of width {n}"), codes * 8)?;
        Ok(rows)
    }

    /// The injections `c = W^T x = sqrt(d) B^T r x` of all rows (`rows x N`), once per phase.
    fn inject_all(layer: &NokLayer, r: &[f64], x: &[f64]) -> Vec<f64> {
        let (d, n) = (layer.dim(), layer.width());
        let mut c = vec![0.0; x.len() / d * n];
        c.par_chunks_mut(CHUNK * n).zip(x.par_chunks(CHUNK * d)).for_each_init(LayerScratch::default, |s, (cb, xb)| {
            for (cr, xr) in cb.chunks_exact_mut(n).zip(xb.chunks_exact(d)) {
                layer.inject_with(r, xr, cr, s);
            }
        });
        c
    }

    /// Runs `layers` layers (7.9) on all rows from the codes `y` (in place), given their
    /// injections `c`: `B`'s cost per layer only.
    fn steps(layer: &NokLayer, c: &[f64], y: &mut [f64], layers: usize) {
        let n = layer.width();
        y.par_chunks_mut(CHUNK * n).zip(c.par_chunks(CHUNK * n)).for_each_init(
            || (LayerScratch::default(), vec![0.0; n]),
            |(s, next), (yb, cb)| {
                for (yr, cr) in yb.chunks_exact_mut(n).zip(cb.chunks_exact(n)) {
                    for _ in 0..layers {
                        layer.step_injected(cr, yr, next, s);
                        yr.copy_from_slice(next);
                    }
                }
            },
        );
    }

    /// Mean objective (7.8) over the rows.
    fn mean_objective(layer: &NokLayer, x: &[f64], y: &[f64]) -> f64 {
        let (d, n) = (layer.dim(), layer.width());
        let sums: Vec<f64> = y
            .par_chunks(CHUNK * n)
            .zip(x.par_chunks(CHUNK * d))
            .map_init(LayerScratch::default, |s, (yb, xb)| {
                yb.chunks_exact(n).zip(xb.chunks_exact(d)).map(|(yr, xr)| layer.objective(xr, yr, s)).sum()
            })
            .collect();
        sums.iter().sum::<f64>() / (x.len() / d) as f64
    }

    /// Fits the rotations by the alternating minimization of (7.16) on the rows of `x`
    /// (row-major, `d` per row); the mean objective never increases along [`NokBlock::fit_trace`].
    pub fn fit(&mut self, x: &[f64]) -> Result<()> {
        self.fit_until(x, &|| false).map(|_| ())
    }

    /// [`NokBlock::fit`] that asks `stop` before every layer step and returns `Ok(false)` as soon as
    /// it says yes (the block then holds the alternations done so far), `Ok(true)` once complete:
    /// how a front end lets Ctrl-C end a long fit.
    pub fn fit_until(&mut self, x: &[f64], stop: &dyn Fn() -> bool) -> Result<bool> {
        let rows = self.check_rows(x, "X")?;
        let (d, n) = (self.dim(), self.width());
        let mut y = vec![0.0; rows * n];
        self.rotations = vec![identity(d)];
        self.layer.set_rotation(identity(d))?;
        self.trace = vec![Self::mean_objective(&self.layer, x, &y)];
        let mut s = LayerScratch::default();
        for _ in 0..self.spec.alternations {
            let c = Self::inject_all(&self.layer, self.layer.rotation(), x);
            for _ in 0..self.spec.layers {
                if stop() {
                    return Ok(false);
                }
                Self::steps(&self.layer, &c, &mut y, 1);
                self.trace.push(Self::mean_objective(&self.layer, x, &y));
            }
            self.layer.procrustes_step(x, &y, &mut s)?;
            self.rotations.push(self.layer.rotation().to_vec());
            self.trace.push(Self::mean_objective(&self.layer, x, &y));
        }
        Ok(true)
    }

    /// The codes `y_{T1 T2}` of the rows of `x` (`rows x N`, row-major): the unrolled block.
    pub fn codes(&self, x: &[f64]) -> Result<Vec<f64>> {
        let rows = self.check_rows(x, "X")?;
        let mut y = vec![0.0; rows * self.width()];
        for r in &self.rotations[..self.spec.alternations] {
            let c = Self::inject_all(&self.layer, r, x);
            Self::steps(&self.layer, &c, &mut y, self.spec.layers);
        }
        Ok(y)
    }

    /// The denoised rows `W y / N` with the last rotation (`rows x d`).
    pub fn transform(&self, x: &[f64]) -> Result<Vec<f64>> {
        let y = self.codes(x)?;
        let (d, n) = (self.dim(), self.width());
        let mut out = vec![0.0; y.len() / n * d];
        out.par_chunks_mut(CHUNK * d).zip(y.par_chunks(CHUNK * n)).for_each_init(LayerScratch::default, |s, (ob, yb)| {
            for (o, yr) in ob.chunks_exact_mut(d).zip(yb.chunks_exact(n)) {
                self.layer.reconstruct(yr, o, s);
            }
        });
        Ok(out)
    }

    /// The NOK kernel matrix `k_{T,N}(x_i, z_j) = <y(x_i), y(z_j)> / N` (7.6 at finite width,
    /// thesis sec. 7.5), `rows(x) x rows(z)`, row-major.
    pub fn kernel(&self, x: &[f64], z: &[f64]) -> Result<Vec<f64>> {
        let (yx, yz) = (self.codes(x)?, self.codes(z)?);
        let n = self.width();
        let (a, b) = (yx.len() / n, yz.len() / n);
        let mut k = vec![0.0; a * b];
        faer::linalg::matmul::matmul(
            faer::MatMut::from_row_major_slice_mut(&mut k, a, b),
            faer::Accum::Replace,
            faer::MatRef::from_row_major_slice(&yx, a, n),
            faer::MatRef::from_row_major_slice(&yz, b, n).transpose(),
            1.0 / n as f64,
            faer::Par::Seq,
        );
        Ok(k)
    }
}

/// `2d`, rounded to what the structure accepts (a multiple of `d` for blocks of orthogonal
/// matrices, an even number `>= d + 2` for the Fourier ones).
fn default_width(structure: Structure, d: usize) -> usize {
    match structure {
        Structure::Auto | Structure::Orthogonal => 2 * d,
        Structure::Ssf | Structure::Subgroup => (2 * d).max(d + 2 + d % 2),
    }
}
