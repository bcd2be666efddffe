//! The structured layer (thesis 7.7-7.9): (1/N) W W^T = I_d, W^T W / N is a projection, and the
//! objective (7.8) never increases across layers, by at least Thm 23's margin, for l1 + soft
//! threshold, ReLU + indicator and l0 + hard threshold.

use gradfree_core::rng_from_seed;
use gradfree_robust::nok::{Activation, LayerScratch, NokLayer, block_orthogonal};
use rand_distr::{Distribution, StandardNormal};

fn layer(d: usize, n: usize, act: Activation, seed: u64) -> NokLayer {
    let mut rng = rng_from_seed(seed);
    let b = block_orthogonal(d, n, &mut rng).unwrap();
    let mut l = NokLayer::new(Box::new(b), act).unwrap();
    // A random rotation R (any orthogonal R keeps the identities).
    l.set_rotation(gradfree_core::linalg::random_orthogonal(d, seed + 1)).unwrap();
    l
}

#[test]
fn w_is_a_tight_frame_and_p_a_projection() {
    let (d, n) = (6, 24);
    let l = layer(d, n, Activation::Relu, 3);
    let mut s = LayerScratch::default();
    let (mut col, mut back) = (vec![0.0; n], vec![0.0; d]);
    for j in 0..d {
        let e: Vec<f64> = (0..d).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
        l.wt(&e, &mut col, &mut s);
        l.w(&col, &mut back, &mut s);
        for i in 0..d {
            assert!((back[i] / n as f64 - e[i]).abs() < 1e-12, "(W W^T / N)[{i},{j}] = {}", back[i] / n as f64);
        }
    }
    // P y = W^T W y / N; P P y = P y, and each column of W has norm sqrt(d).
    let mut rng = rng_from_seed(9);
    let y: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
    let p = |v: &[f64], s: &mut LayerScratch| {
        let mut wy = vec![0.0; d];
        l.w(v, &mut wy, s);
        let mut out = vec![0.0; n];
        l.wt(&wy, &mut out, s);
        out.iter().map(|x| x / n as f64).collect::<Vec<f64>>()
    };
    let py = p(&y, &mut s);
    let ppy = p(&py, &mut s);
    assert!(py.iter().zip(&ppy).all(|(a, b)| (a - b).abs() < 1e-12));
    let mut wcol = vec![0.0; d];
    let e0: Vec<f64> = (0..n).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    l.w(&e0, &mut wcol, &mut s);
    assert!((wcol.iter().map(|v| v * v).sum::<f64>() - d as f64).abs() < 1e-10);
}

#[test]
fn layers_never_increase_the_objective() {
    let (d, n) = (8, 32);
    for (k, act) in [Activation::L1 { lambda: 0.3 }, Activation::Relu, Activation::L0 { lambda: 0.2 }].into_iter().enumerate() {
        for seed in 0..5 {
            let l = layer(d, n, act, 100 * k as u64 + seed);
            let mut rng = rng_from_seed(seed + 50);
            let x: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
            let mut s = LayerScratch::default();
            let (mut y, mut next) = (vec![0.0; n], vec![0.0; n]);
            let mut q = l.objective(&x, &y, &mut s);
            for t in 0..30 {
                l.step(&x, &y, &mut next, &mut s);
                let q_next = l.objective(&x, &next, &mut s);
                // Thm 23: Q(y+) <= Q(y) - 1/(2N) ||(I - P)(y+ - y)||^2.
                let diff: Vec<f64> = next.iter().zip(&y).map(|(a, b)| a - b).collect();
                let mut wd = vec![0.0; d];
                l.w(&diff, &mut wd, &mut s);
                let mut pd = vec![0.0; n];
                l.wt(&wd, &mut pd, &mut s);
                let margin: f64 = diff.iter().zip(&pd).map(|(a, b)| (a - b / n as f64).powi(2)).sum::<f64>() / (2.0 * n as f64);
                assert!(q_next <= q - margin + 1e-10, "{act:?} seed {seed} layer {t}: {q} -> {q_next} (margin {margin})");
                q = q_next;
                std::mem::swap(&mut y, &mut next);
            }
            let (code, trace) = l.encode(&x, 30, &mut s).unwrap();
            assert_eq!(code, y);
            assert!(trace.windows(2).all(|w| w[1] <= w[0] + 1e-10));
        }
    }
}

#[test]
fn bad_shapes_are_errors() {
    let mut rng = rng_from_seed(1);
    assert!(block_orthogonal(6, 9, &mut rng).unwrap_err().to_string().contains("n_components"));
    assert!(block_orthogonal(6, 0, &mut rng).unwrap_err().to_string().contains("n_components"));
    let l = layer(4, 8, Activation::Relu, 1);
    let mut s = LayerScratch::default();
    assert!(l.encode(&[1.0, 2.0], 3, &mut s).is_err());
    assert!(l.encode(&[1.0, f64::NAN, 0.0, 0.0], 3, &mut s).unwrap_err().to_string().contains("x[1]"));
}

/// The unsupervised alternation (7.16-7.17): T1 layers on every row, then the Procrustes R-step;
/// the R-step never increases the objective, R stays orthogonal, and the alternation as a whole is
/// monotone (each Y-phase warm-started from the last codes).
#[test]
fn procrustes_step_never_increases_the_objective() {
    let (d, n, rows) = (6, 18, 40);
    let mut l = layer(d, n, Activation::L1 { lambda: 0.05 }, 11);
    let mut rng = rng_from_seed(12);
    let xs: Vec<f64> = (0..rows * d).map(|_| StandardNormal.sample(&mut rng)).collect();
    let mut s = LayerScratch::default();
    let total = |l: &NokLayer, ys: &[f64], s: &mut LayerScratch| -> f64 {
        xs.chunks_exact(d).zip(ys.chunks_exact(n)).map(|(x, y)| l.objective(x, y, s)).sum()
    };
    let mut ys = vec![0.0; rows * n];
    let mut last = total(&l, &ys, &mut s);
    let mut next = vec![0.0; n];
    for round in 0..6 {
        for (x, y) in xs.chunks_exact(d).zip(ys.chunks_exact_mut(n)) {
            for _ in 0..3 {
                l.step(x, y, &mut next, &mut s);
                y.copy_from_slice(&next);
            }
        }
        let after_y = total(&l, &ys, &mut s);
        l.procrustes_step(&xs, &ys, &mut s).unwrap();
        let after_r = total(&l, &ys, &mut s);
        assert!(after_y <= last + 1e-10 && after_r <= after_y + 1e-10, "round {round}: {last} -> {after_y} -> {after_r}");
        if round == 0 {
            // From R = a random rotation, the first R-step makes real progress.
            assert!(after_r < after_y - 1e-4, "{after_y} -> {after_r}");
        }
        let r = l.rotation();
        for i in 0..d {
            for j in 0..d {
                let dot: f64 = (0..d).map(|k| r[i * d + k] * r[j * d + k]).sum();
                assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-10);
            }
        }
        last = after_r;
    }
    assert!(l.procrustes_step(&xs[..5], &ys, &mut s).is_err());
}

/// `N < d`: `B` is `N` orthonormal columns of a Haar matrix and the layer scales `W` by
/// `sqrt(N)`, so `W^T W / N = I_N` and Thm 23's descent holds layer by layer.
#[test]
fn narrow_layers_never_increase_the_objective() {
    let d = 9;
    for n in [1, 2, 5] {
        for (k, act) in [Activation::L1 { lambda: 0.1 }, Activation::Relu, Activation::L0 { lambda: 0.05 }].into_iter().enumerate() {
            let l = layer(d, n, act, 40 + k as u64 + 10 * n as u64);
            let mut rng = rng_from_seed(7 + n as u64);
            let x: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
            let mut s = LayerScratch::default();
            let (code, trace) = l.encode(&x, 25, &mut s).unwrap();
            let q0 = l.objective(&x, &vec![0.0; n], &mut s);
            assert!(trace[0] <= q0 + 1e-12, "N = {n} {act:?}: {q0} -> {}", trace[0]);
            assert!(trace.windows(2).all(|w| w[1] <= w[0] + 1e-12), "N = {n} {act:?}: {trace:?}");
            assert!(code.iter().all(|v| v.is_finite()));
        }
    }
}
