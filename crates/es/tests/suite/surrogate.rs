//! lq-CMA-ES (Hansen 2019): the linear-quadratic model is exact on quadratics once it has enough
//! points, the surrogate saves evaluations where the model is right, and its state (mid-generation
//! included) checkpoints and resumes bit-identically.

use gradfree_core::{AskTell, Driver, DriverOptions, Population, StopReason, StopRules, load_checkpoint, save_checkpoint};
use gradfree_es::surrogate::{LqCmaes, LqCmaesParams, LqModel, ModelKind, lq_model::kendall_tau_b};
use gradfree_es::{Algorithm, Ipop, IpopParams, RestartScheme, StartSpec, build};
use gradfree_problems::build as problem;
use rand::RngExt;

/// A rotated, shifted convex quadratic with a constant: `f(x) = 3 + (x - c)^T A (x - c)` with `A`
/// positive definite and full (all cross terms present).
fn quadratic(d: usize) -> (impl Fn(&[f64]) -> f64, Vec<f64>) {
    let c: Vec<f64> = (0..d).map(|i| 0.5 - 0.3 * i as f64).collect();
    let a: Vec<f64> =
        (0..d * d).map(|k| if k / d == k % d { 2.0 + (k / d) as f64 } else { 0.3 / (1.0 + (k / d + k % d) as f64) }).collect();
    let cc = c.clone();
    let f = move |x: &[f64]| {
        let y: Vec<f64> = x.iter().zip(&cc).map(|(a, b)| a - b).collect();
        3.0 + (0..d).map(|i| (0..d).map(|j| y[i] * a[i * d + j] * y[j]).sum::<f64>()).sum::<f64>()
    };
    (f, c)
}

/// Once the archive allows the full model (`0.75 n >= 1.1 p`), the fit reproduces a quadratic
/// exactly: predictions at new points and the optimum agree to rounding. Before, the linear and
/// the diagonal forms are used in turn.
#[test]
fn the_model_is_exact_on_a_quadratic_with_enough_points() {
    let d = 5;
    let (f, c) = quadratic(d);
    let mut m = LqModel::new(d, 10);
    let mut rng = gradfree_core::rng_from_seed(7);
    let full = ModelKind::Full.coefficients(d);
    let mut kinds = Vec::new();
    for _ in 0..(1.1 * full as f64 / 0.75).ceil() as usize {
        let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect();
        assert!(m.add(&x, f(&x)));
        if kinds.last() != Some(&m.kind()) {
            kinds.push(m.kind());
        }
    }
    assert_eq!(kinds, [ModelKind::Linear, ModelKind::Diagonal, ModelKind::Full]);
    assert!(m.fit());
    let mut z = Vec::new();
    for _ in 0..20 {
        let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>() * 6.0 - 3.0).collect();
        let (p, t) = (m.predict(&x, &mut z), f(&x));
        assert!((p - t).abs() <= 1e-9 * t.abs().max(1.0), "model {p} vs f {t}");
    }
    let xopt = m.xopt().expect("a finite optimum");
    for (a, b) in xopt.iter().zip(&c) {
        assert!((a - b).abs() < 1e-9, "optimum {xopt:?} vs {c:?}");
    }
    // A point already archived is not added twice; non-finite values never are.
    let x0 = m.point(0).to_vec();
    assert!(!m.add(&x0, 1.0));
    assert!(!m.add(&[9.0; 5], f64::NAN));
}

/// The diagonal form is exact on a separable quadratic before the full form is reached.
#[test]
fn the_diagonal_model_is_exact_on_a_separable_quadratic() {
    let d = 6;
    let f = |x: &[f64]| x.iter().enumerate().map(|(i, v)| (1.0 + i as f64) * (v - 1.0).powi(2)).sum::<f64>() - 2.0;
    let mut m = LqModel::new(d, 4);
    let mut rng = gradfree_core::rng_from_seed(3);
    while m.kind() != ModelKind::Diagonal {
        let x: Vec<f64> = (0..d).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect();
        m.add(&x, f(&x));
    }
    assert!(m.fit());
    let xopt = m.xopt().unwrap();
    assert!(xopt.iter().all(|v| (v - 1.0).abs() < 1e-9), "{xopt:?}");
}

/// Kendall's tau-b: 1 for the same order, -1 for the reverse, scipy's value with ties.
#[test]
fn kendall_tau_b_matches_its_definition() {
    assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]), 1.0);
    assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]), -1.0);
    // scipy.stats.kendalltau([1, 2, 2, 3], [1, 3, 2, 4]).statistic == 0.912870929175277
    let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]);
    assert!((t - 0.912_870_929_175_277).abs() < 1e-12, "{t}");
    assert_eq!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), 0.0);
}

fn run_lq(f: &(dyn gradfree_core::Objective + Sync), d: usize, seed: u64, evals: u64) -> (gradfree_core::RunResult, u64) {
    let start = StartSpec::new(vec![2.0; d], 1.0, seed);
    let opt = build("lq-cmaes", &start).unwrap();
    let stop = StopRules { max_evaluations: Some(evals), target: Some(1e-8), ..Default::default() };
    let mut drv = Driver::new(opt, DriverOptions::new(stop)).unwrap();
    let r = drv.run(f, &mut []).unwrap();
    let Algorithm::LqCmaes(a) = drv.optimizer() else { unreachable!() };
    let g = a.generations();
    (r, g)
}

/// On the sphere and a separable ellipsoid (condition 1e6) in 10-d the model ranks most of each
/// population: lq-CMA-ES reaches 1e-8 in a fraction of the evaluations CMA-ES needs (Hansen 2019,
/// Fig. 2: about 6x fewer on the ellipsoid), and it evaluates fewer points than it samples.
#[test]
fn the_surrogate_saves_evaluations_on_quadratics() {
    for (name, most) in [("sphere", 200), ("ellipsoid", 900)] {
        let f = problem(name, 10, 0).unwrap();
        let start = StartSpec::new(vec![2.0; 10], 1.0, 1);
        let stop = StopRules { max_evaluations: Some(100_000), target: Some(1e-8), ..Default::default() };
        let mut plain = Driver::new(build("cmaes", &start).unwrap(), DriverOptions::new(stop.clone())).unwrap();
        let p = plain.run(&f, &mut []).unwrap();
        assert_eq!(p.stop_reason, Some(StopReason::Target));
        for seed in 1..=3 {
            let (r, generations) = run_lq(&f, 10, seed, 100_000);
            assert_eq!(r.stop_reason, Some(StopReason::Target), "{name}, seed {seed}: {r:?}");
            assert!(r.evaluations <= most, "{name}, seed {seed}: {} evaluations (CMA-ES: {})", r.evaluations, p.evaluations);
            assert!(r.evaluations * 3 < p.evaluations, "{name}: {} vs CMA-ES {}", r.evaluations, p.evaluations);
            assert!(r.evaluations < generations * 10, "{name}: fewer points evaluated than sampled");
        }
    }
}

/// A run stopped between two batches of a generation (model, partial generation and CMA-ES state
/// all saved) resumes on the trajectory of the uninterrupted run, with IPOP restarts around it.
#[test]
fn checkpoint_round_trip_mid_generation() {
    let f = problem("rosenbrock", 6, 0).unwrap();
    let params = IpopParams { scheme: RestartScheme::Bipop, max_restarts: Some(3), ..Default::default() };
    let make =
        || Algorithm::Ipop(Box::new(Ipop::<Algorithm>::new("lq-cmaes", StartSpec::new(vec![0.5; 6], 0.5, 4), params.clone()).unwrap()));
    let stop = |_: Option<u64>| StopRules { max_evaluations: Some(3_000), target: Some(1e-10), ..Default::default() };
    let mut whole = Driver::new(make(), DriverOptions::new(stop(None))).unwrap();
    let full = whole.run(&f, &mut []).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lq.json");
    let mut part = Driver::new(make(), DriverOptions::new(stop(None))).unwrap();
    // Stop where a generation is half told.
    let mut steps = 0;
    loop {
        part.step(&f, &mut []).unwrap();
        steps += 1;
        let Algorithm::Ipop(ipop) = part.optimizer() else { unreachable!() };
        let Algorithm::LqCmaes(lq) = ipop.current() else { unreachable!() };
        if steps > 30 && !lq.generation_complete() {
            break;
        }
    }
    save_checkpoint(&path, &serde_json::Value::Null, part.optimizer(), &part.state()).unwrap();
    let ck = load_checkpoint::<Algorithm>(&path).unwrap();
    assert_eq!(&ck.optimizer, part.optimizer());
    let mut resumed = Driver::resume(ck.optimizer, DriverOptions::new(stop(None)), ck.driver).unwrap();
    let rest = resumed.run(&f, &mut []).unwrap();
    assert_eq!(resumed.optimizer(), whole.optimizer());
    assert_eq!(rest.best_f.to_bits(), full.best_f.to_bits());
    assert_eq!(rest.evaluations, full.evaluations);
    assert_eq!(rest.best_x, full.best_x);
}

/// Bad parameters are named with their range; `tell` refuses what was not asked for.
#[test]
fn bad_input_is_refused() {
    let mut start = StartSpec::new(vec![0.0; 3], 1.0, 0);
    start.params.insert("tau_threshold".into(), 1.5.into());
    let e = build("lq-cmaes", &start).unwrap_err().to_string();
    assert!(e.contains("tau_threshold") && e.contains("(-1, 1]"), "{e}");
    let mut lq = LqCmaes::new(vec![0.0; 3], 1.0, &LqCmaesParams::default(), 0).unwrap();
    assert!(lq.tell(&Population::zeros(1, 3), &[1.0]).is_err(), "tell before ask");
    let pop = lq.ask().unwrap();
    assert!(lq.tell(&pop, &vec![f64::NAN; pop.len()]).is_err(), "NaN under the error policy");
    let bigger = Population::zeros(pop.len() + 1, 3);
    assert!(lq.tell(&bigger, &vec![1.0; pop.len() + 1]).is_err());
    assert!(lq.tell(&pop, &vec![1.0; pop.len()]).is_ok(), "the refused calls changed nothing");
}

/// The driver's rules on values judge whole generations: lq-CMA-ES often evaluates one point of a
/// generation (the model ranks the rest), and a one-value "generation" has best = median, which the
/// flat rule would read as a plateau. With the convergence rules on, the run still reaches 1e-8.
#[test]
fn the_driver_judges_whole_generations() {
    let f = problem("sphere", 10, 0).unwrap();
    let start = StartSpec::new(vec![2.0; 10], 1.0, 5);
    let opt = build("lq-cmaes", &start).unwrap();
    let stop =
        StopRules { max_evaluations: Some(20_000), target: Some(1e-8), ..Default::default() }.with_convergence_defaults(10, 10, true);
    let mut drv = Driver::new(opt, DriverOptions::new(stop)).unwrap();
    let r = drv.run(&f, &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "{r:?}");
    let Algorithm::LqCmaes(a) = drv.optimizer() else { unreachable!() };
    assert_eq!(drv.state().generations, a.generations(), "generations count whole generations");
}

/// Runs lq-CMA-ES on `f` for `gens` generations: each generation's asked points and, once it is
/// complete, its Kendall tau, the model's form and whether the model's optimum was proposed for
/// the next population.
fn trajectory(f: &dyn Fn(&[f64]) -> f64, params: &LqCmaesParams, gens: u64) -> Vec<(Vec<f64>, f64, ModelKind, bool)> {
    let mut es = LqCmaes::new(vec![1.0; 4], 1.0, params, 9).unwrap();
    let mut out = Vec::new();
    let mut points = Vec::new();
    while es.generations() < gens {
        let pop = es.ask().unwrap();
        let values: Vec<f64> = (0..pop.len()).map(|i| f(pop.row(i))).collect();
        points.extend_from_slice(pop.as_slice());
        let before = es.generations();
        es.tell(&pop, &values).unwrap();
        if es.generations() > before {
            out.push((std::mem::take(&mut points), es.last_generation().0, es.model().kind(), es.cma().injection().is_some()));
        }
    }
    out
}

/// `inject_if_ranked`: the model's optimum is proposed for the next population after a generation
/// the model ranked (Kendall's tau at least the 0.85 threshold) and after no other; pycma's rule
/// (`inject_if_ranked` false) after every generation. On values the model cannot rank (a hash of
/// the point) the run passes through the linear, diagonal and full model; on a quadratic, which
/// the model ranks once it is full, the optimum is injected and the run departs from the same run
/// without injection.
#[test]
fn the_optimum_is_injected_only_after_ranked_generations() {
    let noise = |x: &[f64]| {
        let h = x.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| (h ^ v.to_bits()).wrapping_mul(0x100_0000_01b3));
        (h >> 11) as f64 / (1u64 << 53) as f64
    };
    let p = |inject: bool, if_ranked: bool| LqCmaesParams { inject: Some(inject), inject_if_ranked: Some(if_ranked), ..Default::default() };
    let ranked_only = trajectory(&noise, &p(true, true), 40);
    let kinds: Vec<ModelKind> = ranked_only.iter().map(|g| g.2).collect();
    for kind in [ModelKind::Linear, ModelKind::Diagonal, ModelKind::Full] {
        assert!(kinds.contains(&kind), "{kinds:?}");
    }
    let unranked = ranked_only.iter().filter(|g| g.1 < 0.85).count();
    assert!(unranked > 10, "generations the model did not rank: {unranked}");
    for (g, (_, tau, kind, injected)) in ranked_only.iter().enumerate() {
        assert_eq!(*injected, *tau >= 0.85, "generation {g}: tau {tau}, {kind:?}");
    }
    assert!(trajectory(&noise, &p(true, false), 40).iter().all(|g| g.3), "pycma's rule injects after every generation");
    let (quad, _) = quadratic(4);
    let quad_run = trajectory(&quad, &p(true, true), 30);
    assert!(quad_run.iter().any(|g| g.2 == ModelKind::Full && g.1 >= 0.85 && g.3), "a ranked generation injects");
    let plain = trajectory(&quad, &p(false, false), 30);
    assert!(quad_run.iter().zip(&plain).any(|(a, b)| a.0 != b.0), "the injected optimum enters a population");
}

/// The `damping` parameter reaches lq-CMA-ES's CMA-ES: pycma's rule is the tutorial's for the
/// default population (the same run, point for point) and larger for a large one at d >= 6 (a
/// different run), as for `cmaes` (`Damping`).
#[test]
fn the_damping_reaches_the_inner_cma_es() {
    use gradfree_es::gaussian::Damping;
    let sphere = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>();
    let run = |popsize: Option<usize>, damping: Damping| {
        let params = LqCmaesParams { popsize, damping, ..Default::default() };
        let mut es = LqCmaes::new(vec![1.0; 10], 1.0, &params, 3).unwrap();
        let mut points = Vec::new();
        while es.generations() < 15 {
            let pop = es.ask().unwrap();
            let values: Vec<f64> = (0..pop.len()).map(|i| sphere(pop.row(i))).collect();
            points.extend_from_slice(pop.as_slice());
            es.tell(&pop, &values).unwrap();
        }
        (points, es.cma().sigma())
    };
    assert_eq!(run(None, Damping::Tutorial), run(None, Damping::Pycma), "the default population: the same damping");
    let (tutorial, pycma) = (run(Some(60), Damping::Tutorial), run(Some(60), Damping::Pycma));
    assert_ne!(tutorial.0, pycma.0, "a large population: pycma's damping changes the run");
    // The larger damping slows the step size's decrease on the sphere.
    assert!(pycma.1 > tutorial.1, "sigma {} (pycma) vs {} (tutorial)", pycma.1, tutorial.1);
}

/// BIPOP's regime budgets count the points lq-CMA-ES sampled (`lambda` per generation, evaluated or
/// ranked by the model), not the evaluations the model saved: tracked generation by generation
/// over the runs of a budget on the sphere (which the model ranks, so each run evaluates a
/// fraction of what it samples), the two regimes' counts add up to the sampled points, several
/// times the evaluations. Small runs therefore get the generations BIPOP's schedule gives a
/// plain CMA-ES (Hansen 2009), not a fraction of them.
#[test]
fn bipop_budgets_count_sampled_points() {
    let f = problem("sphere", 4, 0).unwrap();
    let params = IpopParams { scheme: RestartScheme::Bipop, ..Default::default() };
    let bipop = Ipop::<Algorithm>::new("lq-cmaes", StartSpec::new(vec![2.0; 4], 1.0, 5), params).unwrap();
    let stop = StopRules { max_evaluations: Some(6_000), ..Default::default() };
    let mut d = Driver::new(Algorithm::Ipop(Box::new(bipop)), DriverOptions::new(stop)).unwrap();
    let run = |d: &Driver<Algorithm>| {
        let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
        let Algorithm::LqCmaes(a) = ipop.current() else { unreachable!() };
        (ipop.restarts_done(), a.generations(), a.lambda())
    };
    let mut sampled = 0u64;
    while {
        let before = run(&d);
        let done = d.step(&f, &mut []).unwrap().is_some();
        let after = run(&d);
        // A restart happens when a generation completes: the old run's last one.
        sampled += if after.0 == before.0 { (after.1 - before.1) * before.2 as u64 } else { before.2 as u64 };
        !done
    } {}
    let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
    let (s, l) = ipop.regime_evaluations().unwrap();
    let n = d.state().evaluations;
    assert!(ipop.restarts_done() >= 3, "{} restarts", ipop.restarts_done());
    assert_eq!(s + l, sampled, "small {s} + large {l} against the sampled points");
    assert!(s + l > 2 * n, "sampled {} points, evaluated {n}", s + l);
}
