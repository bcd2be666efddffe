//! The registry is the one place an algorithm is described: its entries must agree with what the
//! optimizers they build report, and parameter checks go through `ParamGuard` for every one.

use gradfree_core::{AskTell, ParamGuard};
use gradfree_es::gaussian::{CmaEsParams, IgoParams, IngoParams};
use gradfree_es::registry::{Domain, spec};
use gradfree_es::{Algorithm, Ipop, IpopParams, Restartable, StartSpec, build, list};

fn start(d: usize) -> StartSpec {
    StartSpec::new(vec![0.3; d], 0.5, 1)
}

#[test]
fn entries_describe_what_they_build() {
    let mut names = std::collections::HashSet::new();
    let mut classes = std::collections::HashSet::new();
    for e in list() {
        assert!(names.insert(e.name) && classes.insert(e.class_name), "{} listed twice", e.name);
        let a = (e.build)(&start(5)).unwrap();
        assert_eq!(a.name(), e.name, "the checkpoint tag and the CLI name must agree");
        assert_eq!(e.discrete(), e.domain != Domain::Continuous);
        assert!(!e.summary.is_empty() && !e.source.is_empty());
        match e.popsize_param {
            Some(key) => {
                let mut s = start(5);
                s.params.insert(key.into(), 24.into());
                // Points per generation (a surrogate method evaluates part of them per batch).
                assert_eq!(Restartable::generation_size(&build(e.name, &s).unwrap()), 24, "{}", e.name);
                assert!(Ipop::<Algorithm>::new(e.name, start(5), IpopParams::default()).is_ok(), "{}", e.name);
            }
            None => {
                let err = Ipop::<Algorithm>::new(e.name, start(5), IpopParams::default()).unwrap_err().to_string();
                assert!(err.contains("popsize"), "{err}");
            }
        }
    }
    assert!(spec("nope").unwrap_err().to_string().contains("ingo, ingostep"));
}

#[test]
fn params_are_checked_once_with_the_parameter_named() {
    let bad = IngoParams { beta: Some(1.5), ..Default::default() };
    assert!(bad.check(10).unwrap_err().to_string().contains("`beta` = 1.5"));
    let ok = IngoParams::default().check(10).unwrap();
    assert_eq!(ok, IngoParams::default().check(10).unwrap());
    assert!(CmaEsParams { popsize: Some(1), ..Default::default() }.check(3).unwrap_err().to_string().contains("popsize"));
    assert!(IgoParams { beta: Some(0.0), ..Default::default() }.check(3).is_err());
    // Every registered algorithm rejects an out-of-range popsize through its guard.
    for e in list().iter().filter(|e| e.popsize_param.is_some()) {
        let mut s = start(4);
        s.params.insert("popsize".into(), 1.into());
        assert!(build(e.name, &s).unwrap_err().to_string().contains("popsize"), "{}", e.name);
    }
}

#[test]
fn igo_has_its_own_parameters_and_reads_older_states() {
    // INGO's step-size options are not IGO's: naming them is an error, not silently ignored.
    for key in ["step_size", "mean_rate"] {
        let mut s = start(4);
        s.params.insert(key.into(), serde_json::json!(if key == "step_size" { "csa".into() } else { serde_json::json!(1.0) }));
        assert!(build("igo", &s).unwrap_err().to_string().contains(key), "{key}");
        assert!(build("ingo", &s).is_ok());
    }
    // A state saved when IGO shared INGO's parameter type still loads.
    let a = build("igo", &start(4)).unwrap();
    let mut v = serde_json::to_value(&a).unwrap();
    v["p"]["step_size"] = "none".into();
    v["p"]["mean_rate"] = serde_json::Value::Null;
    let back: Algorithm = serde_json::from_value(v).unwrap();
    assert_eq!(back, a);
}

#[test]
fn cmaes_restarts_are_the_generic_ipop_only() {
    let mut s = start(3);
    s.params.insert("restarts".into(), 2.into());
    assert!(build("cmaes", &s).unwrap_err().to_string().contains("use --restarts ipop|bipop"));
    // Older states with the built-in IPOP switched off load; with it on they are a clear error.
    let a = build("cmaes", &start(3)).unwrap();
    let mut v = serde_json::to_value(&a).unwrap();
    v["params"]["restarts"] = 0.into();
    v["params"]["popsize_factor"] = serde_json::Value::Null;
    v["x0"] = serde_json::json!([0.3, 0.3, 0.3]);
    v["sigma0"] = 0.5.into();
    v["restarts_done"] = 0.into();
    v["recent"] = serde_json::json!([]);
    assert_eq!(serde_json::from_value::<Algorithm>(v.clone()).unwrap(), a);
    v["params"]["restarts"] = 2.into();
    let err = serde_json::from_value::<Algorithm>(v).unwrap_err().to_string();
    assert!(err.contains("--restarts"), "{err}");
}
