//! Two-dimensional convolution (NCHW, one group, no dilation) and its two gradients as matrix
//! products on `f32` slices, the lowering of Chellapilla, Puri and Simard (2006), *High
//! performance convolutional neural networks for document processing*: with `col = im2col(x_n)`
//! the `K x P` matrix of input patches of image `n` (`K = C_in kh kw`, `P = H_out W_out`),
//!
//! - forward: `y_n = W col_n + b` (`W` is `C_out x K`), one product per image;
//! - weight gradient: `dW = sum_n dy_n col_n^T` (`C_out x P` by `P x K`), one product split on
//!   its inner dimension `N P` into groups of [`GROUP`] images, summed in a fixed order;
//! - bias gradient: `db = sum_n dy_n 1`;
//! - input gradient: `dx_n = col2im(W^T dy_n)`, one product per image and the adjoint of im2col.
//!
//! Images are spread over rayon's threads; every image's arithmetic, and the order of the group
//! sums, is the same whatever the thread count, so results are bit-identical at 1 and 2 threads.
//! The products run on faer, whose kernels pick AVX-512 or AVX2 at run time. The patch matrices
//! live in one buffer per thread, reused from batch to batch.

use std::cell::RefCell;

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

use super::pool;

/// Images per partial sum of the weight and bias gradients (fixed: the sums' order must not
/// depend on the thread count).
pub const GROUP: usize = 8;

/// The shape of one convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeom {
    /// Batch size.
    pub n: usize,
    /// Input channels.
    pub ci: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output channels.
    pub co: usize,
    /// Kernel height.
    pub kh: usize,
    /// Kernel width.
    pub kw: usize,
    /// Stride (rows, columns).
    pub stride: [usize; 2],
    /// Zero padding (rows, columns), on both sides.
    pub pad: [usize; 2],
}

impl ConvGeom {
    /// Output height, `(h + 2 p - kh) / s + 1` (0 if the kernel does not fit).
    pub fn ho(&self) -> usize {
        (self.h + 2 * self.pad[0]).checked_sub(self.kh).map_or(0, |r| r / self.stride[0] + 1)
    }

    /// Output width.
    pub fn wo(&self) -> usize {
        (self.w + 2 * self.pad[1]).checked_sub(self.kw).map_or(0, |r| r / self.stride[1] + 1)
    }

    /// Rows of the patch matrix, `C_in kh kw`.
    pub fn k(&self) -> usize {
        self.ci * self.kh * self.kw
    }

    /// Columns of the patch matrix, `H_out W_out`.
    pub fn p(&self) -> usize {
        self.ho() * self.wo()
    }

    /// The columns `ox` in `0..wo` whose input column `ox s + j - p` lies inside the image, for
    /// kernel column `j`.
    fn cols(&self, j: usize) -> (usize, usize) {
        valid(self.w, self.wo(), self.stride[1], self.pad[1], j)
    }

    /// Same for rows.
    fn rows(&self, i: usize) -> (usize, usize) {
        valid(self.h, self.ho(), self.stride[0], self.pad[0], i)
    }
}

/// The range `lo..hi` of outputs `o` with `0 <= o s + k - p < len`.
fn valid(len: usize, out: usize, s: usize, p: usize, k: usize) -> (usize, usize) {
    // o s + k >= p  <=>  o >= ceil((p - k) / s)
    let lo = if k >= p { 0 } else { (p - k).div_ceil(s) };
    // o s + k - p <= len - 1  <=>  o <= (len - 1 + p - k) / s
    let hi = if len + p > k { ((len - 1 + p - k) / s + 1).min(out) } else { 0 };
    (lo.min(hi), hi)
}

/// A thread's working buffers, reused across calls: the patch matrix of the image it is on
/// and that image's convolution output (or output gradient) before pooling.
#[derive(Default)]
struct Scratch {
    col: Vec<f32>,
    y: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's buffers, grown to `col` and `y` entries (their contents are
/// stale: callers overwrite every entry they read).
fn with_scratch<R>(col: usize, y: usize, f: impl FnOnce(&mut [f32], &mut [f32]) -> R) -> R {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let s = &mut *s;
        if s.col.len() < col {
            s.col.resize(col, 0.0);
        }
        if s.y.len() < y {
            s.y.resize(y, 0.0);
        }
        f(&mut s.col[..col], &mut s.y[..y])
    })
}

/// The sum of `v`, over eight interleaved partial sums (vectorizes; the order is fixed).
fn sum(v: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    let tail: f32 = chunks.remainder().iter().sum();
    acc.iter().sum::<f32>() + tail
}

/// `col = im2col(x)` for one image `x` (`C_in x H x W`): `col` is `K x P`, row `(c, i, j)` holding
/// `x[c, oy s + i - p, ox s + j - p]` at column `oy W_out + ox` (0 outside the image).
pub fn im2col(g: &ConvGeom, x: &[f32], col: &mut [f32]) {
    let (ho, wo) = (g.ho(), g.wo());
    let (sy, sx) = (g.stride[0], g.stride[1]);
    let mut rows = col.chunks_exact_mut(ho * wo);
    for c in 0..g.ci {
        let plane = &x[c * g.h * g.w..(c + 1) * g.h * g.w];
        for i in 0..g.kh {
            let (ylo, yhi) = g.rows(i);
            for j in 0..g.kw {
                let row = rows.next().expect("K rows");
                let (xlo, xhi) = g.cols(j);
                row[..ylo * wo].fill(0.0);
                row[yhi * wo..].fill(0.0);
                for oy in ylo..yhi {
                    let src = &plane[(oy * sy + i - g.pad[0]) * g.w..][..g.w];
                    let dst = &mut row[oy * wo..(oy + 1) * wo];
                    dst[..xlo].fill(0.0);
                    dst[xhi..].fill(0.0);
                    if xhi > xlo {
                        let x0 = xlo * sx + j - g.pad[1];
                        if sx == 1 {
                            dst[xlo..xhi].copy_from_slice(&src[x0..x0 + (xhi - xlo)]);
                        } else {
                            for (d, s) in dst[xlo..xhi].iter_mut().zip(src[x0..].iter().step_by(sx)) {
                                *d = *s;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The adjoint of [`im2col`]: adds each entry of `col` (`K x P`) to the pixel of `x` it was read
/// from.
pub fn col2im_add(g: &ConvGeom, col: &[f32], x: &mut [f32]) {
    let (ho, wo) = (g.ho(), g.wo());
    let (sy, sx) = (g.stride[0], g.stride[1]);
    let mut rows = col.chunks_exact(ho * wo);
    for c in 0..g.ci {
        let plane = &mut x[c * g.h * g.w..(c + 1) * g.h * g.w];
        for i in 0..g.kh {
            let (ylo, yhi) = g.rows(i);
            for j in 0..g.kw {
                let row = rows.next().expect("K rows");
                let (xlo, xhi) = g.cols(j);
                if xhi <= xlo {
                    continue;
                }
                let x0 = xlo * sx + j - g.pad[1];
                for oy in ylo..yhi {
                    let dst = &mut plane[(oy * sy + i - g.pad[0]) * g.w..][..g.w];
                    let src = &row[oy * wo + xlo..oy * wo + xhi];
                    if sx == 1 {
                        for (d, s) in dst[x0..x0 + src.len()].iter_mut().zip(src) {
                            *d += *s;
                        }
                    } else {
                        for (d, s) in dst[x0..].iter_mut().step_by(sx).zip(src) {
                            *d += *s;
                        }
                    }
                }
            }
        }
    }
}

/// `y = conv(x, W) + b`: `x` is `N x C_in x H x W`, `weight` `C_out x C_in x kh x kw`, `bias`
/// `C_out`. Returns `y` (`N x C_out x H_out x W_out`) and no winners, or with `pool`,
/// `max_pool2(relu(y))` (`N x C_out x H_out/2 x W_out/2`) and its winners
/// ([`pool::pool_plane`]), each image pooled while its output is in cache.
pub fn forward(g: &ConvGeom, x: &[f32], weight: &[f32], bias: &[f32], pool: bool) -> (Vec<f32>, Vec<u8>) {
    let (k, p, co) = (g.k(), g.p(), g.co);
    let (ho, wo) = (g.ho(), g.wo());
    let q = if pool { (ho / 2) * (wo / 2) } else { p };
    let img = g.ci * g.h * g.w;
    let mut y = vec![0.0f32; g.n * co * q];
    let mut arg = if pool { vec![pool::NONE; g.n * co * q] } else { Vec::new() };
    if q == 0 {
        return (y, arg);
    }
    let wm = MatRef::from_row_major_slice(weight, co, k);
    let one = |n: usize, out: &mut [f32], col: &mut [f32]| {
        for (row, b) in out.chunks_exact_mut(p).zip(bias) {
            row.fill(*b);
        }
        im2col(g, &x[n * img..(n + 1) * img], col);
        let dst = MatMut::from_row_major_slice_mut(out, co, p);
        matmul(dst, Accum::Add, wm, MatRef::from_row_major_slice(col, k, p), 1.0, Par::Seq);
    };
    if pool {
        y.par_chunks_mut(co * q).zip(arg.par_chunks_mut(co * q)).enumerate().for_each(|(n, (yn, an))| {
            with_scratch(k * p, co * p, |col, full| {
                one(n, full, col);
                for ((plane, yp), ap) in full.chunks_exact(p).zip(yn.chunks_exact_mut(q)).zip(an.chunks_exact_mut(q)) {
                    pool::pool_plane(plane, ho, wo, yp, ap);
                }
            });
        });
    } else {
        y.par_chunks_mut(co * p).enumerate().for_each(|(n, yn)| with_scratch(k * p, 0, |col, _| one(n, yn, col)));
    }
    (y, arg)
}

/// The gradient reaching a convolution's output: dense (`N x C_out x H_out x W_out`), or of
/// `max_pool2(relu(y))` with the winners [`forward`] recorded.
#[derive(Clone, Copy, Debug)]
pub enum OutGrad<'a> {
    /// `dL/dy`.
    Dense(&'a [f32]),
    /// `dL/dz` for `z = max_pool2(relu(y))`, and the winners.
    Pooled {
        /// `N x C_out x H_out/2 x W_out/2`.
        dz: &'a [f32],
        /// From [`forward`] with `pool`.
        arg: &'a [u8],
    },
}

/// The gradients of a convolution: the input's (when asked for), the weight's and the bias's
/// (empty when not asked for).
#[derive(Clone, Debug, Default)]
pub struct ConvGrads {
    /// `dL/dx`, `N x C_in x H x W`.
    pub dx: Option<Vec<f32>>,
    /// `dL/dW`, `C_out x C_in x kh x kw`.
    pub dw: Vec<f32>,
    /// `dL/db`, `C_out`.
    pub db: Vec<f32>,
}

/// All gradients in one pass over the images, in groups of [`GROUP`]: per image, the output
/// gradient (read, or scattered from the pooled one into a buffer in cache), then
/// `dW += dy_n col_n^T` and `db += dy_n 1` into the group's partial sums, and
/// `dx_n = col2im(W^T dy_n)`. The partial sums are added in group order.
pub fn backward(g: &ConvGeom, x: &[f32], weight: &[f32], grad: OutGrad, want_x: bool, want_w: bool) -> ConvGrads {
    let (k, p, co) = (g.k(), g.p(), g.co);
    let (ho, wo) = (g.ho(), g.wo());
    let img = g.ci * g.h * g.w;
    let mut dx = if want_x { vec![0.0f32; g.n * img] } else { Vec::new() };
    if p == 0 || !(want_x || want_w) {
        let wd = if want_w { co * k } else { 0 };
        return ConvGrads { dx: want_x.then_some(dx), dw: vec![0.0; wd], db: vec![0.0; if want_w { co } else { 0 }] };
    }
    let wt = MatRef::from_row_major_slice(weight, co, k).transpose();
    let group = |gi: usize, mut dxg: Option<&mut [f32]>| -> (Vec<f32>, Vec<f32>) {
        let (mut dw, mut db) = if want_w { (vec![0.0f32; co * k], vec![0.0f32; co]) } else { (Vec::new(), Vec::new()) };
        for n in gi * GROUP..((gi + 1) * GROUP).min(g.n) {
            let pooled = matches!(grad, OutGrad::Pooled { .. });
            with_scratch(k * p, if pooled { co * p } else { 0 }, |col, buf| {
                let dyn_: &[f32] = match grad {
                    OutGrad::Dense(dy) => &dy[n * co * p..(n + 1) * co * p],
                    OutGrad::Pooled { dz, arg } => {
                        let q = (ho / 2) * (wo / 2);
                        let (dz, arg) = (&dz[n * co * q..(n + 1) * co * q], &arg[n * co * q..(n + 1) * co * q]);
                        if q == 0 {
                            buf.fill(0.0);
                        }
                        for ((plane, d), a) in buf.chunks_exact_mut(p).zip(dz.chunks_exact(q.max(1))).zip(arg.chunks_exact(q.max(1))) {
                            pool::unpool_plane(d, a, ho, wo, plane);
                        }
                        buf
                    }
                };
                let dym = MatRef::from_row_major_slice(dyn_, co, p);
                if want_w {
                    for (d, row) in db.iter_mut().zip(dyn_.chunks_exact(p)) {
                        *d += sum(row);
                    }
                    im2col(g, &x[n * img..(n + 1) * img], col);
                    let dst = MatMut::from_row_major_slice_mut(&mut dw, co, k);
                    matmul(dst, Accum::Add, dym, MatRef::from_row_major_slice(col, k, p).transpose(), 1.0, Par::Seq);
                }
                if let Some(dxg) = dxg.as_deref_mut() {
                    let dst = MatMut::from_row_major_slice_mut(col, k, p);
                    matmul(dst, Accum::Replace, wt, dym, 1.0, Par::Seq);
                    let local = n - gi * GROUP;
                    col2im_add(g, col, &mut dxg[local * img..(local + 1) * img]);
                }
            });
        }
        (dw, db)
    };
    let partial: Vec<(Vec<f32>, Vec<f32>)> = if want_x {
        dx.par_chunks_mut(GROUP * img).enumerate().map(|(gi, dxg)| group(gi, Some(dxg))).collect()
    } else {
        (0..g.n.div_ceil(GROUP)).into_par_iter().map(|gi| group(gi, None)).collect()
    };
    let (mut dw, mut db) = if want_w { (vec![0.0f32; co * k], vec![0.0f32; co]) } else { (Vec::new(), Vec::new()) };
    for (pw, pb) in &partial {
        dw.iter_mut().zip(pw).for_each(|(a, b)| *a += b);
        db.iter_mut().zip(pb).for_each(|(a, b)| *a += b);
    }
    ConvGrads { dx: want_x.then_some(dx), dw, db }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The convolution by its definition, for reference.
    fn naive(g: &ConvGeom, x: &[f32], w: &[f32], b: &[f32]) -> Vec<f32> {
        let (ho, wo) = (g.ho(), g.wo());
        let mut y = vec![0.0f32; g.n * g.co * ho * wo];
        for n in 0..g.n {
            for o in 0..g.co {
                for oy in 0..ho {
                    for ox in 0..wo {
                        let mut s = b[o] as f64;
                        for c in 0..g.ci {
                            for i in 0..g.kh {
                                for j in 0..g.kw {
                                    let iy = (oy * g.stride[0] + i) as isize - g.pad[0] as isize;
                                    let ix = (ox * g.stride[1] + j) as isize - g.pad[1] as isize;
                                    if iy < 0 || ix < 0 || iy >= g.h as isize || ix >= g.w as isize {
                                        continue;
                                    }
                                    let xv = x[((n * g.ci + c) * g.h + iy as usize) * g.w + ix as usize];
                                    s += xv as f64 * w[((o * g.ci + c) * g.kh + i) * g.kw + j] as f64;
                                }
                            }
                        }
                        y[((n * g.co + o) * ho + oy) * wo + ox] = s as f32;
                    }
                }
            }
        }
        y
    }

    fn data(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
            })
            .collect()
    }

    fn geoms() -> Vec<ConvGeom> {
        let g = |n, ci, h, w, co, kh, kw, s: [usize; 2], p: [usize; 2]| ConvGeom { n, ci, h, w, co, kh, kw, stride: s, pad: p };
        vec![
            g(3, 1, 7, 7, 4, 3, 3, [1, 1], [1, 1]),
            g(2, 3, 6, 5, 2, 3, 2, [2, 1], [1, 0]),
            g(1, 2, 9, 11, 3, 5, 3, [3, 2], [2, 1]),
            g(GROUP + 3, 2, 4, 4, 5, 1, 1, [1, 1], [0, 0]),
            g(2, 1, 3, 3, 1, 3, 3, [1, 1], [2, 2]),
            g(1, 1, 2, 2, 1, 3, 3, [1, 1], [0, 0]),
        ]
    }

    #[test]
    fn forward_is_the_definition() {
        for g in geoms() {
            let x = data(g.n * g.ci * g.h * g.w, 1);
            let w = data(g.co * g.k(), 2);
            let b = data(g.co, 3);
            let (y, _) = forward(&g, &x, &w, &b, false);
            let r = naive(&g, &x, &w, &b);
            assert_eq!(y.len(), r.len(), "{g:?}");
            for (a, e) in y.iter().zip(&r) {
                assert!((a - e).abs() <= 1e-5 * (1.0 + e.abs()), "{g:?}: {a} vs {e}");
            }
        }
    }

    /// `<dy, conv(x)> ` is linear in `x` and in `W`: the gradients are the adjoints, checked as
    /// `<dy, y(e_i)> = dx_i` entry by entry on small shapes.
    #[test]
    fn gradients_are_the_adjoints() {
        for g in geoms() {
            let x = data(g.n * g.ci * g.h * g.w, 4);
            let w = data(g.co * g.k(), 5);
            let dy = data(g.n * g.co * g.p(), 6);
            let zb = vec![0.0f32; g.co];
            let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum::<f64>();
            let all = backward(&g, &x, &w, OutGrad::Dense(&dy), true, true);
            let (dx, dw, db) = (all.dx.unwrap(), all.dw, all.db);
            for i in 0..x.len() {
                let mut e = vec![0.0f32; x.len()];
                e[i] = 1.0;
                let want = dot(&dy, &naive(&g, &e, &w, &zb));
                assert!((dx[i] as f64 - want).abs() < 1e-5, "{g:?} dx[{i}]: {} vs {want}", dx[i]);
            }
            for i in 0..w.len() {
                let mut e = vec![0.0f32; w.len()];
                e[i] = 1.0;
                let want = dot(&dy, &naive(&g, &x, &e, &zb));
                assert!((dw[i] as f64 - want).abs() < 1e-4, "{g:?} dW[{i}]: {} vs {want}", dw[i]);
            }
            for o in 0..g.co {
                let mut e = vec![0.0f32; g.co];
                e[o] = 1.0;
                let want = dot(&dy, &naive(&g, &vec![0.0; x.len()], &vec![0.0; w.len()], &e));
                assert!((db[o] as f64 - want).abs() < 1e-4, "{g:?} db[{o}]");
            }
        }
    }

    /// The fused pass equals the convolution followed by [`pool::forward`], and its gradients
    /// equal the dense ones of the unpooled output gradient.
    #[test]
    fn pooled_pass_equals_conv_then_pool() {
        for g in geoms() {
            let x = data(g.n * g.ci * g.h * g.w, 7);
            let w = data(g.co * g.k(), 8);
            let b = data(g.co, 9);
            let (y, _) = forward(&g, &x, &w, &b, false);
            let (ho, wo) = (g.ho(), g.wo());
            let (z, arg) = pool::forward(&y, g.n * g.co, ho, wo);
            let (zf, argf) = forward(&g, &x, &w, &b, true);
            assert_eq!(arg, argf, "{g:?}");
            assert_eq!(z, zf, "{g:?}");
            let dz = data(z.len(), 10);
            let dy = pool::backward(&dz, &arg, g.n * g.co, ho, wo);
            let dense = backward(&g, &x, &w, OutGrad::Dense(&dy), true, true);
            let pooled = backward(&g, &x, &w, OutGrad::Pooled { dz: &dz, arg: &arg }, true, true);
            assert_eq!(dense.dx, pooled.dx, "{g:?}");
            assert_eq!(dense.dw, pooled.dw, "{g:?}");
            assert_eq!(dense.db, pooled.db, "{g:?}");
            let only_w = backward(&g, &x, &w, OutGrad::Pooled { dz: &dz, arg: &arg }, false, true);
            assert!(only_w.dx.is_none());
            assert_eq!(only_w.dw, dense.dw);
        }
    }
}
