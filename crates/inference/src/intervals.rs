//! Statistics across chains: pointwise intervals at each step ([`bands`]), their coverage of a
//! known truth, and the Kolmogorov-Smirnov distance between two processes' marginals
//! ([`ks_distance`]), the measure of how close MasGrad is to its diffusion (Thm. 3.1) coordinate
//! by coordinate.

use gradfree_core::stats::{mean_sd, quantiles};
use serde::{Deserialize, Serialize};

use crate::InferenceError;
use crate::spec::IntervalKind;

/// `Phi^{-1}(q)`, the standard normal quantile.
pub fn normal_quantile(q: f64) -> f64 {
    -std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * q)
}

/// Trajectories of `chains` chains over `steps + 1` records (the start included) in dimension
/// `p`: value `(k, t, j)` at `k (steps + 1) p + t p + j`. Record `t` is the chain at step
/// [`Trajectories::time`]`(t)`: every step for runs in memory, every `every`-th (and the last)
/// for streamed runs, which thin their records to keep memory flat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectories {
    /// Chains `K`.
    pub chains: usize,
    /// Records after the start (`0..=steps`); the steps themselves for runs in memory.
    pub steps: usize,
    /// Parameters `p`.
    pub p: usize,
    /// The values.
    pub values: Vec<f64>,
    /// Steps between records (1 for runs in memory).
    #[serde(default = "one")]
    pub every: usize,
    /// The step of the last record, when it is not `steps * every` (a streamed run that ended
    /// between records).
    #[serde(default)]
    pub last: Option<usize>,
}

fn one() -> usize {
    1
}

impl Trajectories {
    /// Every step of `chains` chains of `steps` steps (`values` as in the type's documentation).
    pub fn every_step(chains: usize, steps: usize, p: usize, values: Vec<f64>) -> Self {
        Trajectories { chains, steps, p, values, every: 1, last: None }
    }

    /// The step of record `t`.
    pub fn time(&self, t: usize) -> usize {
        if t == self.steps { self.last.unwrap_or(t * self.every) } else { t * self.every }
    }

    /// Coordinate `j` at time `t` of every chain into `out`.
    pub fn across_chains(&self, t: usize, j: usize, out: &mut Vec<f64>) {
        out.clear();
        let stride = (self.steps + 1) * self.p;
        out.extend((0..self.chains).map(|k| self.values[k * stride + t * self.p + j]));
    }

    /// Chain `k` at time `t`.
    pub fn at(&self, k: usize, t: usize) -> &[f64] {
        let s = (k * (self.steps + 1) + t) * self.p;
        &self.values[s..s + self.p]
    }
}

/// Pointwise bands: at each time `t` and coordinate `j`, a center and an interval of the chains'
/// values (`(T + 1) x p`, row-major).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bands {
    /// Coverage.
    pub level: f64,
    /// How the interval is read off.
    pub kind: IntervalKind,
    /// The mean across chains.
    pub center: Vec<f64>,
    /// Lower ends.
    pub lower: Vec<f64>,
    /// Upper ends.
    pub upper: Vec<f64>,
}

/// The interval at coverage `level` of one sample: its type-7 quantiles, or mean +- z sd.
pub fn interval(sample: &[f64], level: f64, kind: IntervalKind) -> (f64, f64, f64) {
    let (m, sd) = mean_sd(sample);
    match kind {
        IntervalKind::Quantile => {
            let q = quantiles(sample, &[(1.0 - level) / 2.0, (1.0 + level) / 2.0]).unwrap_or_else(|_| vec![f64::NAN, f64::NAN]);
            (m, q[0], q[1])
        }
        IntervalKind::Normal => {
            let z = normal_quantile((1.0 + level) / 2.0);
            (m, m - z * sd, m + z * sd)
        }
    }
}

/// The bands of `traj` at every time.
pub fn bands(traj: &Trajectories, level: f64, kind: IntervalKind) -> Bands {
    let n = (traj.steps + 1) * traj.p;
    let (mut center, mut lower, mut upper) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut sample = Vec::with_capacity(traj.chains);
    for t in 0..=traj.steps {
        for j in 0..traj.p {
            traj.across_chains(t, j, &mut sample);
            let (c, lo, hi) = interval(&sample, level, kind);
            center.push(c);
            lower.push(lo);
            upper.push(hi);
        }
    }
    Bands { level, kind, center, lower, upper }
}

/// The fraction of times (and coordinates) at which `bands` contain `truth` (length `p`), over
/// the times `from..=T`.
pub fn coverage(bands: &Bands, truth: &[f64], from: usize) -> f64 {
    let p = truth.len();
    let rows = bands.center.len() / p;
    let (mut hit, mut all) = (0usize, 0usize);
    for t in from..rows {
        for (j, &v) in truth.iter().enumerate() {
            let k = t * p + j;
            hit += usize::from(bands.lower[k] <= v && v <= bands.upper[k]);
            all += 1;
        }
    }
    hit as f64 / all.max(1) as f64
}

/// The two-sample Kolmogorov-Smirnov distance `sup_x |F_a(x) - F_b(x)|` between two samples.
pub fn ks_distance(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut best) = (0usize, 0usize, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = if a[i] <= b[j] { a[i] } else { b[j] };
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        best = best.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    best
}

/// The KS distance between two processes' marginals at every time and coordinate (`(T + 1) x p`).
pub fn ks_by_step(a: &Trajectories, b: &Trajectories) -> Vec<f64> {
    let steps = a.steps.min(b.steps);
    let mut out = Vec::with_capacity((steps + 1) * a.p);
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    for t in 0..=steps {
        for j in 0..a.p {
            a.across_chains(t, j, &mut sa);
            b.across_chains(t, j, &mut sb);
            out.push(ks_distance(&sa, &sb));
        }
    }
    out
}

/// The survival function `P(X > x)` of the law `law` ("norm", "t" on `df1` degrees of freedom,
/// "chi2" on `df1`, "f" on `df1` and `df2`), or with `quantile` its inverse CDF at `x`: the laws
/// of the Wald, t and F tests on a fit's results.
pub fn law(law: &str, x: f64, df1: f64, df2: f64, quantile: bool) -> Result<f64, InferenceError> {
    use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor, Normal, StudentsT};
    let df = |what: String| InferenceError::invalid("df", what, "positive degrees of freedom");
    let d: Box<dyn ContinuousCDF<f64, f64>> = match law {
        "norm" => Box::new(Normal::standard()),
        "t" => Box::new(StudentsT::new(0.0, 1.0, df1).map_err(|_| df(format!("{df1} for t")))?),
        "chi2" => Box::new(ChiSquared::new(df1).map_err(|_| df(format!("{df1} for chi2")))?),
        "f" => Box::new(FisherSnedecor::new(df1, df2).map_err(|_| df(format!("({df1}, {df2}) for F")))?),
        other => return Err(InferenceError::invalid("law", other, "norm, t, chi2 or f")),
    };
    if quantile && !(0.0..=1.0).contains(&x) {
        return Err(InferenceError::invalid("q", x, "a probability in [0, 1]"));
    }
    if x.is_nan() || (!quantile && law != "norm" && x < 0.0) {
        return Ok(if quantile || x.is_nan() { f64::NAN } else { 1.0 });
    }
    Ok(if quantile { d.inverse_cdf(x) } else { d.sf(x) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_distances() {
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-12);
        let s: Vec<f64> = (0..101).map(|i| i as f64).collect();
        let (m, lo, hi) = interval(&s, 0.9, IntervalKind::Quantile);
        assert!(m == 50.0 && (lo - 5.0).abs() < 1e-12 && (hi - 95.0).abs() < 1e-12, "{lo} {hi}");
        let (_, lo, hi) = interval(&s, 0.95, IntervalKind::Normal);
        assert!((hi - lo - 2.0 * 1.959_963_984_540_054 * 29.300_170_647_967_224).abs() < 1e-9);
        assert_eq!(ks_distance(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), 0.0);
        assert_eq!(ks_distance(&[1.0, 2.0], &[3.0, 4.0]), 1.0);
        assert!((ks_distance(&[1.0, 2.0, 3.0, 4.0], &[2.5, 3.5]) - 0.5).abs() < 1e-12);
        let traj = Trajectories::every_step(3, 1, 1, vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]);
        let b = bands(&traj, 0.5, IntervalKind::Quantile);
        assert_eq!((b.center[1], b.lower[1], b.upper[1]), (2.0, 1.5, 2.5));
        assert_eq!(coverage(&b, &[2.0], 1), 1.0);
        assert_eq!(coverage(&b, &[3.0], 1), 0.0);
    }

    /// The tests' laws at known points: z 1.96 (two-sided 0.05), t(10) 2.228, chi2(2) at
    /// 5.991, F(2, 10) at 4.103 (each 0.05 in the upper tail), and their quantiles back.
    #[test]
    fn the_tests_laws_are_the_textbooks() {
        for (law_name, x, d1, d2, tail) in [
            ("norm", 1.959964, 1.0, 1.0, 0.025),
            ("t", 2.228139, 10.0, 1.0, 0.025),
            ("chi2", 5.991465, 2.0, 1.0, 0.05),
            ("f", 4.102821, 2.0, 10.0, 0.05),
        ] {
            assert!((law(law_name, x, d1, d2, false).unwrap() - tail).abs() < 1e-6, "{law_name}");
            assert!((law(law_name, 1.0 - tail, d1, d2, true).unwrap() - x).abs() < 1e-5, "{law_name}");
        }
        assert!(law("gamma", 1.0, 1.0, 1.0, false).is_err() && law("t", 1.0, -1.0, 1.0, false).is_err());
        assert!(law("f", f64::NAN, 2.0, 3.0, false).unwrap().is_nan());
    }
}
