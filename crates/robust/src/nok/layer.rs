//! The structured layer of the neural optimization kernel (thesis sec. 7.3): with
//! `W = sqrt(d) R^T B` (7.7), `B` a `d x N` matrix with unit columns and `B B^T = (N/d) I_d`, and
//! `R` orthogonal, one layer is the proximal-gradient step (7.9)
//!
//! `y_{t+1} = h(W^T x + (I_N - W^T W / N) y_t)`, `y_0 = 0`,
//!
//! on the objective (7.8) `Q(y) = 1/2 ||x - W y / N||^2 + (1/N) sum_i phi(y_i)`, which it never
//! increases (Thm 23). `B` is any [`LinearOp`] whose rows are `B`'s columns (`apply` is `B^T`,
//! `apply_adjoint` is `B`), so a structured `B` (SSF's FFT, thesis Thm 20) costs `O(N log N)`
//! per step and a dense one `O(N d)`.
//!
//! **Codes narrower than the input (`N < d`).** The thesis takes `N >= d`, where `W W^T / N = I_d`
//! makes `P = W^T W / N` an orthogonal projection, so (7.9) is a proximal-gradient step of length
//! `1 / L` with `L = ||W^T W / N|| = 1` and Thm 23 applies. A `d x N` matrix with `N < d` cannot
//! have `B B^T` proportional to `I_d`; its tight-frame counterpart has orthonormal columns,
//! `B^T B = I_N` (the first `N` columns of a Haar rotation). With `W = sqrt(d) R^T B` that would
//! give `W^T W / N = (d/N) I_N`, a step `d/N` times too long (the iteration diverges for
//! `d > 2N`). So the layer scales `W` by `sqrt(min(d, N))`: `W = sqrt(min(d, N)) R^T B`. For
//! `N >= d` this is (7.7) unchanged; for `N < d` it gives `W^T W / N = I_N` (`W / sqrt(N)` an
//! isometry), `L = 1` again, so (7.9), Thm 23's descent and the Procrustes step (7.17) hold as
//! they are, and the reconstruction `W y / N` lies in the `N`-dimensional span of `R^T B`.

use gradfree_core::GfRng;
use gradfree_features::projection::DenseProjection;
use gradfree_features::{LinearOp, Workspace};
use rand::RngExt;

use super::prox::Activation;
use crate::error::{Result, RobustError};

/// `W = sqrt(d) R^T B` and the activation of one block.
#[derive(Debug)]
pub struct NokLayer {
    b: Box<dyn LinearOp>,
    /// `R`, row-major `d x d`.
    r: Vec<f64>,
    act: Activation,
}

/// Per-call buffers of [`NokLayer`].
#[derive(Debug, Default)]
pub struct LayerScratch {
    rx: Vec<f64>,
    wy: Vec<f64>,
    back: Vec<f64>,
    resid: Vec<f64>,
    ws: Workspace,
}

/// `B = [Q_1, ..., Q_{N/d}]`, blocks of independent Haar orthogonal `d x d` matrices (thesis
/// sec. 7.3, choice (i); Yu et al. 2016): unit columns and `B B^T = (N/d) I_d`. Needs `d | N`, or
/// `N < d`: then `B` is the first `N` columns of one Haar orthogonal matrix (orthonormal columns,
/// `B^T B = I_N`; see the module doc for the layer's scaling).
pub fn block_orthogonal(d: usize, n: usize, rng: &mut GfRng) -> Result<DenseProjection> {
    if d == 0 || n == 0 || (n > d && !n.is_multiple_of(d)) {
        return Err(RobustError::invalid(
            "n_components",
            n,
            format!("an integer in 1..=d = {d} or a multiple of d, for blocks of orthogonal matrices"),
        ));
    }
    let mut rows = Vec::with_capacity(n.max(d) * d);
    for _ in 0..n.div_ceil(d) {
        rows.extend(gradfree_core::linalg::random_orthogonal(d, rng.random::<u64>()));
    }
    rows.truncate(n * d);
    DenseProjection::from_rows(rows, d).map_err(|e| RobustError::bad(e.to_string()))
}

impl NokLayer {
    /// A layer with `B` (rows: `B`'s columns, unit norm), `R = I` and activation `act`.
    pub fn new(b: Box<dyn LinearOp>, act: Activation) -> Result<Self> {
        act.check()?;
        let d = b.dim_in();
        if b.dim_out() == 0 {
            return Err(RobustError::invalid("n_components", 0, "an integer >= 1"));
        }
        let mut r = vec![0.0; d * d];
        (0..d).for_each(|i| r[i * d + i] = 1.0);
        Ok(NokLayer { b, r, act })
    }

    /// Input dimension `d`.
    pub fn dim(&self) -> usize {
        self.b.dim_in()
    }

    /// Code dimension `N`.
    pub fn width(&self) -> usize {
        self.b.dim_out()
    }

    /// `min(d, N)`: the rank of `W`, whose square root scales it (`W = sqrt(min(d, N)) R^T B`;
    /// `sqrt(d)` of eq. 7.7 when `N >= d`, see the module doc).
    pub fn rank(&self) -> usize {
        self.dim().min(self.width())
    }

    fn scale(&self) -> f64 {
        (self.rank() as f64).sqrt()
    }

    /// The activation.
    pub fn activation(&self) -> Activation {
        self.act
    }

    /// Replaces the activation (checked), keeping `B` and `R`.
    pub fn set_activation(&mut self, act: Activation) -> Result<()> {
        act.check()?;
        self.act = act;
        Ok(())
    }

    /// `R`, row-major.
    pub fn rotation(&self) -> &[f64] {
        &self.r
    }

    /// Replaces `R` (row-major `d x d`; must be orthogonal to `1e-8`).
    pub fn set_rotation(&mut self, r: Vec<f64>) -> Result<()> {
        let d = self.dim();
        if r.len() != d * d || r.iter().any(|v| !v.is_finite()) {
            return Err(RobustError::bad(format!("R must be a finite {d} x {d} matrix")));
        }
        for i in 0..d {
            for j in 0..d {
                let dot: f64 = (0..d).map(|k| r[i * d + k] * r[j * d + k]).sum();
                if (dot - if i == j { 1.0 } else { 0.0 }).abs() > 1e-8 {
                    return Err(RobustError::bad("R must be orthogonal (R R^T = I)"));
                }
            }
        }
        self.r = r;
        Ok(())
    }

    /// `out = W^T x = sqrt(min(d, N)) B^T R x` (`N` values).
    pub fn wt(&self, x: &[f64], out: &mut [f64], s: &mut LayerScratch) {
        self.inject_with(&self.r, x, out, s);
    }

    /// `out = W y = sqrt(min(d, N)) R^T B y` (`d` values).
    pub fn w(&self, y: &[f64], out: &mut [f64], s: &mut LayerScratch) {
        let d = self.dim();
        s.back.resize(d, 0.0);
        self.b.apply_adjoint(y, self.scale(), &mut s.back, &mut s.ws);
        for (j, o) in out.iter_mut().enumerate().take(d) {
            *o = (0..d).map(|i| self.r[i * d + j] * s.back[i]).sum();
        }
    }

    /// One step (7.9): `y_next = h(W^T x + y - W^T W y / N)`.
    pub fn step(&self, x: &[f64], y: &[f64], y_next: &mut [f64], s: &mut LayerScratch) {
        let (d, n) = (self.dim(), self.width());
        let mut wy = std::mem::take(&mut s.wy);
        wy.resize(d, 0.0);
        self.w(y, &mut wy, s);
        // W^T (x - W y / N) + y, then h.
        let mut resid = std::mem::take(&mut s.resid);
        resid.clear();
        resid.extend(x.iter().zip(&wy).map(|(a, b)| a - b / n as f64));
        self.wt(&resid, y_next, s);
        for (o, yi) in y_next.iter_mut().zip(y) {
            *o = self.act.prox(*o + yi);
        }
        s.wy = wy;
        s.resid = resid;
    }

    /// The input injection `c = W^T x` of one layer (`N` values): the only place `R` enters a
    /// step, since `W^T W = d B^T B` does not depend on `R` (thesis sec. 7.5). Computed once per
    /// input and rotation, `O(d^2)` for the rotation plus `B^T`'s cost.
    pub fn inject(&self, x: &[f64], c: &mut [f64], s: &mut LayerScratch) {
        self.wt(x, c, s);
    }

    /// [`NokLayer::inject`] with the rotation `r` (row-major `d x d`, orthogonal) in place of the
    /// layer's: `c = sqrt(min(d, N)) B^T r x`. Lets one `B` serve the phases of a block.
    pub fn inject_with(&self, r: &[f64], x: &[f64], c: &mut [f64], s: &mut LayerScratch) {
        let d = self.dim();
        s.rx.clear();
        s.rx.extend((0..d).map(|i| r[i * d..(i + 1) * d].iter().zip(x).map(|(a, b)| a * b).sum::<f64>()));
        self.b.apply(&s.rx, self.scale(), c, &mut s.ws);
    }

    /// One step (7.9) from the injection `c = W^T x`: `y_next = h(c + y - (min(d, N)/N) B^T B y)`, at
    /// `B`'s cost only: `O(N log N)` for the Fourier structure, `O(N d)` for a dense `B`.
    pub fn step_injected(&self, c: &[f64], y: &[f64], y_next: &mut [f64], s: &mut LayerScratch) {
        self.gram(y, y_next, s);
        for ((o, ci), yi) in y_next.iter_mut().zip(c).zip(y) {
            *o = self.act.prox(ci + yi - *o);
        }
    }

    /// The backward pass of [`NokLayer::step_injected`] (its vector-Jacobian product): with
    /// `z = c + y - (d/N) B^T B y` and `y_next = h(z)`, the gradient `g` of a loss in `y_next`
    /// gives `u = h'(z) g` as the gradient in `c`, and `(I - (d/N) B^T B) u` (the operator is
    /// symmetric) as the gradient in `y`. Recomputes `z` (one forward product) and applies
    /// `B^T B` once more, so a backward step costs two forward steps: `O(N log N)` for the
    /// Fourier structure, `O(N d)` for a dense `B`.
    pub fn step_injected_vjp(&self, c: &[f64], y: &[f64], g: &[f64], grad_c: &mut [f64], grad_y: &mut [f64], s: &mut LayerScratch) {
        self.gram(y, grad_c, s);
        for (((u, ci), yi), gi) in grad_c.iter_mut().zip(c).zip(y).zip(g) {
            *u = self.act.prox_derivative(ci + yi - *u) * gi;
        }
        self.gram(grad_c, grad_y, s);
        for (gy, u) in grad_y.iter_mut().zip(grad_c.iter()) {
            *gy = u - *gy;
        }
    }

    /// `out = W^T W v / N = (min(d, N)/N) B^T B v` (`R` cancels), at `B`'s cost.
    fn gram(&self, v: &[f64], out: &mut [f64], s: &mut LayerScratch) {
        let (d, n) = (self.dim(), self.width());
        s.back.resize(d, 0.0);
        self.b.apply_adjoint(v, 1.0, &mut s.back, &mut s.ws);
        self.b.apply(&s.back, self.rank() as f64 / n as f64, out, &mut s.ws);
    }

    /// The reconstruction `W y / N = (sqrt(min(d, N)) / N) R^T B y` (`d` values): the block's denoised
    /// input.
    pub fn reconstruct(&self, y: &[f64], out: &mut [f64], s: &mut LayerScratch) {
        self.w(y, out, s);
        let n = self.width() as f64;
        out.iter_mut().for_each(|v| *v /= n);
    }

    /// `B^T` as an operator (rows: `B`'s columns).
    pub fn basis(&self) -> &dyn LinearOp {
        self.b.as_ref()
    }

    /// The objective (7.8) at `y`.
    pub fn objective(&self, x: &[f64], y: &[f64], s: &mut LayerScratch) -> f64 {
        let (d, n) = (self.dim(), self.width());
        let mut wy = vec![0.0; d];
        self.w(y, &mut wy, s);
        let fit: f64 = x.iter().zip(&wy).map(|(a, b)| (a - b / n as f64).powi(2)).sum::<f64>() / 2.0;
        fit + y.iter().map(|v| self.act.phi(*v)).sum::<f64>() / n as f64
    }

    /// `T` steps from `y_0 = 0`: the code `y_T` of `x` and the objective after each step.
    pub fn encode(&self, x: &[f64], layers: usize, s: &mut LayerScratch) -> Result<(Vec<f64>, Vec<f64>)> {
        if x.len() != self.dim() {
            return Err(RobustError::bad(format!("x has {} values; the layer takes d = {}", x.len(), self.dim())));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(RobustError::bad(format!("x[{i}] = {}: inputs must be finite", x[i])));
        }
        let n = self.width();
        let (mut y, mut next) = (vec![0.0; n], vec![0.0; n]);
        let mut trace = Vec::with_capacity(layers);
        for _ in 0..layers {
            self.step(x, &y, &mut next, s);
            std::mem::swap(&mut y, &mut next);
            trace.push(self.objective(x, &y, s));
        }
        Ok((y, trace))
    }

    /// The unsupervised R-step (7.16-7.17), orthogonal Procrustes: with the codes `ys` (`n x N`,
    /// row-major) of the rows `xs` (`n x d`) fixed, the orthogonal `R` minimizing
    /// `1/2 sum_k ||x_k - (s/N) R^T B y_k||^2` (`s = sqrt(min(d, N))`, `sqrt(d)` in the thesis)
    /// is `R = U V^T` from the SVD `(s/N) B Y X^T = U Gamma V^T`. Replaces `R`; the objective
    /// never increases.
    pub fn procrustes_step(&mut self, xs: &[f64], ys: &[f64], s: &mut LayerScratch) -> Result<()> {
        let (d, n) = (self.dim(), self.width());
        let rows = xs.len() / d;
        if xs.len() != rows * d || ys.len() != rows * n || rows == 0 {
            return Err(RobustError::bad(format!(
                "{} inputs and {} code values do not make rows of d = {d} and N = {n}",
                xs.len(),
                ys.len()
            )));
        }
        // Z = (s/N) Y B^T (rows: B y_k), then M = Z^T X (d x d).
        let mut z = vec![0.0; rows * d];
        self.b.apply_adjoint(ys, self.scale() / n as f64, &mut z, &mut s.ws);
        let mut m = vec![0.0; d * d];
        faer::linalg::matmul::matmul(
            faer::MatMut::from_row_major_slice_mut(&mut m, d, d),
            faer::Accum::Replace,
            faer::MatRef::from_row_major_slice(&z, rows, d).transpose(),
            faer::MatRef::from_row_major_slice(xs, rows, d),
            1.0,
            faer::Par::Seq,
        );
        if m.iter().any(|v| !v.is_finite()) {
            return Err(RobustError::bad("the Procrustes matrix is not finite"));
        }
        let svd = faer::Mat::from_fn(d, d, |i, j| m[i * d + j]).svd().map_err(|e| RobustError::bad(format!("SVD failed: {e:?}")))?;
        let (u, v) = (svd.U(), svd.V());
        let mut r = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..d {
                r[i * d + j] = (0..d).map(|k| u[(i, k)] * v[(j, k)]).sum();
            }
        }
        // R maximizes tr(R^T M): the layer uses R as W = sqrt(d) R^T B.
        self.r = r;
        Ok(())
    }
}
