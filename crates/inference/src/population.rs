//! Population moments on a finite population (Liang & Su App. C: "we generate a larger number of
//! samples as the population, so that we can evaluate V easily"): at `theta`, the mean gradient
//! `b(theta) = (1/N) sum_i grad l(theta, z_i)` and the covariance `Sigma(theta) = (1/N) sum_i
//! (grad l_i - b)(grad l_i - b)^T` whose symmetric root is `V(theta)` (eq. 5). The diffusions of
//! eq. (6), (8) and (11) and MasGrad with the population `V` use them.

use rayon::prelude::*;

use crate::direction::{DirectionWork, Outcome, covariance, mean_gradient, sym_power_apply};
use crate::{Data, model::Model};

/// Above this many samples the population gradients are computed in parallel, in fixed blocks
/// (the sums are the same whatever the number of threads: blocks are summed in order).
const PARALLEL: usize = 4096;

/// Buffers for the population moments.
#[derive(Default, Debug)]
pub struct PopulationWork {
    grads: Vec<f64>,
    sigma: Vec<f64>,
    /// Direction buffers.
    pub dir: DirectionWork,
}

/// The gradients of every sample at `theta` (`N x p` row-major) into `work`.
fn all_gradients(model: &dyn Model, theta: &[f64], data: &Data, work: &mut PopulationWork) {
    let p = model.dim();
    work.grads.resize(data.len() * p, 0.0);
    let block = |(k, out): (usize, &mut [f64])| {
        let idx: Vec<usize> = (k * PARALLEL..(k * PARALLEL + out.len() / p)).collect();
        model.batch_grad(theta, data, &idx, out);
    };
    if data.len() >= PARALLEL {
        work.grads.par_chunks_mut(PARALLEL * p).enumerate().for_each(block);
    } else {
        block((0, &mut work.grads));
    }
}

/// `b(theta)` into `b`; `Sigma(theta)` kept in `work` for [`apply_root`].
pub fn moments(model: &dyn Model, theta: &[f64], data: &Data, b: &mut [f64], work: &mut PopulationWork) {
    let p = model.dim();
    all_gradients(model, theta, data, work);
    mean_gradient(&work.grads, p, b);
    covariance(&work.grads, p, b, data.len() as f64, &mut work.sigma);
}

/// `out = scale * V(theta)^{power} v` with `V = Sigma^{1/2}` of the last [`moments`] call
/// (`power = -1`: the inverse root, `power = 1`: the root).
pub fn apply_root(p: usize, power: f64, v: &[f64], scale: f64, out: &mut [f64], work: &mut PopulationWork) -> Outcome {
    let sigma = std::mem::take(&mut work.sigma);
    let o = sym_power_apply(&sigma, p, 0.5 * power, v, scale, out, &mut work.dir);
    work.sigma = sigma;
    o
}

/// The population covariance `Sigma(theta)` of the last [`moments`] call (`p x p`, column-major).
pub fn covariance_matrix(work: &PopulationWork) -> &[f64] {
    &work.sigma
}
