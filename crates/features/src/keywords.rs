//! The keywords of a feature map as the front ends take them, read from the fields of
//! [`FeatureSpec`] and of its SSF options [`SsfOptions`] ([`gradfree_core::schema`]), with their
//! command-line and Python names declared on the fields. Parameter errors name these keywords
//! (or a part of one, listed as its alias: `order` of the kernel).

use gradfree_core::schema::{Keyword, keywords as of};

use crate::{FeatureSpec, SsfOptions};

/// Every keyword of a feature map: [`FeatureSpec`]'s own (its `ssf` field excepted), then
/// [`SsfOptions`]'s.
pub fn keywords() -> Vec<Keyword> {
    let mut out: Vec<Keyword> = of::<FeatureSpec>().into_iter().filter(|k| k.name != "ssf").collect();
    out.extend(of::<SsfOptions>());
    out
}

/// The keyword a parameter error's `name` belongs to: the keyword of that name, or the one that
/// lists it as an alias.
pub fn keyword_of(name: &str) -> Option<Keyword> {
    keywords().into_iter().find(|k| k.answers_to(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FeatureError, Kernel, METHODS, Method};

    /// The keywords are the fields of the spec and of the SSF options, with their front ends'
    /// names; the methods are the registry's; an invalid value is reported under its keyword's
    /// name or alias.
    #[test]
    fn feature_map_keywords_are_its_fields() {
        let names: Vec<String> = keywords().into_iter().map(|k| k.name).collect();
        assert_eq!(names, ["kernel", "method", "n_components", "radial_points", "seed", "frequencies", "rotation"]);
        let method = keyword_of("method").unwrap();
        let mut listed: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        let mut values = method.values.clone();
        listed.sort();
        values.sort();
        assert_eq!(values, listed);
        assert_eq!(keyword_of("rotation").unwrap().values, crate::SsfRotation::NAMES);
        for name in crate::SsfRotation::NAMES {
            assert!(crate::SsfRotation::parse(name).is_ok());
        }
        for name in crate::SsfFrequencies::NAMES {
            assert!(crate::SsfFrequencies::parse(name).is_ok());
        }
        assert!(crate::SsfRotation::parse("givens").unwrap_err().to_string().contains("signs, haar, phase"));
        assert!(crate::SsfFrequencies::parse("sobol").unwrap_err().to_string().contains("optimized, subgroup, random"));
        assert_eq!(keyword_of("n_components").unwrap().cli, "dim-out");
        assert_eq!(keyword_of("seed").unwrap().python, "random_state");
        let named = |spec: FeatureSpec| match spec.projections() {
            Err(FeatureError::InvalidParameter { name, .. }) => name.to_string(),
            other => panic!("{other:?}"),
        };
        let base = FeatureSpec::new(Kernel::ArcCos { order: 1 }, Method::Ssf, 8, 0);
        for (spec, keyword) in [
            (FeatureSpec { kernel: Kernel::ArcCos { order: 99 }, ..base }, "kernel"),
            (FeatureSpec { n_components: 0, ..base }, "n_components"),
            (FeatureSpec { radial_points: 0, ..base }, "radial_points"),
        ] {
            let name = named(spec);
            assert_eq!(keyword_of(&name).map(|k| k.name), Some(keyword.to_string()), "{name}");
        }
    }
}
