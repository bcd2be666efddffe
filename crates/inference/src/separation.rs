//! Separation in logistic regression: when a direction `theta` puts every row on the side of its
//! label (`(2 y_i - 1) x_i^T theta >= 0` for all `i`), the likelihood has no maximum and grows
//! along `theta` forever (Albert & Anderson 1984): complete separation when every inequality is
//! strict, quasi-complete when some rows lie on the boundary. Chains then drift without end and
//! their intervals mean nothing. statsmodels warns `PerfectSeparationWarning: Perfect separation or
//! prediction detected, parameter may not be identified`; [`diagnose`] gives the same warning,
//! which the summary prints under the table and the front ends raise.
//!
//! How it is detected: the chains' estimate itself is a certificate of complete separation when it
//! classifies every row correctly; otherwise Newton's method on the log-likelihood (from the
//! origin, at most 50 steps, where `N p^2` is at most 10^8) follows the likelihood to where the MLE
//! would be: rows it predicts perfectly (`|mu_i - y_i| < 1e-8`, a linear predictor beyond ±18)
//! where doubling the iterate loses no likelihood (at a finite maximum of the strictly concave
//! likelihood it would) mark quasi-complete separation.

use crate::warning::{Warning, WarningKind};
use crate::{Data, Fit, Model};

/// statsmodels' wording.
pub const MESSAGE: &str = "Perfect separation or prediction detected, parameter may not be identified";

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Rows `theta` predicts perfectly (`|mu_i - y_i| < 1e-8`) and whether it classifies every row
/// correctly.
fn predicted(theta: &[f64], data: &Data) -> (usize, bool) {
    let (mut perfect, mut all) = (0, true);
    for i in 0..data.len() {
        let s = if data.response(i) == 1.0 { 1.0 } else { -1.0 };
        let t = s * dot(data.row(i), theta);
        all &= t > 0.0;
        perfect += usize::from(t > 18.42);
    }
    (perfect, all)
}

/// The negative log-likelihood of logistic regression at `w`.
fn loss(data: &Data, w: &[f64]) -> f64 {
    (0..data.len())
        .map(|i| {
            let t = dot(data.row(i), w);
            // log(1 + e^t) - y t, stably.
            t.max(0.0) + (-t.abs()).exp().ln_1p() - data.response(i) * t
        })
        .sum()
}

/// The logistic log-likelihood's gradient `g` at `w` and Newton's step `H^{-1} g`, with a ridge
/// of 1e-12 of the trace on `H`, which keeps the step defined when separation empties the
/// Hessian; `None` when the ridged system cannot be solved.
fn newton_step(data: &Data, w: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
    let p = data.dim();
    let (mut g, mut h) = (vec![0.0; p], vec![0.0; p * p]);
    for i in 0..data.len() {
        let x = data.row(i);
        let mu = 1.0 / (1.0 + (-dot(x, w)).exp());
        let (r, v) = (mu - data.response(i), mu * (1.0 - mu));
        for a in 0..p {
            g[a] += r * x[a];
            for b in 0..p {
                h[a * p + b] += v * x[a] * x[b];
            }
        }
    }
    let ridge = 1e-12 * (0..p).map(|a| h[a * p + a]).sum::<f64>().max(1e-300);
    (0..p).for_each(|a| h[a * p + a] += ridge);
    let mut step = g.clone();
    gradfree_core::linalg::solve_dense(&mut h, p, &mut step).then_some((g, step))
}

/// Newton's method on the logistic log-likelihood from the origin (step halving, at most 50
/// steps); the last iterate.
fn newton(data: &Data) -> Vec<f64> {
    let p = data.dim();
    let mut w = vec![0.0; p];
    let loss = |w: &[f64]| loss(data, w);
    let mut f = loss(&w);
    for _ in 0..50 {
        let Some((g, step)) = newton_step(data, &w) else {
            return w;
        };
        let decrement = dot(&g, &step);
        if decrement.is_nan() || decrement <= 1e-12 * f.max(1.0) {
            return w;
        }
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            let ft = loss(&trial);
            if ft < f {
                w = trial;
                f = ft;
                break;
            }
            t *= 0.5;
            if t < 1e-10 {
                return w;
            }
        }
    }
    w
}

/// The separation warning for a logistic `fit` on `data` (see the module documentation), added
/// to `fit.warnings`; other models are left alone. A maximum-likelihood fit is its own Newton
/// iterate ([`crate::mle`]); a chain fit is checked by a Newton run of its own.
pub fn diagnose(fit: &mut Fit, model: &dyn Model, data: &Data) {
    if !data.has_responses() || data.is_empty() || data.dim() != fit.params.len() {
        return;
    }
    // A maximum-likelihood fit refuses these data itself (`crate::mle`); chains run on them.
    if fit.glm.is_none()
        && let Some(w) = unidentified(fit, model, data)
    {
        fit.warnings.push(w);
        return;
    }
    if model.name() != "logistic" {
        return;
    }
    let (_, all) = predicted(&fit.params, data);
    let found = if all {
        Some(separated(format!("the estimate classifies all {} rows correctly (complete separation)", data.len())))
    } else if fit.glm.is_some() {
        verdict(data, &fit.params)
    } else if (data.len() as u128) * (data.dim() as u128).pow(2) <= 100_000_000 {
        verdict(data, &newton(data))
    } else {
        None
    };
    if let Some(w) = found {
        fit.warnings.push(w);
    }
}

/// The separation warning for a one-pass (streamed) logistic maximum-likelihood fit, which has no
/// second pass over the rows to check them: a log-likelihood within 1e-8 of 0 certifies that the
/// estimate predicts every row to within about 1e-8 (each row's term is at most the sum), which
/// only separated classes allow. Quasi-complete separation is not seen in one pass.
pub fn diagnose_streamed(fit: &mut Fit, model: &dyn Model) {
    let Some(glm) = fit.glm.as_ref() else { return };
    if model.name() == "logistic" && glm.llf.is_finite() && -glm.llf <= 1e-8 {
        fit.warnings.push(separated(format!(
            "the estimate predicts all {} rows perfectly (its log-likelihood is {:.1e}; complete separation)",
            glm.nobs, glm.llf
        )));
    }
}

/// The separation warning: [`MESSAGE`], then `detail` (statsmodels' `PerfectSeparationWarning`).
fn separated(detail: String) -> Warning {
    Warning::new(WarningKind::PerfectSeparation, format!("{MESSAGE}: {detail}"))
}

/// The warning for a chain fit of a GLM whose likelihood has no unique maximum, so the chains
/// drift and their intervals mean nothing: fewer rows than parameters (the likelihood is flat
/// along the null space of the design), or Poisson counts that are all 0, where the likelihood
/// grows as every `x_i^T theta` goes to -infinity whenever some direction makes all of them
/// negative: a constant column (an intercept) is one, and an estimate with every `x_i^T theta < 0`
/// certifies one (doubling it gains likelihood).
fn unidentified(fit: &Fit, model: &dyn Model, data: &Data) -> Option<Warning> {
    let (n, p) = (data.len(), data.dim());
    if !matches!(model.name(), "logistic" | "poisson" | "linear") {
        return None;
    }
    if n < p {
        return Some(Warning::new(
            WarningKind::Other,
            format!(
                "The parameters are not identified: fewer rows ({n}) than parameters ({p}), so the likelihood is flat along {} or more directions and the chains' intervals mean nothing",
                p - n
            ),
        ));
    }
    if model.name() != "poisson" || (0..n).any(|i| data.response(i) != 0.0) {
        return None;
    }
    let constant = data.constant_columns().next().is_some();
    let certified = (0..n).all(|i| dot(data.row(i), &fit.params) < 0.0);
    (constant || certified).then(|| {
        separated(
            "every count is 0, so the Poisson likelihood has no maximum (it grows as the fitted means exp(x^T theta) go to 0 and the coefficients to -infinity) and the chains' intervals mean nothing"
                .to_string(),
        )
    })
}

/// The warning for `w`, the end of Newton's method on the likelihood: rows it predicts perfectly
/// where doubling `w` loses no likelihood (at a finite maximum of the strictly concave likelihood
/// it would).
fn verdict(data: &Data, w: &[f64]) -> Option<Warning> {
    let (perfect, all) = predicted(w, data);
    if perfect == 0 {
        return None;
    }
    let twice: Vec<f64> = w.iter().map(|v| 2.0 * v).collect();
    let (base, tol) = (loss(data, w), 1e-9 * loss(data, w).abs().max(1.0));
    // Doubling `w` also doubles its bounded part (an intercept fitting the boundary rows' mix),
    // which loses likelihood there: Newton's direction at `w`, which points along the recession
    // direction alone, is the certificate then.
    let unbounded = loss(data, &twice) <= base + tol || recession(data, w).is_some_and(|u| loss(data, &u) <= base + tol);
    unbounded.then(|| {
        let kind = if all { "complete" } else { "quasi-complete" };
        separated(format!(
            "{perfect} of {} rows are predicted perfectly where the likelihood has no maximum ({kind} separation)",
            data.len()
        ))
    })
}

/// The direction in which the logistic likelihood of `data` keeps growing from `w` when `w`
/// certifies (quasi-)complete separation as [`diagnose`] finds it (rows predicted perfectly,
/// and doubling `w` or moving along Newton's direction loses no likelihood); `None` otherwise. A
/// streamed fit checks it on the first block, held in memory, and carries it over the later
/// blocks ([`crate::cuee`]).
pub(crate) fn growth_direction(data: &Data, w: &[f64]) -> Option<Vec<f64>> {
    let (perfect, _) = predicted(w, data);
    if perfect == 0 {
        return None;
    }
    let (base, tol) = (loss(data, w), 1e-9 * loss(data, w).abs().max(1.0));
    if loss(data, &w.iter().map(|v| 2.0 * v).collect::<Vec<f64>>()) <= base + tol {
        return Some(w.to_vec());
    }
    let u = recession(data, w)?;
    (loss(data, &u) <= base + tol).then(|| u.iter().zip(w).map(|(a, b)| a - b).collect())
}

/// The separation warning for a streamed fit whose every block loses no likelihood along the
/// first block's growth direction ([`growth_direction`]), `perfect` of `rows` rows predicted
/// perfectly at their block's expansion point.
pub(crate) fn streamed_quasi(perfect: u64, rows: u64) -> Warning {
    separated(format!(
        "{perfect} of {rows} rows are predicted perfectly where the likelihood has no maximum (quasi-complete separation: no block of the stream loses likelihood along the first block's direction of growth)"
    ))
}

/// `w` moved along Newton's direction at `w` (its Hessian ridged by 1e-12 of its trace) until some
/// row's linear predictor moves by 4: at a quasi-complete separation Newton's method stops at, the
/// direction in which the likelihood keeps growing (its curvature is the smallest there); `None`
/// when the step is 0 or undefined.
fn recession(data: &Data, w: &[f64]) -> Option<Vec<f64>> {
    let (_, step) = newton_step(data, w)?;
    let reach = (0..data.len()).map(|i| dot(data.row(i), &step).abs()).fold(0.0f64, f64::max);
    (reach > 0.0 && reach.is_finite()).then(|| w.iter().zip(&step).map(|(a, s)| a - 4.0 * s / reach).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Family, Glm, InferenceSpec, run};

    fn fit_on(x: Vec<f64>, y: Vec<f64>) -> Fit {
        let data = Data::new(x, 2, y).unwrap();
        let model = Glm::new(Family::Logistic, 2);
        let spec = InferenceSpec { method: crate::Method::Sgd, chains: 4, steps: 200, batch_size: Some(5), ..InferenceSpec::default() };
        let mut fit = run(&model, &data, &spec, None).unwrap();
        diagnose(&mut fit, &model, &data);
        fit
    }

    /// A chain fit of `family` on rows `[1, x, x^2]`.
    fn chain_fit(family: Family, x: &[f64], y: Vec<f64>) -> Fit {
        let data = Data::new(x.iter().flat_map(|&v| [1.0, v, v * v]).collect(), 3, y).unwrap();
        let model = Glm::new(family, 3);
        let spec = InferenceSpec { method: crate::Method::Sgd, chains: 4, steps: 50, batch_size: Some(1), ..InferenceSpec::default() };
        let mut fit = run(&model, &data, &spec, None).unwrap();
        diagnose(&mut fit, &model, &data);
        fit
    }

    #[test]
    fn a_streamed_fit_of_separated_classes_is_flagged() {
        // y = 1 exactly when x > 0 (complete separation), and labels with overlap, in one pass.
        let xs: Vec<f64> = (0..600).map(|i| (i as f64 - 299.5) / 100.0).collect();
        let streamed = |y: Vec<f64>| {
            let data = Data::new(xs.iter().flat_map(|&v| [1.0, v]).collect(), 2, y).unwrap();
            let list = data
                .rows()
                .chunks(100 * 2)
                .zip(data.responses().chunks(100))
                .map(|(x, y)| gradfree_data::Chunk { x: x.to_vec(), y: y.to_vec() })
                .collect();
            let mut source = gradfree_data::ChunkList::new(2, list);
            let spec = InferenceSpec { method: crate::Method::Mle, ..InferenceSpec::default() };
            crate::run_stream(&Glm::new(Family::Logistic, 2), &mut source, &spec, None, None)
        };
        let fit = streamed(xs.iter().map(|&v| f64::from(u8::from(v > 0.0))).collect()).unwrap();
        assert!(fit.warnings.iter().any(|w| w.starts_with(MESSAGE) && w.contains("all 600 rows")), "{:?}", fit.warnings);
        let fit = streamed((0..600).map(|i| f64::from(u8::from((i * 7 % 5) < 2))).collect()).unwrap();
        assert!(!fit.warnings.iter().any(|w| w.starts_with(MESSAGE)), "{:?}", fit.warnings);
    }

    #[test]
    fn zero_counts_and_too_few_rows_are_flagged_for_chains() {
        let xs: Vec<f64> = (0..20).map(|i| i as f64 / 20.0).collect();
        let zero = chain_fit(Family::Poisson, &xs, vec![0.0; 20]);
        assert!(zero.warnings.iter().any(|w| w.starts_with(MESSAGE) && w.contains("every count is 0")), "{:?}", zero.warnings);
        let counts = chain_fit(Family::Poisson, &xs, (0..20).map(|i| f64::from(i % 3)).collect());
        assert!(counts.warnings.is_empty(), "{:?}", counts.warnings);
        let two = chain_fit(Family::Linear, &[0.5, 0.25], vec![2.0, 1.0]);
        assert!(two.warnings.iter().any(|w| w.contains("fewer rows (2) than parameters (3)")), "{:?}", two.warnings);
        // Each warning carries its kind: separation for the zero counts, not identified otherwise.
        assert!(
            zero.warnings.iter().any(|w| w.contains("every count is 0") && w.kind == WarningKind::PerfectSeparation),
            "{:?}",
            zero.warnings
        );
        assert!(two.warnings.iter().any(|w| w.contains("fewer rows") && w.kind == WarningKind::Other), "{:?}", two.warnings);
    }

    #[test]
    fn separated_classes_are_flagged_and_overlapping_ones_are_not() {
        // Intercept and one feature; complete: y = 1 exactly when x > 0.
        let xs: Vec<f64> = (0..40).map(|i| (i as f64 - 19.5) / 10.0).collect();
        let x: Vec<f64> = xs.iter().flat_map(|&v| [1.0, v]).collect();
        let complete = fit_on(x.clone(), xs.iter().map(|&v| f64::from(u8::from(v > 0.0))).collect());
        assert!(complete.warnings.iter().any(|w| w.starts_with(MESSAGE) && w.contains("complete")), "{:?}", complete.warnings);
        // Quasi-complete: x > 0 are all 1, x < 0 all 0, and ten rows at x = 0 with both labels.
        let mut xq = xs.clone();
        xq.extend([0.0; 10]);
        let yq: Vec<f64> = xq.iter().enumerate().map(|(i, &v)| f64::from(u8::from(v > 0.0 || (v == 0.0 && i % 2 == 0)))).collect();
        let q = fit_on(xq.iter().flat_map(|&v| [1.0, v]).collect(), yq);
        assert!(q.warnings.iter().any(|w| w.contains("quasi-complete")), "{:?}", q.warnings);
        // Quasi-complete with 3 of 10 boundary rows 1: the intercept is logit(0.3), not 0, so
        // doubling the estimate loses likelihood on the boundary rows.
        let xs: Vec<f64> = (-20..=20).map(f64::from).chain([0.0; 9]).collect();
        let yq: Vec<f64> =
            xs.iter().enumerate().map(|(i, &v)| f64::from(u8::from(v > 0.0 || (v == 0.0 && i % 10 < 3 && i > 20)))).collect();
        let data = Data::new(xs.iter().flat_map(|&v| [1.0, v]).collect(), 2, yq).unwrap();
        let mut fit = crate::mle::run_mle(&Glm::new(Family::Logistic, 2), &data, &InferenceSpec::default()).unwrap();
        fit.warnings.retain(|w| !w.starts_with(MESSAGE));
        diagnose(&mut fit, &Glm::new(Family::Logistic, 2), &data);
        assert!(fit.warnings.iter().any(|w| w.contains("quasi-complete")), "{:?} {:?}", fit.warnings, fit.params);
        // Overlap: labels alternate with no pattern a line could follow.
        let mixed: Vec<f64> = (0..40).map(|i| f64::from(u8::from((i * 7 % 5) < 2))).collect();
        let fit = fit_on(x, mixed);
        assert!(!fit.warnings.iter().any(|w| w.starts_with(MESSAGE)), "{:?}", fit.warnings);
    }
}
