//! One layer (7.9) of the neural optimization kernel per input, `y <- h(c + y - (d/N) B^T B y)`,
//! with `B` the SSF DFT rows (one FFT of length N/2 each way: O(N log N)) vs the same `B` as a
//! dense matrix (O(N d)), d = 784 (a Fashion-MNIST image), N = 2d, 4d, 8d; and the backward
//! pass of the same step (the adjoint products `B^T B` again, the same cost). The crossover: the
//! FFT wins from N = 2d on at this d; its advantage grows with N.
//! Run: `cargo bench -p gradfree-nok-bench`.
#![allow(missing_docs)]

use gradfree_core::rng_from_seed;
use gradfree_features::projection::{DenseProjection, SsfRotation, dense_rows};
use gradfree_robust::nok::{Activation, LayerScratch, NokLayer, Structure};

const D: usize = 784;
const WIDTHS: &[usize] = &[2, 4, 8];

fn main() {
    divan::main();
}

fn layers(factor: usize) -> (NokLayer, NokLayer) {
    let n = factor * D;
    let op = Structure::Ssf.build(D, n, SsfRotation::Phase, &mut rng_from_seed(1)).unwrap();
    // The same B, dense.
    let bt = dense_rows(op.as_ref());
    let act = Activation::L1 { lambda: 0.5 };
    let dense = NokLayer::new(Box::new(DenseProjection::from_rows(bt, D).unwrap()), act).unwrap();
    (NokLayer::new(op, act).unwrap(), dense)
}

fn bench_step(b: divan::Bencher, layer: &NokLayer) {
    let n = layer.width();
    let x: Vec<f64> = (0..D).map(|i| ((i * 7919) % 255) as f64 / 255.0 - 0.5).collect();
    let mut s = LayerScratch::default();
    let (mut c, mut y, mut next) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    layer.inject(&x, &mut c, &mut s);
    layer.step_injected(&c, &y.clone(), &mut y, &mut s);
    b.bench_local(|| {
        layer.step_injected(&c, &y, &mut next, &mut s);
        divan::black_box(&next);
    });
}

#[divan::bench(args = WIDTHS)]
fn step_fft(b: divan::Bencher, factor: usize) {
    bench_step(b, &layers(factor).0);
}

#[divan::bench(args = WIDTHS)]
fn step_dense(b: divan::Bencher, factor: usize) {
    bench_step(b, &layers(factor).1);
}
