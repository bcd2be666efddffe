//! One forward and backward pass of each layer of the experiments' networks (batches of 128,
//! Fashion-MNIST shapes) on the training stack's kernels (`ours`) and on burn's generic operations
//! of the same flex backend (`burn`), in the same run; the ratio is what our kernels save:
//!
//! - `conv1`: 1 -> 32 channels, 28 x 28, 3 x 3 'same', ReLU, 2 x 2 max-pool (input needs no gradient);
//! - `conv2`: 32 -> 64 channels, 14 x 14, the same (input gradient too);
//! - `dense_*`: the CNN's 3136 -> 128 and the MLP's 784 -> 256 -> 256 layers, ReLU after.
//!
//! Run: `cargo bench -p gradfree-train-bench`; set `RAYON_NUM_THREADS=1` or `2` for the scaling.
#![allow(missing_docs)]

use burn::nn::LinearConfig;
use burn::prelude::*;
use burn::tensor::TensorData;
use burn::tensor::activation::relu;
use burn::tensor::module::{conv2d, max_pool2d};
use burn::tensor::ops::{ConvOptions, MaxPoolOptions};
use gradfree_robust::train::kernels;

const BATCH: usize = 128;

fn main() {
    divan::main();
}

fn filled(shape: [usize; 4], seed: u32) -> TensorData {
    let n: usize = shape.iter().product();
    let v: Vec<f32> =
        (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) >> 8) as f32 / (1u32 << 24) as f32 - 0.5).collect();
    TensorData::new(v, shape.to_vec())
}

struct Conv {
    x: Tensor<4>,
    w: Tensor<4>,
    b: Tensor<1>,
}

fn conv_case(ci: usize, co: usize, side: usize, input_grad: bool) -> Conv {
    let dev = Device::flex().autodiff();
    let x = Tensor::<4>::from_data(filled([BATCH, ci, side, side], 1), &dev);
    let x = if input_grad { x.require_grad() } else { x };
    let w = Tensor::<4>::from_data(filled([co, ci, 3, 3], 2), &dev).require_grad();
    let b = Tensor::<1>::from_data(TensorData::new(vec![0.01f32; co], [co]), &dev).require_grad();
    Conv { x, w, b }
}

fn conv_ours(c: &Conv) {
    let y = kernels::conv2d_relu_pool2(c.x.clone(), c.w.clone(), c.b.clone(), [1, 1], [1, 1]);
    divan::black_box(c.w.grad(&y.sum().backward()));
}

fn conv_burn(c: &Conv) {
    let y = conv2d(c.x.clone(), c.w.clone(), Some(c.b.clone()), ConvOptions::new([1, 1], [1, 1], [1, 1], 1));
    let y = max_pool2d(relu(y), MaxPoolOptions::new([2, 2]));
    divan::black_box(c.w.grad(&y.sum().backward()));
}

#[divan::bench(args = ["ours", "burn"], sample_count = 20)]
fn conv1(bencher: divan::Bencher, which: &str) {
    let c = conv_case(1, 32, 28, false);
    bencher.bench_local(|| if which == "ours" { conv_ours(&c) } else { conv_burn(&c) });
}

#[divan::bench(args = ["ours", "burn"], sample_count = 20)]
fn conv2(bencher: divan::Bencher, which: &str) {
    let c = conv_case(32, 64, 14, true);
    bencher.bench_local(|| if which == "ours" { conv_ours(&c) } else { conv_burn(&c) });
}

fn dense(bencher: divan::Bencher, which: &str, din: usize, dout: usize, input_grad: bool) {
    let dev = Device::flex().autodiff();
    let layer = LinearConfig::new(din, dout).init(&dev);
    let x = Tensor::<4>::from_data(filled([1, 1, BATCH, din], 3), &dev).reshape([BATCH, din]);
    let x = if input_grad { x.require_grad() } else { x };
    let (w, b) = (layer.weight.val(), layer.bias.as_ref().expect("bias").val());
    bencher.bench_local(|| {
        let y = if which == "ours" { kernels::linear(x.clone(), w.clone(), b.clone(), true) } else { relu(layer.forward(x.clone())) };
        divan::black_box(w.grad(&y.sum().backward()));
    });
}

#[divan::bench(args = ["ours", "burn"], sample_count = 50)]
fn dense_3136_128(bencher: divan::Bencher, which: &str) {
    dense(bencher, which, 3136, 128, true);
}

#[divan::bench(args = ["ours", "burn"], sample_count = 50)]
fn dense_784_256(bencher: divan::Bencher, which: &str) {
    dense(bencher, which, 784, 256, false);
}

#[divan::bench(args = ["ours", "burn"], sample_count = 50)]
fn dense_256_256(bencher: divan::Bencher, which: &str) {
    dense(bencher, which, 256, 256, true);
}
