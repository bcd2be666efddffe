//! Fuzzing the checkpoint loader: for every algorithm (and IPOP around two of them), thousands of
//! mutated checkpoints are loaded and, if accepted, resumed for a few generations. Nothing may
//! panic: a corrupt or foreign file is an error, and a file the loader accepts runs.
//!
//! Two kinds of mutation:
//! - *structural*: a random node of the JSON document is replaced (zero, negative, huge, tiny,
//!   non-integer, wrong type, an element added or removed, a key removed), then the checksum is
//!   dropped and the version set to 1 so the mutated state reaches the optimizer's own
//!   `check_state` (the checksum would otherwise reject almost all of them);
//! - *byte-level*: one byte of a version-2 file is replaced, deleted or duplicated; the checksum
//!   must reject every change that still parses to a different document.
//!
//! Each run tries at least 10,000 mutated files (`GRADFREE_FUZZ_CASES` raises it).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use gradfree_core::{Driver, DriverOptions, StopRules, parse_checkpoint, save_checkpoint};
use gradfree_es::{Algorithm, Ipop, IpopParams, StartSpec, build, list};
use gradfree_problems::build as problem;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

const DIM: usize = 5;

/// A checkpoint of each algorithm after a few generations, as (name, file bytes).
fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let f = problem("rosenbrock", DIM, 0).unwrap();
    let mut algs: Vec<(String, Algorithm)> =
        list().iter().map(|s| (s.name.to_string(), build(s.name, &StartSpec::new(vec![0.4; DIM], 0.5, 7)).unwrap())).collect();
    for inner in ["cmaes", "ingo"] {
        let ipop = Ipop::<Algorithm>::new(inner, StartSpec::new(vec![0.4; DIM], 0.5, 7), IpopParams::default()).unwrap();
        algs.push((format!("ipop-{inner}"), Algorithm::Ipop(Box::new(ipop))));
    }
    algs.into_iter()
        .map(|(name, alg)| {
            let mut d = Driver::new(alg, DriverOptions::new(StopRules { max_generations: Some(6), ..Default::default() })).unwrap();
            d.run(&f, &mut []).unwrap();
            let path = dir.path().join(format!("{name}.ckpt"));
            save_checkpoint(&path, &serde_json::json!({"fuzz": true}), d.optimizer(), &d.state()).unwrap();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

/// Every node of `v` as a JSON pointer.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
        _ => {}
    }
}

fn replacement(old: &Value, rng: &mut Xoshiro256PlusPlus) -> Option<Value> {
    let num = |x: f64| serde_json::Number::from_f64(x).map(Value::Number);
    Some(match rng.random_range(0..16) {
        0 => Value::from(0),
        1 => Value::from(-1),
        2 => Value::from(u64::MAX),
        3 => Value::from(i64::MIN),
        4 => num(1e308)?,
        5 => num(-1e308)?,
        6 => num(5e-324)?,
        7 => num(0.5)?,
        8 => Value::Null,
        9 => Value::from("x"),
        10 => Value::Bool(true),
        11 => Value::Array(vec![]),
        12 => match old {
            Value::Number(n) => num(n.as_f64()? * [-1.0, 2.0, 1e10, 1e-10, 0.0][rng.random_range(0..5)])?,
            _ => Value::from(1),
        },
        13 => match old {
            Value::Number(n) => Value::from((n.as_f64()? as i64).saturating_add([-1, 1, 1000, 1 << 40][rng.random_range(0..4)])),
            _ => Value::from(2),
        },
        14 => match old {
            Value::Array(a) if !a.is_empty() => {
                let mut a = a.clone();
                if rng.random_bool(0.5) {
                    a.push(a[0].clone());
                } else {
                    a.pop();
                }
                Value::Array(a)
            }
            _ => return None,
        },
        _ => Value::Object(Default::default()),
    })
}

/// One structural mutation (or removal of a key) of `doc`.
fn mutate(doc: &Value, rng: &mut Xoshiro256PlusPlus) -> Option<Value> {
    let mut out = doc.clone();
    let mut ptrs = Vec::new();
    pointers(&out, String::new(), &mut ptrs);
    let p = &ptrs[rng.random_range(1..ptrs.len())];
    if rng.random_bool(0.1) {
        let (parent, key) = p.rsplit_once('/')?;
        match out.pointer_mut(parent)? {
            Value::Object(m) => {
                m.remove(key);
            }
            Value::Array(a) => {
                a.remove(key.parse::<usize>().ok()?);
            }
            _ => return None,
        }
    } else {
        let node = out.pointer_mut(p)?;
        *node = replacement(node, rng)?;
    }
    let m = out.as_object_mut()?;
    m.remove("checksum");
    m.insert("version".into(), Value::from(1));
    Some(out)
}

thread_local! {
    static IN_TRY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Loads `bytes` and, if accepted, resumes for three generations; `Err` if anything panicked.
fn try_one(bytes: &[u8]) -> Result<bool, String> {
    IN_TRY.with(|t| t.set(true));
    let r = try_one_inner(bytes);
    IN_TRY.with(|t| t.set(false));
    r
}

fn try_one_inner(bytes: &[u8]) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let Ok(ck) = parse_checkpoint::<Algorithm>(Path::new("fuzz.ckpt"), bytes) else { return false };
        let f = problem("rosenbrock", DIM, 0).unwrap();
        let stop = StopRules { max_generations: Some(ck.driver.generations.saturating_add(3)), ..Default::default() };
        if let Ok(mut d) = Driver::resume(ck.optimizer, DriverOptions::new(stop), ck.driver) {
            let _ = d.run(&f, &mut []);
        }
        true
    }))
    .map_err(|e| e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default())
}

#[test]
fn mutated_checkpoints_never_panic() {
    let cases: usize = std::env::var("GRADFREE_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let seeds = seeds();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(20261122);
    // Panics inside `try_one` are caught and reported below; keep their messages off stderr.
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        if !IN_TRY.with(|t| t.get()) {
            eprintln!("{info}");
        }
    }));
    let (mut tried, mut accepted, mut byte_changed, mut byte_accepted) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let docs: Vec<Value> = seeds.iter().map(|(_, b)| serde_json::from_slice(b).unwrap()).collect();
    while tried < cases {
        let k = tried % seeds.len();
        let (name, bytes) = &seeds[k];
        let structural = tried % 4 != 3;
        let data = if structural {
            match mutate(&docs[k], &mut rng) {
                Some(v) => serde_json::to_vec(&v).unwrap(),
                None => continue,
            }
        } else {
            let mut b = bytes.clone();
            let i = rng.random_range(0..b.len());
            match rng.random_range(0..3) {
                0 => b[i] = rng.random(),
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, b[i]),
            }
            b
        };
        tried += 1;
        match try_one(&data) {
            Ok(ok) => {
                accepted += ok as usize;
                if !structural {
                    let same = serde_json::from_slice::<Value>(&data).is_ok_and(|v| v == docs[k]);
                    if !same {
                        byte_changed += 1;
                        byte_accepted += ok as usize;
                    }
                }
            }
            Err(msg) => failures.push(format!("{name}: {msg}\n{}", String::from_utf8_lossy(&data))),
        }
    }
    std::panic::set_hook(prev);
    eprintln!("{tried} mutated checkpoints, {accepted} accepted and resumed, {} panics", failures.len());
    if !failures.is_empty() {
        let mut kinds: Vec<&str> = failures.iter().map(|f| f.lines().next().unwrap_or("")).collect();
        kinds.sort_unstable();
        kinds.dedup();
        panic!("{} of {tried} mutated checkpoints panicked ({}); first:\n{}", failures.len(), kinds.join("; "), failures[0]);
    }
    assert_eq!(byte_accepted, 0, "{byte_accepted} of {byte_changed} byte-level changes passed the checksum");
    assert!(accepted > 0 && accepted < tried, "the mutations should be neither all accepted nor all rejected");
}
