//! Batch Bayesian optimization as an ask/tell state machine ([`AskTell`] with
//! [`AskTell::accepts_any_points`]): `ask_batch_into(L)` proposes `L` points while other
//! evaluations may be pending, `tell` takes any evaluated points (the initial design, late
//! results of workers, points nobody asked for). The first points come from a rank-1 lattice of
//! large packing radius (thesis Alg. 9/10) rescaled to the box; after that each batch is chosen
//! by the GP and the selection rule, with pending points hallucinated at their posterior mean.
//! Drivers, budgets, logs and checkpoints are the same as for the evolution strategies.

use gradfree_core::{AskTell, CoreError, Event, EventKind, GfRng, NonFinitePolicy, Population, StateCheck, derive_seed, rng_from_seed};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::acquisition::{Context, Method, select};
use crate::gp::fit::{FitOptions, NoiseModel, fit};
use crate::inner::InnerOptions;
use crate::kernel::{Hyper, KernelKind};
use crate::{BoError, Space};

/// Largest dimension [`BatchBo`] accepts.
pub const MAX_DIM: usize = 100;
/// Largest initial design (an exact GP costs O(n³) per fit).
pub const MAX_DESIGN: usize = 1000;

/// The default size of the initial design, `max(10, 3d + 2)` (20 at d = 6, as in §4.7.2).
pub fn default_n_initial(d: usize) -> usize {
    d.saturating_mul(3).saturating_add(2).max(10)
}

/// Parameters of [`BatchBo`]; the defaults are the thesis' settings (§4.7.2) where it gives them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BoParams {
    /// Selection rule (default `bkop`).
    pub method: Method,
    /// Points per `ask()` (default 5; `ask_batch(n)` asks for any other number).
    #[schemars(extend("x-cli" = "batch"))]
    pub batch_size: usize,
    /// Size of the initial lattice design (default `max(10, 3d + 2)`, 20 at d = 6 as in §4.7.2;
    /// Bull's method: the budget minus one).
    pub n_initial: Option<usize>,
    /// Kernel (default Matérn 5/2 with ARD length scales, as in §4.7.2).
    pub kernel: KernelKind,
    /// Noise model (default: learned, at least 1e-6 in standardized units).
    pub noise: NoiseModel,
    /// Weight of the exploration term of `ucb` and `bkop` (default 1, §4.7.2).
    pub weight: f64,
    /// Fixed `beta_t` for `gp-bucb` and `gp-ucb-pe` (default: the schedule `0.2 d ln(2t)`).
    pub beta: Option<f64>,
    /// Budget of the inner CMA-ES (its keywords are those of [`InnerOptions`], prefixed `acq_`).
    pub inner: InnerOptions,
    /// Random starts of the hyper-parameter fit besides the previous optimum and the default (3),
    /// on the first fit and every 5th round.
    #[schemars(extend("x-cli" = "", "x-python" = ""))]
    pub fit_restarts: usize,
    /// NaN or infinite values: an error, or a failed evaluation recorded at the worst finite
    /// value seen so the model learns to avoid the region.
    pub on_nonfinite: NonFinitePolicy,
    /// Total evaluations, needed by `bull` only (its design has `budget − 1` points). The command
    /// line gives it from the design and `--rounds`.
    #[schemars(extend("x-cli" = ""))]
    pub budget: Option<usize>,
    /// Seed of a uniform random shift of the lattice design (modulo 1, which keeps its packing
    /// radius on the torus), so repeated runs start from different designs; `None` (default):
    /// the fixed half-cell shift.
    #[schemars(extend("x-cli" = ""))]
    pub design_seed: Option<u64>,
}

impl Default for BoParams {
    fn default() -> Self {
        BoParams {
            method: Method::Bkop,
            batch_size: 5,
            n_initial: None,
            kernel: KernelKind::Matern52,
            noise: NoiseModel::default(),
            weight: 1.0,
            beta: None,
            inner: InnerOptions::default(),
            fit_restarts: 3,
            on_nonfinite: NonFinitePolicy::Error,
            budget: None,
            design_seed: None,
        }
    }
}

impl BoParams {
    /// Checks every parameter for dimension `d`; returns the size of the initial design.
    pub fn check(&self, d: usize) -> Result<usize, BoError> {
        if d == 0 || d > MAX_DIM {
            return Err(BoError::invalid(
                "dim",
                d,
                format!("in 1..={MAX_DIM} (Bayesian optimization is for low-dimensional problems; use an evolution strategy beyond)"),
            ));
        }
        if self.batch_size == 0 || self.batch_size > 1000 {
            return Err(BoError::invalid("batch_size", self.batch_size, "an integer in 1..=1000"));
        }
        if !(self.weight.is_finite() && self.weight >= 0.0) {
            return Err(BoError::invalid("weight", self.weight, "finite and >= 0"));
        }
        if let Some(b) = self.beta.filter(|b| !(b.is_finite() && *b > 0.0)) {
            return Err(BoError::invalid("beta", b, "finite and > 0"));
        }
        if self.fit_restarts > 1000 {
            return Err(BoError::invalid("fit_restarts", self.fit_restarts, "at most 1000"));
        }
        self.inner.validate()?;
        FitOptions { kernel: self.kernel, noise: self.noise, ..FitOptions::default() }.validate()?;
        let n = match (self.method, self.budget) {
            (Method::Bull, None) => {
                return Err(BoError::invalid("budget", "none", "the total number of evaluations (bull fixes budget - 1 design points)"));
            }
            (Method::Bull, Some(b)) if b < 2 => return Err(BoError::invalid("budget", b, "at least 2 for bull")),
            (Method::Bull, Some(b)) => b - 1,
            _ => self.n_initial.unwrap_or_else(|| default_n_initial(d)),
        };
        if n == 0 || n > MAX_DESIGN {
            return Err(BoError::invalid("n_initial", n, format!("an integer in 1..={MAX_DESIGN}")));
        }
        Ok(n)
    }
}

/// The initial design: Algorithm 10 (the thesis' M = 50 primes, [`gradfree_qmc::lattice::search::SearchSpec`]; for
/// d = 1 its vector `[1]`) for `n` points in
/// `[0, 1]^d`, shifted modulo
/// 1 by `shift` (default half a cell, so no point sits on the box's corner); the box's centre
/// when `n = 1`. The points `x_k = {k z / n + shift}` are handed out in van der Corput order,
/// `k_i = ⌈φ₂(i) n⌉` for `i = 0, 1, ...` (`φ₂` the base-2 radical inverse, repeats skipped), not
/// in the order of `k`, whose first coordinate `k/n` grows monotonically: every prefix of `2^j ≤ n`
/// points has one point in each `1/2^j` slab of the first coordinate, so a run that asks the
/// design one point at a time and stops early has spread points, not one end of the box.
pub fn lattice_design(d: usize, n: usize, shift: Option<&[f64]>) -> Result<Vec<f64>, BoError> {
    if n == 1 {
        return Ok(vec![0.5; d]);
    }
    let bad = |e: gradfree_qmc::QmcError| BoError::BadInput(format!("initial design: {e}"));
    // In one dimension Algorithm 10's vector is b = [1]: the n evenly spaced points (it needs d >= 2).
    // With n = 2 (Algorithm 10 needs n >= 3), the two points on the diagonal.
    let z =
        if d == 1 || n < 3 { vec![1; d] } else { gradfree_qmc::lattice::search::SearchSpec::default().alg10(d, n as u64).map_err(bad)?.z };
    let lat = gradfree_qmc::lattice::Rank1Lattice::new(n as u64, z).map_err(bad)?;
    let half = vec![0.5 / n as f64; d];
    let shift = shift.unwrap_or(&half);
    let points = lat.points();
    Ok(van_der_corput_order(n).iter().flat_map(|&k| points[k * d..(k + 1) * d].iter().zip(shift).map(|(v, s)| (v + s).fract())).collect())
}

/// `0..n` (`n >= 2`) as `k_i = ⌈φ₂(i) n⌉`, `i = 0, 1, ..., 2^b − 1` with `2^b ≥ n`, repeats and `n`
/// skipped: `φ₂(i) = rev_b(i) / 2^b` (the `b`-bit reversal of `i`). The values `⌈j n / 2^b⌉`,
/// `j < 2^b`, step by at most 1 from 0 to at least `n − 1`, so every index appears.
fn van_der_corput_order(n: usize) -> Vec<usize> {
    let b = n.next_power_of_two().trailing_zeros();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for i in 0..1u64 << b {
        let t = i.reverse_bits() >> (64 - b);
        let k = ((t * n as u64).div_ceil(1 << b)) as usize;
        if k < n && !seen[k] {
            seen[k] = true;
            order.push(k);
        }
    }
    debug_assert_eq!(order.len(), n);
    order
}

/// Proposals closer than this to an evaluated or pending point in every unit-cube coordinate
/// count as repeats (1e-4 of the box: a hundredth of the shortest length scale the fit allows, so
/// the GP learns nothing new there).
pub const DUPLICATE_TOLERANCE: f64 = 1e-4;

/// The shift of the lattice design: seeded by `design_seed`, else `None` (half a cell).
fn design_shift(params: &BoParams, d: usize) -> Option<Vec<f64>> {
    params.design_seed.map(|s| {
        let mut r = rng_from_seed(derive_seed(s, 0x6465));
        (0..d).map(|_| r.random::<f64>()).collect()
    })
}

/// Batch Bayesian optimization (thesis ch. 4) over a [`Space`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BatchBo {
    params: BoParams,
    space: Space,
    seed: u64,
    /// Initial design, unit cube, row-major.
    design: Vec<f64>,
    design_used: usize,
    /// Whether the design was given by [`BatchBo::set_design`] (else it is the lattice).
    #[serde(default)]
    custom_design: bool,
    /// Finite observations: unit-cube points and values.
    x: Vec<f64>,
    y: Vec<f64>,
    /// Points whose evaluation failed (non-finite under `treat-as-inf`).
    failed: Vec<f64>,
    /// Asked and not yet told, unit cube.
    pending: Vec<f64>,
    hyper: Option<Hyper>,
    round: u64,
    best_x: Vec<f64>,
    best_f: f64,
    rng: GfRng,
    #[serde(skip)]
    events: Vec<Event>,
    #[serde(skip)]
    failure: Option<String>,
}

impl BatchBo {
    /// A fresh optimizer; the parameters and the space are checked here.
    pub fn new(space: Space, params: BoParams, seed: u64) -> Result<Self, BoError> {
        let d = space.dim();
        let n = params.check(d)?;
        let design = lattice_design(d, n, design_shift(&params, d).as_deref())?;
        let mut centre = vec![0.0; d];
        space.from_unit(&vec![0.5; d], &mut centre);
        Ok(BatchBo {
            params,
            space,
            seed,
            design,
            design_used: 0,
            custom_design: false,
            x: Vec::new(),
            y: Vec::new(),
            failed: Vec::new(),
            pending: Vec::new(),
            hyper: None,
            round: 0,
            best_x: centre,
            best_f: f64::INFINITY,
            rng: rng_from_seed(derive_seed(seed, 0x626f)),
            events: Vec::new(),
            failure: None,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &BoParams {
        &self.params
    }

    /// The search space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Number of finite observations.
    pub fn observations(&self) -> usize {
        self.y.len()
    }

    /// Points asked for and not yet told.
    pub fn pending(&self) -> usize {
        self.pending.len() / self.space.dim()
    }

    /// The best value told so far (`+inf` before any).
    pub fn best_f(&self) -> f64 {
        self.best_f
    }

    /// Hyper-parameters of the last fit.
    pub fn hyper(&self) -> Option<&Hyper> {
        self.hyper.as_ref()
    }

    /// Points of the initial design not yet asked.
    pub fn design_left(&self) -> usize {
        self.design.len() / self.space.dim() - self.design_used
    }

    /// Replaces the part of the initial design not yet asked by `unit` (row-major, `[0, 1]^d`;
    /// empty: no more design points, so the next `ask` fits the model, or draws uniform points
    /// while nothing has been told). Front ends use it for scikit-optimize's
    /// `initial_point_generator` and for its rule that every point told, asked or not, counts
    /// towards `n_initial_points`.
    pub fn set_design(&mut self, unit: &[f64]) -> Result<(), BoError> {
        let d = self.space.dim();
        if !unit.len().is_multiple_of(d) {
            return Err(BoError::BadInput(format!("{} design coordinates for dimension {d}", unit.len())));
        }
        if unit.len() / d > MAX_DESIGN {
            return Err(BoError::invalid("n_initial", unit.len() / d, format!("an integer in 0..={MAX_DESIGN}")));
        }
        if let Some(v) = unit.iter().find(|v| !(0.0..=1.0).contains(*v)) {
            return Err(BoError::invalid("design", v, "coordinates in the unit cube [0, 1]"));
        }
        self.design = unit.to_vec();
        self.design_used = 0;
        self.custom_design = true;
        Ok(())
    }

    /// Keeps at most `k` of the design points not yet asked: the first `k` of a given design, or,
    /// before any lattice point is asked, a lattice of `k` points (the first `k` points of a
    /// larger lattice lie on a few lines, so they are not a design).
    pub fn keep_design(&mut self, k: usize) -> Result<(), BoError> {
        let d = self.space.dim();
        if k >= self.design_left() {
            return Ok(());
        }
        if !self.custom_design && self.design_used == 0 && k > 0 {
            self.design = lattice_design(d, k, design_shift(&self.params, d).as_deref())?;
        } else {
            self.design.truncate((self.design_used + k) * d);
        }
        Ok(())
    }

    /// The GP fit's options: the parameters' kernel and noise model, `restarts` random starts.
    fn fit_options(&self, restarts: usize) -> FitOptions {
        FitOptions { kernel: self.params.kernel, noise: self.params.noise, restarts, ..FitOptions::default() }
    }

    /// A Gaussian process on the first `n` finite observations told (all when `None`), with
    /// hyper-parameters fitted by maximum likelihood warm-started at the last fit's (the
    /// model scikit-optimize's results list in `models`). Unit-cube inputs.
    pub fn fit_model(&self, n: Option<usize>) -> Result<crate::Gp, BoError> {
        self.fit_model_from(n, self.hyper.as_ref())
    }

    /// [`BatchBo::fit_model`] warm-started at `warm` instead of the last fit's hyper-parameters
    /// (`None`: the default start only), so a model recorded at one point of the run can be
    /// fitted later, unchanged by the fits since.
    pub fn fit_model_from(&self, n: Option<usize>, warm: Option<&crate::Hyper>) -> Result<crate::Gp, BoError> {
        let d = self.space.dim();
        if let Some(h) = warm.filter(|h| !h.is_valid(d)) {
            return Err(BoError::invalid(
                "warm",
                format!("{h:?}"),
                "d positive length scales, a positive signal and a non-negative noise variance",
            ));
        }
        let n = n.unwrap_or(self.y.len()).min(self.y.len());
        if n == 0 {
            return Err(BoError::BadInput("no observations to fit a Gaussian process to".into()));
        }
        let opts = self.fit_options(self.params.fit_restarts);
        let (gp, _) = fit(&self.x[..n * d], d, &self.y[..n], &opts, warm, derive_seed(self.seed, 0x6d6f_0000 + n as u64))?;
        Ok(gp)
    }

    /// Fits the GP to everything told (failed points at the worst finite value) and adds the
    /// pending points as hallucinated observations.
    pub fn model(&mut self) -> Result<crate::Gp, BoError> {
        let d = self.space.dim();
        let mut x = self.x.clone();
        let mut y = self.y.clone();
        if !self.failed.is_empty() {
            let worst = self.y.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let worst = if worst.is_finite() { worst } else { 1.0 };
            x.extend_from_slice(&self.failed);
            y.extend(std::iter::repeat_n(worst, self.failed.len() / d));
        }
        // Random starts on the first fit and every 5th round; in between the previous optimum
        // (and the default) is a good start, and the fit costs a third.
        let restarts = if self.hyper.is_none() || self.round.is_multiple_of(5) { self.params.fit_restarts } else { 0 };
        let opts = self.fit_options(restarts);
        let (gp, report) = fit(&x, d, &y, &opts, self.hyper.as_ref(), derive_seed(self.seed, self.round))?;
        if report.jitter > 0.0 {
            self.events.push(Event {
                kind: EventKind::Jitter,
                message: format!("kernel matrix factored with jitter {:.1e} x signal variance", report.jitter / gp.hyper().signal),
            });
        }
        self.hyper = Some(gp.hyper().clone());
        let gp = if self.pending.is_empty() { gp } else { gp.hallucinate(&self.pending)? };
        Ok(gp)
    }

    /// Replaces each proposed point that repeats an evaluated or pending point (within
    /// [`DUPLICATE_TOLERANCE`] of the box in every coordinate) by a uniform point, as
    /// scikit-optimize's `avoid_duplicates`: an
    /// acquisition whose optimum sits on an observation has nothing more to learn there, and with
    /// one point per round (UCB with a small weight, expected improvement late in a run) it would
    /// otherwise propose the same point again and again.
    fn replace_duplicates(&mut self, proposed: &mut [f64]) {
        let d = self.space.dim();
        for k in 0..proposed.len() / d {
            let (seen, rest) = proposed.split_at_mut(k * d);
            let p = &mut rest[..d];
            let same = |q: &[f64]| q.iter().zip(p.iter()).all(|(a, b)| (a - b).abs() <= DUPLICATE_TOLERANCE);
            let repeated = self.x.chunks_exact(d).chain(self.failed.chunks_exact(d)).chain(self.pending.chunks_exact(d)).any(same)
                || seen.chunks_exact(d).any(same);
            if repeated {
                for v in p.iter_mut() {
                    *v = self.rng.random::<f64>();
                }
                self.space.round_unit(p);
                self.events.push(Event {
                    kind: EventKind::DuplicateReplaced,
                    message: "a proposal repeated an evaluated point: replaced by a uniform point".into(),
                });
            }
        }
    }

    /// Proposes `count` points in unit-cube coordinates (row-major) and marks them pending.
    fn propose(&mut self, count: usize) -> Result<Vec<f64>, BoError> {
        let d = self.space.dim();
        let mut out = Vec::with_capacity(count * d);
        let n_design = self.design.len() / d;
        while out.len() < count * d && self.design_used < n_design {
            let start = out.len();
            out.extend_from_slice(&self.design[self.design_used * d..(self.design_used + 1) * d]);
            // Integer and categorical coordinates as the objective will see them, so a told
            // point matches its pending entry.
            self.space.round_unit(&mut out[start..]);
            self.design_used += 1;
        }
        let need = count - out.len() / d;
        if need > 0 {
            if self.y.is_empty() && self.failed.is_empty() {
                // Nothing observed yet (the design is still out): uniform points.
                for _ in 0..need * d {
                    out.push(self.rng.random::<f64>());
                }
                for p in out.chunks_exact_mut(d) {
                    self.space.round_unit(p);
                }
            } else {
                self.pending.extend_from_slice(&out);
                let gp = self.model();
                self.pending.truncate(self.pending.len() - out.len());
                let gp = gp?;
                let mut order: Vec<usize> = (0..self.y.len()).collect();
                order.sort_by(|&a, &b| self.y[a].total_cmp(&self.y[b]).then(a.cmp(&b)));
                let starts: Vec<Vec<f64>> = order.iter().take(2).map(|&i| self.x[i * d..(i + 1) * d].to_vec()).collect();
                let ctx = Context {
                    gp: &gp,
                    space: &self.space,
                    inner: &self.params.inner,
                    seed: derive_seed(self.seed, 0x1000_0000 + self.round),
                    starts: &starts,
                    t: self.y.len() + self.failed.len() / d + self.pending.len() / d + out.len() / d,
                    weight: self.params.weight,
                    beta: self.params.beta,
                };
                let start = out.len();
                out.extend(select(self.params.method, &ctx, need)?);
                self.replace_duplicates(&mut out[start..]);
            }
        }
        self.pending.extend_from_slice(&out);
        self.round += 1;
        Ok(out)
    }
}

impl AskTell for BatchBo {
    fn name(&self) -> &'static str {
        self.params.method.name()
    }

    fn dim(&self) -> usize {
        self.space.dim()
    }

    /// The rest of the initial design while some of it has not been asked (so a driver
    /// evaluates the whole design as its first generation, as in §4.7), then `batch_size`; for
    /// Bull's method the one last point of its budget (a design of `budget - 1` points, then the
    /// minimizer of the posterior mean), which a driver with the budget as its limit then asks.
    fn population_size(&self) -> usize {
        let left = self.design.len() / self.space.dim() - self.design_used;
        match (left, self.params.method) {
            (1.., _) => left,
            (0, Method::Bull) => 1,
            (0, _) => self.params.batch_size,
        }
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        self.ask_batch_into(self.population_size(), out)
    }

    fn ask_batch_into(&mut self, count: usize, out: &mut Population) -> Result<(), CoreError> {
        if count == 0 || count > 1000 {
            return Err(CoreError::invalid("batch size", count, "an integer in 1..=1000"));
        }
        let u = self.propose(count)?;
        let d = self.space.dim();
        out.resize(count, d);
        for (row, p) in out.rows_mut().zip(u.chunks_exact(d)) {
            self.space.from_unit(p, row);
        }
        Ok(())
    }

    fn tell(&mut self, points: &Population, values: &[f64]) -> Result<(), CoreError> {
        let d = self.space.dim();
        if points.dim() != d {
            return Err(CoreError::DimensionMismatch { what: "point dimension", expected: d, got: points.dim() });
        }
        if values.len() != points.len() {
            return Err(CoreError::DimensionMismatch { what: "number of objective values", expected: points.len(), got: values.len() });
        }
        let mut units = vec![0.0; points.len() * d];
        for (row, u) in points.rows().zip(units.chunks_exact_mut(d)) {
            self.space.to_unit(row, u).map_err(CoreError::from)?;
        }
        if self.params.on_nonfinite == NonFinitePolicy::Error
            && let Some(index) = values.iter().position(|v| !v.is_finite())
        {
            return Err(CoreError::NonFinite { index, value: values[index] });
        }
        for ((row, u), &v) in points.rows().zip(units.chunks_exact(d)).zip(values) {
            if let Some(k) = self.pending.chunks_exact(d).position(|p| p.iter().zip(u).all(|(a, b)| (a - b).abs() <= 1e-12)) {
                self.pending.drain(k * d..(k + 1) * d);
            }
            if v.is_finite() {
                self.x.extend_from_slice(u);
                self.y.push(v);
                if v < self.best_f {
                    self.best_f = v;
                    self.best_x.copy_from_slice(row);
                }
            } else {
                self.failed.extend_from_slice(u);
            }
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.best_x
    }

    /// BO keeps no search distribution: the box's largest width, so `tol-x` never fires.
    fn scale(&self) -> f64 {
        self.space.upper().iter().zip(self.space.lower()).map(|(u, l)| u - l).fold(0.0, f64::max)
    }

    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    fn accepts_any_points(&self) -> bool {
        true
    }
}

impl StateCheck for BatchBo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.space.dim();
        Space::new(self.space.lower().to_vec(), self.space.upper().to_vec(), self.space.kinds().to_vec()).map_err(|e| e.to_string())?;
        self.params.check(d).map_err(|e| e.to_string())?;
        if self.x.len() != self.y.len() * d || !self.failed.len().is_multiple_of(d) || !self.pending.len().is_multiple_of(d) {
            return Err("observation arrays do not match the dimension".into());
        }
        if !self.design.len().is_multiple_of(d) || self.design_used > self.design.len() / d {
            return Err("design_used exceeds the design".into());
        }
        let in_cube = |v: &[f64]| v.iter().all(|t| (0.0..=1.0).contains(t));
        if !(in_cube(&self.x) && in_cube(&self.failed) && in_cube(&self.pending) && in_cube(&self.design)) {
            return Err("points outside the unit cube".into());
        }
        if self.y.iter().any(|v| !v.is_finite()) || self.best_x.len() != d {
            return Err("non-finite observation or best point of the wrong dimension".into());
        }
        if self.hyper.as_ref().is_some_and(|h| !h.is_valid(d)) {
            return Err("hyper-parameters out of range".into());
        }
        // Counters far below where their arithmetic could overflow (as the driver's).
        if self.round > 1 << 62 {
            return Err(format!("round = {}: must be at most 2^62", self.round));
        }
        Ok(())
    }
}
