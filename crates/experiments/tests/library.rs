//! The experiments library: run specifications and their defaults, report formats, the registry.

use gradfree_core::AskTell;
use gradfree_experiments::run_spec::{BoundsMode, RestartPlan, RunSpec, default_stop};
use gradfree_experiments::{Ctx, Entry, Experiment, Figure, Series, Table, experiments, find};

#[test]
fn run_spec_defaults_come_from_the_problem() {
    let mut spec = RunSpec::new("cmaes", "rastrigin10", 6, 3).unwrap();
    let p = spec.build_problem().unwrap();
    spec.complete(p.as_ref()).unwrap();
    let init = p.init_region();
    assert_eq!(spec.x0.len(), 6);
    assert!(init.contains(&spec.x0), "the default start lies in the initial region");
    let want = p.domain().map_or(0.5, |b| 0.3 * b.max_width());
    assert!((spec.sigma0 - want).abs() < 1e-15);
    assert_eq!(spec.stop.max_evaluations, Some(60_000));
    assert_eq!(default_stop(6, Some(0.0)).target, Some(1e-10));
    // Same seed, same start; another seed, another start.
    let mut again = RunSpec::new("cmaes", "rastrigin10", 6, 3).unwrap();
    again.complete(p.as_ref()).unwrap();
    assert_eq!(again.x0, spec.x0);
    let mut other = RunSpec::new("cmaes", "rastrigin10", 6, 4).unwrap();
    other.complete(p.as_ref()).unwrap();
    assert_ne!(other.x0, spec.x0);
    // The driver options clip to the domain by default and refuse --bounds on a domain-less problem.
    assert_eq!(spec.driver_options(p.as_ref()).unwrap().bounds.is_some(), p.domain().is_some());
    let mut free = RunSpec::new("cmaes", "quadratic", 4, 0).unwrap();
    free.bounds = BoundsMode::Clip;
    let q = free.build_problem().unwrap();
    if q.domain().is_none() {
        assert!(free.driver_options(q.as_ref()).unwrap_err().to_string().contains("--bounds clip"));
    }
    assert!(RunSpec::new("cmaes", "sphere", 0, 0).unwrap_err().to_string().contains("--dim 0"));
}

#[test]
fn discrete_runs_take_the_problems_categories() {
    let mut spec = RunSpec::new("ingo-categorical", "onemax", 10, 0).unwrap();
    let p = spec.build_problem().unwrap();
    spec.complete(p.as_ref()).unwrap();
    assert_eq!(spec.params["categories"], 2);
    let alg = spec.build_optimizer(p.as_ref(), None).unwrap();
    assert_eq!(alg.name(), "ingo-categorical");
    let mut cont = RunSpec::new("ingo-bernoulli", "sphere", 3, 0).unwrap();
    let s = cont.build_problem().unwrap();
    assert!(cont.complete(s.as_ref()).unwrap_err().to_string().contains("discrete problems"));
    let restarted = spec.build_optimizer(p.as_ref(), Some(RestartPlan { max: Some(2), ..RestartPlan::default() })).unwrap();
    assert_eq!(restarted.name(), "ingo-categorical");
    spec.check_against(&restarted).unwrap();
}

#[test]
fn run_specs_of_older_checkpoints_still_read() {
    // The metadata `gradfree optimize` wrote before `checkpoint_every` existed.
    let old = serde_json::json!({
        "algorithm": "ingo", "problem": "sphere", "dim": 2, "seed": 1, "problem_seed": 0, "rotate": false,
        "shift": null, "bounds": "auto", "x0": [0.1, 0.2], "sigma0": 0.5, "params": {},
        "stop": {"max_evaluations": 100, "max_generations": null, "target": null, "tol_f": null, "tol_f_window": 10,
                 "tol_x": null, "max_seconds": null},
        "parallel": true
    });
    let spec: RunSpec = serde_json::from_value(old).unwrap();
    assert_eq!((spec.checkpoint_every, spec.checkpoint_seconds), (Some(50), None));
    assert_eq!(serde_json::from_value::<RunSpec>(serde_json::to_value(&spec).unwrap()).unwrap(), spec);
}

#[test]
fn tables_and_figures() {
    let mut t = Table::new("T", "t", &["a", "b"]);
    t.push(vec!["1, 2".into(), "say \"x\"".into()]);
    assert_eq!(t.csv(), "a,b\n\"1, 2\",\"say \"\"x\"\"\"\n");
    assert_eq!(t.lines()[1], "a     b      ");
    let s = |l: &str| Series { label: l.into(), points: vec![(1.0, 2.0)], errors: Vec::new() };
    let f = Figure::panels("f.png", vec![("p".into(), vec![s("x")]), ("q".into(), vec![s("y")])], "n", "err", true, 3);
    match &f {
        Figure::Charts { charts, cols, .. } => assert_eq!((charts.len(), *cols, charts[1].title.as_str()), (2, 2, "q")),
        other => panic!("{other:?}"),
    }
    assert_eq!(f.file(), "f.png");
}

#[test]
fn the_registry_finds_every_experiment_and_runs_one() {
    let names: Vec<&str> = experiments().iter().map(|e| e.name).collect();
    let unique: std::collections::HashSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    for n in &names {
        assert_eq!(find(n).unwrap().name(), *n);
    }
    assert!(find("nope").err().unwrap().to_string().contains("known: all, test-functions"));
    let dir = tempfile::tempdir().unwrap();
    let ctx = Ctx { quick: true, ..Ctx::new(dir.path()) };
    let report = find("sphere-coherence").unwrap().run(&ctx).unwrap();
    assert!(!report.tables.is_empty() && !report.figures.is_empty());
    assert_eq!(report, find("sphere-coherence").unwrap().run(&ctx).unwrap(), "same seed, same report");
}

/// An experiment announces its runs before making them and reports each one (computed, then read
/// back from the run cache), so a front end can draw a bar with an ETA.
#[test]
fn progress_counts_the_announced_runs() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use gradfree_experiments::{ProgressEvent, ProgressSink};
    let dir = tempfile::tempdir().unwrap();
    let events: Arc<Mutex<Vec<ProgressEvent>>> = Arc::default();
    let cached = Arc::new(AtomicU64::new(0));
    let (e2, c2) = (events.clone(), cached.clone());
    let sink = ProgressSink(Arc::new(move |e| {
        if e == (ProgressEvent::Finished { cached: true }) {
            c2.fetch_add(1, Ordering::Relaxed);
        }
        e2.lock().unwrap().push(e);
    }));
    let ctx = Ctx { quick: true, progress: Some(sink), ..Ctx::new(dir.path()) };
    let exp = gradfree_experiments::find("mines-synthetic").unwrap();
    exp.run(&ctx).unwrap();
    let first: Vec<ProgressEvent> = events.lock().unwrap().drain(..).collect();
    let ProgressEvent::Planned(n) = first[0] else { panic!("the plan comes first: {first:?}") };
    assert_eq!(first.len() as u64, n + 1, "one event per announced run");
    assert!(first[1..].iter().all(|e| *e == ProgressEvent::Finished { cached: false }));
    exp.run(&ctx).unwrap();
    assert_eq!(cached.load(Ordering::Relaxed), n, "the second time every run comes from the cache");
}

/// The kernel-approximation experiments on real data (the Debian packages `.ci/run` installs):
/// thesis sec. 6.6's ordering (SSF's Gram error well below i.i.d. Gaussian features' for the
/// first-order arc-cosine kernel), Fig. 6.1's fewer than ten sweeps, and one progress event per
/// announced measurement.
#[test]
fn kernel_experiments_show_the_thesis_ordering() {
    use std::sync::{Arc, Mutex};

    use gradfree_experiments::{ProgressEvent, ProgressSink};
    let dir = tempfile::tempdir().unwrap();
    let events: Arc<Mutex<Vec<ProgressEvent>>> = Arc::default();
    let e2 = events.clone();
    let sink = ProgressSink(Arc::new(move |e| e2.lock().unwrap().push(e)));
    let ctx = Ctx { quick: true, progress: Some(sink), ..Ctx::new(dir.path()) };
    let report = find("ssf-accuracy").unwrap().run(&ctx).unwrap();
    let first = |cell: &str| cell.split_whitespace().next().unwrap().parse::<f64>().unwrap();
    let t = &report.tables[0];
    let col = |name: &str| t.headers.iter().position(|h| h == name).unwrap();
    let row = t.rows.iter().find(|r| r[0] == "arc-cosine 1").unwrap();
    let (ssf, iid) = (first(&row[col("SSF Frobenius")]), first(&row[col("Gaussian Frobenius")]));
    assert!(ssf < 0.5 * iid, "arc-cosine 1 on DNA: SSF {ssf} vs Gaussian {iid}");
    let ev = events.lock().unwrap().clone();
    let ProgressEvent::Planned(n) = ev[0] else { panic!("plan first") };
    assert_eq!(ev.len() as u64, n + 1);
    let conv = find("ssf-convergence").unwrap().run(&Ctx { quick: true, ..Ctx::new(dir.path()) }).unwrap();
    for r in &conv.tables[0].rows {
        assert!(r[1].parse::<usize>().is_ok_and(|s| s < 10), "sweeps: {r:?}");
    }
}

/// The offline tuning task (real Fashion-MNIST): sensible settings classify well, a huge ridge
/// penalty does not, the error is deterministic, and the space mixes the variable types.
#[test]
fn tuning_task_ranks_settings_sensibly() {
    use gradfree_core::Objective;
    use gradfree_experiments::tuning::FeatureTuning;
    let t0 = std::time::Instant::now();
    let task = FeatureTuning::load(3000, 1000, 0).unwrap();
    let good = task.eval(&[0.0, 9.0, 0.0, -4.0]);
    let arccos = task.eval(&[2.0, 9.0, 0.0, -4.0]);
    let over_regularized = task.eval(&[0.0, 9.0, 0.0, 0.0]);
    eprintln!("good {good}%, arccos1 {arccos}%, lambda = 1: {over_regularized}% ({:.1} s)", t0.elapsed().as_secs_f64());
    assert!(good < 25.0 && arccos < 25.0, "{good} {arccos}");
    assert!(over_regularized > good + 5.0, "{over_regularized} vs {good}");
    assert_eq!(task.eval(&[0.0, 9.0, 0.0, -4.0]), good);
    assert_eq!(task.eval(&[f64::NAN, 9.0, 0.0, -4.0]), f64::INFINITY);
    let kinds = FeatureTuning::space().kinds().to_vec();
    assert_eq!(kinds.len(), 4);
}
