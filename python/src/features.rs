//! Kernel-approximation bindings: a feature map built once and applied to float32 or float64 rows
//! (GIL released), exact Gram matrices and Gram errors. The scikit-learn transformers of
//! `gradfree.kernel_approximation` wrap these.

use gradfree_features::{FeatureMap as Map, FeatureSpec, GramErrors, Kernel, Method, SsfFrequencies, SsfOptions, SsfRotation, exact_gram};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::ToPyErr;
use crate::{err, interruptible};

fn kernel_of(kernel: &str, gamma: f64) -> PyResult<Kernel> {
    match kernel {
        "rbf" | "gaussian" => Kernel::gaussian_gamma(gamma).map_err(ToPyErr::to_py),
        other => Kernel::parse(other, 1.0)
            .map_err(|_| err(format!("invalid kernel = {other}: expected rbf, arccos0, arccos1, arccos2, ... arccos10"))),
    }
}

/// `FeatureMap(kernel, gamma, method, n_components, d, seed, radial_points, frequencies,
/// rotation)`: the map of `gradfree_features::FeatureMap`.
#[pyclass(module = "gradfree._gradfree", frozen)]
struct FeatureMap {
    map: Map,
}

#[pymethods]
impl FeatureMap {
    #[new]
    #[pyo3(signature = (kernel, gamma, method, n_components, d, seed, radial_points = 1, frequencies = "optimized", rotation = "signs"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        kernel: &str,
        gamma: f64,
        method: &str,
        n_components: usize,
        d: usize,
        seed: u64,
        radial_points: usize,
        frequencies: &str,
        rotation: &str,
    ) -> PyResult<Self> {
        let kernel = kernel_of(kernel, gamma)?;
        let method = Method::parse(method).map_err(ToPyErr::to_py)?;
        let frequencies = SsfFrequencies::parse(frequencies).map_err(ToPyErr::to_py)?;
        let rotation = SsfRotation::parse(rotation).map_err(ToPyErr::to_py)?;
        let spec = FeatureSpec {
            radial_points,
            ssf: SsfOptions { frequencies, rotation },
            ..FeatureSpec::new(kernel, method, n_components, seed)
        };
        // Algorithm 12 can take seconds at large d: off the GIL, interruptible between builds.
        let map = interruptible(py, |cancel| {
            let stop = || cancel.load(std::sync::atomic::Ordering::Relaxed);
            Map::new_cancellable(spec, d, Some(&stop))
        })?
        .map_err(ToPyErr::to_py)?;
        Ok(FeatureMap { map })
    }

    /// Features of float64 rows, shape `(n, n_components)`.
    fn transform_f64<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows = x.shape()[0];
        let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
        let map = &self.map;
        let z = py.detach(|| map.transform(xs)).map_err(ToPyErr::to_py)?;
        Ok(Array2::from_shape_vec((rows, map.dim_out()), z).map_err(err)?.into_pyarray(py))
    }

    /// Features of float32 rows, shape `(n, n_components)`, float32.
    fn transform_f32<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f32>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let rows = x.shape()[0];
        let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
        let map = &self.map;
        let z = py.detach(|| map.transform(xs)).map_err(ToPyErr::to_py)?;
        Ok(Array2::from_shape_vec((rows, map.dim_out()), z).map_err(err)?.into_pyarray(py))
    }

    /// Output dimension.
    #[getter]
    fn n_components(&self) -> usize {
        self.map.dim_out()
    }

    /// Number of projections `N`.
    #[getter]
    fn n_projections(&self) -> usize {
        self.map.projection().dim_out()
    }

    /// SSF: the DFT rows `Lambda`; other methods: `None`.
    #[getter]
    fn frequencies(&self) -> Option<Vec<u64>> {
        let ssf = self.map.projection().as_any().downcast_ref::<gradfree_features::projection::SsfProjection>();
        ssf.map(|p| p.sphere().frequencies().to_vec())
    }
}

/// Exact Gram matrix of `kernel` on the rows of `x`.
#[pyfunction]
#[pyo3(signature = (x, kernel, gamma = 1.0))]
fn kernel_matrix<'py>(py: Python<'py>, x: PyReadonlyArray2<'py, f64>, kernel: &str, gamma: f64) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (s, d) = (x.shape()[0], x.shape()[1]);
    let k = kernel_of(kernel, gamma)?;
    let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
    let g = py.detach(|| exact_gram(&k, xs, d)).map_err(ToPyErr::to_py)?;
    Ok(Array2::from_shape_vec((s, s), g).map_err(err)?.into_pyarray(py))
}

/// `(relative Frobenius, relative max)` error of `approx` against `exact`.
#[pyfunction]
fn gram_errors(exact: PyReadonlyArray2<'_, f64>, approx: PyReadonlyArray2<'_, f64>) -> PyResult<(f64, f64)> {
    if exact.shape() != approx.shape() {
        return Err(err(format!("shapes differ: {:?} vs {:?}", exact.shape(), approx.shape())));
    }
    let (e, a) = (
        exact.as_slice().map_err(|_| err("exact must be C-contiguous"))?,
        approx.as_slice().map_err(|_| err("approx must be C-contiguous"))?,
    );
    let g = GramErrors::between(e, a).map_err(ToPyErr::to_py)?;
    Ok((g.rel_frobenius, g.rel_max))
}

/// `scikit-learn`'s `gamma="scale"`: `1 / (d var(X))`.
#[pyfunction]
fn gamma_scale(x: PyReadonlyArray2<'_, f64>) -> PyResult<f64> {
    let d = x.shape()[1].max(1);
    let xs = x.as_slice().map_err(|_| err("X must be C-contiguous"))?;
    gradfree_features::gamma_scale(xs, d).map_err(ToPyErr::to_py)
}

/// `gamma="scale"` of a CSR matrix (`data`, `indices`, `indptr` with sorted, unique column
/// indices per row) of `d` columns: bit for bit the value of its dense form, without densifying.
#[pyfunction]
fn gamma_scale_csr(
    data: PyReadonlyArray1<'_, f64>,
    indices: PyReadonlyArray1<'_, i64>,
    indptr: PyReadonlyArray1<'_, i64>,
    d: usize,
) -> PyResult<f64> {
    let (data, indices, indptr) = (data.as_array(), indices.as_array(), indptr.as_array());
    let (data, indices, indptr): (Vec<f64>, Vec<i64>, Vec<i64>) =
        (data.iter().copied().collect(), indices.iter().copied().collect(), indptr.iter().copied().collect());
    let rows = indptr.len().checked_sub(1).ok_or_else(|| err("indptr must have n_rows + 1 entries"))?;
    if data.len() != indices.len() || indptr[0] != 0 || indptr[rows] != data.len() as i64 {
        return Err(err("data, indices and indptr do not describe one CSR matrix"));
    }
    for r in 0..rows {
        let (a, b) = (indptr[r], indptr[r + 1]);
        if a < 0 || b < a || b as usize > data.len() {
            return Err(err(format!("indptr[{r}..{}] = {a}..{b} is not a valid range", r + 2)));
        }
        let cols = &indices[a as usize..b as usize];
        if cols.iter().any(|&c| c < 0 || c as usize >= d) || cols.windows(2).any(|p| p[0] >= p[1]) {
            return Err(err(format!("row {r}: column indices must be sorted, unique and in [0, {d})")));
        }
    }
    let visit = |f: &mut dyn FnMut(f64)| {
        for r in 0..rows {
            let (a, b) = (indptr[r] as usize, indptr[r + 1] as usize);
            let mut next = 0usize;
            for (&c, &v) in indices[a..b].iter().zip(&data[a..b]) {
                let c = c as usize;
                (next..c).for_each(|_| f(0.0));
                f(v);
                next = c + 1;
            }
            (next..d).for_each(|_| f(0.0));
        }
    };
    gradfree_features::gamma_scale_visit(&visit, rows * d.max(1), d.max(1)).map_err(ToPyErr::to_py)
}

/// `features_keywords()`: the keywords of a feature map as a JSON list (each with its name, kind,
/// accepted values, default, command-line and Python names, aliases and doc), read from the
/// fields of `gradfree_features::FeatureSpec` ([`gradfree_features::keywords::keywords`]).
#[pyfunction]
fn features_keywords() -> PyResult<String> {
    serde_json::to_string(&gradfree_features::keywords::keywords()).map_err(crate::err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FeatureMap>()?;
    m.add_function(wrap_pyfunction!(features_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(gram_errors, m)?)?;
    m.add_function(wrap_pyfunction!(gamma_scale, m)?)?;
    m.add_function(wrap_pyfunction!(gamma_scale_csr, m)?)?;
    Ok(())
}
