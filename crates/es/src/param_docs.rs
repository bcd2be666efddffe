//! Each algorithm's parameters as people read them (`gradfree params NAME`, the Python
//! docstrings), derived from the JSON schema of its `*Params` struct: the field names, types and
//! doc comments of the code itself, so the listing cannot drift from what the parser accepts.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// One parameter: its key, accepted values and documentation (which states the default and the
/// range).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamDoc {
    /// The key (`--param KEY=VALUE`, Python keyword).
    pub name: String,
    /// What it accepts, e.g. `int`, `float`, `iid | antithetic | orthogonal`.
    pub kind: String,
    /// The field's doc comment.
    pub doc: String,
}

/// The parameters of `T` (a `*Params` struct), in declaration order.
pub fn param_docs<T: JsonSchema>() -> Vec<ParamDoc> {
    let schema = schemars::schema_for!(T);
    let root = schema.as_value();
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let Some(props) = root.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| ParamDoc {
            name: name.clone(),
            kind: kind(p, &defs),
            // Rustdoc links (`[`Type`]`) read as plain code.
            doc: description(p, &defs).replace("[`", "`").replace("`]", "`").split_whitespace().collect::<Vec<_>>().join(" "),
        })
        .collect()
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
