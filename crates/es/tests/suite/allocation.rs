//! "Allocation-free generations after the first" (issue 3): after warm-up generations, an
//! `ask_into` + `tell` round of every algorithm performs no heap allocation. Counted with
//! `allocation-counter`'s global allocator, per thread (tests run in parallel threads). Generations
//! that report an event are not counted: an event's message is a heap string.

use gradfree_core::{AskTell, Objective, Population};
use gradfree_es::{StartSpec, build, list};
use gradfree_problems::build as problem;

fn allocations_per_generation(name: &str, params: serde_json::Value, d: usize, warmup: usize, measured: usize) -> u64 {
    let f = problem("ellipsoid", d, 0).unwrap();
    let mut start = StartSpec::new(vec![0.3; d], 0.5, 1);
    start.params = params.as_object().unwrap().clone();
    let mut alg = build(name, &start).unwrap();
    let mut pop = Population::zeros(alg.population_size(), d);
    let mut vals = Vec::with_capacity(4 * alg.population_size());
    let generation = |alg: &mut gradfree_es::Algorithm, pop: &mut Population, vals: &mut Vec<f64>| {
        alg.ask_into(pop).unwrap();
        vals.clear();
        vals.extend(pop.rows().map(|x| f.eval(x)));
        alg.tell(pop, vals).unwrap();
    };
    for _ in 0..warmup {
        generation(&mut alg, &mut pop, &mut vals);
    }
    let mut total = 0;
    for _ in 0..measured {
        let n = allocation_counter::measure(|| generation(&mut alg, &mut pop, &mut vals)).count_total;
        // Events (rare, e.g. a change in the number of clipped eigenvalues) carry a message string.
        if alg.take_events().is_empty() {
            total += n;
        }
    }
    total
}

#[test]
fn generations_after_warmup_do_not_allocate() {
    let mut report = Vec::new();
    // lq-CMA-ES refits its model (a singular value decomposition) after every batch, which
    // allocates: it is meant for expensive objectives, where one evaluation costs far more.
    for spec in list().iter().filter(|s| s.name != "lq-cmaes") {
        // Enough measured generations to cover CMA-ES's lazy eigendecomposition.
        let n = allocations_per_generation(spec.name, serde_json::json!({}), 12, 3, 40);
        if n > 0 {
            report.push(format!("{}: {n} allocations in 40 generations", spec.name));
        }
    }
    for (name, params) in [
        ("ingo", serde_json::json!({"sampling": "orthogonal"})),
        ("ingo", serde_json::json!({"sampling": "antithetic", "score": "log-rank"})),
        ("ingo", serde_json::json!({"step_size": "csa"})),
        ("cmaes", serde_json::json!({"popsize": 40})),
    ] {
        let n = allocations_per_generation(name, params.clone(), 12, 3, 40);
        if n > 0 {
            report.push(format!("{name} {params}: {n} allocations in 40 generations"));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
