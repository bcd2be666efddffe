//! The reproductions of a hostile pass over degenerate and extreme fits, kept as regression
//! tests: an exact linear fit (it panicked inside statrs), a mixture on constant data (random
//! scaling's p-value looped forever), Poisson counts of 1e15 (0 Newton steps, a zero slope and
//! "converged") and of 1e300 (blamed on separated classes), each against the honest answer:
//! statsmodels' for the exact fit and the large counts, the closed form where there is one.

use gradfree_inference::{Data, Family, GaussianMixture, Glm, InferenceSpec, Method, run, run_stream};

/// `n` rows of an intercept and `x_i = i / n` with responses `f(x_i)`.
fn line(n: usize, f: impl Fn(f64) -> f64) -> Data {
    let xs: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    Data::new(xs.iter().flat_map(|&x| [1.0, x]).collect(), 2, xs.iter().map(|&x| f(x)).collect()).unwrap()
}

fn mle() -> InferenceSpec {
    InferenceSpec::default()
}

/// statsmodels' `OLS` on a constant or all-zero response with an intercept: params exact, `bse`
/// 0, `tvalues` and `pvalues` NaN, `conf_int` the point, `llf` inf. Here the same, with a warning
/// naming the exact fit, in memory and streamed (one pass), nonrobust and HC0.
#[test]
fn an_exact_linear_fit_has_zero_standard_errors_and_undefined_statistics() {
    for (c, slope) in [(0.0, 0.0), (3.0, 0.0), (-2.5e-7, 4.0), (1e12, -1.0)] {
        let data = line(20, |x| c + slope * x);
        for cov_type in [gradfree_inference::mle::CovType::Nonrobust, gradfree_inference::mle::CovType::Hc0] {
            let spec = InferenceSpec { cov_type, ..mle() };
            let model = Glm::new(Family::Linear, 2);
            let mut source =
                gradfree_data::ChunkList::new(2, vec![gradfree_data::Chunk { x: data.rows().to_vec(), y: data.responses().to_vec() }]);
            let streamed = run_stream(&model, &mut source, &spec, None, None).unwrap();
            for fit in [run(&model, &data, &spec, None).unwrap(), streamed] {
                let scale = c.abs() + slope.abs();
                assert!(
                    (fit.params[0] - c).abs() <= 1e-12 * scale && (fit.params[1] - slope).abs() <= 1e-12 * scale.max(1.0),
                    "{:?}",
                    fit.params
                );
                assert_eq!(
                    fit.bse().unwrap(),
                    &[0.0, 0.0],
                    "c = {c}, slope = {slope}, {cov_type:?}, one pass {}",
                    fit.streamed_rows.is_some()
                );
                assert!(fit.tvalues().unwrap().iter().chain(&fit.pvalues().unwrap()).all(|v| v.is_nan()));
                let (lo, hi) = fit.conf_int(0.95).unwrap();
                assert_eq!((&lo, &hi), (&fit.params, &fit.params));
                let g = fit.glm.as_ref().unwrap();
                assert!(g.exact_fit && g.scale == 0.0 && g.llf == f64::INFINITY);
                assert!(fit.warnings.iter().any(|w| w.contains("residuals are all zero") && w.contains("exact fit")), "{:?}", fit.warnings);
                let text = gradfree_inference::summary::summary(&fit, &[], "y", 0.95).as_text();
                assert!(text.contains("nan") && text.contains("exact fit"), "{text}");
                // JSON writes the undefined values as null.
                let json = serde_json::to_string(&fit.tvalues().unwrap()).unwrap();
                assert_eq!(json, "[null,null]");
            }
        }
    }
    // Residuals of 1e-6 on a response of 1: an ordinary fit, with its t statistics.
    let noisy = line(20, |x| 1.0 + 1e-6 * (x * 37.0).sin());
    let fit = run(&Glm::new(Family::Linear, 2), &noisy, &mle(), None).unwrap();
    assert!(!fit.glm.as_ref().unwrap().exact_fit && fit.warnings.is_empty());
    assert!(fit.tvalues().unwrap().iter().chain(&fit.pvalues().unwrap()).all(|v| v.is_finite()));
}

/// A mixture of several components on data that take one value is not identified: refused, naming
/// it; one component on it, or the rows streamed (where no block sees all the data), give random
/// scaling's scale 0, its t and p undefined with a warning, at once.
#[test]
fn a_mixture_on_constant_data_is_refused_or_warned_about() {
    let flat = Data::new(vec![2.5; 30], 1, vec![]).unwrap();
    let rs = InferenceSpec { method: Method::RandomScaling, chains: 4, steps: 50, batch_size: Some(5), ..InferenceSpec::default() };
    for method in [Method::RandomScaling, Method::Sgd, Method::Masgrad] {
        let spec = InferenceSpec { method, ..rs.clone() };
        let e = run(&GaussianMixture::new(3, 1.0).unwrap(), &flat, &spec, None).unwrap_err().to_string();
        assert!(e.contains("take one value (2.5)") && e.contains("not identified"), "{e}");
    }
    let started = std::time::Instant::now();
    let fit = run(&GaussianMixture::new(1, 1.0).unwrap(), &flat, &rs, None).unwrap();
    let mut source = gradfree_data::ChunkList::new(1, vec![gradfree_data::Chunk { x: vec![2.5; 400], y: vec![] }]);
    let streamed = run_stream(
        &GaussianMixture::new(3, 1.0).unwrap(),
        &mut source,
        &InferenceSpec { batch_size: Some(1), ..rs.clone() },
        Some(50),
        None,
    )
    .unwrap();
    for fit in [fit, streamed] {
        assert!(fit.params.iter().all(|&m| m == 2.5), "{:?}", fit.params);
        assert!(fit.bse().unwrap().iter().all(|&s| s == 0.0));
        assert!(fit.tvalues().unwrap().iter().chain(&fit.pvalues().unwrap()).all(|v| v.is_nan()));
        assert!(fit.warnings.iter().any(|w| w.contains("standard error is 0")), "{:?}", fit.warnings);
    }
    assert!(started.elapsed().as_secs_f64() < 10.0, "{:?}", started.elapsed());
}

/// Counts of order 1e15 from `mu = 2e15 e^x` (truncated to integers): the slope is 1 and the
/// intercept `ln 2e15` to well within their standard errors (statsmodels' `GLM(Poisson)` gives
/// 35.23192358 and 1.0, after 100 iterations without converging; its log-likelihood, -504.0, has
/// lost its digits to cancellation: at its estimate the sum is -563.29700962822 in 60-digit
/// arithmetic).
#[test]
fn counts_of_1e15_are_fitted() {
    let data = line(30, |x| (2e15 * x.exp()).trunc());
    let fit = run(&Glm::new(Family::Poisson, 2), &data, &mle(), None).unwrap();
    let g = fit.glm.as_ref().unwrap();
    assert!(g.converged && g.iterations >= 1 && fit.warnings.is_empty(), "{g:?} {:?}", fit.warnings);
    let se = fit.bse().unwrap();
    assert!((fit.params[0] - 2e15f64.ln()).abs() < 0.1 * se[0] && (fit.params[1] - 1.0).abs() < 0.1 * se[1], "{:?} {se:?}", fit.params);
    assert!((fit.params[0] - 35.23192358).abs() < 1e-8 && se[0] > 5e-9 && se[0] < 1e-8);
    assert!((g.llf + 563.297_009_628_2).abs() < 1e-6, "{}", g.llf);
    // The same shape at counts of 1e250 (beyond statsmodels, whose weights overflow).
    let huge = line(30, |x| 2e250 * x.exp());
    let fit = run(&Glm::new(Family::Poisson, 2), &huge, &mle(), None).unwrap();
    assert!((fit.params[0] - 2e250f64.ln()).abs() < 1e-9 && (fit.params[1] - 1.0).abs() < 1e-9, "{:?}", fit.params);
    assert!(fit.glm.as_ref().unwrap().converged && fit.glm.as_ref().unwrap().llf.is_finite());
}

/// Counts near 1e300: refused, naming the count and the log link's overflow, never separation;
/// every count 0: refused, naming it (the likelihood has no maximum).
#[test]
fn counts_beyond_the_log_link_and_all_zero_counts_are_refused() {
    let data = line(30, |x| 1e300 * x.exp() / 3.0);
    let model = Glm::new(Family::Poisson, 2);
    let e = run(&model, &data, &mle(), None).unwrap_err().to_string();
    assert!(e.contains("count 8.76") && e.contains("log link") && e.contains("overflow") && !e.contains("separat"), "{e}");
    let mut source = gradfree_data::ChunkList::new(2, vec![gradfree_data::Chunk { x: data.rows().to_vec(), y: data.responses().to_vec() }]);
    let e = run_stream(&model, &mut source, &mle(), None, None).unwrap_err().to_string();
    assert!(e.contains("log link") && !e.contains("separat"), "{e}");
    let zeros = line(30, |_| 0.0);
    let e = run(&model, &zeros, &mle(), None).unwrap_err().to_string();
    assert!(e.contains("every count is 0") && e.contains("no maximum") && !e.contains("separat"), "{e}");
}

/// The linear model's response beyond what its squares can hold: refused, naming the value.
#[test]
fn linear_responses_beyond_their_squares_are_refused() {
    for (c, want) in [(1e300, "beyond what double precision can square"), (1e-300, "underflow")] {
        let e = run(&Glm::new(Family::Linear, 2), &line(20, |x| c * (1.0 + x * x)), &mle(), None).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("response"), "{e}");
    }
}
