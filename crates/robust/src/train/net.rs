//! The networks of the training stack, on burn: a multi-layer perceptron and a small
//! convolutional network, with every parameter read and written as one flat `f32` vector (the
//! optimizers of [`super::optim`] and the checkpoints work on that vector), and a seeded
//! initialization independent of burn's own generator. A [`Front`] (filter or NOK block) can sit
//! in front of the first learnable layer.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::Gradients;
use burn::tensor::TensorData;
use gradfree_core::GfRng;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::front::{Front, FrontPass};
use super::kernels;
use crate::error::Result;

/// An architecture and its sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Arch {
    /// Fully connected ReLU layers of the given widths, then a linear layer to the classes.
    Mlp {
        /// Hidden widths.
        hidden: Vec<usize>,
    },
    /// conv 3x3 (32) - ReLU - max-pool 2 - conv 3x3 (64) - ReLU - max-pool 2 - dense (128) - ReLU -
    /// dense to the classes, on square one-channel images (side = sqrt(d), a multiple of 4).
    Cnn,
}

impl Arch {
    /// The MLP of the experiments: two hidden layers of 256.
    pub fn mlp() -> Self {
        Arch::Mlp { hidden: vec![256, 256] }
    }
}

/// A multi-layer perceptron.
#[derive(Module, Debug)]
pub struct Mlp {
    layers: Vec<Linear>,
}

impl Mlp {
    fn forward_front(&self, x: Tensor<2>, front: Option<&Front>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<2>> {
        let mut x = match front {
            Some(f) => f.input(x, pass)?,
            None => x,
        };
        let last = self.layers.len() - 1;
        for (i, l) in self.layers.iter().enumerate() {
            x = dense(l, x, i < last);
        }
        Ok(x)
    }
}

/// A small convolutional network ([`Arch::Cnn`]).
#[derive(Module, Debug)]
pub struct Cnn {
    c1: Conv2d,
    c2: Conv2d,
    f1: Linear,
    f2: Linear,
    side: usize,
}

/// Channels of the CNN's first convolution.
pub const CONV1_CHANNELS: usize = 32;

impl Cnn {
    fn forward_front(&self, x: Tensor<2>, front: Option<&Front>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<2>> {
        let b = x.dims()[0];
        let s = self.side;
        let x = match front {
            Some(f) => f.input(x, pass)?,
            None => x,
        };
        let x = x.reshape([b, 1, s, s]);
        let x = match front {
            Some(f) if f.acts_on_features() => kernels::relu_max_pool2(f.features(same_conv(&self.c1, x, false), pass)?),
            _ => same_conv(&self.c1, x, true),
        };
        let x = same_conv(&self.c2, x, true);
        let x = x.reshape([b, 64 * (s / 4) * (s / 4)]);
        Ok(dense(&self.f2, dense(&self.f1, x, true), false))
    }
}

/// A 3 x 3 convolution of stride 1 with 'same' zero padding, then ReLU and 2 x 2 max-pooling in
/// the same pass if `relu_pool`, on the training stack's own kernels ([`kernels::conv2d`],
/// [`kernels::conv2d_relu_pool2`]); the layer's parameters stay burn's.
fn same_conv(c: &Conv2d, x: Tensor<4>, relu_pool: bool) -> Tensor<4> {
    let bias = c.bias.as_ref().expect("the CNN's convolutions have a bias").val();
    let op = if relu_pool { kernels::conv2d_relu_pool2 } else { kernels::conv2d };
    op(x, c.weight.val(), bias, [1, 1], [1, 1])
}

/// A dense layer (then ReLU if `relu`) on the training stack's own kernels ([`kernels::linear`]).
fn dense(l: &Linear, x: Tensor<2>, relu: bool) -> Tensor<2> {
    let bias = l.bias.as_ref().expect("the networks' dense layers have a bias").val();
    kernels::linear(x, l.weight.val(), bias, relu)
}

/// A network of either architecture. (burn's `Module` derive cannot box a variant; a network
/// is built once per run, so the size difference costs nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Module, Debug)]
pub enum Net {
    /// A perceptron.
    Mlp(Mlp),
    /// A convolutional network.
    Cnn(Cnn),
}

/// The side of a square image of `d` pixels usable by the CNN, if any.
pub fn cnn_side(d: usize) -> Option<usize> {
    let s = (d as f64).sqrt().round() as usize;
    (s * s == d && s >= 4 && s.is_multiple_of(4)).then_some(s)
}

impl Net {
    /// Builds the network for `d` inputs and `k` classes on `device`, its parameters drawn from
    /// `rng` (PyTorch's default: uniform in `+-1/sqrt(fan_in)` for weights and biases).
    pub fn new(arch: &Arch, d: usize, k: usize, device: &Device, rng: &mut GfRng) -> Self {
        let net = match arch {
            Arch::Mlp { hidden } => {
                let mut widths = vec![d];
                widths.extend(hidden);
                widths.push(k);
                let layers = widths.windows(2).map(|w| LinearConfig::new(w[0], w[1]).init(device)).collect();
                Net::Mlp(Mlp { layers })
            }
            Arch::Cnn => {
                let side = cnn_side(d).expect("checked by the caller");
                Net::Cnn(Cnn {
                    c1: Conv2dConfig::new([1, CONV1_CHANNELS], [3, 3]).with_padding(PaddingConfig2d::Same).init(device),
                    c2: Conv2dConfig::new([CONV1_CHANNELS, 64], [3, 3]).with_padding(PaddingConfig2d::Same).init(device),
                    f1: LinearConfig::new(64 * (side / 4) * (side / 4), 128).init(device),
                    f2: LinearConfig::new(128, k).init(device),
                    side,
                })
            }
        };
        let init = initial_params(&net, rng);
        net.with_params(&init, device)
    }

    /// The logits `[batch, k]` of the rows `x` `[batch, d]`.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.forward_front(x, None, &mut None).expect("no front, no error")
    }

    /// The logits with `front` in front of the first learnable layer (and after the first
    /// convolution, where the front acts there); `pass` collects what the front's gradients need.
    pub fn forward_front(&self, x: Tensor<2>, front: Option<&Front>, pass: &mut Option<&mut FrontPass>) -> Result<Tensor<2>> {
        match self {
            Net::Mlp(m) => m.forward_front(x, front, pass),
            Net::Cnn(c) => c.forward_front(x, front, pass),
        }
    }

    /// Channels of the first convolution, if the network has one.
    pub fn conv1(arch: &Arch) -> Option<usize> {
        matches!(arch, Arch::Cnn).then_some(CONV1_CHANNELS)
    }

    /// Every parameter, in the module's visiting order, as one vector.
    pub fn params(&self) -> Vec<f32> {
        let mut v = Collect { out: Vec::new(), grads: None };
        self.visit(&mut v);
        v.out
    }

    /// The gradient of every parameter (zero where there is none), in [`Net::params`]' order,
    /// written into `out`.
    pub fn grads_into(&self, grads: &Gradients, out: &mut Vec<f32>) {
        let mut v = Collect { out: std::mem::take(out), grads: Some(grads) };
        v.out.clear();
        self.visit(&mut v);
        *out = v.out;
    }

    /// The network with its parameters replaced by `flat` (in [`Net::params`]' order).
    pub fn with_params(self, flat: &[f32], device: &Device) -> Self {
        let mut m = SetParams { flat, pos: 0, device: device.clone() };
        let net = self.map(&mut m);
        assert_eq!(m.pos, flat.len(), "parameter vector of the wrong length");
        net
    }
}

struct Collect<'a> {
    out: Vec<f32>,
    grads: Option<&'a Gradients>,
}

impl ModuleVisitor for Collect<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        match self.grads {
            None => extend(&mut self.out, t.into_data()),
            Some(g) => match t.grad(g) {
                Some(g) => extend(&mut self.out, g.into_data()),
                None => self.out.extend(std::iter::repeat_n(0.0, t.shape().num_elements())),
            },
        }
    }
}

fn extend(out: &mut Vec<f32>, data: TensorData) {
    match data.as_slice::<f32>() {
        Ok(s) => out.extend_from_slice(s),
        Err(_) => out.extend(data.convert::<f32>().as_slice::<f32>().expect("f32 data")),
    }
}

struct SetParams<'a> {
    flat: &'a [f32],
    pos: usize,
    device: Device,
}

impl ModuleMapper for SetParams<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let shape = param.val().shape();
        let n = shape.num_elements();
        let values = self.flat[self.pos..self.pos + n].to_vec();
        self.pos += n;
        let device = self.device.clone();
        param.map(move |_| Tensor::<D>::from_data(TensorData::new(values, shape), &device).require_grad())
    }
}

/// Shapes of the parameters, in visiting order.
struct Shapes(Vec<Vec<usize>>);

impl ModuleVisitor for Shapes {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0.push(param.val().dims().to_vec());
    }
}

/// PyTorch's default initialization from our generator: a weight of shape `[in, out]` (burn's
/// linear layout) or `[out, in, kh, kw]` (a convolution) and the bias after it are uniform in
/// `+-1/sqrt(fan_in)`.
fn initial_params(net: &Net, rng: &mut GfRng) -> Vec<f32> {
    let mut shapes = Shapes(Vec::new());
    net.visit(&mut shapes);
    let mut out = Vec::new();
    let mut fan_in = 1usize;
    for s in shapes.0 {
        match s.len() {
            2 => fan_in = s[0],
            4 => fan_in = s[1] * s[2] * s[3],
            _ => {}
        }
        let bound = 1.0 / (fan_in as f64).sqrt();
        let n: usize = s.iter().product();
        out.extend((0..n).map(|_| ((rng.random::<f64>() * 2.0 - 1.0) * bound) as f32));
    }
    out
}
