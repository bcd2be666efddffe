//! The training stack on real data (scikit-learn's digits, shipped with gradfree-data): it
//! learns, the tensor losses equal the `f64` references, resumed runs are bit-identical, the same
//! seed gives the same model, NPCL prunes the flipped labels, and bad input is a clear error.
#![cfg(feature = "train")]

use gradfree_core::rng_from_seed;
use gradfree_robust::hinge;
use gradfree_robust::train::{Arch, Method, OptimizerSpec, SampleLoss, Schedule, TrainSet, TrainSpec, Trainer, TrainerState};
use gradfree_robust::{LabelNoise, TrainOn, flip_labels};
use rand::RngExt;
use rand::seq::SliceRandom;

struct Split {
    x: Vec<f32>,
    y: Vec<u32>,
    xt: Vec<f32>,
    yt: Vec<u32>,
}

fn digits() -> Split {
    let ds = gradfree_data::labeled::digits().unwrap();
    let mut idx: Vec<usize> = (0..ds.n).collect();
    idx.shuffle(&mut rng_from_seed(5));
    let (tr, te) = idx.split_at(1400);
    let take = |rows: &[usize]| -> (Vec<f32>, Vec<u32>) {
        (rows.iter().flat_map(|&i| ds.row(i).to_vec()).collect(), rows.iter().map(|&i| ds.labels[i]).collect())
    };
    let (x, y) = take(tr);
    let (xt, yt) = take(te);
    Split { x, y, xt, yt }
}

fn set<'a>(s: &'a Split, labels: &'a [u32], clean: Option<&'a [u32]>) -> TrainSet<'a> {
    TrainSet { x: &s.x, d: 64, labels, clean, k: 10, weights: None }
}

fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(f)
}

#[test]
fn tensor_losses_equal_the_references() {
    use burn::prelude::*;
    use burn::tensor::TensorData;
    let dev = gradfree_robust::train::trainer::device();
    let mut rng = rng_from_seed(3);
    let (b, k) = (64, 7);
    let t: Vec<f32> = (0..b * k).map(|_| (rng.random::<f32>() - 0.5) * 6.0).collect();
    let y: Vec<usize> = (0..b).map(|_| rng.random_range(0..k)).collect();
    let onehot: Vec<f32> = (0..b * k).map(|i| if y[i / k] == i % k { 1.0 } else { 0.0 }).collect();
    let rows: Vec<Vec<f64>> = t.chunks(k).map(|r| r.iter().map(|v| f64::from(*v)).collect()).collect();
    let neg: Vec<f32> = rows.iter().zip(&y).map(|(r, &c)| if hinge::margin(r, c) < 0.0 { 1.0 } else { 0.0 }).collect();
    type Reference = Box<dyn Fn(&[f64], usize) -> f64>;
    let cases: [(SampleLoss, Reference); 5] = [
        (SampleLoss::CrossEntropy, Box::new(hinge::cross_entropy)),
        (SampleLoss::Gce { q: 0.7 }, Box::new(|r, c| hinge::generalized_cross_entropy(r, c, 0.7))),
        (SampleLoss::Hinge { beta: 0.0 }, Box::new(hinge::hard_hinge)),
        (SampleLoss::Hinge { beta: 1.0 }, Box::new(hinge::soft_hinge)),
        (SampleLoss::Hinge { beta: 0.3 }, Box::new(|r, c| hinge::mixed_hinge(r, c, 0.3))),
    ];
    for (loss, reference) in cases {
        let out = loss.forward(
            Tensor::<2>::from_data(TensorData::new(t.clone(), [b, k]), &dev),
            Tensor::<2>::from_data(TensorData::new(onehot.clone(), [b, k]), &dev),
            Tensor::<1>::from_data(TensorData::new(neg.clone(), [b]), &dev),
        );
        let got = out.into_data().convert::<f32>().try_into_vec::<f32>().unwrap();
        for i in 0..b {
            let want = reference(&rows[i], y[i]);
            assert!((f64::from(got[i]) - want).abs() < 1e-4 * (1.0 + want.abs()), "{loss:?} row {i}: {} vs {want}", got[i]);
        }
    }
}

#[test]
fn cross_entropy_mlp_learns_digits() {
    let s = digits();
    let data = set(&s, &s.y, None);
    let mut spec = TrainSpec::new(Method::Ce, 15, 1);
    spec.batch_size = 64;
    let mut tr = Trainer::new(spec, &data).unwrap();
    let mut last = None;
    while !tr.finished() {
        last = Some(tr.run_epoch(&data, Some((&s.xt, &s.yt))).unwrap());
    }
    let last = last.unwrap();
    assert!(last.test_accuracy.unwrap() > 0.93, "{last:?}");
    assert_eq!(last.selected_fraction, 1.0);
}

#[test]
fn resumed_training_is_bit_identical_and_seeded() {
    let s = digits();
    let noisy = flip_labels(&s.y, 10, "pair:0.35".parse().unwrap(), 2).unwrap().labels;
    for (method, arch) in [
        (Method::Npcl { eps: 0.35, burn_in: 1, train_on: TrainOn::OneMore }, Arch::Cnn),
        (Method::CoTeaching { eps: 0.35, t_k: 2 }, Arch::mlp()),
    ] {
        let data = set(&s, &noisy, Some(&s.y));
        let mut spec = TrainSpec::new(method, 4, 9);
        spec.arch = arch;
        let straight = one_thread(|| {
            let mut t = Trainer::new(spec.clone(), &data).unwrap();
            while !t.finished() {
                t.run_epoch(&data, None).unwrap();
            }
            t.state().clone()
        });
        let resumed = one_thread(|| {
            let mut t = Trainer::new(spec.clone(), &data).unwrap();
            t.run_epoch(&data, None).unwrap();
            t.run_epoch(&data, None).unwrap();
            let json = serde_json::to_string(t.state()).unwrap();
            let state: TrainerState = serde_json::from_str(&json).unwrap();
            let mut t = Trainer::from_state(state).unwrap();
            while !t.finished() {
                t.run_epoch(&data, None).unwrap();
            }
            t.state().clone()
        });
        assert_eq!(straight.params, resumed.params, "{method:?}");
        assert_eq!(straight.optim, resumed.optim);
        assert_eq!(straight.selected, resumed.selected);
        let strip = |h: &[gradfree_robust::train::EpochRecord]| h.iter().map(|r| (r.train_loss, r.label_precision)).collect::<Vec<_>>();
        assert_eq!(strip(&straight.history), strip(&resumed.history));
        // Same seed, same model; another seed, another model.
        let again = one_thread(|| {
            let mut t = Trainer::new(spec.clone(), &data).unwrap();
            while !t.finished() {
                t.run_epoch(&data, None).unwrap();
            }
            t.state().params.clone()
        });
        assert_eq!(again, straight.params);
        let mut other = spec.clone();
        other.seed = 10;
        assert_ne!(Trainer::new(other, &data).unwrap().state().params, Trainer::new(spec, &data).unwrap().state().params);
    }
}

#[test]
fn npcl_prunes_the_flipped_labels() {
    // Three well separated Gaussian classes in 2-d (a synthetic problem, not a data set), 30%
    // symmetric noise: after the burn-in NPCL keeps about 1 - eps of each batch, nearly all clean.
    let mut rng = rng_from_seed(11);
    let n = 1500;
    let centres = [(-4.0f32, 0.0f32), (4.0, 0.0), (0.0, 6.0)];
    let y: Vec<u32> = (0..n).map(|i| (i % 3) as u32).collect();
    let x: Vec<f32> = y
        .iter()
        .flat_map(|&c| {
            let (a, b) = centres[c as usize];
            [a + rng.random::<f32>() - 0.5, b + rng.random::<f32>() - 0.5]
        })
        .collect();
    let noisy = flip_labels(&y, 3, LabelNoise { kind: gradfree_robust::NoiseKind::Symmetric, rate: 0.3 }, 4).unwrap();
    let data = TrainSet { x: &x, d: 2, labels: &noisy.labels, clean: Some(&y), k: 3, weights: None };
    let mut spec = TrainSpec::new(Method::Npcl { eps: 0.3, burn_in: 3, train_on: TrainOn::Selected }, 12, 3);
    spec.arch = Arch::Mlp { hidden: vec![16] };
    spec.optimizer = OptimizerSpec::Adam { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
    spec.schedule = Some(Schedule::Constant);
    let mut t = Trainer::new(spec, &data).unwrap();
    let mut rec = None;
    while !t.finished() {
        rec = Some(t.run_epoch(&data, Some((&x, &y))).unwrap());
    }
    let rec = rec.unwrap();
    assert!(rec.test_accuracy.unwrap() > 0.98, "{rec:?}");
    assert!(rec.label_precision.unwrap() > 0.97, "{rec:?}");
    assert!((rec.selected_fraction - 0.7).abs() < 0.08, "{rec:?}");
    // Of the flipped labels, the last epoch's selection dropped nearly all.
    let sel = &t.state().selected;
    let flipped_kept = noisy.flipped.iter().zip(sel).filter(|(f, s)| **f && **s).count();
    let flipped = noisy.flipped.iter().filter(|f| **f).count();
    assert!((flipped_kept as f64) < 0.08 * flipped as f64, "{flipped_kept} of {flipped} flipped labels kept");
}

#[test]
fn bad_input_is_a_clear_error() {
    let s = digits();
    let spec = TrainSpec::new(Method::Ce, 1, 0);
    let err = |data: TrainSet, spec: &TrainSpec| Trainer::new(spec.clone(), &data).err().expect("an error").to_string();
    let mut y = s.y.clone();
    y[3] = 10;
    assert!(err(set(&s, &y, None), &spec).contains("y[3] = 10 is outside the classes 0..10"));
    assert!(err(TrainSet { x: &[], d: 64, labels: &[], clean: None, k: 10, weights: None }, &spec).contains("empty"));
    let mut x = s.x.clone();
    x[70] = f32::NAN;
    assert!(err(TrainSet { x: &x, d: 64, labels: &s.y, clean: None, k: 10, weights: None }, &spec).contains("X[1, 6] = NaN"));
    assert!(err(TrainSet { x: &s.x, d: 64, labels: &s.y[1..], clean: None, k: 10, weights: None }, &spec).contains("disagree"));
    let mut zero = spec.clone();
    zero.batch_size = 0;
    assert!(err(set(&s, &s.y, None), &zero).contains("batch_size"));
    assert!(Method::from_name("npcl", 1.0, 5).unwrap_err().to_string().contains("[0, 1)"));
    assert!(Method::from_name("mse", 0.2, 5).unwrap_err().to_string().contains("npcl, cl, ce, gce, coteaching, hinge"));
    let mut cnn = spec.clone();
    cnn.arch = Arch::Cnn;
    let odd = vec![0.0f32; 10 * 50];
    assert!(err(TrainSet { x: &odd, d: 50, labels: &[0; 10], clean: None, k: 10, weights: None }, &cnn).contains("square images"));
}

/// Sample weights: all 2 is all 1 and weight 0 is the row left out, bit for bit, for every
/// method (the weighted mean per step, NPCL's weighted threshold and selection, Co-teaching's
/// kept weight); after `collapse_rows`, integer weights are repeated rows bit for bit.
#[test]
fn sample_weights_scale_out_and_zero_weights_drop_rows() {
    use gradfree_robust::train::collapse_rows;
    let s = digits();
    let n = 300;
    let x = &s.x[..n * 64];
    let noisy = flip_labels(&s.y[..n], 10, LabelNoise { kind: gradfree_robust::NoiseKind::Symmetric, rate: 0.3 }, 1).unwrap().labels;
    let mut rng = rng_from_seed(2);
    let w: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(0..4u32))).collect();
    let methods = [
        Method::Npcl { eps: 0.3, burn_in: 1, train_on: TrainOn::Selected },
        Method::Npcl { eps: 0.0, burn_in: 0, train_on: TrainOn::OneMore },
        Method::Ce,
        Method::CoTeaching { eps: 0.3, t_k: 2 },
    ];
    let run = |method: Method, data: &TrainSet| -> TrainerState {
        let mut spec = TrainSpec::new(method, 4, 9);
        spec.arch = Arch::Mlp { hidden: vec![16] };
        spec.batch_size = 40;
        let mut t = Trainer::new(spec, data).unwrap();
        while !t.finished() {
            t.run_epoch(data, None).unwrap();
        }
        t.state().clone()
    };
    for method in methods {
        let base = TrainSet { x, d: 64, labels: &noisy, clean: None, k: 10, weights: None };
        let ones = vec![1.0; n];
        let twos = vec![2.0; n];
        let a = run(method, &base);
        let b = run(method, &TrainSet { weights: Some(&ones), ..base });
        let c = run(method, &TrainSet { weights: Some(&twos), ..base });
        assert_eq!(a.params, b.params, "{method:?}: all-1 weights differ from none");
        assert_eq!(a.params, c.params, "{method:?}: all-2 weights differ from all-1");
        assert_eq!(a.history.iter().map(|h| h.train_loss).collect::<Vec<_>>(), c.history.iter().map(|h| h.train_loss).collect::<Vec<_>>());
        // Zero weights: the run without those rows.
        let keep: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
        let xk: Vec<f32> = keep.iter().flat_map(|&i| x[i * 64..(i + 1) * 64].to_vec()).collect();
        let yk: Vec<u32> = keep.iter().map(|&i| noisy[i]).collect();
        let wk: Vec<f64> = keep.iter().map(|&i| w[i]).collect();
        let weighted = run(method, &TrainSet { weights: Some(&w), ..base });
        let dropped = run(method, &TrainSet { x: &xk, labels: &yk, weights: Some(&wk), ..base });
        assert_eq!(weighted.params, dropped.params, "{method:?}: zero weights differ from dropped rows");
        assert!(keep.iter().enumerate().all(|(j, &i)| weighted.selected[i] == dropped.selected[j]));
        assert!((0..n).filter(|&i| w[i] == 0.0).all(|i| !weighted.selected[i]));
        assert_ne!(weighted.params, a.params);
        // Integer weights are repeated rows once both are collapsed to their distinct rows.
        let xr: Vec<f32> = (0..n).flat_map(|i| std::iter::repeat_n(&x[i * 64..(i + 1) * 64], w[i] as usize).flatten().copied()).collect();
        let yr: Vec<u32> = (0..n).flat_map(|i| std::iter::repeat_n(noisy[i], w[i] as usize)).collect();
        let from_w = collapse_rows(&TrainSet { weights: Some(&w), ..base });
        let from_r = collapse_rows(&TrainSet { x: &xr, labels: &yr, ..base });
        assert_eq!((&from_w.x, &from_w.labels, &from_w.weights), (&from_r.x, &from_r.labels, &from_r.weights));
        assert_eq!(run(method, &from_w.set(64, 10)).params, run(method, &from_r.set(64, 10)).params);
    }
    // Bad weights name sample_weight.
    let base = TrainSet { x, d: 64, labels: &noisy, clean: None, k: 10, weights: None };
    let spec = TrainSpec::new(Method::Ce, 1, 0);
    for bad in [vec![-1.0; n], vec![f64::NAN; n], vec![0.0; n]] {
        let e = Trainer::new(spec.clone(), &TrainSet { weights: Some(&bad), ..base }).err().unwrap().to_string();
        assert!(e.contains("sample_weight"), "{e}");
    }
    assert!(Trainer::new(spec, &TrainSet { weights: Some(&[1.0; 3]), ..base }).err().unwrap().to_string().contains("sample_weight"));
}

/// Same seed, same bits at 1 and 2 threads: the CNN on its own kernels (with and without the NOK
/// block after the first convolution), and an MLP wide enough for the matrix products to split
/// across threads.
#[test]
fn training_gives_the_same_bits_at_one_and_two_threads() {
    use gradfree_robust::train::{FrontSpec, NokAt, NokPlug};
    let s = digits();
    let data = set(&s, &s.y, None);
    let block = FrontSpec::Nok(NokPlug { at: NokAt::Both, patch: 2, ..NokPlug::default() });
    for (arch, front) in [(Arch::Cnn, None), (Arch::Cnn, Some(block)), (Arch::Mlp { hidden: vec![1024, 1024] }, None)] {
        let mut spec = TrainSpec::new(Method::Ce, 2, 4);
        spec.arch = arch.clone();
        spec.front = front.clone();
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
                let mut t = Trainer::new(spec.clone(), &data).unwrap();
                while !t.finished() {
                    t.run_epoch(&data, None).unwrap();
                }
                t.state().params.clone()
            })
        };
        let (one, two) = (run(1), run(2));
        let differ = one.iter().flatten().zip(two.iter().flatten()).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
        assert_eq!(differ, 0, "{arch:?} {front:?}: {differ} parameters differ between 1 and 2 threads");
    }
}
