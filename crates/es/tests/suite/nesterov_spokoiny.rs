//! Nesterov–Spokoiny: convergence, unbiasedness, validation, reproducibility, checkpoint/resume.

use gradfree_core::{
    AskTell, CoreError, Driver, DriverOptions, FnObjective, History, NonFinitePolicy, Population, StopReason, StopRules, load_checkpoint,
    minimize, save_checkpoint,
};
use gradfree_es::Algorithm;
use gradfree_es::random_search::{NesterovSpokoiny, NesterovSpokoinyParams, StepSchedule};
use gradfree_problems::build;

fn sphere() -> FnObjective<impl Fn(&[f64]) -> f64> {
    FnObjective::new(|x: &[f64]| x.iter().map(|v| v * v).sum())
}

#[test]
fn converges_on_sphere_with_defaults() {
    let p = build("sphere", 10, 0).unwrap();
    let x0 = vec![0.8; 10];
    let ns = NesterovSpokoiny::new(x0, &NesterovSpokoinyParams::default(), 1).unwrap();
    let stop = StopRules { target: Some(1e-8), ..StopRules::max_evaluations(20_000) };
    let r = minimize(&p, ns, stop, &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target));
    assert!(r.best_f < 1e-8);
    // The theory predicts a contraction of about 0.7 per iteration here; 12 evaluations each.
    assert!(r.evaluations < 2_000, "{}", r.evaluations);
}

#[test]
fn converges_on_ill_conditioned_quadratic_with_small_step() {
    // L = lambda_max = 100: eta must be about 1/L.
    let p = gradfree_problems::Quadratic::new(8, 100.0, 3).unwrap();
    let params = NesterovSpokoiny_params(Some(8), Some(0.3 / 100.0));
    let ns = NesterovSpokoiny::new(vec![1.0; 8], &params, 2).unwrap();
    let r = minimize(&p, ns, StopRules { target: Some(1e-10), ..StopRules::max_evaluations(400_000) }, &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "{r:?}");
}

#[allow(non_snake_case)]
fn NesterovSpokoiny_params(b: Option<usize>, eta: Option<f64>) -> NesterovSpokoinyParams {
    NesterovSpokoinyParams { directions: b, step_size: eta, ..Default::default() }
}

/// For linear f(x) = c^T x the estimate is (c^T u) u, whose mean is c (eq. 4.18 unbiasedness).
#[test]
fn gradient_estimate_is_unbiased_on_linear_function() {
    let c = [1.0, -2.0, 0.5, 3.0];
    let f = |x: &[f64]| x.iter().zip(&c).map(|(a, b)| a * b).sum::<f64>();
    let params = NesterovSpokoinyParams { directions: Some(50), step_size: Some(1e-300), ..Default::default() };
    let mut ns = NesterovSpokoiny::new(vec![0.3; 4], &params, 9).unwrap();
    let mut mean_g = [0.0; 4];
    let iters = 800;
    for _ in 0..iters {
        let pop = ns.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(f).collect();
        ns.tell(&pop, &v).unwrap();
        for (m, g) in mean_g.iter_mut().zip(ns.gradient_estimate()) {
            *m += g / iters as f64;
        }
    }
    // Var of (c^T u) u_j is ||c||^2 + c_j^2 <= 2 ||c||^2 = 28.5; std error over 40000 samples ~ 0.027.
    for (m, cj) in mean_g.iter().zip(&c) {
        assert!((m - cj).abs() < 0.12, "{mean_g:?}");
    }
}

#[test]
fn tell_validates_and_leaves_state_unchanged() {
    let mut ns = NesterovSpokoiny::new(vec![1.0, 2.0], &NesterovSpokoinyParams::default(), 3).unwrap();
    let dummy = Population::zeros(ns.population_size(), 2);
    assert!(matches!(ns.tell(&dummy, &vec![0.0; ns.population_size()]), Err(CoreError::OutOfOrder(_))));
    let pop = ns.ask().unwrap();
    let n = pop.len();
    let before = ns.clone();
    assert!(matches!(ns.tell(&pop, &vec![1.0; n - 1]), Err(CoreError::DimensionMismatch { .. })));
    assert!(matches!(ns.tell(&Population::zeros(n, 3), &vec![1.0; n]), Err(CoreError::DimensionMismatch { .. })));
    let mut vals = vec![1.0; n];
    vals[3] = f64::NAN;
    assert!(matches!(ns.tell(&pop, &vals), Err(CoreError::NonFinite { index: 3, .. })));
    assert_eq!(ns, before, "a rejected tell must not change the state");
    // Asking again before telling returns the same points.
    assert_eq!(ns.ask().unwrap(), pop);
    vals[3] = 0.5;
    ns.tell(&pop, &vals).unwrap();
}

#[test]
fn treat_as_inf_drops_pairs() {
    let params = NesterovSpokoinyParams { on_nonfinite: NonFinitePolicy::TreatAsInf, directions: Some(3), ..Default::default() };
    let mut ns = NesterovSpokoiny::new(vec![1.0, 1.0], &params, 4).unwrap();
    let pop = ns.ask().unwrap();
    let mut vals: Vec<f64> = pop.rows().map(|x| x[0] + x[1]).collect();
    vals[0] = f64::NAN; // drops pair 0
    let mean0 = ns.mean().to_vec();
    ns.tell(&pop, &vals).unwrap();
    let ev = ns.take_events();
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].kind, "dropped-pairs");
    assert_ne!(ns.mean(), &mean0[..]);
    let pop = ns.ask().unwrap();
    let mean1 = ns.mean().to_vec();
    ns.tell(&pop, &[f64::INFINITY; 6]).unwrap();
    assert_eq!(ns.mean(), &mean1[..]);
    assert_eq!(ns.take_events()[0].kind, "no-finite-pair");
}

#[test]
fn parameters_are_validated() {
    let bad = [
        NesterovSpokoinyParams { directions: Some(0), ..Default::default() },
        NesterovSpokoinyParams { smoothing: Some(0.0), ..Default::default() },
        NesterovSpokoinyParams { smoothing: Some(f64::NAN), ..Default::default() },
        NesterovSpokoinyParams { step_size: Some(-1.0), ..Default::default() },
    ];
    for p in bad {
        let e = NesterovSpokoiny::new(vec![0.0; 3], &p, 0).unwrap_err();
        assert!(matches!(e, CoreError::InvalidParameter { .. }), "{e}");
    }
    assert!(NesterovSpokoiny::new(vec![], &NesterovSpokoinyParams::default(), 0).is_err());
    assert!(NesterovSpokoiny::new(vec![f64::INFINITY], &NesterovSpokoinyParams::default(), 0).is_err());
    let mut spec = gradfree_es::StartSpec::new(vec![0.0; 3], 0.5, 0);
    spec.params.insert("no_such_param".into(), 1.into());
    let e = gradfree_es::build("nesterov-spokoiny", &spec).unwrap_err().to_string();
    assert!(e.contains("unknown field `no_such_param`"), "{e}");
    let e = gradfree_es::build("nope", &spec).unwrap_err().to_string();
    assert!(e.contains("unknown algorithm `nope`") && e.contains("nesterov-spokoiny"), "{e}");
}

fn trajectory(seed: u64, gens: u64) -> (Vec<f64>, Vec<Option<f64>>) {
    let p = build("rosenbrock", 5, 0).unwrap();
    let params = NesterovSpokoinyParams { step_size: Some(1e-3), ..Default::default() };
    let ns = NesterovSpokoiny::new(vec![0.0; 5], &params, seed).unwrap();
    let mut h = History::default();
    let mut d = Driver::new(ns, DriverOptions::new(StopRules { max_generations: Some(gens), ..Default::default() })).unwrap();
    d.run(&p, &mut [&mut h]).unwrap();
    (d.optimizer().mean().to_vec(), h.records.iter().map(|r| r.best_f).collect())
}

#[test]
fn same_seed_same_run_and_pinned_values() {
    let (m1, h1) = trajectory(7, 30);
    let (m2, h2) = trajectory(7, 30);
    assert_eq!(m1, m2);
    assert_eq!(h1, h2);
    let (m3, _) = trajectory(8, 30);
    assert_ne!(m1, m3);
    // Value stability for seed 7 (xoshiro256++ / rand_distr 0.6 ziggurat); tolerance for
    // cross-platform floating-point differences.
    let pinned = PINNED_MEAN;
    for (a, b) in m1.iter().zip(pinned) {
        assert!((a - b).abs() < 1e-9, "{m1:?}");
    }
}

const PINNED_MEAN: [f64; 5] = [0.0796853602597655, 0.016231009583735297, 0.007416599182470012, 0.009272335211860938, 0.0004351351720260485];

#[test]
fn checkpoint_resume_is_bit_identical() {
    let p = build("ellipsoid", 6, 0).unwrap();
    let params = NesterovSpokoinyParams { step_size: Some(1e-7), ..Default::default() };
    let stop = StopRules { max_generations: Some(50), ..Default::default() };
    let make = || Algorithm::NesterovSpokoiny(NesterovSpokoiny::new(vec![0.5; 6], &params, 11).unwrap());

    // Uninterrupted run.
    let mut full_hist = History::default();
    let mut full = Driver::new(make(), DriverOptions::new(stop.clone())).unwrap();
    full.run(&p, &mut [&mut full_hist]).unwrap();

    // Run 20 generations, checkpoint, drop everything, resume from the file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt.json");
    let mut part_hist = History::default();
    let mut part = Driver::new(make(), DriverOptions::new(stop.clone())).unwrap();
    for _ in 0..20 {
        part.step(&p, &mut [&mut part_hist]).unwrap();
    }
    save_checkpoint(&path, &serde_json::json!({"note": "test"}), part.optimizer(), &part.state()).unwrap();
    drop(part);
    let ck = load_checkpoint::<Algorithm>(&path).unwrap();
    assert_eq!(ck.meta["note"], "test");
    let mut resumed = Driver::resume(ck.optimizer, DriverOptions::new(stop), ck.driver).unwrap();
    resumed.run(&p, &mut [&mut part_hist]).unwrap();

    assert_eq!(resumed.optimizer(), full.optimizer());
    let strip = |h: &History| {
        h.records.iter().map(|r| (r.generation, r.evaluations, r.best_f, r.gen_best_f, r.gen_median_f, r.scale)).collect::<Vec<_>>()
    };
    assert_eq!(strip(&part_hist), strip(&full_hist));
    assert_eq!(resumed.result().best_x, full.result().best_x);
    assert_eq!(resumed.result().generations, 50);
}

#[test]
fn corrupt_checkpoints_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    for (content, needle) in [
        ("{not json", "not JSON"),
        ("{\"format\":\"other\"}", "format tag"),
        ("{\"format\":\"gradfree-checkpoint\",\"version\":99}", "unsupported version"),
        (
            "{\"format\":\"gradfree-checkpoint\",\"version\":1,\"meta\":null,\"optimizer\":{\"algorithm\":\"nesterov-spokoiny\"},\"driver\":{}}",
            "missing field",
        ),
    ] {
        std::fs::write(&path, content).unwrap();
        let e = load_checkpoint::<Algorithm>(&path).unwrap_err().to_string();
        assert!(e.contains(needle) && e.contains("bad.json"), "{e}");
    }
    let e = load_checkpoint::<Algorithm>(dir.path().join("missing.json")).unwrap_err().to_string();
    assert!(e.contains("missing.json"), "{e}");
}

#[test]
fn inverse_k_schedule_shrinks_steps() {
    let params =
        NesterovSpokoinyParams { schedule: StepSchedule::InverseK, step_size: Some(0.1), directions: Some(4), ..Default::default() };
    let ns = NesterovSpokoiny::new(vec![1.0; 4], &params, 5).unwrap();
    let r = minimize(&sphere(), ns, StopRules::max_evaluations(4000), &mut []).unwrap();
    assert!(r.best_f < 4.0 && r.best_f.is_finite());
}
