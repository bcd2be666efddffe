//! The convergence stop rules (pycma's tolflatfitness, tolstagnation, tolconditioncov, and the
//! divergence rule) on a scripted optimizer whose values, scale and condition number the test
//! chooses, against the rules' definitions.

use std::collections::VecDeque;

use gradfree_core::{AskTell, CoreError, DriverOptions, DriverState, Population, Run, StopReason, StopRules, convergence};

/// Proposes the same `n` points every generation; reports the scale and condition it is given.
struct Scripted {
    n: usize,
    d: usize,
    mean: Vec<f64>,
    scale: f64,
    condition: Option<f64>,
}

impl AskTell for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn dim(&self) -> usize {
        self.d
    }
    fn population_size(&self) -> usize {
        self.n
    }
    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        out.resize(self.n, self.d);
        Ok(())
    }
    fn tell(&mut self, _: &Population, _: &[f64]) -> Result<(), CoreError> {
        Ok(())
    }
    fn mean(&self) -> &[f64] {
        &self.mean
    }
    fn scale(&self) -> f64 {
        self.scale
    }
    fn condition(&self) -> Option<f64> {
        self.condition
    }
}

fn run(n: usize, d: usize, stop: StopRules) -> Run<Scripted> {
    let opt = Scripted { n, d, mean: vec![0.0; d], scale: 1.0, condition: None };
    Run::new(opt, DriverOptions::new(stop)).unwrap()
}

/// One generation with these values; the stop reason after it.
fn generation(r: &mut Run<Scripted>, values: &[f64]) -> Option<StopReason> {
    r.ask().unwrap().expect("the run stopped before this generation");
    r.tell(values, &mut []).unwrap()
}

fn budget() -> StopRules {
    StopRules::max_generations(100_000)
}

#[test]
fn defaults_follow_pycma() {
    assert_eq!(convergence::window(10, 10), 40);
    assert_eq!(convergence::window(12, 13), 10 + 28);
    assert_eq!(convergence::stagnation(10, 10), 100 + 317);
    let s = StopRules::max_evaluations(10).with_convergence_defaults(10, 10, true);
    assert_eq!((s.tol_f, s.tol_f_window, s.tol_x, s.tol_flat), (Some(1e-11), 40, Some(1e-11), Some(1)));
    assert_eq!((s.tol_stagnation, s.tol_condition, s.tol_diverge), (Some(417), Some(1e14), Some(1e12)));
    // Rules set by the caller stay as they are.
    let mine = StopRules { tol_f: Some(1e-3), tol_f_window: 5, tol_condition: Some(1e6), ..StopRules::max_evaluations(10) };
    let s = mine.with_convergence_defaults(10, 10, true);
    assert_eq!((s.tol_f, s.tol_f_window, s.tol_condition), (Some(1e-3), 5, Some(1e6)));
    assert!(s.validate().is_ok());
    // Discrete searches: no convergence rule by default.
    let s = StopRules::max_evaluations(10).with_convergence_defaults(10, 10, false);
    assert_eq!(s, StopRules::max_evaluations(10));
    let s = StopRules::max_evaluations(10).with_convergence_defaults(4, 8, true).without("tol_fun").unwrap().without("tol-flat").unwrap();
    assert_eq!((s.tol_f, s.tol_flat), (None, None));
    assert!(s.tol_x.is_some());
    assert!(StopRules::max_evaluations(10).without("tol-y").unwrap_err().to_string().contains("tol-stagnation"));
}

#[test]
fn success_means_converged() {
    for r in [StopReason::Target, StopReason::TolF, StopReason::TolX] {
        assert!(r.is_success(), "{r}");
    }
    for r in [
        StopReason::MaxEvaluations,
        StopReason::MaxGenerations,
        StopReason::WallTime,
        StopReason::TolFlat,
        StopReason::TolStagnation,
        StopReason::TolCondition,
        StopReason::Diverged,
        StopReason::NumericalFailure,
    ] {
        assert!(!r.is_success(), "{r}");
        assert!(!r.describe().is_empty());
    }
    // With a target, converging elsewhere is not a success.
    let with_target = StopRules { target: Some(0.0), ..budget() };
    assert!(StopReason::Target.is_success_under(&with_target));
    assert!(!StopReason::TolF.is_success_under(&with_target));
    assert!(StopReason::TolF.is_success_under(&budget()));
}

#[test]
fn flat_fitness_stops_after_more_than_tol_flat_flat_generations() {
    for tol in [0u64, 1, 3] {
        let mut r = run(6, 2, StopRules { tol_flat: Some(tol), ..budget() });
        // A generation whose best differs from its median resets the count.
        assert_eq!(generation(&mut r, &[1.0, 1.0, 1.0, 1.0, 2.0, 3.0]), if tol == 0 { Some(StopReason::TolFlat) } else { None });
        if tol == 0 {
            continue;
        }
        assert_eq!(generation(&mut r, &[0.5, 0.6, 0.7, 0.8, 0.9, 1.0]), None);
        for g in 1..=tol {
            assert_eq!(generation(&mut r, &[0.2, 0.2, 0.2, 0.2, 0.3, 0.4]), None, "flat generation {g}");
        }
        assert_eq!(generation(&mut r, &[0.2; 6]), Some(StopReason::TolFlat));
    }
}

#[test]
fn condition_rule_uses_the_optimizers_condition_number() {
    let mut r = run(4, 2, StopRules { tol_condition: Some(1e6), ..budget() });
    let values = [4.0, 3.0, 2.0, 1.0];
    assert_eq!(generation(&mut r, &values), None); // no condition number reported: not judged
    let mut r2 = run(4, 2, StopRules { tol_condition: Some(1e6), ..budget() });
    for (k, c) in [1e2, 1e5, 1e6, 1.1e6].iter().enumerate() {
        // The optimizer is inside the run: rebuild it with the next condition number.
        let opt = Scripted { n: 4, d: 2, mean: vec![0.0; 2], scale: 1.0, condition: Some(*c) };
        let state = r2.state();
        r2 = Run::resume(opt, DriverOptions::new(StopRules { tol_condition: Some(1e6), ..budget() }), state).unwrap();
        let v: Vec<f64> = values.iter().map(|v| v - k as f64).collect();
        assert_eq!(generation(&mut r2, &v), (*c > 1e6).then_some(StopReason::TolCondition), "condition {c}");
    }
    // NaN counts as too ill-conditioned.
    let opt = Scripted { n: 4, d: 2, mean: vec![0.0; 2], scale: 1.0, condition: Some(f64::NAN) };
    let mut r3 = Run::new(opt, DriverOptions::new(StopRules { tol_condition: Some(1e6), ..budget() })).unwrap();
    assert_eq!(generation(&mut r3, &values), Some(StopReason::TolCondition));
}

#[test]
fn divergence_rule_compares_the_generation_best_with_the_best_so_far() {
    let mut r = run(3, 2, StopRules { tol_diverge: Some(1e3), ..budget() });
    assert_eq!(generation(&mut r, &[5.0, 6.0, 7.0]), None);
    // best so far 5: the threshold is 5 + 1e3 * 5.
    assert_eq!(generation(&mut r, &[5004.0, 6e3, 7e3]), None);
    assert_eq!(generation(&mut r, &[5006.0, 6e3, 7e3]), Some(StopReason::Diverged));
    // Near 0 the floor max(1, |best|) applies.
    let mut r = run(3, 2, StopRules { tol_diverge: Some(1e3), ..budget() });
    assert_eq!(generation(&mut r, &[1e-9, 1.0, 2.0]), None);
    assert_eq!(generation(&mut r, &[999.0, 1e4, 1e5]), None);
    assert_eq!(generation(&mut r, &[1001.0, 1e4, 1e5]), Some(StopReason::Diverged));
}

/// pycma's stagnation test written out on the full history (oldest first).
fn stagnated_reference(best: &[f64], median: &[f64], window: u64, generations: u64, d: usize, lambda: usize) -> bool {
    let l = window.div_ceil(10) as usize;
    let keep = (2 * l).max(101);
    let n = best.len().min(keep);
    let (best, median) = (&best[best.len() - n..], &median[median.len() - n..]);
    if generations as f64 <= d as f64 * (5.0 + 100.0 / lambda as f64) || n <= 100 || 2 * l > n {
        return false;
    }
    let med = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let none = |h: &[f64]| med(&h[n - l..]) >= med(&h[n - 2 * l..n - l]);
    none(best) && none(median)
}

#[test]
fn stagnation_matches_the_rule_written_out() {
    let (d, lambda, window) = (3usize, 5usize, 400u64);
    let mut r = run(lambda, d, StopRules { tol_stagnation: Some(window), ..budget() });
    let (mut best, mut median) = (Vec::new(), Vec::new());
    // 300 generations of steady progress, then noise around a constant level.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut stopped_at = None;
    for g in 1..=2000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let noise = (x % 1000) as f64 / 1000.0;
        let level = if g <= 300 { 1000.0 - 3.0 * g as f64 } else { 100.0 };
        let values: Vec<f64> = (0..lambda).map(|i| level + noise + i as f64).collect();
        best.push(values[0]);
        median.push(values[lambda / 2]);
        let want = stagnated_reference(&best, &median, window, g, d, lambda);
        let got = generation(&mut r, &values);
        assert_eq!(got == Some(StopReason::TolStagnation), want, "generation {g}");
        if got.is_some() {
            stopped_at = Some(g);
            break;
        }
    }
    let g = stopped_at.expect("stagnation never fired");
    assert!(g > 300 && g < 500, "stopped at generation {g}");
    // The history kept is bounded.
    assert!(r.state().history_best.len() <= 101, "two blocks of 40 generations, and more than 100");
}

#[test]
fn old_checkpoints_without_the_new_fields_load() {
    let old = r#"{"evaluations":10,"generations":2,"best_x":[1.0],"best_f":2.0,"recent_best":[2.0,3.0],"seconds":0.5,"stopped":null}"#;
    let s: DriverState = serde_json::from_str(old).unwrap();
    assert!(s.validate().is_ok());
    assert_eq!((s.flat_generations, s.history_best.len()), (0, 0));
    assert_eq!(s.history_median, VecDeque::<f64>::new());
    let rules: StopRules = serde_json::from_str(r#"{"max_evaluations":100,"tol_f":1e-9}"#).unwrap();
    assert_eq!((rules.tol_flat, rules.tol_stagnation, rules.tol_condition, rules.tol_diverge), (None, None, None, None));
}

#[test]
fn a_mean_far_outside_the_bounds_is_divergence_not_convergence() {
    use gradfree_core::{BoundaryRepair, Bounds, BoundsHandling};
    let rules = StopRules { tol_diverge: Some(1e12), tol_x: Some(1e-11), ..budget() };
    for (mean, want) in
        [(vec![0.5, 1.9], None), (vec![0.5, 2.1], Some(StopReason::Diverged)), (vec![-1.2, 0.0], Some(StopReason::Diverged))]
    {
        // Scale 0, as when every point is clipped onto the boundary: tol-x alone would say converged.
        let opt = Scripted { n: 4, d: 2, mean, scale: 0.0, condition: None };
        let mut opts = DriverOptions::new(rules.clone());
        opts.bounds = Some((Bounds::uniform(2, 0.0, 1.0).unwrap(), BoundsHandling::Repair(BoundaryRepair::Clip)));
        let mut r = Run::new(opt, opts).unwrap();
        assert_eq!(generation(&mut r, &[1.0, 2.0, 3.0, 4.0]), want.or(Some(StopReason::TolX)));
    }
}

#[test]
fn a_wall_time_budget_ends_a_run_after_its_first_generation_never_before() {
    // A budget that is over before the run starts (1e-300 s) still lets one generation run, as
    // pycma's `timeout` does, so the run has a best point to report; then it stops.
    let mut stop = budget();
    stop.max_seconds = Some(1e-300);
    let mut r = run(4, 2, stop);
    assert_eq!(r.should_stop(), None, "nothing evaluated yet");
    let reason = generation(&mut r, &[3.0, 1.0, 2.0, 4.0]);
    assert_eq!(reason.or_else(|| r.should_stop()), Some(StopReason::WallTime));
    assert_eq!(r.result().best_f, 1.0);
}
