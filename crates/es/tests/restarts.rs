//! IPOP restarts around any algorithm: they fire where the plain run is stuck, grow the
//! population, and checkpoint/resume bit-identically across a restart.

use gradfree_core::{AskTell, Driver, DriverOptions, History, StopReason, StopRules, load_checkpoint, save_checkpoint};
use gradfree_es::{Algorithm, Ipop, IpopParams, RestartMean, StartSpec, build};
use gradfree_problems::build as problem;

fn start(d: usize, seed: u64) -> StartSpec {
    StartSpec::new(vec![3.0; d], 2.0, seed)
}

fn stop(evals: u64) -> StopRules {
    StopRules { max_evaluations: Some(evals), target: Some(1e-8), ..Default::default() }
}

/// CMA-ES with its default population gets stuck in a local minimum of the 10-d Rastrigin
/// function from this start; IPOP restarts with growing populations reach the global minimum.
#[test]
fn restarts_solve_rastrigin_where_a_single_run_is_stuck() {
    let f = problem("rastrigin", 10, 0).unwrap();
    let mut plain = Driver::new(build("cmaes", &start(10, 1)).unwrap(), DriverOptions::new(stop(200_000))).unwrap();
    let r = plain.run(&f, &mut []).unwrap();
    assert!(r.best_f > 0.5, "single run should stall in a local minimum, got {}", r.best_f);

    let ipop = Ipop::<Algorithm>::new("cmaes", start(10, 1), IpopParams::default()).unwrap();
    let base = ipop.population_size();
    let mut h = History::default();
    let mut d = Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(stop(200_000))).unwrap();
    let r = d.run(&f, &mut [&mut h]).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "best {}", r.best_f);
    let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
    let k = ipop.restarts_done();
    assert!(k >= 1);
    assert_eq!(ipop.population_size(), base << k, "population doubles at each restart");
}

/// A converged run (tiny scale) restarts at once from a uniform point of the box, and the limit on
/// restarts holds.
#[test]
fn tol_x_restart_and_restart_limit() {
    let f = problem("sphere", 4, 0).unwrap();
    let b = gradfree_core::Bounds::new(vec![-5.0; 4], vec![5.0; 4]).unwrap();
    let params = IpopParams { max_restarts: Some(2), tol_x: 1e-3, restart_mean: RestartMean::Uniform(b), ..Default::default() };
    let ipop = Ipop::<Algorithm>::new("ingo", start(4, 2), params).unwrap();
    let mut d =
        Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(StopRules { max_evaluations: Some(50_000), ..Default::default() }))
            .unwrap();
    d.run(&f, &mut []).unwrap();
    let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
    assert_eq!(ipop.restarts_done(), 2);
    assert!(ipop.current().mean().iter().all(|v| v.abs() < 1e-3), "the last run converges");
}

#[test]
fn checkpoint_across_a_restart_resumes_bit_identically() {
    let f = problem("rastrigin", 6, 0).unwrap();
    let mk = || Algorithm::Ipop(Box::new(Ipop::<Algorithm>::new("cmaes", start(6, 5), IpopParams::default()).unwrap()));
    let rules = StopRules { max_generations: Some(900), ..Default::default() };
    let mut full_h = History::default();
    let mut full = Driver::new(mk(), DriverOptions::new(rules.clone())).unwrap();
    full.run(&f, &mut [&mut full_h]).unwrap();
    let Algorithm::Ipop(done) = full.optimizer() else { unreachable!() };
    assert!(done.restarts_done() >= 2, "the run should restart, got {}", done.restarts_done());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ipop.json");
    let mut part_h = History::default();
    let mut part = Driver::new(mk(), DriverOptions::new(rules.clone())).unwrap();
    for _ in 0..450 {
        part.step(&f, &mut [&mut part_h]).unwrap();
    }
    save_checkpoint(&path, &serde_json::Value::Null, part.optimizer(), &part.state()).unwrap();
    let ck = load_checkpoint::<Algorithm>(&path).unwrap();
    assert_eq!(&ck.optimizer, part.optimizer());
    let mut resumed = Driver::resume(ck.optimizer, DriverOptions::new(rules), ck.driver).unwrap();
    resumed.run(&f, &mut [&mut part_h]).unwrap();
    assert_eq!(resumed.optimizer(), full.optimizer());
    let key = |h: &History| h.records.iter().map(|r| (r.evaluations, r.best_f, r.scale.to_bits())).collect::<Vec<_>>();
    assert_eq!(key(&part_h), key(&full_h));
}

/// The population stops growing at `max_popsize`.
#[test]
fn population_growth_is_capped() {
    let f = problem("sphere", 3, 0).unwrap();
    let params = IpopParams { max_restarts: Some(6), tol_x: 1e-2, max_popsize: Some(40), ..Default::default() };
    let ipop = Ipop::<Algorithm>::new("cmaes", start(3, 1), params).unwrap();
    let mut d = Driver::new(
        Algorithm::Ipop(Box::new(ipop)),
        DriverOptions::new(StopRules { max_evaluations: Some(200_000), ..Default::default() }),
    )
    .unwrap();
    d.run(&f, &mut []).unwrap();
    let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
    assert_eq!(ipop.restarts_done(), 6);
    assert_eq!(ipop.population_size(), 40);
}

#[test]
fn bad_restart_parameters_are_named() {
    let e = Ipop::<Algorithm>::new("cmaes", start(3, 0), IpopParams { popsize_factor: 0.5, ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("popsize_factor"), "{e}");
    let e = Ipop::<Algorithm>::new("nesterov-spokoiny", start(3, 0), IpopParams::default()).unwrap_err();
    assert!(e.to_string().contains("popsize"), "{e}");
    let b = gradfree_core::Bounds::new(vec![0.0; 2], vec![1.0; 2]).unwrap();
    let e = Ipop::<Algorithm>::new("ingo", start(3, 0), IpopParams { restart_mean: RestartMean::Uniform(b), ..Default::default() })
        .unwrap_err();
    assert!(e.to_string().contains("restart box"), "{e}");
}
