//! One shape for every registry of the project (algorithms, problems, feature-map methods, batch
//! BO rules, experiments): an [`Entry`] has a name (its spelling on the command line, in Python and
//! in checkpoints), a one-line summary and the source that defines it. Each registry is written
//! once, as a table in its crate; `gradfree list` and the Python package iterate [`Registry`]s
//! instead of knowing each table's shape.

/// A registry entry.
pub trait Entry: Sync {
    /// The name it is asked for by.
    fn name(&self) -> &'static str;
    /// One line on what it is.
    fn summary(&self) -> &'static str;
    /// Where it is defined (a paper, an equation).
    fn source(&self) -> &'static str;
    /// The entry as JSON (`gradfree list --json`, Python): `name`, `summary` and `source`, and
    /// whatever else a registry knows about its entries.
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"name": self.name(), "summary": self.summary(), "source": self.source()})
    }
}

/// A registry: its entries with what a listing says about them.
pub struct Registry {
    /// Its key in JSON listings, e.g. `"algorithms"`.
    pub key: &'static str,
    /// Its heading in text listings, e.g. `"Algorithms"`.
    pub title: &'static str,
    /// How an entry is used, e.g. `"gradfree optimize --algo NAME"` (empty if it goes without
    /// saying).
    pub usage: &'static str,
    /// The entries, in listing order.
    pub entries: Vec<&'static dyn Entry>,
}

impl Registry {
    /// A registry of `entries`.
    pub fn new<E: Entry>(key: &'static str, title: &'static str, usage: &'static str, entries: &'static [E]) -> Self {
        Registry { key, title, usage, entries: entries.iter().map(|e| e as &dyn Entry).collect() }
    }

    /// The entries as a JSON array ([`Entry::to_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.entries.iter().map(|e| e.to_json()).collect())
    }
}

/// The entry of `entries` called `name`.
pub fn find<'a, E: Entry>(entries: &'a [E], name: &str) -> Option<&'a E> {
    entries.iter().find(|e| e.name() == name)
}

/// The names of `entries`, comma-separated (for "unknown NAME; known: ..." messages).
pub fn names<E: Entry>(entries: &[E]) -> String {
    entries.iter().map(Entry::name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(&'static str);
    impl Entry for E {
        fn name(&self) -> &'static str {
            self.0
        }
        fn summary(&self) -> &'static str {
            "s"
        }
        fn source(&self) -> &'static str {
            "src"
        }
    }
    static ENTRIES: [E; 2] = [E("a"), E("b")];

    #[test]
    fn registries_find_list_and_serialize() {
        assert_eq!(find(&ENTRIES, "b").map(|e| e.0), Some("b"));
        assert!(find(&ENTRIES, "c").is_none());
        assert_eq!(names(&ENTRIES), "a, b");
        let r = Registry::new("things", "Things", "", &ENTRIES);
        assert_eq!(
            r.to_json(),
            serde_json::json!([{"name": "a", "summary": "s", "source": "src"}, {"name": "b", "summary": "s", "source": "src"}])
        );
    }
}
