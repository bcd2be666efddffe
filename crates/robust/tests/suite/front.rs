//! The fronts of the training stack (thesis sec. 7.6): the 3 x 3 mean and median filters equal
//! brute force; the NOK block on burn equals the `f64` layer (7.9) and reconstruction on every
//! patch; the Cayley gradient that reaches `theta` matches finite differences; a CNN with the
//! block trains, resumes bit-identically and is attacked by FGSM through the block; bad settings
//! are errors naming the setting.
#![cfg(feature = "train")]

use burn::prelude::*;
use burn::tensor::TensorData;
use gradfree_core::rng_from_seed;
use gradfree_features::projection::SsfRotation;
use gradfree_robust::nok::cayley::cayley;
use gradfree_robust::nok::{Activation, LayerScratch, NokLayer, Structure};
use gradfree_robust::train::trainer::device;
use gradfree_robust::train::{Arch, Front, FrontPass, FrontSpec, Method, NokAt, NokPlug, TrainSet, TrainSpec, Trainer};
use rand::RngExt;

fn image(b: usize, side: usize, seed: u64) -> Vec<f32> {
    let mut rng = rng_from_seed(seed);
    (0..b * side * side).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect()
}

fn values(t: Tensor<2>) -> Vec<f32> {
    t.into_data().convert::<f32>().as_slice::<f32>().unwrap().to_vec()
}

fn run(front: &Front, x: &[f32], b: usize, d: usize) -> Vec<f32> {
    let t = Tensor::<2>::from_data(TensorData::new(x.to_vec(), [b, d]), &device());
    values(front.input(t, &mut None).unwrap())
}

#[test]
fn mean_and_median_filters_equal_brute_force() {
    let (b, s) = (2, 6);
    let x = image(b, s, 1);
    let mean = run(&Front::new(&FrontSpec::Mean, s, None, 0).unwrap(), &x, b, s * s);
    let median = run(&Front::new(&FrontSpec::Median, s, None, 0).unwrap(), &x, b, s * s);
    for k in 0..b {
        for i in 0..s {
            for j in 0..s {
                let mut inside = Vec::new();
                let mut padded = Vec::new();
                for di in -1i64..=1 {
                    for dj in -1i64..=1 {
                        let (u, v) = (i as i64 + di, j as i64 + dj);
                        if (0..s as i64).contains(&u) && (0..s as i64).contains(&v) {
                            let val = x[k * s * s + u as usize * s + v as usize];
                            inside.push(val);
                            padded.push(val);
                        } else {
                            padded.push(0.0);
                        }
                    }
                }
                let want_mean = inside.iter().sum::<f32>() / inside.len() as f32;
                padded.sort_by(f32::total_cmp);
                let at = k * s * s + i * s + j;
                assert!((mean[at] - want_mean).abs() < 1e-5, "mean at ({i}, {j})");
                assert_eq!(median[at], padded[4], "median at ({i}, {j})");
            }
        }
    }
}

/// With `R = I` the block on burn is (7.9) for `T` layers and the reconstruction `W y / N`, on
/// each `p x p` patch.
#[test]
fn nok_block_on_burn_equals_the_f64_layer_per_patch() {
    let (b, s, p) = (2, 8, 4);
    let d = p * p;
    for (act, name) in [(Activation::L1 { lambda: 2.0 }, "l1"), (Activation::Relu, "relu"), (Activation::L0 { lambda: 2.0 }, "l0")] {
        let plug = NokPlug {
            patch: p,
            activation: name.into(),
            lambda: 0.5,
            layers: 3,
            learn_rotation: false,
            structure: Structure::Ssf,
            ..NokPlug::default()
        };
        let spec = FrontSpec::Nok(plug.clone());
        let seed = 9;
        let front = Front::new(&spec, s, None, seed).unwrap();
        let x = image(b, s, 2);
        let out = run(&front, &x, b, s * s);
        let layer = front_layer(seed, d, act);
        let mut sc = LayerScratch::default();
        for k in 0..b {
            for (pi, pj) in (0..s / p).flat_map(|i| (0..s / p).map(move |j| (i, j))) {
                let patch: Vec<f64> = (0..d).map(|t| f64::from(x[k * s * s + (pi * p + t / p) * s + pj * p + t % p])).collect();
                let (y, _) = layer.encode(&patch, 3, &mut sc).unwrap();
                let mut rec = vec![0.0; d];
                layer.reconstruct(&y, &mut rec, &mut sc);
                for t in 0..d {
                    let got = out[k * s * s + (pi * p + t / p) * s + pj * p + t % p];
                    assert!(
                        (f64::from(got) - rec[t]).abs() < 1e-4 * (1.0 + rec[t].abs()),
                        "{name}: patch ({pi}, {pj}) entry {t}: {got} vs {}",
                        rec[t]
                    );
                }
            }
        }
    }
}

/// The layer the front builds for its input block (the same `B`: same structure, seed derivation
/// and rotation).
fn front_layer(seed: u64, d: usize, act: Activation) -> NokLayer {
    let op = Structure::Ssf.build(d, 2 * d, SsfRotation::Phase, &mut rng_from_seed(gradfree_core::derive_seed(seed, 0xb10c))).unwrap();
    NokLayer::new(op, act).unwrap()
}

/// `L = <G, block(x)>`: the gradient the front gives `theta` (Cayley map) against central
/// differences of `L` in `theta`.
#[test]
fn theta_gradient_matches_finite_differences() {
    let (b, s, p) = (1, 3, 3);
    let plug = NokPlug { patch: p, activation: "l1".into(), lambda: 0.3, layers: 2, ..NokPlug::default() };
    let mut front = Front::new(&FrontSpec::Nok(plug), s, None, 4).unwrap();
    let theta0: Vec<f32> = (0..front.n_params()).map(|i| 0.3 * ((i as f32) * 1.7).sin()).collect();
    front.set_params(&theta0);
    let x = image(b, s, 3);
    let g = image(b, s, 4);
    let dev = device();
    let loss = |f: &Front, pass: &mut Option<&mut FrontPass>| {
        let t = Tensor::<2>::from_data(TensorData::new(x.clone(), [b, s * s]), &dev);
        let gt = Tensor::<2>::from_data(TensorData::new(g.clone(), [b, s * s]), &dev);
        (f.input(t, pass).unwrap() * gt).sum()
    };
    let mut pass = FrontPass::default();
    let l = loss(&front, &mut Some(&mut pass));
    let grads = l.backward();
    let mut grad = Vec::new();
    front.grads(&pass, &grads, &mut grad).unwrap();
    assert_eq!(grad.len(), theta0.len());
    // The block is piecewise smooth (thresholds): a difference whose step crosses a kink is off,
    // so most, not all, parameters must agree closely; all must agree roughly.
    let h = 2e-3f32;
    let mut close = 0;
    for k in 0..theta0.len() {
        let mut f2 = front.clone();
        let mut t = theta0.clone();
        t[k] += h;
        f2.set_params(&t);
        let up = loss(&f2, &mut None).into_scalar::<f32>();
        t[k] -= 2.0 * h;
        f2.set_params(&t);
        let down = loss(&f2, &mut None).into_scalar::<f32>();
        let fd = (up - down) / (2.0 * h);
        assert!((fd - grad[k]).abs() < 0.15 * (1.0 + fd.abs()), "theta[{k}]: {} vs finite differences {fd}", grad[k]);
        close += usize::from((fd - grad[k]).abs() < 3e-3 * (1.0 + fd.abs()));
    }
    assert!(3 * close >= 2 * theta0.len(), "{close} of {} parameters agree to 3e-3", theta0.len());
    // The rotation in use is orthogonal.
    let r = cayley(&theta0.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), p * p).unwrap();
    let d = p * p;
    let dot: f64 = (0..d).map(|i| r[i] * r[d + i]).sum();
    assert!(dot.abs() < 1e-12);
}

fn digits() -> (Vec<f32>, Vec<u32>) {
    let ds = gradfree_data::labeled::digits().unwrap();
    let n = 1500;
    (ds.x[..n * 64].to_vec(), ds.labels[..n].to_vec())
}

#[test]
fn cnn_with_the_block_trains_resumes_bit_identically_and_fgsm_goes_through_it() {
    let (x, y) = digits();
    let data = TrainSet { x: &x, d: 64, labels: &y, clean: None, k: 10, weights: None };
    let mut spec = TrainSpec::new(Method::Ce, 6, 3);
    spec.arch = Arch::Cnn;
    spec.front = Some(FrontSpec::Nok(NokPlug { at: NokAt::Both, ..NokPlug::default() }));
    let mut straight = Trainer::new(spec.clone(), &data).unwrap();
    while !straight.finished() {
        straight.run_epoch(&data, None).unwrap();
    }
    let mut first = Trainer::new(spec, &data).unwrap();
    first.run_epoch(&data, None).unwrap();
    first.run_epoch(&data, None).unwrap();
    first.run_epoch(&data, None).unwrap();
    let saved: gradfree_robust::train::TrainerState = serde_json::from_str(&serde_json::to_string(first.state()).unwrap()).unwrap();
    let mut resumed = Trainer::from_state(saved).unwrap();
    while !resumed.finished() {
        resumed.run_epoch(&data, None).unwrap();
    }
    assert_eq!(straight.state().params, resumed.state().params, "resume changed the run");
    // theta moved: the rotation is learned.
    let p = &straight.state().params[0];
    let front_params = 16 * 15 / 2 + 32 * 31 / 2; // a 16-d (4 x 4 patches) and a 32-d (channels) block
    assert!(p[p.len() - front_params..].iter().any(|v| *v != 0.0));
    let acc = straight.accuracy(&x, &y).unwrap();
    assert!(acc > 0.7, "training accuracy {acc}");
    // FGSM: eps = 0 is the identity, every pixel moves by at most eps, and the attack hurts.
    assert_eq!(straight.fgsm(&x, &y, 0.0).unwrap(), x);
    let adv = straight.fgsm(&x, &y, 2.0).unwrap();
    assert!(adv.iter().zip(&x).all(|(a, b)| (a - b).abs() <= 2.0 + 1e-6));
    let adv_acc = straight.accuracy(&adv, &y).unwrap();
    assert!(adv_acc < acc - 0.1, "FGSM did not hurt: {acc} -> {adv_acc}");
    assert!(straight.fgsm(&x, &y, f32::NAN).unwrap_err().to_string().contains("eps"));
}

#[test]
fn bad_settings_are_errors_naming_the_setting() {
    let (x, y) = digits();
    let data = TrainSet { x: &x, d: 64, labels: &y, clean: None, k: 10, weights: None };
    let bad = |plug: NokPlug, arch: Arch| {
        let mut spec = TrainSpec::new(Method::Ce, 1, 0);
        spec.arch = arch;
        spec.front = Some(FrontSpec::Nok(plug));
        Trainer::new(spec, &data).err().expect("an error").to_string()
    };
    assert!(bad(NokPlug { patch: 3, ..NokPlug::default() }, Arch::Cnn).contains("block patch"));
    assert!(bad(NokPlug { lambda: 0.0, ..NokPlug::default() }, Arch::Cnn).contains("block lambda"));
    assert!(bad(NokPlug { activation: "scad".into(), ..NokPlug::default() }, Arch::Cnn).contains("block activation"));
    assert!(bad(NokPlug { layers: 0, ..NokPlug::default() }, Arch::Cnn).contains("block layers"));
    assert!(bad(NokPlug { at: NokAt::Conv1, ..NokPlug::default() }, Arch::mlp()).contains("block at"));
    let rows = TrainSet { x: &x[..1500 * 60], d: 60, labels: &y, clean: None, k: 10, weights: None };
    let mut spec = TrainSpec::new(Method::Ce, 1, 0);
    spec.front = Some(FrontSpec::Mean);
    assert!(Trainer::new(spec, &rows).err().unwrap().to_string().contains("front"));
}
