//! Streamed runs ([`run_stream`]): the data arrive from a [`RowSource`] and are never all in
//! memory. This is the setting of Liang & Su's theory, fresh samples from the population at every
//! step: each step reads a block of `K n` new rows and chain `k` takes rows `k n..(k + 1) n` of it,
//! so every row is used once and the chains see disjoint samples. Memory is one block plus the
//! chains' records, which are thinned (every other record dropped, the stride doubled) whenever
//! they pass [`MAX_RECORDS`], so it stays flat in the number of rows.
//!
//! What streams: SGD, both MasGrads with the batch's `V` (sec. 6.1), random scaling (the online
//! method it was made for) and MadProx (its constant metric, Prop. 4.1, from the first block). The
//! diffusions and MasGrad with the population `V` need every row at every step, so they need the
//! data in memory.

use gradfree_data::{Chunk, RowSource};
use rayon::prelude::*;

use crate::chains::{Fit, assemble};
use crate::error::in_rows;
use crate::intervals::Trajectories;
use crate::process::{ChainState, ChainWork, Context, prox_metric, step};
use crate::spec::{CovType, InferenceSpec, Method, Moments};
use crate::{Data, InferenceError, model::Model};

pub use crate::spec::MAX_RECORDS;

/// Rows read from a source, cut into blocks of whole steps.
struct Blocks<'a> {
    source: &'a mut dyn RowSource,
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    supervised: Option<bool>,
    read: u64,
    ended: bool,
}

impl Blocks<'_> {
    /// Rows buffered.
    fn buffered(&self) -> usize {
        self.x.len() / self.d
    }

    /// The next `units x unit` rows as [`Data`] checked for `model` (fewer whole units at the end
    /// of the source; `None` when not one is left); errors name the rows of the stream.
    fn next(&mut self, unit: usize, units: usize, model: &dyn Model) -> Result<Option<Data>, InferenceError> {
        while self.buffered() < unit * units && !self.ended {
            match self.source.next_chunk()? {
                None => self.ended = true,
                Some(Chunk { x, y }) => self.push(x, y)?,
            }
        }
        let rows = (self.buffered() / unit).min(units) * unit;
        if rows == 0 {
            return Ok(None);
        }
        let first = self.read;
        let x: Vec<f64> = self.x.drain(..rows * self.d).collect();
        let y: Vec<f64> = if self.y.is_empty() { Vec::new() } else { self.y.drain(..rows).collect() };
        self.read += rows as u64;
        let data = Data::new(x, self.d, y).map_err(in_rows(first, rows as u64))?;
        model.check(&data).map_err(in_rows(first, rows as u64))?;
        Ok(Some(data))
    }

    fn push(&mut self, x: Vec<f64>, y: Vec<f64>) -> Result<(), InferenceError> {
        let bad = |m: String| InferenceError::BadData(format!("a chunk of the stream {m}"));
        if !x.len().is_multiple_of(self.d) {
            return Err(bad(format!("has {} values, not rows of {} features", x.len(), self.d)));
        }
        let rows = x.len() / self.d;
        if rows == 0 {
            return Ok(());
        }
        let supervised = !y.is_empty();
        if supervised && y.len() != rows {
            return Err(bad(format!("has {} responses for {rows} rows", y.len())));
        }
        match self.supervised {
            Some(s) if s != supervised => {
                return Err(bad("has responses where earlier chunks had none, or none where they had some".into()));
            }
            _ => self.supervised = Some(supervised),
        }
        self.x.extend(x);
        self.y.extend(y);
        Ok(())
    }
}

/// One chain of a streamed run: its state, buffers and records (every `every`-th step, `kept`
/// of them; every chain takes the same steps, so their records stay aligned).
struct Chain {
    state: ChainState,
    work: ChainWork,
    records: Vec<f64>,
    kept: usize,
    every: usize,
}

impl Chain {
    /// Records the estimate after step `t` if it falls on the stride, thinning past
    /// [`MAX_RECORDS`].
    fn record(&mut self, t: usize, p: usize) {
        if !t.is_multiple_of(self.every) {
            return;
        }
        self.records.extend_from_slice(self.state.estimate());
        self.kept += 1;
        if self.kept > MAX_RECORDS {
            self.records = self.records.chunks_exact(p).step_by(2).flatten().copied().collect();
            self.kept = self.kept.div_ceil(2);
            self.every *= 2;
        }
    }
}

/// Runs the chains of `spec` on the rows of `source` (see the module documentation) for at most
/// `max_steps` steps, or until the source ends; `progress(rows)` is called after every step with
/// the rows it read. The [`Fit`]'s `spec.steps` is the steps run, `streamed_rows` the rows read.
pub fn run_stream(
    model: &dyn Model,
    source: &mut dyn RowSource,
    spec: &InferenceSpec,
    max_steps: Option<usize>,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<Fit, InferenceError> {
    let p = model.dim();
    spec.check_settings(None, p)?;
    if spec.method == Method::Mle {
        if max_steps.is_some() {
            return Err(InferenceError::invalid(
                "steps",
                max_steps.unwrap_or(0),
                "none for mle (maximum likelihood reads every row once and runs no steps)",
            ));
        }
        return mle_stream(model, source, spec, progress);
    }
    if spec.method.is_diffusion() {
        return Err(InferenceError::invalid(
            "method",
            spec.method.name(),
            "sgd, masgrad, masgrad-rank-one, random-scaling or madprox for streamed data (a diffusion needs every row at every step)",
        ));
    }
    if spec.method.root().is_some() && spec.moments == Some(Moments::Population) {
        return Err(InferenceError::invalid("moments", "population", "batch for streamed data (the population V needs every row)"));
    }
    if spec.first_chain != 0 {
        return Err(InferenceError::invalid(
            "first_chain",
            spec.first_chain,
            "0 for streamed data (every chain reads its rows from the one stream)",
        ));
    }
    if let Some(0) = max_steps {
        return Err(InferenceError::invalid("steps", 0, ">= 1"));
    }
    let batches = spec.batches_per_step(true);
    let block_rows =
        spec.batch().checked_mul(batches).and_then(|b| b.checked_mul(spec.chains)).filter(|r| *r <= 1 << 30).ok_or_else(|| {
            InferenceError::invalid("chains", spec.chains, format!("such that chains x batch_size <= 2^30 (batch_size {})", spec.batch()))
        })?;
    let d = source.dim();
    spec.footprint(None, Some(d), p, model.size_param()).check()?;
    let mut blocks = Blocks { source, d, x: Vec::new(), y: Vec::new(), supervised: None, read: 0, ended: false };
    let (mut theta0, mut own_start) = (spec.start(p), false);
    let mut chains: Vec<Chain> = Vec::new();
    // Whole steps per block: at least 4096 rows, so a step of one row costs no more than its work.
    let steps_per_block = 4096usize.div_ceil(block_rows).max(1);
    let mut steps = 0usize;
    let mut prox = None;
    while max_steps.is_none_or(|m| steps < m) {
        let units = max_steps.map_or(steps_per_block, |m| steps_per_block.min(m - steps));
        let Some(block) = blocks.next(block_rows, units, model)? else { break };
        if steps == 0 {
            // The model's own start where the run names none, from the first block.
            if spec.theta0.is_none()
                && let Some(start) = model.default_start(&block)
            {
                theta0 = start;
                own_start = true;
            }
            chains = (0..spec.chains)
                .map(|k| {
                    let state = ChainState::new(k as u64, spec.seed, &theta0, spec.method);
                    Chain { records: state.estimate().to_vec(), state, work: ChainWork::default(), kept: 1, every: 1 }
                })
                .collect();
            prox = prox_metric(model, &block, spec, &theta0)?;
        }
        let start_curvature =
            if spec.method == Method::RandomScaling && steps == 0 { Some(crate::passes::curvature(model, &block, &theta0)?) } else { None };
        let ctx = Context { model, data: &block, spec, prox: prox.clone(), partition: true, start_curvature };
        let block_steps = block.len() / block_rows;
        chains.par_iter_mut().try_for_each(|c| -> Result<(), InferenceError> {
            for s in 0..block_steps {
                c.work.block_step = s;
                step(&ctx, &mut c.state, &mut c.work)?;
                c.record(steps + s + 1, p);
            }
            Ok(())
        })?;
        steps += block_steps;
        if let Some(f) = progress {
            f(block.len() as u64);
        }
    }
    if steps == 0 {
        return Err(InferenceError::BadData(format!(
            "the stream ended after {} rows; one step needs chains x batch_size{} = {} x {}{} = {block_rows} rows",
            blocks.read + (blocks.x.len() / d) as u64,
            if batches == 2 { " x 2" } else { "" },
            spec.chains,
            spec.batch(),
            if batches == 2 { " x 2" } else { "" },
        )));
    }
    let (every, mut kept) = (chains[0].every, chains[0].kept);
    let mut last = None;
    if !steps.is_multiple_of(every) {
        for c in chains.iter_mut() {
            c.records.extend_from_slice(c.state.estimate());
        }
        kept += 1;
        last = Some(steps);
    }
    let mut spec = spec.clone();
    spec.steps = steps;
    if own_start {
        spec.theta0 = Some(theta0);
    }
    let values: Vec<f64> = chains.iter().flat_map(|c| c.records.iter().copied()).collect();
    let trajectories = Trajectories { chains: spec.chains, steps: kept - 1, p, values, every, last };
    let states: Vec<ChainState> = chains.into_iter().map(|c| c.state).collect();
    let mut fit = assemble(&spec, model.name(), &states, trajectories);
    fit.streamed_rows = Some(blocks.read);
    Ok(fit)
}

/// Maximum likelihood in one pass over `source` ([`crate::cuee::fit_glm_stream`]).
fn mle_stream(
    model: &dyn Model,
    source: &mut dyn RowSource,
    spec: &InferenceSpec,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<Fit, InferenceError> {
    run_stream_mle(model, source, spec, progress, None, None)
}

/// Maximum likelihood of a GLM on the rows of `source`: one pass ([`crate::cuee`]) with the test
/// of whether the rows' order moved its estimate ([`crate::order`]); then, when `reread` can read
/// the rows again and `refit` asks for it (`Some(true)`) or the test (or an impossible
/// log-likelihood) finds the one-pass estimate unreliable (`None`), Newton's method in passes over
/// them ([`crate::reread`]), which gives the full-data MLE whatever the order. An unreliable
/// one-pass estimate that is not refitted is marked: not converged, its log-likelihood NaN, and a
/// warning naming the test and its p-value. `refit = Some(true)` without `reread` is an error;
/// `Some(false)` never reads again. Least squares is exact in one pass whatever the order and is
/// never refitted.
pub fn run_stream_mle(
    model: &dyn Model,
    source: &mut dyn RowSource,
    spec: &InferenceSpec,
    progress: Option<&(dyn Fn(u64) + Sync)>,
    reread: Option<&mut crate::reread::Reread<'_>>,
    refit: Option<bool>,
) -> Result<Fit, InferenceError> {
    let glm = crate::mle::as_glm(model)?;
    spec.footprint(None, Some(source.dim()), model.dim(), model.size_param()).check()?;
    // One pass keeps no rows: HC2 and HC3 need every row's leverage at the final estimate, and
    // cluster the rows' groups. HC1 is HC0 (logistic, Poisson) or HC0 times N / (N - p).
    let cov = match spec.cov_type {
        CovType::Hc2 | CovType::Hc3 | CovType::Cluster => {
            return Err(InferenceError::invalid(
                "cov_type",
                spec.cov_type.name(),
                "nonrobust, HC0 or HC1 for a streamed fit (HC2, HC3 and cluster need the rows in memory: fit them in memory)",
            ));
        }
        CovType::Hc1 => CovType::Hc0,
        c => c,
    };
    if refit == Some(true) && reread.is_none() {
        return Err(InferenceError::invalid(
            "refit",
            true,
            "false or none for a source that cannot be read again (pass a list of batches, a function returning a fresh iterable of them, or a Ray Dataset)",
        ));
    }
    let (mut one, checks) = crate::cuee::fit_glm_stream_checked(&glm, source, cov, progress)?;
    hc1_linear(&glm, spec.cov_type, &mut one);
    let (mut check, separated) = (checks.order, checks.separated_rows);
    let unreliable = !one.converged;
    let linear = glm.family == crate::Family::Linear;
    let again = !linear && refit.unwrap_or(unreliable);
    if let (true, Some(reread)) = (again, reread) {
        let (exact, passes) = crate::reread::newton_passes(&glm, reread, &one.params, cov, one.nobs, progress)?;
        let mut exact = exact;
        hc1_linear(&glm, spec.cov_type, &mut exact);
        let nobs = exact.nobs;
        let mut fit = Fit::of_glm(spec.clone(), model.name(), exact, false);
        fit.streamed_rows = Some(nobs);
        if let Some(c) = check.as_mut() {
            c.passes = passes;
        }
        fit.order = check;
        if let Some(k) = separated {
            fit.warnings.push(crate::separation::streamed_quasi(k, nobs));
        }
        return Ok(fit);
    }
    one.converged = true;
    let llf_impossible = unreliable && !check.as_ref().is_some_and(|c| c.order_effect);
    let mut fit = Fit::of_glm(spec.clone(), model.name(), one, true);
    if unreliable {
        if let Some(g) = fit.glm.as_mut() {
            g.converged = false;
        }
        fit.warnings.push(order_warning(check.as_ref().filter(|_| !llf_impossible)));
    }
    fit.order = check;
    crate::separation::diagnose_streamed(&mut fit, model);
    if let Some(k) = separated.filter(|_| !fit.warnings.iter().any(|w| w.kind == crate::WarningKind::PerfectSeparation)) {
        let rows = fit.glm.as_ref().map_or(0, |g| g.nobs);
        fit.warnings.push(crate::separation::streamed_quasi(k, rows));
    }
    Ok(fit)
}

/// The warning of a one-pass estimate that the rows' order made unreliable: the test's outcome
/// (`check`), or a logistic log-likelihood from the summed expansions above 0.
fn order_warning(check: Option<&crate::order::OrderCheck>) -> crate::Warning {
    let why = match check {
        Some(c) => format!(
            "the rows came in an order that moved the one-pass estimate: its block estimates drift more than chance allows (score fluctuation test, Zeileis & Hornik 2007: double maximum {:.2} over {} segments, p = {:.1e})",
            c.statistic, c.segments, c.pvalue
        ),
        None => "the one-pass log-likelihood, the sum of every block's second-order expansion, is above 0, which no Bernoulli likelihood is: the expansions do not hold (rows in an order, such as sorted by the response?)".to_string(),
    };
    crate::Warning::new(
        crate::WarningKind::Convergence,
        format!(
            "The one-pass estimate is not the MLE's: {why}; the estimate may be far from the MLE, and its standard errors and log-likelihood (nan) are not the MLE's. Shuffle the rows, or give a source that can be read again (a list of batches, a function returning a fresh iterable of them, a Ray Dataset) for Newton passes to the MLE"
        ),
    )
}

/// HC1 of the linear model: HC0 times `N / (N - p)` (logistic and Poisson: HC0, as statsmodels).
fn hc1_linear(glm: &crate::Glm, cov: CovType, fit: &mut crate::mle::GlmFit) {
    if cov == CovType::Hc1 && glm.family == crate::model::Family::Linear {
        let f = crate::mle::robust::hc1_factor(fit.nobs, glm.p);
        fit.cov.iter_mut().for_each(|v| *v *= f);
    }
}
