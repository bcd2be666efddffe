//! The keywords of an inference run as both front ends take them, read from the fields of
//! [`ModelSpec`] and [`InferenceSpec`] ([`gradfree_core::schema`]): names, accepted values,
//! defaults, floors, the command line's and Python's names, and when each applies.

use gradfree_core::schema::{Applies, Keyword};

use crate::{InferenceSpec, Method, ModelSpec};

/// The model's keywords ([`ModelSpec`]), in the schema's order.
pub fn model_keywords() -> Vec<Keyword> {
    gradfree_core::schema::keywords::<ModelSpec>()
}

/// The run's keywords ([`InferenceSpec`]), in the schema's order.
pub fn run_keywords() -> Vec<Keyword> {
    gradfree_core::schema::keywords::<InferenceSpec>()
}

/// The model's keywords, then the run's.
pub fn keywords() -> Vec<Keyword> {
    let mut k = model_keywords();
    k.extend(run_keywords());
    k
}

/// The first keyword `given` holds that does not apply to a run of `model` by `method` (it would
/// be ignored), with its rule.
pub fn refused<'a>(
    keywords: &'a [Keyword],
    model: &str,
    method: Method,
    given: impl Fn(&Keyword) -> bool,
) -> Option<(&'a Keyword, &'a Applies)> {
    gradfree_core::schema::refused(keywords, given, |key| match key {
        "model" => Some(model.to_string()),
        "method" => Some(method.name().to_string()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyword's default is the spec's own default, every rule names a keyword of the run
    /// and values it accepts, and every listed value of a choice parses.
    #[test]
    fn the_keywords_are_the_specs() {
        let k = keywords();
        let spec = serde_json::to_value(InferenceSpec::default()).unwrap();
        let model = serde_json::to_value(ModelSpec::default()).unwrap();
        let names: Vec<&str> = k.iter().map(|k| k.name.as_str()).collect();
        for key in spec.as_object().unwrap().keys().chain(model.as_object().unwrap().keys()) {
            assert!(names.contains(&key.as_str()) || key == "first_chain", "{key} has no keyword");
        }
        for kw in &k {
            let default = spec.get(&kw.name).or_else(|| model.get(&kw.name)).unwrap();
            if !default.is_null() {
                assert_eq!(kw.default.as_ref(), Some(default), "{}", kw.name);
            }
            for v in &kw.values {
                let mut doc = serde_json::Map::new();
                doc.insert(kw.name.clone(), v.clone().into());
                let parsed = if model.get(&kw.name).is_some() {
                    serde_json::from_value::<ModelSpec>(doc.into()).is_ok()
                } else {
                    serde_json::from_value::<InferenceSpec>(doc.into()).is_ok()
                };
                assert!(parsed, "{} = {v}", kw.name);
            }
            if let Some(rule) = &kw.applies {
                let deciding = k.iter().find(|d| d.name == rule.key).expect("a rule's key is a keyword");
                assert!(rule.within.iter().all(|v| deciding.values.contains(v)), "{}: {:?}", kw.name, rule.within);
            }
        }
        let by = |n: &str| k.iter().find(|k| k.name == n).unwrap();
        assert_eq!(by("cov_type").values, ["nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster"]);
        assert_eq!(by("method").values.len(), Method::ALL.len());
        assert_eq!(by("model").values, crate::model::MODEL_NAMES);
        assert_eq!((by("batch_size").cli.as_str(), by("lambda").python.as_str()), ("batch", "lam"));
        assert_eq!(by("chains").minimum, Some(1.0));
    }

    /// A keyword is refused exactly where its method or model would ignore it.
    #[test]
    fn rules_follow_the_method_and_model() {
        let k = keywords();
        let named = |n: &'static str| move |k: &Keyword| k.name == n;
        let hit = |model, method, n| refused(&k, model, method, named(n)).map(|(_, r)| r.needs(gradfree_core::schema::Style::Cli));
        assert_eq!(hit("logistic", Method::Sgd, "cov_type").as_deref(), Some("--method mle (the default for linear, logistic, poisson)"));
        assert_eq!(hit("logistic", Method::Mle, "cov_type"), None);
        assert!(hit("logistic", Method::Mle, "chains").unwrap().starts_with("a chain method"));
        assert_eq!(hit("logistic", Method::Masgrad, "chains"), None);
        assert!(hit("logistic", Method::RandomScaling, "interval").is_some());
        assert_eq!(hit("logistic", Method::Sgd, "interval"), None);
        assert_eq!(hit("logistic", Method::Sgd, "hidden").as_deref(), Some("--model relu"));
        assert_eq!(hit("relu", Method::Sgd, "hidden"), None);
        assert_eq!(hit("mixture", Method::Sgd, "lambda").as_deref(), Some("--method madprox"));
        assert_eq!(hit("logistic", Method::Sgd, "level"), None);
    }
}
