//! One shape for every registry of the project (algorithms, problems, feature-map methods, batch
//! BO rules, experiments): an [`Entry`] has a name (its spelling on the command line, in Python and
//! in checkpoints), a one-line summary and the source that defines it. Each registry is written
//! once, as a table in its crate; `gradfree list` and the Python package iterate [`Registry`]s
//! instead of knowing each table's shape.

/// What every registry says about an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Info {
    /// The name it is asked for by (command line, Python, checkpoints).
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// Where it is defined (a paper, an equation).
    pub source: &'static str,
}

/// A registry entry: its [`Info`], and as JSON whatever else its registry knows.
pub trait Entry: Sync {
    /// Name, summary and source.
    fn info(&self) -> Info;
    /// The name it is asked for by.
    fn name(&self) -> &'static str {
        self.info().name
    }
    /// One line on what it is.
    fn summary(&self) -> &'static str {
        self.info().summary
    }
    /// Where it is defined.
    fn source(&self) -> &'static str {
        self.info().source
    }
    /// The entry as JSON (`gradfree list --json`, Python): `name`, `summary` and `source`, and
    /// whatever else a registry knows about its entries.
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"name": self.name(), "summary": self.summary(), "source": self.source()})
    }
}

impl Entry for Info {
    fn info(&self) -> Info {
        *self
    }
}

/// An entry that names a value of type `T` (a variant of a method enum): registries of choices
/// look values up by name ([`Choice::parse`]) and names up by value ([`Choice::of`]).
#[derive(Clone, Copy, Debug)]
pub struct Choice<T: 'static> {
    /// The value.
    pub value: T,
    /// Its name.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// Where it is defined.
    pub source: &'static str,
}

impl<T: Sync> Entry for Choice<T> {
    fn info(&self) -> Info {
        Info { name: self.name, summary: self.summary, source: self.source }
    }
}

impl<T: Copy + PartialEq> Choice<T> {
    /// The value called `name` among `choices`, if any.
    pub fn parse(choices: &[Choice<T>], name: &str) -> Option<T> {
        choices.iter().find(|c| c.name == name).map(|c| c.value)
    }

    /// The entry of `value` among `choices` (every value of a registry's enum has one; a missing
    /// one is a bug of the registry's table, caught by its tests).
    pub fn of(choices: &'static [Choice<T>], value: T) -> &'static Choice<T> {
        choices.iter().find(|c| c.value == value).expect("every value of a registry's enum has an entry")
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
        fn info(&self) -> Info {
            Info { name: self.0, summary: "s", source: "src" }
        }
    }
    static ENTRIES: [E; 2] = [E("a"), E("b")];

    #[test]
    fn registries_find_list_and_serialize() {
        assert_eq!(find(&ENTRIES, "b").map(|e| e.0), Some("b"));
        assert!(find(&ENTRIES, "c").is_none());
        assert_eq!(names(&ENTRIES), "a, b");
        let r = Registry::new("things", "Things", "", &ENTRIES);
        static CHOICES: [Choice<u8>; 2] =
            [Choice { value: 1, name: "one", summary: "", source: "" }, Choice { value: 2, name: "two", summary: "", source: "" }];
        assert_eq!((Choice::parse(&CHOICES, "two"), Choice::parse(&CHOICES, "three")), (Some(2), None));
        assert_eq!(Choice::of(&CHOICES, 1).name, "one");
        assert_eq!(
            r.to_json(),
            serde_json::json!([{"name": "a", "summary": "s", "source": "src"}, {"name": "b", "summary": "s", "source": "src"}])
        );
    }
}
