//! `gradfree infer`'s run: a model ([`ModelSpec`]) on a data file with a response column, and the
//! inference run ([`InferenceSpec`]). Serializable: it is the metadata of the command's
//! checkpoints, so a resumed run rebuilds the same model on the same data.

use std::path::PathBuf;

use gradfree_data::{CsvStream, read_table};
use gradfree_inference::{Data, InferenceError, InferenceSpec, Model, ModelSpec};
use serde::{Deserialize, Serialize};

use crate::{ExperimentError, Result};

/// Rows per chunk when a CSV file is streamed.
pub const STREAM_CHUNK_ROWS: usize = 1 << 14;

/// One `gradfree infer` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InferRunSpec {
    /// The model.
    pub model: ModelSpec,
    /// The data file (`.csv` with an optional header, or `.npy`).
    pub data: PathBuf,
    /// The response column (a header name, a column number, `-1` for the last); none for the
    /// mixture, whose data are one column of scalars.
    pub target: Option<String>,
    /// The inference run.
    pub spec: InferenceSpec,
}

/// A run's model, data in memory and parameter names.
pub struct Loaded {
    /// The model.
    pub model: Box<dyn Model>,
    /// The data, with the intercept column if the model has one.
    pub data: Data,
    /// The parameters' names.
    pub names: Vec<String>,
    /// The size and content hash of the rows read (features, responses and column names), which
    /// a checkpoint stores so that a resumed run checks it continues on the same data.
    pub fingerprint: gradfree_core::Fingerprint,
}

impl InferRunSpec {
    fn check_target(&self) -> Result<()> {
        let supervised = self.model.model != "mixture";
        match (&self.target, supervised) {
            (None, true) => {
                Err(InferenceError::invalid("target", "none", "the response column (a header name, or a column number; -1 for the last)")
                    .into())
            }
            (Some(t), false) => Err(InferenceError::invalid("target", t, "none: the mixture's data are one column of scalars").into()),
            _ => Ok(()),
        }
    }

    /// Reads the data file whole and builds the model.
    pub fn load(&self) -> Result<Loaded> {
        self.check_target()?;
        let table = read_table(&self.data)?;
        let (features, y) = match &self.target {
            Some(t) => {
                let j = table.column(t).ok_or_else(|| {
                    InferenceError::invalid(
                        "target",
                        t,
                        format!("a column of {}: {} (or a number, -1 for the last)", self.data.display(), table.names.join(", ")),
                    )
                })?;
                if table.matrix.cols < 2 {
                    return Err(ExperimentError::Invalid(format!(
                        "{}: the response is the only column; need at least one feature",
                        self.data.display()
                    )));
                }
                table.split_column(j)
            }
            None => (table, Vec::new()),
        };
        let d = features.matrix.cols;
        let model = self.model.build(d)?;
        let x = self.model.design(features.matrix.values, d);
        let data = Data::new(x, d + usize::from(self.model.intercept && d > 0), y)?;
        let names = self.model.parameter_names(&features.names);
        let mut hash = gradfree_core::FingerprintBuilder::new();
        hash.f64s(data.rows()).f64s(data.responses());
        features.names.iter().for_each(|n| {
            hash.text(n);
        });
        let fingerprint = hash.finish(format!("{} rows x {} columns", data.len(), d + usize::from(self.target.is_some())));
        Ok(Loaded { model, data, names, fingerprint })
    }

    /// Opens the data file as a stream (CSV only) and builds the model; the parameter names come
    /// with it.
    pub fn open_stream(&self) -> Result<(Box<dyn Model>, CsvStream, Vec<String>)> {
        self.check_target()?;
        if self.data.extension().and_then(|e| e.to_str()) != Some("csv") {
            return Err(
                InferenceError::invalid("data", self.data.display(), "a .csv file when streamed (a .npy file is read whole)").into()
            );
        }
        let stream = CsvStream::open(&self.data, self.target.as_deref(), STREAM_CHUNK_ROWS)?;
        use gradfree_data::RowSource;
        let d = stream.dim();
        let names = stream.names().unwrap_or_default();
        Ok((self.model.build(d)?, stream, self.model.parameter_names(&names)))
    }
}
