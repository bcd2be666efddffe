//! The batch selection rules (thesis ch. 4 and its baselines), written for minimization in the
//! GP's standardized units: each takes a GP conditioned on the observations (and on pending
//! points, hallucinated at their posterior mean) and returns `count` points of the unit cube.
//! One registry entry per rule ([`METHODS`]) is the only place its name and summary are written.

pub mod bkop;
pub mod bull;
pub mod ei;
pub mod gp_bucb;
pub mod gp_ucb_pe;
pub mod ucb;

use serde::{Deserialize, Serialize};

use crate::inner::InnerOptions;
use crate::{BoError, Gp, Space};

/// A batch selection rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Constant-weight UCB (Alg. 5/7), one point at a time; a batch is filled with hallucinated
    /// observations.
    Ucb,
    /// The thesis' batch rule (Alg. 6/8, "BKOP"): the batch chosen jointly over `L·d` variables.
    #[default]
    Bkop,
    /// GP-BUCB (Desautels, Krause & Burdick 2014).
    GpBucb,
    /// GP-UCB-PE (Contal, Buffoni, Robicquet & Vayatis 2013).
    GpUcbPe,
    /// Bull's non-adaptive batch (Bull 2011, §4.7.1): a fixed design, then the minimizer of the
    /// posterior mean.
    Bull,
    /// Expected improvement (Jones et al. 1998) in logarithms; batches by the Kriging believer.
    Ei,
}

/// One registry entry: a selection rule with its name (in the CLI, Python and logs), summary and
/// source.
pub type MethodSpec = gradfree_core::registry::Choice<Method>;

/// Every batch selection rule.
pub const METHODS: &[MethodSpec] = &[
    MethodSpec {
        value: Method::Bkop,
        name: "bkop",
        summary: "batch chosen jointly: mean of the batch minus weight x (2 sqrt(tr C/L) - sqrt(1'C1/L^2))",
        source: "thesis Alg. 6/8, eq. 4.17",
    },
    MethodSpec {
        value: Method::Ucb,
        name: "ucb",
        summary: "constant-weight confidence bound mu - w sigma; batches by hallucinated observations",
        source: "thesis Alg. 5/7",
    },
    MethodSpec {
        value: Method::GpBucb,
        name: "gp-bucb",
        summary: "GP-UCB with sqrt(beta_t) and the variance updated by hallucinated observations",
        source: "Desautels, Krause & Burdick 2014",
    },
    MethodSpec {
        value: Method::GpUcbPe,
        name: "gp-ucb-pe",
        summary: "one UCB point, then pure exploration (max variance) inside the relevant region",
        source: "Contal et al. 2013",
    },
    MethodSpec {
        value: Method::Bull,
        name: "bull",
        summary: "non-adaptive: a fixed lattice design of T-1 points, then the minimizer of the posterior mean",
        source: "Bull 2011, thesis sec. 4.7.1",
    },
    MethodSpec {
        value: Method::Ei,
        name: "ei",
        summary: "expected improvement over the best fitted mean (log EI); batches by the Kriging believer",
        source: "Jones, Schonlau & Welch 1998; Ginsbourger et al. 2010",
    },
];

impl Method {
    /// Parses a registry name.
    pub fn parse(s: &str) -> Result<Self, BoError> {
        MethodSpec::parse(METHODS, s).ok_or_else(|| BoError::invalid("method", format!("'{s}'"), gradfree_core::registry::names(METHODS)))
    }

    /// The registry entry.
    pub fn spec(self) -> &'static MethodSpec {
        MethodSpec::of(METHODS, self)
    }

    /// The registry name.
    pub fn name(self) -> &'static str {
        self.spec().name
    }
}

/// What every rule gets.
pub struct Context<'a> {
    /// The GP, conditioned on the observations and the pending points.
    pub gp: &'a Gp,
    /// The search space (discrete coordinates are rounded inside the acquisition).
    pub space: &'a Space,
    /// Budget of the inner CMA-ES.
    pub inner: &'a InnerOptions,
    /// Seed of this selection.
    pub seed: u64,
    /// Unit-cube points to start the inner search from, best first (the best observations).
    pub starts: &'a [Vec<f64>],
    /// Points observed or pending before this batch (the `t` of `beta_t`).
    pub t: usize,
    /// Weight of the exploration term for `ucb` and `bkop`.
    pub weight: f64,
    /// `beta_t` override for `gp-bucb` and `gp-ucb-pe` (default [`beta_t`]).
    pub beta: Option<f64>,
}

impl Context<'_> {
    /// `beta_t` for the `k`-th point of the batch.
    pub fn beta(&self, k: usize) -> f64 {
        self.beta.unwrap_or_else(|| beta_t(self.space.dim(), self.t + k + 1))
    }
}

/// The confidence parameter of GP-BUCB and GP-UCB-PE: `beta_t = 0.2 d ln(2t)`, the practical
/// schedule of Kandasamy, Schneider & Póczos (2015, §5) for Srinivas et al.'s `beta_t`, whose
/// theoretical constants over-explore (kept equal for both baselines so they differ only in
/// their rules).
pub fn beta_t(d: usize, t: usize) -> f64 {
    (0.2 * d as f64 * (2.0 * t.max(1) as f64).ln()).max(1e-3)
}

/// Standardized mean and standard deviation at `u` after rounding its discrete coordinates.
pub(crate) fn mean_sd(gp: &Gp, space: &Space, u: &[f64], buf: &mut Vec<f64>, rounded: &mut Vec<f64>) -> (f64, f64) {
    rounded.clear();
    rounded.extend_from_slice(u);
    space.round_unit(rounded);
    buf.resize(gp.len(), 0.0);
    let (m, v) = gp.predict_std(rounded, buf);
    (m, v.sqrt())
}

/// Per-start scratch of the single-point rules.
#[derive(Default)]
pub(crate) struct PointScratch {
    pub buf: Vec<f64>,
    pub rounded: Vec<f64>,
    pub aux: Vec<f64>,
}

/// Minimizes `score(mean, sd, rounded point, scratch)` over single points of the cube, rounding
/// discrete coordinates.
pub(crate) fn minimize_point<F>(ctx: &Context<'_>, gp: &Gp, seed: u64, score: F) -> Result<Vec<f64>, BoError>
where
    F: Fn(f64, f64, &[f64], &mut Vec<f64>) -> f64 + Sync,
{
    let d = ctx.space.dim();
    let (mut u, _) = crate::inner::minimize_in_cube::<PointScratch, _>(d, ctx.starts, ctx.inner, seed, |u, s| {
        let (m, sd) = mean_sd(gp, ctx.space, u, &mut s.buf, &mut s.rounded);
        score(m, sd, &s.rounded, &mut s.aux)
    })?;
    ctx.space.round_unit(&mut u);
    Ok(u)
}

/// Selects `count` points (row-major, unit cube) with `method`.
pub fn select(method: Method, ctx: &Context<'_>, count: usize) -> Result<Vec<f64>, BoError> {
    match method {
        Method::Ucb => ucb::select(ctx, count),
        Method::Bkop => bkop::select(ctx, count),
        Method::GpBucb => gp_bucb::select(ctx, count),
        Method::GpUcbPe => gp_ucb_pe::select(ctx, count),
        Method::Bull => bull::select(ctx, count),
        Method::Ei => ei::select(ctx, count),
    }
}
