//! A statsmodels-style summary of a [`Fit`]: a header naming the method, the model, the
//! mini-batch, the step (with the inverse temperature `beta = 2n / eta`), the chains, the steps and
//! the interval, then a coefficient table (coef, std err, lower, upper). The command line prints
//! it; Python's `summary()` returns it.

use std::fmt::Write as _;

use crate::Fit;
use crate::spec::{IntervalKind, Method, Moments};

/// The summary of `fit` with the parameters named `names` (`x0, x1, ...` where missing) and
/// intervals at coverage `level` (the run's `spec.level` unless the caller asks for another).
pub fn summary(fit: &Fit, names: &[String], level: f64) -> String {
    let s = &fit.spec;
    let p = fit.params.len();
    let width = 78;
    let rule = "=".repeat(width);
    let thin = "-".repeat(width);
    let title = match s.method {
        Method::Masgrad | Method::MasgradRankOne => "MasGrad inference (Liang & Su 2019, eq. 10)",
        Method::Sgd => "SGD chains (Liang & Su 2019, eq. 3)",
        Method::DiffMasgrad => "Discretized MasGrad diffusion (Liang & Su 2019, eq. 11)",
        Method::DiffSgd => "Discretized SGD diffusion (Liang & Su 2019, eq. 6)",
        Method::Madprox => "MadProx, l1-regularized (Liang & Su 2019, eq. 19-20)",
        Method::RandomScaling => "Averaged SGD, random-scaling intervals (Lee et al. 2022)",
    };
    let interval = match (s.method, s.interval) {
        (Method::RandomScaling, _) => "random scaling, chain 0".to_string(),
        (_, IntervalKind::Quantile) => "chain quantiles".to_string(),
        (_, IntervalKind::Normal) => "normal, chain sd".to_string(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "{title:^width$}");
    let _ = writeln!(out, "{rule}");
    let beta = 2.0 * s.batch_size as f64 / s.step;
    let row = |a: String, b: String| format!("{a:<w$}{b}", w = 39.max(a.chars().count() + 2));
    let _ = writeln!(out, "{}", row(format!("Method:     {}", s.method.name()), format!("Model:      {}", fit.model)));
    let step = if s.method == Method::RandomScaling {
        format!("{} t^-{}", s.step, s.decay)
    } else {
        format!("{} (beta = 2n/eta = {beta:.4})", s.step)
    };
    let _ = writeln!(out, "{}", row(format!("Batch size: {}", s.batch_size), format!("Step:       {step}")));
    let _ = writeln!(out, "{}", row(format!("Chains:     {}", s.chains), format!("Steps:      {}", s.steps)));
    if let Some(rows) = fit.streamed_rows {
        let _ = writeln!(out, "Streamed:   {rows} rows, each used once (chain k takes its own n rows per step)");
    }
    let mut extra = format!("Interval:   {:.0}% {interval}", 100.0 * level);
    if s.method.root().is_some() {
        let root = if s.method == Method::Masgrad { "symmetric" } else { "rank-one (Prop. 6.2)" };
        let v = match s.moments {
            Moments::Batch => "batch",
            Moments::Independent => "independent batch",
            Moments::Population => "population",
        };
        extra = row(extra, format!("V:          {v}, {root} root"));
    } else if s.method == Method::Madprox {
        extra = row(extra, format!("lambda:     {}", s.lambda));
    }
    let _ = writeln!(out, "{extra}");
    if fit.ridged_steps > 0 {
        let _ = writeln!(
            out,
            "Ridged:     {} steps had a singular batch covariance (eigenvalues raised to 1e-10 x the largest)",
            fit.ridged_steps
        );
    }
    let _ = writeln!(out, "{rule}");
    let (lo_q, hi_q) = ((1.0 - level) / 2.0, (1.0 + level) / 2.0);
    let rs = s.method == Method::RandomScaling;
    let se = if rs { "scale" } else { "std err" };
    let _ = writeln!(out, "{:<18}{:>14}{:>14}{:>16}{:>16}", "", "coef", se, format!("[{lo_q:.3}"), format!("{hi_q:.3}]"));
    let _ = writeln!(out, "{thin}");
    let (lower, upper) = fit.conf_int(level).unwrap_or_else(|_| (vec![f64::NAN; p], vec![f64::NAN; p]));
    for j in 0..p {
        let name = names.get(j).cloned().unwrap_or_else(|| format!("x{j}"));
        let _ = writeln!(out, "{name:<18}{:>14.6}{:>14.6}{:>16.6}{:>16.6}", fit.params[j], fit.bse[j], lower[j], upper[j]);
    }
    let _ = writeln!(out, "{rule}");
    let note = if rs {
        let c = crate::random_scaling::critical_value(level).unwrap_or(f64::NAN);
        format!("scale = sqrt(V_T,jj / T); the interval is coef +- {c:.3} scale: random scaling's limit is mixed normal, not normal.")
    } else {
        format!(
            "std err = sd of the {} chains' final iterates: the process's spread at beta = 2n/eta, which is a sampling\nstandard error only at a matching temperature.",
            s.chains
        )
    };
    let _ = write!(out, "{note}");
    if !fit.warnings.is_empty() {
        let _ = write!(out, "\n\nWarnings:");
        for (i, w) in fit.warnings.iter().enumerate() {
            let _ = write!(out, "\n[{}] {w}", i + 1);
        }
    }
    out
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
        let spec = InferenceSpec { chains: 8, steps: 20, batch_size: 5, ..InferenceSpec::default() };
        let fit = run(&Glm::new(Family::Linear, 2), &data, &spec, None).unwrap();
        let text = summary(&fit, &["age".to_string()], fit.spec.level);
        assert!(text.contains("MasGrad inference") && text.contains("Batch size: 5") && text.contains("beta = 2n/eta = 50"), "{text}");
        assert!(text.contains("[0.025") && text.contains("0.975]") && text.contains("age") && text.contains("x1"), "{text}");
    }
}
