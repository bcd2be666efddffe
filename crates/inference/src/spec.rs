//! [`InferenceSpec`]: one inference run — the process, its mini-batches and step, the chains and
//! the interval — with every default written once ([`InferenceSpec::default`]) and checked once
//! ([`InferenceSpec::check`]). The command line and Python pass what the user gave and nothing else.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::InferenceError;
use crate::direction::Root;

/// The covariance of the Wald intervals (statsmodels' `cov_type` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CovType {
    /// The inverse Fisher information times the scale: exact under the model (statsmodels'
    /// default).
    #[default]
    #[serde(rename = "nonrobust")]
    Nonrobust,
    /// White's heteroskedasticity-consistent sandwich `H^{-1} S H^{-1}`, `S = sum g_i g_i^T`.
    #[serde(rename = "HC0")]
    Hc0,
    /// HC0 times `N / (N - rank)` (MacKinnon & White 1985) for the linear model; statsmodels'
    /// `GLM` and `Logit` give HC0 for it, and so does the library for logistic and Poisson
    /// regression.
    #[serde(rename = "HC1")]
    Hc1,
    /// The linear model's `S = sum g_i g_i^T / (1 - h_i)`, `h_i` the leverage (MacKinnon & White
    /// 1985); HC0 for logistic and Poisson regression, as statsmodels.
    #[serde(rename = "HC2")]
    Hc2,
    /// The linear model's `S = sum g_i g_i^T / (1 - h_i)^2` (the jackknife's, MacKinnon & White
    /// 1985); HC0 for logistic and Poisson regression, as statsmodels.
    #[serde(rename = "HC3")]
    Hc3,
    /// Cluster-robust (CRV1, Liang & Zeger 1986): `S = sum_g s_g s_g^T` over the groups' summed
    /// scores, times `G / (G - 1) (N - 1) / (N - rank)` (statsmodels' `use_correction=True`);
    /// needs the rows' groups.
    #[serde(rename = "cluster")]
    Cluster,
}

impl CovType {
    /// Whether the covariance is a sandwich (every kind but `nonrobust`).
    pub fn robust(self) -> bool {
        self != CovType::Nonrobust
    }

    /// statsmodels' name.
    pub fn name(self) -> &'static str {
        match self {
            CovType::Nonrobust => "nonrobust",
            CovType::Hc0 => "HC0",
            CovType::Hc1 => "HC1",
            CovType::Hc2 => "HC2",
            CovType::Hc3 => "HC3",
            CovType::Cluster => "cluster",
        }
    }
}

/// Blocks of rows that maximum likelihood sums in parallel at a time (their `p x p` sums are held
/// together: the memory of a fit, [`InferenceSpec::footprint`]).
pub(crate) const MLE_GROUP: usize = 32;

/// The records a streamed run keeps per chain, at most (the start included).
pub const MAX_RECORDS: usize = 1025;

/// The processes of Liang & Su (and the random-scaling baseline), by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Maximum likelihood with Wald intervals, for the GLMs: Newton's method when the rows are in
    /// memory (statsmodels' `GLM(...).fit()` numbers, [`crate::mle`]), cumulatively updated
    /// estimating equations in one pass when they stream (Schifano et al. 2016, [`crate::cuee`]).
    /// The default for the GLMs: its 95% intervals cover 95% in every configuration of the
    /// coverage study, where the chain methods' bands do not.
    Mle,
    /// SGD (eq. 3): `theta -= eta * mean_batch grad l`.
    Sgd,
    /// MasGrad (eq. 10) with the plug-in direction of sec. 6.1 and the symmetric inverse root.
    Masgrad,
    /// MasGrad with the rank-one inverse-root recursion (Prop. 6.2).
    MasgradRankOne,
    /// The discretized diffusion of SGD (eq. 6/8): `xi -= eta b(xi) - (eta / sqrt(n)) V(xi) g`.
    DiffSgd,
    /// The discretized diffusion of MasGrad (eq. 11): `xi -= eta V^{-1} b(xi) - (eta / sqrt(n)) g`.
    DiffMasgrad,
    /// Moment-adjusted proximal gradient (eq. 19-20) for l1-regularized GLMs.
    Madprox,
    /// Averaged SGD with random-scaling intervals (Lee, Liao, Seo & Shin, AAAI 2022).
    RandomScaling,
}

impl Method {
    /// Every method with its name on the command line and in Python.
    pub const ALL: [(Method, &'static str); 8] = [
        (Method::Mle, "mle"),
        (Method::Masgrad, "masgrad"),
        (Method::MasgradRankOne, "masgrad-rank-one"),
        (Method::Sgd, "sgd"),
        (Method::DiffMasgrad, "diff-masgrad"),
        (Method::DiffSgd, "diff-sgd"),
        (Method::RandomScaling, "random-scaling"),
        (Method::Madprox, "madprox"),
    ];

    /// The method called `name`.
    pub fn parse(name: &str) -> Result<Method, InferenceError> {
        Method::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(m, _)| *m)
            .ok_or_else(|| InferenceError::invalid("method", name, Method::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")))
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Method::ALL.iter().find(|(m, _)| *m == self).map_or("?", |(_, n)| n)
    }

    /// The method a run uses when none is named: maximum likelihood for the GLMs (`linear`,
    /// `logistic`, `poisson`), whose intervals cover; random scaling for the other models (the
    /// one process whose intervals are confidence intervals, Lee et al. 2022).
    pub fn default_for(model: &str) -> Method {
        if matches!(model, "linear" | "logistic" | "poisson") { Method::Mle } else { Method::RandomScaling }
    }

    /// Whether it runs chains (every method but [`Method::Mle`]).
    pub fn is_chain(self) -> bool {
        self != Method::Mle
    }

    /// Whether its chains' spread is the process's, not a confidence interval: every chain
    /// method but random scaling (their `bse` and `conf_int` are refused; `bands` and
    /// `process_sd` read them, [`crate::Fit::bands`]).
    pub fn is_process(self) -> bool {
        self.is_chain() && self != Method::RandomScaling
    }

    /// Whether it needs the population moments `b` and `V` at every step (the diffusions).
    pub fn is_diffusion(self) -> bool {
        matches!(self, Method::DiffSgd | Method::DiffMasgrad)
    }

    /// The inverse root of a MasGrad method.
    pub fn root(self) -> Option<Root> {
        match self {
            Method::Masgrad => Some(Root::Symmetric),
            Method::MasgradRankOne => Some(Root::RankOne),
            _ => None,
        }
    }
}

/// How each step's mini-batch is drawn from the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Sampling {
    /// `n` indices with replacement: the bootstrap of sec. 7.
    #[default]
    WithReplacement,
    /// `n` distinct indices (needs `n <= N`).
    WithoutReplacement,
}

/// Where MasGrad's `V` comes from. A run that names none ([`InferenceSpec::moments`] `None`)
/// takes the population `V` when the rows are in memory and an independent batch's when they
/// stream ([`InferenceSpec::moments_for`]): both centre the chains on the optimum, where the
/// batch's own `V` (sec. 6.1) does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Moments {
    /// The plug-in estimate from the step's mini-batch (sec. 6.1). `Vhat` and `bhat` come from
    /// the same rows and are correlated (large gradients come with large spread), so the
    /// stationary point of `Vhat^{-1} bhat` is not the optimum: on the paper's logistic setup
    /// (N = 500, p = 4, n = 25, eta = 0.2) the chains settle 9 to 13 of their standard
    /// deviations from the MLE. Kept by name for the paper's sec. 6.1.
    Batch,
    /// The population `V(theta)` over all the data (App. C's experiments).
    Population,
    /// The plug-in estimate from a second, independent mini-batch of the same size at the same
    /// `theta`: twice the gradients, but `Vhat` is independent of `bhat`, so `E[Vhat^{-1} bhat] =
    /// E[Vhat^{-1}] b` vanishes only where `b` does and the chains center on the optimum. With
    /// the batch's own `Vhat` (sec. 6.1), `Vhat` and `bhat` are correlated (large gradients come
    /// with large spread) and the stationary point moves away from the optimum.
    Independent,
}

/// How pointwise intervals are read off the chains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalKind {
    /// The empirical `(1 - level)/2` and `(1 + level)/2` quantiles across chains: the paper's
    /// bands are skewed (its log-error remark), which a symmetric interval would hide.
    #[default]
    Quantile,
    /// Mean +- `z_{(1 + level)/2}` standard deviations across chains.
    Normal,
}

/// The moment matrix of MadProx (eq. 19): the full symmetric root, or its diagonal (the separable,
/// AdaGrad-like choice the paper suggests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProxMetric {
    /// `D = diag(Sigma)^{1/2}`: the prox is soft-thresholding with thresholds `eta lambda / D_ii`.
    #[default]
    Diagonal,
    /// `V = Sigma^{1/2}`: the prox is a small l1 problem in the `V` metric, solved by coordinate
    /// descent.
    Full,
}

/// One inference run. Fields left out of a JSON document take the defaults below; unknown
/// fields are an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct InferenceSpec {
    /// The method (default maximum likelihood, [`Method::Mle`]; the front ends name
    /// [`Method::default_for`] the model when the user names none).
    pub method: Method,
    /// Mini-batch size `n` (default [`DEFAULT_BATCH`], 25, the paper's logistic experiment;
    /// random scaling on rows in memory: `N / 400` between 10 and 25, so that a pass takes up to
    /// 400 steps, what its variance estimate needs, [`InferenceSpec::batch_for`]).
    #[schemars(range(min = 1), extend("x-cli" = "batch", "x-applies" = chain_only()))]
    pub batch_size: Option<usize>,
    /// Step size `eta` (default [`DEFAULT_STEP`], 0.2; the inverse temperature is `beta = 2n /
    /// eta`). For `random-scaling`, the first step `eta_0` of each pass's `eta_0 t^{-decay}`;
    /// by default `1 / lambda_max`, the largest curvature of the mean loss (its Hessian by central
    /// differences of the mean gradient) where the pass starts ([`crate::passes`]).
    #[schemars(extend("x-applies" = chain_only()))]
    pub step: Option<f64>,
    /// Independent chains `K` (default 100, as in sec. 7).
    #[schemars(range(min = 1), extend("x-applies" = chain_only()))]
    pub chains: usize,
    /// Steps per chain `T` (default 200). Random scaling runs whole passes over the data instead
    /// ([`InferenceSpec::passes`]); a fit records the steps it ran here.
    #[schemars(range(min = 1), extend("x-applies" = {"key": "method", "in": ["mle", "random-scaling"], "not_within": true, "label": "a chain method other than random-scaling", "note": "random scaling runs whole passes: set passes (--passes) instead"}))]
    pub steps: usize,
    /// Random scaling: passes over the data (default 3), each `ceil(N / batch_size)` steps over
    /// the rows in a fresh random order, each but the first started at the average of the one
    /// before; the interval is the last pass's (Lee et al. 2022 run one; the earlier passes
    /// move the start to the estimate, so the last pass's average carries no start-up bias).
    #[schemars(range(min = 1, max = 1000), extend("x-applies" = {"key": "method", "in": ["random-scaling"]}))]
    pub passes: usize,
    /// Seed; chain `k` draws from `derive_seed(seed, k)` (default 0).
    #[schemars(extend("x-applies" = chain_only()))]
    pub seed: u64,
    /// How mini-batches are drawn (default with replacement, the bootstrap of sec. 7). Random
    /// scaling takes each pass's rows in a fresh random order, every row once.
    #[schemars(extend("x-applies" = {"key": "method", "in": ["mle", "random-scaling"], "not_within": true, "label": "a chain method other than random-scaling", "note": "random scaling takes every row once per pass"}))]
    pub sampling: Sampling,
    /// Where MasGrad's `V` comes from (default `None`: the population's in memory, an
    /// independent batch's when streamed, [`InferenceSpec::moments_for`]).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["masgrad", "masgrad-rank-one"]}))]
    pub moments: Option<Moments>,
    /// The covariance of maximum likelihood's Wald intervals (default statsmodels' `nonrobust`;
    /// `HC0`-`HC3` for White's sandwich and its small-sample corrections, `cluster` for groups of
    /// rows, [`CovType`]).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["mle"], "note": "the default for linear, logistic, poisson"}))]
    pub cov_type: CovType,
    /// Maximum likelihood: Student's t for the statistics, p-values and intervals, on `N - rank`
    /// degrees of freedom (`G - 1` with `cluster`), or the normal (default `None`: statsmodels'
    /// choice, t for the linear model's nonrobust covariance, the normal otherwise).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["mle"], "note": "the default for linear, logistic, poisson"}))]
    pub use_t: Option<bool>,
    /// Coverage of the intervals (default 0.95).
    pub level: f64,
    /// How intervals are read off the chains (default quantiles).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["mle", "random-scaling"], "not_within": true, "label": "a chain method with bands", "note": "random scaling gives intervals"}))]
    pub interval: IntervalKind,
    /// The l1 weight `lambda` of MadProx (default 0.1).
    #[schemars(extend("x-python" = "lam", "x-applies" = {"key": "method", "in": ["madprox"]}))]
    pub lambda: f64,
    /// MadProx's moment matrix (default diagonal).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["madprox"]}))]
    pub prox_metric: ProxMetric,
    /// Exponent `a` of random scaling's step `eta t^{-a}`, in (1/2, 1) (default 0.505, Lee et
    /// al.'s).
    #[schemars(extend("x-applies" = {"key": "method", "in": ["random-scaling"]}))]
    pub decay: f64,
    /// Start of every chain (default the origin).
    #[schemars(extend("x-applies" = chain_only()))]
    pub theta0: Option<Vec<f64>>,
    /// Index of this run's first chain (default 0): a run of chains `first_chain..first_chain +
    /// chains`, so chains split across workers ([`crate::Fit::combine`]) are the chains of one run.
    #[schemars(skip)]
    pub first_chain: u64,
}

impl Default for InferenceSpec {
    fn default() -> Self {
        InferenceSpec {
            method: Method::Mle,
            batch_size: None,
            step: None,
            chains: 100,
            steps: 200,
            passes: 3,
            seed: 0,
            sampling: Sampling::WithReplacement,
            moments: None,
            cov_type: CovType::Nonrobust,
            use_t: None,
            level: 0.95,
            interval: IntervalKind::Quantile,
            lambda: 0.1,
            prox_metric: ProxMetric::Diagonal,
            decay: 0.505,
            theta0: None,
            first_chain: 0,
        }
    }
}

/// When the chains' keywords apply ([`gradfree_core::schema::Applies`]): with every method but
/// maximum likelihood, which runs no chains.
fn chain_only() -> serde_json::Value {
    serde_json::json!({"key": "method", "in": ["mle"], "not_within": true, "label": "a chain method", "note": "mle runs no chains"})
}

/// The mini-batch of the chain methods when the run names none ([`InferenceSpec::batch_size`]).
pub const DEFAULT_BATCH: usize = 25;

/// Random scaling's steps per pass that its default batch aims at ([`InferenceSpec::batch_for`]).
pub const RS_STEPS_PER_PASS: usize = 400;

/// Random scaling's smallest default batch: smaller ones make the averaged iterate's bias from
/// the loss's nonlinearity (of the order of the step times the gradient noise) visible beside
/// its standard error (measured on the mixture: coverage 0.28 at batch 2).
pub const RS_MIN_BATCH: usize = 10;

/// The step of the chain methods when the run names none ([`InferenceSpec::step`]): the
/// paper's logistic experiment's.
pub const DEFAULT_STEP: f64 = 0.2;

/// The largest start value [`InferenceSpec::theta0`] may hold.
pub const MAX_START: f64 = 1e10;

impl InferenceSpec {
    /// Checks every field against `rows` data rows and `p` parameters (`size` names the setting
    /// that makes `p`, [`crate::Model::size_param`]), and that the run fits in memory
    /// ([`InferenceSpec::footprint`]); errors name the field and the accepted range, or the field
    /// that asks for the memory.
    pub fn check(&self, rows: usize, p: usize, size: (&'static str, String)) -> Result<(), InferenceError> {
        self.check_settings(Some(rows), p)?;
        self.footprint(Some(rows), None, p, size).check()?;
        Ok(())
    }

    /// The memory of a run on `rows` rows in memory (`None`: streamed, with `cols` values a row)
    /// with `p` parameters, as terms each driven by one setting: the recorded paths (`chains`,
    /// `steps`; twice, as the fit copies them), the chains' states (random scaling's `p x p` sums),
    /// every thread's mini-batch gradients (`batch_size`), the `p x p` matrices of the
    /// moment-adjusted methods and the diffusions (the model's size setting `size`), the
    /// population's gradients (every row at every step) and a streamed block of rows. Checked
    /// before anything is allocated ([`gradfree_core::memory::Footprint`]).
    pub fn footprint(
        &self,
        rows: Option<usize>,
        cols: Option<usize>,
        p: usize,
        size: (&'static str, String),
    ) -> gradfree_core::memory::Footprint {
        use gradfree_core::memory::product;
        if self.method == Method::Mle {
            // Newton's sums: a group of blocks' Hessians and outer products, and a few more.
            let mut f = gradfree_core::memory::Footprint::new();
            let group = 2 * MLE_GROUP as u128 + 6;
            f.f64s(size.0, size.1, format!("maximum likelihood's {p} x {p} sums"), product(&[group, p as u128, p as u128]));
            return f;
        }
        let (k, t, n, p128) = (self.chains as u128, self.steps as u128, self.batch() as u128, p as u128);
        let threads = (rayon::current_num_threads() as u128).clamp(1, k.max(1));
        let bps = self.batches_per_step(rows.is_none()) as u128;
        let records = if rows.is_some() { t + 1 } else { (MAX_RECORDS as u128 * 2).min(t + 1) };
        let mut f = gradfree_core::memory::Footprint::new();
        // The paths: blame whichever of chains and steps is further above its default.
        let (by, value) = if (self.chains as f64 / 100.0) >= (self.steps as f64 / 200.0) {
            ("chains", self.chains.to_string())
        } else {
            ("steps", self.steps.to_string())
        };
        f.f64s(by, value, format!("{} chains x {} records of {p} parameters", self.chains, records), product(&[2, k, records, p128]));
        f.f64s("chains", self.chains, format!("{} chains' states", self.chains), product(&[k, 4, p128]));
        let matrices = |c: u128| product(&[c, p128, p128]);
        if self.method == Method::RandomScaling {
            f.f64s(size.0, size.1.clone(), format!("{} chains' {p} x {p} random-scaling sums", self.chains), matrices(k));
        }
        f.f64s(size.0, size.1.clone(), format!("the estimates' {p} x {p} covariance"), matrices(2));
        let without = if self.sampling == Sampling::WithoutReplacement { rows.unwrap_or(0) as u128 } else { 0 };
        f.f64s(
            "batch_size",
            self.batch(),
            format!("{threads} threads' mini-batches of {} rows", self.batch()),
            product(&[threads, bps, n, p128 + 1]).saturating_add(threads * without),
        );
        let population =
            self.method.is_diffusion() || (self.method.root().is_some() && self.moments_for(rows.is_none()) == Moments::Population);
        if self.method.root().is_some() || population || self.method == Method::Madprox {
            f.f64s(size.0, size.1.clone(), format!("{} {p} x {p} matrices", self.method.name()), matrices(threads * 6));
        }
        if let Some(rows) = rows
            && (population || self.method == Method::Madprox)
        {
            f.f64s(
                "data",
                format!("with {rows} rows"),
                format!("the gradients of all {rows} rows"),
                product(&[threads, rows as u128, p128]),
            );
        }
        if let Some(cols) = cols {
            f.f64s("batch_size", self.batch(), "a streamed block of rows", product(&[2, k, bps, n.max(1), cols as u128 + 1]));
        }
        f
    }

    /// [`InferenceSpec::check`] without the memory the stored paths need, and with the data's
    /// rows unknown (`None`) for streamed data.
    pub fn check_settings(&self, rows: Option<usize>, p: usize) -> Result<(), InferenceError> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(InferenceError::invalid("level", self.level, "in (0, 1)"));
        }
        if self.method == Method::Mle {
            // The chains' settings do not apply; a start would be ignored (Newton starts at 0).
            if let Some(t) = &self.theta0 {
                return Err(InferenceError::invalid(
                    "theta0",
                    format!("{} values", t.len()),
                    "none for mle (Newton's method starts at the origin and finds the one maximum)",
                ));
            }
            return Ok(());
        }
        let moments = self.moments_for(rows.is_none());
        let min_batch = if self.method.root().is_some() && moments != Moments::Population { 2 } else { 1 };
        if self.method.is_chain() && self.batch() < min_batch {
            return Err(InferenceError::invalid("batch_size", self.batch(), format!(">= {min_batch} for {}", self.method.name())));
        }
        if self.method == Method::Masgrad && moments != Moments::Population && self.batch() <= p {
            return Err(InferenceError::invalid(
                "batch_size",
                self.batch(),
                format!(
                    "> p = {p} for masgrad: the covariance of {} gradients in dimension {p} is singular, so its symmetric inverse root does not exist (use batch_size > {p}, masgrad-rank-one, or moments=population)",
                    self.batch()
                ),
            ));
        }
        if let Some(rows) = rows
            && rows < 2
        {
            return Err(InferenceError::invalid(
                "data",
                format!("with {rows} row{}", if rows == 1 { "" } else { "s" }),
                "at least 2 rows (mini-batches of one row have no sampling noise to infer from)",
            ));
        }
        if let Some(rows) = rows
            && self.sampling == Sampling::WithoutReplacement
            && self.batch() > rows
        {
            return Err(InferenceError::invalid(
                "batch_size",
                self.batch(),
                format!("<= the {rows} rows of the data when sampling without replacement"),
            ));
        }
        if let Some(step) = self.step
            && !(step.is_finite() && step > 0.0)
        {
            return Err(InferenceError::invalid("step", step, "finite and > 0"));
        }
        if self.passes == 0 || self.passes > 1000 {
            return Err(InferenceError::invalid("passes", self.passes, "in 1..=1000"));
        }
        if self.chains == 0 || self.chains > 1 << 20 {
            return Err(InferenceError::invalid("chains", self.chains, "in 1..=1048576"));
        }
        if self.steps == 0 || self.steps > 1 << 30 {
            return Err(InferenceError::invalid("steps", self.steps, "in 1..=2^30"));
        }
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(InferenceError::invalid("level", self.level, "in (0, 1)"));
        }
        if !(self.lambda.is_finite() && self.lambda >= 0.0) {
            return Err(InferenceError::invalid("lambda", self.lambda, "finite and >= 0"));
        }
        if !(self.decay > 0.5 && self.decay < 1.0) {
            return Err(InferenceError::invalid("decay", self.decay, "in (1/2, 1)"));
        }
        if self.first_chain > 1 << 40 {
            return Err(InferenceError::invalid("first_chain", self.first_chain, "<= 2^40"));
        }
        if let Some(t) = &self.theta0 {
            if t.len() != p {
                return Err(InferenceError::invalid("theta0", format!("{} values", t.len()), format!("{p} (the model's parameters)")));
            }
            // Steps of the data's scale cannot move an iterate of 1e10 and beyond in double
            // precision (its spacing is 1e-6 there): every chain would stay at its start.
            if let Some(i) = t.iter().position(|v| !(v.is_finite() && v.abs() <= MAX_START)) {
                return Err(InferenceError::invalid("theta0", t[i], "finite values in [-1e10, 1e10]"));
            }
        }
        Ok(())
    }

    /// Mini-batches drawn per step: Some(2) for MasGrad with `V` from an independent batch, else 1.
    pub fn batches_per_step(&self, streamed: bool) -> usize {
        if self.method.root().is_some() && self.moments_for(streamed) == Moments::Independent { 2 } else { 1 }
    }

    /// MasGrad's moments in memory (`streamed` false) or streamed: the named ones, else the
    /// population's in memory and an independent batch's streamed ([`Moments`]).
    pub fn moments_for(&self, streamed: bool) -> Moments {
        match self.moments {
            Some(m) => m,
            None if streamed => Moments::Independent,
            None => Moments::Population,
        }
    }

    /// The fixed step `eta` of the chain methods: the named one or [`DEFAULT_STEP`] (random
    /// scaling's default is the data's, [`crate::passes`]).
    pub fn fixed_step(&self) -> f64 {
        self.step.unwrap_or(DEFAULT_STEP)
    }

    /// The mini-batch size: the named one or [`DEFAULT_BATCH`].
    pub fn batch(&self) -> usize {
        self.batch_size.unwrap_or(DEFAULT_BATCH)
    }

    /// The mini-batch size of a run on `rows` rows in memory: the named one, or for random
    /// scaling `rows / RS_STEPS_PER_PASS` between [`RS_MIN_BATCH`] and [`DEFAULT_BATCH`].
    pub fn batch_for(&self, rows: usize) -> usize {
        match (self.batch_size, self.method) {
            (Some(n), _) => n,
            (None, Method::RandomScaling) => (rows / RS_STEPS_PER_PASS).clamp(RS_MIN_BATCH, DEFAULT_BATCH),
            (None, _) => DEFAULT_BATCH,
        }
    }

    /// Random scaling's steps per pass over `rows` rows: `ceil(rows / batch_size)`.
    pub fn steps_per_pass(&self, rows: usize) -> usize {
        rows.div_ceil(self.batch().max(1)).max(1)
    }

    /// The start of every chain.
    pub fn start(&self, p: usize) -> Vec<f64> {
        self.theta0.clone().unwrap_or_else(|| vec![0.0; p])
    }
}
