//! What a fit must be read with ([`Warning`]): a text and its kind, so that a front end raises
//! it as the class its users expect (statsmodels' `PerfectSeparationWarning`,
//! `ConvergenceWarning`) without reading the text.

use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// The kind of a [`Warning`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// Separated classes or an unidentified parameter (statsmodels' `PerfectSeparationWarning`,
    /// [`crate::separation`]).
    PerfectSeparation,
    /// An estimate that has not reached what it estimates: maximum likelihood that stopped
    /// without converging, chains or a running average that have not settled.
    Convergence,
    /// Anything else the estimate must be read with (an exact fit, chains without noise, an
    /// overflowing covariance).
    Other,
}

/// One warning of a fit: its kind and its text. It reads as its text (`Deref<Target = str>`,
/// `Display`); a fit written before warnings had kinds reads its bare texts as
/// [`WarningKind::Other`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "WarningDoc")]
pub struct Warning {
    /// How a front end raises it.
    pub kind: WarningKind,
    /// What it says.
    pub message: String,
}

impl Warning {
    /// A warning of kind `kind` saying `message`.
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning { kind, message: message.into() }
    }
}

impl Deref for Warning {
    type Target = str;
    fn deref(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A [`Warning`] as a document holds it: with its kind, or a bare text (older fits).
#[derive(Deserialize)]
#[serde(untagged)]
enum WarningDoc {
    /// `{"kind": ..., "message": ...}`.
    Kinded { kind: WarningKind, message: String },
    /// A text alone.
    Text(String),
}

impl From<WarningDoc> for Warning {
    fn from(doc: WarningDoc) -> Warning {
        match doc {
            WarningDoc::Kinded { kind, message } => Warning { kind, message },
            WarningDoc::Text(message) => Warning { kind: WarningKind::Other, message },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_keep_their_kind_and_read_as_text() {
        let w = Warning::new(WarningKind::Convergence, "The chains have not settled");
        assert!(w.starts_with("The chains") && w.to_string() == w.message);
        let back: Warning = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert_eq!(back, w);
        let old: Warning = serde_json::from_str(r#""an older fit's warning""#).unwrap();
        assert_eq!((old.kind, old.message.as_str()), (WarningKind::Other, "an older fit's warning"));
    }
}
