//! The CNN's own kernels equal burn's generic operations, forward and every gradient, on random
//! shapes (odd sizes, padding, stride, batches across the partial-sum groups, the convolution alone
//! and fused with ReLU and pooling).
#![cfg(feature = "train")]

use burn::prelude::*;
use burn::tensor::TensorData;
use burn::tensor::activation::relu;
use burn::tensor::module::{conv2d, max_pool2d};
use burn::tensor::ops::{ConvOptions, MaxPoolOptions};
use gradfree_core::rng_from_seed;
use gradfree_robust::train::kernels;
use gradfree_robust::train::trainer::device;
use rand::RngExt;

fn random(rng: &mut gradfree_core::GfRng, shape: [usize; 4]) -> TensorData {
    let n = shape.iter().product();
    TensorData::new((0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect::<Vec<f32>>(), shape.to_vec())
}

fn close(a: Tensor<4>, b: Tensor<4>, what: &str) {
    let (a, b) = (
        a.into_data().convert::<f32>().as_slice::<f32>().unwrap().to_vec(),
        b.into_data().convert::<f32>().as_slice::<f32>().unwrap().to_vec(),
    );
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{what}[{i}]: ours {x}, burn {y}");
    }
}

fn close1(a: Tensor<1>, b: Tensor<1>, what: &str) {
    close(a.reshape([1, 1, 1, -1]), b.reshape([1, 1, 1, -1]), what)
}

#[test]
fn convolution_equals_burns_forward_and_gradients() {
    let dev = device();
    let mut rng = rng_from_seed(47);
    let mut ran = 0;
    for case in 0..24 {
        let n = rng.random_range(1..12usize);
        let ci = rng.random_range(1..5usize);
        let co = rng.random_range(1..6usize);
        let (kh, kw) = (rng.random_range(1..5usize), rng.random_range(1..4usize));
        let stride = [rng.random_range(1..4usize), rng.random_range(1..3usize)];
        let padding = [rng.random_range(0..3usize), rng.random_range(0..3usize)];
        let h = rng.random_range(kh.saturating_sub(2 * padding[0]).max(1)..12);
        let w = rng.random_range(kw.saturating_sub(2 * padding[1]).max(1)..12);
        if h + 2 * padding[0] < kh || w + 2 * padding[1] < kw {
            continue;
        }
        let what =
            format!("case {case} (fused when odd): n {n} ci {ci} co {co} k {kh}x{kw} h {h} w {w} stride {stride:?} padding {padding:?}");
        let xd = random(&mut rng, [n, ci, h, w]);
        let wd = random(&mut rng, [co, ci, kh, kw]);
        let bd = TensorData::new((0..co).map(|_| rng.random::<f32>() - 0.5).collect::<Vec<f32>>(), vec![co]);
        let leaves = || {
            (
                Tensor::<4>::from_data(xd.clone(), &dev).require_grad(),
                Tensor::<4>::from_data(wd.clone(), &dev).require_grad(),
                Tensor::<1>::from_data(bd.clone(), &dev).require_grad(),
            )
        };
        let (x1, w1, b1) = leaves();
        let (x2, w2, b2) = leaves();
        let theirs = conv2d(x2.clone(), w2.clone(), Some(b2.clone()), ConvOptions::new(stride, padding, [1, 1], 1));
        let [_, _, ho, wo] = theirs.dims();
        // Half the cases with ReLU and 2 x 2 pooling fused in (where the output has a window).
        let fused = case % 2 == 1 && ho >= 2 && wo >= 2;
        let (ours, theirs) = if fused {
            let pooled = max_pool2d(relu(theirs), MaxPoolOptions::new([2, 2]));
            (kernels::conv2d_relu_pool2(x1.clone(), w1.clone(), b1.clone(), stride, padding), pooled)
        } else {
            (kernels::conv2d(x1.clone(), w1.clone(), b1.clone(), stride, padding), theirs)
        };
        assert_eq!(ours.dims(), theirs.dims(), "{what}");
        // A random linear functional of the output, so every gradient entry is exercised.
        let r = Tensor::<4>::from_data(random(&mut rng, theirs.dims()), &dev);
        let g1 = (ours.clone() * r.clone()).sum().backward();
        let g2 = (theirs.clone() * r).sum().backward();
        close(ours, theirs, &format!("{what}: y"));
        close(x1.grad(&g1).unwrap(), x2.grad(&g2).unwrap(), &format!("{what}: dx"));
        close(w1.grad(&g1).unwrap(), w2.grad(&g2).unwrap(), &format!("{what}: dW"));
        close1(b1.grad(&g1).unwrap(), b2.grad(&g2).unwrap(), &format!("{what}: db"));
        ran += 1;
    }
    assert!(ran >= 16, "only {ran} shapes fit their kernels");
}

#[test]
fn relu_max_pool_equals_burns_forward_and_gradient() {
    let dev = device();
    let mut rng = rng_from_seed(48);
    for case in 0..16 {
        let shape = [rng.random_range(1..5usize), rng.random_range(1..4usize), rng.random_range(1..10usize), rng.random_range(1..10usize)];
        if shape[2] < 2 || shape[3] < 2 {
            continue;
        }
        let xd = random(&mut rng, shape);
        let x1 = Tensor::<4>::from_data(xd.clone(), &dev).require_grad();
        let x2 = Tensor::<4>::from_data(xd, &dev).require_grad();
        let ours = kernels::relu_max_pool2(x1.clone());
        let theirs = max_pool2d(relu(x2.clone()), MaxPoolOptions::new([2, 2]));
        assert_eq!(ours.dims(), theirs.dims(), "case {case} {shape:?}");
        let r = Tensor::<4>::from_data(random(&mut rng, theirs.dims()), &dev);
        let g1 = (ours.clone() * r.clone()).sum().backward();
        let g2 = (theirs.clone() * r).sum().backward();
        close(ours, theirs, &format!("case {case} {shape:?}: y"));
        close(x1.grad(&g1).unwrap(), x2.grad(&g2).unwrap(), &format!("case {case} {shape:?}: dx"));
    }
}

#[test]
fn kernels_run_without_autodiff() {
    let dev = burn::tensor::Device::flex();
    let mut rng = rng_from_seed(49);
    let x = Tensor::<4>::from_data(random(&mut rng, [2, 3, 5, 6]), &dev);
    let w = Tensor::<4>::from_data(random(&mut rng, [4, 3, 3, 3]), &dev);
    let b = Tensor::<1>::zeros([4], &dev);
    let ours = kernels::relu_max_pool2(kernels::conv2d(x.clone(), w.clone(), b.clone(), [1, 1], [1, 1]));
    let theirs = max_pool2d(relu(conv2d(x, w, Some(b), ConvOptions::new([1, 1], [1, 1], [1, 1], 1))), MaxPoolOptions::new([2, 2]));
    close(ours, theirs, "conv, relu, pool");
}

#[test]
fn dense_layer_equals_burns_forward_and_gradients() {
    use burn::nn::LinearConfig;
    let dev = device();
    let mut rng = rng_from_seed(50);
    for case in 0..8 {
        let (n, din, dout) = (rng.random_range(1..140usize), rng.random_range(1..70usize), rng.random_range(1..40usize));
        let relu_after = case % 2 == 0;
        let layer = LinearConfig::new(din, dout).init(&dev);
        let x = Tensor::<4>::from_data(random(&mut rng, [1, 1, n, din]), &dev).reshape([n, din]);
        let (x1, x2) = (x.clone().require_grad(), x.require_grad());
        let (w, b) = (layer.weight.val(), layer.bias.as_ref().unwrap().val());
        let ours = kernels::linear(x1.clone(), w.clone(), b.clone(), relu_after);
        let theirs = layer.forward(x2.clone());
        let theirs = if relu_after { relu(theirs) } else { theirs };
        let r = Tensor::<4>::from_data(random(&mut rng, [1, 1, n, dout]), &dev).reshape([n, dout]);
        let g1 = (ours.clone() * r.clone()).sum().backward();
        let g2 = (theirs.clone() * r).sum().backward();
        let what = format!("case {case}: n {n} d_in {din} d_out {dout} relu {relu_after}");
        let four = |t: Tensor<2>| t.unsqueeze::<4>();
        close(four(ours), four(theirs), &format!("{what}: y"));
        close(four(x1.grad(&g1).unwrap()), four(x2.grad(&g2).unwrap()), &format!("{what}: dx"));
        close(four(w.grad(&g1).unwrap()), four(w.grad(&g2).unwrap()), &format!("{what}: dW"));
        close1(b.grad(&g1).unwrap(), b.grad(&g2).unwrap(), &format!("{what}: db"));
    }
}
