//! Batch Bayesian optimization through the ask/tell contract: the selection rules' invariants,
//! progress on small problems, pending points, checkpoints, failed evaluations and bad input.

use gradfree_bo::acquisition::{Context, bkop, ei};
use gradfree_bo::{BatchBo, BoParams, FitOptions, InnerOptions, METHODS, Method, Space, VarKind, fit};
use gradfree_core::{AskTell, CoreError, NonFinitePolicy, Population};

fn ackley(x: &[f64]) -> f64 {
    let d = x.len() as f64;
    let s1: f64 = x.iter().map(|v| v * v).sum::<f64>() / d;
    let s2: f64 = x.iter().map(|v| (2.0 * std::f64::consts::PI * v).cos()).sum::<f64>() / d;
    -20.0 * (-0.2 * s1.sqrt()).exp() - s2.exp() + 20.0 + std::f64::consts::E
}

fn quad(x: &[f64]) -> f64 {
    x.iter().enumerate().map(|(i, v)| (v - 0.3 * (i as f64 + 1.0)).powi(2)).sum()
}

fn fast() -> InnerOptions {
    InnerOptions { starts: 3, evals_per_dim: 40, ..InnerOptions::default() }
}

/// Runs `rounds` batches of `batch` on `f` and returns the best value after the design and at
/// the end.
fn run(method: Method, f: fn(&[f64]) -> f64, d: usize, batch: usize, rounds: usize, seed: u64) -> (f64, f64) {
    let space = Space::continuous(vec![-2.0; d], vec![2.0; d]).unwrap();
    let params =
        BoParams { method, batch_size: batch, n_initial: Some(8), inner: fast(), budget: Some(8 + batch * rounds), ..BoParams::default() };
    let mut bo = BatchBo::new(space, params, seed).unwrap();
    let design = bo.ask_batch(8).unwrap();
    let vals: Vec<f64> = design.rows().map(f).collect();
    bo.tell(&design, &vals).unwrap();
    let after_design = bo.best_f();
    for _ in 0..rounds {
        let p = bo.ask().unwrap();
        assert_eq!(p.len(), batch);
        let v: Vec<f64> = p.rows().map(f).collect();
        bo.tell(&p, &v).unwrap();
    }
    (after_design, bo.best_f())
}

trait AskBatch {
    fn ask_batch(&mut self, n: usize) -> Result<Population, CoreError>;
}
impl AskBatch for BatchBo {
    fn ask_batch(&mut self, n: usize) -> Result<Population, CoreError> {
        let mut p = Population::empty(self.dim());
        self.ask_batch_into(n, &mut p)?;
        Ok(p)
    }
}

#[test]
fn every_method_lowers_the_regret_on_a_2d_problem() {
    for spec in METHODS {
        if spec.value == Method::Bull {
            continue;
        }
        let (start, end) = run(spec.value, quad, 2, 3, 5, 1);
        assert!(end < 0.5 * start && end < 0.02, "{}: best {start} after the design, {end} after 15 more", spec.name);
    }
    let (start, end) = run(Method::Bkop, ackley, 2, 3, 6, 2);
    assert!(end < 0.5 * start, "bkop on Ackley: {start} -> {end}");
}

fn fitted_context_gp() -> (gradfree_bo::Gp, Space) {
    let d = 2;
    let x: Vec<f64> = vec![0.1, 0.1, 0.2, 0.8, 0.5, 0.5, 0.9, 0.2, 0.4, 0.3, 0.7, 0.9];
    let y: Vec<f64> = x.chunks(d).map(|u| quad(&[4.0 * u[0] - 2.0, 4.0 * u[1] - 2.0])).collect();
    let (gp, _) = fit(&x, d, &y, &FitOptions::default(), None, 3).unwrap();
    (gp, Space::continuous(vec![-2.0; 2], vec![2.0; 2]).unwrap())
}

/// With L = 1 the batch acquisition is `μ − w σ`, the sequential rule (Alg. 5/7).
#[test]
fn bkop_with_one_point_is_the_sequential_rule() {
    let (gp, space) = fitted_context_gp();
    let inner = fast();
    for w in [0.0, 1.0, 2.5] {
        let ctx = Context { gp: &gp, space: &space, inner: &inner, seed: 1, starts: &[], t: 6, weight: w, beta: None };
        for u in [[0.3, 0.6], [0.95, 0.05], [0.5, 0.5]] {
            let (mut m, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
            let a = bkop::value(&ctx, &u, 1, &mut m, &mut c, &mut v);
            let mut buf = vec![0.0; gp.len()];
            let (mu, var) = gp.predict_std(&u, &mut buf);
            assert!((a - (mu - w * var.sqrt())).abs() < 1e-12, "w = {w}: {a} vs {}", mu - w * var.sqrt());
        }
    }
}

/// Expected improvement with L = 1 picks the maximizer of the closed form `σ h((y* − μ)/σ)`,
/// `h(z) = φ(z) + zΦ(z)`, found by brute force on a fine grid of a 1-d GP; the incumbent is the
/// smallest observation (no noise); a batch does not repeat its first pick.
#[test]
fn expected_improvement_maximizes_the_closed_form() {
    let x = [0.05, 0.3, 0.45, 0.8, 0.95];
    let y = [1.0, 0.2, 0.5, -0.3, 0.4];
    let h = gradfree_bo::Hyper { length: vec![0.15], signal: 1.0, noise: 0.0 };
    let gp = gradfree_bo::Gp::new(gradfree_bo::KernelKind::Matern52, &x, 1, &y, h, gradfree_bo::Standardization::of(&y)).unwrap();
    let st = gp.standardization();
    let y_star = (-0.3 - st.shift) / st.scale;
    assert!((gp.smallest_fitted_mean_std() - y_star).abs() < 1e-6, "{} vs {y_star}", gp.smallest_fitted_mean_std());
    let cdf = |t: f64| 0.5 * statrs::function::erf::erfc(-t / std::f64::consts::SQRT_2);
    let ei_at = |u: f64| {
        let (m, v) = gp.predict_std(&[u], &mut [0.0; 5]);
        let sd = v.sqrt();
        if sd < 1e-12 {
            return (y_star - m).max(0.0);
        }
        let z = (y_star - m) / sd;
        sd * ((-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt() + z * cdf(z))
    };
    let grid_best = (0..=100_000).map(|i| i as f64 / 100_000.0).max_by(|a, b| ei_at(*a).total_cmp(&ei_at(*b))).unwrap();
    let space = Space::continuous(vec![0.0], vec![1.0]).unwrap();
    let inner = InnerOptions { starts: 6, evals_per_dim: 200, max_evals: 100_000, ..InnerOptions::default() };
    let ctx = Context { gp: &gp, space: &space, inner: &inner, seed: 4, starts: &[], t: 5, weight: 1.0, beta: None };
    let u = ei::select(&ctx, 1).unwrap()[0];
    assert!(
        (u - grid_best).abs() < 1e-3 && ei_at(u) >= ei_at(grid_best) * (1.0 - 1e-6),
        "picked {u} (EI {}), grid {grid_best} (EI {})",
        ei_at(u),
        ei_at(grid_best)
    );
    let batch = ei::select(&ctx, 3).unwrap();
    assert!((batch[0] - u).abs() < 1e-12);
    assert!(batch.windows(2).all(|w| (w[0] - w[1]).abs() > 1e-3) && (batch[0] - batch[2]).abs() > 1e-3, "{batch:?}");
}

/// The covariance term penalizes correlated points: at equal means, a spread batch scores better
/// than the same point repeated, and the chosen batch is spread out.
#[test]
fn batch_acquisition_prefers_spread_out_points() {
    // Data only near one corner and short length scales: far from it the mean is flat (the prior
    // mean) and points 0.3 apart are nearly uncorrelated.
    let corner = [0.0, 0.0, 0.08, 0.03, 0.03, 0.09];
    let y = [1.0, 2.0, 1.5];
    let h = gradfree_bo::Hyper { length: vec![0.08, 0.08], signal: 1.0, noise: 1e-6 };
    let flat = gradfree_bo::Gp::new(gradfree_bo::KernelKind::Matern52, &corner, 2, &y, h, gradfree_bo::Standardization::of(&y)).unwrap();
    let space0 = Space::continuous(vec![0.0; 2], vec![1.0; 2]).unwrap();
    let inner = fast();
    let ctx0 = Context { gp: &flat, space: &space0, inner: &inner, seed: 1, starts: &[], t: 3, weight: 1.0, beta: None };
    let (mut m, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    let dup = [0.6, 0.6].repeat(4);
    let a_dup = bkop::value(&ctx0, &dup, 4, &mut m, &mut c, &mut v);
    let spread = [0.6, 0.6, 0.9, 0.6, 0.6, 0.9, 0.9, 0.9];
    let a_spread = bkop::value(&ctx0, &spread, 4, &mut m, &mut c, &mut v);
    // Far from the data the mean is the prior's constant m0: duplicates score m0 - (2σ - σ) =
    // m0 - σ, independent points m0 - (2σ - σ/2) = m0 - 1.5σ (σ = 1 here).
    let (m0, _) = flat.predict_std(&[0.75, 0.75], &mut [0.0; 3]);
    assert!((a_dup - m0 + 1.0).abs() < 0.02 && (a_spread - m0 + 1.5).abs() < 0.02, "spread {a_spread} vs duplicates {a_dup} (m0 {m0})");
    let (gp, space) = fitted_context_gp();
    let ctx = Context { gp: &gp, space: &space, inner: &inner, seed: 1, starts: &[], t: 6, weight: 1.0, beta: None };
    let batch = bkop::select(&ctx, 4).unwrap();
    let mut min_dist = f64::INFINITY;
    for i in 0..4 {
        for j in 0..i {
            let dd: f64 = (0..2).map(|k| (batch[i * 2 + k] - batch[j * 2 + k]).powi(2)).sum::<f64>().sqrt();
            min_dist = min_dist.min(dd);
        }
    }
    assert!(min_dist > 0.05, "BKOP batch {batch:?} has points {min_dist} apart");
}

/// Pending points are honoured: a second batch asked before the first is told avoids it.
#[test]
fn pending_points_are_not_proposed_again() {
    let space = Space::continuous(vec![-2.0; 2], vec![2.0; 2]).unwrap();
    for method in [Method::Bkop, Method::GpBucb, Method::GpUcbPe, Method::Ucb] {
        let mut bo = BatchBo::new(space.clone(), BoParams { method, n_initial: Some(6), inner: fast(), ..BoParams::default() }, 4).unwrap();
        let d0 = bo.ask_batch(6).unwrap();
        let v: Vec<f64> = d0.rows().map(quad).collect();
        bo.tell(&d0, &v).unwrap();
        let a = bo.ask_batch(2).unwrap();
        let b = bo.ask_batch(2).unwrap();
        assert_eq!(bo.pending(), 4);
        for p in a.rows() {
            for q in b.rows() {
                let dd: f64 = p.iter().zip(q).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
                assert!(dd > 1e-3, "{method:?}: {p:?} proposed again as {q:?}");
            }
        }
        // Late results arrive out of order; all are taken.
        let vb: Vec<f64> = b.rows().map(quad).collect();
        bo.tell(&b, &vb).unwrap();
        let va: Vec<f64> = a.rows().map(quad).collect();
        bo.tell(&a, &va).unwrap();
        assert_eq!((bo.pending(), bo.observations()), (0, 10));
    }
}

/// Serializing the optimizer mid-run and resuming gives the same proposals, bit for bit, and the
/// number of threads does not change them.
#[test]
fn resume_is_bit_identical_and_thread_count_free() {
    let space = Space::continuous(vec![-2.0; 3], vec![2.0; 3]).unwrap();
    let params = BoParams { batch_size: 2, n_initial: Some(6), inner: fast(), ..BoParams::default() };
    let step = |bo: &mut BatchBo| {
        let p = bo.ask().unwrap();
        let v: Vec<f64> = p.rows().map(ackley).collect();
        bo.tell(&p, &v).unwrap();
        p.as_slice().to_vec()
    };
    let mut a = BatchBo::new(space.clone(), params.clone(), 9).unwrap();
    for _ in 0..4 {
        step(&mut a);
    }
    let saved = serde_json::to_string(&a).unwrap();
    let mut b: BatchBo = serde_json::from_str(&saved).unwrap();
    gradfree_core::StateCheck::check_state(&b).unwrap();
    for _ in 0..2 {
        let (pa, pb) = (step(&mut a), step(&mut b));
        assert_eq!(pa.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), pb.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut c: BatchBo = serde_json::from_str(&saved).unwrap();
    let pc: Vec<Vec<f64>> = one.install(|| (0..2).map(|_| step(&mut c)).collect());
    let mut d: BatchBo = serde_json::from_str(&saved).unwrap();
    let pd: Vec<Vec<f64>> = (0..2).map(|_| step(&mut d)).collect();
    assert_eq!(pc, pd);
}

#[test]
fn failed_evaluations_follow_the_policy_and_integers_stay_integers() {
    let space =
        Space::new(vec![-2.0, 0.0, 0.0], vec![2.0, 10.0, 3.0], vec![VarKind::Continuous, VarKind::Integer, VarKind::Categorical]).unwrap();
    let f = |x: &[f64]| (x[0] - 0.5).powi(2) + (x[1] - 7.0).powi(2) + if x[2] == 2.0 { 0.0 } else { 3.0 };
    let mut bo =
        BatchBo::new(space.clone(), BoParams { n_initial: Some(10), batch_size: 3, inner: fast(), ..BoParams::default() }, 5).unwrap();
    let p = bo.ask_batch(10).unwrap();
    let mut v: Vec<f64> = p.rows().map(f).collect();
    v[3] = f64::NAN;
    let e = bo.tell(&p, &v).unwrap_err();
    assert!(matches!(e, CoreError::NonFinite { index: 3, .. }), "{e}");
    assert_eq!(bo.observations(), 0, "a rejected tell changes nothing");
    let mut bo = BatchBo::new(
        space,
        BoParams { n_initial: Some(10), batch_size: 3, inner: fast(), on_nonfinite: NonFinitePolicy::TreatAsInf, ..BoParams::default() },
        5,
    )
    .unwrap();
    let p = bo.ask_batch(10).unwrap();
    bo.tell(&p, &v).unwrap();
    assert_eq!(bo.observations(), 9);
    assert_eq!(bo.pending(), 0, "told design points (rounded coordinates) clear their pending entries");
    for _ in 0..12 {
        let q = bo.ask().unwrap();
        for row in q.rows() {
            assert_eq!(row[1].fract(), 0.0, "{row:?}");
            assert!([0.0, 1.0, 2.0, 3.0].contains(&row[2]), "{row:?}");
        }
        let w: Vec<f64> = q.rows().map(f).collect();
        bo.tell(&q, &w).unwrap();
    }
    assert!(bo.best_f() < 1.5, "best {}", bo.best_f());
    // Points outside the box and duplicated points.
    let out = Population::from_rows(&[[5.0, 1.0, 1.0]]).unwrap();
    assert!(bo.tell(&out, &[1.0]).unwrap_err().to_string().contains("outside the search box"));
    let dup = Population::from_rows(&[[0.5, 7.0, 2.0], [0.5, 7.0, 2.0]]).unwrap();
    bo.tell(&dup, &[0.0, 0.0]).unwrap();
    assert!(bo.ask().is_ok(), "duplicated observations are modelled (noise or jitter)");
}

/// One-dimensional problems work: the design is n evenly spaced points, in van der Corput order.
#[test]
fn one_dimensional_problems_work() {
    let d = gradfree_bo::lattice_design(1, 4, None).unwrap();
    assert_eq!(d, vec![0.125, 0.625, 0.375, 0.875]);
    let (start, end) = run(Method::Bkop, quad, 1, 2, 4, 3);
    assert!(end <= start && end < 0.01, "{start} -> {end}");
}

/// The design is the shifted rank-1 lattice `{k z / n + 1/(2n)}` as a set, handed out in the order
/// of the radical inverse of `k`: every prefix of 2^j points has one point in each of the 2^j
/// equal slabs of the first coordinate (`k/n` for `z_1 = 1`), where lattice order fills one end.
#[test]
fn the_design_is_the_lattice_in_radical_inverse_order() {
    for (d, n) in [(6, 20), (3, 16), (2, 37)] {
        let pts = gradfree_bo::lattice_design(d, n, None).unwrap();
        let z = gradfree_qmc::lattice::search::SearchSpec::default().alg10(d, n as u64).unwrap().z;
        let mut want: Vec<Vec<u64>> = (0..n as u64).map(|k| z.iter().map(|zj| ((k * zj) % n as u64) * 2 + 1).collect()).collect();
        let mut got: Vec<Vec<u64>> = pts.chunks(d).map(|p| p.iter().map(|v| (v * 2.0 * n as f64).round() as u64).collect()).collect();
        assert_eq!(z[0], 1);
        for j in 0..=3usize {
            let m = 1 << j;
            let mut slabs: Vec<usize> = got[..m].iter().map(|p| (p[0] as usize * m) / (2 * n)).collect();
            slabs.sort();
            assert_eq!(slabs, (0..m).collect::<Vec<_>>(), "d = {d}, n = {n}: the first {m} points");
        }
        want.sort();
        got.sort();
        assert_eq!(got, want, "d = {d}, n = {n}: the same points as the lattice");
    }
}

#[test]
fn parameters_are_checked_before_anything_runs() {
    let space = Space::continuous(vec![0.0; 2], vec![1.0; 2]).unwrap();
    let bad = |p: BoParams| BatchBo::new(space.clone(), p, 0).unwrap_err().to_string();
    assert!(bad(BoParams { batch_size: 0, ..BoParams::default() }).contains("batch_size"));
    assert!(bad(BoParams { weight: f64::NAN, ..BoParams::default() }).contains("weight"));
    assert!(bad(BoParams { method: Method::Bull, ..BoParams::default() }).contains("budget"));
    assert!(bad(BoParams { inner: InnerOptions { starts: 0, ..InnerOptions::default() }, ..BoParams::default() }).contains("acq_starts"));
    assert!(
        bad(BoParams { inner: InnerOptions { max_evals: 0, ..InnerOptions::default() }, ..BoParams::default() }).contains("acq_max_evals")
    );
    assert!(Method::parse("qei").unwrap_err().to_string().contains("bkop, ucb, gp-bucb, gp-ucb-pe, bull"));
    let mut bo = BatchBo::new(space, BoParams::default(), 0).unwrap();
    assert!(bo.ask_batch(0).is_err());
}

/// Bull's method through a driver: its design of `budget - 1` points, then one last point, the
/// minimizer of the posterior mean, so the whole budget is spent and the last point is the model's.
#[test]
fn bull_asks_its_design_then_one_last_point() {
    let space = Space::continuous(vec![-2.0; 2], vec![2.0; 2]).unwrap();
    let params = BoParams { method: Method::Bull, inner: fast(), budget: Some(12), ..BoParams::default() };
    let mut bo = BatchBo::new(space, params, 3).unwrap();
    assert_eq!(bo.population_size(), 11);
    let design = bo.ask().unwrap();
    bo.tell(&design, &design.rows().map(quad).collect::<Vec<_>>()).unwrap();
    assert_eq!(bo.population_size(), 1, "the budget's last point");
    let last = bo.ask().unwrap();
    assert_eq!(last.len(), 1);
    // The posterior mean's minimizer of a smooth quadratic lies near its minimum (0.3, 0.6),
    // closer than the design's best point.
    let x = last.rows().next().unwrap().to_vec();
    let best_design = design.rows().map(quad).fold(f64::INFINITY, f64::min);
    assert!(quad(&x) < best_design, "last point {x:?}: {} vs the design's best {best_design}", quad(&x));
}

/// A front end's design: `set_design` replaces the points not yet asked (unit cube, checked);
/// `keep_design(k)` before any lattice point is asked builds a lattice of `k` points, which
/// are spread out (the first `k` points of a larger lattice are not); after the design, the model.
#[test]
fn designs_can_be_given_or_shortened() {
    let space = Space::continuous(vec![-2.0; 2], vec![2.0; 2]).unwrap();
    let params = BoParams { n_initial: Some(20), inner: fast(), ..BoParams::default() };
    let mut bo = BatchBo::new(space.clone(), params.clone(), 0).unwrap();
    assert_eq!(bo.design_left(), 20);
    bo.keep_design(5).unwrap();
    assert_eq!(bo.design_left(), 5);
    let p = bo.ask_batch(5).unwrap();
    let rows: Vec<&[f64]> = p.rows().collect();
    let min_dist = (0..5)
        .flat_map(|i| (i + 1..5).map(move |j| (i, j)))
        .map(|(i, j)| rows[i].iter().zip(rows[j]).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt())
        .fold(f64::INFINITY, f64::min);
    assert!(min_dist > 1.0, "a 5-point lattice on [-2, 2]^2 is spread out: {min_dist}");
    let mut given = BatchBo::new(space, params, 0).unwrap();
    assert!(given.set_design(&[0.5, 1.5]).is_err(), "outside the unit cube");
    assert!(given.set_design(&[0.5]).is_err(), "not a whole point");
    given.set_design(&[0.25, 0.75, 0.5, 0.5]).unwrap();
    let p = given.ask_batch(2).unwrap();
    assert_eq!(p.row(0), &[-1.0, 1.0]);
    assert_eq!(p.row(1), &[0.0, 0.0]);
    given.keep_design(0).unwrap();
    assert_eq!(given.design_left(), 0);
}

/// `fit_model(n)` conditions on the first `n` observations: on a quadratic sampled densely the
/// GP reproduces the values it was told and predicts between them.
#[test]
fn the_fitted_model_reproduces_a_quadratic() {
    let space = Space::continuous(vec![-1.0; 2], vec![1.0; 2]).unwrap();
    let mut bo = BatchBo::new(space, BoParams { inner: fast(), ..BoParams::default() }, 3).unwrap();
    let pts: Vec<Vec<f64>> = (0..7).flat_map(|i| (0..7).map(move |j| vec![i as f64 / 3.0 - 1.0, j as f64 / 3.0 - 1.0])).collect();
    let rows: Vec<&[f64]> = pts.iter().map(|p| p.as_slice()).collect();
    let values: Vec<f64> = pts.iter().map(|p| quad(p)).collect();
    bo.tell(&Population::from_rows(&rows).unwrap(), &values).unwrap();
    assert!(bo.fit_model(Some(0)).is_err());
    let gp = bo.fit_model(None).unwrap();
    assert_eq!(gp.len(), 49);
    let (m, _) = gp.predict(&[0.5, 0.5]);
    assert!((m - quad(&[0.0, 0.0])).abs() < 1e-3, "at a told point: {m}");
    let (m, sd) = gp.predict(&[0.6, 0.4]);
    assert!((m - quad(&[0.2, -0.2])).abs() < 2e-2 && sd < 0.05, "between points: {m} ± {sd}");
    assert_eq!(bo.fit_model(Some(10)).unwrap().len(), 10);
}
