//! One step of each process of Liang & Su on one chain, as a state machine ([`ChainState`],
//! serializable so a run checkpoints between steps), with its mini-batch drawn from the chain's own
//! seeded generator:
//!
//! - SGD (eq. 3): `theta -= eta bhat`;
//! - MasGrad (eq. 10): `theta -= eta Vhat^{-1} bhat` (plug-in `V` of the batch, sec. 6.1, either
//!   inverse root, [`crate::direction`]; or the population `V(theta)`, App. C);
//! - diff_SGD (eq. 6, 8): `xi -= eta b(xi)`, then `xi += (eta / sqrt(n)) V(xi) g`, `g ~ N(0, I)`;
//! - diff_MasGrad (eq. 11): `xi -= eta V(xi)^{-1} b(xi)`, then `xi += (eta / sqrt(n)) g` (the noise
//!   `sqrt(2 eta / beta) g` with `beta = 2n / eta`);
//! - MadProx (eq. 20): `w = prox_{eta, M}(w - eta M^{-1} ghat)` with the l1 prox of eq. 19 in the
//!   metric `M`, constant (Prop. 4.1): the population root at the start, full or diagonal;
//! - random scaling: SGD with steps `eta_0 t^{-a}` and the running average of its iterates, whose
//!   variance is estimated from the path of averages (Lee et al. 2022), in passes over the rows
//!   ([`crate::passes`]).

use gradfree_core::{GfRng, derive_seed, rng_from_seed};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::direction::{Outcome, adjusted_direction, mean_gradient};
use crate::population::{PopulationWork, apply_root, moments};
use crate::spec::{InferenceSpec, Method, Moments, ProxMetric, Sampling};
use crate::{Data, InferenceError, model::Model};

/// The state of one chain between steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainState {
    /// Chain index.
    pub chain: u64,
    /// The current iterate (for random scaling, the SGD iterate; its average is `average`).
    pub theta: Vec<f64>,
    /// Steps done.
    pub steps: u64,
    /// Steps whose batch covariance was singular and ridged ([`crate::direction::RIDGE`]).
    pub ridged: u64,
    /// Random scaling: the running average of the iterates.
    pub average: Vec<f64>,
    /// Random scaling: `sum_s s^2 abar_s abar_s^T` (`p x p`), `sum_s s^2 abar_s` and `sum_s s^2`.
    pub rs_outer: Vec<f64>,
    /// See `rs_outer`.
    pub rs_first: Vec<f64>,
    /// See `rs_outer`.
    pub rs_weight: f64,
    /// Random scaling: steps of the current pass (its average's and sums' `t`).
    #[serde(default)]
    pub local: u64,
    /// Random scaling: the current pass's first step `eta_0`.
    #[serde(default)]
    pub eta0: f64,
    /// Random scaling: the smallest eigenvalue of the mean loss's Hessian where the pass started.
    #[serde(default)]
    pub lambda_min: f64,
    /// Random scaling: the average of the pass before (empty in the first).
    #[serde(default)]
    pub previous: Vec<f64>,
    /// Random scaling: the current pass's gain matrix `H^{-1}` (`p x p`; empty for the scalar
    /// step), [`crate::passes`].
    #[serde(default)]
    pub gain: Vec<f64>,
    /// Random scaling: the largest curvature where the pass started.
    #[serde(default)]
    pub lambda_max: f64,
    /// Random scaling: the current pass, from 0 (its order of the rows is drawn from it).
    #[serde(default)]
    pub pass: u64,
    /// Random scaling: whether the preconditioned pass left its start and was restarted with
    /// the scalar step ([`crate::passes`]).
    #[serde(default)]
    pub fell_back: bool,
    rng: GfRng,
}

impl ChainState {
    /// Chain `chain` of a run seeded `seed`, at `theta0`.
    pub fn new(chain: u64, seed: u64, theta0: &[f64], method: Method) -> Self {
        let p = theta0.len();
        let rs = method == Method::RandomScaling;
        ChainState {
            chain,
            theta: theta0.to_vec(),
            steps: 0,
            ridged: 0,
            average: if rs { theta0.to_vec() } else { Vec::new() },
            rs_outer: if rs { vec![0.0; p * p] } else { Vec::new() },
            rs_first: if rs { vec![0.0; p] } else { Vec::new() },
            rs_weight: 0.0,
            local: 0,
            eta0: 0.0,
            lambda_min: 0.0,
            previous: Vec::new(),
            gain: Vec::new(),
            lambda_max: 0.0,
            pass: 0,
            fell_back: false,
            rng: rng_from_seed(derive_seed(seed, chain)),
        }
    }

    /// Random scaling: starts a new average at the iterate, its sums cleared (a pass begins, or a
    /// preconditioned pass starts again, [`crate::passes`]).
    pub(crate) fn restart_average(&mut self) {
        self.local = 0;
        self.rs_outer.iter_mut().for_each(|v| *v = 0.0);
        self.rs_first.iter_mut().for_each(|v| *v = 0.0);
        self.rs_weight = 0.0;
        self.average = self.theta.clone();
    }

    /// What the chain reports at this step: the iterate, or for random scaling its average.
    pub fn estimate(&self) -> &[f64] {
        if self.average.is_empty() { &self.theta } else { &self.average }
    }

    /// Random scaling's variance estimate `V_t = (1/t^2) sum_s s^2 (abar_s - abar_t)(abar_s -
    /// abar_t)^T` (`p x p`, row-major) of the average after `t` steps of the pass; `None` before
    /// any step.
    pub fn random_scaling_variance(&self) -> Option<Vec<f64>> {
        if self.rs_weight == 0.0 {
            return None;
        }
        let p = self.average.len();
        let t = self.local as f64;
        let (a, b, c) = (&self.rs_outer, &self.rs_first, self.rs_weight);
        let m = &self.average;
        Some((0..p * p).map(|k| (a[k] - m[k / p] * b[k % p] - b[k / p] * m[k % p] + c * m[k / p] * m[k % p]) / (t * t)).collect())
    }
}

/// MadProx's metric `M` (`p x p` row-major; diagonal: only its diagonal is used) and `M^{-1}`.
pub type ProxMetricMatrices = (Vec<f64>, Vec<f64>);

/// What the steps of a run share: the model, the data and the checked spec, and MadProx's metric.
pub struct Context<'a> {
    /// The model.
    pub model: &'a dyn Model,
    /// The data (the population of the diffusions and of population moments).
    pub data: &'a Data,
    /// The run.
    pub spec: &'a InferenceSpec,
    /// MadProx's metric.
    pub prox: Option<ProxMetricMatrices>,
    /// Streamed data: `data` is a block of fresh rows, `K n` per step (twice that with an
    /// independent `V`), and chain `k` takes rows `k n..(k + 1) n` of its step's part (every row
    /// used once, chains on disjoint samples) instead of drawing.
    pub partition: bool,
    /// Random scaling: the curvature at the common start, computed once for every chain's first
    /// pass ([`crate::passes`]).
    pub start_curvature: Option<(f64, f64)>,
}

/// Buffers of one chain, reused across steps.
#[derive(Default, Debug)]
pub struct ChainWork {
    pub(crate) idx: Vec<usize>,
    perm: Vec<usize>,
    grads: Vec<f64>,
    grads_v: Vec<f64>,
    b: Vec<f64>,
    dir: Vec<f64>,
    noise: Vec<f64>,
    pop: PopulationWork,
    /// Streamed runs: the step within the current block (its rows start at `block_step K n`).
    pub block_step: usize,
    /// Random scaling in memory: the pass and its order of the rows.
    pub(crate) pass_order: Option<(u64, Vec<usize>)>,
}

/// Draws the step's mini-batch indices into `work.idx` (`second`: MasGrad's independent batch
/// for `V`, which a streamed block holds after every chain's first batch).
fn draw_batch(ctx: &Context<'_>, chain: u64, second: bool, rng: &mut GfRng, work: &mut ChainWork) {
    let (n, rows) = (ctx.spec.batch(), ctx.data.len());
    work.idx.clear();
    if ctx.partition {
        let step_start = work.block_step * ctx.spec.chains * ctx.spec.batches_per_step(true);
        let start = (step_start + (chain - ctx.spec.first_chain) as usize + if second { ctx.spec.chains } else { 0 }) * n;
        work.idx.extend(start..start + n);
        return;
    }
    match ctx.spec.sampling {
        Sampling::WithReplacement => work.idx.extend((0..n).map(|_| rng.random_range(0..rows))),
        Sampling::WithoutReplacement => {
            // A partial Fisher-Yates shuffle of a kept permutation, undone afterwards: O(n) per step.
            if work.perm.len() != rows {
                work.perm = (0..rows).collect();
            }
            let mut swaps = Vec::with_capacity(n);
            for i in 0..n {
                let j = rng.random_range(i..rows);
                work.perm.swap(i, j);
                swaps.push(j);
            }
            work.idx.extend_from_slice(&work.perm[..n]);
            for (i, &j) in swaps.iter().enumerate().rev() {
                work.perm.swap(i, j);
            }
        }
    }
}

/// The per-sample gradients of the batch at `theta` into `work.grads` (`n x p`); a gradient
/// that is not finite is an error naming the chain, the step, the row and the likely cause.
fn batch_gradients(ctx: &Context<'_>, chain: u64, t: u64, theta: &[f64], work: &mut ChainWork) -> Result<(), InferenceError> {
    let p = ctx.model.dim();
    work.grads.resize(work.idx.len() * p, 0.0);
    ctx.model.batch_grad(theta, ctx.data, &work.idx, &mut work.grads);
    if let Some(k) = work.grads.iter().position(|v| !v.is_finite()) {
        let row = work.idx[k / p];
        let scale = ctx.data.row(row).iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let at = theta.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        return Err(InferenceError::BadData(format!(
            "chain {chain} step {t}: the gradient of row {row} is {} in coordinate {} (the row's largest |value| is {scale:e}, the iterate's {at:e}): {}",
            work.grads[k],
            k % p,
            if ctx.model.name() == "python" {
                "the gradient function returned it".to_string()
            } else if scale > 1e100 {
                "the data are too large for double precision; standardize the features".to_string()
            } else if let Some(top) = Some(ctx.data.responses().iter().fold(0.0f64, |a, v| a.max(v.abs())))
                .filter(|t| *t > 1e15 || (*t * ctx.spec.fixed_step() > 1e3 && matches!(ctx.model.name(), "linear" | "poisson")))
            {
                format!(
                    "the responses reach {top:e}, so the gradients and the steps they take are of that size and the iterate overflowed the model: rescale the response, or use a far smaller step"
                )
            } else if let Some((a, b)) = constant_pair(ctx.data) {
                format!(
                    "columns {a} and {b} of the features are both constant (an intercept beside a constant column?), so the parameters are not identified (collinear features) and the iterate drifted along the direction the data do not see until it overflowed; drop one of them"
                )
            } else if at > 1e100 {
                "the iterate is too large for double precision; start nearer the data's scale, or use a smaller step".to_string()
            } else {
                "the iterate overflowed the model (try a smaller step or a start point nearer the optimum)".to_string()
            }
        )));
    }
    Ok(())
}

/// Two columns of `data` that are both constant and nonzero (collinear), if there are.
fn constant_pair(data: &crate::Data) -> Option<(usize, usize)> {
    if data.len() < 2 {
        return None;
    }
    let mut constant = data.constant_columns();
    Some((constant.next()?, constant.next()?))
}

/// `sign(z) max(|z| - t, 0)`.
fn soft(z: f64, t: f64) -> f64 {
    z.signum() * (z.abs() - t).max(0.0)
}

/// `prox_{eta, M}(z)` of eq. 19 with `h = lambda |.|_1`, into `w` (warm-started from `w`).
fn prox(metric: ProxMetric, m: &[f64], eta: f64, lambda: f64, z: &[f64], w: &mut [f64]) {
    let p = z.len();
    match metric {
        ProxMetric::Diagonal => w.iter_mut().zip(z).enumerate().for_each(|(i, (wi, &zi))| *wi = soft(zi, eta * lambda / m[i * p + i])),
        ProxMetric::Full => {
            // min_u (1/(2 eta)) (u - z)^T M (u - z) + lambda |u|_1 by coordinate descent.
            for _ in 0..1000 {
                let mut change: f64 = 0.0;
                for i in 0..p {
                    let c: f64 = (0..p).filter(|&j| j != i).map(|j| m[i * p + j] * (w[j] - z[j])).sum();
                    let mii = m[i * p + i];
                    let new = soft(z[i] - c / mii, eta * lambda / mii);
                    change = change.max((new - w[i]).abs());
                    w[i] = new;
                }
                if change <= 1e-14 * (1.0 + w.iter().fold(0.0f64, |a, v| a.max(v.abs()))) {
                    break;
                }
            }
        }
    }
}

/// What a moment-adjusted step does with its inverse root's `outcome`: a ridged root counts in
/// `state.ridged`; gradients with no spread at all and a zero mean `b` (a ReLU unit inactive on
/// every row) give the zero direction, also counted; no spread with `b != 0` is an error (`Err`).
fn settle(outcome: Outcome, b: &[f64], dir: &mut [f64], state: &mut ChainState) -> Result<(), ()> {
    match outcome {
        Outcome::Exact => Ok(()),
        Outcome::Ridged(_) => {
            state.ridged += 1;
            Ok(())
        }
        Outcome::NoSpread if b.iter().all(|v| *v == 0.0) => {
            dir.iter_mut().for_each(|d| *d = 0.0);
            state.ridged += 1;
            Ok(())
        }
        Outcome::NoSpread => Err(()),
    }
}

/// One step of `state` (see the module documentation).
pub fn step(ctx: &Context<'_>, state: &mut ChainState, work: &mut ChainWork) -> Result<(), InferenceError> {
    let (p, spec) = (ctx.model.dim(), ctx.spec);
    let (eta, n) = (spec.fixed_step(), spec.batch() as f64);
    work.b.resize(p, 0.0);
    work.dir.resize(p, 0.0);
    let t = state.steps + 1;
    let singular = |state: &ChainState, grads: &[f64]| {
        // Gradients so large that their covariance overflows read as "no spread": say so.
        let top = grads.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if top > 1e150 || !top.is_finite() {
            return InferenceError::BadData(format!(
                "chain {} step {t}: the gradients reach {top:e}, so their covariance overflows double precision (standardize the features, or start nearer the optimum)",
                state.chain
            ));
        }
        InferenceError::SingularCovariance(format!(
            "chain {} step {t}: every gradient of the batch is the same (identical rows give identical gradients, as a constant column with a constant response does), so no moment-adjusted direction exists (use a larger batch_size, or sgd)",
            state.chain
        ))
    };
    match spec.method {
        Method::Mle => {
            return Err(InferenceError::invalid("method", "mle", "a chain method (maximum likelihood runs no chains)"));
        }
        Method::Sgd => {
            draw_batch(ctx, state.chain, false, &mut state.rng, work);
            batch_gradients(ctx, state.chain, t, &state.theta, work)?;
            mean_gradient(&work.grads, p, &mut work.b);
            state.theta.iter_mut().zip(&work.b).for_each(|(x, g)| *x -= eta * g);
        }
        Method::RandomScaling => {
            let per_pass = (!ctx.partition).then(|| spec.steps_per_pass(ctx.data.len()));
            if state.steps == 0 || per_pass.is_some_and(|per| state.local as usize == per) {
                crate::passes::begin_pass(ctx, state, ctx.start_curvature, per_pass)?;
            }
            match per_pass {
                Some(_) => crate::passes::pass_batch(ctx, state, work),
                None => draw_batch(ctx, state.chain, false, &mut state.rng, work),
            }
            batch_gradients(ctx, state.chain, t, &state.theta, work)?;
            mean_gradient(&work.grads, p, &mut work.b);
            let eta_t = state.eta0 * crate::passes::step_factor(state, spec.decay);
            if state.gain.is_empty() {
                state.theta.iter_mut().zip(&work.b).for_each(|(x, g)| *x -= eta_t * g);
            } else {
                for (i, x) in state.theta.iter_mut().enumerate() {
                    *x -= eta_t * state.gain[i * p..(i + 1) * p].iter().zip(&work.b).map(|(a, g)| a * g).sum::<f64>();
                }
                if crate::passes::left_the_start(state) {
                    crate::passes::fall_back(state);
                    state.steps = t;
                    return Ok(());
                }
            }
        }
        Method::Masgrad | Method::MasgradRankOne if spec.moments_for(ctx.partition) != Moments::Population => {
            let root = spec.method.root().expect("a MasGrad method");
            let independent = spec.moments_for(ctx.partition) == Moments::Independent;
            if independent {
                draw_batch(ctx, state.chain, true, &mut state.rng, work);
                batch_gradients(ctx, state.chain, t, &state.theta, work)?;
                std::mem::swap(&mut work.grads, &mut work.grads_v);
            }
            draw_batch(ctx, state.chain, false, &mut state.rng, work);
            batch_gradients(ctx, state.chain, t, &state.theta, work)?;
            let gv = if independent { &work.grads_v } else { &work.grads };
            let outcome = adjusted_direction(&work.grads, gv, p, root, &mut work.b, &mut work.dir, &mut work.pop.dir);
            settle(outcome, &work.b, &mut work.dir, state).map_err(|()| singular(state, &work.grads))?;
            state.theta.iter_mut().zip(&work.dir).for_each(|(x, d)| *x -= eta * d);
        }
        Method::Masgrad | Method::MasgradRankOne => {
            // Population V(theta) (App. C), the batch's mean gradient.
            draw_batch(ctx, state.chain, false, &mut state.rng, work);
            batch_gradients(ctx, state.chain, t, &state.theta, work)?;
            mean_gradient(&work.grads, p, &mut work.b);
            let mut pop_b = std::mem::take(&mut work.dir);
            moments(ctx.model, &state.theta, ctx.data, &mut pop_b, &mut work.pop);
            let outcome = apply_root(p, -1.0, &work.b, 1.0, &mut pop_b, &mut work.pop);
            settle(outcome, &work.b, &mut pop_b, state).map_err(|()| singular(state, &work.grads))?;
            state.theta.iter_mut().zip(&pop_b).for_each(|(x, d)| *x -= eta * d);
            work.dir = pop_b;
        }
        Method::DiffSgd | Method::DiffMasgrad => {
            moments(ctx.model, &state.theta, ctx.data, &mut work.b, &mut work.pop);
            work.noise.clear();
            work.noise.extend((0..p).map(|_| -> f64 { StandardNormal.sample(&mut state.rng) }));
            let scale = eta / n.sqrt();
            if spec.method == Method::DiffSgd {
                // xi - eta b + (eta / sqrt(n)) V g.
                if apply_root(p, 1.0, &work.noise, scale, &mut work.dir, &mut work.pop) == Outcome::NoSpread {
                    work.dir.iter_mut().for_each(|d| *d = 0.0);
                }
                for ((x, g), z) in state.theta.iter_mut().zip(&work.b).zip(&work.dir) {
                    *x += -eta * g + z;
                }
            } else {
                // xi - eta V^{-1} b + (eta / sqrt(n)) g.
                let outcome = apply_root(p, -1.0, &work.b, eta, &mut work.dir, &mut work.pop);
                settle(outcome, &work.b, &mut work.dir, state).map_err(|()| singular(state, &work.b))?;
                for ((x, d), g) in state.theta.iter_mut().zip(&work.dir).zip(&work.noise) {
                    *x += -d + scale * g;
                }
            }
        }
        Method::Madprox => {
            let (m, m_inv) = ctx.prox.as_ref().expect("MadProx has its metric");
            draw_batch(ctx, state.chain, false, &mut state.rng, work);
            batch_gradients(ctx, state.chain, t, &state.theta, work)?;
            mean_gradient(&work.grads, p, &mut work.b);
            // z = w - eta M^{-1} g, into dir.
            for (i, z) in work.dir.iter_mut().enumerate() {
                let step: f64 = match spec.prox_metric {
                    ProxMetric::Diagonal => m_inv[i * p + i] * work.b[i],
                    ProxMetric::Full => (0..p).map(|j| m_inv[i * p + j] * work.b[j]).sum(),
                };
                *z = state.theta[i] - eta * step;
            }
            prox(spec.prox_metric, m, eta, spec.lambda, &work.dir, &mut state.theta);
        }
    }
    if let Some(j) = state.theta.iter().position(|v| !v.is_finite()) {
        let scale = ctx.data.rows().iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let cause = if scale > 1e100 {
            format!("the data reach {scale:e}, beyond what double precision can square: standardize the features")
        } else if let Some((a, b)) = constant_pair(ctx.data) {
            format!(
                "columns {a} and {b} of the features are both constant (an intercept beside a constant column?), so the parameters are not identified (collinear features) and the chain drifted along the direction the data do not see; drop one of them"
            )
        } else if ctx.data.has_responses() && ctx.data.responses().iter().all(|&v| v == 0.0) && ctx.model.name() == "poisson" {
            "every count is 0, so the Poisson likelihood has no maximum and the chain heads to -infinity".to_string()
        } else {
            let eta = if spec.method == Method::RandomScaling { state.eta0 } else { eta };
            format!("the step {eta} is too large for the problem's scale, or the start point too far: try a smaller step")
        };
        return Err(InferenceError::BadData(format!(
            "chain {} diverged at step {t}: coordinate {j} is {} ({cause})",
            state.chain, state.theta[j]
        )));
    }
    state.steps = t;
    if spec.method == Method::RandomScaling {
        state.local += 1;
        let w = state.local as f64;
        for (a, x) in state.average.iter_mut().zip(&state.theta) {
            *a += (x - *a) / w;
        }
        let w2 = w * w;
        for (i, ai) in state.average.iter().enumerate() {
            state.rs_first[i] += w2 * ai;
            for (j, aj) in state.average.iter().enumerate() {
                state.rs_outer[i * p + j] += w2 * ai * aj;
            }
        }
        state.rs_weight += w2;
        // The sums of squares overflow long before the iterates do (t^2 a^2 past 1e308): the
        // variance would read as 0 or NaN, so the run stops here, saying why.
        if let Some(j) = (0..p).find(|&j| !state.rs_outer[j * p + j].is_finite()) {
            return Err(InferenceError::BadData(format!(
                "chain {} step {t}: random scaling's sums of squares overflow double precision (coordinate {j} of the average is {:e}): standardize the features, or use a smaller step",
                state.chain, state.average[j]
            )));
        }
    }
    Ok(())
}

/// MadProx's constant metric (Prop. 4.1): the population gradient covariance at `theta0`, its
/// symmetric root (full) or the root of its diagonal, and the inverse; `None` for other methods.
pub fn prox_metric(
    ctx_model: &dyn Model,
    data: &Data,
    spec: &InferenceSpec,
    theta0: &[f64],
) -> Result<Option<ProxMetricMatrices>, InferenceError> {
    if spec.method != Method::Madprox {
        return Ok(None);
    }
    let p = ctx_model.dim();
    let mut work = PopulationWork::default();
    let mut b = vec![0.0; p];
    moments(ctx_model, theta0, data, &mut b, &mut work);
    let sigma = crate::population::covariance_matrix(&work).to_vec();
    let (mut m, mut m_inv) = (vec![0.0; p * p], vec![0.0; p * p]);
    match spec.prox_metric {
        ProxMetric::Diagonal => {
            for i in 0..p {
                let d = sigma[i * p + i].sqrt();
                if !(d > 0.0 && d.is_finite()) {
                    return Err(InferenceError::SingularCovariance(format!(
                        "MadProx: the gradients of coordinate {i} have no spread at the start, so its metric is 0 (every row's gradient there is the same: a constant response, a column of zeros, or identical rows give that; drop the column or use another method)"
                    )));
                }
                m[i * p + i] = d;
                m_inv[i * p + i] = 1.0 / d;
            }
        }
        ProxMetric::Full => {
            let mut e = vec![0.0; p];
            for i in 0..p {
                e.iter_mut().enumerate().for_each(|(k, v)| *v = if k == i { 1.0 } else { 0.0 });
                let mut col = vec![0.0; p];
                if apply_root(p, 1.0, &e, 1.0, &mut col, &mut work) == Outcome::NoSpread {
                    return Err(InferenceError::SingularCovariance("MadProx: the gradients have no spread at the start (every row's gradient is the same: a constant response, a column of zeros, or identical rows give that)".into()));
                }
                (0..p).for_each(|k| m[k * p + i] = col[k]);
                apply_root(p, -1.0, &e, 1.0, &mut col, &mut work);
                (0..p).for_each(|k| m_inv[k * p + i] = col[k]);
            }
        }
    }
    Ok(Some((m, m_inv)))
}
