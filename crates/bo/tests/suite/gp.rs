//! The Gaussian process against closed forms: posterior (eq. 4.11-4.12), interpolation without
//! noise, the marginal-likelihood gradient, rank-one updates and the batch covariance (eq. 4.17).

use gradfree_bo::gp::neg_log_marginal_likelihood;
use gradfree_bo::{FitOptions, Gp, Hyper, KernelKind, NoiseModel, Standardization, fit};
use gradfree_core::linalg::solve_dense;
use rand::RngExt;

/// `n` uniform points in `[0, 1]^d` (seeded by `salt`).
fn points(n: usize, d: usize, salt: f64) -> Vec<f64> {
    let mut rng = gradfree_core::rng_from_seed(salt.to_bits());
    (0..n * d).map(|_| rng.random::<f64>()).collect()
}

fn f(x: &[f64]) -> f64 {
    x.iter().enumerate().map(|(i, v)| ((i + 1) as f64 * v * 3.0).sin()).sum::<f64>() + x[0] * x[0]
}

fn kind_k(kind: KernelKind, h: &Hyper, a: &[f64], b: &[f64]) -> f64 {
    let r2: f64 = a.iter().zip(b).zip(&h.length).map(|((x, y), l)| ((x - y) / l).powi(2)).sum();
    let r = r2.sqrt();
    h.signal
        * match kind {
            KernelKind::SquaredExponential => (-0.5 * r2).exp(),
            KernelKind::Matern52 => (1.0 + 5f64.sqrt() * r + 5.0 * r2 / 3.0) * (-(5f64.sqrt()) * r).exp(),
        }
}

/// `K^{-1} b` by dense elimination.
fn dense_solve(kind: KernelKind, h: &Hyper, x: &[f64], d: usize, b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[j * n + i] = kind_k(kind, h, &x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]) + if i == j { h.noise } else { 0.0 };
        }
    }
    let mut out = b.to_vec();
    assert!(solve_dense(&mut a, n, &mut out));
    out
}

#[test]
fn posterior_equals_the_closed_form() {
    let d = 3;
    let x = points(7, d, 0.0);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    for kind in [KernelKind::SquaredExponential, KernelKind::Matern52] {
        let h = Hyper { length: vec![0.4, 0.7, 1.3], signal: 1.7, noise: 0.01 };
        let st = Standardization::of(&y);
        let gp = Gp::new(kind, &x, d, &y, h.clone(), st).unwrap();
        assert_eq!(gp.jitter(), 0.0);
        let ys: Vec<f64> = y.iter().map(|v| (v - st.shift) / st.scale).collect();
        // Ordinary kriging: the constant mean by generalized least squares,
        // β̂ = 1ᵀK⁻¹y / 1ᵀK⁻¹1, and α = K⁻¹(y − β̂ 1).
        let kinv_y = dense_solve(kind, &h, &x, d, &ys);
        let kinv_1 = dense_solve(kind, &h, &x, d, &[1.0; 7]);
        let beta = kinv_y.iter().sum::<f64>() / kinv_1.iter().sum::<f64>();
        let alpha: Vec<f64> = kinv_y.iter().zip(&kinv_1).map(|(a, w)| a - beta * w).collect();
        for u in points(5, d, 0.13).chunks(d) {
            let kv: Vec<f64> = x.chunks(d).map(|xi| kind_k(kind, &h, u, xi)).collect();
            let mean: f64 = beta + kv.iter().zip(&alpha).map(|(a, b)| a * b).sum::<f64>();
            let kinv_k = dense_solve(kind, &h, &x, d, &kv);
            let var = h.signal - kv.iter().zip(&kinv_k).map(|(a, b)| a * b).sum::<f64>();
            let mut buf = vec![0.0; 7];
            let (m, v) = gp.predict_std(u, &mut buf);
            assert!((m - mean).abs() < 1e-10 && (v - var).abs() < 1e-10, "{kind:?}: {m} vs {mean}, {v} vs {var}");
            let (mr, sr) = gp.predict(u);
            assert!((mr - (mean * st.scale + st.shift)).abs() < 1e-9 && (sr - var.sqrt() * st.scale).abs() < 1e-9);
        }
        // Far from the data the mean returns to β̂, not to the sample mean (0 here).
        let (m_far, _) = gp.predict_std(&[40.0, -40.0, 40.0], &mut [0.0; 7]);
        assert!((m_far - beta).abs() < 1e-12 && beta.abs() > 1e-3, "{m_far} vs {beta}");
        // The likelihood profiles the mean out, so it ignores a constant added to the outputs.
        let nll = |c: f64| {
            let yc: Vec<f64> = ys.iter().map(|v| v + c).collect();
            neg_log_marginal_likelihood(kind, &x, d, &yc, &h, None).unwrap()
        };
        assert!((nll(0.0) - nll(3.7)).abs() < 1e-9 && (nll(0.0) - nll(-0.4)).abs() < 1e-9);
    }
}

#[test]
fn interpolates_without_noise() {
    let d = 2;
    let x = points(12, d, 0.05);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    let h = Hyper { length: vec![0.3, 0.3], signal: 1.0, noise: 0.0 };
    let gp = Gp::new(KernelKind::Matern52, &x, d, &y, h, Standardization::of(&y)).unwrap();
    for (xi, yi) in x.chunks(d).zip(&y) {
        let (m, s) = gp.predict(xi);
        assert!((m - yi).abs() < 1e-7 && s < 1e-4, "{m} vs {yi}, sd {s}");
    }
}

#[test]
fn marginal_likelihood_gradient_matches_finite_differences() {
    let d = 3;
    let x = points(15, d, 0.21);
    let y: Vec<f64> = x.chunks(d).map(|p| f(p) + 0.05 * (p[1] * 40.0).sin()).collect();
    let st = Standardization::of(&y);
    let ys: Vec<f64> = y.iter().map(|v| (v - st.shift) / st.scale).collect();
    for kind in [KernelKind::SquaredExponential, KernelKind::Matern52] {
        let h = Hyper { length: vec![0.35, 0.8, 0.5], signal: 1.3, noise: 0.02 };
        let mut g = vec![0.0; d + 2];
        let v0 = neg_log_marginal_likelihood(kind, &x, d, &ys, &h, Some(&mut g)).unwrap();
        let at = |k: usize, e: f64| {
            let mut h2 = h.clone();
            match k {
                k if k < d => h2.length[k] *= e.exp(),
                k if k == d => h2.signal *= e.exp(),
                _ => h2.noise *= e.exp(),
            }
            neg_log_marginal_likelihood(kind, &x, d, &ys, &h2, None).unwrap()
        };
        for (k, gk) in g.iter().enumerate() {
            let e = 1e-5;
            let fd = (at(k, e) - at(k, -e)) / (2.0 * e);
            assert!((fd - gk).abs() < 1e-5 * (1.0 + fd.abs()), "{kind:?} θ_{k}: analytic {gk}, finite difference {fd}");
        }
        assert!(v0.is_finite());
    }
}

#[test]
fn incremental_update_equals_a_fresh_fit() {
    let d = 4;
    let x = points(20, d, 0.31);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    let h = Hyper { length: vec![0.5, 0.6, 0.7, 0.8], signal: 2.0, noise: 1e-6 };
    let st = Standardization::of(&y[..8]);
    let mut gp = Gp::new(KernelKind::Matern52, &x[..8 * d], d, &y[..8], h.clone(), st).unwrap();
    for i in 8..20 {
        gp.add_observation(&x[i * d..(i + 1) * d], y[i]).unwrap();
    }
    let fresh = Gp::new(KernelKind::Matern52, &x, d, &y, h, st).unwrap();
    for u in points(6, d, 0.77).chunks(d) {
        let (a, b) = (gp.predict(u), fresh.predict(u));
        assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9, "{a:?} vs {b:?}");
    }
}

#[test]
fn batch_covariance_equals_the_dense_formula() {
    let d = 2;
    let x = points(9, d, 0.4);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    let h = Hyper { length: vec![0.3, 0.5], signal: 1.1, noise: 0.003 };
    let kind = KernelKind::SquaredExponential;
    let gp = Gp::new(kind, &x, d, &y, h.clone(), Standardization::of(&y)).unwrap();
    let u = points(4, d, 0.9);
    let l = 4;
    let (mut mean, mut cov, mut v) = (vec![0.0; l], vec![0.0; l * l], vec![0.0; 9 * l]);
    gp.predict_batch_std(&u, &mut mean, &mut cov, &mut v);
    for a in 0..l {
        for b in 0..l {
            let ua = &u[a * d..(a + 1) * d];
            let ub = &u[b * d..(b + 1) * d];
            let ka: Vec<f64> = x.chunks(d).map(|xi| kind_k(kind, &h, ua, xi)).collect();
            let kb: Vec<f64> = x.chunks(d).map(|xi| kind_k(kind, &h, ub, xi)).collect();
            let sol = dense_solve(kind, &h, &x, d, &kb);
            let want = kind_k(kind, &h, ua, ub) - ka.iter().zip(&sol).map(|(p, q)| p * q).sum::<f64>();
            assert!((cov[b * l + a] - want).abs() < 1e-10, "cov[{a},{b}] = {} vs {want}", cov[b * l + a]);
        }
        let mut buf = vec![0.0; 9];
        let (m, var) = gp.predict_std(&u[a * d..(a + 1) * d], &mut buf);
        assert!((mean[a] - m).abs() < 1e-12 && (cov[a * l + a] - var).abs() < 1e-10);
    }
}

#[test]
fn hallucinated_points_keep_the_mean_and_shrink_the_variance() {
    let d = 2;
    let x = points(10, d, 0.2);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    let gp = Gp::new(KernelKind::Matern52, &x, d, &y, Hyper { length: vec![0.3; 2], signal: 1.0, noise: 1e-4 }, Standardization::of(&y))
        .unwrap();
    let pend = [0.9, 0.05];
    let h = gp.hallucinate(&pend).unwrap();
    for u in [[0.9, 0.05], [0.85, 0.1], [0.2, 0.6]] {
        let (a, b) = (gp.predict(&u), h.predict(&u));
        assert!((a.0 - b.0).abs() < 1e-9, "mean moved: {a:?} -> {b:?}");
        assert!(b.1 <= a.1 + 1e-12);
    }
    assert!(h.predict(&pend).1 < 0.05 * gp.predict(&pend).1);
}

#[test]
fn maximum_likelihood_fit_beats_its_starts_and_handles_degenerate_data() {
    let d = 3;
    let smooth = |p: &[f64]| (3.0 * p[0]).sin() + p[1] * p[1] + 0.5 * (2.0 * p[2]).cos();
    let x = points(40, d, 0.11);
    let y: Vec<f64> = x.chunks(d).map(smooth).collect();
    let opts = FitOptions::default();
    let (gp, rep) = fit(&x, d, &y, &opts, None, 7).unwrap();
    assert_eq!(rep.starts, 4);
    let ys: Vec<f64> = y.iter().map(|v| (v - gp.standardization().shift) / gp.standardization().scale).collect();
    // A brute-force reference: no random point of the hyper-parameter box does better.
    let mut rng = gradfree_core::rng_from_seed(5);
    for _ in 0..300 {
        let lg = |lo: f64, hi: f64, u: f64| (lo.ln() + (hi.ln() - lo.ln()) * u).exp();
        let h = Hyper {
            length: (0..d).map(|_| lg(0.01, 20.0, rng.random())).collect(),
            signal: lg(0.01, 100.0, rng.random()),
            noise: lg(1e-6, 1.0, rng.random()),
        };
        if let Some(v) = neg_log_marginal_likelihood(opts.kernel, &x, d, &ys, &h, None) {
            assert!(rep.log_likelihood >= -v - 1e-9, "{} < {} at {h:?}", rep.log_likelihood, -v);
        }
    }
    // Held-out error is small for this smooth function.
    let test = points(50, d, 0.37);
    let rmse = (test.chunks(d).map(|u| (gp.predict(u).0 - smooth(u)).powi(2)).sum::<f64>() / 50.0).sqrt();
    let sd = gp.standardization().scale;
    assert!(rmse < 0.02 * sd, "rmse {rmse} vs output sd {sd}, {:?}", gp.hyper());
    // Same seed, same fit; the number of threads does not matter (ties go to the earlier start).
    let (gp2, _) = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| fit(&x, d, &y, &opts, None, 7)).unwrap();
    assert_eq!(gp.hyper(), gp2.hyper());

    // Constant outputs: a flat model, no NaN.
    let flat = vec![3.5; 40];
    let (g, _) = fit(&x, d, &flat, &opts, None, 1).unwrap();
    let (m, s) = g.predict(&[0.3, 0.3, 0.3]);
    assert!((m - 3.5).abs() < 1e-9 && s.is_finite());
    // Exact duplicates with zero noise: the jitter ladder factors the matrix.
    let mut dup = x[..5 * d].to_vec();
    dup.extend_from_slice(&x[..5 * d]);
    let ydup: Vec<f64> = dup.chunks(d).map(smooth).collect();
    let zero_noise = FitOptions { noise: NoiseModel::Fixed(0.0), ..FitOptions::default() };
    let (g, rep) = fit(&dup, d, &ydup, &zero_noise, None, 1).unwrap();
    assert!(rep.jitter > 0.0 && g.jitter() > 0.0);
    assert!(g.predict(&x[..d]).0.is_finite());
    // NaN outputs and wrong shapes are errors.
    let mut nan = y.clone();
    nan[4] = f64::NAN;
    assert!(fit(&x, d, &nan, &opts, None, 1).unwrap_err().to_string().contains("observation 4"));
    assert!(fit(&x[..7], d, &y, &opts, None, 1).is_err());
    assert!(fit(&x, d, &y, &FitOptions { length_bounds: (1.0, 0.5), ..FitOptions::default() }, None, 1).is_err());
}

/// Beyond `max_fit_points` the hyper-parameters come from a subset and the process is conditioned
/// on every point: it still interpolates all of them, and its predictions elsewhere agree with the
/// fit on all points (the subset estimator of Chalupka, Williams & Murray 2013).
#[test]
fn a_subset_fit_conditions_on_every_point() {
    let (n, d) = (400, 3);
    let x = points(n, d, 0.7);
    let y: Vec<f64> = x.chunks_exact(d).map(f).collect();
    let opts = FitOptions { noise: NoiseModel::Fixed(1e-8), restarts: 1, ..FitOptions::default() };
    let (sub, _) = fit(&x, d, &y, &FitOptions { max_fit_points: 128, ..opts.clone() }, None, 5).unwrap();
    let (all, _) = fit(&x, d, &y, &FitOptions { max_fit_points: n, ..opts }, None, 5).unwrap();
    assert_eq!(sub.len(), n, "conditioned on all points");
    for (p, v) in x.chunks_exact(d).zip(&y).step_by(37) {
        assert!((sub.predict(p).0 - v).abs() < 1e-3, "interpolates the point");
    }
    let test = points(50, d, 0.9);
    let err: f64 = test.chunks_exact(d).map(|p| (sub.predict(p).0 - all.predict(p).0).abs()).fold(0.0, f64::max);
    let spread = y.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - y.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(err < 0.02 * spread, "subset and full fits predict alike: {err} of a range {spread}");
}

/// `k_vec`, vectorized over the observed points, gives `k(u, x_i)` at each point to the bit,
/// before and after rank-one updates, and both agree with the closed form to a few ulp.
#[test]
fn kernel_vector_equals_pointwise_kernels_to_the_bit() {
    let d = 5;
    let x = points(23, d, 0.7);
    let y: Vec<f64> = x.chunks(d).map(f).collect();
    for kind in [KernelKind::SquaredExponential, KernelKind::Matern52] {
        let h = Hyper { length: vec![0.3, 0.5, 0.9, 1.4, 0.2], signal: 2.3, noise: 1e-3 };
        let mut gp = Gp::new(kind, &x[..20 * d], d, &y[..20], h.clone(), Standardization::of(&y)).unwrap();
        for extra in 0..=3 {
            if extra > 0 {
                let i = 19 + extra;
                gp.add_observation(&x[i * d..(i + 1) * d], y[i]).unwrap();
            }
            for u in points(9, d, 0.31).chunks(d) {
                let mut kv = vec![f64::NAN; gp.len()];
                gp.k_vec(u, &mut kv);
                for (i, xi) in gp.points().chunks(d).enumerate() {
                    assert_eq!(kv[i].to_bits(), gp.k(u, xi).to_bits(), "{kind:?} point {i}");
                    let exact = kind_k(kind, &h, u, xi);
                    assert!((kv[i] - exact).abs() <= 1e-14 * h.signal, "{kind:?}: {} vs {exact}", kv[i]);
                }
            }
        }
    }
}
