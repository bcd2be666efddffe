//! The inference methods against what their theory says: the MasGrad condition number of a
//! fixed-design linear model, MasGrad's acceleration over SGD, random-scaling coverage, MadProx
//! and the lasso, MasGrad's closeness to its diffusion, reproducibility whatever the thread count,
//! and clear errors for bad input.

use gradfree_core::linalg::random_orthogonal;
use gradfree_core::rng_from_seed;
use gradfree_inference::direction::{DirectionWork, sym_power_apply};
use gradfree_inference::intervals::ks_by_step;
use gradfree_inference::{Data, Family, Fit, Glm, InferenceSpec, Method, Model, Moments, ProxMetric, Sampling, run, run_stream};
use rand_distr::{Distribution, StandardNormal};

/// Test inputs (not a data set): `n` rows with covariance `Q diag(lambda) Q^T` and responses of
/// the linear model `y = x^T theta + noise N(0, sigma^2)`.
fn linear_data(n: usize, lambda: &[f64], theta: &[f64], sigma: f64, seed: u64) -> Data {
    let p = lambda.len();
    let q = random_orthogonal(p, seed);
    let mut rng = rng_from_seed(seed + 1);
    let mut x = Vec::with_capacity(n * p);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let z: Vec<f64> =
            (0..p).map(|j| lambda[j].sqrt() * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng)).collect();
        let row: Vec<f64> = (0..p).map(|i| (0..p).map(|j| q[i * p + j] * z[j]).sum()).collect();
        let e: f64 = StandardNormal.sample(&mut rng);
        y.push(row.iter().zip(theta).map(|(a, b)| a * b).sum::<f64>() + sigma * e);
        x.extend(row);
    }
    Data::new(x, p, y).unwrap()
}

/// Least squares on the data: `(X^T X)^{-1} X^T y`.
fn least_squares(data: &Data) -> Vec<f64> {
    let p = data.dim();
    let (mut a, mut b) = (vec![0.0; p * p], vec![0.0; p]);
    for i in 0..data.len() {
        let x = data.row(i);
        for r in 0..p {
            b[r] += x[r] * data.response(i);
            for c in 0..p {
                a[c * p + r] += x[r] * x[c];
            }
        }
    }
    assert!(gradfree_core::linalg::solve_dense(&mut a, p, &mut b));
    b
}

fn gram(data: &Data) -> Vec<f64> {
    let p = data.dim();
    let mut h = vec![0.0; p * p];
    for i in 0..data.len() {
        let x = data.row(i);
        for r in 0..p {
            for c in 0..p {
                h[c * p + r] += x[r] * x[c] / data.len() as f64;
            }
        }
    }
    h
}

fn eigenvalues(a: &[f64], p: usize) -> Vec<f64> {
    let mut v = vec![0.0; p];
    assert!(gradfree_core::linalg::sym_eigen(a, p, &mut v, None, &mut Default::default()));
    v
}

/// Sec. 4.2: for the fixed-design linear model `V = sigma (X^T X / N)^{1/2}` and `H = X^T X / N`,
/// so `V^{-1/2} H V^{-1/2}` has condition number `sqrt(kappa_GD)`.
#[test]
fn masgrad_condition_number_is_the_root_of_gds() {
    let lambda = [30.98, 1.0, 5.0, 2.0];
    let data = linear_data(500, &lambda, &[1.0; 4], 1.0, 3);
    let (p, sigma) = (4, 1.7);
    let h = gram(&data);
    let cov: Vec<f64> = h.iter().map(|v| sigma * sigma * v).collect();
    let mut work = DirectionWork::default();
    // M = V^{-1/2} H V^{-1/2} = Sigma^{-1/4} H Sigma^{-1/4}, column by column.
    let (mut m, mut e, mut col, mut hc) = (vec![0.0; p * p], vec![0.0; p], vec![0.0; p], vec![0.0; p]);
    for j in 0..p {
        e.iter_mut().enumerate().for_each(|(k, v)| *v = if k == j { 1.0 } else { 0.0 });
        sym_power_apply(&cov, p, -0.25, &e, 1.0, &mut col, &mut work);
        for r in 0..p {
            hc[r] = (0..p).map(|k| h[k * p + r] * col[k]).sum();
        }
        sym_power_apply(&cov, p, -0.25, &hc, 1.0, &mut col, &mut work);
        m[j * p..(j + 1) * p].copy_from_slice(&col);
    }
    let (eh, em) = (eigenvalues(&h, p), eigenvalues(&m, p));
    let (kappa_gd, kappa_mas) = (eh[p - 1] / eh[0], em[p - 1] / em[0]);
    assert!((kappa_mas - kappa_gd.sqrt()).abs() < 1e-8 * kappa_gd, "{kappa_mas} vs sqrt({kappa_gd})");
    assert!(kappa_gd > 20.0);
}

/// MasGrad (population V, step 1/gamma) reaches a tenth of the initial error in fewer steps than
/// SGD (step 1/lambda_max(H)) on an ill-conditioned linear model, averaged over chains.
#[test]
fn masgrad_needs_fewer_steps_than_sgd() {
    let lambda = [30.98, 1.0, 0.05 * 30.98, 1.3];
    let truth = [1.0, -2.0, 0.5, 1.5];
    let data = linear_data(500, &lambda, &truth, 1.0, 5);
    let star = least_squares(&data);
    let h = gram(&data);
    let lmax = eigenvalues(&h, 4)[3];
    let steps_to = |spec: InferenceSpec| {
        let fit = run(&Glm::new(Family::Linear, 4), &data, &spec, None).unwrap();
        let err = |t: usize| {
            (0..fit.trajectories.chains)
                .map(|k| fit.trajectories.at(k, t).iter().zip(&star).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt())
                .sum::<f64>()
                / fit.trajectories.chains as f64
        };
        let e0 = err(0);
        (1..=spec.steps).find(|&t| err(t) < 0.1 * e0)
    };
    let base = InferenceSpec { batch_size: Some(50), chains: 20, steps: 400, seed: 1, ..InferenceSpec::default() };
    let sgd = steps_to(InferenceSpec { method: Method::Sgd, step: Some(1.0 / lmax), ..base.clone() });
    // At the optimum V^2 = Cov[(x^T w - y) x], about sigma^2 H here: gamma ~ sqrt(lambda_max).
    let mas =
        steps_to(InferenceSpec { method: Method::Masgrad, moments: Some(Moments::Population), step: Some(1.0 / lmax.sqrt()), ..base });
    let (Some(sgd), Some(mas)) = (sgd, mas) else { panic!("no convergence: sgd {sgd:?}, masgrad {mas:?}") };
    assert!(mas * 2 < sgd, "MasGrad {mas} steps, SGD {sgd}");
}

/// Random scaling with its defaults (three passes, the step from the curvature, 100 chains pooled):
/// over 150 independent data sets its pooled 95% intervals cover the truth at 0.90-0.99 (a wrong
/// law, a standard error off by a factor, or chain 0 alone would miss), `bse` is a standard error
/// (its mean within 15% of the estimates' spread across data sets), and no fit warns. Streamed,
/// each chain is Lee et al.'s online run on its own rows: every chain's interval covers the truth
/// at its level.
#[test]
fn random_scaling_intervals_cover_at_their_level() {
    let truth = [0.5, -1.0, 2.0];
    let model = Glm::new(Family::Linear, 3);
    let reps = 150u64;
    let fits: Vec<Fit> = (0..reps)
        .map(|r| {
            run(
                &model,
                &linear_data(4000, &[1.0, 2.0, 0.5], &truth, 1.0, 100 + r),
                &InferenceSpec { method: Method::RandomScaling, seed: r, ..InferenceSpec::default() },
                None,
            )
            .unwrap()
        })
        .collect();
    for (j, t) in truth.iter().enumerate() {
        let covered = fits.iter().filter(|f| f.conf_int(0.95).map(|(l, h)| l[j] <= *t && *t <= h[j]).unwrap()).count() as f64 / reps as f64;
        assert!((0.9..=0.99).contains(&covered), "coordinate {j}: coverage {covered}");
        let est: Vec<f64> = fits.iter().map(|f| f.params[j]).collect();
        let mean = est.iter().sum::<f64>() / reps as f64;
        let spread = (est.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (reps - 1) as f64).sqrt();
        let se = fits.iter().map(|f| f.bse().unwrap()[j]).sum::<f64>() / reps as f64;
        assert!((se / spread - 1.0).abs() < 0.15, "coordinate {j}: mean se {se} vs spread {spread}");
    }
    assert!(fits.iter().all(|f| f.warnings.is_empty()), "{:?}", fits.iter().find(|f| !f.warnings.is_empty()).map(|f| &f.warnings));
    // N / 400 = 10 rows a step, 400 steps a pass, 3 passes.
    assert_eq!((fits[0].spec.batch_size, fits[0].spec.steps), (Some(10), 3 * 400));
    // Streamed: chains on disjoint rows, each one pass of batch 5 from the origin.
    let data = linear_data(200 * 2000, &[1.0, 2.0, 0.5], &truth, 1.0, 7);
    let mut source = gradfree_data::ChunkList::new(3, vec![gradfree_data::Chunk { x: data.rows().to_vec(), y: data.responses().to_vec() }]);
    let spec = InferenceSpec { method: Method::RandomScaling, batch_size: Some(5), chains: 200, seed: 2, ..InferenceSpec::default() };
    let fit = run_stream(&model, &mut source, &spec, None, None).unwrap();
    let (lo, hi) = fit.chain_intervals(0.95).unwrap();
    for (j, s) in truth.iter().enumerate() {
        let covered = (0..200).filter(|k| lo[k * 3 + j] <= *s && *s <= hi[k * 3 + j]).count() as f64 / 200.0;
        assert!((0.9..=0.99).contains(&covered), "streamed coordinate {j}: coverage {covered}");
    }
}

/// Coordinate-descent lasso: `min (1/2N) |X w - y|^2 + lambda |w|_1`.
fn lasso(data: &Data, lambda: f64) -> Vec<f64> {
    let (n, p) = (data.len() as f64, data.dim());
    let mut w = vec![0.0; p];
    for _ in 0..100_000 {
        let mut change: f64 = 0.0;
        for j in 0..p {
            let (mut rho, mut z) = (0.0, 0.0);
            for i in 0..data.len() {
                let x = data.row(i);
                let r = data.response(i) - x.iter().zip(&w).enumerate().filter(|(k, _)| *k != j).map(|(_, (a, b))| a * b).sum::<f64>();
                rho += x[j] * r / n;
                z += x[j] * x[j] / n;
            }
            let new = rho.signum() * (rho.abs() - lambda).max(0.0) / z;
            change = change.max((new - w[j]).abs());
            w[j] = new;
        }
        if change < 1e-13 {
            break;
        }
    }
    w
}

/// MadProx on the full data (the gradient exact) reaches coordinate descent's lasso solution, with
/// the diagonal and the full metric, and sets the small coefficient exactly to 0.
#[test]
fn madprox_reaches_the_lasso_solution() {
    let data = linear_data(300, &[1.0, 2.0, 0.7, 1.5], &[1.0, 0.0, -0.8, 0.05], 0.5, 9);
    let lambda = 0.2;
    let want = lasso(&data, lambda);
    assert!(want.contains(&0.0), "the example has a zero coefficient: {want:?}");
    for metric in [ProxMetric::Diagonal, ProxMetric::Full] {
        let spec = InferenceSpec {
            method: Method::Madprox,
            prox_metric: metric,
            lambda,
            batch_size: Some(300),
            sampling: Sampling::WithoutReplacement,
            step: Some(0.1),
            chains: 1,
            steps: 3000,
            ..InferenceSpec::default()
        };
        let fit = run(&Glm::new(Family::Linear, 4), &data, &spec, None).unwrap();
        for (a, b) in fit.params.iter().zip(&want) {
            assert!((a - b).abs() < 1e-8, "{metric:?}: {:?} vs {want:?}", fit.params);
        }
        assert_eq!(fit.params.iter().filter(|v| **v == 0.0).count(), want.iter().filter(|v| **v == 0.0).count());
    }
}

/// Thm. 3.1 in practice: on the paper's logistic setting (n = 25, eta = 0.2) MasGrad with the
/// population V and its diffusion have close marginals (KS distance of 100 chains, every step and
/// coordinate, well below SGD's distance to them).
#[test]
fn masgrad_and_its_diffusion_are_close_in_distribution() {
    let (p, n) = (4, 500);
    let mut rng = rng_from_seed(21);
    let w: Vec<f64> = (0..p).map(|j| 1.0 + j as f64 / 3.0).collect();
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..p).map(|_| StandardNormal.sample(&mut rng)).collect();
        let t: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
        let u: f64 = rand::RngExt::random(&mut rng);
        y.push(if u < 1.0 / (1.0 + (-t).exp()) { 1.0 } else { 0.0 });
        x.extend(row);
    }
    let data = Data::new(x, p, y).unwrap();
    let model = Glm::new(Family::Logistic, p);
    let base = InferenceSpec {
        batch_size: Some(25),
        step: Some(0.2),
        chains: 100,
        steps: 60,
        seed: 4,
        moments: Some(Moments::Population),
        ..InferenceSpec::default()
    };
    let mas = run(&model, &data, &InferenceSpec { method: Method::Masgrad, ..base.clone() }, None).unwrap();
    let diff = run(&model, &data, &InferenceSpec { method: Method::DiffMasgrad, seed: 5, ..base.clone() }, None).unwrap();
    let sgd = run(&model, &data, &InferenceSpec { method: Method::Sgd, seed: 6, ..base }, None).unwrap();
    let close = ks_by_step(&mas.trajectories, &diff.trajectories);
    let far = ks_by_step(&mas.trajectories, &sgd.trajectories);
    let mean = |v: &[f64]| v[p..].iter().sum::<f64>() / (v.len() - p) as f64;
    assert!(mean(&close) < 0.2 && mean(&far) > 0.5, "MasGrad vs diffusion {}, vs SGD {}", mean(&close), mean(&far));
}

/// Same seed, same chains, with one thread or two.
#[test]
fn results_do_not_depend_on_the_thread_count() {
    let data = linear_data(200, &[1.0, 3.0], &[0.5, 1.0], 1.0, 11);
    let model = Glm::new(Family::Linear, 2);
    for method in [Method::Masgrad, Method::MasgradRankOne, Method::DiffSgd, Method::RandomScaling] {
        let spec =
            InferenceSpec { method, chains: 16, steps: 30, batch_size: Some(10), step: Some(0.1), seed: 3, ..InferenceSpec::default() };
        let go = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| run(&model, &data, &spec, None).unwrap())
        };
        assert_eq!(go(1), go(2), "{method:?}");
    }
}

/// A run advanced in parts, saved and restored between them, equals the run in one go.
#[test]
fn a_resumed_run_equals_the_uninterrupted_one() {
    use gradfree_core::StateCheck;
    use gradfree_inference::Runner;
    let data = linear_data(150, &[1.0, 2.0, 0.5], &[0.5, 1.0, -1.0], 1.0, 13);
    let model = Glm::new(Family::Linear, 3);
    for method in [Method::Masgrad, Method::DiffMasgrad, Method::RandomScaling, Method::Madprox] {
        let spec =
            InferenceSpec { method, chains: 6, steps: 30, batch_size: Some(10), step: Some(0.05), seed: 8, ..InferenceSpec::default() };
        let whole = run(&model, &data, &spec, None).unwrap();
        let mut part = Runner::new(&model, &data, &spec).unwrap();
        part.advance(&model, &data, 12, None).unwrap();
        let saved = serde_json::to_string(&part).unwrap();
        let mut back: Runner = serde_json::from_str(&saved).unwrap();
        back.check_state().unwrap();
        back.check_against(&model, &data).unwrap();
        back.advance(&model, &data, 100, None).unwrap();
        assert_eq!(back.finish().unwrap(), whole, "{method:?}");
        assert!(part.finish().is_err(), "an unfinished run has no fit");
        assert!(back.check_against(&Glm::new(Family::Linear, 2), &data).is_err());
    }
}

/// Bad input is an error naming what is wrong.
#[test]
fn bad_input_is_named() {
    let model = Glm::new(Family::Logistic, 2);
    let data = Data::new(vec![0.1, 0.2, 0.3, 0.4], 2, vec![1.0, 0.0]).unwrap();
    let e = |spec: InferenceSpec, d: &Data| run(&model, d, &spec, None).unwrap_err().to_string();
    assert!(Data::new(vec![0.1, f64::NAN], 2, vec![]).unwrap_err().to_string().contains("row 0 column 1 is NaN"));
    assert!(Data::new(vec![], 2, vec![]).unwrap_err().to_string().contains("no rows"));
    let mas = InferenceSpec { method: Method::Masgrad, moments: Some(Moments::Batch), ..InferenceSpec::default() };
    let spec = InferenceSpec { batch_size: Some(5), sampling: Sampling::WithoutReplacement, ..mas.clone() };
    assert!(e(spec, &data).contains("`batch_size` = 5"));
    assert!(e(InferenceSpec { step: Some(f64::NAN), ..mas.clone() }, &data).contains("`step`"));
    assert!(e(InferenceSpec { batch_size: Some(1), ..mas.clone() }, &data).contains(">= 2 for masgrad"));
    // Maximum likelihood: a start is refused (it would be ignored), as are too few rows and models
    // without a likelihood of their own.
    let start = InferenceSpec { theta0: Some(vec![0.0, 0.0]), ..InferenceSpec::default() };
    assert!(e(start, &data).contains("`theta0`"));
    assert!(e(InferenceSpec::default(), &data).contains("more rows than the 2 parameters"));
    let mixture = gradfree_inference::GaussianMixture::new(2, 1.0).unwrap();
    let scalars = Data::new(vec![0.1, 0.2, 0.3], 1, vec![]).unwrap();
    let m = run(&mixture, &scalars, &InferenceSpec::default(), None).unwrap_err().to_string();
    assert!(m.contains("`method` = mle") && m.contains("random-scaling"), "{m}");
    let half = Data::new(vec![0.1, 0.2, 0.3, 0.4], 2, vec![1.0, 0.5]).unwrap();
    assert!(e(InferenceSpec::default(), &half).contains("response 1 is 0.5"));
    let poisson = Glm::new(Family::Poisson, 2);
    let neg = Data::new(vec![0.1, 0.2, 0.3, 0.4], 2, vec![1.0, -3.0]).unwrap();
    assert!(run(&poisson, &neg, &InferenceSpec::default(), None).unwrap_err().to_string().contains("counts >= 0"));
    assert!(Method::parse("newton").unwrap_err().to_string().contains("masgrad, masgrad-rank-one, sgd"));
    assert_eq!(model.dim(), 2);
}

/// Test inputs (not a data set): rows of the linear model `y = x^T theta + N(0, 1)`, `x ~ N(0, I)`,
/// made on demand in chunks of `chunk` rows, `rows` in all.
struct LinearStream {
    theta: Vec<f64>,
    rng: gradfree_core::GfRng,
    left: usize,
    chunk: usize,
}

impl gradfree_data::RowSource for LinearStream {
    fn dim(&self) -> usize {
        self.theta.len()
    }
    fn next_chunk(&mut self) -> Result<Option<gradfree_data::Chunk>, gradfree_data::DataError> {
        if self.left == 0 {
            return Ok(None);
        }
        let rows = self.chunk.min(self.left);
        self.left -= rows;
        let mut c = gradfree_data::Chunk::default();
        for _ in 0..rows {
            let x: Vec<f64> = self.theta.iter().map(|_| StandardNormal.sample(&mut self.rng)).collect();
            let e: f64 = StandardNormal.sample(&mut self.rng);
            c.y.push(x.iter().zip(&self.theta).map(|(a, b)| a * b).sum::<f64>() + e);
            c.x.extend(x);
        }
        Ok(Some(c))
    }
}

fn linear_stream(rows: usize, chunk: usize) -> LinearStream {
    LinearStream { theta: vec![0.5, -1.0], rng: rng_from_seed(21), left: rows, chunk }
}

/// A streamed run does not depend on how the rows are chunked or on the thread count; it keeps
/// at most `MAX_RECORDS` records; random scaling on fresh rows covers the truth at its level.
#[test]
fn streamed_runs_are_reproducible_flat_in_memory_and_cover() {
    use gradfree_inference::run_stream;
    use gradfree_inference::stream::MAX_RECORDS;
    let model = Glm::new(Family::Linear, 2);
    let spec = InferenceSpec {
        method: Method::Masgrad,
        moments: Some(Moments::Batch),
        chains: 8,
        batch_size: Some(5),
        step: Some(0.05),
        ..InferenceSpec::default()
    };
    let a = run_stream(&model, &mut linear_stream(8 * 5 * 300, 7), &spec, None, None).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = pool.install(|| run_stream(&model, &mut linear_stream(8 * 5 * 300, 1000), &spec, None, None).unwrap());
    assert_eq!(a, b);
    assert_eq!((a.spec.steps, a.streamed_rows), (300, Some(12_000)));
    assert!(a.params.iter().zip([0.5, -1.0]).all(|(e, t)| (e - t).abs() < 0.1), "{:?}", a.params);
    // Thinning: 3001 steps keep at most MAX_RECORDS records per chain, the last at step 3001.
    let long = run_stream(&model, &mut linear_stream(8 * 5 * 3001, 4096), &spec, None, None).unwrap();
    let tr = &long.trajectories;
    assert!(tr.steps < MAX_RECORDS && tr.every == 4, "{} records every {}", tr.steps + 1, tr.every);
    assert_eq!((tr.time(tr.steps), tr.time(1)), (3001, 4));
    assert_eq!(tr.at(3, tr.steps), long.trajectories.at(3, tr.steps));
    let capped = run_stream(&model, &mut linear_stream(8 * 5 * 3001, 4096), &spec, Some(100), None).unwrap();
    assert_eq!(capped.streamed_rows, Some(4000));
    // Random scaling, every chain on its own fresh rows: 200 independent intervals.
    let rs = InferenceSpec { method: Method::RandomScaling, chains: 200, batch_size: Some(1), step: Some(0.5), ..InferenceSpec::default() };
    let fit = run_stream(&model, &mut linear_stream(200 * 2000, 1 << 14), &rs, None, None).unwrap();
    let (lo, hi) = fit.chain_intervals(0.95).unwrap();
    let covered = (0..200).filter(|k| (0..2).all(|j| lo[k * 2 + j] <= [0.5, -1.0][j] && [0.5, -1.0][j] <= hi[k * 2 + j])).count();
    let rate = covered as f64 / 200.0;
    // Both coordinates at once: about 0.95^2 = 0.90 if they were independent.
    assert!((0.82..=0.97).contains(&rate), "joint coverage {rate}");
    // Errors: a stream too short for one step, a diffusion, population moments.
    let e = run_stream(&model, &mut linear_stream(30, 7), &spec, None, None).unwrap_err().to_string();
    assert!(e.contains("ended after 30 rows") && e.contains("8 x 5 = 40"), "{e}");
    let diff = InferenceSpec { method: Method::DiffSgd, ..spec.clone() };
    assert!(run_stream(&model, &mut linear_stream(100, 7), &diff, None, None).unwrap_err().to_string().contains("`method`"));
    let pop = InferenceSpec { moments: Some(Moments::Population), ..spec.clone() };
    assert!(run_stream(&model, &mut linear_stream(100, 7), &pop, None, None).unwrap_err().to_string().contains("`moments`"));
}

/// Chains split across workers (`first_chain`) and combined are the chains of one run.
#[test]
fn split_chains_combine_into_the_single_run() {
    use gradfree_inference::Fit;
    let data = linear_data(120, &[1.0, 2.0], &[0.5, -1.0], 1.0, 17);
    let model = Glm::new(Family::Linear, 2);
    for method in [Method::Masgrad, Method::RandomScaling, Method::DiffSgd] {
        let whole =
            InferenceSpec { method, chains: 8, steps: 25, batch_size: Some(10), step: Some(0.05), seed: 4, ..InferenceSpec::default() };
        let part =
            |first: u64, chains: usize| run(&model, &data, &InferenceSpec { first_chain: first, chains, ..whole.clone() }, None).unwrap();
        let combined = Fit::combine(&[part(0, 3), part(3, 5)]).unwrap();
        assert_eq!(combined, run(&model, &data, &whole, None).unwrap(), "{method:?}");
        assert!(Fit::combine(&[part(3, 5), part(0, 3)]).unwrap_err().to_string().contains("consecutive"));
    }
}
