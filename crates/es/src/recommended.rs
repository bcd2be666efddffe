//! The method used when none is named (`gradfree.minimize(f, x0)`, `gradfree optimize` without
//! `--algo`): CMA-ES (Hansen's 2016 tutorial, arXiv:1604.00772) with BIPOP restarts (Hansen 2009),
//! quasi-Monte Carlo directions (rotated subgroup points on the sphere, thesis sec. 5.6) and
//! pycma's step-size damping for large populations ([`crate::gaussian::Damping::Pycma`]: the same
//! as the tutorial's up to d = 5 and for the default population; with the large populations of
//! BIPOP's restarts it reached more targets by 10^4 d on bbob instances 6-10, which were not used
//! to choose it, at d = 10, 20 and 40, and at d = 40 it solves more runs of the sharp ridge f13
//! and the step ellipsoid f7, where the tutorial's damping let the large runs converge early).
//!
//! Chosen by measurement on COCO's bbob suite (f1-f24, 15 instances, budget 10^4 d, sigma0 = 2,
//! starts uniform in [-4, 4]^d; `benches/coco_side_by_side.py`, numbers in the user guide, docs/results/optimizers.md): of CMA-ES with i.i.d., orthogonal or sphere-QMC directions, with IPOP or BIPOP
//! restarts, this one has a larger area under the runtime ECDF than pycma's BIPOP-CMA-ES at d = 2,
//! 5, 10 and 20 (and than the other variants measured), and at d = 10 it needs no more evaluations
//! than pycma on 20 of the 24 functions. The thesis algorithms keep their thesis defaults under
//! their own names.
//!
//! Its restarts stop once they settle ([`Recommended::settle_runs`], 2: see
//! [`crate::IpopParams::settle_runs`]), so that without a target a run on a function it solves
//! ends (with success) instead of restarting until the budget is spent. Chosen on the same suite
//! (d = 5 and 10, no target, k tuned on instances 1-3 and checked on 4-8): the ECDF area and the
//! final targets reached are those of the rule switched off (user guide, docs/results/optimizers.md).
//! With a target the rule is off unless asked for ([`Recommended::default_settle_runs`]): the
//! restarts go on until the target or the budget, as pycma's with `ftarget`.
//!
//! Its restarts end a run converging to a value worse than an earlier run's optimum
//! ([`Recommended::worse_runs`], 0.01: see [`crate::IpopParams::worse_runs`]), so that more restarts
//! fit into the budget. Chosen on the same suite (instances 1-5, five seeds at d = 2-20, three at
//! d = 40) and checked on instances 6-15 (d = 2-20) and 6-10 (d = 40), three seeds, which played no
//! part in it: the share of targets by 10^4 d rose at every d (d = 10: 0.759 to 0.769; d = 40:
//! 0.658 to 0.673), and by 3 10^3 d too (user guide, docs/results/optimizers.md).

use crate::restarts::RestartScheme;

/// A method with its restart scheme and parameters (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recommended {
    /// Registry name of the algorithm.
    pub algorithm: &'static str,
    /// Restart scheme.
    pub restarts: RestartScheme,
    /// Algorithm parameters as `(key, JSON value)`.
    pub params: &'static [(&'static str, &'static str)],
    /// The restarts' settle rule ([`crate::IpopParams::settle_runs`]): stop once this many
    /// converged runs in a row re-found the best point.
    pub settle_runs: Option<u32>,
    /// The restarts' worse-optimum rule ([`crate::IpopParams::worse_runs`]): end a run converging to
    /// a value worse than an earlier run's optimum.
    pub worse_runs: Option<f64>,
}

/// The recommended method.
pub const RECOMMENDED: Recommended = Recommended {
    algorithm: "cmaes",
    restarts: RestartScheme::Bipop,
    params: &[("sampling", "\"sphere-qmc\""), ("damping", "\"pycma\"")],
    settle_runs: Some(SETTLE_RUNS),
    worse_runs: Some(WORSE_RUNS),
};

/// The recommended method's [`Recommended::settle_runs`] (module documentation).
pub const SETTLE_RUNS: u32 = 2;

/// The recommended method's [`Recommended::worse_runs`] (module documentation).
pub const WORSE_RUNS: f64 = 0.01;

/// The surrogate mode, for expensive objectives (`method="surrogate"` in Python, `--algo
/// surrogate` in the CLI): lq-CMA-ES (Hansen 2019, "A global surrogate assisted CMA-ES", GECCO;
/// [`crate::surrogate::LqCmaes`]) with the recommended method's BIPOP restarts, settle rule and
/// quasi-Monte Carlo directions (which reached more targets by 30 d than i.i.d. ones at d = 2, 5
/// and 10), each restart with a fresh model, and the model's optimum injected only after a
/// generation the model ranked (`inject_if_ranked`: on rugged functions such as bbob's f16-f22 a
/// model that cannot rank pulled every population to its optimum; at 10^3 d it then reached fewer
/// targets than the default), and the default's step-size damping (pycma's, for the large
/// populations of BIPOP's restarts). Measured against pycma's `fmin_lq_surr2` on COCO's bbob suite at
/// budgets of 10 d to 100 d and against the default at 10^3 d (user guide, docs/results/optimizers.md).
pub const SURROGATE: Recommended = Recommended {
    algorithm: "lq-cmaes",
    restarts: RestartScheme::Bipop,
    params: &[("sampling", "\"sphere-qmc\""), ("inject_if_ranked", "true"), ("damping", "\"pycma\"")],
    settle_runs: Some(SETTLE_RUNS),
    worse_runs: None,
};

/// Named presets a user can pass where an algorithm name is expected: `"surrogate"`
/// ([`SURROGATE`]).
pub const PRESETS: &[(&str, Recommended)] = &[("surrogate", SURROGATE)];

/// The preset called `name`, if any ([`PRESETS`]).
pub fn preset(name: &str) -> Option<Recommended> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

impl Recommended {
    /// The settle rule a run of this preset gets when the caller names none: [`Recommended::
    /// settle_runs`] without a target, off with one. A run with a target succeeds only by reaching
    /// it, so settling above it would end the run as a failure with budget left; on COCO's bbob
    /// suite (d = 2-20, 10^4 d, seeds 2-3, instances 1-5) the rule ended 4 of 960 runs that way,
    /// on the multimodal f4, f21 and f22, two of which (d = 5) reach more targets going on.
    pub fn default_settle_runs(&self, has_target: bool) -> Option<u32> {
        if has_target { None } else { self.settle_runs }
    }

    /// The parameters as a JSON object.
    pub fn params_json(&self) -> serde_json::Map<String, serde_json::Value> {
        self.params.iter().map(|(k, v)| (k.to_string(), serde_json::from_str(v).expect("valid JSON"))).collect()
    }

    /// One line for help texts.
    pub fn describe(&self) -> String {
        let params: Vec<String> =
            self.params_json().iter().map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string))).collect();
        format!("{} with {} restarts ({})", self.algorithm, self.restarts.name(), params.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default is a measured choice (module documentation): changing it must be deliberate,
    /// with the user guide's measurement (docs/results/optimizers.md) redone.
    #[test]
    fn the_recommended_method_is_pinned() {
        assert_eq!(RECOMMENDED.algorithm, "cmaes");
        assert_eq!(RECOMMENDED.restarts, RestartScheme::Bipop);
        assert_eq!(RECOMMENDED.params_json()["sampling"], "sphere-qmc");
        assert_eq!(RECOMMENDED.params_json()["damping"], "pycma");
        assert_eq!(RECOMMENDED.settle_runs, Some(2));
        assert_eq!((RECOMMENDED.default_settle_runs(false), RECOMMENDED.default_settle_runs(true)), (Some(2), None));
        assert_eq!(RECOMMENDED.worse_runs, Some(0.01));
        assert_eq!(RECOMMENDED.describe(), "cmaes with bipop restarts (damping=pycma, sampling=sphere-qmc)");
        // It builds.
        let mut start = crate::StartSpec::new(vec![0.0; 4], 1.0, 0);
        start.params = RECOMMENDED.params_json();
        assert!(crate::build(RECOMMENDED.algorithm, &start).is_ok());
    }

    /// The surrogate mode is a measured choice too (user guide, docs/results/optimizers.md).
    #[test]
    fn the_surrogate_preset_is_pinned() {
        let s = preset("surrogate").unwrap();
        assert_eq!(s, SURROGATE);
        assert_eq!(s.describe(), "lq-cmaes with bipop restarts (damping=pycma, inject_if_ranked=true, sampling=sphere-qmc)");
        assert_eq!(s.settle_runs, Some(2));
        assert_eq!(s.worse_runs, None);
        assert!(preset("nope").is_none());
        let start = crate::StartSpec::new(vec![0.0; 4], 1.0, 0);
        assert!(crate::build(s.algorithm, &start).is_ok());
        // A preset's name is not an algorithm's.
        assert!(PRESETS.iter().all(|(n, _)| crate::registry::spec(n).is_err()));
    }
}
