//! Discrete INGO (thesis sec. 3.5) and the GA: the score-function gradients against exact
//! enumeration, the update against its formula, convergence, numerical safety, pinned values.

use gradfree_core::{AskTell, Objective, StopReason, StopRules, minimize};
use gradfree_es::discrete::{BernoulliIngo, BernoulliIngoParams, CategoricalIngo, CategoricalIngoParams, Ga, GaParams};
use gradfree_problems::build;

/// A fixed "random" table of values over `{0..k-1}^d`, indexed by the point.
fn table_value(x: &[f64], k: usize) -> f64 {
    let idx = x.iter().fold(0usize, |a, &v| a * k + v as usize);
    ((idx as f64 * 0.7531).sin() * 5.0 + (idx % 7) as f64).abs()
}

fn points(d: usize, k: usize) -> Vec<Vec<f64>> {
    (0..k.pow(d as u32))
        .map(|mut i| {
            (0..d)
                .map(|_| {
                    let v = (i % k) as f64;
                    i /= k;
                    v
                })
                .rev()
                .collect()
        })
        .collect()
}

fn sigmoid(e: f64) -> f64 {
    1.0 / (1.0 + (-e).exp())
}

/// `E_p[f]` by enumeration for Bernoulli probabilities `p`.
fn bernoulli_expectation(p: &[f64]) -> f64 {
    points(p.len(), 2)
        .iter()
        .map(|x| table_value(x, 2) * x.iter().zip(p).map(|(&b, &pi)| if b > 0.5 { pi } else { 1.0 - pi }).product::<f64>())
        .sum()
}

/// Eq. (3.39): `grad_p E[f] = E[f h]`. Exactly by enumeration (against central differences of
/// `E_p[f]`), and by Monte Carlo with the optimizer's own sampler (within 5 standard errors); one
/// update equals `eta - beta/(N sigmahat) sum f h` computed from the population (no baseline).
#[test]
fn bernoulli_score_gradient_matches_enumeration() {
    let d = 4;
    let eta0 = [0.3, -1.2, 2.0, 0.0];
    let p: Vec<f64> = eta0.iter().map(|&e| sigmoid(e)).collect();
    let mut exact = vec![0.0; d];
    let mut h = vec![0.0; d];
    for x in points(d, 2) {
        let px: f64 = x.iter().zip(&p).map(|(&b, &pi)| if b > 0.5 { pi } else { 1.0 - pi }).product();
        BernoulliIngo::score(&eta0, &x, &mut h);
        for (g, hi) in exact.iter_mut().zip(&h) {
            *g += px * table_value(&x, 2) * hi;
        }
    }
    for i in 0..d {
        let eps = 1e-6;
        let (mut a, mut b) = (p.clone(), p.clone());
        a[i] += eps;
        b[i] -= eps;
        let fd = (bernoulli_expectation(&a) - bernoulli_expectation(&b)) / (2.0 * eps);
        assert!((fd - exact[i]).abs() < 1e-6 * (1.0 + fd.abs()), "coordinate {i}: {fd} vs {}", exact[i]);
    }
    // Monte Carlo with the sampler, started at p_i = 0.3 (asymmetric, so swapped bits would show).
    let n = 40_000;
    let params = BernoulliIngoParams { popsize: Some(n), beta: Some(1e-3), baseline: Some(false), p0: Some(0.3), ..Default::default() };
    let mut opt = BernoulliIngo::new(d, &params, 5).unwrap();
    let e3 = [(0.3f64 / 0.7).ln(); 4];
    let mut exact3 = vec![0.0; d];
    for x in points(d, 2) {
        let px: f64 = x.iter().map(|&b| if b > 0.5 { 0.3 } else { 0.7 }).product();
        BernoulliIngo::score(&e3, &x, &mut h);
        for (g, hi) in exact3.iter_mut().zip(&h) {
            *g += px * table_value(&x, 2) * hi;
        }
    }
    let pop = opt.ask().unwrap();
    let vals: Vec<f64> = pop.rows().map(|x| table_value(x, 2)).collect();
    let mut sum = vec![0.0; d];
    let mut sq = vec![0.0; d];
    for x in pop.rows() {
        BernoulliIngo::score(&e3, x, &mut h);
        let fx = table_value(x, 2);
        for i in 0..d {
            sum[i] += fx * h[i];
            sq[i] += (fx * h[i]).powi(2);
        }
    }
    for i in 0..d {
        let mean = sum[i] / n as f64;
        let se = ((sq[i] / n as f64 - mean * mean) / n as f64).sqrt();
        assert!((mean - exact3[i]).abs() < 5.0 * se, "coordinate {i}: MC {mean} vs exact {} (se {se})", exact3[i]);
    }
    assert!(opt.probabilities().iter().all(|p| (p - 0.3).abs() < 1e-15));
    // The update (3.41) without baseline.
    let m = vals.iter().sum::<f64>() / n as f64;
    let sd = (vals.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    opt.tell(&pop, &vals).unwrap();
    for i in 0..d {
        let want = e3[i] - 1e-3 * sum[i] / (n as f64 * sd);
        let got = opt.natural_parameters()[i];
        assert!((got - want).abs() < 1e-9 * (want - e3[i]).abs(), "eta[{i}] = {got}, want {want}");
    }
}

/// Eq. (3.43): `d E_P[f] / d P_ij = E[f H_ij]`, `H_ij = 1[x_i = j]/P_ij`: by enumeration against
/// the Monte Carlo average over the optimizer's samples, and one update against its formula.
#[test]
fn categorical_score_gradient_matches_enumeration() {
    let (d, k, n) = (3, 3, 60_000);
    let params = CategoricalIngoParams { categories: k, popsize: Some(n), beta: Some(1e-9), baseline: Some(false), ..Default::default() };
    let mut opt = CategoricalIngo::new(d, &params, 9).unwrap();
    let p = opt.probabilities().to_vec();
    assert!(p.iter().all(|&v| (v - 1.0 / 3.0).abs() < 1e-15));
    // Exact: the partial derivative of sum_x f(x) prod_i P_{i, x_i} in P_ij.
    let mut exact = vec![0.0; d * k];
    for x in points(d, k) {
        for i in 0..d {
            let others: f64 = (0..d).filter(|&l| l != i).map(|l| p[l * k + x[l] as usize]).product();
            exact[i * k + x[i] as usize] += table_value(&x, k) * others;
        }
    }
    let pop = opt.ask().unwrap();
    let vals: Vec<f64> = pop.rows().map(|x| table_value(x, k)).collect();
    let mut sum = vec![0.0; d * k];
    let mut sq = vec![0.0; d * k];
    for (x, &fx) in pop.rows().zip(&vals) {
        for (i, &xi) in x.iter().enumerate() {
            let j = i * k + xi as usize;
            let v = fx / p[j];
            sum[j] += v;
            sq[j] += v * v;
        }
    }
    for j in 0..d * k {
        let mean = sum[j] / n as f64;
        let se = ((sq[j] / n as f64 - mean * mean) / n as f64).sqrt();
        assert!((mean - exact[j]).abs() < 5.0 * se, "entry {j}: MC {mean} vs exact {} (se {se})", exact[j]);
    }
    let m = vals.iter().sum::<f64>() / n as f64;
    let sd = (vals.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    opt.tell(&pop, &vals).unwrap();
    // eta_ij = -beta sum_n c_n H_ij, then each row shifted to maximum 0.
    for i in 0..d {
        let raw: Vec<f64> = (0..k).map(|j| -1e-9 * sum[i * k + j] / (n as f64 * sd)).collect();
        let max = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (j, r) in raw.iter().enumerate() {
            let got = opt.logits()[i * k + j];
            assert!((got - (r - max)).abs() < 1e-15, "eta[{i},{j}] = {got}, want {}", r - max);
        }
    }
}

#[test]
fn discrete_methods_solve_the_sanity_problems() {
    let stop = |b| StopRules { target: Some(0.0), ..StopRules::max_evaluations(b) };
    let onemax = build("onemax", 50, 0).unwrap();
    let r = minimize(&onemax, BernoulliIngo::new(50, &BernoulliIngoParams::default(), 1).unwrap(), stop(200_000), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "Bernoulli INGO on OneMax: {}", r.best_f);
    let r = minimize(&onemax, Ga::new(50, &GaParams::default(), 1).unwrap(), stop(200_000), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "GA on OneMax: {}", r.best_f);
    let lo = build("leadingones", 30, 0).unwrap();
    let r = minimize(&lo, BernoulliIngo::new(30, &BernoulliIngoParams::default(), 2).unwrap(), stop(500_000), &mut []).unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Target), "Bernoulli INGO on LeadingOnes: {}", r.best_f);
    let cat = build("categorical-reconstruction", 40, 3).unwrap();
    let params = CategoricalIngoParams { categories: 4, ..Default::default() };
    let r = minimize(&cat, CategoricalIngo::new(40, &params, 3).unwrap(), stop(500_000), &mut []).unwrap();
    assert!(r.best_f < 1e-9, "categorical INGO on categorical-reconstruction: {}", r.best_f);
    let bin = build("binary-reconstruction", 100, 4).unwrap();
    let r = minimize(&bin, BernoulliIngo::new(100, &BernoulliIngoParams::default(), 4).unwrap(), stop(400_000), &mut []).unwrap();
    assert!(r.best_f < 1e-9, "Bernoulli INGO on binary reconstruction d = 100: {}", r.best_f);
}

/// Huge steps and huge values keep every probability finite and every categorical row
/// normalized; the Bernoulli logits stay within `eta_max` and the clamp is reported.
#[test]
fn extreme_updates_stay_finite_and_normalized() {
    let (d, k) = (6, 5);
    let params = CategoricalIngoParams { categories: k, beta: Some(1e8), normalize: false, baseline: Some(false), ..Default::default() };
    let mut cat = CategoricalIngo::new(d, &params, 1).unwrap();
    let mut bern = BernoulliIngo::new(d, &BernoulliIngoParams { beta: Some(1e8), ..Default::default() }, 1).unwrap();
    let mut clamp_events = 0;
    for g in 0..200 {
        let pop = cat.ask().unwrap();
        let vals: Vec<f64> = pop.rows().enumerate().map(|(i, x)| x[0] * 1e300 * ((i + g) % 3) as f64 + x[1]).collect();
        cat.tell(&pop, &vals).unwrap();
        for row in cat.probabilities().chunks(k) {
            assert!(row.iter().all(|p| p.is_finite() && *p > 0.0), "{row:?}");
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{row:?}");
        }
        assert!(cat.logits().iter().all(|&e| (-30.0..=0.0).contains(&e)));
        let pop = bern.ask().unwrap();
        let vals: Vec<f64> = pop.rows().enumerate().map(|(i, x)| x.iter().sum::<f64>() * (1.0 + ((i * 7 + g) % 5) as f64)).collect();
        bern.tell(&pop, &vals).unwrap();
        clamp_events += bern.take_events().iter().filter(|e| e.kind == "clamp").count();
        assert!(bern.probabilities().iter().all(|p| p.is_finite() && (1e-13..=1.0 - 1e-13).contains(p)));
        assert!(bern.natural_parameters().iter().all(|e| e.abs() <= 27.7));
    }
    assert!(clamp_events > 0);
}

/// Value stability: the first coordinates of `eta` after 20 generations on OneMax, seed 3.
#[test]
fn pinned_values() {
    let f = build("onemax", 10, 0).unwrap();
    let mut opt = BernoulliIngo::new(10, &BernoulliIngoParams::default(), 3).unwrap();
    let mut ga = Ga::new(10, &GaParams::default(), 3).unwrap();
    for _ in 0..20 {
        let pop = opt.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(|x| f.eval(x)).collect();
        opt.tell(&pop, &v).unwrap();
        let pop = ga.ask().unwrap();
        let v: Vec<f64> = pop.rows().map(|x| f.eval(x)).collect();
        ga.tell(&pop, &v).unwrap();
    }
    let eta = &opt.natural_parameters()[..3];
    let want = [1.3622692509481382, 1.3354155484884107, 1.4245304184435639];
    for (a, b) in eta.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
    // Parent averages: multiples of 1/N = 1/44.
    for (a, b) in ga.mean()[..3].iter().zip([40.0 / 44.0, 32.0 / 44.0, 32.0 / 44.0]) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
}

/// Under the treat-as-inf policy the GA keeps parents valued +inf; its checkpoint stores them
/// (as "inf", JSON having no infinity) and resumes bit-identically.
#[test]
fn ga_with_infinite_parent_values_checkpoints_and_resumes() {
    use gradfree_core::{Driver, DriverOptions, FnObjective, NonFinitePolicy, load_checkpoint, save_checkpoint};
    use gradfree_es::Algorithm;
    // Infinite unless the first bit is set: most of the first parents are +inf.
    let f = FnObjective::new(|x: &[f64]| if x[0] > 0.5 { x.iter().sum::<f64>() } else { f64::INFINITY });
    let params = GaParams { on_nonfinite: NonFinitePolicy::TreatAsInf, ..Default::default() };
    let make = || Algorithm::Ga(Ga::new(12, &params, 3).unwrap());
    let stop = StopRules { max_generations: Some(30), ..Default::default() };
    let mut full = Driver::new(make(), DriverOptions::new(stop.clone())).unwrap();
    full.run(&f, &mut []).unwrap();
    let mut part = Driver::new(make(), DriverOptions::new(stop.clone())).unwrap();
    part.step(&f, &mut []).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ga.ckpt");
    save_checkpoint(&path, &serde_json::Value::Null, part.optimizer(), &part.state()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"inf\""), "the first parents should include +inf values");
    let ck = load_checkpoint::<Algorithm>(&path).unwrap();
    assert_eq!(&ck.optimizer, part.optimizer());
    let mut resumed = Driver::resume(ck.optimizer, DriverOptions::new(stop), ck.driver).unwrap();
    resumed.run(&f, &mut []).unwrap();
    assert_eq!(resumed.optimizer(), full.optimizer());
}
