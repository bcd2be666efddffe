//! IGO with a full covariance: the explicit natural-gradient step on `(mu, Sigma)` (Ollivier et
//! al. 2017), the baseline of thesis sec. 3.7.1, with the same score transform and step size as
//! INGO so that only the implicit-vs-explicit update differs.
//!
//! With `Sigma_t = A_t A_t^T` (lower Cholesky factor kept in the state), `x_i = mu_t + A_t z_i`:
//!
//! ```text
//! Sigma_{t+1} = Sigma_t - beta sum_i s_i ((x_i - mu_t)(x_i - mu_t)^T - Sigma_t)
//! mu_{t+1}    = mu_t - beta sum_i s_i (x_i - mu_t)
//! ```
//!
//! (the natural gradient of `E f` in `(mu, Sigma)`, descended; `sum_i s_i = 0` for normalized
//! scores, `sum_i w_i = 1` for log-rank weights, giving `(1 + beta) Sigma_t - ...`). The covariance
//! step is a rank-N update of `A` with the same positive-definiteness backtracking as INGO: the
//! explicit step is the one that leaves the cone, which is why the thesis finds IGO unstable at
//! high precision.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, NonFinitePolicy, ParamGuard, Population};
use serde::{Deserialize, Deserializer, Serialize};

use super::{RankScratch, Sampling, ScoreTransform, pd_rank_update, report_pd};
use crate::points::{Work, write_points};
use crate::progress::Progress;
use crate::sizes::{popsize, thesis_population, unit_open};
use gradfree_core::linalg::{mul_l, scaled_identity};

/// Parameters of [`Igo`]; `None` takes the default. Population, step size `beta`, score
/// transform and samples are INGO's (thesis sec. 3.7.1), so that only the explicit-vs-implicit
/// update differs; INGO's `step_size` and `mean_rate` options have no IGO counterpart.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IgoParams {
    /// Samples per generation `N`. Default `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Step size `beta`, in (0, 1). Default `1/d`, capped at 1/2.
    pub beta: Option<f64>,
    /// Score transform. Default: normalized (3.25).
    pub score: ScoreTransform,
    /// How the `z_i` are drawn. Default i.i.d.
    pub sampling: Sampling,
    /// Halvings of the covariance step before giving up on a generation's update. Default 20.
    pub max_backtracks: Option<u32>,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

/// [`IgoParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IgoChecked {
    n: usize,
    beta: f64,
}

impl ParamGuard for IgoParams {
    type Checked = IgoChecked;

    fn check(&self, d: usize) -> Result<IgoChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        self.sampling.check(n)?;
        let beta = unit_open("beta", self.beta.unwrap_or((1.0 / d as f64).min(0.5)))?;
        Ok(IgoChecked { n, beta })
    }
}

/// Reads the parameters of a saved state; states written when IGO shared INGO's parameter type
/// carry INGO's `step_size` and `mean_rate`, which IGO never used: they are dropped.
fn saved_params<'de, D: Deserializer<'de>>(d: D) -> Result<IgoParams, D::Error> {
    let mut v = serde_json::Value::deserialize(d)?;
    if let Some(m) = v.as_object_mut() {
        m.remove("step_size");
        m.remove("mean_rate");
    }
    serde_json::from_value(v).map_err(serde::de::Error::custom)
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    s: Vec<f64>,
    neg_s: Vec<f64>,
    order: Vec<usize>,
    rank: RankScratch,
}

/// IGO with full covariance (explicit natural gradient).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Igo {
    #[serde(deserialize_with = "saved_params")]
    p: IgoParams,
    n: usize,
    beta: f64,
    mu: Vec<f64>,
    /// Lower Cholesky factor of the covariance, column-major.
    a: Vec<f64>,
    z: Vec<f64>,
    y: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

/// Equality of the algorithm state (scratch and undelivered events excluded).
impl PartialEq for Igo {
    fn eq(&self, o: &Self) -> bool {
        (&self.p, self.n, self.beta.to_bits(), &self.mu, &self.a, &self.z, &self.progress)
            == (&o.p, o.n, o.beta.to_bits(), &o.mu, &o.a, &o.z, &o.progress)
    }
}

impl Igo {
    /// The coordinates' standard deviations `sqrt(Sigma_ii)`, the norms of the rows of `A`.
    fn coordinate_sds(&self) -> impl Iterator<Item = f64> + '_ {
        let d = self.dim();
        (0..d).map(move |i| (0..=i).map(|k| self.a[k * d + i].powi(2)).sum::<f64>().sqrt())
    }

    /// Starts at `mu_1 = x0` with `Sigma_1 = sigma0^2 I`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &IgoParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let IgoChecked { n, beta } = params.check(d)?;
        crate::sizes::check_footprint("IGO", d, n, crate::sizes::Footprint::Full)?;
        Ok(Igo {
            p: params.clone(),
            n,
            beta,
            a: scaled_identity(d, sigma0),
            z: vec![0.0; d * n],
            y: vec![0.0; d * n],
            mu: x0,
            progress: Progress::new(seed),
            scratch: Work::default(),
        })
    }

    /// Lower Cholesky factor `A` of the covariance, column-major.
    pub fn covariance_factor(&self) -> &[f64] {
        &self.a
    }
}

impl AskTell for Igo {
    crate::identity!("igo", dim = mu, popsize = n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let (sampling, a, z, y) = (self.p.sampling, &self.a, &mut self.z, &mut self.y);
        self.progress.draw_once(|rng| {
            sampling.fill(rng, d, n, z);
            mul_l(a, d, z, n, y);
        });
        write_points(out, &self.mu, 1.0, &self.y);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, n), self.p.on_nonfinite, &mut sc.vals)?;
        sc.s.resize(n, 0.0);
        if let Err(why) = self.p.score.compute(&sc.vals, &mut sc.s, &mut sc.order) {
            self.progress.event(EventKind::NoUpdate, format!("{why:?} values, distribution unchanged"));
            return Ok(());
        }
        let beta = self.beta;
        // Mean with Sigma_t: mu -= beta sum_i s_i y_i, y_i = A z_i = x_i - mu.
        for (y, &si) in self.y.chunks_exact(d).zip(&sc.s) {
            for (m, yi) in self.mu.iter_mut().zip(y) {
                *m -= beta * si * yi;
            }
        }
        sc.neg_s.clear();
        sc.neg_s.extend(sc.s.iter().map(|v| -v));
        let log_rank = self.p.score == ScoreTransform::LogRank;
        let keep = |step: f64| if log_rank { 1.0 + step } else { 1.0 };
        let max_bt = self.p.max_backtracks.unwrap_or(20);
        let outcome = pd_rank_update(&mut self.a, d, &self.y, &self.z, &sc.neg_s, beta, keep, max_bt, &mut sc.rank);
        report_pd(&outcome, &mut self.progress);
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.mu
    }

    crate::coordinate_spread!();

    /// `A <- factor A`.
    fn shrink_spread(&mut self, factor: f64) {
        self.a.iter_mut().for_each(|v| *v *= factor);
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes, finite mean and factor `A` of `Sigma = A A^T`, parameters.
impl StateCheck for Igo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("IGO", d, self.n, crate::sizes::Footprint::Full)?;
        self.p.sampling.check(self.n).map_err(|e| e.to_string())?;
        chk::in_range("beta", self.beta, f64::MIN_POSITIVE, 1.0 - f64::EPSILON)?;
        chk::finite("mu", &self.mu)?;
        chk::square("a", &self.a, d)?;
        let dn = chk::checked_len("z", d, self.n)?;
        chk::finite_len("z", &self.z, dn)?;
        chk::finite_len("y", &self.y, dn)
    }
}
