//! The measures of fit a statsmodels script reads off a GLM's results, from the fit and its
//! [`super::GlmStats`], with statsmodels' definitions and degrees of freedom: `df_model` is
//! `rank - k_constant` for the linear model (`OLS`) and `rank - 1` for logistic and Poisson
//! regression (`Logit`, `Poisson`, `GLM`); `df_resid = N - rank`; `aic = -2 llf + 2 rank` (`OLS`:
//! `2 (df_model + k_constant)`, the same number); the linear model's `R^2` is centered when the
//! design has a constant and uncentered otherwise (`RegressionResults.rsquared`), its F statistic
//! the Wald test that every coefficient but the constant is 0 (`fvalue`, `mse_model / mse_resid`
//! for the nonrobust covariance); McFadden's pseudo `R^2 = 1 - llf / llnull` and the likelihood
//! ratio `llr = 2 (llf - llnull)` on `df_model` degrees of freedom (`DiscreteResults`); Cox and
//! Snell's `1 - exp(2 (llnull - llf) / N)` (`GLMResults.pseudo_rsquared("cs")`).

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor};

use super::{GlmInfo, GlmStats, spd_solve};
use crate::Fit;

/// Every measure of [`Fit::measures`] (`None` where the model or the fit has none).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measures {
    /// The rank of the design.
    pub rank: usize,
    /// 1 when the design has a constant, else 0.
    pub k_constant: usize,
    /// The model's degrees of freedom.
    pub df_model: f64,
    /// The residual degrees of freedom.
    pub df_resid: f64,
    /// Akaike's criterion.
    pub aic: f64,
    /// Schwarz's criterion.
    pub bic: f64,
    /// The deviance ([`GlmStats::deviance`]).
    pub deviance: Option<f64>,
    /// The null model's deviance.
    pub null_deviance: Option<f64>,
    /// Pearson's chi-squared.
    pub pearson_chi2: Option<f64>,
    /// The null model's log-likelihood (logistic, Poisson).
    pub llnull: Option<f64>,
    /// `2 (llf - llnull)`.
    pub llr: Option<f64>,
    /// The chi-squared p-value of `llr` on `df_model` degrees of freedom.
    pub llr_pvalue: Option<f64>,
    /// McFadden's pseudo `R^2`.
    pub prsquared: Option<f64>,
    /// Cox and Snell's pseudo `R^2`.
    pub pseudo_rsquared_cs: Option<f64>,
    /// The linear model's residual sum of squares.
    pub ssr: Option<f64>,
    /// The linear model's explained sum of squares (centered with a constant).
    pub ess: Option<f64>,
    /// `sum (y - ybar)^2`.
    pub centered_tss: Option<f64>,
    /// `sum y^2`.
    pub uncentered_tss: Option<f64>,
    /// `R^2`.
    pub rsquared: Option<f64>,
    /// `1 - (N - k_constant) / df_resid (1 - R^2)`.
    pub rsquared_adj: Option<f64>,
    /// `ess / df_model`.
    pub mse_model: Option<f64>,
    /// `ssr / df_resid`.
    pub mse_resid: Option<f64>,
    /// `(ess + ssr) / (df_model + df_resid)`.
    pub mse_total: Option<f64>,
    /// The F statistic of every coefficient but the constant.
    pub fvalue: Option<f64>,
    /// Its p-value.
    pub f_pvalue: Option<f64>,
}

impl Measures {
    /// Every measure by its statsmodels name (`None`: not offered for this model or fit), NaN
    /// kept as NaN (which JSON cannot hold).
    pub fn entries(&self) -> Vec<(&'static str, Option<f64>)> {
        vec![
            ("rank", Some(self.rank as f64)),
            ("k_constant", Some(self.k_constant as f64)),
            ("df_model", Some(self.df_model)),
            ("df_resid", Some(self.df_resid)),
            ("aic", Some(self.aic)),
            ("bic", Some(self.bic)),
            ("deviance", self.deviance),
            ("null_deviance", self.null_deviance),
            ("pearson_chi2", self.pearson_chi2),
            ("llnull", self.llnull),
            ("llr", self.llr),
            ("llr_pvalue", self.llr_pvalue),
            ("prsquared", self.prsquared),
            ("pseudo_rsquared_cs", self.pseudo_rsquared_cs),
            ("ssr", self.ssr),
            ("ess", self.ess),
            ("centered_tss", self.centered_tss),
            ("uncentered_tss", self.uncentered_tss),
            ("rsquared", self.rsquared),
            ("rsquared_adj", self.rsquared_adj),
            ("mse_model", self.mse_model),
            ("mse_resid", self.mse_resid),
            ("mse_total", self.mse_total),
            ("fvalue", self.fvalue),
            ("f_pvalue", self.f_pvalue),
        ]
    }
}

impl Fit {
    /// The measures of fit of a maximum-likelihood fit (see the module documentation); `None` for
    /// the chain methods. Streamed fits, which keep no rows, have the ones that need only the
    /// estimate and the log-likelihood.
    pub fn measures(&self) -> Option<Measures> {
        let g = self.glm.as_ref()?;
        let p = self.params.len();
        let stats = g.stats.as_ref();
        let rank = stats.map_or(p, |s| s.rank);
        let k_constant = usize::from(stats.is_some_and(|s| s.constant.is_some()));
        let linear = self.model == "linear";
        let n = g.nobs as f64;
        let df_model = if linear { rank as f64 - k_constant as f64 } else { rank as f64 - 1.0 };
        let df_resid = n - rank as f64;
        let aic = -2.0 * g.llf + 2.0 * rank as f64;
        let bic = -2.0 * g.llf + n.ln() * rank as f64;
        let llnull = stats.and_then(|s| s.llnull);
        // At the maximum llf >= llnull; a difference below the sums' rounding is 0.
        let llr = llnull.map(|l0| {
            let d = 2.0 * (g.llf - l0);
            if d < 0.0 && -d <= 1e-9 * g.llf.abs().max(1.0) { 0.0 } else { d }
        });
        // A negative statistic (a model without a constant below the constant-only one) has
        // p-value 1, as statsmodels gives it.
        let chi2_sf = |x: f64, df: f64| match x {
            x if df > 0.0 && x.is_finite() && x >= 0.0 => ChiSquared::new(df).map_or(f64::NAN, |d| d.sf(x)),
            x if df > 0.0 && x < 0.0 => 1.0,
            _ => f64::NAN,
        };
        let mut m = Measures {
            rank,
            k_constant,
            df_model,
            df_resid,
            aic,
            bic,
            deviance: stats.map(|s| s.deviance),
            null_deviance: stats.map(|s| s.null_deviance),
            pearson_chi2: stats.map(|s| s.pearson_chi2),
            llnull,
            llr,
            llr_pvalue: llr.map(|v| chi2_sf(v, df_model)),
            prsquared: llnull.map(|l0| 1.0 - g.llf / l0),
            pseudo_rsquared_cs: llnull.map(|l0| 1.0 - (2.0 * (l0 - g.llf) / n).exp()),
            ssr: None,
            ess: None,
            centered_tss: stats.map(|s| s.centered_tss),
            uncentered_tss: stats.map(|s| s.uncentered_tss),
            rsquared: None,
            rsquared_adj: None,
            mse_model: None,
            mse_resid: None,
            mse_total: None,
            fvalue: None,
            f_pvalue: None,
        };
        if linear && let Some(s) = stats {
            self.ols_measures(g, s, &mut m);
        }
        Some(m)
    }

    /// The linear model's sums of squares, `R^2` and F test.
    fn ols_measures(&self, g: &GlmInfo, s: &GlmStats, m: &mut Measures) {
        let tss = if s.constant.is_some() { s.centered_tss } else { s.uncentered_tss };
        let ssr = s.deviance;
        let ess = tss - ssr;
        let rsquared = 1.0 - ssr / tss;
        m.ssr = Some(ssr);
        m.ess = Some(ess);
        m.rsquared = Some(rsquared);
        m.rsquared_adj = Some(1.0 - (g.nobs as f64 - m.k_constant as f64) / m.df_resid * (1.0 - rsquared));
        m.mse_model = Some(ess / m.df_model);
        m.mse_resid = Some(ssr / m.df_resid);
        m.mse_total = Some(tss / (m.df_resid + m.df_model));
        let denom = if self.spec.cov_type.robust() { self.df_inference(g) } else { m.df_resid };
        let f = if self.spec.cov_type.robust() { self.wald_f(s.constant) } else { Some((ess / m.df_model) / (ssr / m.df_resid)) };
        m.fvalue = f;
        m.f_pvalue =
            f.map(
                |v| if v.is_finite() && v >= 0.0 { FisherSnedecor::new(m.df_model, denom).map_or(f64::NAN, |d| d.sf(v)) } else { f64::NAN },
            );
    }

    /// The Wald F statistic `b_R^T V_RR^{-1} b_R / q` of every coefficient but the constant
    /// (NaN when their covariance is singular, as a cluster-robust one with fewer clusters than
    /// coefficients is).
    fn wald_f(&self, constant: Option<usize>) -> Option<f64> {
        let p = self.params.len();
        let keep: Vec<usize> = (0..p).filter(|&j| Some(j) != constant).collect();
        let q = keep.len();
        if q == 0 {
            return None;
        }
        let v: Vec<f64> = keep.iter().flat_map(|&a| keep.iter().map(move |&b| (a, b))).map(|(a, b)| self.cov_params[a * p + b]).collect();
        let b: Vec<f64> = keep.iter().map(|&j| self.params[j]).collect();
        let Some(sol) = spd_solve(&v, q, &b, 1) else { return Some(f64::NAN) };
        Some(b.iter().zip(&sol).map(|(a, c)| a * c).sum::<f64>() / q as f64)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Data, Family, Glm, InferenceSpec, run};

    /// The closed forms: the null logistic log-likelihood `N [ybar ln ybar + (1 - ybar) ln(1 -
    /// ybar)]`, the deviance `-2 llf`, and the linear model's `R^2 = 1 - ssr / sum (y - ybar)^2`
    /// with `F = (R^2 / df_model) / ((1 - R^2) / df_resid)`.
    #[test]
    fn measures_are_their_closed_forms() {
        let xs: Vec<f64> = (0..60).map(|i| ((i * 11 % 17) as f64 - 8.0) / 4.0).collect();
        let yl: Vec<f64> = xs.iter().map(|v| f64::from(u8::from(*v + 0.3 * (v * 7.0).sin() > 0.2))).collect();
        let data = Data::new(xs.iter().flat_map(|&v| [1.0, v]).collect(), 2, yl.clone()).unwrap();
        let fit = run(&Glm::new(Family::Logistic, 2), &data, &InferenceSpec::default(), None).unwrap();
        let m = fit.measures().unwrap();
        let ybar = yl.iter().sum::<f64>() / 60.0;
        let l0 = 60.0 * (ybar * ybar.ln() + (1.0 - ybar) * (1.0 - ybar).ln());
        let llf = fit.glm.as_ref().unwrap().llf;
        assert!((m.llnull.unwrap() - l0).abs() < 1e-10 && (m.deviance.unwrap() + 2.0 * llf).abs() < 1e-9);
        assert!((m.prsquared.unwrap() - (1.0 - llf / l0)).abs() < 1e-12 && m.df_model == 1.0 && m.k_constant == 1);
        let y: Vec<f64> = xs.iter().enumerate().map(|(i, v)| 2.0 - v + ((i * 3 % 5) as f64 - 2.0) / 2.0).collect();
        let data = Data::new(xs.iter().flat_map(|&v| [1.0, v]).collect(), 2, y.clone()).unwrap();
        let fit = run(&Glm::new(Family::Linear, 2), &data, &InferenceSpec::default(), None).unwrap();
        let m = fit.measures().unwrap();
        let yb = y.iter().sum::<f64>() / 60.0;
        let tss: f64 = y.iter().map(|v| (v - yb).powi(2)).sum();
        let r2 = 1.0 - m.ssr.unwrap() / tss;
        assert!((m.rsquared.unwrap() - r2).abs() < 1e-12);
        assert!((m.fvalue.unwrap() - (r2 / 1.0) / ((1.0 - r2) / 58.0)).abs() < 1e-8 * m.fvalue.unwrap());
        // Without a constant: df_model counts every coefficient and R^2 is uncentered (OLS).
        let data = Data::new(xs.clone(), 1, y.clone()).unwrap();
        let m = run(&Glm::new(Family::Linear, 1), &data, &InferenceSpec::default(), None).unwrap().measures().unwrap();
        let uss: f64 = y.iter().map(|v| v * v).sum();
        assert!(m.df_model == 1.0 && m.k_constant == 0 && (m.rsquared.unwrap() - (1.0 - m.ssr.unwrap() / uss)).abs() < 1e-12);
    }
}
