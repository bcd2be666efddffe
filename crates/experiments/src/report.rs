//! What an experiment produces: tables, figures as data, notes. Nothing here draws or prints:
//! the command line renders figures with plotters and prints tables; Python gets the same data.
//!
//! Figures are not limited to best-f curves: a [`Chart`] is any set of `(x, y)` series (coverage
//! against nominal level, training loss against epochs, Gram error against feature dimension), a
//! [`Heatmap`] any field on a square.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{ExperimentError, Result};

/// A table: a title, a file stem for its CSV, headers and rows of formatted cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Title printed above it.
    pub title: String,
    /// File stem of the CSV.
    pub slug: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows, each with one cell per header.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(title: impl Into<String>, slug: impl Into<String>, headers: &[&str]) -> Self {
        Table { title: title.into(), slug: slug.into(), headers: headers.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    /// Adds a row (one cell per header).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }

    /// The table as aligned text lines (title, headers, rule, rows).
    pub fn lines(&self) -> Vec<String> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (wi, c) in w.iter_mut().zip(r) {
                *wi = (*wi).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| cells.iter().zip(&w).map(|(c, wi)| format!("{c:<wi$}")).collect::<Vec<_>>().join("  ");
        let mut out = vec![self.title.clone(), line(&self.headers), w.iter().map(|wi| "-".repeat(*wi)).collect::<Vec<_>>().join("  ")];
        out.extend(self.rows.iter().map(|r| line(r)));
        out
    }

    /// The table as CSV text (RFC 4180 quoting).
    pub fn csv(&self) -> String {
        let esc = |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
        let mut text = self.headers.iter().map(|h| esc(h)).collect::<Vec<_>>().join(",") + "\n";
        for r in &self.rows {
            text += &(r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(",") + "\n");
        }
        text
    }

    /// Writes the CSV to `<dir>/<slug>.csv` atomically and returns the path.
    pub fn write_csv(&self, dir: &Path) -> Result<PathBuf> {
        let path = dir.join(format!("{}.csv", self.slug));
        gradfree_core::atomic_write(&path, self.csv().as_bytes())?;
        Ok(path)
    }
}

/// One line of a chart: a legend label and its points (non-finite y values are not drawn).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// Error bars `(x, low, high)`, drawn as vertical whiskers in the series' colour (e.g. mean ±
    /// one standard deviation over runs); empty for none. A series of more than 12 points with a
    /// bar at every point is drawn with a shaded band instead ([`Series::band`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<(f64, f64, f64)>,
}

impl Series {
    /// The mean of `(x, mean, std)` points as a line with mean ± one standard deviation as error
    /// bars at about `bars` of its points and the last, so the bars of several series stay
    /// readable. With `log_axis` the lower end is kept above a tenth of the mean so it shows on a
    /// log axis.
    pub fn mean_std(label: &str, stats: &[(f64, f64, f64)], bars: usize, log_axis: bool) -> Self {
        let every = stats.len().div_ceil(bars.max(1)).max(1);
        Series {
            label: label.into(),
            points: stats.iter().map(|&(x, m, _)| (x, m)).collect(),
            errors: stats
                .iter()
                .enumerate()
                .filter(|(k, _)| k % every == every - 1 || *k + 1 == stats.len())
                .map(|(_, &(x, m, s))| (x, if log_axis { (m - s).max(0.1 * m) } else { m - s }, m + s))
                .collect(),
        }
    }
}

impl Series {
    /// The mean of `(x, mean, std)` points with mean ± one standard deviation at every point,
    /// drawn as a shaded band (a series of more than 12 points).
    pub fn band(label: &str, stats: &[(f64, f64, f64)]) -> Self {
        Series {
            label: label.into(),
            points: stats.iter().map(|&(x, m, _)| (x, m)).collect(),
            errors: stats.iter().map(|&(x, m, s)| (x, m - s, m + s)).collect(),
        }
    }
}

/// A line chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Whether y is drawn on a log scale.
    pub log_y: bool,
    /// The lines.
    pub series: Vec<Series>,
}

/// A field on `[lo, hi]^2` sampled on an `n x n` grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heatmap {
    /// Panel title.
    pub title: String,
    /// Lower end of both axes.
    pub lo: f64,
    /// Upper end of both axes.
    pub hi: f64,
    /// Row-major `n x n`; row `i` is `y = lo + (i + 0.5) h`.
    pub values: Vec<f64>,
    /// Grid size.
    pub n: usize,
}

/// A figure: what to draw, and the file name it is drawn to in the experiment's folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Figure {
    /// Line charts as panels of one image, `cols` per row.
    Charts {
        /// File name, e.g. `fig_5_1_integration.png`.
        file: String,
        /// The panels.
        charts: Vec<Chart>,
        /// Panels per row.
        cols: usize,
    },
    /// Heat maps as panels of one image under a common title.
    Heatmaps {
        /// File name.
        file: String,
        /// Title above the panels.
        title: String,
        /// The panels.
        panels: Vec<Heatmap>,
        /// Panels per row.
        cols: usize,
    },
}

impl Figure {
    /// The usual experiment figure: one panel per `(title, series)`, all with the same axes, in
    /// rows of at most `max_cols` panels.
    pub fn panels(file: &str, panels: Vec<(String, Vec<Series>)>, x_label: &str, y_label: &str, log_y: bool, max_cols: usize) -> Self {
        let cols = panels.len().min(max_cols).max(1);
        let charts = panels
            .into_iter()
            .map(|(title, series)| Chart { title, x_label: x_label.into(), y_label: y_label.into(), log_y, series })
            .collect();
        Figure::Charts { file: file.into(), charts, cols }
    }

    /// The file name the figure is drawn to.
    pub fn file(&self) -> &str {
        match self {
            Figure::Charts { file, .. } | Figure::Heatmaps { file, .. } => file,
        }
    }
}

/// What an experiment produced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Tables (printed, and written as CSV by the caller).
    pub tables: Vec<Table>,
    /// Figures as data (drawn by the caller).
    pub figures: Vec<Figure>,
    /// Remarks printed under the tables (choices where the source is silent, deviations).
    pub notes: Vec<String>,
}

/// Formats a float for tables: 4 significant digits, scientific when small or large.
pub fn fmt(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if !v.is_finite() {
        format!("{v}")
    } else if v.abs() >= 1e-3 && v.abs() < 1e5 {
        format!("{v:.4}")
    } else {
        format!("{v:.3e}")
    }
}

/// Creates a folder (and its parents), naming it in the error.
pub fn create_dir(path: &Path) -> Result<()> {
    std::fs::create_dir_all(path).map_err(|cause| ExperimentError::Io { path: path.to_owned(), cause })
}
