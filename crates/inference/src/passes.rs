//! Random scaling's passes over data in memory and its diagnostics (Lee, Liao, Seo & Shin, AAAI
//! 2022; Polyak & Juditsky 1992 for the averaging).
//!
//! A run of `passes` passes: each pass takes the rows in a fresh random order, `batch_size` at a
//! time (`ceil(N / n)` steps, every row once), runs SGD with steps `eta_0 t^{-decay}` from the
//! average of the pass before (the first from the start) and keeps the running average and random
//! scaling's sums of the pass. Lee et al. run one pass; the earlier passes only move the start to
//! the estimate, so the last pass's average carries no start-up bias ([`pool`] measures what it
//! still carries). Without a named step, the first pass steps with `eta_0 = 1 / lambda_max`,
//! `lambda_max` the largest curvature of the mean loss at the start (its Hessian `H` by central
//! differences of the mean gradient over at most [`CURVATURE_ROWS`] rows spread over the data),
//! and every later pass with the gain `H^{-1}` at its start where `H` is convex.
//! Chains are independent runs, each with its own orders.
//!
//! The average settles at the rate its slowest direction relaxes: the pass moves that direction
//! by `R = lambda_min sum_t eta_0 t^{-decay}` of its time constants. Random scaling reads the
//! variance off the path of averages, which is too short to show it when `R` is small: then the
//! interval is too narrow ([`crate::Fit`] warns below [`MIN_RELAXATIONS`]).

use gradfree_core::linalg::{EigenWork, sym_eigen};
use gradfree_core::{derive_seed, rng_from_seed};
use rand::RngExt;

use crate::process::{ChainState, ChainWork, Context};
use crate::{Data, InferenceError, model::Model};

/// Rows the curvature is read from, at most (evenly spaced over the data).
pub const CURVATURE_ROWS: usize = 2000;

/// The relaxations of the slowest direction in the last pass below which the fit warns that the
/// interval is too narrow: a preconditioned pass reaches it at about 300 steps. Chosen on the
/// linear model of the unit tests and the mixture at signal-to-noise 3.3 and 2: at 200 steps
/// (about 23) the standard error is 10-20% short and coverage 0.87-0.89.
pub const MIN_RELAXATIONS: f64 = 30.0;

/// The preconditioned pass needs every eigenvalue of the curvature above this fraction of the
/// largest (else it keeps the scalar step `1 / lambda_max`).
pub const MIN_CONDITION: f64 = 1e-4;

/// The start-up bias the last pass's average may carry, in standard errors: the distance from
/// its start (the pass before's average) to its estimate times the share of it the average keeps
/// ([`carried`]); beyond it the fit warns that the run has not settled.
pub const MAX_START_BIAS: f64 = 0.2;

/// `(lambda_min, lambda_max)` of the mean loss's Hessian at `theta` (symmetrized central
/// differences of the mean gradient over at most [`CURVATURE_ROWS`] rows of `data`).
pub fn curvature(model: &dyn Model, data: &Data, theta: &[f64]) -> Result<(f64, f64), InferenceError> {
    hessian(model, data, theta).map(|(lo, hi, _)| (lo, hi))
}

/// The inverse of the symmetric `h` (`p x p`) when its eigenvalues are all above [`MIN_CONDITION`]
/// times the largest; `None` otherwise.
fn inverse_if_convex(h: &[f64], p: usize) -> Option<Vec<f64>> {
    let (mut values, mut vectors) = (vec![0.0; p], vec![0.0; p * p]);
    if !sym_eigen(h, p, &mut values, Some(&mut vectors), &mut EigenWork::default()) {
        return None;
    }
    let top = values.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if top.is_nan() || top <= 0.0 || values.iter().any(|v| *v <= MIN_CONDITION * top) {
        return None;
    }
    // Column-major eigenvectors: h^{-1} = U diag(1/lambda) U^T.
    Some((0..p * p).map(|k| (0..p).map(|m| vectors[m * p + k / p] * vectors[m * p + k % p] / values[m]).sum()).collect())
}

/// `(lambda_min, lambda_max, H)`: [`curvature`] with the symmetrized Hessian (`p x p`).
fn hessian(model: &dyn Model, data: &Data, theta: &[f64]) -> Result<(f64, f64, Vec<f64>), InferenceError> {
    let p = theta.len();
    let rows = data.len();
    let take = rows.clamp(1, CURVATURE_ROWS);
    let idx: Vec<usize> = (0..take).map(|i| i * rows / take).collect();
    let mut grads = vec![0.0; take * p];
    let mean = |at: &[f64], grads: &mut Vec<f64>| -> Vec<f64> {
        model.batch_grad(at, data, &idx, grads);
        let mut b = vec![0.0; p];
        crate::direction::mean_gradient(grads, p, &mut b);
        b
    };
    let mut h = vec![0.0; p * p];
    let mut at = theta.to_vec();
    for j in 0..p {
        let step = 1e-5 * (1.0 + theta[j].abs());
        at[j] = theta[j] + step;
        let up = mean(&at, &mut grads);
        at[j] = theta[j] - step;
        let down = mean(&at, &mut grads);
        at[j] = theta[j];
        for i in 0..p {
            h[j * p + i] = (up[i] - down[i]) / (2.0 * step);
        }
    }
    let sym: Vec<f64> = (0..p * p).map(|k| 0.5 * (h[k] + h[(k % p) * p + k / p])).collect();
    if let Some(v) = sym.iter().find(|v| !v.is_finite()) {
        return Err(InferenceError::BadData(format!(
            "random scaling: the curvature of the mean loss at the pass's start is {v} (the gradients overflow there): start nearer the data's scale, or name a step"
        )));
    }
    let mut values = vec![0.0; p];
    if !sym_eigen(&sym, p, &mut values, None, &mut EigenWork::default()) {
        return Err(InferenceError::BadData("random scaling: the curvature's eigenvalues did not converge; name a step".into()));
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    Ok((lo, hi, sym))
}

/// Starts the chain's next pass (the first when it has taken no step): from the average of the
/// pass before, with random scaling's sums cleared, its step `eta_0` and the curvature where it
/// starts (`start_curvature`: the first pass's, which every chain shares, computed once). Every
/// pass after the first, without a named step, is preconditioned where the curvature is convex: its
/// steps are `t^{-decay} H^{-1} g` ([`ChainState::gain`]), a fixed gain matrix, which leaves the
/// average's limit law and random scaling's pivot unchanged (Polyak & Juditsky 1992; random
/// scaling is equivariant under a fixed linear change of coordinates) and relaxes every direction
/// at the same rate; `lambda_min` is then 1, in the gain's metric.
pub(crate) fn begin_pass(
    ctx: &Context<'_>,
    state: &mut ChainState,
    start_curvature: Option<(f64, f64)>,
    per_pass: Option<usize>,
) -> Result<(), InferenceError> {
    if state.local > 0 {
        state.previous = state.average.clone();
        state.theta = state.average.clone();
    }
    state.restart_average();
    let (lo, hi, h) = match start_curvature.filter(|_| state.steps == 0) {
        Some((lo, hi)) => (lo, hi, Vec::new()),
        None => hessian(ctx.model, ctx.data, &state.theta)?,
    };
    state.lambda_min = lo;
    state.lambda_max = hi;
    state.gain.clear();
    if state.steps > 0 {
        state.pass += 1;
    }
    let warm = per_pass.is_some() && state.pass >= 1;
    if warm
        && ctx.spec.step.is_none()
        && let Some(inverse) = inverse_if_convex(&h, state.theta.len())
    {
        state.gain = inverse;
        state.eta0 = 1.0;
        state.lambda_min = 1.0;
        return Ok(());
    }
    state.eta0 = match ctx.spec.step {
        Some(s) => s,
        None if hi > 0.0 && hi.is_finite() => 1.0 / hi,
        None => {
            return Err(InferenceError::BadData(format!(
                "chain {} step {}: the mean loss is flat where the pass starts (its curvature is 0: every gradient there is 0, as for a network whose units are all inactive), so the step 1/lambda_max does not exist; name a step, or start elsewhere (theta0)",
                state.chain,
                state.steps + 1
            )));
        }
    };
    Ok(())
}

/// The rows of the chain's current step in memory: the step's slice of its pass's order
/// (`ceil(N / n)` slices, the last one shorter), into `work`.
pub(crate) fn pass_batch(ctx: &Context<'_>, state: &ChainState, work: &mut ChainWork) {
    let (n, rows) = (ctx.spec.batch(), ctx.data.len());
    let pass = state.pass;
    let ChainWork { pass_order, idx, .. } = work;
    let order = match pass_order {
        Some((k, order)) if *k == pass => order,
        slot => {
            let mut rng = rng_from_seed(derive_seed(derive_seed(ctx.spec.seed, state.chain), 0x7a55_0000 + pass));
            let mut order: Vec<usize> = (0..rows).collect();
            for i in (1..rows).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
            &mut slot.insert((pass, order)).1
        }
    };
    let start = state.local as usize * n;
    idx.clear();
    idx.extend_from_slice(&order[start.min(rows)..(start + n).min(rows)]);
}

/// Whether the preconditioned iterate has left its pass's start (the average of the pass
/// before, `previous`) by more than [`TRUST`] times the start's scale `1 + |start|_inf` in some
/// coordinate, or is not finite: the gain amplified a mini-batch's gradient the mean curvature
/// does not describe (a network's kinks, a mixture's merging means).
pub(crate) fn left_the_start(state: &ChainState) -> bool {
    let scale = 1.0 + state.previous.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    state.theta.iter().zip(&state.previous).any(|(x, s)| (x - s).abs() > TRUST * scale || !x.is_finite())
}

/// How far a preconditioned pass may move from its start before it falls back to the scalar step.
pub const TRUST: f64 = 10.0;

/// Restarts the chain's last pass from its start with the scalar step `1 / lambda_max` (or the
/// named one) instead of the gain; it takes the rows in the same order, for the steps the run has
/// left, and the fit says so.
pub(crate) fn fall_back(state: &mut ChainState) {
    state.theta = state.previous.clone();
    state.restart_average();
    state.gain.clear();
    state.eta0 = if state.lambda_max > 0.0 { 1.0 / state.lambda_max } else { 1.0 };
    state.fell_back = true;
}

/// `t^{-decay}` at the chain's next step `t` of its pass, or `(t + GAIN_OFFSET)^{-decay}` in a
/// preconditioned pass.
pub(crate) fn step_factor(state: &ChainState, decay: f64) -> f64 {
    let offset = if state.gain.is_empty() { 0.0 } else { GAIN_OFFSET };
    ((state.local + 1) as f64 + offset).powf(-decay)
}

/// The preconditioned pass's steps start at `(1 + GAIN_OFFSET)^{-decay}`, about 0.3, not 1: a
/// mini-batch's curvature reaches several times the mean's, and a first step of `H^{-1} g` would
/// overshoot by that much (its limit is unchanged: `(t + t0)^{-a} ~ t^{-a}`).
pub const GAIN_OFFSET: f64 = 10.0;

/// `(1/T) sum_{t=1}^{T} exp(-rate sum_{s <= t} (s + offset)^{-decay})`: the share of a start
/// error that the average of a pass of `T` steps keeps when its slowest direction contracts at
/// `rate = lambda_min eta_0` (1 for a rate that is not positive).
pub fn carried(rate: f64, decay: f64, t: u64, offset: f64) -> f64 {
    if rate.is_nan() || rate <= 0.0 || t == 0 {
        return 1.0;
    }
    let (mut cumulative, mut total) = (0.0, 0.0);
    for s in 1..=t {
        cumulative += rate * (s as f64 + offset).powf(-decay);
        total += (-cumulative).exp();
    }
    total / t as f64
}

/// `sum_{t=1}^{T} eta_0 (t + offset)^{-decay}`: how far a pass of `T` steps moves a direction of
/// unit curvature, in its time constants.
pub fn step_sum(eta0: f64, decay: f64, t: u64, offset: f64) -> f64 {
    (1..=t).map(|s| eta0 * (s as f64 + offset).powf(-decay)).sum()
}

/// What random scaling keeps of every chain's last pass, to pool them ([`pool`]) in one run or
/// across the slices of one ([`crate::Fit::combine`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RsChains {
    /// Steps `T` of the last pass.
    pub steps: u64,
    /// Every chain's average (`K x p`).
    pub average: Vec<f64>,
    /// Every chain's `V_T / T` (`K x p x p`, row-major).
    pub variance: Vec<f64>,
    /// Every chain's average of the pass before (`K x p`; empty after one pass).
    pub previous: Vec<f64>,
    /// Every chain's relaxations of its slowest direction in the last pass, `lambda_min sum_t
    /// eta_0 t^{-decay}` (negative where the curvature was).
    pub relaxations: Vec<f64>,
    /// Chains whose preconditioned pass left its start and was run again with the scalar step.
    #[serde(default)]
    pub fell_back: u64,
    /// Every chain's share of its last pass's start error left in its average, `(1/T) sum_t
    /// exp(-lambda_min sum_{s <= t} eta_s)` ([`carried`]; 1 where the curvature is not positive).
    #[serde(default)]
    pub carried: Vec<f64>,
}

impl RsChains {
    /// The last passes of `states`.
    pub fn of(states: &[ChainState], decay: f64) -> RsChains {
        let steps = states.iter().map(|s| s.local).min().unwrap_or(0);
        let fell_back = states.iter().filter(|s| s.fell_back).count() as u64;
        let mut out = RsChains {
            steps,
            average: Vec::new(),
            variance: Vec::new(),
            previous: Vec::new(),
            relaxations: Vec::new(),
            fell_back,
            carried: Vec::new(),
        };
        for s in states {
            let (tf, steps) = (s.local.max(1) as f64, s.local);
            out.average.extend_from_slice(&s.average);
            let p = s.average.len();
            match s.random_scaling_variance() {
                Some(v) => out.variance.extend(v.iter().map(|x| x / tf)),
                None => out.variance.extend(std::iter::repeat_n(0.0, p * p)),
            }
            out.previous.extend_from_slice(&s.previous);
            let offset = if s.gain.is_empty() { 0.0 } else { GAIN_OFFSET };
            out.relaxations.push(s.lambda_min * step_sum(s.eta0, decay, steps, offset));
            out.carried.push(carried(s.lambda_min * s.eta0, decay, steps, offset));
        }
        out
    }

    /// The chains of `parts` in order.
    pub fn concat(parts: &[&RsChains]) -> RsChains {
        let steps = parts.iter().map(|r| r.steps).min().unwrap_or(0);
        let cat = |f: fn(&RsChains) -> &Vec<f64>| parts.iter().flat_map(|r| f(r).iter().copied()).collect();
        RsChains {
            steps,
            average: cat(|r| &r.average),
            variance: cat(|r| &r.variance),
            previous: cat(|r| &r.previous),
            relaxations: cat(|r| &r.relaxations),
            fell_back: parts.iter().map(|r| r.fell_back).sum(),
            carried: cat(|r| &r.carried),
        }
    }
}

/// Pools the chains of `fit.rs` (see [`crate::random_scaling`]): `params` is the mean of the
/// chains' averages; the covariance `6 Vbar / T` (over `K` more for streamed chains, which see
/// disjoint rows) estimates the average's, since `E V_T = sigma^2 / 6`; `bse` is its diagonal's
/// root, a standard error; intervals and p-values use the law of `K` pooled chains. Warns where
/// the average has not settled: it carries more than [`MAX_START_BIAS`] standard errors of its
/// start; the last pass started where the curvature is not positive; its slowest direction
/// relaxed fewer than [`MIN_RELAXATIONS`] times.
pub fn pool(fit: &mut crate::Fit) {
    use crate::warning::{Warning, WarningKind};
    let Some(rs) = fit.rs.clone() else { return };
    let p = fit.params.len();
    let k = rs.relaxations.len().max(1);
    let kf = k as f64;
    let over = if fit.streamed_rows.is_some() { kf } else { 1.0 };
    let mean_of =
        |v: &[f64], width: usize| -> Vec<f64> { (0..width).map(|j| v.chunks_exact(width).map(|r| r[j]).sum::<f64>() / kf).collect() };
    fit.params = mean_of(&rs.average, p);
    fit.cov_params = mean_of(&rs.variance, p * p).iter().map(|v| 6.0 * v / over).collect();
    fit.sd = (0..p).map(|j| fit.cov_params[j * p + j].max(0.0).sqrt()).collect();
    fit.rs_scale = Some(rs.variance.chunks_exact(p * p).flat_map(|v| (0..p).map(move |j| v[j * p + j].max(0.0).sqrt())).collect());
    let flat: Vec<String> = (0..p).filter(|&j| fit.sd[j].is_nan() || fit.sd[j] <= 0.0).map(|j| j.to_string()).collect();
    if !flat.is_empty() {
        fit.warnings.push(Warning::new(WarningKind::Other, format!(
            "random scaling's standard error is 0 in coordinate(s) {}: the running averages never varied there (every mini-batch gradient the same, as on constant data or one repeated row, or a parameter the data never move), so the t statistic and p-value are undefined (nan, null in JSON) and the interval has width 0",
            flat.join(", ")
        )));
    }
    let steps = rs.steps;
    if rs.fell_back > 0 {
        fit.warnings.push(Warning::new(WarningKind::Other, format!(
            "{} of the {k} chains left the start of their preconditioned pass (a mini-batch's curvature the mean's does not describe) and ran it again with the scalar step 1/lambda_max, for the steps left (at least {steps})",
            rs.fell_back
        )));
    }
    if rs.previous.len() == k * p {
        // The last pass started at the pass before's average; what of that start's distance to
        // the estimate its average still carries, in standard errors.
        let before = mean_of(&rs.previous, p);
        let share = rs.carried.iter().sum::<f64>() / kf;
        let worst = (0..p)
            .filter(|&j| fit.sd[j] > 0.0)
            .map(|j| (j, share * (fit.params[j] - before[j]).abs() / fit.sd[j]))
            .fold((0, 0.0f64), |a, b| if b.1 > a.1 { b } else { a });
        if worst.1 > MAX_START_BIAS {
            fit.warnings.push(Warning::new(WarningKind::Convergence, format!(
                "The average has not settled: the last pass started {:.2} standard errors from its estimate in coordinate {} and its average still carries {:.0}% of that, {:.2} standard errors (a settled run carries less than {MAX_START_BIAS}), so the interval is not yet a confidence interval; use more passes",
                worst.1 / share.max(f64::MIN_POSITIVE),
                worst.0,
                100.0 * share,
                worst.1
            )));
            return;
        }
    }
    let relax = rs.relaxations.iter().sum::<f64>() / kf;
    if rs.previous.len() == k * p && relax <= 0.0 {
        fit.warnings.push(Warning::new(WarningKind::Convergence, format!(
            "The last pass started where the mean loss is not convex (its Hessian has an eigenvalue {}): the run is at a saddle or on a flat ridge, not a minimum, so the parameters are not identified there and the interval is not a confidence interval",
            if relax == 0.0 { "of 0" } else { "below 0" }
        )));
    } else if relax > 0.0 && relax < MIN_RELAXATIONS {
        fit.warnings.push(Warning::new(WarningKind::Convergence, format!(
            "The slowest direction relaxed only {relax:.1} times in the last pass of {steps} steps (random scaling's variance needs about {MIN_RELAXATIONS}), so the interval is too narrow: use a smaller batch_size (more steps a pass), or a larger step"
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GaussianMixture, InferenceSpec, Method, chains::Runner};

    /// The share a pass keeps of its start: all of it without contraction, almost none with a fast
    /// one, and the closed form `(1/T) sum_t e^{-r t}` for a constant step (`decay` near 0).
    #[test]
    fn carried_share_and_step_sum() {
        assert_eq!(carried(0.0, 0.505, 100, 0.0), 1.0);
        assert_eq!(carried(-1.0, 0.505, 100, 0.0), 1.0);
        assert!(carried(50.0, 0.505, 400, 0.0) < 1e-2);
        let (r, t) = (0.3, 50u64);
        let want = (1..=t).map(|s| (-r * s as f64).exp()).sum::<f64>() / t as f64;
        assert!((carried(r, 1e-12, t, 0.0) - want).abs() < 1e-9);
        assert!((step_sum(2.0, 1e-12, 10, 0.0) - 20.0).abs() < 1e-9);
        assert!((step_sum(1.0, 0.5, 1, 3.0) - 0.5).abs() < 1e-12);
    }

    /// The gain is the inverse of a convex curvature, and there is none for an indefinite one.
    #[test]
    fn gain_inverts_convex_curvature_only() {
        let h = [4.0, 1.0, 1.0, 3.0];
        let g = inverse_if_convex(&h, 2).unwrap();
        for i in 0..2 {
            for j in 0..2 {
                let prod: f64 = (0..2).map(|k| h[i * 2 + k] * g[k * 2 + j]).sum();
                assert!((prod - f64::from(u8::from(i == j))).abs() < 1e-12, "{g:?}");
            }
        }
        assert!(inverse_if_convex(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
    }

    /// A run advanced in slices that cross the pass boundaries, through a checkpoint's state
    /// (serialized and read back), ends where one run in one go does, bit for bit.
    #[test]
    fn passes_resume_bit_for_bit() {
        let z: Vec<f64> = (0..600).map(|i| 1.0 + (i % 3) as f64 + 0.3 * ((i * 7919 % 1000) as f64 / 500.0 - 1.0)).collect();
        let data = Data::new(z, 1, Vec::new()).unwrap();
        let model = GaussianMixture::new(3, 0.3).unwrap();
        let spec = InferenceSpec { method: Method::RandomScaling, chains: 3, seed: 5, ..InferenceSpec::default() };
        let one = crate::run(&model, &data, &spec, None).unwrap();
        let mut runner = Runner::new(&model, &data, &spec).unwrap();
        let total = runner.spec.steps;
        assert_eq!(total, 3 * 60, "600 rows, batch 10, 3 passes");
        for cut in [37, 60, 97, total] {
            let to = cut.min(total);
            runner.advance(&model, &data, to - runner.steps_done(), None).unwrap();
            let mut records = Vec::new();
            runner.records(0, runner.steps_done(), &mut records);
            let state: crate::chains::RunnerState = serde_json::from_str(&serde_json::to_string(&runner.state()).unwrap()).unwrap();
            runner = Runner::from_state(state, &records).unwrap();
        }
        let resumed = runner.finish().unwrap();
        assert_eq!(resumed.params, one.params);
        assert_eq!(resumed.sd, one.sd);
        assert_eq!(resumed.rs, one.rs);
    }
}
