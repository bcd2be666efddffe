//! Step-size backtracking of the finite-difference methods: the papers' constant steps diverge on
//! a badly scaled quadratic; with the default `backtrack` control the same runs descend.

use gradfree_core::stats::mean_sd as mean_std;
use gradfree_core::{Driver, DriverOptions, FnObjective, History, Observer, StopReason, StopRules};
use gradfree_es::gaussian::{Mines, MinesParams};
use gradfree_es::random_search::{NesterovSpokoiny, NesterovSpokoinyParams};
use gradfree_es::step_control::{Backtracker, StepControl, Verdict};

/// `sum 10^(6 (i-1)/(d-1)) x_i^2`: gradient Lipschitz constant 2e6.
fn ellipsoid(x: &[f64]) -> f64 {
    let d = x.len();
    x.iter().enumerate().map(|(i, v)| 10f64.powf(6.0 * i as f64 / (d - 1) as f64) * v * v).sum()
}

fn x0(d: usize) -> Vec<f64> {
    (0..d).map(|i| 0.3 + 0.05 * i as f64).collect()
}

fn rules() -> StopRules {
    StopRules { tol_diverge: Some(1e12), ..StopRules::max_evaluations(60_000) }
}

fn run<A: gradfree_core::AskTell>(opt: A) -> (gradfree_core::RunResult, usize) {
    let f = FnObjective::new(ellipsoid);
    let mut history = History::default();
    let mut driver = Driver::new(opt, DriverOptions::new(rules())).unwrap();
    let r = driver.run(&f, &mut [&mut history as &mut dyn Observer]).unwrap();
    let rejected = history.records.iter().flat_map(|g| &g.events).filter(|e| e.kind == "step-rejected").count();
    (r, rejected)
}

#[test]
fn nesterov_spokoiny_diverges_without_backtracking_and_descends_with_it() {
    let d = 12;
    let f0 = ellipsoid(&x0(d));
    let plain = NesterovSpokoinyParams { step_control: StepControl::None, ..Default::default() };
    let (r, _) = run(NesterovSpokoiny::new(x0(d), &plain, 3).unwrap());
    assert_eq!(r.stop_reason, Some(StopReason::Diverged), "{r:?}");
    let (r, rejected) = run(NesterovSpokoiny::new(x0(d), &NesterovSpokoinyParams::default(), 3).unwrap());
    assert_eq!(r.stop_reason, Some(StopReason::MaxEvaluations), "{r:?}");
    assert!(rejected >= 10, "the default step is ~2e6 times too long: {rejected} rejections");
    assert!(r.best_f < 1e-2 * f0, "best {} from f(x0) = {f0}", r.best_f);
}

#[test]
fn mines_diverges_without_backtracking_and_descends_with_it() {
    let d = 12;
    let f0 = ellipsoid(&x0(d));
    let plain = MinesParams { step_control: StepControl::None, ..Default::default() };
    let (r, _) = run(Mines::new(x0(d), &plain, 3).unwrap());
    assert_eq!(r.stop_reason, Some(StopReason::Diverged), "{r:?}");
    let (r, rejected) = run(Mines::new(x0(d), &MinesParams::default(), 3).unwrap());
    assert_eq!(r.stop_reason, Some(StopReason::MaxEvaluations), "{r:?}");
    assert!(rejected >= 5, "{rejected} rejections");
    assert!(r.best_f < 1e-2 * f0, "best {} from f(x0) = {f0}", r.best_f);
}

#[test]
fn a_rejected_step_is_retried_from_its_start_with_half_the_step() {
    let mut b = Backtracker::new();
    let mut events = Vec::new();
    let mut mu = vec![1.0, 2.0];
    // First generation: nothing to judge.
    assert_eq!(b.judge((10.0, 0.1), &mut mu, 0.5, 1, &mut events), Verdict::Keep);
    b.record(&mu, &[2.0, -4.0], (10.0, 0.1));
    mu = vec![1.0 - 0.5 * 2.0, 2.0 + 0.5 * 4.0];
    // Within 3 sqrt(0.1^2 + 0.1^2) = 0.424 of the start's level: kept.
    assert_eq!(b.judge((10.4, 0.1), &mut mu, 0.5, 2, &mut events), Verdict::Keep);
    assert!(events.is_empty());
    // Above it: back to the start, half the step.
    let v = b.judge((10.5, 0.1), &mut mu, 0.5, 3, &mut events);
    assert_eq!(v, Verdict::Rejected(0.5 * 0.5 * 4.0));
    assert_eq!(mu, vec![1.0 - 0.25 * 2.0, 2.0 + 0.25 * 4.0]);
    assert_eq!(b.factor, 0.5);
    assert_eq!(events.len(), 1);
    // A non-finite level is rejected too; a kept step grows the factor by 2^(1/4), up to 1.
    assert!(matches!(b.judge((f64::INFINITY, 0.0), &mut mu, 0.5, 4, &mut events), Verdict::Rejected(_)));
    assert_eq!(b.factor, 0.25);
    assert_eq!(b.judge((9.0, 0.0), &mut mu, 0.5, 5, &mut events), Verdict::Keep);
    assert!((b.factor - 0.25 * 2f64.powf(0.25)).abs() < 1e-15);
    for _ in 0..20 {
        b.judge((9.0, 0.0), &mut mu, 0.5, 6, &mut events);
    }
    assert_eq!(b.factor, 1.0);
}

#[test]
fn mean_and_standard_deviation() {
    let (m, s) = mean_std(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]);
    assert_eq!(m, 1e9 + 2.0);
    assert!((s - 1.0).abs() < 1e-9, "{s}");
    assert_eq!(mean_std(&[4.0]), (4.0, 0.0));
}
