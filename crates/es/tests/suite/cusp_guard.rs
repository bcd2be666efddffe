//! The cusp guard of INGO's step-size rules: it measures the exponent of `spread ~ scale^a`
//! exactly on power laws, trips below 0.6 only, is a pure observer until it trips, and lets
//! two-point adaptation solve the l1/2-Ellipsoid, where the rule alone collapses.

use gradfree_core::{AskTell, StateCheck};
use gradfree_es::gaussian::cusp_guard::{CuspGuard, EXPONENT};
use gradfree_es::gaussian::{Ingo, IngoParams, IngoVariant, StepSize};
use gradfree_problems::build;

/// Feeds `generations` of a scale falling by `rate` per generation and values whose spread
/// (median minus best) is `scale^a` above a level `base`; returns the generation and exponent of
/// the trip, if any.
fn feed(a: f64, rate: f64, base: f64, generations: usize) -> (Option<(usize, f64)>, CuspGuard) {
    let mut g = CuspGuard::default();
    let mut scratch = Vec::new();
    let mut scale: f64 = 0.7;
    for t in 0..generations {
        let spread = scale.powf(a);
        // Nine values: best `base`, median `base + spread`, the rest around them, unsorted.
        let v = [
            base + 2.0 * spread,
            base,
            base + spread,
            base + 0.5 * spread,
            base + 3.0 * spread,
            f64::NAN,
            base + 0.2 * spread,
            base + 4.0 * spread,
            base + 5.0 * spread,
            base + 0.9 * spread,
        ];
        if let Some(e) = g.observe(scale, &v, &mut scratch) {
            return (Some((t, e)), g);
        }
        scale *= rate;
    }
    (None, g)
}

#[test]
fn the_guard_measures_the_exponent_and_trips_only_on_cusps() {
    // Cusps (a = 1/2): the first check, once the smoothed scale has fallen tenfold, finds 1/2
    // exactly (smoothing both logarithms keeps a linear relation linear).
    let (trip, g) = feed(0.5, 0.9, 3.0, 400);
    let (t, a) = trip.expect("a = 1/2 must trip");
    assert!((a - 0.5).abs() < 1e-9, "{a}");
    // What a tripped guard may undo: the smoothed fall since its first reference, a decade here
    // plus at most one generation's fall (ln(1/0.9)).
    let h = g.headroom() - std::f64::consts::LN_10;
    assert!((0.0..0.106).contains(&h), "{}", g.headroom());
    assert_eq!(CuspGuard::default().headroom(), 0.0);
    // ln 10 / ln(1/0.9) = 21.9 generations after the reference at the tenth, plus the growth of
    // the smoothing's lag (from 5.3 to 8.8 generations).
    assert!((34..=36).contains(&t), "tripped at generation {t}");
    // Norms, quadratics and everything steeper never trip; each check reports the exponent.
    for a in [EXPONENT + 0.01, 1.0, 2.0, 4.0] {
        let (trip, g) = feed(a, 0.9, 3.0, 300);
        assert_eq!(trip, None, "a = {a}");
        assert!((g.last_exponent.unwrap() - a).abs() < 1e-6, "a = {a}: {:?}", g.last_exponent);
    }
    // Just below the threshold trips.
    assert!(feed(EXPONENT - 0.01, 0.9, 3.0, 300).0.is_some());
    // A spread that stops falling because it reached the rounding of the values (Levy's local
    // minima at f ~ 1) is not a cusp: below 1e-11 of the values, generations are skipped.
    let (trip, _) = feed(2.0, 0.9, 1.0, 2000);
    assert_eq!(trip, None);
    // A growing scale is never checked.
    let mut g = CuspGuard::default();
    let mut scratch = Vec::new();
    for t in 0..200 {
        let scale = 1.1f64.powi(t);
        assert_eq!(g.observe(scale, &[0.0, 1.0, 1.0], &mut scratch), None);
    }
    assert_eq!(g.last_exponent, None);
    // Constant values (no spread) and fewer than two finite values give no information.
    let mut g = CuspGuard::default();
    for t in 0..200 {
        let scale = 0.9f64.powi(t);
        assert_eq!(g.observe(scale, &[1.0, 1.0, 1.0, f64::INFINITY], &mut scratch), None);
        assert_eq!(g.observe(scale, &[f64::NAN, 2.0], &mut scratch), None);
    }
    assert_eq!(g, CuspGuard::default());
}

type Events = Vec<String>;

/// Runs INGO on `problem` (d-dimensional, from 0.5 in every coordinate, sigma0 = 0.5) for at most
/// `budget` evaluations or until f <= 1e-10; returns the evaluations used, the best value, the
/// events' kinds and the final state.
fn run(problem: &str, d: usize, params: &IngoParams, seed: u64, budget: usize) -> (usize, f64, Events, Ingo) {
    let f = build(problem, d, 0).unwrap();
    let mut opt = Ingo::new(IngoVariant::Ingo, vec![0.5; d], 0.5, params, seed).unwrap();
    let (mut evals, mut best, mut events) = (0, f64::INFINITY, Vec::new());
    // A scale collapsed until the precision factor overflows (the rule alone on cusps, without
    // convergence rules) is a numerical failure, which ends a driver's run.
    while evals < budget && best > 1e-10 && opt.failure().is_none() {
        let pop = opt.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(|x| f.eval(x)).collect();
        evals += v.len();
        best = v.iter().copied().fold(best, f64::min);
        opt.tell(&pop, &v).unwrap();
        events.extend(opt.take_events().into_iter().map(|e| e.kind.as_str().to_string()));
    }
    (evals, best, events, opt)
}

#[test]
fn the_guard_is_an_observer_until_it_trips() {
    // On the Ellipsoid (a quadratic) the guard never trips, so the run is the rule's run, bit
    // for bit, for both rules it guards.
    for rule in [StepSize::Tpa, StepSize::Msr] {
        let plain = IngoParams { step_size: rule, ..Default::default() };
        let guarded = IngoParams { cusp_guard: true, ..plain.clone() };
        let (e1, f1, _, a) = run("ellipsoid", 10, &plain, 4, 20_000);
        let (e2, f2, ev2, b) = run("ellipsoid", 10, &guarded, 4, 20_000);
        assert_eq!((e1, f1.to_bits()), (e2, f2.to_bits()), "{rule:?}");
        assert_eq!(a.mean(), b.mean(), "{rule:?}");
        assert_eq!(a.precision_factor(), b.precision_factor(), "{rule:?}");
        assert!(!ev2.iter().any(|k| k == "step-rule-off"), "{rule:?}: {ev2:?}");
        assert!(f2 <= 1e-10, "{rule:?}: {f2}");
    }
}

#[test]
fn guarded_two_point_adaptation_solves_the_l_half_ellipsoid() {
    // Alone, two-point adaptation collapses on the l1/2-Ellipsoid at d = 20 (README, "Why no
    // rule keeps the l1/2-Ellipsoid"); guarded, it trips once, early, and then solves it as the
    // thesis INGO does (about 2e5 evaluations).
    let tpa = IngoParams { step_size: StepSize::Tpa, ..Default::default() };
    let guarded = IngoParams { cusp_guard: true, ..tpa.clone() };
    let (_, f_plain, _, plain) = run("lhalf-ellipsoid", 20, &tpa, 1, 300_000);
    assert!(f_plain > 1.0, "two-point adaptation alone reached {f_plain}");
    // The collapse: the scale falls by 30 orders of magnitude or more from sigma0 = 0.5 (and may
    // go on until the precision factor overflows, a numerical failure that ends the run).
    let overflowed = plain.failure().is_some_and(|why| why.contains("overflowed"));
    assert!(overflowed || plain.scale() < 1e-30, "scale {:e}, failure {:?}", plain.scale(), plain.failure());
    let (evals, f, events, state) = run("lhalf-ellipsoid", 20, &guarded, 1, 300_000);
    assert!(f <= 1e-10, "guarded: {f} after {evals}");
    assert_eq!(state.failure(), None);
    assert_eq!(events.iter().filter(|k| *k == "step-rule-off").count(), 1, "{events:?}");
    state.check_state().unwrap();
    // So does the median success rule. (CSA's collapse there reads as an exponent of about 0.9:
    // the guard does not see it.)
    let msr = IngoParams { step_size: StepSize::Msr, cusp_guard: true, ..Default::default() };
    let (_, _, events, _) = run("lhalf-ellipsoid", 20, &msr, 1, 30_000);
    assert!(events.iter().any(|k| k == "step-rule-off"), "msr: {events:?}");
}

#[test]
fn a_tripped_guard_resumes_bit_identically_and_needs_a_rule() {
    let guarded = IngoParams { step_size: StepSize::Tpa, cusp_guard: true, ..Default::default() };
    let f = build("lhalf-ellipsoid", 20, 0).unwrap();
    let step = |o: &mut Ingo| {
        let pop = o.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(|x| f.eval(x)).collect();
        o.tell(&pop, &v).unwrap();
        o.take_events()
    };
    // Serialized before the trip and restored, the run trips at the same generation and stays
    // identical after it.
    let mut a = Ingo::new(IngoVariant::Ingo, vec![0.5; 20], 0.5, &guarded, 1).unwrap();
    for _ in 0..100 {
        assert!(step(&mut a).is_empty());
    }
    let mut b: Ingo = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    b.check_state().unwrap();
    let mut tripped = 0;
    for _ in 0..1000 {
        let (ea, eb) = (step(&mut a), step(&mut b));
        assert_eq!(ea.len(), eb.len());
        tripped += ea.len();
    }
    assert_eq!(tripped, 1);
    assert_eq!(a, b);
    let c: Ingo = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    c.check_state().unwrap();
    assert_eq!(a, c);
    // Without a rule there is nothing to guard, and CSA's collapse is not seen: errors naming
    // the parameter.
    for rule in [StepSize::None, StepSize::Csa] {
        let bad = IngoParams { step_size: rule, cusp_guard: true, ..Default::default() };
        let e = Ingo::new(IngoVariant::Ingo, vec![0.0; 4], 0.5, &bad, 0).unwrap_err();
        assert!(e.to_string().contains("cusp_guard") && e.to_string().contains("tpa or msr"), "{e}");
    }
}
