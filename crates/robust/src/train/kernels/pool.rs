//! ReLU followed by 2 x 2 max-pooling of stride 2 (no padding; an odd last row or column is
//! dropped, as `floor` pooling does), in one pass: `relu(max(window)) = max(relu(window))`, and
//! the gradient reaches the window's largest entry when that entry is positive. The pass records,
//! per output, which of the four entries won (or none), so the backward pass is one scatter.

use rayon::prelude::*;

/// The marker of an output whose window had no positive entry (its gradient is zero).
pub const NONE: u8 = 4;

/// Pools one plane `x` (`h x w`) into `y` (`h/2 x w/2`) and records the winners in `arg`.
pub fn pool_plane(x: &[f32], h: usize, w: usize, y: &mut [f32], arg: &mut [u8]) {
    let wo = w / 2;
    for oy in 0..h / 2 {
        let r0 = &x[2 * oy * w..][..2 * wo];
        let r1 = &x[(2 * oy + 1) * w..][..2 * wo];
        let (yr, ar) = (&mut y[oy * wo..(oy + 1) * wo], &mut arg[oy * wo..(oy + 1) * wo]);
        for (ox, (yv, av)) in yr.iter_mut().zip(ar.iter_mut()).enumerate() {
            let v = [r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1]];
            let (mut best, mut at) = (v[0], 0u8);
            for (k, &e) in v.iter().enumerate().skip(1) {
                if e > best {
                    best = e;
                    at = k as u8;
                }
            }
            let on = best > 0.0;
            *yv = if on { best } else { 0.0 };
            *av = if on { at } else { NONE };
        }
    }
}

/// The adjoint of [`pool_plane`]: writes the gradient of one plane (`h x w`, every entry) from
/// its pooled gradient `dy` and winners `arg`.
pub fn unpool_plane(dy: &[f32], arg: &[u8], h: usize, w: usize, dx: &mut [f32]) {
    dx.fill(0.0);
    let wo = w / 2;
    for oy in 0..h / 2 {
        for ox in 0..wo {
            let a = arg[oy * wo + ox];
            if a != NONE {
                let (ry, rx) = ((a >> 1) as usize, (a & 1) as usize);
                dx[(2 * oy + ry) * w + 2 * ox + rx] = dy[oy * wo + ox];
            }
        }
    }
}

/// `(y, arg)` for `x` of `planes` planes of `h x w`: `y` is `planes x h/2 x w/2`, `arg` the
/// winning entry of each window (`2 dy + dx`, the first of equal maxima in row-major order) or
/// [`NONE`].
pub fn forward(x: &[f32], planes: usize, h: usize, w: usize) -> (Vec<f32>, Vec<u8>) {
    let q = (h / 2) * (w / 2);
    let mut y = vec![0.0f32; planes * q];
    let mut arg = vec![NONE; planes * q];
    if q == 0 {
        return (y, arg);
    }
    y.par_chunks_mut(q).zip(arg.par_chunks_mut(q)).enumerate().for_each(|(pl, (yp, ap))| {
        pool_plane(&x[pl * h * w..(pl + 1) * h * w], h, w, yp, ap);
    });
    (y, arg)
}

/// The input gradient from the output gradient `dy` and the winners `arg` of [`forward`].
pub fn backward(dy: &[f32], arg: &[u8], planes: usize, h: usize, w: usize) -> Vec<f32> {
    let q = (h / 2) * (w / 2);
    let mut dx = vec![0.0f32; planes * h * w];
    if q == 0 {
        return dx;
    }
    dx.par_chunks_mut(h * w).enumerate().for_each(|(pl, dxp)| {
        unpool_plane(&dy[pl * q..(pl + 1) * q], &arg[pl * q..(pl + 1) * q], h, w, dxp);
    });
    dx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_the_positive_maximum_and_routes_its_gradient() {
        // One 3 x 5 plane: the last row and column are dropped.
        let x = [1.0, -2.0, -1.0, -3.0, 9.0, 0.5, 3.0, -0.5, -0.1, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0];
        let (y, arg) = forward(&x, 1, 3, 5);
        assert_eq!(y, vec![3.0, 0.0]);
        assert_eq!(arg, vec![3, NONE]);
        let dx = backward(&[2.0, 5.0], &arg, 1, 3, 5);
        let mut want = vec![0.0; 15];
        want[6] = 2.0;
        assert_eq!(dx, want);
    }
}
