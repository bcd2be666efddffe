//! MiNES, Mirror Natural Evolution Strategies (Ye & Zhang, Alg. 1). Search distribution
//! `N(mu, alpha^2 Sigma)`; per iteration `b` antithetic pairs `mu +- alpha S^{1/2} u_i` and
//! `f(mu)` (2b + 1 evaluations), with `S = Sigma_k`:
//!
//! ```text
//! g~ = 1/b sum_i (f(mu + alpha S^{1/2} u_i) - f(mu - alpha S^{1/2} u_i)) / (2 alpha) S^{1/2} u_i              (4.6)
//! G~ = 1/(2 b alpha^2) sum_i delta_i (S^{-1/2} u_i u_i^T S^{-1/2} - S^{-1}) - S^{-1},
//!      delta_i = f(mu + ...) + f(mu - ...) - 2 f(mu)                                                       (4.13)
//! mu_{k+1} = mu_k - eta1 g~,    Sigma_{k+1}^{-1} = Pi_{S'}(Sigma_k^{-1} + eta2 G~)                          (4.14)
//! ```
//!
//! `Pi_{S'}` clips the eigenvalues of `Sigma^{-1}` to `[tau, zeta]` (4.17 with erratum 31 of NOTES
//! (f): the printed formula clips to `[1/zeta, 1/tau]`, the prose and the constraint set
//! `tau I <= Sigma^{-1} <= zeta I` say `[tau, zeta]`). The projection needs the eigendecomposition of
//! `Sigma^{-1}` every iteration (O(d^3)); it also gives the symmetric roots `S^{+-1/2}`. Erratum 30:
//! the mean step uses `S^{+1/2} u`, as Alg. 1 does. With `eta2 = 0` and `Sigma = I` MiNES is
//! Nesterov–Spokoiny (MiNES sec. 4.2).

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, EventKind, GfRng, NonFinitePolicy, ParamGuard, Population, begin_tell, rng_from_seed};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::points::{Work, write_pairs};
use crate::random_search::StepSchedule;
use crate::sizes::{non_negative, positive, thesis_population};
use crate::step_control::{Backtracker, StepControl, Verdict};
use gradfree_core::linalg::{EigenWork, gemm, gemm_nt, scaled_identity, sym_eigen};

/// Parameters of [`Mines`]; the paper gives none for its experiments (erratum 28), these are ours.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MinesParams {
    /// Antithetic pairs `b`. Default `floor(3 + floor(3 ln d)/2)`.
    pub directions: Option<usize>,
    /// Smoothing `alpha`. Default `1e-4`.
    pub alpha: Option<f64>,
    /// Mean step `eta1`. Default `min(1/2, b/(2(d+2)))` (Thm 8's `1/(2(d+2))` for `b = 1`).
    pub eta1: Option<f64>,
    /// Schedule of `eta1`. Default constant.
    pub eta1_schedule: StepSchedule,
    /// Precision step `eta2 >= 0` (0 keeps `Sigma` fixed). Default 1 with the (offset) `1/k`
    /// schedule of the theory.
    pub eta2: Option<f64>,
    /// Schedule of `eta2`. Default `inverse-k`.
    pub eta2_schedule: Option<StepSchedule>,
    /// Lower eigenvalue bound `tau` of `Sigma^{-1}`. Default 1, i.e. `Sigma <= I`: a direction is
    /// never stepped further than Nesterov–Spokoiny with the same `eta1` would, so noisy early
    /// Hessian estimates (rank `b` from `b << d` pairs) cannot blow the step up; only
    /// high-curvature directions are shrunk. The theory wants `tau` below the strong convexity.
    pub tau: Option<f64>,
    /// Upper eigenvalue bound `zeta` of `Sigma^{-1}`. Default 1e8.
    pub zeta: Option<f64>,
    /// `Sigma_1^{-1} = p I`. Default 1. The first mean step is taken with `Sigma_1` before any
    /// curvature is learned, so on a problem with curvature up to `L` use `p ~ L` (or a small `eta1`).
    pub initial_precision: Option<f64>,
    /// Offset `k0` of the `inverse-k` schedule, `eta2_k = eta2 / (k + k0)`: the precision is then the
    /// average of `Sigma_1^{-1}` (weight `k0`) and the Hessian estimates so far. Default `d`. Each
    /// estimate `G~ + S^{-1}` carries the term `-(1/(2 b alpha^2)) sum_i delta_i S^{-1}`, about
    /// `-(d/2) S^{-1}` near a quadratic's optimum, so a weight above `~2/d` on one estimate makes
    /// `Sigma^{-1}` indefinite and the projection then clips it to `tau`, which blows the next step
    /// up; `k0 = 0` (the paper's plain `1/k`) starts with weight 1.
    pub eta2_offset: Option<f64>,
    /// NaN/inf handling: under `treat-as-inf` a pair with a non-finite value is dropped, and a
    /// non-finite `f(mu)` skips the `Sigma` update of that iteration.
    pub on_nonfinite: NonFinitePolicy,
    /// Mean step-size control. Default `backtrack`: a mean step after which `f(mu)` rose is taken
    /// back and retried with half the step (backtracking; the precision update still
    /// learns from the evaluations); `none` is the paper's Alg. 1.
    pub step_control: StepControl,
}

/// [`MinesParams`] validated for one dimension ([`ParamGuard`]), every default resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MinesChecked {
    b: usize,
    alpha: f64,
    eta1: f64,
    s1: StepSchedule,
    eta2: f64,
    s2: StepSchedule,
    k0: f64,
    tau: f64,
    zeta: f64,
    policy: NonFinitePolicy,
    /// `Sigma_1^{-1} = p0 I` (only used at the start; older states lack it).
    #[serde(default = "one")]
    p0: f64,
    /// Older states: `none`, the only rule they knew.
    #[serde(default = "no_control")]
    control: StepControl,
}

fn no_control() -> StepControl {
    StepControl::None
}

fn one() -> f64 {
    1.0
}

impl ParamGuard for MinesParams {
    type Checked = MinesChecked;

    fn check(&self, d: usize) -> Result<MinesChecked, CoreError> {
        let b = self.directions.unwrap_or(thesis_population(d) / 2);
        if b == 0 {
            return Err(CoreError::invalid("directions", b, ">= 1"));
        }
        let alpha = positive("alpha", self.alpha.unwrap_or(1e-4))?;
        let eta1 = positive("eta1", self.eta1.unwrap_or((b as f64 / (2.0 * (d as f64 + 2.0))).min(0.5)))?;
        let eta2 = non_negative("eta2", self.eta2.unwrap_or(1.0))?;
        let (tau, zeta) = (self.tau.unwrap_or(1.0), self.zeta.unwrap_or(1e8));
        let p0 = self.initial_precision.unwrap_or(1.0);
        let k0 = non_negative("eta2_offset", self.eta2_offset.unwrap_or(d as f64))?;
        if !(tau.is_finite() && tau > 0.0 && zeta.is_finite() && zeta >= tau && (tau..=zeta).contains(&p0)) {
            return Err(CoreError::invalid(
                "tau, zeta, initial_precision",
                format!("[{tau}, {zeta}] and {p0}"),
                "0 < tau <= initial_precision <= zeta < inf",
            ));
        }
        Ok(MinesChecked {
            b,
            alpha,
            eta1,
            s1: self.eta1_schedule,
            eta2,
            s2: self.eta2_schedule.unwrap_or(StepSchedule::InverseK),
            k0,
            tau,
            zeta,
            policy: self.on_nonfinite,
            p0,
            control: self.step_control,
        })
    }
}

/// Per-iteration buffers of [`Mines`].
#[derive(Clone, Debug, Default)]
struct MinesWork {
    vals: Vec<f64>,
    pairs: Vec<usize>,
    g: Vec<f64>,
    scaled: Vec<f64>,
    root: Vec<f64>,
    prec: Vec<f64>,
    w: Vec<f64>,
    sym: Vec<f64>,
    evals: Vec<f64>,
    vecs: Vec<f64>,
    eig: EigenWork,
}

/// MiNES (Ye & Zhang, Alg. 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mines {
    p: MinesChecked,
    mu: Vec<f64>,
    /// Eigenvectors (columns) of `Sigma^{-1}`, column-major.
    v: Vec<f64>,
    /// Eigenvalues of `Sigma^{-1}`, in `[tau, zeta]`.
    lam: Vec<f64>,
    u: Vec<f64>,
    /// `S^{1/2} u_i`, `d x b`.
    y: Vec<f64>,
    rng: GfRng,
    k: u64,
    pending: bool,
    last_step: f64,
    hessian: Vec<f64>,
    /// Eigenvalues clipped by the last projection (an event is sent when this changes).
    #[serde(default)]
    clipped: usize,
    /// The numerical failure that ended the run, if any ([`AskTell::failure`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    /// Backtracking state (older states: none).
    #[serde(default = "Backtracker::new")]
    backtrack: Backtracker,
    #[serde(skip)]
    events: Vec<Event>,
    #[serde(skip)]
    work: Work<MinesWork>,
}

impl Mines {
    /// Starts at `mu = x0` with `Sigma_1 = I / initial_precision`.
    pub fn new(x0: Vec<f64>, params: &MinesParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, 1.0)?;
        let d = x0.len();
        let p = params.check(d)?;
        crate::sizes::check_footprint("MiNES", d, p.b.saturating_mul(2), crate::sizes::Footprint::Full)?;
        let (b, p0, alpha) = (p.b, p.p0, p.alpha);
        Ok(Mines {
            v: scaled_identity(d, 1.0),
            lam: vec![p0; d],
            u: vec![0.0; d * b],
            y: vec![0.0; d * b],
            hessian: vec![0.0; d * d],
            p,
            mu: x0,
            rng: rng_from_seed(seed),
            k: 0,
            pending: false,
            last_step: alpha,
            clipped: 0,
            failure: None,
            backtrack: Backtracker::new(),
            events: Vec::new(),
            work: Work::default(),
        })
    }

    /// Eigenvalues of the current `Sigma^{-1}` (ascending, within `[tau, zeta]`).
    pub fn precision_eigenvalues(&self) -> &[f64] {
        &self.lam
    }

    /// The current `Sigma^{-1}`, column-major.
    pub fn precision(&self) -> Vec<f64> {
        let d = self.dim();
        let (mut out, mut scaled) = (vec![0.0; d * d], Vec::new());
        sym_fn(&self.v, &self.lam, d, |l| l, &mut scaled, &mut out);
        out
    }

    /// The last Hessian estimate `G~ + S^{-1}` (column-major): with `eta2 = 1` this is the precision
    /// before projection; on a quadratic its expectation is the Hessian (NOTES (g)).
    pub fn hessian_estimate(&self) -> &[f64] {
        &self.hessian
    }

    /// `Pi_{S'}`: eigenvalues of the symmetric part of `work.sym` clipped to `[tau, zeta]`;
    /// stores `V`, `lambda`.
    fn project(&mut self) -> Result<(), CoreError> {
        let d = self.dim();
        let w = &mut self.work.0;
        let sym = &mut w.sym;
        for i in 0..d {
            for j in 0..i {
                let a = 0.5 * (sym[j * d + i] + sym[i * d + j]);
                sym[j * d + i] = a;
                sym[i * d + j] = a;
            }
        }
        w.evals.resize(d, 0.0);
        w.vecs.resize(d * d, 0.0);
        if !sym_eigen(&w.sym, d, &mut w.evals, Some(&mut w.vecs), &mut w.eig) {
            self.failure = Some(format!("mines: eigendecomposition failed at iteration {}", self.k));
            return Ok(());
        }
        let clipped = w.evals.iter().filter(|v| **v < self.p.tau || **v > self.p.zeta).count();
        if clipped != self.clipped {
            self.events.push(Event {
                kind: EventKind::Projection,
                message: format!("iteration {}: {clipped} eigenvalue(s) of Sigma^-1 clipped to [tau, zeta] (was {})", self.k, self.clipped),
            });
            self.clipped = clipped;
        }
        for (l, v) in self.lam.iter_mut().zip(&w.evals) {
            *l = v.clamp(self.p.tau, self.p.zeta);
        }
        std::mem::swap(&mut self.v, &mut w.vecs);
        Ok(())
    }
}

/// Step size `eta` at iteration `k` under schedule `s`.
fn step(eta: f64, s: StepSchedule, offset: f64, k: u64) -> f64 {
    match s {
        StepSchedule::Constant => eta,
        StepSchedule::InverseK => eta / (k as f64 + offset),
    }
}

/// `out <- V diag(f(lam)) V^T` (`V` column-major `d x d`); `scaled` is scratch.
fn sym_fn(v: &[f64], lam: &[f64], d: usize, f: impl Fn(f64) -> f64, scaled: &mut Vec<f64>, out: &mut [f64]) {
    scaled.clear();
    scaled.extend_from_slice(v);
    for (col, &l) in scaled.chunks_exact_mut(d).zip(lam) {
        let s = f(l);
        col.iter_mut().for_each(|x| *x *= s);
    }
    gemm_nt(scaled, d, d, v, d, out);
}

impl AskTell for Mines {
    fn name(&self) -> &'static str {
        "mines"
    }

    fn dim(&self) -> usize {
        self.mu.len()
    }

    fn population_size(&self) -> usize {
        2 * self.p.b + 1
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, b) = (self.dim(), self.p.b);
        if !self.pending {
            self.u.iter_mut().for_each(|v| *v = StandardNormal.sample(&mut self.rng));
            let w = &mut self.work.0;
            w.root.resize(d * d, 0.0);
            sym_fn(&self.v, &self.lam, d, |l| 1.0 / l.sqrt(), &mut w.scaled, &mut w.root);
            gemm(&w.root, d, d, &self.u, b, &mut self.y);
            self.pending = true;
        }
        out.resize(2 * b + 1, d);
        let alpha = self.p.alpha;
        write_pairs(out, &self.mu, alpha, &self.y);
        out.row_mut(2 * b).copy_from_slice(&self.mu);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, b) = (self.dim(), self.p.b);
        let w = &mut self.work.0;
        begin_tell(&mut self.pending, population, values, (d, 2 * b + 1), self.p.policy, &mut w.vals)?;
        self.k = self.k.saturating_add(1);
        let alpha = self.p.alpha;
        let vals = &w.vals;
        let f0 = vals[2 * b];
        w.pairs.clear();
        w.pairs.extend((0..b).filter(|&i| vals[2 * i].is_finite() && vals[2 * i + 1].is_finite()));
        if w.pairs.len() < b {
            self.events.push(Event {
                kind: EventKind::DroppedPairs,
                message: format!("iteration {}: {} of {b} pairs dropped for non-finite values", self.k, b - w.pairs.len()),
            });
        }
        let eta1 = step(self.p.eta1, self.p.s1, 0.0, self.k);
        // Backtracking: the level is f(mu), with the spread of the pair means as its tolerance.
        let mut level = None;
        let mut rejected = false;
        if self.p.control == StepControl::Backtrack {
            w.scaled.clear();
            w.scaled.extend(w.pairs.iter().map(|&i| 0.5 * (vals[2 * i] + vals[2 * i + 1])));
            let spread = if w.scaled.is_empty() { 0.0 } else { gradfree_core::stats::mean_sd(&w.scaled).1 };
            let l = (if f0.is_nan() { f64::INFINITY } else { f0 }, spread);
            if let Verdict::Rejected(s) = self.backtrack.judge(l, &mut self.mu, eta1, self.k, &mut self.events) {
                self.last_step = s;
                rejected = true;
            }
            level = Some(l);
        }
        if w.pairs.is_empty() {
            if !rejected {
                self.last_step = 0.0;
            }
            return Ok(());
        }
        let used = w.pairs.len() as f64;
        if !rejected {
            // Mean: mu -= eta1 g~, g~ = 1/b sum (f+ - f-)/(2 alpha) S^{1/2} u_i.
            w.g.clear();
            w.g.resize(d, 0.0);
            for &i in &w.pairs {
                let c = (vals[2 * i] - vals[2 * i + 1]) / (2.0 * alpha * used);
                for (gj, yj) in w.g.iter_mut().zip(&self.y[i * d..(i + 1) * d]) {
                    *gj += c * yj;
                }
            }
            if let Some(l) = level
                && l.0.is_finite()
            {
                self.backtrack.record(&self.mu, &w.g, l);
            }
            let eta1 = eta1 * self.backtrack.factor;
            self.last_step = crate::points::descend(&mut self.mu, w.g.iter().map(|g| eta1 * g));
        }
        // Precision: P <- Pi((1 - eta2) P + eta2 H~), H~ = G~ + S^{-1}.
        let eta2 = step(self.p.eta2, self.p.s2, self.p.k0, self.k);
        if eta2 == 0.0 {
            return Ok(());
        }
        if !f0.is_finite() {
            self.events.push(Event { kind: EventKind::NoSigmaUpdate, message: format!("iteration {}: f(mu) not finite", self.k) });
            return Ok(());
        }
        w.prec.resize(d * d, 0.0);
        w.root.resize(d * d, 0.0);
        sym_fn(&self.v, &self.lam, d, |l| l, &mut w.scaled, &mut w.prec);
        sym_fn(&self.v, &self.lam, d, |l| l.sqrt(), &mut w.scaled, &mut w.root);
        w.w.resize(d * b, 0.0);
        gemm(&w.root, d, d, &self.u, b, &mut w.w);
        let h = &mut self.hessian;
        h.iter_mut().for_each(|v| *v = 0.0);
        let mut dsum = 0.0;
        for &i in &w.pairs {
            let delta = (vals[2 * i] + vals[2 * i + 1] - 2.0 * f0) / (2.0 * used * alpha * alpha);
            dsum += delta;
            let wi = &w.w[i * d..(i + 1) * d];
            for c in 0..d {
                let dc = delta * wi[c];
                for (hv, &wr) in h[c * d..(c + 1) * d].iter_mut().zip(wi) {
                    *hv += dc * wr;
                }
            }
        }
        for (hv, pv) in h.iter_mut().zip(&w.prec) {
            *hv -= dsum * pv;
        }
        w.sym.clear();
        w.sym.extend(w.prec.iter().zip(h.iter()).map(|(p, hv)| (1.0 - eta2) * p + eta2 * hv));
        self.project()
    }

    crate::mean_and_last_step!();

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}

/// Restored-state invariants: sizes from `d` and the number of directions, `0 < tau <= zeta`, the
/// eigenvalues of `Sigma^{-1}` inside `[tau, zeta]` (the projection (4.17) keeps them there),
/// finite vectors and positive rates.
impl StateCheck for Mines {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        let p = &self.p;
        chk::count("directions", p.b, 1, usize::MAX)?;
        crate::sizes::state_sizes("MiNES", d, p.b.saturating_mul(2), crate::sizes::Footprint::Full)?;
        chk::positive("alpha", p.alpha)?;
        chk::positive("eta1", p.eta1)?;
        chk::non_negative("eta2", p.eta2)?;
        chk::non_negative("eta2_offset", p.k0)?;
        chk::positive("tau", p.tau)?;
        chk::in_range("zeta", p.zeta, p.tau, f64::MAX)?;
        chk::finite("mu", &self.mu)?;
        chk::square("v", &self.v, d)?;
        chk::len("lam", &self.lam, d)?;
        if let Some(i) = self.lam.iter().position(|l| !(*l >= p.tau && *l <= p.zeta)) {
            return Err(format!("lam[{i}] = {}: must be in [tau, zeta] = [{}, {}]", self.lam[i], p.tau, p.zeta));
        }
        let db = chk::checked_len("u", d, p.b)?;
        chk::finite_len("u", &self.u, db)?;
        chk::finite_len("y", &self.y, db)?;
        chk::square("hessian", &self.hessian, d)?;
        chk::non_negative("last_step", self.last_step)?;
        chk::count("clipped", self.clipped, 0, d)?;
        self.backtrack.check(d)
    }
}
