//! One layer (7.9) of the neural optimization kernel per input, `y <- h(c + y - (d/N) B^T B y)`,
//! with `B` the SSF DFT rows (one FFT of length N/2 each way: O(N log N)) vs the same `B` as a
//! dense matrix (O(N d)), d = 784 (a Fashion-MNIST image), N = 2d, 4d, 8d; the backward pass
//! of the same step (`NokLayer::step_injected_vjp`: the forward product again for `h'(z)`, then
//! `B^T B` on the gradient); and N = 2d for d = 16 ... 784, where the crossover lies.
//! Run: `cargo bench -p gradfree-nok-bench`.
#![allow(missing_docs)]

use gradfree_core::rng_from_seed;
use gradfree_features::projection::{DenseProjection, SsfRotation, dense_rows};
use gradfree_robust::nok::{Activation, LayerScratch, NokLayer, Structure};

const D: usize = 784;
const WIDTHS: &[usize] = &[2, 4, 8];
/// Input dimensions for the crossover at N = 2d (the NOK front's 4 x 4 patches are d = 16, its
/// channel vectors d = 32).
const DIMS: &[usize] = &[16, 32, 64, 256, 784];

fn main() {
    divan::main();
}

fn layers(d: usize, factor: usize) -> (NokLayer, NokLayer) {
    let n = factor * d;
    let op = Structure::Ssf.build(d, n, SsfRotation::Phase, &mut rng_from_seed(1)).unwrap();
    // The same B, dense.
    let bt = dense_rows(op.as_ref());
    let act = Activation::L1 { lambda: 0.5 };
    let dense = NokLayer::new(Box::new(DenseProjection::from_rows(bt, d).unwrap()), act).unwrap();
    (NokLayer::new(op, act).unwrap(), dense)
}

/// A fixed input's injection `c = W^T x` and first code `y = h(c)`, with the scratch buffers.
fn first_layer(layer: &NokLayer) -> (Vec<f64>, Vec<f64>, LayerScratch) {
    let (n, d) = (layer.width(), layer.dim());
    let x: Vec<f64> = (0..d).map(|i| ((i * 7919) % 255) as f64 / 255.0 - 0.5).collect();
    let mut s = LayerScratch::default();
    let (mut c, mut y) = (vec![0.0; n], vec![0.0; n]);
    layer.inject(&x, &mut c, &mut s);
    layer.step_injected(&c, &vec![0.0; n], &mut y, &mut s);
    (c, y, s)
}

fn bench_step(b: divan::Bencher, layer: &NokLayer) {
    let (c, y, mut s) = first_layer(layer);
    let mut next = vec![0.0; layer.width()];
    b.bench_local(|| {
        layer.step_injected(&c, &y, &mut next, &mut s);
        divan::black_box(&next);
    });
}

fn bench_backward(b: divan::Bencher, layer: &NokLayer) {
    let n = layer.width();
    let (c, y, mut s) = first_layer(layer);
    let g: Vec<f64> = (0..n).map(|i| ((i * 104_729) % 97) as f64 / 97.0 - 0.5).collect();
    let (mut gc, mut gy) = (vec![0.0; n], vec![0.0; n]);
    b.bench_local(|| {
        layer.step_injected_vjp(&c, &y, &g, &mut gc, &mut gy, &mut s);
        divan::black_box((&gc, &gy));
    });
}

/// d = 784, N = factor * d.
#[divan::bench(args = WIDTHS)]
fn step_fft(b: divan::Bencher, factor: usize) {
    bench_step(b, &layers(D, factor).0);
}

/// d = 784, N = factor * d.
#[divan::bench(args = WIDTHS)]
fn step_dense(b: divan::Bencher, factor: usize) {
    bench_step(b, &layers(D, factor).1);
}

/// N = 2d, d as given.
#[divan::bench(args = DIMS)]
fn step_fft_by_d(b: divan::Bencher, d: usize) {
    bench_step(b, &layers(d, 2).0);
}

/// N = 2d, d as given.
#[divan::bench(args = DIMS)]
fn step_dense_by_d(b: divan::Bencher, d: usize) {
    bench_step(b, &layers(d, 2).1);
}

/// d = 784, N = factor * d: the backward step.
#[divan::bench(args = WIDTHS)]
fn backward_fft(b: divan::Bencher, factor: usize) {
    bench_backward(b, &layers(D, factor).0);
}

/// d = 784, N = factor * d: the backward step.
#[divan::bench(args = WIDTHS)]
fn backward_dense(b: divan::Bencher, factor: usize) {
    bench_backward(b, &layers(D, factor).1);
}
