//! # gradfree-data
//!
//! Data for the experiments and the learning methods, read, never generated:
//!
//! - [`bundled`]: two small binary-classification sets shipped with the crate (UCI breast cancer
//!   and the digits odd/even split, as scikit-learn bundles them; `bundled/README.md`), for the
//!   logistic-regression experiments of MiNES sec. 6.2.
//! - [`labeled`]: real data sets installed by Debian packages and read at run time
//!   (Fashion-MNIST from `dataset-fashion-mnist`, StatLog DNA from `r-cran-mlbench`), for the
//!   kernel-approximation experiments of thesis sec. 5.5.3 and 6.6, through the readers of their
//!   formats ([`idx`], [`rdata`]).
//! - [`matrix`]: user data matrices in `.csv` and `.npy` files, read and encoded.
//! - [`stream`]: rows that arrive in chunks ([`RowSource`]): a CSV file read a block at a time,
//!   or (in Python) a generator of batches, for data larger than memory.
//!
//! Every file reader refuses what is not a regular file (a FIFO, a device such as `/dev/zero`, a
//! directory) before reading a byte, and a file larger than the memory available, with a
//! [`DataError`] naming the file.

pub mod bundled;
pub mod error;
pub mod idx;
pub mod labeled;
pub mod matrix;
pub mod rdata;
pub mod stream;

pub use bundled::{Dataset, NAMES, load};
pub use error::DataError;
pub use labeled::{LABELED_NAMES, Labeled, load_labeled};
pub use matrix::{Matrix, Table, read_matrix, read_table};
pub use stream::{Chunk, ChunkList, CsvStream, RowSource};

use std::path::Path;

/// The bytes of the data file `path`, which must be a regular file ([`read_file`]). A file that
/// does not exist is [`DataError::Missing`], naming the Debian `package` that installs `dataset` and
/// the environment variable `env` that points elsewhere.
pub fn read_data_file(path: &Path, dataset: &'static str, package: &'static str, env: &'static str) -> Result<Vec<u8>, DataError> {
    match gradfree_core::read_regular_file(path) {
        Err(gradfree_core::CoreError::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
            Err(DataError::Missing { dataset, path: path.display().to_string(), package, env })
        }
        r => r.map_err(|e| from_core(path, e)),
    }
}

/// The bytes of `path`, a regular file: anything else (a FIFO, a device such as `/dev/zero`, a
/// directory) is refused before it is opened, so it can neither hang nor exhaust the process, and
/// so is a file larger than the memory available ([`gradfree_core::read_regular_file`]).
pub fn read_file(path: &Path) -> Result<Vec<u8>, DataError> {
    gradfree_core::read_regular_file(path).map_err(|e| from_core(path, e))
}

/// A failed read as a data error: an I/O failure or a file that is not regular is
/// [`DataError::File`]; a size beyond the memory available stays a [`DataError::Core`].
fn from_core(path: &Path, e: gradfree_core::CoreError) -> DataError {
    use gradfree_core::CoreError;
    match e {
        CoreError::Io { cause, .. } => DataError::file(path, cause.to_string()),
        CoreError::Format { message, .. } => DataError::file(path, message),
        e => DataError::Core(e),
    }
}
