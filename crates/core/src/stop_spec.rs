//! [`StopSpec`]: the stop rules as a front end receives them, each unset (its default applies), set
//! to a value, or switched off, and the one place their defaults are decided
//! ([`StopSpec::resolve`]). The command line's flags and the Python keywords fill a `StopSpec`
//! with what the user gave and nothing else, so no front end writes a default of its own.

use serde::{Deserialize, Serialize};

use crate::{CoreError, StopRules, convergence};

/// Evaluations per dimension of the default budget: a run of dimension `d` may use `10^4 d`
/// evaluations unless told otherwise.
pub const EVALUATIONS_PER_DIM: u64 = 10_000;

/// A target this far above a known minimum `f*` ends a run by default (`f* + 1e-10`).
pub const TARGET_ABOVE_MINIMUM: f64 = 1e-10;

/// The default evaluation budget `10^4 d`.
pub fn default_budget(d: usize) -> u64 {
    (d as u64).saturating_mul(EVALUATIONS_PER_DIM)
}

/// Stop rules as given: `None` fields take their defaults in [`StopSpec::resolve`]; rules named in
/// `off` are switched off (any of [`StopRules::CONVERGENCE_RULES`], or `target`). The Python
/// keywords' names (`max_evals`, `max_gens`, `tol_fun`, `tol_fun_window`) are accepted as aliases,
/// so a front end passes its keywords on as they are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StopSpec {
    /// Evaluation budget (default `10^4 d`, [`default_budget`]).
    #[serde(alias = "max_evals")]
    #[schemars(extend("x-cli" = "max-evals", "x-python" = "max_evals"))]
    pub max_evaluations: Option<u64>,
    /// Generation budget (default none).
    #[serde(alias = "max_gens")]
    #[schemars(extend("x-cli" = "max-gens", "x-python" = "max_gens"))]
    pub max_generations: Option<u64>,
    /// Stop once `best_f <= target` (default `f* + 1e-10` when the minimum `f*` is known).
    pub target: Option<f64>,
    /// Wall-time budget in seconds (default none).
    pub max_seconds: Option<f64>,
    /// `tol_f` (default 1e-11 with the convergence rules, [`convergence`]).
    #[serde(alias = "tol_fun")]
    #[schemars(extend("x-python" = "tol_fun"))]
    pub tol_f: Option<f64>,
    /// Generations the `tol_f` history spans (default `10 + ceil(30 d / lambda)`).
    #[serde(alias = "tol_fun_window")]
    #[schemars(extend("x-python" = "tol_fun_window"))]
    pub tol_f_window: Option<usize>,
    /// `tol_x` (default 1e-11 with the convergence rules).
    pub tol_x: Option<f64>,
    /// `tol_flat` (default 1 with the convergence rules).
    pub tol_flat: Option<u64>,
    /// `tol_stagnation` (default `100 + ceil(100 d^1.5 / lambda)` with the convergence rules).
    pub tol_stagnation: Option<u64>,
    /// `tol_condition` (default 1e14 with the convergence rules).
    pub tol_condition: Option<f64>,
    /// `tol_diverge` (default 1e12 with the convergence rules).
    pub tol_diverge: Option<f64>,
    /// Whether the convergence rules take their defaults (default `true`; without it only the rules
    /// given apply). Runs with restarts and discrete searches never get them: restarts judge
    /// convergence themselves, and discrete values plateau between improvements.
    #[schemars(extend("x-cli" = "no-convergence"))]
    pub convergence: bool,
    /// Rules to switch off.
    #[schemars(skip)]
    pub off: Vec<String>,
}

impl Default for StopSpec {
    fn default() -> Self {
        StopSpec {
            max_evaluations: None,
            max_generations: None,
            target: None,
            max_seconds: None,
            tol_f: None,
            tol_f_window: None,
            tol_x: None,
            tol_flat: None,
            tol_stagnation: None,
            tol_condition: None,
            tol_diverge: None,
            convergence: true,
            off: Vec::new(),
        }
    }
}

impl StopSpec {
    /// The stop rules' keywords, with the command line's and Python's names
    /// ([`crate::schema::keywords`]; `off` is how a front end switches a rule off, not a keyword).
    pub fn keywords() -> Vec<crate::schema::Keyword> {
        crate::schema::keywords::<StopSpec>()
    }
}

/// What the defaults depend on: the run's dimension and population size, whether it searches a
/// continuous space, whether it restarts, and the problem's minimum if known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunShape {
    /// Dimension `d`.
    pub dim: usize,
    /// Points per generation `lambda`.
    pub population: usize,
    /// A continuous search (the convergence rules apply).
    pub continuous: bool,
    /// IPOP restarts (which judge convergence themselves).
    pub restarts: bool,
    /// The problem's known minimum `f*`.
    pub minimum: Option<f64>,
}

impl StopSpec {
    /// The stop rules of a new run of shape `shape`: the given values, the defaults of the rest
    /// (budget `10^4 d`, target `f* + 1e-10`, the `tol_f` window `10 + ceil(30 d / lambda)`, and
    /// the convergence rules of [`StopRules::with_convergence_defaults`] unless
    /// `convergence` is false or the run restarts), then the rules of `off` switched off. Checked
    /// ([`StopRules::validate`]).
    pub fn resolve(&self, shape: RunShape) -> Result<StopRules, CoreError> {
        let base = StopRules {
            max_evaluations: Some(default_budget(shape.dim)),
            target: shape.minimum.map(|f| f + TARGET_ABOVE_MINIMUM),
            tol_f_window: convergence::window(shape.dim, shape.population),
            ..StopRules::default()
        };
        let mut rules = self.given(base);
        if self.convergence && !shape.restarts {
            rules = rules.with_convergence_defaults(shape.dim, shape.population, shape.continuous);
        }
        self.switch_off(rules)
    }

    /// The rules `base` of a run that goes on (a resumed checkpoint) with the values given here
    /// replacing its own and the rules of `off` switched off; nothing takes a default. Checked.
    pub fn update(&self, base: StopRules) -> Result<StopRules, CoreError> {
        self.switch_off(self.given(base))
    }

    /// `base` with every value given here.
    fn given(&self, mut r: StopRules) -> StopRules {
        fn set<T: Copy>(field: &mut Option<T>, given: Option<T>) {
            if given.is_some() {
                *field = given;
            }
        }
        set(&mut r.max_evaluations, self.max_evaluations);
        set(&mut r.max_generations, self.max_generations);
        set(&mut r.target, self.target);
        set(&mut r.max_seconds, self.max_seconds);
        set(&mut r.tol_f, self.tol_f);
        set(&mut r.tol_x, self.tol_x);
        set(&mut r.tol_flat, self.tol_flat);
        set(&mut r.tol_stagnation, self.tol_stagnation);
        set(&mut r.tol_condition, self.tol_condition);
        set(&mut r.tol_diverge, self.tol_diverge);
        if let Some(w) = self.tol_f_window {
            r.tol_f_window = w;
        }
        r
    }

    /// `rules` with the rules of `off` switched off, checked.
    fn switch_off(&self, mut rules: StopRules) -> Result<StopRules, CoreError> {
        for name in &self.off {
            rules = rules.without(name)?;
        }
        // A window without the rule it spans would be ignored.
        if let (Some(w), None) = (self.tol_f_window, rules.tol_f) {
            return Err(CoreError::invalid(
                "tol_f_window",
                w,
                "used only with the tol_f rule, which is off here (switched off, or no convergence rules: give tol_f too)",
            ));
        }
        rules.validate()?;
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: RunShape = RunShape { dim: 10, population: 10, continuous: true, restarts: false, minimum: Some(0.0) };

    #[test]
    fn defaults_are_decided_here() {
        let r = StopSpec::default().resolve(SHAPE).unwrap();
        assert_eq!(r.max_evaluations, Some(100_000));
        assert_eq!(r.target, Some(1e-10));
        assert_eq!(r.tol_f_window, 10 + 30);
        assert_eq!((r.tol_f, r.tol_x, r.tol_flat), (Some(1e-11), Some(1e-11), Some(1)));
        assert_eq!(r.tol_stagnation, Some(convergence::stagnation(10, 10)));
        // Without convergence, with restarts, or discrete: budgets and the target only.
        for (spec, shape) in [
            (StopSpec { convergence: false, ..StopSpec::default() }, SHAPE),
            (StopSpec::default(), RunShape { restarts: true, ..SHAPE }),
            (StopSpec::default(), RunShape { continuous: false, ..SHAPE }),
        ] {
            let r = spec.resolve(shape).unwrap();
            assert_eq!((r.tol_f, r.tol_x, r.tol_stagnation, r.max_evaluations), (None, None, None, Some(100_000)));
        }
    }

    #[test]
    fn given_values_win_and_off_rules_stay_off() {
        let spec = StopSpec {
            max_evaluations: Some(500),
            tol_x: Some(1e-3),
            tol_f_window: Some(7),
            off: vec!["tol-flat".into(), "target".into()],
            ..StopSpec::default()
        };
        let r = spec.resolve(SHAPE).unwrap();
        assert_eq!((r.max_evaluations, r.tol_x, r.tol_f_window, r.tol_flat, r.target), (Some(500), Some(1e-3), 7, None, None));
        assert_eq!((r.tol_f, r.tol_stagnation), (Some(1e-11), Some(convergence::stagnation(10, 10))));
        // A resumed run keeps its rules but for what is given.
        let saved = StopRules { tol_f: Some(1e-9), ..StopRules::max_evaluations(1000) };
        let r = StopSpec { max_evaluations: Some(2000), ..StopSpec::default() }.update(saved.clone()).unwrap();
        assert_eq!(r, StopRules { max_evaluations: Some(2000), ..saved });
        // Bad values and names are errors naming the rule.
        let e = StopSpec { tol_f: Some(-1.0), ..StopSpec::default() }.resolve(SHAPE).unwrap_err().to_string();
        assert!(e.contains("`tol_f` = -1"), "{e}");
        assert!(StopSpec { off: vec!["tol-q".into()], ..StopSpec::default() }.resolve(SHAPE).is_err());
        // A window without its rule is refused, not ignored.
        for spec in [
            StopSpec { tol_f_window: Some(5), convergence: false, ..StopSpec::default() },
            StopSpec { tol_f_window: Some(5), off: vec!["tol-f".into()], ..StopSpec::default() },
        ] {
            let e = spec.resolve(SHAPE).unwrap_err().to_string();
            assert!(e.contains("tol_f_window") && e.contains("used only with the tol_f rule"), "{e}");
        }
        let with_rule = StopSpec { tol_f_window: Some(5), tol_f: Some(1e-6), convergence: false, ..StopSpec::default() };
        assert_eq!(with_rule.resolve(SHAPE).unwrap().tol_f_window, 5);
        let none = StopSpec { off: vec!["target".into()], ..StopSpec::default() };
        assert!(none.resolve(RunShape { dim: 0, ..SHAPE }).is_err(), "a run with no budget and no target never ends");
    }
}
