//! The CNN's own CPU kernels, as operations on burn's `flex` backend with hand-written
//! gradients (burn's backend extensions): the convolution as matrix products
//! ([`conv`]: im2col, one product per image forward and for the input gradient, one product
//! split on its inner dimension for the weight gradient) and ReLU fused with 2 x 2 max-pooling
//! ([`pool`]), and dense layers with an optional ReLU ([`linear`](mod@linear), products split in fixed
//! blocks of rows so both cores work on a 128-row batch). Everything else in a network keeps burn's autodiff graph; these two operations
//! enter it as single nodes.
//!
//! Results do not depend on the thread count (each image's arithmetic and the order of every
//! sum are fixed). The products run on faer's kernels, which choose AVX-512 or AVX2 at run time.

pub mod conv;
pub mod linear;
pub mod pool;

use std::sync::Arc;

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, NodeGuard, Ops, OpsKind};
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, Flex, backend_extension};
use burn::prelude::*;
use burn::tensor::TensorData;
use burn_flex::FlexTensor;

use conv::ConvGeom;

/// The operations, routed by burn's dispatch to `flex` (plain) or to `flex` under autodiff
/// (with the gradients below).
#[backend_extension(Flex, Autodiff)]
pub trait NetKernels: Backend {
    /// `conv2d(x, weight) + bias` with zero padding `padding` and stride `stride`, and with
    /// `relu_pool` then `max_pool2d(relu(.), 2, stride 2)` in the same pass ([`conv::forward`]).
    fn gf_conv2d(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        stride: [usize; 2],
        padding: [usize; 2],
        relu_pool: bool,
    ) -> FloatTensor<Self>;
    /// `max_pool2d(relu(x), 2, stride 2)` ([`pool::forward`]).
    fn gf_relu_max_pool2(x: FloatTensor<Self>) -> FloatTensor<Self>;
    /// `x weight + bias`, then ReLU if `relu` ([`linear::forward`]).
    fn gf_linear(x: FloatTensor<Self>, weight: FloatTensor<Self>, bias: FloatTensor<Self>, relu: bool) -> FloatTensor<Self>;
}

/// `x` as a contiguous `f32` tensor (a no-op when it already is one).
fn contiguous(t: FlexTensor) -> FlexTensor {
    if t.as_slice::<f32>().is_some() { t } else { t.to_contiguous() }
}

/// `(x, weight, bias)` contiguous.
fn contiguous3(x: FlexTensor, w: FlexTensor, b: FlexTensor) -> (FlexTensor, FlexTensor, FlexTensor) {
    (contiguous(x), contiguous(w), contiguous(b))
}

/// The primitives of `(x, weight, bias)`, contiguous, and their graph nodes.
fn untrack3<C: CheckpointStrategy>(
    x: FloatTensor<Autodiff<Flex, C>>,
    w: FloatTensor<Autodiff<Flex, C>>,
    b: FloatTensor<Autodiff<Flex, C>>,
) -> ((FlexTensor, FlexTensor, FlexTensor), [NodeGuard; 3]) {
    let ((xp, xn), (wp, wn), (bp, bn)) = (x.into_parts(), w.into_parts(), b.into_parts());
    (contiguous3(xp, wp, bp), [xn, wn, bn])
}

/// The `f32` entries of a contiguous tensor.
fn values(t: &FlexTensor) -> &[f32] {
    t.as_slice::<f32>().expect("the training stack's tensors are f32")
}

fn tensor(v: Vec<f32>, shape: Vec<usize>) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(v, shape))
}

fn geom(x: &FlexTensor, w: &FlexTensor, stride: [usize; 2], padding: [usize; 2]) -> ConvGeom {
    let (xs, ws) = (x.layout().shape(), w.layout().shape());
    assert!(xs.num_dims() == 4 && ws.num_dims() == 4 && xs[1] == ws[1], "conv2d: x is N x C x H x W and weight C_out x C x kh x kw");
    ConvGeom { n: xs[0], ci: xs[1], h: xs[2], w: xs[3], co: ws[0], kh: ws[2], kw: ws[3], stride, pad: padding }
}

/// The convolution's output (or, with `pool`, its pooled output and the winners) as a tensor.
fn conv_forward(x: &FlexTensor, w: &FlexTensor, b: &FlexTensor, g: &ConvGeom, pool: bool) -> (FlexTensor, Vec<u8>) {
    let (y, arg) = conv::forward(g, values(x), values(w), values(b), pool);
    let shape = if pool { vec![g.n, g.co, g.ho() / 2, g.wo() / 2] } else { vec![g.n, g.co, g.ho(), g.wo()] };
    (tensor(y, shape), arg)
}

/// `(n, d_in, d_out)` of a dense layer.
fn linear_dims(x: &FlexTensor, w: &FlexTensor) -> (usize, usize, usize) {
    let (xs, ws) = (x.layout().shape(), w.layout().shape());
    assert!(xs.num_dims() == 2 && ws.num_dims() == 2 && xs[1] == ws[0], "linear: x is n x d_in and weight d_in x d_out");
    (xs[0], xs[1], ws[1])
}

fn linear_forward(x: &FlexTensor, w: &FlexTensor, b: &FlexTensor, relu: bool) -> (FlexTensor, (usize, usize, usize)) {
    let dims @ (n, din, dout) = linear_dims(x, w);
    (tensor(linear::forward(values(x), values(w), values(b), n, din, dout, relu), vec![n, dout]), dims)
}

fn pool_dims(x: &FlexTensor) -> [usize; 4] {
    let s = x.layout().shape();
    assert_eq!(s.num_dims(), 4, "relu_max_pool2: x is N x C x H x W");
    [s[0], s[1], s[2], s[3]]
}

impl NetKernels for Flex {
    fn gf_conv2d(
        x: FlexTensor,
        weight: FlexTensor,
        bias: FlexTensor,
        stride: [usize; 2],
        padding: [usize; 2],
        relu_pool: bool,
    ) -> FlexTensor {
        let (x, weight, bias) = contiguous3(x, weight, bias);
        let g = geom(&x, &weight, stride, padding);
        conv_forward(&x, &weight, &bias, &g, relu_pool).0
    }

    fn gf_linear(x: FlexTensor, weight: FlexTensor, bias: FlexTensor, relu: bool) -> FlexTensor {
        let (x, weight, bias) = contiguous3(x, weight, bias);
        linear_forward(&x, &weight, &bias, relu).0
    }

    fn gf_relu_max_pool2(x: FlexTensor) -> FlexTensor {
        let x = contiguous(x);
        let [n, c, h, w] = pool_dims(&x);
        let (y, _) = pool::forward(values(&x), n * c, h, w);
        tensor(y, vec![n, c, h / 2, w / 2])
    }
}

/// The backward pass of the convolution, plain (`arg` empty) or followed by ReLU and pooling
/// (`arg` the winners).
#[derive(Debug)]
struct ConvBackward;

impl Backward<Flex, 3> for ConvBackward {
    type State = (FlexTensor, FlexTensor, ConvGeom, Option<Arc<Vec<u8>>>);

    fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _: &mut Checkpointer) {
        let [node_x, node_w, node_b] = ops.parents;
        let dy = contiguous(grads.consume::<Flex>(&ops.node));
        let (x, w, g, arg) = ops.state;
        let grad = match &arg {
            None => conv::OutGrad::Dense(values(&dy)),
            Some(arg) => conv::OutGrad::Pooled { dz: values(&dy), arg },
        };
        let want_w = node_w.is_some() || node_b.is_some();
        let out = conv::backward(&g, values(&x), values(&w), grad, node_x.is_some(), want_w);
        if let (Some(node), Some(dx)) = (node_x, out.dx) {
            grads.register::<Flex>(node.id, tensor(dx, vec![g.n, g.ci, g.h, g.w]));
        }
        if let Some(node) = node_w {
            grads.register::<Flex>(node.id, tensor(out.dw, vec![g.co, g.ci, g.kh, g.kw]));
        }
        if let Some(node) = node_b {
            grads.register::<Flex>(node.id, tensor(out.db, vec![g.co]));
        }
    }
}

/// The backward pass of a dense layer; the state holds the output when ReLU followed.
#[derive(Debug)]
struct LinearBackward;

impl Backward<Flex, 3> for LinearBackward {
    type State = (FlexTensor, FlexTensor, Option<FlexTensor>, (usize, usize, usize));

    fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _: &mut Checkpointer) {
        let [node_x, node_w, node_b] = ops.parents;
        let dy = contiguous(grads.consume::<Flex>(&ops.node));
        let (x, w, out, dims @ (n, din, dout)) = ops.state;
        let want_w = node_w.is_some() || node_b.is_some();
        let (dx, dw, db) = linear::backward(values(&x), values(&w), values(&dy), out.as_ref().map(values), dims, node_x.is_some(), want_w);
        if let (Some(node), Some(dx)) = (node_x, dx) {
            grads.register::<Flex>(node.id, tensor(dx, vec![n, din]));
        }
        if let Some(node) = node_w {
            grads.register::<Flex>(node.id, tensor(dw, vec![din, dout]));
        }
        if let Some(node) = node_b {
            grads.register::<Flex>(node.id, tensor(db, vec![dout]));
        }
    }
}

#[derive(Debug)]
struct PoolBackward;

impl Backward<Flex, 1> for PoolBackward {
    type State = (Arc<Vec<u8>>, [usize; 4]);

    fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
        let [node_x] = ops.parents;
        let dy = contiguous(grads.consume::<Flex>(&ops.node));
        let (arg, [n, c, h, w]) = ops.state;
        if let Some(node) = node_x {
            let dx = pool::backward(values(&dy), &arg, n * c, h, w);
            grads.register::<Flex>(node.id, tensor(dx, vec![n, c, h, w]));
        }
    }
}

/// The convolution (with `pool`, followed by ReLU and pooling) as one node of the graph.
fn tracked_conv<C: CheckpointStrategy>(
    x: FloatTensor<Autodiff<Flex, C>>,
    weight: FloatTensor<Autodiff<Flex, C>>,
    bias: FloatTensor<Autodiff<Flex, C>>,
    stride: [usize; 2],
    padding: [usize; 2],
    pool: bool,
) -> FloatTensor<Autodiff<Flex, C>> {
    let ((xp, wp, bp), nodes) = untrack3::<C>(x, weight, bias);
    let g = geom(&xp, &wp, stride, padding);
    let (y, arg) = conv_forward(&xp, &wp, &bp, &g, pool);
    match ConvBackward.prepare::<C>(nodes).compute_bound().stateful() {
        OpsKind::Tracked(prep) => prep.finish((xp, wp, g, pool.then(|| Arc::new(arg))), y),
        OpsKind::UnTracked(prep) => prep.finish(y),
    }
}

impl<C: CheckpointStrategy> NetKernels for Autodiff<Flex, C> {
    fn gf_conv2d(
        x: FloatTensor<Self>,
        weight: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        stride: [usize; 2],
        padding: [usize; 2],
        relu_pool: bool,
    ) -> FloatTensor<Self> {
        tracked_conv::<C>(x, weight, bias, stride, padding, relu_pool)
    }

    fn gf_linear(x: FloatTensor<Self>, weight: FloatTensor<Self>, bias: FloatTensor<Self>, relu: bool) -> FloatTensor<Self> {
        let ((xp, wp, bp), nodes) = untrack3::<C>(x, weight, bias);
        let (y, dims) = linear_forward(&xp, &wp, &bp, relu);
        match LinearBackward.prepare::<C>(nodes).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish((xp, wp, relu.then(|| y.clone()), dims), y),
            OpsKind::UnTracked(prep) => prep.finish(y),
        }
    }

    fn gf_relu_max_pool2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        let (xp, xn) = x.into_parts();
        let xp = contiguous(xp);
        let [n, c, h, w] = pool_dims(&xp);
        let (y, arg) = pool::forward(values(&xp), n * c, h, w);
        let y = tensor(y, vec![n, c, h / 2, w / 2]);
        match PoolBackward.prepare::<C>([xn]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish((Arc::new(arg), [n, c, h, w]), y),
            OpsKind::UnTracked(prep) => prep.finish(y),
        }
    }
}

/// `conv2d(x, weight) + bias` on burn tensors (`x`: `N x C x H x W`, `weight`:
/// `C_out x C x kh x kw`, `bias`: `C_out`), zero padding `padding` on both sides, stride
/// `stride`; differentiable in all three.
pub fn conv2d(x: Tensor<4>, weight: Tensor<4>, bias: Tensor<1>, stride: [usize; 2], padding: [usize; 2]) -> Tensor<4> {
    conv(x, weight, bias, stride, padding, false)
}

/// `max_pool2d(relu(conv2d(x, weight) + bias), [2, 2], stride [2, 2])` in one pass (the
/// convolution's full output never leaves the cache); arguments as for [`conv2d`].
pub fn conv2d_relu_pool2(x: Tensor<4>, weight: Tensor<4>, bias: Tensor<1>, stride: [usize; 2], padding: [usize; 2]) -> Tensor<4> {
    conv(x, weight, bias, stride, padding, true)
}

fn conv(x: Tensor<4>, weight: Tensor<4>, bias: Tensor<1>, stride: [usize; 2], padding: [usize; 2], relu_pool: bool) -> Tensor<4> {
    let (x, w, b) = (x.into_dispatch(), weight.into_dispatch(), bias.into_dispatch());
    Tensor::from_dispatch(<Dispatch as NetKernels>::gf_conv2d(x, w, b, stride, padding, relu_pool))
}

/// `max_pool2d(relu(x), [2, 2], stride [2, 2])` on a burn tensor `N x C x H x W`; differentiable.
pub fn relu_max_pool2(x: Tensor<4>) -> Tensor<4> {
    Tensor::from_dispatch(<Dispatch as NetKernels>::gf_relu_max_pool2(x.into_dispatch()))
}

/// `x weight + bias` (`x`: `n x d_in`, `weight`: `d_in x d_out`, burn's `Linear` layout; `bias`:
/// `d_out`), then ReLU if `relu`; differentiable in all three.
pub fn linear(x: Tensor<2>, weight: Tensor<2>, bias: Tensor<1>, relu: bool) -> Tensor<2> {
    Tensor::from_dispatch(<Dispatch as NetKernels>::gf_linear(x.into_dispatch(), weight.into_dispatch(), bias.into_dispatch(), relu))
}
