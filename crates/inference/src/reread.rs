//! Maximum likelihood of a GLM over rows that stream but can be read again: Newton's method with
//! step halving on the exact log-likelihood (the iteration of [`crate::mle`]), each step one pass
//! that sums the exact score and Hessian of every row at the current estimate (McCullagh & Nelder,
//! "Generalized Linear Models", 2nd ed. 1989, sec. 2.5: the Fisher scoring of a canonical link is
//! Newton's method). It starts from the one-pass estimate ([`crate::cuee`]) or the origin,
//! whichever has the larger likelihood, so it reaches the full-data MLE whatever the rows' order,
//! with the memory of one chunk and `p x p` sums.

use gradfree_data::RowSource;

use crate::mle::{CovType, GlmFit, GlmSums, log_likelihood, poisson_log_likelihood, spd_solve, wald_cov};
use crate::model::Family;
use crate::{Glm, InferenceError};

/// A source that can be read again from its first row: every call gives a fresh pass.
pub type Reread<'a> = dyn FnMut() -> Result<Box<dyn RowSource + 'a>, InferenceError> + 'a;

/// The most passes Newton's method runs (halvings included).
pub const MAX_PASSES: usize = 60;

/// Newton's decrement `g^T H^{-1} g` at which the fit has converged (as in memory).
const TOL: f64 = 1e-12;

/// The relative rounding of a sum's terms (as in memory).
const ROUNDING: f64 = 16.0 * f64::EPSILON;

/// One pass's sums at one point, with the Poisson log-likelihood (its `ln y!` included).
struct PassSums {
    sums: GlmSums,
    poisson_llf: f64,
}

/// The sums of every row of one pass over `source` at each of `points`; the rows must be `nobs`.
fn pass(
    model: &Glm,
    source: &mut dyn RowSource,
    points: &[Vec<f64>],
    outer: bool,
    nobs: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<Vec<PassSums>, InferenceError> {
    let p = model.p;
    let mut out: Vec<Option<PassSums>> = points.iter().map(|_| None).collect();
    let mut rows = 0u64;
    while let Some(chunk) = source.next_chunk()? {
        if chunk.y.len() * p != chunk.x.len() {
            return Err(InferenceError::BadData(format!(
                "a chunk read again has {} values for {} responses ({p} features a row)",
                chunk.x.len(),
                chunk.y.len()
            )));
        }
        if chunk.y.is_empty() {
            continue;
        }
        rows += chunk.y.len() as u64;
        for (w, acc) in points.iter().zip(out.iter_mut()) {
            let s = GlmSums::over(model, w, &chunk.x, &chunk.y, outer);
            let llf = if model.family == Family::Poisson { poisson_log_likelihood(model, w, &chunk.x, &chunk.y) } else { 0.0 };
            match acc {
                None => *acc = Some(PassSums { sums: s, poisson_llf: llf }),
                Some(a) => {
                    a.sums.add(&s);
                    a.poisson_llf += llf;
                }
            }
        }
        if let Some(f) = progress {
            f(chunk.y.len() as u64);
        }
    }
    if rows != nobs {
        return Err(InferenceError::BadData(format!(
            "the source gave {nobs} rows on its first pass and {rows} when read again: it must give the same rows every time it is read"
        )));
    }
    Ok(out.into_iter().map(|s| s.expect("at least one row")).collect())
}

/// Newton's method over passes of `reread` from `start` (see the module documentation) for the
/// `nobs` rows of a one-pass fit, with covariance `cov`; the fit and the passes it read. Its
/// `iterations` are the Newton steps taken; `converged` is `false` when it stopped at
/// [`MAX_PASSES`] or no step along Newton's direction decreased the loss.
pub fn newton_passes(
    model: &Glm,
    reread: &mut Reread<'_>,
    start: &[f64],
    cov: CovType,
    nobs: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<(GlmFit, usize), InferenceError> {
    let p = model.p;
    let hc0 = cov == CovType::Hc0;
    let mut read = |points: &[Vec<f64>]| -> Result<Vec<PassSums>, InferenceError> {
        let mut source = reread()?;
        pass(model, source.as_mut(), points, hc0, nobs, progress)
    };
    let finite_start = start.iter().all(|v| v.is_finite());
    let origin = vec![0.0; p];
    let points = if finite_start { vec![start.to_vec(), origin.clone()] } else { vec![origin.clone()] };
    let mut first = read(&points)?;
    let mut passes = 1;
    let pick =
        first.iter().enumerate().filter(|(_, s)| s.sums.finite()).min_by(|a, b| a.1.sums.loss.total_cmp(&b.1.sums.loss)).map(|(i, _)| i);
    let Some(pick) = pick else {
        return Err(InferenceError::BadData("the likelihood's sums overflow at the one-pass estimate and at the origin".into()));
    };
    let mut w = points[pick].clone();
    let mut cur = first.swap_remove(pick);
    let mut steps = 0;
    let converged = loop {
        let s = &cur.sums;
        let Some(step) = spd_solve(&s.hess, p, &s.grad, 1) else {
            return Err(InferenceError::SingularCovariance(
                "the GLM's Hessian summed over the stream is singular (collinear features, or separable data)".into(),
            ));
        };
        let decrement: f64 = s.grad.iter().zip(&step).map(|(a, b)| a * b).sum();
        let floor = spd_solve(&s.hess, p, &s.grad_abs, 1)
            .map(|a| ROUNDING * ROUNDING * s.grad_abs.iter().zip(&a).map(|(u, v)| u * v).sum::<f64>())
            .unwrap_or(f64::INFINITY);
        if !decrement.is_finite() {
            return Err(InferenceError::BadData("the likelihood's sums overflow along Newton's passes".into()));
        }
        if decrement <= TOL.max(floor) {
            break true;
        }
        let noise = ROUNDING * s.loss_abs;
        let verifiable = 0.5 * decrement > noise;
        let mut t = 1.0;
        let mut moved = false;
        while passes < MAX_PASSES {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            if trial == w {
                break;
            }
            let next = read(std::slice::from_ref(&trial))?.pop().expect("one point");
            passes += 1;
            if next.sums.finite() && (next.sums.loss < cur.sums.loss || (!verifiable && next.sums.loss <= cur.sums.loss + noise)) {
                (w, cur, moved) = (trial, next, true);
                break;
            }
            t *= 0.5;
        }
        steps += 1;
        if !moved {
            break !verifiable;
        }
        if !verifiable {
            break true;
        }
        if passes >= MAX_PASSES {
            break false;
        }
    };
    let s = &cur.sums;
    let llf = match model.family {
        Family::Poisson => cur.poisson_llf,
        family => log_likelihood(family, s.loss, nobs, 0.0),
    };
    let scale = if model.family == Family::Linear { 2.0 * s.loss / (nobs.saturating_sub(p as u64).max(1)) as f64 } else { 1.0 };
    let cov = wald_cov(&s.hess, p, scale, s.outer.as_deref())?;
    let fit = GlmFit { cov, params: w, iterations: steps, scale, nobs, llf, converged, exact: false };
    crate::mle::check_representable(&fit)?;
    Ok((fit, passes))
}

#[cfg(test)]
mod tests {
    use crate::mle::fit_glm;
    use crate::simulate::{Design, simulate};
    use crate::{Data, Family, Glm, InferenceError, InferenceSpec, run_stream_mle};

    fn sorted_chunks(data: &Data, by_response: bool) -> gradfree_data::ChunkList {
        let mut order: Vec<usize> = (0..data.len()).collect();
        if by_response {
            order.sort_by(|&a, &b| data.response(a).total_cmp(&data.response(b)));
        } else {
            order.sort_by(|&a, &b| data.row(a)[1].total_cmp(&data.row(b)[1]));
        }
        crate::order::stream_tests::chunks(data, &order, 777)
    }

    /// Rows sorted by the response (or by a covariate), read again: the in-memory MLE to 1e-8
    /// relative, converged; read once, the fit is marked instead.
    #[test]
    fn passes_over_sorted_rows_reach_the_mle() {
        let model = Glm::new(Family::Logistic, 8);
        // Rare events (about 7% positives) with an intercept.
        let (sim, _) = simulate(Design::Toeplitz, 7, Family::Logistic, 20_000, 11).unwrap();
        let x: Vec<f64> = (0..sim.len()).flat_map(|i| std::iter::once(1.0).chain(sim.row(i).iter().copied())).collect();
        let y: Vec<f64> = (0..sim.len())
            .map(|i| {
                let t = -3.0 + 0.4 * sim.row(i)[0] - 0.3 * sim.row(i)[3];
                f64::from(u8::from(((i * 7919 % 10007) as f64 / 10007.0) < 1.0 / (1.0 + (-t).exp())))
            })
            .collect();
        let data = Data::new(x, 8, y).unwrap();
        let mle = fit_glm(&model, &data).unwrap();
        let spec = InferenceSpec::default();
        for (by_response, refit) in [(true, None), (false, Some(true))] {
            let chunks = sorted_chunks(&data, by_response);
            let mut again = || -> Result<Box<dyn gradfree_data::RowSource>, InferenceError> { Ok(Box::new(chunks.clone())) };
            let fit = run_stream_mle(&model, &mut chunks.clone(), &spec, None, Some(&mut again), refit).unwrap();
            let g = fit.glm.as_ref().unwrap();
            assert!(g.converged && !g.one_pass && fit.streamed_rows == Some(20_000), "{g:?}");
            for (a, b) in fit.params.iter().zip(&mle.params) {
                assert!((a - b).abs() <= 1e-8 * b.abs().max(1e-2), "{a} vs {b}");
            }
            assert!((g.llf - mle.llf).abs() < 1e-8 * mle.llf.abs(), "{} vs {}", g.llf, mle.llf);
            assert!(fit.sd.iter().zip(mle.bse()).all(|(a, b)| (a / b - 1.0).abs() < 1e-6));
            let order = fit.order.as_ref().unwrap();
            assert!(order.passes >= 2 && (!by_response || order.order_effect), "{order:?}");
        }
        let once = run_stream_mle(&model, &mut sorted_chunks(&data, true), &spec, None, None, None).unwrap();
        let g = once.glm.as_ref().unwrap();
        assert!(!g.converged && g.llf.is_nan() && once.warnings.iter().any(|w| w.contains("Zeileis")), "{:?}", once.warnings);
        assert!(!once.warnings.iter().any(|w| w.starts_with(crate::separation::MESSAGE)), "{:?}", once.warnings);
        let text = crate::summary::summary(&once, &[], "y", 0.95).as_text();
        assert!(!text.contains("small fraction of a standard error") && text.contains("not the MLE"), "{text}");
        let e = run_stream_mle(&model, &mut sorted_chunks(&data, true), &spec, None, None, Some(true)).unwrap_err();
        assert!(e.to_string().contains("refit"), "{e}");
    }
}
