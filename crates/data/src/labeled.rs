//! Real data sets installed by Debian packages and read at run time (never shipped, never
//! generated):
//!
//! - **Fashion-MNIST** (Xiao, Rasul & Vollgraf 2017; MIT licence): 70,000 grey 28 x 28 images of
//!   clothing in 10 classes, from the package `dataset-fashion-mnist`, IDX files in
//!   `/usr/share/datasets/fashion-mnist/` (the training 60,000 then the test 10,000 rows);
//! - **StatLog DNA** (mlbench's `DNA`; 3,186 x 180 binary indicators of the nucleotides around a
//!   splice junction, 3 classes), from the package `r-cran-mlbench`, the R data file
//!   `/usr/lib/R/site-library/mlbench/data/DNA.rda`.
//!
//! The environment variables `GRADFREE_FASHION_MNIST_DIR` and `GRADFREE_MLBENCH_DIR` point the
//! loaders at other folders holding the same files.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::idx::idx;
use crate::{DataError, rdata, read_data_file};

/// A labelled data set for the kernel experiments: row-major features in `f32`, class labels.
#[derive(Clone, Debug)]
pub struct Labeled {
    /// Name.
    pub name: &'static str,
    /// Rows.
    pub n: usize,
    /// Features per row.
    pub d: usize,
    /// Row-major `n x d` features.
    pub x: Vec<f32>,
    /// Class of each row, an index into `classes`.
    pub labels: Vec<u32>,
    /// Class names.
    pub classes: Vec<String>,
}

impl Labeled {
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// The rows `rows` as one row-major `f64` block.
    pub fn rows_f64(&self, rows: &[usize]) -> Vec<f64> {
        let mut out = Vec::with_capacity(rows.len() * self.d);
        for &i in rows {
            out.extend(self.row(i).iter().map(|&v| f64::from(v)));
        }
        out
    }
}

/// Names accepted by [`load_labeled`].
pub const LABELED_NAMES: &[&str] = &["fashion-mnist", "dna", "digits"];

/// Loads `fashion-mnist` or `dna` from the files their Debian packages install, or `digits` from
/// the copy shipped with the crate ([`digits`]).
pub fn load_labeled(name: &str) -> Result<Labeled, DataError> {
    match name {
        "fashion-mnist" => fashion_mnist(),
        "dna" => dna(),
        "digits" => digits(),
        _ => Err(DataError::Unknown { name: name.to_string(), known: LABELED_NAMES.join(", ") }),
    }
}

fn folder(env: &str, default: &str) -> PathBuf {
    std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

const FASHION_ENV: &str = "GRADFREE_FASHION_MNIST_DIR";
const MLBENCH_ENV: &str = "GRADFREE_MLBENCH_DIR";

/// Fashion-MNIST from `/usr/share/datasets/fashion-mnist` (or `$GRADFREE_FASHION_MNIST_DIR`).
pub fn fashion_mnist() -> Result<Labeled, DataError> {
    fashion_mnist_from(&folder(FASHION_ENV, "/usr/share/datasets/fashion-mnist"))
}

/// Fashion-MNIST from the IDX files (gzipped or not) in `dir`: 70,000 x 784 pixels scaled to
/// `[0, 1]` (the 60,000 training rows first), labels 0-9.
pub fn fashion_mnist_from(dir: &Path) -> Result<Labeled, DataError> {
    const ENV: &str = FASHION_ENV;
    const PKG: &str = "dataset-fashion-mnist";
    let mut x = Vec::new();
    let mut labels = Vec::new();
    let mut d = 0;
    for part in ["train", "t10k"] {
        let read = |kind: &str| -> Result<(PathBuf, Vec<u8>), DataError> {
            let plain = dir.join(format!("{part}-{kind}"));
            let gz = dir.join(format!("{part}-{kind}.gz"));
            let path = if plain.exists() { plain } else { gz };
            let bytes = read_data_file(&path, "Fashion-MNIST", PKG, ENV)?;
            let bytes = gunzip_if_needed(bytes).map_err(|m| DataError::file(&path, m))?;
            Ok((path, bytes))
        };
        let (ipath, images) = read("images-idx3-ubyte")?;
        let (lpath, labs) = read("labels-idx1-ubyte")?;
        let bad = |p: &Path, m: String| DataError::file(p, m);
        let (dims, pixels) = idx(&images).map_err(|m| bad(&ipath, m))?;
        let (ldims, lab) = idx(&labs).map_err(|m| bad(&lpath, m))?;
        if dims.len() != 3 || ldims.len() != 1 || ldims[0] != dims[0] {
            return Err(bad(&ipath, format!("image shape {dims:?} does not match label shape {ldims:?}")));
        }
        d = dims[1] * dims[2];
        x.extend(pixels.iter().map(|&p| f32::from(p) / 255.0));
        labels.extend(lab.iter().map(|&l| u32::from(l)));
    }
    let classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"];
    Ok(Labeled { name: "fashion-mnist", n: labels.len(), d, x, labels, classes: classes.map(String::from).to_vec() })
}

fn gunzip_if_needed(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if bytes.starts_with(&[0x1F, 0x8B]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
        Ok(out)
    } else {
        Ok(bytes)
    }
}

/// The UCI optical digits as scikit-learn bundles them (shipped with this crate, see
/// `bundled/README.md`): 1,797 grey 8 x 8 images, pixel counts 0..16 scaled to `[0, 1]`, classes
/// 0-9 (`sklearn.datasets.load_digits`). Small enough for tests of the training stack.
pub fn digits() -> Result<Labeled, DataError> {
    let ds = crate::bundled::load_multiclass_digits()?;
    Ok(ds)
}

/// StatLog DNA from `/usr/lib/R/site-library/mlbench/data` (or `$GRADFREE_MLBENCH_DIR`).
pub fn dna() -> Result<Labeled, DataError> {
    dna_from(&folder(MLBENCH_ENV, "/usr/lib/R/site-library/mlbench/data"))
}

/// StatLog DNA from `DNA.rda` in `dir`: 3,186 x 180 features in {0, 1}; classes `ei`, `ie`, `n`.
pub fn dna_from(dir: &Path) -> Result<Labeled, DataError> {
    let path = dir.join("DNA.rda");
    let bytes = read_data_file(&path, "StatLog DNA (mlbench)", "r-cran-mlbench", MLBENCH_ENV)?;
    let bad = |m: String| DataError::file(&path, m);
    let frame = rdata::read_frame(&bytes, "DNA").map_err(bad)?;
    let class_col = frame.names.iter().position(|c| c == "Class").ok_or_else(|| bad("no column `Class`".into()))?;
    let features: Vec<usize> = (0..frame.names.len()).filter(|&j| j != class_col).collect();
    let (n, d) = (frame.rows, features.len());
    let mut x = Vec::with_capacity(n * d);
    for i in 0..n {
        for &j in &features {
            let v = frame.columns[j][i];
            if !v.is_finite() {
                return Err(bad(format!("missing value in column {} row {}", frame.names[j], i + 1)));
            }
            x.push(v as f32);
        }
    }
    let labels = frame.columns[class_col].iter().map(|&c| c as u32).collect();
    Ok(Labeled { name: "dna", n, d, x, labels, classes: frame.levels[class_col].clone() })
}
