//! Each algorithm's parameters as people read them (`gradfree params NAME`, the Python
//! docstrings), derived from the JSON schema of its `*Params` struct: the field names, types and
//! doc comments of the code itself, so the listing cannot drift from what the parser accepts.

use schemars::JsonSchema;
use serde::Serialize;

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

/// The parameters of `T` (a `*Params` struct), in its schema's order
/// ([`gradfree_core::schema::keywords`]).
pub fn param_docs<T: JsonSchema>() -> Vec<ParamDoc> {
    gradfree_core::schema::keywords::<T>().into_iter().map(|k| ParamDoc { name: k.name, kind: k.kind, doc: k.doc }).collect()
}
