//! A run's keywords read from its spec type: the JSON schema that `schemars` derives from the
//! struct (field names as serde spells them, types, accepted values, defaults, ranges and doc
//! comments) plus extensions written on the fields themselves: `x-applies` (the rule of when a
//! keyword applies, [`Applies`]), `x-cli` and `x-python` (a front end's other name for it) and
//! `x-aliases` (the names the library's checks give parts of it).
//! The command line and Python read their lists, accepted values and "only with" rules from here,
//! so a keyword is declared once, on its spec's field.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One keyword of a spec.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Keyword {
    /// The field's name (JSON documents, error messages).
    pub name: String,
    /// What it accepts, briefly: `int`, `float`, `bool`, `string`, `list`, or the accepted
    /// values joined by ` | `.
    pub kind: String,
    /// The accepted values of a choice (empty for the rest).
    pub values: Vec<String>,
    /// Its default (`None` when the type has none to show, e.g. a required field).
    pub default: Option<Value>,
    /// Its smallest accepted value, if the schema states one.
    pub minimum: Option<f64>,
    /// When it applies (`None`: always).
    pub applies: Option<Applies>,
    /// Its flag on the command line, without the dashes (default: the name, kebab-cased; empty:
    /// the command line has no flag for it, `"x-cli": ""`).
    pub cli: String,
    /// Its Python keyword (default: the name; empty: Python does not take it).
    pub python: String,
    /// Other names the library's checks give it (`"x-aliases"`: a part of it, as `noise rate` of
    /// the noise `symmetric:RATE`), so a front end names its flag for those too.
    pub aliases: Vec<String>,
    /// The field's doc comment.
    pub doc: String,
}

/// When a keyword applies: while the keyword `key` has one of the values `within` (or, with
/// `not_within`, none of those). A keyword given where it does not apply is refused by both front
/// ends, because it would be ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Applies {
    /// The deciding keyword (`method`, `model`).
    pub key: String,
    /// Its values.
    #[serde(rename = "in", default)]
    pub within: Vec<String>,
    /// Whether the rule is "none of `within`" instead of "one of them".
    #[serde(default)]
    pub not_within: bool,
    /// A name for the runs it applies to ("a chain method").
    #[serde(default)]
    pub label: Option<String>,
    /// Why, briefly ("mle runs no chains").
    #[serde(default)]
    pub note: Option<String>,
}

/// How a front end writes a keyword and its values in a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `--method madprox`.
    Cli,
    /// `method='madprox'`.
    Python,
}

impl Applies {
    /// Whether it applies while its key has the value `value`.
    pub fn holds(&self, value: &str) -> bool {
        self.within.iter().any(|v| v == value) != self.not_within
    }

    /// What the keyword needs, as a front end says it after "only with": `--method madprox`,
    /// `method='masgrad' or 'masgrad-rank-one'`, `a chain method (--method other than mle; mle
    /// runs no chains)`.
    pub fn needs(&self, style: Style) -> String {
        let values: Vec<String> = match style {
            Style::Cli => self.within.clone(),
            Style::Python => self.within.iter().map(|v| format!("'{v}'")).collect(),
        };
        let (key, eq) = match style {
            Style::Cli => (format!("--{}", self.key.replace('_', "-")), " "),
            Style::Python => (self.key.clone(), "="),
        };
        let rule =
            if self.not_within { format!("{key} other than {}", values.join(" or ")) } else { format!("{key}{eq}{}", values.join(" or ")) };
        match (&self.label, &self.note) {
            (Some(l), Some(n)) => format!("{l} ({rule}; {n})"),
            (Some(l), None) => format!("{l} ({rule})"),
            (None, Some(n)) => format!("{rule} ({n})"),
            (None, None) => rule,
        }
    }
}

/// The keywords of `T` (a spec struct), in the order of its schema's properties (by name unless
/// serde_json preserves the order).
pub fn keywords<T: JsonSchema>() -> Vec<Keyword> {
    let schema = schemars::schema_for!(T);
    let root = schema.as_value();
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let Some(props) = root.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let text = |key: &str| p.get(key).and_then(Value::as_str).map(str::to_string);
            let mut values = Vec::new();
            choices(p, &defs, &mut values);
            Keyword {
                name: name.clone(),
                kind: kind(p, &defs),
                values,
                default: p.get("default").filter(|d| !d.is_null()).cloned(),
                minimum: p.get("minimum").and_then(Value::as_f64),
                applies: p.get("x-applies").map(|a| serde_json::from_value(a.clone()).expect("an x-applies rule of a spec")),
                cli: text("x-cli").unwrap_or_else(|| name.replace('_', "-")),
                python: text("x-python").unwrap_or_else(|| name.clone()),
                aliases: p
                    .get("x-aliases")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                    .unwrap_or_default(),
                // Rustdoc links (`[`Type`]`) read as plain code.
                doc: description(p, &defs).replace("[`", "`").replace("`]", "`").split_whitespace().collect::<Vec<_>>().join(" "),
            }
        })
        .collect()
}

impl Keyword {
    /// Whether a name a library check gives is this keyword's: its name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

/// The command-line flag (`--cli`) of the keyword among `keywords` that `name` is (its name or an
/// alias, [`Keyword::answers_to`]); `None` if there is none or it has no flag.
pub fn flag_of(keywords: impl IntoIterator<Item = Keyword>, name: &str) -> Option<String> {
    keywords.into_iter().find(|k| k.answers_to(name)).filter(|k| !k.cli.is_empty()).map(|k| format!("--{}", k.cli))
}

/// The first keyword of `keywords` that `given` holds but that does not apply, with its rule;
/// `value_of` gives the current value of a rule's key (`None`: unknown, the rule is not judged).
pub fn refused(
    keywords: &[Keyword],
    given: impl Fn(&Keyword) -> bool,
    value_of: impl Fn(&str) -> Option<String>,
) -> Option<(&Keyword, &Applies)> {
    keywords.iter().find_map(|k| {
        let rule = k.applies.as_ref()?;
        let value = value_of(&rule.key)?;
        (given(k) && !rule.holds(&value)).then_some((k, rule))
    })
}

/// A field's description, or that of the type it refers to.
fn description(v: &Value, defs: &Map<String, Value>) -> String {
    if let Some(d) = v.get("description").and_then(Value::as_str) {
        return d.to_string();
    }
    resolve(v, defs).and_then(|d| d.get("description")).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn resolve<'a>(v: &'a Value, defs: &'a Map<String, Value>) -> Option<&'a Value> {
    let r = v.get("$ref")?.as_str()?;
    defs.get(r.rsplit('/').next()?)
}

/// The string values a schema accepts, if it is a choice (enums, consts, and unions of them).
fn choices(v: &Value, defs: &Map<String, Value>, out: &mut Vec<String>) {
    if let Some(d) = resolve(v, defs) {
        return choices(d, defs, out);
    }
    if let Some(c) = v.get("const").and_then(Value::as_str) {
        out.push(c.to_string());
    }
    if let Some(e) = v.get("enum").and_then(Value::as_array) {
        out.extend(e.iter().filter_map(Value::as_str).map(str::to_string));
    }
    for key in ["anyOf", "oneOf"] {
        for alt in v.get(key).and_then(Value::as_array).into_iter().flatten() {
            choices(alt, defs, out);
        }
    }
}

/// The accepted values of a schema, briefly.
fn kind(v: &Value, defs: &Map<String, Value>) -> String {
    if let Some(d) = resolve(v, defs) {
        return kind(d, defs);
    }
    if let Some(c) = v.get("const") {
        return c.as_str().map_or_else(|| c.to_string(), str::to_string);
    }
    if let Some(e) = v.get("enum").and_then(Value::as_array) {
        return e.iter().map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string)).collect::<Vec<_>>().join(" | ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = v.get(key).and_then(Value::as_array) {
            let kinds: Vec<String> =
                alts.iter().filter(|a| a.get("type").and_then(Value::as_str) != Some("null")).map(|a| kind(a, defs)).collect();
            return kinds.join(" | ");
        }
    }
    let name = |t: &str| match t {
        "integer" => "int",
        "number" => "float",
        "boolean" => "bool",
        "string" => "string",
        "array" => "list",
        "object" => "object",
        _ => "value",
    };
    match v.get("type") {
        Some(Value::String(t)) => name(t).to_string(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").map(name).collect::<Vec<_>>().join(" | "),
        _ => "value".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of the kind front ends fill: a choice, a count with a floor, a keyword with another
    /// name on each front end and one that applies only to some runs.
    #[derive(Serialize, Deserialize, JsonSchema)]
    #[serde(default)]
    struct Spec {
        /// The method.
        method: Mode,
        /// Samples.
        #[schemars(range(min = 1))]
        count: usize,
        /// The l1 weight.
        #[schemars(extend("x-cli" = "lambda", "x-python" = "lam", "x-applies" = {"key": "method", "in": ["b"], "note": "its prox"}))]
        lambda: f64,
        /// A library-only setting, which checks call `tune rate`.
        #[schemars(extend("x-cli" = "", "x-aliases" = ["tune rate"]))]
        tune: f64,
    }

    impl Default for Spec {
        fn default() -> Self {
            Spec { method: Mode::A, count: 3, lambda: 0.1, tune: 1.0 }
        }
    }

    /// The modes.
    #[derive(Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "kebab-case")]
    enum Mode {
        /// The first.
        A,
        /// The second.
        BeeMode,
    }

    #[test]
    fn keywords_come_from_the_fields() {
        let mut k = keywords::<Spec>();
        k.sort_by_key(|k| ["method", "count", "lambda", "tune"].iter().position(|n| *n == k.name));
        let names: Vec<&str> = k.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["method", "count", "lambda", "tune"]);
        assert_eq!(k[0].values, ["a", "bee-mode"]);
        assert_eq!(k[0].default, Some(Value::from("a")));
        assert_eq!((k[1].kind.as_str(), k[1].minimum, k[1].default.clone()), ("int", Some(1.0), Some(Value::from(3))));
        assert_eq!((k[2].cli.as_str(), k[2].python.as_str(), k[2].doc.as_str()), ("lambda", "lam", "The l1 weight."));
        assert_eq!(k[1].cli, "count");
        let rule = k[2].applies.as_ref().unwrap();
        assert!(rule.holds("b") && !rule.holds("a"));
        assert_eq!(rule.needs(Style::Cli), "--method b (its prox)");
        assert_eq!(rule.needs(Style::Python), "method='b' (its prox)");
        let not = Applies { within: vec!["a".into(), "c".into()], not_within: true, label: Some("x".into()), note: None, ..rule.clone() };
        assert_eq!(not.needs(Style::Python), "x (method other than 'a' or 'c')");
        assert!(not.holds("b") && !not.holds("c"));
        let method = |m: &'static str| move |key: &str| (key == "method").then(|| m.to_string());
        assert_eq!(refused(&k, |k| k.name == "lambda", method("a")).map(|(k, _)| k.name.as_str()), Some("lambda"));
        assert!(refused(&k, |k| k.name == "lambda", method("b")).is_none());
        assert!(refused(&k, |k| k.name == "count", method("a")).is_none());
        assert!(refused(&k, |_| true, |_| None).is_none(), "an unknown method judges nothing");
    }

    /// A check's name finds its keyword by name or alias; the flag is the keyword's, and a
    /// keyword declared without one has none.
    #[test]
    fn flags_are_found_by_name_or_alias() {
        let k = keywords::<Spec>();
        assert_eq!(flag_of(k.clone(), "lambda").as_deref(), Some("--lambda"));
        assert_eq!(flag_of(k.clone(), "count").as_deref(), Some("--count"));
        assert!(k.iter().any(|k| k.answers_to("tune rate")) && !k.iter().any(|k| k.answers_to("rate")));
        assert_eq!(flag_of(k.clone(), "tune rate"), None);
        assert_eq!(flag_of(k.clone(), "tune"), None);
        assert_eq!(flag_of(k, "unknown"), None);
    }
}
