//! Binary classification sets shipped with the crate (see `bundled/README.md` for sources and
//! licences), for the logistic-regression experiments of MiNES sec. 6.2.

use gradfree_core::{derive_seed, rng_from_seed};
use rand::seq::SliceRandom;

use crate::DataError;

/// A binary data set: row-major features `x` (`n x d`) and labels `y` in {-1, +1}.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// Name.
    pub name: &'static str,
    /// Samples.
    pub n: usize,
    /// Features.
    pub d: usize,
    /// Row-major features.
    pub x: Vec<f64>,
    /// Labels, -1 or +1.
    pub y: Vec<f64>,
}

const BREAST_CANCER: &str = include_str!("../bundled/breast_cancer.csv");
const DIGITS: &str = include_str!("../bundled/digits.csv");

/// Names accepted by [`load`].
pub const NAMES: &[&str] = &["breast-cancer", "digits-odd-even"];

fn parse(name: &'static str, text: &str, skip_header: bool, label: impl Fn(f64) -> f64) -> Result<Dataset, DataError> {
    let bad = |m: String| DataError::File { path: format!("bundled {name}"), message: m };
    let mut x = Vec::new();
    let mut y = Vec::new();
    let mut d = None;
    for (i, line) in text.lines().enumerate().skip(usize::from(skip_header)) {
        if line.trim().is_empty() {
            continue;
        }
        let vals: Vec<f64> =
            line.split(',').map(|t| t.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|e| bad(format!("line {}: {e}", i + 1)))?;
        let k = vals.len() - 1;
        if *d.get_or_insert(k) != k {
            return Err(bad(format!("line {} has {} features", i + 1, k)));
        }
        x.extend_from_slice(&vals[..k]);
        y.push(label(vals[k]));
    }
    let d = d.ok_or_else(|| bad("no rows".into()))?;
    Ok(Dataset { name, n: y.len(), d, x, y })
}

/// Loads a data set by name: `breast-cancer` (569 x 30, benign = +1) or `digits-odd-even`
/// (1797 x 64, odd digit = +1).
pub fn load(name: &str) -> Result<Dataset, DataError> {
    match name {
        "breast-cancer" => parse("breast-cancer", BREAST_CANCER, true, |c| if c == 1.0 { 1.0 } else { -1.0 }),
        "digits-odd-even" => parse("digits-odd-even", DIGITS, false, |c| if (c as i64) % 2 == 1 { 1.0 } else { -1.0 }),
        _ => Err(DataError::Unknown { name: name.to_string(), known: NAMES.join(", ") }),
    }
}

/// The digits with their ten classes, as a [`crate::Labeled`] set (pixels / 16).
pub(crate) fn load_multiclass_digits() -> Result<crate::Labeled, DataError> {
    let ds = parse("digits", DIGITS, false, |c| c)?;
    Ok(crate::Labeled {
        name: "digits",
        n: ds.n,
        d: ds.d,
        x: ds.x.iter().map(|&v| (v / 16.0) as f32).collect(),
        labels: ds.y.iter().map(|&c| c as u32).collect(),
        classes: (0..10).map(|c| c.to_string()).collect(),
    })
}

impl Dataset {
    /// Standardizes every feature to mean 0 and standard deviation 1 using the statistics of the
    /// rows in `fit_rows` (constant features become 0).
    pub fn standardize(&mut self, fit_rows: &[usize]) {
        for j in 0..self.d {
            let m = fit_rows.iter().map(|&i| self.x[i * self.d + j]).sum::<f64>() / fit_rows.len() as f64;
            let v = fit_rows.iter().map(|&i| (self.x[i * self.d + j] - m).powi(2)).sum::<f64>() / fit_rows.len() as f64;
            let s = if v > 0.0 { v.sqrt() } else { 1.0 };
            for i in 0..self.n {
                let e = &mut self.x[i * self.d + j];
                *e = if v > 0.0 { (*e - m) / s } else { 0.0 };
            }
        }
    }

    /// A seeded random split: `(train_rows, test_rows)` with `round(test_fraction * n)` test rows.
    pub fn split(&self, test_fraction: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
        let mut idx: Vec<usize> = (0..self.n).collect();
        idx.shuffle(&mut rng_from_seed(derive_seed(seed, 0x5711)));
        let n_test = ((test_fraction.clamp(0.0, 1.0)) * self.n as f64).round() as usize;
        let test = idx[..n_test].to_vec();
        let train = idx[n_test..].to_vec();
        (train, test)
    }

    /// The rows `rows` as `(x, y)`.
    pub fn rows(&self, rows: &[usize]) -> (Vec<f64>, Vec<f64>) {
        let mut x = Vec::with_capacity(rows.len() * self.d);
        let mut y = Vec::with_capacity(rows.len());
        for &i in rows {
            x.extend_from_slice(&self.x[i * self.d..(i + 1) * self.d]);
            y.push(self.y[i]);
        }
        (x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_labels_and_split() {
        let b = load("breast-cancer").unwrap();
        assert_eq!((b.n, b.d), (569, 30));
        assert_eq!(b.y.iter().filter(|v| **v == 1.0).count(), 357); // benign
        assert_eq!(b.x[0], 17.99);
        let g = load("digits-odd-even").unwrap();
        assert_eq!((g.n, g.d), (1797, 64));
        assert!(g.y.iter().all(|v| *v == 1.0 || *v == -1.0));
        let (tr, te) = b.split(0.2, 1);
        assert_eq!((tr.len(), te.len()), (455, 114));
        let mut all: Vec<usize> = tr.iter().chain(&te).copied().collect();
        all.sort();
        assert_eq!(all, (0..569).collect::<Vec<_>>());
        assert_eq!(b.split(0.2, 1), b.split(0.2, 1));
        let mut s = b.clone();
        s.standardize(&tr);
        let m: f64 = tr.iter().map(|&i| s.x[i * 30 + 3]).sum::<f64>() / tr.len() as f64;
        assert!(m.abs() < 1e-12);
        assert!(load("nope").is_err());
        let m = load_multiclass_digits().unwrap();
        assert_eq!((m.n, m.d, m.classes.len()), (1797, 64, 10));
        // scikit-learn: np.bincount(load_digits().target)[:3] == [178, 182, 177].
        assert_eq!([0, 1, 2].map(|c| m.labels.iter().filter(|&&y| y == c).count()), [178, 182, 177]);
        assert!(m.x.iter().all(|v| (0.0..=1.0).contains(v)));
    }
}
