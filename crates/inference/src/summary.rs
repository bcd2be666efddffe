//! The summary of a [`Fit`] in statsmodels' layout ([`Summary`]): a title, a header of two
//! columns of `name: value` pairs, a coefficient table and notes. Maximum likelihood's reads as
//! statsmodels' `GLM(...).fit().summary()` does (coef, std err, z or t, P>|z|, the interval);
//! random scaling's gives its scale, statistic, p-value and interval from its mixed-normal limit;
//! the process methods' give the chains' mean, spread and band. The command line prints
//! [`Summary::as_text`]; Python renders the same [`Summary`] as text, HTML, LaTeX and CSV.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::Fit;
use crate::spec::{IntervalKind, Method, Moments};

/// A summary: what [`summary`] returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The title.
    pub title: String,
    /// The header's left and right columns of `(name, value)`.
    pub left: Vec<(String, String)>,
    /// The right column.
    pub right: Vec<(String, String)>,
    /// The coefficient table's column titles (the first column holds the names).
    pub columns: Vec<String>,
    /// One row per parameter: its name and the values of the columns.
    pub rows: Vec<(String, Vec<f64>)>,
    /// Notes under the table (what the columns mean, warnings).
    pub notes: Vec<String>,
}

/// Width of the text summary (statsmodels').
const WIDTH: usize = 78;

impl Summary {
    /// The coefficient table's entries as the text prints them, one row per parameter.
    pub fn cells(&self) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|(_, values)| self.columns.iter().zip(values).map(|(c, v)| number(*v, c.starts_with("P>"))).collect())
            .collect()
    }

    /// The header's lines, as the text prints them: the left and right columns of `name: value`.
    pub fn header_lines(&self) -> Vec<String> {
        let half = WIDTH / 2;
        (0..self.left.len().max(self.right.len()))
            .map(|i| {
                let cell = |pair: Option<&(String, String)>, w: usize| match pair {
                    Some((k, v)) => format!("{:<k_w$}{:>v_w$}", format!("{k}:"), v, k_w = 20, v_w = w.saturating_sub(20)),
                    None => " ".repeat(w),
                };
                format!("{}  {}", cell(self.left.get(i), half - 2), cell(self.right.get(i), half)).trim_end().to_string()
            })
            .collect()
    }

    /// The coefficient table's lines, as the text prints them: the column titles, a rule and one
    /// line per parameter.
    pub fn table_lines(&self) -> Vec<String> {
        let name_w = self.rows.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0).clamp(10, 24);
        let col_w = ((WIDTH - name_w) / self.columns.len().max(1)).max(10);
        let mut titles = format!("{:name_w$}", "");
        for c in &self.columns {
            let _ = write!(titles, "{c:>col_w$}");
        }
        let mut lines = vec![titles, "-".repeat(WIDTH)];
        for (name, cells) in self.rows.iter().zip(self.cells()) {
            let mut line = format!("{:<name_w$}", truncate(&name.0, name_w));
            for cell in cells {
                let _ = write!(line, "{cell:>col_w$}");
            }
            lines.push(line);
        }
        lines
    }

    /// The text, as statsmodels prints it: 78 columns, numbers to 4 significant places in the
    /// table (3 decimals for p-values): the title, the header ([`Summary::header_lines`]), the
    /// table ([`Summary::table_lines`]) and the notes.
    pub fn as_text(&self) -> String {
        let rule = "=".repeat(WIDTH);
        let mut out = format!("{:^WIDTH$}\n{rule}\n", self.title);
        for line in self.header_lines() {
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "{rule}");
        for line in self.table_lines() {
            let _ = writeln!(out, "{line}");
        }
        out.push_str(&rule);
        for n in &self.notes {
            let _ = write!(out, "\n{n}");
        }
        out
    }
}

/// `name` cut to `w` characters.
fn truncate(name: &str, w: usize) -> String {
    name.chars().take(w).collect()
}

/// A table entry: statsmodels' `%#8.4g`-like 4 significant digits (p-values to 3 decimals);
/// undefined and infinite values as statsmodels prints them, `nan`, `inf`, `-inf` (the fit's
/// warnings say why they are).
pub fn number(v: f64, pvalue: bool) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    if pvalue {
        return format!("{v:.3}");
    }
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e6).contains(&a) {
        return format!("{v:.3e}");
    }
    let digits = if a == 0.0 { 3 } else { (3 - a.log10().floor() as i32).clamp(0, 7) as usize };
    format!("{v:.digits$}")
}

/// `nan`, `inf` or `-inf`.
fn non_finite(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// A header value (the scale, the log-likelihood, AIC, BIC): `decimals` places, in scientific
/// notation with 4 significant digits where that would take over 12 characters or show no
/// significant digit (statsmodels' `%#8.5g`-like); `nan`, `inf`, `-inf` as [`number`].
fn header(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    let a = v.abs();
    if a != 0.0 && (a >= 1e9 || a < 10f64.powi(-(decimals as i32))) {
        return format!("{v:.4e}");
    }
    format!("{v:.decimals$}")
}

/// How a maximum-likelihood summary's header is laid out: as statsmodels' `GLM`, `OLS` or
/// discrete (`Logit`, `Poisson`) results print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `GLMResults.summary()`: family, link, scale, deviance, Pearson chi2.
    Glm,
    /// `OLSResults.summary()`: R-squared, F statistic, AIC, BIC.
    Ols,
    /// `LogitResults`/`PoissonResults.summary()`: pseudo R-squared, LL-Null, LLR p-value.
    Discrete,
}

impl Layout {
    /// The layout by its name (`glm`, `ols`, `discrete`).
    pub fn parse(name: &str) -> Result<Layout, crate::InferenceError> {
        match name {
            "glm" => Ok(Layout::Glm),
            "ols" => Ok(Layout::Ols),
            "discrete" => Ok(Layout::Discrete),
            other => Err(crate::InferenceError::invalid("layout", other, "glm, ols or discrete")),
        }
    }
}

/// Python's `%#.{digits}g`: `digits` significant digits, trailing zeros kept, scientific
/// notation below `1e-4` and from `10^digits` (statsmodels' header numbers).
fn sig(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    if v == 0.0 {
        return format!("{:.*}", digits.saturating_sub(1), 0.0);
    }
    let e = v.abs().log10().floor() as i32;
    if e < -4 || e >= digits as i32 {
        let s = format!("{:.*e}", digits.saturating_sub(1), v);
        // Rust writes 1.234e-5; Python 1.234e-05.
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let x: i32 = exp.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs());
    }
    format!("{:.*}", (digits as i32 - 1 - e).max(0) as usize, v)
}

/// The summary of `fit` with the parameters named `names` (`x0, x1, ...` where missing), the
/// response named `response`, and intervals at coverage `level`, maximum likelihood's laid out
/// by the model ([`Layout`]: OLS for the linear model, Logit or Poisson for the others, GLM for
/// streamed fits).
pub fn summary(fit: &Fit, names: &[String], response: &str, level: f64) -> Summary {
    summary_as(fit, names, response, level, None)
}

/// [`summary`] with maximum likelihood's header laid out as `layout` (`None`: by the model).
pub fn summary_as(fit: &Fit, names: &[String], response: &str, level: f64, layout: Option<Layout>) -> Summary {
    let s = &fit.spec;
    let p = fit.params.len();
    let name = |j: usize| names.get(j).cloned().unwrap_or_else(|| format!("x{j}"));
    let (lo_q, hi_q) = ((1.0 - level) / 2.0, (1.0 + level) / 2.0);
    let bounds = [format!("[{lo_q:.3}"), format!("{hi_q:.3}]")];
    let kv = |k: &str, v: String| (k.to_string(), v);
    let mut left = vec![kv("Dep. Variable", response.to_string())];
    let mut right = Vec::new();
    let mut notes = Vec::new();
    let nan = || (vec![f64::NAN; p], vec![f64::NAN; p]);
    let (title, columns, rows) = if let Some(g) = &fit.glm {
        let (family, link) = match fit.model.as_str() {
            "linear" => ("Gaussian", "Identity"),
            "logistic" => ("Binomial", "Logit"),
            _ => ("Poisson", "Log"),
        };
        let m = fit.measures();
        let df = |v: Option<f64>| v.map_or_else(|| "nan".to_string(), |v| format!("{v:.0}"));
        let (df_model, df_resid) = (df(m.as_ref().map(|m| m.df_model)), df(m.as_ref().map(|m| m.df_resid)));
        let (aic, bic) = (m.as_ref().map_or(f64::NAN, |m| m.aic), m.as_ref().map_or(f64::NAN, |m| m.bic));
        let kind = layout.unwrap_or(if g.stats.is_none() {
            Layout::Glm
        } else if fit.model == "linear" {
            Layout::Ols
        } else {
            Layout::Discrete
        });
        let opt = |v: Option<f64>, digits: usize| v.map_or_else(|| "nan".to_string(), |v| sig(v, digits));
        let title = match kind {
            Layout::Glm => "Generalized Linear Model Regression Results".to_string(),
            Layout::Ols => "OLS Regression Results".to_string(),
            Layout::Discrete => format!("{} Regression Results", if fit.model == "logistic" { "Logit" } else { "Poisson" }),
        };
        match kind {
            Layout::Ols => {
                let mm = m.as_ref();
                left.extend([
                    kv("Model", "OLS".into()),
                    kv("Method", "Least Squares".into()),
                    kv("No. Observations", g.nobs.to_string()),
                    kv("Df Residuals", df_resid),
                    kv("Df Model", df_model),
                    kv("Covariance Type", s.cov_type.name().into()),
                ]);
                right.extend([
                    kv("R-squared", mm.and_then(|m| m.rsquared).map_or_else(|| "nan".into(), |v| format!("{v:.3}"))),
                    kv("Adj. R-squared", mm.and_then(|m| m.rsquared_adj).map_or_else(|| "nan".into(), |v| format!("{v:.3}"))),
                    kv("F-statistic", opt(mm.and_then(|m| m.fvalue), 4)),
                    kv("Prob (F-statistic)", opt(mm.and_then(|m| m.f_pvalue), 3)),
                    kv("Log-Likelihood", sig(g.llf, 5)),
                    kv("AIC", sig(aic, 4)),
                    kv("BIC", sig(bic, 4)),
                ]);
            }
            Layout::Discrete => {
                let mm = m.as_ref();
                left.extend([
                    kv("Model", if fit.model == "logistic" { "Logit".into() } else { "Poisson".into() }),
                    kv("Method", "MLE".into()),
                    kv("converged", if g.converged { "True".into() } else { "False".into() }),
                    kv("Covariance Type", s.cov_type.name().into()),
                ]);
                right.extend([
                    kv("No. Observations", g.nobs.to_string()),
                    kv("Df Residuals", df_resid),
                    kv("Df Model", df_model),
                    kv("Pseudo R-squ.", opt(mm.and_then(|m| m.prsquared), 4)),
                    kv("Log-Likelihood", sig(g.llf, 5)),
                    kv("LL-Null", opt(mm.and_then(|m| m.llnull), 5)),
                    kv("LLR p-value", opt(mm.and_then(|m| m.llr_pvalue), 4)),
                ]);
            }
            Layout::Glm => {
                let mm = m.as_ref();
                left.extend([
                    kv("Model", "GLM".into()),
                    kv("Model Family", family.into()),
                    kv("Link Function", link.into()),
                    kv("Method", if g.one_pass { "one pass (CUEE)".into() } else { "Newton (IRLS)".into() }),
                    kv(if g.one_pass { "No. Blocks" } else { "No. Iterations" }, g.iterations.to_string()),
                    kv("Covariance Type", s.cov_type.name().into()),
                ]);
                right.extend([
                    kv("No. Observations", g.nobs.to_string()),
                    kv("Df Residuals", df_resid),
                    kv("Df Model", df_model),
                    kv("Scale", header(g.scale, 4)),
                    kv("Log-Likelihood", header(g.llf, 2)),
                ]);
                if let Some(mm) = mm.filter(|m| m.deviance.is_some()) {
                    right.push(kv("Deviance", opt(mm.deviance, 5)));
                    right.push(kv("Pearson chi2", opt(mm.pearson_chi2, 3)));
                    if mm.pseudo_rsquared_cs.is_some() {
                        right.push(kv("Pseudo R-squ. (CS)", opt(mm.pseudo_rsquared_cs, 4)));
                    }
                } else {
                    right.push(kv("AIC", header(aic, 2)));
                    right.push(kv("BIC", header(bic, 2)));
                }
            }
        }
        let stat = if fit.uses_t() { "t" } else { "z" };
        let (lo, hi) = fit.conf_int(level).unwrap_or_else(|_| nan());
        let (t, pv) = (fit.tvalues().unwrap_or_default(), fit.pvalues().unwrap_or_default());
        let rows = (0..p).map(|j| (name(j), vec![fit.params[j], fit.sd[j], t[j], pv[j], lo[j], hi[j]])).collect();
        let order = fit.order.as_ref();
        let tested = order.map_or(String::new(), |c| format!(" (order test: p = {:.2})", c.pvalue));
        if g.one_pass && g.converged {
            notes.push(format!(
                "One pass over {} streamed rows (Schifano et al. 2016){tested}: within a small fraction of a standard error of the MLE; the log-likelihood is the sum of every block's second-order expansion.",
                g.nobs
            ));
        } else if g.one_pass {
            notes.push(format!(
                "One pass over {} streamed rows (Schifano et al. 2016): not the MLE; the rows' order made the one-pass estimate unreliable (see the warnings).",
                g.nobs
            ));
        } else if let Some(rows) = fit.streamed_rows {
            let passes = order.map_or(String::new(), |c| format!(" in {} passes", c.passes));
            notes.push(format!(
                "Newton's method over {rows} streamed rows read again{passes}, from the one-pass estimate{}: the MLE of every row.",
                order.map_or(String::new(), |c| format!(" (order test: p = {:.1e})", c.pvalue))
            ));
        }
        let columns = ["coef", "std err", stat, &format!("P>|{stat}|")].iter().map(|c| c.to_string()).chain(bounds).collect();
        (title, columns, rows)
    } else {
        let title = match s.method {
            Method::Masgrad | Method::MasgradRankOne => "MasGrad chains (Liang & Su 2019, eq. 10)",
            Method::Sgd => "SGD chains (Liang & Su 2019, eq. 3)",
            Method::DiffMasgrad => "Discretized MasGrad diffusion (Liang & Su 2019, eq. 11)",
            Method::DiffSgd => "Discretized SGD diffusion (Liang & Su 2019, eq. 6)",
            Method::Madprox => "MadProx chains, l1-regularized (Liang & Su 2019, eq. 19-20)",
            Method::RandomScaling | Method::Mle => "Averaged SGD, random-scaling intervals (Lee et al. 2022)",
        }
        .to_string();
        left.extend([kv("Model", fit.model.clone()), kv("Method", s.method.name().into()), kv("Batch size", s.batch().to_string())]);
        let step = match (s.method, s.step) {
            (Method::RandomScaling, Some(eta)) => format!("{eta} t^-{}", s.decay),
            (Method::RandomScaling, None) => format!("t^-{}: 1/lambda_max, then H^-1", s.decay),
            _ => format!("{} (beta = 2n/eta = {:.4})", s.fixed_step(), 2.0 * s.batch() as f64 / s.fixed_step()),
        };
        right.extend([kv("Step", step), kv("Chains", s.chains.to_string()), kv("Steps", s.steps.to_string())]);
        if s.method == Method::RandomScaling && fit.streamed_rows.is_none() {
            right.push(kv("Passes", s.passes.to_string()));
        }
        if let Some(rows) = fit.streamed_rows {
            right.push(kv("Rows streamed", rows.to_string()));
        }
        if s.method.root().is_some() {
            let root = if s.method == Method::Masgrad { "symmetric" } else { "rank-one" };
            let v = match s.moments_for(fit.streamed_rows.is_some()) {
                Moments::Batch => "batch",
                Moments::Independent => "independent batch",
                Moments::Population => "population",
            };
            left.push(kv("V", format!("{v}, {root} root")));
        } else if s.method == Method::Madprox {
            left.push(kv("lambda", s.lambda.to_string()));
        }
        if fit.ridged_steps > 0 {
            notes.push(format!("{} steps had a singular batch covariance (eigenvalues raised to 1e-10 x the largest).", fit.ridged_steps));
        }
        if s.method == Method::RandomScaling {
            let k = fit.pooled_chains();
            let c = crate::random_scaling::critical_value_pooled(level, k).unwrap_or(f64::NAN) / 6f64.sqrt();
            let (lo, hi) = fit.conf_int(level).unwrap_or_else(|_| nan());
            let (t, pv) = (fit.tvalues().unwrap_or_default(), fit.pvalues().unwrap_or_default());
            notes.push(format!(
                "coef = mean of the {k} chains' averages over {}; std err = sqrt(6 Vbar_jj / T), Vbar the chains' mean random-scaling variance; the interval is coef +- {c:.3} std err and P>|z| is from the law of {k} pooled chains (Lee et al. 2022's mixed-normal limit), not the normal.",
                if fit.streamed_rows.is_some() { "their own rows of the stream".to_string() } else { format!("the last of {} passes", s.passes) }
            ));
            let rows = (0..p).map(|j| (name(j), vec![fit.params[j], fit.sd[j], t[j], pv[j], lo[j], hi[j]])).collect();
            let columns = ["coef", "std err", "z", "P>|z|"].iter().map(|c| c.to_string()).chain(bounds).collect();
            (title, columns, rows)
        } else {
            let (lo, hi) = fit.bands(level).unwrap_or_else(|_| nan());
            let kind = if s.interval == IntervalKind::Quantile { "quantiles" } else { "mean +- z sd" };
            notes.push(format!(
                "coef = mean of the {} chains' final iterates; process sd and the band ({kind}) are the process's spread at beta = 2n/eta (Thm. 3.1): not a standard error or a confidence interval.",
                s.chains
            ));
            let rows = (0..p).map(|j| (name(j), vec![fit.params[j], fit.sd[j], lo[j], hi[j]])).collect();
            let columns = ["coef".to_string(), "process sd".to_string(), format!("band {lo_q:.3}"), format!("{hi_q:.3}")];
            (title, columns.to_vec(), rows)
        }
    };
    for (i, w) in fit.warnings.iter().enumerate() {
        if i == 0 {
            notes.push("Warnings:".into());
        }
        notes.push(format!("[{}] {w}", i + 1));
    }
    Summary { title, left, right, columns, rows, notes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Data, Family, Glm, InferenceSpec, run};

    #[test]
    fn names_the_method_and_every_coefficient() {
        let x: Vec<f64> = (0..60).map(|i| ((i * 7 % 11) as f64 - 5.0) / 3.0).collect();
        let y: Vec<f64> = x.chunks(2).map(|r| 0.5 * r[0] - r[1]).collect();
        let data = Data::new(x, 2, y).unwrap();
        let spec = InferenceSpec { method: Method::Masgrad, chains: 8, steps: 20, batch_size: Some(5), ..InferenceSpec::default() };
        let fit = run(&Glm::new(Family::Linear, 2), &data, &spec, None).unwrap();
        let text = summary(&fit, &["age".to_string()], "y", fit.spec.level).as_text();
        assert!(text.contains("MasGrad chains") && text.contains("Batch size") && text.contains("beta = 2n/eta = 50"), "{text}");
        assert!(text.contains("process sd") && text.contains("0.975") && text.contains("age") && text.contains("x1"), "{text}");
    }

    #[test]
    fn maximum_likelihood_reads_as_statsmodels() {
        let (data, _) = crate::simulate::simulate(crate::simulate::Design::Identity, 3, Family::Logistic, 500, 1).unwrap();
        let fit = run(&Glm::new(Family::Logistic, 3), &data, &InferenceSpec::default(), None).unwrap();
        let text = summary(&fit, &[], "y", 0.95).as_text();
        for want in
            ["Logit Regression Results", "Pseudo R-squ.:", "LL-Null:", "No. Observations:", "500", "P>|z|", "[0.025", "0.975]", "x2"]
        {
            assert!(text.contains(want), "{want} in\n{text}");
        }
        let glm = summary_as(&fit, &[], "y", 0.95, Some(Layout::Glm)).as_text();
        for want in ["Generalized Linear Model Regression Results", "Binomial", "Deviance:", "Pearson chi2:"] {
            assert!(glm.contains(want), "{want} in\n{glm}");
        }
        assert!(glm.lines().all(|l| l.chars().count() <= WIDTH), "{glm}");
        // Python's %#.Ng.
        assert_eq!(
            (sig(0.3739, 4), sig(-12.8896, 5), sig(0.0015018, 4), sig(4.98e-10, 3)),
            ("0.3739".into(), "-12.890".into(), "0.001502".into(), "4.98e-10".into())
        );
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        assert_eq!(number(0.04771, true), "0.048");
        assert_eq!(number(-12.3456, false), "-12.35");
        assert_eq!(number(0.000123456, false), "0.0001235");
        assert_eq!(
            (number(f64::NAN, true), number(f64::INFINITY, false), number(f64::NEG_INFINITY, false)),
            ("nan".into(), "inf".into(), "-inf".into())
        );
        // Header values: fixed decimals where they fit, else 4 significant digits.
        assert_eq!((header(1.0, 4), header(-652.034, 2), header(0.0, 4)), ("1.0000".into(), "-652.03".into(), "0.0000".into()));
        assert_eq!((header(-3.528018578919212e18, 2), header(4.16e-31, 4)), ("-3.5280e18".into(), "4.1600e-31".into()));
    }
}
