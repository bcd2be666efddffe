//! A dense layer `y = x W + b` (optionally followed by ReLU) and its gradients on `f32` slices,
//! with burn's layout (`x`: `n x d_in` rows, `W`: `d_in x d_out`, `b`: `d_out`):
//!
//! - forward: `y = x W + b`, in blocks of exactly [`ROWS`] rows of `x` (the last one padded);
//! - input gradient: `dx = dy W^T`, in blocks of [`ROWS`] rows;
//! - weight gradient: `dW = x^T dy`, in blocks of [`ROWS`] rows of `dW` (columns of `x`);
//!
//! (backward products under [`SPLIT_FROM`] multiply-adds in one block);
//! - bias gradient: `db = 1^T dy`, row by row in order.
//!
//! The blocks are spread over rayon's threads. Each block is one product whose shape does not
//! depend on the thread count, so results are bit-identical at 1 and 2 threads; a 128-row batch
//! makes two blocks, one per core (burn's single product of 128 rows ran on one).

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Rows per block.
pub const ROWS: usize = 64;

/// Products below this many multiply-adds run as one block (splitting costs more than it saves).
pub const SPLIT_FROM: usize = 1 << 20;

/// The rows per block for a product of `rows x inner x cols` (from the shape alone, never the
/// thread count).
fn block(rows: usize, inner: usize, cols: usize) -> usize {
    if rows * inner * cols < SPLIT_FROM { rows.max(1) } else { ROWS }
}

/// `y = x W + b` for `n` rows, then ReLU if `relu`. Every block is one product of exactly
/// [`ROWS`] rows (the last one zero-padded), so a row's output does not depend on which other
/// rows share its batch (scikit-learn's subset invariance: predicting a subset gives the same
/// bits as predicting all rows).
pub fn forward(x: &[f32], w: &[f32], b: &[f32], n: usize, din: usize, dout: usize, relu: bool) -> Vec<f32> {
    let mut y = vec![0.0f32; n * dout];
    if dout == 0 {
        return y;
    }
    let wm = MatRef::from_row_major_slice(w, din, dout);
    y.par_chunks_mut(ROWS * dout).enumerate().for_each(|(c, yc)| {
        let rows = yc.len() / dout;
        let xc = &x[c * ROWS * din..][..rows * din];
        let product = |xs: &[f32], ys: &mut [f32]| {
            for row in ys.chunks_exact_mut(dout) {
                row.copy_from_slice(b);
            }
            let xm = MatRef::from_row_major_slice(xs, ROWS, din);
            matmul(MatMut::from_row_major_slice_mut(ys, ROWS, dout), Accum::Add, xm, wm, 1.0, Par::Seq);
        };
        if rows == ROWS {
            product(xc, yc);
        } else {
            let mut xs = vec![0.0f32; ROWS * din];
            xs[..rows * din].copy_from_slice(xc);
            let mut ys = vec![0.0f32; ROWS * dout];
            product(&xs, &mut ys);
            yc.copy_from_slice(&ys[..rows * dout]);
        }
        if relu {
            yc.iter_mut().for_each(|v| *v = v.max(0.0));
        }
    });
    y
}

/// The gradients `(dx, dW, db)` of a dense layer from its input `x` and output gradient `dy`
/// (with `relu_out`, the layer's output after ReLU, whose zeros mask `dy`); `dx` only if
/// `want_x`, `dW` and `db` empty unless `want_w`.
#[allow(clippy::too_many_arguments)]
pub fn backward(
    x: &[f32],
    w: &[f32],
    dy: &[f32],
    relu_out: Option<&[f32]>,
    (n, din, dout): (usize, usize, usize),
    want_x: bool,
    want_w: bool,
) -> (Option<Vec<f32>>, Vec<f32>, Vec<f32>) {
    let masked: Vec<f32>;
    let dy = match relu_out {
        Some(y) => {
            let mut m = vec![0.0f32; dy.len()];
            m.par_chunks_mut(ROWS * dout.max(1)).zip(dy.par_chunks(ROWS * dout.max(1))).zip(y.par_chunks(ROWS * dout.max(1))).for_each(
                |((m, d), y)| {
                    for ((m, d), y) in m.iter_mut().zip(d).zip(y) {
                        *m = if *y > 0.0 { *d } else { 0.0 };
                    }
                },
            );
            masked = m;
            &masked[..]
        }
        None => dy,
    };
    let dx = want_x.then(|| {
        let mut dx = vec![0.0f32; n * din];
        if din > 0 {
            let wt = MatRef::from_row_major_slice(w, din, dout).transpose();
            let r = block(n, dout, din);
            dx.par_chunks_mut(r * din).enumerate().for_each(|(c, dxc)| {
                let rows = dxc.len() / din;
                let dyc = MatRef::from_row_major_slice(&dy[c * r * dout..][..rows * dout], rows, dout);
                matmul(MatMut::from_row_major_slice_mut(dxc, rows, din), Accum::Replace, dyc, wt, 1.0, Par::Seq);
            });
        }
        dx
    });
    if !want_w {
        return (dx, Vec::new(), Vec::new());
    }
    let mut dw = vec![0.0f32; din * dout];
    if dout > 0 {
        let xm = MatRef::from_row_major_slice(x, n, din);
        let dym = MatRef::from_row_major_slice(dy, n, dout);
        let r = block(din, n, dout);
        dw.par_chunks_mut(r * dout).enumerate().for_each(|(c, dwc)| {
            let rows = dwc.len() / dout;
            let xt = xm.subcols(c * r, rows).transpose();
            matmul(MatMut::from_row_major_slice_mut(dwc, rows, dout), Accum::Replace, xt, dym, 1.0, Par::Seq);
        });
    }
    let mut db = vec![0.0f32; dout];
    for row in dy.chunks_exact(dout.max(1)) {
        db.iter_mut().zip(row).for_each(|(a, v)| *a += v);
    }
    (dx, dw, db)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_definition_across_blocks() {
        let (n, din, dout) = (ROWS * 2 + 5, ROWS + 3, 130);
        let val = |i: usize, s: f32| ((i as f32 * 0.37 + s).sin() * 2.0).round() / 4.0;
        let x: Vec<f32> = (0..n * din).map(|i| val(i, 0.1)).collect();
        let w: Vec<f32> = (0..din * dout).map(|i| val(i, 0.7)).collect();
        let b: Vec<f32> = (0..dout).map(|i| val(i, 1.3)).collect();
        let dy: Vec<f32> = (0..n * dout).map(|i| val(i, 2.9)).collect();
        let y = forward(&x, &w, &b, n, din, dout, false);
        let yr = forward(&x, &w, &b, n, din, dout, true);
        for r in 0..n {
            for j in 0..dout {
                let want = b[j] + (0..din).map(|i| x[r * din + i] * w[i * dout + j]).sum::<f32>();
                assert_eq!(y[r * dout + j], want);
                assert_eq!(yr[r * dout + j], want.max(0.0));
            }
        }
        let (dx, dw, db) = backward(&x, &w, &dy, Some(&yr), (n, din, dout), true, true);
        let dx = dx.unwrap();
        let m: Vec<f32> = dy.iter().zip(&yr).map(|(d, y)| if *y > 0.0 { *d } else { 0.0 }).collect();
        for r in 0..n {
            for i in 0..din {
                assert_eq!(dx[r * din + i], (0..dout).map(|j| m[r * dout + j] * w[i * dout + j]).sum::<f32>());
            }
        }
        for i in 0..din {
            for j in 0..dout {
                assert_eq!(dw[i * dout + j], (0..n).map(|r| x[r * din + i] * m[r * dout + j]).sum::<f32>());
            }
        }
        for j in 0..dout {
            assert_eq!(db[j], (0..n).map(|r| m[r * dout + j]).sum::<f32>());
        }
    }

    /// A row's output is the same bits whichever rows share its batch.
    #[test]
    fn rows_do_not_depend_on_their_batch() {
        let (n, din, dout) = (3 * ROWS + 9, 300, 40);
        let x: Vec<f32> = (0..n * din).map(|i| (i as f32 * 0.713).sin()).collect();
        let w: Vec<f32> = (0..din * dout).map(|i| (i as f32 * 0.291).cos() / 17.0).collect();
        let b: Vec<f32> = (0..dout).map(|i| i as f32 / 7.0).collect();
        let all = forward(&x, &w, &b, n, din, dout, true);
        for (from, len) in [(0, 1), (5, 17), (ROWS - 3, ROWS + 7), (2 * ROWS + 1, ROWS)] {
            let part = forward(&x[from * din..(from + len) * din], &w, &b, len, din, dout, true);
            assert_eq!(part, all[from * dout..(from + len) * dout], "rows {from}..{}", from + len);
        }
    }
}
