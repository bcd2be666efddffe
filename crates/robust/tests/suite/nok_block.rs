//! The NOK block (thesis sec. 7.3-7.5): the Fourier structures are tight frames and their FFT
//! layer equals the same layer with a dense `B`; the block's fit never increases (7.16); the
//! Cayley map gives orthogonal matrices and its gradient matches finite differences; the
//! first-layer ReLU kernel approaches the arc-cosine kernel as `N` grows; results do not depend on
//! the thread count; bad input is an error naming the argument.

use gradfree_core::rng_from_seed;
use gradfree_features::kernel::Kernel;
use gradfree_features::projection::{DenseProjection, SsfRotation, dense_rows};
use gradfree_robust::nok::cayley::{cayley, cayley_grad, n_params};
use gradfree_robust::nok::{Activation, LayerScratch, NokBlock, NokLayer, NokSpec, Structure};
use rand_distr::{Distribution, StandardNormal};

fn gaussian(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rng_from_seed(seed);
    (0..n).map(|_| StandardNormal.sample(&mut rng)).collect()
}

#[test]
fn fourier_structures_are_tight_frames_and_the_fft_layer_equals_the_dense_one() {
    let d = 10;
    for (structure, rotation, n) in [
        (Structure::Ssf, SsfRotation::Signs, 24),
        (Structure::Ssf, SsfRotation::Phase, 40),
        (Structure::Subgroup, SsfRotation::Phase, 22),
        (Structure::Subgroup, SsfRotation::Signs, 12),
    ] {
        let op = structure.build(d, n, rotation, &mut rng_from_seed(4)).unwrap();
        let n = op.dim_out();
        let bt = dense_rows(op.as_ref());
        // Unit columns of B and B B^T = (N/d) I.
        for i in 0..n {
            let norm: f64 = bt[i * d..(i + 1) * d].iter().map(|v| v * v).sum();
            assert!((norm - 1.0).abs() < 1e-10, "{structure:?}: column {i} has norm^2 {norm}");
        }
        for a in 0..d {
            for b in 0..d {
                let g: f64 = (0..n).map(|i| bt[i * d + a] * bt[i * d + b]).sum();
                let want = if a == b { n as f64 / d as f64 } else { 0.0 };
                assert!((g - want).abs() < 1e-9, "{structure:?} {rotation:?}: (B B^T)[{a},{b}] = {g}");
            }
        }
        // The same layer with B as a dense matrix: every step agrees.
        let act = Activation::L1 { lambda: 0.3 };
        let r = gradfree_core::linalg::random_orthogonal(d, 8);
        let mut fast = NokLayer::new(op, act).unwrap();
        let mut dense = NokLayer::new(Box::new(DenseProjection::from_rows(bt, d).unwrap()), act).unwrap();
        fast.set_rotation(r.clone()).unwrap();
        dense.set_rotation(r).unwrap();
        let x = gaussian(d, 2);
        let mut s = LayerScratch::default();
        let (yf, tf) = fast.encode(&x, 6, &mut s).unwrap();
        let (yd, td) = dense.encode(&x, 6, &mut s).unwrap();
        for (a, b) in yf.iter().zip(&yd) {
            assert!((a - b).abs() < 1e-10, "{structure:?}: FFT layer {a} vs dense {b}");
        }
        for (a, b) in tf.iter().zip(&td) {
            assert!((a - b).abs() < 1e-10);
        }
        // The injected form (R only in W^T x) is the same step.
        let (mut c, mut y1, mut y2) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        fast.inject(&x, &mut c, &mut s);
        fast.step_injected(&c, &yf, &mut y1, &mut s);
        fast.step(&x, &yf, &mut y2, &mut s);
        for (a, b) in y1.iter().zip(&y2) {
            assert!((a - b).abs() < 1e-10);
        }
    }
}

fn spec(activation: &str, lambda: f64, structure: Structure, n: usize) -> NokSpec {
    NokSpec { n_components: n, activation: activation.into(), lambda, layers: 4, alternations: 3, structure, seed: 5, ..NokSpec::default() }
}

/// Rows with structure (a low-rank signal plus noise), so the R-steps have something to find.
fn data(rows: usize, d: usize, seed: u64) -> Vec<f64> {
    let basis = gaussian(3 * d, seed);
    let coef = gaussian(rows * 3, seed + 1);
    let noise = gaussian(rows * d, seed + 2);
    (0..rows * d).map(|k| (0..3).map(|j| coef[(k / d) * 3 + j] * basis[j * d + k % d]).sum::<f64>() + 0.3 * noise[k]).collect()
}

#[test]
fn the_alternating_fit_never_increases_the_objective() {
    let d = 8;
    let x = data(200, d, 1);
    for (act, lambda) in [("l1", 0.2), ("relu", 1.0), ("l0", 0.05), ("scad", 0.2)] {
        for structure in [Structure::Ssf, Structure::Orthogonal] {
            let mut b = NokBlock::new(spec(act, lambda, structure, 2 * d + if structure == Structure::Ssf { 2 } else { 0 }), d).unwrap();
            b.fit(&x).unwrap();
            let t = b.fit_trace();
            assert_eq!(t.len(), 1 + 3 * (4 + 1));
            for w in t.windows(2) {
                assert!(w[1] <= w[0] + 1e-9 * w[0].abs().max(1.0), "{act} {structure:?}: {} -> {}", w[0], w[1]);
            }
            assert!(t.last().unwrap() < &(0.9 * t[0]), "{act} {structure:?}: the fit made no progress: {t:?}");
            for r in b.rotations() {
                for i in 0..d {
                    let n: f64 = (0..d).map(|k| r[i * d + k] * r[i * d + k]).sum();
                    assert!((n - 1.0).abs() < 1e-9);
                }
            }
            // The transform reconstructs: closer to x than 0 is.
            let xr = b.transform(&x).unwrap();
            let err: f64 = xr.iter().zip(&x).map(|(a, b)| (a - b).powi(2)).sum();
            let base: f64 = x.iter().map(|v| v * v).sum();
            assert!(err < base, "{act}: reconstruction error {err} vs ||X||^2 {base}");
        }
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let d = 10;
    let x = data(300, d, 7);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut b = NokBlock::new(spec("l1", 0.1, Structure::Ssf, 24), d).unwrap();
            b.fit(&x).unwrap();
            (b.rotations().to_vec(), b.transform(&x).unwrap(), b.fit_trace().to_vec())
        })
    };
    assert_eq!(run(1), run(2));
    // Same seed, same B: a block rebuilt from its parts gives the same codes.
    let mut b = NokBlock::new(spec("l1", 0.1, Structure::Ssf, 24), d).unwrap();
    b.fit(&x).unwrap();
    let again = NokBlock::from_state(serde_json::from_str(&serde_json::to_string(&b.state()).unwrap()).unwrap()).unwrap();
    assert_eq!(b.codes(&x).unwrap(), again.codes(&x).unwrap());
}

#[test]
fn cayley_map_is_orthogonal_and_its_gradient_matches_finite_differences() {
    let d = 5;
    let theta: Vec<f64> = gaussian(n_params(d), 3).iter().map(|v| 0.7 * v).collect();
    let r = cayley(&theta, d).unwrap();
    for i in 0..d {
        for j in 0..d {
            let dot: f64 = (0..d).map(|k| r[i * d + k] * r[j * d + k]).sum();
            assert!((dot - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "R R^T [{i},{j}] = {dot}");
        }
    }
    assert_eq!(cayley(&vec![0.0; n_params(d)], d).unwrap(), {
        let mut id = vec![0.0; d * d];
        (0..d).for_each(|i| id[i * d + i] = 1.0);
        id
    });
    // L(R) = <G, R> for a fixed G; dL/dtheta by central differences.
    let g = gaussian(d * d, 11);
    let loss = |t: &[f64]| cayley(t, d).unwrap().iter().zip(&g).map(|(a, b)| a * b).sum::<f64>();
    let grad = cayley_grad(&theta, d, &g).unwrap();
    for k in 0..theta.len() {
        let (mut p, mut m) = (theta.clone(), theta.clone());
        p[k] += 1e-6;
        m[k] -= 1e-6;
        let fd = (loss(&p) - loss(&m)) / 2e-6;
        assert!((fd - grad[k]).abs() < 1e-6 * (1.0 + fd.abs()), "parameter {k}: analytic {} vs finite differences {fd}", grad[k]);
    }
    assert!(cayley(&[1.0, f64::NAN, 0.0], 3).unwrap_err().to_string().contains("theta[1]"));
    assert!(cayley(&[1.0], 3).is_err());
}

/// Thesis sec. 7.5: the first layer with ReLU gives `k_{1,N}(x, z) -> E_w[relu(w^T x) relu(w^T z)]`
/// for `w` uniform on `sqrt(d) S^{d-1}`, which is half the arc-cosine kernel of order 1 (Cho &
/// Saul 2009), since relu is 1-homogeneous and `E ||g||^2 = d` for Gaussian `g`.
#[test]
fn first_layer_relu_kernel_approaches_the_arc_cosine_kernel() {
    let d = 8;
    let x = gaussian(6 * d, 21);
    let exact: Vec<f64> = (0..36)
        .map(|k| 0.5 * Kernel::ArcCos { order: 1 }.eval(&x[(k / 6) * d..(k / 6 + 1) * d], &x[(k % 6) * d..(k % 6 + 1) * d]))
        .collect();
    let err = |n: usize| {
        let mut total = 0.0;
        for seed in 0..8 {
            let s = NokSpec {
                n_components: n,
                activation: "relu".into(),
                layers: 1,
                alternations: 1,
                structure: Structure::Orthogonal,
                seed,
                ..NokSpec::default()
            };
            let k = NokBlock::new(s, d).unwrap().kernel(&x, &x).unwrap();
            total += k.iter().zip(&exact).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
        }
        total / 8.0
    };
    let scale = exact.iter().map(|v| v * v).sum::<f64>().sqrt();
    let (small, large) = (err(d), err(256 * d));
    assert!(large < 0.04 * scale, "N = {}: relative error {}", 256 * d, large / scale);
    assert!(large < 0.2 * small, "error {small} at N = d, {large} at N = 256 d: no convergence");
}

#[test]
fn bad_input_is_an_error_naming_the_argument() {
    let d = 6;
    let msg = |s: NokSpec, d: usize| NokBlock::new(s, d).unwrap_err().to_string();
    assert!(msg(NokSpec { lambda: 0.0, ..NokSpec::default() }, d).contains("lambda"));
    assert!(msg(NokSpec { lambda: f64::NAN, ..NokSpec::default() }, d).contains("lambda"));
    assert!(msg(NokSpec { activation: "gelu".into(), ..NokSpec::default() }, d).contains("activation"));
    // N < d is a narrow block (rank N), not an error; N = 0 is the default width, and an
    // orthogonal width above d that d does not divide is refused.
    assert!(NokBlock::new(NokSpec { n_components: 4, ..NokSpec::default() }, d).is_ok());
    assert!(msg(NokSpec { n_components: 8, structure: Structure::Orthogonal, ..NokSpec::default() }, d).contains("n_components"));
    let ssf = NokSpec { structure: Structure::Ssf, ..NokSpec::default() };
    assert!(msg(NokSpec { n_components: 6, ..ssf.clone() }, d).contains("n_components"), "ssf needs N >= d + 2");
    assert!(msg(NokSpec { n_components: 13, ..ssf.clone() }, d).contains("n_components"));
    assert!(msg(NokSpec { n_components: 9, structure: Structure::Orthogonal, ..NokSpec::default() }, d).contains("n_components"));
    assert!(msg(ssf, 7).contains("structure"), "odd d with the Fourier structure");
    // Auto: the Fourier structure where it applies, blocks of orthogonal matrices elsewhere.
    assert_eq!(Structure::Auto.resolve(6, 12), Structure::Ssf);
    assert_eq!(Structure::Auto.resolve(7, 14), Structure::Orthogonal);
    assert_eq!(Structure::Auto.resolve(6, 6), Structure::Orthogonal);
    assert!(msg(NokSpec { layers: 0, ..NokSpec::default() }, d).contains("layers"));
    assert!(msg(NokSpec { alternations: 0, ..NokSpec::default() }, d).contains("alternations"));
    assert!(Structure::from_name("fourier").unwrap_err().to_string().contains("structure"));
    let mut b = NokBlock::new(NokSpec::default(), d).unwrap();
    let mut x = vec![0.5; 3 * d];
    x[8] = f64::NAN;
    let e = b.fit(&x).unwrap_err().to_string();
    assert!(e.contains("X[1, 2]"), "{e}");
    // Inputs whose products overflow are refused, not fitted into a non-finite Procrustes matrix.
    x[8] = 1e300;
    let e = b.fit(&x).unwrap_err().to_string();
    assert!(e.contains("X[1, 2] = 1e300") && e.contains("standardize"), "{e}");
    // A fit stopped before its first step says so and keeps the identity rotation.
    x[8] = 0.5;
    assert!(!b.fit_until(&x, &|| true).unwrap());
    assert!(b.fit_until(&x, &|| false).unwrap());
    assert!(b.transform(&[1.0; 5]).unwrap_err().to_string().contains("rows of d = 6"));
    // Odd d works with the orthogonal structure.
    assert!(NokBlock::new(NokSpec { structure: Structure::Orthogonal, ..NokSpec::default() }, 7).is_ok());
}

#[test]
fn the_backward_step_matches_finite_differences_for_the_fft_and_dense_layers() {
    // L(c, y) = <g, h(c + y - (d/N) B^T B y)>: the vector-Jacobian product against central
    // differences along random directions, and the FFT layer's product against the dense one's.
    let d = 10;
    for act in [Activation::L1 { lambda: 0.3 }, Activation::Scad { lambda: 0.2, gamma: 3.7 }, Activation::Relu] {
        let op = Structure::Ssf.build(d, 24, SsfRotation::Phase, &mut rng_from_seed(5)).unwrap();
        let n = op.dim_out();
        let bt = dense_rows(op.as_ref());
        let fast = NokLayer::new(op, act).unwrap();
        let dense = NokLayer::new(Box::new(DenseProjection::from_rows(bt, d).unwrap()), act).unwrap();
        let (c, y, g) = (gaussian(n, 1), gaussian(n, 2), gaussian(n, 3));
        let (vc, vy) = (gaussian(n, 4), gaussian(n, 5));
        let mut s = LayerScratch::default();
        let loss = |l: &NokLayer, t: f64, s: &mut LayerScratch| {
            let cc: Vec<f64> = c.iter().zip(&vc).map(|(a, b)| a + t * b).collect();
            let yy: Vec<f64> = y.iter().zip(&vy).map(|(a, b)| a + t * b).collect();
            let mut out = vec![0.0; n];
            l.step_injected(&cc, &yy, &mut out, s);
            out.iter().zip(&g).map(|(a, b)| a * b).sum::<f64>()
        };
        let mut grads = Vec::new();
        for l in [&fast, &dense] {
            let (mut gc, mut gy) = (vec![0.0; n], vec![0.0; n]);
            l.step_injected_vjp(&c, &y, &g, &mut gc, &mut gy, &mut s);
            let h = 1e-6;
            let fd = (loss(l, h, &mut s) - loss(l, -h, &mut s)) / (2.0 * h);
            let got: f64 = gc.iter().zip(&vc).chain(gy.iter().zip(&vy)).map(|(a, b)| a * b).sum();
            assert!((got - fd).abs() < 1e-5 * fd.abs().max(1.0), "{act:?}: VJP gives {got}, finite differences {fd}");
            grads.push((gc, gy));
        }
        for (a, b) in grads[0].0.iter().chain(&grads[0].1).zip(grads[1].0.iter().chain(&grads[1].1)) {
            assert!((a - b).abs() < 1e-9, "{act:?}: FFT and dense backward steps differ: {a} vs {b}");
        }
    }
}

/// Codes narrower than the input (N < d, down to N = 1): `W = sqrt(N) R^T B` with orthonormal
/// columns of `B` gives `W^T W / N = I_N`, so every layer and every R-step still never increases
/// the objective, the rotations stay orthogonal, and rows are processed independently.
#[test]
fn narrow_blocks_fit_with_a_monotone_objective() {
    let d = 8;
    let x = data(120, d, 4);
    for n in [1, 3, 7] {
        for (act, lambda) in [("l1", 0.05), ("relu", 1.0), ("l0", 0.01)] {
            let mut b = NokBlock::new(spec(act, lambda, Structure::Auto, n), d).unwrap();
            assert_eq!((b.width(), b.layer().rank()), (n, n));
            // W^T W / N = I_N: one step from y = 0 on x = W e_j / N gives back e_j's injection.
            let l = b.layer();
            let mut s = LayerScratch::default();
            for j in 0..n {
                let e: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
                let mut w = vec![0.0; d];
                l.w(&e, &mut w, &mut s);
                let mut back = vec![0.0; n];
                l.wt(&w, &mut back, &mut s);
                for i in 0..n {
                    assert!((back[i] / n as f64 - e[i]).abs() < 1e-12, "N = {n}: (W^T W / N)[{i},{j}] = {}", back[i] / n as f64);
                }
            }
            b.fit(&x).unwrap();
            let t = b.fit_trace();
            for w in t.windows(2) {
                assert!(w[1] <= w[0] + 1e-9 * w[0].abs().max(1.0), "N = {n}, {act}: {} -> {}", w[0], w[1]);
            }
            assert!(t.iter().all(|v| v.is_finite()));
            if act != "relu" {
                assert!(t.last().unwrap() < &t[0], "N = {n}, {act}: the fit made no progress: {t:?}");
            }
            let xr = b.transform(&x).unwrap();
            assert_eq!(xr.len(), x.len());
            let sub = b.transform(&x[5 * d..9 * d]).unwrap();
            assert_eq!(&sub[..], &xr[5 * d..9 * d]);
            let codes = b.codes(&x[..2 * d]).unwrap();
            assert_eq!(codes.len(), 2 * n);
        }
    }
    // One row, one component (what scikit-learn's checks fit).
    let mut b = NokBlock::new(spec("l1", 0.1, Structure::Auto, 1), d).unwrap();
    b.fit(&x[..d]).unwrap();
    assert!(b.transform(&x[..d]).unwrap().iter().all(|v| v.is_finite()));
}
