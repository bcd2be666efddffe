//! Box constraints under the default handling (pycma's `BoundTransform`), for every Gaussian
//! method of the registry: the objective is never evaluated outside the box, and an optimum inside
//! it (in the identity region or in the quadratic margin) is found without bias.

use std::sync::atomic::{AtomicBool, Ordering};

use gradfree_core::{Bounds, BoundsHandling, Driver, FnObjective, StopSpec};
use gradfree_es::spec::EsSpec;

/// The Gaussian methods (the random-search baselines and discrete methods excluded). IGO, the
/// thesis' plain-gradient baseline, does not reach 1e-8 on this problem in the budget even without
/// bounds: it is held to staying in the box only.
const GAUSSIAN: [&str; 7] = ["cmaes", "ingo", "ingostep", "fast-ingo", "xnes", "mines", "igo"];

#[test]
fn transform_stays_in_the_box_and_finds_an_inside_optimum_without_bias() {
    // On [-1, 1] x [0, 10] x [-2, 3]: 0.9 lies in the identity region, 9.7 in the quadratic
    // margin of the upper bound 10 (margin 0.5), -1.98 in the margin of -2 (margin 0.1).
    let c = [0.9, 9.7, -1.98];
    let bounds = Bounds::new(vec![-1.0, 0.0, -2.0], vec![1.0, 10.0, 3.0]).unwrap();
    let outside = AtomicBool::new(false);
    let f = FnObjective::new(|x: &[f64]| {
        if !bounds.contains(x) {
            outside.store(true, Ordering::Relaxed);
        }
        x.iter().zip(&c).map(|(v, c)| (v - c).powi(2)).sum()
    });
    let seeds = 20;
    for name in GAUSSIAN {
        let mut mean = [0.0; 3];
        for seed in 0..seeds {
            let spec = EsSpec {
                algorithm: name.into(),
                // A start whose distribution reaches far outside the box.
                x0: vec![0.0, 5.0, 0.5],
                sigma0: 3.0,
                seed,
                stop: StopSpec { max_evaluations: Some(6_000), target: Some(1e-14), convergence: false, ..StopSpec::default() },
                bounds: Some((bounds.clone(), BoundsHandling::from_name("transform").unwrap())),
                parallel: false,
                ..EsSpec::default()
            };
            let (opt, options) = spec.build(Some(0.0)).unwrap();
            let r = Driver::new(opt, options).unwrap().run(&f, &mut []).unwrap();
            if name == "igo" {
                continue;
            }
            assert!(r.best_f < 1e-8, "{name}, seed {seed}: best f {} ({:?})", r.best_f, r.stop_reason);
            for (m, x) in mean.iter_mut().zip(&r.best_x) {
                *m += x / seeds as f64;
            }
        }
        for (m, c) in mean.iter().zip(&c).filter(|_| name != "igo") {
            assert!((m - c).abs() < 1e-5, "{name}: mean best point {mean:?}, optimum {c:?}");
        }
    }
    assert!(!outside.load(Ordering::Relaxed), "the objective was evaluated outside the box");
}

#[test]
fn handling_names_are_checked() {
    for name in ["transform", "clip", "reflect", "penalty"] {
        assert!(BoundsHandling::from_name(name).is_ok());
    }
    let e = BoundsHandling::from_name("wrap").unwrap_err().to_string();
    assert!(e.contains("bounds_handling") && e.contains("transform, clip, reflect, penalty"), "{e}");
}
