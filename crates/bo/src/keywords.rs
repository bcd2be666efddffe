//! The keywords of a Bayesian-optimization run as the front ends take them, read from the fields
//! of [`BoParams`] and of its inner-search budget [`InnerOptions`] (whose keywords carry the
//! prefix `acq_`: `acq_starts`, `acq_evals_per_dim`, ...), with their command-line and Python
//! names declared on the fields ([`gradfree_core::schema`]). Parameter errors name these keywords.

use gradfree_core::schema::{Keyword, keywords as of};
use serde_json::{Map, Value};

use crate::{BoError, BoParams, InnerOptions, KernelKind, Method};

/// The prefix of the inner search's keywords.
pub const INNER_PREFIX: &str = "acq_";

/// Every keyword of a run: [`BoParams`]'s own (its `inner` field excepted), then [`InnerOptions`]'s
/// with the prefix [`INNER_PREFIX`] on the name and on the default flag.
pub fn keywords() -> Vec<Keyword> {
    let mut out: Vec<Keyword> = of::<BoParams>().into_iter().filter(|k| k.name != "inner").collect();
    out.extend(of::<InnerOptions>().into_iter().map(|mut k| {
        if k.cli == k.name.replace('_', "-") {
            k.cli = format!("{}{}", INNER_PREFIX.replace('_', "-"), k.cli);
        }
        if k.python == k.name {
            k.python = format!("{INNER_PREFIX}{}", k.python);
        }
        k.name = format!("{INNER_PREFIX}{}", k.name);
        k
    }));
    out
}

/// A run's parameters from the keywords a front end was given (`given`: keyword name as
/// [`keywords`] spells it → value; a null is "not given"), every other keyword at its default.
/// Method and kernel are read by their parsers (so aliases such as `rbf` work), a number for
/// `noise` is a fixed noise variance. An unknown keyword, or a value of the wrong type, is an
/// error naming the keyword; ranges are checked when the optimizer is built ([`BoParams::check`]).
pub fn params(given: &Map<String, Value>) -> Result<BoParams, BoError> {
    let known = keywords();
    let inner: Vec<String> = of::<InnerOptions>().into_iter().map(|k| k.name).collect();
    let mut doc = serde_json::to_value(BoParams::default()).map_err(|e| BoError::BadInput(e.to_string()))?;
    for (name, value) in given.iter().filter(|(_, v)| !v.is_null()) {
        if !known.iter().any(|k| &k.name == name) {
            let names: Vec<&str> = known.iter().map(|k| k.name.as_str()).collect();
            return Err(BoError::BadInput(format!("unknown keyword {name}: expected one of {}", names.join(", "))));
        }
        let value = match (name.as_str(), value) {
            ("method", Value::String(s)) => Value::from(Method::parse(s)?.name()),
            ("kernel", Value::String(s)) => {
                serde_json::to_value(KernelKind::parse_param(s)?).map_err(|e| BoError::BadInput(e.to_string()))?
            }
            ("noise", Value::Number(_)) => serde_json::json!({ "fixed": value }),
            _ => value.clone(),
        };
        match name.strip_prefix(INNER_PREFIX).filter(|n| inner.iter().any(|i| i == n)) {
            Some(field) => doc["inner"][field] = value,
            None => doc[name.as_str()] = value,
        }
    }
    gradfree_core::checkpoint::from_json(doc).map_err(|e| BoError::BadInput(e.replacen("`inner.", &format!("`{INNER_PREFIX}"), 1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BoError;

    /// Every field is a keyword, the inner ones prefixed; an invalid value of each numeric keyword
    /// is reported under the keyword's name, so a front end can name its flag.
    #[test]
    fn the_keywords_are_the_fields_and_errors_name_them() {
        let k = keywords();
        let names: Vec<&str> = k.iter().map(|k| k.name.as_str()).collect();
        for want in ["method", "batch_size", "n_initial", "kernel", "noise", "weight", "beta", "fit_restarts"] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        for want in ["acq_starts", "acq_evals_per_dim", "acq_max_evals", "acq_sigma0"] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        assert!(!names.contains(&"inner"));
        let flag = |n: &str| k.iter().find(|k| k.name == n).map(|k| k.cli.clone()).unwrap();
        assert_eq!(flag("batch_size"), "batch");
        assert_eq!(flag("acq_starts"), "acq-starts");
        assert_eq!(flag("acq_evals_per_dim"), "acq-evals");
        assert_eq!(flag("acq_sigma0"), "");
        let method = k.iter().find(|k| k.name == "method").unwrap();
        let listed: Vec<&str> = crate::METHODS.iter().map(|m| m.name).collect();
        let mut values = method.values.clone();
        values.sort();
        let mut listed_sorted = listed.clone();
        listed_sorted.sort();
        assert_eq!(values, listed_sorted);

        let named = |p: BoParams| match p.check(2) {
            Err(BoError::Core(gradfree_core::CoreError::InvalidParameter { name, .. })) => name.to_string(),
            other => panic!("{other:?}"),
        };
        let d = BoParams::default();
        let cases = [
            ("batch_size", BoParams { batch_size: 0, ..d.clone() }),
            ("weight", BoParams { weight: -1.0, ..d.clone() }),
            ("beta", BoParams { beta: Some(0.0), ..d.clone() }),
            ("fit_restarts", BoParams { fit_restarts: 5000, ..d.clone() }),
            ("n_initial", BoParams { n_initial: Some(0), ..d.clone() }),
            ("acq_starts", BoParams { inner: InnerOptions { starts: 0, ..d.inner }, ..d.clone() }),
            ("acq_evals_per_dim", BoParams { inner: InnerOptions { evals_per_dim: 0, ..d.inner }, ..d.clone() }),
            ("acq_max_evals", BoParams { inner: InnerOptions { max_evals: 0, ..d.inner }, ..d.clone() }),
            ("acq_sigma0", BoParams { inner: InnerOptions { sigma0: 2.0, ..d.inner }, ..d.clone() }),
        ];
        for (name, p) in cases {
            assert!(names.contains(&name), "{name}");
            assert_eq!(named(p), name);
        }
    }

    /// Given keywords land in their fields (the inner ones in `inner`), the rest keep their
    /// defaults; unknown keywords and ill-typed values are errors that name the keyword.
    #[test]
    fn params_read_the_given_keywords() {
        let given = |v: Value| params(v.as_object().unwrap());
        assert_eq!(given(serde_json::json!({})).unwrap(), BoParams::default());
        let p = given(serde_json::json!({
            "method": "ucb", "batch_size": 3, "kernel": "rbf", "noise": 1e-4, "beta": null,
            "acq_starts": 2, "acq_max_evals": 300, "on_nonfinite": "treat-as-inf", "design_seed": 9
        }))
        .unwrap();
        let d = BoParams::default();
        assert_eq!(
            p,
            BoParams {
                method: Method::Ucb,
                batch_size: 3,
                kernel: KernelKind::SquaredExponential,
                noise: crate::NoiseModel::Fixed(1e-4),
                inner: InnerOptions { starts: 2, max_evals: 300, ..d.inner },
                on_nonfinite: gradfree_core::NonFinitePolicy::TreatAsInf,
                design_seed: Some(9),
                ..d
            }
        );
        let e = given(serde_json::json!({"batch": 3})).unwrap_err().to_string();
        assert!(e.contains("unknown keyword batch") && e.contains("batch_size"), "{e}");
        let e = given(serde_json::json!({"acq_starts": "four"})).unwrap_err().to_string();
        assert!(e.contains("`acq_starts`"), "{e}");
        let e = given(serde_json::json!({"kernel": "cubic"})).unwrap_err().to_string();
        assert!(e.contains("kernel"), "{e}");
    }
}
