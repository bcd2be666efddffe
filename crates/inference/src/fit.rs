//! What an inference run estimates ([`Fit`]), by method (see [`crate::chains`] for how the
//! chains run): maximum likelihood's estimate with Wald intervals, random scaling's intervals, or
//! the chain methods' process spread; and the fit of chains run in slices ([`Fit::combine`]).

use serde::{Deserialize, Serialize};

use crate::InferenceError;
use crate::intervals::{Trajectories, interval};
use crate::mle::{GlmFit, GlmInfo};
use crate::spec::{InferenceSpec, IntervalKind, Method};
use crate::warning::{Warning, WarningKind};

/// What an inference run estimates (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The run.
    pub spec: InferenceSpec,
    /// The model's name.
    pub model: String,
    /// The estimate of every parameter.
    pub params: Vec<f64>,
    /// Maximum likelihood: the standard errors; random scaling: `sqrt(6 Vbar_jj / T)` of the
    /// pooled chains, a standard error ([`crate::passes::pool`]); the other chain methods: the chains' standard deviation, the process's spread. Read
    /// it with [`Fit::bse`] or [`Fit::process_sd`], which say which it is.
    pub sd: Vec<f64>,
    /// Covariance of the estimates (`p x p`, row-major): the Wald covariance, random scaling's
    /// `6 Vbar / T`, or the chains' covariance.
    pub cov_params: Vec<f64>,
    /// Random scaling: every chain's scale `sqrt(V_T,jj / T)` (`K x p`); its interval is its
    /// average `+- c scale`.
    pub rs_scale: Option<Vec<f64>>,
    /// Random scaling: every chain's last pass, pooled into `params`, `sd` and `cov_params`
    /// ([`crate::passes::pool`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rs: Option<crate::passes::RsChains>,
    /// The chains: the estimate of every chain at every step (none for maximum likelihood).
    pub trajectories: Trajectories,
    /// Steps whose batch covariance was singular and ridged ([`crate::direction::RIDGE`]), over
    /// all chains.
    pub ridged_steps: u64,
    /// Streamed runs: the rows read (each used once).
    #[serde(default)]
    pub streamed_rows: Option<u64>,
    /// Maximum likelihood: its scale, log-likelihood, rows and convergence.
    #[serde(default)]
    pub glm: Option<GlmInfo>,
    /// What the estimate should be read with (separated classes, [`crate::separation`]; a fit
    /// that did not converge); the summary prints them under the table and the front ends raise
    /// them as warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Streamed maximum likelihood: the test of whether the rows' order moved the one-pass
    /// estimate ([`crate::order`]), and the Newton passes run after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<crate::order::OrderCheck>,
}

/// Why a chain method's spread is not a standard error (the error of [`Fit::bse`] and
/// [`Fit::conf_int`]).
fn not_a_confidence_interval(method: Method, what: &str) -> InferenceError {
    InferenceError::NotOffered(format!(
        "`{what}` is not offered for {}: the chains' spread is the process's at inverse temperature beta = 2n/eta (Liang & Su 2019, Thm. 3.1), not an estimator's sampling spread, and as a confidence interval it covers 0.07-1.00 in the coverage study; read it as `bands` / `process_sd`, or fit with method mle (the default for GLMs) or random-scaling for confidence intervals",
        method.name()
    ))
}

impl Fit {
    /// The fit of maximum likelihood (`glm`) by `spec` on `model`; `one_pass` for the streamed
    /// estimate.
    pub fn of_glm(spec: InferenceSpec, model: &str, glm: GlmFit, one_pass: bool) -> Fit {
        let p = glm.params.len();
        let mut warnings = Vec::new();
        if !glm.converged {
            warnings.push(Warning::new(WarningKind::Convergence, not_converged(model, glm.iterations)));
        }
        if glm.exact {
            warnings.push(Warning::new(WarningKind::Other, format!(
                "The residuals are all zero{}: an exact fit (the response is a linear function of the features, as a constant or all-zero response with an intercept), so the scale (the noise variance's estimate) is 0; the standard errors are 0, the intervals have width 0, the t statistics and p-values are undefined (nan, null in JSON) and the log-likelihood is +inf, as statsmodels' OLS gives them",
                if one_pass { " to the precision of the one-pass sums (residuals below about 1e-7 of the response)" } else { " to double precision" }
            )));
        }
        Fit {
            sd: glm.bse(),
            params: glm.params,
            cov_params: glm.cov,
            rs_scale: None,
            rs: None,
            trajectories: Trajectories::every_step(0, 0, p, Vec::new()),
            ridged_steps: 0,
            streamed_rows: one_pass.then_some(glm.nobs),
            glm: Some(GlmInfo {
                cov_type: spec.cov_type,
                scale: glm.scale,
                llf: glm.llf,
                iterations: glm.iterations,
                nobs: glm.nobs,
                converged: glm.converged,
                one_pass,
                exact_fit: glm.exact,
                stats: None,
            }),
            warnings,
            order: None,
            model: model.to_string(),
            spec,
        }
    }

    /// The standard errors: maximum likelihood's, or random scaling's `sqrt(6 Vbar_jj / T)`
    /// (its interval is `params +- c_K bse / sqrt(6)`, `c_K` the critical value of `K` pooled
    /// chains, not the normal one). Refused for the other chain methods, whose spread is the
    /// process's ([`Fit::process_sd`]).
    pub fn bse(&self) -> Result<&[f64], InferenceError> {
        if self.spec.method.is_process() {
            return Err(not_a_confidence_interval(self.spec.method, "bse"));
        }
        Ok(&self.sd)
    }

    /// The chains' standard deviation at the last step: the process's spread at `beta = 2n / eta`
    /// (SGD, MasGrad, the diffusions, MadProx). Refused for maximum likelihood and random
    /// scaling, whose spread is a standard error ([`Fit::bse`]).
    pub fn process_sd(&self) -> Result<&[f64], InferenceError> {
        if !self.spec.method.is_process() {
            return Err(InferenceError::NotOffered(format!(
                "`process_sd` is the chains' spread of sgd, masgrad, the diffusions and madprox; {} gives standard errors: use `bse`",
                self.spec.method.name()
            )));
        }
        Ok(&self.sd)
    }

    /// Confidence intervals at coverage `level` (`lower`, `upper`): Wald intervals for maximum
    /// likelihood (Student's t where [`Fit::uses_t`], on [`Fit::df_inference`] degrees of
    /// freedom, normal otherwise), the pooled chains' random-scaling interval `params +- c_K sqrt(Vbar_jj / T)`
    /// ([`crate::random_scaling::critical_value_pooled`]); refused for the other chain methods
    /// ([`Fit::bands`]).
    pub fn conf_int(&self, level: f64) -> Result<(Vec<f64>, Vec<f64>), InferenceError> {
        check_level(level)?;
        if self.spec.method.is_process() {
            return Err(not_a_confidence_interval(self.spec.method, "conf_int"));
        }
        if let Some(g) = &self.glm {
            let q = self.wald_quantile(level, g);
            return Ok((
                self.params.iter().zip(&self.sd).map(|(m, s)| m - q * s).collect(),
                self.params.iter().zip(&self.sd).map(|(m, s)| m + q * s).collect(),
            ));
        }
        let c = crate::random_scaling::critical_value_pooled(level, self.pooled_chains())? / 6f64.sqrt();
        Ok((
            self.params.iter().zip(&self.sd).map(|(m, s)| m - c * s).collect(),
            self.params.iter().zip(&self.sd).map(|(m, s)| m + c * s).collect(),
        ))
    }

    /// The quantile of Wald intervals at `level`: Student's t where [`Fit::uses_t`], the normal's
    /// otherwise.
    fn wald_quantile(&self, level: f64, g: &GlmInfo) -> f64 {
        let q = (1.0 + level) / 2.0;
        let df = self.df_inference(g);
        if self.uses_t() && df >= 1.0 { t_quantile(q, df) } else { crate::intervals::normal_quantile(q) }
    }

    /// The degrees of freedom of Student's t ([`Fit::uses_t`]): `N - rank`, or `G - 1` with
    /// cluster-robust covariances (statsmodels' `df_resid_inference`).
    pub fn df_inference(&self, g: &GlmInfo) -> f64 {
        let rank = g.stats.as_ref().map_or(self.params.len(), |s| s.rank);
        match (self.spec.cov_type, g.stats.as_ref().and_then(|s| s.n_groups)) {
            (crate::spec::CovType::Cluster, Some(groups)) => groups as f64 - 1.0,
            _ => g.nobs as f64 - rank as f64,
        }
    }

    /// The statistics `params / bse` (maximum likelihood's z, or t for the linear model; random
    /// scaling's studentized average, whose law is mixed normal); undefined (NaN) where `bse` is
    /// 0 (an exact fit, a running average that never varied: the fit's warnings say which).
    /// Refused for the process methods.
    pub fn tvalues(&self) -> Result<Vec<f64>, InferenceError> {
        if self.spec.method.is_process() {
            return Err(not_a_confidence_interval(self.spec.method, "tvalues"));
        }
        let se = &self.sd;
        Ok(self.params.iter().zip(se).map(|(m, s)| if *s > 0.0 { m / s } else { f64::NAN }).collect())
    }

    /// Two-sided p-values of `params = 0`: from the normal law (Student's t where [`Fit::uses_t`],
    /// on [`Fit::df_inference`] degrees of freedom) for maximum likelihood, from random scaling's mixed-normal
    /// limit for random scaling ([`crate::random_scaling::abs_cdf`]); undefined (NaN) where the
    /// statistic is ([`Fit::tvalues`]). Refused for the process methods.
    pub fn pvalues(&self) -> Result<Vec<f64>, InferenceError> {
        use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
        if self.spec.method.is_process() {
            return Err(not_a_confidence_interval(self.spec.method, "pvalues"));
        }
        let t = self.tvalues()?;
        let df = self.glm.as_ref().map_or(0.0, |g| self.df_inference(g));
        let two_sided = |v: f64| -> f64 {
            let a = v.abs();
            if a.is_nan() {
                f64::NAN
            } else if self.glm.is_none() {
                1.0 - crate::random_scaling::abs_cdf_pooled(a * 6f64.sqrt(), self.pooled_chains())
            } else if self.uses_t() && df >= 1.0 {
                2.0 * StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |d| d.sf(a))
            } else {
                2.0 * Normal::standard().sf(a)
            }
        };
        Ok(t.into_iter().map(two_sided).collect())
    }

    /// Random scaling: the chains pooled into the estimate (`K`; 1 for a fit without them).
    pub fn pooled_chains(&self) -> usize {
        self.rs.as_ref().map_or(1, |r| r.relaxations.len().max(1))
    }

    /// Whether the Wald intervals and p-values use Student's t: the run's `use_t`, by default
    /// statsmodels' choice (t for the linear model's nonrobust covariance, the normal for its
    /// sandwich covariances and for logistic and Poisson regression).
    pub fn uses_t(&self) -> bool {
        self.glm.is_some() && self.spec.use_t.unwrap_or(self.model == "linear" && !self.spec.cov_type.robust())
    }

    /// The process's pointwise band at coverage `level` at the last step (`lower`, `upper`): the
    /// central `level` of the chains' final iterates, as quantiles or mean +- z sd
    /// ([`IntervalKind`]); the bands of the paper's figures. For SGD, MasGrad, the diffusions
    /// and MadProx.
    pub fn bands(&self, level: f64) -> Result<(Vec<f64>, Vec<f64>), InferenceError> {
        check_level(level)?;
        if !self.spec.method.is_process() {
            return Err(InferenceError::NotOffered(format!(
                "`bands` are the chains' spread of sgd, masgrad, the diffusions and madprox; {} gives confidence intervals: use `conf_int`",
                self.spec.method.name()
            )));
        }
        let (traj, p) = (&self.trajectories, self.params.len());
        let (mut lo, mut hi, mut sample) = (vec![0.0; p], vec![0.0; p], Vec::new());
        for j in 0..p {
            traj.across_chains(traj.steps, j, &mut sample);
            let (_, l, h) = interval(&sample, level, self.spec.interval);
            lo[j] = l;
            hi[j] = h;
        }
        Ok((lo, hi))
    }

    /// Random scaling: every chain's interval at `level` (`K x p` lower and upper ends).
    pub fn chain_intervals(&self, level: f64) -> Result<(Vec<f64>, Vec<f64>), InferenceError> {
        check_level(level)?;
        let (traj, p) = (&self.trajectories, self.params.len());
        let Some(scale) = &self.rs_scale else {
            return Err(InferenceError::NotOffered(format!(
                "`chain_intervals` are random scaling's, one confidence interval per chain; {} has {}",
                self.spec.method.name(),
                if self.spec.method.is_process() { "bands (`bands`)" } else { "one interval (`conf_int`)" }
            )));
        };
        let c = crate::random_scaling::critical_value(level)?;
        let (mut lo, mut hi) = (Vec::with_capacity(scale.len()), Vec::with_capacity(scale.len()));
        for k in 0..traj.chains {
            for (j, a) in traj.at(k, traj.steps).iter().enumerate() {
                lo.push(a - c * scale[k * p + j]);
                hi.push(a + c * scale[k * p + j]);
            }
        }
        Ok((lo, hi))
    }

    /// The fit of one run of all the chains of `parts`: runs of the same spec on the same data that
    /// differ only in `chains` and `first_chain`, given in order of `first_chain` and together
    /// covering chains `0..K` (workers of an executor each running a slice). Equal, bit for bit,
    /// to the fit of one run of `K` chains.
    pub fn combine(parts: &[Fit]) -> Result<Fit, InferenceError> {
        let bad = |m: String| InferenceError::invalid("parts", format!("{} fits", parts.len()), m);
        let first = parts.first().ok_or_else(|| bad("at least one fit".into()))?;
        let same = |f: &Fit| InferenceSpec { chains: 0, first_chain: 0, ..f.spec.clone() };
        let mut next = 0;
        for f in parts {
            if same(f) != same(first)
                || f.model != first.model
                || f.trajectories.steps != first.trajectories.steps
                || f.streamed_rows.is_some()
                || f.glm.is_some()
            {
                return Err(bad("runs of one spec, model and number of steps, in memory".into()));
            }
            if f.spec.first_chain != next {
                return Err(bad(format!(
                    "consecutive chains from 0; a part starts at chain {} where {next} was expected",
                    f.spec.first_chain
                )));
            }
            next += f.spec.chains as u64;
        }
        let p = first.params.len();
        let mut spec = first.spec.clone();
        spec.chains = next as usize;
        let values: Vec<f64> = parts.iter().flat_map(|f| f.trajectories.values.iter().copied()).collect();
        let trajectories = Trajectories::every_step(spec.chains, first.trajectories.steps, p, values);
        let mut fit = Fit::of_chains(spec, first.model.clone(), trajectories, parts.iter().map(|f| f.ridged_steps).sum());
        if first.spec.method == Method::RandomScaling {
            let rs: Vec<&crate::passes::RsChains> = parts.iter().filter_map(|f| f.rs.as_ref()).collect();
            if rs.len() != parts.len() {
                return Err(bad("random-scaling fits that keep their chains' last passes".into()));
            }
            fit.rs = Some(crate::passes::RsChains::concat(&rs));
            crate::passes::pool(&mut fit);
        }
        fit.settle_warnings();
        Ok(fit)
    }

    /// The fit read off the chains' final records: their mean, covariance and its diagonal's
    /// root (random scaling's own estimates are set by the caller).
    pub(crate) fn of_chains(spec: InferenceSpec, model: String, trajectories: Trajectories, ridged_steps: u64) -> Fit {
        let p = trajectories.p;
        let finals: Vec<&[f64]> = (0..trajectories.chains).map(|k| trajectories.at(k, trajectories.steps)).collect();
        // The standard deviations from the scaled deviations: they survive where the covariance
        // under- or overflows (values near 1e-300 or 1e300).
        let (params, cov_params, sd) = mean_cov(&finals, p);
        // Chains that agree exactly have seen no sampling noise in that coordinate (the same
        // mini-batch every step, a unit that never activates): their interval has width 0.
        let mut warnings = Vec::new();
        if finals.len() == 1 && spec.method != Method::RandomScaling {
            warnings.push(Warning::new(
                WarningKind::Other,
                "one chain: the process sd and bands are the spread across chains, so they are 0 here and mean nothing (use chains >= 2)",
            ));
        }
        if finals.len() >= 2 && spec.method != Method::RandomScaling {
            let stuck: Vec<String> = (0..p).filter(|&j| finals.iter().all(|f| f[j] == finals[0][j])).map(|j| j.to_string()).collect();
            if !stuck.is_empty() {
                warnings.push(Warning::new(WarningKind::Other, format!(
                    "the {} chains end at exactly the same value in coordinate(s) {}: no sampling noise reached them (every mini-batch the same, or a parameter the data never move), so their band has width 0 and means nothing",
                    finals.len(),
                    stuck.join(", ")
                )));
            }
        }
        if let Some(v) = cov_params.iter().find(|v| !v.is_finite()) {
            let top = sd.iter().fold(0.0f64, |a, v| a.max(*v));
            warnings.push(Warning::new(WarningKind::Other, format!(
                "the chains' spread reaches {top:.3e}, so their covariance overflows double precision: cov_params holds {v} (null in JSON); the standard deviations and bands are exact"
            )));
        }
        Fit {
            sd,
            params,
            cov_params,
            rs_scale: None,
            rs: None,
            ridged_steps,
            streamed_rows: None,
            glm: None,
            warnings,
            order: None,
            model,
            spec,
            trajectories,
        }
    }

    /// Adds a warning when the run has not settled. For the process methods, when the chains' mean
    /// still moves: between the record `s` nearest `T/2` and the last, `T`, the mean of the `K`
    /// chains moved by `z` of its standard errors `sqrt((sd_s^2 + sd_T^2) / K)` in some
    /// coordinate, beyond the normal quantile at `1 - 0.005/p` (a settled process exceeds it in
    /// about 1 run in 100): the chains' law at `T` is then not yet the stationary one the bands
    /// describe. Random scaling checks its passes instead ([`crate::passes::pool`]).
    pub(crate) fn settle_warnings(&mut self) {
        let tr = &self.trajectories;
        let p = tr.p;
        if self.spec.method == Method::RandomScaling {
            // Pooled with its own checks ([`crate::passes::pool`]).
            return;
        }
        let k = tr.chains;
        let mid = tr.steps / 2;
        if !self.spec.method.is_process() || k < 2 || mid == 0 {
            return;
        }
        let crit = crate::intervals::normal_quantile(1.0 - 0.005 / p as f64);
        let (mut end, mut half) = (Vec::new(), Vec::new());
        let mut worst = (0, 0.0f64);
        for j in 0..p {
            tr.across_chains(tr.steps, j, &mut end);
            tr.across_chains(mid, j, &mut half);
            let ((m1, s1), (m0, s0)) = (gradfree_core::stats::mean_sd(&end), gradfree_core::stats::mean_sd(&half));
            let se = ((s0 * s0 + s1 * s1) / k as f64).sqrt();
            let z = if se > 0.0 { (m1 - m0).abs() / se } else { 0.0 };
            if z > worst.1 {
                worst = (j, z);
            }
        }
        if worst.1 > crit {
            self.warnings.push(Warning::new(WarningKind::Convergence, format!(
                "The chains have not settled: their mean in coordinate {} moved {:.1} standard errors between step {} and step {} (beyond the {crit:.2} a settled process exceeds once in 100 runs), so their spread is not yet the stationary one; run more steps",
                worst.0,
                worst.1,
                tr.time(mid),
                tr.time(tr.steps)
            )));
        }
    }

    /// Whether the bands read off the chains are quantiles.
    pub fn quantile_intervals(&self) -> bool {
        self.spec.interval == IntervalKind::Quantile && self.spec.method.is_process()
    }
}

/// The mean and the sample covariance (`p x p` row-major) of `rows`, each coordinate's deviations
/// scaled by their largest before they are multiplied, so that values near the ends of double
/// precision (1e-300, 1e300) keep their spread instead of squaring to 0 or infinity.
fn mean_cov(rows: &[&[f64]], p: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let k = rows.len() as f64;
    let mut mean = vec![0.0; p];
    for r in rows {
        mean.iter_mut().zip(r.iter()).for_each(|(m, v)| *m += v / k);
    }
    let mut cov = vec![0.0; p * p];
    if rows.len() > 1 {
        let scale: Vec<f64> =
            (0..p).map(|j| rows.iter().fold(0.0f64, |a, r| a.max((r[j] - mean[j]).abs())).max(f64::MIN_POSITIVE)).collect();
        for r in rows {
            for i in 0..p {
                for j in 0..p {
                    cov[i * p + j] += ((r[i] - mean[i]) / scale[i]) * ((r[j] - mean[j]) / scale[j]) / (k - 1.0);
                }
            }
        }
        let sd = (0..p).map(|j| scale[j] * cov[j * p + j].sqrt()).collect();
        for i in 0..p {
            for j in 0..p {
                cov[i * p + j] *= scale[i] * scale[j];
            }
        }
        return (mean, cov, sd);
    }
    (mean, cov, vec![0.0; p])
}

/// From these degrees of freedom Student's t quantile is its expansion about the normal's:
/// statrs' inverse (an iteration on the incomplete beta function) is accurate to 1e-12 up to
/// 1e4 degrees of freedom and off by 7e-6 at 1e5 (against scipy's `t.ppf`).
const T_EXPANSION: f64 = 1e4;

/// Student's t quantile at `q` in `(0, 1)` on `df >= 1` degrees of freedom: statrs' inverse below
/// [`T_EXPANSION`], the Cornish-Fisher expansion `z + g1/df + g2/df^2 + g3/df^3 + g4/df^4` in the
/// normal quantile `z` from there (Abramowitz & Stegun 26.7.5), whose next term is below 1e-15.
fn t_quantile(q: f64, df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let z = crate::intervals::normal_quantile(q);
    if df >= T_EXPANSION {
        let z2 = z * z;
        let g1 = z * (z2 + 1.0) / 4.0;
        let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
        let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
        let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
        return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
    }
    StudentsT::new(0.0, 1.0, df).map_or(z, |t| t.inverse_cdf(q))
}

/// The warning of a maximum-likelihood fit of `model` that stopped after `iterations` Newton
/// steps without converging: at the step limit the likelihood keeps growing (separated classes in
/// logistic regression; in Poisson regression counts of 0 whose fitted means go to 0); before
/// it, no step along Newton's direction decreased the loss.
fn not_converged(model: &str, iterations: usize) -> String {
    if iterations < crate::mle::MAX_NEWTON {
        return format!(
            "Maximum likelihood stopped after {iterations} Newton steps without converging: no step along Newton's direction decreased the loss (rounding or overflow), so the estimate and its standard errors may not be a maximum's"
        );
    }
    let why = match model {
        "logistic" => "the likelihood keeps growing (separated classes?)",
        "poisson" => "the likelihood keeps growing (counts of 0 whose fitted means go to 0 along some direction of the features?)",
        _ => "the likelihood keeps changing",
    };
    format!(
        "Maximum likelihood did not converge in {iterations} Newton steps: {why}, so the estimate and its standard errors are not a maximum's"
    )
}

/// `level` in (0, 1).
fn check_level(level: f64) -> Result<(), InferenceError> {
    if !(level > 0.0 && level < 1.0) {
        return Err(InferenceError::invalid("level", level, "in (0, 1)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Student's t quantiles against scipy's `t.ppf` on both sides of the hand-over to the
    /// expansion, and the normal's in the limit.
    #[test]
    fn t_quantiles_match_scipy() {
        // scipy.stats.t.ppf(q, df).
        let scipy = [
            (0.975, 10.0, 2.228138851986274),
            (0.975, 1000.0, 1.9623390808264083),
            (0.975, 1e4, 1.960201239890626),
            (0.975, 1e5, 1.9599877075346095),
            (0.9995, 1e4, 3.2914999659416355),
            (0.9995, 1e5, 3.2906240314119137),
            (0.6, 1e5, 0.25334777715718015),
        ];
        for (q, df, want) in scipy {
            let got = t_quantile(q, df);
            assert!((got - want).abs() < 1e-12 * want, "t({q}, {df}) = {got}, scipy {want}");
            // Just below the hand-over, statrs' inverse agrees with the expansion.
            let (below, at) = (t_quantile(q, T_EXPANSION * (1.0 - 1e-12)), t_quantile(q, T_EXPANSION));
            assert!((below - at).abs() < 1e-11 * at, "{q}: {below} vs {at}");
        }
        let z = crate::intervals::normal_quantile(0.975);
        assert!(t_quantile(0.975, 1e300) == z && t_quantile(0.975, 1e12) > z);
    }

    /// Chains of values near 1e-300 keep their spread (their squares would underflow to 0).
    #[test]
    fn the_spread_survives_the_ends_of_double_precision() {
        for scale in [1e-300, 1.0, 1e300] {
            let rows: Vec<Vec<f64>> = (0..5).map(|i| vec![scale * (1.0 + i as f64), 2.0 * scale]).collect();
            let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
            let (mean, _, sd) = mean_cov(&refs, 2);
            assert!((mean[0] / scale - 3.0).abs() < 1e-12);
            assert!((sd[0] / (scale * 2.5f64.sqrt()) - 1.0).abs() < 1e-12, "{scale}: {sd:?}");
            assert_eq!(sd[1], 0.0);
        }
    }
}
