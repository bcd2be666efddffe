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
    for scheme in [gradfree_es::RestartScheme::Ipop, gradfree_es::RestartScheme::Bipop] {
        checkpoint_resumes(scheme);
    }
}

fn checkpoint_resumes(scheme: gradfree_es::RestartScheme) {
    let f = problem("rastrigin", 6, 0).unwrap();
    // BIPOP with the worse-optimum rule, whose reference value goes through the checkpoint too.
    let bipop = scheme == gradfree_es::RestartScheme::Bipop;
    let params = IpopParams { scheme, worse_runs: bipop.then_some(0.01), ..IpopParams::default() };
    let mk = || Algorithm::Ipop(Box::new(Ipop::<Algorithm>::new("cmaes", start(6, 5), params.clone()).unwrap()));
    let rules = StopRules { max_generations: Some(900), ..Default::default() };
    let mut full_h = History::default();
    let mut full = Driver::new(mk(), DriverOptions::new(rules.clone())).unwrap();
    full.run(&f, &mut [&mut full_h]).unwrap();
    let Algorithm::Ipop(done) = full.optimizer() else { unreachable!() };
    assert!(done.restarts_done() >= 2, "the run should restart, got {}", done.restarts_done());
    if bipop {
        let reasons = restart_reasons(&full_h);
        assert!(reasons.iter().any(|r| r == gradfree_es::restarts::WORSE_OPTIMUM), "{reasons:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ipop.json");
    let mut part_h = History::default();
    let mut part = Driver::new(mk(), DriverOptions::new(rules.clone())).unwrap();
    for _ in 0..450 {
        part.step(&f, &mut [&mut part_h]).unwrap();
    }
    save_checkpoint(&path, &serde_json::Value::Null, part.optimizer(), &part.state()).unwrap();
    if bipop {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"flat_best\":") && text.contains("\"worse_runs\":0.01"), "the rule's state is saved");
    }
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

/// BIPOP's schedule (Hansen 2009; pycma's `fmin(..., bipop=True)`): the small regime runs while
/// its evaluations are below the large regime's, counting the first run as small.
#[test]
fn bipop_regime_follows_the_budget_rule() {
    use gradfree_es::{Regime, bipop_regime};
    assert_eq!(bipop_regime(0, 0), Regime::Small);
    // After the first run (small) nothing was spent on large populations: large next.
    assert_eq!(bipop_regime(1_000, 0), Regime::Large);
    assert_eq!(bipop_regime(1_000, 4_000), Regime::Small);
    assert_eq!(bipop_regime(3_999, 4_000), Regime::Small);
    assert_eq!(bipop_regime(4_000, 4_000), Regime::Large);
    assert_eq!(bipop_regime(5_000, 4_000), Regime::Large);
}

/// A BIPOP run on a multimodal function: both regimes run, large populations double, small ones
/// stay between N_0 and the last large one with a smaller sigma0, the small regime never gets
/// ahead of the large one by more than its last run, and the objective is evaluated at most the
/// global budget's number of times, however many regimes ran (libcmaes once reset the budget at
/// each BIPOP run).
#[test]
fn bipop_interleaves_regimes_within_the_global_budget() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let f = problem("rastrigin", 6, 0).unwrap();
    let count = AtomicU64::new(0);
    let counted = gradfree_core::FnObjective::new(|x: &[f64]| {
        count.fetch_add(1, Ordering::Relaxed);
        gradfree_core::Objective::eval(&f, x)
    });
    let params = IpopParams { scheme: gradfree_es::RestartScheme::Bipop, ..Default::default() };
    let bipop = Ipop::<Algorithm>::new("cmaes", StartSpec::new(vec![3.0; 6], 2.0, 7), params).unwrap();
    let base = bipop.population_size();
    let budget = 60_000;
    let mut d = Driver::new(
        Algorithm::Ipop(Box::new(bipop)),
        DriverOptions::new(StopRules { max_evaluations: Some(budget), ..Default::default() }),
    )
    .unwrap();
    let mut h = History::default();
    let mut max_gap = 0i64;
    while d.step(&counted, &mut [&mut h]).unwrap().is_none() {
        let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
        let (small, large) = ipop.regime_evaluations().unwrap();
        max_gap = max_gap.max(small as i64 - large as i64);
    }
    let events: Vec<_> = h.records.iter().flat_map(|r| r.events.iter()).collect();
    let n = count.load(Ordering::Relaxed);
    assert!(n <= budget && n == d.state().evaluations, "evaluated {n} times for a budget of {budget}");
    let restarts: Vec<&str> = events.iter().filter(|e| e.kind == gradfree_core::EventKind::Restart).map(|e| e.message.as_str()).collect();
    let small = restarts.iter().filter(|m| m.contains("small regime")).count();
    let large: Vec<usize> =
        restarts.iter().filter(|m| m.contains("large regime")).map(|m| m.rsplit("popsize ").next().unwrap().parse().unwrap()).collect();
    assert!(small >= 2 && large.len() >= 2, "{restarts:#?}");
    assert_eq!(large, (1..=large.len()).map(|j| base << j).collect::<Vec<_>>(), "large populations double");
    for m in restarts.iter().filter(|m| m.contains("small regime")) {
        let p: usize = m.rsplit("popsize ").next().unwrap().parse().unwrap();
        let sigma: f64 = m.split("sigma0 ").nth(1).unwrap().split(')').next().unwrap().parse().unwrap();
        assert!(p >= base && p <= base << large.len() && (0.02 - 1e-12..=2.0).contains(&sigma), "{m}");
    }
    // The first (small) run may exceed the large regime's spending before any large run; after
    // that a small run starts only when small < large, and spends at most half of large.
    let Algorithm::Ipop(ipop) = d.optimizer() else { unreachable!() };
    let (s, l) = ipop.regime_evaluations().unwrap();
    assert!(s + l == n && s as f64 <= 1.5 * l as f64 + max_gap.max(0) as f64, "small {s}, large {l}");
}

/// With a limit on restarts, BIPOP stops after that many large restarts but may still run small
/// ones in between and after (pycma's `restarts=K, bipop=True`).
#[test]
fn bipop_limit_counts_large_restarts_only() {
    let f = problem("rastrigin", 6, 0).unwrap();
    let params = IpopParams { scheme: gradfree_es::RestartScheme::Bipop, max_restarts: Some(2), ..Default::default() };
    let bipop = Ipop::<Algorithm>::new("cmaes", StartSpec::new(vec![3.0; 6], 2.0, 7), params).unwrap();
    let mut d = Driver::new(
        Algorithm::Ipop(Box::new(bipop)),
        DriverOptions::new(StopRules { max_evaluations: Some(200_000), ..Default::default() }),
    )
    .unwrap();
    let mut h = History::default();
    let r = d.run(&f, &mut [&mut h]).unwrap();
    assert_eq!(r.stop_reason, Some(gradfree_core::StopReason::MaxEvaluations));
    let events: Vec<String> = h
        .records
        .iter()
        .flat_map(|r| r.events.iter())
        .filter(|e| e.kind == gradfree_core::EventKind::Restart)
        .map(|e| e.message.clone())
        .collect();
    let large = events.iter().filter(|m| m.contains("large regime")).count();
    let small = events.iter().filter(|m| m.contains("small regime")).count();
    assert_eq!(large, 2, "{events:#?}");
    assert!(small >= 2, "{events:#?}");
    // No third large run: after the limit the last run goes on, without restarts, to the budget.
    assert_eq!(d.state().evaluations / 1000, 199, "{:?}", d.state().stopped);
}

/// The flat rule's tolerance: pycma's relative `tolfun` away from 0, relative to `f` near 0 (a
/// run improving 0.7% per window at f = 1.08e-10 is not flat), zero at 0 (only a plateau of equal
/// values is flat there).
#[test]
fn flat_tolerance_is_relative_near_zero() {
    use gradfree_es::restarts::flat_tolerance;
    assert_eq!(flat_tolerance(80.0), 1e-12 * 81.0);
    assert_eq!(flat_tolerance(-3.0), 1e-12 * 4.0);
    assert!((flat_tolerance(1e-6) - 1e-12 * (1.0 + 1e-6)).abs() < 1e-24);
    assert!(flat_tolerance(1.08e-10) < 7e-13 && (flat_tolerance(1.08e-10) - 1.08e-13).abs() < 1e-25);
    assert_eq!(flat_tolerance(0.0), 0.0);
}

/// The settle rule's runs: BIPOP restarts from uniform points of `[-4, 4]^d`, the rule set to
/// `settle`, the budget `evals` and no target unless given.
fn settle_run(name: &str, d: usize, settle: Option<u32>, evals: u64, target: Option<f64>) -> (gradfree_core::RunResult, Driver<Algorithm>) {
    let f = problem(name, d, 0).unwrap();
    let b = gradfree_core::Bounds::new(vec![-4.0; d], vec![4.0; d]).unwrap();
    let params = IpopParams {
        scheme: gradfree_es::RestartScheme::Bipop,
        restart_mean: RestartMean::Uniform(b),
        settle_runs: settle,
        ..Default::default()
    };
    let ipop = Ipop::<Algorithm>::new("cmaes", StartSpec::new(vec![3.0; d], 2.0, 7), params).unwrap();
    let rules = StopRules { max_evaluations: Some(evals), target, ..Default::default() };
    let mut drv = Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(rules)).unwrap();
    let r = drv.run(&f, &mut []).unwrap();
    (r, drv)
}

/// A converged run on the sphere is not restarted until the budget is spent: once two converged
/// runs after the first have re-found its point, the run ends as `restarts-settled`, a success,
/// far below the budget of 10^4 d (the first run converges to ~1e-80 in ~7,000 evaluations, each
/// re-finding run stops at pycma's tolfun in ~1,500; without the rule the budget is spent).
#[test]
fn settled_restarts_end_a_converged_run() {
    let (r, drv) = settle_run("sphere", 5, Some(2), 50_000, None);
    assert_eq!(r.stop_reason, Some(StopReason::RestartsSettled), "best {}", r.best_f);
    assert!(r.evaluations < 20_000, "{} evaluations", r.evaluations);
    assert!(r.best_f < 1e-20, "{}", r.best_f);
    assert!(StopReason::RestartsSettled.is_success_under(&drv.options().stop));
    let Algorithm::Ipop(ipop) = drv.optimizer() else { unreachable!() };
    assert!(ipop.refound_runs() >= 2 && ipop.settled());
    // Off: the same run restarts until the budget is spent.
    let (off, _) = settle_run("sphere", 5, None, 50_000, None);
    assert_eq!(off.stop_reason, Some(StopReason::MaxEvaluations));
    assert!(off.evaluations > 49_000);
}

/// On the 5-d Rastrigin function the restarts keep finding better local minima (runs converge to
/// different, worse ones and restart the count), so the rule does not end the run: it spends the
/// budget and ends better than its first run.
#[test]
fn settle_rule_keeps_restarting_where_restarts_help() {
    let (first, _) = settle_run("rastrigin", 5, Some(2), 50_000, None);
    assert_eq!(first.stop_reason, Some(StopReason::MaxEvaluations), "best {}", first.best_f);
    let mut plain = Driver::new(
        build("cmaes", &StartSpec::new(vec![3.0; 5], 2.0, 7)).unwrap(),
        DriverOptions::new(StopRules { max_evaluations: Some(50_000), ..Default::default() }.with_convergence_defaults(5, 8, true)),
    )
    .unwrap();
    let one = plain.run(&problem("rastrigin", 5, 0).unwrap(), &mut []).unwrap();
    assert!(first.best_f < one.best_f - 0.5, "restarts {} vs one run {}", first.best_f, one.best_f);
}

/// A target ends the run before the rule can: target first.
#[test]
fn a_target_stops_a_settling_run() {
    let (r, _) = settle_run("sphere", 5, Some(2), 50_000, Some(1e-8));
    assert_eq!(r.stop_reason, Some(StopReason::Target));
    assert!(r.evaluations < 5_000);
}

/// The rule's state goes through a checkpoint: a run saved after a re-found point resumes to the
/// same end as the uninterrupted run, and a state saved before the rule existed (no `settle`, no
/// `settle_runs`) loads with the rule off.
#[test]
fn settle_state_round_trips_through_a_checkpoint() {
    let (full, full_drv) = settle_run("sphere", 5, Some(3), 50_000, None);
    assert_eq!(full.stop_reason, Some(StopReason::RestartsSettled));
    let f = problem("sphere", 5, 0).unwrap();
    let b = gradfree_core::Bounds::new(vec![-4.0; 5], vec![4.0; 5]).unwrap();
    let params = IpopParams {
        scheme: gradfree_es::RestartScheme::Bipop,
        restart_mean: RestartMean::Uniform(b),
        settle_runs: Some(3),
        ..Default::default()
    };
    let ipop = Ipop::<Algorithm>::new("cmaes", StartSpec::new(vec![3.0; 5], 2.0, 7), params).unwrap();
    let rules = StopRules { max_evaluations: Some(50_000), ..Default::default() };
    let mut part = Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(rules.clone())).unwrap();
    while part.step(&f, &mut []).unwrap().is_none() {
        let Algorithm::Ipop(ipop) = part.optimizer() else { unreachable!() };
        if ipop.refound_runs() >= 1 {
            break;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settle.json");
    save_checkpoint(&path, &serde_json::Value::Null, part.optimizer(), &part.state()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"refound\":1") && text.contains("\"settle_runs\":3"), "the new fields are saved");
    let ck = load_checkpoint::<Algorithm>(&path).unwrap();
    assert_eq!(&ck.optimizer, part.optimizer());
    let mut resumed = Driver::resume(ck.optimizer, DriverOptions::new(rules), ck.driver).unwrap();
    let r = resumed.run(&f, &mut []).unwrap();
    assert_eq!((r.stop_reason, r.evaluations, r.best_f.to_bits()), (full.stop_reason, full.evaluations, full.best_f.to_bits()));
    assert_eq!(resumed.optimizer(), full_drv.optimizer());

    // An older state: no bookkeeping, no parameter.
    let Algorithm::Ipop(ipop) = part.optimizer() else { unreachable!() };
    let mut v = serde_json::to_value(ipop.as_ref()).unwrap();
    v.as_object_mut().unwrap().remove("settle");
    v["p"].as_object_mut().unwrap().remove("settle_runs");
    let old: Ipop<Algorithm> = serde_json::from_value(v).unwrap();
    assert_eq!(old.refound_runs(), 0);
    assert!(!old.settled());
    gradfree_core::StateCheck::check_state(&old).unwrap();
}

#[test]
fn settle_runs_zero_is_refused() {
    let e = Ipop::<Algorithm>::new("cmaes", start(3, 0), IpopParams { settle_runs: Some(0), ..Default::default() }).unwrap_err();
    assert!(e.to_string().contains("settle_runs"), "{e}");
}

/// The reasons of the restarts a run made, from its restart events ("flat", "stagnation", ...).
fn restart_reasons(h: &History) -> Vec<String> {
    h.records
        .iter()
        .flat_map(|r| r.events.iter())
        .filter(|e| e.kind == gradfree_core::EventKind::Restart)
        .map(|e| e.message.split(';').next().unwrap_or_default().to_string())
        .collect()
}

fn restart_run(
    f: &(dyn gradfree_core::Objective + Sync),
    name: &str,
    d: usize,
    rules: StopRules,
) -> (gradfree_core::RunResult, History, u32) {
    let params = IpopParams { scheme: gradfree_es::RestartScheme::Bipop, ..Default::default() };
    let ipop = Ipop::<Algorithm>::new(name, StartSpec::new(vec![3.0; d], 2.0, 11), params).unwrap();
    let mut h = History::default();
    let mut drv = Driver::new(Algorithm::Ipop(Box::new(ipop)), DriverOptions::new(rules)).unwrap();
    let r = drv.run(f, &mut [&mut h]).unwrap();
    let Algorithm::Ipop(ipop) = drv.optimizer() else { unreachable!() };
    (r, h, ipop.restarts_done())
}

/// A run that reaches the target is not restarted: on the sphere and the rotated ellipsoid the
/// first run converges to 1e-8 and the run ends there, for CMA-ES and for lq-CMA-ES (whose
/// generations are told in batches).
#[test]
fn a_run_that_reaches_the_target_is_not_restarted() {
    for (fname, name) in [("sphere", "cmaes"), ("ellipsoid", "cmaes"), ("sphere", "lq-cmaes"), ("ellipsoid", "lq-cmaes")] {
        let f = problem(fname, 8, 0).unwrap();
        let (r, h, k) = restart_run(&f, name, 8, stop(100_000));
        assert_eq!(r.stop_reason, Some(StopReason::Target), "{name} on {fname}: {}", r.best_f);
        assert_eq!(k, 0, "{name} on {fname}: restarted {:?}", restart_reasons(&h));
    }
}

/// A run stalled on a plateau is restarted by the flat rule: from (3, ..., 3) with sigma0 = 2 every
/// point of the first populations lies where `f = 1` (the function is `r^2 / 4` inside the ball
/// `r < 2`, 1 beyond), so the values are flat; restarts with other scales and populations follow.
/// The rule is judged every generation over exactly its window (pycma's `tolfun` history): at
/// d = 4 with N = 8 that is 10 + ceil(30 * 4 / 8) = 25 generations, so the first run ends after
/// 200 evaluations, not at the end of a longer history block.
#[test]
fn a_run_stalled_on_a_plateau_is_restarted() {
    let f = gradfree_core::FnObjective::new(|x: &[f64]| {
        let r2: f64 = x.iter().map(|v| v * v).sum();
        if r2 > 4.0 { 1.0 } else { r2 / 4.0 }
    });
    let (r, h, k) = restart_run(&f, "cmaes", 4, StopRules { max_evaluations: Some(3_000), ..Default::default() });
    assert!(k >= 1, "no restart: {:?}", r.stop_reason);
    assert_eq!(restart_reasons(&h)[0], "flat", "{:?}", restart_reasons(&h));
    let first = h.records.iter().find(|r| r.events.iter().any(|e| e.kind == gradfree_core::EventKind::Restart)).unwrap();
    assert_eq!(first.evaluations, 25 * 8);
}

/// A run that keeps moving without improving is restarted by the stagnation rule (pycma's): on a
/// sphere whose values carry deterministic noise of amplitude 1 (a hash of the point), CMA-ES
/// reaches the noise floor and its generation medians stop improving, while its values never go
/// flat; the restart's reason is stagnation. A run still improving (the plain sphere, no target)
/// is not restarted before it converges.
#[test]
fn a_stagnating_run_is_restarted() {
    let noisy = gradfree_core::FnObjective::new(|x: &[f64]| {
        let h = x.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| (h ^ v.to_bits()).wrapping_mul(0x100_0000_01b3));
        x.iter().map(|v| v * v).sum::<f64>() + (h >> 11) as f64 / (1u64 << 53) as f64
    });
    let (_, h, k) = restart_run(&noisy, "cmaes", 4, StopRules { max_evaluations: Some(20_000), ..Default::default() });
    let reasons = restart_reasons(&h);
    assert!(k >= 1 && reasons[0] == "stagnation", "{reasons:?}");
    // The plain sphere: the first run's restart (if any) comes only once it has converged.
    let f = problem("sphere", 4, 0).unwrap();
    let (r, h, _) = restart_run(&f, "cmaes", 4, StopRules { max_evaluations: Some(20_000), ..Default::default() });
    let first = h.records.iter().find(|r| r.events.iter().any(|e| e.kind == gradfree_core::EventKind::Restart));
    let first = first.expect("converged runs restart until the budget is spent");
    assert!(first.best_f.unwrap() < 1e-20, "restarted at {:?} before converging", first.best_f);
    // Near f = 0 the flat rule is relative, so the sphere converges until its scale is negligible.
    assert!(["tol-x", "flat"].contains(&restart_reasons(&h)[0].as_str()), "{:?}", restart_reasons(&h));
    assert!(r.best_f < 1e-20);
}

/// pycma's flat-fitness rule, on for lq-CMA-ES: on a plateau (`f = 1` outside a ball far from the
/// start) the model cannot rank, every point is evaluated, and two such generations in a row with
/// best = 75%-quantile restart the run at once; CMA-ES, with the rule off by default, waits for
/// its flat window. Explicitly switched off, lq-CMA-ES waits too.
#[test]
fn flat_fitness_restarts_a_surrogate_run_on_a_plateau() {
    let plateau = gradfree_core::FnObjective::new(|x: &[f64]| {
        let r2: f64 = x.iter().map(|v| v * v).sum();
        if r2 > 4.0 { 1.0 } else { r2 / 4.0 }
    });
    let first_restart = |name: &str, flat: Option<bool>| {
        let params = IpopParams { scheme: gradfree_es::RestartScheme::Bipop, flat_fitness: flat, ..Default::default() };
        let ipop = Ipop::<Algorithm>::new(name, StartSpec::new(vec![3.0; 4], 0.5, 11), params).unwrap();
        let mut h = History::default();
        let mut drv = Driver::new(
            Algorithm::Ipop(Box::new(ipop)),
            DriverOptions::new(StopRules { max_evaluations: Some(3_000), ..Default::default() }),
        )
        .unwrap();
        drv.run(&plateau, &mut [&mut h]).unwrap();
        let at = h.records.iter().find(|r| r.events.iter().any(|e| e.kind == gradfree_core::EventKind::Restart)).map(|r| r.evaluations);
        (at.expect("a restart"), restart_reasons(&h)[0].clone())
    };
    let (lq_at, lq_why) = first_restart("lq-cmaes", None);
    assert_eq!(lq_why, "flat fitness");
    assert!(lq_at <= 4 * 8, "after two generations of 8, got {lq_at}");
    let (cma_at, cma_why) = first_restart("cmaes", None);
    assert_eq!(cma_why, "flat");
    assert!(cma_at > lq_at);
    let (_, off_why) = first_restart("lq-cmaes", Some(false));
    assert_eq!(off_why, "flat");
}

/// Runs CMA-ES from `x0` (sigma0 = 1) on `f` until [`AskTell::converged`] with step `tol_x` names
/// a rule, within `max_gens` generations: the rule, the generation and the final scale.
fn converge(f: impl Fn(&[f64]) -> f64, x0: Vec<f64>, tol_x: f64, max_gens: usize) -> (Option<&'static str>, usize, f64) {
    let mut es = build("cmaes", &StartSpec::new(x0, 1.0, 5)).unwrap();
    for g in 0..max_gens {
        let pop = es.ask().unwrap();
        let values: Vec<f64> = (0..pop.len()).map(|i| f(pop.row(i))).collect();
        es.tell(&pop, &values).unwrap();
        if let Some(why) = es.converged(tol_x) {
            return (Some(why), g, es.scale());
        }
    }
    (None, max_gens, es.scale())
}

/// CMA-ES's own convergence rules (pycma's `tolx`, `noeffectaxis`, `noeffectcoord`,
/// `tolconditioncov`), each on a function where it is the one that must fire:
/// - the sphere: `tol-x` fires once every coordinate's step is below the tolerance, not before;
/// - the sphere centred at 1e8: the steps fall below the mean's floating-point resolution (ulp
///   1.5e-8) while tol-x is far smaller, and a no-effect rule fires with the scale near 1e-8;
/// - a 2-d ellipsoid of condition 1e18 (optimum at 0, where steps always have an effect): the
///   covariance's condition passes 1e14.
#[test]
fn cmaes_convergence_rules_fire_where_they_should() {
    let sphere = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>();
    let (why, g, scale) = converge(sphere, vec![1.0; 4], 1e-6, 2_000);
    assert_eq!(why, Some("tol-x"), "generation {g}");
    assert!(scale < 1e-6 && scale > 1e-8, "scale {scale}");

    let far = |x: &[f64]| x.iter().map(|v| (v - 1e8) * (v - 1e8)).sum::<f64>();
    let (why, g, scale) = converge(far, vec![1e8 + 1.0; 4], 1e-30, 5_000);
    assert!(matches!(why, Some("no effect axis" | "no effect coordinate")), "{why:?} at generation {g}");
    assert!(scale < 1e-6 && scale > 1e-10, "scale {scale}");

    let ill = |x: &[f64]| x[0] * x[0] + 1e18 * x[1] * x[1];
    let (why, g, _) = converge(ill, vec![1.0, 1e-9], 1e-300, 20_000);
    assert_eq!(why, Some("condition"), "generation {g}");
}

/// The restart wrapper ends a run on CMA-ES's own rules: on `f = |x|^0.2` the values keep
/// improving by far more than the flat rule's tolerance, so without pycma's `tolx` the first run
/// would shrink towards the generic 1e-40 sigma0; with it the run restarts at a step of
/// `1e-11 sigma0` (`TOL_X_METHOD`).
#[test]
fn a_run_converged_to_floating_point_is_restarted() {
    let f = gradfree_core::FnObjective::new(|x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().powf(0.1));
    let (_, h, k) = restart_run(&f, "cmaes", 4, StopRules { max_evaluations: Some(20_000), ..Default::default() });
    assert!(k >= 1, "no restart");
    assert_eq!(restart_reasons(&h)[0], "tol-x", "{:?}", restart_reasons(&h));
    let first = h.records.iter().position(|r| r.events.iter().any(|e| e.kind == gradfree_core::EventKind::Restart)).unwrap();
    assert!(h.records[first].evaluations < 5_000, "restarted only after {} evaluations", h.records[first].evaluations);
    assert_eq!(gradfree_es::TOL_X_METHOD, 1e-11);
}

/// Aitken's extrapolation leaves exactly the rest of a geometric decrease, nothing after a step
/// without gain, and no bound on steady progress.
#[test]
fn aitken_remaining_is_the_rest_of_a_geometric_decrease() {
    use gradfree_es::restarts::aitken_remaining;
    // b_k = 1 + 8 q^k with q = 1/4: 9, 3, 1.5 -> limit 1, so 0.5 remains after b3.
    let (b1, b2, b3) = (1.0 + 8.0, 1.0 + 2.0, 1.0 + 0.5);
    assert!((aitken_remaining(b1, b2, b3) - 0.5).abs() < 1e-15);
    assert_eq!(aitken_remaining(5.0, 4.0, 4.0), 0.0);
    assert_eq!(aitken_remaining(5.0, 4.0, 3.0), f64::INFINITY, "linear progress");
    assert_eq!(aitken_remaining(5.0, 4.5, 3.0), f64::INFINITY, "accelerating");
}

/// One run of the worse-optimum test: its restart reason, its evaluations and where its mean was
/// when it ended.
struct EndedRun {
    reason: String,
    evaluations: u64,
    mean: Vec<f64>,
}

/// BIPOP restarts of CMA-ES from uniform points of [-4, 4]^2 on two wells, `|x - a|^2 + 0.5`
/// (minimum 0.5 at a = (2, 2)) and `|x - b|^2 + 1.5` (minimum 1.5 at b = (-2, -2)), with the
/// worse-optimum rule at `worse` and no target, for `evals` evaluations; every run that ended.
/// (Minima away from 0, so that converged runs end flat: near 0 the flat rule is relative and a
/// run converging to 0 ends on tol-x, which does not make it the rule's reference.)
fn two_well_runs(worse: Option<f64>, evals: u64) -> Vec<EndedRun> {
    let f = |x: &[f64]| {
        let da: f64 = x.iter().map(|v| (v - 2.0) * (v - 2.0)).sum();
        let db: f64 = x.iter().map(|v| (v + 2.0) * (v + 2.0)).sum();
        (da + 0.5).min(db + 1.5)
    };
    let b = gradfree_core::Bounds::new(vec![-4.0; 2], vec![4.0; 2]).unwrap();
    let params = IpopParams {
        scheme: gradfree_es::RestartScheme::Bipop,
        restart_mean: RestartMean::Uniform(b),
        worse_runs: worse,
        ..Default::default()
    };
    let mut ipop = Ipop::<Algorithm>::new("cmaes", StartSpec::new(vec![-3.0, -1.0], 2.0, 5), params).unwrap();
    let (mut used, mut run_start, mut ended) = (0u64, 0u64, Vec::new());
    let mut pop = gradfree_core::Population::empty(2);
    while used < evals {
        ipop.ask_into(&mut pop).unwrap();
        let values: Vec<f64> = pop.rows().map(f).collect();
        used += values.len() as u64;
        let mean = ipop.current().mean().to_vec();
        ipop.tell(&pop, &values).unwrap();
        for e in ipop.take_events().into_iter().filter(|e| e.kind == gradfree_core::EventKind::Restart) {
            let reason = e.message.split(';').next().unwrap_or_default().to_string();
            ended.push(EndedRun { reason, evaluations: used - run_start, mean: mean.clone() });
            run_start = used;
        }
    }
    ended
}

/// The worse-optimum rule ends runs converging into the worse well, and only those: each run it
/// ends has its mean at b, after an earlier run converged flat at a; no run converging to a is
/// ended by it; and such runs are shorter than the worse runs the flat rule ends without it.
#[test]
fn runs_converging_to_a_worse_optimum_end_early() {
    let near = |m: &[f64], c: f64| m.iter().all(|v| (v - c).abs() < 0.1);
    let on = two_well_runs(Some(0.01), 30_000);
    let worse: Vec<&EndedRun> = on.iter().filter(|r| r.reason == gradfree_es::restarts::WORSE_OPTIMUM).collect();
    assert!(worse.len() >= 3, "{:?}", on.iter().map(|r| &r.reason).collect::<Vec<_>>());
    let first_flat_at_a = on.iter().position(|r| r.reason == "flat" && near(&r.mean, 2.0)).expect("a run converges flat at a");
    for (i, r) in on.iter().enumerate() {
        if r.reason == gradfree_es::restarts::WORSE_OPTIMUM {
            assert!(near(&r.mean, -2.0), "run {i} ended by the rule at {:?}", r.mean);
            assert!(i > first_flat_at_a, "run {i} ended by the rule before any run converged flat at a");
        }
    }
    let off = two_well_runs(None, 30_000);
    assert!(off.iter().all(|r| r.reason != gradfree_es::restarts::WORSE_OPTIMUM));
    let flat_at_b: Vec<u64> = off.iter().filter(|r| r.reason == "flat" && near(&r.mean, -2.0)).map(|r| r.evaluations).collect();
    assert!(flat_at_b.len() >= 3, "{}", flat_at_b.len());
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64;
    let ended: Vec<u64> = worse.iter().map(|r| r.evaluations).collect();
    assert!(mean(&ended) < 0.7 * mean(&flat_at_b), "rule {:.0} vs flat {:.0} evaluations", mean(&ended), mean(&flat_at_b));
}

/// A ratio outside (0, 1) is refused by name, at construction and by the setter.
#[test]
fn worse_runs_out_of_range_is_refused() {
    for r in [0.0, 1.0, -0.5, f64::NAN] {
        let e = Ipop::<Algorithm>::new("cmaes", start(3, 0), IpopParams { worse_runs: Some(r), ..Default::default() }).unwrap_err();
        assert!(e.to_string().contains("worse_runs"), "{e}");
    }
    let mut ipop = Ipop::<Algorithm>::new("cmaes", start(3, 0), IpopParams::default()).unwrap();
    assert!(ipop.set_worse_runs(Some(2.0)).is_err());
    ipop.set_worse_runs(Some(0.01)).unwrap();
    // A restored state with the ratio out of range fails its check by name.
    let mut v = serde_json::to_value(&ipop).unwrap();
    v["p"]["worse_runs"] = serde_json::json!(2.0);
    let bad: Ipop<Algorithm> = serde_json::from_value(v).unwrap();
    let e = gradfree_core::StateCheck::check_state(&bad).unwrap_err();
    assert!(e.contains("worse_runs"), "{e}");
}
