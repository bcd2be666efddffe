//! Bindings of the neural optimization kernel block (`gradfree_robust::nok`, thesis ch. 7): a
//! fitted block ([`NokModel`]: codes, denoised rows, the NOK kernel) for
//! `gradfree.robust.NOKDenoiser` and `gradfree.robust.nok_kernel`.

use gradfree_robust::nok::{NokBlock, NokSpec, NokState};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::err;
use crate::errors::{Kind, ToPyErr, new_err};

fn rows(x: &PyReadonlyArray2<'_, f64>) -> (Vec<f64>, usize) {
    (x.as_array().iter().copied().collect(), x.shape()[0])
}

fn array<'py>(py: Python<'py>, v: Vec<f64>, r: usize, c: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
    Array2::from_shape_vec((r, c), v).map_err(err).map(|a| a.into_pyarray(py))
}

/// A NOK block: `B` (rebuilt from the spec's seed) and the rotations of its phases.
#[pyclass(module = "gradfree._gradfree", frozen)]
pub struct NokModel {
    block: NokBlock,
}

impl NokModel {
    fn check_d(&self, x: &PyReadonlyArray2<'_, f64>) -> PyResult<()> {
        if x.shape()[1] != self.block.dim() {
            return Err(new_err(Kind::Data, format!("X has {} features, but the block takes {}", x.shape()[1], self.block.dim())));
        }
        Ok(())
    }
}

#[pymethods]
impl NokModel {
    /// A block for `d` features from the options of `spec_json` (fields of `NokSpec`; missing
    /// ones take its defaults), with `R = I` (unfitted).
    #[new]
    fn new(d: usize, spec_json: &str) -> PyResult<Self> {
        let spec: NokSpec = crate::options(spec_json, "NOK options")?;
        Ok(NokModel { block: NokBlock::new(spec, d).map_err(ToPyErr::to_py)? })
    }

    /// Fits the rotations (7.16-7.17) on the rows of `x`, without the GIL; Ctrl-C stops it
    /// between layer steps (`KeyboardInterrupt`).
    fn fit(&self, py: Python<'_>, x: PyReadonlyArray2<'_, f64>) -> PyResult<NokModel> {
        self.check_d(&x)?;
        let (v, _) = rows(&x);
        let mut block = NokBlock::from_state(self.block.state()).map_err(ToPyErr::to_py)?;
        let fitted = &mut block;
        crate::interruptible(py, move |cancel| fitted.fit_until(&v, &|| cancel.load(std::sync::atomic::Ordering::Relaxed)))?
            .map_err(ToPyErr::to_py)?;
        Ok(NokModel { block })
    }

    /// The codes `(n, N)`.
    fn codes<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.check_d(&x)?;
        let (v, n) = rows(&x);
        let out = py.detach(|| self.block.codes(&v)).map_err(ToPyErr::to_py)?;
        array(py, out, n, self.block.width())
    }

    /// The denoised rows `(n, d)`.
    fn transform<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.check_d(&x)?;
        let (v, n) = rows(&x);
        let out = py.detach(|| self.block.transform(&v)).map_err(ToPyErr::to_py)?;
        array(py, out, n, self.block.dim())
    }

    /// The NOK kernel matrix `(n_x, n_z)`.
    fn kernel<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        z: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.check_d(&x)?;
        self.check_d(&z)?;
        let ((vx, nx), (vz, nz)) = (rows(&x), rows(&z));
        let out = py.detach(|| self.block.kernel(&vx, &vz)).map_err(ToPyErr::to_py)?;
        array(py, out, nx, nz)
    }

    /// The code width `N`.
    #[getter]
    fn width(&self) -> usize {
        self.block.width()
    }

    /// The mean objective (7.16) per row while fitting.
    fn trace<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.block.fit_trace())
    }

    /// The rotations `R_0, ..., R_{T2}`, shape `(T2 + 1, d, d)` flattened to `(T2 + 1, d * d)`.
    fn rotations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let r = self.block.rotations();
        let d2 = self.block.dim() * self.block.dim();
        array(py, r.concat(), r.len(), d2)
    }

    /// The state as bytes (JSON), for pickling.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &serde_json::to_vec(&self.block.state()).map_err(err)?))
    }

    /// A block from [`NokModel::to_bytes`]; a corrupt state is a `CheckpointError`.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let bad = |m: String| new_err(Kind::Checkpoint, format!("not a saved NOKDenoiser state: {m}"));
        let state: NokState = serde_json::from_slice(data).map_err(|e| bad(e.to_string()))?;
        Ok(NokModel { block: NokBlock::from_state(state).map_err(|e| bad(e.to_string()))? })
    }

    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (Py<PyBytes>,))> {
        let py = slf.py();
        let bytes = slf.get().to_bytes(py)?.unbind();
        let f = py.get_type::<NokModel>().getattr("from_bytes")?;
        Ok((f.unbind(), (bytes,)))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NokModel>()
}
