//! Fixed or structured denoisers in front of a network's first learnable layer: the 3 x 3 mean
//! and median filters of the thesis' sec. 7.6 baselines (after Xie et al. 2019, "Feature
//! denoising for improving adversarial robustness") and the neural optimization kernel block
//! (thesis sec. 7.3-7.6) as a same-shape denoiser, on burn tensors so gradients flow through
//! all of them (training, and white-box FGSM).
//!
//! How the NOK block sees an image (the thesis leaves it open; errata a.7): at the input, each
//! non-overlapping `p x p` patch of the one-channel image is a vector `x` in `R^{p^2}`; after the
//! first convolution, each pixel's channel vector is one. Per vector, `T` layers of (7.9) from
//! `y_0 = 0` with `W = sqrt(d) R^T B` (`B` from [`crate::nok::Structure`], materialized as a
//! dense `d x N` matrix: burn has no FFT, and at these `d` a batched matrix product over all
//! patches is cheap), and the output is the
//! reconstruction `W y_T / N` (7.8). `R` is learned with the task loss through the Cayley map
//! (7.15): `R = cayley(theta)` is made for each step and its gradient mapped back to `theta`
//! ([`crate::nok::cayley::cayley_grad`]), so `theta` sits in the flat parameter vector with the
//! network's weights.

use burn::prelude::*;
use burn::tensor::TensorData;
use burn::tensor::activation::relu;
use burn::tensor::module::{avg_pool2d, unfold4d};
use burn::tensor::ops::{AvgPoolOptions, UnfoldOptions};
use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_features::projection::{SsfRotation, dense_rows};
use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};
use crate::nok::Structure;
use crate::nok::cayley::{cayley, cayley_grad, n_params};

/// Where the NOK block sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NokAt {
    /// On the input's patches.
    Input,
    /// On the channel vectors after the first convolution (CNN only).
    Conv1,
    /// Both (the thesis' "before and after the first learnable Conv2D layer").
    Both,
}

/// The NOK block's settings. Missing fields take the defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NokPlug {
    /// Where.
    pub at: NokAt,
    /// Patch side `p` at the input (`d = p^2`); the image side must be a multiple.
    pub patch: usize,
    /// `l1` (soft threshold), `l0` (hard threshold) or `relu`.
    pub activation: String,
    /// `lambda` relative to `sqrt(d)`, the RMS of the codes `W^T x` of unit-variance inputs:
    /// the soft threshold is `lambda sqrt(d)`; the hard threshold is at `lambda sqrt(d)` too.
    /// Default 0.5, from a pilot (Fashion-MNIST CNN, 12,000 images, 6 epochs, one seed; test
    /// accuracy clean / under Gaussian noise of std 1.0): vanilla 0.883 / 0.535, lambda 0.1
    /// 0.879 / 0.521, 0.25 0.877 / 0.599, 0.5 0.874 / 0.682, 1.0 0.864 / 0.713. The other
    /// settings were varied one at a time from the default (`benches/nok/pilot.py`, user
    /// guide, docs/input-noise.md): `l0` loses most of the gain under noise, `layers` 1-4 and
    /// `relu` differ by a point or two, `width` 4 denoises less; patches of 2 x 2 denoise less,
    /// 7 x 7 up to the whole image no better than 4 x 4 over four seeds, at up to twice the cost.
    pub lambda: f64,
    /// `N = width * d`.
    pub width: usize,
    /// `T`, layers (7.9) per block.
    pub layers: usize,
    /// Learn `R` through the Cayley map (else `R = I`).
    pub learn_rotation: bool,
    /// How `B` is made.
    pub structure: Structure,
}

impl Default for NokPlug {
    fn default() -> Self {
        NokPlug {
            at: NokAt::Input,
            patch: 4,
            activation: "l1".into(),
            lambda: 0.5,
            width: 2,
            layers: 2,
            learn_rotation: true,
            structure: Structure::Auto,
        }
    }
}

/// What sits in front of the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FrontSpec {
    /// 3 x 3 mean filter on the input (borders average the pixels inside the image).
    Mean,
    /// 3 x 3 median filter on the input (borders pad with 0, the mean pixel).
    Median,
    /// The NOK block.
    Nok(NokPlug),
}

impl FrontSpec {
    /// Checks the settings for images of side `side` and a network with (`conv1 = Some(c)`) or
    /// without a first convolution of `c` channels.
    pub fn check(&self, side: Option<usize>, conv1: Option<usize>) -> Result<()> {
        let Some(side) = side else {
            return Err(RobustError::invalid("front", self.name(), "square images (the filters and the block work on image patches)"));
        };
        let FrontSpec::Nok(p) = self else { return Ok(()) };
        if !["l1", "l0", "relu"].contains(&p.activation.as_str()) {
            return Err(RobustError::invalid("block activation", p.activation.clone(), "l1, l0 or relu"));
        }
        if !(p.lambda.is_finite() && p.lambda > 0.0) {
            return Err(RobustError::invalid("block lambda", p.lambda, "a finite number > 0"));
        }
        if p.layers == 0 || p.layers > 50 {
            return Err(RobustError::invalid("block layers", p.layers, "an integer in 1..=50"));
        }
        if p.width == 0 || p.width > 16 {
            return Err(RobustError::invalid("block width", p.width, "an integer in 1..=16 (N = width * d)"));
        }
        if p.at != NokAt::Conv1 && (p.patch < 2 || !side.is_multiple_of(p.patch)) {
            return Err(RobustError::invalid("block patch", p.patch, format!("a divisor >= 2 of the image side {side}")));
        }
        if p.at != NokAt::Input && conv1.is_none() {
            return Err(RobustError::invalid("block at", "conv1", "a model with convolutions (cnn)"));
        }
        Ok(())
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            FrontSpec::Mean => "mean",
            FrontSpec::Median => "median",
            FrontSpec::Nok(_) => "nok",
        }
    }
}

/// One NOK block at run time: `B` (`d x N`, row-major) and `theta`.
#[derive(Clone, Debug)]
struct PlugBlock {
    d: usize,
    n: usize,
    b: Vec<f32>,
    theta: Vec<f32>,
}

impl PlugBlock {
    fn new(d: usize, spec: &NokPlug, seed: u64) -> Result<Self> {
        let n = spec.width * d;
        let op = spec.structure.build(d, n, SsfRotation::Phase, &mut rng_from_seed(seed))?;
        let n = op.dim_out();
        // B (d x N, row-major) is the transpose of the operator's N x d matrix.
        let bt = dense_rows(op.as_ref());
        let b: Vec<f32> = (0..d * n).map(|k| bt[(k % n) * d + k / n] as f32).collect();
        let theta = if spec.learn_rotation { vec![0.0; n_params(d)] } else { Vec::new() };
        Ok(PlugBlock { d, n, b, theta })
    }
}

/// A front at run time, for one network.
#[derive(Clone, Debug)]
pub struct Front {
    spec: FrontSpec,
    side: usize,
    blocks: Vec<PlugBlock>,
}

/// The rotations made for one forward pass, whose gradients become `theta`'s.
#[derive(Default)]
pub struct FrontPass {
    leaves: Vec<Tensor<2>>,
}

impl Front {
    /// The front of `spec` for images of side `side` (a first convolution of `conv1` channels,
    /// if any), its `B`s seeded by `seed`.
    pub fn new(spec: &FrontSpec, side: usize, conv1: Option<usize>, seed: u64) -> Result<Self> {
        spec.check(Some(side), conv1)?;
        let mut blocks = Vec::new();
        if let FrontSpec::Nok(p) = spec {
            if p.at != NokAt::Conv1 {
                blocks.push(PlugBlock::new(p.patch * p.patch, p, derive_seed(seed, 0xb10c))?);
            }
            if p.at != NokAt::Input {
                blocks.push(PlugBlock::new(conv1.expect("checked"), p, derive_seed(seed, 0xb10d))?);
            }
        }
        Ok(Front { spec: spec.clone(), side, blocks })
    }

    /// Number of trained parameters (the `theta`s).
    pub fn n_params(&self) -> usize {
        self.blocks.iter().map(|b| b.theta.len()).sum()
    }

    /// The `theta`s, flat.
    pub fn params(&self) -> Vec<f32> {
        self.blocks.iter().flat_map(|b| b.theta.iter().copied()).collect()
    }

    /// Replaces the `theta`s.
    pub fn set_params(&mut self, flat: &[f32]) {
        let mut pos = 0;
        for b in &mut self.blocks {
            let k = b.theta.len();
            b.theta.copy_from_slice(&flat[pos..pos + k]);
            pos += k;
        }
    }

    fn block(&self, i: usize, x: Tensor<2>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<2>> {
        let FrontSpec::Nok(p) = &self.spec else { unreachable!("blocks exist for the NOK front only") };
        let blk = &self.blocks[i];
        let (d, n) = (blk.d, blk.n);
        let device = x.device();
        let b = Tensor::<2>::from_data(TensorData::new(blk.b.clone(), [d, n]), &device);
        // Rows: x^T R^T is (R x)^T; W^T x = sqrt(d) B^T R x, as a row sqrt(d) x^T R^T B.
        let rt = if blk.theta.is_empty() {
            None
        } else {
            let theta: Vec<f64> = blk.theta.iter().map(|&v| f64::from(v)).collect();
            let r: Vec<f32> = cayley(&theta, d)?.into_iter().map(|v| v as f32).collect();
            let mut r = Tensor::<2>::from_data(TensorData::new(r, [d, d]), &device);
            if let Some(pass) = pass.as_mut() {
                r = r.require_grad();
                pass.leaves.push(r.clone());
            }
            Some(r)
        };
        let rx = match &rt {
            Some(r) => x.matmul(r.clone().transpose()),
            None => x,
        };
        let sd = (d as f64).sqrt() as f32;
        let c = rx.matmul(b.clone()).mul_scalar(sd);
        let t = (p.lambda * (d as f64).sqrt()) as f32;
        let h = |z: Tensor<2>| match p.activation.as_str() {
            "l1" => relu(z.clone().sub_scalar(t)) - relu(z.neg().sub_scalar(t)),
            "l0" => z.clone() * z.abs().greater_elem(t).float(),
            _ => relu(z),
        };
        let bt = b.clone().transpose();
        let mut y = h(c.clone());
        for _ in 1..p.layers {
            let back = y.clone().matmul(bt.clone()).matmul(b.clone()).mul_scalar(d as f32 / n as f32);
            y = h(c.clone() + y - back);
        }
        // W y / N as a row: (sqrt(d)/N) y^T B^T R.
        let out = y.matmul(bt).mul_scalar(sd / n as f32);
        Ok(match rt {
            Some(r) => out.matmul(r),
            None => out,
        })
    }

    /// The front applied to the input rows `[batch, side^2]`.
    pub fn input(&self, x: Tensor<2>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<2>> {
        let (bsz, s) = (x.dims()[0], self.side);
        match &self.spec {
            FrontSpec::Mean => {
                let img = x.reshape([bsz, 1, s, s]);
                let opts = AvgPoolOptions {
                    kernel_size: [3, 3],
                    stride: [1, 1],
                    padding: [(1, 1), (1, 1)],
                    count_include_pad: false,
                    ceil_mode: false,
                };
                Ok(avg_pool2d(img, opts).reshape([bsz, s * s]))
            }
            FrontSpec::Median => {
                let img = x.reshape([bsz, 1, s, s]);
                let cols = unfold4d(img, [3, 3], UnfoldOptions::new([1, 1], [1, 1], [1, 1])); // [b, 9, s*s]
                let (_, idx) = cols.clone().sort_with_indices(1);
                Ok(cols.gather(1, idx.narrow(1, 4, 1)).reshape([bsz, s * s]))
            }
            FrontSpec::Nok(p) if p.at != NokAt::Conv1 => {
                let q = s / p.patch;
                let pp = p.patch;
                let patches = x.reshape([bsz, q, pp, q, pp]).permute([0, 1, 3, 2, 4]).reshape([bsz * q * q, pp * pp]);
                let out = self.block(0, patches, pass)?;
                Ok(out.reshape([bsz, q, q, pp, pp]).permute([0, 1, 3, 2, 4]).reshape([bsz, s * s]))
            }
            FrontSpec::Nok(_) => Ok(x),
        }
    }

    /// The front applied to the first convolution's output `[batch, c, side, side]`.
    pub fn features(&self, f: Tensor<4>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<4>> {
        if !self.acts_on_features() {
            return Ok(f);
        }
        let [bsz, c, h, w] = f.dims();
        let rows = f.permute([0, 2, 3, 1]).reshape([bsz * h * w, c]);
        let out = self.block(self.blocks.len() - 1, rows, pass)?;
        Ok(out.reshape([bsz, h, w, c]).permute([0, 3, 1, 2]))
    }

    /// Whether [`Front::features`] changes its input (a block after the first convolution).
    pub fn acts_on_features(&self) -> bool {
        matches!(&self.spec, FrontSpec::Nok(p) if p.at != NokAt::Input)
    }

    /// The gradient of the `theta`s from the gradients of the rotations of `pass`.
    pub fn grads(&self, pass: &FrontPass, grads: &burn::tensor::Gradients, out: &mut Vec<f32>) -> Result<()> {
        let mut leaves = pass.leaves.iter();
        for blk in &self.blocks {
            if blk.theta.is_empty() {
                continue;
            }
            let leaf = leaves.next().ok_or_else(|| RobustError::bad("the forward pass made fewer rotations than the front has"))?;
            let g: Vec<f64> = match leaf.grad(grads) {
                Some(g) => g
                    .into_data()
                    .convert::<f32>()
                    .as_slice::<f32>()
                    .map_err(|e| RobustError::bad(format!("{e:?}")))?
                    .iter()
                    .map(|&v| f64::from(v))
                    .collect(),
                None => vec![0.0; blk.d * blk.d],
            };
            let theta: Vec<f64> = blk.theta.iter().map(|&v| f64::from(v)).collect();
            out.extend(cayley_grad(&theta, blk.d, &g)?.into_iter().map(|v| v as f32));
        }
        Ok(())
    }
}
