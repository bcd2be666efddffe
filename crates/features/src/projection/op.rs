//! [`LinearOp`]: the open contract of a projection `W` (`N x d`): apply it and its adjoint to
//! blocks of rows, with per-thread buffers kept in a [`Workspace`]. Dense matrices, signed
//! circulant blocks and SSF (thesis Theorem 20) implement it; so can any structured matrix a caller
//! brings (e.g. a learned layer), and the feature maps take any of them.

use std::any::Any;

/// What the rows of a projection are, for the feature map's radial scaling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directions {
    /// Marginally `N(0, I_d)`.
    Gaussian,
    /// Unit vectors (uniform on the sphere asymptotically or in distribution).
    Unit,
}

/// A linear map `W: R^d -> R^N` applied to blocks of row vectors.
///
/// Contract: for every `x` (`b x d`) and `y` (`b x N`), row by row,
/// `<apply(x), y> = <x, apply_adjoint(y)>` (the adjoint is the exact transpose, up to rounding);
/// both write every entry of `out` (no accumulation) and neither allocates once the workspace's
/// buffers have grown. Rows are row-major `f64`; `scale` multiplies the result.
pub trait LinearOp: Send + Sync + std::fmt::Debug {
    /// Input dimension `d`.
    fn dim_in(&self) -> usize;
    /// Output dimension `N` (the number of projections).
    fn dim_out(&self) -> usize;
    /// `out = scale * X W^T`: each of the `b` rows of `x` (`b x d`) projected, into `out` (`b x N`).
    fn apply(&self, x: &[f64], scale: f64, out: &mut [f64], ws: &mut Workspace);
    /// `out = scale * Y W`: the adjoint applied to each of the `b` rows of `y` (`b x N`), into
    /// `out` (`b x d`).
    fn apply_adjoint(&self, y: &[f64], scale: f64, out: &mut [f64], ws: &mut Workspace);
    /// Gaussian or unit directions (default Gaussian).
    fn directions(&self) -> Directions {
        Directions::Gaussian
    }
    /// The dimension of the sphere unit directions lie on (the input dimension unless the
    /// construction pads it, as SSF pads an odd `d`); the feature map draws radii from `chi` of it.
    fn sphere_dim(&self) -> usize {
        self.dim_in()
    }
    /// The concrete type, for callers that need its own accessors (e.g. SSF's frequencies).
    fn as_any(&self) -> &dyn Any;
}

/// Per-thread buffers of [`LinearOp`] implementations: one value of each type an implementation
/// asks for, made on first use and reused after, so applying an operator allocates nothing once
/// the buffers have grown. Any implementation can keep its own scratch type here.
#[derive(Default)]
pub struct Workspace {
    slots: Vec<Box<dyn Any + Send>>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace").field("slots", &self.slots.len()).finish()
    }
}

impl Workspace {
    /// The buffer of type `T` (made with `T::default()` the first time).
    pub fn get<T: Default + Send + 'static>(&mut self) -> &mut T {
        let i = match self.slots.iter().position(|s| s.is::<T>()) {
            Some(i) => i,
            None => {
                self.slots.push(Box::new(T::default()));
                self.slots.len() - 1
            }
        };
        self.slots[i].downcast_mut().expect("the slot holds a T")
    }
}

/// The matrix of `op` (`N x d`, row-major: row `i` is the `i`-th direction), by applying it to
/// the unit vectors: for tests, benchmarks and callers that want the dense form of a structured
/// operator (e.g. a small `B` used in a tensor library).
pub fn dense_rows(op: &dyn LinearOp) -> Vec<f64> {
    let (d, n) = (op.dim_in(), op.dim_out());
    let mut w = vec![0.0; n * d];
    let (mut e, mut col) = (vec![0.0; d], vec![0.0; n]);
    let mut ws = Workspace::default();
    for j in 0..d {
        e.iter_mut().enumerate().for_each(|(i, v)| *v = if i == j { 1.0 } else { 0.0 });
        op.apply(&e, 1.0, &mut col, &mut ws);
        for (i, v) in col.iter().enumerate() {
            w[i * d + j] = *v;
        }
    }
    w
}

/// Applies `f(row, out_row)` to each row of `input` (rows of `n_in`) and its row of `out` (rows of
/// `n_out`), after the shape checks of [`rows`]: the loop of operators applied row by row.
pub(crate) fn row_by_row(input: &[f64], n_in: usize, out: &mut [f64], n_out: usize, mut f: impl FnMut(&[f64], &mut [f64])) {
    rows(input, n_in, out, n_out);
    for (row, o) in input.chunks_exact(n_in).zip(out.chunks_exact_mut(n_out)) {
        f(row, o);
    }
}

/// Checks the shapes of an `apply` (`rows_in` of `n_in`, `out` of `n_out` per row) and returns the
/// number of rows; panics on a mismatch, which is a bug of the caller (the feature maps check
/// user input before applying).
pub(crate) fn rows(input: &[f64], n_in: usize, out: &[f64], n_out: usize) -> usize {
    assert!(n_in > 0 && input.len().is_multiple_of(n_in), "input of {} values is not rows of {n_in}", input.len());
    let b = input.len() / n_in;
    assert_eq!(out.len(), b * n_out, "output of {} values for {b} rows of {n_out}", out.len());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_keeps_one_buffer_per_type() {
        let mut ws = Workspace::default();
        ws.get::<Vec<f64>>().extend([1.0, 2.0]);
        ws.get::<Vec<u8>>().push(7);
        assert_eq!(ws.get::<Vec<f64>>(), &[1.0, 2.0]);
        assert_eq!(ws.get::<Vec<u8>>(), &[7]);
        assert_eq!(ws.slots.len(), 2);
    }
}
