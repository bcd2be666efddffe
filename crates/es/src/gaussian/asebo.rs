//! ASEBO, adaptive ES-active subspaces (Choromanski, Pacchiano, Parker-Holder, Tang & Sindhwani
//! 2019, "From complexity to simplicity: adaptive ES-active subspaces for blackbox optimization",
//! Alg. 1), the third method of thesis sec. 3.7.2. Written for minimization, with the noise scale
//! `σ` per coordinate as for the other strategies:
//!
//! ```text
//! active subspace   PCA of the gradient history G (row s = λ^{t−s} g_s, rows centred):
//!                   U = the leading r components, r = the fewest explaining a fraction ε of the
//!                   variance (at least r_min)
//! sampling          ε_i ~ N(0, C),  C = α I + (1 − α)(d / r) U Uᵀ       (trace C = d)
//!                   points μ ± σ ε_i (antithetic pairs)
//! gradient          g = 1/(σ N) Σ_{i ≤ N/2} (f(μ + σε_i) − f(μ − σε_i)) ε_i,   E g = C ∇f
//!                   for linear f: the gradient in the warm-up (C = I), its
//!                   subspace-weighted version afterwards
//! exploration       α ← ‖(I − UUᵀ) g‖ / ‖UUᵀ g‖, clipped to [α_min, 1]
//! step              μ ← μ − Adam(g / (‖g‖/d))
//! ```
//!
//! The first `warmup` generations sample isotropically (`α = 1`, no subspace), as the authors'
//! code does. The paper's `C` is `σ (α/d I + (1 − α)/r UUᵀ)`; ours is `d/σ` times it, so that
//! `σ` means what it means for ES and Fast-INGO (the thesis gives all methods `σ₁ = 0.1`).
//! Choices where the paper is silent or the code differs (stated in the parameter docs): a fixed
//! population (the paper lets `N` follow `r`; the thesis gives every method the same `N`), a
//! history of at most `history` gradients (the code keeps all of them, decayed), `α` clipped
//! (the code leaves it unclipped and falls back to isotropic sampling when `C` is indefinite),
//! differences divided by the standard deviation of the generation's values (the code z-scores
//! the rewards).

use gradfree_core::StateCheck;
use gradfree_core::linalg::{EigenWork, gemm_nt, gram, sym_eigen};
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, GfRng, NonFinitePolicy, ParamGuard, Population, begin_tell, rng_from_seed};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::points::{Work, write_pairs};
use crate::sizes::{popsize, positive, thesis_population, unit_open};

/// Smallest exploration weight `α` (so the complement of the subspace is never abandoned).
pub const ALPHA_MIN: f64 = 0.01;

/// Parameters of [`Asebo`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AseboParams {
    /// Samples per generation (even: antithetic pairs). Default `2 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Adam learning rate. Default 0.05 (the authors' code).
    pub learning_rate: Option<f64>,
    /// Decay `λ` of older gradients in the PCA. Default 0.99.
    pub decay: Option<f64>,
    /// Fraction `ε` of the history's variance the subspace explains. Default 0.995.
    pub threshold: Option<f64>,
    /// Generations of isotropic sampling before the subspace is used. Default min(70, d).
    pub warmup: Option<usize>,
    /// Smallest subspace dimension `r_min` (capped by the history's rank). Default min(10, d).
    pub min_rank: Option<usize>,
    /// Most gradients kept for the PCA (the oldest is dropped). Default 300 (weight 0.99³⁰⁰ ≈ 0.05).
    pub history: Option<usize>,
    /// NaN/inf handling (an infinite value makes its pair's difference 0).
    pub on_nonfinite: NonFinitePolicy,
}

/// [`AseboParams`] validated for one dimension ([`ParamGuard`]); part of the optimizer's state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AseboChecked {
    n: usize,
    lr: f64,
    decay: f64,
    threshold: f64,
    warmup: usize,
    min_rank: usize,
    /// Most past gradients kept (named as in the state of earlier versions).
    #[serde(rename = "history_cap")]
    history: usize,
}

impl ParamGuard for AseboParams {
    type Checked = AseboChecked;

    fn check(&self, d: usize) -> Result<AseboChecked, CoreError> {
        let n = popsize(self.popsize, thesis_population(d), 2)?;
        if !n.is_multiple_of(2) {
            return Err(CoreError::invalid("popsize", n, "even (antithetic pairs)"));
        }
        let lr = positive("learning_rate", self.learning_rate.unwrap_or(0.05))?;
        let decay = unit_open("decay", self.decay.unwrap_or(0.99))?;
        let threshold = unit_open("threshold", self.threshold.unwrap_or(0.995))?;
        let warmup = self.warmup.unwrap_or(70.min(d));
        let min_rank = self.min_rank.unwrap_or(10.min(d));
        if min_rank == 0 || min_rank > d {
            return Err(CoreError::invalid("min_rank", min_rank, format!("in 1..={d} (the dimension)")));
        }
        let history = self.history.unwrap_or(300);
        if !(2..=100_000).contains(&history) {
            return Err(CoreError::invalid("history", history, "in 2..=100000"));
        }
        Ok(AseboChecked { n, lr, decay, threshold, warmup, min_rank, history })
    }
}

/// The unbiased antithetic estimate `g = 1/(σ N) Σ_i (f⁺_i − f⁻_i) ε_i` of `C ∇f` (for linear
/// `f` exactly `C ∇f` in expectation), from `N/2` directions `eps` (`d x N/2` column-major) and
/// the values of the pairs, `values[2i] = f(μ + σε_i)`, `values[2i+1] = f(μ − σε_i)`, each
/// difference divided by `scale`. A pair with an infinite value contributes nothing.
pub fn antithetic_gradient(eps: &[f64], values: &[f64], sigma: f64, scale: f64, g: &mut [f64]) {
    let d = g.len();
    let n = values.len();
    g.iter_mut().for_each(|v| *v = 0.0);
    for (e, pair) in eps.chunks_exact(d).zip(values.chunks_exact(2)) {
        let diff = pair[0] - pair[1];
        if !diff.is_finite() {
            continue;
        }
        let c = diff / (scale * sigma * n as f64);
        g.iter_mut().zip(e).for_each(|(gi, ei)| *gi += c * ei);
    }
}

/// The active subspace of the history `hist` (`d x h` column-major, row weights already
/// applied): the leading principal components of its `h` centred columns that explain a fraction
/// `threshold` of their variance, at least `min_rank` of them but no more than the numerical
/// rank. Written into `u` (`d x r` column-major, orthonormal); returns `r` (0 when the history
/// has no variance). Computed through the smaller of the `h x h` Gram matrix and the `d x d`
/// scatter matrix, `O(h d min(h, d) + min(h, d)³)`.
pub fn active_subspace(hist: &[f64], d: usize, threshold: f64, min_rank: usize, u: &mut Vec<f64>, sc: &mut PcaScratch) -> usize {
    let h = hist.len() / d;
    u.clear();
    if h < 2 {
        return 0;
    }
    let PcaScratch { mean, centred, m, values, vectors, eigen } = sc;
    mean.clear();
    mean.resize(d, 0.0);
    for col in hist.chunks_exact(d) {
        mean.iter_mut().zip(col).for_each(|(m, a)| *m += a);
    }
    mean.iter_mut().for_each(|m| *m /= h as f64);
    centred.clear();
    for col in hist.chunks_exact(d) {
        centred.extend(col.iter().zip(mean.iter()).map(|(a, m)| a - m));
    }
    // Eigen-pairs of Aᵀ A (Gram, h x h) or A Aᵀ (scatter, d x d) for A = centred: the same
    // non-zero eigenvalues; scatter eigenvectors are the components themselves.
    let k = h.min(d);
    m.clear();
    m.resize(k * k, 0.0);
    if h <= d {
        gram(centred, d, h, m);
    } else {
        gemm_nt(centred, d, h, centred, d, m);
    }
    values.clear();
    values.resize(k, 0.0);
    vectors.clear();
    vectors.resize(k * k, 0.0);
    if !sym_eigen(m, k, values, Some(vectors), eigen) {
        return 0;
    }
    let total: f64 = values.iter().map(|v| v.max(0.0)).sum();
    if total.is_nan() || total <= 0.0 {
        return 0;
    }
    // Descending order; the numerical rank counts eigenvalues above 1e-12 of the largest.
    let order = (0..k).rev();
    let rank = order.clone().take_while(|&j| values[j] > 1e-12 * values[k - 1]).count();
    let mut r = 0;
    let mut acc = 0.0;
    for j in order.clone() {
        r += 1;
        acc += values[j].max(0.0);
        if acc / total > threshold {
            break;
        }
    }
    let r = r.max(min_rank).min(rank);
    u.resize(d * r, 0.0);
    for (c, j) in order.take(r).enumerate() {
        let col = &mut u[c * d..(c + 1) * d];
        if h <= d {
            // Component = A v_j / sqrt(λ_j): unit length, orthogonal to the others.
            let s = 1.0 / values[j].sqrt();
            for (a, &vj) in centred.chunks_exact(d).zip(&vectors[j * h..(j + 1) * h]) {
                col.iter_mut().zip(a).for_each(|(ui, ai)| *ui += s * vj * ai);
            }
        } else {
            col.copy_from_slice(&vectors[j * d..(j + 1) * d]);
        }
    }
    r
}

/// Workspace of [`active_subspace`], reused across generations so they do not allocate.
#[derive(Clone, Debug, Default)]
pub struct PcaScratch {
    mean: Vec<f64>,
    centred: Vec<f64>,
    m: Vec<f64>,
    values: Vec<f64>,
    vectors: Vec<f64>,
    eigen: EigenWork,
}

impl PcaScratch {
    /// Room for a history of up to `h` gradients of dimension `d`.
    pub fn with_capacity(d: usize, h: usize) -> Self {
        let k = h.min(d);
        let mut sc = PcaScratch {
            mean: Vec::with_capacity(d),
            centred: Vec::with_capacity(d * h),
            m: vec![0.0; k * k],
            values: vec![0.0; k],
            vectors: vec![0.0; k * k],
            eigen: EigenWork::default(),
        };
        // Grow the eigensolver's workspace to the largest problem once (a zero matrix is cheap).
        sym_eigen(&sc.m, k, &mut sc.values, Some(&mut sc.vectors), &mut sc.eigen);
        sc
    }
}

/// Per-generation buffers: values, gradient, projection coefficients, the weighted history, a
/// projection, and the PCA workspace.
type TellBuffers = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, PcaScratch);

/// ASEBO (Choromanski et al. 2019, Alg. 1) with Adam on the mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asebo {
    #[serde(flatten)]
    p: AseboChecked,
    policy: NonFinitePolicy,
    sigma: f64,
    mu: Vec<f64>,
    /// Directions of the pending generation, `d x N/2`.
    eps: Vec<f64>,
    m1: Vec<f64>,
    m2: Vec<f64>,
    t: u64,
    alpha: f64,
    /// Active subspace basis, `d x r` column-major (empty before the warm-up ends).
    u: Vec<f64>,
    /// Past gradients, oldest first, `d x h` column-major, undecayed.
    history: Vec<f64>,
    rng: GfRng,
    pending: bool,
    last_step: f64,
    #[serde(skip)]
    work: Work<TellBuffers>,
}

impl Asebo {
    /// Starts at `mu = x0` with the fixed noise scale `sigma0`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &AseboParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let c = params.check(d)?;
        crate::sizes::check_footprint("ASEBO", d, c.n + c.history, crate::sizes::Footprint::Diagonal)?;
        Ok(Asebo {
            policy: params.on_nonfinite,
            sigma: sigma0,
            eps: vec![0.0; d * (c.n / 2)],
            m1: vec![0.0; d],
            m2: vec![0.0; d],
            mu: x0,
            t: 0,
            alpha: 1.0,
            u: Vec::with_capacity(d * c.history.min(d)),
            history: Vec::with_capacity(d * c.history),
            rng: rng_from_seed(seed),
            pending: false,
            last_step: sigma0,
            work: Work((
                Vec::with_capacity(c.n),
                Vec::with_capacity(d),
                Vec::with_capacity(d.min(c.history)),
                Vec::with_capacity(d * c.history),
                Vec::with_capacity(d),
                PcaScratch::with_capacity(d, c.history),
            )),
            p: c,
        })
    }

    /// The exploration weight `α` (1 during the warm-up).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The dimension `r` of the active subspace (0 during the warm-up).
    pub fn rank(&self) -> usize {
        self.u.len() / self.mu.len().max(1)
    }

    /// The active subspace basis (`d x r` column-major, orthonormal).
    pub fn subspace(&self) -> &[f64] {
        &self.u
    }

    /// `C^{1/2} z = sqrt(α) z + (sqrt(α + (1 − α) d/r) − sqrt(α)) U Uᵀ z` in place.
    fn shape(&self, z: &mut [f64], coef: &mut Vec<f64>) {
        let d = self.mu.len();
        let r = self.rank();
        if r == 0 {
            return;
        }
        let a = self.alpha;
        let (sa, sb) = (a.sqrt(), (a + (1.0 - a) * d as f64 / r as f64).sqrt());
        coef.clear();
        coef.extend(self.u.chunks_exact(d).map(|uk| uk.iter().zip(z.iter()).map(|(p, q)| p * q).sum::<f64>()));
        z.iter_mut().for_each(|v| *v *= sa);
        for (uk, ck) in self.u.chunks_exact(d).zip(coef.iter()) {
            z.iter_mut().zip(uk).for_each(|(v, ui)| *v += (sb - sa) * ck * ui);
        }
    }

    /// Pushes `g` into the history and recomputes the subspace and `α` once the warm-up is over
    /// (`inside`, `weighted` and `pca` are reused buffers).
    fn update_subspace(&mut self, g: &[f64], inside: &mut Vec<f64>, weighted: &mut Vec<f64>, pca: &mut PcaScratch) {
        let d = self.mu.len();
        // α from the subspace the generation was sampled with.
        if self.rank() > 0 {
            inside.clear();
            inside.resize(d, 0.0);
            for uk in self.u.chunks_exact(d) {
                let c: f64 = uk.iter().zip(g).map(|(a, b)| a * b).sum();
                inside.iter_mut().zip(uk).for_each(|(v, ui)| *v += c * ui);
            }
            let n_in = inside.iter().map(|v| v * v).sum::<f64>().sqrt();
            let n_out = g.iter().zip(inside.iter()).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            let a = if n_in > 0.0 { n_out / n_in } else { 1.0 };
            self.alpha = if a.is_finite() { a.clamp(ALPHA_MIN, 1.0) } else { 1.0 };
        }
        if self.history.len() / d >= self.p.history {
            self.history.drain(..d);
        }
        self.history.extend_from_slice(g);
        if (self.t as usize) < self.p.warmup {
            return;
        }
        let h = self.history.len() / d;
        weighted.clear();
        for (s, col) in self.history.chunks_exact(d).enumerate() {
            let w = self.p.decay.powi((h - 1 - s) as i32);
            weighted.extend(col.iter().map(|v| w * v));
        }
        let r = active_subspace(weighted, d, self.p.threshold, self.p.min_rank, &mut self.u, pca);
        if r == 0 {
            self.alpha = 1.0;
        }
    }
}

impl AskTell for Asebo {
    crate::identity!("asebo", dim = mu, popsize = p.n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let d = self.dim();
        if !self.pending {
            let mut eps = std::mem::take(&mut self.eps);
            let mut coef = std::mem::take(&mut self.work.0.2);
            for e in eps.chunks_exact_mut(d) {
                e.iter_mut().for_each(|v| *v = StandardNormal.sample(&mut self.rng));
                self.shape(e, &mut coef);
            }
            self.eps = eps;
            self.work.0.2 = coef;
            self.pending = true;
        }
        out.resize(self.p.n, d);
        write_pairs(out, &self.mu, self.sigma, &self.eps);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.p.n);
        let mut buffers = std::mem::take(&mut self.work.0);
        let (vals, g, _, weighted, inside, pca) = &mut buffers;
        if let Err(e) = begin_tell(&mut self.pending, population, values, (d, n), self.policy, vals) {
            self.work.0 = buffers;
            return Err(e);
        }
        let sd = gradfree_core::stats::finite_population_sd(vals.iter().copied());
        g.resize(d, 0.0);
        antithetic_gradient(&self.eps, vals, self.sigma, if sd > 0.0 { sd } else { 1.0 }, g);
        self.t = self.t.saturating_add(1);
        self.update_subspace(g, inside, weighted, pca);
        // The authors' code rescales the estimate to norm d before Adam.
        let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        let s = 1.0 / (norm / d as f64 + 1e-8);
        self.last_step = super::adam_descent(&mut self.mu, &mut self.m1, &mut self.m2, g, s, self.p.lr, self.t);
        self.work.0 = buffers;
        Ok(())
    }

    crate::mean_and_last_step!();
}

/// Restored-state invariants: sizes, rates in range, an orthonormal-sized basis, `α` in
/// `[α_min, 1]`, finite vectors.
impl StateCheck for Asebo {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("ASEBO", d, self.p.n, crate::sizes::Footprint::Diagonal)?;
        chk::require("popsize", self.p.n.is_multiple_of(2), "must be even")?;
        chk::positive("learning_rate", self.p.lr)?;
        chk::in_range("decay", self.p.decay, f64::MIN_POSITIVE, 1.0 - f64::EPSILON)?;
        chk::in_range("threshold", self.p.threshold, f64::MIN_POSITIVE, 1.0 - f64::EPSILON)?;
        chk::count("min_rank", self.p.min_rank, 1, d)?;
        chk::count("history", self.p.history, 2, 100_000)?;
        chk::positive("sigma", self.sigma)?;
        chk::in_range("alpha", self.alpha, ALPHA_MIN, 1.0)?;
        chk::finite("mu", &self.mu)?;
        chk::finite_len("eps", &self.eps, chk::checked_len("eps", d, self.p.n / 2)?)?;
        chk::finite_len("m1", &self.m1, d)?;
        chk::len("m2", &self.m2, d)?;
        chk::require("subspace", self.u.len().is_multiple_of(d) && self.u.len() <= d * d, "must be d x r with r <= d")?;
        chk::finite("subspace", &self.u)?;
        chk::require(
            "history",
            self.history.len().is_multiple_of(d) && self.history.len() / d <= self.p.history,
            "must be d x h with h <= history",
        )?;
        chk::finite("history", &self.history)?;
        if let Some(i) = self.m2.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(format!("m2[{i}] = {}: must be finite and >= 0", self.m2[i]));
        }
        chk::non_negative("last_step", self.last_step)
    }
}
