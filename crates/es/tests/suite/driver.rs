//! The core driver, exercised with a real optimizer: budgets, stop rules, bounds, logs, errors.

use gradfree_core::observer::read_generation_log;
use gradfree_core::{
    BoundaryRepair, Bounds, BoundsHandling, CoreError, Driver, DriverOptions, FnObjective, History, JsonLinesLog, StopReason, StopRules,
};
use gradfree_es::random_search::{NesterovSpokoiny, NesterovSpokoinyParams};

/// The paper's Nesterov–Spokoiny (no backtracking: these tests pin the driver around a plain
/// constant-step method).
fn ns(d: usize, b: usize, eta: f64, seed: u64) -> NesterovSpokoiny {
    let p = NesterovSpokoinyParams {
        directions: Some(b),
        step_size: Some(eta),
        step_control: gradfree_es::step_control::StepControl::None,
        ..Default::default()
    };
    NesterovSpokoiny::new(vec![0.5; d], &p, seed).unwrap()
}

fn sphere() -> FnObjective<impl Fn(&[f64]) -> f64 + Sync> {
    FnObjective::new(|x: &[f64]| x.iter().map(|v| v * v).sum())
}

#[test]
fn evaluation_budget_is_never_exceeded() {
    let mut d = Driver::new(ns(3, 3, 0.01, 1), DriverOptions::new(StopRules::max_evaluations(100))).unwrap();
    let r = d.run(&sphere(), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::MaxEvaluations));
    assert_eq!(r.evaluations, 96);
    assert_eq!(r.generations, 16);
    let e = Driver::new(ns(3, 3, 0.01, 1), DriverOptions::new(StopRules::max_evaluations(5))).err().unwrap();
    assert!(e.to_string().contains("max_evaluations") && e.to_string().contains(">= the population size 6"), "{e}");
}

#[test]
fn generation_budget_target_and_wall_time() {
    let mut d = Driver::new(ns(3, 2, 0.01, 1), DriverOptions::new(StopRules { max_generations: Some(7), ..Default::default() })).unwrap();
    let r = d.run(&sphere(), &mut []).unwrap();
    assert_eq!((r.stop_reason, r.generations, r.evaluations), (Some(StopReason::MaxGenerations), 7, 28));

    let stop = StopRules { target: Some(1e-3), ..StopRules::max_evaluations(100_000) };
    let mut d = Driver::new(ns(3, 2, 0.2, 1), DriverOptions::new(stop)).unwrap();
    let r = d.run(&sphere(), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target));
    assert!(r.best_f <= 1e-3);

    let stop = StopRules { max_seconds: Some(1e-9), ..Default::default() };
    let mut d = Driver::new(ns(3, 2, 0.2, 1), DriverOptions::new(stop)).unwrap();
    assert_eq!(d.run(&sphere(), &mut []).unwrap().stop_reason, Some(StopReason::WallTime));
}

#[test]
fn tolerances_on_f_and_x() {
    // A constant function: the f-range is 0 once the window is full.
    let flat = FnObjective::new(|_: &[f64]| 1.0);
    let stop = StopRules { tol_f: Some(1e-12), tol_f_window: 5, ..StopRules::max_evaluations(10_000) };
    let mut d = Driver::new(ns(3, 2, 0.1, 1), DriverOptions::new(stop)).unwrap();
    let r = d.run(&flat, &mut []).unwrap();
    assert_eq!((r.stop_reason, r.generations), (Some(StopReason::TolF), 5));

    // On the sphere the steps shrink geometrically: tol-x fires.
    let stop = StopRules { tol_x: Some(1e-6), ..StopRules::max_evaluations(100_000) };
    let mut d = Driver::new(ns(3, 2, 0.2, 1), DriverOptions::new(stop)).unwrap();
    let r = d.run(&sphere(), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::TolX));
    assert!(r.best_f < 1e-8);
}

#[test]
fn bounds_keep_evaluations_feasible() {
    // min sum (x_i - 3)^2 on [-1, 1]^4: the constrained optimum is x = 1, f = 16.
    let seen_outside = std::sync::atomic::AtomicBool::new(false);
    let f = FnObjective::new(|x: &[f64]| {
        if x.iter().any(|v| v.abs() > 1.0) {
            seen_outside.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        x.iter().map(|v| (v - 3.0).powi(2)).sum()
    });
    for handling in [
        BoundsHandling::Repair(BoundaryRepair::Clip),
        BoundsHandling::Repair(BoundaryRepair::Reflect),
        BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: 10.0 },
    ] {
        let mut opts = DriverOptions::new(StopRules::max_evaluations(20_000));
        opts.bounds = Some((Bounds::uniform(4, -1.0, 1.0).unwrap(), handling));
        let mut d = Driver::new(ns(4, 4, 0.05, 2), opts).unwrap();
        let r = d.run(&f, &mut []).unwrap();
        assert!(r.best_x.iter().all(|v| (-1.0..=1.0).contains(v)), "{handling:?}: {:?}", r.best_x);
        // Reflection makes the optimum a kink, where a constant step oscillates: looser there.
        let tol = if handling == BoundsHandling::Repair(BoundaryRepair::Reflect) { 0.5 } else { 1e-3 };
        assert!(r.best_f >= 16.0 - 1e-12 && r.best_f - 16.0 < tol, "{handling:?}: {}", r.best_f);
    }
    assert!(!seen_outside.load(std::sync::atomic::Ordering::Relaxed), "objective evaluated outside the box");
    let mut opts = DriverOptions::new(StopRules::max_evaluations(100));
    opts.bounds = Some((Bounds::uniform(3, -1.0, 1.0).unwrap(), BoundsHandling::Repair(BoundaryRepair::Clip)));
    assert!(matches!(Driver::new(ns(4, 2, 0.1, 1), opts), Err(CoreError::DimensionMismatch { .. })));
}

#[test]
fn nan_objective_is_an_error_and_changes_nothing() {
    let f = FnObjective::new(|x: &[f64]| if x[0] > 0.0 { f64::NAN } else { 1.0 });
    let mut d = Driver::new(ns(2, 2, 0.1, 1), DriverOptions::new(StopRules::max_evaluations(100))).unwrap();
    let e = d.step(&f, &mut []).unwrap_err();
    assert!(matches!(e, CoreError::NonFinite { .. }), "{e}");
    assert!(e.to_string().contains("not finite"));
    assert_eq!(d.state().evaluations, 0);
    let wrong_dim = FnObjective::with_dim(|_: &[f64]| 0.0, 3);
    assert!(matches!(d.step(&wrong_dim, &mut []), Err(CoreError::DimensionMismatch { what: "objective dimension", .. })));
}

#[test]
fn json_lines_log_round_trips_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let mut log = JsonLinesLog::create(&path).unwrap();
    let mut hist = History::default();
    let mut d = Driver::new(ns(5, 3, 0.05, 3), DriverOptions::new(StopRules { max_generations: Some(12), ..Default::default() })).unwrap();
    let r = d.run(&sphere(), &mut [&mut log, &mut hist]).unwrap();
    drop(log);
    let records = read_generation_log(&path).unwrap();
    assert_eq!(records, hist.records);
    assert_eq!(records.len(), 12);
    assert!(records.windows(2).all(|w| w[1].best_f <= w[0].best_f && w[1].evaluations == w[0].evaluations + 6));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\"type\":\"start\""));
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "finish");
    assert_eq!(last["best_f"].as_f64().unwrap(), r.best_f);
    // Parallel and sequential evaluation give the same run.
    let mut opts = DriverOptions::new(StopRules { max_generations: Some(12), ..Default::default() });
    opts.parallel = false;
    let mut seq = Driver::new(ns(5, 3, 0.05, 3), opts).unwrap();
    assert_eq!(seq.run(&sphere(), &mut []).unwrap().best_x, r.best_x);
}

/// A diverging optimizer stops the run with reason `diverged` (keeping the best point), it never
/// sends a NaN point to the objective.
#[test]
fn diverging_search_distribution_stops_the_run() {
    // A linear function with a huge slope and a huge step: the mean overflows in one step.
    let f = FnObjective::new(|x: &[f64]| -1e10 * x[0]);
    let mut d = Driver::new(ns(3, 2, 1e300, 1), DriverOptions::new(StopRules::max_evaluations(1000))).unwrap();
    let r = d.run(&f, &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Diverged));
    assert!(r.best_f.is_finite() && r.best_x.iter().all(|v| v.is_finite()));
    assert_eq!(StopReason::Diverged.to_string(), "diverged");
}

/// A numerical failure inside an update is an outcome, not an error: the run stops with
/// `numerical-failure`, counts the generation, reports the reason as an event and keeps its best
/// point; IPOP restarts the method instead.
#[test]
fn numerical_failure_is_a_stop_reason_not_an_error() {
    use gradfree_core::AskTell;
    use gradfree_es::{Algorithm, Ipop, IpopParams, StartSpec, build};
    // xNES with an absurd covariance rate: sigma over- or underflows in the first update.
    let mut start = StartSpec::new(vec![0.5; 3], 0.5, 1);
    start.params.insert("eta_cov".into(), 1e6.into());
    let alg = build("xnes", &start).unwrap();
    let n = alg.population_size() as u64;
    let mut h = History::default();
    let mut d = Driver::new(alg, DriverOptions::new(StopRules::max_evaluations(10_000))).unwrap();
    let r = d.run(&sphere(), &mut [&mut h]).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::NumericalFailure));
    assert_eq!((r.generations, r.evaluations), (1, n));
    assert!(r.best_f.is_finite());
    let ev = &h.records[0].events;
    assert!(ev.iter().any(|e| e.kind == "numerical-failure" && e.message.contains("xnes: sigma")), "{ev:?}");
    assert!(d.optimizer().failure().is_some());
    // Under IPOP the failed run is restarted and the run goes on.
    let ipop = Ipop::<Algorithm>::new("xnes", start, IpopParams { max_restarts: Some(1), ..Default::default() }).unwrap();
    let mut d = Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(StopRules::max_evaluations(10_000))).unwrap();
    let r = d.run(&sphere(), &mut []).unwrap();
    assert!(r.generations >= 2, "{r:?}");
}

/// Evolution strategies take back exactly the points they asked for; anything else is refused with
/// the row named and nothing changes.
#[test]
fn told_points_must_be_the_asked_ones() {
    use gradfree_core::{Population, Run};
    let mut run = Run::new(ns(2, 2, 0.01, 1), DriverOptions::new(StopRules::max_evaluations(100))).unwrap();
    let asked = run.ask().unwrap().unwrap().clone();
    let mut other = asked.clone();
    other.row_mut(1)[0] += 1.0;
    let vals: Vec<f64> = asked.rows().map(|x| x.iter().map(|v| v * v).sum()).collect();
    let e = run.tell_points(&other, &vals, &mut []).unwrap_err();
    assert!(matches!(e, CoreError::NotAsked { row: 1, column: 0, .. }), "{e}");
    assert_eq!(run.evaluations(), 0);
    let short = Population::from_rows(&[asked.row(0)]).unwrap();
    assert!(run.tell_points(&short, &vals[..1], &mut []).is_err());
    run.tell_points(&asked, &vals, &mut []).unwrap();
    assert_eq!(run.evaluations(), 4);
    assert!(matches!(run.tell_points(&asked, &vals, &mut []), Err(CoreError::OutOfOrder(_))));
}

/// Checkpoints follow the policy: none during a short run with a long wall-clock interval (only the
/// final one), one every n generations when asked, and a bad interval is refused.
#[test]
fn checkpoints_follow_the_policy() {
    use gradfree_core::{CheckpointPolicy, GenerationRecord, Observer};
    struct Seen<'a>(&'a std::path::Path, Vec<bool>);
    impl Observer for Seen<'_> {
        fn on_generation(&mut self, _: &GenerationRecord) -> Result<(), CoreError> {
            self.1.push(self.0.exists());
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for (every, seconds) in [(None, Some(3600.0)), (Some(5), None)] {
        let path = dir.path().join(format!("{every:?}.json"));
        let policy = CheckpointPolicy { path: path.clone(), every, seconds, meta: serde_json::json!({}) };
        let stop = StopRules { max_generations: Some(12), ..Default::default() };
        let mut d = Driver::new(ns(3, 2, 0.01, 1), DriverOptions::new(stop)).unwrap().with_checkpoints(policy).unwrap();
        let mut seen = Seen(&path, Vec::new());
        d.run(&sphere(), &mut [&mut seen]).unwrap();
        assert!(path.exists());
        match every {
            None => assert!(seen.1.iter().all(|e| !e), "{:?}", seen.1),
            Some(_) => assert_eq!(seen.1.iter().position(|e| *e), Some(5), "first seen after generation 5: {:?}", seen.1),
        }
    }
    let bad = CheckpointPolicy { path: dir.path().join("x.json"), every: None, seconds: Some(-1.0), meta: serde_json::json!({}) };
    let e =
        Driver::new(ns(3, 2, 0.01, 1), DriverOptions::new(StopRules::max_evaluations(100))).unwrap().with_checkpoints(bad).err().unwrap();
    assert!(e.to_string().contains("checkpoint_seconds"), "{e}");
}
