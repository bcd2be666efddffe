//! Exponential NES (xNES, Glasmachers et al. 2010; Wierstra et al. 2014, Alg. 5), the NES baseline
//! of MiNES sec. 6.
//!
//! ```text
//! x_k = mu + sigma B s_k,  s_k ~ N(0, I),  utilities u_k by rank (best first):
//! u_k = max(0, ln(lambda/2 + 1) - ln k) / sum_j max(0, ln(lambda/2 + 1) - ln j) - 1/lambda
//! G_delta = sum u_k s_k,  G_M = sum u_k (s_k s_k^T - I),  G_sigma = tr(G_M)/d,  G_B = G_M - G_sigma I
//! mu <- mu + eta_mu sigma B G_delta,  sigma <- sigma exp(eta_sigma/2 G_sigma),  B <- B expm(eta_B/2 G_B)
//! ```
//!
//! Defaults `lambda = 4 + floor(3 ln d)`, `eta_mu = 1`, `eta_sigma = eta_B = (9 + 3 ln d)/(5 d sqrt d)`.
//! The matrix exponential of the symmetric `G_B` is taken through its eigendecomposition
//! (O(d^3) per generation, as in the reference implementation).

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, NonFinitePolicy, ParamGuard, Population};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::points::{Work, rank_order, write_points};
use crate::progress::Progress;
use crate::sizes::{popsize, positive};
use gradfree_core::linalg::{EigenWork, gemm, gemm_nt, scaled_identity, sym_eigen};

/// Parameters of [`Xnes`]; `None` takes the published default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct XnesParams {
    /// Population size. Default `4 + floor(3 ln d)`.
    pub popsize: Option<usize>,
    /// Mean learning rate. Default 1.
    pub eta_mu: Option<f64>,
    /// Learning rate of `sigma` and `B`. Default `(9 + 3 ln d)/(5 d sqrt(d))`.
    pub eta_cov: Option<f64>,
    /// NaN/inf handling in `tell` (infinite values rank last).
    pub on_nonfinite: NonFinitePolicy,
}

/// [`XnesParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XnesChecked {
    n: usize,
    eta_mu: f64,
    eta_cov: f64,
}

impl ParamGuard for XnesParams {
    type Checked = XnesChecked;

    fn check(&self, d: usize) -> Result<XnesChecked, CoreError> {
        let df = d as f64;
        let n = popsize(self.popsize, 4 + (3.0 * df.ln()).floor() as usize, 2)?;
        let eta_mu = positive("eta_mu", self.eta_mu.unwrap_or(1.0))?;
        let eta_cov = positive("eta_cov", self.eta_cov.unwrap_or((9.0 + 3.0 * df.ln()) / (5.0 * df * df.sqrt())))?;
        Ok(XnesChecked { n, eta_mu, eta_cov })
    }
}

/// xNES.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Xnes {
    n: usize,
    eta_mu: f64,
    eta_cov: f64,
    policy: NonFinitePolicy,
    utilities: Vec<f64>,
    mu: Vec<f64>,
    sigma: f64,
    b: Vec<f64>,
    s: Vec<f64>,
    bs: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    /// The numerical failure that ended the run, if any ([`AskTell::failure`]; older states: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    #[serde(skip)]
    work: Work<XnesWork>,
}

#[derive(Clone, Debug, Default)]
struct XnesWork {
    vals: Vec<f64>,
    order: Vec<usize>,
    g_delta: Vec<f64>,
    g_m: Vec<f64>,
    bg: Vec<f64>,
    evals: Vec<f64>,
    vecs: Vec<f64>,
    scaled: Vec<f64>,
    expm: Vec<f64>,
    newb: Vec<f64>,
    eig: EigenWork,
}

impl Xnes {
    /// The coordinates' standard deviations `sigma ||row_i(B)||`.
    fn coordinate_sds(&self) -> impl Iterator<Item = f64> + '_ {
        let d = self.dim();
        (0..d).map(move |i| self.sigma * (0..d).map(|k| self.b[k * d + i].powi(2)).sum::<f64>().sqrt())
    }

    /// Starts at `mu = x0`, `sigma = sigma0`, `B = I`.
    pub fn new(x0: Vec<f64>, sigma0: f64, params: &XnesParams, seed: u64) -> Result<Self, CoreError> {
        super::check_start(&x0, sigma0)?;
        let d = x0.len();
        let XnesChecked { n, eta_mu, eta_cov } = params.check(d)?;
        crate::sizes::check_footprint("xNES", d, n, crate::sizes::Footprint::Full)?;
        let raw: Vec<f64> = (1..=n).map(|k| ((n as f64 / 2.0 + 1.0).ln() - (k as f64).ln()).max(0.0)).collect();
        let total: f64 = raw.iter().sum();
        let utilities = raw.iter().map(|r| r / total - 1.0 / n as f64).collect();
        Ok(Xnes {
            n,
            eta_mu,
            eta_cov,
            policy: params.on_nonfinite,
            utilities,
            sigma: sigma0,
            b: scaled_identity(d, 1.0),
            s: vec![0.0; d * n],
            bs: vec![0.0; d * n],
            mu: x0,
            progress: Progress::new(seed),
            failure: None,
            work: Work::default(),
        })
    }

    /// Global step size `sigma`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
}

impl AskTell for Xnes {
    crate::identity!("xnes", dim = mu, popsize = n);

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let (s, b, bs) = (&mut self.s, &self.b, &mut self.bs);
        self.progress.draw_once(|rng| {
            s.iter_mut().for_each(|v| *v = StandardNormal.sample(rng));
            gemm(b, d, d, s, n, bs);
        });
        write_points(out, &self.mu, self.sigma, &self.bs);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.dim(), self.n);
        let w = &mut self.work.0;
        self.progress.begin_tell(population, values, (d, n), self.policy, &mut w.vals)?;
        rank_order(&w.vals, &mut w.order);
        for (buf, len) in [(&mut w.g_delta, d), (&mut w.g_m, d * d), (&mut w.bg, d), (&mut w.evals, d)] {
            buf.clear();
            buf.resize(len, 0.0);
        }
        for buf in [&mut w.vecs, &mut w.scaled, &mut w.expm, &mut w.newb] {
            buf.resize(d * d, 0.0);
        }
        // G_M = sum_k u_k (s_k s_k^T - I); only the lower triangle is needed by the eigensolver.
        for (r, &i) in w.order.iter().enumerate() {
            let u = self.utilities[r];
            let s = &self.s[i * d..(i + 1) * d];
            for (g, v) in w.g_delta.iter_mut().zip(s) {
                *g += u * v;
            }
            for j in 0..d {
                let col = &mut w.g_m[j * d..(j + 1) * d];
                let usj = u * s[j];
                for (g, &sk) in col[j..].iter_mut().zip(&s[j..]) {
                    *g += usj * sk;
                }
                col[j] -= u;
            }
        }
        let g_sigma = (0..d).map(|i| w.g_m[i * d + i]).sum::<f64>() / d as f64;
        for i in 0..d {
            w.g_m[i * d + i] -= g_sigma;
        }
        // mu <- mu + eta_mu sigma B G_delta.
        gemm(&self.b, d, d, &w.g_delta, 1, &mut w.bg);
        for (m, v) in self.mu.iter_mut().zip(&w.bg) {
            *m += self.eta_mu * self.sigma * v;
        }
        self.sigma *= (0.5 * self.eta_cov * g_sigma).exp();
        // B <- B expm(eta/2 G_B), expm = V diag(exp(eta/2 lambda)) V^T from the eigendecomposition.
        if !sym_eigen(&w.g_m, d, &mut w.evals, Some(&mut w.vecs), &mut w.eig) {
            self.failure = Some(format!("xnes: eigendecomposition failed at generation {}", self.progress.generation));
            return Ok(());
        }
        w.scaled.copy_from_slice(&w.vecs);
        for (col, &l) in w.scaled.chunks_exact_mut(d).zip(&w.evals) {
            let e = (0.5 * self.eta_cov * l).exp();
            col.iter_mut().for_each(|v| *v *= e);
        }
        gemm_nt(&w.scaled, d, d, &w.vecs, d, &mut w.expm);
        gemm(&self.b, d, d, &w.expm, d, &mut w.newb);
        std::mem::swap(&mut self.b, &mut w.newb);
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            self.failure = Some(format!("xnes: sigma became {} at generation {}", self.sigma, self.progress.generation));
        }
        Ok(())
    }

    fn mean(&self) -> &[f64] {
        &self.mu
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    crate::coordinate_spread!();

    /// `sigma <- factor sigma`.
    fn shrink_spread(&mut self, factor: f64) {
        self.sigma *= factor;
    }
}

/// Restored-state invariants: sizes from `d` and `N`, utilities of length `N`, positive rates and
/// `sigma`, finite vectors.
impl StateCheck for Xnes {
    fn check_state(&self) -> Result<(), String> {
        let d = self.mu.len();
        crate::sizes::state_sizes("xNES", d, self.n, crate::sizes::Footprint::Full)?;
        chk::positive("eta_mu", self.eta_mu)?;
        chk::positive("eta_cov", self.eta_cov)?;
        chk::finite_len("utilities", &self.utilities, self.n)?;
        chk::finite("mu", &self.mu)?;
        chk::positive("sigma", self.sigma)?;
        chk::square("b", &self.b, d)?;
        let dn = chk::checked_len("s", d, self.n)?;
        chk::finite_len("s", &self.s, dn)?;
        chk::finite_len("bs", &self.bs, dn)
    }
}
